"""Validated JSON → the Python values a tool function declared.

Converters are built once per tool from its type nodes. A node whose JSON
value is already the Python value (str, bool, None, a list of those, ...)
gets no converter at all, so the common call pays nothing. A union picks the
first member, in declaration order, whose shape the value has.

`null_stripper` serves OpenAI's strict mode, which makes every optional
property required but nullable: an explicit `null` for a parameter or field
that cannot be None in Python, but may be left out, is removed before
validation so that the Python default applies. `schema_null_stripper` does
the same for a `Tool.new` schema, which has no Python types.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from toolkit.core._aliases import JsonSchema
from toolkit.hints import _nodes as nodes
from toolkit.values._json import json_equal
from toolkit.values._scalars import scalar

from ._fit import matches

__all__ = ["Converter", "Converters", "null_stripper", "schema_null_stripper"]

Converter = Callable[[Any], Any]


class Converters:
    """Builds converters for nodes, sharing one per named type (recursion included)."""

    def __init__(self) -> None:
        self._named: dict[int, Converter | None] = {}

    def for_node(self, node: nodes.TypeNode) -> Converter | None:  # one line per kind
        """The converter of `node`, or None when its JSON value is already right."""
        if isinstance(node, nodes.ScalarType):
            return scalar(node.py).parse
        if isinstance(node, nodes.LiteralType):
            return _literal(node)
        if isinstance(node, nodes.EnumType):
            return node.cls
        if isinstance(node, nodes.ArrayType):
            return self._array(node)
        if isinstance(node, nodes.TupleType):
            return self._tuple(node)
        if isinstance(node, nodes.MapType):
            return self._map(node)
        if isinstance(node, nodes.UnionType):
            return self._union(node)
        if isinstance(node, nodes.ObjectType):
            return self._object(node)
        if isinstance(node, nodes.ModelType):
            return node.cls.model_validate  # type: ignore[attr-defined, no-any-return]
        return None

    def fields(
        self, fields: tuple[nodes.Field, ...] | list[nodes.Field]
    ) -> list[tuple[str, Converter]]:
        """(JSON key, converter) for each field that needs one."""
        return [
            (item.key, conv)
            for item in fields
            if (conv := self.for_node(item.node)) is not None
        ]

    def _array(self, node: nodes.ArrayType) -> Converter | None:
        item, container = self.for_node(node.item), node.container
        if item is None:
            return None if container is list else container
        if container is list:
            return lambda value: [item(element) for element in value]
        return lambda value: container(item(element) for element in value)

    def _tuple(self, node: nodes.TupleType) -> Converter:
        items = [self.for_node(item) or _same for item in node.items]
        return lambda value: tuple(
            convert(element) for convert, element in zip(items, value, strict=False)
        )

    def _map(self, node: nodes.MapType) -> Converter | None:
        key, item = self.for_node(node.key), self.for_node(node.value)
        if key is None and item is None:
            return None
        key, item = key or _same, item or _same
        return lambda value: {
            key(name): item(element) for name, element in value.items()
        }

    def _union(self, node: nodes.UnionType) -> Converter | None:
        members = [(member, self.for_node(member)) for member in node.members]
        if all(convert is None for _, convert in members):
            return None

        def convert(value: Any) -> Any:
            for member, own in members:
                if matches(member, value):
                    return own(value) if own is not None else value
            raise ValueError(_no_member(members, value))

        return convert

    def _object(self, node: nodes.ObjectType) -> Converter | None:
        return _once_per_type(
            self._named,
            node,
            lambda: _build_object(node, self.fields(node.fields), renamed(node, False)),
        )


def _no_member(
    members: list[tuple[nodes.TypeNode, Converter | None]], value: Any
) -> str:
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
    node: nodes.ObjectType,
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


def _literal(node: nodes.LiteralType) -> Converter | None:
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


def _build_object(
    node: nodes.ObjectType,
    plan: list[tuple[str, Converter]],
    keys: dict[str, str],
) -> Converter:
    """The converter of an object's JSON: each field converted, keyed by its Python name."""
    cls = node.cls
    fields = _object_fields(plan, keys)
    if node.kind == "typeddict":
        return fields
    return lambda value: cls(**fields(value))


def _object_fields(
    plan: list[tuple[str, Converter]], keys: dict[str, str]
) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """An object's converter: the `plan`'s keys' values converted, then the `keys` renamed."""

    def fields(value: dict[str, Any]) -> dict[str, Any]:
        if not plan and not keys:
            return value
        converted = dict(value)
        for key, convert in plan:
            if key in converted:
                converted[key] = convert(converted[key])
        if keys:
            converted = {keys.get(key, key): item for key, item in converted.items()}
        return converted

    return fields


def renamed(node: nodes.ObjectType, to_json: bool) -> dict[str, str]:
    """The fields of an object whose JSON key is not their Python name: name → key, or key → name."""
    return {
        (item.name if to_json else item.key): (item.key if to_json else item.name)
        for item in node.fields
        if item.key != item.name
    }


