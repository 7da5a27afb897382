"""Google Gemini (google-genai): function declarations, `functionCall` parts, `functionResponse` parts.

```python
from toolkit.providers import gemini as provider

response = client.models.generate_content(model=..., contents=contents,
                                          config={"tools": provider.tools(toolset)})
contents += [response.candidates[0].content, await provider.handle(toolset, "agent-1", response)]
```

The default export uses `parametersJsonSchema` (full JSON Schema);
`schema="openapi"` gives the older `parameters` form (OpenAPI 3.0 subset),
where a recursive type is a `ToolDefinitionError`. A call without an `id`
gets a fresh one, which is not echoed back in its response.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Final, Literal

from toolkit.core._aliases import JsonSchema
from toolkit.core._exceptions import ToolDefinitionError
from toolkit.core._finding import Finding
from toolkit.core._frozen import FrozenDict, FrozenList, freeze
from toolkit.tools._names import wire_names
from toolkit.tools._tool import Tool
from toolkit.tools._views import named
from toolkit.values._content import Audio, File, Image, Part, Resource
from toolkit.values._results import ToolCall, ToolResult
from toolkit.values._scalars import b64

from ._common import (
    MINTED_PREFIX,
    Source,
    call_of,
    field,
    handler,
    items,
    mint_id,
    offered,
    pair,
)
from ._parts import as_text
from ._transform import NULL, dropped_note, shown, strip_meta, with_notes

__all__ = ["handle", "parse_calls", "results", "tools"]


def tools(
    source: Source,
    *,
    schema: Literal["json", "openapi"] = "json",
) -> list[dict[str, Any]]:
    """The request's `tools` value: `[{"functionDeclarations": [...]}]`.

    Args:
        source: A `ToolSet`, a `Tool` or a list of tools.
        schema: "json" for `parametersJsonSchema`, "openapi" for `parameters`.

    Raises:
        ValueError: `schema` is neither "json" nor "openapi".
        ToolDefinitionError: With "openapi", a tool has a recursive type; or
            two tools would be sent under one name (see `Tool.wire_name`).
    """
    if schema not in ("json", "openapi"):
        msg = f"schema={schema!r}; use 'json' (parametersJsonSchema) or 'openapi' (parameters)"
        raise ValueError(msg)
    declarations = []
    found = offered(source)
    for item, name in zip(found, wire_names(found, "gemini"), strict=True):
        declaration = named(item, name)
        if schema == "json":
            declaration["parametersJsonSchema"] = strip_meta(item.parameters)
        else:
            declaration["parameters"] = freeze(
                openapi_schema(item.parameters, tool_name=item.name)
            )
        declarations.append(FrozenDict(declaration))
    return FrozenList([FrozenDict(functionDeclarations=FrozenList(declarations))])


def _parts(message: Any) -> list[Any]:
    candidates = items(field(message, "candidates"))
    if candidates:
        message = field(candidates[0], "content")
    parts = field(message, "parts")
    return items(parts) if parts is not None else items(message)


def parse_calls(message: Any) -> list[ToolCall]:
    """The function calls in a response, a candidate's `Content`, or a list of parts."""
    calls = []
    for part in _parts(message):
        call = field(part, "function_call", "functionCall")
        if call is None:
            continue
        args = field(call, "args")
        calls.append(
            call_of(
                field(call, "id") or mint_id(),
                field(call, "name"),
                _arguments(args),
            )
        )
    return calls


def _arguments(args: Any) -> Any:
    """A call's `args` as a dict; anything else as it came, for the tool to refuse."""
    if args is None:
        return {}
    return dict(args) if isinstance(args, Mapping) else args


def _response(result: ToolResult) -> dict[str, Any]:
    if result.is_error:
        return {"error": result.text}
    if isinstance(result.structured, dict):
        return result.structured
    return {
        "output": result.structured if result.structured is not None else result.text
    }


def results(
    calls: Iterable[ToolCall],
    outcomes: Iterable[ToolResult],
    *,
    multimodal: bool = True,
    limits: Mapping[str, Mapping[str, int]] | None = None,
) -> dict[str, Any]:
    """One `role: user` content with a `functionResponse` part per call, in call order.

    Images, audio and files go in the `functionResponse`'s own `parts`
    (`inlineData`, or `fileData` for a URL), each with a `displayName` that
    the response's output names. With `multimodal=False` they follow the
    function responses as parts of their own instead, for models that refuse
    media inside a function response. A part over `limits` (default:
    `LIMITS`) makes that call's response an error.
    """
    parts: list[dict[str, Any]] = []
    siblings: list[dict[str, Any]] = []
    for call, result in pair(calls, outcomes, "gemini", limits):
        response, media = _with_media(call, result)
        if media and multimodal:
            response["parts"] = media
        elif media:
            siblings += [_sibling(item) for item in media]
        if not call.id.startswith(MINTED_PREFIX):
            response = {"id": call.id, **response}
        parts.append({"functionResponse": response})
    return {"role": "user", "parts": parts + siblings}


