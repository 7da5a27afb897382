"""Content parts: what a tool hands the model beside or instead of text.

`Text`, `Image`, `Audio`, `File`, `Resource` and `ResourceLink` are frozen
records. Media carries its bytes (`data`) or a `url`, and always a MIME type:
sniffed from the bytes where the format has a signature, else taken from the
file name, so that every provider can say exactly what it sends. The bytes
are kept raw; providers base64-encode them in the shape their API wants.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from toolkit.core._exceptions import ContentError
from toolkit.core._record import Record, TextRecord

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = [
    "IMAGE_TYPES",
    "PART_TYPES",
    "Audio",
    "File",
    "Image",
    "Part",
    "Resource",
    "ResourceLink",
    "Text",
    "as_parts",
    "describe",
    "is_content",
    "joined_text",
    "save_part",
    "sniff",
    "with_text",
]

_set = object.__setattr__

# (offset, signature, MIME type): the magic bytes each format starts with.
_SIGNATURES: Final = (
    (0, b"\x89PNG\r\n\x1a\n", "image/png"),
    (0, b"\xff\xd8\xff", "image/jpeg"),
    (0, b"GIF87a", "image/gif"),
    (0, b"GIF89a", "image/gif"),
    (8, b"WEBP", "image/webp"),  # after "RIFF" and the size
    (8, b"WAVE", "audio/wav"),
    (0, b"ID3", "audio/mpeg"),
    (0, b"\xff\xfb", "audio/mpeg"),
    (0, b"\xff\xf3", "audio/mpeg"),
    (0, b"\xff\xf2", "audio/mpeg"),
    (0, b"OggS", "audio/ogg"),
    (0, b"fLaC", "audio/flac"),
    (4, b"ftypM4A", "audio/mp4"),
    (0, b"%PDF-", "application/pdf"),
)
IMAGE_TYPES: Final = ("image/png", "image/jpeg", "image/gif", "image/webp")
_URL_SCHEMES: Final = ("http://", "https://", "data:", "gs://", "file://")


def sniff(data: bytes) -> str | None:
    """The MIME type that `data`'s first bytes announce, or None when they announce none."""
    head = bytes(data[:16])
    for offset, signature, mime_type in _SIGNATURES:
        if head[offset : offset + len(signature)] == signature:
            if offset == 8 and head[:4] != b"RIFF":
                continue
            return mime_type
    return None


def _guess(name: str) -> str | None:
    import mimetypes

    guessed, _ = mimetypes.guess_type(name, strict=False)
    return guessed


def _read(path: str | os.PathLike[str]) -> tuple[bytes, str]:
    with open(path, "rb") as handle:
        return handle.read(), os.path.basename(os.fspath(path))


def _read_media(
    path: str | os.PathLike[str], kind: str, what: str, prefix: str
) -> tuple[bytes, str]:
    """A file's bytes and MIME type (from its bytes, then its extension), which must start with `prefix`."""
    data, name = _read(path)
    mime_type = sniff(data) or _guess(name)
    if mime_type is None or not mime_type.startswith(prefix):
        msg = f"{kind}.from_path: {os.fspath(path)!r} is not {what} ({mime_type or 'unknown type'})"
        raise ContentError(msg)
    return data, mime_type


def _check_bytes(kind: str, data: object) -> bytes:
    if isinstance(data, (bytearray, memoryview)):
        return bytes(data)
    if not isinstance(data, bytes):
        msg = f"{kind} data must be bytes, got {type(data).__name__}. Pass the raw bytes, or use {kind}.from_path / {kind}.from_url"
        raise ContentError(msg)
    return data


def _check_url(kind: str, url: object) -> str:
    if not isinstance(url, str) or not url.startswith(_URL_SCHEMES):
        msg = f"{kind} url must be an http(s), data:, gs:// or file:// URL, got {url!r}"
        raise ContentError(msg)
    return url


