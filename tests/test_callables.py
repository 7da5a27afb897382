"""Every kind of callable `tool(...)` accepts, through every way a tool is used.

Functions, async functions, bound methods (sync, async, with a `Context`
first), methods decorated in their class body, classmethods and
staticmethods reached through the class and through an instance, partials,
callable objects, `functools.wraps`-decorated functions and methods (sync
and async), and methods of a dataclass and of a class with `__slots__`:
each through its schema, `execute`, `aexecute`, `ToolSet.run` and the MCP
server, listed and called by the official MCP client over stdio (one server
for the whole module). The callables that cannot be tools fail when the tool
is made, with the fix.
"""

from __future__ import annotations

import asyncio
import functools
import pathlib
from typing import Any

import anyio
import pytest
from mcp.types import TextContent

from tests import callable_tools
from tests.callable_tools import Counter, Inventory, Repo, Weather, scaled, tools
from tests.servers import stdio_session
from toolkit import Tool, ToolCall, ToolDefinitionError, ToolResult, ToolSet, tool

ROOT = pathlib.Path(__file__).parent.parent
TARGET = f"{ROOT / 'tests' / 'callable_tools.py'}:tools"
LIMIT = 60  # seconds, for the served module

# (tool name, its properties in order, required, arguments, the result text)
CASES: list[tuple[str, list[str], list[str], dict[str, Any], str]] = [
    ("add", ["a", "b"], ["a", "b"], {"a": 2, "b": 3}, "5"),
    ("multiply", ["a", "b"], ["a", "b"], {"a": 2, "b": 3}, "6"),
    ("forecast", ["city", "days"], ["city"], {"city": "Oslo"}, "Oslo: 1 day(s) in c"),
    ("aforecast", ["city"], ["city"], {"city": "Oslo"}, "Oslo in c (async)"),
    (
        "weather_located",
        ["city"],
        ["city"],
        {"city": "Oslo"},
        "weather_located Oslo in c",
    ),
    ("report", ["city"], ["city"], {"city": "Oslo"}, "report for Oslo in c"),
    ("units", ["city"], ["city"], {"city": "Oslo"}, "Weather units of Oslo"),
    ("normalise", ["city"], ["city"], {"city": " oslo "}, "Oslo"),
    ("find", ["key"], ["key"], {"key": "k1"}, "repo/k1"),
    ("afind", ["key"], ["key"], {"key": "k1"}, "repo/k1 (async)"),
    ("repo_located", ["key"], ["key"], {"key": "k1"}, "repo_located repo/k1"),
    ("slug", ["text"], ["text"], {"text": "Hello World"}, "hello-world"),
    ("scaled", ["value"], ["value"], {"value": 4}, "41"),
    ("ascaled", ["value"], ["value"], {"value": 4}, "12"),
    ("Counter", ["step"], ["step"], {"step": 2}, "counted 2"),
    ("AsyncCounter", ["step"], ["step"], {"step": 2}, "counted 2 (async)"),
    ("find_on_instance", ["key"], ["key"], {"key": "k1"}, "repo/k1"),
    ("slug_on_instance", ["text"], ["text"], {"text": "A B"}, "a-b"),
    ("shout", ["text"], ["text"], {"text": "hi"}, "HI"),
    ("ashout", ["text"], ["text"], {"text": "hi"}, "HI (async)"),
    ("send", ["to"], ["to"], {"to": "ada"}, "sent to ada"),
    ("asend", ["to"], ["to"], {"to": "ada"}, "sent to ada (async)"),
    ("deposit", ["amount"], ["amount"], {"amount": 0}, "balance 0"),
    ("bump", ["by"], ["by"], {"by": 0}, "tally 0"),
]
NAMES = [case[0] for case in CASES]


def test_the_target_holds_every_case() -> None:
    assert tools.names == NAMES


@pytest.mark.parametrize(("name", "properties", "required", "args", "text"), CASES)
def test_schema_keeps_every_real_parameter(
    name: str,
    properties: list[str],
    required: list[str],
    args: dict[str, Any],
    text: str,
) -> None:
    schema = tools[name].parameters
    assert list(schema["properties"]) == properties
    assert schema["required"] == required
    assert schema["additionalProperties"] is False


