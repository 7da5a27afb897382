"""What a set's tools cost in a request: the size of each API's export, with and without deferral.

The size counted is what the model reads up front. For Chat Completions,
Gemini and MCP that is the export itself (the eager tools, `search_tools`
and what was loaded). OpenAI Responses and Anthropic take deferred tools
in the request but keep them out of the model's context until a search
loads them: Anthropic shows nothing of them, Responses shows a deferred
function's name and description (its parameters wait) and, for a
namespace, only the namespace's name and description (`upfront`).

Sizes are bytes of compact JSON (UTF-8); tokens are estimated as one per
four bytes, rounded up, the usual rule of thumb for English and JSON:
an estimate to compare exports by, not any tokenizer's count.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolkit.sets._toolset import ToolSet
    from toolkit.tools._tool import Tool

__all__ = ["Size", "size", "sizes", "tool_sizes", "upfront"]


@dataclass(frozen=True)
class Size:
    """Bytes of compact JSON, and the tokens they are estimated at."""

    bytes: int

    @property
    def tokens(self) -> int:
        """The estimated token count: a token per four bytes, rounded up."""
        return -(-self.bytes // 4)


def size(value: Any) -> Size:
    """The size of `value` as compact JSON."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return Size(len(text.encode("utf-8")))


def upfront(format: str, exported: Any) -> Any:
    """What the model reads up front of an export for `format` (see the module's docstring)."""
    if format == "anthropic":
        return [entry for entry in exported if not entry.get("defer_loading")]
    if format == "openai_responses":
        shown = []
        for entry in exported:
            if entry.get("type") == "namespace":
                shown.append(
                    {key: entry[key] for key in ("type", "name", "description")}
                )
            elif entry.get("defer_loading"):
                shown.append(
                    {
                        key: entry[key]
                        for key in ("type", "name", "description")
                        if key in entry
                    }
                )
            else:
                shown.append(entry)
        return shown
    return exported


def sizes(toolset: ToolSet, format: str) -> dict[str, Size]:
    """The up-front size of `toolset`'s export for `format`: as its tools are marked, with none deferred, with all deferred."""
    from toolkit import providers

    export = providers.get(format).tools

    def marked(defer_loading: bool) -> list[Tool[Any, Any]]:
        return [item.marked(defer_loading=defer_loading) for item in toolset]

    return {
        "as marked": size(upfront(format, toolset.export(format))),
        "none deferred": size(export(marked(False))),
        "all deferred": size(upfront(format, export(marked(True)))),
    }


def tool_sizes(toolset: ToolSet, format: str) -> list[tuple[Tool[Any, Any], Size]]:
    """Each tool's own definition in `format`'s export when it is sent up front."""
    from toolkit import providers

    export = providers.get(format).tools
    return [
        (item, size(export([item.marked(defer_loading=False)]))) for item in toolset
    ]
