"""Calls on a session's event stream answered without the SDK's machinery: the same bytes as the SDK's.

`asgi_app()` with sessions and event streams (resumable or not) answers a
`tools/call` of a tool without a `Context`, `tools/list` and `ping` on a
session the SDK knows in the request's own task, and leaves everything
else to the SDK. The proof is differential: each sequence below runs
through an app with the direct path on and through one with it off (every
request to the SDK), and the responses must be the same status, the same
headers in the same order and the same body, once what is random in them
is named by its order of appearance instead:

- the session id (`mcp-session-id`, a random hex string per session);
- an event id (`TOKEN.NUMBER`: a random token per stream, so that one
  session cannot guess another's; the number is kept, it orders a replay).

The official MCP client then uses the app under uvicorn, and a client that
leaves mid-call and resumes with `Last-Event-ID` is compared the same way.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from typing import Any

import httpx2
import pytest

from tests.test_mcp_http import served, session
from toolkit import Context, ToolSet
from toolkit.providers import mcp

from . import mcp_client_tools, serve_tools

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


TOOLS = ToolSet(
    [
        *(
            mcp_client_tools.tools[name]
            for name in ("echo", "add", "point", "picture", "refuse", "tag")
        ),
        serve_tools.tools["explode"],
        extra["gated"],
        extra["busy"],
    ]
)


def run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, LIMIT))


def _message(number: Any, method: str, params: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": number, "method": method}
    if params is not None:
        message["params"] = params
    return message


def _call(
    number: Any, name: str, arguments: Any = None, **extra: Any
) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, **extra}
    if arguments is not None:
        params["arguments"] = arguments
    return _message(number, "tools/call", params)


def _init(version: str) -> dict[str, Any]:
    return _message(
        0,
        "initialize",
        {
            "protocolVersion": version,
            "capabilities": {"sampling": {}},
            "clientInfo": {"name": "test", "version": "1"},
        },
    )


def _cancel(number: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "notifications/cancelled",
        "params": {"requestId": number, "reason": "no longer needed"},
    }


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


class Names:
    """Random values named by their order of appearance, the same way on both paths."""

    def __init__(self) -> None:
        self.seen: dict[str, str] = {}

    def __call__(self, kind: str, value: str) -> str:
        return self.seen.setdefault(value, f"<{kind} {len(self.seen)}>")

    def text(self, raw: bytes) -> str:
        text = raw.decode()

        def event_id(found: re.Match[str]) -> str:
            token, _, number = found.group(1).rpartition(".")
            return f"id: {self('stream', token)}.{number}"

        text = re.sub(r"(?m)^id: (\S+)", event_id, text)
        return re.sub(r"[0-9a-f]{32}", lambda m: self("session", m.group(0)), text)


Answer = tuple[int, list[tuple[str, str]], str]


class Client:
    """Requests to one app, and what came back, normalised."""

    def __init__(self, http: Any) -> None:
        self.http = http
        self.names = Names()
        self.answers: list[Answer] = []

    async def post(
        self, body: Any, headers: dict[str, str], raw: bytes | None = None
    ) -> Any:
        reply = await self.http.post(
            "/mcp",
            content=raw if raw is not None else json.dumps(body).encode(),
            headers=headers,
        )
        self._keep(reply)
        return reply

    async def request(self, method: str, headers: dict[str, str]) -> Any:
        reply = await self.http.request(method, "/mcp", headers=headers)
        self._keep(reply)
        return reply

    def _keep(self, reply: Any) -> None:
        headers = [
            (name, self.names.text(value.encode()))
            for name, value in reply.headers.multi_items()
            if name != "date"
        ]
        self.answers.append(
            (reply.status_code, headers, self.names.text(reply.content))
        )

    async def open(self, version: str, **header: str) -> dict[str, str]:
        opened = await self.post(_init(version), ACCEPT)
        headers = {
            **ACCEPT,
            "mcp-session-id": opened.headers["mcp-session-id"],
            "mcp-protocol-version": version,
            **header,
        }
        await self.post(INITIALIZED, headers)
        return headers


Scenario = Callable[[Client, Any], Any]


async def _through(
    scenario: Scenario, direct: bool, **options: Any
) -> tuple[list[Answer], int]:
    app = mcp.asgi_app(TOOLS, max_body=4000, **options)
    app.direct_path.enabled = direct
    async with (
        app.lifespan(),
        httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=app),
            base_url="http://127.0.0.1:8000",
            timeout=LIMIT,
        ) as http,
    ):
        client = Client(http)
        await scenario(client, app)
    return client.answers, app.direct_path.answered


def _compare(scenario: Scenario, **options: Any) -> tuple[list[Answer], int]:
    """The answers of both paths (which must be equal), and how many the direct path gave."""
    GATES.clear()
    mine, answered = run(_through(scenario, True, **options))
    GATES.clear()
    theirs, none = run(_through(scenario, False, **options))
    assert none == 0
    assert len(mine) == len(theirs)
    for index, (one, other) in enumerate(zip(mine, theirs, strict=True)):
        assert one == other, index
    return mine, answered


RESUMABLE = [{}, {"resumable": False}]
IDS = ["resumable", "no-resume"]


def _events(text: str) -> list[dict[str, str]]:
    found = []
    for block in text.split("\r\n\r\n"):
        fields: dict[str, str] = {}
        for line in block.split("\r\n"):
            if line:
                name, _, value = line.partition(":")
                fields[name] = fields.get(name, "") + value.removeprefix(" ")
        if fields:
            found.append(fields)
    return found


def _json(answer: Answer) -> Any:
    data = [event["data"] for event in _events(answer[2]) if event.get("data")]
    return json.loads(data[-1])


# ------------------------------------------------------------ answered here


async def _calls(client: Client, app: Any) -> None:
    """Every kind of answer a call can get, for old and new protocol versions."""
    for version in (NEW, OLD):
        await _each_call(client, await client.open(version))


async def _each_call(client: Client, headers: dict[str, str]) -> None:
    await client.post(_message(1, "tools/list", {}), headers)
    await client.post(_message(2, "tools/list"), headers)
    await client.post(_message(3, "ping"), headers)
    await client.post(_call(4, "add", {"a": 20, "b": 22}), headers)
    await client.post(_call("five", "add", {"a": 1}), headers)  # a string id
    await client.post(_call(6, "add", {"a": 1, "b": -1}), headers)  # b >= 0
    await client.post(_call(7, "add", {"a": "one"}), headers)
    await client.post(_call(8, "add"), headers)  # no arguments
    await client.post(_call(9, "nope", {}), headers)  # an unknown tool
    await client.post(_message(10, "tools/call", {"arguments": {}}), headers)
    await client.post(_message(11, "tools/call"), headers)  # no params
    await client.post(_call(12, "refuse", {"reason": "no"}), headers)
    await client.post(_call(13, "explode", {"reason": "boom"}), headers)
    await client.post(_call(14, "point", {"x": 1, "y": 2}), headers)
    await client.post(_call(15, "picture", {}), headers)
    await client.post(_call(16, "tag", {"labels": {"k": "v"}}), headers)
    await client.post(_call(17, "echo", {"text": "caf\u00e9 \u2603\nline"}), headers)
    meta = {"_meta": {"progressToken": "p1"}}
    await client.post(_call(18, "echo", {"text": "hi"}, **meta), headers)
    await client.post(_call(19, "gated", {"label": "open"}), headers)
    # Sessions read the negotiated version where the header is missing.
    bare = {k: v for k, v in headers.items() if k != "mcp-protocol-version"}
    await client.post(_call(20, "add", {"a": 2}), bare)
    await client.post(
        _call(21, "add", {"a": 3}),
        dict(headers, **{"content-type": "application/json; charset=utf-8"}),
    )
    await client.post(_call(22, "add", {"a": 4}), dict(headers, accept="*/*"))
    await client.post(
        _call(23, "add", {"a": 5}), dict(headers, origin="http://localhost:3000")
    )


@pytest.mark.parametrize("options", RESUMABLE, ids=IDS)
def test_calls_get_the_same_bytes_as_through_the_sdk(options: dict[str, Any]) -> None:
    answers, answered = _compare(_calls_open, **options)
    assert answered == 2 * 23
    by_version = len(answers) // 2
    first = answers[2:by_version]
    assert all(status == 200 for status, _, _ in first)
    priming = _events(first[0][2])[0]
    if options:  # no event log: no ids, no priming event
        assert "id" not in priming
    else:
        assert (priming["data"], priming["retry"]) == ("", "1000")
    assert _json(first[3])["result"]["structuredContent"] == {"result": 42}
    assert _json(first[5])["result"]["isError"] is True
    assert _json(first[8])["error"]["code"] == -32602
    assert "id" not in _events(answers[by_version + 3][2])[0] or not options


async def _calls_open(client: Client, app: Any) -> None:
    GATES.setdefault("open", asyncio.Event()).set()
    await _calls(client, app)


def test_stateless_calls_get_the_same_bytes_as_through_the_sdk() -> None:
    async def scenario(client: Client, app: Any) -> None:
        GATES.setdefault("open", asyncio.Event()).set()
        for version in (NEW, OLD):
            headers = dict(ACCEPT, **{"mcp-protocol-version": version})
            await client.post(_init(version), ACCEPT)
            await client.post(INITIALIZED, headers)
            await _each_call(client, headers)
            # Left to the SDK: a tool with a Context, a cancellation, refusals.
            meta = {"_meta": {"progressToken": 7}}
            await client.post(_call(30, "busy", {"steps": 2}, **meta), headers)
            await client.post(_cancel(30), headers)
            await client.post(
                _call(31, "add"), dict(headers, accept="application/json")
            )
            await client.post(_call(32, "add"), dict(headers, host="evil.example"))
            await client.post(_message(33, "resources/list"), headers)

    answers, answered = _compare(scenario, stateless=True)
    assert answered == 2 * (2 + 23)
    assert all("mcp-session-id" not in dict(a[1]) for a in answers)
    assert _json(answers[0])["result"]["protocolVersion"] == NEW
    assert "id" not in _events(answers[2][2])[0]  # no event log without sessions
    busy = _events(answers[2 + 23][2])
    assert [json.loads(e["data"]).get("method") for e in busy] == [
        "notifications/progress",
        "notifications/progress",
        "notifications/message",
        None,
    ]


def test_a_stateless_client_that_leaves_mid_call_cancels_it() -> None:
    async def scenario(direct: bool) -> bool:
        GATES["alone"] = asyncio.Event()
        STARTED.discard("alone")
        CANCELLED.discard("alone")
        app = mcp.asgi_app(TOOLS, stateless=True)
        app.direct_path.enabled = direct
        async with (
            served(app) as base,
            httpx2.AsyncClient(base_url=base, timeout=LIMIT) as http,
        ):
            body = _call(4, "gated", {"label": "alone"})
            async with http.stream("POST", "/mcp", json=body, headers=ACCEPT):
                while "alone" not in STARTED:
                    await asyncio.sleep(0.01)
            while "alone" not in CANCELLED:
                await asyncio.sleep(0.02)
            return bool(app.direct_path.answered == int(direct))

    assert run(scenario(True))
    assert run(scenario(False))


# ------------------------------------------------------------ left to the SDK


async def _refused(client: Client, app: Any) -> None:
    """Requests that the direct path leaves to the SDK, whose answers they get."""
    headers = await client.open(NEW)
    call = _call(1, "add", {"a": 1})
    await client.post(call, dict(headers, host="evil.example:80"))
    await client.post(call, dict(headers, origin="https://evil.example"))
    await client.post(call, dict(headers, accept="application/json"))
    await client.post(call, dict(headers, accept="text/event-stream"))
    await client.post(call, dict(headers, **{"content-type": "text/plain"}))
    await client.post(call, dict(headers, **{"mcp-session-id": "f" * 32}))
    await client.post(call, {k: v for k, v in headers.items() if k != "mcp-session-id"})
    await client.post(call, dict(headers, **{"mcp-protocol-version": "1999-01-01"}))
    await client.post(call, headers, raw=b"{not json")
    await client.post(call, headers, raw=json.dumps([call]).encode())  # a batch
    await client.post(call, headers, raw=json.dumps(call).encode() + b" " * 4000)
    await client.post(_message(2, "resources/list", {}), headers)
    await client.post(_message(3, "logging/setLevel", {"level": "info"}), headers)
    await client.post(_cancel(99), headers)  # nothing of that id runs
    await client.post(
        _call(4, "busy", {"steps": 2}, _meta={"progressToken": 7}), headers
    )
    await client.request("GET", dict(headers, accept="application/json"))
    await client.request("PUT", headers)
    await client.request("DELETE", headers)
    await client.post(_call(5, "add", {"a": 1}), headers)  # the session has ended


def test_what_the_direct_path_refuses_gets_the_sdks_answer() -> None:
    answers, answered = _compare(_refused)
    assert answered == 0
    statuses = [status for status, _, _ in answers[2:]]
    assert statuses == [
        421, 403, 406, 406, 400, 404, 400, 400, 400, 400, 413, 200, 200, 202, 200,
        406, 405, 200, 404,
    ]  # fmt: skip
    busy = _events(answers[16][2])
    assert [json.loads(e["data"])["method"] for e in busy[1:-1]] == [
        "notifications/progress",
        "notifications/progress",
        "notifications/message",
    ]


def test_calls_between_initialize_and_initialized_are_answered_the_same_way() -> None:
    async def scenario(client: Client, app: Any) -> None:
        opened = await client.post(_init(NEW), ACCEPT)
        headers = dict(ACCEPT, **{"mcp-session-id": opened.headers["mcp-session-id"]})
        await client.post(_call(1, "add", {"a": 1}), headers)
        await client.post(_message(2, "ping"), headers)
        await client.post(INITIALIZED, headers)
        await client.post(_call(3, "add", {"a": 1}), headers)

    answers, answered = _compare(scenario)
    assert answered == 3
    # The SDK takes requests once `initialize` is answered.
    assert _json(answers[1])["result"]["structuredContent"] == {"result": 2}
    assert _json(answers[2])["result"] == {}
    assert _json(answers[4])["result"]["structuredContent"] == {"result": 2}


# ------------------------------------------------------------ cancellation


async def _cancelled(client: Client, app: Any) -> None:
    """A call cancelled by the client's `notifications/cancelled`, and one that ends meanwhile."""
    for version, label in ((NEW, "new"), (OLD, "old")):
        headers = await client.open(version)
        GATES[label] = asyncio.Event()
        STARTED.discard(label)
        call = asyncio.ensure_future(
            client.post(_call(1, "gated", {"label": label}), headers)
        )
        while label not in STARTED:
            assert not call.done()
            await asyncio.sleep(0.01)
        await client.post(_cancel(1), headers)
        await call
        assert label in CANCELLED
        await client.post(_call(2, "add", {"a": 1}), headers)  # the session goes on


