"""Deferred tools among tools that belong to no set: what a request offers of them, and the search tool's definition.

A tool marked `defer_loading` is not sent up front. For the APIs that do not
load tools themselves (Chat Completions, Gemini, MCP), a request offers the
eager tools, then a `search_tools` tool; a `ToolSet` runs that search and
loads what it finds (`toolkit.sets._catalog`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any, Final

from toolkit.core._exceptions import DuplicateToolError
from toolkit.core._finding import Finding
from toolkit.values._results import ToolResult

from ._call import ExecuteFn
from ._tool import Tool

__all__ = ["SEARCH_TOOL", "offered", "search_tool", "shadowed_search"]

SEARCH_TOOL: Final = "search_tools"
"""The name of the tool that searches a set's deferred tools."""

_DESCRIPTION: Final = (
    "Search for more tools by what they do. The tools found are loaded: they "
    "can be called from the next turn on. Search again with other words when "
    "none of them fits."
)

_PARAMETERS: Final = {
    "type": "object",
    "properties": {
        "query": {
            "type": "string",
            "description": "What the tool should do, in a few words.",
        }
    },
    "required": ["query"],
    "additionalProperties": False,
}


def _unbound(agent_id: str, call_id: str, args: dict[str, Any]) -> ToolResult:
    return ToolResult.error("search_tools runs only through a ToolSet")


@functools.cache
def _listed() -> Tool[Any, Any]:
    """The search tool as exported for tools that are not in a set (nothing to search or load)."""
    return search_tool(_unbound)


def search_tool(execute_fn: ExecuteFn) -> Tool[Any, Any]:
    return Tool.new(
        name=SEARCH_TOOL,
        description=_DESCRIPTION,
        parameters=_PARAMETERS,
        execute_fn=execute_fn,
    )


def offered(tools: Sequence[Tool[Any, Any]]) -> list[Tool[Any, Any]]:
    """What a request offers of `tools`, which belong to no set: the eager ones, then `search_tools` if any is deferred.

    Raises:
        DuplicateToolError: One of `tools` is named `search_tools` too: two
            tools would answer to that name.
    """
    eager = [item for item in tools if not item.defer_loading]
    if len(eager) == len(tools):
        return list(tools)
    for item in tools:
        if item.name == SEARCH_TOOL:
            raise _taken(item)
    return [*eager, _listed()]


def _taken(item: Tool[Any, Any]) -> DuplicateToolError:
    origin = getattr(item, "__qualname__", None) or "Tool.new(...)"
    msg = (
        f"Tool {SEARCH_TOOL!r} ({origin}) has the name of the tool that searches deferred "
        "tools, which the exports of Chat Completions, Gemini and MCP add to tools with "
        f"deferred ones: two tools would answer to {SEARCH_TOOL!r}. Rename it (name=...), "
        "or put the tools in a ToolSet, where a tool of that name takes the place of the search"
    )
    return DuplicateToolError(msg, name=SEARCH_TOOL)


def shadowed_search(tools: Sequence[Tool[Any, Any]]) -> Finding | None:
    """The lint finding of a tool that takes the place of the search of `tools`' deferred tools, if one does."""
    if not any(item.defer_loading for item in tools):
        return None
    for item in tools:
        if item.name == SEARCH_TOOL:
            return Finding(
                item.name,
                "shadows-search-tool",
                "this tool has the name of the tool that searches the deferred tools: in a "
                "ToolSet, Chat Completions, Gemini and MCP send it in that tool's place, so a "
                "model finds the deferred tools only if it loads them (ToolSet.load), and "
                "from a list of tools those exports refuse it; rename it to keep the search",
            )
    return None
