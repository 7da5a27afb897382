"""Resumable event streams and SSE polling: a call's stream ends, the client comes back for the answer.

Servers run in this process under uvicorn on 127.0.0.1. The wire is read
with plain HTTP (the priming event, `retry`, `Last-Event-ID`) and through
the official `mcp` client, which reconnects by itself. The tools wait on
events the test sets, so what happens before and after a stream ends does
not depend on timing.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import pytest

from tests.test_mcp_http import (
    HEADERS,
    LIMIT,
    _finish,
    _serve,
    _text,
    run,
    served,
    session,
)
from toolkit import ToolSet, mcp
from toolkit.mcp._app import SSE_RETRY_MS
from toolkit.mcp._sessions import EventLog, Session, current_session

GATES: dict[str, asyncio.Event] = {}
CANCELLED: set[str] = set()
tools = ToolSet()


@tools.tool
async def gated(label: str) -> str:
    """Answer once the test opens the gate named `label`.

    Args:
        label: The gate, and the answer's text.
    """
    try:
        await GATES.setdefault(label, asyncio.Event()).wait()
    except asyncio.CancelledError:
        CANCELLED.add(label)
        raise
    return f"done {label}"


@tools.tool
async def quick() -> str:
    """Answer at once."""
    return "quick"


def initialize(version: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"},
        },
    }


def call(request_id: int, name: str, **arguments: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }


async def events(reply: Any) -> AsyncIterator[dict[str, str]]:
    """The server-sent events of a streamed response, as dicts of their fields."""
    fields: dict[str, str] = {}
    async for line in reply.aiter_lines():
        if not line:
            if fields:
                yield fields
            fields = {}
            continue
        name, _, value = line.partition(":")
        fields[name] = fields.get(name, "") + value.removeprefix(" ")


async def opened(
    client: httpx2.AsyncClient, url: str, version: str, header: str | None = None
) -> dict[str, str]:
    """Initialize a session negotiating `version`; the headers its requests send."""
    answer = await client.post(url, json=initialize(version), headers=HEADERS)
    assert answer.status_code == 200, answer.text
    headers = {
        **HEADERS,
        "mcp-session-id": answer.headers["mcp-session-id"],
        "mcp-protocol-version": header or version,
    }
    done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert (await client.post(url, json=done, headers=headers)).status_code == 202
    return headers


async def post_events(
    client: httpx2.AsyncClient, url: str, body: Any, headers: dict[str, str]
) -> list[dict[str, str]]:
    """Every event of a POST's stream, up to its end."""
    async with client.stream("POST", url, json=body, headers=headers) as reply:
        assert reply.status_code == 200
        assert reply.headers["content-type"].startswith("text/event-stream")
        return [event async for event in events(reply)]


async def resumed_answer(
    client: httpx2.AsyncClient,
    url: str,
    last_event_id: str,
    headers: dict[str, str],
    gate: str | None = None,
) -> list[dict[str, Any]]:
    """The JSON-RPC messages a GET with `Last-Event-ID` is sent, up to the first answer.

    `gate` is opened once the first event of the resumed stream has come.
    """
    found: list[dict[str, Any]] = []
    resume = {**headers, "accept": "text/event-stream", "last-event-id": last_event_id}
    async with client.stream("GET", url, headers=resume) as reply:
        assert reply.status_code == 200
        async for event in events(reply):
            if gate is not None:
                GATES[gate].set()
            if event.get("data"):
                found.append(json.loads(event["data"]))
                if "result" in found[-1] or "error" in found[-1]:
                    break
    return found


# ------------------------------------------------------------ on the wire


def quick_call_events(version: str) -> list[dict[str, str]]:
    """The events of one `quick` call in a session that negotiated `version`."""

    async def scenario() -> list[dict[str, str]]:
        async with (
            served(mcp.asgi_app(tools)) as base,
            httpx2.AsyncClient(timeout=LIMIT) as client,
        ):
            headers = await opened(client, base + "/mcp", version)
            return await post_events(client, base + "/mcp", call(1, "quick"), headers)

    found: list[dict[str, str]] = run(scenario())
    return found


