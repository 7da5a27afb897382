"""The form of `Context.elicit`: a type → the `requestedSchema` a client can render, and back.

What a client can show as a form is a flat object whose properties are
text (with `minLength`/`maxLength` and the formats email, uri, date and
date-time), numbers (`minimum`/`maximum`), booleans, single choices
(`enum`, or `oneOf` of `const`+`title` when the choices have titles) and
multiple choices (an array whose `items` are such choices). `ElicitForm`
builds that schema from a dataclass, TypedDict or NamedTuple, refusing a
field outside it with a message naming the field; it takes a JSON Schema
dict that stays inside it as it is. `read` checks an accepted answer
against the schema and converts it to the type, naming every field that
does not fit.

A choice has a title when its Enum member has a `title` attribute of type
`str` (a property, or a value set in the member's `__init__`).
"""

from __future__ import annotations

import threading
from typing import Any, Final, NoReturn

from toolkit.core._aliases import JsonSchema
from toolkit.core._exceptions import ToolDefinitionError, ToolError
from toolkit.core._frozen import thaw
from toolkit.hints._annotations import Translator, describe
from toolkit.hints._nodes import (
    MISSING,
    ArrayType,
    EnumType,
    Field,
    LiteralType,
    ObjectType,
    ScalarType,
    TypeNode,
    UnionType,
)
from toolkit.values._json import to_jsonable

from ._convert import Converter, Converters

__all__ = ["ElicitForm", "elicit_form"]

FORMATS: Final = ("email", "uri", "date", "date-time")
"""The string formats a client's form knows."""

_COMMON: Final = frozenset({"type", "title", "description", "default"})
_KEYS: Final = {
    "string": _COMMON
    | {"minLength", "maxLength", "format", "enum", "enumNames", "oneOf"},
    "number": _COMMON | {"minimum", "maximum"},
    "integer": _COMMON | {"minimum", "maximum"},
    "boolean": _COMMON,
    "array": _COMMON | {"items", "minItems", "maxItems"},
}
_ROOT_KEYS: Final = frozenset({"type", "properties", "required", "$schema"})
_SCALARS: Final[dict[type, dict[str, str]]] = {
    str: {"type": "string"},
    int: {"type": "integer"},
    float: {"type": "number"},
    bool: {"type": "boolean"},
}
_WHAT: Final = (
    "A form holds text, numbers, booleans, choices (Literal or Enum of str values) "
    "and lists of choices"
)


class ElicitForm:
    """The `requestedSchema` of one elicit type, and how to read an answer into it.

    Attributes:
        schema: The JSON Schema of the form, in MCP's elicitation subset.
        target: The type asked for, or None for a JSON Schema dict.
    """

    def __init__(
        self,
        schema: JsonSchema,
        target: type | None = None,
        fields: tuple[tuple[Field, Converter | None, bool], ...] = (),
        kind: str = "",
    ) -> None:
        self.schema = schema
        self.target = target
        self._fields = fields  # (field, converter, nullable) of a type's fields
        self._kind = kind  # "typeddict", "dataclass" or "namedtuple" for a type
        self._validator: Any = None

    def copy_schema(self) -> dict[str, Any]:
        """A copy of `schema` for a host, which may change it."""
        return thaw(self.schema)  # type: ignore[no-any-return]

    def read(self, data: object) -> Any:
        """The answer `data` (a JSON dict) as the type asked for.

        Raises:
            ToolError: The answer does not fit the form; the message names
                each field at fault.
        """
        if not isinstance(data, dict):
            self._refuse(
                [f"(answer): expected an object of fields, got {type(data).__name__}"]
            )
        data = {
            key: value
            for key, value in data.items()
            if key in self.schema["properties"]
        }
        problems = self._problems(data)
        if problems:
            self._refuse(problems)
        if self.target is None:
            return data
        return self._build(data)

    def _problems(self, data: dict[str, Any]) -> list[str]:
        from ._invalid import describe_errors, jsonschema_validator

        if self._validator is None:
            self._validator = jsonschema_validator(self.schema)
        if self._validator.is_valid(data):
            return []
        return describe_errors(self._validator, data)

    def _build(self, data: dict[str, Any]) -> Any:
        target = self.target
        assert target is not None  # read() builds only for types
        values: dict[str, Any] = {}
        problems: list[str] = []
        for field, convert, nullable in self._fields:
            if field.name not in data:
                if nullable and field.default is MISSING and field.factory is None:
                    values[field.name] = None  # an optional field left empty
                continue
            value = data[field.name]
            try:
                values[field.name] = (
                    value if convert is None or value is None else convert(value)
                )
            except (ValueError, TypeError) as error:
                problems.append(f"{field.name}: {error}")
        if problems:
            self._refuse(problems)
        if self._kind == "typeddict":
            return values
        try:
            return target(**values)
        except (
            ValueError,
            TypeError,
        ) as error:  # the type's own checks (__post_init__)
            self._refuse([f"(answer): {target.__qualname__} refused it: {error}"])

    def _refuse(self, problems: list[str]) -> NoReturn:
        asked = self.target.__qualname__ if self.target is not None else "the form"
        listed = "\n".join(f"- {line}" for line in problems)
        msg = f"The answer to the question does not fit {asked}:\n{listed}"
        raise ToolError(msg)


