"""Type aliases shared by the modules of toolkit, and the one table of schema keywords that hold schemas."""

from __future__ import annotations

from typing import Any, Final, TypeAlias

__all__ = ["SUBSCHEMA_KEYWORDS", "JsonObject", "JsonSchema", "JsonValue"]

JsonSchema: TypeAlias = dict[str, Any]
"""A JSON Schema (Draft 2020-12) as JSON-ready Python data."""

JsonObject: TypeAlias = dict[str, Any]
"""A JSON object as decoded by `json.loads`."""

JsonValue: TypeAlias = Any
"""Any value that `json.loads` can return."""

SUBSCHEMA_KEYWORDS: Final = (
    "items",
    "prefixItems",
    "additionalProperties",
    "anyOf",
    "oneOf",
    "allOf",
    "not",
    "if",
    "then",
    "else",
    "contains",
)
"""Keywords whose value is a schema or a list of schemas (beside `properties` and `$defs`, which name theirs)."""
