"""Defaults written the pydantic way, as FastMCP and MCP SDK users write them.

`x: int = Field(1, ge=0)`, `Annotated[str, Field(default="Unknown")]` and
`Field(default_factory=list)` give the parameter its default (in the schema,
and passed at each call that leaves it out) and their constraints (in the
schema, and checked at each call). Two different defaults for one parameter
are refused, saying which to keep.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import pytest
from pydantic import Field

from toolkit import ToolCall, ToolDefinitionError, ToolResult, ToolSet, tool
from toolkit.providers import openai


def _call(made: Any, args: dict[str, Any]) -> ToolResult:
    result: ToolResult = made.execute("agent", "call-1", args)
    return result


def test_annotated_field_default_and_constraint() -> None:
    @tool
    def greet(name: Annotated[str, Field(default="Unknown", min_length=1)]) -> str:
        """Greet someone."""
        return f"hello {name}"

    assert dict(greet.parameters) == {
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 1, "default": "Unknown"}
        },
        "additionalProperties": False,
    }
    assert _call(greet, {}) == ToolResult("hello Unknown")
    assert _call(greet, {"name": "Ada"}) == ToolResult("hello Ada")
    assert _call(greet, {"name": ""}) == ToolResult.error(
        'Invalid arguments for tool "greet":\n- name: "" is shorter than 1 characters'
    )


def test_field_as_the_default_value() -> None:
    @tool
    def count(x: int = Field(1, ge=0, description="How many.")) -> str:
        """Count."""
        return f"{x!r} ({type(x).__name__})"

    assert dict(count.parameters) == {
        "type": "object",
        "properties": {
            "x": {
                "type": "integer",
                "minimum": 0,
                "default": 1,
                "description": "How many.",
            }
        },
        "additionalProperties": False,
    }
    assert _call(count, {}) == ToolResult("1 (int)")
    assert _call(count, {"x": 5}) == ToolResult("5 (int)")
    assert _call(count, {"x": -1}) == ToolResult.error(
        'Invalid arguments for tool "count":\n- x: -1 is less than the minimum of 0'
    )


def test_field_without_a_default_keeps_the_parameter_required() -> None:
    @tool
    def find(query: str = Field(description="Words to look for.")) -> str:
        """Find."""
        return query

    assert dict(find.parameters) == {
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "Words to look for."}
        },
        "required": ["query"],
        "additionalProperties": False,
    }
    assert _call(find, {}).is_error is True
    assert _call(find, {"query": "q"}) == ToolResult("q")


def test_default_factory_makes_a_new_default_for_each_call() -> None:
    @tool
    def collect(tags: list[str] = Field(default_factory=list)) -> str:  # noqa: B008  # as pydantic's users write it
        """Collect."""
        tags.append("seen")
        return ",".join(tags)

    assert dict(collect.parameters) == {
        "type": "object",
        "properties": {"tags": {"type": "array", "items": {"type": "string"}}},
        "additionalProperties": False,
    }
    assert _call(collect, {}) == ToolResult("seen")
    assert _call(collect, {}) == ToolResult("seen")
    assert _call(collect, {"tags": ["a"]}) == ToolResult("a,seen")


def test_a_mutable_default_is_fresh_for_each_call() -> None:
    @tool
    def collect(tags: Annotated[list[str], Field(default=["x"])]) -> str:
        """Collect."""
        tags.append("seen")
        return ",".join(tags)

    assert collect.parameters["properties"]["tags"]["default"] == ["x"]
    assert _call(collect, {}) == ToolResult("x,seen")
    assert _call(collect, {}) == ToolResult("x,seen")


def test_a_failing_default_factory_is_an_error_result() -> None:
    def broken() -> list[str]:
        msg = "no default today"
        raise RuntimeError(msg)

    @tool
    def collect(tags: list[str] = Field(default_factory=broken)) -> str:  # noqa: B008  # as pydantic's users write it
        """Collect."""
        return ",".join(tags)

    assert _call(collect, {}) == ToolResult.error(
        'The default of "tags" for tool "collect" could not be made: RuntimeError: no default today'
    )
    assert _call(collect, {"tags": ["a"]}) == ToolResult("a")


def test_two_different_defaults_are_refused() -> None:
    def both(x: Annotated[int, Field(default=4)] = 3) -> str:
        """Both."""
        return str(x)

    with pytest.raises(ToolDefinitionError) as caught:
        tool(both)
    assert str(caught.value) == (
        "Cannot make a tool of test_two_different_defaults_are_refused.<locals>.both: "
        "parameter 'x': it has two defaults, `= 3` and `Field(default=4)` in Annotated. "
        "Keep one: remove the default from the Field in Annotated and keep `= 3`, "
        "or remove `= 3`"
    )


def test_two_fields_with_different_defaults_are_refused() -> None:
    def both(x: Annotated[int, Field(default=4)] = Field(5)) -> str:
        """Both."""
        return str(x)

    with pytest.raises(ToolDefinitionError, match="it has two defaults, `= Field"):
        tool(both)


def test_the_same_default_twice_is_one_default() -> None:
    @tool
    def same(x: Annotated[int, Field(default=3, le=9)] = 3) -> str:
        """Same."""
        return str(x)

    assert same.parameters["properties"]["x"] == {
        "type": "integer",
        "maximum": 9,
        "default": 3,
    }
    assert _call(same, {}) == ToolResult("3")


def test_a_field_default_that_does_not_fit_is_refused() -> None:
    def wrong(x: int = Field("three")) -> str:  # type: ignore[assignment]  # under test
        """Wrong."""
        return str(x)

    with pytest.raises(
        ToolDefinitionError,
        match=r"parameter 'x': its default 'three' does not fit its annotation int",
    ):
        tool(wrong)


def test_async_tool_and_positional_only_parameter() -> None:
    @tool
    async def scale(factor: int = Field(2), /, value: int = Field(10)) -> str:
        """Scale."""
        return str(factor * value)

    assert asyncio.run(scale.aexecute("agent", "call-1", {})) == ToolResult("20")
    assert asyncio.run(scale.aexecute("agent", "call-1", {"value": 3})) == (
        ToolResult("6")
    )
    assert asyncio.run(
        ToolSet([scale]).run("agent", [ToolCall(id="c", name="scale", args={})])
    ) == [ToolResult("20")]


def test_strict_null_takes_the_field_default() -> None:
    @tool
    def count(x: int = Field(1, ge=0)) -> str:
        """Count."""
        return str(x)

    (exported,) = openai.tools([count], strict=True)
    assert exported["function"]["strict"] is True
    assert exported["function"]["parameters"]["required"] == ["x"]
    assert _call(count, {"x": None}) == ToolResult("1")
