"""What the served MCP endpoint answers, request by request: the SDK's transport around toolkit's handlers.

`asgi_app` is driven in process (httpx2's ASGI transport) or under uvicorn
on 127.0.0.1, with plain HTTP requests read as a client reads them (status,
headers, the JSON-RPC messages of a JSON body or an event stream), and with
the official client. Sessions with event streams (resumable or not),
stateless event streams, and stateless JSON responses each get every kind
of request: calls that succeed or fail, unknown tools, cancellations,
clients that leave and come back, refusals.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import operator
import pathlib
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import ImageContent, TextContent

from tests.servers import free_port, wait_for_port
from tests.test_mcp_http import served, session
from toolkit import Context, ToolResult, ToolSet, mcp, tool

from . import mcp_client_tools, serve_tools

ROOT = pathlib.Path(__file__).parent.parent
LIMIT = 60  # seconds, at most, for anything a test waits on
NEW = "2025-11-25"  # the client can resume: a priming event starts each stream
OLD = "2025-06-18"
ACCEPT = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
}
GATES: dict[str, asyncio.Event] = {}
STARTED: set[str] = set()
CANCELLED: set[str] = set()

extra = ToolSet()


@extra.tool
async def gated(label: str) -> str:
    """Answer once the test opens the gate named `label`.

    Args:
        label: The gate, and the answer's text.
    """
    STARTED.add(label)
    try:
        await GATES.setdefault(label, asyncio.Event()).wait()
    except asyncio.CancelledError:
        CANCELLED.add(label)
        raise
    return f"done {label}"


@extra.tool
async def busy(steps: int, ctx: Context) -> str:
    """Report progress and log, then answer.

    Args:
        steps: How many steps to report.
    """
    for step in range(steps):
        await ctx.report_progress(step + 1, total=steps, message=f"step {step + 1}")
    await ctx.log("info", "busy done", steps=steps)
    return f"{steps} steps"


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
        extra["gated"],
        extra["busy"],
    ]
)


def run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, LIMIT))


def reset(label: str) -> None:
    GATES[label] = asyncio.Event()
    STARTED.discard(label)
    CANCELLED.discard(label)


async def eventually(predicate: Callable[[], bool]) -> None:
    """Until `predicate()` is true (the test's time limit ends a wait in vain)."""
    while not predicate():
        await asyncio.sleep(0.01)


def message(number: Any, method: str, params: Any = None) -> dict[str, Any]:
    sent: dict[str, Any] = {"jsonrpc": "2.0", "id": number, "method": method}
    if params is not None:
        sent["params"] = params
    return sent


def call(number: Any, name: str, arguments: Any = None, **more: Any) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, **more}
    if arguments is not None:
        params["arguments"] = arguments
    return message(number, "tools/call", params)


def init(version: str, number: int = 0) -> dict[str, Any]:
    return message(
        number,
        "initialize",
        {
            "protocolVersion": version,
            "capabilities": {"sampling": {}, "elicitation": {}},
            "clientInfo": {"name": "test", "version": "1"},
        },
    )


def cancel(number: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": number, "reason": "no longer needed"},
    }


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}

Answer = tuple[int, list[tuple[str, str]], str]
"""A response: status, headers, body text."""


class Client:
    """Requests to one app, and what came back."""

    def __init__(self, http: Any) -> None:
        self.http = http
        self.answers: list[Answer] = []

    async def post(
        self, body: Any, headers: dict[str, str], raw: bytes | None = None
    ) -> Any:
        content = raw if raw is not None else json.dumps(body).encode()
        reply = await self.http.post("/mcp", content=content, headers=headers)
        self._keep(reply)
        return reply

    async def request(self, method: str, headers: dict[str, str]) -> Any:
        reply = await self.http.request(method, "/mcp", headers=headers)
        self._keep(reply)
        return reply

    def _keep(self, reply: Any) -> None:
        headers = list(reply.headers.multi_items())
        self.answers.append((reply.status_code, headers, reply.text))

    async def open(self, version: str, **header: str) -> dict[str, str]:
        opened = await self.post(init(version), ACCEPT)
        headers = {
            **ACCEPT,
            "mcp-session-id": opened.headers["mcp-session-id"],
            "mcp-protocol-version": version,
            **header,
        }
        await self.post(INITIALIZED, headers)
        return headers


