"""The cost of `pattern`: counted in Python calls, not seconds.

The search is a lazy DFA whose known moves cost a dict look-up and no
Python call, so a long text costs a number of Python calls that does not
grow with its length; and a text that its type or length already refuses
is never searched.
"""

from __future__ import annotations

import decimal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

import pytest

from toolkit import Tool, ToolSet, tool
from toolkit.core._pattern import searcher

DECIMAL = r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$"
PATTERN_FILE = sys.modules[searcher.__module__].__file__


@contextmanager
def counted() -> Iterator[dict[str, int]]:
    """Python calls made in this thread meanwhile: all of them, and the pattern searches."""
    counts = {"calls": 0, "searches": 0}

    def trace(frame: FrameType, event: str, arg: Any) -> None:
        counts["calls"] += 1
        code = frame.f_code
        if code.co_name == "search" and code.co_filename == PATTERN_FILE:
            counts["searches"] += 1

    sys.settrace(trace)
    try:
        yield counts
    finally:
        sys.settrace(None)


@pytest.mark.parametrize(
    ("pattern", "text", "verdict"),
    [
        (DECIMAL, "1" * 200_000 + "x", False),
        (DECIMAL, "1" * 200_000, True),
        ("(a|aa)*b", "a" * 200_000, False),  # re backtracks for ages on this one
        ("^(\\w+\\s?)*$", "ab " * 70_000 + "!", False),
        ("[0-9]+-[a-z]+", "12-" * 70_000, False),
        ("[0-9]+-[a-z]+", "12-" * 70_000 + "a", True),
    ],
)
def test_a_long_text_costs_no_python_call_per_character(
    pattern: str, text: str, verdict: bool
) -> None:
    """Each verdict is the one re gives (re takes ages on some of these texts)."""
    search = searcher(pattern)
    with counted() as counts:
        found = search(text)
    assert found is verdict
    assert counts["calls"] < 200


@tool
def price(amount: decimal.Decimal) -> str:
    """Price something.

    Args:
        amount: The amount.
    """
    return str(amount)


def test_a_long_decimal_text_is_refused_in_one_search() -> None:
    """The check and the message read the text once between them."""
    tools = ToolSet([price])
    with counted() as counts:
        result = tools.execute("a", "c", "price", {"amount": "1" * 2_000_000 + "x"})
    assert result.is_error
    assert "amount" in result.text
    assert counts["searches"] == 1
    assert counts["calls"] < 20_000  # independent of the text's length


@pytest.mark.parametrize(
    ("schema", "value"),
    [
        ({"type": "string", "pattern": "^(a|b)*$", "maxLength": 10}, "ab" * 500_000),
        ({"type": "string", "maxLength": 10, "pattern": "^(a|b)*$"}, "ab" * 500_000),
        ({"type": "string", "pattern": "^(a|b)*$", "minLength": 10**7}, "ab" * 500_000),
        ({"type": "integer", "pattern": "^(a|b)*$"}, "ab" * 500_000),
    ],
)
def test_a_text_its_length_or_type_refuses_is_never_searched(
    schema: dict[str, Any], value: str
) -> None:
    made = Tool.new(
        name="t",
        description="",
        parameters={"type": "object", "properties": {"s": schema}},
        execute_fn=lambda agent_id, call_id, args: "ran",
    )
    with counted() as counts:
        result = made.execute("a", "c", {"s": value})
    assert result.is_error
    assert counts["searches"] == 0


def test_the_sizes_of_an_array_come_before_its_items() -> None:
    from toolkit.schema._checker import compile_check

    check = compile_check(
        {"type": "array", "items": {"type": "string", "pattern": "^a+$"}, "maxItems": 3}
    )
    assert check is not None
    with counted() as counts:
        assert check(["a"] * 100_000) is False
    assert counts["searches"] == 0


@pytest.mark.parametrize(
    ("schema", "value", "size"),
    [
        (
            {"type": "array", "items": {"type": "string", "pattern": "^a+$"}},
            ["B"] * 300,
            {"maxItems": 3},
        ),
        (
            {"type": "array", "items": {"type": "string", "pattern": "^a+$"}},
            ["B"] * 5,
            {"maxItems": 3},
        ),
        (
            {
                "type": "object",
                "additionalProperties": {"type": "string", "pattern": "^a+$"},
            },
            {f"k{i}": "B" for i in range(300)},
            {"maxProperties": 3},
        ),
    ],
)
def test_the_message_of_a_too_long_array_of_bad_items_names_its_size(
    schema: dict[str, Any], value: Any, size: dict[str, int]
) -> None:
    """Its items are not read, so their bounded list never hides the size (as jsonschema reports it)."""
    import jsonschema

    schema = {**schema, **size}
    keywords = {
        e.validator for e in jsonschema.Draft202012Validator(schema).iter_errors(value)
    }
    assert set(size) <= keywords  # the oracle says the size is wrong
    made = Tool.new(
        name="t",
        description="",
        parameters={"type": "object", "properties": {"s": schema}},
        execute_fn=lambda agent_id, call_id, args: "ran",
    )
    with counted() as counts:
        result = made.execute("a", "c", {"s": value})
    assert result.is_error
    lines = result.text.splitlines()
    assert len(lines) == 2  # the heading and the size: no item is named
    if isinstance(value, list):
        assert lines[1] == f"- s: has {len(value)} items, more than the maximum of 3"
    else:
        assert lines[1].endswith("has too many properties")
    assert counts["searches"] == 0