def key_renamer(node: nodes.TypeNode) -> Converter | None:
    """JSON data of a returned value → the same with each aliased field under its JSON key.

    None when no object inside `node` has a field whose JSON key is not its
    name. A union's value takes the first member whose renamed shape it has.
    """
    return _Renamers().for_node(node)


class _Renamers:
    def __init__(self) -> None:
        self._named: dict[int, Converter | None] = {}

    def for_node(self, node: nodes.TypeNode) -> Converter | None:
        if isinstance(node, nodes.ObjectType):
            return _once_per_type(self._named, node, lambda: self._object(node))
        if isinstance(node, nodes.ArrayType):
            item = self.for_node(node.item)
            return None if item is None else _each(lambda value: map(item, value))
        if isinstance(node, nodes.TupleType):
            items = [self.for_node(item) for item in node.items]
            if not any(items):
                return None
            return _each(
                lambda value: (
                    (own or _same)(element)
                    for own, element in zip(items, value, strict=False)
                )
            )
        if isinstance(node, nodes.MapType):
            inner_value = self.for_node(node.value)
            if inner_value is None:
                return None
            return lambda value: (
                {key: inner_value(item) for key, item in value.items()}
                if isinstance(value, dict)
                else value
            )
        if isinstance(node, nodes.UnionType):
            return self._union(node)
        return None

    def _union(self, node: nodes.UnionType) -> Converter | None:
        members = [
            (member, own)
            for member in node.members
            if (own := self.for_node(member)) is not None
        ]
        if not members:
            return None

        def rename(value: Any) -> Any:
            for member, own in members:
                renamed_value = own(value)
                if matches(member, renamed_value):
                    return renamed_value
            return value

        return rename

    def _object(self, node: nodes.ObjectType) -> Converter | None:
        keys = renamed(node, True)
        inner = [
            (item.name, own)
            for item in node.fields
            if (own := self.for_node(item.node)) is not None
        ]
        if not keys and not inner:
            return None
        fields = _object_fields(inner, keys)
        return lambda value: fields(value) if isinstance(value, dict) else value


def _each(items: Callable[[list[Any]], Any]) -> Converter:
    """The renamer of a JSON array, from the renamed items of a list."""
    return lambda value: list(items(value)) if isinstance(value, list) else value


# ---------------------------------------------------------------- nulls


def null_stripper(
    fields: tuple[nodes.Field, ...] | list[nodes.Field],
) -> Callable[[dict[str, Any]], dict[str, Any]] | None:
    """Drop `null` for fields that may be left out but cannot be None (OpenAI strict mode)."""
    return _Strippers().for_fields(fields)


def schema_null_stripper(
    parameters: JsonSchema,
) -> Callable[[dict[str, Any]], dict[str, Any]] | None:
    """For a `Tool.new` schema: drop `null` for optional properties that do not accept it.

    A strict export makes every optional property nullable; `null` then
    means "not given".
    """
    from ._checker import property_checks

    required = set(parameters.get("required", ()))
    droppable = frozenset(
        name
        for name, check in property_checks(parameters).items()
        if name not in required and not check(None)
    )
    if not droppable:
        return None
    return lambda args: _without_nulls(args, droppable)


def _without_nulls(value: dict[str, Any], droppable: frozenset[str]) -> dict[str, Any]:
    """`value` less the `null`s of the `droppable` keys (the same dict when it has none)."""
    if any(value.get(name, 0) is None for name in droppable):
        return {
            name: item
            for name, item in value.items()
            if not (item is None and name in droppable)
        }
    return value


class _Strippers:
    def __init__(self) -> None:
        self._named: dict[int, Converter | None] = {}

    def for_fields(
        self, fields: tuple[nodes.Field, ...] | list[nodes.Field]
    ) -> Callable[[dict[str, Any]], dict[str, Any]] | None:
        droppable = frozenset(
            item.key
            for item in fields
            if not item.required and not matches(item.node, None)
        )
        nested = [
            (item.key, stripper)
            for item in fields
            if (stripper := self.for_node(item.node)) is not None
        ]
        if not droppable and not nested:
            return None

        def strip(value: dict[str, Any]) -> dict[str, Any]:
            if not isinstance(value, dict):
                return value
            if droppable:
                value = _without_nulls(value, droppable)
            for name, stripper in nested:
                if name in value:
                    value = {**value, name: stripper(value[name])}
            return value

        return strip

    def for_node(self, node: nodes.TypeNode) -> Converter | None:
        if isinstance(node, nodes.ObjectType):
            return _once_per_type(
                self._named, node, lambda: self.for_fields(node.fields)
            )
        if isinstance(node, nodes.ArrayType):
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
        if isinstance(node, nodes.UnionType):
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