def in_process(app: Any, **options: Any) -> Any:
    return httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=app, **options),
        base_url="http://127.0.0.1:8000",
        timeout=LIMIT,
    )


Scenario = Callable[[Client, Any], Any]


async def through(scenario: Scenario, **options: Any) -> list[Answer]:
    """The answers that an app with `options` gives to `scenario`'s requests."""
    app = mcp.asgi_app(TOOLS, max_body=4000, **options)
    async with app.lifespan(), in_process(app) as http:
        client = Client(http)
        await scenario(client, app)
    return client.answers


def events(text: str) -> list[dict[str, str]]:
    """The server-sent events of a body, as dicts of their fields."""
    found = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.split("\n"):
            if line:
                name, _, value = line.partition(":")
                fields[name] = fields.get(name, "") + value.removeprefix(" ")
        if fields:
            found.append(fields)
    return found


def last_json(answer: Answer) -> Any:
    data = [event["data"] for event in events(answer[2]) if event.get("data")]
    return json.loads(data[-1])


# ------------------------------------------------------------ sessions, event streams

RESUMABLE = [{}, {"resumable": False}]
IDS = ["resumable", "no-resume"]


async def each_call(client: Client, headers: dict[str, str]) -> None:
    """Every kind of answer a call can get."""
    await client.post(message(1, "tools/list", {}), headers)
    await client.post(message(2, "tools/list"), headers)
    await client.post(message(3, "ping"), headers)
    await client.post(call(4, "add", {"a": 20, "b": 22}), headers)
    await client.post(call("five", "add", {"a": 1}), headers)  # a string id
    await client.post(call(6, "add", {"a": 1, "b": -1}), headers)  # b >= 0
    await client.post(call(7, "add", {"a": "one"}), headers)
    await client.post(call(8, "add"), headers)  # no arguments
    await client.post(call(9, "nope", {}), headers)  # an unknown tool
    await client.post(message(10, "tools/call", {"arguments": {}}), headers)
    await client.post(message(11, "tools/call"), headers)  # no params
    await client.post(call(12, "refuse", {"reason": "no"}), headers)
    await client.post(call(13, "explode", {"reason": "boom"}), headers)
    await client.post(call(14, "point", {"x": 1, "y": 2}), headers)
    await client.post(call(15, "picture", {}), headers)
    await client.post(call(16, "tag", {"labels": {"k": "v"}}), headers)
    await client.post(call(17, "echo", {"text": "caf\u00e9 \u2603\nline"}), headers)
    meta = {"_meta": {"progressToken": "p1"}}
    await client.post(call(18, "echo", {"text": "hi"}, **meta), headers)
    await client.post(call(19, "gated", {"label": "open"}), headers)
    # Sessions read the negotiated version where the header is missing.
    bare = {k: v for k, v in headers.items() if k != "mcp-protocol-version"}
    await client.post(call(20, "add", {"a": 2}), bare)
    await client.post(
        call(21, "add", {"a": 3}),
        dict(headers, **{"content-type": "application/json; charset=utf-8"}),
    )
    await client.post(call(22, "add", {"a": 4}), dict(headers, accept="*/*"))
    await client.post(
        call(23, "add", {"a": 5}), dict(headers, origin="http://localhost:3000")
    )


async def calls_in_sessions(client: Client, app: Any) -> None:
    GATES.setdefault("open", asyncio.Event()).set()
    for version in (NEW, OLD):
        await each_call(client, await client.open(version))


