"""The MCP server over streamable HTTP against hostile requests: it answers each with an error the client can act on.

Every request goes to the app in this process (httpx's ASGI transport, the
app's own lifespan), so nothing listens anywhere. What a test asserts is
the answer, and that no tool ran for a request the server refused; every
wait is a bounded number of looks.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import pathlib
import select
from collections.abc import AsyncIterator
from typing import Annotated, Any

import httpx2
import pytest
from mcp.server.auth.provider import AccessToken

from tests.servers import finished, initialize, stdio_server
from toolkit import Context, Param, ToolSet, mcp
from toolkit.mcp._tasks import EXTENSION

LIMIT = 60  # seconds, at most, for anything a test waits on
VERSION = "2026-07-28"

tools = ToolSet()
ran: list[str] = []
gates: dict[str, asyncio.Event] = {}


@tools.tool
def echo(word: str) -> str:
    """Say a word back.

    Args:
        word: The word.
    """
    ran.append(f"echo {word}")
    return word


@tools.tool
def weather(region: Annotated[str, Param(header="Region")]) -> str:
    """The weather of a region.

    Args:
        region: Where.
    """
    ran.append(f"weather {region}")
    return f"sunny in {region}"


@tools.tool
async def ask_name(ctx: Context) -> str:
    """Ask the user's name."""
    ran.append("ask_name")
    form = {"type": "object", "properties": {"name": {"type": "string"}}}
    answer = await ctx.elicit("Your name?", form, key="name")
    return f"Hello, {(answer.data or {}).get('name')}!"


@tools.tool
async def chatty(ctx: Context) -> str:
    """Log a record at each of two levels."""
    ran.append("chatty")
    await ctx.log("info", "some news")
    await ctx.log("error", "bad news")
    return "said"


@tools.tool(task="optional")
async def held(ctx: Context, ask: bool = False) -> str:
    """Wait until the test lets it go, then ask for a confirmation if told to.

    Args:
        ask: Whether to ask.
    """
    ran.append("held")
    await gates["held"].wait()
    if not ask:
        return "let go"
    form = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    answer = await ctx.elicit("Sure?", form, key="sure")
    return f"ok={(answer.data or {}).get('ok')}"


@tools.tool(task="required")
async def only_a_task() -> str:
    """Wait until the test lets it go; callable as a task only."""
    ran.append("only_a_task")
    await gates["held"].wait()
    return "let go"


def _meta(extension: bool = True) -> dict[str, Any]:
    caps: dict[str, Any] = {"elicitation": {}}
    if extension:
        caps["extensions"] = {EXTENSION: {}}
    return {
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": caps,
    }


class Peer:
    """A 2026-07-28 client that sends what it is told, as raw JSON-RPC over HTTP."""

    def __init__(self, http: httpx2.AsyncClient, **headers: str) -> None:
        self.http = http
        self.headers = headers
        self.sent = 0

    async def post(
        self, body: Any, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        """POST `body` (bytes as they are, else as JSON); the status and the JSON answer."""
        sent = {
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": VERSION,
            **self.headers,
            **(headers or {}),
        }
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        reply = await self.http.post("/mcp", content=content, headers=sent)
        return reply.status_code, reply.json()

    async def send(
        self, method: str, headers: dict[str, str] | None = None, **params: Any
    ) -> tuple[int, Any]:
        """A request as a client sends it: `Mcp-Method` and `Mcp-Name` headers that match the body."""
        self.sent += 1
        name = params.get("name") or params.get("taskId")
        matching = {"mcp-method": method, **({"mcp-name": name} if name else {})}
        body = {
            "jsonrpc": "2.0",
            "id": self.sent,
            "method": method,
            "params": {"_meta": _meta(), **params},
        }
        return await self.post(body, {**matching, **(headers or {})})

    async def result(self, method: str, **params: Any) -> dict[str, Any]:
        status, answer = await self.send(method, **params)
        assert status == 200, answer
        return answer["result"]  # type: ignore[no-any-return]

    async def until(self, task_id: str, status: str) -> dict[str, Any]:
        for _ in range(400):  # 400 looks at most
            task = await self.result("tasks/get", taskId=task_id)
            if task["status"] == status:
                return task
            await asyncio.sleep(0.02)
        raise AssertionError(f"task {task_id} never became {status}: {task}")


@contextlib.asynccontextmanager
async def serving(**options: Any) -> AsyncIterator[httpx2.AsyncClient]:
    """An HTTP client of the app of `tools` with `options`, served in this process."""
    ran.clear()
    gates["held"] = asyncio.Event()
    app = mcp.asgi_app(tools, **options)
    transport = httpx2.ASGITransport(app=app, raise_app_exceptions=False)
    async with (
        app.lifespan(),
        httpx2.AsyncClient(
            transport=transport, base_url="http://127.0.0.1:8000", timeout=LIMIT
        ) as http,
    ):
        try:
            yield http
        finally:
            gates["held"].set()  # no tool is left waiting when the app stops


def run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, LIMIT))


