"""Tools for the hostile-peer tests of the server: tools that raise `KeyboardInterrupt`, and a slow one."""

from __future__ import annotations

import asyncio
import pathlib

from toolkit import ToolSet, tool


@tool
def interrupt() -> str:
    """Raise KeyboardInterrupt from a sync tool (it runs in a pool thread)."""
    raise KeyboardInterrupt


@tool(thread=False)
def interrupt_inline() -> str:
    """Raise KeyboardInterrupt from a sync tool that runs on the event loop's thread."""
    raise KeyboardInterrupt


@tool
async def interrupt_async() -> str:
    """Raise KeyboardInterrupt from an async tool."""
    raise KeyboardInterrupt


@tool
async def slow(seconds: float, marker: str = "") -> str:
    """Wait, then answer.

    Args:
        seconds: How long to wait.
        marker: A file created when the call starts.
    """
    if marker:
        pathlib.Path(marker).touch()
    await asyncio.sleep(seconds)
    return f"slept {seconds}"


@tool
def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first.
        b: The second.
    """
    return a + b


tools = ToolSet([interrupt, interrupt_inline, interrupt_async, slow, add])