@pytest.mark.parametrize("options", RESUMABLE, ids=IDS)
def test_a_cancelled_call_gets_the_same_answer_as_through_the_sdk(
    options: dict[str, Any],
) -> None:
    answers, answered = _compare(_cancelled, **options)
    assert answered == 4
    cancelled = [a for a in answers if "Request cancelled" in a[2]]
    assert len(cancelled) == 2
    assert _json(cancelled[0])["error"]["code"] == -32800


def test_a_call_in_flight_when_the_client_ends_the_session_stops_as_through_the_sdk() -> (
    None
):
    async def scenario(client: Client, app: Any) -> None:
        headers = await client.open(NEW)
        GATES["ended"] = asyncio.Event()
        STARTED.discard("ended")
        CANCELLED.discard("ended")
        call = asyncio.ensure_future(
            client.post(_call(1, "gated", {"label": "ended"}), headers)
        )
        while "ended" not in STARTED:
            await asyncio.sleep(0.01)
        await client.request("DELETE", headers)
        await call
        while "ended" not in CANCELLED:
            await asyncio.sleep(0.01)

    answers, answered = _compare(scenario)
    assert answered == 1
    assert [status for status, _, _ in answers] == [200, 202, 200, 200]
    (priming,) = _events(answers[3][2])  # the stream ends without an answer
    assert priming["data"] == ""