_FORMS: dict[Any, ElicitForm] = {}
_LOCK = threading.Lock()


def elicit_form(schema: object) -> ElicitForm:
    """The form of `schema`: a dataclass, TypedDict or NamedTuple, or a JSON Schema dict.

    Raises:
        ToolDefinitionError: `schema` is not one of those, or has a field a
            client's form cannot hold; the message names the field and the fix.
    """
    if isinstance(schema, dict):
        return ElicitForm(_checked_dict(schema))
    try:
        found = _FORMS.get(schema)
    except TypeError:  # unhashable: not a type
        found = None
    if found is not None:
        return found
    form = _from_type(schema)
    with _LOCK:
        return _FORMS.setdefault(schema, form)


# ------------------------------------------------------------------ from a type


def _from_type(target: object) -> ElicitForm:
    name = describe(target)
    try:
        node = Translator().translate(target)
    except ToolDefinitionError as error:
        msg = f"elicit cannot ask for {name}: {error}"
        raise ToolDefinitionError(msg) from None
    if not isinstance(node, ObjectType):
        msg = f"elicit asks for a dataclass, TypedDict or NamedTuple of fields, or a JSON Schema dict; got {name}. {_WHAT}"
        raise ToolDefinitionError(msg)
    converters = Converters()
    properties: dict[str, Any] = {}
    required: list[str] = []
    fields = []
    for field in node.fields:
        inner, nullable = _without_none(field.node)
        properties[field.name] = _property(name, field, inner)
        if field.required and not nullable:
            required.append(field.name)
        fields.append((field, converters.for_node(inner), nullable))
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return ElicitForm(schema, node.cls, tuple(fields), node.kind)


def _without_none(node: TypeNode) -> tuple[TypeNode, bool]:
    """`X | None` → (X, True): a form field is optional by being left empty."""
    if isinstance(node, UnionType):
        members = [item for item in node.members if not _is_none(item)]
        if len(members) == 1 and len(members) < len(node.members):
            kept = members[0]
            if node.meta is not None and kept.meta is None:
                kept = kept.with_meta(node.meta)  # Annotated[X | None, Param(...)]
            return kept, True
    if isinstance(node, LiteralType) and None in node.values:
        pairs = [
            (value, member)
            for value, member in zip(node.values, node.members, strict=True)
            if value is not None
        ]
        return (
            LiteralType(
                values=tuple(value for value, _ in pairs),
                members=tuple(member for _, member in pairs),
                meta=node.meta,
            ),
            True,
        )
    return node, False


def _is_none(node: TypeNode) -> bool:
    return isinstance(node, ScalarType) and node.py is type(None)


def _property(owner: str, field: Field, node: TypeNode) -> dict[str, Any]:
    where = f"field {field.name!r} of {owner}"
    schema = _shape(where, node)
    meta = node.meta
    if meta is not None and meta.title:
        schema["title"] = meta.title
    if field.description:
        schema["description"] = field.description
    _constraints(where, node, schema)
    if field.default is not MISSING and field.default is not None:
        schema["default"] = to_jsonable(field.default)
    return schema


