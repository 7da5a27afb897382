"""Validated JSON → the Python values a tool function declared.

Converters are built once per tool from its type nodes. A node whose JSON
value is already the Python value (str, bool, None, a list of those, ...)
gets no converter at all, so the common call pays nothing. A union picks the
first member, in declaration order, whose shape the value has.

`null_stripper` serves OpenAI's strict mode, which makes every optional
property required but nullable: an explicit `null` for a parameter or field
that cannot be None in Python, but may be left out, is removed before
validation so that the Python default applies.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from ._formats import (
    parse_date,
    parse_date_time,
    parse_duration,
    parse_time,
    parse_uuid,
)
from ._nodes import (
    AnyType,
    ArrayType,
    EnumType,
    Field,
    LiteralType,
    MapType,
    ModelType,
    ObjectType,
    ScalarType,
    TupleType,
    TypeNode,
    UnionType,
)
from ._typing import stdlib_scalars
from ._validation import json_equal

__all__ = ["Converter", "Converters", "null_stripper", "to_float", "to_int"]

Converter = Callable[[Any], Any]


def to_int(value: Any) -> Any:
    return int(value) if isinstance(value, float) else value


def to_float(value: Any) -> Any:
    return float(value) if isinstance(value, int) else value


def _to_decimal(value: Any) -> Any:
    import decimal

    return decimal.Decimal(value if isinstance(value, str) else repr(value))


def _to_bytes(value: str) -> bytes:
    import base64

    try:
        return base64.b64decode(value, validate=True)
    except ValueError:
        shown = value if len(value) <= 40 else value[:37] + "..."
        msg = f"{shown!r} is not valid base64"
        raise ValueError(msg) from None


_SCALARS: Final[dict[type, Converter]] = {
    int: to_int,
    float: to_float,
    bytes: _to_bytes,
}


def _scalar_converter(py: type) -> Converter | None:
    """The converter of a scalar type; the stdlib ones are added on first use."""
    if py not in _SCALARS and py in stdlib_scalars():
        _SCALARS.update(_stdlib_converters())
    return _SCALARS.get(py)


def _stdlib_converters() -> dict[type, Converter]:
    import datetime
    import decimal
    import pathlib
    import uuid

    table: dict[type, Converter] = {
        datetime.datetime: parse_date_time,
        datetime.date: parse_date,
        datetime.time: parse_time,
        datetime.timedelta: parse_duration,
        uuid.UUID: parse_uuid,
        decimal.Decimal: _to_decimal,
    }
    for path in (
        pathlib.Path,
        pathlib.PurePath,
        pathlib.PosixPath,
        pathlib.PurePosixPath,
        pathlib.WindowsPath,
        pathlib.PureWindowsPath,
    ):
        table[path] = path
    return table


class Converters:
    """Builds converters for nodes, sharing one per named type (recursion included)."""

    def __init__(self) -> None:
        self._named: dict[int, Converter | None] = {}

    def for_node(self, node: TypeNode) -> Converter | None:  # one line per kind
        """The converter of `node`, or None when its JSON value is already right."""
        if isinstance(node, ScalarType):
            return _scalar_converter(node.py)
        if isinstance(node, LiteralType):
            return _literal(node)
        if isinstance(node, EnumType):
            return node.cls
        if isinstance(node, ArrayType):
            return self._array(node)
        if isinstance(node, TupleType):
            return self._tuple(node)
        if isinstance(node, MapType):
            return self._map(node)
        if isinstance(node, UnionType):
            return self._union(node)
        if isinstance(node, ObjectType):
            return self._object(node)
        if isinstance(node, ModelType):
            return node.cls.model_validate  # type: ignore[attr-defined, no-any-return]
        return None

    def fields(
        self, fields: tuple[Field, ...] | list[Field]
    ) -> list[tuple[str, Converter]]:
        """(name, converter) for each field that needs one."""
        return [
            (item.name, conv)
            for item in fields
            if (conv := self.for_node(item.node)) is not None
        ]

    def _array(self, node: ArrayType) -> Converter | None:
        item, container = self.for_node(node.item), node.container
        if item is None:
            return None if container is list else container
        if container is list:
            return lambda value: [item(element) for element in value]
        return lambda value: container(item(element) for element in value)

    def _tuple(self, node: TupleType) -> Converter:
        items = [self.for_node(item) or _same for item in node.items]
        return lambda value: tuple(
            convert(element) for convert, element in zip(items, value, strict=False)
        )

    def _map(self, node: MapType) -> Converter | None:
        key, item = self.for_node(node.key), self.for_node(node.value)
        if key is None and item is None:
            return None
        key, item = key or _same, item or _same
        return lambda value: {
            key(name): item(element) for name, element in value.items()
        }

    def _union(self, node: UnionType) -> Converter | None:
        members = [(member, self.for_node(member)) for member in node.members]
        if all(convert is None for _, convert in members):
            return None

        def convert(value: Any) -> Any:
            for member, own in members:
                if matches(member, value):
                    return own(value) if own is not None else value
            raise ValueError(_no_member(members, value))

        return convert

    def _object(self, node: ObjectType) -> Converter | None:
        return _once_per_type(
            self._named, node, lambda: _build_object(node, self.fields(node.fields))
        )


def _no_member(members: list[tuple[TypeNode, Converter | None]], value: Any) -> str:
    """Why a value that has the union's JSON shape is none of its members.

    It is a string that a converting member cannot read (text that is not
    base64 for `bytes | None`): that member's own reason says what is wrong.
    """
    for _, own in members:
        if own is None:
            continue
        try:
            own(value)
        except (ValueError, TypeError, ArithmeticError) as error:
            text = str(error).strip()
            if text:
                return text.splitlines()[0]
    return f"{type(value).__name__} value fits none of the union's types"


def _once_per_type(
    named: dict[int, Converter | None],
    node: ObjectType,
    build: Callable[[], Converter | None],
) -> Converter | None:
    """The one function built for a named type, recursive references included.

    While it is built, a reference back to the type gets a stand-in that
    calls the finished function; if `build` finds nothing to do (None), the
    stand-in passes values through and later uses get None.
    """
    key = id(node.cls)
    if key in named:
        return named[key]
    holder: list[Converter] = []
    named[key] = lambda value: holder[0](value)
    built = build()
    holder.append(built or _same)
    if built is None:
        named[key] = None
    return named[key]


def _same(value: Any) -> Any:
    return value


def _literal(node: LiteralType) -> Converter | None:
    if node.members == node.values and all(
        isinstance(value, (str, bool)) or value is None for value in node.values
    ):
        return None
    pairs = list(zip(node.values, node.members, strict=True))

    def convert(value: Any) -> Any:
        for json_value, member in pairs:
            if json_equal(value, json_value):
                return member
        return value

    return convert


def _build_object(node: ObjectType, plan: list[tuple[str, Converter]]) -> Converter:
    cls = node.cls

    def fields(value: dict[str, Any]) -> dict[str, Any]:
        if not plan:
            return value
        converted = dict(value)
        for name, convert in plan:
            if name in converted:
                converted[name] = convert(converted[name])
        return converted

    if node.kind == "typeddict":
        return fields
    return lambda value: cls(**fields(value))


# ------------------------------------------------------------------ matching


def matches(node: TypeNode, value: Any) -> bool:  # one line per kind
    """Whether a JSON value has the shape of `node` (used to pick a union member)."""
    if isinstance(node, AnyType):
        return True
    if isinstance(node, ScalarType):
        return _matches_scalar(node.py, value)
    if isinstance(node, LiteralType):
        return any(json_equal(value, member) for member in node.values)
    if isinstance(node, EnumType):
        return any(json_equal(value, member.value) for member in node.cls)
    if isinstance(node, UnionType):
        return any(matches(member, value) for member in node.members)
    if isinstance(node, ArrayType):
        return isinstance(value, list) and all(
            matches(node.item, item) for item in value
        )
    if isinstance(node, TupleType):
        return (
            isinstance(value, list)
            and len(value) == len(node.items)
            and all(map(matches, node.items, value))
        )
    if isinstance(node, MapType):
        return isinstance(value, dict) and all(
            matches(node.value, item) for item in value.values()
        )
    if isinstance(node, ObjectType):
        return _matches_object(node, value)
    return isinstance(value, dict)  # a pydantic model


def _matches_scalar(py: type, value: Any) -> bool:
    if py is str:
        return isinstance(value, str)
    if py is bool:
        return value is True or value is False
    if py is int:
        return (
            isinstance(value, (int, float))
            and not isinstance(value, bool)
            and float(value).is_integer()
        )
    if py is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if py is type(None):
        return value is None
    if py.__name__ == "Decimal" and py in stdlib_scalars():
        return isinstance(value, (int, float, str)) and not isinstance(value, bool)
    if not isinstance(value, str):
        return False
    convert = _scalar_converter(py)
    if convert is None:
        return False
    try:
        convert(value)
    except (ValueError, TypeError):
        return False
    return True


def _matches_object(node: ObjectType, value: Any) -> bool:
    if not isinstance(value, dict):
        return False
    fields = {item.name: item for item in node.fields}
    if any(name not in fields for name in value):
        return False
    return all(
        (item.name in value and matches(item.node, value[item.name]))
        or (not item.required and item.name not in value)
        for item in node.fields
    )


# ---------------------------------------------------------------- nulls


def accepts_null(node: TypeNode) -> bool:
    """Whether None is a value of `node`."""
    if isinstance(node, AnyType):
        return True
    if isinstance(node, ScalarType):
        return node.py is type(None)
    if isinstance(node, LiteralType):
        return None in node.values
    if isinstance(node, UnionType):
        return any(accepts_null(member) for member in node.members)
    return False


def null_stripper(
    fields: tuple[Field, ...] | list[Field],
) -> Callable[[dict[str, Any]], dict[str, Any]] | None:
    """Drop `null` for fields that may be left out but cannot be None (OpenAI strict mode)."""
    return _Strippers().for_fields(fields)


class _Strippers:
    def __init__(self) -> None:
        self._named: dict[int, Converter | None] = {}

    def for_fields(
        self, fields: tuple[Field, ...] | list[Field]
    ) -> Callable[[dict[str, Any]], dict[str, Any]] | None:
        droppable = frozenset(
            item.name
            for item in fields
            if not item.required and not accepts_null(item.node)
        )
        nested = [
            (item.name, stripper)
            for item in fields
            if (stripper := self.for_node(item.node)) is not None
        ]
        if not droppable and not nested:
            return None

        def strip(value: dict[str, Any]) -> dict[str, Any]:
            if not isinstance(value, dict):
                return value
            if droppable and any(value.get(name, 0) is None for name in droppable):
                value = {
                    name: item
                    for name, item in value.items()
                    if not (item is None and name in droppable)
                }
            for name, stripper in nested:
                if name in value:
                    value = {**value, name: stripper(value[name])}
            return value

        return strip

    def for_node(self, node: TypeNode) -> Converter | None:
        if isinstance(node, ObjectType):
            return _once_per_type(
                self._named, node, lambda: self.for_fields(node.fields)
            )
        if isinstance(node, ArrayType):
            inner = self.for_node(node.item)
            return (
                None
                if inner is None
                else (
                    lambda value: (
                        [inner(item) for item in value]
                        if isinstance(value, list)
                        else value
                    )
                )
            )
        if isinstance(node, UnionType):
            inner_all = [
                stripper
                for member in node.members
                if (stripper := self.for_node(member)) is not None
            ]
            if len(inner_all) != 1:
                return None
            only = inner_all[0]
            return lambda value: only(value) if isinstance(value, dict) else value
        return None
