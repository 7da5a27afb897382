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

from collections.abc import Iterable, Iterator, Mapping
from functools import partial
from typing import Any, Final

from toolkit.core._aliases import JsonSchema
from toolkit.core._finding import Finding
from toolkit.core._frozen import FrozenDict, FrozenList
from toolkit.tools._names import RULES, check_names, wire_name
from toolkit.tools._tool import Tool
from toolkit.tools._views import kept_views, named
from toolkit.values._content import (
    Audio,
    File,
    Image,
    Part,
    describe,
)
from toolkit.values._results import ToolCall, ToolResult
from toolkit.values._scalars import b64

from ._common import Source, call_of, field, handler, items, not_strict, offered, pair
from ._parts import (
    as_text,
    data_url,
    image_url,
)
from ._transform import (
    STRICT_FORMATS,
    STRICT_KEEP,
    Dialect,
    Strict,
    StrictWalker,
    strip_meta,
)

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
    """`{"name", "description", "parameters", "strict"}` for one tool (shared with Responses).

    `name` is the tool's wire name, the same for both OpenAI APIs.
    """
    parameters = strip_meta(item.parameters)
    is_strict = False
    if strict:
        view = openai_strict(item.parameters)
        if view.schema is not None:
            parameters, is_strict = view.schema, True
    name = wire_name(item.name, RULES["openai"])
    return FrozenDict(named(item, name), parameters=parameters, strict=is_strict)


def strict_problems(item: Tool[Any, Any]) -> tuple[str, ...]:
    """Why `item` cannot be exported strict for OpenAI; empty when it can."""
    return openai_strict(item.parameters).problems


def tools(source: Source, *, strict: bool = False) -> list[dict[str, Any]]:
    """The request's `tools` value: `[{"type": "function", "function": {...}}, ...]`.

    Args:
        source: A `ToolSet`, a `Tool` or a list of tools.
        strict: Export in the Structured Outputs subset where a tool allows it.

    Raises:
        ToolDefinitionError: Two tools would be sent under one name (see
            `Tool.wire_name`).
    """
    found = offered(source)
    check_names(source, found, "openai")
    kind = "openai-strict" if strict else "openai"
    build = partial(_envelope, strict=strict)
    return FrozenList(kept_views(found, kind, build))


def _envelope(item: Tool[Any, Any], *, strict: bool) -> FrozenDict:
    """The `{"type": "function", "function": {...}}` of one tool."""
    return FrozenDict(
        type="function", function=function_definition(item, strict=strict)
    )


def parse_calls(message: Any) -> list[ToolCall]:
    """The calls in an assistant message (or a whole completion), dicts or SDK objects.

    `ToolCall.args` is the JSON string the model sent.
    """
    choices = items(field(message, "choices"))
    if choices:
        message = field(choices[0], "message")
    calls = []
    for call in items(field(message, "tool_calls", "toolCalls")):
        function = field(call, "function")
        if function is None:  # a custom (non-function) tool call
            continue
        calls.append(
            call_of(
                field(call, "id"),
                field(function, "name"),
                field(function, "arguments"),
            )
        )
    return calls


def results(
    calls: Iterable[ToolCall],
    outcomes: Iterable[ToolResult],
    *,
    limits: Mapping[str, Mapping[str, int]] | None = None,
) -> list[dict[str, Any]]:
    """One `{"role": "tool", "tool_call_id", "content"}` message per call; `ui` never included.

    A tool message carries text only. When results have images, files or
    audio, each tool message says what is attached, and one `role: user`
    message after the tool messages carries them (`image_url`, `file`,
    `input_audio` for WAV and MP3), each call's under a line naming the call.
    A part over `limits` (default: `LIMITS`) makes that call's result an error.
    """
    messages: list[dict[str, Any]] = []
    attached: list[dict[str, Any]] = []
    for call, result in pair(calls, outcomes, "openai", limits):
        text, media = _split(call, result)
        messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
        attached += media
    if attached:
        messages.append({"role": "user", "content": attached})
    return messages


