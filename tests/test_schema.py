"""One exact schema per row of the annotation table in docs/types.md (msgspec-style)."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import pathlib
import sys
import typing
import uuid
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, NamedTuple, NewType, Optional, Union

import annotated_types
import jsonschema
import pydantic
import pytest
from typing_extensions import NotRequired, ReadOnly, Required, TypeAliasType, TypedDict

from tests.conftest import assert_valid_schema
from toolkit import Param, ToolDefinitionError, json_schema


class Color(enum.Enum):
    """A primary colour."""

    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Movie(TypedDict):
    """A film.

    Attributes:
        title: Its title.
        year: Year of release.
    """

    title: str
    year: NotRequired[int]


class Partial(TypedDict, total=False):
    name: Required[str]
    tag: str
    label: ReadOnly[str]


@dataclasses.dataclass
class Point:
    """A point on the plane.

    Attributes:
        x: Horizontal position.
        y: Vertical position.
    """

    x: float
    y: float = 0.0
    tags: list[str] = dataclasses.field(default_factory=list)


class Pair(NamedTuple):
    """Two numbers."""

    left: int
    right: int = 0


@dataclasses.dataclass
class TreeNode:
    value: int
    children: list[TreeNode] = dataclasses.field(default_factory=list)


class Comment(TypedDict):
    text: str
    replies: list[Comment]


class User(pydantic.BaseModel):
    name: str
    age: int = 0


UserId = NewType("UserId", int)
Celsius = TypeAliasType("Celsius", Annotated[float, Param(ge=-273.15)])

ROWS: list[tuple[Any, dict[str, Any]]] = [
    (str, {"type": "string"}),
    (int, {"type": "integer"}),
    (float, {"type": "number"}),
    (bool, {"type": "boolean"}),
    (None, {"type": "null"}),
    (type(None), {"type": "null"}),
    (Optional[int], {"anyOf": [{"type": "integer"}, {"type": "null"}]}),  # noqa: UP045  # the row under test
    (int | None, {"anyOf": [{"type": "integer"}, {"type": "null"}]}),
    (Union[int, str], {"anyOf": [{"type": "integer"}, {"type": "string"}]}),  # noqa: UP007
    (
        int | str | None,
        {"anyOf": [{"type": "integer"}, {"type": "string"}, {"type": "null"}]},
    ),
    (Literal["c", "f"], {"type": "string", "enum": ["c", "f"]}),
    (Literal["only"], {"type": "string", "const": "only"}),
    (Literal[1, 2], {"type": "integer", "enum": [1, 2]}),
    (Literal[True], {"type": "boolean", "const": True}),
    (Literal["a", 1], {"enum": ["a", 1]}),
    (Literal["a", None], {"enum": ["a", None]}),
    (Literal[Color.RED], {"type": "string", "const": "red"}),
    (list[int], {"type": "array", "items": {"type": "integer"}}),
    (Sequence[str], {"type": "array", "items": {"type": "string"}}),
    (typing.List[int], {"type": "array", "items": {"type": "integer"}}),  # noqa: UP006
    (list, {"type": "array"}),
    (list[Any], {"type": "array"}),
    (set[str], {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
    (
        frozenset[int],
        {"type": "array", "items": {"type": "integer"}, "uniqueItems": True},
    ),
    (
        tuple[int, str],
        {
            "type": "array",
            "prefixItems": [{"type": "integer"}, {"type": "string"}],
            "minItems": 2,
            "maxItems": 2,
        },
    ),
    (tuple[int, ...], {"type": "array", "items": {"type": "integer"}}),
    (tuple[()], {"type": "array", "maxItems": 0}),
    (dict[str, int], {"type": "object", "additionalProperties": {"type": "integer"}}),
    (
        Mapping[str, float],
        {"type": "object", "additionalProperties": {"type": "number"}},
    ),
    (dict[str, Any], {"type": "object"}),
    (dict, {"type": "object"}),
    (
        dict[Literal["a", "b"], int],
        {
            "type": "object",
            "propertyNames": {"type": "string", "enum": ["a", "b"]},
            "additionalProperties": {"type": "integer"},
        },
    ),
    (datetime.datetime, {"type": "string", "format": "date-time"}),
    (datetime.date, {"type": "string", "format": "date"}),
    (datetime.time, {"type": "string", "format": "time"}),
    (datetime.timedelta, {"type": "string", "format": "duration"}),
    (uuid.UUID, {"type": "string", "format": "uuid"}),
    (
        decimal.Decimal,
        {
            "anyOf": [
                {"type": "number"},
                {
                    "type": "string",
                    "pattern": r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$",
                },
            ]
        },
    ),
    (pathlib.Path, {"type": "string"}),
    (bytes, {"type": "string", "contentEncoding": "base64"}),
    (Any, {}),
    (object, {}),
    (UserId, {"type": "integer"}),
    (Celsius, {"type": "number", "minimum": -273.15}),
]


@pytest.mark.parametrize(
    ("annotation", "expected"), ROWS, ids=[repr(row[0]) for row in ROWS]
)
def test_annotation_row(annotation: Any, expected: dict[str, Any]) -> None:
    schema = json_schema(annotation)
    assert schema == expected
    assert_valid_schema(schema)


def test_enum_goes_to_defs_with_its_docstring() -> None:
    assert json_schema(Color) == {
        "$ref": "#/$defs/Color",
        "$defs": {
            "Color": {
                "type": "string",
                "enum": ["red", "green"],
                "description": "A primary colour.",
            }
        },
    }


def test_int_enum_has_integer_type_and_no_generated_description() -> None:
    assert json_schema(Level) == {
        "$ref": "#/$defs/Level",
        "$defs": {"Level": {"type": "integer", "enum": [1, 2]}},
    }


def test_typeddict_with_not_required_and_attribute_docs() -> None:
    assert json_schema(Movie) == {
        "$ref": "#/$defs/Movie",
        "$defs": {
            "Movie": {
                "type": "object",
                "description": "A film.",
                "properties": {
                    "title": {"type": "string", "description": "Its title."},
                    "year": {"type": "integer", "description": "Year of release."},
                },
                "required": ["title"],
                "additionalProperties": False,
            }
        },
    }


def test_typeddict_total_false_with_required_and_read_only() -> None:
    assert json_schema(Partial)["$defs"]["Partial"] == {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "tag": {"type": "string"},
            "label": {"type": "string"},
        },
        "required": ["name"],
        "additionalProperties": False,
    }


def test_dataclass_defaults_make_fields_optional() -> None:
    assert json_schema(Point)["$defs"]["Point"] == {
        "type": "object",
        "description": "A point on the plane.",
        "properties": {
            "x": {"type": "number", "description": "Horizontal position."},
            "y": {
                "type": "number",
                "default": 0.0,
                "description": "Vertical position.",
            },
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["x"],
        "additionalProperties": False,
    }


def test_namedtuple_is_an_object_like_typeddict() -> None:
    assert json_schema(Pair)["$defs"]["Pair"] == {
        "type": "object",
        "description": "Two numbers.",
        "properties": {
            "left": {"type": "integer"},
            "right": {"type": "integer", "default": 0},
        },
        "required": ["left"],
        "additionalProperties": False,
    }


def test_recursive_dataclass_refers_to_itself() -> None:
    schema = json_schema(TreeNode)
    assert schema == {
        "$ref": "#/$defs/TreeNode",
        "$defs": {
            "TreeNode": {
                "type": "object",
                "properties": {
                    "value": {"type": "integer"},
                    "children": {
                        "type": "array",
                        "items": {"$ref": "#/$defs/TreeNode"},
                    },
                },
                "required": ["value"],
                "additionalProperties": False,
            }
        },
    }
    assert_valid_schema(schema)


def test_recursive_typeddict_refers_to_itself() -> None:
    schema = json_schema(Comment)
    assert schema["$defs"]["Comment"]["properties"]["replies"] == {
        "type": "array",
        "items": {"$ref": "#/$defs/Comment"},
    }


def test_pydantic_model_uses_its_own_schema() -> None:
    assert json_schema(User) == {
        "$ref": "#/$defs/User",
        "$defs": {"User": User.model_json_schema()},
    }


def test_enum_default_in_a_dataclass_is_its_value() -> None:
    @dataclasses.dataclass
    class Paint:
        color: Color = Color.GREEN

    assert json_schema(Paint)["$defs"]["Paint"]["properties"]["color"] == {
        "$ref": "#/$defs/Color",
        "default": "green",
    }


def test_param_constraints_for_numbers() -> None:
    annotation = Annotated[
        float,
        Param(gt=0, lt=1, multiple_of=0.25, description="A share.", title="Share"),
    ]
    assert json_schema(annotation) == {
        "type": "number",
        "exclusiveMinimum": 0,
        "exclusiveMaximum": 1,
        "multipleOf": 0.25,
        "title": "Share",
        "description": "A share.",
    }


def test_param_lengths_map_to_the_type() -> None:
    assert json_schema(
        Annotated[
            str, Param(min_length=1, max_length=5, pattern="^[a-z]+$", format="email")
        ]
    ) == {
        "type": "string",
        "minLength": 1,
        "maxLength": 5,
        "pattern": "^[a-z]+$",
        "format": "email",
    }
    assert json_schema(Annotated[list[int], Param(min_length=1, max_length=3)]) == {
        "type": "array",
        "items": {"type": "integer"},
        "minItems": 1,
        "maxItems": 3,
    }
    assert json_schema(Annotated[dict[str, int], Param(max_length=2)]) == {
        "type": "object",
        "additionalProperties": {"type": "integer"},
        "maxProperties": 2,
    }


def test_several_params_merge_later_wins() -> None:
    annotation = Annotated[
        int, Param(ge=0, description="first"), Param(description="second", le=9)
    ]
    assert json_schema(annotation) == {
        "type": "integer",
        "minimum": 0,
        "maximum": 9,
        "description": "second",
    }


def test_plain_string_metadata_is_a_description() -> None:
    assert json_schema(Annotated[str, "The city."]) == {
        "type": "string",
        "description": "The city.",
    }


def test_examples_and_deprecated() -> None:
    assert json_schema(Annotated[str, Param(examples=["Paris"], deprecated=True)]) == {
        "type": "string",
        "examples": ["Paris"],
        "deprecated": True,
    }


def test_annotated_types_constraints() -> None:
    annotation = Annotated[
        int,
        annotated_types.Ge(1),
        annotated_types.Lt(10),
        annotated_types.MultipleOf(3),
    ]
    assert json_schema(annotation) == {
        "type": "integer",
        "minimum": 1,
        "exclusiveMaximum": 10,
        "multipleOf": 3,
    }
    assert json_schema(Annotated[str, annotated_types.Len(2, 4)]) == {
        "type": "string",
        "minLength": 2,
        "maxLength": 4,
    }
    assert json_schema(Annotated[int, annotated_types.Interval(ge=0, le=5)]) == {
        "type": "integer",
        "minimum": 0,
        "maximum": 5,
    }


def test_pydantic_field_in_annotated() -> None:
    annotation = Annotated[int, pydantic.Field(ge=0, description="How many.")]
    assert json_schema(annotation) == {
        "type": "integer",
        "minimum": 0,
        "description": "How many.",
    }


def test_constraints_on_optional_go_to_the_non_null_branch() -> None:
    assert json_schema(Annotated[int | None, Param(ge=0, description="n")]) == {
        "anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}],
        "description": "n",
    }


def test_annotated_outer_metadata_wins_over_newtype_inner() -> None:
    Count = NewType("Count", Annotated[int, Param(ge=0, description="inner")])
    assert json_schema(Annotated[Count, Param(description="outer")]) == {
        "type": "integer",
        "minimum": 0,
        "description": "outer",
    }


def test_string_annotation_is_resolved_in_a_function() -> None:
    from toolkit import tool

    @tool
    def f(x: list[int]) -> None:
        """F."""

    assert f.parameters["properties"]["x"] == {
        "type": "array",
        "items": {"type": "integer"},
    }


def test_defs_name_clash_uses_module_and_qualname() -> None:
    first = Color

    class Color2(enum.Enum):
        X = "x"

    Color2.__name__ = "Color"
    schema = json_schema(tuple[first, Color2])  # type: ignore[valid-type]
    assert list(schema["$defs"]) == [
        "Color",
        "tests.test_schema.test_defs_name_clash_uses_module_and_qualname._locals_.Color2",
    ]
    assert_valid_schema(schema)


@pytest.mark.skipif(
    sys.version_info < (3, 12), reason="the `type` statement needs Python 3.12"
)
def test_type_statement_alias() -> None:
    namespace: dict[str, Any] = {}
    exec("type Pair[T] = tuple[T, T]\ntype Ints = list[int]", namespace)
    assert json_schema(namespace["Ints"]) == {
        "type": "array",
        "items": {"type": "integer"},
    }
    assert json_schema(namespace["Pair"][int])["prefixItems"] == [
        {"type": "integer"},
        {"type": "integer"},
    ]


@pytest.mark.parametrize(
    ("annotation", "message"),
    [
        (
            complex,
            "the type complex is not supported. Use a JSON-compatible type (str, int, float, bool, list, dict, Literal, Enum, TypedDict, dataclass, ...) or Any",
        ),
        (
            dict[int, str],
            "dict keys must be strings, since JSON object keys are; got int. Use dict[str, ...]",
        ),
        (
            Annotated[str, Param(ge=1)],
            "Param(ge=...) does not apply to str. Remove it, or apply it to a type it constrains",
        ),
        (
            Literal[b"x"],
            "Literal value b'x' cannot be sent as JSON. Use str, int, bool or None values",
        ),
        (
            typing.TypeVar("T"),
            "the type variable ~T has no concrete type. Use a concrete type",
        ),
    ],
)
def test_unsupported_annotations_raise(annotation: Any, message: str) -> None:
    with pytest.raises(ToolDefinitionError) as caught:
        json_schema(annotation)
    assert str(caught.value) == message


def test_enum_with_non_json_values_is_refused() -> None:
    class Bad(enum.Enum):
        A = (1, 2)

    with pytest.raises(ToolDefinitionError) as caught:
        json_schema(Bad)
    assert str(caught.value) == (
        "the value of test_enum_with_non_json_values_is_refused.<locals>.Bad.A is (1, 2), which JSON cannot carry. "
        "Give the Enum str, int, float or bool values"
    )


def test_unsupported_field_names_the_field() -> None:
    @dataclasses.dataclass
    class Holder:
        value: complex

    with pytest.raises(
        ToolDefinitionError, match=r"^field 'value': the type complex is not supported"
    ):
        json_schema(Holder)


def test_schemas_kept_on_nodes_never_hold_refs() -> None:
    """A named type's $defs name depends on its neighbours; it must not stick between schemas."""

    class Other(enum.Enum):
        X = "x"

    Other.__name__ = "Color"
    clashing = json_schema(tuple[Color, Other])
    assert clashing["prefixItems"][1]["$ref"].endswith("_locals_.Other")
    alone = json_schema(list[Other])
    assert alone == {
        "type": "array",
        "items": {"$ref": "#/$defs/Color"},
        "$defs": {"Color": {"type": "string", "enum": ["x"]}},
    }
    assert json_schema(list[int | None]) == json_schema(list[int | None])


