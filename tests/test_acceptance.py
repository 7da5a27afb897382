"""What a tool accepts, converted, is what its annotation says, for every kind of annotation.

For each annotation of the type table, generated arguments (JSON values shaped
like the annotation, broken ones, JSON-encoded strings, and values only a
Python caller can send) go through `execute`. Every call that is accepted
hands the function a value that is an instance of its annotation, checked
recursively; and the compiled validator's verdict is `jsonschema`'s own on the
emitted schema.
"""

from __future__ import annotations

import base64
import collections.abc
import dataclasses
import datetime
import decimal
import enum
import json
import math
import pathlib
import types
import typing
import uuid
from typing import Annotated, Any, Literal, NamedTuple, NewType, Optional, Union

import jsonschema
import pydantic
import pytest
import typing_extensions
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typing_extensions import NotRequired, TypedDict

from toolkit import Param, Tool, ToolResult, tool
from toolkit.schema._invalid import jsonschema_validator


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Movie(TypedDict):
    title: str
    year: NotRequired[int]


@dataclasses.dataclass
class Point:
    x: float
    y: float = 0.0


class Pair(NamedTuple):
    left: int
    right: str = "r"


@dataclasses.dataclass
class Tree:
    value: int
    children: list[Tree] = dataclasses.field(default_factory=list)


class Model(pydantic.BaseModel):
    name: str
    size: int = 1


UserId = NewType("UserId", int)

ANNOTATIONS: dict[str, Any] = {
    "str": str,
    "int": int,
    "float": float,
    "bool": bool,
    "None": None,
    "int | None": int | None,
    "Optional[int]": Optional[int],  # noqa: UP045  # the typing spelling too
    "str | None": str | None,
    "int | str": int | str,
    "Union[str, int]": Union[str, int],  # noqa: UP007  # the typing spelling too
    "float | bool": float | bool,
    "Literal strings": Literal["a", "b"],
    "Literal mixed": Literal[1, "1", True, None],
    "Enum": Color,
    "IntEnum": Level,
    "list[int]": list[int],
    "Sequence[str]": collections.abc.Sequence[str],
    "set[int]": set[int],
    "frozenset[str]": frozenset[str],
    "tuple[int, str]": tuple[int, str],
    "tuple[float, ...]": tuple[float, ...],
    "dict[str, int]": dict[str, int],
    "Mapping[str, float]": collections.abc.Mapping[str, float],
    "dict[str, int] | None": dict[str, int] | None,
    "TypedDict": Movie,
    "dataclass": Point,
    "NamedTuple": Pair,
    "recursive dataclass": Tree,
    "pydantic model": Model,
    "datetime": datetime.datetime,
    "date": datetime.date,
    "time": datetime.time,
    "timedelta": datetime.timedelta,
    "UUID": uuid.UUID,
    "Decimal": decimal.Decimal,
    "Path": pathlib.Path,
    "Path | None": pathlib.Path | None,
    "bytes": bytes,
    "bytes | None": bytes | None,
    "list[bytes | None]": list[bytes | None],
    "Any": Any,
    "object": object,
    "Annotated[int, Param(ge=0)]": Annotated[int, Param(ge=0, le=100)],
    "Annotated[str, Param(max_length=3)]": Annotated[str, Param(max_length=3)],
    "NewType": UserId,
    "list[Color] | None": list[Color] | None,
    "dict[str, Point]": dict[str, Point],
}


def make_tool(annotation: Any) -> tuple[Tool[Any, Any], list[Any]]:
    """A tool whose one parameter `x` has `annotation` and which records what it gets."""
    received: list[Any] = []

    def take(x: Any, n: int = 0) -> str:
        """Record x."""
        received.append(x)
        return "ok"

    take.__annotations__ = {"x": annotation, "n": int, "return": str}
    return tool(take), received


TOOLS = {label: make_tool(annotation) for label, annotation in ANNOTATIONS.items()}


# ------------------------------------------------------------ conformance