@pytest.mark.parametrize("options", RESUMABLE, ids=IDS)
def test_calls_on_a_sessions_event_streams_get_their_answers(
    options: dict[str, Any],
) -> None:
    answers = run(through(calls_in_sessions, **options))
    by_version = len(answers) // 2
    first = answers[2:by_version]
    assert [status for status, _, _ in first] == [200] * 23
    priming = events(first[0][2])[0]
    if options:  # no event log: no ids, no priming event
        assert "id" not in priming
    else:
        assert (priming["data"], priming["retry"]) == ("", "1000")
    assert last_json(first[3])["result"]["structuredContent"] == {"result": 42}
    assert last_json(first[4])["id"] == "five"
    assert last_json(first[5])["result"]["isError"] is True
    assert last_json(first[8])["error"]["code"] == -32602
    assert last_json(first[17])["result"]["content"][0]["text"] == "hi"
    assert last_json(first[19])["result"]["structuredContent"] == {"result": 3}
    (only,) = events(answers[by_version + 3][2])  # 2025-06-18: no priming event
    assert json.loads(only["data"])["result"]["tools"]


def test_stateless_event_streams_answer_each_call() -> None:
    async def scenario(client: Client, app: Any) -> None:
        GATES.setdefault("open", asyncio.Event()).set()
        for version in (NEW, OLD):
            headers = dict(ACCEPT, **{"mcp-protocol-version": version})
            await client.post(init(version), ACCEPT)
            await client.post(INITIALIZED, headers)
            await each_call(client, headers)
            meta = {"_meta": {"progressToken": 7}}
            await client.post(call(30, "busy", {"steps": 2}, **meta), headers)
            await client.post(cancel(30), headers)
            await client.post(call(31, "add"), dict(headers, accept="application/json"))
            await client.post(call(32, "add"), dict(headers, host="evil.example"))
            await client.post(message(33, "resources/list"), headers)

    answers = run(through(scenario, stateless=True))
    assert all("mcp-session-id" not in dict(a[1]) for a in answers)
    assert last_json(answers[0])["result"]["protocolVersion"] == NEW
    assert "id" not in events(answers[2][2])[0]  # no event log without sessions
    assert last_json(answers[5])["result"]["structuredContent"] == {"result": 42}
    busy = events(answers[2 + 23][2])
    assert [json.loads(e["data"]).get("method") for e in busy] == [
        "notifications/progress",
        "notifications/progress",
        "notifications/message",
        None,
    ]
    assert [a[0] for a in answers[2 + 24 : 2 + 28]] == [202, 406, 421, 200]


def test_a_stateless_client_that_leaves_mid_call_cancels_it() -> None:
    async def scenario() -> None:
        reset("alone")
        app = mcp.asgi_app(TOOLS, stateless=True)
        async with (
            served(app) as base,
            httpx2.AsyncClient(base_url=base, timeout=LIMIT) as http,
        ):
            body = call(4, "gated", {"label": "alone"})
            async with http.stream("POST", "/mcp", json=body, headers=ACCEPT):
                await eventually(lambda: "alone" in STARTED)
            await eventually(lambda: "alone" in CANCELLED)

    run(scenario())


