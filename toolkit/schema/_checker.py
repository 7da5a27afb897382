"""The compiled check: a schema becomes one Python predicate, compiled once.

`compile_check(schema)` turns a schema into a tree of small closures that
answer one question, "is this value valid?", without `jsonschema`, for the
keywords toolkit emits and the common ones a raw schema uses. For a schema
that needs another keyword (`allOf`, `$id`, ...) it returns None, and
`jsonschema` decides (`_invalid.jsonschema_validator`). The verdicts follow
`jsonschema`'s own rules: a whole float is an integer, booleans are never
numbers, only lists are arrays and only dicts with string keys are objects,
`1` equals `1.0` but not `true`. Tests hold them equal to `jsonschema`'s on
the official JSON Schema test suite and on generated schemas and values.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Iterator, Sequence, Sized
from typing import Any, Final, cast

from toolkit.core._aliases import JsonSchema
from toolkit.core._formats import FORMAT_CHECKS
from toolkit.core._pattern import searcher
from toolkit.values._json import is_number, json_equal, json_key, ref_target

__all__ = [
    "Check",
    "compile_check",
    "is_object",
    "property_checks",
    "subschema_check",
    "unique",
]

Check = Callable[[Any], bool]

# Assertion keywords of Draft 2020-12 (and older spellings) that the compiler
# does not implement: a schema that uses one is left to `jsonschema`.
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
    """The check of a whole schema (its `$ref`s point into it), or None when it needs `jsonschema`."""
    return _compiled(_Compiler(schema), schema)


def subschema_check(schema: Any) -> Check | None:
    """The check of a subschema met without its root, as `jsonschema` hands one to a keyword.

    None when it holds a `$ref` (which only its root could resolve), or
    when it needs `jsonschema`. Compiled once per subschema: the entry keeps
    the subschema alive, so that its id is not reused.
    """
    kept = _SUBSCHEMA_CHECKS.get(id(schema))
    if kept is not None and kept[0] is schema:
        return kept[1]
    check = _compiled(_Compiler(None), schema)
    if len(_SUBSCHEMA_CHECKS) >= 4096:  # tools made on the fly must not grow it forever
        _SUBSCHEMA_CHECKS.clear()
    _SUBSCHEMA_CHECKS[id(schema)] = (schema, check)
    return check


_SUBSCHEMA_CHECKS: dict[int, tuple[Any, Check | None]] = {}


def property_checks(schema: JsonSchema) -> dict[str, Check]:
    """A compiled check of each property of an object schema (of those that compile)."""
    checks: dict[str, Check] = {}
    for name, sub in schema.get("properties", {}).items():
        check = _compiled(_Compiler(schema), sub)
        if check is not None:
            checks[name] = check
    return checks


def _compiled(compiler: _Compiler, schema: Any) -> Check | None:
    try:
        return compiler.compile(schema)
    except (_Unsupported, re.error, RecursionError):
        return None  # a keyword only jsonschema knows, a pattern toolkit cannot run, absurd depth


# ------------------------------------------------------------------ types


def _is_string(value: Any) -> bool:
    return isinstance(value, str)


def _is_integer(value: Any) -> bool:
    if isinstance(value, int):
        return value is not True and value is not False
    return isinstance(value, float) and value.is_integer()


def _is_boolean(value: Any) -> bool:
    return value is True or value is False


def _is_null(value: Any) -> bool:
    return value is None


def _is_array(value: Any) -> bool:
    return isinstance(value, list)


def is_object(value: Any) -> bool:
    """A dict whose keys are strings: JSON has no other keys (a Python caller may send them)."""
    return isinstance(value, dict) and all(isinstance(key, str) for key in value)


def is_finite_number(value: Any) -> bool:
    """A number JSON can carry: `1e400` parses as an infinity, which no tool is meant to get.

    A float is finite exactly when it minus itself is 0 (`inf - inf` and
    NaN are NaN); an int always is, however many digits it has.
    """
    return (  # `is_number` written out: this runs for every number checked
        isinstance(value, (int, float))
        and value is not True
        and value is not False
        and value - value == 0
    )


_TYPE_CHECKS: Final[dict[str, Check]] = {
    "string": _is_string,
    "integer": _is_integer,
    "number": is_finite_number,
    "boolean": _is_boolean,
    "null": _is_null,
    "array": _is_array,
    "object": is_object,
}


# ---------------------------------------------------------------- compiler


class _Compiler:
    """Compiles the subschemas of one root, each `$ref` once (recursion goes through it).

    A root of None stands for one that is not known: a `$ref` is then
    unsupported.
    """

    def __init__(self, root: JsonSchema | bool | None) -> None:
        self.root = root
        self.refs: dict[str, Check] = {}

    def compile(self, schema: JsonSchema | bool) -> Check:
        if schema is True:
            return _always
        if schema is False:
            return _never
        if (
            not isinstance(schema, dict)
            or schema.keys() & _UNSUPPORTED
            or not all(isinstance(key, str) for key in schema)
        ):
            raise _Unsupported
        # The type and the sizes first: a value they refuse is refused before
        # a pattern reads a long text or the items of a long array are checked.
        return _all_of(
            [
                *_value_checks(schema),
                *_size_checks(schema),
                *_number_checks(schema),
                *self._applicator_checks(schema),
                *_string_checks(schema),
                *self._array_checks(schema),
                *self._object_checks(schema),
            ]
        )

    def _applicator_checks(self, schema: JsonSchema) -> Iterator[Check]:
        if "$ref" in schema:
            yield self._ref(schema["$ref"])
        if "anyOf" in schema:
            yield _any_of([self.compile(branch) for branch in schema["anyOf"]])

    def _ref(self, ref: str) -> Check:
        if self.root is None:
            raise _Unsupported
        if ref in self.refs:
            return self.refs[ref]
        try:
            target = ref_target(self.root, ref)
        except LookupError:
            raise _Unsupported from None
        slot: list[Check] = []  # filled below, once the target is compiled
        self.refs[ref] = lambda value: slot[0](value)
        slot.append(self.compile(target))
        return self.refs[ref]

    def _array_checks(self, schema: JsonSchema) -> Iterator[Check]:
        prefix = [self.compile(item) for item in schema.get("prefixItems", ())]
        items = self.compile(schema["items"]) if "items" in schema else None
        if prefix or items is not None:
            yield _items_check(prefix, items)
        if schema.get("uniqueItems") is True:
            yield lambda value: not isinstance(value, list) or unique(value)

    def _object_checks(self, schema: JsonSchema) -> Iterator[Check]:
        # With "type": "object" the object check refuses anything but a dict
        # with string keys itself: `_value_checks` leaves that type to it.
        typed = schema.get("type") == "object"
        properties = {
            name: self.compile(sub)
            for name, sub in schema.get("properties", {}).items()
        }
        extra = schema.get("additionalProperties", True)
        required = tuple(schema.get("required", ()))
        if typed or properties or extra is not True or required:
            yield _object_check(properties, required, self.compile(extra), typed=typed)
        if "propertyNames" in schema:
            names = self.compile(schema["propertyNames"])
            yield lambda value: not is_object(value) or all(map(names, value))


def _always(value: Any) -> bool:
    return True


def _never(value: Any) -> bool:
    return False


def _all_of(checks: list[Check]) -> Check:
    return functools.reduce(_both, checks) if checks else _always


def _both(first: Check, second: Check) -> Check:
    return lambda value: first(value) and second(value)


def _any_of(checks: list[Check]) -> Check:
    return lambda value: any(check(value) for check in checks)


def _value_checks(schema: JsonSchema) -> Iterator[Check]:
    """`type` (but "object", which the object check does), `enum` and `const`."""
    declared = schema.get("type")
    if isinstance(declared, list):
        yield _any_of([_TYPE_CHECKS[name] for name in declared])
    elif declared is not None and declared != "object":
        yield _TYPE_CHECKS[declared]
    if "enum" in schema:
        yield _enum_check(schema["enum"])
    if "const" in schema:
        constant = schema["const"]
        yield lambda value: json_equal(value, constant)


def _enum_check(members: list[Any]) -> Check:
    """A scalar is looked up among the scalar members; an array or an object is compared with the others."""
    containers = [member for member in members if isinstance(member, _CONTAINERS)]
    scalars = frozenset(
        json_key(member) for member in members if not isinstance(member, _CONTAINERS)
    )

    def check(value: Any) -> bool:
        if isinstance(value, _CONTAINERS):
            return any(json_equal(value, member) for member in containers)
        return json_key(value) in scalars

    return check


_CONTAINERS: Final = (list, tuple, dict)


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
        yield lambda value: not is_number(value) or _is_multiple(value, divisor)


def _numeric(bound: float, holds: Callable[[Any, Any], bool]) -> Check:
    return lambda value: not is_number(value) or holds(value, bound)


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


def _size_checks(schema: JsonSchema) -> Iterator[Check]:
    """`minLength`/`maxLength`, `minItems`/`maxItems`, `minProperties`/`maxProperties`: one `len` each."""
    for applies, least, most in (
        (_is_string, "minLength", "maxLength"),
        (_is_array, "minItems", "maxItems"),
        (is_object, "minProperties", "maxProperties"),
    ):
        low, high = schema.get(least), schema.get(most)
        if low is not None or high is not None:
            yield _length_check(applies, low, high)


def _string_checks(schema: JsonSchema) -> Iterator[Check]:
    if "pattern" in schema:
        search = searcher(schema["pattern"])
        yield lambda value: not isinstance(value, str) or search(value)
    reader = FORMAT_CHECKS.get(schema.get("format", ""))
    if reader is not None:
        yield lambda value: not isinstance(value, str) or _reads(reader, value)


def _reads(reader: Callable[[str], object], value: str) -> bool:
    try:
        reader(value)
    except ValueError:
        return False
    return True


def _length_check(applies: Check, low: int | None, high: int | None) -> Check:
    """The bounds of a length, for the values of the kind that `applies` accepts."""
    least: float = 0 if low is None else low
    most: float = math.inf if high is None else high
    return lambda value: (
        not applies(value) or least <= len(cast("Sized", value)) <= most
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
        return not typed and not is_object(value)

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


def unique(items: Sequence[Any]) -> bool:
    """Whether no two items are equal as JSON Schema means it, in time linear in their size."""
    seen: set[Any] = set()
    for item in items:
        key = json_key(item)
        if key in seen:
            return False
        seen.add(key)
    return True
