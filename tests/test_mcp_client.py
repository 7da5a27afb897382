"""`mcp.connect`: toolkit's own server and an `mcp` SDK server, as live tool sets.

Every server here is started by the test (stdio, or streamable HTTP on
127.0.0.1) and every test is bounded in time. Servers nobody here wrote are
in test_mcp_third_party.py.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import pathlib
import shlex
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import anyio
import pytest

from tests.conftest import call
from tests.servers import free_port, run, toolkit, wait_for_port
from toolkit import (
    Context,
    DuplicateToolError,
    Elicited,
    Image,
    Text,
    ToolCall,
    ToolResult,
    ToolSet,
    lint,
    mcp,
    tool,
)
from toolkit.mcp import _client as _mcp_client
from toolkit.providers import openai as openai_provider

ROOT = pathlib.Path(__file__).parent.parent
TOOLS = str(ROOT / "tests" / "mcp_client_tools.py")
SDK_SERVER = str(ROOT / "tests" / "mcp_sdk_server.py")
SERVE = [sys.executable, "-m", "toolkit", "serve", TOOLS]
LABEL = " ".join(SERVE)
LIMIT = 60  # seconds, for each test


pytestmark = pytest.mark.usefixtures("quick_backoff")


# ---------------------------------------------------------------- the tool set


def test_each_remote_tool_is_a_tool_with_the_servers_definition() -> None:
    from tests import mcp_client_tools

    # The client speaks 2026-07-28: the definitions as a 2026-07-28 server lists them.
    served = {
        item["name"]: item for item in mcp.tools(mcp_client_tools.tools, modern=True)
    }

    async def main() -> None:
        async with mcp.connect(SERVE) as tools:
            assert tools.names == list(served)
            for item in tools:
                definition = served[item.name]
                assert item.remote_name == item.name
                assert item.description == definition["description"]
                assert item.parameters == definition["inputSchema"]
                assert item.output_schema == definition.get("outputSchema")
            echo = tools["echo"]
            assert (echo.title, echo.read_only, echo.destructive) == (
                "Echo",
                True,
                None,
            )
            assert tools["die"].destructive is True
            assert tools["echo"].thread is False  # no worker thread to send a request

    run(main)


def test_a_command_line_string_is_split_as_a_shell_would() -> None:
    async def main() -> None:
        command = f'"{sys.executable}" -m toolkit serve "{TOOLS}"'
        async with mcp.connect(command) as tools:
            assert "echo" in tools

    run(main)


# ---------------------------------------------------------------- calls


def test_results_carry_text_parts_structured_and_errors() -> None:
    async def main() -> None:
        async with mcp.connect(SERVE) as tools:
            assert await call(tools, "echo", {"text": "hi"}) == ToolResult("hi")
            # a 2026-07-28 server sends a value that is not an object as it is
            assert await call(tools, "add", {"a": 2, "b": 3}) == ToolResult(
                "5", structured=5
            )
            assert await call(tools, "point", {"x": 1, "y": 2}) == ToolResult(
                '{"x":1,"y":2}', structured={"x": 1, "y": 2}
            )
            from tests.mcp_client_tools import red_pixel

            assert await call(tools, "picture") == ToolResult(
                "a red pixel",
                content=(Text("a red pixel"), Image.from_bytes(red_pixel())),
            )
            assert await call(tools, "refuse", {"reason": "not today"}) == (
                ToolResult.error("not today")
            )

    run(main)


def test_arguments_are_checked_here_with_the_messages_of_local_tools() -> None:
    from tests import mcp_client_tools

    local = mcp_client_tools.tools
    cases: list[tuple[str, Any]] = [
        ("add", {"a": "two", "b": -1, "c": 0}),
        ("add", '{"a": 1'),
        ("echo", {}),
    ]

    async def main() -> None:
        async with mcp.connect(SERVE) as tools:
            for name, args in cases:
                remote = await tools.aexecute("agent", "call-1", name, args)
                assert remote.is_error
                assert remote == local.execute("agent", "call-1", name, args)
            # a whole number sent as a float is taken for an int, as locally
            assert (await call(tools, "add", {"a": 2.0})).text == "3"

    run(main)


def test_a_call_that_fails_validation_is_never_sent() -> None:
    counted: list[str] = []

    async def main() -> None:
        async with mcp.connect(SERVE) as tools:
            link = tools_link(tools)
            assert link.client is not None
            send = link.client.call_tool

            async def counting(name: str, *args: Any, **kwargs: Any) -> Any:
                counted.append(name)
                return await send(name, *args, **kwargs)

            link.client.call_tool = counting
            await call(tools, "add", {"a": "two"})
            await call(tools, "add", {"a": 2})

    run(main)
    assert counted == ["add"]


def tools_link(tools: ToolSet) -> Any:
    """The live connection behind a connected set (for tests that look inside)."""
    execute = tools[tools.names[0]].execute_fn
    assert isinstance(execute, _mcp_client._Caller)
    return execute.remote._link


def test_calls_run_concurrently_on_one_connection() -> None:
    async def main() -> None:
        async with mcp.connect(SERVE) as tools:
            calls = [ToolCall(f"c{i}", "add", {"a": i, "b": i}) for i in range(20)]
            results = await tools.run("agent", calls)
            assert [result.text for result in results] == [
                str(2 * i) for i in range(20)
            ]
            pids = {(await call(tools, "pid")).text for _ in range(3)}
            assert len(pids) == 1

    run(main)


def test_sync_execute_works_from_another_thread_and_refuses_on_the_loop() -> None:
    async def main() -> None:
        async with mcp.connect(SERVE) as tools:
            result = await asyncio.to_thread(
                tools.execute, "agent", "1", "echo", {"text": "from a thread"}
            )
            assert result == ToolResult("from a thread")
            blocked = tools.execute("agent", "2", "echo", {"text": "on the loop"})
            assert blocked.is_error
            assert blocked.text == (
                f'Tool "echo" of MCP server "{LABEL}" failed: the call was made with the '
                "sync `execute` from the event loop that holds the connection, which waits "
                "for it and so cannot run it. Use `await aexecute(...)` or `await run(...)` there"
            )

    run(main)


def test_a_call_after_the_block_ends_is_an_error_result() -> None:
    async def main() -> ToolSet:
        async with mcp.connect(SERVE) as tools:
            pass
        late = await call(tools, "echo", {"text": "late"})
        assert late == ToolResult.error(
            f'Tool "echo" of MCP server "{LABEL}" failed: it is unavailable: the connection '
            "is closed (the `async with mcp.connect(...)` block has ended)"
        )
        return tools

    async def bounded() -> None:
        with anyio.fail_after(LIMIT):
            await main()

    asyncio.run(bounded())


# ---------------------------------------------------------------- failures


def test_a_server_that_dies_mid_call_then_the_next_call_reconnects() -> None:
    async def main() -> None:
        async with mcp.connect(SERVE) as tools:
            first = (await call(tools, "pid")).text
            died = await call(tools, "die")
            assert died == ToolResult.error(
                f'Tool "die" of MCP server "{LABEL}" failed: the connection ended '
                "during the call: the server closed the connection"
            )
            assert await call(tools, "echo", {"text": "back"}) == ToolResult("back")
            assert (await call(tools, "pid")).text != first

    run(main)


def test_a_server_killed_between_calls_is_restarted_by_the_next_call() -> None:
    async def main() -> None:
        async with mcp.connect(SERVE) as tools:
            link = tools_link(tools)
            first = int((await call(tools, "pid")).text)
            import os

            os.kill(first, signal.SIGKILL)
            with anyio.fail_after(10):
                await link.ended.wait()  # the read side saw the end
            assert await call(tools, "echo", {"text": "again"}) == ToolResult("again")
            assert int((await call(tools, "pid")).text) != first

    run(main)


def test_reconnecting_is_bounded_and_then_waits(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(
        _mcp_client, "BACKOFF", _mcp_client.Backoff(first_wait=0.01, round_wait=600)
    )
    counter = tmp_path / "starts"
    command = [sys.executable, str(ROOT / "tests" / "mcp_once.py"), str(counter)]
    label = " ".join(command)

    def starts() -> int:
        return len(counter.read_text(encoding="utf-8").splitlines())

    async def main() -> None:
        async with mcp.connect(command) as tools:
            assert starts() == 1
            await call(tools, "die")
            failed = await call(tools, "echo", {"text": "x"})
            assert starts() == 4  # one round: three tries
            assert failed.is_error
            assert failed.text.startswith(
                f'Tool "echo" of MCP server "{label}" failed: it is unavailable: '
            )
            assert failed.text.endswith(" (tried 3 times)")
            for _ in range(5):
                again = await call(tools, "echo", {"text": "x"})
                assert again.is_error
                assert "connecting again in " in again.text
            assert starts() == 4  # no try until the round's wait is over

    run(main)


def test_a_timeout_is_an_error_result_and_cancels_the_call_on_the_server(
    tmp_path: pathlib.Path,
) -> None:
    marker = tmp_path / "cancelled"

    async def main() -> None:
        async with mcp.connect(SERVE, timeout=0.5) as tools:
            result = await call(tools, "wait", {"marker": str(marker)})
            assert result == ToolResult.error(
                f'Tool "wait" of MCP server "{LABEL}" failed: no answer within 0.5 '
                "seconds; the call was cancelled"
            )
            await until(marker.exists)
            assert await call(tools, "echo", {"text": "still here"}) == ToolResult(
                "still here"
            )

    run(main)


def test_cancelling_a_call_sends_notifications_cancelled(
    tmp_path: pathlib.Path,
) -> None:
    marker = tmp_path / "cancelled"

    async def main() -> None:
        async with mcp.connect(SERVE) as tools:
            task = asyncio.ensure_future(call(tools, "wait", {"marker": str(marker)}))
            await asyncio.sleep(0.2)  # a head start; the check below waits however long
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await until(marker.exists)

    run(main)


async def until(condition: Callable[[], bool]) -> None:
    """Wait until `condition()` (bounded by the test's limit)."""
    while not condition():
        await asyncio.sleep(0.02)


def test_a_server_that_cannot_start_is_a_connection_error() -> None:
    async def main() -> None:
        with pytest.raises(ConnectionError) as caught:
            async with mcp.connect("toolkit-test-no-such-command --flag"):
                pass
        assert str(caught.value).startswith(
            'Cannot connect to MCP server "toolkit-test-no-such-command --flag": '
        )

    run(main)


@pytest.mark.parametrize(
    ("target", "options", "message"),
    [
        (
            "python server.py",
            {"headers": {"A": "b"}},
            "headers and auth apply to a server over HTTP, not to the command 'python server.py'",
        ),
        (
            "http://127.0.0.1:1/mcp",
            {"cwd": "/"},
            "env and cwd apply to a server started over stdio, not to http://127.0.0.1:1/mcp",
        ),
        ("", {}, "The command that starts the MCP server is empty"),
        (
            "python 'unclosed",
            {},
            'Cannot split the command line "python \'unclosed": No closing quotation',
        ),
        (
            "python server.py",
            {"timeout": 0},
            "timeout=0: give a positive number of seconds, or None",
        ),
    ],
)
def test_targets_and_options_that_do_not_fit(
    target: str, options: dict[str, Any], message: str
) -> None:
    async def main() -> None:
        with pytest.raises(ValueError, match=r".") as caught:
            async with mcp.connect(target, **options):
                pass
        assert str(caught.value) == message

    run(main)


# ---------------------------------------------------------------- HTTP


@contextlib.contextmanager
def http_server(port: int, target: str = TOOLS) -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen(
        [*SERVE[:-1], target, "--http", f"127.0.0.1:{port}"],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for_port(process, port)
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        process.wait(timeout=15)


def test_http_server_calls_and_a_restart() -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"

    async def main() -> None:
        with http_server(port):
            async with mcp.connect(url, headers={"X-Test": "1"}) as tools:
                assert await call(tools, "echo", {"text": "hi"}) == ToolResult("hi")
                died = await call(tools, "die")
                assert died.is_error
                assert died.text.startswith(
                    f'Tool "die" of MCP server "{url}" failed: the connection ended during the call: '
                )
                gone = await call(tools, "echo", {"text": "nobody"})
                assert gone.is_error
                assert "it is unavailable: ConnectError" in gone.text
                with http_server(port):
                    await asyncio.sleep(0.1)  # past the round's wait, however short
                    assert await call(tools, "echo", {"text": "back"}) == ToolResult(
                        "back"
                    )
                with http_server(port) as server:
                    first = (await call(tools, "pid")).text
                    assert first == str(server.pid)
                server_again = http_server(port)
                with server_again as server:
                    # the old server is gone and a new one answers: the call is sent again
                    assert await call(tools, "pid") == ToolResult(
                        str(server.pid), structured=server.pid
                    )

    run(main)


def test_http_credentials_stay_out_of_messages() -> None:
    async def main() -> None:
        with pytest.raises(ConnectionError) as caught:
            async with mcp.connect("http://user:secret@127.0.0.1:1/mcp"):
                pass
        assert "secret" not in str(caught.value)
        assert str(caught.value).startswith(
            'Cannot connect to MCP server "http://127.0.0.1:1/mcp": '
        )

    run(main)


# ---------------------------------------------------------------- names and changes

SDK_NAMES = {  # the server's names some API does not take, with what OpenAI is sent
    "files.read": "files_read",
    "files/move": "files_move",
    "very_"
    + "long_" * 14
    + "name": "very_long_long_long_long_long_long_long_long_long_long__8d861141",
    "2nd-read": "2nd-read",
}


def test_names_some_api_rejects_are_kept_and_each_export_sends_one_it_takes() -> None:
    async def main() -> None:
        async with mcp.connect([sys.executable, SDK_SERVER]) as tools:
            assert [name for name in tools.names if name in SDK_NAMES] == list(
                SDK_NAMES
            )
            assert all(item.remote_name == item.name for item in tools)
            sent = {entry["function"]["name"] for entry in tools.export("openai")}
            assert set(SDK_NAMES.values()) <= sent
            declared = tools.export("gemini")[0]["functionDeclarations"]
            assert {"files.read", "files_move", "_2nd-read"} <= {
                d["name"] for d in declared
            }
            read = ToolResult("read a.txt", structured={"result": "read a.txt"})
            for called in (
                "files_read",
                "files.read",
            ):  # OpenAI's name, and the server's
                assert await call(tools, called, {"path": "a.txt"}) == read
            assert await call(tools, "_2nd-read", {"path": "a.txt"}) == read  # Gemini's
            findings = [finding for finding in lint(tools) if finding.code == "renamed"]
            assert [finding.tool for finding in findings] == list(SDK_NAMES)
            assert all(
                "its MCP server would have to rename it" in f.message for f in findings
            )
            # a prefix renames the tool again; the server still gets its own name
            prefixed = tools.select("files.read").prefixed("sdk_")
            assert await call(prefixed, "sdk_files_read", {"path": "b"}) == ToolResult(
                "read b", structured={"result": "read b"}
            )

    run(main)


def test_a_server_name_another_tool_is_sent_under_leaves_that_tool_out_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def main() -> None:
        async with mcp.connect([sys.executable, SDK_SERVER]) as tools:
            assert (
                await call(tools, "grow", {"name": "files_read"})
            ).text == "added files_read"
            await until(lambda: "files_read" in tools)
            assert "files.read" not in tools  # OpenAI would be sent "files_read" for it
            assert (
                "the tool 'files.read' is left out: it and 'files_read' would both be "
                "called 'files_read' for Anthropic, OpenAI"
            ) in caplog.text
            for format in ("openai", "anthropic", "gemini", "mcp"):
                tools.export(format)  # the rest still exports everywhere
            assert await call(tools, "files_read", {"value": 3}) == ToolResult(
                "3", structured={"result": 3}
            )
            assert await call(
                tools, "files_move", {"source": "a", "target": "b"}
            ) == ToolResult("moved a to b", structured={"result": "moved a to b"})

    with caplog.at_level(logging.WARNING, logger="toolkit"):
        run(main)


def test_a_changed_tool_list_refreshes_the_set_and_its_exports() -> None:
    async def main() -> None:
        async with mcp.connect([sys.executable, SDK_SERVER]) as tools:
            before = tools.export("openai")
            echo_before = tools["files.read"]
            assert "fresh" not in tools
            assert (await call(tools, "grow", {"name": "fresh"})).text == "added fresh"
            await until(lambda: "fresh" in tools)
            after = tools.export("openai")
            assert [entry["function"]["name"] for entry in after] == [
                *[entry["function"]["name"] for entry in before],
                "fresh",
            ]
            assert (
                tools["files.read"] is echo_before
            )  # unchanged tools stay as they were
            assert await call(tools, "fresh", {"value": 7}) == ToolResult(
                "7", structured={"result": 7}
            )

    run(main)


def test_sets_composed_with_the_remote_set_follow_its_changes() -> None:
    @tool
    def local_note(text: str) -> str:
        """Keep a note.

        Args:
            text: The note.
        """
        return text

    async def main() -> None:
        async with mcp.connect([sys.executable, SDK_SERVER]) as remote:
            short = remote.filtered(lambda item: len(item.name) < 40)
            agent_tools = ToolSet([local_note]) | short.prefixed("srv_")
            before = agent_tools.export("anthropic")
            assert "srv_fresh" not in agent_tools
            assert (await call(remote, "grow", {"name": "fresh"})).text == "added fresh"
            await until(lambda: "srv_fresh" in agent_tools)
            after = agent_tools.export("anthropic")
            assert [entry["name"] for entry in after] == [
                *[entry["name"] for entry in before],
                "srv_fresh",
            ]
            assert await call(agent_tools, "srv_fresh", {"value": 7}) == ToolResult(
                "7", structured={"result": 7}
            )
            assert (await call(agent_tools, "local_note", {"text": "hi"})).text == "hi"

    run(main)


# ---------------------------------------------------------------- a ToolSet like any other


def test_composition_middleware_truncation_and_strict_exports() -> None:
    @tool
    def echo(text: str) -> str:
        """A local echo.

        Args:
            text: What to give back.
        """
        return text

    @tool
    def local_note(text: str) -> str:
        """A local tool.

        Args:
            text: Anything.
        """
        return text

    seen: list[str] = []

    async def record(call_: ToolCall, context: Context, call_next: Any) -> ToolResult:
        seen.append(call_.name)
        result: ToolResult = await call_next(call_)
        return result

    async def main() -> None:
        async with mcp.connect(SERVE) as remote:
            with pytest.raises(DuplicateToolError):
                ToolSet([echo]) | remote
            tools = ToolSet([local_note], max_output_chars=100) | remote.prefixed("r_")
            tools.use(record)
            long = await call(tools, "r_echo", {"text": "x" * 500})
            assert long.text == (
                "x" * 42 + "\n[... 437 of 500 characters cut ...]\n" + "x" * 21
            )
            assert long.structured == "x" * 500
            assert seen == ["r_echo"]

            exported = {
                entry["function"]["name"]: entry["function"]
                for entry in openai_provider.tools(tools, strict=True)
            }
            assert exported["r_echo"]["strict"] is True
            assert exported["r_tag"]["strict"] is False  # a map: never strict
            problems = openai_provider.strict_problems(tools["r_tag"])
            assert problems != ()
            codes = {
                (finding.tool, finding.code)
                for finding in lint(tools)
                if finding.tool == "r_tag"
            }
            assert ("r_tag", "openai-not-strict") in codes

            results = await openai_provider.handle(
                tools,
                "agent",
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": "c1",
                            "type": "function",
                            "function": {
                                "name": "r_add",
                                "arguments": json.dumps({"a": 1, "b": None}),
                            },
                        }
                    ],
                },
            )
            # strict exports send null for a left-out optional: the default applies
            assert results == [{"role": "tool", "tool_call_id": "c1", "content": "2"}]

    run(main)


