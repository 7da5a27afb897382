"""An MCP server's tool definitions and results, read into toolkit's `Tool`s and `ToolResult`s."""

from __future__ import annotations

import base64
from typing import Any, Final

from toolkit.core._exceptions import ToolDefinitionError
from toolkit.core._log import log_failure, log_warning
from toolkit.tools._tool import Tool
from toolkit.values._content import Audio, Image, Part, Resource, ResourceLink, Text
from toolkit.values._json import encode
from toolkit.values._results import ToolResult

__all__ = [
    "FALLBACK_VERSION",
    "adopted",
    "cause",
    "dump",
    "first_error",
    "new_tool",
    "result_of",
    "tool_options",
    "usable_tools",
]


def first_error(error: BaseException) -> BaseException:
    """The first error of an exception group (the SDK's task groups raise them); else `error`."""
    while getattr(error, "exceptions", None):
        error = error.exceptions[0]  # type: ignore[attr-defined]
    return error


def cause(error: BaseException) -> str:
    """What went wrong, in one line: the first error of a group, its type and message."""
    error = first_error(error)
    message = getattr(getattr(error, "error", None), "message", None) or str(error)
    if isinstance(error, OSError) and not message:
        message = error.strerror or ""
    kind = type(error).__name__
    return f"{kind}: {message}" if message else kind


# ---------------------------------------------------------------- tools and results


FALLBACK_VERSION: Final = "2025-11-25"  # the SDK's own, before a version is agreed


def adopted(supported: list[Any], current: str) -> str:
    """The version the SDK's client adopts from a discover answer: the newest modern one both speak."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    modern = [item for item in supported if item in MODERN_PROTOCOL_VERSIONS]
    return max(modern) if modern else current


def usable_tools(listed: dict[str, Any], version: str, label: str) -> list[Any]:
    """The listed tools that the SDK's check of `tools/list` accepts; a warning for each other.

    An `inputSchema` without a `type` (which MCP asks for, and some servers
    leave out) is taken as the object schema it describes.
    """
    from mcp_types.methods import validate_server_result

    kept = []
    for tool in listed["tools"]:
        schema = tool.get("inputSchema") if isinstance(tool, dict) else None
        if isinstance(schema, dict) and "type" not in schema:
            tool = {**tool, "inputSchema": {"type": "object", **schema}}
        try:
            validate_server_result("tools/list", version, {**listed, "tools": [tool]})
        except Exception as error:  # pydantic's ValidationError, an unknown version
            name = tool.get("name") if isinstance(tool, dict) else None
            log_warning(
                "MCP server %r: the tool %r is left out: its definition is not one MCP allows: %s",
                label,
                name if isinstance(name, str) else "(no name)",
                cause(error).splitlines()[0],
            )
            continue
        kept.append(tool)
    return kept


# ---------------------------------------------------------------- connections


def tool_options(definition: Any) -> dict[str, Any]:
    annotations = definition.annotations
    title = definition.title or (annotations.title if annotations is not None else None)
    options: dict[str, Any] = {"thread": False}
    if title:
        options["title"] = title
    if annotations is not None:
        for attribute, hint in _HINTS:
            value = getattr(annotations, hint)
            if value is not None:
                options[attribute] = value
    return options


_HINTS: Final = (
    ("read_only", "read_only_hint"),
    ("destructive", "destructive_hint"),
    ("idempotent", "idempotent_hint"),
    ("open_world", "open_world_hint"),
)


def new_tool(
    name: str, definition: Any, execute: Any, options: dict[str, Any]
) -> Tool[Any, Any]:
    """`Tool.new` from the remote definition; an output schema toolkit cannot use is dropped."""
    parameters = definition.input_schema
    output = definition.output_schema
    if output is not None:
        returns = output.get("description")
        if isinstance(returns, str) and returns:
            options["returns"] = returns
        try:
            return Tool.new(
                name=name,
                description=definition.description or "",
                parameters=parameters,
                execute_fn=execute,
                output_schema=output,
                **options,
            )
        except ToolDefinitionError as error:
            if "output_schema" not in str(error):
                raise
            log_warning("MCP tool %r: its outputSchema is left out: %s", name, error)
            options.pop("returns", None)
    return Tool.new(
        name=name,
        description=definition.description or "",
        parameters=parameters,
        execute_fn=execute,
        **options,
    )


def dump(definition: Any) -> str:
    return str(definition.model_dump_json(by_alias=True, exclude_none=True))


def result_of(result: Any) -> ToolResult:
    """A `CallToolResult` as a `ToolResult`: text, parts, `structured`, `is_error`."""
    parts = tuple(_part(block) for block in result.content)
    structured = result.structured_content
    is_error = bool(result.is_error)
    if all(isinstance(part, Text) for part in parts):
        texts = [part.text for part in parts if isinstance(part, Text)]
        text = "\n".join(texts)
        if not texts and structured is not None:
            text = encode(structured)
        return ToolResult(text, is_error, None, None if is_error else structured)
    text = "\n".join(part.text for part in parts if isinstance(part, Text))
    return ToolResult(text, is_error, None, None if is_error else structured, parts)


def _part(block: Any) -> Part:
    """One content block as a content part; one that cannot be read becomes a text saying so."""
    kind = getattr(block, "type", None)
    try:
        if kind == "text":
            return Text(block.text)
        if kind == "image":
            return Image(data=_bytes(block.data), mime_type=block.mime_type)
        if kind == "audio":
            return Audio(data=_bytes(block.data), mime_type=block.mime_type)
        if kind == "resource":
            contents = block.resource
            text = getattr(contents, "text", None)
            if text is not None:
                return Resource(
                    str(contents.uri), mime_type=contents.mime_type, text=text
                )
            return Resource(
                str(contents.uri),
                mime_type=contents.mime_type,
                data=_bytes(contents.blob),
            )
        if kind == "resource_link":
            return ResourceLink(
                str(block.uri),
                block.name,
                mime_type=block.mime_type,
                description=block.description,
            )
    except (ValueError, TypeError) as error:
        log_failure("An MCP content block could not be read", error=error)
        return Text(f"[a {kind} block that could not be read: {error}]")
    return Text(f"[a content block of type {kind!r}, which toolkit does not read]")


def _bytes(data: str) -> bytes:
    return base64.b64decode(data, validate=True)
