"""The help the `toolkit` command prints: what a TARGET is, and each command's examples."""

from __future__ import annotations

from typing import Final

__all__ = ["EXAMPLES", "PYTHON_TARGET_HELP", "TARGET_HELP"]

PYTHON_TARGET_HELP = "path/to/file.py or package.module, optionally :attribute (a ToolSet, a Tool or a list)"
TARGET_HELP = (
    f"{PYTHON_TARGET_HELP}; "
    'or an MCP server: mcp:"COMMAND LINE" (stdio) or mcp:URL (streamable HTTP)'
)

EXAMPLES: Final = {
    "toolkit": """\
examples:
  toolkit init
  toolkit schema tools.py --format openai
  toolkit call tools.py word_count '{"text": "to be or not to be"}'
  toolkit lint tools.py
  toolkit serve tools.py
  toolkit dev tools.py
  toolkit install claude-desktop tools.py
""",
    "schema": """\
examples:
  toolkit schema tools.py
  toolkit schema tools.py --format openai --strict
  toolkit schema tools.py:tools --format anthropic
  toolkit schema my_package.tools --format gemini
  toolkit schema mcp:"uvx mcp-server-time" --format gemini
""",
    "call": """\
examples:
  toolkit call tools.py word_count '{"text": "to be or not to be", "unique": true}'
  toolkit call tools.py:tools capital '{"country": "Japan"}' --agent-id me
  toolkit call my_package.tools list_files
  toolkit call tools.py screenshot '{"url": "https://example.com"}' --save-parts out/
  toolkit call mcp:http://127.0.0.1:8000/mcp get_weather '{"city": "Paris"}'
""",
    "lint": """\
examples:
  toolkit lint tools.py
  toolkit lint tools.py:tools
  toolkit lint tools.py --gemini-openapi
  toolkit lint mcp:"npx -y @modelcontextprotocol/server-everything"
""",
    "budget": """\
examples:
  toolkit budget tools.py
  toolkit budget tools.py:tools --format anthropic
  toolkit budget mcp:"uvx mcp-server-time" --format openai
""",
    "serve": """\
examples:
  toolkit serve tools.py
  toolkit serve /absolute/path/to/tools.py:tools
  toolkit serve tools.py --http 127.0.0.1:8000
  toolkit serve tools.py --http 0.0.0.0:8000 --auth-token-env TOKEN --allowed-host tools.example.com
  toolkit serve pkg.tools --http 0.0.0.0:8000 --no-auth --stateless --workers 4
""",
    "dev": """\
examples:
  toolkit dev tools.py
  toolkit dev tools.py:tools --dry-run
""",
    "install": """\
examples:
  toolkit install claude-desktop tools.py --dry-run
  toolkit install cursor tools.py:tools --name weather
  toolkit install vscode tools.py --env API_KEY=secret
  toolkit install claude-code /absolute/path/to/tools.py
""",
    "init": """\
examples:
  toolkit init
  toolkit init my_tools
""",
}
