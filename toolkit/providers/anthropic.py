"""Anthropic Messages API: `input_schema` tools, `tool_use` blocks, `tool_result` blocks.

```python
from toolkit.providers import anthropic as provider

message = client.messages.create(model=..., messages=messages, tools=provider.tools(toolset), max_tokens=1024)
messages += [{"role": "assistant", "content": message.content}, await provider.handle(toolset, "agent-1", message)]
```

`strict=True` follows Anthropic's strict subset: closed objects, optional
properties kept optional, no recursion, bounds and lengths said in the
description. Anthropic limits a request to 20 strict tools, 24 optional
properties and 16 union properties in all: tools past that budget are sent
with `strict: false`, in order, and `strict_problems` explains any refusal.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from toolkit._frozen import FrozenDict, FrozenList
from toolkit._results import ToolCall, ToolResult
from toolkit._tool import Tool
from toolkit._toolset import ToolSet

from ._common import as_tools, field, items, pair
from ._transform import anthropic_strict, strip_meta

__all__ = ["handle", "parse_calls", "results", "strict_problems", "tools"]

_BUDGET: Final = {"tools": 20, "optional": 24, "unions": 16}


def strict_problems(item: Tool[Any, Any]) -> tuple[str, ...]:
    """Why `item` cannot be strict for Anthropic on its own; empty when it can."""
    return anthropic_strict(item.parameters).problems


def tools(
    source: ToolSet | Tool[Any, Any] | Iterable[Tool[Any, Any]], *, strict: bool = False
) -> list[dict[str, Any]]:
    """The request's `tools` value: `[{"name", "description", "input_schema"}, ...]`.

    Args:
        source: A `ToolSet`, a `Tool` or a list of tools.
        strict: Use strict tool use where a tool allows it and the request's budget lasts.
    """
    used = {"tools": 0, "optional": 0, "unions": 0}
    definitions = []
    for item in as_tools(source):
        definition: dict[str, Any] = {"name": item.name}
        if item.description:
            definition["description"] = item.description
        schema = strip_meta(item.parameters)
        if strict:
            view = anthropic_strict(item.parameters)
            wanted = {"tools": 1, "optional": view.optional, "unions": view.unions}
            fits = all(used[key] + wanted[key] <= _BUDGET[key] for key in _BUDGET)
            if view.schema is not None and fits:
                schema = view.schema
                used = {key: used[key] + wanted[key] for key in used}
            definition["input_schema"] = schema
            definition["strict"] = schema is view.schema
        else:
            definition["input_schema"] = schema
        definitions.append(FrozenDict(definition))
    return FrozenList(definitions)


def parse_calls(message: Any) -> list[ToolCall]:
    """The `tool_use` blocks of a `Message` (or of its `content` list); `args` is the `input` dict."""
    content = field(message, "content")
    blocks = (
        items(content)
        if content is not None and not isinstance(content, str)
        else items(message)
    )
    return [
        ToolCall(
            str(field(block, "id")), str(field(block, "name")), field(block, "input")
        )
        for block in blocks
        if field(block, "type") == "tool_use"
    ]


def results(
    calls: Iterable[ToolCall], outcomes: Iterable[ToolResult]
) -> dict[str, Any]:
    """One `role: user` message whose content is the `tool_result` blocks, in call order."""
    return {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": call.id,
                "content": result.text,
                "is_error": result.is_error,
            }
            for call, result in pair(calls, outcomes)
        ],
    }


async def handle(
    toolset: ToolSet, agent_id: str, message: Any, *, deps: Any = None
) -> dict[str, Any]:
    """Parse, run concurrently, and return the user message to append."""
    calls = parse_calls(message)
    return results(calls, await toolset.run(agent_id, calls, deps=deps))
