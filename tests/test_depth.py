"""Deeply nested types fail when the tool is made, with the fix; never a RecursionError.

Every walker (translation, schema emission, conversion, validation, each
export) recurses once or more per level of types, so an annotation may nest
at most `MAX_DEPTH` levels; up to that, every path works, even from a caller
that has used a good part of Python's recursion limit itself. Past it, or
from a caller too deep to walk even that, the answer is a
`ToolDefinitionError`.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable
from typing import Any, Optional, TypedDict, TypeVar

import pytest

from toolkit import Tool, ToolDefinitionError, ToolResult, ToolSet, json_schema, tool
from toolkit.hints._annotations import MAX_DEPTH

T = TypeVar("T")
FORMATS = ("json", "openai", "openai_responses", "anthropic", "gemini", "mcp")
_COUNTER = [0]
_MAKE_TYPEDDICT: Any = TypedDict  # the functional form, with names made at run time


def _fresh(prefix: str) -> str:
    """A class name never used before in this process (nothing cached for it)."""
    _COUNTER[0] += 1
    return f"{prefix}{_COUNTER[0]}"


def typeddict_chain(levels: int) -> Any:
    """A TypedDict that nests `levels` levels of types (the innermost field is an int)."""
    inner: Any = int
    prefix = _fresh("Deep")
    for index in range(levels - 1):
        inner = _MAKE_TYPEDDICT(f"{prefix}_{index}", {"child": inner})
    return inner


def dataclass_chain(levels: int) -> Any:
    inner: Any = int
    prefix = _fresh("Box")
    for index in range(levels - 1):
        inner = dataclasses.make_dataclass(f"{prefix}_{index}", [("child", inner)])
    return inner


def list_chain(levels: int) -> Any:
    inner: Any = int
    for _ in range(levels - 1):
        inner = list[inner]
    return inner


def value_for(levels: int, kind: str) -> Any:
    value: Any = 7
    for _ in range(levels - 1):
        value = [value] if kind == "list" else {"child": value}
    return value


def function_of(annotation: Any) -> Callable[..., Any]:
    def deep(x: Any) -> str:
        """Take a deep value.

        Args:
            x: The value.
        """
        return "ok"

    deep.__annotations__ = {"x": annotation, "return": str}
    return deep


def _message(annotation: Any) -> str:
    with pytest.raises(ToolDefinitionError) as caught:
        tool(function_of(annotation))
    return str(caught.value)


def test_a_300_deep_typeddict_chain_is_a_definition_error() -> None:
    chain = typeddict_chain(300)
    message = _message(chain)
    outer = chain.__qualname__
    prefix = outer.rsplit("_", 1)[0]
    assert message == (
        f"Cannot make a tool of function_of.<locals>.deep: parameter 'x': its type nests "
        f"more than {MAX_DEPTH} levels of types ({outer} > {prefix}_297 > {prefix}_296 > ...), "
        "deeper than toolkit walks. Use a flatter type, or `dict[str, Any]` for the deep part"
    )


@pytest.mark.parametrize("chain", [dataclass_chain, list_chain])
def test_other_deep_chains_are_definition_errors(chain: Callable[[int], Any]) -> None:
    assert "levels of types" in _message(chain(300))


def test_a_5000_deep_annotation_is_a_definition_error() -> None:
    with pytest.raises(ToolDefinitionError, match="nest"):
        tool(function_of(list_chain(5000)))


def test_json_schema_of_a_deep_type_is_a_definition_error() -> None:
    with pytest.raises(
        ToolDefinitionError, match=f"^its type nests more than {MAX_DEPTH} levels"
    ):
        json_schema(typeddict_chain(MAX_DEPTH + 1))


@pytest.mark.parametrize("chain", [typeddict_chain, dataclass_chain, list_chain])
def test_the_limit_is_exact(chain: Callable[[int], Any]) -> None:
    tool(function_of(chain(MAX_DEPTH)))  # the parameter's type has MAX_DEPTH levels
    with pytest.raises(ToolDefinitionError, match="levels of types"):
        tool(function_of(chain(MAX_DEPTH + 1)))


def test_a_type_met_before_counts_its_levels_where_it_is_used_again() -> None:
    inner = typeddict_chain(MAX_DEPTH - 2)
    tool(function_of(inner))  # cached now, with its levels
    tool(function_of(list[list[inner]]))  # type: ignore[valid-type]  # exactly at the limit
    with pytest.raises(ToolDefinitionError, match="levels of types"):
        tool(function_of(list[list[list[inner]]]))  # type: ignore[valid-type]


@dataclasses.dataclass
class Tree:
    children: list[Tree]


def test_recursive_types_count_once() -> None:
    made = tool(function_of(Optional[Tree]))  # noqa: UP045  # as users write it
    assert made.execute("agent", "call-1", {"x": {"children": [{"children": []}]}}) == (
        ToolResult("ok")
    )


def _at(depth: int, work: Callable[[], T]) -> T:
    """Run `work` under `depth` more frames of stack, as a deep caller would."""
    if depth <= 0:
        return work()
    return _at(depth - 1, work)


def _everything(made: Tool[Any, Any], value: Any) -> list[Any]:
    tools = ToolSet([made])
    out: list[Any] = [tools.export(name) for name in FORMATS]
    out += [tools.export(name, strict=True) for name in ("openai", "anthropic")]
    out.append(tools.export("gemini", schema="openapi"))
    out.append(made.execute("agent", "call-1", {"x": value}))
    out.append(made.execute("agent", "call-1", {"x": "not this"}))
    return out


@pytest.mark.parametrize(
    ("chain", "kind"),
    [(typeddict_chain, "object"), (dataclass_chain, "object"), (list_chain, "list")],
)
def test_every_path_works_at_the_limit_from_a_deep_caller(
    chain: Callable[[int], Any], kind: str
) -> None:
    """Up to the limit, nothing raises, with 300 frames of the caller's own in use."""

    def work() -> list[Any]:
        made = tool(function_of(chain(MAX_DEPTH)))
        return _everything(made, value_for(MAX_DEPTH, kind))

    results = _at(300, work)
    ok, bad = results[-2:]
    assert ok == ToolResult("ok")
    assert bad.is_error is True
    assert bad.text.startswith('Invalid arguments for tool "deep":\n- x: ')


