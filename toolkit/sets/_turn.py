"""The calls of a `ToolSet` (`Calls`): one turn of calls (`run`), or one call by name (`execute`, `aexecute`).

A turn runs its calls concurrently, each in a task of its own
(`asyncio.gather`), and gives one result per call, in call order. A call
never raises for its own fault: a name of no tool, bad arguments, a tool
that fails or times out are each that call's error result, so one call
never affects another. A tool marked `sequential` runs alone: the calls
before it finish first, and the calls after it start after it.

Each call goes through the set's middleware (`_middleware.py`), when it
has any, then to its tool (`ToolRunner.aexecute`, `_call.py`); a result
whose text is longer than the set's `max_output_chars` is truncated
(`_truncate.py`). The tool is looked up by the set (`_callable`: its own
tool, or its `search_tools` when it has deferred tools, `_catalog.py`), then
by the names exports send for tools some API does not take by their own
(`_names.py`): OpenAI calls the tool `math.factorial` `math_factorial`.
`KeyboardInterrupt` and the cancellation of the caller go on: when the
caller is cancelled, every call of the turn is cancelled and has finished
before the cancellation reaches it, as `asyncio.gather` does.
"""

from __future__ import annotations

from collections.abc import Coroutine, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from toolkit.policies._middleware import through_middleware
from toolkit.run._context import Context
from toolkit.run._host import current_scope, hosted
from toolkit.run._running import block_on, run_blocking
from toolkit.tools._deferred import SEARCH_TOOL
from toolkit.values._json import type_name
from toolkit.values._results import ToolCall, ToolResult

if TYPE_CHECKING:
    from toolkit.policies._middleware import Middleware
    from toolkit.policies._policies import SetPolicy
    from toolkit.run._running import ThreadPool
    from toolkit.tools._call import Formatter
    from toolkit.tools._tool import Tool

    from ._view import CatalogView, Holder, NamesView

__all__ = ["Calls"]


class Calls:
    """The calls of a `ToolSet`, which is built on this class: `execute`, `aexecute` and `run`.

    What a call reads of its set, which `ToolSet` sets:
    """

    __slots__ = ()
    _holder: Holder
    _catalog: CatalogView
    _exports: NamesView
    _middleware: list[Middleware]
    _pool: ThreadPool | None
    _policy: SetPolicy
    error_formatter: Formatter | None
    max_output_chars: int | None

    def execute(
        self,
        agent_id: str,
        call_id: str,
        name: str,
        args: Any,
        *,
        deps: Any = None,
        host: object = None,
    ) -> ToolResult:
        """Run one call by tool name, from sync code; never raises for the model's or the tool's faults.

        `host` is what the tool's `Context` reaches for progress, log records,
        sampling and questions: any object with some of the `Host` methods.
        The steps are those of `aexecute`, run blocking (`ToolRunner.aexecute`);
        through middleware, which is async, the call runs on an event loop
        of its own.
        """
        if host is not None:
            with hosted(host, on_loop=False):
                return self.execute(agent_id, call_id, name, args, deps=deps)
        if self._middleware:
            scope = current_scope()  # handed on to the loop that block_on makes
            handed = scope.host if scope is not None else None
            result: ToolResult = block_on(
                lambda: self.aexecute(
                    agent_id, call_id, name, args, deps=deps, host=handed
                )
            )
            return result
        call = ToolCall(call_id, name, args)
        found = _tool_of(self, call)
        return run_blocking(_dispatch(self, agent_id, call, found, deps, blocking=True))

    async def aexecute(
        self,
        agent_id: str,
        call_id: str,
        name: str,
        args: Any,
        *,
        deps: Any = None,
        host: object = None,
    ) -> ToolResult:
        """Run one call by tool name, from async code (`host` as for `execute`)."""
        call = ToolCall(call_id, name, args)
        found = _tool_of(self, call)
        if host is None:  # the current host, if any, stays
            return await _started(self, agent_id, call, found, deps)
        with hosted(host, on_loop=True):
            return await _started(self, agent_id, call, found, deps)

    async def run(
        self,
        agent_id: str,
        calls: Iterable[ToolCall],
        *,
        deps: Any = None,
        host: object = None,
        approvals: Mapping[str, bool | str] | None = None,
    ) -> list[ToolResult]:
        """Run one turn of calls concurrently; one result per call, in call order.

        A call names its tool by the tool's name or by the name an export
        sent for it where the API does not take that one (`Tool.wire_name`:
        OpenAI calls `math.factorial` `math_factorial`).

        A tool marked `sequential=True` runs alone: the calls before it finish
        first, and the calls after it start after it. One call's failure,
        timeout or crash never affects another. `host` is what the tools'
        `Context` reaches (see `execute`); each call's `Context` has its own
        `call_id`, so the host tells the calls apart. `approvals` are the
        host's decisions on calls that waited for approval, by approval id:
        True approves, False or a reason denies (as `approve` and `deny`).
        """
        for ident, decision in (approvals or {}).items():
            self._decide(ident, decision)
        if host is not None:
            with hosted(host, on_loop=True):
                return await self.run(agent_id, calls, deps=deps)
        results: list[ToolResult] = []
        batch: list[tuple[ToolCall, Tool[Any, Any] | None]] = []
        for call in calls:
            found = _tool_of(self, call)
            if (
                found is not None and found.sequential
            ):  # alone, after the calls before it
                results.extend(await _together(self, agent_id, batch, deps))
                results.extend(await _together(self, agent_id, [(call, found)], deps))
                batch = []
            else:
                batch.append((call, found))
        results.extend(await _together(self, agent_id, batch, deps))
        return results

    def _callable(self, name: str) -> Tool[Any, Any] | None:
        """The tool a call named `name` runs: the set's own, or its `search_tools` when it has deferred tools."""
        tools = self._holder.tools
        found = tools.get(name)
        if (
            found is None
            and name == SEARCH_TOOL
            and any(item.defer_loading for item in tools.values())
        ):
            return self._catalog.search_tool(self)
        return found

    def _decide(self, approval_id: str, decision: bool | str) -> bool:
        """Take a host's decision on the call that waits with `approval_id` (False: the set does not know it)."""
        from toolkit.policies._policies import store_of

        return store_of(self._policy).decide(approval_id, decision)

    def _unknown(self, name: object) -> str:
        """The error text of a call that names no tool of the set."""
        names = list(self._holder.tools)
        available = ", ".join(names) if names else "none"
        shown = name if type(name) is str else type_name(name)
        message = f'Unknown tool "{shown}". Available tools: {available}.'
        import difflib

        close = difflib.get_close_matches(shown, names, n=1, cutoff=0.6)
        return f'{message} Did you mean "{close[0]}"?' if close else message