def _data_or_url(part: Any, kind: str, data: object, url: object) -> None:
    """Set the `data` and `url` of an Image or a File: exactly one of them is given."""
    if (data is None) == (url is None):
        msg = f"{kind} needs either data (bytes) or url, not both or neither"
        raise ContentError(msg)
    _set(part, "data", None if data is None else _check_bytes(kind, data))
    _set(part, "url", None if url is None else _check_url(kind, url))


def _size(data: bytes | None) -> str:
    return "None" if data is None else f"<{len(data):,} bytes>"


def _where(part: Image | File) -> str:
    return f"url={part.url!r}" if part.url is not None else f"data={_size(part.data)}"


class Text(TextRecord):
    """Text for the model; a plain `str` in a returned list becomes one.

    Attributes:
        text: The text.
    """

    __slots__ = ()

    def __init__(self, text: str) -> None:
        if not isinstance(text, str):
            msg = f"Text needs a str, got {type(text).__name__}"
            raise ContentError(msg)
        _set(self, "text", text)


class Image(Record):
    """An image, as bytes or as a URL.

    Attributes:
        data: The encoded image (PNG, JPEG, GIF, WebP), or None for a URL.
        url: Where the image is, or None for bytes.
        mime_type: The image's MIME type, for example "image/png".
    """

    __match_args__ = ("data", "url", "mime_type")
    __slots__ = ("data", "mime_type", "url")
    data: bytes | None
    url: str | None
    mime_type: str

    def __init__(
        self, *, data: bytes | None = None, url: str | None = None, mime_type: str
    ) -> None:
        _data_or_url(self, "Image", data, url)
        _set(self, "mime_type", mime_type)

    @classmethod
    def from_bytes(cls, data: bytes, mime_type: str | None = None) -> Self:
        """An image from its encoded bytes; the MIME type is read from them when not given.

        Raises:
            ContentError: The bytes are not a PNG, JPEG, GIF or WebP image and
                no `mime_type` was given.
        """
        data = _check_bytes("Image", data)
        if mime_type is None:
            mime_type = sniff(data)
            if mime_type not in IMAGE_TYPES:
                found = f" (they look like {mime_type})" if mime_type else ""
                msg = f"Image.from_bytes: the bytes are not a PNG, JPEG, GIF or WebP image{found}. Pass mime_type= if they are an image in another format"
                raise ContentError(msg)
        return cls(data=data, mime_type=mime_type)

    @classmethod
    def from_path(cls, path: str | os.PathLike[str]) -> Self:
        """An image read from a file; the MIME type from its bytes, then its extension.

        Raises:
            ContentError: The file is not an image.
            OSError: The file cannot be read.
        """
        data, mime_type = _read_media(path, "Image", "an image", "image/")
        return cls(data=data, mime_type=mime_type)

    @classmethod
    def from_url(cls, url: str, mime_type: str | None = None) -> Self:
        """An image at a URL; the MIME type from the URL's extension when not given."""
        url = _check_url("Image", url)
        return cls(url=url, mime_type=mime_type or _guess(url) or "image/*")

    def __repr__(self) -> str:
        return f"Image({_where(self)}, mime_type={self.mime_type!r})"


class Audio(Record):
    """A sound recording, as bytes.

    Attributes:
        data: The encoded audio.
        mime_type: Its MIME type: "audio/wav", "audio/mpeg", "audio/ogg", ...
    """

    __match_args__ = ("data", "mime_type")
    __slots__ = ("data", "mime_type")
    data: bytes
    mime_type: str

    def __init__(self, *, data: bytes, mime_type: str) -> None:
        _set(self, "data", _check_bytes("Audio", data))
        _set(self, "mime_type", mime_type)

    @classmethod
    def from_bytes(cls, data: bytes, mime_type: str | None = None) -> Self:
        """Audio from its encoded bytes; the MIME type is read from them when not given.

        Raises:
            ContentError: The bytes are not WAV, MP3, Ogg, FLAC or M4A audio
                and no `mime_type` was given.
        """
        data = _check_bytes("Audio", data)
        if mime_type is None:
            mime_type = sniff(data)
            if mime_type is None or not mime_type.startswith("audio/"):
                msg = "Audio.from_bytes: the bytes are not WAV, MP3, Ogg, FLAC or M4A audio. Pass mime_type= if they are audio in another format"
                raise ContentError(msg)
        return cls(data=data, mime_type=mime_type)

    @classmethod
    def from_path(cls, path: str | os.PathLike[str]) -> Self:
        """Audio read from a file; the MIME type from its bytes, then its extension.

        Raises:
            ContentError: The file is not audio.
            OSError: The file cannot be read.
        """
        data, mime_type = _read_media(path, "Audio", "audio", "audio/")
        return cls(data=data, mime_type=mime_type)

    def __repr__(self) -> str:
        return f"Audio(data={_size(self.data)}, mime_type={self.mime_type!r})"


