"""How calls on a session's event stream end: with the session, the server, or the client.

Whatever ends a session (the client's DELETE, its idle timeout, a client
that stopped polling) or the server ends the calls it runs, and their
streams end without an answer. Servers listen on 127.0.0.1 only; every
wait ends with the test's time limit.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx2

from tests.test_mcp_answers import (
    ACCEPT,
    CANCELLED,
    GATES,
    NEW,
    STARTED,
    TOOLS,
    Client,
    call,
    events,
    init,
    message,
)
from tests.test_mcp_http import served, session
from toolkit import ToolSet, mcp

LIMIT = 60  # seconds, at most, for anything a test waits on


def run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, LIMIT))


def _reset(label: str) -> None:
    GATES[label] = asyncio.Event()
    STARTED.discard(label)
    CANCELLED.discard(label)


async def _eventually(predicate: Any) -> None:
    """Until `predicate()` is true (the test's time limit ends a wait in vain)."""
    while not predicate():
        await asyncio.sleep(0.02)


def _answers(reply: Any) -> list[Any]:
    """The result or error of each message on a response's event stream."""
    data = [json.loads(e["data"]) for e in events(reply.text) if e.get("data")]
    return [d.get("result", d.get("error")) for d in data]


def _in_process(app: Any, **options: Any) -> Any:
    return httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app, **options),
        base_url="http://127.0.0.1:8000",
        timeout=LIMIT,
    )


async def _until_gone(http: Any, headers: dict[str, str]) -> None:
    """Until the session answers 404: the server has ended it."""
    ping = message(99, "ping")
    while (await http.post("/mcp", json=ping, headers=headers)).status_code != 404:
        await asyncio.sleep(0.05)


# ------------------------------------------------------------ the session ends


def test_ending_the_session_ends_a_running_calls_stream_and_cancels_the_tool() -> None:
    async def scenario() -> int:
        _reset("delete")
        app = mcp.asgi_app(TOOLS)
        async with (
            served(app) as base,
            httpx2.AsyncClient(base_url=base, timeout=LIMIT) as http,
        ):
            headers = await Client(http).open(NEW)
            pending = asyncio.ensure_future(
                http.post(
                    "/mcp", json=call(1, "gated", {"label": "delete"}), headers=headers
                )
            )
            await _eventually(lambda: "delete" in STARTED)
            deleted = await http.delete("/mcp", headers=headers)
            reply = await pending  # ended though the tool's gate stays shut
            await _eventually(lambda: "delete" in CANCELLED)
            assert _answers(reply) == []
        return int(deleted.status_code)

    assert run(scenario()) == 200


def test_a_session_that_idles_out_while_its_client_is_away_cancels_the_call() -> None:
    """The client leaves mid-call and could resume; its session idles out meanwhile.

    The session's end cancels the tool, long before the resume window
    would have.
    """

    async def scenario() -> None:
        _reset("idle")
        app = mcp.asgi_app(TOOLS, session_idle_timeout=0.3)
        app.sessions.resume_window = LIMIT
        async with (
            served(app) as base,
            httpx2.AsyncClient(base_url=base, timeout=LIMIT) as http,
        ):
            headers = await Client(http).open(NEW)
            body = call(1, "gated", {"label": "idle"})
            async with http.stream("POST", "/mcp", json=body, headers=headers):
                await _eventually(lambda: "idle" in STARTED)
            await _eventually(lambda: "idle" in CANCELLED)
            await _until_gone(http, headers)

    run(scenario())


def test_a_polled_call_whose_client_stops_polling_ends_with_its_session() -> None:
    """SSE polling: the server ends the POST's stream itself, so no disconnect cancels the call.

    A client that then never polls (a crash, a closed laptop) leaves the
    call to the session's end: the idle timeout cancels it.
    """

    async def scenario() -> None:
        _reset("poll-away")
        app = mcp.asgi_app(TOOLS, sse_poll=0.05, session_idle_timeout=0.5)
        async with (
            served(app) as base,
            httpx2.AsyncClient(base_url=base, timeout=LIMIT) as http,
        ):
            headers = await Client(http).open(NEW)
            body = call(7, "gated", {"label": "poll-away"})
            ended = await http.post("/mcp", json=body, headers=headers)
            assert len(events(ended.text)) == 1  # the priming event only
            await _eventually(lambda: "poll-away" in CANCELLED)
            await _until_gone(http, headers)

    run(scenario())


# ------------------------------------------------------------ the server closes


def test_a_call_running_when_the_app_shuts_down_ends_without_an_answer() -> None:
    async def scenario() -> tuple[int, list[Any]]:
        _reset("shutdown")
        app = mcp.asgi_app(TOOLS)
        async with _in_process(app) as http:
            lifespan = app.lifespan()
            await lifespan.__aenter__()
            headers = await Client(http).open(NEW)
            pending = asyncio.ensure_future(
                http.post(
                    "/mcp",
                    json=call(1, "gated", {"label": "shutdown"}),
                    headers=headers,
                )
            )
            await _eventually(lambda: "shutdown" in STARTED)
            await lifespan.__aexit__(None, None, None)
            reply = await pending  # ended though the tool's gate stays shut
            await _eventually(lambda: "shutdown" in CANCELLED)
        return reply.status_code, _answers(reply)

    assert run(scenario()) == (200, [])


# ------------------------------------------------------------ leaks