async def _together(
    toolset: Calls,
    agent_id: str,
    batch: list[tuple[ToolCall, Tool[Any, Any] | None]],
    deps: Any,
) -> list[ToolResult]:
    """The calls of `batch` (each with the tool it names), each in a task of its own."""
    if not batch:
        return []
    import asyncio

    return await asyncio.gather(
        *[_started(toolset, agent_id, call, found, deps) for call, found in batch]
    )


def _started(
    toolset: Calls,
    agent_id: str,
    call: ToolCall,
    found: Tool[Any, Any] | None,
    deps: Any,
) -> Coroutine[Any, Any, ToolResult]:
    """The coroutine of one call (`found` is the tool it names): through the middleware, if any, then the tool."""
    if toolset._middleware and isinstance(call, ToolCall):
        return _through_middleware(toolset, agent_id, call, deps)
    return _dispatch(toolset, agent_id, call, found, deps)


async def _through_middleware(
    toolset: Calls, agent_id: str, call: ToolCall, deps: Any
) -> ToolResult:
    async def dispatch(passed: ToolCall) -> ToolResult:
        """The tool of the call that the last middleware passed on."""
        found = _tool_of(toolset, passed)
        return await _dispatch(toolset, agent_id, passed, found, deps)

    context: Context[Any] = Context(agent_id, call.id, call.name, deps)
    chain = tuple(toolset._middleware)
    result = await through_middleware(chain, call, context, dispatch)
    return _within(toolset.max_output_chars, result)


async def _dispatch(
    toolset: Calls,
    agent_id: str,
    call: ToolCall,
    found: Tool[Any, Any] | None,
    deps: Any,
    *,
    blocking: bool = False,
) -> ToolResult:
    """The result of the tool `found`, its text truncated when the set says so; or the error of a call that names no tool.

    `blocking`: every wait blocks the thread (`ToolRunner.aexecute`), for `execute`.
    """
    if found is None:
        return _no_tool(toolset, call)
    result = await found._runner.aexecute(
        agent_id,
        call.id,
        call.args,
        deps,
        toolset.error_formatter,
        toolset._pool,
        toolset._policy,
        blocking=blocking,
    )
    limit = toolset.max_output_chars  # a set without a limit truncates nothing
    return result if limit is None else _within(limit, result)


def _tool_of(toolset: Calls, call: object) -> Tool[Any, Any] | None:
    """The tool `call` names, by its own name or the one an API was sent, or None (not a call, or a name of no tool)."""
    if not isinstance(call, ToolCall):
        return None
    name = call.name
    if type(name) is not str:
        return None
    found = toolset._callable(name)
    if found is None:
        sent_for = toolset._exports.called_names(toolset).get(name, ())
        found = sent_for[0] if len(sent_for) == 1 else None
    return found


def _no_tool(toolset: Calls, call: object) -> ToolResult:
    """The error result of an item that is not a call, or of a call that names no tool."""
    if not isinstance(call, ToolCall):
        return ToolResult.error(
            f"Not a tool call: {type_name(call)}. Pass ToolCall(id, name, arguments) items,"
            " such as those a provider's parse_calls(message) reads from the model's response"
        )
    return ToolResult.error(toolset._unknown(call.name))


def _within(limit: int | None, result: ToolResult) -> ToolResult:
    """`result`, its text truncated to `limit` characters if it is longer."""
    if limit is None or len(result.text) <= limit:
        return result
    from toolkit.values._truncate import truncated

    return truncated(result, limit)
