"""Python values → JSON data: for defaults in schemas and for tool results.

Handles what tools return in practice: dataclasses, NamedTuples, Enums,
datetimes, UUIDs, Decimals, paths, bytes (base64), sets and pydantic models.
Sets are sorted when their items can be, so the output is deterministic.
Subclasses of `str`, `int` and `float` become the plain value they hold, so
that no overridden method of theirs runs later. Nesting is limited to
`MAX_DEPTH` containers: every JSON parser and SDK on the way accepts that
much, and a value that refers to itself stops there instead of recursing
until the stack runs out.
"""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import Iterator, Mapping
from typing import Any, Final, TypeGuard

__all__ = [
    "MAX_DEPTH",
    "Foreign",
    "TooDeep",
    "encode",
    "is_number",
    "json_equal",
    "json_key",
    "ref_target",
    "refers_to_itself",
    "to_jsonable",
    "type_name",
]

MAX_DEPTH: Final = 100
"""Containers nested in a value sent as JSON, at most (pydantic's serialiser stops at 255)."""

_EXACT: Final = frozenset({str, int, bool, type(None)})
_SEARCH_LIMIT: Final = 100_000  # containers visited when looking for a cycle


class TooDeep(ValueError):
    """A value holds more than `MAX_DEPTH` nested containers."""

    def __init__(self) -> None:
        super().__init__(f"it is nested more than {MAX_DEPTH} levels deep")


def is_number(value: object) -> TypeGuard[float]:
    """Whether `value` is a number: an int or a float, never a bool.

    `bool` has no subclasses and two instances: comparing by identity is
    the cheaper test, and validation asks it of every number it checks.
    """
    return isinstance(value, (int, float)) and value is not True and value is not False


@functools.cache
def _encoder() -> Any:
    import json

    return json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def to_jsonable(
    value: Any, depth: int = 0, *, loose: bool = False
) -> Any:  # a flat chain: one line per kind
    """Convert `value` to data that `json.dumps` accepts.

    Args:
        value: The value.
        depth: How many containers hold `value` already.
        loose: Give each leaf JSON cannot hold (an object of no known kind,
            NaN or an infinity, a dict key that is not text) as its `str()`
            instead of raising, as a tool's result is sent (`fallback=str`).

    Raises:
        TypeError: The value (or a value inside it) has no JSON form; the
            message names its type. Not with `loose`.
        ValueError: The value holds NaN or an infinity. Not with `loose`.
        TooDeep: The value holds more than `MAX_DEPTH` nested containers (or
            refers to itself).
    """
    if type(value) in _EXACT:
        return value
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value, depth, loose=loose)
    if isinstance(value, (str, int, float)):
        return _scalar(value, loose=loose)
    if isinstance(value, Mapping):
        inner = _deeper(depth)
        return {
            _key(key, loose=loose): to_jsonable(item, inner, loose=loose)
            for key, item in value.items()
        }
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        inner = _deeper(depth)
        return {
            _key(key, loose=loose): to_jsonable(item, inner, loose=loose)
            for key, item in value._asdict().items()
        }
    if isinstance(value, (list, tuple)):
        inner = _deeper(depth)
        return [to_jsonable(item, inner, loose=loose) for item in value]
    if isinstance(value, (set, frozenset)):
        inner = _deeper(depth)
        return _sorted_if_possible(
            [to_jsonable(item, inner, loose=loose) for item in value]
        )
    if hasattr(type(value), "__dataclass_fields__"):  # a dataclass instance
        inner = _deeper(depth)
        return {
            name: to_jsonable(item, inner, loose=loose) for name, item in _fields(value)
        }
    return _special(value, loose=loose)


def _scalar(value: str | int | float, *, loose: bool = False) -> str | int | float:
    """The plain `str`, `int` or finite `float` that a subclass instance holds."""
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):  # bool is final: only int subclasses get here
        return int.__index__(value)
    plain = float.__float__(value)
    if math.isfinite(plain):
        return plain
    if loose:
        return str(plain)  # "nan", "inf", "-inf"
    msg = f"{plain} is not a JSON number"
    raise ValueError(msg)


def _deeper(depth: int) -> int:
    if depth >= MAX_DEPTH:
        raise TooDeep
    return depth + 1


def _fields(value: Any) -> Iterator[tuple[str, Any]]:
    import dataclasses  # loaded already: the value is a dataclass

    for item in dataclasses.fields(value):
        yield item.name, getattr(value, item.name)


def _special(value: Any, *, loose: bool = False) -> Any:
    from ._scalars import NOT_SCALAR, dumped

    data = dumped(value)
    if data is not NOT_SCALAR:
        return data
    if hasattr(value, "model_dump") and hasattr(type(value), "model_json_schema"):
        return value.model_dump(
            mode="json", by_alias=True
        )  # as its schema names the fields
    from ._content import PART_TYPES  # only on this error path

    if loose and not isinstance(value, PART_TYPES):
        return _text_of(value)

    msg = f"a value of type {type_name(value)} cannot be converted to JSON"
    if isinstance(value, PART_TYPES):
        msg += (
            "; a content part goes beside the data, not inside it: return "
            "ToolResult.ok(text, content=[...], structured=data), or a list of strings and parts"
        )
    raise TypeError(msg)


def encode(data: Any) -> str:
    """Compact JSON text of data that `to_jsonable` made (nothing left to convert).

    An int, `True`, `False` and None are written as the `json` module writes
    them (`int.__repr__`, `true`, `false`, `null`), without building its
    encoder's state for one token.
    """
    kind = type(data)
    if kind is int:
        return int.__repr__(data)
    if kind is bool or data is None:
        return _LITERALS[data]
    return _encoder().encode(data)  # type: ignore[no-any-return]


