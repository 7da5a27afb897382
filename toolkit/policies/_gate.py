"""The gate of a call with policies: approval (asked of the host, or kept for later), rate, a slot, then the call.

A call reaches it only when its tool or its set has a policy (`ToolRunner`
decides that once per tool); the policies themselves are `_policies`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolkit.core._exceptions import ToolError
from toolkit.core._log import log_failure
from toolkit.run._tracing import add_event
from toolkit.values._results import Approval, ToolResult, error_text, safe_text

if TYPE_CHECKING:
    from toolkit.core._aliases import JsonObject
    from toolkit.run._context import Context
    from toolkit.run._running import ThreadPool

from ._policies import Runner, SetPolicy, digest_of, store_of

__all__ = ["guarded"]


def _asks(rule: Any, args: tuple[Any, ...]) -> bool:
    if rule is True or rule is False:
        return rule
    return bool(rule(*args))


# ---------------------------------------------------------------- the gate


async def guarded(
    runner: Runner,
    arguments: JsonObject | ToolResult,
    bound: dict[str, Any],
    agent_id: str,
    call_id: str,
    deps: Any,
    formatter: Any,  # passed on to `runner.called`
    pool: ThreadPool | None,
    approvals: SetPolicy | None,
    blocking: bool,
) -> ToolResult:
    """A call with policies: approval, rate, a slot, then the call.

    A blocking call (a tool's `execute`) asks a host on an event loop of
    its own and waits for a slot in its thread.
    """
    stop = await _approval(
        runner, arguments, agent_id, call_id, deps, approvals, blocking
    )
    if stop is not None:
        return stop
    policy = runner.policy
    if policy is None:
        return await runner.called(bound, agent_id, call_id, formatter, pool, blocking)
    refused = policy.over_rate(agent_id)
    if refused is not None:
        return refused
    slots = policy.slots
    if slots is None:
        return await runner.called(bound, agent_id, call_id, formatter, pool, blocking)
    if blocking:
        taken = slots.take_blocking(policy.timeout)
    else:
        taken = await slots.take(policy.timeout)
    if not taken:
        return policy.full()
    try:
        return await runner.called(bound, agent_id, call_id, formatter, pool, blocking)
    finally:
        slots.give_back()


async def _approval(
    runner: Runner,
    arguments: JsonObject | ToolResult,
    agent_id: str,
    call_id: str,
    deps: Any,
    approvals: SetPolicy | None,
    blocking: bool,
) -> ToolResult | None:
    """None when the call may run; else its result: waiting for approval, denied, or why it cannot be asked."""
    from toolkit.run._context import Context

    tool, name = runner.tool, runner.name
    if not isinstance(arguments, dict):  # cannot happen: the arguments were bound
        return arguments
    context: Context[Any] = Context(agent_id, call_id, name, deps)
    policy = runner.policy
    try:
        needed = (
            policy is not None and _asks(policy.approval, (arguments, context))
        ) or (
            approvals is not None and _asks(approvals.rule, (tool, arguments, context))
        )
    except Exception as error:  # a broken rule must not run the call, nor escape
        log_failure("The approval rule of %r failed", name, error=error)
        return ToolResult.error(
            f'Tool "{name}" needs approval, but its approval rule failed: {error_text(error)}'
        )
    if not needed:
        return None
    if blocking:
        from toolkit.run._running import block_on

        stop: ToolResult | None = block_on(
            lambda: _decided(runner, arguments, context, approvals)
        )
    else:
        stop = await _decided(runner, arguments, context, approvals)
    add_event(
        "toolkit.approval",
        {
            "toolkit.approval.outcome": "approved"
            if stop is None
            else ("waiting" if stop.approval is not None else "refused")
        },
    )
    return stop


async def _decided(
    runner: Runner,
    arguments: JsonObject,
    context: Context[Any],
    approvals: SetPolicy | None,
) -> ToolResult | None:
    """The approval of a call that needs one: None when it may run, else its result."""
    from toolkit.run._host import current_scope, host_method

    name = runner.name
    digest = digest_of(arguments)
    store = store_of(approvals) if approvals is not None else None
    if store is not None:
        decision = store.take(name, digest)
        if decision is not None:
            return None if decision is True else _denied(name, str(decision))
    ask = host_method(current_scope(), "approve")
    if ask is not None:
        return await _asked(ask, context, arguments)
    if store is None:
        return ToolResult.error(
            f'Tool "{name}" needs a human\'s approval before it runs; call it through a '
            "ToolSet, which keeps approvals (ToolSet.approve)."
        )
    ident = store.request(name, digest)
    return ToolResult(
        f'Tool "{name}" needs a human\'s approval before it runs; the call is waiting for it.',
        True,
        approval=Approval(ident, name, dict(arguments)),
    )


async def _asked(
    ask: Callable[..., Any], context: Context[Any], arguments: dict[str, Any]
) -> ToolResult | None:
    """Ask the host (`Host.approve`): None on its approval, else the denial or why it could not be asked."""
    from toolkit.run._host import awaited

    name = context.tool_name
    try:
        answer = await awaited(ask(context, name, dict(arguments)))
    except (
        ToolError
    ) as error:  # the host cannot ask (an MCP client without elicitation)
        return ToolResult.error(
            f'Tool "{name}" needs a human\'s approval before it runs. {safe_text(error) or ""}'.rstrip()
        )
    except Exception as error:
        log_failure("Asking approval for %r failed", name, error=error)
        return ToolResult.error(
            f'Tool "{name}" needs a human\'s approval, and asking for it failed: {error_text(error)}'
        )
    if answer is True:
        return None
    return _denied(name, answer if isinstance(answer, str) else "")


def _denied(name: str, reason: str) -> ToolResult:

    text = f'The user denied the call of "{name}"'
    return ToolResult.error(f"{text}: {reason}" if reason else f"{text}.")