def _error(answer: Any) -> tuple[int, str]:
    assert "result" not in answer, answer
    return answer["error"]["code"], answer["error"]["message"]


# ---------------------------------------------------------------- malformed bodies


DEEP = {
    "array": b"[" * 100_000 + b"]" * 100_000,
    "object": b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":'
    + b'{"a":' * 50_000
    + b"1"
    + b"}" * 50_001,
}


@pytest.mark.parametrize("stateless", [True, False], ids=["stateless", "session"])
@pytest.mark.parametrize("nesting", list(DEEP))
def test_a_body_nested_deeper_than_json_reads_is_a_parse_error(
    nesting: str, stateless: bool
) -> None:
    async def main() -> None:
        async with serving(stateless=stateless, json_response=True) as http:
            peer = Peer(http)
            status, answer = await peer.post(DEEP[nesting])
            assert status == 400
            assert _error(answer)[0] == -32700
            # and the server goes on serving
            done = await peer.result("tools/call", name="echo", arguments={"word": "a"})
            assert done["content"][0]["text"] == "a"

    run(main())


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"{nope", -32700),
        (b'{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":"\xff"}}', -32700),
        (b"[]", -32600),
        (b"null", -32600),
        (b'{"jsonrpc":"1.0","id":1,"method":"tools/list"}', -32600),
        (b'{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}', -32600),
        (b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":[1]}', -32600),
        (b'{"jsonrpc":"2.0","id":1,"result":{}}', -32600),
    ],
)
def test_malformed_json_rpc_gets_an_error_and_runs_nothing(
    body: bytes, code: int
) -> None:
    async def main() -> tuple[int, Any]:
        async with serving(stateless=True, json_response=True) as http:
            return await Peer(http).post(body)

    status, answer = run(main())
    assert status == 400
    assert answer["error"]["code"] == code
    assert "Traceback" not in json.dumps(answer)
    assert ran == []


@pytest.mark.parametrize("stateless", [True, False], ids=["stateless", "sessions"])
@pytest.mark.parametrize("version", ["1999-01-01", "2099-01-01", "garbage"])
def test_a_request_of_an_unknown_protocol_version_is_refused_and_runs_nothing(
    version: str, stateless: bool
) -> None:
    async def main() -> tuple[int, Any]:
        async with serving(stateless=stateless, json_response=True) as http:
            meta = {**_meta(), "io.modelcontextprotocol/protocolVersion": version}
            body = {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "echo", "arguments": {"word": "a"}, "_meta": meta},
            }
            headers = {
                "mcp-protocol-version": version,
                "mcp-method": "tools/call",
                "mcp-name": "echo",
            }
            return await Peer(http).post(body, headers)

    status, answer = run(main())
    assert (status, answer["error"]["code"]) == (400, -32022)
    assert answer["error"]["data"]["requested"] == version
    assert ran == []


# ---------------------------------------------------------------- headers and requestState


