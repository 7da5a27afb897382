"""Deferred loading: what a set offers a model up front, what it loaded later, and its search.

A tool marked `defer_loading` is not sent in a request until the model asks
for it. The APIs that load tools themselves (OpenAI Responses, Anthropic)
get every tool with their own `defer_loading` field and their own search
tool; for the others (Chat Completions, Gemini, MCP) a set offers its eager
tools, then a `search_tools` tool that toolkit runs itself, then the tools
that searches loaded, in the order they were loaded (`offered`). The eager
part comes first and never changes as tools are loaded, so the prompt
caches of those APIs keep holding it.

A set's `Catalog` holds its search index, made on the first search after
the set's tools changed, and the names its searches loaded.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from toolkit.tools._deferred import SEARCH_TOOL, search_tool
from toolkit.tools._tool import Tool
from toolkit.values._results import ToolResult

if TYPE_CHECKING:
    from ._search import SearchIndex
    from ._view import SetView

__all__ = ["Catalog"]

_SEARCH_K: Final = 5
"""How many tools one `search_tools` call loads at most."""


class Catalog:
    """A set's search index, kept until its tools change, and the tools its searches loaded."""

    __slots__ = ("_index", "_lock", "_tool", "loaded")

    def __init__(self) -> None:
        self._index: tuple[object, SearchIndex] | None = None
        self._tool: Tool[Any, Any] | None = None
        self._lock = threading.Lock()
        self.loaded: tuple[str, ...] = ()
        """The names loaded, in the order they were loaded (a new tuple at each change)."""

    def index(self, toolset: SetView) -> SearchIndex:
        """The index of `toolset`'s tools, made again only when they changed."""
        state = toolset._holder.state()  # read before the tools, which may be newer
        kept = self._index
        if kept is not None and kept[0] == state:
            return kept[1]
        from ._search import SearchIndex

        index = SearchIndex(toolset)
        self._index = (state, index)
        return index

    def load(self, names: Sequence[str]) -> tuple[str, ...]:
        """Add `names` to the loaded ones, in order; return those that were not loaded yet."""
        with self._lock:
            new = tuple(
                dict.fromkeys(name for name in names if name not in self.loaded)
            )
            self.loaded = (*self.loaded, *new)
        return new

    def offered(self, toolset: SetView) -> list[Tool[Any, Any]]:
        """What a request offers of `toolset`: eager tools, `search_tools`, then the loaded ones."""
        tools = list(toolset)
        if toolset._holder.plain:  # read after the tools: none is deferred
            return tools
        eager = [item for item in tools if not item.defer_loading]
        if len(eager) == len(tools):
            return tools
        found = toolset.get
        loaded = [found(name) for name in self.loaded]
        search = [] if SEARCH_TOOL in toolset else [self.search_tool(toolset)]
        return [
            *eager,
            *search,
            *(item for item in loaded if item is not None and item.defer_loading),
        ]

    def search_tool(self, toolset: SetView) -> Tool[Any, Any]:
        """The `search_tools` tool of `toolset`: it searches the deferred tools and loads what it finds."""
        made = self._tool
        if made is None:

            def search_tools(
                agent_id: str, call_id: str, args: dict[str, Any]
            ) -> ToolResult:
                return _search_result(toolset, str(args["query"]))

            made = self._tool = search_tool(search_tools)
        return made


def _search_result(toolset: SetView, query: str) -> ToolResult:
    """Search `toolset`'s deferred tools for `query`, load the best, and say which they are."""
    eager = sum(1 for item in toolset if not item.defer_loading)
    found = [
        item
        for item in toolset.search(query, k=_SEARCH_K + eager)
        if item.defer_loading
    ][:_SEARCH_K]
    names = [item.name for item in found]
    toolset.load(*names)
    if not found:
        return ToolResult(
            f"No tool matches {query!r}. Search again with other words.",
            structured={"tools": []},
        )
    lines = [f"- {item.name}: {_summary(item.description)}" for item in found]
    text = "Loaded these tools; call them from your next turn on:\n" + "\n".join(lines)
    return ToolResult(text, structured={"tools": names})


def _summary(description: str) -> str:
    """The first line of a description, at most 200 characters."""
    line = description.strip().split("\n", 1)[0]
    return line if len(line) <= 200 else line[:199] + "…"
