"""The meta-schema check that `Tool.new` runs gives `jsonschema`'s verdict.

`toolkit.schema._invalid.is_schema` is Draft 2020-12's meta-schema compiled once;
`jsonschema.Draft202012Validator(META_SCHEMA)` is the oracle. They are held
equal on every schema and every value of the official JSON Schema test
suite, and on generated schemas built from every keyword of the meta-schema
with values of the right and the wrong kinds. The time it saves is measured
in `benchmarks/run.py` (`Tool.new` vs `check_schema`), never here.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolkit import Tool, ToolDefinitionError
from toolkit.schema._invalid import is_schema, schema_problem

SUITE = (
    pathlib.Path(__file__).parent / "data" / "json-schema-test-suite" / "draft2020-12"
)
ORACLE = jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA)


def _suite_values() -> list[Any]:
    """Every schema of the suite, and every value its tests validate (JSON of every shape)."""
    found: list[Any] = []
    for path in sorted(SUITE.rglob("*.json")):
        for group in json.loads(path.read_text(encoding="utf-8")):
            found.append(group["schema"])
            found.extend(test["data"] for test in group["tests"])
    return found


SUITE_VALUES = _suite_values()


def test_the_suite_is_read() -> None:
    assert len(SUITE_VALUES) > 900
    assert any(not ORACLE.is_valid(value) for value in SUITE_VALUES)


@pytest.mark.parametrize(
    "value",
    [pytest.param(value, id=str(index)) for index, value in enumerate(SUITE_VALUES)],
)
def test_the_verdict_on_the_official_suite_is_jsonschemas(value: Any) -> None:
    assert is_schema(value) == ORACLE.is_valid(value)
    assert (schema_problem(value) is None) == ORACLE.is_valid(value)


# Every keyword of the meta-schema and its vocabularies, with what it takes.
_NAMES = st.sampled_from(["a", "b", "$c", ""])
_TYPE_NAMES = st.sampled_from(
    ["string", "integer", "number", "boolean", "null", "array", "object", "int"]
)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=3),
    st.sampled_from([0.0, 1.5, -1.0, 2.0]),
    st.sampled_from(["", "a", "#", "a#b", "#/$defs/x", "http://x.org/s", "^a+$"]),
)
_URIS = st.sampled_from(["", "a", "#", "a#b", "#/$defs/a", "http://x.org/s#", "#meta"])
_STRINGS = st.sampled_from(["", "a", "^a+$", "uri", "base64", "text/plain"])
_COUNTS = st.one_of(st.integers(min_value=0, max_value=4), st.just(2.0))
_NUMBERS = st.one_of(
    st.integers(min_value=-3, max_value=3), st.sampled_from([0.5, 2.0])
)
_STRING_LISTS = st.lists(_NAMES, max_size=3, unique=True)
_KINDS: dict[str, Any] = {
    "schema": (
        *("items", "contains", "additionalProperties", "propertyNames", "if"),
        *("then", "else", "not", "unevaluatedItems", "unevaluatedProperties"),
        "contentSchema",
    ),
    "schemas": ("allOf", "anyOf", "oneOf", "prefixItems"),
    "schema map": (
        *("properties", "patternProperties", "dependentSchemas", "$defs"),
        "definitions",
    ),
    "count": (
        *("maxLength", "minLength", "maxItems", "minItems", "maxContains"),
        *("minContains", "maxProperties", "minProperties"),
    ),
    "number": ("maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"),
    "divisor": ("multipleOf",),
    "uri": (
        *("$id", "$schema", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor"),
        *("$recursiveAnchor", "$recursiveRef"),
    ),
    "string": (
        *("title", "description", "$comment", "pattern", "format"),
        *("contentEncoding", "contentMediaType", "x-vendor"),
    ),
    "bool": ("uniqueItems", "deprecated", "readOnly", "writeOnly"),
    "names": ("required",),
    "name map": ("dependentRequired",),
    "type": ("type",),
    "value": ("const", "default"),
    "values": ("enum", "examples"),
    "vocabulary": ("$vocabulary",),
    "dependencies": ("dependencies",),
}
KEYWORDS = [keyword for group in _KINDS.values() for keyword in group]


def _right(kind: str, inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A value of the kind a keyword takes."""
    return {
        "schema": inner,
        "schemas": st.lists(inner, min_size=1, max_size=3),
        "schema map": st.dictionaries(_NAMES, inner, max_size=3),
        "count": _COUNTS,
        "number": _NUMBERS,
        "divisor": st.sampled_from([1, 2, 0.5, 2.0]),
        "uri": _URIS,
        "string": _STRINGS,
        "bool": st.booleans(),
        "names": _STRING_LISTS,
        "name map": st.dictionaries(_NAMES, _STRING_LISTS, max_size=2),
        "type": st.one_of(_TYPE_NAMES, st.lists(_TYPE_NAMES, max_size=3)),
        "value": _SCALARS,
        "values": st.lists(_SCALARS, max_size=3),
        "vocabulary": st.dictionaries(_URIS, st.booleans(), max_size=1),
        "dependencies": st.dictionaries(
            _NAMES, st.one_of(inner, _STRING_LISTS), max_size=2
        ),
    }[kind]


def _keyword(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[tuple[str, Any]]:
    """A keyword and its value: mostly of its kind, one in ten of another (any kind)."""
    wrong = st.one_of(*(_right(kind, inner) for kind in _KINDS))

    def value(kind: str) -> st.SearchStrategy[Any]:
        right = _right(kind, inner)
        return st.integers(0, 9).flatmap(lambda draw: wrong if draw == 0 else right)

    return st.one_of(
        *(
            st.tuples(st.sampled_from(group), value(kind))
            for kind, group in _KINDS.items()
        )
    )


schemas: st.SearchStrategy[Any] = st.recursive(
    st.one_of(st.booleans(), st.just({}), st.booleans(), st.just({}), _SCALARS),
    lambda inner: st.lists(_keyword(inner), max_size=4).map(dict),
    max_leaves=12,
)


@given(schemas)
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_the_verdict_on_generated_schemas_is_jsonschemas(schema: Any) -> None:
    assert is_schema(schema) == ORACLE.is_valid(schema), schema


def test_generated_schemas_are_both_valid_and_invalid() -> None:
    """The strategy reaches both verdicts, so the property above proves something."""
    seen: set[bool] = set()

    @given(schemas)
    @settings(max_examples=200, deadline=None, database=None)
    def collect(schema: Any) -> None:
        seen.add(ORACLE.is_valid(schema))

    collect()
    assert seen == {True, False}


def test_tool_new_words_the_problem_as_jsonschema_finds_it() -> None:
    with pytest.raises(ToolDefinitionError) as raised:
        Tool.new(
            name="t",
            description="d",
            parameters={"type": "object", "properties": {"a": {"type": "text"}}},
            execute_fn=lambda agent_id, call_id, args: "",
        )
    assert "not a valid JSON Schema (Draft 2020-12): at properties/a/type:" in str(
        raised.value
    )
