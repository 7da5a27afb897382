"""The MCP tasks extension (`io.modelcontextprotocol/tasks`), which the MCP SDK does not implement.

A tool declared `@tool(task="optional")` or `"required"`, called by a
client of protocol 2026-07-28 that declares the extension (for the session,
or in one request's `_meta`), runs as a task:

- The call starts the tool and waits a moment (`Tasks.window`). A tool that
  finishes, or asks the client something, within it answers as any call
  does (its result, or an input-required result). A tool still working
  then becomes a task: the task is written to the store, and only then
  does the call answer with a `CreateTaskResult` (`resultType: "task"`,
  `taskId`, `status`, timestamps, `ttlMs`, `pollIntervalMs`).
- `tasks/get` reads the task from the store: `working`, `input_required`
  (with the questions the tool waits on, as `inputRequests`), or a
  terminal status: `completed` (with the tool's result inlined, an error
  result included), `failed` (a protocol error, as `error`) or `cancelled`.
- `tasks/update` takes answers (`inputResponses`) to those questions; the
  tool goes on once each of its questions is answered. An answer to a
  question the task does not ask is ignored (acknowledged, never kept);
  one that does not fit its question (an elicitation answered with a
  string) is refused (-32602), and the task keeps waiting.
- `tasks/cancel` marks the task cancelled; the process that runs the tool
  stops it.

Everything a task is lives in a `TaskStore`: `MemoryTaskStore` in this
process, or `RedisTaskStore` (`_redis`) shared by workers and replicas, so
that any of them answers `tasks/get`, `tasks/update` and `tasks/cancel` for
a task another one runs. The process that runs a task learns of its
answers and of its cancellation as they come: the store tells it
(`TaskStore.listen`: in memory, at once; in Redis, a pub/sub message), and
only then does it read the task's record, one key. A store without
`listen` is read every `poll` seconds instead. A task is kept for its
`ttlMs` from its creation, then expires.

A store that fails (Redis down a few seconds) stops no task: the process
that runs it retries with backoff, and records the task's end once the
store answers again. A call that could become a task is refused, before
its tool starts, while the store cannot be reached (an `isError` result
saying so), so that no tool runs as a task that nobody can follow, and a
`tasks/*` request answers an error that says the store cannot be reached. When
the server stops, every task still running here is cancelled and
recorded `cancelled` with a `statusMessage`, so that none stays `working`.
A client has `max_tasks` live tasks at most in a process (default
1,000; the tokens' client when `auth=` is on, else every client as one):
a call beyond is refused before its tool starts.

A task made by an authenticated client (`auth=`) is that client's (the
`client_id`, issuer and `subject` of its access token, compared as the SDK
compares the owners of sessions): to any other client,
`tasks/*` answer as for a task that does not exist. A task id is
unguessable, but whoever saw one must not be able to use it.

A client that did not declare the extension gets a `"required"` tool's call
refused with error -32021, and `tasks/*` requests refused likewise; an
`"optional"` tool runs for it as any tool does.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import json
import logging
import re
import secrets
import time
from collections import Counter
from typing import TYPE_CHECKING, Any, Final

from toolkit.providers.mcp import dump
from toolkit.run._running import is_seconds
from toolkit.values._results import ToolResult, error_text

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from toolkit.tools._tool import Tool

from ._task_store import MemoryTaskStore, TaskStore, store_at
from ._task_store import now as timestamp

__all__ = [
    "DEFAULT_MAX_TASKS",
    "DEFAULT_TASK_TTL",
    "EXTENSION",
    "Tasks",
]

EXTENSION: Final = "io.modelcontextprotocol/tasks"

DEFAULT_TASK_TTL: Final = 3600.0
"""Seconds a task (and its result) is kept after it is created."""

DEFAULT_WINDOW: Final = 0.2
"""Seconds a task tool's call waits for the tool before it answers with a task instead."""

DEFAULT_POLL: Final = 0.1
"""Seconds between a running task's looks at a store that cannot tell it of changes (no `listen`)."""

DEFAULT_MAX_TASKS: Final = 1000
"""Live tasks a client may have in one process; a call beyond is refused before its tool starts."""

