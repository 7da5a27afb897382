"""The server against hostile tools and hostile clients: it stays up and keeps serving new clients.

Every server listens on 127.0.0.1; every hostile client is bounded in count
and in time.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import pathlib
import signal
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import TextContent

from tests.servers import free_port

ROOT = pathlib.Path(__file__).parent.parent
TARGET = str(ROOT / "tests" / "interrupt_tools.py")
LIMIT = 60  # seconds, at most, for anything a test waits on


def _text(result: Any) -> str:
    return "".join(
        part.text for part in result.content if isinstance(part, TextContent)
    )


def run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, LIMIT))


@contextlib.contextmanager
def serving(*args: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`toolkit serve` of the interrupt tools over HTTP in a child process; the base URL."""
    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "toolkit",
            "serve",
            TARGET,
            "--http",
            f"127.0.0.1:{port}",
            *args,
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ},
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        assert f"127.0.0.1:{port}/mcp" in line, line + process.stderr.read()
        yield f"http://127.0.0.1:{port}", process
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def _finish(process: subprocess.Popen[str]) -> tuple[int, str]:
    try:
        _, err = process.communicate(timeout=LIMIT)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
        raise AssertionError(f"the server did not stop: {err}") from None
    return process.returncode, err


@contextlib.asynccontextmanager
async def http_session(url: str) -> AsyncIterator[ClientSession]:
    async with (
        httpx2.AsyncClient(timeout=LIMIT) as client,
        streamable_http_client(url, http_client=client, terminate_on_close=False) as (
            read,
            write,
        ),
        ClientSession(read, write) as opened,
    ):
        await opened.initialize()
        yield opened


INTERRUPTS = ("interrupt", "interrupt_inline", "interrupt_async")


async def _interrupts_then_a_call(opened: ClientSession) -> None:
    for name in INTERRUPTS:
        result = await opened.call_tool(name, {})
        assert result.is_error, name
        assert "KeyboardInterrupt" in _text(result), _text(result)
    after = await opened.call_tool("add", {"a": 2, "b": 3})
    assert (after.is_error, _text(after)) == (False, "5")


# ------------------------------------------------------------ 1. KeyboardInterrupt


def test_a_tool_raising_keyboard_interrupt_is_its_error_result_over_http() -> None:
    with serving() as (base, process):

        async def scenario() -> None:
            async with http_session(base + "/mcp") as opened:
                await _interrupts_then_a_call(opened)
            async with http_session(base + "/mcp") as again:  # a new client too
                await _interrupts_then_a_call(again)

        run(scenario())
        assert process.poll() is None
        process.send_signal(signal.SIGTERM)
        code, err = _finish(process)
        assert code == 0, err


def test_a_tool_raising_keyboard_interrupt_is_its_error_result_over_stdio() -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "toolkit", "serve", TARGET], cwd=str(ROOT)
    )

    async def scenario() -> None:
        async with (
            stdio_client(params) as (read, write),
            ClientSession(read, write) as opened,
        ):
            await opened.initialize()
            await _interrupts_then_a_call(opened)

    run(scenario())


def test_sigint_lets_a_call_in_flight_finish_then_exits_0_quietly() -> None:
    with serving() as (base, process), tempfile.TemporaryDirectory() as folder:
        marker = pathlib.Path(folder) / "started"

        async def scenario() -> Any:
            async with http_session(base + "/mcp") as opened:
                await opened.list_tools()
                call = asyncio.ensure_future(
                    opened.call_tool("slow", {"seconds": 1, "marker": str(marker)})
                )
                while not marker.exists():
                    assert not call.done(), call.result()
                    await asyncio.sleep(0.02)
                process.send_signal(signal.SIGINT)
                return await call

        result = run(scenario())
        assert (result.is_error, _text(result)) == (False, "slept 1.0")
        code, err = _finish(process)
        assert code == 0, err
        assert "Traceback" not in err, err


def test_sigint_stops_a_stdio_server_with_exit_0() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "toolkit", "serve", TARGET],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    init = (
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
        b'"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}\n'
    )
    process.stdin.write(init)
    process.stdin.flush()
    assert process.stdout.readline()  # it serves
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=LIMIT)
    assert process.returncode == 0, err
    assert b"Traceback" not in err, err
