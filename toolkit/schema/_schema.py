"""Type nodes → JSON Schema (Draft 2020-12).

`SchemaBuilder` turns nodes into schemas and gathers the named types into
`$defs` as it meets them, so that the order of `$defs` follows the order of
first use and the output is the same in every process. Named types are keyed
by `__name__`, or by `module.qualname` when two different types share a name.
`schema_of(tp)` serves `toolkit.json_schema` for one annotation.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from toolkit.core._aliases import JsonSchema
from toolkit.core._exceptions import ToolDefinitionError
from toolkit.core._frozen import FrozenDict, FrozenList, freeze, thaw
from toolkit.hints import _nodes as nodes
from toolkit.hints._param import CONSTRAINTS, Param
from toolkit.values._json import ref_target, to_jsonable
from toolkit.values._scalars import scalar

__all__ = [
    "SchemaBuilder",
    "check_given_schemas",
    "dangling_refs",
    "inline_root",
    "looping_ref",
    "pattern_problem",
    "property_schema",
    "referred_defs",
    "schema_of",
]

_REF_PREFIX: Final = "#/$defs/"
_ANY: Final = FrozenDict()
_JSON_TYPES: Final = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    type(None): "null",
}
_NUMERIC: Final = (
    ("ge", "minimum"),
    ("gt", "exclusiveMinimum"),
    ("le", "maximum"),
    ("lt", "exclusiveMaximum"),
    ("multiple_of", "multipleOf"),
)
_CONSTRAINED: Final = {  # JSON type -> (`Param` constraint, its keyword) of that type
    "integer": _NUMERIC,
    "number": _NUMERIC,
    "string": (
        ("min_length", "minLength"),
        ("max_length", "maxLength"),
        ("pattern", "pattern"),
        ("format", "format"),
    ),
    "array": (("min_length", "minItems"), ("max_length", "maxItems")),
    "object": (("min_length", "minProperties"), ("max_length", "maxProperties")),
}


def schema_of(annotation: Any) -> JsonSchema:
    """The JSON Schema of one annotation (`toolkit.json_schema`), JSON-ready and mutable."""
    from toolkit.hints._annotations import Translator

    builder = SchemaBuilder()
    return thaw(builder.finish(builder.schema(Translator().translate(annotation))))  # type: ignore[no-any-return]


def inline_root(schema: JsonSchema) -> JsonSchema:
    """`schema` with a root `$ref` to a local object definition replaced by that definition.

    A named object type (dataclass, TypedDict, NamedTuple, pydantic model) is
    emitted as `{"$ref": "#/$defs/X", "$defs": {...}}`, which has no `type`
    at the root; MCP needs `"type": "object"` there. The definition is copied
    onto the root (the root's own keywords, such as `description`, win), and
    `$defs` keeps what the result still refers to (a recursive type refers to
    itself). Any other schema is returned as it is.
    """
    ref = schema.get("$ref")
    defs = schema.get("$defs")
    if not (
        isinstance(ref, str) and ref.startswith(_REF_PREFIX) and isinstance(defs, dict)
    ):
        return schema
    target = defs.get(ref[len(_REF_PREFIX) :])
    if not isinstance(target, dict) or target.get("type") != "object":
        return schema
    root = {**target}
    root.update(
        (key, value) for key, value in schema.items() if key not in ("$ref", "$defs")
    )
    used = referred_defs(root, defs)
    if used:
        root["$defs"] = FrozenDict({name: defs[name] for name in defs if name in used})
    return FrozenDict(root)


def referred_defs(schema: Any, defs: dict[str, Any]) -> set[str]:
    """The names of the definitions that `schema` refers to, directly or through others."""
    found: set[str] = set()
    pending: list[Any] = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith(_REF_PREFIX):
                name = ref[len(_REF_PREFIX) :]
                if name in defs and name not in found:
                    found.add(name)
                    pending.append(defs[name])
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return found


def dangling_refs(schema: Any) -> list[str]:
    """The `$ref`s in `schema` that do not point inside it, in the order met.

    A validator that sees only the schema (as an MCP client checking
    `structuredContent` does) cannot follow them, so the schema is unusable.
    """
    found: list[str] = []
    pending: list[Any] = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref not in found and not _resolves(schema, ref):
                found.append(ref)
            pending.extend(reversed(node.values()))
        elif isinstance(node, list):
            pending.extend(reversed(node))
    return found


def _resolves(root: Any, ref: str) -> bool:
    """Whether a local JSON Pointer `$ref` (`#/$defs/X`) names a schema inside `root`."""
    return _target(root, ref) is not None


def _target(root: Any, ref: str) -> Any:
    """The schema inside `root` that a local JSON Pointer `$ref` names, or None."""
    try:
        target = ref_target(root, ref)
    except LookupError:
        return None
    return target if isinstance(target, (dict, bool)) else None


_IN_PLACE: Final = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else")
"""The keywords whose subschemas apply to the value itself, not to a part of it."""


def looping_ref(schema: Any) -> str | None:
    """A `$ref` that leads back to itself without going into a part of the value, or None.

    `{"$ref": "#"}` at the root, or two definitions that refer to each
    other through `anyOf`: checking a value against such a schema never
    ends. So is, for Python's recursion, a chain of more than `_RAW_DEPTH`
    subschemas that apply to the same value. A schema that recurses into
    the value's parts (a tree) is fine. The walk is linear in the
    schema's size and uses no recursion.
    """
    depth: dict[int, int] = {}  # a subschema walked -> the longest chain from it
    for start in _dicts(schema):
        if id(start) in depth:
            continue
        path: list[tuple[dict[str, Any], str, Any]] = []  # (node, its $ref, its steps)
        on_path: set[int] = set()
        node: dict[str, Any] | None = start
        ref = ""
        while True:
            if node is not None:
                path.append((node, ref, iter(_in_place(schema, node))))
                on_path.add(id(node))
                if len(path) > _RAW_DEPTH:
                    return ref or "#"
            top, top_ref, steps = path[-1]
            step = next(steps, None)
            if step is None:
                path.pop()
                on_path.discard(id(top))
                below = [depth[id(item)] for _, item in _in_place(schema, top)]
                depth[id(top)] = 1 + max(below, default=0)
                if not path:
                    break
                node = None
                continue
            ref, child = step
            if id(child) in on_path:
                return ref or top_ref or "#"
            known = depth.get(id(child))
            if known is not None and len(path) + known > _RAW_DEPTH:
                return ref or top_ref or "#"
            node = None if known is not None else child
    return None


def _in_place(root: Any, node: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The subschemas that apply to the same value as `node`, each with the `$ref` that leads there ("" for none)."""
    found: list[tuple[str, dict[str, Any]]] = []
    ref = node.get("$ref")
    if isinstance(ref, str) and isinstance(target := _target(root, ref), dict):
        found.append((ref, target))
    for key in _IN_PLACE:
        value = node.get(key)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, dict):
                found.append(("", item))
    return found