def _with_media(
    call: ToolCall, result: ToolResult
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The `functionResponse` (without `parts`) and the media of one call."""
    if not result.content or result.is_error:
        return {"name": call.name, "response": _response(result)}, []
    texts: list[str] = []
    media: list[dict[str, Any]] = []
    for part in result.parts:
        item = _media(part, f"{call.name}-{len(media) + 1}")
        if item is None:
            texts.append(_as_text(part))
        else:
            media.append(item)
    names = [next(iter(item.values()))["displayName"] for item in media]
    if names:
        texts.append(f"[Attached: {', '.join(names)}]")
    output: dict[str, Any] = {"output": "\n".join(texts)}
    if isinstance(result.structured, dict):
        output = {**result.structured, **output}
    return {"name": call.name, "response": output}, media


def _media(part: Part, stem: str) -> dict[str, Any] | None:
    if not isinstance(part, (Image, Audio, File)) and not (
        isinstance(part, Resource) and part.data is not None
    ):
        return None
    mime_type = part.mime_type or "application/octet-stream"
    name = getattr(part, "name", None) or _display_name(stem, mime_type)
    url = getattr(part, "url", None)
    if url is not None:
        return {
            "fileData": {"mimeType": mime_type, "fileUri": url, "displayName": name}
        }
    data = b64(part.data or b"")
    return {"inlineData": {"mimeType": mime_type, "data": data, "displayName": name}}


def _display_name(stem: str, mime_type: str) -> str:
    import mimetypes

    return stem + (mimetypes.guess_extension(mime_type) or "")


def _sibling(item: dict[str, Any]) -> dict[str, Any]:
    """A media part of its own, beside the function responses."""
    key, value = next(iter(item.items()))
    return {
        key: {name: field for name, field in value.items() if name != "displayName"}
    }


def _as_text(part: Part) -> str:
    return as_text(part, "Gemini", "cannot carry it")  # every other part is media


handle = handler(
    parse_calls,
    results,
    "the `role: user` content of `functionResponse` parts to append",
)


_PROPERTY: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")
OPENAPI_CODES: Final = frozenset({"gemini-parameter-name", "gemini-openapi"})
"""The findings about the older OpenAPI `parameters` form only (`tools(..., schema="openapi")`)."""


def lint(tools: list[Tool[Any, Any]]) -> Iterator[Finding]:
    """What the OpenAPI `parameters` form refuses: parameter names, recursive types.

    The default export (`parametersJsonSchema`) has neither limit: these
    findings carry the codes of `OPENAPI_CODES`, which `toolkit lint` shows
    only with `--gemini-openapi`.
    """
    for item in tools:
        for name in item.parameters.get("properties", {}):
            if not _PROPERTY.fullmatch(name):
                yield Finding(
                    item.name,
                    "gemini-parameter-name",
                    f"parameter {name!r} is not a name Gemini accepts in `parameters` (letters, digits, '_', at most 64)",
                )
        try:
            openapi_schema(item.parameters, tool_name=item.name)
        except ToolDefinitionError as error:
            yield Finding(item.name, "gemini-openapi", str(error))


# ---------------------------------------------------------------- the OpenAPI form


def openapi_schema(schema: JsonSchema, *, tool_name: str) -> JsonSchema:
    """Gemini's older `parameters` form: the OpenAPI 3.0 subset.

    `$ref`s are inlined, `anyOf [X, null]` becomes X with `nullable: true`,
    enums become strings, `const` an enum of one, types are upper case, and
    keywords the subset lacks (`additionalProperties`, exclusive bounds,
    `multipleOf`, defaults, most formats) are dropped or said in the description.

    Raises:
        ToolDefinitionError: The schema is recursive, which this form cannot express.
    """
    return _OpenAPI(schema, tool_name).node(strip_meta(schema), ())


_OPENAPI_FORMATS: Final = frozenset({"enum", "date-time"})


class _OpenAPI:
    def __init__(self, root: JsonSchema, tool_name: str) -> None:
        self.defs: dict[str, Any] = root.get("$defs", {})
        self.tool_name = tool_name

    def node(self, schema: Any, refs: tuple[str, ...]) -> JsonSchema:
        if not isinstance(schema, dict):
            return {}
        if "$ref" in schema:
            return self._ref(schema, refs)
        if "anyOf" in schema:
            return self._union(schema, refs)
        out: JsonSchema = {}
        notes: list[str] = []
        for key, value in schema.items():
            self._keyword(key, value, out, notes, refs)
        if "enum" in out:
            out.update(_string_enum(out["enum"], out.get("type")))
        return with_notes(out, notes)

    def _keyword(
        self,
        key: str,
        value: Any,
        out: JsonSchema,
        notes: list[str],
        refs: tuple[str, ...],
    ) -> None:
        if key == "type":
            out["type"] = value.upper() if isinstance(value, str) else value
            if value == "null":
                out.pop("type")
                out["nullable"] = True
        elif key == "properties":
            out["properties"] = {
                name: self.node(item, refs) for name, item in value.items()
            }
        elif key == "items":
            out["items"] = self.node(value, refs)
        elif key == "const":
            out["enum"] = [value]
        elif key in ("format", "prefixItems"):
            added, said = self._reshaped(key, value, refs)
            out.update(added)
            notes.extend(said)
        elif key in _OPENAPI_KEEP:
            out[key] = value
        elif key not in _OPENAPI_DROP:
            notes.extend(dropped_note(key, value))

    def _reshaped(
        self, key: str, value: Any, refs: tuple[str, ...]
    ) -> tuple[JsonSchema, list[str]]:
        """`format` (two values allowed) and `prefixItems` (no tuples in OpenAPI 3.0): what to add, what to say."""
        if key == "format":
            if value in _OPENAPI_FORMATS:
                return {"format": value}, []
            return {}, [f"format: {value}"]
        branches = [self.node(item, refs) for item in value]
        items = {"anyOf": branches} if len(branches) > 1 else branches[0]
        return {"items": items}, [
            "items in order: " + ", ".join(_kind(item) for item in value)
        ]

    def _ref(self, schema: JsonSchema, refs: tuple[str, ...]) -> JsonSchema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        if name in refs:
            chain = " -> ".join((*refs[refs.index(name) :], name))
            msg = (
                f"Tool {self.tool_name!r} has a recursive type ({chain}), which Gemini's OpenAPI "
                "`parameters` form cannot express. Export with the default schema (parametersJsonSchema)"
            )
            raise ToolDefinitionError(msg)
        target = self.node(self.defs.get(name, {}), (*refs, name))
        siblings = {key: value for key, value in schema.items() if key != "$ref"}
        return {**target, **self.node(siblings, refs)} if siblings else target

    def _union(self, schema: JsonSchema, refs: tuple[str, ...]) -> JsonSchema:
        branches = [branch for branch in schema["anyOf"] if branch != NULL]
        nullable = len(branches) < len(schema["anyOf"])
        rest = {key: value for key, value in schema.items() if key != "anyOf"}
        if len(branches) == 1:
            out = {**self.node(branches[0], refs), **self.node(rest, refs)}
        else:
            out = {
                "anyOf": [self.node(branch, refs) for branch in branches],
                **self.node(rest, refs),
            }
        if nullable:
            out["nullable"] = True
        return out


_OPENAPI_KEEP: Final = frozenset(
    {
        "description",
        "nullable",
        "enum",
        "minItems",
        "maxItems",
        "required",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
        "pattern",
        "minimum",
        "maximum",
    }
)
_OPENAPI_DROP: Final = frozenset(
    {"additionalProperties", "$defs", "title", "propertyNames", "contentEncoding"}
)


def _string_enum(values: list[Any], kind: Any) -> JsonSchema:
    """Gemini's enums are strings; a null member becomes `nullable`."""
    out: JsonSchema = {
        "enum": [
            value if isinstance(value, str) else shown(value)
            for value in values
            if value is not None
        ]
    }
    if None in values:
        out["nullable"] = True
    if kind != "STRING" or any(
        not isinstance(value, str) for value in values if value is not None
    ):
        out["type"] = "STRING"
        out["format"] = "enum"
    return out


def _kind(schema: Any) -> str:
    return str(schema.get("type", "any")) if isinstance(schema, dict) else "any"
