"""Helpers shared by the provider modules: reading messages, pairing results."""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any, Final

from toolkit._results import ToolCall, ToolResult
from toolkit._tool import Tool
from toolkit._toolset import ToolSet

__all__ = ["MINTED_PREFIX", "as_tools", "field", "items", "mint_id", "pair"]

MINTED_PREFIX: Final = "toolkit-"
"""Ids that toolkit made up for calls that came without one (Gemini, MCP)."""


def as_tools(
    source: ToolSet | Tool[Any, Any] | Iterable[Tool[Any, Any]],
) -> list[Tool[Any, Any]]:
    """The tools of a `ToolSet`, a single `Tool` or a list of tools, in order."""
    if isinstance(source, Tool):
        return [source]
    found = list(source)
    if isinstance(source, ToolSet):
        return found  # a ToolSet holds only tools
    for item in found:
        if not isinstance(item, Tool):
            msg = f"Expected a ToolSet, a Tool or a list of Tools; found {item!r}"
            raise TypeError(msg)
    return found


def field(obj: Any, name: str, camel: str | None = None) -> Any:
    """`obj[name]` for a dict (also its camelCase spelling), `obj.name` for an object."""
    if isinstance(obj, dict):
        if name in obj:
            return obj[name]
        return obj.get(camel) if camel is not None else None
    value = getattr(obj, name, None)
    if value is None and camel is not None:
        value = getattr(obj, camel, None)
    return value


def items(value: Any) -> list[Any]:
    """A list from a list, a tuple, None or any iterable."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    return list(value)


def mint_id() -> str:
    """A fresh, unique id for a call that came without one."""
    return f"{MINTED_PREFIX}{uuid.uuid4().hex}"


def pair(
    calls: Iterable[ToolCall], results: Iterable[ToolResult]
) -> list[tuple[ToolCall, ToolResult]]:
    """Calls with their results, refusing a count that does not match."""
    calls, results = list(calls), list(results)
    if len(calls) != len(results):
        msg = f"Got {len(calls)} calls but {len(results)} results; every call needs exactly one result"
        raise ValueError(msg)
    for call, result in zip(calls, results, strict=True):
        if not isinstance(call, ToolCall) or not isinstance(result, ToolResult):
            msg = f"Expected ToolCall and ToolResult pairs; got {call!r} and {result!r}"
            raise TypeError(msg)
    return list(zip(calls, results, strict=True))
