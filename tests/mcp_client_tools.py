"""Tools that `toolkit serve` serves to the MCP client tests.

Beside ordinary tools there are tools that end the server process
mid-call (`die`), say which process answered (`pid`), and wait until told
to stop, leaving a file behind when the client cancels them (`wait`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import pathlib
import struct
import zlib
from typing import Annotated

from toolkit import Context, Image, Param, Text, ToolError, ToolSet

tools = ToolSet()


@dataclasses.dataclass
class Point:
    """A point on a grid.

    Attributes:
        x: Across.
        y: Down.
    """

    x: int
    y: int


@tools.tool(read_only=True, title="Echo")
def echo(text: str) -> str:
    """Give the text back.

    Args:
        text: What to give back.
    """
    return text


@tools.tool
def add(a: int, b: Annotated[int, Param(ge=0)] = 1) -> int:
    """Add two numbers.

    Args:
        a: The first number.
        b: The second number, not negative.
    """
    return a + b


@tools.tool
def point(x: int, y: int) -> Point:
    """Make a point.

    Args:
        x: Across.
        y: Down.
    """
    return Point(x, y)


@tools.tool
def picture() -> list[Text | Image]:
    """A red pixel and a caption."""
    return [Text("a red pixel"), Image.from_bytes(red_pixel())]


@tools.tool
def refuse(reason: str) -> str:
    """Fail on purpose.

    Args:
        reason: What the error says.
    """
    raise ToolError(reason)


@tools.tool
def tag(labels: dict[str, str]) -> int:
    """Count labels (a map, which no strict mode takes).

    Args:
        labels: Any labels.
    """
    return len(labels)


@tools.tool
def pid() -> int:
    """The id of the server's process."""
    return os.getpid()


@tools.tool(destructive=True)
def die() -> str:
    """End the server process now, mid-call."""
    os._exit(3)


@tools.tool
async def wait(marker: str) -> str:
    """Wait until cancelled; then write the file `marker`.

    Args:
        marker: The file to write when the call is cancelled.
    """
    try:
        await asyncio.sleep(3600)
    except asyncio.CancelledError:
        pathlib.Path(marker).write_text("cancelled", encoding="utf-8")
        raise
    return "waited"


@dataclasses.dataclass
class Choice:
    """What to index.

    Attributes:
        tests: Index the tests too.
    """

    tests: bool = False


@tools.tool
async def index(path: str, ctx: Context) -> str:
    """Index a folder, asking the host along the way.

    Args:
        path: The folder.
    """
    await ctx.report_progress(1, total=2, message="listing")
    await ctx.log("info", "indexing", path=path)
    summary = await ctx.sample(f"Summarise {path}", system="Be brief.", max_tokens=20)
    answer = await ctx.elicit("Index the tests too?", Choice)
    await ctx.report_progress(2, total=2, message="done")
    tests = answer.data.tests if answer.data is not None else None
    return f"{summary}; {answer.action}; tests={tests}"


def red_pixel() -> bytes:
    """A 1x1 red PNG."""

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
