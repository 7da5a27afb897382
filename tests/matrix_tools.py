"""One tool per annotation kind of the type table, as a parameter and as a return type.

`tests/test_matrix.py` drives these tools through every export, `execute`
and `toolkit serve`; the same module is the served target, so what the
server lists is exactly what the tests expect. Each `Case` says what a model
sends (`good`, `bad`), what the function then receives (`received`), and
what a function returning `returned` gives as structured JSON (`structured`).

`p_<id>(value: <annotation>)` answers with `repr(value)`, so that a test (in
process or over MCP) sees the Python value the function received;
`r_<id>() -> <annotation>` returns `returned`.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import pathlib
import uuid
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, NamedTuple, NewType, Optional, Union

import annotated_types
import pydantic
from typing_extensions import NotRequired, ReadOnly, Required, TypeAliasType, TypedDict

from toolkit import Param, Tool, ToolSet, tool
from toolkit.core._frozen import FrozenDict


class _Marker:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


NO_ANNOTATION: Any = _Marker("NO_ANNOTATION")
"""The parameter (or return) has no annotation at all."""
ANY_VALUE: Any = _Marker("ANY_VALUE")
"""Every JSON value fits: there is no bad argument."""
UNSTRUCTURED: Any = _Marker("UNSTRUCTURED")
"""The return type has no output schema (None, Any, no annotation)."""
RETURNED: Any = _Marker("RETURNED")
"""The value a return tool gives back is its case's `returned`."""


class Color(enum.Enum):
    """A colour."""

    RED = "red"
    BLUE = "blue"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Movie(TypedDict):
    """A movie.

    Attributes:
        title: Its title.
        year: The year it came out.
    """

    title: ReadOnly[str]
    year: NotRequired[int]


class Filters(TypedDict, total=False):
    query: Required[str]
    limit: int


@dataclasses.dataclass
class Point:
    """A point on a grid."""

    x: int
    y: int = 0


class Span(NamedTuple):
    start: int
    end: int


class Person(pydantic.BaseModel):
    full_name: str = pydantic.Field(alias="fullName")
    age: int = 0


@dataclasses.dataclass
class Node:
    """A tree of numbers."""

    value: int
    children: list[Node] = dataclasses.field(default_factory=list)


class Place(TypedDict):
    """A place, whose fields have other names in JSON (pydantic aliases)."""

    city_name: Annotated[str, pydantic.Field(alias="cityName")]
    zip_code: NotRequired[Annotated[int, pydantic.Field(alias="zipCode")]]
    country: str


class Branch(TypedDict):
    name: str
    branches: list[Branch]


UserId = NewType("UserId", int)
IntList = TypeAliasType("IntList", list[int])  # what `type IntList = list[int]` makes


@dataclasses.dataclass(frozen=True)
class Case:
    """One annotation kind: what a model sends, what the function gets and gives back."""

    id: str
    annotation: Any
    good: Any
    received: Any
    bad: Any
    returned: Any
    structured: Any
    wrong: Any = None
    """A returned value that does not match the annotation (None: no such value is tried)."""
    openapi: bool = True
    """Whether Gemini's OpenAPI form can express it (recursion cannot)."""


