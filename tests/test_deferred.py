"""Deferred loading: marks on tools and sets, each API's export, search_tools, loading, ToolSet.search."""

from __future__ import annotations

import asyncio
import itertools
import json
import signal
import subprocess
from typing import Any

import anyio
import pytest
from anthropic.types import ToolUnionParam
from google.genai import types as genai
from mcp import types as mcp_types
from openai.types.chat import ChatCompletionFunctionToolParam
from openai.types.responses import ToolParam as ResponsesToolParam

from tests.providers.oracles import assert_typed_dict
from tests.servers import serving
from toolkit import (
    Tool,
    ToolCall,
    ToolDefinitionError,
    ToolResult,
    ToolSet,
    tool,
)
from toolkit.providers import anthropic, gemini, openai, openai_responses
from toolkit.sets import _search

DEFERRED = "tests/deferred_tools.py:tools"

FORMATS = ("openai", "openai_responses", "anthropic", "gemini", "mcp")


def _tool(name: str, description: str, **options: Any) -> Tool[..., Any]:
    def run(agent_id: str, call_id: str, args: dict[str, Any]) -> str:
        return f"{name} ran"

    return Tool.new(
        name=name,
        description=description,
        parameters={
            "type": "object",
            "properties": {"text": {"type": "string", "description": "The input."}},
        },
        execute_fn=run,
        **options,
    )


def catalog() -> ToolSet:
    """Two eager tools, and two mounted sets of deferred ones."""
    eager = ToolSet(
        [_tool("get_time", "The current time."), _tool("echo", "Repeat the text.")]
    )
    github = ToolSet(
        [
            _tool("search_issues", "Search the issues of a repository."),
            _tool("create_issue", "Open a new issue in a repository."),
        ]
    )
    mail = ToolSet(
        [
            _tool("send_email", "Send an email message to a recipient."),
            _tool("list_inbox", "List the messages in the inbox."),
        ]
    )
    return eager | github.prefixed("gh_").deferred() | mail.deferred(namespace="mail")


def call(tools: ToolSet, call_id: str, name: str, args: dict[str, Any]) -> ToolResult:
    """One call through `ToolSet.run`, as a turn of a conversation makes it."""
    [result] = asyncio.run(tools.run("agent", [ToolCall(call_id, name, args)]))
    return result


def names_of(exported: Any, format: str) -> list[str]:
    if format == "openai":
        return [item["function"]["name"] for item in exported]
    if format == "gemini":
        return [item["name"] for item in exported[0]["functionDeclarations"]]
    return [item["name"] for item in exported]


# --- marks -----------------------------------------------------------------------


def test_a_tool_is_marked_by_its_decorator_and_copies_keep_the_original() -> None:
    @tool(defer_loading=True, namespace="weather")
    def forecast(city: str) -> str:
        """Forecast for a city."""
        return city

    assert (forecast.defer_loading, forecast.namespace) == (True, "weather")
    plain = _tool("plain", "Plain.")
    assert (plain.defer_loading, plain.namespace) == (False, None)
    marked = plain.marked(defer_loading=True, namespace="misc")
    assert (marked.defer_loading, marked.namespace) == (True, "misc")
    assert (plain.defer_loading, plain.namespace) == (False, None)
    assert plain.marked() is plain
    assert marked.execute("a", "c", {"text": "x"}).text == "plain ran"


@pytest.mark.parametrize("namespace", ["", "has space", "1abc", "a" * 65, 3])
def test_a_namespace_every_api_would_refuse_is_a_definition_error(
    namespace: Any,
) -> None:
    with pytest.raises(ToolDefinitionError, match="namespace of tool 'x'"):
        _tool("x", "X.", namespace=namespace)
    with pytest.raises(ToolDefinitionError, match="namespace of a ToolSet"):
        ToolSet(namespace=namespace)
    with pytest.raises(ToolDefinitionError, match="namespace of tool 'y'"):
        _tool("y", "Y.").marked(namespace=namespace)


def test_a_deferred_tool_added_to_a_set_of_eager_ones_is_searched_for() -> None:
    tools = ToolSet([_tool("one", "One.")])
    assert [item["function"]["name"] for item in tools.export("openai")] == ["one"]
    tools.add(_tool("two", "Two.", defer_loading=True))
    assert [item["function"]["name"] for item in tools.export("openai")] == [
        "one",
        "search_tools",
    ]


