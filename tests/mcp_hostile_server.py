"""An MCP server that sends what a hostile or broken server may send, written by hand.

It answers JSON-RPC itself (no SDK), so that it can send what the SDK's
server would refuse to: tool lists that never come, nest too deeply or hold
tools whose schemas are not object schemas, loop through `$ref`s or carry
patterns that backtrack for ages. The tools it lists are read from a JSON
file (a list of raw tool definitions) or named by a mode.

    python tests/mcp_hostile_server.py MODE [TOOLS.json]             # stdio
    python tests/mcp_hostile_server.py MODE [TOOLS.json] --port PORT # HTTP on 127.0.0.1

Modes: `tools` (list the file's tools), `silent` (never answer `tools/list`),
`deep` (a `tools/list` result nested 100,000 levels).
"""

from __future__ import annotations

import json
import pathlib
import sys
from typing import Any

import anyio

DEPTH = 100_000


def answer(mode: str, tools: list[Any], message: dict[str, Any]) -> str | None:
    """The JSON text that answers `message`, None for none (a notification), "" for never."""
    method = message.get("method")
    if "id" not in message or method is None:
        return None
    if method == "initialize":
        version = message.get("params", {}).get("protocolVersion", "2025-06-18")
        result: Any = {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile", "version": "1"},
        }
    elif method == "tools/list":
        if mode == "silent":
            return ""
        if mode == "deep":
            text = '{"jsonrpc":"2.0","id":%s,"result":{"tools":[],"x":%s%s}}'
            return text % (json.dumps(message["id"]), "[" * DEPTH, "]" * DEPTH)
        result = {"tools": tools}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": "ok"}]}
    elif method == "ping":
        result = {}
    else:
        error = {"code": -32601, "message": f"no method {method}"}
        return json.dumps({"jsonrpc": "2.0", "id": message["id"], "error": error})
    return json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result})


async def stdio(mode: str, tools: list[Any]) -> None:
    stdin = anyio.wrap_file(sys.stdin)
    async for line in stdin:
        reply = answer(mode, tools, json.loads(line))
        if reply:
            sys.stdout.write(reply + "\n")
            sys.stdout.flush()


def http(mode: str, tools: list[Any], port: int) -> None:
    import uvicorn
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    async def endpoint(request: Request) -> Response:
        if request.method != "POST":
            return Response(status_code=405)
        reply = answer(mode, tools, json.loads(await request.body()))
        if reply is None:
            return Response(status_code=202)
        if reply == "":
            await anyio.sleep_forever()
        return Response(reply, media_type="application/json")

    app = Starlette(routes=[Route("/mcp", endpoint, methods=["GET", "POST", "DELETE"])])
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def main(argv: list[str]) -> None:
    port = None
    if "--port" in argv:
        at = argv.index("--port")
        port = int(argv[at + 1])
        del argv[at : at + 2]
    mode, *rest = argv
    tools = json.loads(pathlib.Path(rest[0]).read_text("utf-8")) if rest else []
    if port is None:
        anyio.run(stdio, mode, tools)
    else:
        http(mode, tools, port)


if __name__ == "__main__":
    main(sys.argv[1:])
