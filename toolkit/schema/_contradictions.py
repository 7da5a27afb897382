"""Contradictions inside a tool's parameter schema: what `lint` finds in others' schemas.

A schema written by hand, or by another library (a mounted MCP server, a
function-calling data set), can be valid JSON Schema and still contradict
itself: an `enum` none of whose values has the declared type, a `minimum`
above its `maximum`, a `default` that its own schema refuses (`null` above
all, on a parameter that cannot be null), a `required` name that is not
among the `properties`. A model that follows such a schema sends calls that
fail, and no call can fix that; only the schema's author can. Each finding
names the parameter, what contradicts what, and the fix.

The checks ask `jsonschema` itself whether a value fits a part of the schema
(with `$ref` resolved against the whole), so they agree with the validation
that the calls get.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, Final

from toolkit.core._aliases import SUBSCHEMA_KEYWORDS
from toolkit.core._finding import Finding
from toolkit.values._json import is_number

__all__ = ["contradictions"]

_BOUNDS: Final = (
    ("minimum", "maximum"),
    ("minLength", "maxLength"),
    ("minItems", "maxItems"),
    ("minProperties", "maxProperties"),
    ("minContains", "maxContains"),
)
_NOT_APPLIED: Final = frozenset({"not", "if", "contains"})
"""Subschemas that need not accept a value: a part there that accepts none is no contradiction."""


def contradictions(tool_name: str, parameters: Any, fix: str) -> Iterator[Finding]:
    """The contradictions of one tool's parameter schema, in the schema's order.

    Args:
        tool_name: The tool's name, for the findings.
        parameters: The tool's parameter schema (an object schema).
        fix: Said after each finding, for a schema its reader cannot fix
            (". Its MCP server has to fix it"); empty for the schema's author.
    """
    if not isinstance(parameters, dict):
        return
    fits = _Fits(parameters)
    for path, schema in _walk(parameters, ""):
        for code, problem in _problems(schema, fits):
            where = f"parameter {path!r}" if path else "the parameter schema"
            yield Finding(tool_name, code, f"{where} {problem}{fix}")


def _walk(schema: dict[str, Any], path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """Every subschema with the dotted path of the parameter it belongs to."""
    yield path, schema
    for sub_path, sub in _children(schema, path):
        if isinstance(sub, dict):
            yield from _walk(sub, sub_path)


def _children(schema: dict[str, Any], path: str) -> Iterator[tuple[str, Any]]:
    """A schema's direct subschemas (maybe not dicts), each with its parameter's path."""
    for key, prefix in (("properties", path), ("$defs", "$defs")):
        named = schema.get(key)
        if isinstance(named, dict):
            for name, sub in named.items():
                yield (f"{prefix}.{name}" if prefix else str(name)), sub
    for key in SUBSCHEMA_KEYWORDS:
        if key in _NOT_APPLIED:
            continue
        sub = schema.get(key)
        for each in sub if isinstance(sub, list) else [sub]:
            yield path, each


def _problems(schema: dict[str, Any], fits: _Fits) -> Iterator[tuple[str, str]]:
    yield from _undeclared_required(schema)
    yield from _crossed_bounds(schema)
    yield from _empty_choices(schema, fits)
    if "default" in schema:
        yield from _bad_default(schema, fits)


def _undeclared_required(schema: dict[str, Any]) -> Iterator[tuple[str, str]]:
    required = schema.get("required")
    properties = schema.get("properties")
    if not isinstance(required, list) or not isinstance(properties, dict):
        return
    for name in required:
        if name not in properties:
            yield (
                "undeclared-required",
                f"requires {name!r}, which is not among its properties "
                f"({', '.join(map(repr, properties)) or 'none'}); "
                "declare it or take it out of `required`",
            )


def _crossed_bounds(schema: dict[str, Any]) -> Iterator[tuple[str, str]]:
    for low, high in _BOUNDS:
        lower, upper = schema.get(low), schema.get(high)
        if is_number(lower) and is_number(upper) and lower > upper:
            yield (
                "unsatisfiable-parameter",
                f"accepts no value: its {low} {lower!r} is above its {high} {upper!r}",
            )
    lower, upper = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    if is_number(lower) and is_number(upper) and lower >= upper:
        yield (
            "unsatisfiable-parameter",
            f"accepts no value: no number is above {lower!r} and below {upper!r}",
        )


def _empty_choices(schema: dict[str, Any], fits: _Fits) -> Iterator[tuple[str, str]]:
    if "enum" in schema and isinstance(schema["enum"], list):
        rest = _without(schema, "enum")
        if not any(fits(value, rest) for value in schema["enum"]):
            yield (
                "unsatisfiable-parameter",
                f"accepts no value: none of its enum values {schema['enum']!r} "
                f"fits the rest of its schema{_declared(schema)}",
            )
    if "const" in schema:
        rest = _without(schema, "const")
        if not fits(schema["const"], rest):
            yield (
                "unsatisfiable-parameter",
                f"accepts no value: its const {schema['const']!r} does not fit "
                f"the rest of its schema{_declared(schema)}",
            )


def _bad_default(schema: dict[str, Any], fits: _Fits) -> Iterator[tuple[str, str]]:
    default = schema["default"]
    rest = _without(schema, "default")
    if fits(default, rest):
        return
    if default is None:
        yield (
            "null-default",
            "has `default: null` but cannot be null; make it nullable "
            '(add "null" to its type) or drop the default',
        )
    else:
        yield (
            "default-outside-schema",
            f"has the default {default!r}, which its own schema refuses"
            f"{_declared(schema)}; fix the default or the schema",
        )


def _without(schema: dict[str, Any], keyword: str) -> dict[str, Any]:
    """The schema less one keyword: what the rest of it says of that keyword's value."""
    return {key: value for key, value in schema.items() if key != keyword}


def _declared(schema: dict[str, Any]) -> str:
    declared = schema.get("type")
    return f" (type {declared!r})" if declared is not None else ""


class _Fits:
    """Whether a value fits a part of one schema, as `jsonschema` decides, `$ref`s resolved against the whole."""

    def __init__(self, root: dict[str, Any]) -> None:
        from ._invalid import jsonschema_validator  # the validator calls are checked by

        self._validator = jsonschema_validator(root)

    def __call__(self, value: Any, schema: dict[str, Any]) -> bool:
        """True also when the schema cannot be judged (a broken `$ref` or pattern): no finding then."""
        from jsonschema.exceptions import SchemaError
        from referencing.exceptions import Unresolvable

        try:
            # `evolve` keeps the root's `$ref` resolution for the part.
            return bool(self._validator.evolve(schema=schema).is_valid(value))
        except (SchemaError, Unresolvable, re.error, RecursionError):
            return True
