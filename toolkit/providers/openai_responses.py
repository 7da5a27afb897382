"""OpenAI Responses API: flat function tools, `function_call` items, `function_call_output` items.

```python
from toolkit.providers import openai_responses as provider

response = client.responses.create(model=..., input=items, tools=provider.tools(toolset))
items += [*response.output, *await provider.handle(toolset, "agent-1", response)]
```

`strict` is always sent: the Responses API treats a missing one as `true`.
Results are linked by `call_id` (not the item `id`).

Deferred tools (`defer_loading`) are sent with `"defer_loading": true`,
those of a namespace inside one `{"type": "namespace", ...}` item, and
the API's own `{"type": "tool_search"}` tool is added: the API searches
and loads them itself, so the export is the same on every turn.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from toolkit.core._finding import Finding
from toolkit.core._frozen import FrozenDict, FrozenList
from toolkit.tools._names import check_names
from toolkit.tools._tool import Tool
from toolkit.values._content import File, Image, Part, Resource
from toolkit.values._results import ToolCall, ToolResult

from ._common import Source, as_tools, call_of, field, handler, items, pair
from ._parts import as_text, data_url, exportable, image_url
from .openai import function_definition, strict_problems

__all__ = ["handle", "output", "parse_calls", "results", "strict_problems", "tools"]


def tools(source: Source, *, strict: bool = False) -> list[dict[str, Any]]:
    """The request's `tools` value: `[{"type": "function", "name", ..., "strict"}, ...]`.

    With deferred tools, also namespaces and the hosted `{"type": "tool_search"}`.

    Raises:
        ToolDefinitionError: Two tools would be sent under one name (see
            `Tool.wire_name`).
    """
    found = as_tools(source)
    check_names(source, found, "openai_responses")
    definitions: list[Any] = []
    namespaces: dict[str, list[FrozenDict]] = {}
    any_deferred = False
    for item in found:
        definition = function_definition(item, strict=strict)
        if not item.defer_loading:
            definitions.append(FrozenDict(type="function", **definition))
            continue
        any_deferred = True
        deferred = FrozenDict(type="function", **definition, defer_loading=True)
        if item.namespace is None:
            definitions.append(deferred)
        else:
            if item.namespace not in namespaces:
                definitions.append(item.namespace)  # where the namespace goes
            namespaces.setdefault(item.namespace, []).append(deferred)
    if not any_deferred:
        return FrozenList(definitions)
    return FrozenList(
        [
            _namespace(entry, namespaces[entry]) if isinstance(entry, str) else entry
            for entry in definitions
        ]
        + [FrozenDict(type="tool_search")]
    )


def _namespace(name: str, members: list[FrozenDict]) -> FrozenDict:
    """A `namespace` item: its deferred functions, and a description that names them."""
    names = [member["name"] for member in members]
    shown = ", ".join(names[:10]) + (
        f", and {len(names) - 10} more" if len(names) > 10 else ""
    )
    return FrozenDict(
        type="namespace",
        name=name,
        description=f"Tools of {name}: {shown}.",
        tools=FrozenList(members),
    )


def parse_calls(response: Any) -> list[ToolCall]:
    """The `function_call` items of a `Response` (or of its `output` list); `ToolCall.id` is the `call_id`."""
    output = field(response, "output")
    entries = items(output) if output is not None else items(response)
    return [
        call_of(
            field(entry, "call_id", "callId"),
            field(entry, "name"),
            field(entry, "arguments"),
        )
        for entry in entries
        if field(entry, "type") == "function_call"
    ]


def results(
    calls: Iterable[ToolCall],
    outcomes: Iterable[ToolResult],
    *,
    limits: Mapping[str, Mapping[str, int]] | None = None,
) -> list[dict[str, Any]]:
    """One `{"type": "function_call_output", "call_id", "output"}` item per call.

    `output` is the text, or, when the result has content parts, a list of
    `input_text`, `input_image` and `input_file` items; a part the API cannot
    take here (audio, a resource link) is said in an `input_text`. A part over
    `limits` (default: `LIMITS`) makes that call's output an error.
    """
    return [
        {
            "type": "function_call_output",
            "call_id": call.id,
            "output": output(result),
        }
        for call, result in pair(calls, outcomes, "openai", limits)
    ]


def output(
    result: ToolResult, limits: Mapping[str, Mapping[str, int]] | None = None
) -> str | list[dict[str, Any]]:
    """A result's `output`: its text, or its parts as Responses input items (see `exportable`)."""
    (result,) = exportable([result], "openai", limits)
    if not result.content:
        return result.text
    return [_item(part) for part in result.parts]


def _item(part: Part) -> dict[str, Any]:
    if isinstance(part, Image):
        return {"type": "input_image", "image_url": image_url(part), "detail": "auto"}
    if isinstance(part, File):
        if part.url is not None:
            return {"type": "input_file", "file_url": part.url}
        return {
            "type": "input_file",
            "file_data": data_url(part.mime_type, part.data or b""),
            "filename": part.name or "file",
        }
    if isinstance(part, Resource) and part.data is not None:
        return {
            "type": "input_file",
            "file_data": data_url(
                part.mime_type or "application/octet-stream", part.data
            ),
            "filename": part.uri.rsplit("/", 1)[-1] or "resource",
        }
    return {"type": "input_text", "text": _as_text(part)}


def _as_text(part: Part) -> str:
    return as_text(
        part, "the Responses API", "takes no audio in a function call output"
    )


handle = handler(parse_calls, results, "the `function_call_output` items to send back")


def lint(tools: list[Tool[Any, Any]]) -> Iterator[Finding]:
    """Nothing of its own: the Responses API shares Chat Completions' rules, which `openai.lint` reports."""
    return iter(())
