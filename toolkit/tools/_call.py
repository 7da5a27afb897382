"""One call of a tool: bind, call, finish, from sync and async code alike.

Each tool holds a `ToolRunner`, made with the tool: what it calls (its
function, or the `execute_fn` of `Tool.new`) and whether that is async.
The checks of its arguments and of its result are built on its first call,
so that decoration stays cheap. Every call takes the same three steps:

    bind    the model's arguments → what the code takes (`Binder.bind`):
            parse JSON text, drop the nulls a strict export sends for
            optional parameters, validate with the compiled check (a
            JSON-encoded string sent for a list or an object is decoded
            when that makes it valid), convert to the annotated types, add
            the defaults the function lacks and the `Context`. Arguments
            that cannot be used raise `Refused`, whose result tells the
            model why.
    call    an async tool is awaited; a sync tool runs in a thread of
            toolkit's pool (from async code unless `thread=False`, from
            sync code only to enforce a timeout); the timeout ends the wait.
            It bounds the whole call: an awaitable that the code returns
            gets the time that is left.
    finish  what the tool returned → its `ToolResult`: `normalise`, or the
            output check when the return annotation has a schema.

`aexecute` runs the steps, from async code; from sync code (`Tool.execute`,
`ToolSet.execute`) the same coroutine runs with `blocking=True`: every wait
(a pool thread, a slot, a retry's pause, an async tool on an event loop of
its own) then blocks the caller's thread, so the coroutine never suspends
and `run_blocking` runs it to the end with one `send`, with no event loop
for a sync tool. Anything the tool raises is
that call's error result (`failure`); `KeyboardInterrupt` and the
cancellation of the awaiting task go on. The host, which the entry points
enter around the call, travels in a context variable (`_host`), so that it
reaches worker threads without a parameter more.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Coroutine
from contextlib import nullcontext
from functools import partial
from typing import TYPE_CHECKING, Any

from toolkit.core._exceptions import ToolError
from toolkit.core._log import log_failure, log_warning
from toolkit.run._context import Context
from toolkit.run._running import (
    Raised,
    ThreadPool,
    TimedOut,
    await_tool,
    block_on,
    call_in_thread,
    caller_cancelled,
    in_thread,
    is_awaitable,
    is_large,
    run_blocking,
)
from toolkit.run._tracing import (
    FOUND,
    SDK,
    current,
    end_call,
    hook_arguments,
    note_error,
    span_step,
    start_call,
    tracing_on,
)
from toolkit.schema._arguments import (
    Refusal,
    not_converted,
    parse_arguments,
    too_deep,
    unchecked,
)
from toolkit.values._results import (
    Refused,
    ToolResult,
    error_text,
    normalise,
    safe_text,
)

from ._options import ExecuteFn, Formatter, Runnable

if TYPE_CHECKING:
    from toolkit.core._aliases import JsonObject, JsonSchema
    from toolkit.hints._nodes import Field
    from toolkit.policies._policies import Policy, SetPolicy
    from toolkit.schema._checker import Check
    from toolkit.schema._output import OutputCheck
    from toolkit.schema._signature import FunctionInfo

__all__ = [
    "Binder",
    "ExecuteFn",
    "Formatter",
    "Runnable",
    "ToolRunner",
    "parse_arguments",
]


Invoke = Callable[[dict[str, Any], str, str], Any]
"""`invoke(bound, agent_id, call_id)`: the call of the tool's code with the bound arguments."""