# ---------------------------------------------------------------- the host


class RecordingHost:
    """A host that answers every request and records what it was asked."""

    def __init__(self) -> None:
        self.asked: list[tuple[Any, ...]] = []

    async def progress(
        self,
        context: Context,
        progress: float,
        total: float | None,
        message: str | None,
    ) -> None:
        self.asked.append(("progress", context.tool_name, progress, total, message))

    async def log(
        self, context: Context, level: str, message: str, data: dict[str, Any]
    ) -> None:
        self.asked.append(("log", context.tool_name, level, message))

    async def sample(
        self,
        context: Context,
        messages: list[dict[str, str]],
        *,
        system: str | None,
        max_tokens: int,
        temperature: float | None,
    ) -> str:
        self.asked.append(("sample", context.tool_name, messages, system, max_tokens))
        return "brief"

    async def elicit(
        self, context: Context, message: str, schema: dict[str, Any]
    ) -> Elicited[dict[str, Any]]:
        self.asked.append(("elicit", context.tool_name, message, schema))
        return Elicited("accept", {"name": "Grace"})

    def roots(self, context: Context) -> list[Any]:
        self.asked.append(("roots", context.tool_name))
        return ["file:///work", {"uri": "file:///data", "name": "data"}]


def test_the_servers_requests_go_to_the_host() -> None:
    host = RecordingHost()

    async def main() -> None:
        async with mcp.connect([sys.executable, SDK_SERVER], host=host) as tools:
            assert (await call(tools, "ask", {"question": "Name?"})).text == (
                "accept: Grace"
            )
            assert (await call(tools, "summarise", {"text": "a long text"})).text == (
                "brief"
            )
            assert (await call(tools, "chatty")).text == "ok"
            assert await call(tools, "roots") == ToolResult(
                "file:///work\nfile:///data",
                structured={"result": ["file:///work", "file:///data"]},
            )

    run(main)
    assert host.asked == [
        (
            "elicit",
            "ask",
            "Name?",
            {
                "type": "object",
                "properties": {
                    "name": {"default": "Ada", "title": "Name", "type": "string"}
                },
            },
        ),
        (
            "sample",
            "summarise",
            [{"role": "user", "content": "a long text"}],
            "Be brief.",
            50,
        ),
        ("log", "chatty", "info", "starting"),
        ("progress", "chatty", 1.0, 2.0, "half way"),
        ("progress", "chatty", 2.0, 2.0, "done"),
        ("roots", "roots"),
    ]


