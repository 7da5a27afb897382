"""How calls answered on a session's event stream end: the same as through the SDK.

The direct path (`_mcp_stream.py`) runs a call in a task of the session
manager, outside the session the SDK drives; whatever ends a session or
the server must still end the call as the SDK ends a session's requests.
Each test runs the same sequence with the direct path on and off (every
request then goes to the SDK) and asserts what a client sees through the
SDK. Servers listen on 127.0.0.1 only; every wait ends with the test's
time limit.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx2
import pytest

from tests.test_mcp_http import served, session
from tests.test_mcp_stream_direct import (
    ACCEPT,
    CANCELLED,
    GATES,
    NEW,
    STARTED,
    TOOLS,
    Client,
    _call,
    _events,
    _message,
)
from toolkit import ToolSet
from toolkit.providers import mcp

from .test_mcp_stream_direct import _init

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
    data = [json.loads(e["data"]) for e in _events(reply.text) if e.get("data")]
    return [d.get("result", d.get("error")) for d in data]


def _in_process(app: Any, **options: Any) -> Any:
    return httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app, **options),
        base_url="http://127.0.0.1:8000",
        timeout=LIMIT,
    )


# ------------------------------------------------------------ the session ends


def test_ending_the_session_ends_a_running_calls_stream_and_cancels_the_tool() -> None:
    async def scenario(direct: bool) -> int:
        label = f"delete-{direct}"
        _reset(label)
        app = mcp.asgi_app(TOOLS)
        app.direct_path.enabled = direct
        async with (
            served(app) as base,
            httpx2.AsyncClient(base_url=base, timeout=LIMIT) as http,
        ):
            headers = await Client(http).open(NEW)
            call = asyncio.ensure_future(
                http.post(
                    "/mcp", json=_call(1, "gated", {"label": label}), headers=headers
                )
            )
            await _eventually(lambda: label in STARTED)
            deleted = await http.delete("/mcp", headers=headers)
            reply = await call  # ended though the tool's gate stays shut
            await _eventually(lambda: label in CANCELLED)
            assert _answers(reply) == []
        return int(deleted.status_code)

    assert run(scenario(False)) == 200  # the SDK
    assert run(scenario(True)) == 200


def test_a_session_that_idles_out_while_its_client_is_away_cancels_the_call() -> None:
    """The client leaves mid-call and could resume; its session idles out meanwhile.

    The session's end cancels the tool, long before the resume window
    would have.
    """

    async def scenario(direct: bool) -> None:
        label = f"idle-{direct}"
        _reset(label)
        app = mcp.asgi_app(TOOLS, session_idle_timeout=0.3)
        app.direct_path.enabled = direct
        app.sessions.resume_window = LIMIT
        async with (
            served(app) as base,
            httpx2.AsyncClient(base_url=base, timeout=LIMIT) as http,
        ):
            headers = await Client(http).open(NEW)
            body = _call(1, "gated", {"label": label})
            async with http.stream("POST", "/mcp", json=body, headers=headers):
                await _eventually(lambda: label in STARTED)
            await _eventually(lambda: not app.manager._server_instances)
            await _eventually(lambda: label in CANCELLED)
            assert not app.direct_path.calls

    run(scenario(False))  # the SDK
    run(scenario(True))


def test_a_polled_call_whose_client_stops_polling_ends_with_its_session() -> None:
    """SSE polling: the server ends the POST's stream itself, so no disconnect cancels the call.

    A client that then never polls (a crash, a closed laptop) leaves the
    call to the session's end: the idle timeout cancels it.
    """

    async def scenario(direct: bool) -> None:
        label = f"poll-away-{direct}"
        _reset(label)
        app = mcp.asgi_app(TOOLS, sse_poll=0.05, session_idle_timeout=0.5)
        app.direct_path.enabled = direct
        async with (
            served(app) as base,
            httpx2.AsyncClient(base_url=base, timeout=LIMIT) as http,
        ):
            headers = await Client(http).open(NEW)
            ended = await http.post(
                "/mcp", json=_call(7, "gated", {"label": label}), headers=headers
            )
            assert len(_events(ended.text)) == 1  # the priming event only
            await _eventually(lambda: not app.manager._server_instances)
            await _eventually(lambda: label in CANCELLED)
            assert not app.direct_path.calls

    run(scenario(False))  # the SDK
    run(scenario(True))


# ------------------------------------------------------------ the server closes


def test_a_call_running_when_the_app_shuts_down_ends_without_an_answer() -> None:
    async def scenario(direct: bool) -> tuple[int, list[Any], int]:
        label = f"shutdown-{direct}"
        _reset(label)
        app = mcp.asgi_app(TOOLS)
        app.direct_path.enabled = direct
        async with _in_process(app) as http:
            lifespan = app.lifespan()
            await lifespan.__aenter__()
            headers = await Client(http).open(NEW)
            call = asyncio.ensure_future(
                http.post(
                    "/mcp", json=_call(1, "gated", {"label": label}), headers=headers
                )
            )
            await _eventually(lambda: label in STARTED)
            await lifespan.__aexit__(None, None, None)
            reply = await call  # ended though the tool's gate stays shut
            await _eventually(lambda: label in CANCELLED)
        return reply.status_code, _answers(reply), app.direct_path.answered

    assert run(scenario(False)) == (200, [], 0)  # the SDK
    assert run(scenario(True)) == (200, [], 1)


# ------------------------------------------------------------ leaks


def test_a_call_that_fails_before_it_starts_leaves_nothing_behind() -> None:
    """An event store that fails (user code to the SDK): a 500, and no call left behind."""

    async def scenario(direct: bool) -> tuple[int, int, int]:
        app = mcp.asgi_app(TOOLS)
        app.direct_path.enabled = direct
        log = app.sessions.log
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
                "/mcp", json=_call(7, "add", {"a": 1}), headers=headers
            )
            failing = False
            left = sum(len(calls) for calls in app.direct_path.calls.values())
            after = await http.post(
                "/mcp", json=_call(8, "add", {"a": 1, "b": 2}), headers=headers
            )
            (answer,) = _answers(after)  # the session still serves
            assert answer["structuredContent"] == {"result": 3}
        return reply.status_code, left, app.direct_path.answered

    assert run(scenario(False)) == (500, 0, 0)  # the SDK
    assert run(scenario(True)) == (500, 0, 2)


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


def test_huge_timed_out_and_raising_answers_get_the_same_bytes() -> None:
    async def scenario(direct: bool) -> tuple[list[Any], int]:
        app = mcp.asgi_app(big)
        app.direct_path.enabled = direct
        async with app.lifespan(), _in_process(app) as http:
            client = Client(http)
            headers = await client.open(NEW)
            await client.post(_call(1, "huge", {"size": 3_000_000}), headers)
            await client.post(_call(2, "nope", {}), headers)
            await client.post(_message(3, "tools/list"), headers)
            await client.post(_call(4, "sleepy", {"seconds": 5}), headers)
            await client.post(_call(5, "sleepy_sync", {"seconds": 1}), headers)
            await client.post(_call(6, "raises", {"reason": "no"}), headers)
        return client.answers, app.direct_path.answered

    mine, answered = run(scenario(True))
    theirs, _ = run(scenario(False))
    assert answered == 6
    assert mine == theirs
    assert "timed out" in mine[-3][2].lower() or "timeout" in mine[-3][2].lower()


# ------------------------------------------------------------ the official client


def test_the_official_client_timeout_cancels_a_direct_call() -> None:
    """The client's read timeout sends `notifications/cancelled`; a progress token rides along."""
    from mcp.shared.exceptions import MCPError

    async def scenario(direct: bool) -> tuple[bool, list[float], Any]:
        label = f"client-{direct}"
        _reset(label)
        app = mcp.asgi_app(TOOLS)
        app.direct_path.enabled = direct
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
                    {"label": label},
                    read_timeout_seconds=0.5,
                    progress_callback=on_progress,
                )
            except MCPError:
                failed = True
            await _eventually(lambda: label in CANCELLED)
            after = await client.call_tool("add", {"a": 2, "b": 2})
            GATES[label].set()
        return failed, steps, (added.structured_content, after.structured_content)

    theirs = run(scenario(False))
    mine = run(scenario(True))
    assert mine == theirs
    assert mine[0] is True


