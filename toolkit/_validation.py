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
from typing import Any, Final, cast

from ._formats import FORMAT_CHECKS
from ._types import JsonSchema

__all__ = [
    "Check",
    "compile_check",
    "describe_errors",
    "is_large",
    "json_equal",
    "jsonschema_validator",
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
    return isinstance(value, dict)


_TYPE_CHECKS: Final[dict[str, Check]] = {
    "string": _is_string,
    "integer": _is_integer,
    "number": _is_number,
    "boolean": _is_boolean,
    "null": _is_null,
    "array": _is_array,
    "object": _is_object,
}


def json_equal(one: Any, two: Any) -> bool:
    """Equality as JSON Schema means it: `true` is not `1`, `1.0` is `1`."""
    if one is two:
        return True
    if isinstance(one, str) or isinstance(two, str):
        return bool(one == two)
    if isinstance(one, bool) or isinstance(two, bool):
        return type(one) is type(two) and one == two
    if isinstance(one, (list, tuple)) and isinstance(two, (list, tuple)):
        return len(one) == len(two) and all(map(json_equal, one, two))
    if isinstance(one, dict) and isinstance(two, dict):
        return len(one) == len(two) and all(
            key in two and json_equal(value, two[key]) for key, value in one.items()
        )
    return bool(one == two)


# ------------------------------------------------------------------ size

_LARGE: Final = 20_000
"""Work units (container items; four characters of text, as a JSON-encoded
string sent for a list may be decoded) above which checking a value can hold
a thread for a millisecond or more."""
_SMALL_SCALARS: Final = frozenset({int, float, bool, type(None)})


def is_large(value: Any, budget: int = _LARGE) -> bool:
    """Whether `value` is too big to check without noticeably holding up the caller.

    The walk stops as soon as the budget is spent, so it costs at most
    `budget` steps whatever the value's size, depth or cycles.
    """
    if type(value) is dict and len(value) < 64 and _flat(value):
        return False  # the common call: a few scalars and short strings
    pending = [value]
    while pending:
        item = pending.pop()
        if type(item) in _SMALL_SCALARS:
            budget -= 1
        elif isinstance(item, (str, bytes, bytearray)):
            budget -= 1 + len(item) // 4
        elif isinstance(item, (dict, list, tuple, set, frozenset)):
            budget -= 1 + len(item)
            if budget >= 0:
                pending.extend(item.items() if isinstance(item, dict) else item)
        else:
            budget -= 1
        if budget < 0:
            return True
    return False


def _flat(arguments: dict[Any, Any]) -> bool:
    for item in arguments.values():
        kind = type(item)
        if kind is str:
            if len(item) > 4096:
                return False
        elif kind not in _SMALL_SCALARS:
            return False
    return True


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
        if "type" in schema:
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
        checks.extend(self._object_checks(schema))
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

    def _object_checks(self, schema: JsonSchema) -> Iterator[Check]:
        properties = {
            name: self.compile(sub)
            for name, sub in schema.get("properties", {}).items()
        }
        extra = schema.get("additionalProperties", True)
        required = tuple(schema.get("required", ()))
        if properties or extra is not True or required:
            yield _object_check(properties, required, self.compile(extra))
        if "propertyNames" in schema:
            names = self.compile(schema["propertyNames"])
            yield (
                lambda value: (
                    not isinstance(value, dict) or all(names(key) for key in value)
                )
            )
        low, high = schema.get("minProperties"), schema.get("maxProperties")
        if low is not None or high is not None:
            yield _length_check(dict, low, high)


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
    properties: dict[str, Check], required: tuple[str, ...], extra: Check
) -> Check:
    closed = extra is _never

    def check(value: Any) -> bool:
        if not isinstance(value, dict):
            return True
        for name in required:
            if name not in value:
                return False
        for name, item in value.items():
            own = properties.get(name)
            if own is None:
                if closed or not extra(item):
                    return False
            elif not own(item):
                return False
        return True

    return check


def _unique(items: list[Any]) -> bool:
    for index, item in enumerate(items):
        for other in items[index + 1 :]:
            if json_equal(item, other):
                return False
    return True


# ---------------------------------------------------------------- messages


def jsonschema_validator(schema: JsonSchema) -> Any:
    """A `jsonschema` validator for `schema` that checks formats as toolkit does."""
    import jsonschema

    checker = jsonschema.FormatChecker(formats=())
    for name, reader in FORMAT_CHECKS.items():
        checker.checks(name, raises=ValueError)(_strings_only(reader))
    return jsonschema.Draft202012Validator(schema, format_checker=checker)


