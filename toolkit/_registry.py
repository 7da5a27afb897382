"""`Registry`: the tools added to a `ToolSet`, and the checks of adding one.

A set that is not composed holds its tools in a `Registry`. A change
replaces its dict rather than editing it, so whoever read the dict (a
lookup, an iteration, a composed set, an export) works on one that no one
changes under it, without a lock; the set takes its lock around each change
so that no two changes are lost. Each change gives the registry a new
`state`, which composed sets and the export cache compare with the one
they made their tools or exports from.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import Any, Final

from ._exceptions import DuplicateToolError, NotAToolError
from ._tool import Tool

__all__ = ["Registry", "Tools", "duplicate", "not_a_tool", "unique"]

Tools = dict[str, Tool[Any, Any]]
"""Tools by name, in order; a dict once handed out is never changed."""

_STATES: Final = itertools.count()
"""The states of registries, each new one unique in the process: a state
once left never comes back, also to a set that stopped following the sets
it was composed from (which gets a registry of its own)."""


class Registry:
    """The tools added to a set; the set makes every change under its lock."""

    __slots__ = ("_state", "_tools")

    def __init__(self, tools: Tools) -> None:
        self._tools = tools
        self._state = next(_STATES)

    def tools(self) -> Tools:
        """The tools by name, in order."""
        return self._tools

    def state(self) -> object:
        """Equal to an earlier state only if no tool was added or removed since."""
        return self._state

    def add(self, item: Tool[Any, Any], *, replace: bool) -> None:
        """Register `item` (a `Tool`), refusing a taken name unless `replace`.

        Raises:
            DuplicateToolError: Another tool has the name and `replace` is False.
        """
        existing = self._tools.get(item.name)
        if existing is item:
            return
        if existing is not None and not replace:
            raise duplicate(item, existing)
        self._hold({**self._tools, item.name: item})  # a replaced tool keeps its place

    def remove(self, name: str) -> Tool[Any, Any]:
        """Unregister and return the tool called `name` (the set checked it is there)."""
        tools = dict(self._tools)
        removed = tools.pop(name)
        self._hold(tools)
        return removed

    def assign(self, tools: Tools) -> None:
        """Hold exactly `tools`, in order; the same tools in the same order change nothing."""
        held = self._tools
        if list(held) != list(tools) or any(
            held[name] is not item for name, item in tools.items()
        ):
            self._hold(dict(tools))

    def _hold(self, tools: Tools) -> None:
        # The tools first, then the state: whoever sees the new state sees
        # the new tools too.
        self._tools = tools
        self._state = next(_STATES)


def unique(tools: Iterable[object]) -> Tools:
    """The tools by name, in order, checked in order as `ToolSet.add` checks each.

    Raises:
        NotAToolError: An item is not a `Tool`.
        DuplicateToolError: Two different tools share a name.
    """
    found: Tools = {}
    for item in tools:
        if not isinstance(item, Tool):
            raise not_a_tool(item)
        existing = found.setdefault(item.name, item)
        if existing is not item:
            raise duplicate(item, existing)
    return found


def not_a_tool(item: object) -> NotAToolError:
    """The error of registering `item`, which is not a `Tool`, with the fix."""
    from ._callables import unbound_method_problem

    problem = unbound_method_problem(item)
    if problem is not None:
        qualname = getattr(item, "__qualname__", "")
        msg = f"ToolSet.add needs a Tool; {qualname} cannot be one: {problem}"
        return NotAToolError(msg, function=qualname)
    if callable(item):
        shown = getattr(item, "__qualname__", None) or repr(item)
        msg = f"ToolSet.add needs a Tool; got {shown}. Make one with tool({getattr(item, '__name__', shown)}), or decorate the function with @tool"
        return NotAToolError(msg, function=shown)
    msg = f"ToolSet.add needs a Tool (decorate the function with @tool); got {item!r}"
    return NotAToolError(msg)


def duplicate(item: Tool[Any, Any], existing: Tool[Any, Any]) -> DuplicateToolError:
    """The error of `item` taking the name of `existing`, another tool, with the fixes."""

    def origin(candidate: Tool[Any, Any]) -> str:
        return getattr(candidate, "__qualname__", None) or "Tool.new(...)"

    msg = (
        f"A tool named {item.name!r} is already registered ({origin(existing)}); cannot add {origin(item)} "
        "under the same name. Rename one of them (name=...), use add(..., replace=True) to replace it, "
        "or combine sets with tools.prefixed(...)"
    )
    return DuplicateToolError(msg, name=item.name)
