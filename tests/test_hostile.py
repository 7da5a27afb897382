"""Nothing a model sends makes execute/aexecute raise (hypothesis + hand-made extremes)."""

from __future__ import annotations

import asyncio
import dataclasses
import datetime
import enum
import json
import math
from typing import Any, Literal

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolkit import Tool, ToolResult, tool


class Mode(enum.Enum):
    FAST = "fast"
    SAFE = "safe"


@dataclasses.dataclass
class Node:
    value: int
    children: list[Node] = dataclasses.field(default_factory=list)


@tool
def busy(
    name: str,
    count: int,
    ratio: float = 0.5,
    mode: Mode = Mode.SAFE,
    tags: set[str] | None = None,
    pair: tuple[int, str] | None = None,
    when: datetime.datetime | None = None,
    tree: Node | None = None,
    extra: dict[str, Any] | None = None,
    choice: Literal["a", "b"] = "a",
    blob: bytes = b"",
) -> dict[str, Any]:
    """A tool with one parameter of each kind."""
    return {
        "name": name,
        "count": count,
        "mode": mode,
        "tags": sorted(tags or ()),
        "when": when,
    }


@tool
async def busy_async(name: str, count: int) -> str:
    """Async."""
    return f"{name}{count}"


json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.text(max_size=5), inner, max_size=4),
    ),
    max_leaves=20,
)
parameter_names = st.sampled_from(
    [
        "name",
        "count",
        "ratio",
        "mode",
        "tags",
        "pair",
        "when",
        "tree",
        "extra",
        "choice",
        "blob",
        "other",
    ]
)
argument_dicts = st.dictionaries(parameter_names, json_values, max_size=8)
anything = st.one_of(
    json_values, argument_dicts, argument_dicts.map(json.dumps), st.text(), st.binary()
)


def _check(result: Any) -> None:
    assert isinstance(result, ToolResult)
    assert isinstance(result.text, str)
    if result.is_error:
        assert result.text
        assert "could not be checked" not in result.text, (
            result.text
        )  # the last-resort guard never fires


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(args=anything)
def test_execute_never_raises(args: Any) -> None:
    for made in (busy, busy_async):
        _check(made.execute("a", "c", args))
        _check(made.validate_args(args) or ToolResult("valid"))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(args=anything)
def test_aexecute_never_raises(args: Any) -> None:
    async def main() -> None:
        for made in (busy, busy_async):
            _check(await made.aexecute("a", "c", args))

    asyncio.run(main())


def _deep(depth: int, leaf: Any) -> Any:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def _deep_tree(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {"value": 0}
    for _ in range(depth):
        node = {"value": 1, "children": [node]}
    return node


def test_extremes_never_raise() -> None:
    cases: list[Any] = [
        {"name": "x", "count": 1, "extra": {"deep": _deep(10_000, 1)}},
        {"name": "x", "count": 1, "tree": _deep_tree(10_000)},
        {"name": "x", "count": _deep(10_000, 1)},
        "[" * 100_000 + "]" * 100_000,
        {"name": "x" * 10_000_000, "count": 1},
        {"name": "x", "count": math.nan},
        {"name": "x", "count": 1, "ratio": math.inf},
        {"name": "x", "count": 1, "ratio": math.nan},
        {"name": "x", "count": 10**400},
        {"name": "x", "count": 1.5e308},
        '{"name": "x", "count": Infinity}',
        {"name": "x", "count": 1, "when": "9999-99-99T99:99:99Z"},
        {"name": "x", "count": 1, "blob": "%%%"},
        {1: 2},
        {"name": "x", "count": 1, "extra": {"k": object()}},
    ]
    for args in cases:
        for made in (busy, busy_async):
            _check(made.execute("a", "c", args))
            _check(asyncio.run(made.aexecute("a", "c", args)))


def test_large_valid_string_round_trips() -> None:
    result = busy.execute("a", "c", {"name": "x" * 10_000_000, "count": 1})
    assert not result.is_error
    assert result.structured["name"] == "x" * 10_000_000


def test_a_nan_ratio_never_reaches_the_tool() -> None:
    result = busy.execute("a", "c", {"name": "x", "count": 1, "ratio": math.nan})
    assert result.is_error is True
    assert result.text.startswith('Invalid arguments for tool "busy":\n- ratio: ')
    assert "send a finite number" in result.text


def test_raw_tool_with_hostile_args() -> None:
    made = Tool.new(
        name="raw",
        description="Raw",
        parameters={
            "type": "object",
            "properties": {"a": {"type": "integer"}},
            "additionalProperties": False,
        },
        execute_fn=lambda agent_id, call_id, args: "ok",
    )
    for args in ({"a": _deep(10_000, 1)}, "[" * 50_000, {"a": math.nan}, {"b": 1}):
        _check(made.execute("a", "c", args))