def _shape(where: str, node: TypeNode) -> dict[str, Any]:
    """The type part of one property."""
    if isinstance(node, ScalarType):
        return _scalar(where, node.py)
    if isinstance(node, (LiteralType, EnumType)):
        return {"type": "string", **_choices(where, node, "oneOf")}
    if isinstance(node, ArrayType) and isinstance(node.item, (LiteralType, EnumType)):
        choices = _choices(where, node.item, "anyOf")
        items = {"type": "string", **choices} if "enum" in choices else choices
        return {"type": "array", "items": items}
    msg = f"elicit cannot ask for {where}: {describe_node(node)} is not something a form holds. {_WHAT}; ask for the rest in another question"
    raise ToolDefinitionError(msg)


def _scalar(where: str, py: type) -> dict[str, Any]:
    found = _SCALARS.get(py)
    if found is not None:
        return dict(found)
    import datetime

    if py is datetime.datetime:
        return {"type": "string", "format": "date-time"}
    if py is datetime.date:
        return {"type": "string", "format": "date"}
    msg = f"elicit cannot ask for {where}: a form holds str, int, float, bool, date and datetime, not {py.__qualname__}. Ask for text (str) and convert it"
    raise ToolDefinitionError(msg)


def _choices(
    where: str, node: LiteralType | EnumType, titled_key: str
) -> dict[str, Any]:
    """`enum` of the values, or `oneOf`/`anyOf` of `const`+`title` when the choices have titles."""
    if isinstance(node, LiteralType):
        values, titles = list(node.values), None
    else:
        members = list(node.cls)
        values = [member.value for member in members]
        titles = [getattr(member, "title", None) for member in members]
        if not all(isinstance(title, str) for title in titles):
            titles = None
    if not values or not all(type(value) is str for value in values):
        msg = f"elicit cannot ask for {where}: the choices of a form are text, and {describe_node(node)} has {values!r}. Use str values"
        raise ToolDefinitionError(msg)
    if titles is None:
        return {"enum": values}
    return {
        titled_key: [
            {"const": value, "title": title}
            for value, title in zip(values, titles, strict=True)
        ]
    }


def _constraints(where: str, node: TypeNode, schema: dict[str, Any]) -> None:
    """Copy the `Param` constraints a form knows; refuse the others."""
    meta = node.meta
    if meta is None:
        return
    kind = schema["type"]
    lengths = {"string": ("minLength", "maxLength"), "array": ("minItems", "maxItems")}
    if kind in lengths and (meta.min_length is not None or meta.max_length is not None):
        low, high = lengths[kind]
        _put(schema, low, meta.min_length)
        _put(schema, high, meta.max_length)
    elif meta.min_length is not None or meta.max_length is not None:
        _unsupported(where, "min_length/max_length", kind)
    if meta.ge is not None or meta.le is not None:
        if kind not in ("integer", "number"):
            _unsupported(where, "ge/le", kind)
        _put(schema, "minimum", meta.ge)
        _put(schema, "maximum", meta.le)
    if meta.format is not None:
        if kind != "string" or meta.format not in FORMATS:
            msg = f"elicit cannot ask for {where}: a form knows the string formats {', '.join(FORMATS)}, not {meta.format!r}"
            raise ToolDefinitionError(msg)
        schema["format"] = meta.format
    for name in ("gt", "lt", "multiple_of", "pattern"):
        if getattr(meta, name) is not None:
            _unsupported(where, name, kind)


def _put(schema: dict[str, Any], key: str, value: object) -> None:
    if value is not None:
        schema[key] = value


def _unsupported(where: str, constraint: str, kind: str) -> None:
    msg = f"elicit cannot ask for {where}: a form cannot hold the constraint {constraint} on {kind} values (it knows min_length/max_length for text and lists, ge/le for numbers, and format). Check the answer in the tool instead"
    raise ToolDefinitionError(msg)


def describe_node(node: TypeNode) -> str:
    """A short name of the type a node stands for, for messages."""
    for attribute in ("cls", "py"):
        value = getattr(node, attribute, None)
        if isinstance(value, type):
            return value.__name__
    if isinstance(node, LiteralType):
        return f"Literal{list(node.values)!r}"
    if isinstance(node, ArrayType):
        return f"a list of {describe_node(node.item)}"
    return {
        "UnionType": "a union of types",
        "MapType": "a mapping",
        "TupleType": "a tuple",
        "AnyType": "Any",
    }.get(type(node).__name__, type(node).__name__)