def test_a_toolkit_servers_context_reaches_the_clients_host() -> None:
    host = RecordingHost()

    async def main() -> None:
        async with mcp.connect(SERVE, host=host) as tools:
            result = await call(tools, "index", {"path": "src"})
            # the host's answer has no `tests`: the question's default applies
            assert result == ToolResult("brief; accept; tests=False")

    run(main)
    # On a 2026-07-28 connection the server cannot ask mid-call: it answers
    # with its question, and the tool runs again with each answer; each
    # question reaches the host once.
    listing = ("progress", "index", 1.0, 2.0, "listing")
    logged = ("log", "index", "info", "indexing")
    assert host.asked == [
        listing,
        logged,
        (
            "sample",
            "index",
            [{"role": "user", "content": "Summarise src"}],
            "Be brief.",
            20,
        ),
        listing,
        logged,
        (
            "elicit",
            "index",
            "Index the tests too?",
            {
                "type": "object",
                "properties": {
                    "tests": {
                        "type": "boolean",
                        "default": False,
                        "description": "Index the tests too.",
                    }
                },
            },
        ),
        listing,
        logged,
        ("progress", "index", 2.0, 2.0, "done"),
    ]


def test_without_a_host_the_client_declares_no_capability() -> None:
    async def main() -> None:
        async with mcp.connect([sys.executable, SDK_SERVER]) as tools:
            for name, args, capability in [
                ("ask", {"question": "Name?"}, "form elicitation"),
                ("summarise", {"text": "t"}, "sampling"),
                ("roots", {}, "roots"),
            ]:
                result = await call(tools, name, args)
                assert result.is_error
                assert (
                    f"Client did not declare the {capability} capability" in result.text
                )
            assert (
                await call(tools, "chatty")
            ).text == "ok"  # its log went to the logger

    run(main)