def test_a_function_attribute_that_defers_its_tool_is_seen_by_the_set() -> None:
    """`@tool` copies a function's attributes, as `functools.wraps` does, `defer_loading` too."""

    def lookup(query: str) -> str:
        """Look a word up."""
        return query

    lookup.defer_loading = True  # type: ignore[attr-defined]
    tools = ToolSet([tool(lookup)])
    assert [item["function"]["name"] for item in tools.export("openai")] == [
        "search_tools"
    ]


def test_a_set_marks_its_tools_given_and_added_later() -> None:
    original = _tool("one", "One.")
    tools = ToolSet([original], defer_loading=True, namespace="group")
    added = tools.add(_tool("two", "Two."))
    assert [(item.defer_loading, item.namespace) for item in tools] == [
        (True, "group"),
        (True, "group"),
    ]
    assert tools["two"] is added
    assert original.defer_loading is False


def test_views_mark_and_follow_their_source() -> None:
    source = ToolSet([_tool("one", "One.")])
    deferred = source.deferred()
    assert [item.defer_loading for item in deferred] == [True]
    source.add(_tool("two", "Two."))
    assert deferred.names == ["one", "two"]
    assert all(item.defer_loading for item in deferred)
    assert not any(item.defer_loading for item in source)
    first = deferred["one"]
    source.add(_tool("three", "Three."))
    assert deferred["one"] is first  # an unchanged tool keeps its copy


def test_a_prefixed_set_is_a_namespace_unless_its_tools_have_one() -> None:
    source = ToolSet([_tool("a", "A."), _tool("b", "B.", namespace="own")])
    assert [item.namespace for item in source.prefixed("gh_")] == ["gh", "own"]
    assert [item.namespace for item in source.prefixed("__")] == [None, "own"]


# --- exports -------------------------------------------------------------------


@pytest.mark.parametrize("format", FORMATS)
def test_a_set_without_deferred_tools_exports_as_before(format: str) -> None:
    tools = ToolSet([_tool("a", "A."), _tool("b", "B.")])
    assert names_of(tools.export(format), format) == ["a", "b"]
    assert "defer_loading" not in json.dumps(tools.export(format))


@pytest.mark.parametrize("format", ["openai", "gemini", "mcp"])
def test_apis_without_native_search_get_eager_tools_then_search_tools(
    format: str,
) -> None:
    assert names_of(catalog().export(format), format) == [
        "get_time",
        "echo",
        "search_tools",
    ]


def test_the_exports_are_accepted_by_each_sdk() -> None:
    tools = catalog()
    tools.load("gh_search_issues")
    for definition in tools.export("openai"):
        assert_typed_dict(definition, ChatCompletionFunctionToolParam)
    assert len(tools.export("gemini")) == 1
    genai.Tool.model_validate(tools.export("gemini")[0])
    for definition in tools.export("mcp"):
        mcp_types.Tool.model_validate(definition)
    for strict in (False, True):
        for definition in tools.export("openai_responses", strict=strict):
            assert_typed_dict(definition, ResponsesToolParam)
        for definition in tools.export("anthropic", strict=strict):
            assert_typed_dict(definition, ToolUnionParam)
    for definition in anthropic.tools(tools, tool_search="regex"):
        assert_typed_dict(definition, ToolUnionParam)


def test_openai_responses_defers_natively_in_namespaces() -> None:
    exported = catalog().export("openai_responses")
    assert [item["type"] for item in exported] == [
        "function",
        "function",
        "namespace",
        "namespace",
        "tool_search",
    ]
    assert exported[-1] == {"type": "tool_search"}
    github = exported[2]
    assert github["name"] == "gh"
    assert github["description"] == "Tools of gh: gh_search_issues, gh_create_issue."
    assert [item["name"] for item in github["tools"]] == [
        "gh_search_issues",
        "gh_create_issue",
    ]
    assert all(item["defer_loading"] is True for item in github["tools"])
    assert "defer_loading" not in exported[0]
    loose = openai_responses.tools([_tool("x", "X.", defer_loading=True)])
    assert [item["type"] for item in loose] == ["function", "tool_search"]
    assert loose[0]["defer_loading"] is True