def test_every_kind_exports_in_every_format() -> None:
    """Each export carries the same parameters, and the SDKs' own types accept them."""
    from anthropic.types import ToolParam
    from openai.types.chat import ChatCompletionToolParam
    from pydantic import TypeAdapter

    for name in NAMES:
        parameters = tools[name].parameters
        assert tools.export("json")[NAMES.index(name)]["parameters"] == parameters
        assert tools.export("mcp")[NAMES.index(name)]["inputSchema"] == parameters
        assert tools.export("anthropic")[NAMES.index(name)]["input_schema"] == (
            parameters
        )
    TypeAdapter(list[ChatCompletionToolParam]).validate_python(tools.export("openai"))
    TypeAdapter(list[ToolParam]).validate_python(tools.export("anthropic"))


def test_bound_method_schema_whole() -> None:
    assert dict(tool(Weather("f").forecast).parameters) == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "The city."},
            "days": {"type": "integer", "default": 1, "description": "How many days."},
        },
        "required": ["city"],
        "additionalProperties": False,
    }


@pytest.mark.parametrize(("name", "properties", "required", "args", "text"), CASES)
def test_execute(
    name: str,
    properties: list[str],
    required: list[str],
    args: dict[str, Any],
    text: str,
) -> None:
    assert tools[name].execute("agent", "call-1", args) == ToolResult(text)
    assert tools.execute("agent", "call-1", name, args) == ToolResult(text)


@pytest.mark.parametrize(("name", "properties", "required", "args", "text"), CASES)
def test_aexecute(
    name: str,
    properties: list[str],
    required: list[str],
    args: dict[str, Any],
    text: str,
) -> None:
    async def both() -> tuple[ToolResult, ToolResult]:
        return (
            await tools[name].aexecute("agent", "call-1", args),
            await tools.aexecute("agent", "call-1", name, args),
        )

    assert asyncio.run(both()) == (ToolResult(text), ToolResult(text))


@pytest.mark.parametrize(("name", "properties", "required", "args", "text"), CASES)
def test_bad_arguments_are_an_error_result(
    name: str,
    properties: list[str],
    required: list[str],
    args: dict[str, Any],
    text: str,
) -> None:
    result = tools[name].execute("agent", "call-1", {})
    assert result.is_error is True
    assert result.text.startswith(f'Invalid arguments for tool "{name}":\n')
    assert f"- {required[0]}: required property is missing" in result.text


def test_run_calls_every_kind_in_one_batch() -> None:
    calls = [
        ToolCall(id=f"call-{index}", name=name, args=args)
        for index, (name, _, _, args, _) in enumerate(CASES)
    ]
    results = asyncio.run(tools.run("agent", calls))
    assert [result.text for result in results] == [case[4] for case in CASES]
    assert not any(result.is_error for result in results)


def test_the_tool_still_calls_the_callable_unchanged() -> None:
    assert tools["forecast"]("Rome", 2) == "Rome: 2 day(s) in c"
    assert tools["find"]("x") == "repo/x"
    assert tools["scaled"](2) == "21"
    assert tools["Counter"](5) == "counted 5"
    assert asyncio.run(tools["AsyncCounter"](5)) == "counted 5 (async)"


def test_a_tool_keeps_the_names_of_what_it_wraps() -> None:
    forecast = tools["forecast"]
    assert (forecast.__name__, forecast.__qualname__) == (
        "forecast",
        "Weather.forecast",
    )
    assert forecast.__wrapped__ == callable_tools.celsius.forecast
    counter = tools["Counter"]
    assert (counter.__name__, counter.__qualname__) == ("Counter", "Counter")
    assert tools["scaled"].__name__ == "scaled"


def test_a_partial_leaves_its_bound_arguments_out() -> None:
    partial_tool = tool(functools.partial(scaled, 10, offset=1))
    assert list(partial_tool.parameters["properties"]) == ["value"]
    result = partial_tool.execute("agent", "call-1", {"value": 1, "offset": 5})
    assert result == ToolResult.error(
        'Invalid arguments for tool "scaled":\n- offset: unknown argument; valid arguments: value'
    )


def test_a_callable_object_keeps_its_own_attributes_apart() -> None:
    class Named:
        def __init__(self) -> None:
            self.name = "not the tool name"
            self.timeout = "not a timeout"

        def __call__(self, n: int) -> str:
            """Echo."""
            return str(n)

    made = tool(Named())
    assert (made.name, made.timeout) == ("Named", None)
    assert made.execute("agent", "call-1", {"n": 3}) == ToolResult("3")


# ------------------------------------------------------------------ refused

