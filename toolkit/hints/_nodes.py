"""The type nodes: what `_annotations` turns annotations into, and every back-end reads.

A node is a normalised type: a scalar, a literal, an Enum, an array, a
tuple, a map, a union, an object (TypedDict, dataclass, NamedTuple) or a
pydantic model, with the `Param` metadata attached to it. Schema emission,
default checks and argument conversion each walk nodes, never raw
annotations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, Literal

if TYPE_CHECKING:
    import enum
    from collections.abc import Callable

    from ._param import Param

__all__ = [
    "MAX_DEPTH",
    "MISSING",
    "AnyType",
    "ArrayType",
    "EnumType",
    "Field",
    "LiteralType",
    "MapType",
    "ModelType",
    "ObjectType",
    "ScalarType",
    "TupleType",
    "TypeNode",
    "UnionType",
]


MAX_DEPTH: Final = 32
"""How many levels of types may nest in one annotation (`list[list[int]]` has 3).

Translation, schema emission, conversion and the exports all recurse once
or more per level, so a bound keeps them far from Python's recursion limit
(1,000 frames, shared with the caller); real tool types nest a few levels.
Recursive types count once: they end in a `$ref`.
"""


class _Missing:
    """The type of `MISSING`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


MISSING: Final = _Missing()


class TypeNode:
    """A normalised type. `meta` holds the `Param` metadata attached to it.

    Nodes are plain slotted classes, not dataclasses: there are a dozen of
    them, and making each a dataclass would cost `import toolkit` several
    milliseconds. They compare by identity.
    """

    __slots__ = ("height", "meta", "schema")

    def __init__(self, *, meta: Param | None = None, height: int = 1) -> None:
        self.meta = meta
        self.schema: Any = (
            None  # the node's JSON Schema, kept by SchemaBuilder when it has no $ref
        )
        self.height = height
        """Levels of types in this one, itself included; every walker recurses this deep."""

    def with_meta(self, meta: Param) -> TypeNode:
        """A copy of this node carrying `meta` (named types share their fields list)."""
        clone = object.__new__(type(self))
        for name in _all_slots(type(self)):
            setattr(clone, name, getattr(self, name))
        clone.meta = meta
        clone.schema = None
        return clone

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={getattr(self, name)!r}"
            for name in _all_slots(type(self))
            if name not in ("fields", "schema", "height")
        )
        return f"{type(self).__name__}({shown})"


def _all_slots(cls: type) -> tuple[str, ...]:
    found = _SLOTS.get(cls)
    if found is None:
        found = _SLOTS[cls] = tuple(
            name
            for klass in reversed(cls.__mro__)
            for name in getattr(klass, "__slots__", ())
        )
    return found


_SLOTS: dict[type, tuple[str, ...]] = {}


def _above(children: tuple[TypeNode, ...] | list[TypeNode]) -> int:
    """The height of a node over `children`."""
    return 1 + max((child.height for child in children), default=0)


class AnyType(TypeNode):
    """Any JSON value (`Any`, `object`, no annotation)."""

    __slots__ = ()


class ScalarType(TypeNode):
    """A scalar: str, int, float, bool, None, or a string-encoded type (datetime, UUID, ...)."""

    __slots__ = ("py",)

    def __init__(self, *, py: type, meta: Param | None = None) -> None:
        super().__init__(meta=meta)
        self.py = py


class LiteralType(TypeNode):
    """`Literal[...]`: a closed set of JSON values (Enum members already turned into values)."""

    __slots__ = ("members", "values")

    def __init__(
        self,
        *,
        values: tuple[Any, ...],
        members: tuple[Any, ...],
        meta: Param | None = None,
    ) -> None:
        super().__init__(meta=meta)
        self.values = values
        self.members = members


class EnumType(TypeNode):
    """An `Enum` subclass; the model sends member values."""

    __slots__ = ("cls", "description")

    def __init__(
        self, *, cls: type[enum.Enum], description: str, meta: Param | None = None
    ) -> None:
        super().__init__(meta=meta)
        self.cls = cls
        self.description = description


class ArrayType(TypeNode):
    """A homogeneous array; `container` is the Python type to build (list, set, frozenset, tuple)."""

    __slots__ = ("container", "item")

    def __init__(
        self, *, item: TypeNode, container: type, meta: Param | None = None
    ) -> None:
        super().__init__(meta=meta, height=item.height + 1)
        self.item = item
        self.container = container


class TupleType(TypeNode):
    """A fixed-length tuple: `tuple[X, Y]`."""

    __slots__ = ("items",)

    def __init__(
        self, *, items: tuple[TypeNode, ...], meta: Param | None = None
    ) -> None:
        super().__init__(meta=meta, height=_above(items))
        self.items = items


class MapType(TypeNode):
    """A mapping with string keys: `dict[str, X]`."""

    __slots__ = ("key", "value")

    def __init__(
        self, *, key: TypeNode, value: TypeNode, meta: Param | None = None
    ) -> None:
        super().__init__(meta=meta, height=_above((key, value)))
        self.key = key
        self.value = value


class UnionType(TypeNode):
    """`X | Y | ...`, members in declaration order."""

    __slots__ = ("members",)

    def __init__(
        self, *, members: tuple[TypeNode, ...], meta: Param | None = None
    ) -> None:
        super().__init__(meta=meta, height=_above(members))
        self.members = members


class Field:
    """One field of an object type or one parameter of a function.

    `factory` makes the default for each call (pydantic's `default_factory`);
    `fill` says that the call must pass the default, since the function's
    own default is not it (`x: int = Field(1)`, `Annotated[int, Field(default=1)]`).
    `key` is the field's name in JSON (the schema, the arguments, the
    structured result): `name`, or the pydantic alias of an object's field
    (`Annotated[str, Field(alias="cityName")]`), as pydantic and the MCP SDK
    name it on the wire.
    """

    __slots__ = (
        "default",
        "description",
        "factory",
        "fill",
        "key",
        "name",
        "node",
        "required",
    )

    def __init__(
        self,
        *,
        name: str,
        node: TypeNode,
        required: bool,
        default: Any = MISSING,
        description: str | None = None,
        factory: Callable[[], Any] | None = None,
        fill: bool = False,
        key: str | None = None,
    ) -> None:
        self.name = name
        self.key = name if key is None else key
        self.node = node
        self.required = required
        self.default = default
        self.description = description
        self.factory = factory
        self.fill = fill

    def __repr__(self) -> str:
        return (
            f"Field(name={self.name!r}, node={self.node!r}, required={self.required!r})"
        )


class ObjectType(TypeNode):
    """A TypedDict, dataclass or NamedTuple. `fields` is filled after caching, for recursion."""

    __slots__ = ("cls", "description", "fields", "kind")

    def __init__(
        self,
        *,
        cls: type,
        kind: Literal["typeddict", "dataclass", "namedtuple"],
        description: str,
        meta: Param | None = None,
    ) -> None:
        super().__init__(meta=meta)
        self.cls = cls
        self.kind = kind
        self.description = description
        self.fields: list[Field] = []

    def set_fields(self, fields: list[Field]) -> None:
        """Fill in the fields (read after the node was cached, for recursion)."""
        self.fields.extend(fields)
        self.height = _above([item.node for item in fields])


class ModelType(TypeNode):
    """A pydantic `BaseModel` subclass; it brings its own schema and validation."""

    __slots__ = ("cls",)

    def __init__(self, *, cls: type, meta: Param | None = None) -> None:
        super().__init__(meta=meta)
        self.cls = cls
