"""The tools the official MCP conformance suite calls, served by `toolkit serve`.

The suite (`@modelcontextprotocol/conformance`) connects to a running server
and checks each scenario against the tool it names: `test_simple_text` must
answer with text, `test_error_handling` with an `isError` result,
`test_image_content` with an image block, `json_schema_2020_12_tool` must
keep `$schema`, `$defs` and `additionalProperties` in its `inputSchema`, and
so on. `make conformance` serves this file over streamable HTTP and runs the
suite against it:

    toolkit serve examples/mcp_conformance_server.py --http 127.0.0.1:8765

Scenarios about what toolkit does not serve yet (resources, prompts,
completion, logging, progress, sampling, elicitation) are listed with their
reason in `.ci/conformance-expected-failures.yml`.
"""

from __future__ import annotations

import struct
import zlib
from typing import Any

from toolkit import Audio, Image, Resource, Tool, ToolError, ToolResult, ToolSet

tools = ToolSet()


def red_pixel() -> bytes:
    """A 1x1 red PNG, built with zlib and struct."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))
        + chunk(b"IEND", b"")
    )


def silence() -> bytes:
    """A WAV file of 8 silent samples: 8 kHz, 8-bit, mono."""
    samples = b"\x80" * 8
    fmt = struct.pack("<HHIIHH", 1, 1, 8000, 8000, 1, 8)
    body = (
        b"WAVE"
        + b"fmt "
        + struct.pack("<I", len(fmt))
        + fmt
        + b"data"
        + struct.pack("<I", len(samples))
        + samples
    )
    return b"RIFF" + struct.pack("<I", len(body)) + body


@tools.tool
def test_simple_text() -> str:
    """Answer with a line of text."""
    return "This is a simple text response for testing."


@tools.tool
def test_error_handling() -> str:
    """Always fail, as an error result the model can read."""
    message = "This tool intentionally returns an error for testing"
    raise ToolError(message)


@tools.tool
def test_image_content() -> Image:
    """Answer with a 1x1 red PNG image."""
    return Image.from_bytes(red_pixel())


@tools.tool
def test_audio_content() -> Audio:
    """Answer with a short silent WAV recording."""
    return Audio.from_bytes(silence())


@tools.tool
def test_embedded_resource() -> Resource:
    """Answer with an embedded text resource."""
    return Resource(
        "test://embedded-resource",
        mime_type="text/plain",
        text="This is an embedded resource content.",
    )


@tools.tool
def test_multiple_content_types() -> list[str | Image | Resource]:
    """Answer with text, an image and an embedded JSON resource."""
    return [
        "Multiple content types test:",
        Image.from_bytes(red_pixel()),
        Resource(
            "test://mixed-content-resource",
            mime_type="application/json",
            text='{"test":"data","value":123}',
        ),
    ]


def _describe_address(agent_id: str, call_id: str, args: dict[str, Any]) -> ToolResult:
    address = args.get("address") or {}
    return ToolResult.ok(
        f"{args.get('name', 'someone')} lives at {address.get('street', '?')}, {address.get('city', '?')}."
    )


# A schema written by hand (Tool.new) keeps every JSON Schema 2020-12 keyword
# it has, `$schema` and a lower-case `$defs` name included, as the suite checks.
tools.add(
    Tool.new(
        name="json_schema_2020_12_tool",
        description="Tool with JSON Schema 2020-12 features",
        parameters={
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "type": "object",
                    "properties": {
                        "street": {"type": "string"},
                        "city": {"type": "string"},
                    },
                }
            },
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
            },
            "additionalProperties": False,
        },
        execute_fn=_describe_address,
    )
)
