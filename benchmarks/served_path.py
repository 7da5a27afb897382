"""The toolkit modules a warm served `tools/call` enters, and how often it goes back to one it had left.

The official MCP client calls one simple tool of `build_server` in memory;
the second call is profiled (`sys.setprofile`, every thread), never timed.

    python benchmarks/served_path.py
"""

from __future__ import annotations

import asyncio
import pathlib
import sys
import threading
from typing import Any

import toolkit
from toolkit import ToolSet, tool
from toolkit.mcp import build_server

ROOT = str(pathlib.Path(toolkit.__file__).parent)


@tool
def greet(name: str) -> str:
    """Greet someone."""
    return f"Hello, {name}"


async def main() -> None:
    from mcp.client.client import Client

    entered: list[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        path = frame.f_code.co_filename
        if event == "call" and path.startswith(ROOT):
            module = pathlib.Path(path).relative_to(ROOT).as_posix()
            if not entered or entered[-1] != module:
                entered.append(module)

    async with Client(build_server(ToolSet([greet]))) as client:
        await client.call_tool("greet", {"name": "Ada"})  # warm
        threading.setprofile(profile)
        sys.setprofile(profile)
        try:
            await client.call_tool("greet", {"name": "Ada"})
        finally:
            sys.setprofile(None)
            threading.setprofile(None)
    left: set[str] = set()
    returns = 0
    for before, module in zip([None, *entered], entered, strict=False):
        returns += module in left
        if before is not None:
            left.add(before)
    modules = list(dict.fromkeys(entered))
    print(f"{len(modules)} modules: {', '.join(modules)}")
    print(f"{returns} returns to a module it had left")


if __name__ == "__main__":
    asyncio.run(main())