# ------------------------------------------------------------ auth


class _TwoClients:
    """Two bearer tokens of two clients."""

    async def verify_token(self, token: str) -> Any:
        from mcp.server.auth.provider import AccessToken

        if token in ("tok-a", "tok-b"):
            return AccessToken(token=token, client_id=token[-1], scopes=[])
        return None


def test_another_clients_token_on_a_session_gets_the_sdks_404() -> None:
    async def scenario(direct: bool) -> list[Any]:
        app = mcp.asgi_app(TOOLS, auth=_TwoClients())
        app.direct_path.enabled = direct
        async with app.lifespan(), _in_process(app) as http:
            client = Client(http)
            mine = dict(ACCEPT, authorization="Bearer tok-a")
            opened = await client.post(
                _message(
                    0,
                    "initialize",
                    {
                        "protocolVersion": NEW,
                        "capabilities": {},
                        "clientInfo": {"name": "t", "version": "1"},
                    },
                ),
                mine,
            )
            sid = opened.headers["mcp-session-id"]
            headers = dict(mine, **{"mcp-session-id": sid, "mcp-protocol-version": NEW})
            await client.post(
                {"jsonrpc": "2.0", "method": "notifications/initialized"}, headers
            )
            await client.post(_call(1, "add", {"a": 1, "b": 1}), headers)
            other = dict(headers, authorization="Bearer tok-b")
            await client.post(_call(2, "add", {"a": 1, "b": 1}), other)
            await client.post(_message(3, "ping"), other)
            await client.post(
                _call(4, "add", {"a": 1, "b": 1}),
                dict(headers, authorization="Bearer bad"),
            )
        return [(s, b) for s, _, b in client.answers] + [app.direct_path.answered]

    mine = run(scenario(True))
    theirs = run(scenario(False))
    assert mine[:-1] == theirs[:-1]
    assert [a[0] for a in mine[:-1]] == [200, 202, 200, 404, 404, 401]
    assert mine[-1] == 1