async def refused(client: Client, app: Any) -> None:
    """Requests that a check refuses, and the others around them."""
    headers = await client.open(NEW)
    add = call(1, "add", {"a": 1})
    await client.post(add, dict(headers, host="evil.example:80"))
    await client.post(add, dict(headers, origin="https://evil.example"))
    await client.post(add, dict(headers, accept="application/json"))
    await client.post(add, dict(headers, accept="text/event-stream"))
    await client.post(add, dict(headers, **{"content-type": "text/plain"}))
    await client.post(add, dict(headers, **{"mcp-session-id": "f" * 32}))
    await client.post(add, {k: v for k, v in headers.items() if k != "mcp-session-id"})
    await client.post(add, dict(headers, **{"mcp-protocol-version": "1999-01-01"}))
    await client.post(add, headers, raw=b"{not json")
    await client.post(add, headers, raw=json.dumps([add]).encode())  # a batch
    await client.post(add, headers, raw=json.dumps(add).encode() + b" " * 4000)
    await client.post(message(2, "resources/list", {}), headers)
    await client.post(message(3, "logging/setLevel", {"level": "info"}), headers)
    await client.post(cancel(99), headers)  # nothing of that id runs
    await client.post(
        call(4, "busy", {"steps": 2}, _meta={"progressToken": 7}), headers
    )
    await client.request("GET", dict(headers, accept="application/json"))
    await client.request("PUT", headers)
    await client.request("DELETE", headers)
    await client.post(call(5, "add", {"a": 1}), headers)  # the session has ended


def test_what_a_check_refuses_gets_its_status() -> None:
    answers = run(through(refused))
    statuses = [status for status, _, _ in answers[2:]]
    assert statuses == [
        421, 403, 406, 406, 400, 404, 400, 400, 400, 400, 413, 200, 200, 202, 200,
        406, 405, 200, 404,
    ]  # fmt: skip
    busy = events(answers[16][2])
    assert [json.loads(e["data"])["method"] for e in busy[1:-1]] == [
        "notifications/progress",
        "notifications/progress",
        "notifications/message",
    ]


def test_calls_between_initialize_and_initialized_are_answered() -> None:
    async def scenario(client: Client, app: Any) -> None:
        opened = await client.post(init(NEW), ACCEPT)
        headers = dict(ACCEPT, **{"mcp-session-id": opened.headers["mcp-session-id"]})
        await client.post(call(1, "add", {"a": 1}), headers)
        await client.post(message(2, "ping"), headers)
        await client.post(INITIALIZED, headers)
        await client.post(call(3, "add", {"a": 1}), headers)

    answers = run(through(scenario))
    # The SDK takes requests once `initialize` is answered.
    assert last_json(answers[1])["result"]["structuredContent"] == {"result": 2}
    assert last_json(answers[2])["result"] == {}
    assert last_json(answers[4])["result"]["structuredContent"] == {"result": 2}


# ------------------------------------------------------------ cancellation, leaving, resuming


async def cancelled_calls(client: Client, app: Any) -> None:
    """A call cancelled by the client's `notifications/cancelled`, then the session goes on."""
    for version, label in ((NEW, "new"), (OLD, "old")):
        headers = await client.open(version)
        reset(label)
        pending = asyncio.ensure_future(
            client.post(call(1, "gated", {"label": label}), headers)
        )
        await eventually(functools.partial(operator.contains, STARTED, label))
        await client.post(cancel(1), headers)
        await pending
        assert label in CANCELLED
        await client.post(call(2, "add", {"a": 1}), headers)


@pytest.mark.parametrize("options", RESUMABLE, ids=IDS)
def test_a_cancelled_call_gets_the_request_cancelled_error(
    options: dict[str, Any],
) -> None:
    answers = run(through(cancelled_calls, **options))
    stopped = [a for a in answers if "Request cancelled" in a[2]]
    assert len(stopped) == 2
    assert last_json(stopped[0])["error"]["code"] == -32800
    assert last_json(answers[-1])["result"]["structuredContent"] == {"result": 2}


def test_a_call_in_flight_when_the_client_ends_the_session_stops() -> None:
    async def scenario(client: Client, app: Any) -> None:
        headers = await client.open(NEW)
        reset("ended")
        pending = asyncio.ensure_future(
            client.post(call(1, "gated", {"label": "ended"}), headers)
        )
        await eventually(lambda: "ended" in STARTED)
        await client.request("DELETE", headers)
        await pending
        await eventually(lambda: "ended" in CANCELLED)

    answers = run(through(scenario))
    assert [status for status, _, _ in answers] == [200, 202, 200, 200]
    (priming,) = events(answers[3][2])  # the stream ends without an answer
    assert priming["data"] == ""


