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

Deferred tools (`defer_loading`) are sent with `"defer_loading": true`,
and Anthropic's own tool search tool is added (BM25, or regex with
`tool_search="regex"`): the API searches and loads them itself, so the
export is the same on every turn.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Final

from toolkit.core._aliases import JsonSchema
from toolkit.core._finding import Finding
from toolkit.core._frozen import FrozenDict, FrozenList
from toolkit.tools._names import wire_names
from toolkit.tools._tool import Tool
from toolkit.tools._views import named
from toolkit.values._content import Audio, File, Image, Part
from toolkit.values._results import ToolCall, ToolResult
from toolkit.values._scalars import b64

from ._common import Source, as_tools, call_of, field, handler, items, not_strict, pair
from ._parts import as_text
from ._transform import (
    STRICT_FORMATS,
    STRICT_KEEP,
    Dialect,
    Strict,
    StrictWalker,
    ref_cycle,
    strip_meta,
)

__all__ = ["handle", "parse_calls", "results", "strict_problems", "tools"]

_BUDGET: Final = {"tools": 20, "optional": 24, "unions": 16}

_TOOL_SEARCH: Final = {
    "bm25": ("tool_search_tool_bm25_20251119", "tool_search_tool_bm25"),
    "regex": ("tool_search_tool_regex_20251119", "tool_search_tool_regex"),
}
"""Anthropic's tool search tools, by the `tool_search` option: (type, name)."""


def strict_problems(item: Tool[Any, Any]) -> tuple[str, ...]:
    """Why `item` cannot be strict for Anthropic on its own; empty when it can."""
    return anthropic_strict(item.parameters).problems


def tools(
    source: Source, *, strict: bool = False, tool_search: str = "bm25"
) -> list[dict[str, Any]]:
    """The request's `tools` value: `[{"name", "description", "input_schema"}, ...]`.

    Args:
        source: A `ToolSet`, a `Tool` or a list of tools.
        strict: Use strict tool use where a tool allows it and the request's budget lasts.
        tool_search: The search tool sent with deferred tools: "bm25" or "regex".

    Raises:
        ValueError: `tool_search` is neither.
        ToolDefinitionError: Two tools would be sent under one name (see
            `Tool.wire_name`).
    """
    if tool_search not in _TOOL_SEARCH:
        msg = f"tool_search={tool_search!r}; use one of {', '.join(_TOOL_SEARCH)}"
        raise ValueError(msg)
    used = {"tools": 0, "optional": 0, "unions": 0}
    definitions = []
    found = as_tools(source)
    for item, name in zip(found, wire_names(found, "anthropic"), strict=True):
        definition = named(item, name)
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
        if item.defer_loading:
            definition["defer_loading"] = True
        definitions.append(FrozenDict(definition))
    if any(item.get("defer_loading") for item in definitions):
        kind, name = _TOOL_SEARCH[tool_search]
        definitions.append(FrozenDict(type=kind, name=name))
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
        call_of(field(block, "id"), field(block, "name"), field(block, "input"))
        for block in blocks
        if field(block, "type") == "tool_use"
    ]


def results(
    calls: Iterable[ToolCall],
    outcomes: Iterable[ToolResult],
    *,
    limits: Mapping[str, Mapping[str, int]] | None = None,
) -> dict[str, Any]:
    """One `role: user` message whose content is the `tool_result` blocks, in call order.

    A result with content parts sends them as `text`, `image` and `document`
    blocks; what a tool result cannot carry (audio, other file types) is said
    in a `text` block. A part over `limits` (default: `LIMITS`) makes that
    call's result an error.
    """
    return {
        "role": "user",
        "content": [
            _tool_result(call, result)
            for call, result in pair(calls, outcomes, "anthropic", limits)
        ],
    }


def _tool_result(call: ToolCall, result: ToolResult) -> dict[str, Any]:
    content: Any = result.text
    if result.content:
        content = [_block(part) for part in result.parts]
    return {
        "type": "tool_result",
        "tool_use_id": call.id,
        "content": content,
        "is_error": result.is_error,
    }


_IMAGE_TYPES: Final = frozenset({"image/jpeg", "image/png", "image/gif", "image/webp"})


def _block(part: Part) -> dict[str, Any]:  # one return per kind of part
    if isinstance(part, Image) and part.mime_type in _IMAGE_TYPES | {"image/*"}:
        if part.url is not None:
            return {"type": "image", "source": {"type": "url", "url": part.url}}
        source = {
            "type": "base64",
            "media_type": part.mime_type,
            "data": b64(part.data or b""),
        }
        return {"type": "image", "source": source}
    if isinstance(part, File) and part.mime_type == "application/pdf":
        if part.url is not None:
            return _document({"type": "url", "url": part.url}, part.name)
        source = {
            "type": "base64",
            "media_type": "application/pdf",
            "data": b64(part.data or b""),
        }
        return _document(source, part.name)
    if (
        isinstance(part, File)
        and part.mime_type == "text/plain"
        and part.data is not None
    ):
        text = part.data.decode("utf-8", "replace")
        return _document(
            {"type": "text", "media_type": "text/plain", "data": text}, part.name
        )
    return {"type": "text", "text": _as_text(part)}


def _document(source: dict[str, Any], title: str | None) -> dict[str, Any]:
    block: dict[str, Any] = {"type": "document", "source": source}
    if title:
        block["title"] = title
    return block


def _as_text(part: Part) -> str:
    if isinstance(part, Audio):
        return as_text(part, "Anthropic", "takes no audio in a tool result")
    return as_text(
        part,
        "Anthropic",
        "takes images, PDFs and plain text in a tool result, not this type",
    )


handle = handler(
    parse_calls, results, "the `role: user` message of `tool_result` blocks to append"
)


def lint(tools: list[Tool[Any, Any]]) -> Iterator[Finding]:
    """Why a tool cannot be strict for Anthropic."""
    for item in tools:
        yield from not_strict(item, "Anthropic", strict_problems(item))


# ---------------------------------------------------------------- strict subset

_FORMATS: Final = STRICT_FORMATS | {"uri"}
_COMPLEX_PATTERN: Final = re.compile(r"\\[1-9]|\(\?[=!<]|\\b|\\B")


def _drop(key: str, value: Any) -> str | None:
    """Anthropic refuses back-references, lookarounds and word boundaries, and minItems above 1."""
    if key == "pattern" and _COMPLEX_PATTERN.search(value):
        return f"pattern: {value}"
    if key == "minItems" and value > 1:
        return f"at least {value} items"
    return None


_DIALECT: Final = Dialect(
    provider="Anthropic",
    keep=STRICT_KEEP | {"default", "minItems"},
    formats=_FORMATS,
    optional_nullable=False,
    drop=_drop,
)


def anthropic_strict(schema: JsonSchema) -> Strict:
    """Anthropic strict tool use: closed objects, optional properties kept, no recursion.

    Numeric bounds, length limits, `maxItems`, `minItems` above 1, complex
    patterns and unknown formats move to the description.
    """
    walker = StrictWalker(_DIALECT)
    out = walker.root(schema)
    cycle = ref_cycle(schema)
    if cycle:
        walker.problems.append(
            f"$defs.{cycle}: a recursive type, which Anthropic strict mode rejects"
        )
    return walker.result(out)
