"""Middleware: code that wraps every call of a `ToolSet` (approval, logging, caching, limits).

A middleware is `async def m(call, context, call_next) -> ToolResult`; the
set's middleware runs in the order added, the first outermost, and each
calls `await call_next(call)` to go on to the next one, then the tool.
Whatever a middleware raises, and whatever it returns that is not a
`ToolResult` with text, is the call's error result; `KeyboardInterrupt` and
the cancellation of the awaiting task go on.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from toolkit.core._exceptions import ToolDefinitionError
from toolkit.core._log import log_failure
from toolkit.run._context import Context
from toolkit.run._running import Raised, await_tool, caller_cancelled, is_awaitable
from toolkit.values._json import type_name
from toolkit.values._results import ToolCall, ToolResult, checked_result, error_text

__all__ = ["CallNext", "Middleware", "check_middleware", "through_middleware"]

CallNext = Callable[[ToolCall], Awaitable[ToolResult]]
Middleware = Callable[[ToolCall, Context[Any], CallNext], Awaitable[ToolResult]]
"""`async def middleware(call, context, call_next) -> ToolResult`."""


async def through_middleware(
    chain: Sequence[Middleware],
    call: ToolCall,
    context: Context[Any],
    dispatch: CallNext,
) -> ToolResult:
    """`call` through each middleware of `chain` in turn, then `dispatch` (the tool)."""
    if not chain:
        return await dispatch(call)
    middleware, rest = chain[0], chain[1:]
    label = _name_of(middleware)

    async def call_next(*args: Any, **kwargs: Any) -> ToolResult:
        return await through_middleware(
            rest, _the_call(args, kwargs, label), context, dispatch
        )

    call_next.__qualname__ = call_next.__name__  # what a TypeError would show
    try:
        result = middleware(call, context, call_next)
        if is_awaitable(result):
            result = await await_tool(result, None)
        return checked_result(result, f'Middleware "{label}"')
    except BaseException as error:  # whatever the middleware raised: this call's result
        return _failure(error, label, call)


def check_middleware(middleware: Any) -> None:
    """Refuse a middleware that cannot be called as `m(call, context, call_next)`.

    Raises:
        ToolDefinitionError: It is not callable, or its signature does not
            take the three arguments.
    """
    label = _name_of(middleware) if callable(middleware) else repr(middleware)
    fix = f"Write it as `async def {label if label.isidentifier() else 'middleware'}(call, context, call_next) -> ToolResult`, calling `await call_next(call)` to go on"
    if not callable(middleware):
        msg = f"Middleware {label} is not callable. {fix}"
        raise ToolDefinitionError(msg)
    import inspect

    try:
        signature = inspect.signature(middleware)
    except (TypeError, ValueError):  # a builtin or C callable: it says at call time
        return
    try:
        signature.bind(None, None, None)
    except TypeError as error:
        msg = f"Middleware {label} cannot be called with (call, context, call_next): {error}. {fix}"
        raise ToolDefinitionError(msg) from None


def _name_of(middleware: Any) -> str:
    """The middleware's function name, for messages (its class name for other callables)."""
    name = getattr(middleware, "__name__", None)
    if type(name) is str:
        return name
    return getattr(middleware, "__qualname__", None) or type_name(middleware)


def _the_call(args: tuple[Any, ...], kwargs: dict[str, Any], label: str) -> ToolCall:
    """The one `ToolCall` that a middleware passes to `call_next`.

    Raises:
        TypeError: It passed something else.
    """
    if len(args) == 1 and not kwargs and isinstance(args[0], ToolCall):
        return args[0]
    if not args and len(kwargs) == 1 and isinstance(kwargs.get("call"), ToolCall):
        return kwargs["call"]  # type: ignore[no-any-return]
    given = ", ".join(
        [type_name(arg) for arg in args] + [f"{key}=..." for key in kwargs]
    )
    msg = f'call_next takes the ToolCall, as in `await call_next(call)`; middleware "{label}" gave ({given})'
    raise TypeError(msg)


def _failure(error: BaseException, label: str, call: ToolCall) -> ToolResult:
    """A middleware that raised → the call's error result; the interrupt and the caller's cancellation go on."""
    if isinstance(error, Raised):
        error = error.error
    elif caller_cancelled(error):
        raise error
    if isinstance(error, KeyboardInterrupt):
        raise error
    log_failure("Middleware %r failed on tool %r", label, call.name, error=error)
    return ToolResult.error(error_text(error))