async def read_until_answer(http: Any, headers: dict[str, str], last: str) -> str:
    """The text of a GET with `Last-Event-ID`, up to the answer's event."""
    resume = dict(headers, accept="text/event-stream", **{"last-event-id": last})
    text = ""
    async with http.stream("GET", "/mcp", headers=resume) as reply:
        assert reply.status_code == 200
        async for chunk in reply.aiter_text():
            GATES["away"].set()
            text += chunk
            if '"result"' in text and text.endswith("\r\n\r\n"):
                break
    return text


def test_a_client_that_leaves_and_resumes_gets_the_answer() -> None:
    async def scenario() -> str:
        reset("away")
        app = mcp.asgi_app(TOOLS)
        app.sessions.resume_window = LIMIT
        async with (
            served(app) as base,
            httpx2.AsyncClient(base_url=base, timeout=LIMIT) as http,
        ):
            headers = await Client(http).open(NEW)
            body = call(3, "gated", {"label": "away"})
            async with http.stream("POST", "/mcp", json=body, headers=headers) as reply:
                async for line in reply.aiter_lines():
                    if line.startswith("id: "):
                        last = line[4:]
                        break
            (known,) = app.sessions.known.values()
            await eventually(lambda: not known.in_flight)  # the server saw it leave
            return await read_until_answer(http, headers, last)

    text = run(scenario())
    assert "away" not in CANCELLED
    answer = [e for e in events(text) if e.get("data")][-1]
    assert json.loads(answer["data"])["result"]["content"][0]["text"] == "done away"


@pytest.mark.parametrize("resumable", [True, False])
def test_a_client_that_leaves_and_does_not_come_back_cancels_the_call(
    resumable: bool,
) -> None:
    async def scenario() -> None:
        reset("gone")
        app = mcp.asgi_app(TOOLS, resumable=resumable)
        app.sessions.resume_window = 0.2
        async with (
            served(app) as base,
            httpx2.AsyncClient(base_url=base, timeout=LIMIT) as http,
        ):
            headers = await Client(http).open(NEW)
            body = call(4, "gated", {"label": "gone"})
            async with http.stream("POST", "/mcp", json=body, headers=headers):
                await eventually(lambda: "gone" in STARTED)
            await eventually(lambda: "gone" in CANCELLED)

    run(scenario())


def test_a_running_call_holds_its_session_open_past_the_idle_timeout() -> None:
    async def scenario(client: Client, app: Any) -> None:
        headers = await client.open(NEW)
        reset("idle")
        pending = asyncio.ensure_future(
            client.post(call(1, "gated", {"label": "idle"}), headers)
        )
        await eventually(lambda: "idle" in STARTED)
        await asyncio.sleep(0.6)  # twice the idle timeout, with the call running
        await client.post(message(2, "ping"), headers)
        GATES["idle"].set()
        await pending

    answers = run(through(scenario, session_idle_timeout=0.3))
    assert last_json(answers[2])["result"] == {}  # the ping: the session was there
    assert last_json(answers[3])["result"]["content"][0]["text"] == "done idle"


def test_a_polled_stream_ends_and_the_client_resumes_for_the_answer() -> None:
    async def scenario() -> tuple[str, Any]:
        reset("away")
        app = mcp.asgi_app(TOOLS, sse_poll=0.05)
        async with (
            served(app) as base,
            httpx2.AsyncClient(base_url=base, timeout=LIMIT) as http,
        ):
            client = Client(http)
            headers = await client.open(NEW)
            ended = await client.post(call(7, "gated", {"label": "away"}), headers)
            (priming,) = events(ended.text)  # the stream ended before the answer
            GATES["away"].set()
            (known,) = app.sessions.known.values()
            await eventually(lambda: known.streams["7"].answered)
            text = await read_until_answer(http, headers, priming["id"])
            after = await client.post(call(8, "add", {"a": 1}), headers)
            return text, last_json((200, [], after.text))

    text, after = run(scenario())
    (answer,) = [e for e in events(text) if e.get("data")]
    assert json.loads(answer["data"])["result"]["content"][0]["text"] == "done away"
    assert after["result"]["structuredContent"] == {"result": 2}


