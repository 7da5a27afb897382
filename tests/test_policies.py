"""Policies around a call: approval, concurrency and rate limits, retries.

Every tool here counts its calls, so that a test sees that a call that
should not run did not run. The rate tests move a fake clock; the retry
tests draw no jitter. No test waits on the wall clock for its verdict.
"""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import chat_message
from toolkit import (
    Approval,
    Context,
    Rate,
    Tool,
    ToolCall,
    ToolDefinitionError,
    ToolError,
    ToolResult,
    ToolSet,
    lint,
    tool,
)
from toolkit.policies import _policies
from toolkit.providers import openai

KEY = b"k" * 32


class Counter:
    def __init__(self) -> None:
        self.calls: list[dict[str, Any]] = []


def deleter(counter: Counter, **options: Any) -> Tool[Any, Any]:
    options.setdefault("requires_approval", True)

    @tool(name="delete_file", **options)
    def delete_file(path: str, force: bool = False) -> str:
        """Delete a file.

        Args:
            path: The file.
            force: Even if it is read-only.
        """
        counter.calls.append({"path": path, "force": force})
        return f"Deleted {path}."

    return delete_file


def run(tools: ToolSet, *calls: ToolCall, **options: Any) -> list[ToolResult]:
    return asyncio.run(tools.run("agent-1", list(calls), **options))


def call(path: str = "a.txt", ident: str = "c1", **extra: Any) -> ToolCall:
    return ToolCall(ident, "delete_file", {"path": path, **extra})


# ---------------------------------------------------------------- approval