@pytest.mark.parametrize(
    ("params", "headers"),
    [
        ({"name": "echo", "arguments": {"word": "a"}}, {"mcp-name": "weather"}),
        ({"name": "echo", "arguments": {"word": "a"}}, {"mcp-method": "tools/list"}),
        ({"name": "weather", "arguments": {"region": "eu"}}, {}),
        (
            {"name": "weather", "arguments": {"region": "eu"}},
            {"mcp-param-region": "us"},
        ),
        (
            {"name": "weather", "arguments": {"region": "eu"}},
            {"mcp-param-region": "=?base64?/w==?="},
        ),
        ({"name": "weather", "arguments": {}}, {"mcp-param-region": "eu"}),
    ],
)
def test_headers_that_disagree_with_the_body_are_refused_before_the_tool_runs(
    params: dict[str, Any], headers: dict[str, str]
) -> None:
    async def main() -> tuple[int, Any]:
        async with serving(stateless=True, json_response=True) as http:
            return await Peer(http).send("tools/call", headers=headers, **params)

    status, answer = run(main())
    assert (status, answer["error"]["code"]) == (400, -32020)
    assert ran == []


def _spoiled(state: str) -> dict[str, Any]:
    flipped = state[:-3] + ("A" if state[-3] != "A" else "B") + state[-2:]
    return {
        "truncated": state[:-5],
        "flipped": flipped,
        "empty": "",
        "a number": 5,
        "not ascii": "é" * 40,
    }


def test_a_forged_or_foreign_request_state_is_refused_before_the_tool_runs() -> None:
    answer = {"name": {"action": "accept", "content": {"name": "Ann"}}}

    async def main() -> list[tuple[str, int, Any]]:
        async with serving(stateless=True, json_response=True) as http:
            peer = Peer(http)
            first = await peer.result("tools/call", name="ask_name", arguments={})
            state = first["requestState"]
            ran.clear()
            seen = []
            for how, spoiled in _spoiled(state).items():
                status, refused = await peer.send(
                    "tools/call",
                    name="ask_name",
                    arguments={},
                    requestState=spoiled,
                    inputResponses=answer,
                )
                seen.append((how, status, refused))
            status, refused = await peer.send(
                "tools/call",
                name="echo",
                arguments={"word": "a"},
                requestState=state,
            )
            seen.append(("another tool's", status, refused))
            assert ran == []
            done = await peer.result(
                "tools/call",
                name="ask_name",
                arguments={},
                requestState=state,
                inputResponses=answer,
            )
            assert done["content"][0]["text"] == "Hello, Ann!"
            return seen

    for how, status, refused in run(main()):
        assert (how, status, refused["error"]["code"]) == (how, 400, -32602)


# ---------------------------------------------------------------- tasks


async def _waiting_task(peer: Peer) -> str:
    """A task of `held` that waits for the answer to its question "sure"."""
    created = await peer.result("tools/call", name="held", arguments={"ask": True})
    assert created["resultType"] == "task"
    gates["held"].set()
    await peer.until(created["taskId"], "input_required")
    return str(created["taskId"])


@pytest.mark.parametrize(
    "answer",
    [
        "yes",
        None,
        {"action": "bogus"},
        {"action": "accept", "content": [1]},
    ],
)
def test_an_answer_that_does_not_fit_its_question_is_refused_and_the_task_waits(
    answer: Any,
) -> None:
    async def main() -> None:
        async with serving(stateless=True, json_response=True) as http:
            peer = Peer(http)
            task_id = await _waiting_task(peer)
            status, refused = await peer.send(
                "tasks/update", taskId=task_id, inputResponses={"sure": answer}
            )
            code, message = _error(refused)
            assert (status, code) == (400, -32602)
            assert "'sure'" in message
            assert "elicitation/create" in message
            assert "pydantic" not in message
            waiting = await peer.result("tasks/get", taskId=task_id)
            assert waiting["status"] == "input_required"
            assert list(waiting["inputRequests"]) == ["sure"]
            good = {"sure": {"action": "accept", "content": {"ok": True}}}
            await peer.result("tasks/update", taskId=task_id, inputResponses=good)
            done = await peer.until(task_id, "completed")
            assert done["result"]["content"][0]["text"] == "ok=True"

    run(main())