class Stop(TypedDict):
    stop_name: Annotated[str, pydantic.Field(alias="stopName")]
    line: NotRequired[Annotated[int, pydantic.Field(alias="lineNo")]]
    zone: str


@dataclasses.dataclass
class Leg:
    from_stop: Annotated[Stop, pydantic.Field(alias="fromStop")]
    minutes: int = 0


def test_pydantic_aliases_name_the_fields_as_pydantic_does() -> None:
    """The MCP SDK names a field by its alias on the wire (pydantic's `by_alias`): so do the schemas."""
    for annotation in (Stop, Leg):
        ours = json_schema(annotation)
        theirs = pydantic.TypeAdapter(annotation).json_schema(by_alias=True)
        ours_defs = {name: ours["$defs"][name] for name in ours.get("$defs", {})}
        own = ours["$defs"][annotation.__name__] if "$ref" in ours else ours
        for name, found in {annotation.__name__: own, **ours_defs}.items():
            expected = theirs.get("$defs", {}).get(name, theirs)
            assert list(found["properties"]) == list(expected["properties"]), name
            assert found.get("required", []) == expected.get("required", []), name


def test_an_alias_that_names_another_field_is_refused() -> None:
    class Clash(TypedDict):
        city: str
        town: Annotated[str, pydantic.Field(alias="city")]

    with pytest.raises(ToolDefinitionError, match=r"'town'.*'city'"):
        json_schema(Clash)


def test_a_default_names_its_aliased_fields_as_the_schema_does() -> None:
    from toolkit import tool

    @tool
    def go(leg: Leg = Leg(Stop(stop_name="A", zone="1"))) -> str:  # noqa: B008
        """Go."""
        return repr(leg)

    schema = go.parameters["properties"]["leg"]
    assert schema["default"] == {
        "fromStop": {"stopName": "A", "zone": "1"},
        "minutes": 0,
    }
    jsonschema.validate({"leg": schema["default"]}, go.parameters)
    assert go.execute("a", "c", {}).text == repr(Leg(Stop(stop_name="A", zone="1")))