class TestApproval:
    def test_a_call_that_needs_approval_does_not_run(self) -> None:
        """Its result says needs_approval, with the tool, the arguments and an id."""
        counter = Counter()
        tools = ToolSet([deleter(counter)])
        (result,) = run(tools, call())
        assert counter.calls == []
        assert result.status == "needs_approval"
        assert result.is_error
        assert isinstance(result.approval, Approval)
        assert result.approval.tool == "delete_file"
        assert result.approval.arguments == {"path": "a.txt"}
        assert "needs a human's approval" in result.text

    def test_an_approval_runs_the_same_call_once(self) -> None:
        counter = Counter()
        tools = ToolSet([deleter(counter)])
        (waiting,) = run(tools, call())
        assert waiting.approval is not None
        assert tools.approve(waiting.approval.id)
        (done,) = run(tools, call(ident="c2"))
        assert (done.status, done.text) == ("ok", "Deleted a.txt.")
        (again,) = run(tools, call(ident="c3"))
        assert again.status == "needs_approval"  # single use
        assert counter.calls == [{"path": "a.txt", "force": False}]

    def test_an_approval_does_not_move_to_other_arguments(self) -> None:
        counter = Counter()
        tools = ToolSet([deleter(counter)])
        (waiting,) = run(tools, call("a.txt"))
        assert waiting.approval is not None
        tools.approve(waiting.approval.id)
        (other,) = run(tools, call("b.txt"))
        (forced,) = run(tools, call("a.txt", force=True))
        assert other.status == forced.status == "needs_approval"
        assert counter.calls == []
        (same,) = run(tools, ToolCall("c9", "delete_file", '{"path": "a.txt"}'))
        assert same.status == "ok"  # the same JSON value, sent as text

    def test_a_denial_reaches_the_model_with_its_reason(self) -> None:
        counter = Counter()
        tools = ToolSet([deleter(counter)])
        (waiting,) = run(tools, call())
        assert waiting.approval is not None
        assert tools.deny(waiting.approval.id, "That file is needed.")
        (denied,) = run(tools, call())
        assert denied.status == "error"
        assert (
            denied.text
            == 'The user denied the call of "delete_file": That file is needed.'
        )
        assert counter.calls == []
        assert (
            run(tools, call())[0].status == "needs_approval"
        )  # the denial is used up too

    def test_decisions_passed_to_run(self) -> None:
        counter = Counter()
        tools = ToolSet([deleter(counter)])
        first, second = run(tools, call("a"), call("b", ident="c2"))
        assert first.approval is not None
        assert second.approval is not None
        one, two = run(
            tools,
            call("a"),
            call("b", ident="c2"),
            approvals={first.approval.id: True, second.approval.id: False},
        )
        assert one.text == "Deleted a."
        assert two.text == 'The user denied the call of "delete_file".'
        assert counter.calls == [{"path": "a", "force": False}]

    def test_an_unknown_id_is_reported(self) -> None:
        tools = ToolSet([deleter(Counter())])
        assert tools.approve("nope") is False
        assert tools.deny("nope") is False

    def test_a_rule_decides_per_call(self) -> None:
        seen: list[tuple[dict[str, Any], str]] = []

        def forced_only(args: dict[str, Any], ctx: Context[Any]) -> bool:
            seen.append((args, ctx.tool_name))
            return bool(args.get("force"))

        counter = Counter()
        tools = ToolSet([deleter(counter, requires_approval=forced_only)])
        plain, forced = run(tools, call("a"), call("b", ident="c2", force=True))
        assert (plain.status, forced.status) == ("ok", "needs_approval")
        assert counter.calls == [{"path": "a", "force": False}]
        assert ({"path": "a"}, "delete_file") in seen

    def test_a_rule_that_raises_is_an_error_result_and_nothing_runs(self) -> None:
        def broken(args: dict[str, Any], ctx: Context[Any]) -> bool:
            raise RuntimeError("no rule today")

        counter = Counter()
        tools = ToolSet([deleter(counter, requires_approval=broken)])
        (result,) = run(tools, call())
        assert result.is_error
        assert "no rule today" in result.text
        assert counter.calls == []

    def test_a_set_wide_rule_on_annotations(self) -> None:
        """Every tool not marked read_only, as for a mounted MCP server's tools."""
        counter = Counter()

        @tool(read_only=True)
        def look(path: str) -> str:
            """Look at a file.

            Args:
                path: The file.
            """
            return f"Looked at {path}."

        @tool
        def touch(path: str) -> str:
            """Touch a file.

            Args:
                path: The file.
            """
            counter.calls.append({"path": path})
            return "ok"

        tools = ToolSet(
            [look, touch],
            requires_approval=lambda t, args, ctx: not t.read_only,
        )
        a, b = run(
            tools,
            ToolCall("1", "look", {"path": "x"}),
            ToolCall("2", "touch", {"path": "x"}),
        )
        assert (a.status, b.status) == ("ok", "needs_approval")
        view = tools.prefixed("fs_")  # a set made from it shares rule and approvals
        (c,) = run(view, ToolCall("3", "fs_touch", {"path": "x"}))
        assert c.status == "needs_approval"
        assert c.approval is not None
        assert view.approve(c.approval.id)
        assert run(view, ToolCall("4", "fs_touch", {"path": "x"}))[0].status == "ok"
        tools.requires_approval = False
        assert run(tools, ToolCall("5", "touch", {"path": "y"}))[0].status == "ok"
        assert counter.calls == [{"path": "x"}, {"path": "y"}]

    def test_execute_and_aexecute_and_handle_apply_it_alike(self) -> None:
        counter = Counter()
        tools = ToolSet([deleter(counter)])
        sync = tools.execute("agent-1", "c1", "delete_file", {"path": "a"})
        asynchronous = asyncio.run(
            tools.aexecute("agent-1", "c2", "delete_file", {"path": "a"})
        )
        message = chat_message(("c3", "delete_file", '{"path": "a"}'))
        (reply,) = asyncio.run(openai.handle(tools, "agent-1", message))
        assert sync.status == asynchronous.status == "needs_approval"
        assert "needs a human's approval" in reply["content"]
        assert counter.calls == []
        assert sync.approval is not None
        tools.approve(sync.approval.id)
        assert (
            tools.execute("agent-1", "c4", "delete_file", {"path": "a"}).status == "ok"
        )

    def test_a_lone_tool_says_to_use_a_set(self) -> None:
        counter = Counter()
        made = deleter(counter)
        result = made.execute("agent-1", "c1", {"path": "a"})
        assert result.is_error
        assert "ToolSet" in result.text
        assert counter.calls == []

    def test_invalid_arguments_are_refused_before_approval(self) -> None:
        counter = Counter()
        tools = ToolSet([deleter(counter)])
        (result,) = run(tools, ToolCall("c1", "delete_file", {"path": 3}))
        assert result.status == "error"
        assert "Invalid arguments" in result.text

    def test_a_host_that_can_approve_is_asked(self) -> None:
        counter = Counter()
        tools = ToolSet([deleter(counter)])

        class Host:
            def __init__(self, answer: bool | str) -> None:
                self.answer = answer
                self.asked: list[tuple[str, dict[str, Any]]] = []

            async def approve(
                self, context: Context[Any], name: str, arguments: dict[str, Any]
            ) -> bool | str:
                self.asked.append((name, arguments))
                return self.answer

        yes, no = Host(True), Host("not today")
        assert run(tools, call(), host=yes)[0].text == "Deleted a.txt."
        assert (
            run(tools, call(), host=no)[0].text
            == 'The user denied the call of "delete_file": not today'
        )
        assert yes.asked == no.asked == [("delete_file", {"path": "a.txt"})]
        assert (
            tools.execute("agent-1", "c1", "delete_file", {"path": "b"}, host=yes).text
            == "Deleted b."
        )
        assert len(counter.calls) == 2


