"""Model Context Protocol: `Tool` definitions, `tools/call` params, `CallToolResult`s.

```python
from toolkit.providers import mcp as provider

provider.tools(toolset)                          # the `tools` of a tools/list result
await provider.handle(toolset, "agent-1", params)   # CallToolResult dicts for tools/call params
```

`outputSchema` is an object schema: a tool whose return type is not an
object gets `{"type": "object", "properties": {"result": ...}}` and its
`structuredContent` is wrapped the same way. A tool failure is a result with
`isError: true`, never a protocol error.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from toolkit._results import ToolCall, ToolResult
from toolkit._tool import Tool
from toolkit._toolset import ToolSet

from ._common import as_tools, field, mint_id, pair
from ._transform import wrap_output

__all__ = ["definition", "handle", "parse_calls", "results", "tools"]

_HINTS = (
    ("read_only", "readOnlyHint"),
    ("destructive", "destructiveHint"),
    ("idempotent", "idempotentHint"),
    ("open_world", "openWorldHint"),
)


def definition(item: Tool[Any, Any]) -> dict[str, Any]:
    """The MCP `Tool` of one toolkit tool, camelCase as on the wire."""
    out: dict[str, Any] = {"name": item.name}
    if item.title:
        out["title"] = item.title
    if item.description:
        out["description"] = item.description
    out["inputSchema"] = item.parameters
    output = wrap_output(item.output_schema)
    if output is not None:
        out["outputSchema"] = output
    annotations = {
        hint: value
        for attribute, hint in _HINTS
        if (value := getattr(item, attribute)) is not None
    }
    if annotations:
        out["annotations"] = (
            {"title": item.title, **annotations} if item.title else annotations
        )
    return out


def tools(
    source: ToolSet | Tool[Any, Any] | Iterable[Tool[Any, Any]],
) -> list[dict[str, Any]]:
    """The `tools` of a `tools/list` result."""
    return [definition(item) for item in as_tools(source)]


def parse_calls(params: Any) -> list[ToolCall]:
    """`tools/call` params (`{"name", "arguments"}`), a whole request, or a list of either."""
    if isinstance(params, (list, tuple)):
        return [call for entry in params for call in parse_calls(entry)]
    inner = field(params, "params")
    request_id = field(params, "id")
    if inner is not None:
        params = inner
    call_id = str(request_id) if request_id is not None else mint_id()
    arguments = field(params, "arguments")
    return [
        ToolCall(
            call_id,
            str(field(params, "name")),
            arguments if arguments is not None else {},
        )
    ]


def result(outcome: ToolResult) -> dict[str, Any]:
    """One `CallToolResult`: a text block, `isError`, and `structuredContent` when the value was structured."""
    out: dict[str, Any] = {
        "content": [{"type": "text", "text": outcome.text}],
        "isError": outcome.is_error,
    }
    if not outcome.is_error and outcome.structured is not None:
        value = outcome.structured
        out["structuredContent"] = (
            value if isinstance(value, dict) else {"result": value}
        )
    return out


def results(
    calls: Iterable[ToolCall], outcomes: Iterable[ToolResult]
) -> list[dict[str, Any]]:
    """One `CallToolResult` dict per call, in call order."""
    return [result(outcome) for _, outcome in pair(calls, outcomes)]


async def handle(
    toolset: ToolSet, agent_id: str, params: Any, *, deps: Any = None
) -> list[dict[str, Any]]:
    """Parse, run concurrently, and return the `CallToolResult`s."""
    calls = parse_calls(params)
    return results(calls, await toolset.run(agent_id, calls, deps=deps))
