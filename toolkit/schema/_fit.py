"""Whether a value fits a type node: one walk over the nodes, for JSON values and Python values.

`matches(node, value)` asks it of a JSON value: which member of a union an
argument is converted to (the first it fits), and whether `null` is a value
of a type. `fits(value, node)` asks it of a Python value: whether a
parameter's default is a value of its annotation. The two differ only where
JSON and Python spell a value differently (a tuple is a JSON array, a date
is text, an Enum member is its value), and each kind of node says how in one
place. The schema-compiled check (`_checker.py`) answers the same question
for a JSON Schema that no annotation stands behind (`Tool.new`, remote tools).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any

from toolkit.hints import _nodes as nodes
from toolkit.values._json import is_number, json_equal
from toolkit.values._scalars import scalar, stdlib_scalars

__all__ = ["fits", "matches"]

_NONE_TYPE = type(None)


def matches(node: nodes.TypeNode, value: Any) -> bool:
    """Whether a JSON value has the shape of `node`."""
    return _fit(node, value, json=True)


def fits(value: Any, node: nodes.TypeNode) -> bool:
    """Whether a Python value (a default) is a value of the type `node`."""
    return _fit(node, value, json=False)


def _fit(node: nodes.TypeNode, value: Any, *, json: bool) -> bool:  # one line per kind
    if isinstance(node, nodes.AnyType):
        return True
    if isinstance(node, nodes.ScalarType):
        return _json_scalar(node.py, value) if json else _python_scalar(node.py, value)
    if isinstance(node, nodes.LiteralType):
        members = node.values if json else (*node.members, *node.values)
        return any(_equal(value, member, json=json) for member in members)
    if isinstance(node, nodes.EnumType):
        return (not json and isinstance(value, node.cls)) or any(
            _equal(value, member.value, json=json) for member in node.cls
        )
    if isinstance(node, nodes.UnionType):
        return _fits_one_of(node.members, value, json=json)
    if isinstance(node, (nodes.ArrayType, nodes.TupleType, nodes.MapType)):
        return _fit_container(node, value, json=json)
    if isinstance(node, nodes.ObjectType):
        if json:
            return _json_object(node, value)
        return isinstance(value, Mapping if node.kind == "typeddict" else node.cls)
    if isinstance(node, nodes.ModelType):
        return isinstance(value, dict if json else node.cls)
    return False


def _fits_one_of(
    members: tuple[nodes.TypeNode, ...], value: Any, *, json: bool
) -> bool:
    """Whether `value` fits one of a union's `members`, tried in order."""
    for member in members:  # noqa: SIM110  # no generator for each `X | None` default
        if _fit(member, value, json=json):
            return True
    return False


def _fit_container(
    node: nodes.ArrayType | nodes.TupleType | nodes.MapType, value: Any, *, json: bool
) -> bool:
    if isinstance(node, nodes.ArrayType):
        return isinstance(
            value, list if json else (list, tuple, set, frozenset)
        ) and all(_fit(node.item, item, json=json) for item in value)
    if isinstance(node, nodes.TupleType):
        return (
            isinstance(value, list if json else (list, tuple))
            and len(value) == len(node.items)
            and all(
                _fit(item, element, json=json)
                for item, element in zip(node.items, value, strict=False)
            )
        )
    if json:  # JSON object keys are text: only the values can miss
        return isinstance(value, dict) and all(
            _fit(node.value, item, json=True) for item in value.values()
        )
    return isinstance(value, Mapping) and all(
        _fit(node.key, key, json=False) and _fit(node.value, item, json=False)
        for key, item in value.items()
    )


def _json_object(node: nodes.ObjectType, value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    fields = {item.key: item for item in node.fields}
    if any(key not in fields for key in value):
        return False
    return all(
        (item.key in value and _fit(item.node, value[item.key], json=True))
        or (not item.required and item.key not in value)
        for item in node.fields
    )


def _equal(value: Any, member: Any, *, json: bool) -> bool:
    """JSON equality for JSON values; for Python values, the same type and equal."""
    if json:
        return json_equal(value, member)
    return type(value) is type(member) and value == member


def _json_scalar(py: type, value: Any) -> bool:
    if py is str:
        return isinstance(value, str)
    if py is bool:
        return value is True or value is False
    if py is int:  # any int (no float holds a 5,001-digit one), or a whole float
        return is_number(value) and (isinstance(value, int) or value.is_integer())
    if py is float:
        return is_number(value)
    if py is _NONE_TYPE:
        return value is None
    if py.__name__ == "Decimal" and py in stdlib_scalars():
        return isinstance(value, (int, float, str)) and not isinstance(value, bool)
    if not isinstance(value, str):
        return False
    parse = scalar(py).parse
    if parse is None:
        return False
    try:
        parse(value)
    except (ValueError, TypeError):
        return False
    return True


def _python_scalar(py: type, value: Any) -> bool:
    if py is float:
        return type(value) in (int, float)
    if py in (int, bool, str):
        return type(value) is py or (
            isinstance(value, py) and not isinstance(value, (bool, enum.Enum))
        )
    if py is _NONE_TYPE:
        return value is None
    return isinstance(value, py)