# ------------------------------------------------------------ leaving and resuming


async def _left_and_resumed(base: str, app: Any) -> list[Answer]:
    """A client that leaves mid-call and comes back with `Last-Event-ID`."""
    names = Names()
    answers: list[Answer] = []
    GATES["away"] = asyncio.Event()
    STARTED.discard("away")
    app.sessions.resume_window = LIMIT
    async with httpx2.AsyncClient(base_url=base, timeout=LIMIT) as http:
        client = Client(http)
        client.names = names
        headers = await client.open(NEW)
        async with http.stream(
            "POST", "/mcp", json=_call(3, "gated", {"label": "away"}), headers=headers
        ) as reply:
            async for line in reply.aiter_lines():
                if line.startswith("id: "):
                    last = line[4:]
                    break
        (known,) = app.sessions.known.values()
        while known.in_flight:  # until the server has seen the client leave
            await asyncio.sleep(0.02)
        resume = dict(headers, accept="text/event-stream", **{"last-event-id": last})
        async with http.stream("GET", "/mcp", headers=resume) as reply:
            text = ""
            async for chunk in reply.aiter_text():
                GATES["away"].set()
                text += chunk
                if '"result"' in text and text.endswith("\r\n\r\n"):
                    break
            answers.append((reply.status_code, [], names.text(text.encode())))
        answers.extend(client.answers)
    return answers


