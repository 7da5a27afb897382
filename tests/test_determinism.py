"""An annotation's schema never depends on what was decorated before it.

`Union[int, str] == Union[str, int]` and `Literal["a", "b"] ==
Literal["b", "a"]` (with equal hashes), so a cache keyed on annotations
would hand the second the schema, and the conversion order, of the first.
Checked in this process, and in fresh processes that decorate the same
annotations in different orders (tests/order_probe.py).
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
from typing import Any, Literal, Union

import pytest

from tests import order_probe
from toolkit import ToolResult, json_schema, tool

ROOT = pathlib.Path(__file__).parent.parent
ORDERS = ("forward", "reverse", "7", "2024")

# (the name in order_probe, the schema of its parameter `x`)
EXPECTED: list[tuple[str, dict[str, Any]]] = [
    ("union_int_str", {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
    ("union_str_int", {"anyOf": [{"type": "string"}, {"type": "integer"}]}),
    ("pipe_int_str", {"anyOf": [{"type": "integer"}, {"type": "string"}]}),
    ("pipe_str_int", {"anyOf": [{"type": "string"}, {"type": "integer"}]}),
    (
        "pipe_int_str_none",
        {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]},
    ),
    (
        "pipe_str_int_none",
        {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
    ),
    ("union_int_float", {"anyOf": [{"type": "integer"}, {"type": "number"}]}),
    ("union_float_int", {"anyOf": [{"type": "number"}, {"type": "integer"}]}),
    ("literal_ab", {"type": "string", "enum": ["a", "b"]}),
    ("literal_ba", {"type": "string", "enum": ["b", "a"]}),
    ("literal_ab_none", {"enum": ["a", "b", None]}),
    ("literal_ba_none", {"enum": ["b", "a", None]}),
    ("literal_12", {"type": "integer", "enum": [1, 2]}),
    ("literal_21", {"type": "integer", "enum": [2, 1]}),
    (
        "list_union_int_str",
        {
            "type": "array",
            "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        },
    ),
    (
        "list_union_str_int",
        {
            "type": "array",
            "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        },
    ),
    (
        "dict_literal_xy",
        {
            "type": "object",
            "additionalProperties": {"type": "string", "enum": ["x", "y"]},
        },
    ),
    (
        "dict_literal_yx",
        {
            "type": "object",
            "additionalProperties": {"type": "string", "enum": ["y", "x"]},
        },
    ),
    (
        "tuple_pipe_int_str",
        {
            "type": "array",
            "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        },
    ),
    (
        "tuple_pipe_str_int",
        {
            "type": "array",
            "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        },
    ),
    (
        "list_list_pipe_int_str",
        {
            "type": "array",
            "items": {
                "type": "array",
                "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            },
        },
    ),
    (
        "list_list_pipe_str_int",
        {
            "type": "array",
            "items": {
                "type": "array",
                "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            },
        },
    ),
]
_DEFS_VALUE = {
    "typeddict_int_str": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
    "typeddict_str_int": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
}


def _probe(order: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(ROOT / "tests" / "order_probe.py"), order],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.fixture(name="probed", scope="module")
def fixture_probed() -> dict[str, str]:
    """What each order printed, from processes run side by side."""
    running = {order: _probe(order) for order in ORDERS}
    printed = {}
    for order, process in running.items():
        out, err = process.communicate(timeout=120)
        assert process.returncode == 0, err
        printed[order] = out
    return printed


def test_every_order_prints_the_same_bytes(probed: dict[str, str]) -> None:
    assert len(probed["forward"]) > 10_000
    for order in ORDERS[1:]:
        assert probed[order] == probed["forward"], order


@pytest.mark.parametrize(("name", "expected"), EXPECTED)
def test_each_annotation_keeps_its_own_order(
    probed: dict[str, str], name: str, expected: dict[str, Any]
) -> None:
    exported = json.loads(probed["forward"])[name]
    parameters = exported["json"][0]["parameters"]
    assert parameters["properties"]["x"] == {**expected, "description": "The value."}
    assert exported["mcp"][0]["inputSchema"] == parameters


@pytest.mark.parametrize(("name", "expected"), list(_DEFS_VALUE.items()))
def test_fields_of_named_types_keep_their_own_order(
    probed: dict[str, str], name: str, expected: dict[str, Any]
) -> None:
    parameters = json.loads(probed["forward"])[name]["json"][0]["parameters"]
    (definition,) = parameters["$defs"].values()
    assert definition["properties"]["value"] == expected


def test_the_probe_agrees_with_this_process() -> None:
    """Decorated here after everything else the suite decorated: the same schemas."""
    for name, expected in EXPECTED:
        made = order_probe.make(name, order_probe.ANNOTATIONS[name])
        assert made.parameters["properties"]["x"] == {
            **expected,
            "description": "The value.",
        }


def test_json_schema_after_its_permutation() -> None:
    assert json_schema(Union[str, int]) == {  # noqa: UP007
        "anyOf": [{"type": "string"}, {"type": "integer"}]
    }
    assert json_schema(Union[int, str]) == {  # noqa: UP007
        "anyOf": [{"type": "integer"}, {"type": "string"}]
    }
    assert json_schema(Literal["b", "a"]) == {"type": "string", "enum": ["b", "a"]}
    assert json_schema(Literal["a", "b"]) == {"type": "string", "enum": ["a", "b"]}


def test_a_union_converts_in_its_own_order() -> None:
    """The first member a value fits wins, so the order decides what the function gets."""

    @tool
    def first(x: Union[int, float]) -> str:  # noqa: UP007
        """Show."""
        return repr(x)

    @tool
    def second(x: Union[float, int]) -> str:  # noqa: UP007
        """Show."""
        return repr(x)

    assert first.execute("agent", "call-1", {"x": 3}) == ToolResult("3")
    assert second.execute("agent", "call-1", {"x": 3}) == ToolResult("3.0")
