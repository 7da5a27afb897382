"""Servers that tests start as processes: a free loopback port, waiting until one listens, `toolkit serve --http`."""

from __future__ import annotations

import asyncio
import contextlib
import pathlib
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import anyio

ROOT = pathlib.Path(__file__).parent.parent


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(
    process: subprocess.Popen[Any], port: int, *, limit: float = 30, poll: float = 0.05
) -> None:
    """Return once 127.0.0.1:`port` accepts a connection, or `limit` seconds have passed.

    Fails at once if `process` exits first, with its stderr when that is a pipe.
    """
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        with (
            contextlib.suppress(OSError),
            socket.create_connection(("127.0.0.1", port), timeout=0.2),
        ):
            return
        assert process.poll() is None, (
            process.stderr.read() if process.stderr else "the server did not start"
        )
        time.sleep(poll)


@contextlib.contextmanager
def serving(target: str, *flags: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`toolkit serve TARGET --http` on a free loopback port, in a child process: its MCP URL and the process, once it listens.

    The line that says where it listens is read from its stderr, a text
    pipe that the test may read on (`finished`). On the way out a server
    still running is killed: a test of a clean exit signals it itself.
    """
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    command = [sys.executable, "-m", "toolkit", "serve", target]
    process = subprocess.Popen(
        [*command, "--http", f"127.0.0.1:{port}", *flags],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    try:
        line = process.stderr.readline()
        assert url in line, line + process.stderr.read()
        yield url, process
    finally:
        if process.poll() is None:
            process.kill()
        if not process.stderr.closed:
            process.communicate()


def finished(process: subprocess.Popen[str], limit: float = 60) -> tuple[int, str]:
    """Wait for `process` to exit: its exit code and its stderr (fails when it is still running after `limit` seconds)."""
    try:
        _, err = process.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
        raise AssertionError(f"the server did not stop: {err}") from None
    return process.returncode, err


def run(main: Callable[[], Awaitable[Any]], limit: float = 60) -> None:
    """`asyncio.run` of `main()`, failed after `limit` seconds."""

    async def bounded() -> None:
        with anyio.fail_after(limit):
            await main()

    asyncio.run(bounded())
