"""Argument validation: a fast path compiled once per schema, `jsonschema` for messages.

`compile_check(schema)` turns a schema into a tree of small closures that
answer one question, "is this instance valid?", for the keywords toolkit
emits (and the common ones a raw schema uses). When a schema uses a keyword
the compiler does not implement, it returns None and the caller asks
`jsonschema` instead, so a verdict is never wrong, only slower. The verdicts
follow `jsonschema`'s own rules (a whole float is an integer, booleans are
never numbers, only lists are arrays and only dicts objects) and are checked
against it by differential tests. Only an invalid call pays for `jsonschema`,
which then writes the message the model reads.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Mapping, Sequence, Sized
from itertools import islice
from typing import Any, Final, cast

from ._formats import FORMAT_CHECKS
from ._json import json_equal
from ._types import JsonSchema

__all__ = [
    "Check",
    "compile_check",
    "describe_errors",
    "jsonschema_validator",
    "property_checks",
]

Check = Callable[[Any], bool]

# Keywords that never affect validity (annotations) or that `jsonschema` ignores.
_IGNORED: Final = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$comment",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
        "$defs",
        "definitions",
        "$schema",
        "discriminator",
    }
)
# Assertion keywords of Draft 2020-12 that the compiler does not implement.
_UNSUPPORTED: Final = frozenset(
    {
        "allOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "dependentRequired",
        "dependentSchemas",
        "patternProperties",
        "unevaluatedProperties",
        "unevaluatedItems",
        "contains",
        "minContains",
        "maxContains",
        "$dynamicRef",
        "$dynamicAnchor",
        "$anchor",
        "$id",
        "$recursiveRef",
        "dependencies",
    }
)


class _Unsupported(Exception):
    """The schema needs a keyword that only `jsonschema` implements."""


def compile_check(schema: JsonSchema | bool) -> Check | None:
    """A fast validity check for `schema`, or None when it needs `jsonschema`."""
    try:
        return _Compiler(schema).compile(schema)
    except (
        _Unsupported,
        re.error,
        RecursionError,
    ):  # a pattern Python cannot read, absurd depth
        return None


# ------------------------------------------------------------------ types


def _is_string(value: Any) -> bool:
    return isinstance(value, str)


def _is_integer(value: Any) -> bool:
    if isinstance(value, int):
        return value is not True and value is not False
    return isinstance(value, float) and value.is_integer()


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and value is not True and value is not False


def _is_boolean(value: Any) -> bool:
    return value is True or value is False


def _is_null(value: Any) -> bool:
    return value is None


def _is_array(value: Any) -> bool:
    return isinstance(value, list)


def _is_object(value: Any) -> bool:
    """A dict whose keys are strings: JSON has no other keys (a Python caller may send them)."""
    return isinstance(value, dict) and _string_keys(value)


def _string_keys(value: dict[Any, Any]) -> bool:
    return all(isinstance(key, str) for key in value)


_TYPE_CHECKS: Final[dict[str, Check]] = {
    "string": _is_string,
    "integer": _is_integer,
    "number": _is_number,
    "boolean": _is_boolean,
    "null": _is_null,
    "array": _is_array,
    "object": _is_object,
}


# ---------------------------------------------------------------- compiler


class _Compiler:
    def __init__(self, root: JsonSchema | bool) -> None:
        self.root = root
        self.refs: dict[str, Check] = {}

    def compile(self, schema: JsonSchema | bool) -> Check:  # noqa: C901  # one branch per keyword family
        if schema is True or schema == {}:
            return _always
        if schema is False:
            return _never
        if not isinstance(schema, dict):
            raise _Unsupported
        keys = schema.keys()
        if keys & _UNSUPPORTED:
            raise _Unsupported
        checks: list[Check] = []
        # With "type": "object", the object check refuses anything but a dict
        # with string keys itself, so there is no type check to run before it.
        typed = schema.get("type") == "object" and _has_object_keywords(schema)
        if "type" in schema and not typed:
            checks.append(_type_check(schema["type"]))
        if "enum" in schema:
            checks.append(_enum_check(schema["enum"]))
        if "const" in schema:
            constant = schema["const"]
            checks.append(lambda value: json_equal(value, constant))
        if "$ref" in schema:
            checks.append(self._ref(schema["$ref"]))
        if "anyOf" in schema:
            checks.append(_any_of([self.compile(branch) for branch in schema["anyOf"]]))
        checks.extend(_number_checks(schema))
        checks.extend(_string_checks(schema))
        checks.extend(self._array_checks(schema))
        checks.extend(self._object_checks(schema, typed=typed))
        unknown = keys - _KNOWN
        if unknown and not all(isinstance(key, str) for key in unknown):
            raise _Unsupported
        return _all_of(checks)

    def _ref(self, ref: str) -> Check:
        if not ref.startswith("#"):
            raise _Unsupported
        if ref in self.refs:
            return self.refs[ref]
        target = _resolve(self.root, ref)
        slot: list[Check] = []
        self.refs[ref] = lambda value: slot[0](
            value
        )  # filled below; recursion goes through it
        slot.append(self.compile(target))
        return self.refs[ref]

    def _array_checks(self, schema: JsonSchema) -> Iterator[Check]:
        prefix = [self.compile(item) for item in schema.get("prefixItems", ())]
        items = self.compile(schema["items"]) if "items" in schema else None
        if prefix or items is not None:
            yield _items_check(prefix, items)
        low, high = schema.get("minItems"), schema.get("maxItems")
        if low is not None or high is not None:
            yield _length_check(list, low, high)
        if schema.get("uniqueItems") is True:
            yield lambda value: not isinstance(value, list) or _unique(value)

    def _object_checks(self, schema: JsonSchema, *, typed: bool) -> Iterator[Check]:
        properties = {
            name: self.compile(sub)
            for name, sub in schema.get("properties", {}).items()
        }
        extra = schema.get("additionalProperties", True)
        required = tuple(schema.get("required", ()))
        if properties or extra is not True or required:
            yield _object_check(properties, required, self.compile(extra), typed=typed)
        if "propertyNames" in schema:
            names = self.compile(schema["propertyNames"])
            yield (
                lambda value: not _is_object(value) or all(names(key) for key in value)
            )
        low, high = schema.get("minProperties"), schema.get("maxProperties")
        if low is not None or high is not None:
            least: float = 0 if low is None else low
            most: float = math.inf if high is None else high
            yield lambda value: not _is_object(value) or least <= len(value) <= most


def _has_object_keywords(schema: JsonSchema) -> bool:
    return (
        bool(schema.get("properties"))
        or schema.get("additionalProperties", True) is not True
        or bool(schema.get("required"))
    )


_KNOWN: Final = _IGNORED | {
    "type",
    "enum",
    "const",
    "$ref",
    "anyOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "properties",
    "additionalProperties",
    "required",
    "propertyNames",
    "minProperties",
    "maxProperties",
}


def _always(value: Any) -> bool:
    return True


def _never(value: Any) -> bool:
    return False


def _all_of(checks: list[Check]) -> Check:
    if not checks:
        return _always
    if len(checks) == 1:
        return checks[0]
    if len(checks) == 2:  # the common pair, without a generator
        first, second = checks
        return lambda value: first(value) and second(value)
    return lambda value: all(check(value) for check in checks)


def _any_of(checks: list[Check]) -> Check:
    return lambda value: any(check(value) for check in checks)


def _type_check(declared: str | list[str]) -> Check:
    if isinstance(declared, str):
        return _TYPE_CHECKS[declared]
    checks = [_TYPE_CHECKS[name] for name in declared]
    return _any_of(checks)


def _enum_check(values: list[Any]) -> Check:
    plain = {value for value in values if isinstance(value, str)}
    if len(plain) == len(values):  # all strings: a set lookup
        return lambda value: isinstance(value, str) and value in plain
    return lambda value: any(json_equal(value, member) for member in values)


def _resolve(root: Any, ref: str) -> Any:
    target = root
    for part in ref.lstrip("#").split("/")[1:]:
        key = part.replace("~1", "/").replace("~0", "~")
        if isinstance(target, list) and key.isdigit():
            target = target[int(key)]
        elif isinstance(target, dict) and key in target:
            target = target[key]
        else:
            raise _Unsupported
    return target


def _number_checks(schema: JsonSchema) -> Iterator[Check]:
    bounds = (
        ("minimum", lambda value, bound: value >= bound),
        ("maximum", lambda value, bound: value <= bound),
        ("exclusiveMinimum", lambda value, bound: value > bound),
        ("exclusiveMaximum", lambda value, bound: value < bound),
    )
    for keyword, holds in bounds:
        if keyword in schema:
            yield _numeric(schema[keyword], holds)
    if "multipleOf" in schema:
        divisor = schema["multipleOf"]
        yield lambda value: not _is_number(value) or _is_multiple(value, divisor)


def _numeric(bound: float, holds: Callable[[Any, Any], bool]) -> Check:
    return lambda value: not _is_number(value) or holds(value, bound)


def _is_multiple(value: float, divisor: float) -> bool:
    """`jsonschema`'s own arithmetic, so that the verdicts agree to the last bit."""
    if isinstance(divisor, float):
        quotient = value / divisor
        try:
            return int(quotient) == quotient
        except OverflowError:
            from fractions import Fraction

            return (Fraction(value) / Fraction(divisor)).denominator == 1
        except ValueError:  # NaN
            return False
    return not value % divisor