class TestSignedApprovals:
    def test_another_process_with_the_key_accepts_the_token(self) -> None:
        """A stateless host hands the id back to a set that never saw it."""
        issuer = ToolSet([deleter(Counter())], approval_key=KEY)
        (waiting,) = run(issuer, call())
        assert waiting.approval is not None
        token = waiting.approval.id
        counter = Counter()
        other = ToolSet([deleter(counter)], approval_key=KEY)
        (done,) = run(other, call(), approvals={token: True})
        assert done.text == "Deleted a.txt."
        (replayed,) = run(other, call(), approvals={token: True})
        assert replayed.status == "needs_approval"  # single use in this process
        stranger = ToolSet([deleter(counter)], approval_key=b"x" * 32)
        assert (
            run(stranger, call(), approvals={token: True})[0].status == "needs_approval"
        )
        assert len(counter.calls) == 1

    def test_an_expired_token_is_refused(self, monkeypatch: pytest.MonkeyPatch) -> None:
        issuer = ToolSet([deleter(Counter())], approval_key=KEY)
        (waiting,) = run(issuer, call())
        assert waiting.approval is not None
        monkeypatch.setattr(_policies, "_wall", lambda: 10.0**12)
        counter = Counter()
        other = ToolSet([deleter(counter)], approval_key=KEY)
        assert (
            run(other, call(), approvals={waiting.approval.id: True})[0].status
            == "needs_approval"
        )
        assert counter.calls == []

    def test_a_short_key_is_refused(self) -> None:
        with pytest.raises(ToolDefinitionError, match="approval_key"):
            ToolSet(approval_key=b"short")

    @settings(max_examples=60, deadline=None)
    @given(
        path=st.text(max_size=12),
        force=st.booleans(),
        position=st.integers(min_value=0, max_value=200),
        byte=st.integers(min_value=33, max_value=126),
    )
    def test_a_token_never_moves_and_cannot_be_forged(
        self, path: str, force: bool, position: int, byte: int
    ) -> None:
        """Other arguments, or any one character of the token changed: nothing runs."""
        issuer = ToolSet([deleter(Counter())], approval_key=KEY)
        (waiting,) = run(issuer, call("a.txt"))
        assert waiting.approval is not None
        token = waiting.approval.id
        counter = Counter()
        if (path, force) != ("a.txt", False):
            moved = call(path, force=force) if force else call(path)
            fresh = ToolSet([deleter(counter)], approval_key=KEY)
            (result,) = run(fresh, moved, approvals={token: True})
            assert result.status == "needs_approval"
        index = position % len(token)
        forged = token[:index] + chr(byte) + token[index + 1 :]
        if forged != token:
            fresh = ToolSet([deleter(counter)], approval_key=KEY)
            (result,) = run(fresh, call("a.txt"), approvals={forged: True})
            assert result.status == "needs_approval"
        assert counter.calls == []


