"""Tools that return content parts, for the command line's tests."""

from __future__ import annotations

from tests import media
from toolkit import File, Image, Resource, ToolSet

tools = ToolSet()


@tools.tool
def chart(title: str) -> list[str | Image | File]:
    """A chart and its data.

    Args:
        title: The chart's title.
    """
    return [
        f"Chart: {title}",
        Image.from_bytes(media.png()),
        File.from_bytes(b"a,b\n1,2\n", name="data.csv"),
        Image.from_url("https://example.com/big.png"),
    ]


@tools.tool
def notes() -> Resource:
    """The notes, as an embedded resource."""
    return Resource("file:///notes.md", mime_type="text/markdown", text="# Notes")
