"""Tool names: any name of the accepted class, a name each API takes on the wire, and back.

The oracles: each API's documented name rule, written here as its regex
(not toolkit's), the SDKs' types for every export, and the provider's own
`parse_calls`/`handle` for the way back.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from typing import Any

import pytest
from google.genai import types as genai
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp import types as mcp_types
from openai.types.chat import ChatCompletionFunctionToolParam
from openai.types.responses import FunctionToolParam

from tests.providers.oracles import assert_round_trip, assert_typed_dict
from toolkit import Tool, ToolCall, ToolDefinitionError, ToolResult, ToolSet, providers
from toolkit.tools._names import (
    API_RULES,
    RULES,
    TOOL_NAMES,
    clashes,
    sent_as_is,
    valid_name,
    wire_name,
)

API_NAMES = {
    # openai SDK, FunctionDefinition.name: "a-z, A-Z, 0-9, underscores and dashes, max 64"
    "openai": re.compile(r"[a-zA-Z0-9_-]{1,64}"),
    "openai_responses": re.compile(r"[a-zA-Z0-9_-]{1,64}"),
    # Messages API reference: tools[].name, the pattern its validation errors quote
    "anthropic": re.compile(r"[a-zA-Z0-9_-]{1,128}"),
    # google-genai FunctionDeclaration.name (a letter or _ first; _ . : -), Gemini API's 64
    "gemini": re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,63}"),
}
"""What each API takes, from its documentation."""

names = st.text(
    st.characters(
        blacklist_categories=("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs")
    ).filter(lambda char: not char.isspace() and char.isprintable()),
    min_size=1,
    max_size=128,
)
"""Any tool name: 1 to 128 printable characters without whitespace."""

tricky = st.sampled_from(
    [
        "a.b",
        "a_b",
        "a:b",
        "a/b",
        "1x",
        "_1x",
        ".1x",
        "-",
        "_",
        "x" * 64,
        "x" * 65,
        "x" * 128,
    ]
)
"""Names whose wire names meet: the class that collides, not just a case."""


def _echo(name: str) -> Tool[Any, Any]:
    """A tool that answers with its own name, so a call shows which tool it reached."""
    return Tool.new(
        name=name,
        description="Say which tool this is.",
        parameters={"type": "object", "properties": {}},
        execute_fn=lambda agent_id, call_id, args: name,
    )


def _sha(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()[:8]


# ---------------------------------------------------------------- one name


@pytest.mark.parametrize(
    ("name", "openai", "gemini"),
    [
        ("search", "search", "search"),
        ("math.factorial", "math_factorial", "math.factorial"),
        ("github/search_issues", "github_search_issues", "github_search_issues"),
        ("db:query", "db_query", "db:query"),
        ("über", "_ber", "_ber"),
        ("2nd-read", "2nd-read", "_2nd-read"),
        ("x" * 64, "x" * 64, "x" * 64),
        ("x" * 65, "x" * 55 + "_" + _sha("x" * 65), "x" * 55 + "_" + _sha("x" * 65)),
        ("1" + "x" * 63, "1" + "x" * 63, "_1" + "x" * 53 + "_" + _sha("1" + "x" * 63)),
    ],
)
def test_wire_names(name: str, openai: str, gemini: str) -> None:
    made = _echo(name)
    assert made.wire_name("openai") == made.wire_name("openai_responses") == openai
    assert made.wire_name("gemini") == gemini
    assert made.wire_name("mcp") == made.wire_name("json") == name


def test_an_unknown_format_is_refused_with_the_list() -> None:
    with pytest.raises(
        ValueError, match="Unknown export format 'nope'; use one of json, openai"
    ):
        _echo("a").wire_name("nope")


def test_the_formats_are_the_providers() -> None:
    assert set(RULES) == {"json", *providers.NAMES}


@settings(max_examples=300, deadline=None)
@given(names)
def test_any_name_has_a_wire_name_each_api_takes(name: str) -> None:
    for format, pattern in API_NAMES.items():
        sent = wire_name(name, RULES[format])
        assert pattern.fullmatch(sent), (format, name, sent)
        assert TOOL_NAMES.fits(sent)  # a wire name is a tool name too
        if pattern.fullmatch(name):
            assert sent == name  # a name the API takes is sent as it is
    assert wire_name(name, RULES["mcp"]) == name


@given(names | tricky | st.from_regex(r"[A-Za-z0-9_.:-]{1,70}", fullmatch=True))
def test_a_name_every_api_takes_as_it_is_is_the_one_none_renames(name: str) -> None:
    assert sent_as_is(name) == all(rule.fits(name) for rule in API_RULES)
    assert sent_as_is(name) == all(
        pattern.fullmatch(name) is not None for pattern in API_NAMES.values()
    )


def test_a_tool_added_to_a_set_no_api_renames_is_checked_when_exported() -> None:
    """A set that had no tool to check still checks one added, or listed again."""
    for change in ("add", "assign"):
        tools = ToolSet([_echo("math_factorial")])
        tools.export("openai")  # nothing to check: every name is sent as it is
        added = _echo("math.factorial")
        if change == "add":
            tools.add(added)
        else:
            tools._assign(
                {"math_factorial": tools["math_factorial"], added.name: added}
            )
        for format in ("openai", "openai_responses"):
            with pytest.raises(ToolDefinitionError, match="would both be called"):
                tools.export(format)


@given(names | st.text(max_size=130))
def test_what_a_tool_name_is_is_said_once(name: str) -> None:
    assert valid_name(name) == TOOL_NAMES.fits(name)


# ---------------------------------------------------------------- a set of names


def _exports(tools: ToolSet) -> dict[str, Any]:
    """Each format's export, or the error that refused it."""
    found: dict[str, Any] = {}
    for format in providers.NAMES:
        try:
            found[format] = tools.export(format)
        except ToolDefinitionError as error:
            found[format] = error
    return found


