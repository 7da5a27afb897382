"""Type annotations → a small tree of type nodes.

Two phases, as in msgspec: `unwrap` strips every wrapper (`Annotated`,
`NewType`, `type X = ...` aliases, `Required`/`NotRequired`/`ReadOnly`/`Final`)
and collects `Param` metadata; `Translator.translate` then dispatches on the
bare type with a flat chain and builds a node. Schema generation, default
checks and argument conversion each walk the nodes, never raw annotations.
Named types (Enum, TypedDict, dataclass, NamedTuple, pydantic model) are
cached before their fields are read, so recursive types end in a cycle of
nodes rather than in infinite recursion.
"""

from __future__ import annotations

import collections.abc
import enum
import sys
import types
import typing
from typing import Any, Final, Literal, TypeVar, Union

from toolkit.core._exceptions import ToolDefinitionError
from toolkit.values._scalars import among, is_scalar

from . import _nodes as nodes
from ._docstrings import parse_docstring
from ._keys import order_key
from ._nodes import MAX_DEPTH
from ._param import Param, merge_metadata

__all__ = [
    "MAX_DEPTH",
    "TooDeepError",
    "Translator",
    "describe",
    "is_context_type",
    "is_model_class",
    "unwrap",
]


T = TypeVar("T")

_NONE_TYPE: Final = type(None)

_ARRAYS: Final[dict[Any, type]] = {
    list: list,
    set: set,
    frozenset: frozenset,
    collections.abc.Sequence: list,
    collections.abc.MutableSequence: list,
    collections.abc.Collection: list,
    collections.abc.Iterable: list,
    collections.abc.Set: frozenset,
    collections.abc.MutableSet: set,
}
_ARRAYS.update(
    {
        typing.List: list,  # noqa: UP006  # bare aliases are still annotations people write
        typing.Set: set,  # noqa: UP006
        typing.FrozenSet: frozenset,  # noqa: UP006
        typing.Sequence: list,
        typing.MutableSequence: list,
        typing.Collection: list,
        typing.Iterable: list,
        typing.AbstractSet: frozenset,
        typing.MutableSet: set,
    }
)
_MAPS: Final[frozenset[Any]] = frozenset(
    {
        dict,
        collections.abc.Mapping,
        collections.abc.MutableMapping,
        typing.Dict,  # noqa: UP006
        typing.Mapping,
        typing.MutableMapping,
    }
)
_UNIONS: Final = (Union, types.UnionType)


class _Forms:
    """The special forms of `typing`, and of `typing_extensions` once anything imported it.

    toolkit does not import `typing_extensions` itself (it costs `import
    toolkit` some 13 ms); an annotation can only hold its forms if the user's
    code imported it, so the sets are widened when it appears in `sys.modules`.
    """

    def __init__(self) -> None:
        self.extensions: Any = None
        self._fill()

    def current(self) -> _Forms:
        if self.extensions is None and "typing_extensions" in sys.modules:
            self._fill()
        return self

    def _fill(self) -> None:
        extensions = self.extensions = sys.modules.get("typing_extensions")

        def forms(name: str) -> frozenset[Any]:
            found = (getattr(typing, name, None), getattr(extensions, name, None))
            return frozenset(form for form in found if form is not None)

        self.required = forms("Required")
        self.not_required = forms("NotRequired")
        self.qualifiers = (
            self.required
            | self.not_required
            | forms("ReadOnly")
            | {typing.ClassVar, typing.Final}
        )
        self.aliases = tuple(forms("TypeAliasType"))
        self.new_types = tuple(forms("NewType"))  # classes since Python 3.10
        self.literal_strings = forms("LiteralString")
        self.annotated = forms("Annotated")
        self.literals = forms("Literal")


_FORMS: Final = _Forms()


