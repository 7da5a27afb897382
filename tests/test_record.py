"""The public records behave as frozen dataclasses would."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import pytest

from toolkit import (
    AITool,
    Context,
    Finding,
    Param,
    TextUI,
    ToolCall,
    ToolResult,
    WidgetUI,
)

RECORDS: list[Any] = [
    ToolResult("ok", False, TextUI("note"), {"a": 1}),
    ToolCall("c1", "search", '{"q": 1}'),
    TextUI("saved"),
    WidgetUI(label="Open", widget="map", data={"lat": 1}),
    AITool("search", "Search.", {"type": "object"}),
    Context("agent", "call", "search", deps={"user": "ada"}),
    Finding("search", "thin-description", "one word"),
    Param(ge=0, description="How many."),
]


@pytest.mark.parametrize("record", RECORDS, ids=lambda record: type(record).__name__)
def test_records_are_values(record: Any) -> None:
    fields = record.__match_args__
    same = copy.deepcopy(record)
    assert same == record
    assert same is not record
    assert copy.copy(record) is record
    assert pickle.loads(pickle.dumps(record)) == record
    assert repr(record).startswith(f"{type(record).__name__}({fields[0]}=")
    with pytest.raises(AttributeError, match="is immutable"):
        setattr(record, fields[0], "changed")
    with pytest.raises(AttributeError, match="is immutable"):
        delattr(record, fields[0])
    changed = record.__replace__(**{fields[0]: "other"})
    assert getattr(changed, fields[0]) == "other"
    assert changed != record
    assert record != object()


def test_hashable_when_the_fields_are() -> None:
    assert len({ToolCall("1", "a"), ToolCall("1", "a"), TextUI("x")}) == 2
    assert hash(Param(ge=0)) == hash(Param(ge=0))
    with pytest.raises(TypeError):
        hash(Param(examples=["a"]))


def test_replace_refuses_unknown_fields() -> None:
    with pytest.raises(TypeError, match="ToolResult has no field 'txt'"):
        ToolResult("x").__replace__(txt="y")


def test_pattern_matching() -> None:
    match ToolResult.error("boom"):
        case ToolResult(text, True):
            assert text == "boom"
        case _:
            pytest.fail("no match")


def test_param_merge_later_wins() -> None:
    assert Param(ge=0, description="a").merged(Param(description="b", le=9)) == Param(
        ge=0, le=9, description="b"
    )