def test_answers_to_questions_never_asked_are_acknowledged_and_never_kept() -> None:
    """The tasks extension acknowledges such an update; nothing of it may wait for a later question."""

    async def main() -> None:
        async with serving(stateless=True, json_response=True) as http:
            peer = Peer(http)
            created = await peer.result(
                "tools/call", name="held", arguments={"ask": True}
            )
            task_id = created["taskId"]
            early = {"sure": {"action": "accept", "content": {"ok": True}}}
            ack = await peer.result(
                "tasks/update", taskId=task_id, inputResponses=early
            )
            assert ack["resultType"] == "complete"
            assert not {"taskId", "status", "inputRequests"} & set(ack)
            working = await peer.result("tasks/get", taskId=task_id)
            assert working["status"] == "working"
            assert "inputRequests" not in working
            gates[
                "held"
            ].set()  # now the tool asks "sure": the early answer was not kept
            waiting = await peer.until(task_id, "input_required")
            assert list(waiting["inputRequests"]) == ["sure"]
            ack = await peer.result(
                "tasks/update", taskId=task_id, inputResponses={"other": early["sure"]}
            )
            assert ack["resultType"] == "complete"
            assert not {"taskId", "status", "inputRequests"} & set(ack)
            waiting = await peer.result("tasks/get", taskId=task_id)
            assert waiting["status"] == "input_required"
            assert list(waiting["inputRequests"]) == ["sure"]
            both = {"other": early["sure"], "sure": early["sure"]}
            await peer.result("tasks/update", taskId=task_id, inputResponses=both)
            done = await peer.until(task_id, "completed")
            assert done["result"]["content"][0]["text"] == "ok=True"
            # the same update again (a retry) changes nothing
            await peer.result("tasks/update", taskId=task_id, inputResponses=both)

    run(main())


class TwoClients:
    """A `TokenVerifier` that knows two clients, alice and bob, by their tokens.

    `bob` is a client of its own; `bob-as-alice` is alice's client id with
    another issuer; `bob-under-alice` is alice's client id, another subject.
    """

    async def verify_token(self, token: str) -> AccessToken | None:
        if token == "alice":
            return AccessToken(token=token, client_id="alice", scopes=[])
        if token == "bob":
            return AccessToken(token=token, client_id="bob", scopes=[])
        if token == "bob-as-alice":
            claims = {"iss": "https://elsewhere.example"}
            return AccessToken(token=token, client_id="alice", scopes=[], claims=claims)
        if token == "bob-under-alice":
            return AccessToken(token=token, client_id="alice", scopes=[], subject="bob")
        return None


@pytest.mark.parametrize("other", ["bob", "bob-as-alice", "bob-under-alice"])
@pytest.mark.parametrize("stateless", [True, False], ids=["stateless", "sessions"])
def test_a_task_is_unknown_to_every_client_but_the_one_that_made_it(
    stateless: bool, other: str
) -> None:
    async def main() -> None:
        async with serving(
            stateless=stateless, json_response=True, auth=TwoClients()
        ) as http:
            alice = Peer(http, authorization="Bearer alice")
            bob = Peer(http, authorization=f"Bearer {other}")
            created = await alice.result("tools/call", name="held", arguments={})
            task_id = created["taskId"]
            declined = {"sure": {"action": "decline"}}
            requests: list[tuple[str, dict[str, Any]]] = [
                ("tasks/get", {}),
                ("tasks/update", {"inputResponses": declined}),
                ("tasks/cancel", {}),
            ]
            for method, params in requests:
                status, refused = await bob.send(method, taskId=task_id, **params)
                code, message = _error(refused)
                assert (status, code) == (400, -32602)
                assert message.startswith(f"Unknown task {task_id!r}")
            working = await alice.result("tasks/get", taskId=task_id)
            assert working["status"] == "working"
            assert set(working) == {
                "taskId",
                "status",
                "createdAt",
                "lastUpdatedAt",
                "ttlMs",
                "pollIntervalMs",
                "resultType",
                "_meta",
            }
            gates["held"].set()
            done = await alice.until(task_id, "completed")
            assert done["result"]["content"][0]["text"] == "let go"

    run(main())


