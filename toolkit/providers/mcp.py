"""MCP's wire form: `Tool` definitions, `tools/call` params, `CallToolResult`s.

The lowest layer of the MCP provider: the server and the HTTP app serve
these shapes, and `toolkit.mcp` offers them with the client and
the server.

`outputSchema` is an object schema: a tool whose return type is not an
object gets `{"type": "object", "properties": {"result": ...}}` and its
`structuredContent` is wrapped the same way. Clients of protocol 2026-07-28
(`modern=True`) take any JSON Schema and any JSON value, so they get both as
they are. A tool failure is a result with `isError: true`, never a protocol
error.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Iterator
from typing import Any, ClassVar

from toolkit.core._exceptions import ToolDefinitionError
from toolkit.core._finding import Finding
from toolkit.core._frozen import FrozenDict, FrozenList, freeze
from toolkit.providers._common import (
    Runs,
    Source,
    call_of,
    field,
    handler,
    mint_id,
    offered,
    pair,
)
from toolkit.providers._parts import exportable
from toolkit.providers._transform import is_wrapped, wrap_output
from toolkit.schema._checker import compile_check
from toolkit.schema._invalid import jsonschema_validator
from toolkit.schema._schema import dangling_refs, inline_root
from toolkit.tools._names import check_name, valid_name
from toolkit.tools._tool import Tool
from toolkit.tools._views import model_description
from toolkit.values._content import (
    Audio,
    File,
    Image,
    Part,
    Resource,
    ResourceLink,
    Text,
)
from toolkit.values._results import ToolCall, ToolResult, error_text
from toolkit.values._scalars import b64

__all__ = [
    "definition",
    "dump",
    "handle",
    "lint",
    "parse_calls",
    "problems",
    "result",
    "results",
    "tools",
]

_HINTS = (
    ("read_only", "readOnlyHint"),
    ("destructive", "destructiveHint"),
    ("idempotent", "idempotentHint"),
    ("open_world", "openWorldHint"),
)


def dump(value: Any) -> Any:
    """`value` in its wire form: a model as the JSON its aliases name (no nulls), a dict's values alike."""
    if hasattr(value, "model_dump"):
        return value.model_dump(by_alias=True, mode="json", exclude_none=True)
    if isinstance(value, dict):
        return {key: dump(item) for key, item in value.items()}
    return value


def definition(item: Tool[Any, Any], *, modern: bool = False) -> dict[str, Any]:
    """The MCP `Tool` of one toolkit tool, camelCase as on the wire.

    The docstring's Returns text is the `outputSchema`'s `description` when
    there is an output schema, else the last paragraph of `description`.
    With `modern` (protocol 2026-07-28), the `outputSchema` is the tool's
    own, not wrapped as `{"result": ...}` when it is not an object schema,
    unless it admits `null`: the SDK leaves a `null` `structuredContent`
    out of the result, and its clients then refuse it as missing, so such a
    value is sent wrapped, `{"result": null}`, as to 2025-11-25 clients.
    """
    out: dict[str, Any] = {"name": item.name}
    if item.title:
        out["title"] = item.title
    schema = item.output_schema
    output = (
        inline_root(schema)
        if modern and schema is not None and not _admits_null(schema)
        else wrap_output(schema)
    )
    description = item.description if output is not None else model_description(item)
    if description:
        out["description"] = description
    out["inputSchema"] = item.parameters
    if output is not None:
        if item.returns and "description" not in output:
            output = {**output, "description": item.returns}
        out["outputSchema"] = freeze(output)
    annotations = {
        hint: value
        for attribute, hint in _HINTS
        if (value := getattr(item, attribute)) is not None
    }
    if annotations:
        out["annotations"] = FrozenDict(
            {"title": item.title, **annotations} if item.title else annotations
        )
    return FrozenDict(out)


def problems(item: Tool[Any, Any]) -> tuple[str, ...]:
    """Why MCP clients would refuse the `Tool` made of `item`; empty when they accept it.

    A `tools/list` result is checked as a whole by the clients, so one tool
    they refuse would hide every other: `tools()` leaves such a tool out.
    """
    return _checked(item)[1]


