"""Type aliases shared by the modules of toolkit."""

from __future__ import annotations

from typing import Any, TypeAlias

__all__ = ["JsonObject", "JsonSchema", "JsonValue"]

JsonSchema: TypeAlias = dict[str, Any]
"""A JSON Schema (Draft 2020-12) as JSON-ready Python data."""

JsonObject: TypeAlias = dict[str, Any]
"""A JSON object as decoded by `json.loads`."""

JsonValue: TypeAlias = Any
"""Any value that `json.loads` can return."""