def _string_checks(schema: JsonSchema) -> Iterator[Check]:
    low, high = schema.get("minLength"), schema.get("maxLength")
    if low is not None or high is not None:
        yield _length_check(str, low, high)
    if "pattern" in schema:
        search = re.compile(schema["pattern"]).search
        yield lambda value: not isinstance(value, str) or search(value) is not None
    reader = FORMAT_CHECKS.get(schema.get("format", ""))
    if reader is not None:
        yield lambda value: not isinstance(value, str) or _reads(reader, value)


def _reads(reader: Callable[[str], object], value: str) -> bool:
    try:
        reader(value)
    except ValueError:
        return False
    return True


def _length_check(kind: type, low: int | None, high: int | None) -> Check:
    least: float = 0 if low is None else low
    most: float = math.inf if high is None else high
    return lambda value: (
        not isinstance(value, kind) or least <= len(cast("Sized", value)) <= most
    )


def _items_check(prefix: list[Check], items: Check | None) -> Check:
    count = len(prefix)

    def check(value: Any) -> bool:
        if not isinstance(value, list):
            return True
        if not all(map(lambda check, item: check(item), prefix, value)):
            return False
        return items is None or all(items(item) for item in value[count:])

    return check


def _object_check(
    properties: dict[str, Check],
    required: tuple[str, ...],
    extra: Check,
    *,
    typed: bool,
) -> Check:
    """`properties`, `required` and `additionalProperties` together, in one pass.

    A value that is not a dict, and a dict with a non-string key, is not a
    JSON object: it fails when the schema says `"type": "object"` (`typed`),
    and the object keywords do not apply to it otherwise, as they do not
    apply to an array.
    """
    closed = extra is _never

    def fails(value: dict[Any, Any]) -> bool:
        """The verdict on a dict that breaks a rule.

        False, unless a key that is not a string makes it no object at all:
        then the object keywords do not apply.
        """
        return not typed and not _string_keys(value)

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return not typed
        for name in required:
            if name not in value:
                return fails(value)
        for name, item in value.items():
            own = properties.get(name)
            if own is None:
                if closed or not isinstance(name, str) or not extra(item):
                    return fails(value)
            elif not own(item):
                return fails(value)
        return True

    return check