def _dicts(value: Any) -> list[dict[str, Any]]:
    """Every dict in JSON data, walked without recursion."""
    found: list[dict[str, Any]] = []
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            found.append(item)
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return found


class SchemaBuilder:
    """Emits schemas for nodes and collects the `$defs` they refer to."""

    def __init__(self, *, output: bool = False) -> None:
        self.output = output
        """Schemas of returned values: pydantic models as they serialise (aliases, computed fields)."""
        self.defs: dict[str, JsonSchema] = {}
        self._names: dict[Any, str] = {}
        self._refs = 0  # how many $ref this builder emitted: a schema with one is not kept on its node

    def finish(self, schema: JsonSchema) -> JsonSchema:
        """Attach the collected `$defs` to a root schema (frozen, as every schema it makes)."""
        return (
            FrozenDict({**schema, "$defs": FrozenDict(self.defs)})
            if self.defs
            else freeze(schema)
        )

    def schema(self, node: nodes.TypeNode) -> JsonSchema:
        """The schema of one node, with its `Param` metadata applied, frozen.

        Every emitter returns a frozen schema built on frozen inner schemas,
        so nothing is copied twice. A schema without `$ref` depends on the
        node alone, so the node keeps it (nodes are shared between tools).
        """
        kept = node.schema
        if kept is not None:
            return kept  # type: ignore[no-any-return]
        refs = self._refs
        schema = self._EMITTERS[type(node)](self, node)
        if node.meta is not None:
            schema = freeze(_with_meta(dict(schema), node))
        if self._refs == refs:
            node.schema = schema
        return schema

    def object_schema(
        self, fields: list[nodes.Field], description: str = ""
    ) -> JsonSchema:
        """`{"type": "object", ...}` for fields (of a class, or parameters of a function)."""
        schema: JsonSchema = {"type": "object"}
        if description:
            schema["description"] = description
        schema["properties"] = FrozenDict(
            {item.key: property_schema(self, item) for item in fields}
        )
        required = [item.key for item in fields if item.required]
        if required:
            schema["required"] = FrozenList(required)
        schema["additionalProperties"] = False
        return FrozenDict(schema)

    def _any(self, node: nodes.TypeNode) -> JsonSchema:
        return _ANY

    def _scalar(self, node: nodes.ScalarType) -> JsonSchema:
        return scalar(node.py).schema

    def _literal(self, node: nodes.LiteralType) -> JsonSchema:
        schema = _shared_type(node.values)
        if len(node.values) == 1:
            schema["const"] = node.values[0]
        else:
            schema["enum"] = FrozenList(node.values)
        return FrozenDict(schema)

    def _array(self, node: nodes.ArrayType) -> JsonSchema:
        schema: JsonSchema = {"type": "array"}
        items = self.schema(node.item)
        if items:
            schema["items"] = items
        if node.container in (set, frozenset):
            schema["uniqueItems"] = True
        return FrozenDict(schema)

    def _tuple(self, node: nodes.TupleType) -> JsonSchema:
        count = len(node.items)
        if count == 0:
            return FrozenDict(type="array", maxItems=0)
        prefix = FrozenList([self.schema(item) for item in node.items])
        return FrozenDict(
            type="array", prefixItems=prefix, minItems=count, maxItems=count
        )

    def _map(self, node: nodes.MapType) -> JsonSchema:
        schema: JsonSchema = {"type": "object"}
        if not isinstance(node.key, nodes.ScalarType):
            schema["propertyNames"] = self.schema(node.key)
        values = self.schema(node.value)
        if values:
            schema["additionalProperties"] = values
        return FrozenDict(schema)

    def _union(self, node: nodes.UnionType) -> JsonSchema:
        return FrozenDict(
            anyOf=FrozenList([self.schema(member) for member in node.members])
        )

    def _enum(self, node: nodes.EnumType) -> JsonSchema:
        return self._ref(node.cls, lambda: _enum_def(node))

    def _object(self, node: nodes.ObjectType) -> JsonSchema:
        return self._ref(
            node.cls, lambda: self.object_schema(node.fields, node.description)
        )

    def _model(self, node: nodes.ModelType) -> JsonSchema:
        return self._ref(node.cls, lambda: self._model_def(node.cls))

    def _model_def(self, cls: Any) -> JsonSchema:
        schema: JsonSchema = dict(
            cls.model_json_schema(
                ref_template=_REF_PREFIX + "{model}",
                mode="serialization" if self.output else "validation",
            )
        )
        defs: dict[str, Any] = schema.pop("$defs", {})
        own = _own_definition(schema, defs)
        if (
            own is not None
        ):  # a recursive model: pydantic puts the model itself in $defs
            name, schema = own, dict(defs.pop(own))
            if name != self._names[cls]:
                schema, defs = _renamed_ref((schema, defs), name, self._names[cls])
        for name, definition in defs.items():
            if self.defs.setdefault(name, freeze(definition)) != definition:
                msg = f"two different types are named {name!r} in $defs of the pydantic model {cls.__qualname__}. Rename one of them"
                raise ToolDefinitionError(msg)
        return freeze(schema)

    def _ref(self, cls: Any, build: Callable[[], JsonSchema]) -> JsonSchema:
        name = self._names.get(cls)
        if name is None:
            name = self._names[cls] = self._new_name(cls)
            self.defs[name] = {}  # placeholder first: a recursive type refers to itself
            self.defs[name] = build()
        self._refs += 1
        return FrozenDict({"$ref": _REF_PREFIX + name})

    def _new_name(self, cls: Any) -> str:
        name: str = cls.__name__
        if name in self.defs:
            name = re.sub(
                r"[^A-Za-z0-9_.-]", "_", f"{cls.__module__}.{cls.__qualname__}"
            )
        base, counter = name, 2
        while name in self.defs:
            name, counter = f"{base}_{counter}", counter + 1
        return name

    _EMITTERS: Final[dict[type, Callable[[Any, Any], JsonSchema]]] = {
        nodes.AnyType: _any,
        nodes.ScalarType: _scalar,
        nodes.LiteralType: _literal,
        nodes.ArrayType: _array,
        nodes.TupleType: _tuple,
        nodes.MapType: _map,
        nodes.UnionType: _union,
        nodes.EnumType: _enum,
        nodes.ObjectType: _object,
        nodes.ModelType: _model,
    }