def get_hints(obj: Any) -> dict[str, Any]:
    """`get_type_hints(obj, include_extras=True)`, from `typing_extensions` when it is loaded."""
    extensions = _FORMS.current().extensions
    if extensions is not None:
        return extensions.get_type_hints(obj, include_extras=True)  # type: ignore[no-any-return]
    return typing.get_type_hints(obj, include_extras=True)


# ---------------------------------------------------------------- predicates


def is_context_type(tp: Any) -> bool:
    """Whether a type that `unwrap` returned is `Context`, `Context[...]` or `Context | None`."""
    origin = typing.get_origin(tp)
    if is_context_class(tp) or is_context_class(origin):
        return True
    if origin in _UNIONS:
        members = [arg for arg in typing.get_args(tp) if arg is not _NONE_TYPE]
        return len(members) == 1 and is_context_type(unwrap(members[0])[0])
    return False


def is_context_class(tp: Any) -> bool:
    """Whether `tp` is the `Context` class itself, found by the mark it carries.

    The class is the runtime's (its methods reach the host); this layer,
    which the runtime's form building uses, only recognises it.
    """
    return isinstance(tp, type) and tp.__dict__.get("_injected") is True


def is_model_class(tp: Any) -> bool:
    """Whether `tp` is a pydantic model class (duck-typed: pydantic is never imported)."""
    return (
        isinstance(tp, type)
        and hasattr(tp, "model_json_schema")
        and hasattr(tp, "model_validate")
    )


def _is_typeddict(tp: Any) -> bool:
    extensions = _FORMS.current().extensions
    return typing.is_typeddict(tp) or (
        extensions is not None and extensions.is_typeddict(tp)
    )


def _is_namedtuple(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, tuple) and hasattr(tp, "_fields")


def _is_enum(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, enum.Enum)


def describe(annotation: Any) -> str:
    """A short, readable name for an annotation, for error messages."""
    if isinstance(annotation, type) and not typing.get_args(annotation):
        return annotation.__qualname__
    return repr(annotation).replace("typing_extensions.", "").replace("typing.", "")


# ------------------------------------------------------------------ unwrap


def unwrap(annotation: Any) -> tuple[Any, Param | None]:
    """Strip wrappers until a concrete type remains; collect `Param` metadata.

    Outer metadata wins over inner (`Annotated[NewTypeOfAnnotated, Param(...)]`),
    and within one `Annotated` later items win. Results are cached.
    """
    try:
        key = order_key(annotation)
        found = _UNWRAPPED.get(key)
    except TypeError:  # unhashable metadata
        return _unwrap(annotation)
    if found is None:
        found = remember(_UNWRAPPED, key, _unwrap(annotation))
    return found


def _unwrap(annotation: Any) -> tuple[Any, Param | None]:
    tp, meta = annotation, None
    forms = _FORMS.current()
    while True:
        origin = typing.get_origin(tp)
        if origin in forms.annotated:
            inner = merge_metadata(None, tp.__metadata__)
            meta = (
                inner
                if meta is None
                else (meta if inner is None else inner.merged(meta))
            )
            tp = tp.__origin__
        elif origin in forms.qualifiers or among(tp, forms.qualifiers):
            tp = typing.get_args(tp)[0] if origin is not None else Any
        elif isinstance(tp, forms.new_types):
            tp = typing.cast(Any, tp).__supertype__
        elif isinstance(tp, forms.aliases):
            tp = tp.__value__
        elif isinstance(origin, forms.aliases):
            tp = _apply_alias(origin, typing.get_args(tp))
        else:
            return tp, meta


def _apply_alias(alias: Any, args: tuple[Any, ...]) -> Any:
    """`type Pair[T] = tuple[T, T]`; `Pair[int]` → `tuple[int, int]`."""
    value = alias.__value__
    params = getattr(alias, "__type_params__", ())
    return value[args] if params else value


