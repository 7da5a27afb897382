"""OpenAI Chat Completions: tool definitions, tool calls and `role: tool` results.

```python
from toolkit.providers import openai as provider

response = client.chat.completions.create(model=..., messages=messages, tools=provider.tools(toolset))
message = response.choices[0].message
messages += [message, *await provider.handle(toolset, "agent-1", message)]
```

`strict=True` exports each tool in the Structured Outputs subset: every
property required, optional ones nullable (the tool maps `null` back to its
default when it runs), unsupported keywords said in the description. A tool
that cannot be strict (a map, `Any`, a tuple, limits exceeded) is exported
with `strict: false`; `strict_problems(tool)` says why. `strict` is always
sent explicitly.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from toolkit._frozen import FrozenDict, FrozenList
from toolkit._results import ToolCall, ToolResult
from toolkit._tool import Tool
from toolkit._toolset import ToolSet
from toolkit._views import openai_view

from ._common import as_tools, field, items, pair
from ._transform import openai_strict, strip_meta

__all__ = [
    "function_definition",
    "handle",
    "parse_calls",
    "results",
    "strict_problems",
    "tools",
]


def function_definition(
    item: Tool[Any, Any], *, strict: bool = False
) -> dict[str, Any]:
    """`{"name", "description", "parameters", "strict"}` for one tool (shared with Responses)."""
    parameters = strip_meta(item.parameters)
    is_strict = False
    if strict:
        view = openai_strict(item.parameters)
        if view.schema is not None:
            parameters, is_strict = view.schema, True
    if item.description:
        return FrozenDict(
            name=item.name,
            description=item.description,
            parameters=parameters,
            strict=is_strict,
        )
    return FrozenDict(name=item.name, parameters=parameters, strict=is_strict)


def strict_problems(item: Tool[Any, Any]) -> tuple[str, ...]:
    """Why `item` cannot be exported strict for OpenAI; empty when it can."""
    return openai_strict(item.parameters).problems


def tools(
    source: ToolSet | Tool[Any, Any] | Iterable[Tool[Any, Any]], *, strict: bool = False
) -> list[dict[str, Any]]:
    """The request's `tools` value: `[{"type": "function", "function": {...}}, ...]`.

    Args:
        source: A `ToolSet`, a `Tool` or a list of tools.
        strict: Export in the Structured Outputs subset where a tool allows it.
    """
    if strict:
        return FrozenList(
            [
                FrozenDict(
                    type="function", function=function_definition(item, strict=True)
                )
                for item in as_tools(source)
            ]
        )
    return FrozenList(
        [openai_view(item) for item in as_tools(source)]
    )  # built with each tool


def parse_calls(message: Any) -> list[ToolCall]:
    """The calls in an assistant message (or a whole completion), dicts or SDK objects.

    `ToolCall.args` is the JSON string the model sent.
    """
    choices = field(message, "choices")
    if choices:
        message = field(items(choices)[0], "message")
    calls = []
    for call in items(field(message, "tool_calls", "toolCalls")):
        function = field(call, "function")
        if function is None:  # a custom (non-function) tool call
            continue
        calls.append(
            ToolCall(
                str(field(call, "id")),
                str(field(function, "name")),
                field(function, "arguments"),
            )
        )
    return calls


def results(
    calls: Iterable[ToolCall], outcomes: Iterable[ToolResult]
) -> list[dict[str, Any]]:
    """One `{"role": "tool", "tool_call_id", "content"}` message per call; `ui` never included."""
    return [
        {"role": "tool", "tool_call_id": call.id, "content": result.text}
        for call, result in pair(calls, outcomes)
    ]


async def handle(
    toolset: ToolSet, agent_id: str, message: Any, *, deps: Any = None
) -> list[dict[str, Any]]:
    """Parse the calls in `message`, run them concurrently, return the messages to append."""
    calls = parse_calls(message)
    return results(calls, await toolset.run(agent_id, calls, deps=deps))