RETRY_FIRST: Final = 0.05
RETRY_MOST: Final = 2.0
"""Seconds between tries of a store operation that failed: doubling from the first to the most."""

SHUTDOWN_WAIT: Final = 5.0
"""Seconds a stopping server spends recording its running tasks as cancelled (the store may be down)."""

EVERYTHING: Final = "*"
"""What `listen` reports when any task may have changed (it was not listening for a while)."""

_log = logging.getLogger("toolkit.mcp.tasks")

TERMINAL: Final = frozenset({"completed", "failed", "cancelled"})

TASK_ID: Final = re.compile(r"[A-Za-z0-9_-]{1,128}")
"""What a task id the server makes looks like: any other is no task's, and never reaches the store."""

OWNER: Final = "toolkit.owner"
"""Where a task's record keeps who made it (an authenticated client), never sent to clients."""


class Tasks:
    """The tasks of one server: its store, and the tools it runs as tasks in this process."""

    def __init__(
        self,
        store: TaskStore | str | None = None,
        *,
        ttl: float = DEFAULT_TASK_TTL,
        window: float = DEFAULT_WINDOW,
        poll: float = DEFAULT_POLL,
        max_tasks: int | None = DEFAULT_MAX_TASKS,
    ) -> None:
        if not is_seconds(ttl) or ttl == float("inf"):  # a record must expire
            msg = f"task_ttl must be a positive number of seconds, not {ttl!r}"
            raise ValueError(msg)
        if max_tasks is not None and (
            isinstance(max_tasks, bool)
            or not isinstance(max_tasks, int)
            or max_tasks < 1
        ):
            msg = f"max_tasks must be a whole number of tasks, 1 or more (or None), not {max_tasks!r}"
            raise ValueError(msg)
        if isinstance(store, str):
            store = store_at(store)
        self.store: TaskStore = store if store is not None else MemoryTaskStore()
        self.ttl = ttl
        self.window = window
        self.poll = poll
        self.max_tasks = max_tasks
        self._running: set[asyncio.Task[Any]] = set()
        self._live: dict[str, _Live] = {}  # the tasks whose tools run here
        self._clients: Counter[str] = (
            Counter()
        )  # live tasks (and calls about to be) per client
        self._listener: asyncio.Task[None] | None = None
        self._closing = False

    # ------------------------------------------------------------ negotiation

    @staticmethod
    def negotiated(ctx: Any) -> bool:
        """Whether the request's client declared the extension (for its session or in the request), and speaks 2026-07-28.

        The extension is one of protocol 2026-07-28: a 2025-11-25 client
        that declares it has no `CreateTaskResult` in its protocol, so its
        calls run as any call.
        """
        import mcp.types as types

        from ._modern import is_modern

        wanted = types.ClientCapabilities(extensions={EXTENSION: {}})
        return is_modern(ctx) and bool(ctx.session.check_client_capability(wanted))

    @staticmethod
    def refusal(what: str, ctx: Any) -> Exception:
        """Error -32021: the request needs the extension, which its client did not declare (or cannot have)."""
        from mcp.shared.exceptions import MCPError
        from mcp_types import MISSING_REQUIRED_CLIENT_CAPABILITY

        from ._modern import is_modern

        why = (
            "which the client did not declare"
            if is_modern(ctx)
            else f"of MCP 2026-07-28, which the client does not speak (it speaks {ctx.protocol_version})"
        )
        return MCPError(
            MISSING_REQUIRED_CLIENT_CAPABILITY,
            f"{what} needs the {EXTENSION} extension, {why}.",
            data={"requiredCapabilities": {"extensions": {EXTENSION: {}}}},
        )

    # ------------------------------------------------------------ running a call

    def refuse_required(self, tool: Tool[Any, Any], call: Any, ctx: Any) -> None:
        """Refuse (-32021) a call of a `"required"` task tool from a client without the extension."""
        call.close()
        msg = f'Tool "{tool.name}"'
        raise self.refusal(msg, ctx)

    async def call(self, host: Any, call: Any, finish: Any) -> Any:
        """Run `call` (the tool's call, a coroutine): its answer when quick, else a `CreateTaskResult`.

        `finish(outcome)` makes the call's answer from the tool's outcome
        (`CallToolResult`, input-required result, or raises the error the
        call fails with); it is used for a quick call and for a task's result.
        A call is refused (an `isError` result, its tool never started) when
        its client has `max_tasks` live tasks here, or the store cannot be
        reached: a tool that ran as a task nobody can follow would be run
        again by a client that retries.
        """
        owner = _principal()
        client = json.dumps(owner)
        if self.max_tasks is not None and self._clients[client] >= self.max_tasks:
            call.close()
            return finish(
                ToolResult.error(
                    f"The tool was not started: this client has {self.max_tasks} live "
                    "tasks, the most it may have (max_tasks). Wait for one to end, or "
                    "cancel one (tasks/cancel), and call again."
                )
            )
        try:
            await self._reach_store()
        except Exception as error:  # the store is down: nothing starts
            call.close()
            _log.warning(
                "Task store unreachable, a task call refused: %s", error_text(error)
            )
            return finish(
                ToolResult.error(
                    "The tool was not started: the task store cannot be reached "
                    f"({error_text(error)}). Call again in a moment."
                )
            )
        self._clients[client] += 1
        handed_over = False
        try:
            answer = await self._start(host, call, finish, owner, client)
            handed_over = (
                isinstance(answer, dict) and answer.get("resultType") == "task"
            )
            return answer
        finally:
            if not handed_over:
                self._release(client)

    async def _start(
        self, host: Any, call: Any, finish: Any, owner: Any, client: str
    ) -> Any:
        running = asyncio.ensure_future(call)
        try:
            done, _ = await asyncio.wait({running}, timeout=self.window)
        except BaseException:  # the call was stopped before it became a task
            running.cancel()
            raise
        if done or host.pending or host.missing is not None:
            return finish(await running)
        task_id = secrets.token_urlsafe(16)
        now = timestamp()
        record = {
            "taskId": task_id,
            "status": "working",
            "createdAt": now,
            "lastUpdatedAt": now,
            "ttlMs": round(self.ttl * 1000),
            "pollIntervalMs": max(1, round(self.poll * 1000)),
        }
        kept = record if owner is None else {**record, OWNER: owner}
        live = _Live(running, client, time.monotonic() + self.ttl)
        self._live[task_id] = live  # before the save, so that no change is missed
        self._listen()
        # Written before the client learns of the task. While the store
        # fails, the tool keeps running and the call waits: for the save
        # (then it answers the task), or for the tool (then its result).
        saving = asyncio.ensure_future(
            self._retry(
                f"task {task_id}: saving", self.store.save, task_id, kept, self.ttl
            )
        )
        try:
            await asyncio.wait({saving, running}, return_when=asyncio.FIRST_COMPLETED)
        except BaseException:
            saving.cancel()
            running.cancel()
            del self._live[task_id]
            raise
        if not saving.done():
            saving.cancel()
            del self._live[task_id]
            return finish(await running)
        host.task = _TaskLink(self, task_id)
        background = asyncio.ensure_future(self._follow(task_id, live, finish))
        self._running.add(background)
        background.add_done_callback(self._running.discard)
        return {"resultType": "task", **record}

    def _release(self, client: str) -> None:
        self._clients[client] -= 1
        if self._clients[client] <= 0:
            del self._clients[client]

    async def _reach_store(self) -> None:
        ping = getattr(self.store, "ping", None)
        if ping is not None:
            await ping()
        else:
            await self.store.load("-")

    def _listen(self) -> None:
        """Start hearing of the store's changes (once), where the store can tell them."""
        listen = getattr(self.store, "listen", None)
        if listen is not None and self._listener is None:
            self._listener = asyncio.ensure_future(listen(self._changed))
            self._listener.add_done_callback(_listener_ended)

    def _changed(self, task_id: str) -> None:
        if task_id == EVERYTHING:
            for each in self._live.values():
                each.touch()
        elif (live := self._live.get(task_id)) is not None:
            live.touch()

    def _quiet(self, failing: float | None) -> float | None:
        """How long a task waits for a change before it looks at the store anyway."""
        heard = self._listener is not None and not self._listener.done()
        wait = None if heard else self.poll
        if failing is not None:
            wait = failing if wait is None else min(wait, failing)
        return wait

    async def _follow(self, task_id: str, live: _Live, finish: Any) -> None:
        """Wait for the tool, stopping it if the task is cancelled; keep its outcome in the store."""
        running = live.running
        try:
            delay: float | None = None  # set while the store fails
            seen = live.change
            while not running.done():
                waiter = asyncio.ensure_future(seen.wait())
                try:
                    # An expiring record tells no one: look at the store
                    # again when it would expire, at the latest.
                    left = max(0.001, live.expires - time.monotonic())
                    quiet = self._quiet(delay)
                    await asyncio.wait(
                        {running, waiter},
                        timeout=left if quiet is None else min(quiet, left),
                        return_when=asyncio.FIRST_COMPLETED,
                    )
                finally:
                    waiter.cancel()
                if running.done():
                    break
                seen = (
                    live.change
                )  # before the read: a change during it wakes the next wait
                try:
                    record = await self.store.load(task_id)
                except Exception as error:
                    delay = _later(delay)
                    _log.warning(
                        "Task %s: the store failed (%s); retrying",
                        task_id,
                        error_text(error),
                    )
                    continue
                delay = None
                if record is None or record["status"] == "cancelled":
                    running.cancel()
                    return
                live.expires = time.monotonic() + self._left(record)
            try:
                answer = finish(running.result())
                changes: dict[str, Any] = {
                    "status": "completed",
                    "result": dump(answer),
                }
            except asyncio.CancelledError:
                why = (
                    "The server stopped before the tool finished."
                    if self._closing
                    else "The tool was stopped before it finished."
                )
                changes = {"status": "cancelled", "statusMessage": why}
            except Exception as error:  # a protocol error: the task failed
                changes = {"status": "failed", "error": _error(error)}
            await self._retry(
                f"task {task_id}: recording its end",
                self._update,
                task_id,
                changes,
                ("inputRequests",),
            )
        finally:
            self._live.pop(task_id, None)
            self._release(live.client)

    async def _retry(self, what: str, operation: Any, *args: Any) -> Any:
        """`operation(*args)`, tried again with backoff while the store fails."""
        delay: float | None = None
        while True:
            try:
                result = await operation(*args)
            except Exception as error:
                delay = _later(delay)
                _log.warning(
                    "%s: the store failed (%s); retrying in %gs",
                    what,
                    error_text(error),
                    delay,
                )
                await asyncio.sleep(delay)
                continue
            if delay is not None:
                _log.warning("%s: the store answers again", what)
            return result

    async def _update(
        self, task_id: str, changes: dict[str, Any], drop: tuple[str, ...] = ()
    ) -> dict[str, Any] | None:
        record = await self.store.load(task_id)
        if record is None or record["status"] in TERMINAL:
            return None
        for key in drop:
            record.pop(key, None)
        record.update(changes, lastUpdatedAt=timestamp())
        await self.store.save(task_id, record, self._left(record))
        return record

    def _left(self, record: dict[str, Any]) -> float:
        created = datetime.datetime.fromisoformat(
            record["createdAt"].replace("Z", "+00:00")
        )
        age = (datetime.datetime.now(datetime.timezone.utc) - created).total_seconds()
        return max(0.001, float(record["ttlMs"]) / 1000 - age)

    # ------------------------------------------------------------ questions of a task

    async def ask(self, task_id: str, key: str, request: dict[str, Any]) -> Any:
        """The client's answer to the question `key`, waiting with the task `input_required` until it comes."""
        live = self._live.get(task_id)
        seen = live.change if live is not None else None
        what = f"task {task_id}: asking {key!r}"
        answers = await self._retry(what, self.store.answers, task_id)
        if key not in answers:
            record = await self._retry(what, self.store.load, task_id)
            if record is not None and record["status"] not in TERMINAL:
                asked = {**record.get("inputRequests", {}), key: request}
                await self._retry(
                    what,
                    self._update,
                    task_id,
                    {"status": "input_required", "inputRequests": asked},
                )
            delay: float | None = None
            while key not in answers:
                if seen is not None and self._quiet(delay) is None:
                    await seen.wait()  # an answer, or any change of the task
                else:
                    await asyncio.sleep(self._quiet(delay) or self.poll)
                if live is not None:
                    seen = live.change
                try:
                    answers = await self.store.answers(task_id)
                except Exception as error:
                    delay = _later(delay)
                    _log.warning(
                        "%s: the store failed (%s); retrying", what, error_text(error)
                    )
                    continue
                delay = None
        return answers[key]

    # ------------------------------------------------------------ tasks/* requests

    async def get(self, ctx: Any, params: Any) -> dict[str, Any]:
        record = await self._known(ctx, params)
        record.pop(OWNER, None)
        return record

    async def update(self, ctx: Any, params: Any) -> dict[str, Any]:
        record = await self._known(ctx, params)
        responses = dict(getattr(params, "input_responses", None) or {})
        if not responses or record["status"] in TERMINAL:
            return {}
        answered = await self.store.answers(params.task_id)
        responses = _new_answers(responses, record.get("inputRequests", {}), answered)
        if not responses:
            return {}  # answers to nothing the task asks now: acknowledged, not kept
        await self.store.answer(params.task_id, dump(responses), self._left(record))
        asked = {
            key: value
            for key, value in record.get("inputRequests", {}).items()
            if key not in responses
        }
        changes: dict[str, Any] = {"inputRequests": asked}
        if not asked:
            changes["status"] = "working"
        await self._update(
            params.task_id, changes, drop=() if asked else ("inputRequests",)
        )
        return {}

    async def cancel(self, ctx: Any, params: Any) -> dict[str, Any]:
        await self._known(ctx, params)
        await self._update(
            params.task_id, {"status": "cancelled"}, drop=("inputRequests",)
        )
        return {}

    async def _known(self, ctx: Any, params: Any) -> dict[str, Any]:
        """The task a `tasks/*` request names, after the checks every such request passes."""
        from mcp.shared.exceptions import MCPError
        from mcp_types import HEADER_MISMATCH, INTERNAL_ERROR, INVALID_PARAMS

        if not self.negotiated(ctx):
            raise self.refusal(str(ctx.method), ctx)
        request = ctx.request
        named = request.headers.get("mcp-name") if request is not None else None
        if named is not None and named != params.task_id:
            msg = "Mcp-Name header does not match the request's taskId"
            raise MCPError(HEADER_MISMATCH, msg)
        if not TASK_ID.fullmatch(params.task_id):
            # Never an id the server made ("ID:answers" is a Redis key of
            # another kind): the store does not see it.
            msg = "Unknown task: a task id is the taskId the server gave, 1 to 128 letters, digits, '-' or '_'."
            raise MCPError(INVALID_PARAMS, msg)
        try:
            record = await self.store.load(params.task_id)
        except Exception as error:  # the store is down: say so, the client asks again
            msg = f"The task store cannot be reached ({error_text(error)}); ask again in a moment."
            raise MCPError(INTERNAL_ERROR, msg) from None
        if record is None or record.get(OWNER) != _principal():
            # Another client's task is none of this one's, and looks like none at all.
            msg = f"Unknown task {params.task_id!r} (it never was, or it expired)."
            raise MCPError(INVALID_PARAMS, msg)
        return record

    @contextlib.asynccontextmanager
    async def lifespan(self, server: Any) -> AsyncIterator[dict[str, Any]]:
        """The server's lifespan: on the way out, stop the tasks still running here, record them cancelled, close the store."""
        try:
            yield {}
        finally:
            self._closing = True
            for live in list(self._live.values()):
                live.running.cancel()
            if self._running:  # each records its task cancelled, with the reason
                _, late = await asyncio.wait(self._running, timeout=SHUTDOWN_WAIT)
                for follower in late:
                    follower.cancel()
                if late:
                    _log.warning(
                        "%d task(s) not recorded as cancelled: the store did not answer in %gs",
                        len(late),
                        SHUTDOWN_WAIT,
                    )
                    await asyncio.wait(late)
            if self._listener is not None:
                self._listener.cancel()
                with contextlib.suppress(BaseException):
                    await self._listener
            close = getattr(self.store, "aclose", None)
            if close is not None:
                await close()

    def register(self, server: Any) -> None:
        """Serve `tasks/get`, `tasks/update` and `tasks/cancel`, and advertise the extension."""
        from mcp.types import RequestParams
        from pydantic import Field

        class TaskParams(RequestParams):
            task_id: str
            input_responses: dict[str, Any] | None = Field(default=None)

        server.extensions[EXTENSION] = {}
        server.add_request_handler("tasks/get", TaskParams, self.get)
        server.add_request_handler("tasks/update", TaskParams, self.update)
        server.add_request_handler("tasks/cancel", TaskParams, self.cancel)