def _own_definition(schema: JsonSchema, defs: dict[str, Any]) -> str | None:
    """The `$defs` name of a model whose schema is only a `$ref` to itself (a recursive model)."""
    ref = schema.get("$ref")
    if set(schema) == {"$ref"} and isinstance(ref, str) and ref.startswith(_REF_PREFIX):
        name = ref[len(_REF_PREFIX) :]
        return name if name in defs else None
    return None


def _renamed_ref(value: Any, old: str, new: str) -> Any:
    """`value` with every `$ref` to the definition `old` pointed at `new` instead."""
    if isinstance(value, dict):
        return {
            key: (
                _REF_PREFIX + new
                if key == "$ref" and item == _REF_PREFIX + old
                else _renamed_ref(item, old, new)
            )
            for key, item in value.items()
        }
    if isinstance(value, (list, tuple)):
        return type(value)(_renamed_ref(item, old, new) for item in value)
    return value


def property_schema(builder: SchemaBuilder, item: nodes.Field) -> JsonSchema:
    """The schema of a field or parameter: its type, then `default`, then `description`."""
    schema = dict(builder.schema(item.node))
    description = schema.pop("description", None)
    if item.default is not nodes.MISSING:
        default = _json_default(item.default, item.node)
        if default is not nodes.MISSING:
            schema["default"] = freeze(default)
    description = item.description or description
    if description:
        schema["description"] = description
    return FrozenDict(schema)