def test_the_official_client_calls_on_event_streams() -> None:
    async def scenario() -> None:
        app = mcp.asgi_app(TOOLS)
        steps: list[float] = []

        async def on_progress(
            progress: float, total: float | None, message: str | None
        ) -> None:
            steps.append(progress)

        async with served(app) as base, session(base + "/mcp") as client:
            await client.send_ping()
            listed = await client.list_tools()
            assert {"add", "busy", "gated"} <= {t.name for t in listed.tools}
            added = await client.call_tool("add", {"a": 2, "b": 3})
            assert (added.is_error, added.structured_content) == (False, {"result": 5})
            refused = await client.call_tool("refuse", {"reason": "no"})
            assert refused.is_error
            bad = await client.call_tool("add", {"a": 1, "b": -1})
            assert bad.is_error
            busy = await client.call_tool(
                "busy", {"steps": 3}, progress_callback=on_progress
            )
            assert not busy.is_error
            assert steps == [1, 2, 3]
            results = await asyncio.gather(
                *(client.call_tool("add", {"a": n}) for n in range(20))
            )
            assert [r.structured_content for r in results] == [
                {"result": n + 1} for n in range(20)
            ]

    run(scenario())


# ------------------------------------------------------------ stateless JSON responses

VERSION = "2025-06-18"
Exchange = tuple[str, dict[str, str], bytes]
"""An HTTP request: method, headers, body."""


def raw(sent: dict[str, Any]) -> bytes:
    return json.dumps(sent).encode()


def json_requests() -> list[Exchange]:
    """Every kind of request a stateless JSON server answers."""
    headers = dict(ACCEPT, **{"mcp-protocol-version": VERSION})
    old = dict(ACCEPT, **{"mcp-protocol-version": "2025-03-26"})
    meta = {"_meta": {"progressToken": "p1"}}
    return [
        ("POST", ACCEPT, raw(init(VERSION, 1))),  # no version header yet
        ("POST", ACCEPT, raw(init("1999-01-01", 2))),  # a version the server lacks
        ("POST", headers, raw(init("2025-03-26", 3))),
        ("POST", headers, raw(INITIALIZED)),
        ("POST", headers, raw(message(4, "ping"))),
        ("POST", headers, raw(message(6, "tools/list", {}))),
        ("POST", old, raw(message(8, "tools/list", {}))),
        ("POST", headers, raw(call(10, "add", {"a": 20, "b": 22}))),
        ("POST", headers, raw(call(11, "add", {"a": 1, "b": -1}))),  # b >= 0
        ("POST", headers, raw(call(16, "nope", {}))),  # an unknown tool
        ("POST", headers, raw(call(18, "point", {"x": 1, "y": 2}))),
        ("POST", headers, raw(call(19, "picture", {}))),
        ("POST", headers, raw(call(21, "explode", {"reason": "boom"}))),
        ("POST", headers, raw(call(24, "accents", {"name": "Zoë"}))),
        ("POST", headers, raw(call(25, "unsendable", {}))),
        ("POST", headers, raw(call(26, "index", {"path": "."}, **meta))),  # asks
        ("POST", headers, raw(message(28, "tools/call", {"arguments": {}}))),
    ]


async def exchange(client: Any, request: Exchange) -> tuple[int, Any]:
    """What a client reads of the answer: status, and the JSON (or the text)."""
    method, headers, body = request
    reply = await client.request(method, "/mcp", headers=headers, content=body)
    try:
        content: Any = reply.json() if reply.content else None
    except ValueError:
        content = reply.text
    return reply.status_code, content


