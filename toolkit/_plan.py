"""How a tool runs one call: a plan chosen once, when the tool is made.

A tool made from a function gets a `FunctionPlan`; a tool made by `Tool.new`
gets a `RawPlan`, which calls its `execute_fn`. Either way a call goes one
straight way, the same from sync and async code:

    bind    the model's arguments → the function's keyword arguments
            (parse, check, convert, add the `Context`; `Invoker`), or the
            error result the model can act on
    call    inline, in a thread of toolkit's pool, or awaited, with the
            tool's timeout (how is decided when the plan is compiled)
    finish  what the tool returned → its `ToolResult` (`normalise`, checked
            against the output schema when there is one)

Anything the tool raises is that call's error result (`failure`). The plan
compiles on the first call, so that decoration stays cheap. The values of
one call (`agent_id`, `call_id`, `deps`) travel as arguments of `execute` and
`aexecute`, down to the `Context` that `bind` makes; the host, which the
entry points enter around the call, travels in a context variable (`_host`),
so that it reaches worker threads and nested calls without a parameter more.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from ._exceptions import ToolError
from ._log import log_failure, log_warning
from ._results import Refused, ToolResult, error_text, normalise, safe_text
from ._running import (
    AWAITS_INLINE,
    Fan,
    Raised,
    ThreadPool,
    TimedOut,
    await_tool,
    block_on,
    call_in_thread,
    caller_cancelled,
    in_thread,
    is_awaitable,
)

if TYPE_CHECKING:
    from ._execute import Invoker
    from ._output import OutputCheck
    from ._signature import FunctionInfo
    from ._tool import ErrorFormatter, ExecuteFn, Tool

__all__ = ["FunctionPlan", "Plan", "RawPlan", "is_large"]


class Plan:
    """The way one tool runs its calls; `compile` fills in the rest on the first call.

    Attributes:
        function: The function of a tool made from one, else None.
        is_async: Calling the target gives an awaitable to await.
        is_method: A method read from its class: binding drops `self`/`cls`.
    """

    function: Callable[..., Any] | None = None
    is_async = False
    is_method = False
    _invoker: Invoker | None = None  # set by compile
    _output: OutputCheck | None = None
    _direct: Callable[[Any], bool] | None = None  # the fast path of execute
    _adirect: Callable[[Any], bool] | None = None  # the fast binding of aexecute
    _inline = False  # the sync path calls the target right here
    _awaits_inline = False  # the async path awaits the target right in the task
    # The function, when kwargs are all it takes (no positional-only parameters).
    _call: Callable[..., Any] | None = None
    _fast: Callable[..., Any] | None = None  # the function of aexecute_into's fast path

    def __init__(self, tool: Tool[Any, Any]) -> None:
        self.tool = tool
        self.execute_fn: Callable[[str, str, Any], Any] = self._alone
        """The tool's `execute_fn`."""

    def for_tool(self, tool: Tool[Any, Any]) -> Plan:
        """This plan for a copy of its tool (another name), compiled afresh."""
        raise NotImplementedError

    def _alone(self, agent_id: str, call_id: str, args: Any) -> Any:
        """One call with no `deps`: the `execute_fn` of a tool made from a function."""
        if self.is_async:
            return self.aexecute(agent_id, call_id, args, None, None)
        return self.execute(agent_id, call_id, args, None, None)

    def bound_to(
        self, tool: Tool[Any, Any], target: object, owner: type | None
    ) -> Plan:
        """The plan of a method tool read from an instance (or a classmethod's class)."""
        raise NotImplementedError

    # ------------------------------------------------------------ compiling

    def _invoker_of(self, tool: Tool[Any, Any]) -> Invoker:
        raise NotImplementedError

    def _target(self, invoker: Invoker) -> Callable[[dict[str, Any], str, str], Any]:
        """`target(kwargs, agent_id, call_id)`: the call of the tool's code."""
        raise NotImplementedError

    def compile(self) -> Invoker:
        """Build the checks and choose the ways of calling, from the tool as it is now."""
        tool = self.tool
        self.name = tool.name
        self.timeout = tool.timeout
        self.thread = tool.thread
        invoker = self._invoker_of(tool)
        self.target = self._target(invoker)
        self._inline = self.function is not None and self.timeout is None
        direct = invoker.direct if self.function is not None else None
        self._direct = direct if self._inline and not self.is_async else None
        self._adirect = direct
        self._awaits_inline = self.is_async and self.timeout is None and AWAITS_INLINE
        # Without positional-only parameters the target is `function(**kwargs)`:
        # the function is called as it is, without the target's frame.
        self._call = self.function if not invoker.positional else None
        # Valid arguments of an async function without a timeout (direct is
        # None when there are positional-only parameters or a Context).
        self._fast = self._call if self._awaits_inline and direct else None
        self._invoker = invoker
        return invoker

    def invoker(self) -> Invoker:
        """The arguments' checker and converter (compiled on first use)."""
        return self._invoker or self.compile()

    # ------------------------------------------------------------ calls

    def execute(
        self,
        agent_id: str,
        call_id: str,
        args: Any,
        deps: Any,
        formatter: ErrorFormatter | None,
        pool: ThreadPool | None = None,
    ) -> ToolResult:
        """One call from sync code (an async tool runs on an event loop of its own)."""
        # The common call goes straight through: valid arguments with nothing
        # to convert are the function's kwargs as they are.
        direct = self._direct
        if direct is not None and type(args) is dict:
            try:
                fits = direct(args)
            except RecursionError:
                fits = False
            if fits:
                try:
                    outcome = self.function(**args)  # type: ignore[misc]  # set with _direct
                except BaseException as error:  # whatever the tool raised
                    return self.failure(error, formatter, awaited=False)
                return self.finish(outcome)
        invoker = self._invoker or self.compile()
        if self.is_async:
            return block_on(  # type: ignore[no-any-return]
                lambda: self.aexecute(agent_id, call_id, args, deps, formatter, pool)
            )
        try:
            kwargs = invoker.bind(args, agent_id, call_id, deps)
        except Refused as refused:
            return refused.result
        try:
            if self._inline:
                outcome = self.target(kwargs, agent_id, call_id)
            else:
                outcome = self._blocking(kwargs, agent_id, call_id, pool)
        except BaseException as error:  # whatever the tool raised: this call's result
            return self.failure(error, formatter, awaited=False)
        return self.finish(outcome)

    def _blocking(
        self,
        kwargs: dict[str, Any],
        agent_id: str,
        call_id: str,
        pool: ThreadPool | None,
    ) -> Any:
        """The `execute_fn` of `Tool.new`, or a sync function with a timeout, from sync code."""
        target = self.target
        if self.timeout is not None and self.thread:
            outcome = call_in_thread(
                lambda: target(kwargs, agent_id, call_id), self.timeout, pool
            )
        else:
            outcome = target(kwargs, agent_id, call_id)
        if is_awaitable(outcome):  # an async execute_fn of Tool.new
            return block_on(lambda: await_tool(outcome, self.timeout))
        return outcome

    async def aexecute(
        self,
        agent_id: str,
        call_id: str,
        args: Any,
        deps: Any,
        formatter: ErrorFormatter | None,
        pool: ThreadPool | None = None,
    ) -> ToolResult:
        """One call from async code: a sync tool runs in a pool thread unless `thread=False`."""
        invoker = self._invoker or self.compile()
        large = is_large(args)
        direct = self._adirect
        if direct is not None and not large and _fits(direct, args):
            kwargs = args  # the common async call: valid arguments, nothing to convert
        else:
            try:
                kwargs = (
                    await _bind_in_thread(invoker, args, agent_id, call_id, deps, pool)
                    if large
                    else invoker.bind(args, agent_id, call_id, deps)
                )
            except Refused as refused:
                return refused.result
        target = self.target
        try:
            if self._awaits_inline:  # the common case, without a task or frame more
                call = self._call
                outcome = await (
                    call(**kwargs)
                    if call is not None
                    else target(kwargs, agent_id, call_id)
                )
            elif self.is_async:
                outcome = await await_tool(
                    target(kwargs, agent_id, call_id), self.timeout
                )
            elif self.thread:
                outcome = await in_thread(
                    lambda: target(kwargs, agent_id, call_id), self.timeout, pool
                )
            else:
                outcome = _on_loop(target, kwargs, agent_id, call_id)
            if is_awaitable(outcome):
                outcome = await await_tool(outcome, self.timeout)
        except BaseException as error:  # whatever the tool raised: this call's result
            return self.failure(error, formatter, awaited=True)
        return self.finish(outcome)

    async def aexecute_into(
        self,
        fan: Fan,
        index: int,
        agent_id: str,
        call_id: str,
        args: Any,
        deps: Any,
        formatter: ErrorFormatter | None,
        pool: ThreadPool | None = None,
    ) -> None:
        """`aexecute`, its result stored in `fan` as call `index`'s: one coroutine per call of a turn.

        Valid arguments of an async function without a timeout take the
        fast path of `aexecute` right here, rather than in a coroutine
        awaited by another; every other call awaits `aexecute`. What it
        raises (the caller's cancellation, `KeyboardInterrupt`) goes to
        `fan.fail`.
        """
        try:
            call, direct = self._fast, self._adirect
            if (
                call is not None
                and direct is not None
                and not is_large(args)
                and _fits(direct, args)
            ):
                try:
                    outcome = await call(**args)
                    if is_awaitable(outcome):
                        outcome = await await_tool(outcome, None)
                except BaseException as error:  # whatever the tool raised
                    result = self.failure(error, formatter, awaited=True)
                else:
                    # finish(outcome), without its call for the common text
                    result = (
                        ToolResult(outcome)
                        if type(outcome) is str and self._output is None
                        else self.finish(outcome)
                    )
            else:
                result = await self.aexecute(
                    agent_id, call_id, args, deps, formatter, pool
                )
        except BaseException as error:  # raised to the caller, as gather does
            fan.fail(error)
            return
        fan.put(index, result)

    # ------------------------------------------------------------ outcomes

    def finish(self, outcome: Any) -> ToolResult:
        """What the tool returned → its result; checked against the return annotation if it has a schema."""
        check = self._output
        if check is not None:
            return check.result(outcome)
        if type(outcome) is str:
            return ToolResult(outcome)
        return normalise(outcome, self.name)

    def failure(
        self, error: BaseException, formatter: ErrorFormatter | None, *, awaited: bool
    ) -> ToolResult:
        """A call that raised → the error result the model sees.

        `KeyboardInterrupt` and the cancellation of the awaiting task go on
        (raised again); anything else the tool raised, `SystemExit`,
        `StopIteration`, `GeneratorExit`, its own `CancelledError` and other
        `BaseException`s included, is this call's error result.
        """
        if isinstance(error, Raised):
            error = error.error
        elif awaited and caller_cancelled(error):
            raise error
        if isinstance(error, KeyboardInterrupt):
            raise error
        if isinstance(error, TimedOut):
            log_warning(
                "Tool %r timed out after %g seconds%s",
                self.name,
                self.timeout,
                error.note,
            )
            return ToolResult.error(
                f'Tool "{self.name}" timed out after {self.timeout:g} seconds.'
            )
        if isinstance(error, ToolError):
            text = safe_text(error)
            if text is not None:
                return ToolResult.error(text)
        log_failure("Tool %r raised %s", self.name, error_text(error), error=error)
        if formatter is not None:
            return _formatted(formatter, self.tool, error)
        return ToolResult.error(error_text(error))


