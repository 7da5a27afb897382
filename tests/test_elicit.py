"""The form of Context.elicit: types → MCP's elicitation subset, and answers → the type.

Oracles: the Draft 2020-12 meta-schema, and the `mcp` SDK's own model of
what a form's property may be (`PrimitiveSchemaDefinition` of the
2025-11-25 protocol), with the keys each kind allows.
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
from typing import Annotated, Any, Literal, NamedTuple, TypedDict

import pytest
import typing_extensions
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit import Param, ToolDefinitionError, ToolError
from toolkit.schema._elicit import elicit_form
from toolkit.values._json import to_jsonable

from .conftest import assert_valid_schema

_KEYS = {
    "string": {
        "type",
        "title",
        "description",
        "default",
        "minLength",
        "maxLength",
        "format",
        "enum",
        "enumNames",
        "oneOf",
    },
    "number": {"type", "title", "description", "default", "minimum", "maximum"},
    "integer": {"type", "title", "description", "default", "minimum", "maximum"},
    "boolean": {"type", "title", "description", "default"},
    "array": {
        "type",
        "title",
        "description",
        "default",
        "items",
        "minItems",
        "maxItems",
    },
}


def assert_form(schema: dict[str, Any]) -> None:
    """Fail unless `schema` is a valid JSON Schema that MCP clients accept as a form."""
    from mcp_types._v2025_11_25 import PrimitiveSchemaDefinition, RequestedSchema
    from pydantic import TypeAdapter

    assert_valid_schema(schema)
    assert set(schema) <= {"type", "properties", "required", "$schema"}
    RequestedSchema.model_validate(schema)
    adapter: TypeAdapter[Any] = TypeAdapter(PrimitiveSchemaDefinition)
    for name, prop in schema["properties"].items():
        adapter.validate_python(prop)
        assert set(prop) <= _KEYS[prop["type"]], (name, prop)


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Plan(enum.Enum):
    FREE = "free"
    PRO = "pro"

    @property
    def title(self) -> str:
        return {"free": "Free tier", "pro": "Professional"}[self.value]


class Size(str, enum.Enum):  # str.title is a method, not a title
    SMALL = "s"
    LARGE = "l"


class Number(enum.Enum):
    ONE = 1


# (annotation, default, property schema, required)
MATRIX: list[tuple[Any, Any, dict[str, Any], bool]] = [
    (str, dataclasses.MISSING, {"type": "string"}, True),
    (int, 3, {"type": "integer", "default": 3}, False),
    (float, 95.5, {"type": "number", "default": 95.5}, False),
    (bool, True, {"type": "boolean", "default": True}, False),
    (datetime.date, dataclasses.MISSING, {"type": "string", "format": "date"}, True),
    (
        datetime.datetime,
        dataclasses.MISSING,
        {"type": "string", "format": "date-time"},
        True,
    ),
    (str | None, None, {"type": "string"}, False),
    (int | None, dataclasses.MISSING, {"type": "integer"}, False),
    (
        Literal["a", "b"],
        "b",
        {"type": "string", "enum": ["a", "b"], "default": "b"},
        False,
    ),
    (Literal["a", "b"] | None, None, {"type": "string", "enum": ["a", "b"]}, False),
    (
        Color,
        Color.GREEN,
        {"type": "string", "enum": ["red", "green"], "default": "green"},
        False,
    ),
    (Size, dataclasses.MISSING, {"type": "string", "enum": ["s", "l"]}, True),
    (
        Plan,
        dataclasses.MISSING,
        {
            "type": "string",
            "oneOf": [
                {"const": "free", "title": "Free tier"},
                {"const": "pro", "title": "Professional"},
            ],
        },
        True,
    ),
    (
        list[Color],
        dataclasses.MISSING,
        {"type": "array", "items": {"type": "string", "enum": ["red", "green"]}},
        True,
    ),
    (
        set[Literal["x", "y"]],
        dataclasses.MISSING,
        {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}},
        True,
    ),
    (
        list[Plan],
        dataclasses.MISSING,
        {
            "type": "array",
            "items": {
                "anyOf": [
                    {"const": "free", "title": "Free tier"},
                    {"const": "pro", "title": "Professional"},
                ]
            },
        },
        True,
    ),
    (
        Annotated[
            str,
            Param(
                min_length=1,
                max_length=9,
                format="email",
                title="Email",
                description="Where to write",
            ),
        ],
        dataclasses.MISSING,
        {
            "type": "string",
            "title": "Email",
            "description": "Where to write",
            "minLength": 1,
            "maxLength": 9,
            "format": "email",
        },
        True,
    ),
    (
        Annotated[int, Param(ge=0, le=120)],
        dataclasses.MISSING,
        {"type": "integer", "minimum": 0, "maximum": 120},
        True,
    ),
    (
        Annotated[list[Color], Param(min_length=1, max_length=2)],
        dataclasses.MISSING,
        {
            "type": "array",
            "items": {"type": "string", "enum": ["red", "green"]},
            "minItems": 1,
            "maxItems": 2,
        },
        True,
    ),
    (
        Annotated[int | None, Param(ge=1)],
        None,
        {"type": "integer", "minimum": 1},
        False,
    ),
]


def make_dataclass(annotation: Any, default: Any) -> type:
    if default is dataclasses.MISSING:
        return dataclasses.make_dataclass("Form", [("field", annotation)])
    if isinstance(default, (list, set)):
        return dataclasses.make_dataclass(
            "Form",
            [("field", annotation, dataclasses.field(default_factory=lambda: default))],
        )
    return dataclasses.make_dataclass(
        "Form", [("field", annotation, dataclasses.field(default=default))]
    )


@pytest.mark.parametrize(("annotation", "default", "expected", "required"), MATRIX)
def test_each_kind_of_field(
    annotation: Any, default: Any, expected: dict[str, Any], required: bool
) -> None:
    """Every supported annotation becomes the property clients render."""
    form = elicit_form(make_dataclass(annotation, default))
    assert form.schema["properties"]["field"] == expected
    assert ("required" in form.schema) == required
    assert_form(form.copy_schema())


def test_a_whole_dataclass_with_docs_and_order() -> None:
    """Fields keep their order; the docstring's Attributes become descriptions."""

    @dataclasses.dataclass
    class Signup:
        """Sign up.

        Attributes:
            email: Where we write to you.
            plan: What you pay for.
        """

        email: str
        plan: Plan = Plan.FREE
        newsletter: bool = False

    assert elicit_form(Signup).schema == {
        "type": "object",
        "properties": {
            "email": {"type": "string", "description": "Where we write to you."},
            "plan": {
                "type": "string",
                "oneOf": [
                    {"const": "free", "title": "Free tier"},
                    {"const": "pro", "title": "Professional"},
                ],
                "default": "free",
                "description": "What you pay for.",
            },
            "newsletter": {"type": "boolean", "default": False},
        },
        "required": ["email"],
    }