# ---------------------------------------------------------------- the command line


def test_a_server_whose_stdout_is_not_mcp_is_said_so_in_one_line() -> None:
    """A line on stdout that is not JSON-RPC: one line on stderr says why, no traceback."""
    noisy = (
        "print('Starting the add server v1.0', flush=True); import runpy, sys; "
        f"sys.argv = ['toolkit', 'serve', {TOOLS!r}]; "
        "runpy.run_module('toolkit', run_name='__main__')"
    )
    target = f"mcp:{shlex.join([sys.executable, '-c', noisy])}"
    called = toolkit("call", target, "add", '{"a": 2}')
    assert (called.returncode, called.stdout) == (0, "3\n")
    assert "Traceback" not in called.stderr
    assert called.stderr.splitlines() == [
        'The MCP server\'s stdout is not MCP: it wrote "Starting the add server v1.0", '
        "which is not a JSON-RPC message (a stdio server writes only MCP messages "
        "to stdout; its logs go to stderr)"
    ]


def test_cli_schema_of_an_mcp_server_is_the_schema_of_its_tools() -> None:
    # served and read back, the MCP definitions are those of the file
    remote = toolkit("schema", f"mcp:{LABEL}", "--format", "mcp")
    local = toolkit("schema", TOOLS, "--format", "mcp")
    assert (remote.returncode, remote.stderr) == (0, "")
    assert json.loads(remote.stdout) == json.loads(local.stdout)
    gemini = toolkit("schema", f"mcp:{LABEL}", "--format", "gemini")
    assert gemini.returncode == 0
    declarations = json.loads(gemini.stdout)[0]["functionDeclarations"]
    # the output schema's description says what a call returns, for an API without one
    assert declarations[2] == {
        "name": "point",
        "description": "Make a point.\n\nReturns: A point on a grid.",
        "parametersJsonSchema": json.loads(local.stdout)[2]["inputSchema"],
    }


