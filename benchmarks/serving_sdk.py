"""The MCP SDK's own `MCPServer` serving `add`, as `serving.py` measures it.

python benchmarks/serving_sdk.py stdio
python benchmarks/serving_sdk.py http PORT
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from mcp.server.mcpserver import MCPServer
from serving_tools import add

server = MCPServer("sdk")
server.tool()(add)

if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        server.run("stdio")
    else:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
