"""Stateless JSON-response serving answers simple requests itself: the same answers as the SDK's.

`asgi_app(stateless=True, json_response=True)` answers a single
`initialize`, `ping`, `tools/list` or `tools/call` (and the
`notifications/initialized` notification) without the MCP SDK's
per-request transport and server, and leaves everything else to the SDK.
The proof is differential: every request below goes through the app with
the direct path on and with it off (every request to the SDK), and the two
answers must be the same status, headers and JSON. Then the official MCP
client uses `toolkit serve --http --stateless --json-response` on
127.0.0.1.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import pathlib
import signal
import subprocess
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import ImageContent, TextContent

from tests.servers import free_port, wait_for_port
from toolkit import ToolResult, ToolSet, tool
from toolkit.providers import mcp

from . import mcp_client_tools, serve_tools

ROOT = pathlib.Path(__file__).parent.parent
LIMIT = 60  # seconds, at most, for anything a test waits on
VERSION = "2025-06-18"
HEADERS = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
}


@tool
def unsendable() -> ToolResult:
    """A result whose structured data is not JSON."""
    loop: list[Any] = []
    loop.append(loop)
    return ToolResult("a cycle", structured={"loop": loop})


@tool
def accents(name: str) -> dict[str, str]:
    """Greet, with characters outside ASCII.

    Args:
        name: Who to greet.
    """
    return {"greeting": f"¡Hola, {name}! ✓"}


TOOLS = ToolSet(
    [
        *(
            mcp_client_tools.tools[name]
            for name in ("echo", "add", "point", "picture", "refuse", "tag", "index")
        ),
        serve_tools.tools["explode"],
        serve_tools.tools["slow"],
        unsendable,
        accents,
    ]
)


def run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, LIMIT))


def _message(number: Any, method: str, params: Any = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": number, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode()


def _call(number: Any, name: str, arguments: Any = None, **extra: Any) -> bytes:
    params: dict[str, Any] = {"name": name, **extra}
    if arguments is not None:
        params["arguments"] = arguments
    return _message(number, "tools/call", params)


def _init(number: int, version: str) -> bytes:
    params = {
        "protocolVersion": version,
        "capabilities": {"sampling": {}, "elicitation": {}},
        "clientInfo": {"name": "test", "version": "1"},
    }
    return _message(number, "initialize", params)


Exchange = tuple[str, dict[str, str], bytes]
"""An HTTP request: method, headers, body."""


def _answered_here() -> list[Exchange]:
    """Requests that the direct path answers itself."""
    headers = dict(HEADERS, **{"mcp-protocol-version": VERSION})
    old = dict(HEADERS, **{"mcp-protocol-version": "2025-03-26"})
    meta = {"_meta": {"progressToken": "p1"}}
    return [
        ("POST", HEADERS, _init(1, VERSION)),  # no version header yet
        ("POST", HEADERS, _init(2, "1999-01-01")),  # a version the server lacks
        ("POST", headers, _init(3, "2025-03-26")),
        ("POST", headers, b'{"jsonrpc": "2.0", "method": "notifications/initialized"}'),
        ("POST", headers, _message(4, "ping")),
        ("POST", headers, _message(5, "ping", {})),
        ("POST", headers, _message(6, "tools/list", {})),
        ("POST", headers, _message(7, "tools/list")),
        ("POST", old, _message(8, "tools/list", {})),
        ("POST", HEADERS, _message(9, "tools/list", {"cursor": "x"})),
        ("POST", headers, _call(10, "add", {"a": 20, "b": 22})),
        ("POST", headers, _call("ten", "add", {"a": 1})),  # a string id
        ("POST", headers, _call(11, "add", {"a": 1, "b": -1})),  # b must be >= 0
        ("POST", headers, _call(12, "add", {"a": "one"})),
        ("POST", headers, _call(13, "add", {})),
        ("POST", headers, _call(14, "add", {"a": 1, "c": 2})),
        ("POST", headers, _call(15, "add")),  # no arguments
        ("POST", headers, _call(16, "nope", {})),  # an unknown tool
        ("POST", headers, _call(17, "point", {"x": 1, "y": 2})),
        ("POST", old, _call(18, "point", {"x": 1, "y": 2})),
        ("POST", headers, _call(19, "picture", {})),
        ("POST", headers, _call(20, "refuse", {"reason": "no"})),
        ("POST", headers, _call(21, "explode", {"reason": "boom"})),
        ("POST", headers, _call(22, "tag", {"labels": {"k": "v"}})),
        ("POST", headers, _call(23, "echo", {"text": "caf\u00e9 \u2603"})),
        ("POST", headers, _call(24, "accents", {"name": "Zoë"})),
        ("POST", headers, _call(25, "unsendable", {})),
        ("POST", headers, _call(26, "index", {"path": "."}, **meta)),  # asks the client
        ("POST", headers, _call(27, "echo", {"text": "hi"}, **meta)),
        ("POST", headers, _message(28, "tools/call", {"arguments": {}})),  # no name
        ("POST", headers, _message(29, "tools/call", {"name": "add", "arguments": 3})),
        ("POST", headers, _message(30, "tools/call")),  # no params
        ("POST", headers, _message(31, "tools/list", {"cursor": 5})),
        ("POST", dict(headers, accept="application/json"), _message(32, "ping")),
        ("POST", dict(headers, accept="*/*"), _message(33, "ping")),
        (
            "POST",
            dict(headers, **{"content-type": "application/json; charset=utf-8"}),
            _message(34, "ping"),
        ),
        ("POST", dict(headers, origin="http://localhost:3000"), _message(35, "ping")),
    ]


def _left_to_the_sdk() -> list[Exchange]:
    """Requests that the direct path leaves to the SDK, whose answers they get."""
    headers = dict(HEADERS, **{"mcp-protocol-version": VERSION})
    padding = " " * 2000
    return [
        ("POST", headers, b"{not json"),
        ("POST", headers, b""),
        ("POST", headers, b'{"jsonrpc": "1.0", "id": 1, "method": "ping"}'),
        ("POST", headers, b'{"jsonrpc": "2.0", "id": null, "method": "ping"}'),
        ("POST", headers, b'{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}'),
        ("POST", headers, b'{"jsonrpc": "2.0", "id": true, "method": "ping"}'),
        ("POST", headers, b"[" + _message(1, "ping") + b"]"),  # a batch
        ("POST", headers, _message(2, "resources/list", {})),
        ("POST", headers, _message(3, "logging/setLevel", {"level": "info"})),
        ("POST", headers, b'{"jsonrpc": "2.0", "id": 9, "result": {}}'),  # a response
        (
            "POST",
            headers,
            b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}',
        ),
        ("POST", dict(headers, accept="text/html"), _message(4, "ping")),
        ("POST", dict(headers, accept="text/event-stream"), _message(5, "ping")),
        ("POST", dict(headers, **{"content-type": "text/plain"}), _message(6, "ping")),
        (
            "POST",
            dict(headers, **{"content-type": "application/json-patch+json"}),
            _message(7, "ping"),
        ),
        ("POST", dict(headers, host="evil.example:80"), _message(8, "tools/list", {})),
        ("POST", dict(headers, origin="https://evil.example"), _message(9, "ping")),
        (
            "POST",
            dict(headers, **{"mcp-protocol-version": "1999-01-01"}),
            _message(10, "ping"),
        ),
        (
            "POST",
            dict(headers, **{"mcp-protocol-version": "2026-07-28"}),
            _call(11, "add", {"a": 1, "b": 2}),
        ),
        (
            "POST",
            headers,
            _call(12, "add", {"a": 1, "b": 2})[:-1] + padding.encode() + b"}",
        ),
        ("DELETE", headers, b""),
        ("PUT", headers, b""),
    ]


async def _exchange(client: Any, request: Exchange) -> tuple[int, list[Any], Any]:
    """What a client reads of the answer: status, headers, the JSON (or the text)."""
    method, headers, body = request
    reply = await client.request(method, "/mcp", headers=headers, content=body)
    try:
        content: Any = reply.json() if reply.content else None
    except ValueError:
        content = reply.text
    return reply.status_code, sorted(reply.headers.multi_items()), content


@contextlib.asynccontextmanager
async def _client(app: Any) -> AsyncIterator[Any]:
    transport = httpx2.ASGITransport(app=app)
    async with (
        app.lifespan(),
        httpx2.AsyncClient(
            transport=transport, base_url="http://127.0.0.1:8000", timeout=LIMIT
        ) as client,
    ):
        yield client


async def _answers(direct: bool, requests: list[Exchange]) -> tuple[list[Any], int]:
    """The answers of an app with the direct path on or off, and how many it answered itself."""
    app = mcp.asgi_app(TOOLS, stateless=True, json_response=True, max_body=2000)
    app.direct_path.enabled = direct
    async with _client(app) as client:
        answers = [await _exchange(client, request) for request in requests]
    return answers, app.direct_path.answered


@pytest.mark.parametrize(
    ("requests", "answered"),
    [(_answered_here(), len(_answered_here())), (_left_to_the_sdk(), 0)],
    ids=["answered-here", "left-to-the-sdk"],
)
def test_the_direct_path_answers_as_the_sdk_does(
    requests: list[Exchange], answered: int
) -> None:
    """Same status, same headers, same JSON, with and without the direct path."""
    direct, count = run(_answers(True, requests))
    through, none = run(_answers(False, requests))
    assert none == 0
    assert count == answered
    for request, mine, theirs in zip(requests, direct, through, strict=True):
        assert mine == theirs, request


def test_the_answers_compared_are_the_expected_ones() -> None:
    """The differential test compares real answers: spot checks of what both paths say."""
    requests = _answered_here()
    answers, _ = run(_answers(True, requests))
    by_body = {
        body: answer for (_, _, body), answer in zip(requests, answers, strict=True)
    }

    def result(body: bytes) -> Any:
        status, _, content = by_body[body]
        assert status == 200, content
        return content.get("result", content.get("error"))

    assert result(_init(1, VERSION))["protocolVersion"] == VERSION
    assert result(_call(10, "add", {"a": 20, "b": 22}))["structuredContent"] == {
        "result": 42
    }
    assert result(_call(11, "add", {"a": 1, "b": -1}))["isError"] is True
    assert result(_call(16, "nope", {}))["code"] == -32602
    assert result(_call(19, "picture", {}))["content"][1]["type"] == "image"
    assert result(_call(21, "explode", {"reason": "boom"}))["isError"] is True
    asked = result(
        _call(26, "index", {"path": "."}, **{"_meta": {"progressToken": "p1"}})
    )
    assert asked["isError"] is True
    assert "cannot carry a request" in asked["content"][0]["text"]
    assert result(_message(28, "tools/call", {"arguments": {}}))["code"] == -32602
    notified = by_body[b'{"jsonrpc": "2.0", "method": "notifications/initialized"}']
    assert (notified[0], notified[2]) == (202, None)
    point = result(_call(18, "point", {"x": 1, "y": 2}))
    assert point["structuredContent"] == {"x": 1, "y": 2}
    unsent = result(_call(25, "unsendable", {}))
    assert unsent["isError"] is True
    assert "cannot be sent over MCP" in unsent["content"][0]["text"]


def test_auth_host_checks_and_the_body_limit_come_before_the_direct_path() -> None:
    async def scenario() -> None:
        app = mcp.asgi_app(
            TOOLS, stateless=True, json_response=True, auth="tk-1", max_body=2000
        )
        ping = _message(1, "ping")
        async with _client(app) as client:
            refused = await client.post("/mcp", content=ping, headers=HEADERS)
            assert refused.status_code == 401
            assert app.direct_path.answered == 0
            token = dict(HEADERS, authorization="Bearer tk-1")
            foreign = await client.post(
                "/mcp", content=ping, headers=dict(token, host="evil.example")
            )
            assert foreign.status_code == 421
            big = await client.post("/mcp", content=ping + b" " * 2000, headers=token)
            assert big.status_code == 413
            assert app.direct_path.answered == 0
            accepted = await client.post("/mcp", content=ping, headers=token)
            assert (accepted.status_code, accepted.json()["result"]) == (200, {})
            assert app.direct_path.answered == 1
            health = await client.get("/healthz")
            assert health.status_code == 200

    run(scenario())


def test_a_call_answered_directly_is_counted_in_flight_for_draining() -> None:
    async def scenario() -> None:
        app = mcp.asgi_app(TOOLS, stateless=True, json_response=True)
        with tempfile.TemporaryDirectory() as folder:
            marker = str(pathlib.Path(folder) / "started")
            async with _client(app) as client:
                call = asyncio.ensure_future(
                    client.post(
                        "/mcp",
                        content=_call(1, "slow", {"seconds": 0.3, "marker": marker}),
                        headers=HEADERS,
                    )
                )
                while not pathlib.Path(marker).exists():
                    assert not call.done()
                    await asyncio.sleep(0.01)
                assert app.in_flight == 1
                await app.drain(LIMIT)  # returns once the call is done
                assert app.in_flight == 0
                reply = await call
                assert reply.json()["result"]["content"][0]["text"] == "slept 0.3"
                assert app.direct_path.answered == 1

    run(scenario())


def test_the_stateless_direct_path_is_there_only_for_stateless_json_responses() -> None:
    from toolkit.providers.mcp._direct import Direct
    from toolkit.providers.mcp._stream import SessionDirect

    stateless = mcp.asgi_app(TOOLS, stateless=True, json_response=True).direct_path
    assert type(stateless) is Direct
    for stateless in (False, True):  # calls on an event stream
        streams = mcp.asgi_app(TOOLS, stateless=stateless).direct_path
        assert type(streams) is SessionDirect
    assert mcp.asgi_app(TOOLS, json_response=True).direct_path is None


# ------------------------------------------------------------ the official client, a real server


@contextlib.contextmanager
def _serving(*flags: str) -> Iterator[str]:
    port = free_port()
    target = str(ROOT / "tests" / "mcp_client_tools.py")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "toolkit",
            "serve",
            target,
            "--http",
            f"127.0.0.1:{port}",
            *flags,
        ],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_port(process, port, limit=LIMIT)
        yield f"http://127.0.0.1:{port}/mcp"
        process.send_signal(signal.SIGTERM)
        assert process.wait(LIMIT) == 0
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()


def test_the_official_client_lists_and_calls_tools_of_a_stateless_json_server() -> None:
    async def scenario(url: str) -> None:
        async with (
            httpx2.AsyncClient(timeout=LIMIT) as http,
            streamable_http_client(url, http_client=http) as (read, write),
            ClientSession(read, write) as client,
        ):
            await client.initialize()
            await client.send_ping()
            listed = await client.list_tools()
            assert {"add", "point", "picture", "refuse"} <= {
                t.name for t in listed.tools
            }
            added = await client.call_tool("add", {"a": 2, "b": 3})
            assert (added.is_error, added.structured_content) == (False, {"result": 5})
            point = await client.call_tool("point", {"x": 1, "y": 2})
            assert point.structured_content == {"x": 1, "y": 2}
            picture = await client.call_tool("picture", {})
            assert isinstance(picture.content[1], ImageContent)
            refused = await client.call_tool("refuse", {"reason": "no"})
            assert refused.is_error
            assert isinstance(refused.content[0], TextContent)
            assert "no" in refused.content[0].text
            bad = await client.call_tool("add", {"a": 1, "b": -1})
            assert bad.is_error

    with _serving("--stateless", "--json-response") as url:
        run(scenario(url))