def _json_default(value: Any, node: nodes.TypeNode) -> Any:
    """The default as JSON, its aliased fields under their JSON keys (as a returned value's)."""
    try:
        data = to_jsonable(value)
    except (TypeError, ValueError):
        return nodes.MISSING
    if not isinstance(data, (dict, list)):
        return data
    from ._convert import key_renamer

    rename = key_renamer(node)
    return data if rename is None else rename(data)


def _enum_def(node: nodes.EnumType) -> JsonSchema:
    values = [member.value for member in node.cls]
    schema = _shared_type(values)
    schema["enum"] = FrozenList(values)
    if node.description:
        schema["description"] = node.description
    return FrozenDict(schema)


def _shared_type(values: list[Any] | tuple[Any, ...]) -> JsonSchema:
    kinds = {_JSON_TYPES[type(value)] for value in values}
    if kinds == {"integer", "number"}:
        kinds = {"number"}
    return {"type": kinds.pop()} if len(kinds) == 1 else {}


# ---------------------------------------------------------------- metadata


def _with_meta(schema: JsonSchema, node: nodes.TypeNode) -> JsonSchema:
    meta = node.meta
    assert meta is not None  # the caller checks
    unused = _constrain(schema, node, meta)
    if unused:
        names = ", ".join(f"{key}=" for key in unused)
        msg = f"Param({names}...) does not apply to {_kind_name(node)}. Remove it, or apply it to a type it constrains"
        raise ToolDefinitionError(msg)
    for key, value in (("title", meta.title), ("description", meta.description)):
        if value is not None:
            schema[key] = value
    if meta.examples is not None:
        schema["examples"] = [to_jsonable(example) for example in meta.examples]
    if meta.deprecated:
        schema["deprecated"] = True
    if meta.header is not None:
        schema["x-mcp-header"] = _header(meta.header, schema)
    return schema


