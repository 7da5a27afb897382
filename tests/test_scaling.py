"""The work of checking arguments grows linearly with their size, and messages stay short.

Growth is measured by counting function calls (Python and C, through
`sys.setprofile`) at n and 10n: a check that compares every pair of items
makes 100 times the calls at 10n, a linear one about 10 times. Where the
quadratic work could happen inside one C call (a search of a list, a set of
keys), the keys and values are `Counted` strings, whose hashing and
equality are Python functions: each comparison that such a search makes is
a call, counted too. Nothing is timed.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import pytest

from toolkit import Tool, ToolResult, tool
from toolkit.schema._checker import compile_check
from toolkit.schema._invalid import jsonschema_validator


@tool
def distinct(xs: set[int]) -> int:
    """Count distinct numbers."""
    return len(xs)


@tool
def pairs(xs: frozenset[tuple[int, str]] | None = None) -> int:
    """Count distinct pairs."""
    return len(xs or ())


@tool
def total(xs: list[int], label: str = "") -> int:
    """Add numbers."""
    return sum(xs)


@tool
def tally(counts: dict[str, int]) -> int:
    """Add counts."""
    return sum(counts.values())


RAW = Tool.new(
    name="raw",
    description="Distinct objects.",
    parameters={
        "type": "object",
        "properties": {
            "items": {
                "type": "array",
                "items": {"type": "object"},
                "uniqueItems": True,
            }
        },
    },
    execute_fn=lambda agent_id, call_id, args: ToolResult(str(len(args["items"]))),
)


def calls(operation: Callable[[], Any]) -> int:
    """How many functions (Python and C) `operation` calls."""
    count = 0

    def profile(frame: Any, event: str, arg: Any) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        operation()
    finally:
        sys.setprofile(None)
    return count


def assert_linear_calls(run: Callable[[int], Any], n: int = 500) -> None:
    """Calls at 10n are at most 15 times the calls at n (a quadratic check makes 100 times)."""
    run(n)  # warm: the first call builds the tool's checks
    small, large = calls(lambda: run(n)), calls(lambda: run(10 * n))
    assert large <= 15 * small, (small, large)


class Counted(str):
    """Text whose hashing and equality are Python functions, so that `calls` counts each comparison."""

    __slots__ = ()

    def __hash__(self) -> int:
        return str.__hash__(self)

    def __eq__(self, other: object) -> bool:
        return str.__eq__(self, other)


def ok(result: ToolResult) -> ToolResult:
    assert not result.is_error, result.text
    return result


def error(result: ToolResult) -> ToolResult:
    assert result.is_error, result.text
    return result


# ------------------------------------------------------------------ uniqueness


@pytest.mark.parametrize(
    ("items", "unique"),
    [
        ([1, 2, 3], True),
        ([1, 1.0], False),
        ([True, 1], True),
        ([False, 0], True),
        ([[1, "a"], [1.0, "a"]], False),
        ([[True], [1]], True),
        ([{"a": 1, "b": [2]}, {"b": [2.0], "a": 1}], False),
        ([{"a": 1}, {"a": True}], True),
        ([{"a": 1}, {"a": 1, "b": 2}], True),
        (["1", 1], True),
        ([None, [None]], True),
        ([[], {}], True),
    ],
)
def test_unique_items_as_json_schema_means_it(items: list[Any], unique: bool) -> None:
    schema = {"type": "array", "uniqueItems": True}
    check = compile_check(schema)
    assert check is not None
    assert check(items) is unique
    assert jsonschema_validator(schema).is_valid(items) is unique
    import jsonschema

    assert jsonschema.Draft202012Validator(schema).is_valid(items) is unique


def test_a_valid_set_is_checked_in_linear_time() -> None:
    assert_linear_calls(
        lambda n: ok(distinct.execute("a", "c", {"xs": list(range(n))}))
    )


def test_a_set_of_pairs_is_checked_in_linear_time() -> None:
    assert_linear_calls(
        lambda n: ok(
            pairs.execute("a", "c", {"xs": [[index, "a"] for index in range(n)]})
        )
    )


def test_unique_objects_are_checked_in_linear_time() -> None:
    assert_linear_calls(
        lambda n: ok(RAW.execute("a", "c", {"items": [{"k": i} for i in range(n)]}))
    )


def test_a_repeat_at_the_end_is_found_in_linear_time() -> None:
    def run(n: int) -> None:
        result = error(distinct.execute("a", "c", {"xs": [*range(n), 0]}))
        assert result.text == (
            'Invalid arguments for tool "distinct":\n'
            "- xs: has repeated items; they must be unique"
        )

    assert_linear_calls(run)


def test_a_set_with_one_wrong_item_is_described_in_linear_time() -> None:
    """The message path (jsonschema) does not compare every pair either."""

    def run(n: int) -> None:
        result = error(distinct.execute("a", "c", {"xs": [*range(n), "x"]}))
        assert result.text == (
            'Invalid arguments for tool "distinct":\n'
            f'- xs[{n}]: expected integer, got string "x"'
        )

    assert_linear_calls(run)


# ------------------------------------------------------------------ messages


def test_many_wrong_items_give_a_short_message_in_bounded_work() -> None:
    def run(n: int) -> str:
        wrong = [Counted("x") for _ in range(n)]
        return error(total.execute("a", "c", {"xs": wrong})).text

    text = run(100_000)
    lines = text.splitlines()
    assert lines[0] == 'Invalid arguments for tool "total":'
    assert lines[1] == '- xs[0]: expected integer, got string "x"'
    assert len(lines) == 22
    assert lines[-1].startswith("- and at least ")
    assert len(text) < 2_000
    assert_linear_calls(run)


def test_wrong_items_at_the_end_are_found_in_linear_time() -> None:
    def run(n: int) -> str:
        return error(total.execute("a", "c", {"xs": [*range(n), "x", "y"]})).text

    assert run(1000).splitlines()[1:] == [
        '- xs[1000]: expected integer, got string "x"',
        '- xs[1001]: expected integer, got string "y"',
    ]
    assert_linear_calls(run)


def test_the_count_of_problems_is_exact_when_all_were_read() -> None:
    text = error(total.execute("a", "c", {"xs": ["x"] * 30})).text
    assert text.splitlines()[-1] == "- and 10 more problems"


def test_many_unknown_arguments_give_a_short_message_in_bounded_work() -> None:
    def run(n: int) -> str:
        args: dict[str, Any] = {"xs": [1]}
        args.update((Counted(f"k{index}"), index) for index in range(n))
        return error(total.execute("a", "c", args)).text

    text = run(100_000)
    lines = text.splitlines()
    assert lines[1] == "- k0: unknown argument; valid arguments: xs, label"
    assert len(lines) == 22
    assert len(text) < 2_000
    assert_linear_calls(run)


def test_many_wrong_map_values_give_a_short_message_in_bounded_work() -> None:
    def run(n: int) -> str:
        counts = {Counted(f"k{index}"): Counted("x") for index in range(n)}
        return error(tally.execute("a", "c", {"counts": counts})).text

    text = run(50_000)
    assert text.splitlines()[1] == '- counts.k0: expected integer, got string "x"'
    assert len(text) < 2_000
    assert_linear_calls(run)


def test_every_parameter_gets_a_line_before_one_parameter_gets_many() -> None:
    text = error(
        total.execute("a", "c", {"xs": ["x"] * 1000, "label": 3, "other": 1})
    ).text
    lines = text.splitlines()
    assert lines[1:6] == [
        '- xs[0]: expected integer, got string "x"',
        '- xs[1]: expected integer, got string "x"',
        '- xs[2]: expected integer, got string "x"',
        "- label: expected string, got integer 3",
        "- other: unknown argument; valid arguments: xs, label",
    ]
    assert len(lines) == 22


def test_a_huge_wrong_value_is_shown_short() -> None:
    text = error(total.execute("a", "c", {"xs": 1, "label": ["y" * 10**6]})).text
    assert text == (
        'Invalid arguments for tool "total":\n'
        "- xs: expected array, got integer 1\n"
        f'- label: expected string, got array ["{"y" * 55}...'
    )


def test_a_huge_int_is_shown_by_its_size() -> None:
    text = error(total.execute("a", "c", {"xs": [], "label": 10**5000})).text
    assert text == (
        'Invalid arguments for tool "total":\n'
        "- label: expected string, got integer <an integer of about 5,001 digits>"
    )