def test_cancelling_twice_and_after_completion_is_no_error() -> None:
    async def main() -> None:
        async with serving(stateless=True, json_response=True) as http:
            peer = Peer(http)
            created = await peer.result("tools/call", name="held", arguments={})
            for _ in range(2):
                await peer.result("tasks/cancel", taskId=created["taskId"])
            cancelled = await peer.result("tasks/get", taskId=created["taskId"])
            assert cancelled["status"] == "cancelled"
            assert "result" not in cancelled
            gates["held"].set()
            finished = await peer.result("tools/call", name="held", arguments={})
            assert finished["resultType"] == "complete"
            for method in ("tasks/get", "tasks/cancel"):
                status, unknown = await peer.send(method, taskId="x" * 10_000)
                assert (status, _error(unknown)[0]) == (400, -32602)

    run(main())


# ---------------------------------------------------------------- sessions (2025-11-25)


def _messages(text: str) -> list[dict[str, Any]]:
    """The JSON-RPC messages of an event stream's body."""
    return [
        json.loads(line.removeprefix("data:"))
        for line in text.splitlines()
        if line.startswith("data:") and line.removeprefix("data:").strip()
    ]


class SessionPeer:
    """A 2025-11-25 client of one session, with its own bearer token."""

    def __init__(self, http: httpx2.AsyncClient, token: str) -> None:
        self.http = http
        self.token = token
        self.session = ""
        self.sent = 0

    async def post(self, body: dict[str, Any], session: str | None = None) -> Any:
        headers = {
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "authorization": f"Bearer {self.token}",
            "mcp-protocol-version": "2025-11-25",
            "mcp-session-id": session or self.session,
        }
        if not headers["mcp-session-id"]:
            del headers["mcp-session-id"]
        return await self.http.post("/mcp", json=body, headers=headers)

    async def open(self, **capabilities: Any) -> str:
        params = {
            "protocolVersion": "2025-11-25",
            "capabilities": capabilities,
            "clientInfo": {"name": self.token, "version": "1"},
        }
        opened = await self.post(
            {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}
        )
        self.session = opened.headers["mcp-session-id"]
        await self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return self.session

    async def request(
        self, method: str, session: str | None = None, **params: Any
    ) -> tuple[int, list[dict[str, Any]]]:
        self.sent += 1
        body = {"jsonrpc": "2.0", "id": self.sent, "method": method, "params": params}
        reply = await self.post(body, session)
        if reply.headers.get("content-type", "").startswith("application/json"):
            return reply.status_code, [reply.json()]
        return reply.status_code, _messages(reply.text)


def test_another_clients_requests_on_a_session_change_nothing_of_it() -> None:
    async def main() -> None:
        async with serving(auth=TwoClients()) as http:
            alice = SessionPeer(http, "alice")
            bob = SessionPeer(http, "bob")
            session = await alice.open()
            status, _ = await alice.request("logging/setLevel", level="error")
            assert status == 200
            status, refused = await bob.request(
                "tools/call", session=session, name="echo", arguments={"word": "b"}
            )
            assert (status, refused[0]["error"]["message"]) == (
                404,
                "Session not found",
            )
            ending = await http.delete(
                "/mcp",
                headers={"authorization": "Bearer bob", "mcp-session-id": session},
            )
            assert ending.status_code == 404
            assert ran == []
            status, messages = await alice.request(
                "tools/call", name="chatty", arguments={}
            )
            assert status == 200
            logged = [
                message["params"]["data"]
                for message in messages
                if message.get("method") == "notifications/message"
            ]
            assert logged == ["bad news"]  # the level alice set still holds
            assert messages[-1]["result"]["content"][0]["text"] == "said"

    run(main())


def test_a_2025_client_declaring_the_tasks_extension_gets_no_tasks() -> None:
    async def main() -> None:
        async with serving(auth=TwoClients()) as http:
            alice = SessionPeer(http, "alice")
            await alice.open(extensions={EXTENSION: {}})
            status, refused = await alice.request(
                "tools/call", name="only_a_task", arguments={}
            )
            error = refused[-1]["error"]
            assert (status, error["code"]) == (200, -32021)
            assert "2026-07-28" in error["message"]
            assert ran == []
            status, refused = await alice.request("tasks/get", taskId="a" * 22)
            assert refused[-1]["error"]["code"] == -32021

            async def let_go() -> None:
                for _ in range(400):  # until the tool runs, 400 looks at most
                    if ran:
                        break
                    await asyncio.sleep(0.01)
                await asyncio.sleep(0.3)  # longer than a task tool's first wait
                gates["held"].set()

            letting = asyncio.ensure_future(let_go())
            status, answered = await alice.request(
                "tools/call", name="held", arguments={}
            )
            await letting
            assert (status, answered[-1]["result"]["content"][0]["text"]) == (
                200,
                "let go",
            )

    run(main())