_HEADER_TOKEN: Final = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
"""An HTTP header name's characters (RFC 9110 `token`)."""


def _header(name: object, schema: JsonSchema) -> str:
    """The `x-mcp-header` of a parameter, checked: a header name, on a value a header carries."""
    if not isinstance(name, str) or not _HEADER_TOKEN.fullmatch(name):
        msg = f"Param(header={name!r}) is not an HTTP header name. Use letters, digits and '-', for example header=\"Region\""
        raise ToolDefinitionError(msg)
    if schema.get("type") not in ("string", "integer", "boolean"):
        msg = f"Param(header={name!r}) needs a str, int or bool parameter (MCP clients mirror only those into headers). Remove it, or put it on such a parameter"
        raise ToolDefinitionError(msg)
    return name


def _constraints(meta: Param) -> dict[str, Any]:
    return {
        name: value
        for name in CONSTRAINTS
        if (value := getattr(meta, name)) is not None
    }


def _constrain(schema: JsonSchema, node: nodes.TypeNode, meta: Param) -> list[str]:
    """Put the constraints of `meta` on the schemas they apply to; return the unused ones.

    `schema` is a fresh dict of this node's own level; `anyOf` branches are
    replaced by constrained copies, never changed.
    """
    wanted = _constraints(meta)
    if not wanted:
        return []
    if "pattern" in wanted:
        problem = pattern_problem(wanted["pattern"])
        if problem is not None:
            msg = f"Param(pattern={wanted['pattern']!r}) {problem}"
            raise ToolDefinitionError(msg)
    used: set[str] = set()
    _constrained(schema, wanted, used)
    return [name for name in wanted if name not in used]


def _constrained(
    schema: JsonSchema, wanted: dict[str, Any], used: set[str]
) -> JsonSchema:
    """Apply `wanted` to `schema` (a dict of our own) and to copies of its `anyOf` branches."""
    if "anyOf" in schema:
        schema["anyOf"] = [
            FrozenDict(_constrained(dict(branch), wanted, used))
            for branch in schema["anyOf"]
        ]
    elif "type" in schema:
        used |= _apply(schema, wanted)
    return schema


def _apply(target: JsonSchema, wanted: dict[str, Any]) -> set[str]:
    """Set on `target` (a dict of our own) the constraints that fit its type; return their names."""
    used: set[str] = set()
    for name, keyword in _CONSTRAINED.get(target["type"], ()):
        if name in wanted:
            target[keyword] = wanted[name]
            used.add(name)
    return used


def _kind_name(node: nodes.TypeNode) -> str:
    if isinstance(node, nodes.ScalarType):
        return node.py.__name__
    if isinstance(node, (nodes.EnumType, nodes.ObjectType, nodes.ModelType)):
        return node.cls.__qualname__
    return type(node).__name__.removesuffix("Type").lower()


# ---------------------------------------------------------------- given schemas


_RAW_DEPTH: Final = 2 * nodes.MAX_DEPTH + 8
"""How deep (dicts and lists) a schema given to `Tool.new` may nest.

As deep as a schema that `@tool` makes at its own limit (an object level
is a schema and its `properties`), with room for `$defs`. The validators,
the exports and the meta-schema check all recurse into it.
"""