def test_a_client_that_leaves_and_resumes_gets_the_same_events() -> None:
    async def through(direct: bool) -> tuple[list[Answer], int]:
        app = mcp.asgi_app(TOOLS)
        app.direct_path.enabled = direct
        async with served(app) as base:
            return await _left_and_resumed(base + "", app), app.direct_path.answered

    mine, answered = run(through(True))
    theirs, _ = run(through(False))
    assert answered == 1
    assert mine == theirs
    assert "away" not in CANCELLED
    resumed = _events(mine[0][2])
    assert (
        json.loads(resumed[-1]["data"])["result"]["content"][0]["text"] == "done away"
    )


def test_a_client_that_leaves_and_does_not_come_back_cancels_the_call() -> None:
    async def scenario(resumable: bool) -> bool:
        GATES["gone"] = asyncio.Event()
        STARTED.discard("gone")
        CANCELLED.discard("gone")
        app = mcp.asgi_app(TOOLS, resumable=resumable)
        if resumable:
            app.sessions.resume_window = 0.2
        async with (
            served(app) as base,
            httpx2.AsyncClient(base_url=base, timeout=LIMIT) as http,
        ):
            client = Client(http)
            headers = await client.open(NEW)
            async with http.stream(
                "POST",
                "/mcp",
                json=_call(4, "gated", {"label": "gone"}),
                headers=headers,
            ):
                while "gone" not in STARTED:
                    await asyncio.sleep(0.01)
            while "gone" not in CANCELLED:
                await asyncio.sleep(0.02)
            assert app.direct_path.answered == 1
            assert not app.direct_path.calls
            return True

    assert run(scenario(True))
    assert run(scenario(False))