def test_typeddict_and_namedtuple() -> None:
    """TypedDict (required keys as declared) and NamedTuple work like dataclasses."""

    class Contact(TypedDict, total=False):
        name: typing_extensions.Required[str]
        phone: str

    class Point(NamedTuple):
        x: int
        y: int = 0

    contact = elicit_form(Contact)
    assert contact.schema["required"] == ["name"]
    assert contact.read({"name": "Ann"}) == {"name": "Ann"}
    point = elicit_form(Point)
    assert point.schema["required"] == ["x"]
    assert point.read({"x": 2}) == Point(2, 0)


def test_answers_are_converted_to_the_type() -> None:
    """Enums, dates, sets and defaults come back as Python values."""

    @dataclasses.dataclass
    class Booking:
        day: datetime.date
        colors: set[Color]
        plan: Plan = Plan.FREE
        note: str | None = None
        count: int | None = None

    booking = elicit_form(Booking).read(
        {
            "day": "2025-01-31",
            "colors": ["red", "green"],
            "plan": "pro",
            "extra": "dropped",
        }
    )
    assert booking == Booking(
        datetime.date(2025, 1, 31), {Color.RED, Color.GREEN}, Plan.PRO
    )


def test_optional_field_without_default_is_none_when_left_empty() -> None:
    """`X | None` with no default: an empty field is None."""

    @dataclasses.dataclass
    class Form:
        nickname: str | None

    assert elicit_form(Form).read({}) == Form(None)


def test_invalid_answers_name_every_field() -> None:
    """Wrong types, values outside the choices, bad dates: one line each."""

    @dataclasses.dataclass
    class Form:
        name: str
        age: int
        color: Color
        day: datetime.date

    with pytest.raises(ToolError) as caught:
        elicit_form(Form).read({"age": "x", "color": "blue", "day": "2025-02-30"})
    text = str(caught.value)
    assert text.startswith("The answer to the question does not fit ")
    for field in ("name:", "age:", "color:", "day:"):
        assert f"- {field}" in text, text


