"""Our schemas accept exactly the JSON values that the annotation admits.

Hypothesis builds nested annotations; for each, JSON values are drawn both
from the annotation (to reach the accepting paths) and at random. The oracle
is pydantic's strict JSON validation of the same type (test-only); the judge
is `jsonschema` applied to our schema, and the check toolkit compiles from
the schema gives `jsonschema`'s verdict. Known, deliberate differences are
normalised before the comparison and named here:

- a whole number sent as a float (`3.0`) is an `int` for us (models send it);
- object types refuse unknown keys, so pydantic is configured with
  `extra="forbid"`;
- sets (`uniqueItems`), string formats and bytes are tested elsewhere:
  pydantic deduplicates sets, and does not read bytes as base64;
- `true` is not a value of `Literal[1, 2]` for us (JSON tells booleans from
  numbers); pydantic accepts it because `True == 1` in Python. See
  `test_boolean_is_not_an_integer_literal`.
"""

from __future__ import annotations

import dataclasses
import enum
import itertools
import json
from typing import Annotated, Any, Literal, Union, cast

import annotated_types
import jsonschema
import pydantic
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typing_extensions import TypedDict

from tests.conftest import assert_valid_schema
from toolkit import json_schema
from toolkit.schema._checker import compile_check

Case = tuple[Any, st.SearchStrategy[Any]]
_counter = itertools.count()


class Shade(enum.Enum):
    DARK = "dark"
    LIGHT = "light"


class Rank(enum.IntEnum):
    FIVE = 5
    SEVEN = 7


json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=6),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.text(max_size=3), inner, max_size=3),
    ),
    max_leaves=8,
)

LEAVES: list[Case] = [
    (str, st.text(max_size=5)),
    (int, st.integers(min_value=-(2**70), max_value=2**70)),
    (float, st.floats(allow_nan=False, allow_infinity=False)),
    (bool, st.booleans()),
    (type(None), st.none()),
    (Any, json_values),
    (Literal["a", "b"], st.sampled_from(["a", "b", "c"])),
    (
        Literal[5, 7],
        st.sampled_from([5, 7, 6]),
    ),  # not 0 or 1: see test_boolean_is_not_an_integer_literal
    (Literal["x"], st.sampled_from(["x", "y"])),
    (Shade, st.sampled_from(["dark", "light", "grey"])),
    (Rank, st.sampled_from([5, 7, 6, "5"])),
    # Constraints in forms both sides read: annotated_types and pydantic's Field
    # (toolkit reads both by duck typing; Param itself is pinned in test_schema).
    (
        Annotated[int, annotated_types.Interval(ge=0, le=10)],
        st.integers(min_value=-3, max_value=13),
    ),
    (
        Annotated[float, annotated_types.Gt(0), annotated_types.Lt(1)],
        st.floats(min_value=-0.5, max_value=1.5),
    ),
    (
        Annotated[int, annotated_types.MultipleOf(3)],
        st.integers(min_value=-10, max_value=10),
    ),
    (Annotated[str, annotated_types.Len(1, 3)], st.text(max_size=5)),
    (
        Annotated[str, pydantic.Field(pattern="^[a-c]+$")],
        st.text(alphabet="abcd", max_size=4),
    ),
    (
        Annotated[list[int], pydantic.Field(min_length=1, max_length=2)],
        st.lists(st.integers(), max_size=3),
    ),
]


def _typeddict(children: list[Case]) -> Case:
    names = [f"f{index}" for index in range(len(children))]
    fields = {name: child[0] for name, child in zip(names, children, strict=True)}
    cls: Any = cast(Any, TypedDict)(f"TD{next(_counter)}", fields)
    cls.__pydantic_config__ = pydantic.ConfigDict(extra="forbid")
    return cls, _object_values(names, children)


def _dataclass(children: list[Case]) -> Case:
    names = [f"f{index}" for index in range(len(children))]
    cls: Any = dataclasses.make_dataclass(
        f"DC{next(_counter)}",
        list(zip(names, (child[0] for child in children), strict=True)),
    )
    cls.__pydantic_config__ = pydantic.ConfigDict(extra="forbid")
    return cls, _object_values(names, children)


def _object_values(names: list[str], children: list[Case]) -> st.SearchStrategy[Any]:
    full = st.fixed_dictionaries(
        {name: child[1] for name, child in zip(names, children, strict=True)}
    )
    extra = full.map(lambda value: {**value, "unexpected": 1})
    partial = full.map(lambda value: dict(list(value.items())[1:]))
    return st.one_of(full, full, extra, partial)


def _generic(origin: Any, *args: Any) -> Any:
    """`origin[args]`, built at run time (the arguments are generated)."""
    return origin[args if len(args) > 1 else args[0]]


def _extend(children: st.SearchStrategy[Case]) -> st.SearchStrategy[Case]:
    pairs = st.tuples(children, children)
    return st.one_of(
        children.map(lambda c: (_generic(list, c[0]), st.lists(c[1], max_size=3))),
        children.map(
            lambda c: (_generic(Union, c[0], None), st.one_of(st.none(), c[1]))
        ),
        pairs.map(
            lambda p: (_generic(Union, p[0][0], p[1][0]), st.one_of(p[0][1], p[1][1]))
        ),
        pairs.map(
            lambda p: (
                _generic(tuple, p[0][0], p[1][0]),
                st.tuples(p[0][1], p[1][1]).map(list),
            )
        ),
        children.map(
            lambda c: (_generic(tuple, c[0], ...), st.lists(c[1], max_size=3))
        ),
        children.map(
            lambda c: (
                _generic(dict, str, c[0]),
                st.dictionaries(st.text(max_size=3), c[1], max_size=3),
            )
        ),
        st.lists(children, min_size=1, max_size=3).map(_typeddict),
        st.lists(children, min_size=1, max_size=3).map(_dataclass),
    )


cases = st.recursive(st.sampled_from(LEAVES), _extend, max_leaves=6)


def _whole_floats_to_ints(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_whole_floats_to_ints(item) for item in value]
    if isinstance(value, dict):
        return {key: _whole_floats_to_ints(item) for key, item in value.items()}
    return value


def _pydantic_accepts(adapter: pydantic.TypeAdapter[Any], value: Any) -> bool:
    try:
        adapter.validate_json(json.dumps(_whole_floats_to_ints(value)), strict=True)
    except pydantic.ValidationError:
        return False
    return True


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(case=cases, data=st.data())
def test_schema_accepts_what_the_annotation_admits(
    case: Case, data: st.DataObject
) -> None:
    annotation, own_values = case
    schema = json_schema(annotation)
    assert_valid_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    check = compile_check(schema)
    assert check is not None, schema  # every schema toolkit emits compiles
    adapter: pydantic.TypeAdapter[Any] = pydantic.TypeAdapter(annotation)
    for _ in range(4):
        value = data.draw(st.one_of(own_values, json_values))
        verdict = validator.is_valid(value)
        assert verdict == _pydantic_accepts(adapter, value), (
            annotation,
            value,
            schema,
        )
        assert check(value) == verdict, (annotation, value, schema)


def test_boolean_is_not_an_integer_literal() -> None:
    validator = jsonschema.Draft202012Validator(json_schema(Literal[1, 2]))
    assert validator.is_valid(1)
    assert not validator.is_valid(True)
    # The divergence, pinned so that a change is noticed.
    assert _pydantic_accepts(pydantic.TypeAdapter(Literal[1, 2]), True)