_UNBOUND = (
    "it is an instance method taken from its class, so nothing would be passed as 'self'. "
    "Bind it: tool(Inventory().stock_level) (with any instance), or decorate the method "
    "with @tool in its class body"
)


def test_an_unbound_instance_method_is_refused() -> None:
    with pytest.raises(ToolDefinitionError) as caught:
        tool(Inventory.stock_level)
    assert str(caught.value) == (
        f"Cannot make a tool of Inventory.stock_level: {_UNBOUND}"
    )
    assert caught.value.function == "Inventory.stock_level"


def test_an_unbound_instance_method_is_refused_by_a_toolset() -> None:
    with pytest.raises(ToolDefinitionError) as caught:
        ToolSet([Inventory.stock_level])  # type: ignore[list-item]
    assert str(caught.value) == (
        f"ToolSet.add needs a Tool; Inventory.stock_level cannot be one: {_UNBOUND}"
    )
    with pytest.raises(ToolDefinitionError):
        ToolSet().tool(Inventory.stock_level)


def test_a_plain_function_given_to_a_toolset_says_how_to_make_a_tool() -> None:
    with pytest.raises(ToolDefinitionError) as caught:
        ToolSet([scaled])  # type: ignore[list-item]
    assert str(caught.value) == (
        "ToolSet.add needs a Tool; got scaled. Make one with tool(scaled), "
        "or decorate the function with @tool"
    )
    assert isinstance(caught.value, TypeError)


def test_a_builtin_without_a_signature_is_refused() -> None:
    with pytest.raises(ToolDefinitionError) as caught:
        tool(min)
    assert str(caught.value) == (
        "Cannot make a tool of min: Python cannot read its signature "
        "(no signature found for builtin <built-in function min>); builtins written "
        "in C often have none. Wrap it in a function with annotated parameters and "
        "call it from there"
    )


def test_a_method_decorated_in_a_local_class_body_is_bound_later() -> None:
    class Local:
        @tool
        def ping(self, n: int) -> str:
            """Ping."""
            return f"pong {n}"

    assert list(Local.ping.parameters["properties"]) == ["n"]
    bound = Local().ping
    assert isinstance(bound, Tool)
    assert bound.execute("agent", "call-1", {"n": 1}) == ToolResult("pong 1")
    with pytest.raises(ToolDefinitionError, match="instance method taken from"):
        tool(Local.ping.__wrapped__)


def test_a_classmethod_through_an_instance_is_a_bound_method_too() -> None:
    made = tool(Repo().find)
    assert made.execute("agent", "call-1", {"key": "z"}) == ToolResult("repo/z")


def test_a_counter_tool_is_made_per_object() -> None:
    first, second = tool(Counter()), tool(Counter())
    assert first is not second
    assert first.parameters == second.parameters


# ------------------------------------------------------------------ served


@pytest.fixture(name="served", scope="module")
def fixture_served() -> dict[str, Any]:
    """The listing and one call of each tool, from one server process."""

    async def main() -> dict[str, Any]:
        with anyio.fail_after(LIMIT):
            async with stdio_session(TARGET) as session:
                listed = await session.list_tools()
                calls = {
                    name: await session.call_tool(name, args)
                    for name, _, _, args, _ in CASES
                }
                bad = await session.call_tool("scaled", {"value": 1, "offset": 2})
                return {
                    "tools": {item.name: item for item in listed.tools},
                    "calls": calls,
                    "bad": bad,
                }

    return anyio.run(main)


def test_served_listing_has_every_kind(served: dict[str, Any]) -> None:
    assert list(served["tools"]) == NAMES


@pytest.mark.parametrize(("name", "properties", "required", "args", "text"), CASES)
def test_served(
    served: dict[str, Any],
    name: str,
    properties: list[str],
    required: list[str],
    args: dict[str, Any],
    text: str,
) -> None:
    listed = served["tools"][name]
    assert listed.input_schema == tools[name].parameters
    assert list(listed.input_schema["properties"]) == properties
    result = served["calls"][name]
    assert result.is_error is False
    block = result.content[0]
    assert isinstance(block, TextContent)
    assert block.text == text


def test_served_partial_refuses_its_bound_argument(served: dict[str, Any]) -> None:
    bad = served["bad"]
    assert bad.is_error is True
    block = bad.content[0]
    assert isinstance(block, TextContent)
    assert block.text == (
        'Invalid arguments for tool "scaled":\n- offset: unknown argument; valid arguments: value'
    )