def test_a_2025_11_25_call_stream_starts_with_a_priming_event_and_retry() -> None:
    first, *rest = quick_call_events("2025-11-25")
    assert first["id"]
    assert first.get("data", "") == ""
    assert first["retry"] == str(SSE_RETRY_MS)
    answer = json.loads(rest[-1]["data"])
    assert answer["id"] == 1
    assert answer["result"]["content"][0]["text"] == "quick"


def test_an_older_session_gets_no_priming_event() -> None:
    (only,) = quick_call_events("2025-06-18")
    assert json.loads(only["data"])["result"]["content"][0]["text"] == "quick"
    assert "retry" not in only


def test_the_stream_ends_mid_call_and_last_event_id_brings_the_answer() -> None:
    async def scenario() -> tuple[list[dict[str, str]], list[dict[str, Any]]]:
        GATES["resume"] = asyncio.Event()
        app = mcp.asgi_app(tools, sse_poll=0.05)
        async with (
            served(app) as base,
            httpx2.AsyncClient(timeout=LIMIT) as client,
        ):
            url = base + "/mcp"
            headers = await opened(client, url, "2025-11-25")
            before = await post_events(
                client, url, call(7, "gated", label="resume"), headers
            )
            GATES["resume"].set()  # the tool answers after its stream has ended
            return before, await resumed_answer(client, url, before[-1]["id"], headers)

    before, after = run(scenario())
    assert all(event.get("data", "") == "" for event in before)  # no answer yet
    assert after[-1]["id"] == 7
    assert after[-1]["result"]["content"][0]["text"] == "done resume"


async def leave_mid_call(
    client: httpx2.AsyncClient, url: str, body: Any, headers: dict[str, str]
) -> str:
    """POST a call, read its priming event, and disconnect; the event's id."""
    async with client.stream("POST", url, json=body, headers=headers) as reply:
        async for event in events(reply):
            return event["id"]
    raise AssertionError("no priming event")


def test_a_client_whose_connection_drops_mid_call_comes_back_for_the_answer() -> None:
    async def scenario() -> list[dict[str, Any]]:
        GATES["dropped"] = asyncio.Event()
        app = mcp.asgi_app(tools)
        app.sessions.resume_window = LIMIT
        async with (
            served(app) as base,
            httpx2.AsyncClient(timeout=LIMIT) as client,
        ):
            url = base + "/mcp"
            headers = await opened(client, url, "2025-11-25")
            body = call(3, "gated", label="dropped")
            last = await leave_mid_call(client, url, body, headers)
            (known,) = app.sessions.known.values()
            while known.in_flight:  # until the server has seen the client leave
                await asyncio.sleep(0.02)
            # The tool answers only after the client has come back.
            return await resumed_answer(client, url, last, headers, gate="dropped")

    after = run(scenario())
    assert after[-1]["result"]["content"][0]["text"] == "done dropped"
    assert "dropped" not in CANCELLED


def test_a_call_whose_client_does_not_come_back_is_cancelled() -> None:
    async def scenario() -> bool:
        app = mcp.asgi_app(tools)
        app.sessions.resume_window = 0.1
        async with (
            served(app) as base,
            httpx2.AsyncClient(timeout=LIMIT) as client,
        ):
            url = base + "/mcp"
            headers = await opened(client, url, "2025-11-25")
            await leave_mid_call(client, url, call(4, "gated", label="gone"), headers)
            for _ in range(LIMIT * 50):
                if "gone" in CANCELLED:
                    return True
                await asyncio.sleep(0.02)
            return False

    assert run(scenario())