# ------------------------------------------------------------ the session's state


def test_a_direct_call_holds_the_session_open_for_the_idle_timeout() -> None:
    async def scenario(client: Client, app: Any) -> None:
        headers = await client.open(NEW)
        (transport,) = app.manager._server_instances.values()
        GATES["idle"] = asyncio.Event()
        STARTED.discard("idle")
        call = asyncio.ensure_future(
            client.post(_call(1, "gated", {"label": "idle"}), headers)
        )
        while "idle" not in STARTED:
            await asyncio.sleep(0.01)
        assert transport._requests_in_flight == 1
        assert transport.idle_scope.deadline == float("inf")
        (known,) = app.sessions.known.values()
        assert known.in_flight == 1
        assert app.in_flight == 1
        GATES["idle"].set()
        await call
        assert transport._requests_in_flight == 0
        assert transport.idle_scope.deadline < float("inf")
        assert known.in_flight == 0

    _compare(scenario, session_idle_timeout=300)


def test_the_direct_path_is_off_with_json_responses() -> None:
    assert mcp.asgi_app(TOOLS, json_response=True).direct_path is None


def test_a_polled_stream_ends_and_resumes_as_through_the_sdk() -> None:
    """With SSE polling, the stream ends while the tool runs; the client resumes for the answer."""

    async def through(direct: bool) -> tuple[list[Answer], int]:
        GATES["poll"] = asyncio.Event()
        STARTED.discard("poll")
        app = mcp.asgi_app(TOOLS, sse_poll=0.05)
        app.direct_path.enabled = direct
        async with (
            served(app) as base,
            httpx2.AsyncClient(base_url=base, timeout=LIMIT) as http,
        ):
            client = Client(http)
            headers = await client.open(NEW)
            ended = await client.post(_call(7, "gated", {"label": "poll"}), headers)
            (priming,) = _events(ended.text)  # the stream ended before the answer
            GATES["poll"].set()
            (session,) = app.sessions.known.values()
            while app.sessions.log.resumed(session, "7") is not None:
                await asyncio.sleep(0.01)  # until the answer is stored
            resume = dict(
                headers, accept="text/event-stream", **{"last-event-id": priming["id"]}
            )
            async with http.stream("GET", "/mcp", headers=resume) as reply:
                text = ""
                async for chunk in reply.aiter_text():
                    text += chunk
                    if '"result"' in text and text.endswith("\r\n\r\n"):
                        break
            client.answers.append(
                (reply.status_code, [], client.names.text(text.encode()))
            )
            await client.post(_call(8, "add", {"a": 1}), headers)  # answered at once
        return client.answers, app.direct_path.answered

    mine, answered = run(through(True))
    theirs, _ = run(through(False))
    assert answered == 2
    assert mine == theirs
    (answer,) = [e for e in _events(mine[-2][2]) if e.get("data")]
    assert json.loads(answer["data"])["result"]["content"][0]["text"] == "done poll"


# ------------------------------------------------------------ the official client


def test_the_official_client_calls_through_the_direct_path() -> None:
    async def scenario() -> int:
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
        return int(app.direct_path.answered)

    assert run(scenario()) == 2 + 3 + 20