# ---------------------------------------------------------------- limits


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [1000.0]
    monkeypatch.setattr(_policies, "_clock", lambda: now[0])
    return now


class TestRate:
    def test_a_call_over_the_rate_says_when_to_retry(self, clock: list[float]) -> None:
        calls: list[int] = []

        @tool(rate="3/minute")
        def ping(n: int) -> int:
            """Ping.

            Args:
                n: A number.
            """
            calls.append(n)
            return n

        tools = ToolSet([ping])
        results = run(tools, *[ToolCall(str(i), "ping", {"n": i}) for i in range(5)])
        assert [r.is_error for r in results] == [False, False, False, True, True]
        assert (
            results[3].text
            == 'Tool "ping" is over its rate limit of 3/minute. Retry after 60.0 seconds.'
        )
        clock[0] += 59.5
        assert (
            "Retry after 0.5 seconds" in tools.execute("a", "6", "ping", {"n": 6}).text
        )
        clock[0] += 0.5
        assert tools.execute("a", "7", "ping", {"n": 7}).text == "7"
        assert sorted(calls) == [0, 1, 2, 7]

    def test_a_renamed_view_shares_the_rate(self, clock: list[float]) -> None:
        @tool(rate="2/minute")
        def ping() -> str:
            """Ping."""
            return "pong"

        tools = ToolSet([ping])
        view = tools.prefixed("net_")
        assert tools.execute("a", "1", "ping", {}).text == "pong"
        assert view.execute("a", "2", "net_ping", {}).text == "pong"
        refused = view.execute("a", "3", "net_ping", {})
        assert refused.text.startswith(
            'Tool "net_ping" is over its rate limit of 2/minute.'
        )
        assert tools.execute("a", "4", "ping", {}).is_error

    def test_per_agent(self, clock: list[float]) -> None:
        @tool(rate=Rate(1, 10, per_agent=True))
        def ping() -> str:
            """Ping."""
            return "pong"

        tools = ToolSet([ping])
        assert tools.execute("ann", "1", "ping", {}).text == "pong"
        assert tools.execute("bob", "2", "ping", {}).text == "pong"
        refused = tools.execute("ann", "3", "ping", {})
        assert (
            refused.text
            == 'Tool "ping" is over its rate limit of 1/10 seconds per agent. Retry after 10.0 seconds.'
        )

    @pytest.mark.parametrize("bad", ["ten/minute", "10/fortnight", "10", 5])
    def test_a_bad_rate_is_a_definition_error(self, bad: Any) -> None:
        with pytest.raises(ToolDefinitionError, match="rate"):

            @tool(rate=bad)
            def ping() -> str:
                """Ping."""
                return "pong"

    def test_rate_parse(self) -> None:
        assert Rate.parse("10/minute") == Rate(10, 60.0)
        assert Rate.parse("2/hours") == Rate(2, 3600.0)
        assert str(Rate(5, 1)) == "5/second"