def conforms(value: Any, annotation: Any) -> bool:  # one branch per kind
    """Whether `value` is an instance of `annotation`, recursively."""
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if annotation is Any or annotation is object:
        return True
    if annotation is None or annotation is type(None):
        return value is None
    if origin is Annotated:
        return conforms(value, args[0])
    if isinstance(annotation, NewType):
        return conforms(value, annotation.__supertype__)
    if origin in (Union, types.UnionType):
        return any(conforms(value, member) for member in args)
    if origin is Literal:
        return any(type(value) is type(item) and value == item for item in args)
    if origin is not None:
        return _conforms_generic(value, origin, args)
    if annotation is float:
        return type(value) is float
    if annotation is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if typing_extensions.is_typeddict(
        annotation
    ):  # typing's misses typing_extensions' TypedDicts before 3.13
        return _conforms_typeddict(value, annotation)
    if dataclasses.is_dataclass(annotation) or _is_namedtuple(annotation):
        hints = typing.get_type_hints(annotation)
        return isinstance(value, annotation) and all(
            conforms(getattr(value, name), hint) for name, hint in hints.items()
        )
    return isinstance(value, annotation)


def _is_namedtuple(annotation: Any) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, tuple)


def _conforms_generic(value: Any, origin: Any, args: tuple[Any, ...]) -> bool:
    if origin is tuple:
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(conforms(item, args[0]) for item in value)
        return len(value) == len(args) and all(map(conforms, value, args))
    if origin in (dict, collections.abc.Mapping):
        return isinstance(value, dict) and all(
            isinstance(key, str) and conforms(item, args[1])
            for key, item in value.items()
        )
    containers = {
        list: list,
        set: set,
        frozenset: frozenset,
        collections.abc.Sequence: collections.abc.Sequence,
    }
    return isinstance(value, containers[origin]) and all(
        conforms(item, args[0]) for item in value
    )


def _conforms_typeddict(value: Any, annotation: Any) -> bool:
    """A TypedDict's keys, read from its hints: under `from __future__ import
    annotations` its `__required_keys__` cannot see `NotRequired`."""
    hints = typing_extensions.get_type_hints(annotation, include_extras=True)
    marks: dict[str, Any] = {
        key: typing_extensions.get_origin(hint) for key, hint in hints.items()
    }
    fields = {
        key: typing_extensions.get_args(hint)[0]
        if marks[key] in (typing_extensions.Required, typing_extensions.NotRequired)
        else hint
        for key, hint in hints.items()
    }
    required = {
        key
        for key, mark in marks.items()
        if mark is typing_extensions.Required
        or (mark is not typing_extensions.NotRequired and annotation.__total__)
    }
    return (
        isinstance(value, dict)
        and set(value) <= set(fields)
        and required <= set(value)
        and all(conforms(item, fields[key]) for key, item in value.items())
    )


# ------------------------------------------------------------ generated values

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 1, 2, 1.0, 2.0, 0.5, -3.0, 10**30, 1e300]),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
    st.sampled_from(
        [
            "red",
            "green",
            "a",
            "b",
            "1",
            "null",
            "true",
            "[1, 2]",
            '{"x": 1}',
            "aGk=",
            "%%%",
            "2024-05-01",
            "2024-05-01T10:00:00Z",
            "10:00:00",
            "P1D",
            "PT1H30M",
            "123e4567-e89b-12d3-a456-426614174000",
            "1.5",
            "/tmp/x",
        ]
    ),
)
keys = st.sampled_from(
    [
        "x",
        "y",
        "title",
        "year",
        "left",
        "right",
        "name",
        "size",
        "value",
        "children",
        "k",
    ]
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(keys, inner, max_size=4),
    ),
    max_leaves=12,
)
encoded = json_values.map(json.dumps)
python_only = st.one_of(
    st.sampled_from([math.nan, math.inf, -math.inf, 10**5000, (1, 2), {1, 2}, b"hi"]),
    st.dictionaries(
        st.one_of(st.integers(), st.none()), scalars, min_size=1, max_size=3
    ),
    st.builds(lambda value: {1: value, "k": value}, scalars),
)
argument_values = st.one_of(json_values, encoded, python_only)


def jsonschema_verdict(schema: Any, args: dict[str, Any]) -> bool:
    """The stock `jsonschema` validator's verdict, with toolkit's format checks."""
    checker = jsonschema_validator(schema).format_checker
    return bool(
        jsonschema.Draft202012Validator(schema, format_checker=checker).is_valid(args)
    )


