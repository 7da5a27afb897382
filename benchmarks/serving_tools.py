"""The one function both servers of `serving.py` serve; the toolkit `tools` are made on first use.

`toolkit serve benchmarks/serving_tools.py:tools` imports this file; the MCP
SDK's server (`serving_sdk.py`) takes `add` without importing toolkit.
"""

from __future__ import annotations

from typing import Any


def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first number.
        b: The second number.
    """
    return a + b


def __getattr__(name: str) -> Any:
    if name == "tools":
        from toolkit import ToolSet, tool

        return ToolSet([tool(add)])
    raise AttributeError(name)
