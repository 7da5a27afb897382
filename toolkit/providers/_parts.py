"""Content parts on the way to an API: what every provider module shares.

Each provider maps parts to its own blocks; this module gives them the parts
of a result (text first when a result has text but no `Text` part), base64
and data URLs, the size check against an API's limits, and the short text
that replaces a part an API cannot carry, so that nothing is dropped
silently.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from toolkit.values._content import (
    IMAGE_TYPES,
    PART_TYPES,
    Audio,
    File,
    Image,
    Part,
    Resource,
    ResourceLink,
    Text,
    describe,
    sniff,
)
from toolkit.values._results import ToolResult
from toolkit.values._scalars import b64

__all__ = [
    "LIMITS",
    "as_text",
    "data_url",
    "exportable",
    "image_url",
    "left_out",
    "link_text",
    "resource_text",
    "unreadable",
]

LIMITS: Final[Mapping[str, Mapping[str, int]]] = {
    # Anthropic: "image exceeds 5 MB maximum: N bytes > 5242880 bytes" for a larger
    # base64 image (the API's own error text, 2025-12); a Messages request is at
    # most 32 MB, documents (PDFs) included (Anthropic docs, "PDF support": maximum
    # request size 32 MB, and "Errors": request_too_large).
    "anthropic": {"image": 5_242_880, "file": 32_000_000, "request": 32_000_000},
    # Gemini takes at most 20 MB of inline data in one request; larger media go
    # through its Files API or a URL (Gemini API docs, "inline data", 2025).
    "gemini": {
        "image": 20_000_000,
        "audio": 20_000_000,
        "file": 20_000_000,
        "request": 20_000_000,
    },
    # OpenAI: up to 20 MB per image and 50 MB of image bytes per request ("Images and
    # vision" guide, "Image input requirements"), 32 MB of file content in one
    # request ("File inputs" guide), as of 2026-12.
    "openai": {"image": 20_000_000, "file": 32_000_000, "request": 50_000_000},
}
"""Bytes of base64 one part (by kind) and all the parts of one request ("request")
may take, per API; a caller can pass its own."""


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


def exportable(
    results: list[ToolResult],
    api: str,
    limits: Mapping[str, Mapping[str, int]] | None = None,
) -> list[ToolResult]:
    """The results of one request as they can go to `api`, whatever a caller put in them.

    A part whose bytes are not what it says (`unreadable`) becomes a text
    saying so, which the model can read; a result whose parts are over the
    limit of one part, or would take the request's parts over the limit of
    one request (`limits`, default `LIMITS`), and, for an API that is
    sent the `structured` value, a result whose value is not JSON (a cycle,
    a set), become error results that say why. Results that need none of this are returned as they are.
    """
    table = (limits if limits is not None else LIMITS).get(api, {})
    room = table.get("request")
    sends_structured = api in _SENDS_STRUCTURED
    made: list[ToolResult] = []
    for result in results:
        if (
            sends_structured
            and result.structured is not None
            and _not_json(result.structured)
        ):
            result = ToolResult.error(
                "The tool's structured value cannot be sent: it is not JSON data "
                "(a value that contains itself, or a type JSON does not have)."
            )
        elif result.content:
            result = _checked(result, api, table)
            size = sum(_size(part) for part in result.content)
            if room is not None and size > room:
                result = ToolResult.error(
                    f"The tool's parts are {size:,} bytes as base64, over what is left of {api}'s "
                    f"limit of {table['request']:,} bytes for all the parts of one request. "
                    f"Send smaller parts, fewer of them, or URLs."
                )
            elif room is not None:
                room -= size
        made.append(result)
    return made


_SENDS_STRUCTURED: Final = frozenset({"gemini", "mcp"})
"""The APIs a result's `structured` value goes to (the others are sent its text)."""


def _not_json(value: Any) -> bool:
    from toolkit.values._json import encode

    try:
        encode(value)
    except (ValueError, TypeError, RecursionError):
        return True
    return False


def _size(part: Part) -> int:
    """The length of a part's bytes as base64 text (0 for a part without bytes)."""
    data = getattr(part, "data", None)
    return (len(data) + 2) // 3 * 4 if isinstance(data, (bytes, bytearray)) else 0


def _checked(result: ToolResult, api: str, table: Mapping[str, int]) -> ToolResult:
    """`result` with each part it cannot send as a text saying why; an error result for a part over its limit."""
    parts: list[Part] = []
    for part in result.content:
        problem = unreadable(part)
        if problem is not None:
            parts.append(Text(f"[{problem}; left out]"))
            continue
        kind = _kind(part)
        size = _size(part)
        if kind is not None and kind in table and size > table[kind]:
            return ToolResult.error(
                f"The tool's {describe(part)} is {size:,} bytes as base64, over {api}'s limit of "
                f"{table[kind]:,} bytes for one {kind}. Send a smaller {kind}, or a URL to it."
            )
        parts.append(part)
    if all(new is old for new, old in zip(parts, result.content, strict=True)):
        return result
    return ToolResult(
        result.text, result.is_error, result.ui, result.structured, tuple(parts)
    )


_AUDIO_SIGNATURES: Final[Mapping[str, Callable[[bytes], bool]]] = {
    "audio/wav": lambda data: data[:4] == b"RIFF" and data[8:12] == b"WAVE",
    "audio/mpeg": lambda data: (
        data[:3] == b"ID3" or (data[:1] == b"\xff" and data[1:2] >= b"\xe0")
    ),  # a tag, or an MPEG frame's sync bits
    "audio/ogg": lambda data: data[:4] == b"OggS",
    "audio/flac": lambda data: data[:4] == b"fLaC",
    "audio/mp4": lambda data: data[4:8] == b"ftyp",
}
_ALIASES: Final = {
    "audio/x-wav": "audio/wav",
    "audio/wave": "audio/wav",
    "audio/mp3": "audio/mpeg",
}


def unreadable(part: object) -> str | None:
    """What is wrong with a part that must not go to an API as it is, or None.

    Checked by the bytes, not by what the part says of itself: an image
    must be PNG, JPEG, GIF or WebP (what every API reads; no SVG, no HTML)
    and start with that format's magic number; audio and PDFs must start
    with theirs; media are never empty; a MIME type is a string.
    """
    if not isinstance(part, PART_TYPES):
        return f"{type(part).__name__} {part!r:.40}, which is not a content part"
    if isinstance(part, (Text, ResourceLink)):
        return None
    mime_type = part.mime_type
    if mime_type is not None and not isinstance(mime_type, str):
        return f"{type(part).__name__} with a MIME type that is not text: {mime_type!r:.40}"
    data = part.data
    if data is None:
        return None
    if not isinstance(data, (bytes, bytearray)):
        return f"{type(part).__name__} whose data is not bytes"
    what = describe(part)
    if not data and not isinstance(part, Resource):
        return f"{what}: empty"
    found = sniff(data)
    claimed = _ALIASES.get(mime_type or "", mime_type)
    if isinstance(part, Image) and (claimed not in IMAGE_TYPES or found != claimed):
        return f"{what}: the bytes are not a PNG, JPEG, GIF or WebP image of that type"
    signed = _AUDIO_SIGNATURES.get(claimed or "")
    if isinstance(part, Audio) and signed is not None and not signed(bytes(data[:12])):
        return f"{what}: the bytes are not audio of that type"
    if claimed == "application/pdf" and found != claimed:
        return f"{what}: the bytes are not a PDF"
    return None