def test_a_session_speaks_its_negotiated_version_whatever_the_header_says() -> None:
    """A client that negotiated 2025-11-25 but sends an older header still gets resumable streams."""

    async def scenario() -> tuple[list[dict[str, str]], list[dict[str, Any]]]:
        GATES["header"] = asyncio.Event()
        async with (
            served(mcp.asgi_app(tools, sse_poll=0.05)) as base,
            httpx2.AsyncClient(timeout=LIMIT) as client,
        ):
            url = base + "/mcp"
            headers = await opened(client, url, "2025-11-25", header="2025-03-26")
            before = await post_events(
                client, url, call(1, "gated", label="header"), headers
            )
            GATES["header"].set()
            return before, await resumed_answer(client, url, before[-1]["id"], headers)

    before, after = run(scenario())
    assert before[0]["retry"] == str(SSE_RETRY_MS)
    assert after[-1]["result"]["content"][0]["text"] == "done header"


def test_two_sessions_with_the_same_request_id_resume_their_own_answers() -> None:
    """Each session's events are its own: clients number requests alike, and ids are not guessable.

    This also pins what the per-session store relies on in the SDK: a
    session's tasks inherit the context of the request that opened it.
    """

    async def scenario() -> list[Any]:
        found: list[Any] = []
        async with (
            served(mcp.asgi_app(tools, sse_poll=0.05)) as base,
            httpx2.AsyncClient(timeout=LIMIT) as client,
        ):
            url = base + "/mcp"
            ids = {}
            headers = {}
            for label in ("left", "right"):
                GATES[label] = asyncio.Event()
                headers[label] = await opened(client, url, "2025-11-25")
                before = await post_events(
                    client, url, call(1, "gated", label=label), headers[label]
                )
                ids[label] = before[-1]["id"]
            GATES["left"].set()
            GATES["right"].set()
            # Another session's event id replays nothing.
            resume = {
                **headers["right"],
                "accept": "text/event-stream",
                "last-event-id": ids["left"],
            }
            async with client.stream("GET", url, headers=resume) as reply:
                found.append([event async for event in events(reply)])
            for label in ("left", "right"):
                found.append(
                    await resumed_answer(client, url, ids[label], headers[label])
                )
        return found

    foreign, left, right = run(scenario())
    assert foreign == []
    assert left[-1]["result"]["content"][0]["text"] == "done left"
    assert right[-1]["result"]["content"][0]["text"] == "done right"


def test_the_official_client_reconnects_and_gets_the_answer() -> None:
    async def scenario() -> tuple[str, int]:
        GATES["client"] = asyncio.Event()
        app = mcp.asgi_app(tools, sse_poll=0.05)
        async with served(app) as base, session(base + "/mcp") as opened_session:
            answer = asyncio.ensure_future(
                opened_session.call_tool("gated", {"label": "client"})
            )
            while not _streams_resumed(app):  # the client came back after the end
                assert not answer.done()
                await asyncio.sleep(0.02)
            GATES["client"].set()
            return _text(await answer), len(app.sessions.known)

    text, sessions = run(scenario())
    assert text == "done client"
    assert sessions == 1


def _streams_resumed(app: Any) -> bool:
    return any(
        stream.resumed
        for known in app.sessions.known.values()
        for stream in known.streams.values()
    )


def test_an_answer_sent_on_its_stream_is_not_kept() -> None:
    async def scenario() -> int:
        app = mcp.asgi_app(tools)
        async with (
            served(app) as base,
            httpx2.AsyncClient(timeout=LIMIT) as client,
        ):
            url = base + "/mcp"
            headers = await opened(client, url, "2025-11-25")
            for request_id in range(1, 6):
                await post_events(client, url, call(request_id, "quick"), headers)
            return int(app.events.count)

    assert run(scenario()) == 0


def test_ending_a_session_forgets_its_events() -> None:
    async def scenario() -> tuple[int, int, int]:
        GATES["ended"] = asyncio.Event()
        app = mcp.asgi_app(tools, sse_poll=0.05)
        async with (
            served(app) as base,
            httpx2.AsyncClient(timeout=LIMIT) as client,
        ):
            url = base + "/mcp"
            headers = await opened(client, url, "2025-11-25")
            await post_events(client, url, call(1, "gated", label="ended"), headers)
            kept = app.events.count  # the call's stream ended before the answer
            ended = await client.delete(url, headers=headers)
            assert ended.status_code == 200
            GATES["ended"].set()
            return kept, app.events.count, len(app.sessions.known)

    kept, left, sessions = run(scenario())
    assert kept >= 1
    assert (left, sessions) == (0, 0)