def check_given_schemas(name: str, parameters: object, output_schema: object) -> None:
    """Check the schemas given to `Tool.new`: valid Draft 2020-12, an object root, `$ref`s that resolve.

    Raises:
        ToolDefinitionError: A schema is not an object schema, is invalid,
            nests too deeply or refers outside itself.
    """
    _check_parameters(name, parameters)
    _check_output_schema(name, output_schema)


def _check_parameters(name: str, parameters: object) -> None:
    if not isinstance(parameters, dict) or parameters.get("type") != "object":
        msg = f'parameters of tool {name!r} must be a JSON Schema with "type": "object" at its root; got {parameters!r}'
        raise ToolDefinitionError(msg)
    _check_schema(name, "parameters", parameters)


def _check_output_schema(name: str, output_schema: object) -> None:
    """An output schema that clients can validate against: a valid schema whose `$ref`s resolve."""
    if output_schema is None:
        return
    if not isinstance(output_schema, dict):
        msg = f"output_schema of tool {name!r} must be a JSON Schema object (a dict) or None; got {output_schema!r}"
        raise ToolDefinitionError(msg)
    _check_schema(name, "output_schema", output_schema)


def _check_schema(name: str, what: str, schema: dict[str, Any]) -> None:
    verb = "are" if what == "parameters" else "is"
    if _nests_deeper(schema, _RAW_DEPTH):
        msg = f"{what} of tool {name!r} nest{'' if verb == 'are' else 's'} more than {_RAW_DEPTH} levels of objects and arrays, deeper than toolkit walks. Use a flatter schema, or `{{}}` (any value) for the deep part"
        raise ToolDefinitionError(msg)
    from ._invalid import schema_problem

    try:
        problem = schema_problem(schema)
    except RecursionError:  # from a caller deep in its own stack
        msg = f"{what} of tool {name!r} nest{'' if verb == 'are' else 's'} too deeply for Python's recursion limit to check them from here. Use a flatter schema"
        raise ToolDefinitionError(msg) from None
    if problem is not None:
        msg = f"{what} of tool {name!r} {verb} not a valid JSON Schema (Draft 2020-12): {problem}"
        raise ToolDefinitionError(msg)
    dangling = dangling_refs(schema)
    if dangling:
        msg = f"{what} of tool {name!r} refer{'' if verb == 'are' else 's'} to {', '.join(dangling)}, which is not inside the schema. Put the definition in the schema's $defs"
        raise ToolDefinitionError(msg)
    for pattern in _patterns(schema):
        problem = pattern_problem(pattern)
        if problem is not None:
            msg = f"{what} of tool {name!r}: the pattern {pattern!r} {problem}"
            raise ToolDefinitionError(msg)
    loop = looping_ref(schema)
    if loop is not None:
        msg = f"{what} of tool {name!r} {verb} endless: the $ref {loop!r} leads back to itself (or through more than {_RAW_DEPTH} others) without going into a part of the value, so checking a value would never end. Refer to a definition that describes a part (an item, a property), or remove the loop"
        raise ToolDefinitionError(msg)


def pattern_problem(pattern: str) -> str | None:
    """Why toolkit cannot check `pattern` (with the fix), or None when it can."""
    from toolkit.core._pattern import PatternError, searcher

    try:
        searcher(pattern)
    except PatternError as error:
        return f"cannot be checked in time linear in the text: {error}. Write it without that, or check the value in the tool's code"
    return None


def _patterns(schema: Any) -> list[str]:
    """The patterns of a schema: each `pattern` and each name pattern of `patternProperties`."""
    found: list[str] = []
    for item in _dicts(schema):
        if isinstance(item.get("pattern"), str):
            found.append(item["pattern"])
        if isinstance(item.get("patternProperties"), dict):
            found.extend(item["patternProperties"])
    return found


def _nests_deeper(value: Any, limit: int) -> bool:
    """Whether JSON data nests dicts and lists more than `limit` deep (walked without recursion)."""
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        children = (
            item.values()
            if isinstance(item, dict)
            else item
            if isinstance(item, list)
            else None
        )
        if children is None:
            continue
        if depth > limit:
            return True
        pending.extend((child, depth + 1) for child in children)
    return False
