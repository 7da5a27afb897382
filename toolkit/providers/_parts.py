"""Content parts on the way to an API: what every provider module shares.

Each provider maps parts to its own blocks; this module gives them the parts
of a result (text first when a result has text but no `Text` part), base64
and data URLs, the size check against an API's limits, and the short text
that replaces a part an API cannot carry, so that nothing is dropped
silently.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any, Final

from toolkit._content import (
    Audio,
    File,
    Image,
    Part,
    Resource,
    ResourceLink,
    Text,
    describe,
)
from toolkit._results import ToolResult

__all__ = [
    "LIMITS",
    "as_text",
    "b64",
    "data_url",
    "image_url",
    "left_out",
    "link_text",
    "over_limit",
    "parts_of",
    "resource_text",
]

LIMITS: Final[Mapping[str, Mapping[str, int]]] = {
    # Anthropic answers "image exceeds 5 MB maximum: N bytes > 5242880 bytes" for a
    # larger base64 image (the API's own error text, 2025-12).
    "anthropic": {"image": 5_242_880},
    # Gemini takes at most 20 MB of inline data in one request; larger media go
    # through its Files API or a URL (Gemini API docs, "inline data", 2025).
    "gemini": {"image": 20_000_000, "audio": 20_000_000, "file": 20_000_000},
    # OpenAI: at most 50 MB of images in one request ("Images and vision" guide) and
    # 32 MB of file content in one request ("File inputs" guide), as of 2026-12.
    "openai": {"image": 50_000_000, "file": 32_000_000},
}
"""Bytes of base64 one part may take, per API and kind; a caller can pass its own."""


def parts_of(result: ToolResult) -> tuple[Part, ...]:
    """The parts to send for `result`: its content, or its text as one `Text`."""
    content = result.content
    if not content:
        return (Text(result.text),)
    if result.text and not any(isinstance(part, Text) for part in content):
        return (Text(result.text), *content)
    return content


def b64(data: bytes) -> str:
    """`data` as base64 text."""
    return base64.b64encode(data).decode("ascii")


def data_url(mime_type: str, data: bytes) -> str:
    """A `data:` URL holding `data`."""
    return f"data:{mime_type};base64,{b64(data)}"


def image_url(part: Image) -> str:
    """Where an image is: its URL, or a `data:` URL holding its bytes."""
    return (
        part.url if part.url is not None else data_url(part.mime_type, part.data or b"")
    )


def left_out(part: Part, api: str, why: str) -> str:
    """The text that stands where `api` cannot carry `part`."""
    return f"[{describe(part)} left out: {api} {why}]"


def link_text(part: ResourceLink) -> str:
    """A resource link as text: a pointer the model can mention or ask for."""
    mime = f", {part.mime_type}" if part.mime_type else ""
    about = f": {part.description}" if part.description else ""
    return f"[Resource link {part.name} <{part.uri}>{mime}{about}]"


def resource_text(part: Resource) -> str:
    """A text resource as text, headed by its URI."""
    return f"[Resource {part.uri}]\n{part.text}"


def as_text(part: Part, api: str, why: str) -> str:
    """A part that travels as text: its text, a text resource, a link, or what was left out and `why`."""
    if isinstance(part, Text):
        return part.text
    if isinstance(part, Resource) and part.text is not None:
        return resource_text(part)
    if isinstance(part, ResourceLink):
        return link_text(part)
    return left_out(part, api, why)


def _kind(part: Part) -> str | None:
    for cls, kind in ((Image, "image"), (Audio, "audio"), (File, "file")):
        if isinstance(part, cls):
            return kind
    return None


def over_limit(
    result: ToolResult, api: str, limits: Mapping[str, Mapping[str, int]] | None
) -> ToolResult | None:
    """An error result when a part of `result` is larger than `api` accepts, else None."""
    table = (limits if limits is not None else LIMITS).get(api, {})
    for part in result.content:
        kind = _kind(part)
        data: Any = getattr(part, "data", None)
        if kind is None or data is None or kind not in table:
            continue
        size = (len(data) + 2) // 3 * 4  # the length of its base64 text
        if size > table[kind]:
            return ToolResult.error(
                f"The tool's {describe(part)} is {size:,} bytes as base64, over {api}'s limit of "
                f"{table[kind]:,} bytes for one {kind}. Send a smaller {kind}, or a URL to it."
            )
    return None