UTC = datetime.timezone.utc
CASES = [
    Case("str", str, "hi", "hi", 3, "hi", UNSTRUCTURED),
    Case("int", int, 3, 3, "x", 3, 3, wrong="3"),
    Case("int_as_float", int, 3.0, 3, 3.5, 3, 3, wrong=True),
    Case("float", float, 2.5, 2.5, "x", 2.5, 2.5, wrong="2.5"),
    Case("bool", bool, True, True, 1, False, False, wrong=1),
    Case("none", None, None, None, 0, None, UNSTRUCTURED),
    Case("optional", int | None, None, None, "x", None, None, wrong="x"),
    Case("optional_typing", Optional[str], "a", "a", 1, "a", "a", wrong=1),  # noqa: UP045
    Case(
        "optional_typeddict",
        Optional[Movie],  # noqa: UP045
        {"title": "Up"},
        {"title": "Up"},
        {"year": 1},
        {"title": "Up"},
        {"title": "Up"},
        wrong={"year": 1},
    ),
    Case("optional_list", list[int] | None, [], [], [None], [1], [1], wrong=["1"]),
    Case("union", int | str, "a", "a", [1], "x", "x", wrong=[1]),
    Case("union_typing", Union[int, list[int]], [1], [1], "x", [2], [2], wrong="x"),  # noqa: UP007
    Case("literal", Literal["a", "b"], "b", "b", "c", "a", "a", wrong="c"),
    Case("literal_one", Literal["only"], "only", "only", "other", "only", "only"),
    Case("literal_int", Literal[1, 2], 2, 2, 3, 1, 1, wrong=3),
    Case("enum", Color, "red", Color.RED, "green", Color.BLUE, "blue", wrong="green"),
    Case("int_enum", Level, 2, Level.HIGH, 3, Level.LOW, 1, wrong=3),
    Case("list", list[int], [1, 2], [1, 2], [1, "a"], [1, 2], [1, 2], wrong=[1, "a"]),
    Case("sequence", Sequence[str], ["a"], ["a"], "a", ("a", "b"), ["a", "b"]),
    Case("set", set[int], [2, 1], {1, 2}, [1, 1], {3, 1}, [1, 3], wrong={"a"}),
    Case(
        "frozenset",
        frozenset[str],
        ["a"],
        frozenset({"a"}),
        [1],
        frozenset({"b"}),
        ["b"],
    ),
    Case(
        "tuple",
        tuple[int, str],
        [1, "a"],
        (1, "a"),
        [1],
        (2, "b"),
        [2, "b"],
        wrong=(1,),
    ),
    Case("tuple_var", tuple[int, ...], [1, 2], (1, 2), ["a"], (3,), [3], wrong=("a",)),
    Case(
        "dict",
        dict[str, int],
        {"a": 1},
        {"a": 1},
        {"a": "x"},
        {"b": 2},
        {"b": 2},
        wrong={"b": "x"},
    ),
    Case(
        "mapping",
        Mapping[str, float],
        {"a": 1.5},
        {"a": 1.5},
        [],
        {"a": 0.5},
        {"a": 0.5},
    ),
    Case(
        "typeddict",
        Movie,
        {"title": "Up"},
        {"title": "Up"},
        {"year": 2009},
        {"title": "Up", "year": 2009},
        {"title": "Up", "year": 2009},
        wrong={"year": 2009},
    ),
    Case(
        "typeddict_total_false",
        Filters,
        {"query": "q"},
        {"query": "q"},
        {"limit": 1},
        {"query": "q", "limit": 2},
        {"query": "q", "limit": 2},
    ),
    Case(
        "typeddict_alias",
        Place,
        {"cityName": "Oslo", "zipCode": 150, "country": "NO"},
        {"city_name": "Oslo", "zip_code": 150, "country": "NO"},
        {"city_name": "Oslo", "country": "NO"},
        {"city_name": "Oslo", "country": "NO"},
        {"cityName": "Oslo", "country": "NO"},
        wrong={"city_name": 1, "country": "NO"},
    ),
    Case(
        "typeddict_alias_nested",
        Optional[list[Place]],  # noqa: UP045
        [{"cityName": "Oslo", "country": "NO"}],
        [{"city_name": "Oslo", "country": "NO"}],
        [{"cityName": "Oslo", "country": "NO", "city_name": "Oslo"}],
        [{"city_name": "Oslo", "zip_code": 150, "country": "NO"}],
        [{"cityName": "Oslo", "zipCode": 150, "country": "NO"}],
        wrong=[{"zip_code": 1, "country": "NO"}],
    ),
    Case(
        "dataclass",
        Point,
        {"x": 1},
        Point(1, 0),
        {"y": 1},
        Point(3, 4),
        {"x": 3, "y": 4},
        wrong={"x": "3"},
    ),
    Case(
        "namedtuple",
        Span,
        {"start": 1, "end": 2},
        Span(1, 2),
        {"start": 1},
        Span(3, 4),
        {"start": 3, "end": 4},
    ),
    Case(
        "pydantic",
        Person,
        {"fullName": "Ada"},
        Person(fullName="Ada"),
        {"fullName": 3},
        Person(fullName="Ada", age=36),
        {"fullName": "Ada", "age": 36},
        wrong={"full_name": "Ada"},
    ),
    Case(
        "datetime",
        datetime.datetime,
        "2024-05-01T10:00:00Z",
        datetime.datetime(2024, 5, 1, 10, 0, tzinfo=UTC),
        "yesterday",
        datetime.datetime(2024, 5, 1, 10, 0, tzinfo=UTC),
        "2024-05-01T10:00:00+00:00",
        wrong="yesterday",
    ),
    Case(
        "date",
        datetime.date,
        "2024-05-01",
        datetime.date(2024, 5, 1),
        "May 1",
        datetime.date(2024, 5, 2),
        "2024-05-02",
    ),
    Case(
        "time",
        datetime.time,
        "10:30:00",
        datetime.time(10, 30),
        "half past",
        datetime.time(11, 0),
        "11:00:00",
    ),
    Case(
        "timedelta",
        datetime.timedelta,
        "PT1H",
        datetime.timedelta(hours=1),
        "an hour",
        datetime.timedelta(minutes=90),
        "P0DT1H30M0S",
    ),
    Case(
        "uuid",
        uuid.UUID,
        "12345678-1234-5678-1234-567812345678",
        uuid.UUID("12345678-1234-5678-1234-567812345678"),
        "not-a-uuid",
        uuid.UUID(int=1),
        "00000000-0000-0000-0000-000000000001",
    ),
    Case(
        "decimal",
        decimal.Decimal,
        "1.50",
        decimal.Decimal("1.50"),
        "one",
        decimal.Decimal("2.5"),
        "2.5",
        wrong="two",
    ),
    Case(
        "path",
        pathlib.Path,
        "/tmp/x",
        pathlib.Path("/tmp/x"),
        3,
        pathlib.Path("/tmp/y"),
        "/tmp/y",
    ),
    Case("bytes", bytes, "aGk=", b"hi", "not base64!", b"hi", "aGk="),
    Case("any", Any, {"a": [1]}, {"a": [1]}, ANY_VALUE, {"b": 2}, UNSTRUCTURED),
    Case("object", object, [1, "a"], [1, "a"], ANY_VALUE, {"b": 2}, {"b": 2}),
    Case("no_annotation", NO_ANNOTATION, 7, 7, ANY_VALUE, 7, UNSTRUCTURED),
    Case(
        "annotated_param",
        Annotated[int, Param(ge=1, le=5, description="From 1 to 5.")],
        3,
        3,
        9,
        4,
        4,
        wrong=9,
    ),
    Case("annotated_text", Annotated[str, "A note."], "n", "n", 1, "m", "m", wrong=1),
    Case(
        "annotated_types",
        Annotated[str, annotated_types.MinLen(2)],
        "ab",
        "ab",
        "a",
        "cd",
        "cd",
        wrong="c",
    ),
    Case("newtype", UserId, 5, 5, "five", UserId(6), 6, wrong="6"),
    Case("type_alias", IntList, [1], [1], ["a"], [2], [2], wrong=["a"]),
    Case(
        "string_annotation",
        "list[Point]",
        [{"x": 1}],
        [Point(1, 0)],
        [{"y": 1}],
        [Point(2, 3)],
        [{"x": 2, "y": 3}],
    ),
    Case(
        "recursive_dataclass",
        Node,
        {"value": 1, "children": [{"value": 2}]},
        Node(1, [Node(2)]),
        {"value": "x"},
        Node(1, [Node(2)]),
        {"value": 1, "children": [{"value": 2, "children": []}]},
        wrong={"value": 1, "children": [{"value": "2"}]},
        openapi=False,
    ),
    Case(
        "recursive_typeddict",
        Branch,
        {"name": "a", "branches": [{"name": "b", "branches": []}]},
        {"name": "a", "branches": [{"name": "b", "branches": []}]},
        {"name": "a"},
        {"name": "a", "branches": []},
        {"name": "a", "branches": []},
        wrong={"name": "a"},
        openapi=False,
    ),
]

