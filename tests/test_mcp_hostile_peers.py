"""The server against hostile tools and hostile clients: it stays up and keeps serving new clients.

Every server listens on 127.0.0.1; every hostile client is bounded in count
and in time.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import pathlib
import signal
import subprocess
import tempfile
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import TextContent

from tests import servers
from tests.servers import finished, stdio_server, stdio_session
from tests.test_mcp_http import served
from toolkit import mcp

from .interrupt_tools import tools

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
def serving(*flags: str) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """`toolkit serve` of the interrupt tools over HTTP in a child process; the base URL."""
    with servers.serving(TARGET, *flags) as (url, process):
        yield url.removesuffix("/mcp"), process


@contextlib.asynccontextmanager
async def http_session(
    url: str, headers: dict[str, str] | None = None
) -> AsyncIterator[ClientSession]:
    async with (
        httpx2.AsyncClient(timeout=LIMIT, headers=headers or {}) as client,
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
        code, err = finished(process)
        assert code == 0, err


def test_a_tool_raising_keyboard_interrupt_is_its_error_result_over_stdio() -> None:
    async def scenario() -> None:
        async with stdio_session(TARGET) as opened:
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
        code, err = finished(process)
        assert code == 0, err
        assert "Traceback" not in err, err


def test_sigint_stops_a_stdio_server_with_exit_0() -> None:
    process = stdio_server(TARGET)
    assert process.stdin is not None
    assert process.stdout is not None
    process.stdin.write(INIT + b"\n")
    process.stdin.flush()
    assert process.stdout.readline()  # it serves
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=LIMIT)
    assert process.returncode == 0, err
    assert b"Traceback" not in err, err


# ------------------------------------------------------------ 5. slow and idle connections

INIT = (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":'
    b'"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}'
)


def _hostile_connections(port: int, count: int) -> list[Any]:
    """`count` connections of each kind: idle, slow headers, slow body."""
    import socket

    opened = []
    for _ in range(count):
        idle = socket.create_connection(("127.0.0.1", port), timeout=LIMIT)
        headers = socket.create_connection(("127.0.0.1", port), timeout=LIMIT)
        headers.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        body = socket.create_connection(("127.0.0.1", port), timeout=LIMIT)
        body.sendall(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Accept: application/json, text/event-stream\r\n"
            + f"Content-Length: {len(INIT)}\r\n\r\n".encode()
            + INIT[:10]
        )
        opened.extend([idle, headers, body])
    return opened


def _closed_by_the_server(sock: Any, deadline: float) -> bool:
    import select
    import time

    while time.monotonic() < deadline:
        ready, _, _ = select.select([sock], [], [], 0.2)
        if ready:
            try:
                return sock.recv(65536) == b"" or _closed_by_the_server(sock, deadline)
            except OSError:
                return True
        if sock.fileno() < 0:
            return False
    return False


def test_idle_slow_header_and_slow_body_connections_are_timed_out() -> None:
    import time

    with serving("--request-timeout", "1") as (base, process):
        port = int(base.rsplit(":", 1)[1])
        hostile = _hostile_connections(port, 30)
        try:

            async def a_new_client() -> None:
                async with http_session(base + "/mcp") as opened:
                    result = await opened.call_tool("add", {"a": 1, "b": 1})
                    assert _text(result) == "2"

            run(a_new_client())
            deadline = (
                time.monotonic() + 20
            )  # keep-alive (5 s) and request timeout (1 s)
            still_open = [s for s in hostile if not _closed_by_the_server(s, deadline)]
            assert still_open == []
        finally:
            for sock in hostile:
                sock.close()
        run(a_new_client())
        process.send_signal(signal.SIGTERM)
        code, err = finished(process)
    assert code == 0, err
    assert err == "", err  # not a line per connection, let alone a traceback


# ------------------------------------------------------------ 4. sessions that never come back


def _initialize(number: int) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": number,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "hostile", "version": "0"},
        },
    }


HEADERS = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
}


async def _open(client: httpx2.AsyncClient, url: str, number: int) -> dict[str, str]:
    """The headers of a new session (its `initialize` answered, nothing more)."""
    answer = await client.post(url, json=_initialize(number), headers=HEADERS)
    assert answer.status_code == 200, answer.text
    return {
        **HEADERS,
        "mcp-session-id": answer.headers["mcp-session-id"],
        "mcp-protocol-version": "2025-11-25",
    }


async def _ping(client: httpx2.AsyncClient, url: str, headers: dict[str, str]) -> int:
    ping = {"jsonrpc": "2.0", "id": 99, "method": "ping"}
    return (await client.post(url, json=ping, headers=headers)).status_code


@pytest.mark.parametrize("token", [None, "secret"])
def test_sessions_that_never_sent_a_second_request_give_way_to_new_clients(
    token: str | None,
) -> None:
    bearer = {"authorization": f"Bearer {token}"} if token else {}

    async def scenario() -> None:
        app = mcp.asgi_app(tools, max_sessions=20, auth=token)
        async with (
            served(app) as base,
            httpx2.AsyncClient(timeout=LIMIT, headers=bearer) as client,
        ):
            url = base + "/mcp"
            proven = await _open(client, url, 0)
            assert await _ping(client, url, proven) == 200  # its second request
            for number in range(1, 60):  # three times the limit, never a second request
                await _open(client, url, number)
            async with http_session(url, bearer) as opened:  # a new client is served
                result = await opened.call_tool("add", {"a": 1, "b": 2})
                assert _text(result) == "3"
            assert await _ping(client, url, proven) == 200  # the proven one stays
            assert len(app.sessions.known) <= 20

    run(scenario())


def test_sessions_with_requests_in_flight_are_kept_and_the_limit_holds() -> None:
    async def scenario() -> None:
        app = mcp.asgi_app(tools, max_sessions=2)
        async with (
            served(app) as base,
            httpx2.AsyncClient(timeout=LIMIT) as client,
            http_session(base + "/mcp") as one,  # each holds a GET stream open
            http_session(base + "/mcp") as two,
        ):
            await one.list_tools()
            await two.list_tools()
            refused = await client.post(
                base + "/mcp", json=_initialize(1), headers=HEADERS
            )
            assert refused.status_code == 503
            assert _text(await one.call_tool("add", {"a": 1, "b": 1})) == "2"

    run(scenario())


# ------------------------------------------------------------ 6. a duplicate id in flight


def _answer(reply: httpx2.Response) -> Any:
    """The JSON-RPC answer of a POST: its JSON body, or the last data of its event stream."""
    if reply.headers["content-type"].startswith("application/json"):
        return reply.json()
    data = [line[5:] for line in reply.text.splitlines() if line.startswith("data:")]
    return json.loads([item for item in data if item.strip()][-1])


@pytest.mark.parametrize("json_response", [True, False])
def test_a_request_id_in_flight_on_its_session_is_refused_and_the_first_answered(
    json_response: bool,
) -> None:
    async def scenario() -> None:
        app = mcp.asgi_app(tools, json_response=json_response)
        async with served(app) as base, httpx2.AsyncClient(timeout=LIMIT) as client:
            url = base + "/mcp"
            headers = await _open(client, url, 1)
            done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            await client.post(url, json=done, headers=headers)
            slow = {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "tools/call",
                "params": {"name": "slow", "arguments": {"seconds": 1}},
            }
            quick = {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": 1, "b": 1}},
            }
            first = asyncio.ensure_future(client.post(url, json=slow, headers=headers))
            await asyncio.sleep(0.3)  # the first is in flight
            second = await client.post(url, json=quick, headers=headers)
            assert second.status_code == 400
            assert second.json()["error"]["code"] == -32600
            answer = _answer(await asyncio.wait_for(first, LIMIT / 2))
            assert answer["id"] == 7
            assert answer["result"]["content"][0]["text"] == "slept 1.0"
            again = await client.post(url, json=quick, headers=headers)  # id free again
            assert _answer(again)["result"]["content"][0]["text"] == "2"

    run(scenario())