def test_an_answer_that_is_not_an_object() -> None:
    """A list or text instead of the fields is refused."""
    with pytest.raises(ToolError, match="expected an object of fields, got list"):
        elicit_form(make_dataclass(str, dataclasses.MISSING)).read(["x"])


@pytest.mark.parametrize(
    ("annotation", "message"),
    [
        (
            dict[str, int],
            "field 'field' of Form: a mapping is not something a form holds",
        ),
        (list[str], "a list of str is not something a form holds"),
        (Literal[1, 2], "the choices of a form are text"),
        (Number, "the choices of a form are text"),
        (int | str, "a union of types is not something a form holds"),
        (bytes, "a form holds str, int, float, bool, date and datetime, not bytes"),
        (
            Annotated[int, Param(gt=0)],
            "cannot hold the constraint gt on integer values",
        ),
        (
            Annotated[str, Param(pattern="^a")],
            "cannot hold the constraint pattern on string values",
        ),
        (
            Annotated[str, Param(format="uuid")],
            "a form knows the string formats email, uri, date, date-time, not 'uuid'",
        ),
        (
            Annotated[bool, Param(ge=0)],
            "cannot hold the constraint ge/le on boolean values",
        ),
    ],
)
def test_fields_no_form_holds_are_refused_with_the_field(
    annotation: Any, message: str
) -> None:
    """A type outside the subset: ToolDefinitionError naming the field and what a form holds."""
    with pytest.raises(ToolDefinitionError) as caught:
        elicit_form(make_dataclass(annotation, dataclasses.MISSING))
    assert "elicit cannot ask for field 'field' of" in str(caught.value)
    assert message in str(caught.value)


def test_nested_and_non_object_types_are_refused() -> None:
    """A nested dataclass, or a type that is not an object of fields."""

    @dataclasses.dataclass
    class Inner:
        x: int

    outer = dataclasses.make_dataclass("Outer", [("inner", Inner)])
    with pytest.raises(
        ToolDefinitionError,
        match="field 'inner' of Outer: Inner is not something a form holds",
    ):
        elicit_form(outer)
    with pytest.raises(
        ToolDefinitionError,
        match="elicit asks for a dataclass, TypedDict or NamedTuple of fields, or a JSON Schema dict; got int",
    ):
        elicit_form(int)


SEP1330 = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {
            "type": "string",
            "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
            ],
        },
        "legacyEnum": {
            "type": "string",
            "enum": ["opt1", "opt2"],
            "enumNames": ["Option One", "Option Two"],
        },
        "untitledMulti": {
            "type": "array",
            "items": {"type": "string", "enum": ["option1", "option2"]},
        },
        "titledMulti": {
            "type": "array",
            "items": {"anyOf": [{"const": "value1", "title": "First Choice"}]},
        },
        "email": {"type": "string", "format": "email", "default": "a@b.c"},
        "age": {"type": "integer", "minimum": 0, "default": 30},
    },
    "required": ["untitledSingle"],
}


def test_a_json_schema_dict_in_the_subset_is_sent_as_it_is() -> None:
    """A dict form is copied (never shared) and answers come back as dicts."""
    form = elicit_form(SEP1330)
    assert form.schema == SEP1330
    assert form.schema is not SEP1330
    assert_form(form.copy_schema())
    answer = {"untitledSingle": "option1", "titledMulti": ["value1"]}
    assert form.read(answer) == answer
    with pytest.raises(
        ToolError, match="- untitledSingle: required property is missing"
    ):
        form.read({})


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ({"type": "array"}, 'has "type": "object" and "properties" at its root'),
        (
            {"type": "object", "properties": {}, "additionalProperties": False},
            "not additionalProperties",
        ),
        (
            {"type": "object", "properties": {"x": {"type": "object"}}},
            "property 'x' must be a schema of type string",
        ),
        (
            {"type": "object", "properties": {"x": {"type": "string", "pattern": "a"}}},
            "has pattern, which a form does not know",
        ),
        (
            {
                "type": "object",
                "properties": {"x": {"type": "string", "format": "uuid"}},
            },
            "has format 'uuid'",
        ),
        (
            {
                "type": "object",
                "properties": {"x": {"type": "array", "items": {"type": "string"}}},
            },
            "multiple choice",
        ),
        (
            {"type": "object", "properties": {"x": {"type": "string", "enum": [1]}}},
            "the choices of a form are a list of text",
        ),
        (
            {
                "type": "object",
                "properties": {"x": {"type": "string", "oneOf": [{"const": "a"}]}},
            },
            "titled choices are a list of",
        ),
        (
            {
                "type": "object",
                "properties": {"x": {"type": "string"}},
                "required": ["y"],
            },
            "required must list names of the form's properties",
        ),
        (
            {
                "type": "object",
                "properties": {"x": {"type": "integer", "minimum": "0"}},
            },
            "not a valid JSON Schema: at properties/x/minimum",
        ),
    ],
)
def test_json_schema_dicts_outside_the_subset_are_refused(
    schema: dict[str, Any], message: str
) -> None:
    """A dict form that clients could not render is refused at the call, saying why."""
    with pytest.raises(ToolDefinitionError) as caught:
        elicit_form(schema)
    assert message in str(caught.value)