def _checked(item: Tool[Any, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The 2025-11-25 MCP `Tool` of `item`, and why clients would refuse it (`problems`)."""
    try:
        made = definition(item)
    except Exception as error:  # a schema changed after the tool was made
        return {}, (f"its MCP definition cannot be made ({error_text(error)})",)
    found = []
    for key in ("inputSchema", "outputSchema"):
        schema = made.get(key)
        if key in made and not (
            isinstance(schema, dict) and schema.get("type") == "object"
        ):
            found.append(
                f'{key} must be a JSON Schema with "type": "object" at its root'
            )
        elif key in made:
            found.extend(
                f"{key} refers to {ref}, which is not inside it; clients cannot resolve it"
                for ref in dangling_refs(schema)
            )
    return made, tuple(found)


def tools(source: Source, *, modern: bool = False) -> list[dict[str, Any]]:
    """The `tools` of a `tools/list` result; with `modern`, in the form of protocol 2026-07-28.

    A tool that MCP clients would refuse (see `problems`) is left out, with a
    warning on the `toolkit` logger, so that the others stay usable: the
    same tools for clients of either generation.
    """
    listed = []
    for item in offered(source):
        made, found = _checked(item)
        try:
            check_name(item.name)
        except ToolDefinitionError as error:
            found = (str(error), *found)
        if found:
            _left_out(item, found)
        else:
            listed.append(definition(item, modern=True) if modern else made)
    return FrozenList(listed)


def _left_out(item: Tool[Any, Any], found: tuple[str, ...]) -> None:
    import logging

    logging.getLogger("toolkit").warning(
        "MCP: tool %r is left out of the tools list, since clients would refuse it: %s",
        item.name,
        "; ".join(found),
    )


def parse_calls(params: Any) -> list[ToolCall]:
    """`tools/call` params (`{"name", "arguments"}`), a whole request, or a list of either."""
    if isinstance(params, (list, tuple)):  # lists in lists, walked without recursion
        calls: list[ToolCall] = []
        stack = [iter(params)]
        while stack:
            entry = next(stack[-1], stack)
            if entry is stack:
                stack.pop()
            elif isinstance(entry, (list, tuple)):
                stack.append(iter(entry))
            else:
                calls.extend(parse_calls(entry))
        return calls
    inner = field(params, "params")
    request_id = field(params, "id")
    if inner is not None:
        params = inner
    arguments = field(params, "arguments")
    return [
        call_of(
            request_id if request_id is not None else mint_id(),
            field(params, "name"),
            arguments if arguments is not None else {},
        )
    ]


def result(
    outcome: ToolResult, tool: Tool[Any, Any] | None = None, *, modern: bool = False
) -> dict[str, Any]:
    """One `CallToolResult`: the content blocks, `isError`, and `structuredContent`.

    Text is a `text` block; content parts become `image`, `audio`, `resource`
    (embedded) and `resource_link` blocks, in order. A file is an embedded
    resource when it has bytes, a resource link when it has a URL; so is an
    image given by URL, since MCP images carry their bytes.

    `structuredContent` follows the `outputSchema` of the `tool` that made
    the result, never the value: with an output schema it is there for every
    successful call (`None` included), wrapped as `{"result": ...}` exactly
    when the schema is; a value that does not fit the schema becomes an
    error result, which clients accept, instead of a result they would
    refuse. A tool without an output schema sends a structured value as it
    is when it is an object, wrapped otherwise. Without the `tool`, whose
    schema alone says the form, no `structuredContent` is sent: the JSON
    text is in `content`. With `modern` (protocol 2026-07-28, whose
    `structuredContent` may be any JSON value), the value is never wrapped.
    """
    if outcome.content or outcome.structured is not None:  # text alone always goes
        (outcome,) = exportable([outcome], "mcp")
    if tool is not None and tool.output_schema is not None and not outcome.is_error:
        return _structured_result(outcome, tool, modern)
    out: dict[str, Any] = {
        "content": [_block(part) for part in outcome.parts],
        "isError": outcome.is_error,
    }
    if tool is not None and not outcome.is_error and outcome.structured is not None:
        value = outcome.structured
        out["structuredContent"] = (
            value if modern or isinstance(value, dict) else {"result": value}
        )
    return out


def _block(part: Part) -> dict[str, Any]:
    if isinstance(part, Text):
        return {"type": "text", "text": part.text}
    if isinstance(part, Image) and part.data is not None:
        return {"type": "image", "data": b64(part.data), "mimeType": part.mime_type}
    if isinstance(part, Audio):
        return {"type": "audio", "data": b64(part.data), "mimeType": part.mime_type}
    if isinstance(part, Resource):
        return {
            "type": "resource",
            "resource": _contents(part.uri, part.mime_type, part.text, part.data),
        }
    if isinstance(part, File) and part.data is not None:
        uri = f"file:///{part.name or 'attachment'}"
        return {
            "type": "resource",
            "resource": _contents(uri, part.mime_type, None, part.data),
        }
    if isinstance(part, ResourceLink):
        link = {"type": "resource_link", "uri": part.uri, "name": part.name}
        if part.mime_type:
            link["mimeType"] = part.mime_type
        if part.description:
            link["description"] = part.description
        return link
    url = getattr(part, "url", None) or ""  # an image or a file given by URL
    name = getattr(part, "name", None) or url.rsplit("/", 1)[-1] or url
    return {
        "type": "resource_link",
        "uri": url,
        "name": name,
        "mimeType": part.mime_type,
    }


def _contents(
    uri: str, mime_type: str | None, text: str | None, data: bytes | None
) -> dict[str, Any]:
    contents: dict[str, Any] = {"uri": uri}
    if mime_type:
        contents["mimeType"] = mime_type
    if text is not None:
        contents["text"] = text
    else:
        contents["blob"] = b64(data or b"")
    return contents


def _structured_result(
    outcome: ToolResult, tool: Tool[Any, Any], modern: bool
) -> dict[str, Any]:
    output = _OutputForms.of(tool)
    value = outcome.structured
    content = {"result": value} if output.wrapped else value
    if outcome.content and value is None:
        return {
            "content": [
                {"type": "text", "text": _PARTS_FOR_SCHEMA.format(name=tool.name)}
            ],
            "isError": True,
        }
    if (value is None and outcome.text != "null") or output.problem(content):
        # The call ran, but gave no value the schema admits (its annotation
        # is looser than what it returns): clients refuse such a result
        # unless it is flagged, so the model reads the value, then why.
        note = _RAN_UNSTRUCTURED.format(name=tool.name)
        blocks = [_block(part) for part in outcome.parts]
        return {"content": [*blocks, {"type": "text", "text": note}], "isError": True}
    return {
        "content": [_block(part) for part in outcome.parts],
        "isError": False,
        "structuredContent": value if modern and not output.nullable else content,
    }


def _admits_null(schema: Any) -> bool:
    """Whether `null` is a value of the output schema (`X | None`): sent wrapped to every client."""
    check = compile_check(schema)
    try:
        return bool(check(None)) if check is not None else False
    except Exception:  # a schema no check reads: as it was
        return False


_RAN_UNSTRUCTURED = (
    'The call of tool "{name}" ran and returned the value above. It is flagged '
    "as an error only because the value does not fit the output schema the "
    "tool declares, which MCP clients hold every successful result to."
)

_PARTS_FOR_SCHEMA = (
    'Tool "{name}" returned content parts without a structured value, but its '
    "return annotation gives it an output schema, which MCP clients hold it to. "
    "Annotate the return as the parts it gives (for example `-> list[Image | str]`) "
    "or as `Any`, or return ToolResult.ok(content=..., structured=...)."
)


class _OutputForms:
    """A tool's MCP `outputSchema` and its check, made on the tool's first structured result."""

    _kept: ClassVar[weakref.WeakKeyDictionary[Tool[Any, Any], _OutputForms]] = (
        weakref.WeakKeyDictionary()
    )

    def __init__(self, tool: Tool[Any, Any]) -> None:
        self.name = tool.name
        self.source = tool.output_schema
        self.wrapped = is_wrapped(tool.output_schema)
        self.nullable = tool.output_schema is not None and _admits_null(
            tool.output_schema
        )
        self.schema = wrap_output(tool.output_schema)
        self._check = compile_check(self.schema) if self.schema is not None else None

    @classmethod
    def of(cls, tool: Tool[Any, Any]) -> _OutputForms:
        kept = cls._kept.get(tool)
        if (
            kept is None
            or kept.source is not tool.output_schema
            or kept.name != tool.name
        ):
            kept = cls._kept[tool] = cls(tool)
        return kept

    def problem(self, content: Any) -> str | None:
        """None when `content` fits the `outputSchema`, else the error text for the model."""
        try:
            if self._check is not None:
                valid = self._check(content)
            else:
                valid = bool(jsonschema_validator(self.schema or {}).is_valid(content))
        except Exception as error:  # a schema no validator reads: say so, never raise
            return f'Tool "{self.name}" has an output schema its result could not be checked against ({type(error).__name__}).'
        if valid:
            return None
        kind = type(content.get("result") if self.wrapped else content).__qualname__
        return f'Tool "{self.name}" returned a structured value of type {kind} that does not match its output schema.'


def results(
    calls: Iterable[ToolCall],
    outcomes: Iterable[ToolResult],
    *,
    toolset: Runs | None = None,
) -> list[dict[str, Any]]:
    """One `CallToolResult` dict per call, in call order.

    Pass the `toolset` that ran the calls (`handle` does): each
    `structuredContent` follows its tool's `outputSchema`, and without the
    tools none is sent (see `result`).
    """
    return [
        result(outcome, toolset.get(call.name) if toolset is not None else None)
        for call, outcome in pair(calls, outcomes)
    ]


handle = handler(parse_calls, results, "the `CallToolResult`s", with_toolset=True)


def lint(tools: list[Tool[Any, Any]]) -> Iterator[Finding]:
    """Tools whose MCP definition clients would refuse (they are left out of `tools/list`).

    Also the tools of an MCP server (`connect`) whose own name is not a
    tool name (whitespace, over 128 characters), which have another here.
    """
    for item in tools:
        remote = item.remote_name
        if remote is not None and not valid_name(remote):
            yield Finding(
                item.name,
                "mcp-renamed",
                f"the MCP server names it {remote!r}, which is not a tool name (1 to 128 printable "
                f"characters without whitespace); it is {item.name!r} here, and calls reach the "
                "server under its own name",
            )
        for problem in problems(item):
            yield Finding(
                item.name,
                "mcp-invalid",
                f"MCP clients would refuse it, so it is left out of the MCP tools list: {problem}",
            )
