"""`Context`: what a tool function receives when it asks for it.

Besides the call's ids and `deps`, the context reaches the host that runs
the call (see `_host`): progress, log records, a completion from the
host's model, a question for the user, and whether the call was cancelled.
`ctx.sync` offers the same methods to sync tools running in worker
threads: each is handed to the event loop of the call and waited for.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final, Generic, Protocol, TypeVar, overload

from toolkit.core._exceptions import ToolError
from toolkit.core._record import Record

from ._host import (
    Elicited,
    HostScope,
    awaited,
    cannot,
    check_level,
    check_progress,
    check_sampling,
    current_scope,
    host_failed,
    host_method,
    log_progress,
    log_record,
    quietly,
    sampling_messages,
)
from ._tracing import add_event

__all__ = ["Context", "Host", "SyncContext"]

if (
    TYPE_CHECKING
):  # a default, so that a bare `Context` means `Context[Any]` to type checkers
    from typing_extensions import TypeVar as DefaultTypeVar

    DepsT = DefaultTypeVar("DepsT", default=Any)
else:  # the same at run time, without importing typing_extensions
    DepsT = TypeVar("DepsT")

T = TypeVar("T")

DEFAULT_MAX_TOKENS: Final = 512
"""The `max_tokens` of `Context.sample` when the tool gives none."""

_POLL_SECONDS: Final = (
    0.05  # how often a waiting sync tool looks whether its call was cancelled
)


class Context(Record, Generic[DepsT]):
    """The call's context, injected into a parameter annotated `Context`.

    The parameter never appears in the schema the model sees. Annotate it
    `Context[MyDeps]` to type `deps`. The methods reach the host that runs
    the call (`host=` of `execute`/`aexecute`/`run`; the MCP server is
    one): without one, progress and log records go to the `toolkit` logger,
    and `sample`/`elicit` raise a `ToolError` that the model reads.

    Attributes:
        agent_id: The agent that runs the call.
        call_id: The model's id for this call, used to match the result.
        tool_name: The name of the tool being called.
        deps: Whatever the caller passed as `deps=` to `execute`/`run`.
    """

    __match_args__ = ("agent_id", "call_id", "tool_name", "deps")
    __slots__ = ("_scope", "agent_id", "call_id", "deps", "tool_name")
    _injected: Final = True  # how the type layer tells a Context parameter
    agent_id: str
    call_id: str
    tool_name: str
    deps: DepsT

    def __init__(
        self,
        agent_id: str,
        call_id: str,
        tool_name: str,
        deps: DepsT = None,  # type: ignore[assignment]  # None until the caller passes deps
    ) -> None:
        object.__setattr__(self, "agent_id", agent_id)
        object.__setattr__(self, "call_id", call_id)
        object.__setattr__(self, "tool_name", tool_name)
        object.__setattr__(self, "deps", deps)
        object.__setattr__(self, "_scope", current_scope())

    @property
    def _host(self) -> HostScope | None:
        return getattr(self, "_scope", None)  # a copy (copy.replace, pickle) has none

    async def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Say how far the call has come: `progress` of `total` (None: unknown).

        The MCP server sends it as `notifications/progress` when the client
        asked for progress. A failing host is logged, never the tool's error.

        Raises:
            TypeError: `progress` or `total` is not a number.
        """
        check_progress(progress, total, message)
        add_event(
            "toolkit.progress",
            {"progress": progress, "total": total, "message": message},
        )
        method = host_method(self._host, "progress")
        if method is None:
            log_progress(self, progress, total, message)
            return
        await quietly("progress", self, lambda: method(self, progress, total, message))

    async def log(self, level: str, message: str, **data: Any) -> None:
        """Send a log record to the host: `await ctx.log("info", "indexed", count=12)`.

        Args:
            level: debug, info, notice, warning, error, critical, alert or
                emergency.
            message: The text of the record.
            **data: JSON values that go with it.

        Raises:
            ValueError: `level` is not one of those.
        """
        level = check_level(level)
        add_event("toolkit.log", {"level": level, "message": message})
        method = host_method(self._host, "log")
        if method is None:
            log_record(self, level, message, data)
            return
        await quietly("log", self, lambda: method(self, level, message, dict(data)))

    async def sample(
        self,
        prompt_or_messages: str | Sequence[Mapping[str, str]],
        *,
        system: str | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float | None = None,
        key: str | None = None,
    ) -> str:
        """A completion from the host's model.

        Args:
            prompt_or_messages: A prompt (sent as one user message), or a
                list of `{"role": "user" or "assistant", "content": str}`.
            system: The system prompt, if any.
            max_tokens: The most tokens the completion may have.
            temperature: The sampling temperature, or None for the host's.
            key: The name of the question for hosts that ask it in the
                call's result and take the answer with the next call (an
                MCP server and its 2026-07-28 clients: the `inputRequests`
                key); default, a name made from the question.

        Returns:
            The text of the completion.

        Raises:
            ToolError: The host cannot sample, or failed to (the model reads
                the message as the call's error result).
            TypeError: `prompt_or_messages` has the wrong shape.
            ValueError: A bad role or option.
        """
        messages = sampling_messages(prompt_or_messages)
        check_sampling(max_tokens, temperature, system)
        text = await self._ask(
            "sample",
            "ask the host's model for a completion",
            "get a completion from its model",
            messages,
            system=system,
            max_tokens=max_tokens,
            temperature=temperature,
            **_named(key),
        )
        if not isinstance(text, str):
            msg = f"The host answered the request for a completion with {type(text).__name__}, not text."
            raise ToolError(msg)
        return str.__str__(text)

    @overload
    async def elicit(
        self, message: str, schema: dict[str, Any], *, key: str | None = None
    ) -> Elicited[dict[str, Any]]: ...

    @overload
    async def elicit(
        self, message: str, schema: type[T], *, key: str | None = None
    ) -> Elicited[T]: ...

    async def elicit(
        self,
        message: str,
        schema: type[Any] | dict[str, Any],
        *,
        key: str | None = None,
    ) -> Elicited[Any]:
        """Ask the user a question, with a form for the answer.

        Args:
            message: The question.
            schema: A dataclass, TypedDict or NamedTuple whose fields are
                str, int, float, bool, date, datetime, `Literal`/Enum of
                text, or lists of those choices (with defaults), or a JSON
                Schema dict in MCP's elicitation subset. An Enum whose
                members have a `title` (str) is sent as titled choices.
            key: The name of the question, as for `sample`.

        Returns:
            `Elicited(action, data)`: with `"accept"`, `data` is an instance
            of `schema` (a dict for a JSON Schema dict); with `"decline"`
            or `"cancel"`, it is None.

        Raises:
            ToolDefinitionError: `schema` is not something a form can hold;
                the message names the field.
            ToolError: The host cannot ask the user, failed to, or answered
                with data that does not fit `schema` (the message names the
                fields).
        """
        from toolkit.schema._elicit import elicit_form

        form = elicit_form(schema)
        answer = await self._ask(
            "elicit",
            "ask the user a question",
            "ask the user",
            message,
            form.copy_schema(),
            **_named(key),
        )
        if not isinstance(answer, Elicited):
            msg = f"The host answered the question with {type(answer).__name__}, not an Elicited."
            raise ToolError(msg)
        if answer.action != "accept":
            return Elicited(answer.action)
        return Elicited("accept", form.read(answer.data))

    async def roots(self, *, key: str | None = None) -> list[str]:
        """The URIs of the roots the host works in (an MCP client's `roots/list`).

        Args:
            key: The name of the question, as for `sample`.

        Raises:
            ToolError: The host cannot say, or failed to.
        """
        found = await self._ask(
            "roots", "list the host's roots", "list its roots", **_named(key)
        )
        if not isinstance(found, list) or not all(isinstance(u, str) for u in found):
            msg = f"The host answered the request for its roots with {type(found).__name__}, not a list of URIs."
            raise ToolError(msg)
        return list(found)

    async def _ask(
        self, name: str, needs: str, failing: str, *args: Any, **kwargs: Any
    ) -> Any:
        """The answer of the host's method `name`; a `ToolError` when it has none or fails."""
        method = host_method(self._host, name)
        if method is None:
            raise cannot(self, needs)
        try:
            return await awaited(method(self, *args, **kwargs))
        except ToolError:
            raise
        except Exception as error:  # the host's failure: the tool sees a ToolError
            raise host_failed(failing, error) from error

    @property
    def cancelled(self) -> bool:
        """True once the caller stopped waiting for this call.

        The host cancelled it (an MCP `notifications/cancelled`), the task
        that awaits it was cancelled, or it timed out. A sync tool in a
        worker thread cannot be stopped from outside: a long one can look
        at this now and then and return early.
        """
        from ._running import abandoned_here

        return abandoned_here() or _task_cancelling()

    @property
    def sync(self) -> SyncContext:
        """The same methods for sync tools, without `await`: `ctx.sync.report_progress(3, 10)`.

        From a worker thread each is handed to the event loop of the call
        and waited for. A tool that runs on the event loop's own thread
        (`thread=False`) can report progress and log, but not wait for a
        completion or an answer.
        """
        return SyncContext(self)