def _listener_ended(listener: asyncio.Future[Any]) -> None:
    """Log, once, why a store stopped telling of changes; its tasks poll from then on."""
    error = None if listener.cancelled() else listener.exception()
    if error is not None:
        _log.warning(
            "The task store stopped telling of changes (%s); tasks poll it instead",
            error_text(error),
        )


class _Live:
    """A task whose tool runs in this process: the tool, its client, and what wakes its waiters."""

    def __init__(
        self, running: asyncio.Future[Any], client: str, expires: float
    ) -> None:
        self.running = running
        self.client = client
        self.expires = expires  # `time.monotonic()` when the record expires
        self.change = asyncio.Event()  # set (and replaced) at each change of the task

    def touch(self) -> None:
        self.change.set()
        self.change = asyncio.Event()


def _later(delay: float | None) -> float:
    """The next wait between tries of a failing store operation."""
    return RETRY_FIRST if delay is None else min(RETRY_MOST, delay * 2)


class _TaskLink:
    """What a call's host asks through once its call became a task: the task's questions."""

    def __init__(self, tasks: Tasks, task_id: str) -> None:
        self.tasks = tasks
        self.task_id = task_id

    async def ask(self, key: str, request: Any) -> Any:
        body = dump(request)
        return await self.tasks.ask(self.task_id, key, body)