class FunctionPlan(Plan):
    """The plan of a tool made from a function: its kwargs are the checked, converted arguments."""

    def __init__(
        self,
        tool: Tool[Any, Any],
        function: Callable[..., Any],
        info: FunctionInfo,
        *,
        is_method: bool,
        is_async: bool,
    ) -> None:
        super().__init__(tool)
        self.function = function
        self.info = info
        self.is_method = is_method
        self.is_async = is_async

    def for_tool(self, tool: Tool[Any, Any]) -> FunctionPlan:
        return FunctionPlan(
            tool,
            self.function,  # type: ignore[arg-type]  # a FunctionPlan has one
            self.info,
            is_method=self.is_method,
            is_async=self.is_async,
        )

    def bound_to(
        self, tool: Tool[Any, Any], target: object, owner: type | None
    ) -> FunctionPlan:
        function = self.function.__get__(target, owner)  # type: ignore[union-attr]
        return FunctionPlan(
            tool, function, self.info, is_method=False, is_async=self.is_async
        )

    def _invoker_of(self, tool: Tool[Any, Any]) -> Invoker:
        from ._execute import (
            Invoker,  # with the checks and converters, on the first call
        )

        info = self.info
        if tool.output_schema is not None and info.return_shown is not None:
            from ._output import OutputCheck

            self._output = OutputCheck(
                name=tool.name, schema=tool.output_schema, shown=info.return_shown
            )
        return Invoker(
            name=tool.name,
            parameters=tool.parameters,
            fields=info.fields,
            context=info.context,
            positional=tuple(
                (item.name, item.default)
                for item in info.fields
                if item.name in info.positional_only
            ),
        )

    def _target(self, invoker: Invoker) -> Callable[[dict[str, Any], str, str], Any]:
        function: Callable[..., Any] = self.function  # type: ignore[assignment]
        if invoker.positional:
            call = invoker.call
            return lambda kwargs, agent_id, call_id: call(function, kwargs)
        return lambda kwargs, agent_id, call_id: function(**kwargs)