def _named(key: str | None) -> dict[str, str]:
    """The `key` argument for a host, when the tool named its question (hosts that ask in the result take it)."""
    if key is None:
        return {}
    if not isinstance(key, str) or not key:
        msg = f"key must be a non-empty string, not {key!r}"
        raise ValueError(msg)
    return {"key": key}


class SyncContext:
    """`Context`'s host methods for sync code; each blocks until the host is done."""

    __slots__ = ("_context",)

    def __init__(self, context: Context[Any]) -> None:
        self._context = context

    def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """`Context.report_progress`, from sync code."""
        context = self._context
        check_progress(progress, total, message)
        if host_method(context._host, "progress") is None:
            add_event(
                "toolkit.progress",
                {"progress": progress, "total": total, "message": message},
            )
            log_progress(context, progress, total, message)
            return
        _hand_off(
            context, lambda: context.report_progress(progress, total, message), False
        )

    def log(self, level: str, message: str, **data: Any) -> None:
        """`Context.log`, from sync code."""
        context = self._context
        level = check_level(level)
        if host_method(context._host, "log") is None:
            add_event("toolkit.log", {"level": level, "message": message})
            log_record(context, level, message, data)
            return
        _hand_off(context, lambda: context.log(level, message, **data), False)

    def sample(
        self,
        prompt_or_messages: str | Sequence[Mapping[str, str]],
        *,
        system: str | None = None,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        temperature: float | None = None,
    ) -> str:
        """`Context.sample`, from sync code."""
        context = self._context
        sampling_messages(prompt_or_messages)
        check_sampling(max_tokens, temperature, system)
        if host_method(context._host, "sample") is None:
            raise cannot(context, "ask the host's model for a completion")
        text: str = _hand_off(
            context,
            lambda: context.sample(
                prompt_or_messages,
                system=system,
                max_tokens=max_tokens,
                temperature=temperature,
            ),
            True,
        )
        return text

    @overload
    def elicit(
        self, message: str, schema: dict[str, Any]
    ) -> Elicited[dict[str, Any]]: ...

    @overload
    def elicit(self, message: str, schema: type[T]) -> Elicited[T]: ...

    def elicit(self, message: str, schema: type[Any] | dict[str, Any]) -> Elicited[Any]:
        """`Context.elicit`, from sync code."""
        from toolkit.schema._elicit import elicit_form

        context = self._context
        elicit_form(schema)  # a schema no form holds is refused here, in the tool
        if host_method(context._host, "elicit") is None:
            raise cannot(context, "ask the user a question")
        answer: Elicited[Any] = _hand_off(
            context, lambda: context.elicit(message, schema), True
        )
        return answer

    @property
    def cancelled(self) -> bool:
        """`Context.cancelled`."""
        return self._context.cancelled