def test_anthropic_defers_natively_with_its_search_tool() -> None:
    exported = catalog().export("anthropic")
    deferred = [item["name"] for item in exported if item.get("defer_loading")]
    assert deferred == [
        "gh_search_issues",
        "gh_create_issue",
        "send_email",
        "list_inbox",
    ]
    assert exported[-1] == {
        "type": "tool_search_tool_bm25_20251119",
        "name": "tool_search_tool_bm25",
    }
    assert anthropic.tools(catalog(), tool_search="regex")[-1] == {
        "type": "tool_search_tool_regex_20251119",
        "name": "tool_search_tool_regex",
    }
    with pytest.raises(ValueError, match="tool_search='fuzzy'"):
        anthropic.tools(catalog(), tool_search="fuzzy")


def test_native_exports_do_not_change_when_tools_are_loaded() -> None:
    tools = catalog()
    before = {f: json.dumps(tools.export(f)) for f in ("openai_responses", "anthropic")}
    tools.load("send_email")
    assert {f: json.dumps(tools.export(f)) for f in before} == before


def test_tools_outside_a_set_offer_search_tools_that_cannot_run() -> None:
    listed = openai.tools([_tool("a", "A."), _tool("b", "B.", defer_loading=True)])
    assert [item["function"]["name"] for item in listed] == ["a", "search_tools"]


# --- search_tools and loading ----------------------------------------------------


def test_search_tools_loads_what_it_finds_for_the_next_export() -> None:
    tools = catalog()
    result = call(tools, "1", "search_tools", {"query": "send an email"})
    assert not result.is_error
    assert result.structured == {"tools": ["send_email"]}
    assert result.text.startswith("Loaded these tools")
    assert "- send_email: Send an email message to a recipient." in result.text
    assert tools.loaded == ("send_email",)
    assert names_of(tools.export("openai"), "openai")[-2:] == [
        "search_tools",
        "send_email",
    ]
    called = call(tools, "2", "send_email", {"text": "hi"})
    assert called.text == "send_email ran"


def test_search_tools_finds_only_deferred_tools_and_says_when_none_fits() -> None:
    tools = catalog()
    result = call(tools, "1", "search_tools", {"query": "time"})
    assert result.structured == {"tools": []}
    assert "No tool matches 'time'" in result.text
    bad = call(tools, "2", "search_tools", {"q": "x"})
    assert bad.is_error
    assert tools.loaded == ()


def test_search_tools_is_unknown_to_a_set_without_deferred_tools() -> None:
    tools = ToolSet([_tool("a", "A.")])
    assert tools.execute("agent", "1", "search_tools", {"query": "a"}).is_error


@pytest.mark.parametrize("format", ["openai", "gemini", "mcp"])
def test_the_eager_part_is_byte_identical_across_turns(format: str) -> None:
    """What came before stays a byte prefix of each later export: prompt caches hold."""
    tools = catalog()
    texts = [json.dumps(tools.export(format))]
    for turn, query in enumerate(["issues of a repository", "inbox messages", "email"]):
        call(tools, str(turn), "search_tools", {"query": query})
        texts.append(json.dumps(tools.export(format)))
    eager = json.dumps(
        (
            ToolSet([tools["get_time"], tools["echo"]])
            | ToolSet([tools._catalog.search_tool(tools)])
        ).export(format)
    )
    closing = 2 if format != "gemini" else 3  # the list's (and Gemini's object's) end
    for text in texts:
        assert text.startswith(eager[:-closing])
    for before, after in itertools.pairwise(texts):
        assert after.startswith(before[:-closing])
    assert len(texts[-1]) > len(texts[0])
    assert tools.loaded == (
        "gh_search_issues",
        "gh_create_issue",
        "list_inbox",
        "send_email",
    )


def test_load_refuses_unknown_names_and_loads_each_once() -> None:
    tools = catalog()
    with pytest.raises(KeyError, match="Unknown tool"):
        tools.load("nope")
    assert tools.load("send_email", "send_email") == ("send_email",)
    assert tools.load("send_email", "list_inbox") == ("list_inbox",)
    assert tools.loaded == ("send_email", "list_inbox")


def test_each_set_loads_for_itself() -> None:
    source = catalog()
    view = source.filtered(lambda item: True)
    view.load("send_email")
    assert source.loaded == ()
    assert "send_email" not in names_of(source.export("mcp"), "mcp")


# --- ToolSet.search ---------------------------------------------------------------


