"""Why a value is invalid: `jsonschema` finds each problem, toolkit words it for the model.

Only a value that the compiled check (`_checker.py`) refuses comes here, or
one whose schema the checker cannot compile. `jsonschema_validator` is
`jsonschema`'s Draft 2020-12 validator extended, through its public
`validators.extend`, with toolkit's string formats and with rules made to
scale; `describe_errors` turns its errors into the lines of the message:
`city: required property is missing`, each with its path, in the order the
parameters are declared, a bounded number of them, and every value shown
short, whatever the size of what the model sent.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from itertools import islice
from typing import Any, Final

from toolkit.core._aliases import JsonSchema
from toolkit.core._formats import FORMAT_CHECKS
from toolkit.core._pattern import searcher
from toolkit.values._json import is_number

from ._checker import (
    Check,
    compile_check,
    is_finite_number,
    is_object,
    subschema_check,
    unique,
)
from ._preview import json_kind, path_text, preview, printable

__all__ = ["describe_errors", "jsonschema_validator"]

_SHOWN: Final = 20
"""Problems listed in one message; the rest are counted."""
_PER_SOURCE: Final = 200
"""Problems read from one parameter, or from one union's branch, before moving on."""
_LOOKED_AT: Final = 2_000
"""Problems read in all; past this the count in the message is a lower bound."""


def jsonschema_validator(schema: JsonSchema) -> Any:
    """A `jsonschema` validator for `schema` that checks formats as toolkit does.

    It is `jsonschema`'s Draft 2020-12 validator with its rules made to
    scale: `uniqueItems` hashes the items instead of comparing every pair,
    `anyOf` reads a bounded number of problems per branch, `items` and
    `additionalProperties` pass over the values that a compiled check finds
    valid (so a million good items cost microseconds each, not jsonschema's
    tens), extra properties are reported in the order they were sent, a
    missing property is named in the error's path, and a dict with a
    non-string key is not an object.
    """
    return _validator_class()(schema, format_checker=_format_checker())


@functools.cache
def _format_checker() -> Any:
    import jsonschema

    checker = jsonschema.FormatChecker(formats=())
    for name, reader in FORMAT_CHECKS.items():
        checker.checks(name, raises=ValueError)(_strings_only(reader))
    return checker


@functools.cache
def _validator_class() -> Any:
    import jsonschema
    import jsonschema.validators

    base = jsonschema.Draft202012Validator
    return jsonschema.validators.extend(
        base,
        validators={
            "required": _required_keyword,
            "uniqueItems": _unique_items_keyword,
            "anyOf": _any_of_keyword,
            "items": _items_keyword,
            "additionalProperties": _additional_properties_keyword,
            "pattern": _pattern_keyword,
            "patternProperties": _pattern_properties_keyword,
        },
        type_checker=base.TYPE_CHECKER.redefine_many(
            {
                "object": lambda checker, value: is_object(value),
                "number": lambda checker, value: is_finite_number(value),
            }
        ),
    )


def _pattern_keyword(
    validator: Any, pattern: str, instance: Any, schema: Any
) -> Iterator[Any]:
    """`pattern` matched in linear time (`_pattern`), never by `re`, which can backtrack for ages.

    A text whose type or length (`type`, `maxLength`, `minLength`) the
    schema refuses is not read: that keyword says what is wrong with it.
    """
    from jsonschema.exceptions import ValidationError

    if not isinstance(instance, str):
        return
    declared = schema.get("type")
    if declared is not None and "string" not in (
        declared if isinstance(declared, list) else [declared]
    ):
        return
    most, least = schema.get("maxLength"), schema.get("minLength")
    if (is_number(most) and len(instance) > most) or (
        is_number(least) and len(instance) < least
    ):
        return
    if not searcher(pattern)(instance):
        yield ValidationError(f"{instance!r} does not match {pattern!r}")