def _hand_off(
    context: Context[Any], make: Callable[[], Awaitable[Any]], answer: bool
) -> Any:
    """Run the coroutine `make()` on the call's event loop and wait for it.

    On the event loop's own thread nothing can wait: progress and log are
    scheduled, and a request that needs an answer is refused. Without a
    loop (a sync call from sync code), it runs on a loop of its own here.
    """
    import asyncio

    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        running = None
    if running is not None:
        if answer:
            msg = (
                f'Tool "{context.tool_name}" runs on the event loop\'s thread (thread=False), '
                "where waiting for the host would block the loop. Make the tool async and "
                "await the Context's method, or let it run in a worker thread"
            )
            raise RuntimeError(msg)
        _keep(running.create_task(make()))  # type: ignore[arg-type]  # a coroutine
        return None
    scope = context._host
    loop = scope.loop if scope is not None else None
    if loop is not None and loop.is_running():
        return _wait(asyncio.run_coroutine_threadsafe(make(), loop))  # type: ignore[arg-type]  # a coroutine
    from ._running import block_on

    return block_on(make)


def _wait(future: Any) -> Any:
    """The future's result; given up, and cancelled, once the call is cancelled."""
    import concurrent.futures

    from ._running import abandoned_here

    while True:
        done, _ = concurrent.futures.wait([future], timeout=_POLL_SECONDS)
        if done:
            try:
                return future.result()
            except concurrent.futures.CancelledError:
                msg = "The call was cancelled while it waited for the host."
                raise ToolError(msg) from None
        if abandoned_here():
            future.cancel()
            msg = "The call was cancelled while it waited for the host."
            raise ToolError(msg)