def requiredness(annotation: Any) -> bool | None:
    """True for `Required[...]`, False for `NotRequired[...]`, else None (also through Annotated)."""
    tp = annotation
    forms = _FORMS.current()
    while True:
        origin = typing.get_origin(tp)
        if origin in forms.annotated:
            tp = tp.__origin__
        elif origin in forms.required:
            return True
        elif origin in forms.not_required:
            return False
        elif origin in forms.qualifiers:
            tp = typing.get_args(tp)[0]
        else:
            return None


def alias_of(annotation: Any) -> str | None:
    """The pydantic alias in a field's annotation (`Annotated[str, Field(alias="cityName")]`), or None.

    Read through `Required`, `NotRequired`, `ReadOnly` and nested `Annotated`;
    pydantic is never imported: its `FieldInfo` is known by its name.
    """
    tp = annotation
    forms = _FORMS.current()
    while True:
        origin = typing.get_origin(tp)
        if origin in forms.annotated:
            for item in reversed(tp.__metadata__):  # the last one wins, as in pydantic
                alias = getattr(item, "alias", None)
                if type(item).__name__ == "FieldInfo" and isinstance(alias, str):
                    return alias
            tp = tp.__origin__
        elif (
            origin in forms.required
            or origin in forms.not_required
            or origin in forms.qualifiers
        ):
            tp = typing.get_args(tp)[0]
        else:
            return None


# --------------------------------------------------------------- translator


_CACHE_SIZE: Final = 4096
# Keyed by `order_key`, never by the annotation alone (see there).
_TRANSLATED: dict[tuple[Any, Param | None], nodes.TypeNode] = {}
_UNWRAPPED: dict[Any, tuple[Any, Param | None]] = {}
_PARAMETERS: dict[Any, Any] = {}  # a node, or None for a Context parameter


def remember(cache: dict[Any, T], key: Any, value: T) -> T:
    """Keep `value` in a bounded cache (emptied when full: programs use few annotations)."""
    if len(cache) >= _CACHE_SIZE:
        cache.clear()
    cache[key] = value
    return value


class TooDeepError(ToolDefinitionError):
    """An annotation nests more than `MAX_DEPTH` levels of types.

    Attributes:
        path: Short names of the types it passed through, innermost first.
    """

    def __init__(self) -> None:
        super().__init__("")
        self.path: list[str] = []

    def __str__(self) -> str:
        outer = " > ".join(reversed(self.path[-3:]))
        return (
            f"its type nests more than {MAX_DEPTH} levels of types ({outer} > ...), "
            "deeper than toolkit walks. Use a flatter type, or `dict[str, Any]` for the deep part"
        )