def _sent(format: str, export: Any) -> list[str]:
    if format == "openai":
        return [entry["function"]["name"] for entry in export]
    if format == "gemini":
        return [entry["name"] for entry in export[0]["functionDeclarations"]]
    return [entry["name"] for entry in export]


def _assert_sdk_types(format: str, export: Any) -> None:
    from anthropic.types import ToolParam

    if format == "openai":
        for entry in export:
            assert_typed_dict(entry, ChatCompletionFunctionToolParam)
    elif format == "openai_responses":
        for entry in export:
            assert_typed_dict(entry, FunctionToolParam)
    elif format == "anthropic":
        for entry in export:
            assert_typed_dict(entry, ToolParam)
    elif format == "gemini":
        genai.Tool.model_validate(export[0])
    else:
        for entry in export:
            assert_round_trip(mcp_types.Tool, entry)


def _shared(chosen: list[str], format: str) -> bool:
    """Whether a name `format` is sent instead of a tool's own is another tool's name on some API."""
    answers = {
        name: {name, *(wire_name(name, rule) for rule in RULES.values())}
        for name in chosen
    }
    return any(
        wire_name(name, RULES[format]) != name
        and wire_name(name, RULES[format]) in answers[other]
        for name in chosen
        for other in chosen
        if other != name
    )


@settings(max_examples=60, deadline=None)
@given(st.lists(names | tricky, min_size=1, max_size=6, unique=True))
def test_every_export_sends_names_its_api_takes_and_calls_reach_the_tool(
    chosen: list[str],
) -> None:
    tools = ToolSet([_echo(name) for name in chosen])
    for format, export in _exports(tools).items():
        if isinstance(export, ToolDefinitionError):  # two tools would share a name
            assert sum(repr(name) in str(export) for name in chosen) >= 2
            assert _shared(chosen, format)
            continue
        assert not _shared(chosen, format)
        _assert_sdk_types(format, export)
        sent = _sent(format, export)
        assert sent == [tools[name].wire_name(format) for name in chosen]
        assert len(set(sent)) == len(sent)  # no two tools share one
        if format in API_NAMES:
            assert all(API_NAMES[format].fullmatch(each) for each in sent)
        calls = providers.get(format).parse_calls(_called(format, sent))
        assert [call.name for call in calls] == sent
        results = asyncio.run(tools.run("a", calls))
        assert [result.text for result in results] == chosen  # each reached its tool


@settings(deadline=None)
@given(st.lists(names | tricky, min_size=2, max_size=6, unique=True), st.randoms())
def test_a_wire_name_never_depends_on_the_other_tools_or_their_order(
    chosen: list[str], random: Any
) -> None:
    shuffled = list(chosen)
    random.shuffle(shuffled)
    left_out = clashes(chosen, API_RULES)
    assert clashes(shuffled, API_RULES) == left_out
    kept = ToolSet([_echo(name) for name in chosen if name not in left_out])
    for format in providers.NAMES:
        kept.export(
            format
        )  # what is kept exports everywhere: no two answer to one name
    for name in chosen:
        alone = ToolSet([_echo(name)])
        assert _echo(name).wire_name("openai") == alone[name].wire_name("openai")


# ---------------------------------------------------------------- collisions


def test_two_tools_with_one_wire_name_are_an_error_naming_both() -> None:
    tools = ToolSet([_echo("math.factorial"), _echo("math_factorial")])
    message = (
        "The tools 'math.factorial' and 'math_factorial' would both be called 'math_factorial': "
        "{api} takes letters, digits, '_' and '-', at most {limit}, so it is sent "
        "'math_factorial' for 'math.factorial'. Rename one of them"
    )
    for format, api, limit in (
        ("openai", "OpenAI", 64),
        ("openai_responses", "OpenAI", 64),
        ("anthropic", "Anthropic", 128),
    ):
        with pytest.raises(ToolDefinitionError) as caught:
            tools.export(format)
        assert str(caught.value) == message.format(api=api, limit=limit)
    # Gemini takes dots, MCP every name: both tools keep their own names there
    assert _sent("gemini", tools.export("gemini")) == [
        "math.factorial",
        "math_factorial",
    ]
    assert _sent("mcp", tools.export("mcp")) == ["math.factorial", "math_factorial"]
    results = asyncio.run(tools.run("a", [ToolCall("1", "math_factorial", {})]))
    assert results == [ToolResult("math_factorial")]  # a tool's own name comes first


