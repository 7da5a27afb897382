"""Pure schema → schema functions shared by the provider modules.

Each takes the canonical Draft 2020-12 schema of a tool (`Tool.parameters`)
and returns a new one for one API, never changing its input. The walker of
the strict subsets is shared (each provider gives its `Dialect`); a form only
one API has (Gemini's OpenAPI subset) lives in that API's module. Strict views
report why a tool cannot be strict instead of raising: the provider then
exports that tool with `strict: false`, and `toolkit lint` shows the reasons.
What a view must drop (a default, a format, a length limit) is said in the
description, so the model still reads it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

from toolkit.core._aliases import JsonSchema
from toolkit.core._frozen import freeze
from toolkit.schema._schema import inline_root, referred_defs

__all__ = [
    "NULL",
    "STRICT_FORMATS",
    "STRICT_KEEP",
    "Dialect",
    "Strict",
    "StrictWalker",
    "dropped_note",
    "is_wrapped",
    "ref_cycle",
    "shown",
    "strip_meta",
    "with_notes",
    "wrap_output",
]

NULL: Final = {"type": "null"}

_META_KEYS: Final = frozenset({"$schema", "$id", "$comment"})


@dataclass(frozen=True, slots=True)
class Strict:
    """A strict view of a schema, or the reasons there cannot be one.

    Attributes:
        schema: The strict schema, or None when `problems` is not empty.
        problems: Why the schema cannot be strict, one sentence each with its path.
        optional: How many properties are optional (Anthropic counts them per request).
        unions: How many properties use `anyOf` (Anthropic counts them per request).
    """

    schema: JsonSchema | None
    problems: tuple[str, ...] = ()
    optional: int = 0
    unions: int = 0


def strip_meta(schema: JsonSchema) -> JsonSchema:
    """Drop `$schema`, `$id` and `$comment`, which some APIs reject, at the root."""
    if "$schema" not in schema and "$id" not in schema and "$comment" not in schema:
        return schema
    return freeze(
        {key: value for key, value in schema.items() if key not in _META_KEYS}
    )


def shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def with_notes(schema: JsonSchema, notes: list[str]) -> JsonSchema:
    """Append notes about dropped keywords to a schema's description."""
    if not notes:
        return schema
    text = "; ".join(notes)
    current = schema.get("description")
    schema["description"] = (
        f"{current} ({text})" if current else text[:1].upper() + text[1:] + "."
    )
    return schema


def _accepts_null(schema: Any) -> bool:
    if not isinstance(schema, dict):
        return schema is True
    kind = schema.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if "enum" in schema and None in schema["enum"]:
        return True
    return any(_accepts_null(branch) for branch in schema.get("anyOf", ()))


def _nullable(schema: JsonSchema) -> JsonSchema:
    """`anyOf: [schema, null]`, keeping description and title on the outside."""
    if _accepts_null(schema):
        return schema
    inner = dict(schema)
    outer: dict[str, Any] = {
        key: inner.pop(key) for key in ("description", "title") if key in inner
    }
    if list(inner) == ["anyOf"]:
        return {"anyOf": [*inner["anyOf"], dict(NULL)], **outer}
    return {"anyOf": [inner, dict(NULL)], **outer}


# ---------------------------------------------------------------- strict views


@dataclass(frozen=True, slots=True)
class Dialect:
    """One API's strict subset, as the shared walker needs to know it.

    Attributes:
        provider: The API's name, for the messages ("OpenAI").
        keep: The keywords kept as they are.
        formats: The string formats kept; others move to the description.
        optional_nullable: Make every property required and the optional
            ones nullable (OpenAI), or keep optional ones optional.
        drop: For a kept keyword with a value the API refuses, the note that
            replaces it in the description, else None.
    """

    provider: str
    keep: frozenset[str]
    formats: frozenset[str]
    optional_nullable: bool
    drop: Callable[[str, Any], str | None] = lambda key, value: None