# ------------------------------------------------------------------ generated forms

_CHOICES = st.lists(
    st.text(min_size=1, max_size=5), min_size=1, max_size=4, unique=True
)


@st.composite
def field_kinds(
    draw: st.DrawFn,
) -> tuple[Any, st.SearchStrategy[Any], st.SearchStrategy[Any]]:
    """(annotation, strategy of its JSON values, strategy of its Python defaults)."""
    kind = draw(
        st.sampled_from(
            [
                "str",
                "int",
                "float",
                "bool",
                "date",
                "literal",
                "enum",
                "titled",
                "multi",
                "titled_multi",
            ]
        )
    )
    if kind == "str":
        return str, st.text(max_size=5), st.text(max_size=5)
    if kind == "int":
        return int, st.integers(-1000, 1000), st.integers(-1000, 1000)
    if kind == "float":
        numbers = st.floats(-1e6, 1e6, allow_nan=False)
        return float, numbers, numbers
    if kind == "bool":
        return bool, st.booleans(), st.booleans()
    if kind == "date":
        dates = st.dates(min_value=datetime.date(1900, 1, 1))
        return datetime.date, dates.map(datetime.date.isoformat), dates
    values = draw(_CHOICES)
    if kind == "literal":
        return Literal[tuple(values)], st.sampled_from(values), st.sampled_from(values)
    titled = kind in ("titled", "titled_multi")
    members = {f"M{index}": value for index, value in enumerate(values)}
    cls: Any = enum.Enum("Choice", members)  # type: ignore[misc]
    if titled:
        setattr(cls, "title", property(lambda self: f"Title of {self.value}"))  # noqa: B010  # a generated Enum
    if kind in ("enum", "titled"):
        return cls, st.sampled_from(values), st.sampled_from(list(cls))
    return (
        list[cls],
        st.lists(st.sampled_from(values), unique=True),
        st.lists(st.sampled_from(list(cls)), unique=True),
    )


@st.composite
def forms(draw: st.DrawFn) -> tuple[type, dict[str, Any]]:
    """A dataclass of generated fields, and an answer that fits it."""
    count = draw(st.integers(1, 6))
    fields: list[Any] = []
    answer: dict[str, Any] = {}
    for index in range(count):
        annotation, values, defaults = draw(field_kinds())
        name = f"f{index}"
        if draw(st.booleans()):
            answer[name] = draw(values)
        if name not in answer or draw(st.booleans()):
            default = draw(defaults)
            factory = (
                (lambda value: lambda: list(value))(default)
                if isinstance(default, list)
                else None
            )
            field = (
                dataclasses.field(default_factory=factory)
                if factory
                else dataclasses.field(default=default)
            )
            fields.append((name, annotation, field))
        else:
            fields.append((name, annotation))
    ordered = [item for item in fields if len(item) == 2] + [
        item for item in fields if len(item) == 3
    ]
    return dataclasses.make_dataclass("Generated", ordered), answer


@settings(max_examples=150, deadline=None)
@given(forms())
def test_generated_forms_are_valid_and_answers_round_trip(
    made: tuple[type, dict[str, Any]],
) -> None:
    """Any dataclass of supported fields: a valid form; a fitting answer comes back as the type, field for field."""
    cls, answer = made
    form = elicit_form(cls)
    assert_form(form.copy_schema())
    for prop in form.schema["properties"].values():
        if "default" in prop:
            import jsonschema

            jsonschema.validate(prop["default"], prop)
    value = form.read(answer)
    assert isinstance(value, cls)
    for name, sent in answer.items():
        assert to_jsonable(getattr(value, name)) == sent