# ------------------------------------------------------------ duplicate ids


def test_a_second_call_with_the_id_of_a_running_call_gets_its_own_answer() -> None:
    """Two POSTs in flight with one id: each gets its own answer on the direct path.

    (Through the SDK alone the first POST is never answered: the second
    overwrites its stream. The direct path answers both; this pins it.)
    """

    async def scenario() -> list[Any]:
        label = "dup"
        _reset(label)
        app = mcp.asgi_app(TOOLS)
        async with (
            served(app) as base,
            httpx2.AsyncClient(base_url=base, timeout=LIMIT) as http,
        ):
            headers = await Client(http).open(NEW)
            first = asyncio.ensure_future(
                http.post(
                    "/mcp", json=_call(1, "gated", {"label": label}), headers=headers
                )
            )
            await _eventually(lambda: label in STARTED)
            second = await http.post(
                "/mcp", json=_call(1, "add", {"a": 1, "b": 1}), headers=headers
            )
            GATES[label].set()
            return [_answers(await first), _answers(second)]

    first, second = run(scenario())
    assert first[0]["content"][0]["text"] == "done dup"
    assert second[0]["structuredContent"] == {"result": 2}


# ------------------------------------------------------------ a later SDK

MODES: dict[str, dict[str, Any]] = {
    "sessions": {},
    "stateless": {"stateless": True},
    "stateless json": {"stateless": True, "json_response": True},
}
MISSING = {
    "a helper": ("mcp.shared.dispatcher", None, "coerce_request_id"),
    "a transport's attribute": (
        "mcp.server.streamable_http",
        "StreamableHTTPServerTransport",
        "close_standalone_sse_stream",
    ),
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("missing", [None, *MISSING])
def test_an_sdk_without_a_name_the_direct_paths_use_answers_everything_itself(
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    mode: str,
    missing: str | None,
) -> None:
    """An SDK that moved or renamed a helper or an attribute: the direct path is off, the SDK answers.

    Only this server's reading of the name is broken (the SDK's own
    modules keep what they imported, or do not need it here), as when a
    later SDK renames it.
    """
    import importlib

    if missing is not None:
        module, owner, name = MISSING[missing]
        found: Any = importlib.import_module(module)
        monkeypatch.delattr(found if owner is None else getattr(found, owner), name)

    async def scenario() -> tuple[bool, Any, Any, int]:
        app = mcp.asgi_app(TOOLS, **MODES[mode])
        async with app.lifespan(), _in_process(app) as http:
            opened = await http.post("/mcp", json=_init(NEW), headers=ACCEPT)
            headers = dict(ACCEPT, **{"mcp-protocol-version": NEW})
            if "mcp-session-id" in opened.headers:
                headers["mcp-session-id"] = opened.headers["mcp-session-id"]
                initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
                await http.post("/mcp", json=initialized, headers=headers)
            added = await http.post(
                "/mcp", json=_call(1, "add", {"a": 1, "b": 2}), headers=headers
            )
            listed = await http.post(
                "/mcp", json=_message(2, "tools/list"), headers=headers
            )
        return (
            app.direct_path.enabled,
            _answer(added),
            _answer(listed),
            app.direct_path.answered,
        )

    with caplog.at_level("WARNING", logger="toolkit"):
        enabled, added, listed, answered = run(scenario())
    said = [r.getMessage() for r in caplog.records if r.name == "toolkit"]
    if missing is None:
        assert said == []
    else:  # whoever sees serving slow down is told why, once per app
        (line,) = said
        assert MISSING[missing][2] in line
        assert "the SDK answers every request instead" in line
    assert added["structuredContent"] == {"result": 3}
    assert "add" in [tool["name"] for tool in listed["tools"]]
    assert enabled is (missing is None)
    assert (answered > 0) is (missing is None)


def _answer(reply: Any) -> Any:
    """The result of a request, from a JSON body or an event stream."""
    if reply.headers["content-type"].startswith("application/json"):
        return reply.json()["result"]
    (answer,) = _answers(reply)
    return answer
