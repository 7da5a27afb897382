"""The compiled validator gives jsonschema's verdict: official suite cases and generated ones."""

from __future__ import annotations

import json
import math
import pathlib
import re
from typing import Any, cast

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolkit import Tool, ToolResult
from toolkit.schema._checker import compile_check
from toolkit.schema._invalid import jsonschema_validator

SUITE = (
    pathlib.Path(__file__).parent / "data" / "json-schema-test-suite" / "draft2020-12"
)
# Our checker reads date-times with an optional offset (models omit it); the
# suite's format tests assume RFC 3339 exactly, so they are not ours to pass.
CASES = [
    pytest.param(
        group["schema"],
        test["data"],
        test["valid"],
        id=f"{path.stem}: {group['description']}: {test['description']}",
    )
    for path in sorted(SUITE.glob("*.json"))
    for group in json.loads(path.read_text(encoding="utf-8"))
    for test in group["tests"]
]


@pytest.mark.parametrize(("schema", "data", "valid"), CASES)
def test_official_suite(schema: Any, data: Any, valid: bool) -> None:
    check = compile_check(schema)
    if check is None:
        # A keyword only jsonschema implements (remote refs, $id, ...): it decides.
        try:
            verdict = jsonschema_validator(schema).is_valid(data)
        except re.error:
            pytest.skip(
                "an ECMA-262 regex feature that Python's re lacks; both validators refuse it"
            )
        assert verdict == valid
        return
    assert check(data) == valid


def test_the_suite_is_mostly_compiled() -> None:
    compiled = sum(
        compile_check(cast(Any, case.values[0])) is not None for case in CASES
    )
    assert compiled / len(CASES) > 0.8, (compiled, len(CASES))


COMPILED = {
    "$ref",
    "additionalProperties",
    "anyOf",
    "const",
    "enum",
    "exclusiveMaximum",
    "exclusiveMinimum",
    "format",
    "items",
    "maxItems",
    "maxLength",
    "maxProperties",
    "maximum",
    "minItems",
    "minLength",
    "minProperties",
    "minimum",
    "multipleOf",
    "pattern",
    "prefixItems",
    "properties",
    "propertyNames",
    "required",
    "type",
    "uniqueItems",
}


def test_every_keyword_jsonschema_knows_is_compiled_or_left_to_it() -> None:
    """A keyword the compiler skipped would let through what `jsonschema` refuses.

    So a keyword that an upgrade of `jsonschema` adds makes this fail, until
    the compiler implements it or hands its schemas to `jsonschema`.
    """
    known = set(jsonschema.Draft202012Validator.VALIDATORS)
    assert known >= COMPILED
    for keyword in sorted(known - COMPILED):
        assert compile_check({keyword: {}}) is None, keyword


json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-1000, max_value=1000),
        st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6),
        st.sampled_from([0.0, 1.0, 2.5, -3.0, 1e300]),
        st.text(max_size=6),
        st.sampled_from(
            [
                "2024-05-01",
                "2024-05-01T10:00:00Z",
                "10:00",
                "P1D",
                "123e4567-e89b-12d3-a456-426614174000",
                "a@b.co",
            ]
        ),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(["a", "b", "c", "d"]), inner, max_size=4),
        # Items that are equal as JSON but not as Python, and the reverse.
        st.lists(
            st.sampled_from([1, 1.0, True, 0, False, [1], [1.0], [True], {"a": 1}]),
            max_size=4,
        ),
    ),
    max_leaves=10,
)

LEAVES: list[Any] = [
    {},
    True,
    False,
    {"type": "string"},
    {"type": "integer"},
    {"type": "number"},
    {"type": "boolean"},
    {"type": "null"},
    {"type": "array"},
    {"type": "object"},
    {"type": ["string", "null"]},
    {"enum": ["a", 1, None, [1], {"a": 1}]},
    {"const": 1},
    {"const": [1, "a"]},
    {"type": "string", "format": "date-time"},
    {"type": "string", "format": "date"},
    {"type": "string", "format": "uuid"},
    {"format": "duration"},
    {"type": "string", "pattern": "^[a-c]+$"},
    {"minLength": 1, "maxLength": 3},
    {"minimum": 0, "exclusiveMaximum": 10},
    {"exclusiveMinimum": -1.5, "maximum": 2.5},
    {"multipleOf": 3},
    {"multipleOf": 0.5},
    {"type": "number", "multipleOf": 0.01},
    {"minItems": 1, "maxItems": 2},
    {"uniqueItems": True},
    {"minProperties": 1, "maxProperties": 2},
    {"$ref": "#/$defs/node"},
]
leaf_schemas = st.sampled_from(LEAVES)


def _extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.builds(lambda item: {"type": "array", "items": item}, inner),
        st.builds(
            lambda a, b: {"type": "array", "prefixItems": [a, b], "items": False},
            inner,
            inner,
        ),
        st.builds(lambda a, b: {"prefixItems": [a], "items": b}, inner, inner),
        st.builds(
            lambda branches: {"anyOf": branches},
            st.lists(inner, min_size=1, max_size=3),
        ),
        st.builds(
            lambda props, required, extra: {
                "type": "object",
                "properties": props,
                "required": required,
                "additionalProperties": extra,
            },
            st.dictionaries(st.sampled_from(["a", "b", "c"]), inner, max_size=3),
            st.lists(st.sampled_from(["a", "b"]), max_size=2, unique=True),
            st.one_of(st.just(False), st.just(True), inner),
        ),
        st.builds(
            lambda names, values: {
                "propertyNames": names,
                "additionalProperties": values,
            },
            st.just({"enum": ["a", "b"]}),
            inner,
        ),
    )