def test_stateless_and_json_servers_keep_no_events() -> None:
    async def scenario(**options: Any) -> tuple[Any, list[dict[str, str]]]:
        app = mcp.asgi_app(tools, **options)
        async with (
            served(app) as base,
            httpx2.AsyncClient(timeout=LIMIT) as client,
        ):
            headers = {**HEADERS, "mcp-protocol-version": "2025-11-25"}
            url = base + "/mcp"
            answer = await client.post(
                url, json=initialize("2025-11-25"), headers=headers
            )
            assert answer.status_code == 200
            if options.get("json_response"):
                return app.events, []
            return app.events, await post_events(client, url, call(1, "quick"), headers)

    events, sent = run(scenario(stateless=True))
    assert events is None
    (only,) = sent  # the answer alone: no priming event
    assert "id" not in only
    assert "retry" not in only
    assert run(scenario(json_response=True))[0] is None


def test_sse_poll_needs_streams_that_clients_can_resume() -> None:
    options: list[dict[str, Any]] = [
        {"stateless": True},
        {"json_response": True},
        {"resumable": False},
    ]
    for option in options:
        with pytest.raises(ValueError, match="sse_poll"):
            mcp.asgi_app(tools, sse_poll=5, **option)
    for bad in (0, -1, float("nan")):
        with pytest.raises(ValueError, match="positive"):
            mcp.asgi_app(tools, sse_poll=bad)


def test_the_command_line_takes_sse_poll_with_http_and_sessions_only() -> None:
    code, err = _finish(_serve("--sse-poll", "5"))
    assert code == 2
    assert "--sse-poll: options of HTTP serving" in err
    code, err = _finish(
        _serve("--http", "127.0.0.1:1", "--sse-poll", "5", "--stateless")
    )
    assert code == 2
    assert "sse_poll (--sse-poll)" in err


def test_the_start_up_line_says_the_poll() -> None:
    from toolkit.mcp._run import Listen, startup_line

    line = startup_line(Listen("127.0.0.1", 8000, {"sse_poll": 30.0}), 2, False)
    assert line.endswith("(auth off, SSE poll 30s)")


# ------------------------------------------------------------ the store's bounds


def _store(log: EventLog, session: Session, stream: str, message: Any) -> str:
    async def store() -> str:
        token = current_session.set(session)
        try:
            return await log.store_event(stream, message)
        finally:
            current_session.reset(token)

    return str(asyncio.run(store()))


def _replay(log: EventLog, session: Session, after: str) -> tuple[Any, list[Any]]:
    async def replay() -> tuple[Any, list[Any]]:
        sent: list[Any] = []

        async def send(event: Any) -> None:
            sent.append(event.message)

        token = current_session.set(session)
        try:
            return await log.replay_events_after(after, send), sent
        finally:
            current_session.reset(token)

    return asyncio.run(replay())


def _answer(request_id: int) -> Any:
    from mcp.types import JSONRPCResponse

    return JSONRPCResponse(jsonrpc="2.0", id=request_id, result={})


def _note(n: int) -> Any:
    from mcp.types import JSONRPCNotification

    return JSONRPCNotification(
        jsonrpc="2.0", method="notifications/message", params={"n": n}
    )


def test_a_stream_keeps_its_latest_events_and_replays_after_a_dropped_one() -> None:
    log = EventLog(per_stream=3, total=100)
    session = Session()
    first = _store(log, session, "1", None)
    for n in range(10):
        _store(log, session, "1", _note(n))
    assert log.count == 3
    stream, sent = _replay(log, session, first)
    assert stream == "1"
    assert [m.params["n"] for m in sent] == [7, 8, 9]