def test_cli_call_and_lint_an_mcp_server() -> None:
    called = toolkit("call", f"mcp:{LABEL}", "add", '{"a": 2}')
    assert (called.returncode, called.stdout) == (0, "3\n")
    refused = toolkit("call", f"mcp:{LABEL}", "add", '{"a": "two"}')
    assert (refused.returncode, refused.stdout) == (
        1,
        'Invalid arguments for tool "add":\n- a: expected integer, got string "two"\n',
    )
    linted = toolkit("lint", f"mcp:{sys.executable} {SDK_SERVER}")
    assert linted.returncode == 1
    renamed = [line for line in linted.stdout.splitlines() if "[renamed]" in line]
    assert renamed[0] == (
        "files.read: some APIs do not take this name, so their exports send another "
        "(OpenAI 'files_read', Anthropic 'files_read'), and calls under it reach this tool; "
        "to keep one name everywhere, its MCP server would have to rename it [renamed]"
    )
    assert len(renamed) == len(SDK_NAMES)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("lint", "mcp:toolkit-test-no-such-command"),
            'toolkit: error: Cannot connect to MCP server "toolkit-test-no-such-command": '
            "FileNotFoundError: [Errno 2] No such file or directory: "
            "'toolkit-test-no-such-command'\n",
        ),
        (
            ("schema", "mcp:"),
            'toolkit: error: mcp: needs a server: mcp:"uvx mcp-server-time" or '
            "mcp:http://127.0.0.1:8000/mcp\n",
        ),
        (
            ("serve", f"mcp:{LABEL}"),
            "toolkit: error: toolkit serve takes a Python file or module; mcp: targets "
            "work with schema, call and lint\n",
        ),
    ],
)
def test_cli_mcp_targets_that_cannot_work(args: tuple[str, ...], message: str) -> None:
    done = toolkit(*args)
    assert (done.returncode, done.stderr) == (2, message)