def test_stateless_json_answers_each_kind_of_request() -> None:
    async def scenario() -> list[tuple[int, Any]]:
        app = mcp.asgi_app(TOOLS, stateless=True, json_response=True, max_body=2000)
        async with app.lifespan(), in_process(app) as client:
            return [await exchange(client, request) for request in json_requests()]

    requests = json_requests()
    answers = run(scenario())
    by_body = {
        body: answer for (_, _, body), answer in zip(requests, answers, strict=True)
    }

    def result(sent: dict[str, Any]) -> Any:
        status, content = by_body[raw(sent)]
        assert status == 200, content
        return content.get("result", content.get("error"))

    assert result(init(VERSION, 1))["protocolVersion"] == VERSION
    assert result(init("1999-01-01", 2))["protocolVersion"] == NEW
    assert result(message(4, "ping")) == {}
    added = result(call(10, "add", {"a": 20, "b": 22}))
    assert added["structuredContent"] == {"result": 42}
    assert result(call(11, "add", {"a": 1, "b": -1}))["isError"] is True
    assert result(call(16, "nope", {}))["code"] == -32602
    assert result(call(19, "picture", {}))["content"][1]["type"] == "image"
    assert result(call(21, "explode", {"reason": "boom"}))["isError"] is True
    greeting = result(call(24, "accents", {"name": "Zoë"}))
    assert greeting["structuredContent"] == {"greeting": "¡Hola, Zoë! ✓"}
    asked = result(call(26, "index", {"path": "."}, _meta={"progressToken": "p1"}))
    assert asked["isError"] is True
    assert "cannot carry a request" in asked["content"][0]["text"]
    assert result(message(28, "tools/call", {"arguments": {}}))["code"] == -32602
    assert by_body[raw(INITIALIZED)] == (202, None)
    point = result(call(18, "point", {"x": 1, "y": 2}))
    assert point["structuredContent"] == {"x": 1, "y": 2}
    unsent = result(call(25, "unsendable", {}))
    assert unsent["isError"] is True
    assert "cannot be sent over MCP" in unsent["content"][0]["text"]


def test_auth_host_checks_and_the_body_limit_come_before_any_answer() -> None:
    async def scenario() -> None:
        app = mcp.asgi_app(
            TOOLS, stateless=True, json_response=True, auth="tk-1", max_body=2000
        )
        ping = raw(message(1, "ping"))
        async with app.lifespan(), in_process(app) as client:
            refused = await client.post("/mcp", content=ping, headers=ACCEPT)
            assert refused.status_code == 401
            token = dict(ACCEPT, authorization="Bearer tk-1")
            foreign = await client.post(
                "/mcp", content=ping, headers=dict(token, host="evil.example")
            )
            assert foreign.status_code == 421
            big = await client.post("/mcp", content=ping + b" " * 2000, headers=token)
            assert big.status_code == 413
            accepted = await client.post("/mcp", content=ping, headers=token)
            assert (accepted.status_code, accepted.json()["result"]) == (200, {})
            health = await client.get("/healthz")
            assert health.status_code == 200

    run(scenario())


@contextlib.contextmanager
def serving(*flags: str) -> Iterator[str]:
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


@contextlib.asynccontextmanager
async def official(url: str) -> AsyncIterator[ClientSession]:
    async with (
        httpx2.AsyncClient(timeout=LIMIT) as http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write) as client,
    ):
        await client.initialize()
        yield client


def test_the_official_client_lists_and_calls_tools_of_a_stateless_json_server() -> None:
    async def scenario(url: str) -> None:
        async with official(url) as client:
            await client.send_ping()
            listed = await client.list_tools()
            names = {t.name for t in listed.tools}
            assert {"add", "point", "picture", "refuse"} <= names
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

    with serving("--stateless", "--json-response") as url:
        run(scenario(url))