class Translator:
    """Builds type nodes, caching named types so that recursion terminates."""

    def __init__(self) -> None:
        self._named: dict[Any, nodes.TypeNode] = {}
        self._building = 0  # named types whose fields are being read
        self._depth = 0  # how many types enclose the one being translated

    def translate(self, annotation: Any) -> nodes.TypeNode:
        """Translate one annotation.

        Raises:
            ToolDefinitionError: The annotation (or a type inside it) is not
                supported, or nests more than `MAX_DEPTH` levels of types.
        """
        return self._unwrapped(*unwrap(annotation))

    def _unwrapped(self, tp: Any, meta: Param | None) -> nodes.TypeNode:
        """The node of a type that `unwrap` returned; a `TooDeepError` names it on its way out."""
        try:
            return self.node(tp, meta)
        except TooDeepError as error:
            error.path.append(_short_name(tp))
            raise

    def _child(self, annotation: Any) -> nodes.TypeNode:
        """Translate a type inside the one being translated, one level down."""
        if self._depth + 1 >= MAX_DEPTH:
            raise TooDeepError
        self._depth += 1
        try:
            return self.translate(annotation)
        finally:
            self._depth -= 1

    def parameter(self, annotation: Any) -> nodes.TypeNode | None:
        """The node of a parameter's annotation, or None when it asks for `Context`."""
        try:
            key = annotation if type(annotation) is type else order_key(annotation)
            found = _PARAMETERS.get(key, nodes.MISSING)
            if found is not nodes.MISSING:
                return found  # type: ignore[no-any-return]
        except TypeError:  # unhashable metadata
            key = None
        tp, meta = unwrap(annotation)
        node = None if is_context_type(tp) else self._unwrapped(tp, meta)
        if not self._building and key is not None:
            remember(_PARAMETERS, key, node)
        return node

    def node(self, tp: Any, meta: Param | None) -> nodes.TypeNode:
        """Translate a type that `unwrap` already returned, with its metadata.

        Finished translations are shared through a bounded cache: programs
        use the same few annotations (`str`, `int | None`, ...) in every tool.
        Nodes are never changed once built, so sharing them is safe; errors
        are not cached, and a type still being built (recursion) is found in
        this translator's own table first.
        """
        try:
            key = (order_key(tp), meta)
            cached = _TRANSLATED.get(key)
        except TypeError:  # an unhashable annotation or metadata
            return self._deep_enough(self._build(tp, meta))
        if cached is not None:
            return self._deep_enough(cached)
        node = self._deep_enough(self._build(tp, meta))
        if not self._building:  # nothing half-built can reach the cache
            remember(_TRANSLATED, key, node)
        return node

    def _deep_enough(self, node: nodes.TypeNode) -> nodes.TypeNode:
        """`node`, unless at this depth its levels would go past `MAX_DEPTH`.

        A node built earlier (cached, or a named type met before) is checked
        here: its levels were not counted on the way down.
        """
        if self._depth + node.height > MAX_DEPTH:
            raise TooDeepError
        return node

    def _build(self, tp: Any, meta: Param | None) -> nodes.TypeNode:
        node = self._dispatch(tp)
        if meta is None:
            return node
        if node.meta is not None:
            meta = node.meta.merged(meta)
        return node.with_meta(meta)

    def _dispatch(self, tp: Any) -> nodes.TypeNode:  # noqa: C901  # a flat chain, one line per kind, easier to read than a table of predicates
        if tp is Any or tp is object:
            return nodes.AnyType()
        if tp is None or is_scalar(tp):
            return nodes.ScalarType(py=_NONE_TYPE if tp is None else tp)
        if among(tp, _FORMS.literal_strings):
            return nodes.ScalarType(py=str)
        origin = typing.get_origin(tp)
        if origin in _UNIONS:
            return self._union(typing.get_args(tp))
        if origin in _FORMS.literals:
            return _literal(typing.get_args(tp))
        if origin is tuple or tp is tuple or tp is typing.Tuple:  # noqa: UP006
            return self._tuple(tp)
        if origin in _ARRAYS or among(tp, _ARRAYS):
            return self._array(tp, _ARRAYS[origin or tp])
        if origin in _MAPS or among(tp, _MAPS):
            return self._map(typing.get_args(tp))
        if is_context_class(tp) or is_context_class(origin):
            return _fail(
                "Context can only annotate a parameter of the tool itself, not a type inside another"
            )
        if among(tp, self._named):
            return self._named[tp]
        if _is_enum(tp):
            return self._enum(tp)
        if _is_typeddict(tp):
            return self._object(tp, "typeddict")
        if isinstance(tp, type) and hasattr(
            tp, "__dataclass_fields__"
        ):  # dataclasses.is_dataclass, unimported
            return self._object(tp, "dataclass")
        if _is_namedtuple(tp):
            return self._object(tp, "namedtuple")
        if is_model_class(tp):
            return self._remember(tp, nodes.ModelType(cls=tp))
        return _unsupported(tp)

    def _union(self, args: tuple[Any, ...]) -> nodes.TypeNode:
        return nodes.UnionType(members=tuple(self._child(arg) for arg in args))

    def _tuple(self, tp: Any) -> nodes.TypeNode:
        args = typing.get_args(tp)
        if tp is tuple or tp is typing.Tuple:  # noqa: UP006  # bare: any items
            return nodes.ArrayType(item=nodes.AnyType(), container=tuple)
        if len(args) == 2 and args[1] is Ellipsis:
            return nodes.ArrayType(item=self._child(args[0]), container=tuple)
        if not args or args == ((),):  # tuple[()], spelled by 3.10 as ((),)
            return nodes.TupleType(items=())
        return nodes.TupleType(items=tuple(self._child(arg) for arg in args))

    def _array(self, tp: Any, container: type) -> nodes.TypeNode:
        args = typing.get_args(tp)
        item = self._child(args[0]) if args else nodes.AnyType()
        return nodes.ArrayType(item=item, container=container)

    def _map(self, args: tuple[Any, ...]) -> nodes.TypeNode:
        if not args:
            return nodes.MapType(key=nodes.ScalarType(py=str), value=nodes.AnyType())
        key = self._child(args[0])
        if not _is_string_key(key):
            msg = f"dict keys must be strings, since JSON object keys are; got {describe(args[0])}. Use dict[str, ...]"
            raise ToolDefinitionError(msg)
        return nodes.MapType(key=key, value=self._child(args[1]))

    def _remember(self, tp: Any, node: nodes.TypeNode) -> nodes.TypeNode:
        self._named[tp] = node
        return node

    def _enum(self, cls: type[enum.Enum]) -> nodes.TypeNode:
        for member in cls:
            if not _is_json_scalar(member.value):
                msg = f"the value of {cls.__qualname__}.{member.name} is {member.value!r}, which JSON cannot carry. Give the Enum str, int, float or bool values"
                raise ToolDefinitionError(msg)
        return self._remember(
            cls, nodes.EnumType(cls=cls, description=class_description(cls))
        )

    def _object(
        self, cls: type, kind: Literal["typeddict", "dataclass", "namedtuple"]
    ) -> nodes.TypeNode:
        node = nodes.ObjectType(cls=cls, kind=kind, description=class_description(cls))
        self._remember(cls, node)
        self._building += 1
        try:
            node.set_fields(self._fields(cls, kind))
        except BaseException:
            del self._named[cls]
            raise
        finally:
            self._building -= 1
        return node

    def _fields(self, cls: type, kind: str) -> list[nodes.Field]:
        fields = self._own_fields(cls, kind)
        named: dict[str, str] = {}
        for item in fields:
            if item.key in named:
                msg = f"field {item.name!r} of {cls.__qualname__} is named {item.key!r} in JSON, as field {named[item.key]!r} is. Give each field its own alias"
                raise ToolDefinitionError(msg)
            named[item.key] = item.name
        return fields

    def _own_fields(self, cls: type, kind: str) -> list[nodes.Field]:
        hints = _class_hints(cls)
        docs = parse_docstring(cls.__doc__).params if _own_doc(cls) else {}
        if kind == "typeddict":
            return [
                self._typeddict_field(cls, name, hint, docs)
                for name, hint in hints.items()
            ]
        if kind == "dataclass":
            return [
                self._dataclass_field(item, hints, docs)
                for item in _dataclass_fields(cls)
                if item.init
            ]
        defaults: dict[str, Any] = getattr(cls, "_field_defaults", {})
        return [
            self._field(
                name, hints.get(name, Any), docs, defaults.get(name, nodes.MISSING)
            )
            for name in cls._fields  # type: ignore[attr-defined]  # a NamedTuple
        ]

    def _typeddict_field(
        self, cls: Any, name: str, hint: Any, docs: dict[str, str]
    ) -> nodes.Field:
        required = requiredness(hint)
        if required is None:
            required = name in cls.__required_keys__
        result = self._field(name, hint, docs, nodes.MISSING)
        result.required = required
        return result

    def _dataclass_field(
        self, item: Any, hints: dict[str, Any], docs: dict[str, str]
    ) -> nodes.Field:
        import dataclasses  # loaded already: the class is a dataclass

        default = nodes.MISSING if item.default is dataclasses.MISSING else item.default
        result = self._field(item.name, hints.get(item.name, Any), docs, default)
        if item.default_factory is not dataclasses.MISSING:
            result.required = False
        return result

    def _field(
        self, name: str, hint: Any, docs: dict[str, str], default: Any
    ) -> nodes.Field:
        try:
            node = self._child(hint)
        except TooDeepError:
            raise  # its message names the types, not every field on the way
        except ToolDefinitionError as error:
            msg = f"field {name!r}: {error}"
            raise ToolDefinitionError(msg) from None
        description = (
            node.meta.description
            if node.meta and node.meta.description
            else docs.get(name)
        )
        return nodes.Field(
            name=name,
            node=node,
            required=default is nodes.MISSING,
            default=default,
            description=description,
            key=alias_of(hint),
        )