# ---------------------------------------------------------------- trace context in _meta

TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


@pytest.mark.parametrize(
    "carried",
    [
        {"baggage": 5},
        {"traceparent": TRACEPARENT, "baggage": 5},
        {"traceparent": TRACEPARENT, "baggage": ["a=b"], "tracestate": {"a": 1}},
        {"traceparent": 5, "tracestate": None},
        {"traceparent": "00-\r\nnot-a-trace", "baggage": "=" * 10_000},
    ],
)
def test_trace_context_that_is_no_text_is_ignored(carried: dict[str, Any]) -> None:
    async def main() -> tuple[Any, Any, Any]:
        async with serving(stateless=True, json_response=True) as http:
            peer = Peer(http)
            status, listed = await peer.post(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "tools/list",
                    "params": {"_meta": {**_meta(), **carried}},
                },
                {"mcp-method": "tools/list"},
            )
            assert status == 200, listed
            status, called = await peer.post(
                {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "tools/call",
                    "params": {
                        "name": "echo",
                        "arguments": {"word": "a"},
                        "_meta": {**_meta(), **carried},
                    },
                },
                {"mcp-method": "tools/call", "mcp-name": "echo"},
            )
            assert status == 200, called
        async with serving(auth=TwoClients()) as http:
            alice = SessionPeer(http, "alice")
            await alice.open()
            status, legacy = await alice.request(
                "tools/call", name="echo", arguments={"word": "b"}, _meta=carried
            )
            assert status == 200, legacy
        return listed, called, legacy[-1]

    listed, called, legacy = run(main())
    assert "echo" in [tool["name"] for tool in listed["result"]["tools"]]
    assert called["result"]["content"][0]["text"] == "a"
    assert legacy["result"]["content"][0]["text"] == "b"


# ---------------------------------------------------------------- stdio

UNREADABLE = {
    "not JSON": (b"{nope", None, -32700),
    "nested too deeply": (b"[" * 100_000 + b"]" * 100_000, None, -32700),
    "params that are no object": (
        b'{"jsonrpc":"2.0","id":11,"method":"tools/call","params":[1]}',
        11,
        -32600,
    ),
    "a wrong jsonrpc version": (
        b'{"jsonrpc":"1.0","id":"twelve","method":"tools/list"}',
        "twelve",
        -32600,
    ),
}


def test_a_stdio_line_that_is_no_request_is_answered_with_an_error() -> None:
    target = str(pathlib.Path(__file__).parent / "sample_tools.py")
    process = stdio_server(target)
    assert process.stdin is not None
    assert process.stdout is not None
    opening = initialize(0, "2025-11-25")
    lines = [
        json.dumps(opening).encode(),
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
        b"",
        b"   ",
        *(line for line, _, _ in UNREADABLE.values()),
        b'{"jsonrpc":"2.0","id":99,"method":"tools/list"}',
    ]
    answers: list[dict[str, Any]] = []
    try:
        process.stdin.write(b"\n".join(lines) + b"\n")
        process.stdin.flush()
        for _ in range(len(lines)):  # one answer per request, at most
            ready, _, _ = select.select([process.stdout], [], [], LIMIT)
            assert ready, f"no answer after {answers}"
            answers.append(json.loads(process.stdout.readline()))
            if answers[-1].get("id") == 99:
                break
    finally:
        code, _ = finished(process)  # type: ignore[arg-type]  # closes its stdin
    assert code == 0
    assert answers[0]["id"] == 0
    assert "tools" in answers[-1]["result"]
    errors = [(answer["id"], answer["error"]["code"]) for answer in answers[1:-1]]
    assert errors == [(given, code) for _, given, code in UNREADABLE.values()]
