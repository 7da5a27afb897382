"""OpenAI Responses API: flat function tools, `function_call` items, `function_call_output` items.

```python
from toolkit.providers import openai_responses as provider

response = client.responses.create(model=..., input=items, tools=provider.tools(toolset))
items += [*response.output, *await provider.handle(toolset, "agent-1", response)]
```

`strict` is always sent: the Responses API treats a missing one as `true`.
Results are linked by `call_id` (not the item `id`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from toolkit._frozen import FrozenDict, FrozenList
from toolkit._results import ToolCall, ToolResult
from toolkit._tool import Tool
from toolkit._toolset import ToolSet

from ._common import as_tools, field, items, pair
from .openai import function_definition, strict_problems

__all__ = ["handle", "parse_calls", "results", "strict_problems", "tools"]


def tools(
    source: ToolSet | Tool[Any, Any] | Iterable[Tool[Any, Any]], *, strict: bool = False
) -> list[dict[str, Any]]:
    """The request's `tools` value: `[{"type": "function", "name", ..., "strict"}, ...]`."""
    return FrozenList(
        [
            FrozenDict(type="function", **function_definition(item, strict=strict))
            for item in as_tools(source)
        ]
    )


def parse_calls(response: Any) -> list[ToolCall]:
    """The `function_call` items of a `Response` (or of its `output` list); `ToolCall.id` is the `call_id`."""
    output = field(response, "output")
    entries = items(output) if output is not None else items(response)
    return [
        ToolCall(
            str(field(entry, "call_id", "callId")),
            str(field(entry, "name")),
            field(entry, "arguments"),
        )
        for entry in entries
        if field(entry, "type") == "function_call"
    ]


def results(
    calls: Iterable[ToolCall], outcomes: Iterable[ToolResult]
) -> list[dict[str, Any]]:
    """One `{"type": "function_call_output", "call_id", "output"}` item per call."""
    return [
        {"type": "function_call_output", "call_id": call.id, "output": result.text}
        for call, result in pair(calls, outcomes)
    ]


async def handle(
    toolset: ToolSet, agent_id: str, response: Any, *, deps: Any = None
) -> list[dict[str, Any]]:
    """Parse, run concurrently, and return the items to send back."""
    calls = parse_calls(response)
    return results(calls, await toolset.run(agent_id, calls, deps=deps))
