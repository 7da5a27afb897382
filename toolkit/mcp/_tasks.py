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
a task another one runs. The process that runs a task reads the store every
`poll` seconds, for answers and for a cancellation. A task is kept for its
`ttlMs` from its creation, then expires.

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
import re
import secrets
import time
from typing import TYPE_CHECKING, Any, Final, Protocol

from toolkit.providers.mcp import dump
from toolkit.run._running import is_seconds
from toolkit.values._results import error_text

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from toolkit.tools._tool import Tool

__all__ = [
    "DEFAULT_TASK_TTL",
    "EXTENSION",
    "MemoryTaskStore",
    "TaskStore",
    "Tasks",
]

EXTENSION: Final = "io.modelcontextprotocol/tasks"

DEFAULT_TASK_TTL: Final = 3600.0
"""Seconds a task (and its result) is kept after it is created."""

DEFAULT_WINDOW: Final = 0.2
"""Seconds a task tool's call waits for the tool before it answers with a task instead."""

DEFAULT_POLL: Final = 0.1
"""Seconds between the running process's looks at the store (answers, cancellation)."""

TERMINAL: Final = frozenset({"completed", "failed", "cancelled"})

TASK_ID: Final = re.compile(r"[A-Za-z0-9_-]{1,128}")
"""What a task id the server makes looks like: any other is no task's, and never reaches the store."""

OWNER: Final = "toolkit.owner"
"""Where a task's record keeps who made it (an authenticated client), never sent to clients."""


class TaskStore(Protocol):
    """Where tasks live: a record per task, and the answers its client sent, each kept for `ttl` seconds.

    Records are JSON objects (dicts of JSON values); a store never reads
    them. Every method may be called from any worker.
    """

    async def save(self, task_id: str, record: dict[str, Any], ttl: float) -> None:
        """Keep `record` as the task's record (replacing the one kept), for `ttl` seconds from now."""
        ...

    async def load(self, task_id: str) -> dict[str, Any] | None:
        """The task's record, or None for a task this store does not know (or that expired)."""
        ...

    async def answer(self, task_id: str, responses: dict[str, Any], ttl: float) -> None:
        """Add `responses` (question key → answer) to the task's answers."""
        ...

    async def answers(self, task_id: str) -> dict[str, Any]:
        """The answers sent for the task so far."""
        ...


class MemoryTaskStore:
    """A `TaskStore` in this process's memory: for one process (stdio, or HTTP without workers)."""

    def __init__(self) -> None:
        self._records: dict[str, tuple[float, dict[str, Any]]] = {}
        self._answers: dict[str, dict[str, Any]] = {}

    async def save(self, task_id: str, record: dict[str, Any], ttl: float) -> None:
        self._prune()
        self._records[task_id] = (time.monotonic() + ttl, dict(record))

    async def load(self, task_id: str) -> dict[str, Any] | None:
        self._prune()
        kept = self._records.get(task_id)
        return dict(kept[1]) if kept is not None else None

    async def answer(self, task_id: str, responses: dict[str, Any], ttl: float) -> None:
        self._answers.setdefault(task_id, {}).update(responses)

    async def answers(self, task_id: str) -> dict[str, Any]:
        return dict(self._answers.get(task_id, {}))

    def _prune(self) -> None:
        now = time.monotonic()
        for task_id in [k for k, (until, _) in self._records.items() if until <= now]:
            del self._records[task_id]
            self._answers.pop(task_id, None)