def test_a_tool_renamed_after_an_export_is_checked_under_its_new_name() -> None:
    """The names kept with a tool for the check follow its renaming, as its envelope does."""
    renamed = _echo("math_fact")
    plain = _echo("math_factorial")
    for format in ("openai", "anthropic", "gemini"):
        ToolSet([renamed, plain]).export(format)  # kept: each is sent as it is
    renamed.name = "math.factorial"
    for format in ("openai", "anthropic"):
        with pytest.raises(ToolDefinitionError, match="would both be called"):
            ToolSet([renamed, plain]).export(format)
    assert _sent("gemini", ToolSet([renamed, plain]).export("gemini")) == [
        "math.factorial",
        "math_factorial",
    ]
    renamed.name = "math_fact"
    assert _sent("openai", ToolSet([renamed, plain]).export("openai")) == [
        "math_fact",
        "math_factorial",
    ]


def test_a_name_sent_for_one_tool_on_one_api_and_another_on_another_is_refused() -> (
    None
):
    tools = ToolSet(
        [_echo("1x"), _echo(".1x")]
    )  # Gemini is sent "_1x" for one, OpenAI for the other
    assert tools["1x"].wire_name("gemini") == tools[".1x"].wire_name("openai") == "_1x"
    for format in ("openai", "gemini"):
        with pytest.raises(
            ToolDefinitionError, match=r"'\.1x' and '1x'|'1x' and '\.1x'"
        ):
            tools.export(format)
    (result,) = asyncio.run(tools.run("a", [ToolCall("1", "_1x", {})]))
    assert result.text.startswith('Unknown tool "_1x"')  # no export sent it


# ---------------------------------------------------------------- each provider, both ways


def _called(format: str, names: list[str]) -> Any:
    """A model's response calling each of `names`, as each API shapes it."""
    ids = [f"c{index}" for index in range(len(names))]
    if format == "openai":
        return {
            "tool_calls": [
                {
                    "id": id,
                    "type": "function",
                    "function": {"name": name, "arguments": "{}"},
                }
                for id, name in zip(ids, names, strict=True)
            ]
        }
    if format == "openai_responses":
        return {
            "output": [
                {
                    "type": "function_call",
                    "call_id": id,
                    "name": name,
                    "arguments": "{}",
                }
                for id, name in zip(ids, names, strict=True)
            ]
        }
    if format == "anthropic":
        return {
            "content": [
                {"type": "tool_use", "id": id, "name": name, "input": {}}
                for id, name in zip(ids, names, strict=True)
            ]
        }
    if format == "gemini":
        return {
            "parts": [
                {"functionCall": {"id": id, "name": name, "args": {}}}
                for id, name in zip(ids, names, strict=True)
            ]
        }
    return [{"name": name, "arguments": {}} for name in names]


@pytest.mark.parametrize("format", providers.NAMES)
@pytest.mark.parametrize(
    "name", ["math.factorial", "github/search_issues", "x" * 100, "2fa"]
)
def test_each_provider_handles_a_call_by_the_name_it_was_sent(
    format: str, name: str
) -> None:
    tools = ToolSet([_echo(name), _echo("other")])
    sent = _sent(format, tools.export(format))[0]
    provider = providers.get(format)
    (call,) = provider.parse_calls(_called(format, [sent]))
    assert call.name == sent  # as the API sent it, for the reply that names it
    reply = asyncio.run(provider.handle(tools, "a", _called(format, [sent])))
    assert name in str(reply)
    if format == "gemini":  # the response names the function as it was declared
        assert reply["parts"][0]["functionResponse"]["name"] == sent
        genai.Content.model_validate(reply)


# ---------------------------------------------------------------- an MCP server's names


@pytest.mark.parametrize(
    ("remote", "name"),
    [
        ("files.read", "files.read"),
        ("has space", "has_space"),
        ("", "_"),
        ("tab\tnul\x00", "tab_nul_"),
        ("y" * 129, "y" * 119 + "_" + _sha("y" * 129)),
    ],
)
def test_a_server_name_that_is_not_a_tool_name_becomes_one(
    remote: str, name: str
) -> None:
    assert wire_name(remote, TOOL_NAMES) == name


def test_which_of_two_server_names_gives_way_never_depends_on_the_order() -> None:
    for order in (["a.b", "a_b", "c"], ["c", "a_b", "a.b"]):
        assert clashes(order, API_RULES) == {
            "a.b": "it and 'a_b' would both be called 'a_b' for Anthropic, OpenAI"
        }
    assert clashes(["a b", "a_b"], [TOOL_NAMES]) == {
        "a b": "it and 'a_b' would both be called 'a_b' for tool names"
    }
    assert clashes(
        ["a.b", "a:b"], API_RULES
    ) == {  # neither is sent as it is: the first stays
        "a:b": "it and 'a.b' would both be called 'a_b' for Anthropic, OpenAI"
    }
    assert clashes(["1x", ".1x"], API_RULES) == {  # on different APIs
        ".1x": "it and '1x' would both be called '_1x' for Anthropic, Gemini, OpenAI"
    }