class RawPlan(Plan):
    """The plan of a tool made by `Tool.new`: its `execute_fn` gets the checked arguments as sent."""

    def __init__(self, tool: Tool[Any, Any], execute_fn: ExecuteFn) -> None:
        super().__init__(tool)
        self.raw = execute_fn
        self.execute_fn = execute_fn  # the tool's own, as given

    def for_tool(self, tool: Tool[Any, Any]) -> RawPlan:
        return RawPlan(tool, self.raw)

    def _invoker_of(self, tool: Tool[Any, Any]) -> Invoker:
        from ._execute import Invoker  # with the checks, on the first call

        return Invoker(name=tool.name, parameters=tool.parameters)

    def _target(self, invoker: Invoker) -> Callable[[dict[str, Any], str, str], Any]:
        execute_fn = self.raw
        return lambda kwargs, agent_id, call_id: execute_fn(agent_id, call_id, kwargs)


def _fits(check: Callable[[Any], bool], args: Any) -> bool:
    try:
        return type(args) is dict and check(args)
    except RecursionError:
        return False


async def _bind_in_thread(
    invoker: Invoker,
    args: Any,
    agent_id: str,
    call_id: str,
    deps: Any,
    pool: ThreadPool | None,
) -> dict[str, Any]:
    """Check and convert big arguments in a thread of toolkit's pool.

    A check of a megabyte takes tens of milliseconds; meanwhile the event loop
    keeps serving the other calls and sessions.

    Raises:
        Refused: The arguments are not valid (its result says why).
    """
    try:
        kwargs: dict[str, Any] = await in_thread(
            lambda: invoker.bind(args, agent_id, call_id, deps), None, pool
        )
    except Raised as wrapped:  # bind raises only Refused and KeyboardInterrupt
        raise wrapped.error from None
    return kwargs