class TestConcurrency:
    def test_a_thousand_calls_never_exceed_the_limit(self) -> None:
        state = {"now": 0, "peak": 0, "done": 0}

        @tool(max_concurrency=5)
        async def work(n: int) -> int:
            """Work.

            Args:
                n: A number.
            """
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            state["now"] -= 1
            state["done"] += 1
            return n

        tools = ToolSet([work])
        results = run(tools, *[ToolCall(str(i), "work", {"n": i}) for i in range(1000)])
        assert [r.text for r in results] == [str(i) for i in range(1000)]
        assert state["peak"] == 5
        assert state["done"] == 1000

    def test_sync_calls_from_threads(self) -> None:
        lock = threading.Lock()
        state = {"now": 0, "peak": 0}
        gate = threading.Barrier(2, timeout=10)

        @tool(max_concurrency=2)
        def work(n: int) -> int:
            """Work.

            Args:
                n: A number.
            """
            with lock:
                state["now"] += 1
                state["peak"] = max(state["peak"], state["now"])
            if n < 2:
                gate.wait()  # the first two meet inside: the limit admits two
            with lock:
                state["now"] -= 1
            return n

        tools = ToolSet([work])
        out: list[str] = []
        threads = [
            threading.Thread(
                target=lambda i=i: out.append(
                    tools.execute("a", str(i), "work", {"n": i}).text
                )
            )
            for i in range(40)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(20)
        assert sorted(out, key=int) == [str(i) for i in range(40)]
        assert state["peak"] == 2

    def test_no_slot_within_the_timeout_is_an_error_result(self) -> None:
        @tool(max_concurrency=1, timeout=0.05)
        async def hold(n: int) -> int:
            """Hold.

            Args:
                n: A number.
            """
            await asyncio.sleep(0.04 if n == 0 else 0)
            return n

        async def main() -> list[ToolResult]:
            tools = ToolSet([hold])
            first = asyncio.ensure_future(tools.aexecute("a", "1", "hold", {"n": 0}))
            await asyncio.sleep(0)
            blocker = asyncio.Event()

            @tool(name="hold", max_concurrency=1, timeout=0.01)
            async def stuck(n: int) -> int:
                """Stuck.

                Args:
                    n: A number.
                """
                await blocker.wait()
                return n

            other = ToolSet([stuck])
            started = asyncio.ensure_future(other.aexecute("a", "2", "hold", {"n": 1}))
            await asyncio.sleep(0)
            waiting = await other.aexecute("a", "3", "hold", {"n": 2})
            blocker.set()
            return [await first, await started, waiting]

        first, timed_out, busy = asyncio.run(main())
        assert first.text == "0"
        assert timed_out.is_error
        assert busy.text.startswith('Tool "hold" is busy: 1 call of it is running and')

    def test_the_busy_message_counts_the_slots(self) -> None:
        @tool(max_concurrency=2, timeout=0.5)
        def pair() -> str:
            """Pair."""
            return "ok"

        assert _policies.Policy(pair).full().text == (
            'Tool "pair" is busy: 2 calls of it are running and none finished'
            " within 0.5 seconds. Try again later."
        )

    def test_a_bad_limit_is_a_definition_error(self) -> None:
        with pytest.raises(ToolDefinitionError, match="max_concurrency"):

            @tool(max_concurrency=0)
            def ping() -> str:
                """Ping."""
                return "pong"


# ---------------------------------------------------------------- retries


@pytest.fixture
def no_jitter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_policies, "_jitter", lambda ceiling: 0.0)