class StrictWalker:
    """Rewrites a schema into a provider's strict subset, collecting what cannot be."""

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect
        self.problems: list[str] = []
        self.optional = 0
        self.unions = 0
        self.properties = 0
        self.enum_values = 0
        self.text = 0
        self.depth = 0

    def root(self, schema: JsonSchema) -> JsonSchema:
        out = self.node(strip_meta(schema), "(root)", depth=0)
        if "$defs" in schema:
            out["$defs"] = {
                name: self.node(item, f"$defs.{name}", depth=0)
                for name, item in schema["$defs"].items()
            }
        return out

    def node(self, schema: Any, path: str, *, depth: int) -> JsonSchema:  # noqa: C901  # one branch per keyword family
        if (
            not isinstance(schema, dict)
            or not schema
            or schema == {"description": schema.get("description")}
        ):
            self.problems.append(
                f"{path}: accepts any JSON value, which {self.dialect.provider} strict mode cannot express"
            )
            return {}
        self.depth = max(self.depth, depth)
        out: JsonSchema = {}
        notes: list[str] = []
        for key, value in schema.items():
            if key in ("$defs", "definitions"):
                continue
            if key == "properties":
                continue  # handled with `required` below
            if key == "anyOf" or key == "oneOf":
                out["anyOf"] = [
                    self.node(branch, f"{path}.anyOf[{index}]", depth=depth)
                    for index, branch in enumerate(value)
                ]
            elif key == "items":
                out["items"] = self.node(value, f"{path}[]", depth=depth + 1)
            elif key == "additionalProperties":
                if value is not False:
                    self.problems.append(
                        f"{path}: a map with free keys (additionalProperties) cannot be strict in {self.dialect.provider}"
                    )
            elif key == "format" and value not in self.dialect.formats:
                notes.append(f"format: {value}")
            elif (dropped := self.dialect.drop(key, value)) is not None:
                notes.append(dropped)
            elif key == "enum":
                self.enum_values += len(value)
                self.text += sum(len(str(item)) for item in value)
                out[key] = value
            elif key in self.dialect.keep:
                out[key] = value
            elif key in _UNSTRICT:
                self.problems.append(
                    f"{path}: {_UNSTRICT[key]} cannot be strict in {self.dialect.provider}"
                )
            else:
                notes.extend(dropped_note(key, value))
        if schema.get("type") == "object":
            self._object(schema, out, path, depth=depth)
        if "$ref" in out and len(out) > 1:
            ref = out.pop("$ref")
            out = {"anyOf": [{"$ref": ref}], **out}
        return with_notes(out, notes)

    def _object(
        self, schema: JsonSchema, out: JsonSchema, path: str, *, depth: int
    ) -> None:
        if "properties" not in schema:
            if (
                "additionalProperties" not in schema
            ):  # a map with a value schema is reported already
                self.problems.append(
                    f"{path}: an object with free keys cannot be strict in {self.dialect.provider}"
                )
            if schema.get("additionalProperties") is not False:
                return
        required = set(schema.get("required", ()))
        properties: dict[str, JsonSchema] = {}
        for name, item in schema.get("properties", {}).items():
            self.properties += 1
            self.text += len(name)
            prop = self.node(
                item, name if path == "(root)" else f"{path}.{name}", depth=depth + 1
            )
            if "anyOf" in prop:
                self.unions += 1
            if name not in required:
                self.optional += 1
                if self.dialect.optional_nullable:
                    prop = _nullable(prop)
            properties[name] = prop
        out["properties"] = properties
        out["required"] = (
            list(properties)
            if self.dialect.optional_nullable
            else [name for name in properties if name in required]
        )
        out["additionalProperties"] = False

    def result(self, schema: JsonSchema) -> Strict:
        return Strict(
            schema=None if self.problems else freeze(schema),
            problems=tuple(dict.fromkeys(self.problems)),
            optional=self.optional,
            unions=self.unions,
        )


_UNSTRICT: Final = {
    "prefixItems": "a fixed-length tuple (prefixItems)",
    "allOf": "allOf",
    "not": "not",
    "if": "if/then/else",
    "dependentRequired": "dependentRequired",
    "dependentSchemas": "dependentSchemas",
    "patternProperties": "patternProperties",
    "propertyNames": "a map with constrained keys (propertyNames)",
    "unevaluatedProperties": "unevaluatedProperties",
    "unevaluatedItems": "unevaluatedItems",
    "contains": "contains",
}


def dropped_note(key: str, value: Any) -> list[str]:
    """The description note for a keyword that a strict view drops."""
    notes: dict[str, Callable[[], str]] = {
        "default": lambda: f"default: {shown(value)}",
        "minLength": lambda: f"at least {value} characters",
        "maxLength": lambda: f"at most {value} characters",
        "uniqueItems": lambda: "items must be unique",
        "examples": lambda: f"examples: {', '.join(shown(item) for item in value)}",
        "deprecated": lambda: "deprecated",
        "contentEncoding": lambda: f"{value}-encoded",
        "minimum": lambda: f"minimum: {value}",
        "maximum": lambda: f"maximum: {value}",
        "exclusiveMinimum": lambda: f"greater than {value}",
        "exclusiveMaximum": lambda: f"less than {value}",
        "multipleOf": lambda: f"a multiple of {value}",
        "maxItems": lambda: f"at most {value} items",
        "minProperties": lambda: f"at least {value} entries",
        "maxProperties": lambda: f"at most {value} entries",
    }
    maker = notes.get(key)
    return (
        [maker()]
        if maker is not None and not (key == "default" and value is None)
        else []
    )


# Keywords both strict subsets keep as they are; each adds its own.
STRICT_FORMATS: Final = frozenset(
    {
        "date-time",
        "time",
        "date",
        "duration",
        "email",
        "hostname",
        "ipv4",
        "ipv6",
        "uuid",
    }
)
"""String formats both strict subsets keep; each may add its own."""
STRICT_KEEP: Final = frozenset(
    {"type", "enum", "const", "$ref", "description", "title", "pattern", "format"}
)


def ref_cycle(schema: JsonSchema) -> str | None:
    """The name of a definition that refers back to itself, directly or not."""
    defs = schema.get("$defs", {})
    for name, item in defs.items():
        if name in referred_defs(item, defs):
            return str(name)
    return None


# ---------------------------------------------------------------- MCP


def wrap_output(schema: JsonSchema | None) -> JsonSchema | None:
    """An MCP `outputSchema`: an object schema at the root, other outputs as `{"result": ...}`.

    A root `$ref` to an object definition is inlined (MCP wants `"type":
    "object"` at the root); `$defs`, `$schema` and `description` stay at the
    root of a wrapped schema, where clients read them.
    """
    if schema is None:
        return None
    schema = inline_root(schema)
    if schema.get("type") == "object":
        return schema
    root: JsonSchema = {key: schema[key] for key in _ROOT_KEYS if key in schema}
    body = {key: value for key, value in schema.items() if key not in _ROOT_KEYS}
    wrapped: JsonSchema = {
        "type": "object",
        "properties": {"result": body},
        "required": ["result"],
    }
    if "$schema" in root:
        wrapped = {"$schema": root.pop("$schema"), **wrapped}
    wrapped.update(root)
    return wrapped


_ROOT_KEYS: Final = ("$schema", "description", "$defs")


def is_wrapped(schema: JsonSchema | None) -> bool:
    """Whether the MCP `outputSchema` made by `wrap_output` from `schema` wraps it as `{"result": ...}`."""
    return schema is not None and inline_root(schema).get("type") != "object"