def test_search_ranks_every_tool_and_indexes_only_after_a_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    built: list[int] = []
    original = _search.SearchIndex.__init__

    def counting(self: Any, tools: Any) -> None:
        built.append(1)
        original(self, tools)

    monkeypatch.setattr(_search.SearchIndex, "__init__", counting)
    tools = catalog()
    assert [item.name for item in tools.search("email", k=1)] == ["send_email"]
    assert [item.name for item in tools.search("time")] == ["get_time"]
    tools.load("send_email")  # loading changes no tool: the index stays
    assert len(built) == 1
    tools.add(_tool("send_sms", "Send a text message."))
    assert [item.name for item in tools.search("text message", k=1)] == ["send_sms"]
    assert len(built) == 2
    assert tools.search("email", k=0) == []


def test_a_list_with_deferred_tools_and_its_own_search_tools_is_refused() -> None:
    """Two tools would answer to `search_tools`: the user's and the one the export adds."""
    from toolkit import DuplicateToolError, providers

    mine = _tool("search_tools", "Search the web.")
    tools = [mine, *catalog()]
    for format in ("openai", "gemini", "mcp"):
        with pytest.raises(DuplicateToolError, match="Rename it") as raised:
            providers.get(format).tools(tools)
        assert raised.value.name == "search_tools"
    # In a set, the user's tool takes the place of the search.
    own = ToolSet([mine]) | catalog()
    assert names_of(own.export("openai"), "openai").count("search_tools") == 1
    assert call(own, "c1", "search_tools", {"text": "x"}).text == "search_tools ran"
    # Without deferred tools, nothing is added and nothing collides.
    eager = [mine, *(item.marked(defer_loading=False) for item in catalog())]
    assert "search_tools" in names_of(openai.tools(eager), "openai")


def test_gemini_and_openai_modules_offer_the_same_search_tool() -> None:
    chat = openai.tools(catalog())[-1]["function"]
    declaration = gemini.tools(catalog())[0]["functionDeclarations"][-1]
    assert chat["name"] == declaration["name"] == "search_tools"
    assert chat["parameters"] == declaration["parametersJsonSchema"]


# --- over MCP, with the official client ---------------------------------------------


def text_of(result: mcp_types.CallToolResult) -> str:
    [part] = result.content
    assert isinstance(part, mcp_types.TextContent)
    return part.text


async def _mcp_round(client: Any, changes: list[Any]) -> None:
    listed = [item.name for item in (await client.list_tools()).tools]
    assert listed == ["get_time", "echo", "search_tools"]
    found = await client.call_tool("search_tools", {"query": "send an email"})
    assert not found.is_error
    assert found.structured_content == {"tools": ["send_email"]}
    with anyio.fail_after(10):
        while not changes:
            await anyio.sleep(0.01)
    listed = [item.name for item in (await client.list_tools()).tools]
    assert listed == ["get_time", "echo", "search_tools", "send_email"]
    sent = await client.call_tool("send_email", {"text": "hi"})
    assert sent.content[0].text == "send_email ran"


async def _sees_loaded_tools(target: Any, mode: str) -> list[Any]:
    """A round of the official client of `mode`'s generation; what it was told of its tools list.

    2025-11-25: `notifications/tools/list_changed` on the session.
    2026-07-28: a `ToolsListChanged` event on the `subscriptions/listen`
    stream that the client opened (its `tools/list`, which it caches, is
    fetched again on the event); the stream's id comes first.
    """
    from mcp import Client

    changes: list[Any] = []
    opened: list[Any] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            changes.append(message)

    async def listen(client: Any, ready: anyio.Event) -> None:
        async with client.listen(tools_list_changed=True) as events:
            opened.append(events.subscription_id)
            ready.set()
            async for event in events:
                changes.append(event)

    with anyio.fail_after(60):
        async with Client(target, mode=mode, message_handler=on_message) as client:
            tools = client.server_capabilities.tools
            assert tools is not None
            assert tools.list_changed is True
            if mode == "legacy":
                await _mcp_round(client, changes)
                return changes
            assert client.session.protocol_version == "2026-07-28"
            async with anyio.create_task_group() as group:
                ready = anyio.Event()
                group.start_soon(listen, client, ready)
                await ready.wait()
                await _mcp_round(client, changes)
                group.cancel_scope.cancel()
    return [*opened, *changes]