class ToolRunner:
    """How one tool runs its calls: what it calls, and the steps of each call.

    Args:
        tool: The tool it runs.
        function: The function of a tool made from one (with `info`, what
            its signature says), else None.
        execute_fn: The `execute_fn` of a tool made by `Tool.new`, else None.
        is_method: A method read from its class: reading it from an
            instance binds it (`bound_to`).
        is_async: Calling the code gives an awaitable to await.
    """

    def __init__(
        self,
        tool: Runnable,
        *,
        function: Callable[..., Any] | None = None,
        info: FunctionInfo | None = None,
        execute_fn: ExecuteFn | None = None,
        is_method: bool = False,
        is_async: bool = False,
    ) -> None:
        self.tool = tool
        self.function = function
        self.info = info
        self.raw = execute_fn
        self.is_method = is_method
        self.is_async = is_async
        self.execute_fn: Callable[[str, str, Any], Any] = execute_fn or self._alone
        """The tool's `execute_fn`: `Tool.new`'s own, or one call without `deps`."""
        self._binder: Binder | None = None  # the rest is set by _build
        self._output: OutputCheck | None = None
        self.policy: Policy | None = None
        self.source: ToolRunner | None = (
            None  # the runner of the tool this one's tool copies
        )

    def for_tool(self, tool: Runnable) -> ToolRunner:
        """This runner for a copy of its tool (another name), built afresh.

        The copy counts against the same limits (slots and rate) as the
        tool it copies: a renamed view must not double a tool's rate.
        """
        runner = ToolRunner(
            tool,
            function=self.function,
            info=self.info,
            execute_fn=self.raw,
            is_method=self.is_method,
            is_async=self.is_async,
        )
        runner.source = self
        return runner

    def bound_to(
        self, tool: Runnable, instance: object, owner: type | None
    ) -> ToolRunner:
        """The runner of a method tool read from an instance (or a classmethod's class)."""
        function = self.function.__get__(instance, owner)  # type: ignore[union-attr]  # a method tool has one
        return ToolRunner(
            tool, function=function, info=self.info, is_async=self.is_async
        )

    def _alone(self, agent_id: str, call_id: str, args: Any) -> Any:
        """The `execute_fn` of a tool made from a function: one call with no `deps`."""
        if self.is_async:
            return self.aexecute(agent_id, call_id, args, None, None)
        return run_blocking(
            self.aexecute(agent_id, call_id, args, None, None, blocking=True)
        )

    # ------------------------------------------------------------ building

    def binder(self) -> Binder:
        """The bind step (built on first use, with the rest of what a call needs)."""
        return self._binder or self._build()

    def _build(self) -> Binder:
        """Build the checks and read the tool's options, as the tool is now."""
        tool, info = self.tool, self.info
        self.name = tool.name
        self.timeout = tool.timeout
        self.thread = tool.thread
        if (
            tool.requires_approval is not False
            or tool.max_concurrency
            or tool.rate is not None
            or tool.retries
        ):
            from toolkit.policies._policies import Policy

            source = self.source
            if source is not None:
                source.binder()  # builds its policy
            self.policy = Policy(tool, source.policy if source is not None else None)
        if info is None:
            binder = Binder(name=tool.name, parameters=tool.parameters)
            execute_fn: ExecuteFn = self.raw  # type: ignore[assignment]  # set without a function
            if not self.is_async:  # decided now: `Tool.new` was left cheap
                from toolkit.hints._callables import is_async_callable

                self.is_async = is_async_callable(execute_fn)
            self.invoke: Invoke = lambda bound, agent_id, call_id: execute_fn(
                agent_id, call_id, bound
            )
        else:
            binder = Binder(
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
            self.invoke = binder.caller(self.function)  # type: ignore[arg-type]  # set with info
            if tool.output_schema is not None and info.return_shown is not None:
                from toolkit.schema._convert import key_renamer
                from toolkit.schema._output import OutputCheck

                self._output = OutputCheck(
                    name=tool.name,
                    schema=tool.output_schema,
                    shown=info.return_shown,
                    rename=key_renamer(info.return_node)
                    if info.return_node is not None
                    else None,
                )
        self._binder = binder
        return binder

    # ------------------------------------------------------------ one call

    def aexecute(
        self,
        agent_id: str,
        call_id: str,
        args: Any,
        deps: Any,
        formatter: Formatter | None,
        pool: ThreadPool | None = None,
        policy: SetPolicy | None = None,
        *,
        blocking: bool = False,
    ) -> Coroutine[Any, Any, ToolResult]:
        """One call, to await: bind, (the policies,) call, finish; a span of it when tracing.

        From async code, big arguments are bound in a thread of the pool and
        a sync tool runs there too (unless `thread=False`), so that the
        event loop keeps serving other calls. With `blocking=True` (a call
        from sync code) every wait blocks the caller's thread instead: a
        sync tool is called right here, or in a pool thread when it has a
        timeout; an async tool runs on an event loop of its own. Then the
        steps never suspend, and `run_blocking` runs them with no event
        loop. `policy` is what the set the call is made through adds
        (approvals, tracing).

        A plain function that hands back the steps' coroutine: one
        coroutine fewer per call than an `async def` that awaits them.
        """
        steps = self._steps(
            agent_id, call_id, args, deps, formatter, pool, policy, blocking
        )
        # A span only when a tracer takes one: a process that merely imported
        # the OpenTelemetry SDK, with no provider set, pays one look-up more.
        if FOUND or (SDK in sys.modules and tracing_on()):
            return self._traced(steps, call_id, args, policy, blocking)
        return steps

    async def _traced(
        self,
        steps: Coroutine[Any, Any, ToolResult],
        call_id: str,
        args: Any,
        policy: SetPolicy | None,
        blocking: bool,
    ) -> ToolResult:
        """`steps` in a span of the call, when a tracer takes one.

        The span starts and ends in the tracing thread; the call waits for
        each at most `END_WAIT` seconds (by blocking its thread when
        `blocking`, else without blocking the event loop), so that tracing
        never holds a call nor its event loop. A span that has not started
        by then is not the current one of the call, and still ends.
        """
        content = policy.trace_content if policy is not None else False
        arguments = partial(hook_arguments, args, content)
        holder: list[Any] = []  # the span, once the tracing thread started it
        try:
            await span_step(
                partial(start_call, holder, self.tool, call_id, arguments, content),
                blocking,
            )
        except BaseException:  # cancelled while the span starts: neither runs on
            steps.close()
            end_call(holder, None, content, self.tool.name, lambda: None)
            raise
        # A span not started by now is not the call's current one; it ends all the same.
        with current(holder[0]) if holder else nullcontext():
            try:
                result = await steps
            except (
                BaseException
            ):  # cancelled, or interrupted: the span ends all the same
                end_call(holder, None, content, self.name, lambda: None)
                raise
        await span_step(partial(end_call, holder, result, content, self.name), blocking)
        return result

    async def _steps(
        self,
        agent_id: str,
        call_id: str,
        args: Any,
        deps: Any,
        formatter: Formatter | None,
        pool: ThreadPool | None,
        policy: SetPolicy | None,
        blocking: bool,
    ) -> ToolResult:
        binder = self._binder or self._build()
        try:
            if not blocking and is_large(args):
                bound = await _bound_in_thread(
                    binder, args, agent_id, call_id, deps, pool
                )
            else:
                bound = binder.bind(args, agent_id, call_id, deps)
        except Refused as refused:
            return refused.result
        if self.policy is None and (policy is None or policy.rule is False):
            return await self.called(
                bound, agent_id, call_id, formatter, pool, blocking
            )
        from toolkit.policies._gate import guarded

        return await guarded(
            self,
            parse_arguments(self.name, args),
            bound,
            agent_id,
            call_id,
            deps,
            formatter,
            pool,
            policy,
            blocking,
        )

    async def called(
        self,
        bound: dict[str, Any],
        agent_id: str,
        call_id: str,
        formatter: Formatter | None,
        pool: ThreadPool | None,
        blocking: bool,
    ) -> ToolResult:
        """Call the code with `bound` and finish its result (tries again as the policy says).

        A sync tool runs in a pool thread from async code (unless
        `thread=False`), and in a blocking call only to enforce a timeout.
        What the code returns is awaited if need be (by a blocking call on
        an event loop of its own). The timeout bounds the whole call: an
        awaitable that sync code returns gets the time that is left.
        """
        in_pool = (
            self.thread
            and not self.is_async
            and (self.timeout is not None or not blocking)
        )
        tries = 1
        while True:
            deadline = None if self.timeout is None else _deadline(self.timeout)
            try:
                if in_pool:
                    thunk = lambda: self.invoke(bound, agent_id, call_id)  # noqa: E731
                    if blocking:
                        outcome = call_in_thread(thunk, self.timeout, pool)
                    else:
                        outcome = await in_thread(thunk, self.timeout, pool)
                else:
                    outcome = _wrapped(self.invoke, bound, agent_id, call_id)
                if is_awaitable(outcome):  # an async tool's, or a sync `execute_fn`'s
                    left = _left(deadline)
                    if blocking:
                        outcome = block_on(partial(await_tool, outcome, left))
                    else:
                        outcome = await await_tool(outcome, left)
            except (
                BaseException
            ) as error:  # whatever the tool raised: this call's result
                wait = self._retry(error, tries, awaited=not blocking)
                if wait is None:
                    return self.failure(error, formatter, awaited=not blocking)
                if blocking:
                    time.sleep(wait)
                else:
                    import asyncio

                    await asyncio.sleep(wait)
                tries += 1
                continue
            return self.finish(outcome)

    def _retry(
        self, error: BaseException, tries: int, *, awaited: bool
    ) -> float | None:
        """The wait before trying a call that raised `error` again, or None to give up."""
        policy = self.policy
        if policy is None or not policy.retries:
            return None
        if isinstance(error, Raised):
            error = error.error
        elif awaited and caller_cancelled(error):
            return None
        if not policy.retryable(error, tries):
            return None
        wait = policy.backoff(tries)
        log_warning(
            "Tool %r failed on try %d of %d (%s); trying again in %.2f seconds",
            self.name,
            tries,
            policy.retries + 1,
            error_text(error),
            wait,
        )
        return wait

    def finish(self, outcome: Any) -> ToolResult:
        """What the tool returned → its result, checked against its output schema if it has one."""
        check = self._output
        if check is not None:
            return check.result(outcome)
        return normalise(outcome, self.name)

    def failure(
        self, error: BaseException, formatter: Formatter | None, *, awaited: bool
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
        note_error(error)
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


def _deadline(timeout: float | None) -> float | None:
    """When a call with `timeout` must be over: the timeout bounds the whole call, not each step."""
    return None if timeout is None else time.monotonic() + timeout


def _left(deadline: float | None) -> float | None:
    """The seconds left until `deadline` (None: no limit)."""
    return None if deadline is None else max(deadline - time.monotonic(), 0.0)


async def _bound_in_thread(
    binder: Binder,
    args: Any,
    agent_id: str,
    call_id: str,
    deps: Any,
    pool: ThreadPool | None,
) -> dict[str, Any]:
    """`binder.bind` in a thread of the pool: checking a megabyte takes tens of milliseconds.

    Raises:
        Refused: The arguments are not valid (its result says why).
    """
    try:
        bound: dict[str, Any] = await in_thread(
            lambda: binder.bind(args, agent_id, call_id, deps), None, pool
        )
    except Raised as wrapped:  # bind raises only Refused and KeyboardInterrupt
        raise wrapped.error from None
    return bound


def _wrapped(invoke: Invoke, bound: dict[str, Any], agent_id: str, call_id: str) -> Any:
    """Call the code in this thread; what it raises comes wrapped in `Raised`.

    Wrapped, a `CancelledError` that the code raised cannot pass for the
    cancellation of the awaiting task, and a `StopIteration` crosses the
    steps' coroutines as itself (bare, Python would turn it into a
    `RuntimeError`).
    """
    try:
        return invoke(bound, agent_id, call_id)
    except BaseException as error:  # carried to failure, which unwraps it
        raise Raised(error) from None


def _formatted(
    formatter: Formatter, made: Runnable, error: BaseException
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


# ------------------------------------------------------------------ bind


class Binder:
    """The bind step of one tool: the model's arguments → what its code takes.

    Args:
        name: The tool's name, for messages and the `Context`.
        parameters: The JSON Schema of the arguments.
        fields: The function's parameters (none for `Tool.new`, whose
            `execute_fn` gets the checked arguments as sent).
        context: The name of the function's `Context` parameter, if any.
        positional: (name, default) of each positional-only parameter, in order.
    """

    def __init__(
        self,
        *,
        name: str,
        parameters: JsonSchema,
        fields: tuple[Field, ...] = (),
        context: str | None = None,
        positional: tuple[tuple[str, Any], ...] = (),
    ) -> None:
        from toolkit.schema._checker import compile_check
        from toolkit.schema._convert import (
            Converters,
            null_stripper,
            schema_null_stripper,
        )

        self.name = name
        self.parameters = parameters
        self.fields = fields
        self.context = context
        self.positional = positional
        self._refusal: Refusal | None = None  # built on the first call that needs it
        self._valid: Check = compile_check(parameters) or self._valid_by_jsonschema
        self._converters = Converters().fields(fields)
        self._strip = (
            null_stripper(fields) if fields else schema_null_stripper(parameters)
        )
        self._fill = tuple(
            (item.name, item.default, item.factory) for item in fields if item.fill
        )  # defaults the function does not have itself (pydantic's Field)

    def bind(self, args: Any, agent_id: str, call_id: str, deps: Any) -> dict[str, Any]:
        """The arguments, checked and converted, with the `Context` added.

        Raises:
            Refused: The arguments cannot be used; its result tells the model why.
        """
        try:
            parsed = self._read(args)
            if not self._valid(parsed):
                parsed = self._refused().repaired(parsed, self._valid)
            bound = self._converted(parsed)
        except Refused:
            raise
        except RecursionError:
            raise Refused(too_deep(self.name)) from None
        except Exception as error:  # a bug here must still not escape execute()
            log_failure("Checking the arguments of %r failed", self.name, error=error)
            raise Refused(unchecked(self.name, error)) from None
        if self.context is not None:
            bound[self.context] = Context(agent_id, call_id, self.name, deps)
        return bound

    def _read(self, args: Any) -> JsonObject:
        """The arguments parsed, without the nulls that mean "not given".

        `null` for a parameter (or field) that may be left out but cannot be
        None is what OpenAI's strict mode sends for one left out: it is
        dropped, so the default applies. `bind` and `validate` both read the
        arguments here, so they never disagree on it.

        Raises:
            Refused: The arguments are not JSON, or not an object.
        """
        if type(args) is not dict:
            args = parse_arguments(self.name, args)
            if isinstance(args, ToolResult):
                raise Refused(args)
        return args if self._strip is None else self._strip(args)

    def _converted(self, args: JsonObject) -> dict[str, Any]:
        """The annotated types and the defaults the function lacks; never the caller's dict changed."""
        bound = dict(args) if self._converters or self.context or self._fill else args
        for name, convert in self._converters:
            if name in bound:
                try:
                    bound[name] = convert(bound[name])
                except RecursionError:
                    raise
                except Exception as error:  # the value's own code may raise anything
                    raise not_converted(self.name, name, error) from None
        if self._fill:
            from toolkit.hints._defaults import default_for_call

            for name, value, factory in self._fill:
                if name not in bound:
                    bound[name] = default_for_call(self.name, name, value, factory)
        return bound

    def validate(self, args: Any) -> ToolResult | None:
        """None when `args`, read as `bind` reads them, fit the schema, else the error result listing every problem."""
        try:
            args = self._read(args)
            return None if self._valid(args) else self._refused().invalid(args)
        except Refused as refused:
            return refused.result
        except RecursionError:
            return too_deep(self.name)
        except Exception as error:  # a bug here must still not escape
            return unchecked(self.name, error)

    def _valid_by_jsonschema(self, args: JsonObject) -> bool:
        """The check of a schema that does not compile (`Tool.new` with rare keywords)."""
        return bool(self._refused().validator.is_valid(args))

    def _refused(self) -> Refusal:
        if self._refusal is None:
            self._refusal = Refusal(self.name, self.parameters, self.fields)
        return self._refusal

    def caller(self, function: Callable[..., Any]) -> Invoke:
        """The call of `function` with bound arguments (positional-only ones by position)."""
        positional = self.positional
        if not positional:
            return lambda bound, agent_id, call_id: function(**bound)

        def invoke(bound: dict[str, Any], agent_id: str, call_id: str) -> Any:
            values: list[Any] = []
            pending: list[Any] = []  # defaults before a value given by position
            for name, default in positional:
                if name in bound:
                    values.extend(pending)
                    pending.clear()
                    values.append(bound.pop(name))
                else:
                    pending.append(default)
            return function(*values, **bound)

        return invoke
