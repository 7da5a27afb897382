"""An MCP server, made with the `mcp` SDK's low-level `Server`, whose tool schemas contradict themselves.

Each tool has one flaw that `toolkit lint` must report, and one tool has
none; the schemas are sent as they are written here, which the SDK's
`MCPServer` (built from Python functions) would not let a test write.

    python tests/mcp_flawed_server.py            # stdio
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp.types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

SCHEMAS: dict[str, dict[str, Any]] = {
    "pick": {"unit": {"type": "integer", "enum": ["c", "f"], "description": "Unit."}},
    "greet": {"name": {"type": "string", "default": None, "description": "Name."}},
    "count": {"n": {"type": "integer", "default": "3", "description": "How many."}},
    "sound": {"n": {"type": "integer", "default": 3, "description": "How many."}},
}
REQUIRED: dict[str, list[str]] = {"count": ["n", "size"]}


async def on_list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name=name,
                description=f"The {name} tool, for the lint tests.",
                input_schema={
                    "type": "object",
                    "properties": properties,
                    "required": REQUIRED.get(name, []),
                },
            )
            for name, properties in SCHEMAS.items()
        ]
    )


async def main() -> None:
    server = Server("flawed", on_list_tools=on_list_tools)
    async with stdio_server() as (read, write):
        await server.run(read, write, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