def _on_loop(
    target: Callable[[dict[str, Any], str, str], Any],
    kwargs: dict[str, Any],
    agent_id: str,
    call_id: str,
) -> Any:
    """Call a sync target on the loop's thread; what it raises comes wrapped in `Raised`.

    Wrapped, a `CancelledError` that the function raised cannot pass for the
    cancellation of the awaiting task.
    """
    try:
        return target(kwargs, agent_id, call_id)
    except BaseException as error:  # carried to failure, which unwraps it
        raise Raised(error) from None


def _formatted(
    formatter: ErrorFormatter, made: Tool[Any, Any], error: BaseException
) -> ToolResult:
    """The text of a `ToolSet`'s error formatter; a broken formatter must not break the call."""
    try:
        text = formatter(made, error)
        return ToolResult.error(text if type(text) is str else str(text))
    except KeyboardInterrupt:
        raise
    except BaseException as failure:  # the formatter's own bug
        log_failure("The error formatter failed on tool %r", made.name, error=failure)
        return ToolResult.error(error_text(failure))


# ------------------------------------------------------------------ the size of arguments

_LARGE: Final = 20_000
"""Work units (container items; four characters of text, as a JSON-encoded
string sent for a list may be decoded) above which checking a value can hold
a thread for a millisecond or more."""
_SMALL_SCALARS: Final = frozenset({int, float, bool, type(None)})


def is_large(value: Any, budget: int = _LARGE) -> bool:
    """Whether `value` is too big to check without noticeably holding up the caller.

    The walk stops as soon as the budget is spent, so it costs at most
    `budget` steps whatever the value's size, depth or cycles.
    """
    if type(value) is dict and len(value) < 64:  # the common call, inline
        for item in value.values():
            kind = type(item)
            if kind is str:
                if len(item) > 4096:
                    break
            elif kind not in _SMALL_SCALARS:
                break
        else:
            return False  # a few scalars and short strings
    try:
        return _over_budget(value, budget)
    except Exception:  # a Python caller's container whose own code raises
        return True  # checked off the loop, where its error becomes the call's result


def _over_budget(value: Any, budget: int) -> bool:
    pending = [value]
    while pending:
        item = pending.pop()
        if type(item) in _SMALL_SCALARS:
            budget -= 1
        elif isinstance(item, (str, bytes, bytearray)):
            budget -= 1 + len(item) // 4
        elif isinstance(item, (dict, list, tuple, set, frozenset)):
            budget -= 1 + len(item)
            if budget >= 0:
                pending.extend(item.items() if isinstance(item, dict) else item)
        else:
            budget -= 1
        if budget < 0:
            return True
    return False