def _pattern_properties_keyword(
    validator: Any, patterns: dict[str, Any], instance: Any, schema: Any
) -> Iterator[Any]:
    """`patternProperties`, its names matched as `pattern` is."""
    if validator.is_type(instance, "object"):
        for pattern, subschema in patterns.items():
            search = searcher(pattern)
            for key, value in instance.items():
                if search(key):
                    yield from validator.descend(
                        value, subschema, path=key, schema_path=pattern
                    )


def _strings_only(reader: Callable[[str], object]) -> Callable[[object], bool]:
    """`jsonschema` asks a format about every value; a format only constrains strings."""

    def check(value: object) -> bool:
        if isinstance(value, str):
            reader(value)
        return True

    return check


def _required_keyword(
    validator: Any, required: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    """`required` as jsonschema has it, with the missing name at the end of the error's path."""
    from jsonschema.exceptions import ValidationError

    if validator.is_type(instance, "object"):
        for name in required:
            if name not in instance:
                yield ValidationError(f"{name!r} is a required property", path=[name])


def _unique_items_keyword(
    validator: Any, wanted: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if wanted is True and validator.is_type(instance, "array") and not unique(instance):
        yield ValidationError("has repeated items")


def _any_of_keyword(
    validator: Any, branches: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    """`anyOf` as jsonschema has it, but reading at most `_PER_SOURCE` + 1 problems of a branch.

    The one more tells `_branches` that a branch had more problems
    than it reads.
    """
    from jsonschema.exceptions import ValidationError

    found: list[Any] = []
    for index, branch in enumerate(branches):
        problems = validator.descend(instance, branch, schema_path=index)
        errors = list(islice(problems, _PER_SOURCE + 1))
        if not errors:
            return
        found.extend(errors)
    yield ValidationError("is not valid under any of the given schemas", context=found)


def _items_keyword(
    validator: Any, items: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "array") or _too_many(
        instance, schema, "maxItems"
    ):
        return
    prefix = len(schema.get("prefixItems", ()))
    if len(instance) <= prefix:
        return
    if items is False:
        yield ValidationError(
            f"expected at most {prefix} items, got {len(instance) - prefix} more"
        )
        return
    check = subschema_check(items)
    for index in range(prefix, len(instance)):
        item = instance[index]
        if check is None or not check(item):
            yield from validator.descend(item, items, path=index)


def _too_many(instance: Any, schema: Any, keyword: str) -> bool:
    """Whether `instance` has more items than `keyword` allows: that keyword says so, its items are not read.

    So a too-long array of bad items is reported as too long, not as its
    first bad items (a bounded number of which would hide its size).
    """
    most = schema.get(keyword)
    return is_number(most) and len(instance) > most


def _additional_properties_keyword(
    validator: Any, extra: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object") or _too_many(
        instance, schema, "maxProperties"
    ):
        return
    extras = _extra_keys(instance, schema)
    if validator.is_type(extra, "object"):
        check = subschema_check(extra)
        for key in extras:
            item = instance[key]
            if check is None or not check(item):
                yield from validator.descend(item, extra, path=key)
    elif extra is False:
        first = next(extras, None)
        if first is not None:
            yield ValidationError(f"unexpected property {first!r}")


def _extra_keys(instance: dict[str, Any], schema: JsonSchema) -> Iterator[str]:
    """The keys of `instance` that neither `properties` nor `patternProperties` cover, in order."""
    known = schema.get("properties", {})
    patterns = [searcher(pattern) for pattern in schema.get("patternProperties", ())]
    return (
        key
        for key in instance
        if key not in known and not any(search(key) for search in patterns)
    )


class _Problem:
    """One line of a message, with the path it is about and the keyword that failed."""

    __slots__ = ("keyword", "line", "path")

    def __init__(self, path: tuple[Any, ...], keyword: str, line: str) -> None:
        self.path = path
        self.keyword = keyword
        self.line = line


def describe_errors(
    validator: Any, instance: Any, checks: Mapping[str, Check] | None = None
) -> list[str]:
    """One line per problem, each with its path: `city: required property is missing`.

    Problems are ordered as the parameters are declared; when a value has the
    wrong type, the other complaints about the same value are left out. At
    most `_SHOWN` problems are listed, each parameter's first ones before any
    parameter's later ones, and a last line counts the others. The work is
    bounded whatever the size of `instance`: `jsonschema` reads a bounded
    number of problems, and each parameter that `checks` (compiled checks by
    parameter name) find valid is not read again.
    """
    cut: list[bool] = []  # set when a bounded read left problems unread
    problems, complete = _collect(
        _problems(validator, printable(instance), checks or {}, cut), cut
    )
    order = (
        list(validator.schema.get("properties", {}))
        if isinstance(validator.schema, dict)
        else []
    )
    lines = _select(problems, order)
    hidden = len(lines) - _SHOWN
    if hidden <= 0 and complete:
        return lines
    shown = lines[:_SHOWN]
    more = max(hidden, 0)
    word = "problem" if more == 1 else "problems"
    shown.append(
        f"and {more:,} more {word}"
        if complete
        else f"and at least {more:,} more {word} (the rest were not checked)"
    )
    return shown


def _collect(
    problems: Iterator[_Problem], cut: list[bool]
) -> tuple[list[_Problem], bool]:
    """The first `_LOOKED_AT` problems, and whether that was all of them."""
    found = list(islice(problems, _LOOKED_AT))
    complete = len(found) < _LOOKED_AT or next(problems, None) is None
    return found, complete and not cut


def _capped(items: Iterator[Any], limit: int, cut: list[bool]) -> Iterator[Any]:
    """The first `limit` of `items`; notes in `cut` when there were more."""
    yield from islice(items, limit)
    if next(items, None) is not None:
        cut.append(True)


def _select(problems: list[_Problem], order: list[str]) -> list[str]:
    """The distinct lines in parameter order, the few first of each parameter leading."""
    mistyped = {problem.path for problem in problems if problem.keyword == "type"}
    ranked = sorted(problems, key=lambda problem: _rank(problem.path, order))
    seen: set[str] = set()
    leading: list[str] = []
    trailing: list[str] = []
    per_parameter: dict[Any, int] = {}
    for problem in ranked:
        line = problem.line
        if (problem.keyword != "type" and problem.path in mistyped) or line in seen:
            continue
        seen.add(line)
        group = problem.path[0] if problem.path else None
        count = per_parameter.get(group, 0)
        per_parameter[group] = count + 1
        (leading if count < 3 else trailing).append(line)
    return leading + trailing


def _problems(
    validator: Any, instance: Any, checks: Mapping[str, Check], cut: list[bool]
) -> Iterator[_Problem]:
    for error in _errors(validator, instance, checks, cut):
        yield from _capped(_describe(error, cut), _PER_SOURCE, cut)


def _errors(
    validator: Any, instance: Any, checks: Mapping[str, Check], cut: list[bool]
) -> Iterator[Any]:
    """`jsonschema`'s errors, read one parameter at a time for an object of parameters.

    The object's own keywords come first (missing and unknown arguments),
    then each parameter's problems, at most `_PER_SOURCE` of them, so that
    one parameter with a million bad items neither hides the others nor
    costs more than a bounded number of errors.
    """
    schema = validator.schema
    properties = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(properties, dict) or not is_object(instance):
        yield from validator.iter_errors(instance)
        return
    shallow = {**schema, "properties": dict.fromkeys(properties, True)}
    yield from type(validator)(
        shallow, format_checker=validator.format_checker
    ).iter_errors(instance)
    for name, sub in properties.items():
        if name not in instance:
            continue
        value = instance[name]
        check = checks.get(name)
        if check is not None and check(value):
            continue
        yield from _capped(
            validator.descend(value, sub, path=name, schema_path="properties"),
            _PER_SOURCE,
            cut,
        )


def _rank(path: tuple[Any, ...], order: list[str]) -> int:
    if not path:
        return -1
    return order.index(path[0]) if path[0] in order else len(order)


def _describe(error: Any, cut: list[bool]) -> Iterator[_Problem]:
    if error.validator in ("anyOf", "oneOf") and error.context:
        yield from _describe_union(error, cut)
        return
    path = tuple(error.absolute_path)
    if error.validator == "required":  # the path ends with the missing name
        yield _Problem(
            path, "required", f"{path_text(path)}: required property is missing"
        )
    elif error.validator == "additionalProperties" and error.validator_value is False:
        yield from _describe_extra(error, path)
    else:
        yield _Problem(path, error.validator, f"{path_text(path)}: {_reason(error)}")


def _describe_extra(error: Any, path: tuple[Any, ...]) -> Iterator[_Problem]:
    known = list(error.schema.get("properties", {}))
    valid = ", ".join(known) if known else "none"
    kind = "argument" if not path else "field"
    for key in _extra_keys(error.instance, error.schema):
        yield _Problem(
            (*path, key),
            "additionalProperties",
            f"{path_text([*path, key])}: unknown {kind}; valid {kind}s: {valid}",
        )


def _describe_union(error: Any, cut: list[bool]) -> Iterator[_Problem]:
    """Report the branch whose type fits the value; else list the types expected."""
    path = tuple(error.absolute_path)
    depth = len(path)
    fitting = [
        subs
        for subs in _branches(error, cut)
        if not any(
            sub.validator == "type" and len(sub.absolute_path) == depth for sub in subs
        )
    ]
    if len(fitting) == 1:
        for sub in fitting[0]:
            yield from _describe(sub, cut)
        return
    kinds = [
        branch.get("type")
        for branch in error.validator_value
        if isinstance(branch, dict)
    ]
    if kinds and all(isinstance(kind, str) for kind in kinds):
        expected = " or ".join(dict.fromkeys(str(kind) for kind in kinds))
        line = f"{path_text(path)}: expected {expected}, got {_got(error.instance)}"
    else:
        line = f"{path_text(path)}: {preview(error.instance)} does not match any of the allowed forms"
    yield _Problem(path, error.validator, line)


def _branches(error: Any, cut: list[bool]) -> list[list[Any]]:
    """A union's errors by the branch they come from.

    `_any_of_keyword` reads one problem more of a branch than `_PER_SOURCE`,
    to tell that it had more: such a branch keeps `_PER_SOURCE`, and `cut`
    notes that the rest were not read (`oneOf` is jsonschema's own, read whole).
    """
    by_branch: dict[int, list[Any]] = {}
    for sub in error.context:
        by_branch.setdefault(sub.relative_schema_path[0], []).append(sub)
    for subs in by_branch.values():
        if error.validator == "anyOf" and len(subs) > _PER_SOURCE:
            cut.append(True)
            del subs[_PER_SOURCE:]
    return list(by_branch.values())


def _reason(error: Any) -> str:
    value, instance = error.validator_value, error.instance
    reasons: dict[str, Callable[[], str]] = {
        "type": lambda: f"expected {_types(value)}, got {_got(instance)}",
        "enum": lambda: (
            f"{preview(instance)} is not one of {', '.join(preview(item) for item in value)}"
        ),
        "const": lambda: f"{preview(instance)} is not {preview(value)}",
        "format": lambda: f"{preview(instance)} is not a valid {value}" + _cause(error),
        "pattern": lambda: f"{preview(instance)} does not match the pattern {value!r}",
        "minLength": lambda: f"{preview(instance)} is shorter than {value} characters",
        "maxLength": lambda: f"{preview(instance)} is longer than {value} characters",
        "minItems": lambda: (
            f"has {len(instance)} items, fewer than the minimum of {value}"
        ),
        "maxItems": lambda: (
            f"has {len(instance)} items, more than the maximum of {value}"
        ),
        "uniqueItems": lambda: "has repeated items; they must be unique",
    }
    builder = reasons.get(error.validator)
    return builder() if builder is not None else str(error.message)


def _cause(error: Any) -> str:
    cause = getattr(error, "cause", None)
    text = preview(str(cause), 120)[1:-1] if cause is not None else ""
    instance = error.instance
    repeats = isinstance(instance, str) and len(instance) <= 120 and instance in text
    return f" ({text})" if text and not repeats else ""


def _got(value: Any) -> str:
    if value is None:
        return "null"
    if is_number(value) and not is_finite_number(value):  # `1e400` reads as one
        return (
            f"{preview(value)}, which no number here can be "
            "(send a finite number, at most 1.7976931348623157e308 in size)"
        )
    return f"{json_kind(value)} {preview(value)}"


def _types(declared: Any) -> str:
    return " or ".join(declared) if isinstance(declared, list) else str(declared)


# ------------------------------------------------------------------ schemas as values

_DRAFT: Final = "https://json-schema.org/draft/2020-12/schema"
_DATA: Final = frozenset({"const", "default", "enum", "examples"})
"""Keywords whose values are JSON data, not schemas: copied as they are."""


def schema_problem(schema: Any) -> str | None:
    """None when `schema` is a valid Draft 2020-12 schema, else where and why not.

    The verdict is `is_schema`'s; `jsonschema` words the problem (the first
    of its errors in text order, `at <path>: <message>`) only for a schema
    that is refused.
    """
    if is_schema(schema):
        return None
    import jsonschema

    meta = jsonschema.Draft202012Validator.META_SCHEMA
    errors = sorted(jsonschema.Draft202012Validator(meta).iter_errors(schema), key=str)
    if not errors:  # never: the two verdicts are held equal by tests
        return "at (root): it does not fit the meta-schema"
    where = "/".join(str(part) for part in errors[0].absolute_path) or "(root)"
    return f"at {where}: {errors[0].message}"


def is_schema(value: Any) -> bool:
    """Whether `value` is valid against Draft 2020-12's meta-schema, as `jsonschema` finds it.

    The meta-schema is compiled once (`compile_check`): `jsonschema` resolves
    its `$dynamicRef`s on every keyword it reads, about ten times the cost.
    """
    return _meta_schema_check()(value)


@functools.cache
def _meta_schema_check() -> Check:
    check = compile_check(_meta_schema())
    if check is None:  # never: every keyword of the merged meta-schema compiles
        msg = "the Draft 2020-12 meta-schema did not compile"
        raise RuntimeError(msg)
    return check


def _meta_schema() -> JsonSchema:
    """The meta-schema and its seven vocabularies as one schema that `compile_check` reads.

    Its `allOf` of vocabularies becomes one object schema: they declare
    disjoint keywords and `$defs`, all with the type `["object", "boolean"]`.
    Each `$dynamicRef: "#meta"` becomes a `$ref` to the root, as nothing
    extends the meta-schema here, and each `$ref` into a vocabulary a `$ref`
    into the merged `$defs`. `format` is dropped: the meta-schema is read
    without a format checker, where a format is an annotation.
    """
    from urllib.parse import urljoin

    from jsonschema_specifications import REGISTRY  # jsonschema's own copy

    root = REGISTRY.contents(_DRAFT)
    parts = [
        root,
        *(REGISTRY.contents(urljoin(_DRAFT, item["$ref"])) for item in root["allOf"]),
    ]
    merged: dict[str, Any] = {
        "type": ["object", "boolean"],
        "properties": {},
        "$defs": {},
    }
    for part in parts:
        merged["properties"].update(part.get("properties", {}))
        merged["$defs"].update(part.get("$defs", {}))
    return _local(merged)  # type: ignore[no-any-return]


def _local(schema: Any) -> Any:
    """A subschema of the meta-schema with its references inside the merged one."""
    if isinstance(schema, list):
        return [_local(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "$dynamicRef":
            out["$ref"] = "#"
        elif key == "$ref":
            out["$ref"] = "#" + value.partition("#")[2]
        elif key in ("properties", "$defs"):
            out[key] = {name: _local(item) for name, item in value.items()}
        elif key != "format":
            out[key] = value if key in _DATA else _local(value)
    return out