def test_the_total_drops_finished_calls_first_and_a_long_call_keeps_its_stream() -> (
    None
):
    log = EventLog(per_stream=10, total=20)
    session = Session()
    long_call = _store(log, session, "long", None)  # started first, still running
    for n in range(30):
        _store(log, session, str(n), None)
        _store(log, session, str(n), _answer(n))
    assert log.count <= 20
    assert log.streams <= 10
    assert _replay(log, session, long_call)[0] == "long"
    _store(log, session, "long", _answer(99))
    assert _replay(log, session, long_call)[1][-1].id == 99


def test_the_store_never_holds_more_than_its_total() -> None:
    log = EventLog(per_stream=5, total=50)
    sessions = [Session() for _ in range(20)]
    for round_ in range(20):
        for index, one in enumerate(sessions):
            _store(log, one, str(round_), None)
            _store(log, one, "GET", _note(index))
            assert log.count <= 50
    for one in sessions:
        log.drop(one)
    assert (log.count, log.streams) == (0, 0)


def test_events_outside_a_session_are_not_kept() -> None:
    log = EventLog()

    async def store() -> str:
        return await log.store_event("1", None)

    event_id = asyncio.run(store())
    assert log.count == 0
    assert _replay(log, Session(), event_id) == (None, [])


def test_event_log_bounds_must_make_sense() -> None:
    with pytest.raises(ValueError, match="per stream"):
        EventLog(per_stream=0)
    with pytest.raises(ValueError, match="per stream"):
        EventLog(per_stream=11, total=10)


def test_a_session_the_server_has_ended_is_forgotten() -> None:
    async def scenario() -> tuple[int, int]:
        app = mcp.asgi_app(tools, session_idle_timeout=0.2)
        async with (
            served(app) as base,
            httpx2.AsyncClient(timeout=LIMIT) as client,
        ):
            url = base + "/mcp"
            headers = await opened(client, url, "2025-11-25")
            known = len(app.sessions.known)
            ping = {"jsonrpc": "2.0", "id": 9, "method": "ping"}
            code = 200
            for _ in range(LIMIT * 5):  # until the SDK has closed the idle session
                await asyncio.sleep(0.3)
                code = (await client.post(url, json=ping, headers=headers)).status_code
                if code == 404:
                    break
            assert code == 404
            return known, len(app.sessions.known)

    assert run(scenario()) == (1, 0)


def test_sessions_idle_longer_than_the_sdk_keeps_them_are_pruned() -> None:
    from toolkit.mcp._sessions import Sessions

    sessions = Sessions(None, EventLog(), idle_timeout=1.0)
    idle, busy, fresh = Session(), Session(), Session()
    idle.last_seen -= 5
    busy.last_seen -= 5
    busy.in_flight = 1  # an open stream holds a session, in the SDK too
    sessions.known = {"idle": idle, "busy": busy, "fresh": fresh}
    sessions._pruned -= 5
    sessions._prune()
    assert sorted(sessions.known) == ["busy", "fresh"]


def test_within_a_session_the_negotiated_version_replaces_other_handshake_versions() -> (
    None
):
    from toolkit.mcp._sessions import _negotiated

    def header(*given: bytes) -> list[bytes]:
        scope = {"headers": [(b"mcp-protocol-version", value) for value in given]}
        fixed = _negotiated(scope, "2025-11-25")
        return [v for k, v in fixed["headers"] if k == b"mcp-protocol-version"]

    assert header(b"2025-03-26") == [b"2025-11-25"]
    assert header() == [b"2025-11-25"]  # absent: the negotiated one, as the spec asks
    assert header(b"2025-11-25") == [b"2025-11-25"]
    assert header(b"2026-07-28") == [
        b"2026-07-28"
    ]  # another generation: the SDK judges
    assert header(b"1999-01-01") == [b"1999-01-01"]  # unknown: the SDK refuses it
