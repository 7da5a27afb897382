"""The functions every library is measured on: the same signature, docstring and work."""

from __future__ import annotations

import asyncio
import inspect
import typing
from collections.abc import Callable
from typing import Any

import docstring_parser

DOC = """Search the catalogue for products.

    Args:
        query: Words to look for.
        limit: At most this many results.
        category: Only this category.
        in_stock: Only products in stock.
        max_price: Highest price, in euros.
    """

CALLS = {"count": 0}


def make_search() -> Callable[..., str]:
    """A fresh function object each time (as when tools are defined per agent)."""

    def search(
        query: str,
        limit: int = 10,
        category: str | None = None,
        in_stock: bool = True,
        max_price: float | None = None,
    ) -> str:
        return f"{query}:{limit}"

    search.__doc__ = DOC
    return search


def add(a: int, b: int, c: int) -> str:
    """Add three numbers.

    Args:
        a: First.
        b: Second.
        c: Third.
    """
    CALLS["count"] += 1
    return str(a + b + c)


async def aadd(a: int, b: int, c: int) -> str:
    """Add three numbers.

    Args:
        a: First.
        b: Second.
        c: Third.
    """
    CALLS["count"] += 1
    return str(a + b + c)


def bare_add(a: int, b: int, c: int) -> str:
    return str(a + b + c)


async def wait(n: int) -> str:
    """Wait 10 ms.

    Args:
        n: The call's number.
    """
    await asyncio.sleep(0.01)
    return str(n)


def tool_source(index: int) -> Callable[..., Any]:
    """The index-th of 500 distinct tools for the export scenario."""
    function = make_search()
    function.__name__ = f"search_{index}"
    function.__qualname__ = f"search_{index}"
    return function


JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}


def naive_define(
    function: Callable[..., Any], style: Any = docstring_parser.DocstringStyle.AUTO
) -> dict[str, Any]:
    """Name, description and JSON Schema as a hand-rolled definer derives them.

    `inspect.signature`, `typing.get_type_hints`, `docstring_parser.parse` and a
    dict built by hand, for the scalars and `X | None` of `make_search` only:
    no checks, no error messages, no other types. Its output is the schema
    toolkit derives for the same function.
    """
    signature = inspect.signature(function)
    hints = typing.get_type_hints(function)
    doc = docstring_parser.parse(function.__doc__ or "", style=style)
    described = {param.arg_name: param.description for param in doc.params}
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, parameter in signature.parameters.items():
        hint = hints[name]
        members = typing.get_args(hint)
        if type(None) in members:
            (inner,) = [member for member in members if member is not type(None)]
            schema: dict[str, Any] = {
                "anyOf": [{"type": JSON_TYPES[inner]}, {"type": "null"}]
            }
        else:
            schema = {"type": JSON_TYPES[hint]}
        if parameter.default is inspect.Parameter.empty:
            required.append(name)
        else:
            schema["default"] = parameter.default
        if described.get(name):
            schema["description"] = described[name]
        properties[name] = schema
    return {
        "name": function.__name__,
        "description": doc.short_description,
        "parameters": {
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": False,
        },
    }


def hand_call(args: dict[str, Any]) -> str | None:
    """The hand-written check of `add`'s arguments, then the call: what a call costs with no library."""
    return add(**args) if hand_check(args) else None


def hand_check(args: dict[str, Any]) -> bool:
    """The arguments of `add`, checked by hand: exactly a, b and c, each an int (not a bool)."""
    a, b, c = args.get("a"), args.get("b"), args.get("c")
    return (
        len(args) == 3
        and isinstance(a, int)
        and not isinstance(a, bool)
        and isinstance(b, int)
        and not isinstance(b, bool)
        and isinstance(c, int)
        and not isinstance(c, bool)
    )