def _principal() -> list[str | None] | None:
    """Who sends the current request: its access token's client, issuer and subject, as the SDK tells sessions apart; None without a token."""
    from mcp.server.auth.middleware.auth_context import get_access_token
    from mcp.server.auth.provider import principal_components

    token = get_access_token()
    return None if token is None else list(principal_components(token))


def _new_answers(
    responses: dict[str, Any], asked: dict[str, Any], answered: dict[str, Any]
) -> dict[str, Any]:
    """The answers of a `tasks/update` to keep: those to the task's open questions, each checked against its question.

    An answer to a question the task does not ask is ignored (the update
    is still acknowledged, as the extension wants), so that no answer can
    wait in the store for a question the tool asks later. A key already
    answered is taken as a retry of the same update, and left as it was.

    Raises:
        MCPError: -32602, an answer does not fit its question (an
            elicitation answered with a string); nothing of the update is kept.
    """
    import mcp.types as types
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS
    from pydantic import ValidationError

    kinds: dict[str, Any] = {
        "elicitation/create": types.ElicitResult,
        "sampling/createMessage": types.CreateMessageResult,
        "roots/list": types.ListRootsResult,
    }
    kept: dict[str, Any] = {}
    for key, response in responses.items():
        question = asked.get(key)
        if key in answered or not isinstance(question, dict):
            continue
        kept[key] = response
        method = question.get("method")
        kind = kinds.get(method) if isinstance(method, str) else None
        try:
            if kind is not None:
                kind.model_validate(response)
        except ValidationError as error:
            problems = "; ".join(
                f"{'.'.join(map(str, item['loc'])) or 'the answer'}: {item['msg']}"
                for item in error.errors(include_url=False)[:3]
            )
            msg = f"The answer to {key!r} does not fit its {method} question ({problems})."
            raise MCPError(INVALID_PARAMS, msg) from None
    return kept


def _error(error: Exception) -> dict[str, Any]:
    """A JSON-RPC error object for a task that failed."""
    from mcp_types import INTERNAL_ERROR

    data = getattr(error, "error", None)  # an MCPError carries its JSON-RPC error
    if data is not None and hasattr(data, "code"):
        return dump(data)  # type: ignore[no-any-return]
    return {"code": INTERNAL_ERROR, "message": error_text(error)}
