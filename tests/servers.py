"""What tests start as processes: `toolkit serve` over stdio or HTTP, the `toolkit` command, a free loopback port; and a bounded `asyncio.run`."""

from __future__ import annotations

import asyncio
import contextlib
import pathlib
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any

import anyio

if TYPE_CHECKING:
    from mcp import ClientSession

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


def toolkit(
    *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """The `toolkit` command with `args`, run to its end (at most two minutes): its exit code and output."""
    return subprocess.run(
        [sys.executable, "-m", "toolkit", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def stdio_server(target: str) -> subprocess.Popen[bytes]:
    """`toolkit serve TARGET` over stdio in a child process, with pipes for its stdin, stdout and stderr."""
    return subprocess.Popen(
        [sys.executable, "-m", "toolkit", "serve", target],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def initialize(request_id: int, version: str) -> dict[str, Any]:
    """An `initialize` request of protocol `version`, as a client sends it first over stdio."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        },
    }


@contextlib.asynccontextmanager
async def stdio_session(target: str) -> AsyncIterator[ClientSession]:
    """The official client's session with `toolkit serve TARGET` over stdio, initialised."""
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "toolkit", "serve", target], cwd=str(ROOT)
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


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