BY_ID = {case.id: case for case in CASES}

ADMITTED: dict[str, tuple[Any, ...]] = {
    "int": (0,),
    "bool": (True,),
    "optional": (3, 0),
    "optional_typing": (None, ""),
    "optional_typeddict": (None, {"title": "", "year": 0}),
    "optional_list": (None, []),
    "typeddict_alias_nested": (None, []),
    "union": (1, ""),
    "union_typing": (1, []),
    "literal": ("b",),
    "literal_int": (2,),
    "enum": (Color.RED,),
    "list": ([],),
    "sequence": ((), []),
    "set": (set(),),
    "frozenset": (frozenset(),),
    "tuple_var": ((),),
    "dict": ({},),
    "mapping": ({},),
    "typeddict_total_false": ({"query": ""},),
    "object": (None, 0, "", [], {}),
    "type_alias": ([],),
    "string_annotation": ([],),
    "recursive_typeddict": (
        {"name": "a", "branches": [{"name": "b", "branches": []}]},
    ),
}
"""More values each return annotation admits than `returned`: None, each union member, empty containers."""


def _annotations(case: Case, key: str) -> dict[str, Any]:
    return {} if case.annotation is NO_ANNOTATION else {key: case.annotation}


def parameter_tool(case: Case) -> Tool[Any, Any]:
    """`p_<id>(value: <annotation>) -> str`, answering with `repr(value)`."""

    def function(value):  # type: ignore[no-untyped-def]  # annotated below, per case
        return repr(value)

    function.__annotations__ = {**_annotations(case, "value"), "return": str}
    function.__name__ = function.__qualname__ = f"p_{case.id}"
    function.__doc__ = f"Take a {case.id} value.\n\nArgs:\n    value: The value.\n"
    return tool(function)


