"""Provider adapters: one module per LLM API, imported on demand.

| module | API |
|---|---|
| `toolkit.providers.openai` | OpenAI Chat Completions |
| `toolkit.providers.openai_responses` | OpenAI Responses |
| `toolkit.providers.anthropic` | Anthropic Messages |
| `toolkit.providers.gemini` | Google Gemini (google-genai) |
| `toolkit.providers.mcp` | Model Context Protocol (the wire form; `toolkit.mcp` serves and connects) |

Each offers `tools(toolset_or_tools, **options)`, `parse_calls(message)`,
`results(calls, results)`, `await handle(toolset, agent_id, message)` and
`lint(tools)`, and is found by name through `get(name)`: the core asks this
table and knows no API itself.
None imports an SDK: responses are read by duck typing, as dicts (snake or
camel case) or as the SDK's own objects.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from types import ModuleType

__all__ = ["NAMES", "get"]

NAMES: Final = ("openai", "openai_responses", "anthropic", "gemini", "mcp")
"""Every provider, by the name `ToolSet.export` and the command line take."""


def get(name: str) -> ModuleType:
    """The module of provider `name`'s wire form, imported now if it was not yet.

    A provider module offers `tools`, `parse_calls`, `results`, `handle`
    and `lint` (and `strict_problems` where the API has a strict mode); for
    most providers it is `toolkit.providers.<name>` itself.

    Raises:
        ValueError: No provider has that name; the message lists them.
    """
    if name not in NAMES:
        msg = f"Unknown export format {name!r}; use one of json, {', '.join(NAMES)}"
        raise ValueError(msg)
    module = _LOADED.get(name)
    if module is None:  # every export asks: the import system is asked once
        import importlib

        module = _LOADED[name] = importlib.import_module(f"{__name__}.{name}")
    return module


_LOADED: dict[str, ModuleType] = {}
"""The module of each provider asked for so far."""