_LITERALS: Final = {True: "true", False: "false", None: "null"}


def _key(key: Any, *, loose: bool = False) -> str:
    if type(key) is str:
        return key
    if isinstance(key, enum.Enum):
        return _key(key.value, loose=loose)
    if isinstance(key, str):
        return str.__str__(key)
    if isinstance(key, (int, float, bool)) or key is None:
        if loose and isinstance(key, float) and not math.isfinite(key):
            return str(float.__float__(key))
        return str(_encoder().encode(key))
    if loose:
        return _text_of(key)
    msg = f"a dict key of type {type_name(key)} cannot be a JSON object key"
    raise TypeError(msg)


def _text_of(value: Any) -> str:
    """`str(value)` as a plain `str` (a leaf JSON cannot hold, sent as text).

    Raises:
        Exception: The value's own `__str__` failed.
    """
    text = str(value)
    return text if type(text) is str else str.__str__(text)


def _sorted_if_possible(items: list[Any]) -> list[Any]:
    try:
        return sorted(items)
    except TypeError:
        import json

        return sorted(items, key=lambda item: json.dumps(item, sort_keys=True))


_QUALNAME: Final = type.__dict__["__qualname__"]


def type_name(value: object) -> str:
    """The qualified name of `value`'s class, read so that no code of the value runs."""
    return str(_QUALNAME.__get__(type(value)))


def refers_to_itself(value: Any) -> bool:
    """Whether `value` holds itself within `MAX_DEPTH` levels (asked after `TooDeep`).

    Walks the containers that `to_jsonable` walks, in the same order, depth
    first, so the path that ran too deep is the one examined. Gives up (False)
    after `_SEARCH_LIMIT` containers, or when reading a container fails.
    """
    on_path: set[int] = set()
    stack: list[tuple[int, Iterator[Any]]] = []
    visited = 0
    node = value
    try:
        while True:
            children = _children(node)
            if children is not None:
                if id(node) in on_path:
                    return True
                visited += 1
                if visited > _SEARCH_LIMIT or len(stack) > MAX_DEPTH:
                    return False
                on_path.add(id(node))
                stack.append((id(node), children))
            while stack:  # on to the next item of the deepest unfinished container
                node = next(stack[-1][1], _END)
                if node is not _END:
                    break
                on_path.discard(stack.pop()[0])
            else:
                return False
    except KeyboardInterrupt:
        raise
    except BaseException:  # a container that cannot be read shows no cycle
        return False


_END: Final = object()


def _children(value: Any) -> Iterator[Any] | None:
    """The items `to_jsonable` would convert inside `value`, or None for a leaf."""
    if type(value) in _EXACT or isinstance(value, (str, int, float, enum.Enum)):
        return None
    if isinstance(value, Mapping):
        return iter(list(value.values()))
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return iter(list(value._asdict().values()))
    if isinstance(value, (list, tuple, set, frozenset)):
        return iter(list(value))
    if hasattr(type(value), "__dataclass_fields__"):
        return iter([item for _, item in _fields(value)])
    return None


def json_equal(one: Any, two: Any) -> bool:
    """Equality as JSON Schema means it: `true` is not `1`, `1.0` is `1`.

    A value JSON has no type for (a Python caller's object) is equal only to
    itself, whatever its own `__eq__` says or raises. The comparison stops
    at the first difference, however big or deep the values.
    """
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
    if isinstance(one, (int, float)) and isinstance(two, (int, float)):
        return bool(one == two)
    return False  # null, or values JSON has no type for: equal only to themselves


def json_key(value: Any) -> Any:
    """A hashable form of `value`: two forms are equal when `json_equal` says the values are.

    Building it reads the whole value, where `json_equal` stops at the
    first difference; in return, one set of these forms finds a repeat
    among many values in time linear in their size.
    """
    if value is True:
        return _TRUE
    if value is False:
        return _FALSE
    if value is None or isinstance(value, (str, int, float)):
        return value
    if isinstance(value, (list, tuple)):
        return tuple(map(json_key, value))
    if isinstance(value, dict):
        return frozenset((json_key(key), json_key(item)) for key, item in value.items())
    return Foreign(value)


# `true` and `false` in a hashable form, apart from `1` and `0`.
_TRUE: Final = object()
_FALSE: Final = object()


class Foreign:
    """A value JSON has no type for (from a Python caller), safe to compare and show.

    It is equal only to itself, like the value under toolkit's checks, and
    its repr never runs the value's own code, which may raise.
    """

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Foreign) and other.value is self.value

    def __hash__(self) -> int:
        return id(self.value)

    def __repr__(self) -> str:
        return f"<{type(self.value).__name__}>"


def ref_target(root: Any, ref: str) -> Any:
    """The part of `root` that a local `$ref` (`#/$defs/X`, a JSON Pointer) names.

    Raises:
        LookupError: `ref` is not local, or names nothing inside `root`.
    """
    if not ref.startswith("#"):
        raise LookupError(ref)
    target = root
    pointer = ref[1:]
    if "%" in pointer:  # a URI fragment may be percent-encoded
        import urllib.parse

        pointer = urllib.parse.unquote(pointer)
    for part in pointer.split("/")[1:]:
        key = part.replace("~1", "/").replace("~0", "~")
        if isinstance(target, dict) and key in target:
            target = target[key]
        elif isinstance(target, list) and key.isdigit() and int(key) < len(target):
            target = target[int(key)]
        else:
            raise LookupError(ref)
    return target