def _strings_only(reader: Callable[[str], object]) -> Callable[[object], bool]:
    """`jsonschema` asks a format about every value; a format only constrains strings."""

    def check(value: object) -> bool:
        if isinstance(value, str):
            reader(value)
        return True

    return check


def describe_errors(validator: Any, instance: Any) -> list[str]:
    """One line per problem, each with its path: `city: required property is missing`.

    Problems are ordered as the parameters are declared; when a value has the
    wrong type, the other complaints about the same value are left out.
    """
    found: list[tuple[tuple[Any, ...], str, str]] = []
    for error in validator.iter_errors(instance):
        for line in _describe(error):
            found.append((_line_path(error, line), error.validator, line))
    mistyped = {path for path, keyword, _ in found if keyword == "type"}
    order = (
        list(validator.schema.get("properties", {}))
        if isinstance(validator.schema, dict)
        else []
    )
    lines: list[str] = []
    for path, keyword, line in sorted(found, key=lambda item: _rank(item[0], order)):
        if (keyword != "type" and path in mistyped) or line in lines:
            continue
        lines.append(line)
    return lines


def _line_path(error: Any, line: str) -> tuple[Any, ...]:
    path = tuple(error.absolute_path)
    if error.validator in ("required", "additionalProperties"):
        return (*path, line.split(":", 1)[0].rsplit(".", 1)[-1])
    return path


def _rank(path: tuple[Any, ...], order: list[str]) -> int:
    if not path:
        return -1
    return order.index(path[0]) if path[0] in order else len(order)


def _describe(error: Any) -> list[str]:
    if error.validator in ("anyOf", "oneOf") and error.context:
        return _describe_union(error)
    path = list(error.absolute_path)
    if error.validator == "required":
        missing = error.message.split("'")[1] if "'" in error.message else "?"
        return [f"{_path([*path, missing])}: required property is missing"]
    if error.validator == "additionalProperties" and error.validator_value is False:
        return _describe_extra(error, path)
    return [f"{_path(path)}: {_reason(error)}"]


def _describe_extra(error: Any, path: list[Any]) -> list[str]:
    known = list(error.schema.get("properties", {}))
    valid = ", ".join(known) if known else "none"
    kind = "argument" if not path else "field"
    extras = [key for key in error.instance if key not in known]
    return [
        f"{_path([*path, key])}: unknown {kind}; valid {kind}s: {valid}"
        for key in extras
    ]


def _describe_union(error: Any) -> list[str]:
    """Report the branch whose type fits the value; else list the types expected."""
    depth = len(list(error.absolute_path))
    by_branch: dict[int, list[Any]] = {}
    for sub in error.context:
        by_branch.setdefault(sub.relative_schema_path[0], []).append(sub)
    fitting = [
        subs
        for subs in by_branch.values()
        if not any(
            sub.validator == "type" and len(list(sub.absolute_path)) == depth
            for sub in subs
        )
    ]
    if len(fitting) == 1:
        return [line for sub in fitting[0] for line in _describe(sub)]
    kinds = [
        branch.get("type")
        for branch in error.validator_value
        if isinstance(branch, dict)
    ]
    if kinds and all(isinstance(kind, str) for kind in kinds):
        expected = " or ".join(dict.fromkeys(str(kind) for kind in kinds))
        return [
            f"{_path(list(error.absolute_path))}: expected {expected}, got {_got(error.instance)}"
        ]
    return [
        f"{_path(list(error.absolute_path))}: {_show(error.instance)} does not match any of the allowed forms"
    ]


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
    return (
        f" ({cause})"
        if cause is not None and str(cause) and repr(error.instance) not in str(cause)
        else ""
    )


def _got(value: Any) -> str:
    return "null" if value is None else f"{_json_kind(value)} {_show(value)}"


def _types(declared: Any) -> str:
    return " or ".join(declared) if isinstance(declared, list) else str(declared)


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (list, tuple)):
        return "array"
    if isinstance(value, (dict, Mapping)):
        return "object"
    return type(value).__name__


def _show(value: Any, limit: int = 60) -> str:
    """A value as the model sent it, in JSON, shortened."""
    import json

    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _path(parts: Sequence[Any]) -> str:
    if not parts:
        return "(arguments)"
    text = ""
    for part in parts:
        text += (
            f"[{part}]"
            if isinstance(part, int)
            else (f".{part}" if text else str(part))
        )
    return text