def _assert_told(mode: str, changes: list[Any]) -> None:
    """Told once: on the session (2025-11-25), or on the listen stream only (2026-07-28).

    From 2026-07-28 the client hands the stream's notification to its
    message handler too; it carries the id of the listen request, so it
    came on that stream and not as a notification nobody asked for.
    """
    from mcp.client.subscriptions import ToolsListChanged

    if mode == "legacy":
        assert [type(item) for item in changes] == [
            mcp_types.ToolListChangedNotification
        ]
        return
    subscription, *told = changes
    [event] = [item for item in told if isinstance(item, ToolsListChanged)]
    [notification] = [item for item in told if item is not event]
    assert isinstance(notification, mcp_types.ToolListChangedNotification)
    assert notification.params is not None
    assert notification.params.meta == {
        "io.modelcontextprotocol/subscriptionId": subscription
    }


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_an_mcp_client_sees_loaded_tools_appear_in_process(mode: str) -> None:
    from toolkit.mcp import build_server

    changes = anyio.run(_sees_loaded_tools, build_server(catalog()), mode)
    _assert_told(mode, changes)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_over_stdio_the_client_of_each_generation_sees_loaded_tools(mode: str) -> None:
    import pathlib
    import sys

    from mcp import StdioServerParameters

    served = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolkit", "serve", "tests/deferred_tools.py:tools"],
        cwd=str(pathlib.Path(__file__).parent.parent),
    )
    changes = anyio.run(_sees_loaded_tools, served, mode)
    _assert_told(mode, changes)


def test_two_clients_in_process_of_one_server_each_load_for_themselves() -> None:
    from mcp import Client

    from toolkit.mcp import build_server

    server = build_server(catalog())

    async def main() -> None:
        with anyio.fail_after(60):
            async with (
                Client(server, mode="legacy") as one,
                Client(server, mode="legacy") as other,
            ):
                await _mcp_round(one, [None])
                listed = [item.name for item in (await other.list_tools()).tools]
                assert listed == ["get_time", "echo", "search_tools"]

    anyio.run(main)


def test_a_set_without_deferred_tools_answers_no_listen() -> None:
    from mcp import Client
    from mcp.shared.exceptions import MCPError

    from toolkit.mcp import build_server

    async def main() -> None:
        eager = ToolSet([item.marked(defer_loading=False) for item in catalog()])
        async with Client(build_server(eager)) as client:
            tools = client.server_capabilities.tools
            assert tools is not None
            assert not tools.list_changed
            with pytest.raises(MCPError, match="Method not found"):
                async with client.listen(tools_list_changed=True):
                    pass

    anyio.run(main)


def test_over_http_each_session_loads_for_itself() -> None:
    from mcp import Client

    async def main(url: str) -> None:
        _assert_told("legacy", await _sees_loaded_tools(url, "legacy"))
        with anyio.fail_after(60):
            async with Client(url, mode="legacy") as other:
                listed = [item.name for item in (await other.list_tools()).tools]
                assert listed == ["get_time", "echo", "search_tools"]

    with serving(DEFERRED) as (url, _):
        anyio.run(main, url)


# --- toolkit budget ------------------------------------------------------------------