class TestRetries:
    @pytest.mark.usefixtures("no_jitter")
    @pytest.mark.parametrize("entry", ["execute", "run"])
    def test_tries_exactly_as_configured(self, entry: str) -> None:
        tries: list[int] = []

        @tool(retries=3, idempotent=True)
        def flaky() -> str:
            """Flaky."""
            tries.append(1)
            raise ToolError(f"try {len(tries)} failed", retry=True)

        tools = ToolSet([flaky])
        if entry == "execute":
            result = tools.execute("a", "1", "flaky", {})
        else:
            (result,) = run(tools, ToolCall("1", "flaky", {}))
        assert len(tries) == 4
        assert result.text == "try 4 failed"  # the model sees the last outcome only

    @pytest.mark.usefixtures("no_jitter")
    def test_a_success_after_failures(self) -> None:
        tries: list[int] = []

        @tool(retries=2, idempotent=True, retry_on=(ConnectionError,))
        async def fetch() -> str:
            """Fetch."""
            tries.append(1)
            if len(tries) < 3:
                raise ConnectionError("reset")
            return "data"

        (result,) = run(ToolSet([fetch]), ToolCall("1", "fetch", {}))
        assert (result.text, len(tries)) == ("data", 3)

    @pytest.mark.usefixtures("no_jitter")
    def test_other_errors_are_not_retried(self) -> None:
        tries: list[int] = []

        @tool(retries=5, idempotent=True, retry_on=(ConnectionError,))
        def fetch() -> str:
            """Fetch."""
            tries.append(1)
            raise ValueError("bad")

        @tool(retries=5, idempotent=True)
        def final() -> str:
            """Final."""
            tries.append(1)
            raise ToolError("no retry")

        tools = ToolSet([fetch, final])
        assert tools.execute("a", "1", "fetch", {}).text == "ValueError: bad"
        assert tools.execute("a", "2", "final", {}).text == "no retry"
        assert len(tries) == 2

    def test_only_idempotent_tools_retry(self) -> None:
        with pytest.raises(ToolDefinitionError, match="idempotent"):

            @tool(retries=2)
            def charge() -> str:
                """Charge a card."""
                return "charged"

    def test_retry_on_without_retries_is_refused(self) -> None:
        # retry_on names what is worth a retry; with no retries, nothing would run again.
        with pytest.raises(
            ToolDefinitionError, match=r"retry_on but retries=0.*Give retries=N"
        ):

            @tool(retry_on=(ConnectionError,), idempotent=True)
            def fetch() -> str:
                """Fetch."""
                return "data"

    def test_backoff_doubles_with_jitter(self) -> None:
        @tool(retries=8, idempotent=True)
        def ping() -> str:
            """Ping."""
            return "pong"

        policy = _policies.Policy(ping)
        for tries in range(1, 9):
            ceiling = min(10.0, 0.2 * 2 ** (tries - 1))
            assert 0 <= policy.backoff(tries) <= ceiling


# ---------------------------------------------------------------- shown