def _short_name(tp: Any) -> str:
    """A name for one level of a type, without the levels inside it."""
    if isinstance(tp, type):
        return tp.__qualname__
    origin = typing.get_origin(tp)
    name = getattr(origin, "__name__", None) or getattr(origin, "_name", None)
    return f"{name}[...]" if name else type(tp).__name__


def _dataclass_fields(cls: type) -> tuple[Any, ...]:
    import dataclasses  # loaded already: the class is a dataclass

    return dataclasses.fields(cls)


def _class_hints(cls: type) -> dict[str, Any]:
    try:
        return get_hints(cls)
    except NameError as error:
        msg = f"the annotations of {cls.__qualname__} cannot be resolved ({error}). Define or import the missing name at module level"
        raise ToolDefinitionError(msg) from None


def _own_doc(cls: type) -> bool:
    """Whether `cls` has a docstring written by a person, not generated."""
    doc = cls.__dict__.get("__doc__")
    if not doc:
        return False
    generated = doc.startswith(f"{cls.__name__}(") or doc == "An enumeration."
    return not generated


def class_description(cls: type) -> str:
    """The description of a named type, from its own docstring."""
    return parse_docstring(cls.__doc__).description if _own_doc(cls) else ""


def _literal(args: tuple[Any, ...]) -> nodes.TypeNode:
    values = []
    for arg in args:
        value = arg.value if isinstance(arg, enum.Enum) else arg
        if not _is_json_scalar(value):
            msg = f"Literal value {arg!r} cannot be sent as JSON. Use str, int, bool or None values"
            raise ToolDefinitionError(msg)
        values.append(value)
    return nodes.LiteralType(values=tuple(values), members=args)