def _unique(items: Sequence[Any]) -> bool:
    """Whether no two items are equal as JSON Schema means it, in time linear in their size.

    Each item is reduced to a hashable form in which equal JSON values are
    equal (`1` and `1.0` alike, `true` and `1` apart, arrays and objects by
    content), so one set does the work of comparing every pair.
    """
    seen: set[Any] = set()
    for item in items:
        key = _canonical(item)
        if key in seen:
            return False
        seen.add(key)
    return True


class _Flag:
    """`true` or `false` in a hashable form, apart from `1` and `0`."""

    __slots__ = ("value",)

    def __init__(self, value: bool) -> None:
        self.value = value


_TRUE: Final = _Flag(True)
_FALSE: Final = _Flag(False)


def _canonical(value: Any) -> Any:
    """A hashable form of a value; two forms are equal when `json_equal` says the values are."""
    if value is True:
        return _TRUE
    if value is False:
        return _FALSE
    if value is None or isinstance(value, (str, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return tuple(map(_canonical, value))
    if isinstance(value, dict):
        return frozenset(
            (_canonical(key), _canonical(item)) for key, item in value.items()
        )
    return _Foreign(value)


# ---------------------------------------------------------------- messages


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
    tens), extra properties are reported in the order they were sent, and a
    dict with a non-string key is not an object.
    """
    import jsonschema

    checker = jsonschema.FormatChecker(formats=())
    for name, reader in FORMAT_CHECKS.items():
        checker.checks(name, raises=ValueError)(_strings_only(reader))
    return _validator_class()(schema, format_checker=checker)


_VALIDATOR_CLASS: list[Any] = []


def _validator_class() -> Any:
    if not _VALIDATOR_CLASS:
        import jsonschema
        import jsonschema.validators

        base = jsonschema.Draft202012Validator
        _VALIDATOR_CLASS.append(
            jsonschema.validators.extend(
                base,
                validators={
                    "uniqueItems": _unique_items_keyword,
                    "anyOf": _any_of_keyword,
                    "items": _items_keyword,
                    "additionalProperties": _additional_properties_keyword,
                },
                type_checker=base.TYPE_CHECKER.redefine(
                    "object", lambda checker, value: _is_object(value)
                ),
            )
        )
    return _VALIDATOR_CLASS[0]


def _unique_items_keyword(
    validator: Any, unique: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if (
        unique is True
        and validator.is_type(instance, "array")
        and not _unique(instance)
    ):
        yield ValidationError("has repeated items")


def _any_of_keyword(
    validator: Any, branches: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    found: list[Any] = []
    cut: list[bool] = []
    for index, branch in enumerate(branches):
        errors = list(
            _capped(
                validator.descend(instance, branch, schema_path=index), _PER_SOURCE, cut
            )
        )
        if not errors:
            return
        found.extend(errors)
    error = ValidationError(
        "is not valid under any of the given schemas", context=found
    )
    error.cut = bool(cut)  # read by _describe: the count of problems is a lower bound
    yield error


def _items_keyword(
    validator: Any, items: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "array"):
        return
    prefix = len(schema.get("prefixItems", ()))
    if len(instance) <= prefix:
        return
    if items is False:
        yield ValidationError(
            f"expected at most {prefix} items, got {len(instance) - prefix} more"
        )
        return
    check = _child_check(items)
    for index in range(prefix, len(instance)):
        item = instance[index]
        if check is None or not check(item):
            yield from validator.descend(item, items, path=index)


def _additional_properties_keyword(
    validator: Any, extra: Any, instance: Any, schema: Any
) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError

    if not validator.is_type(instance, "object"):
        return
    extras = _extra_keys(instance, schema)
    if validator.is_type(extra, "object"):
        check = _child_check(extra)
        for key in extras:
            item = instance[key]
            if check is None or not check(item):
                yield from validator.descend(item, extra, path=key)
    elif extra is False:
        first = next(extras, None)
        if first is not None:
            yield ValidationError(f"unexpected property {first!r}")


_CHILD_CHECKS: dict[int, tuple[Any, Check | None]] = {}
"""Compiled checks of `items` and `additionalProperties` subschemas, by identity.

Only a subschema without references is compiled, so that its check does
not depend on the root it came from; the entry keeps the subschema alive,
so that its id is not reused.
"""


def _child_check(schema: Any) -> Check | None:
    """The compiled check of a reference-free subschema, or None."""
    entry = _CHILD_CHECKS.get(id(schema))
    if entry is not None and entry[0] is schema:
        return entry[1]
    check: Check | None = None
    if isinstance(schema, dict) and not _refers(schema):
        try:
            check = _Compiler(schema).compile(schema)
        except (_Unsupported, re.error, RecursionError):
            check = None
    if len(_CHILD_CHECKS) >= 4096:  # tools made on the fly must not grow it forever
        _CHILD_CHECKS.clear()
    _CHILD_CHECKS[id(schema)] = (schema, check)
    return check


def _refers(schema: Any) -> bool:
    """Whether a `$ref` (or `$dynamicRef`) appears anywhere in `schema`."""
    pending = [schema]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            if "$ref" in item or "$dynamicRef" in item:
                return True
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def _extra_keys(instance: dict[str, Any], schema: JsonSchema) -> Iterator[str]:
    """The keys of `instance` that neither `properties` nor `patternProperties` cover, in order."""
    known = schema.get("properties", {})
    patterns = [re.compile(pattern) for pattern in schema.get("patternProperties", ())]
    return (
        key
        for key in instance
        if key not in known and not any(pattern.search(key) for pattern in patterns)
    )


def _strings_only(reader: Callable[[str], object]) -> Callable[[object], bool]:
    """`jsonschema` asks a format about every value; a format only constrains strings."""

    def check(value: object) -> bool:
        if isinstance(value, str):
            reader(value)
        return True

    return check


def property_checks(schema: JsonSchema) -> dict[str, Check]:
    """A compiled check of each property of an object schema (of those that compile)."""
    compiler = _Compiler(schema)
    checks: dict[str, Check] = {}
    for name, sub in schema.get("properties", {}).items():
        try:
            checks[name] = compiler.compile(sub)
        except (_Unsupported, re.error, RecursionError):
            continue
    return checks


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
        _problems(validator, _printable(instance), checks or {}, cut), cut
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


_HUGE_BITS: Final = 13_000
"""Ints this long have more digits than Python turns into text (4,300); only a
Python caller can send them, as JSON parsing refuses them too."""
_EXACT: Final = frozenset({str, float, bool, type(None)})


class _HugeInt(int):
    """An int that `jsonschema` can put in a message: its repr gives its size."""

    def __repr__(self) -> str:
        return _int_text(self)


class _Foreign:
    """A value JSON has no type for (from a Python caller), safe to compare and show.

    It is equal only to itself, like the value under toolkit's checks, and
    its repr never runs the value's own code, which may raise.
    """

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Foreign) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)

    def __repr__(self) -> str:
        return f"<{type(self.value).__name__}>"


def _printable(value: Any) -> Any:
    """`value` as plain JSON data that `jsonschema` can compare and show.

    Subclasses of str, int, float, list and dict become the plain types; an
    int too long to write out becomes a `_HugeInt`, anything else a
    `_Foreign`. Validity does not change. JSON as a model sends it is
    returned as is, after one walk.
    """
    return value if _plain(value) else _copy_printable(value)


def _plain(value: Any) -> bool:
    """Whether `value` is plain JSON data: exact types, short ints, no container twice."""
    pending = [value]
    seen: set[int] = set()  # a container met again is shared or a cycle: not plain
    while pending:
        item = pending.pop()
        kind = type(item)
        if kind is int:
            if item.bit_length() > _HUGE_BITS:
                return False
        elif kind is list or kind is dict:
            if id(item) in seen:
                return False
            seen.add(id(item))
            if kind is list:
                pending.extend(item)
            elif all(type(key) is str for key in item):
                pending.extend(item.values())
            else:
                return False
        elif kind not in _EXACT:
            return False
    return True


def _copy_printable(value: Any, copies: dict[int, Any] | None = None) -> Any:
    """The plain copy; a container shared in `value` is copied once and shared again."""
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        plain = int.__add__(value, 0)
        return _HugeInt(plain) if plain.bit_length() > _HUGE_BITS else plain
    if isinstance(value, float):
        return float.__add__(value, 0.0)
    if isinstance(value, str):
        return str.__getitem__(value, slice(None))
    if not isinstance(value, (list, dict)):
        return _Foreign(value)
    copies = {} if copies is None else copies
    if id(value) in copies:
        return copies[id(value)]
    # A subclass's own methods are not called: they may raise.
    if isinstance(value, list):
        items: list[Any] = []
        copies[id(value)] = items
        items.extend(_copy_printable(item, copies) for item in list.__iter__(value))
        return items
    fields: dict[Any, Any] = {}
    copies[id(value)] = fields
    for key, item in dict.items(value):
        fields[_copy_printable(key, copies)] = _copy_printable(item, copies)
    return fields


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
    if not isinstance(properties, dict) or not _is_object(instance):
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
        if getattr(error, "cut", False):
            cut.append(True)
        yield from _describe_union(error, cut)
        return
    path = tuple(error.absolute_path)
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else "?"
        yield _Problem(
            (*path, missing),
            "required",
            f"{_path([*path, missing])}: required property is missing",
        )
    elif error.validator == "additionalProperties" and error.validator_value is False:
        yield from _describe_extra(error, path)
    else:
        yield _Problem(path, error.validator, f"{_path(path)}: {_reason(error)}")


def _describe_extra(error: Any, path: tuple[Any, ...]) -> Iterator[_Problem]:
    known = list(error.schema.get("properties", {}))
    valid = ", ".join(known) if known else "none"
    kind = "argument" if not path else "field"
    for key in _extra_keys(error.instance, error.schema):
        yield _Problem(
            (*path, key),
            "additionalProperties",
            f"{_path([*path, key])}: unknown {kind}; valid {kind}s: {valid}",
        )


def _describe_union(error: Any, cut: list[bool]) -> Iterator[_Problem]:
    """Report the branch whose type fits the value; else list the types expected."""
    path = tuple(error.absolute_path)
    depth = len(path)
    by_branch: dict[int, list[Any]] = {}
    for sub in error.context:
        by_branch.setdefault(sub.relative_schema_path[0], []).append(sub)
    fitting = [
        subs
        for subs in by_branch.values()
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
        line = f"{_path(path)}: expected {expected}, got {_got(error.instance)}"
    else:
        line = f"{_path(path)}: {_show(error.instance)} does not match any of the allowed forms"
    yield _Problem(path, error.validator, line)


def _reason(error: Any) -> str:
    value, instance = error.validator_value, error.instance
    reasons: dict[str, Callable[[], str]] = {
        "type": lambda: f"expected {_types(value)}, got {_got(instance)}",
        "enum": lambda: (
            f"{_show(instance)} is not one of {', '.join(_show(item) for item in value)}"
        ),
        "const": lambda: f"{_show(instance)} is not {_show(value)}",
        "format": lambda: f"{_show(instance)} is not a valid {value}" + _cause(error),
        "pattern": lambda: f"{_show(instance)} does not match the pattern {value!r}",
        "minLength": lambda: f"{_show(instance)} is shorter than {value} characters",
        "maxLength": lambda: f"{_show(instance)} is longer than {value} characters",
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
    text = _show(str(cause), 120)[1:-1] if cause is not None else ""
    instance = error.instance
    repeats = isinstance(instance, str) and len(instance) <= 120 and instance in text
    return f" ({text})" if text and not repeats else ""


def _got(value: Any) -> str:
    return "null" if value is None else f"{_json_kind(value)} {_show(value)}"


def _types(declared: Any) -> str:
    return " or ".join(declared) if isinstance(declared, list) else str(declared)


_JSON_KINDS: Final = (
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
)


def _json_kind(value: Any) -> str:
    """The JSON type of a value, or its Python type when it is not JSON (from a Python caller)."""
    if isinstance(value, _Foreign):
        return type(value.value).__name__
    if value is None:
        return "null"
    for cls, kind in _JSON_KINDS:  # bool before int: True is an int to Python
        if isinstance(value, cls):
            return kind
    if isinstance(value, dict):
        return "object" if _string_keys(value) else "dict with non-string keys"
    return type(value).__name__


def _show(value: Any, limit: int = 60) -> str:
    """A value as the model sent it, in JSON, shortened; the work is bounded by `limit`."""
    out: list[str] = []
    _render(value, out, limit + 1)
    text = "".join(out)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _render(value: Any, out: list[str], budget: int) -> int:
    """Append at least `budget` characters of `value`'s JSON (or all of it) to `out`."""
    if isinstance(value, _Foreign):
        value = value.value
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        return _render_container(value, out, budget)
    if value is None or isinstance(value, bool):
        piece = "null" if value is None else ("true" if value else "false")
    elif isinstance(value, str):
        import json

        piece = json.dumps(value[:budget], ensure_ascii=False)
    elif isinstance(value, int):
        piece = _int_text(value)
    elif isinstance(value, float):
        piece = _float_text(value)
    else:
        piece = _safe_repr(value)[:budget]
    out.append(piece)
    return budget - len(piece)


def _render_container(
    value: list[Any] | tuple[Any, ...] | dict[Any, Any] | set[Any] | frozenset[Any],
    out: list[str],
    budget: int,
) -> int:
    """A list as JSON; a Python caller's dict, tuple or set in its Python brackets."""
    mapping = isinstance(value, dict)
    opening, closing = (
        ("(", ")")
        if isinstance(value, tuple)
        else ("{", "}")
        if mapping or isinstance(value, (set, frozenset))
        else ("[", "]")
    )
    out.append(opening)
    budget -= 1
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for index, (key, item) in enumerate(items):
        if budget <= 0:
            return budget
        if index:
            out.append(", ")
            budget -= 2
        if mapping:
            budget = _render(key, out, budget)
            out.append(": ")
            budget -= 2
        budget = _render(item, out, budget)
    out.append(closing)
    return budget - 1


def _float_text(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return repr(value)


def _int_text(value: int) -> str:
    """An int's digits; for a huge one (whose conversion to text is slow), its size."""
    if value.bit_length() <= 256:
        return str(value)
    digits = int(value.bit_length() * math.log10(2)) + 1
    return f"<an integer of about {digits:,} digits>"


def _safe_repr(value: Any) -> str:
    try:
        return repr(value)
    except Exception:  # a Python caller's object whose repr is broken
        return f"<{type(value).__name__}>"


def _path(parts: Sequence[Any]) -> str:
    """`a.b[0].c`; a key longer than 60 characters is shortened."""
    if not parts:
        return "(arguments)"
    text = ""
    for part in parts:
        if isinstance(part, int) and not isinstance(part, bool):
            text += f"[{part}]"
        else:
            name = str(part) if isinstance(part, str) else _show(part)
            name = name if len(name) <= 60 else name[:57] + "..."
            text += f".{name}" if text else name
    return text