def test_lint_and_the_command_line_show_policies(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from toolkit.cli._cli import main

    counter = Counter()
    tools = ToolSet([deleter(counter, rate="5/minute", max_concurrency=2)])
    assert tools["delete_file"].rate == Rate(5, 60.0)
    assert _policies.shown(tools["delete_file"]) == (
        "requires approval; at most 2 calls at once; at most 5/minute"
    )
    assert [finding.code for finding in lint(tools)] == ["unbounded-wait"]
    source = tmp_path / "tools.py"
    source.write_text(
        "from toolkit import tool\n\n"
        "@tool(requires_approval=True, retries=2, idempotent=True, retry_on=(OSError,))\n"
        "def rm(path: str) -> str:\n"
        '    """Remove a file.\n\n    Args:\n        path: The file.\n    """\n'
        "    return path\n"
    )
    assert main(["schema", str(source), "--verbose"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)[0]["name"] == "rm"
    assert (
        err.strip()
        == "rm: requires approval; 2 retries on ToolError(retry=True), OSError [policy]"
    )
    assert main(["lint", str(source)]) == 0
    out, _ = capsys.readouterr()
    assert "rm: requires approval; 2 retries" in out
    assert "No problems found in 1 tool." in out


# ---------------------------------------------------------------- over MCP


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
@pytest.mark.parametrize(
    ("answer", "expected", "runs"),
    [
        ({"approve": True}, "Deleted a.txt.", 1),
        (
            {"approve": False, "reason": "keep it"},
            'The user denied the call of "delete_file": keep it',
            0,
        ),
    ],
)
def test_the_mcp_server_asks_the_client(
    mode: str, answer: dict[str, Any], expected: str, runs: int
) -> None:
    """The official client approves or denies through elicitation (an input-required result from 2026-07-28)."""
    import mcp.types as types
    from mcp.client import Client

    from toolkit.mcp import build_server

    counter = Counter()
    tools = ToolSet([deleter(counter, destructive=True)])
    asked: list[Any] = []

    async def elicitation(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept", content=answer)

    async def main() -> types.CallToolResult:
        async with Client(
            build_server(tools), mode=mode, elicitation_callback=elicitation
        ) as client:
            return await client.call_tool("delete_file", {"path": "a.txt"})

    result = asyncio.run(asyncio.wait_for(main(), 60))
    text = "".join(b.text for b in result.content if isinstance(b, types.TextContent))
    assert text == expected
    assert result.is_error is (runs == 0)
    assert len(counter.calls) == runs
    assert len(asked) == 1
    assert (
        asked[0].message
        == 'Allow the tool "delete_file" to run with the arguments {"path": "a.txt"}?'
    )
    assert asked[0].requested_schema["required"] == ["approve"]


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_a_client_that_cannot_be_asked_gets_an_error_saying_so(mode: str) -> None:
    import mcp.types as types
    from mcp.client import Client

    from toolkit.mcp import build_server

    counter = Counter()
    tools = ToolSet([deleter(counter)])

    async def main() -> types.CallToolResult:
        async with Client(build_server(tools), mode=mode) as client:
            return await client.call_tool("delete_file", {"path": "a.txt"})

    result = asyncio.run(asyncio.wait_for(main(), 60))
    text = "".join(b.text for b in result.content if isinstance(b, types.TextContent))
    assert result.is_error
    assert text == (  # said once, not twice over
        'Tool "delete_file" needs a human\'s approval before it runs. The MCP '
        "client cannot ask its user: it did not declare the elicitation capability."
    )
    assert counter.calls == []


SERVED = '''
from pathlib import Path

from toolkit import ToolSet, tool

CALLS = Path(__file__).with_suffix(".calls")


@tool(requires_approval=True)
def delete_file(path: str) -> str:
    """Delete a file.

    Args:
        path: The file.
    """
    with CALLS.open("a") as calls:
        calls.write(path + "\\n")
    return f"Deleted {path}."


tools = ToolSet([delete_file])
'''


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """`toolkit serve` over HTTP in a process of its own; yields its URL and its call log."""
    from tests.servers import serving

    module = tmp_path_factory.mktemp("served") / "deleting.py"
    module.write_text(SERVED)
    with serving(f"{module}:tools", "--no-auth") as (url, _):
        yield url, module.with_suffix(".calls")


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
@pytest.mark.parametrize(
    "answer", [None, {"approve": True}, {"approve": False, "reason": "keep it"}]
)
def test_toolkit_serve_asks_the_official_client(
    served: tuple[str, Any], mode: str, answer: dict[str, Any] | None
) -> None:
    """Each protocol generation's official client approves, denies, or cannot be asked."""
    import mcp.types as types
    from mcp.client import Client

    url, log = served
    path = f"{mode}-{answer and answer['approve']}.txt"
    asked: list[str] = []

    async def elicitation(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content=answer)

    async def main() -> types.CallToolResult:
        callback = elicitation if answer else None
        async with Client(url, mode=mode, elicitation_callback=callback) as client:
            return await client.call_tool("delete_file", {"path": path})

    result = asyncio.run(asyncio.wait_for(main(), 60))
    text = "".join(b.text for b in result.content if isinstance(b, types.TextContent))
    ran = log.read_text().splitlines() if log.exists() else []
    if answer is None:
        assert asked == []
        assert result.is_error
        assert text.startswith('Tool "delete_file" needs a human\'s approval')
        assert path not in ran
    elif answer["approve"]:
        assert asked == [
            f'Allow the tool "delete_file" to run with the arguments {{"path": "{path}"}}?'
        ]
        assert (result.is_error, text) == (False, f"Deleted {path}.")
        assert ran.count(path) == 1
    else:
        assert len(asked) == 1
        assert result.is_error
        assert text == 'The user denied the call of "delete_file": keep it'
        assert path not in ran
