"""Composed sets read their sources: later changes, conflicts, exports.

A set made by `|`, `prefixed`, `filtered`, `select` or `without` is told of
nothing; it sees a change of a source (or of a source's source) on its next
read. These tests change sources in every order and compare each composed
set with what composing the sources as they are now gives.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit import DuplicateToolError, Tool, ToolResult, ToolSet, tool


def make(name: str, text: str = "ok") -> Tool[Any, Any]:
    def function() -> str:
        """Answer with a fixed text."""
        return text

    function.__name__ = name
    function.__qualname__ = name
    return tool(function)


def test_a_composed_set_sees_a_later_add_and_remove_of_its_source() -> None:
    source = ToolSet([make("a"), make("b")])
    composed = {
        "prefixed": source.prefixed("p_"),
        "filtered": source.filtered(lambda item: item.name != "b"),
        "select": source.select("b", "a"),
        "without": source.without("a"),
        "union": source | ToolSet([make("z")]),
    }
    source.add(make("c"))
    source.remove("a")
    assert {kind: made.names for kind, made in composed.items()} == {
        "prefixed": ["p_b", "p_c"],
        "filtered": ["c"],
        "select": ["b"],
        "without": ["b", "c"],
        "union": ["b", "c", "z"],
    }
    source.add(make("a", "again"))
    assert composed["select"].names == ["b", "a"]  # back in the order given
    assert composed["select"]["a"] is source["a"]
    assert composed["union"].execute("x", "y", "a", {}) == ToolResult("again")


def test_a_composed_set_of_a_composed_set_sees_a_change_two_levels_down() -> None:
    left, right = ToolSet([make("a")]), ToolSet([make("b")])
    top = (left | right.prefixed("r_")).without("a").prefixed("t_")
    assert top.names == ["t_r_b"]
    right.add(make("c"))
    left.add(make("d"))
    assert top.names == ["t_d", "t_r_b", "t_r_c"]
    assert "t_r_c" in top
    assert top.get("t_r_c") is top["t_r_c"]
    assert top.execute("x", "y", "t_r_c", {}) == ToolResult("ok")
    assert len(top) == 3
    assert [item.name for item in top] == top.names
    assert repr(top) == "ToolSet(['t_d', 't_r_b', 't_r_c'])"


def test_a_replaced_tool_reaches_the_composed_sets() -> None:
    source = ToolSet([make("a", "old")])
    shown = source.prefixed("p_")
    before = shown["p_a"]
    source.add(make("a", "new"), replace=True)
    assert shown["p_a"] is not before
    assert shown.execute("x", "y", "p_a", {}) == ToolResult("new")


def test_a_name_taken_by_a_change_stays_with_the_tool_the_set_held(
    caplog: pytest.LogCaptureFixture,
) -> None:
    local, remote = ToolSet([make("a", "local")]), ToolSet([make("b")])
    both = local | remote
    with caplog.at_level(logging.WARNING, logger="toolkit"):
        remote.add(make("a", "remote"))
        assert both.names == ["a", "b"]
        assert both.execute("x", "y", "a", {}) == ToolResult("local")
        assert len(caplog.records) == 1  # once per change, not once per read
        assert caplog.records[0].getMessage() == (
            "A composed tool set keeps its tools and leaves out what its sources' "
            "change would break: A tool named 'a' is already registered (a); cannot "
            "add a under the same name. Rename one of them (name=...), use "
            "add(..., replace=True) to replace it, or combine sets with tools.prefixed(...)"
        )
        remote.add(make("c"))  # the rest of a change is followed
        assert both.names == ["a", "b", "c"]
        local.remove("a")
        assert both.execute("x", "y", "a", {}) == ToolResult("remote")
        local.add(make("a", "local again"))  # remote's is held now: it stays
        assert both.names == ["a", "b", "c"]
        assert both.execute("x", "y", "a", {}) == ToolResult("remote")


def test_a_conflict_when_composing_still_raises() -> None:
    left = ToolSet([make("a")])
    with pytest.raises(DuplicateToolError) as caught:
        left | ToolSet([make("b")]) | ToolSet([make("a", "other")])
    assert caught.value.name == "a"


def test_a_set_composed_from_a_set_changed_by_hand_follows_its_new_tools() -> None:
    source = ToolSet([make("a"), make("b")])
    picked = source.select("a")
    shown = picked.prefixed("p_")
    picked.add(make("mine"))  # picked now holds its own tools
    source.remove("a")
    assert picked.names == ["a", "mine"]
    assert shown.names == ["p_a", "p_mine"]
    picked.remove("a")
    assert shown.names == ["p_mine"]


def test_a_composed_sets_export_is_kept_until_a_source_changes() -> None:
    source = ToolSet([make("a")])
    composed = source.prefixed("p_") | ToolSet([make("b")])
    plain, strict = composed.export("openai"), composed.export("openai", strict=True)
    assert composed.export("openai") is plain
    assert composed.export("openai", strict=True) is strict
    source.add(make("c"))
    names = [entry["function"]["name"] for entry in composed.export("openai")]
    assert names == ["p_a", "p_c", "b"]
    again = composed.export("openai", strict=True)
    assert again is not strict
    assert [entry["function"]["name"] for entry in again] == names
    assert composed.export("json") is composed.export("json")


def test_an_unchanged_tool_list_keeps_the_exports() -> None:
    first, second = make("a"), make("b")
    source = ToolSet([first, second])
    composed = source.filtered(lambda item: True)
    exported = composed.export("json")
    source._assign({"a": first, "b": second})  # an MCP server listing the same tools
    assert composed.export("json") is exported
    source._assign({"b": second, "a": first})
    assert [entry["name"] for entry in composed.export("json")] == ["b", "a"]


def test_composed_sets_read_from_threads_while_their_sources_change() -> None:
    left, right = ToolSet(), ToolSet()
    shown = (left | right).prefixed("p_")
    made = {side: [make(f"{side}_{index}") for index in range(60)] for side in "lr"}
    start = threading.Barrier(6)
    seen: list[list[str]] = []
    failures: list[BaseException] = []

    def change(source: ToolSet, mine: list[Tool[Any, Any]]) -> None:
        start.wait()
        for item in mine:
            source.add(item)
        for item in mine[::3]:
            source.remove(item.name)

    def read() -> None:
        start.wait()
        try:
            for _ in range(200):
                names = shown.names
                exported = [entry["name"] for entry in shown.export("json")]
                assert len(set(names)) == len(names)
                assert all(name.startswith("p_") for name in exported)
                seen.append(names)
        except BaseException as error:  # handed to the main thread
            failures.append(error)

    threads = [
        threading.Thread(target=change, args=(left, made["l"][:30])),
        threading.Thread(target=change, args=(left, made["l"][30:])),
        threading.Thread(target=change, args=(right, made["r"])),
        *[threading.Thread(target=read) for _ in range(3)],
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert shown.names == ["p_" + name for name in [*left.names, *right.names]]
    assert [entry["name"] for entry in shown.export("json")] == shown.names
    assert len(shown) == 80


# --------------------------------------------------------- random sequences

POOL = {side: [make(f"{side}{index}") for index in range(5)] for side in "lr"}
OTHER = {side: [make(f"{side}{index}", "other") for index in range(5)] for side in "lr"}

Names = list[str]


def _shown(names: Names) -> Names:
    return ["p_" + name for name in names]


def _even(name: str) -> bool:
    return int(name[-1]) % 2 == 0


# Each composed set: how it is made from (left, right) as `(a, b)`, and its
# names computed from the sources' names as they are now.
COMPOSED: dict[
    str, tuple[Callable[[ToolSet, ToolSet], ToolSet], Callable[[Names, Names], Names]]
] = {
    "both": (lambda a, b: a | b, lambda a, b: a + b),
    "shown": (lambda a, b: (a | b).prefixed("p_"), lambda a, b: _shown(a + b)),
    "even": (
        lambda a, b: (a | b).prefixed("p_").filtered(lambda item: _even(item.name)),
        lambda a, b: _shown([n for n in a + b if _even(n)]),
    ),
    "picked": (
        lambda a, b: (a | b).select("r2", "l0", "r4"),
        lambda a, b: [n for n in ("r2", "l0", "r4") if n in a + b],
    ),
    "without": (
        lambda a, b: a.prefixed("a_").without("a_l1") | b,
        lambda a, b: [f"a_{n}" for n in a if n != "l1"] + b,
    ),
    "self": (lambda a, b: a | a.prefixed("x_"), lambda a, b: a + [f"x_{n}" for n in a]),
}

Step = tuple[
    str, str, int, bool
]  # (add | remove | replace, side, index, read all after)

STEPS = st.lists(
    st.tuples(
        st.sampled_from(["add", "remove", "replace"]),
        st.sampled_from("lr"),
        st.integers(0, 4),
        st.booleans(),
    ),
    max_size=25,
)


def _apply(source: ToolSet, action: str, side: str, index: int) -> None:
    name = f"{side}{index}"
    if action == "remove":
        if name in source:
            source.remove(name)
        return
    fresh = POOL[side][index]
    if action == "replace" and source.get(name) is fresh:
        fresh = OTHER[side][index]
    source.add(fresh, replace=True)


def _check(composed: dict[str, ToolSet], left: ToolSet, right: ToolSet) -> None:
    for kind, made in composed.items():
        expected = COMPOSED[kind][1](left.names, right.names)
        assert made.names == expected, kind
        assert [entry["name"] for entry in made.export("json")] == expected, kind
    for name in left.names:
        assert composed["both"][name] is left[name]
        shown = composed["shown"]
        assert shown.execute("x", "y", "p_" + name, {}) == left[name].execute(
            "x", "y", {}
        )


@settings(max_examples=150, deadline=None)
@given(steps=STEPS)
def test_composed_sets_equal_their_composition_from_scratch(steps: list[Step]) -> None:
    left = ToolSet([POOL["l"][0], POOL["l"][1]])
    right = ToolSet([POOL["r"][2], POOL["r"][4]])
    composed = {kind: build(left, right) for kind, (build, _) in COMPOSED.items()}
    for action, side, index, read in steps:
        _apply(left if side == "l" else right, action, side, index)
        if read:
            _check(composed, left, right)
    _check(composed, left, right)