def test_image_bytes_survive_the_trip() -> None:
    """The base64 of a content block is decoded once, to the bytes the server had."""
    from mcp import types as mcp_types

    from toolkit.mcp._definitions import result_of

    png = b"\x89PNG\r\n\x1a\nrest"
    block = mcp_types.ImageContent(
        type="image", data=base64.b64encode(png).decode(), mime_type="image/png"
    )
    result = result_of(mcp_types.CallToolResult(content=[block]))
    assert result.content == (Image(data=png, mime_type="image/png"),)


def test_an_input_schema_without_a_type_is_an_object_schema() -> None:
    from mcp import types as mcp_types

    from toolkit.mcp._definitions import new_tool, usable_tools

    (listed,) = usable_tools(
        {
            "tools": [
                {
                    "name": "find",
                    "inputSchema": {"properties": {"q": {"type": "string"}}},
                }
            ]
        },
        "2025-11-25",
        "server",
    )
    definition = mcp_types.Tool.model_validate(listed)

    async def execute(agent_id: str, call_id: str, args: Any) -> ToolResult:
        return ToolResult(str(args))

    made = new_tool("find", definition, execute, {})
    assert made.parameters == {
        "type": "object",
        "properties": {"q": {"type": "string"}},
    }
    assert made.execute("agent", "1", {"q": 1}) == ToolResult.error(
        'Invalid arguments for tool "find":\n- q: expected string, got integer 1'
    )