def _frames() -> int:
    frame, count = sys._getframe(), 0
    while frame is not None:
        frame, count = frame.f_back, count + 1  # type: ignore[assignment]
    return count


def test_a_caller_too_deep_for_the_walk_gets_a_definition_error() -> None:
    """Near Python's recursion limit, a deep type gives a clean error, not RecursionError."""
    chain = typeddict_chain(MAX_DEPTH)
    spare = sys.getrecursionlimit() - _frames() - 60

    with pytest.raises(ToolDefinitionError) as caught:
        _at(spare, lambda: tool(function_of(chain)))
    assert str(caught.value) == (
        "Cannot make a tool of function_of.<locals>.deep: its types nest too deeply for "
        "Python's recursion limit to walk them from here. Use flatter types, or "
        "`dict[str, Any]` for the deep part"
    )


def test_an_export_from_a_caller_too_deep_is_a_definition_error() -> None:
    made = tool(function_of(typeddict_chain(MAX_DEPTH)))
    tools = ToolSet([made])
    spare = sys.getrecursionlimit() - _frames() - 40
    with pytest.raises(ToolDefinitionError, match="nest too deeply"):
        _at(spare, lambda: tools.export("gemini", schema="openapi"))
    assert tools.export("gemini", schema="openapi")  # and from here it works


# ------------------------------------------------------------------ Tool.new


def raw_schema(levels: int) -> dict[str, Any]:
    inner: dict[str, Any] = {"type": "integer"}
    for _ in range(levels):
        inner = {
            "type": "object",
            "properties": {"child": inner},
            "required": ["child"],
            "additionalProperties": False,
        }
    return {"type": "object", "properties": {"x": inner}, "required": ["x"]}


def _echo(agent_id: str, call_id: str, args: dict[str, Any]) -> str:
    return "ok"


def test_a_deep_raw_schema_is_a_definition_error() -> None:
    with pytest.raises(ToolDefinitionError) as caught:
        Tool.new(
            name="deep", description="d", parameters=raw_schema(500), execute_fn=_echo
        )
    assert str(caught.value) == (
        f"parameters of tool 'deep' nest more than {2 * MAX_DEPTH + 8} levels of objects "
        "and arrays, deeper than toolkit walks. Use a flatter schema, or `{}` (any value) "
        "for the deep part"
    )


def test_a_raw_schema_at_the_limit_works_everywhere() -> None:
    levels = MAX_DEPTH + 2  # two dicts a level, and the root
    made = Tool.new(
        name="deep", description="d", parameters=raw_schema(levels), execute_fn=_echo
    )

    def work() -> list[Any]:
        return _everything(made, value_for(levels + 1, "object"))

    results = _at(300, work)
    assert results[-2] == ToolResult("ok")
    assert results[-1].is_error is True