def is_json(value: Any) -> bool:
    """Whether `value` is JSON data as a model sends it (no NaN, str keys, lists)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, int):
        return value.bit_length() < 13_000
    if isinstance(value, list):
        return all(map(is_json, value))
    if isinstance(value, dict):
        return all(
            isinstance(key, str) and is_json(item) for key, item in value.items()
        )
    return value is None or isinstance(value, str)


def fresh(label: str) -> tuple[Tool[Any, Any], list[Any]]:
    """The tool for `label`, with nothing received yet."""
    made, received = TOOLS[label]
    received.clear()
    return made, received


def check_call(label: str, value: Any) -> None:
    made, received = fresh(label)
    args = {"x": value}
    result = made.execute("a", "c", args)
    assert isinstance(result, ToolResult)
    assert "could not be checked" not in result.text, result.text
    if result.is_error:
        assert not received
        assert result.text.startswith(f'Invalid arguments for tool "{made.name}":'), (
            result.text
        )
    else:
        assert len(received) == 1, result
        assert conforms(received[0], ANNOTATIONS[label]), (value, received[0])
    verdict = made.validate_args(args) is None
    if is_json(value):
        assert verdict == jsonschema_verdict(made.parameters, args), value
    if verdict and not result.is_error:
        return
    if (
        verdict
    ):  # valid for the schema, refused by conversion: only text a type cannot read
        assert "is not valid base64" in result.text or "Invalid" in result.text, (
            result.text
        )


@pytest.mark.parametrize("label", list(ANNOTATIONS))
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(value=argument_values)
def test_accepted_values_match_their_annotation(label: str, value: Any) -> None:
    check_call(label, value)


# ------------------------------------------------------------ the three examples


def test_bytes_or_none_refuses_text_that_is_not_base64() -> None:
    made, received = fresh("bytes | None")
    result = made.execute("a", "c", {"x": "%%%"})
    assert result == ToolResult.error(
        "Invalid arguments for tool \"take\":\n- x: '%%%' is not valid base64"
    )
    assert not received
    assert made.execute("a", "c", {"x": base64.b64encode(b"hi").decode()}).text == "ok"
    assert received == [b"hi"]


def test_a_list_of_optional_bytes_refuses_text_that_is_not_base64() -> None:
    made, received = fresh("list[bytes | None]")
    result = made.execute("a", "c", {"x": ["aGk=", "%%%", None]})
    assert result == ToolResult.error(
        "Invalid arguments for tool \"take\":\n- x: '%%%' is not valid base64"
    )
    assert not received


@pytest.mark.parametrize(
    "value",
    [{1: 2, None: 3}, {"a": 1, 2: 3}, {(1, 2): 3}],
    ids=["int and None", "mixed", "tuple"],
)
def test_a_map_refuses_keys_that_are_not_strings(value: Any) -> None:
    made, received = fresh("dict[str, int]")
    result = made.execute("a", "c", {"x": value})
    assert result.is_error
    assert result.text.startswith(
        'Invalid arguments for tool "take":\n- x: expected object, got dict with non-string keys {'
    ), result.text
    assert not received


def test_an_optional_map_refuses_keys_that_are_not_strings() -> None:
    made, received = fresh("dict[str, int] | None")
    result = made.execute("a", "c", {"x": {1: 2}})
    assert not received
    assert result == ToolResult.error(
        'Invalid arguments for tool "take":\n'
        "- x: expected object or null, got dict with non-string keys {1: 2}"
    )


def test_arguments_with_a_key_that_is_not_a_string_are_refused() -> None:
    made, received = fresh("int")
    result = made.execute("a", "c", {"x": 1, 2: 3})
    assert result == ToolResult.error(
        'Invalid arguments for tool "take":\n'
        '- (arguments): expected object, got dict with non-string keys {"x": 1, 2: 3}'
    )
    assert not received


@pytest.mark.parametrize(
    "args",
    [{"x": "null"}, {"x": "null", "n": "3"}, {"x": "null", "n": 3}],
    ids=["alone", "beside an argument to decode", "beside a valid one"],
)
def test_the_text_null_for_an_optional_path_is_a_path(args: dict[str, Any]) -> None:
    """Decoding JSON text repairs an argument that is invalid as sent, never a valid one."""
    made, received = fresh("Path | None")
    assert made.execute("a", "c", args).text == "ok"
    assert received == [pathlib.Path("null")]


@pytest.mark.parametrize(
    "args", [{"x": "null"}, {"x": "null", "n": "3"}], ids=["alone", "beside another"]
)
def test_the_text_null_for_an_optional_int_is_null(args: dict[str, Any]) -> None:
    made, received = fresh("int | None")
    assert made.execute("a", "c", args).text == "ok"
    assert received == [None]


def test_decoding_applies_per_argument() -> None:
    made, received = fresh("str | None")
    assert made.execute("a", "c", {"x": "[1, 2]", "n": "[3]"}).is_error
    assert made.execute("a", "c", {"x": "[1, 2]", "n": "3"}).text == "ok"
    assert received == ["[1, 2]"]