_TASKS: set[Any] = set()  # scheduled progress and log records, kept until they run


def _keep(task: Any) -> None:
    _TASKS.add(task)
    task.add_done_callback(_TASKS.discard)


def _task_cancelling() -> bool:
    """Whether the task running this code is being cancelled (Python 3.11+)."""
    import sys

    asyncio = sys.modules.get("asyncio")
    if asyncio is None:
        return False
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no event loop in this thread
        return False
    cancelling = getattr(task, "cancelling", None)
    return cancelling is not None and cancelling() > 0


class Host(Protocol):
    """What a tool's `Context` reaches; implement any of the methods, sync or async.

    Pass an object with some of them as `host=` to `ToolSet.run`,
    `ToolSet.aexecute`, `ToolSet.execute` or `Tool.execute`/`aexecute`.
    A method left out falls back: progress and log records go to the
    `toolkit` logger, `sample`/`elicit` raise a `ToolError` in the tool,
    and a call that needs approval answers that it does (`approve`).
    Each method gets the call's `Context` first (`call_id`, `tool_name`,
    `deps`), so one host serves concurrent calls.
    """

    async def progress(
        self,
        context: Context[Any],
        progress: float,
        total: float | None,
        message: str | None,
    ) -> None:
        """The call has come `progress` of the way to `total` (None: unknown)."""

    async def log(
        self, context: Context[Any], level: str, message: str, data: dict[str, Any]
    ) -> None:
        """A log record from the tool; `level` is one of `LEVELS`."""

    async def sample(
        self,
        context: Context[Any],
        messages: list[dict[str, str]],
        *,
        system: str | None,
        max_tokens: int,
        temperature: float | None,
    ) -> str:
        """A completion of `messages` (each `{"role", "content"}`) from the host's model."""
        ...

    async def elicit(
        self, context: Context[Any], message: str, schema: dict[str, Any]
    ) -> Elicited[dict[str, Any]]:
        """Ask the user `message`; `schema` is the JSON Schema of the answer's `data`."""
        ...

    async def roots(self, context: Context[Any]) -> list[str]:
        """The URIs of the roots the host works in.

        `sample`, `elicit` and `roots` get `key=` too when the tool named
        its question (a host that asks in the call's result names it so).
        """
        ...

    async def approve(
        self, context: Context[Any], tool_name: str, arguments: dict[str, Any]
    ) -> bool | str:
        """Approve a call of a tool that needs approval: True, or the reason of a denial.

        Without this method, such a call's result says that it needs
        approval (`ToolResult.approval`), for the program to decide.
        """
        ...