class File(Record):
    """A document (a PDF, plain text, ...), as bytes or as a URL.

    Attributes:
        data: The file's bytes, or None for a URL.
        url: Where the file is, or None for bytes.
        mime_type: Its MIME type, for example "application/pdf".
        name: A file name to show the model, or None.
    """

    __match_args__ = ("data", "url", "mime_type", "name")
    __slots__ = ("data", "mime_type", "name", "url")
    data: bytes | None
    url: str | None
    mime_type: str
    name: str | None

    def __init__(
        self,
        *,
        data: bytes | None = None,
        url: str | None = None,
        mime_type: str,
        name: str | None = None,
    ) -> None:
        _data_or_url(self, "File", data, url)
        _set(self, "mime_type", mime_type)
        _set(self, "name", name)

    @classmethod
    def from_bytes(
        cls, data: bytes, mime_type: str | None = None, *, name: str | None = None
    ) -> Self:
        """A file from its bytes; the MIME type from them, then from `name`, else text or binary."""
        data = _check_bytes("File", data)
        return cls(data=data, mime_type=mime_type or _file_type(data, name), name=name)

    @classmethod
    def from_path(cls, path: str | os.PathLike[str]) -> Self:
        """A file read from disk; the MIME type from its bytes, then its extension.

        Raises:
            OSError: The file cannot be read.
        """
        data, name = _read(path)
        return cls(data=data, mime_type=_file_type(data, name), name=name)

    @classmethod
    def from_url(
        cls, url: str, mime_type: str | None = None, *, name: str | None = None
    ) -> Self:
        """A file at a URL; the MIME type from the URL's extension when not given."""
        url = _check_url("File", url)
        guessed = mime_type or _guess(url) or "application/octet-stream"
        return cls(url=url, mime_type=guessed, name=name)

    def __repr__(self) -> str:
        return f"File({_where(self)}, mime_type={self.mime_type!r}, name={self.name!r})"


def _file_type(data: bytes, name: str | None) -> str:
    found = sniff(data) or (_guess(name) if name else None)
    if found is not None:
        return found
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return "application/octet-stream"
    return "text/plain"


class Resource(Record):
    """An MCP embedded resource: a document carried whole, with its URI.

    Attributes:
        uri: The resource's URI.
        mime_type: Its MIME type, or None.
        text: Its text, for a text resource (else None).
        data: Its bytes, for a binary resource (else None).
    """

    __match_args__ = ("uri", "mime_type", "text", "data")
    __slots__ = ("data", "mime_type", "text", "uri")
    uri: str
    mime_type: str | None
    text: str | None
    data: bytes | None

    def __init__(
        self,
        uri: str,
        *,
        mime_type: str | None = None,
        text: str | None = None,
        data: bytes | None = None,
    ) -> None:
        if (text is None) == (data is None):
            msg = f"Resource {uri!r} needs either text or data (bytes), not both or neither"
            raise ContentError(msg)
        _set(self, "uri", uri)
        _set(self, "mime_type", mime_type)
        _set(self, "text", text)
        _set(self, "data", None if data is None else _check_bytes("Resource", data))

    def __repr__(self) -> str:
        body = (
            f"text={self.text!r}"
            if self.text is not None
            else f"data={_size(self.data)}"
        )
        return f"Resource({self.uri!r}, mime_type={self.mime_type!r}, {body})"