def _now() -> str:
    return (
        datetime.datetime.now(datetime.timezone.utc)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


class Tasks:
    """The tasks of one server: its store, and the tools it runs as tasks in this process."""

    def __init__(
        self,
        store: TaskStore | str | None = None,
        *,
        ttl: float = DEFAULT_TASK_TTL,
        window: float = DEFAULT_WINDOW,
        poll: float = DEFAULT_POLL,
    ) -> None:
        if not is_seconds(ttl) or ttl == float("inf"):  # a record must expire
            msg = f"task_ttl must be a positive number of seconds, not {ttl!r}"
            raise ValueError(msg)
        if isinstance(store, str):
            store = _store_at(store)
        self.store: TaskStore = store if store is not None else MemoryTaskStore()
        self.ttl = ttl
        self.window = window
        self.poll = poll
        self._running: set[asyncio.Task[Any]] = set()

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

    def check_required(self, tool: Tool[Any, Any], call: Any, ctx: Any) -> None:
        """Refuse (-32021) a call of a `"required"` task tool from a client without the extension."""
        if tool.task == "required":
            call.close()
            msg = f'Tool "{tool.name}"'
            raise self.refusal(msg, ctx)

    async def call(self, host: Any, call: Any, finish: Any) -> Any:
        """Run `call` (the tool's call, a coroutine): its answer when quick, else a `CreateTaskResult`.

        `finish(outcome)` makes the call's answer from the tool's outcome
        (`CallToolResult`, input-required result, or raises the error the
        call fails with); it is used for a quick call and for a task's result.
        """
        running = asyncio.ensure_future(call)
        try:
            done, _ = await asyncio.wait({running}, timeout=self.window)
        except BaseException:  # the call was stopped before it became a task
            running.cancel()
            raise
        if done or host.pending or host.missing is not None:
            return finish(await running)
        task_id = secrets.token_urlsafe(16)
        now = _now()
        record = {
            "taskId": task_id,
            "status": "working",
            "createdAt": now,
            "lastUpdatedAt": now,
            "ttlMs": round(self.ttl * 1000),
            "pollIntervalMs": max(1, round(self.poll * 1000)),
        }
        owner = _principal()
        kept = record if owner is None else {**record, OWNER: owner}
        await self.store.save(task_id, kept, self.ttl)  # before the client asks for it
        host.task = _TaskLink(self, task_id)
        background = asyncio.ensure_future(self._follow(task_id, running, finish))
        self._running.add(background)
        background.add_done_callback(self._running.discard)
        return {"resultType": "task", **record}

    async def _follow(
        self, task_id: str, running: asyncio.Future[Any], finish: Any
    ) -> None:
        """Wait for the tool, stopping it if the task is cancelled; keep its outcome in the store."""
        while not running.done():
            await asyncio.wait({running}, timeout=self.poll)
            record = await self.store.load(task_id)
            if record is None or record["status"] == "cancelled":
                running.cancel()
                return
        try:
            answer = finish(running.result())
            changes: dict[str, Any] = {"status": "completed", "result": dump(answer)}
        except asyncio.CancelledError:
            return
        except Exception as error:  # a protocol error: the task failed
            changes = {"status": "failed", "error": _error(error)}
        await self._update(task_id, changes, drop=("inputRequests",))

    async def _update(
        self, task_id: str, changes: dict[str, Any], drop: tuple[str, ...] = ()
    ) -> dict[str, Any] | None:
        record = await self.store.load(task_id)
        if record is None or record["status"] in TERMINAL:
            return None
        for key in drop:
            record.pop(key, None)
        record.update(changes, lastUpdatedAt=_now())
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
        answers = await self.store.answers(task_id)
        if key not in answers:
            record = await self.store.load(task_id)
            if record is not None and record["status"] not in TERMINAL:
                asked = {**record.get("inputRequests", {}), key: request}
                await self._update(
                    task_id, {"status": "input_required", "inputRequests": asked}
                )
            while key not in answers:
                await asyncio.sleep(self.poll)
                answers = await self.store.answers(task_id)
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
        from mcp_types import HEADER_MISMATCH, INVALID_PARAMS

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
        record = await self.store.load(params.task_id)
        if record is None or record.get(OWNER) != _principal():
            # Another client's task is none of this one's, and looks like none at all.
            msg = f"Unknown task {params.task_id!r} (it never was, or it expired)."
            raise MCPError(INVALID_PARAMS, msg)
        return record

    @contextlib.asynccontextmanager
    async def lifespan(self, server: Any) -> AsyncIterator[dict[str, Any]]:
        """The server's lifespan: on the way out, stop the tasks still running here and close the store."""
        try:
            yield {}
        finally:
            for running in list(self._running):
                running.cancel()
            if self._running:
                await asyncio.wait(self._running)
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


def _store_at(url: str) -> TaskStore:
    """The store a URL names: `redis://HOST:PORT/N` (or `rediss://`).

    Raises:
        ValueError: Not a URL of a store that toolkit has.
    """
    if url.startswith(("redis://", "rediss://")):
        from ._redis import RedisTaskStore

        return RedisTaskStore(url)
    msg = f"task store {url!r}: give redis://HOST:PORT/N, or a TaskStore from Python"
    raise ValueError(msg)


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
