"""The host: where a tool's progress, log records and questions go.

A tool reaches the program that runs it through its `Context`:
`report_progress`, `log`, `sample` (a completion from the host's model) and
`elicit` (a question for the user). The program passes `host=` to
`execute`/`aexecute`/`run`; the host implements any of the `Host` methods,
sync or async. The MCP server is one host; an agent loop can be another.

Without a host, or without the method: progress and log records go to the
`toolkit` logger, and `sample`/`elicit` raise a `ToolError` saying that
this host cannot do it, which the model reads as the call's error result.

The host travels in a context variable set by the call's entry point, so
it reaches the tool's `Context` wherever the call runs: in the caller's
task, in the tasks of `run`, or in a worker thread (whose context is a
copy of the caller's). The `Context` keeps it from the moment it is made.
"""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final, Generic, Literal, Protocol, TypeVar

from toolkit.core._exceptions import ToolError
from toolkit.core._log import log_failure, logger
from toolkit.core._record import Record
from toolkit.values._json import is_number

from ._running import is_awaitable

__all__ = [
    "LEVELS",
    "PYTHON_LEVELS",
    "Called",
    "Elicited",
    "HostScope",
    "InputRequired",
    "hosted",
]

T = TypeVar("T")

LEVELS: Final = (
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
)
"""The log levels of `Context.log`, least severe first (those of syslog and MCP)."""

PYTHON_LEVELS: Final = {
    "debug": 10,
    "info": 20,
    "notice": 25,
    "warning": 30,
    "error": 40,
    "critical": 50,
    "alert": 50,
    "emergency": 50,
}
"""The Python logging level of each of `LEVELS`, for records that go to the `toolkit` logger."""

ACTIONS: Final = ("accept", "decline", "cancel")


class Elicited(Record, Generic[T]):
    """The user's answer to `Context.elicit`.

    Attributes:
        action: `"accept"` (the user answered: `data` holds the answer),
            `"decline"` (the user said no) or `"cancel"` (the user dismissed
            the question).
        data: With `"accept"`, an instance of the type that `elicit` asked
            for (a dict for a JSON Schema dict); otherwise None. A host
            returns the answer as a JSON dict.
    """

    __match_args__ = ("action", "data")
    __slots__ = ("action", "data")
    action: Literal["accept", "decline", "cancel"]
    data: T | None

    def __init__(
        self, action: Literal["accept", "decline", "cancel"], data: T | None = None
    ) -> None:
        if action not in ACTIONS:
            msg = f"Elicited action is {action!r}; it is one of 'accept', 'decline', 'cancel'"
            raise ValueError(msg)
        object.__setattr__(self, "action", action)
        object.__setattr__(self, "data", data)

    @property
    def accepted(self) -> bool:
        """Whether the user answered (`action == "accept"`)."""
        return self.action == "accept"


class Called(Protocol):
    """What the host's helpers read of a call's `Context`: which call it is."""

    @property
    def tool_name(self) -> str: ...

    @property
    def call_id(self) -> str: ...


class InputRequired(ToolError):
    """A host that cannot wait for an answer during the call asks for it in its result.

    Raised by such a host (an MCP server speaking a protocol version where
    the server cannot send requests) from `sample` or `elicit`: the tool
    stops, the host answers the call with the questions, and the call runs
    again once the answers come. A `ToolError`, so that the tool's result
    in the meantime is a plain error result and nothing is logged as a crash.
    """


class HostScope:
    """The host of the calls made under one entry point, and the event loop they run on."""

    __slots__ = ("host", "loop")

    def __init__(self, host: object, loop: Any) -> None:
        self.host = host
        self.loop = loop


_SCOPE: contextvars.ContextVar[HostScope | None] = contextvars.ContextVar(
    "toolkit_host", default=None
)


class hosted:  # used as `with hosted(...)`, like a function
    """`with hosted(host, on_loop=...)`: `host` is the host of the calls made inside.

    With `host=None` the current host, if any, stays. `on_loop` says that
    the caller runs on an event loop (async entry points), which sync tools
    in worker threads hand their requests to.
    """

    __slots__ = ("_host", "_on_loop", "_token")

    def __init__(self, host: object, *, on_loop: bool) -> None:
        self._host = host
        self._on_loop = on_loop
        self._token: contextvars.Token[HostScope | None] | None = None

    def __enter__(self) -> None:
        if self._host is None:
            return
        loop = None
        if self._on_loop:
            import asyncio

            loop = asyncio.get_running_loop()
        self._token = _SCOPE.set(HostScope(self._host, loop))

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            _SCOPE.reset(self._token)


def current_scope() -> HostScope | None:
    """The host scope of the call being made, if it has a host."""
    return _SCOPE.get()


def host_method(scope: HostScope | None, name: str) -> Callable[..., Any] | None:
    """The host's method `name`, or None when there is no host or it lacks the method."""
    return None if scope is None else method_of(scope.host, name)


def method_of(host: object, name: str) -> Callable[..., Any] | None:
    """`host`'s method `name`, or None when it lacks the method (or `host` is None)."""
    method = getattr(host, name, None)
    return method if callable(method) else None