class ResourceLink(Record):
    """An MCP resource link: a pointer the client may read, not the content itself.

    Attributes:
        uri: The resource's URI.
        name: Its name.
        mime_type: Its MIME type, or None.
        description: What it is, or None.
    """

    __match_args__ = ("uri", "name", "mime_type", "description")
    __slots__ = ("description", "mime_type", "name", "uri")
    uri: str
    name: str
    mime_type: str | None
    description: str | None

    def __init__(
        self,
        uri: str,
        name: str,
        *,
        mime_type: str | None = None,
        description: str | None = None,
    ) -> None:
        _set(self, "uri", uri)
        _set(self, "name", name)
        _set(self, "mime_type", mime_type)
        _set(self, "description", description)


Part: TypeAlias = "Text | Image | Audio | File | Resource | ResourceLink"
"""Any content part."""

PART_TYPES: Final = (Text, Image, Audio, File, Resource, ResourceLink)


def describe(part: Any) -> str:
    """One line about a part: its kind, MIME type and size, for logs and the command line."""
    kind = type(part).__name__
    if isinstance(part, Text):
        return f"{kind}: {len(part.text):,} characters"
    mime_type = getattr(part, "mime_type", None) or "unknown type"
    data = getattr(part, "data", None)
    if data is not None:
        return f"{kind}: {mime_type}, {len(data):,} bytes"
    where = getattr(part, "url", None) or getattr(part, "uri", None)
    return f"{kind}: {mime_type}, {where}"


def as_parts(items: Iterable[Any]) -> tuple[Part, ...]:
    """Parts from parts and strings (a `str` becomes a `Text`), in order.

    Raises:
        ContentError: An item is neither a part nor a str; the message says
            what to do with data.
    """
    parts: list[Part] = []
    for index, item in enumerate(items):
        if isinstance(item, str):
            parts.append(Text(str(item)))
        elif isinstance(item, PART_TYPES):
            parts.append(item)
        else:
            msg = (
                f"item {index} is a {type(item).__name__}, not a content part or a str. Content holds "
                "Text, Image, Audio, File, Resource, ResourceLink and strings; send data as "
                "ToolResult.ok(text, content=[...], structured=data)"
            )
            raise ContentError(msg)
    return tuple(parts)


def joined_text(parts: Iterable[Part]) -> str:
    """The text the model reads: the `Text` parts' texts, one per line."""
    return "\n".join(part.text for part in parts if isinstance(part, Text))


def is_content(value: Any) -> bool:
    """A part, or a list or tuple of parts and strings with at least one part."""
    if isinstance(value, PART_TYPES):
        return True
    if type(value) not in (list, tuple):
        return False
    return any(isinstance(item, PART_TYPES) for item in value)


def with_text(parts: tuple[Part, ...], text: str) -> tuple[Part, ...]:
    """`parts` with their text replaced by `text`: one `Text` where the first one stood.

    Truncation shortens a result's text; its parts must say the same.
    """
    out: list[Part] = []
    placed = False
    for part in parts:
        if not isinstance(part, Text):
            out.append(part)
        elif not placed:
            out.append(Text(text))
            placed = True
    return tuple(out)


def save_part(part: Part, folder: str | os.PathLike[str], index: int) -> str:
    """Write a part's bytes or text into `folder`; return the path written.

    The file is named after the part (a file's or a link's name) or numbered
    by `index`, with the extension of its MIME type. A part given by URL is
    written as a `.url` file holding the URL.
    """
    import mimetypes

    os.makedirs(folder, exist_ok=True)
    mime_type = getattr(part, "mime_type", None) or "application/octet-stream"
    data: bytes | None = getattr(part, "data", None)
    if data is None and isinstance(part, Resource) and part.text is not None:
        data = part.text.encode()
    if data is None:
        where: str = getattr(part, "url", None) or getattr(part, "uri", None) or ""
        data = where.encode() + b"\n"
        extension = ".url"
    else:
        extension = mimetypes.guess_extension(mime_type) or ".bin"
    name = getattr(part, "name", None) or f"part-{index}{extension}"
    path = os.path.join(folder, os.path.basename(name))
    with open(path, "wb") as handle:
        handle.write(data)
    return path