def test_a_call_that_fails_before_it_starts_leaves_nothing_behind() -> None:
    """An event store that fails (user code to the SDK): a 500, and the session still serves."""

    async def scenario() -> tuple[int, Any]:
        app = mcp.asgi_app(TOOLS)
        log = app.events
        original = log.store_event
        failing = False

        async def store_event(stream_id: str, message: Any) -> str:
            if failing:
                raise OSError("the store is full")
            stored: str = await original(stream_id, message)
            return stored

        log.store_event = store_event
        async with app.lifespan(), _in_process(app, raise_app_exceptions=False) as http:
            headers = await Client(http).open(NEW)
            failing = True
            reply = await http.post(
                "/mcp", json=call(7, "add", {"a": 1}), headers=headers
            )
            failing = False
            after = await http.post(
                "/mcp", json=call(8, "add", {"a": 1, "b": 2}), headers=headers
            )
            (answer,) = _answers(after)  # the session still serves
        return reply.status_code, answer["structuredContent"]

    assert run(scenario()) == (500, {"result": 3})


# ------------------------------------------------------------ outputs


big = ToolSet()


@big.tool
def huge(size: int) -> str:
    """A long answer.

    Args:
        size: Its length.
    """
    return "x" * size


@big.tool(timeout=0.2)
async def sleepy(seconds: float) -> str:
    """Wait, then answer (at most 0.2 s).

    Args:
        seconds: How long.
    """
    await asyncio.sleep(seconds)
    return "slept"


@big.tool(timeout=0.2)
def sleepy_sync(seconds: float) -> str:
    """Wait in a thread, then answer (at most 0.2 s).

    Args:
        seconds: How long.
    """
    import time

    time.sleep(seconds)
    return "slept"


@big.tool
async def raises(reason: str) -> str:
    """Raise.

    Args:
        reason: The message.
    """
    raise ValueError(reason)


def test_huge_timed_out_and_raising_calls_get_their_answers() -> None:
    async def scenario() -> list[Any]:
        app = mcp.asgi_app(big)
        async with app.lifespan(), _in_process(app) as http:
            client = Client(http)
            headers = await client.open(NEW)
            await client.post(call(1, "huge", {"size": 3_000_000}), headers)
            await client.post(call(2, "nope", {}), headers)
            await client.post(message(3, "tools/list"), headers)
            await client.post(call(4, "sleepy", {"seconds": 5}), headers)
            await client.post(call(5, "sleepy_sync", {"seconds": 1}), headers)
            await client.post(call(6, "raises", {"reason": "no"}), headers)
        return [
            json.loads(e["data"])
            for a in client.answers[2:]
            for e in events(a[2])
            if e.get("data")
        ]

    huge_, unknown, listed, timed_out, timed_out_sync, raised = run(scenario())
    assert huge_["result"]["content"][0]["text"] == "x" * 3_000_000
    assert unknown["error"]["code"] == -32602
    assert "nope" in unknown["error"]["message"]
    assert [tool["name"] for tool in listed["result"]["tools"]] == big.names
    for answer in (timed_out, timed_out_sync):
        assert answer["result"]["isError"] is True
        assert "timed out" in answer["result"]["content"][0]["text"].lower()
    assert raised["result"]["isError"] is True
    assert "no" in raised["result"]["content"][0]["text"]


# ------------------------------------------------------------ the official client


def test_the_official_client_timeout_cancels_the_call() -> None:
    """The client's read timeout sends `notifications/cancelled`; a progress token rides along."""
    from mcp.shared.exceptions import MCPError

    async def scenario() -> tuple[bool, list[float], Any]:
        _reset("client")
        app = mcp.asgi_app(TOOLS)
        steps: list[float] = []

        async def on_progress(
            progress: float, total: float | None, message: str | None
        ) -> None:
            steps.append(progress)

        async with served(app) as base, session(base + "/mcp") as client:
            added = await client.call_tool(
                "add", {"a": 1, "b": 2}, progress_callback=on_progress
            )
            failed = False
            try:
                await client.call_tool(
                    "gated",
                    {"label": "client"},
                    read_timeout_seconds=0.5,
                    progress_callback=on_progress,
                )
            except MCPError:
                failed = True
            await _eventually(lambda: "client" in CANCELLED)
            after = await client.call_tool("add", {"a": 2, "b": 2})
            GATES["client"].set()
        return failed, steps, (added.structured_content, after.structured_content)

    assert run(scenario()) == (True, [], ({"result": 3}, {"result": 4}))


# ------------------------------------------------------------ auth


class _TwoClients:
    """Two bearer tokens of two clients."""

    async def verify_token(self, token: str) -> Any:
        from mcp.server.auth.provider import AccessToken

        if token in ("tok-a", "tok-b"):
            return AccessToken(token=token, client_id=token[-1], scopes=[])
        return None


def test_another_clients_token_on_a_session_gets_404() -> None:
    async def scenario() -> list[int]:
        app = mcp.asgi_app(TOOLS, auth=_TwoClients())
        async with app.lifespan(), _in_process(app) as http:
            client = Client(http)
            mine = dict(ACCEPT, authorization="Bearer tok-a")
            opened = await client.post(init(NEW), mine)
            sid = opened.headers["mcp-session-id"]
            headers = dict(mine, **{"mcp-session-id": sid, "mcp-protocol-version": NEW})
            await client.post(
                {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers
            )
            await client.post(call(1, "add", {"a": 1, "b": 1}), headers)
            other = dict(headers, authorization="Bearer tok-b")
            await client.post(call(2, "add", {"a": 1, "b": 1}), other)
            await client.post(message(3, "ping"), other)
            await client.post(
                call(4, "add", {"a": 1, "b": 1}),
                dict(headers, authorization="Bearer bad"),
            )
        return [status for status, _, _ in client.answers]

    assert run(scenario()) == [200, 202, 200, 404, 404, 401]