def return_tool(
    case: Case, *, value: Any = RETURNED, prefix: str = "r"
) -> Tool[Any, Any]:
    """`r_<id>() -> <annotation>`, returning `case.returned` (or `value`)."""
    returned = case.returned if value is RETURNED else value

    def function():  # type: ignore[no-untyped-def]  # annotated below, per case
        return returned

    function.__annotations__ = _annotations(case, "return")
    function.__name__ = function.__qualname__ = f"{prefix}_{case.id}"
    function.__doc__ = f"Give a {case.id} value.\n\nReturns:\n    The value.\n"
    return tool(function)


def _broken() -> Tool[Any, Any]:
    """A tool whose output schema was replaced, after it was made, by one no client can use."""
    made = return_tool(BY_ID["dataclass"], prefix="broken")
    made.output_schema = FrozenDict({"$ref": "#/$defs/Gone"})
    return made


PARAMETER_TOOLS = [parameter_tool(case) for case in CASES]
RETURN_TOOLS = [return_tool(case) for case in CASES]
VALUE_TOOLS = [
    return_tool(case, value=value, prefix=f"v{index}")
    for case in CASES
    for index, value in enumerate(ADMITTED.get(case.id, ()))
]
"""`v<index>_<id>() -> <annotation>`, returning the annotation's other admitted values."""
BROKEN = _broken()
tools = ToolSet([*PARAMETER_TOOLS, *RETURN_TOOLS, *VALUE_TOOLS, BROKEN])