def _split(call: ToolCall, result: ToolResult) -> tuple[str, list[dict[str, Any]]]:
    """The tool message's text, and the user-message parts of the call's media."""
    if not result.content:
        return result.text, []
    texts: list[str] = []
    media: list[dict[str, Any]] = []
    said: list[str] = []
    for part in result.parts:
        block = _media(part)
        if block is None:
            texts.append(_as_text(part))
        else:
            media.append(block)
            said.append(describe(part))
    if not media:
        return "\n".join(texts), []
    texts.append(f"[Attached in the next user message: {'; '.join(said)}]")
    header = {
        "type": "text",
        "text": f"Attachments from tool call {call.id} ({call.name}):",
    }
    return "\n".join(texts), [header, *media]


_AUDIO_FORMATS: Final = {
    "audio/wav": "wav",
    "audio/x-wav": "wav",
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
}


def _media(part: Part) -> dict[str, Any] | None:
    if isinstance(part, Image):
        return {"type": "image_url", "image_url": {"url": image_url(part)}}
    if isinstance(part, File) and part.data is not None:
        data = data_url(part.mime_type, part.data)
        return {
            "type": "file",
            "file": {"file_data": data, "filename": part.name or "file"},
        }
    if isinstance(part, Audio) and part.mime_type in _AUDIO_FORMATS:
        audio = {"data": b64(part.data), "format": _AUDIO_FORMATS[part.mime_type]}
        return {"type": "input_audio", "input_audio": audio}
    return None


def _as_text(part: Part) -> str:
    if isinstance(part, File):  # a file by URL: Chat Completions takes file data only
        return f"[File {part.name or ''} <{part.url}> ({part.mime_type})]"
    if isinstance(part, Audio):
        return as_text(part, "Chat Completions", "takes WAV and MP3 audio only")
    return as_text(part, "Chat Completions", "cannot attach a binary resource")


handle = handler(
    parse_calls,
    results,
    "the `role: tool` messages to append (and the user message with any media)",
)


_MAX_DESCRIPTION: Final = 1024  # the API answers "string_above_max_length" past this
_MAX_TOOLS: Final = 128  # tools in one request


def lint(tools: list[Tool[Any, Any]]) -> Iterator[Finding]:
    """What OpenAI would refuse or weaken: long descriptions, non-strict tools, too many tools up front.

    The Responses API has the same rules; its module reports nothing twice.
    """
    for item in tools:
        length = len(item.description.strip())
        if length > _MAX_DESCRIPTION:
            yield Finding(
                item.name,
                "long-description",
                f"the description has {length:,} characters; OpenAI rejects more than {_MAX_DESCRIPTION:,}. Shorten it",
            )
        yield from not_strict(item, "OpenAI", strict_problems(item))
    eager = sum(1 for item in tools if not item.defer_loading)
    if eager > _MAX_TOOLS:
        message = f"{eager} tools sent up front; OpenAI accepts at most {_MAX_TOOLS} per request. Defer some (defer_loading: the model finds them by search), split the set or select fewer"
        yield Finding(None, "too-many-tools", message)


# ---------------------------------------------------------------- strict subset

_FORMATS: Final = STRICT_FORMATS
_LIMITS: Final = (  # (what the walker counts, OpenAI's limit, how to say it)
    ("depth", 10, "nested {} levels deep"),
    ("properties", 5000, "{} properties"),
    ("enum_values", 1000, "{} enum values"),
    ("text", 120_000, "{} characters of names and enum values"),
)
_DIALECT: Final = Dialect(
    provider="OpenAI",
    keep=STRICT_KEEP
    | {
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "minItems",
        "maxItems",
    },
    formats=_FORMATS,
    optional_nullable=True,
)


def openai_strict(schema: JsonSchema) -> Strict:
    """OpenAI Structured Outputs: every property required, optional ones nullable.

    `additionalProperties: false` on every object, `default` and unsupported
    keywords removed and said in the description, `$ref` with siblings
    wrapped in `anyOf`. Maps, free-form objects, tuples, `Any` and schemas
    over OpenAI's limits cannot be strict.
    """
    walker = StrictWalker(_DIALECT)
    out = walker.root(schema)
    for counter, limit, said in _LIMITS:
        count: int = getattr(walker, counter)
        if count > limit:
            walker.problems.append(
                f"(root): {said.format(count)}, over OpenAI's limit of {limit}"
            )
    return walker.result(out)