schemas = st.recursive(leaf_schemas, _extend, max_leaves=6)
NODE = {
    "type": "object",
    "properties": {
        "v": {"type": "integer"},
        "next": {"anyOf": [{"$ref": "#/$defs/node"}, {"type": "null"}]},
    },
}


# Values on which JSON Schema's rules differ from Python's (`true` is not `1`,
# `1.0` is `1`), at the edges of the bounds above, and in the formats; each
# schema is asked about all of them, alone and one level down, besides the
# values drawn for it.
TRICKY: list[Any] = [
    None,
    True,
    False,
    0,
    1,
    -1,
    1.0,
    2.5,
    3,
    10,
    -0.0,
    1e300,
    "",
    "a",
    "abc",
    "dddd",
    "2024-05-01",
    "10:00",
    "P1D",
    [],
    [1],
    [1, 1.0],
    [True, 1],
    [0, False],
    [1, "a"],
    ["a", "b", "c"],
    {},
    {"a": 1},
    {"a": True, "b": "x"},
    {"a": 1, "b": 2, "c": 3},
    {"d": None},
    {"v": 1, "next": None},
]
SAMPLES = [
    *TRICKY,
    *([item] for item in TRICKY),
    *({"a": item} for item in TRICKY),
]


def assert_same_verdicts(schema: Any, values: list[Any]) -> None:
    """The compiled check, toolkit's `jsonschema` validator and the stock one agree on each value."""
    root = {"$defs": {"node": NODE}, **schema} if isinstance(schema, dict) else schema
    check = compile_check(root)
    assert check is not None, root
    reference = jsonschema_validator(root) if isinstance(root, dict) else None
    stock = (
        jsonschema.Draft202012Validator(root, format_checker=reference.format_checker)
        if reference is not None
        else None
    )
    for value in values:
        expected = reference.is_valid(value) if reference is not None else root
        assert check(value) == expected, (root, value)
        if stock is not None:  # toolkit's validator changes speed, never verdicts
            assert stock.is_valid(value) == expected, (root, value)


@pytest.mark.parametrize("schema", LEAVES, ids=json.dumps)
def test_each_leaf_schema_on_the_tricky_values(schema: Any) -> None:
    assert_same_verdicts(schema, SAMPLES)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(schema=schemas, values=st.lists(json_values, min_size=1, max_size=5))
def test_compiled_verdict_is_jsonschemas(schema: Any, values: list[Any]) -> None:
    assert_same_verdicts(schema, [*values, *SAMPLES])


python_values = st.recursive(
    st.one_of(st.none(), st.integers(), st.text(max_size=3)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(
            st.one_of(st.sampled_from(["a", "b"]), st.integers(), st.none()),
            inner,
            max_size=3,
        ),
    ),
    max_leaves=8,
)


# Dicts that only a Python caller can send: a key that is not a string.
FOREIGN_KEYS: list[Any] = [
    {1: 2},
    {None: 3, "a": 1},
    {"a": 1, 2: "b"},
    {"v": 1, 3: None},
    [{1: 2}],
    {"a": {1: 2}},
    {"a": [{None: 1}]},
]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schema=schemas, values=st.lists(python_values, min_size=1, max_size=5))
def test_a_dict_with_a_key_that_is_not_a_string_is_not_an_object(
    schema: Any, values: list[Any]
) -> None:
    """For both validators alike: such a dict fails "type": "object", and object keywords skip it."""
    root = {"$defs": {"node": NODE}, **schema} if isinstance(schema, dict) else schema
    check = compile_check(root)
    assert check is not None, root
    if not isinstance(root, dict):
        return
    reference = jsonschema_validator(root)
    for value in [*values, *FOREIGN_KEYS]:
        assert check(value) == reference.is_valid(value), (root, value)


@pytest.mark.parametrize(
    ("schema", "value", "valid"),
    [
        ({"type": "object"}, {1: 2}, False),
        (
            {"type": "object", "additionalProperties": {"type": "integer"}},
            {1: 2},
            False,
        ),
        ({"type": "object", "properties": {"a": {}}}, {"a": 1, None: 2}, False),
        ({"additionalProperties": False}, {1: 2}, True),
        ({"required": ["a"]}, {1: 2}, True),
        ({"type": ["object", "null"], "required": ["a"]}, {1: 2}, False),
        ({"minProperties": 2}, {1: 2}, True),
        ({"type": "object"}, {"a": 1}, True),
    ],
)
def test_object_keys_are_strings(schema: Any, value: Any, valid: bool) -> None:
    check = compile_check(schema)
    assert check is not None
    assert check(value) is valid
    assert jsonschema_validator(schema).is_valid(value) is valid


def test_whole_floats_count_as_integers_like_jsonschema() -> None:
    check = compile_check({"type": "integer"})
    assert check is not None
    assert check(3.0)
    assert not check(3.5)
    assert not check(True)
    assert not check(math.inf)


def test_a_missing_property_is_named_whatever_its_name_holds() -> None:
    """The name comes from the schema, never from the text of jsonschema's message."""
    tool = Tool.new(
        name="quotes",
        description="Names with quotes.",
        parameters={
            "type": "object",
            "properties": {
                "it's": {"type": "string"},
                "a": {
                    "type": "object",
                    "properties": {'say "hi"': {}},
                    "required": ['say "hi"'],
                },
            },
            "required": ["it's", "a"],
        },
        execute_fn=lambda agent_id, call_id, args: ToolResult("ok"),
    )
    result = tool.validate_args({"a": {}})
    assert result is not None
    assert result.text == (
        'Invalid arguments for tool "quotes":\n'
        "- it's: required property is missing\n"
        '- a.say "hi": required property is missing'
    )