def _is_json_scalar(value: Any) -> bool:
    return value is None or type(value) in (str, int, float, bool)


def _is_string_key(node: nodes.TypeNode) -> bool:
    if isinstance(node, nodes.ScalarType):
        return node.py is str
    if isinstance(node, nodes.LiteralType):
        return all(isinstance(value, str) for value in node.values)
    if isinstance(node, nodes.EnumType):
        return all(isinstance(member.value, str) for member in node.cls)
    return False


def _fail(message: str) -> nodes.TypeNode:
    raise ToolDefinitionError(message)


def _unsupported(tp: Any) -> nodes.TypeNode:
    if isinstance(tp, (str, typing.ForwardRef)):
        name = tp if isinstance(tp, str) else tp.__forward_arg__
        msg = f"the annotation {name!r} cannot be resolved. Define or import {name} at module level"
    elif isinstance(tp, typing.TypeVar):
        msg = f"the type variable {tp} has no concrete type. Use a concrete type"
    elif typing.get_origin(tp) is not None and isinstance(typing.get_origin(tp), type):
        msg = f"the type {describe(tp)} is not supported: generic classes are not. Use a concrete class"
    else:
        msg = (
            f"the type {describe(tp)} is not supported. Use a JSON-compatible type "
            "(str, int, float, bool, list, dict, Literal, Enum, TypedDict, dataclass, ...) or Any"
        )
    raise ToolDefinitionError(msg)
