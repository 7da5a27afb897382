"""The functions every library is measured on: the same signature, docstring and work."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

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