def test_budget_sizes_are_what_the_model_reads_up_front() -> None:
    from toolkit.cli._budget import size, sizes, upfront

    tools = catalog()
    compact = json.dumps(tools.export("openai"), separators=(",", ":"))
    found = sizes(tools, "openai")
    assert found["as marked"].bytes == len(compact.encode())
    assert found["as marked"].tokens == -(-len(compact.encode()) // 4)
    every = ToolSet([item.marked(defer_loading=False) for item in tools])
    assert found["none deferred"] == size(every.export("openai"))
    assert (
        found["all deferred"].bytes
        < found["as marked"].bytes
        < found["none deferred"].bytes
    )
    shown = upfront("anthropic", tools.export("anthropic"))
    assert [item["name"] for item in shown] == [
        "get_time",
        "echo",
        "tool_search_tool_bm25",
    ]
    namespaces = [
        item
        for item in upfront("openai_responses", tools.export("openai_responses"))
        if item["type"] == "namespace"
    ]
    assert namespaces[0] == {
        "type": "namespace",
        "name": "gh",
        "description": "Tools of gh: gh_search_issues, gh_create_issue.",
    }


def test_the_budget_command_prints_every_api_and_each_tools_share(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from toolkit.cli._budget import sizes
    from toolkit.cli._cli import main

    assert main(["budget", "tests/deferred_tools.py:tools"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == [
        "api",
        "as",
        "marked",
        "none",
        "deferred",
        "all",
        "deferred",
    ]
    assert [line.split()[0] for line in lines[1:]] == list(FORMATS)
    marked = sizes(catalog(), "mcp")["as marked"]
    assert lines[-1].split()[1:3] == [f"{marked.bytes:,}", "B"]
    assert (
        main(["budget", "tests/deferred_tools.py:tools", "--format", "anthropic"]) == 0
    )
    lines = capsys.readouterr().out.splitlines()
    rows = lines[lines.index("") + 2 :]
    assert sorted(row.split()[0] for row in rows) == sorted(catalog().names)
    assert {row.split()[0]: row.split()[-1] for row in rows}["send_email"] == "yes"
    assert sum(float(row.split()[3].rstrip("%")) for row in rows) == pytest.approx(
        100, abs=0.1
    )


@pytest.mark.parametrize(
    ("mode", "options"), [("2026-07-28", ()), ("legacy", ("--stateless",))]
)
def test_a_client_without_a_session_reads_what_search_found_in_its_answer(
    mode: str, options: tuple[str, ...]
) -> None:
    """A request without a session (2026-07-28, or a stateless server) is on its own.

    The answer of search_tools gives the definitions, calls by name work,
    and nothing is kept: the next `tools/list` is what every client sees.
    """
    from mcp import Client

    async def main(url: str) -> None:
        with anyio.fail_after(60):
            async with Client(url, mode=mode) as client:
                found = await client.call_tool(
                    "search_tools", {"query": "send an email"}
                )
                assert found.structured_content is not None
                assert found.structured_content["tools"] == ["send_email"]
                [definition] = found.structured_content["definitions"]
                assert mcp_types.Tool.model_validate(definition).name == "send_email"
                assert '"name":"send_email"' in text_of(found)
                sent = await client.call_tool("send_email", {"text": "hi"})
                assert text_of(sent) == "send_email ran"
                listed = await client.list_tools(cache_mode="bypass")
                assert [item.name for item in listed.tools] == [
                    "get_time",
                    "echo",
                    "search_tools",
                ]

    with serving(DEFERRED, *options) as (url, _):
        anyio.run(main, url)


def test_sigterm_ends_the_listen_streams_of_http_clients_gracefully() -> None:
    """A 2026-07-28 client's listen stream is held open: the stopping server ends it, without the grace."""
    from mcp import Client

    async def main(url: str, process: subprocess.Popen[str]) -> list[Any]:
        events: list[Any] = []
        with anyio.fail_after(60):
            async with (
                Client(url) as client,
                client.listen(tools_list_changed=True) as subscription,
            ):
                process.send_signal(signal.SIGTERM)
                events.extend([event async for event in subscription])
        return events

    with serving(DEFERRED) as (url, process):
        assert anyio.run(main, url, process) == []  # ended, not lost


def test_a_tool_deferred_or_renamed_after_it_joined_a_set_is_seen_by_the_sets_export() -> (
    None
):
    """The set's decision that its tools need no check is taken again when a held tool changes."""

    @tool
    def first(x: str) -> str:
        """First."""
        return x

    @tool
    def second(x: str) -> str:
        """Second."""
        return x

    toolset = ToolSet([first, second])
    assert [item["function"]["name"] for item in toolset.export("openai")] == [
        "first",
        "second",
    ]
    second.defer_loading = True
    assert [item["function"]["name"] for item in toolset.export("openai")] == [
        "first",
        "search_tools",
    ]

    @tool
    def c(x: str) -> str:
        """C."""
        return x

    @tool
    def c_d(x: str) -> str:
        """C and D."""
        return x

    renamed = ToolSet([c, c_d])
    renamed.export("openai")
    c.name = "c.d"  # OpenAI would call it c_d too
    with pytest.raises(ToolDefinitionError, match="c_d"):
        renamed.export("openai")


def test_a_held_tool_described_anew_is_exported_anew() -> None:
    @tool
    def first(x: str) -> str:
        """First."""
        return x

    toolset = ToolSet([first])
    assert toolset.export("openai")[0]["function"]["description"] == "First."
    first.description = "The first one."
    assert toolset.export("openai")[0]["function"]["description"] == "The first one."