async def awaited(value: Any) -> Any:
    """`value`, awaited when the host's method was async."""
    if is_awaitable(value):
        return await value
    return value


# ------------------------------------------------------------ progress and log


def check_progress(progress: object, total: object, message: object) -> None:
    """Refuse values that are not a progress report (a bug in the tool).

    Raises:
        TypeError: `progress` or `total` is not a number, or `message` not text.
    """
    for name, value in (("progress", progress), ("total", total)):
        if (value is not None or name == "progress") and not is_number(value):
            msg = (
                f"report_progress: {name} must be a number, got {type(value).__name__}"
            )
            raise TypeError(msg)
    if message is not None and not isinstance(message, str):
        msg = f"report_progress: message must be text, got {type(message).__name__}"
        raise TypeError(msg)


def log_progress(
    context: Called, progress: float, total: float | None, message: str | None
) -> None:
    """Progress without a host: a DEBUG record on the `toolkit` logger."""
    of = f"/{total:g}" if total is not None else ""
    logger().debug(
        "Tool %r (call %s) progress %g%s%s",
        context.tool_name,
        context.call_id,
        progress,
        of,
        f": {message}" if message else "",
    )


def check_level(level: object) -> str:
    """`level`, if it is one of `LEVELS`.

    Raises:
        ValueError: It is not.
    """
    if level not in LEVELS:
        msg = f"log level {level!r} is not one of {', '.join(LEVELS)}"
        raise ValueError(msg)
    return level


def log_record(
    context: Called, level: str, message: str, data: Mapping[str, Any]
) -> None:
    """A log record without a host: on the `toolkit` logger, at the matching Python level."""
    extra = " ".join(f"{key}={value!r}" for key, value in data.items())
    logger().log(
        PYTHON_LEVELS[level],
        "Tool %r (call %s): %s%s",
        context.tool_name,
        context.call_id,
        message,
        f" {extra}" if extra else "",
    )


async def quietly(
    what: str, context: Called, call: Callable[[], Awaitable[Any] | None]
) -> None:
    """Call a host's progress or log method; its failure is logged, never the tool's."""
    try:
        await awaited(call())
    except Exception as error:  # a broken host must not break the tool
        log_failure(
            "The host's %s method failed for tool %r",
            what,
            context.tool_name,
            error=error,
        )


# ------------------------------------------------------------ sampling


def sampling_messages(prompt_or_messages: object) -> list[dict[str, str]]:
    """The messages of `Context.sample`: a prompt becomes one user message.

    Raises:
        TypeError: Neither text nor a list of `{"role", "content"}` dicts of text.
        ValueError: A role other than "user" or "assistant", or no message.
    """
    if isinstance(prompt_or_messages, str):
        return [{"role": "user", "content": prompt_or_messages}]
    if not isinstance(prompt_or_messages, Sequence) or isinstance(
        prompt_or_messages, (bytes, bytearray)
    ):
        msg = f'sample takes a prompt (str) or a list of {{"role", "content"}} messages, got {type(prompt_or_messages).__name__}'
        raise TypeError(msg)
    messages = [_message(index, item) for index, item in enumerate(prompt_or_messages)]
    if not messages:
        msg = "sample needs at least one message"
        raise ValueError(msg)
    return messages


def _message(index: int, item: object) -> dict[str, str]:
    if not isinstance(item, Mapping) or not isinstance(item.get("content"), str):
        msg = f'sample: message {index} must be a dict {{"role": "user" or "assistant", "content": str}}, got {item!r}'
        raise TypeError(msg)
    role = item.get("role")
    if role not in ("user", "assistant"):
        msg = f'sample: message {index} has role {role!r}; use "user" or "assistant" (the system prompt goes in system=)'
        raise ValueError(msg)
    return {"role": role, "content": item["content"]}


def check_sampling(max_tokens: object, temperature: object, system: object) -> None:
    """Refuse sampling options of the wrong kind (a bug in the tool).

    Raises:
        ValueError: `max_tokens` is not a positive integer, or `temperature`
            not a number, or `system` not text.
    """
    if (
        isinstance(max_tokens, bool)
        or not isinstance(max_tokens, int)
        or max_tokens < 1
    ):
        msg = f"sample: max_tokens must be a positive integer, got {max_tokens!r}"
        raise ValueError(msg)
    if temperature is not None and not is_number(temperature):
        msg = f"sample: temperature must be a number or None, got {temperature!r}"
        raise ValueError(msg)
    if system is not None and not isinstance(system, str):
        msg = f"sample: system must be text or None, got {type(system).__name__}"
        raise ValueError(msg)


def cannot(
    context: Called, what: str, why: str = "this host cannot do that"
) -> ToolError:
    """The error of a tool that asked a host for what it cannot do (`why` says what stands in the way)."""
    return ToolError(f'Tool "{context.tool_name}" needs to {what}, but {why}.')


def host_failed(what: str, error: BaseException) -> ToolError:
    """A host's sample/elicit raised: the tool sees a `ToolError` saying so."""
    from toolkit.values._results import error_text

    return ToolError(f"The host could not {what}: {error_text(error)}")
