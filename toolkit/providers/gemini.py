"""Google Gemini (google-genai): function declarations, `functionCall` parts, `functionResponse` parts.

```python
from toolkit.providers import gemini as provider

response = client.models.generate_content(model=..., contents=contents,
                                          config={"tools": provider.tools(toolset)})
contents += [response.candidates[0].content, await provider.handle(toolset, "agent-1", response)]
```

The default export uses `parametersJsonSchema` (full JSON Schema);
`schema="openapi"` gives the older `parameters` form (OpenAPI 3.0 subset),
where a recursive type is a `ToolDefinitionError`. A call without an `id`
gets a fresh one, which is not echoed back in its response.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal

from toolkit._frozen import FrozenDict, FrozenList, freeze
from toolkit._results import ToolCall, ToolResult
from toolkit._tool import Tool
from toolkit._toolset import ToolSet

from ._common import MINTED_PREFIX, as_tools, field, items, mint_id, pair
from ._transform import gemini_openapi, strip_meta

__all__ = ["handle", "parse_calls", "results", "tools"]


def tools(
    source: ToolSet | Tool[Any, Any] | Iterable[Tool[Any, Any]],
    *,
    schema: Literal["json", "openapi"] = "json",
) -> list[dict[str, Any]]:
    """The request's `tools` value: `[{"functionDeclarations": [...]}]`.

    Args:
        source: A `ToolSet`, a `Tool` or a list of tools.
        schema: "json" for `parametersJsonSchema`, "openapi" for `parameters`.

    Raises:
        ValueError: `schema` is neither "json" nor "openapi".
        ToolDefinitionError: With "openapi", a tool has a recursive type.
    """
    if schema not in ("json", "openapi"):
        msg = f"schema={schema!r}; use 'json' (parametersJsonSchema) or 'openapi' (parameters)"
        raise ValueError(msg)
    declarations = []
    for item in as_tools(source):
        declaration: dict[str, Any] = {"name": item.name}
        if item.description:
            declaration["description"] = item.description
        if schema == "json":
            declaration["parametersJsonSchema"] = strip_meta(item.parameters)
        else:
            declaration["parameters"] = freeze(
                gemini_openapi(item.parameters, tool_name=item.name)
            )
        declarations.append(FrozenDict(declaration))
    return FrozenList([FrozenDict(functionDeclarations=FrozenList(declarations))])


def _parts(message: Any) -> list[Any]:
    candidates = field(message, "candidates")
    if candidates:
        message = field(items(candidates)[0], "content")
    parts = field(message, "parts")
    return items(parts) if parts is not None else items(message)


def parse_calls(message: Any) -> list[ToolCall]:
    """The function calls in a response, a candidate's `Content`, or a list of parts."""
    calls = []
    for part in _parts(message):
        call = field(part, "function_call", "functionCall")
        if call is None:
            continue
        args = field(call, "args")
        calls.append(
            ToolCall(
                str(field(call, "id") or mint_id()),
                str(field(call, "name")),
                dict(args) if args else {},
            )
        )
    return calls


def _response(result: ToolResult) -> dict[str, Any]:
    if result.is_error:
        return {"error": result.text}
    if isinstance(result.structured, dict):
        return result.structured
    return {
        "output": result.structured if result.structured is not None else result.text
    }


def results(
    calls: Iterable[ToolCall], outcomes: Iterable[ToolResult]
) -> dict[str, Any]:
    """One `role: user` content with a `functionResponse` part per call, in call order."""
    parts = []
    for call, result in pair(calls, outcomes):
        response: dict[str, Any] = {"name": call.name, "response": _response(result)}
        if not call.id.startswith(MINTED_PREFIX):
            response = {"id": call.id, **response}
        parts.append({"functionResponse": response})
    return {"role": "user", "parts": parts}


async def handle(
    toolset: ToolSet, agent_id: str, message: Any, *, deps: Any = None
) -> dict[str, Any]:
    """Parse, run concurrently, and return the content to append."""
    calls = parse_calls(message)
    return results(calls, await toolset.run(agent_id, calls, deps=deps))
