"""Tools for the serving tests: slow calls, the worker's pid, printing, failing."""

from __future__ import annotations

import asyncio
import os
import pathlib
import sys

from toolkit import ToolSet, tool


@tool
async def slow(seconds: float, marker: str = "") -> str:
    """Wait, then answer.

    Args:
        seconds: How long to wait.
        marker: A file to create when the call starts, so that a test knows it is
            in flight; `marker.cancelled` is created if the call is cancelled.
    """
    if marker:
        pathlib.Path(marker).touch()
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        if marker:
            pathlib.Path(marker + ".cancelled").touch()
        raise
    return f"slept {seconds}"


@tool
def pid() -> int:
    """The id of the process that answers."""
    return os.getpid()


@tool
def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first.
        b: The second.
    """
    return a + b


@tool
def print_sync(text: str) -> str:
    """Print to stdout from a sync tool, then answer.

    Args:
        text: What to print.
    """
    print(text)
    sys.stdout.flush()
    return "printed"


@tool
async def print_async(text: str) -> str:
    """Print to stdout from an async tool, then answer.

    Args:
        text: What to print.
    """
    print(text, flush=True)
    return "printed"


@tool
def write_fd(text: str) -> str:
    """Write to file descriptor 1 directly, as a C extension would, then answer.

    Args:
        text: What to write.
    """
    os.write(1, (text + "\n").encode())
    return "written"


@tool
def explode(reason: str) -> str:
    """Raise an exception.

    Args:
        reason: The exception's message.
    """
    raise RuntimeError(reason)


tools = ToolSet([slow, pid, add, print_sync, print_async, write_fd, explode])