# ------------------------------------------------------------------ a JSON Schema dict


def _checked_dict(schema: dict[str, Any]) -> JsonSchema:
    """A copy of `schema`, if it is a form a client can render.

    Raises:
        ToolDefinitionError: It is not: the message says where and why.
    """
    if schema.get("type") != "object" or not isinstance(schema.get("properties"), dict):
        msg = 'elicit: a JSON Schema for a form has "type": "object" and "properties" at its root'
        raise ToolDefinitionError(msg)
    extra = sorted(set(schema) - _ROOT_KEYS)
    if extra:
        msg = f"elicit: a form's schema has only type, properties, required and $schema at its root, not {', '.join(extra)}"
        raise ToolDefinitionError(msg)
    properties: dict[str, Any] = schema["properties"]
    for name, prop in properties.items():
        _check_property(name, prop)
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(
        isinstance(item, str) and item in properties for item in required
    ):
        msg = f"elicit: required must list names of the form's properties; got {required!r}"
        raise ToolDefinitionError(msg)
    _check_meta_schema(schema)
    return thaw(schema)  # type: ignore[no-any-return]


def _check_property(name: str, prop: object) -> None:
    where = f"property {name!r}"
    kind = prop.get("type") if isinstance(prop, dict) else None
    if not isinstance(prop, dict) or kind not in _KEYS:
        msg = f"elicit: {where} must be a schema of type string, number, integer, boolean or array (of choices); got {prop!r}"
        raise ToolDefinitionError(msg)
    extra = sorted(set(prop) - _KEYS[kind])
    if extra:
        msg = f"elicit: {where} ({kind}) has {', '.join(extra)}, which a form does not know; it knows {', '.join(sorted(_KEYS[kind]))}"
        raise ToolDefinitionError(msg)
    if kind == "string" and prop.get("format") not in (None, *FORMATS):
        msg = f"elicit: {where} has format {prop['format']!r}; a form knows {', '.join(FORMATS)}"
        raise ToolDefinitionError(msg)
    if kind == "string":
        _check_choices(where, prop, "oneOf")
    if kind == "array":
        _check_items(where, prop.get("items"))


def _check_choices(where: str, prop: dict[str, Any], titled_key: str) -> None:
    if "enum" in prop and not _strings(prop["enum"]):
        msg = f"elicit: {where} has enum {prop['enum']!r}; the choices of a form are a list of text"
        raise ToolDefinitionError(msg)
    if "enumNames" in prop and not (
        _strings(prop["enumNames"])
        and len(prop["enumNames"]) == len(prop.get("enum", ()))
    ):
        msg = f"elicit: {where} has enumNames that do not name each value of its enum"
        raise ToolDefinitionError(msg)
    if titled_key in prop and not _titled(prop[titled_key]):
        msg = f'elicit: {where} has {titled_key} {prop[titled_key]!r}; titled choices are a list of {{"const": text, "title": text}}'
        raise ToolDefinitionError(msg)


def _check_items(where: str, items: object) -> None:
    if isinstance(items, dict) and set(items) == {"anyOf"} and _titled(items["anyOf"]):
        return
    if (
        isinstance(items, dict)
        and set(items) == {"type", "enum"}
        and items["type"] == "string"
        and _strings(items["enum"])
    ):
        return
    msg = f'elicit: {where} is an array, which a form holds as a multiple choice: items must be {{"type": "string", "enum": [...]}} or {{"anyOf": [{{"const", "title"}}, ...]}}; got {items!r}'
    raise ToolDefinitionError(msg)


def _strings(values: object) -> bool:
    return (
        isinstance(values, list)
        and bool(values)
        and all(isinstance(value, str) for value in values)
    )


def _titled(options: object) -> bool:
    return (
        isinstance(options, list)
        and bool(options)
        and all(
            isinstance(option, dict)
            and set(option) == {"const", "title"}
            and isinstance(option["const"], str)
            and isinstance(option["title"], str)
            for option in options
        )
    )


def _check_meta_schema(schema: dict[str, Any]) -> None:
    from ._invalid import schema_problem

    problem = schema_problem(schema)
    if problem is not None:
        msg = f"elicit: the form's schema is not a valid JSON Schema: {problem}"
        raise ToolDefinitionError(msg)
