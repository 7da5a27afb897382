"""An MCP server written with the `mcp` SDK's own `MCPServer`, for the client tests.

It has what a toolkit server never has: tool names that some LLM APIs
reject, a tool list that changes while clients are connected, and tools
that ask the client something during a call (a completion, a question),
log and report progress.

    python tests/mcp_sdk_server.py            # stdio
    python tests/mcp_sdk_server.py 8765       # streamable HTTP on 127.0.0.1:8765
"""

from __future__ import annotations

import sys
import warnings
from typing import Annotated

from mcp.server.mcpserver import (
    AcceptedElicitation,
    Context,
    Elicit,
    ElicitationResult,
    ListRoots,
    MCPServer,
    Resolve,
    Sample,
)
from mcp.types import CreateMessageResult, ListRootsResult, SamplingMessage, TextContent
from pydantic import BaseModel

server = MCPServer("sdk-test-server")


def read(path: str) -> str:
    """Read a file."""
    return f"read {path}"


def move(source: str, target: str) -> str:
    """Move a file."""
    return f"moved {source} to {target}"


def long_named() -> str:
    """A tool whose name is longer than the APIs allow."""
    return "long"


server.add_tool(read, name="files.read")
server.add_tool(move, name="files/move")
server.add_tool(long_named, name="very_" + "long_" * 14 + "name")
server.add_tool(read, name="2nd-read", description="Read a file, again.")


@server.tool()
async def grow(name: str, ctx: Context) -> str:
    """Add a tool called `name` and tell the connected clients."""

    def added(value: int) -> int:
        """Give the value back."""
        return value

    server.add_tool(added, name=name)
    await (
        ctx.notify_tools_changed()
    )  # clients that listen (protocol 2026-07-28 and later)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        await ctx.session.send_tool_list_changed()  # clients of earlier versions
    return f"added {name}"


class Answer(BaseModel):
    """The answer to `ask`."""

    name: str = "Ada"


def _question(question: str) -> Elicit[Answer]:
    return Elicit(question, Answer)


@server.tool()
async def ask(
    question: str,
    answer: Annotated[ElicitationResult[Answer], Resolve(_question)],
) -> str:
    """Ask the user a question."""
    if isinstance(answer, AcceptedElicitation):
        return f"accept: {answer.data.name}"
    return answer.action


def _summary(text: str) -> Sample:
    message = SamplingMessage(role="user", content=TextContent(type="text", text=text))
    return Sample([message], max_tokens=50, system_prompt="Be brief.")


@server.tool()
async def summarise(
    text: str, summary: Annotated[CreateMessageResult, Resolve(_summary)]
) -> str:
    """Ask the client's model for a summary."""
    content = summary.content
    return content.text if isinstance(content, TextContent) else str(content)


def _roots() -> ListRoots:
    return ListRoots()


@server.tool()
async def roots(found: Annotated[ListRootsResult, Resolve(_roots)]) -> list[str]:
    """The client's roots."""
    return [str(root.uri) for root in found.roots]


@server.tool()
async def chatty(ctx: Context) -> str:
    """Log a line and report progress twice."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        await ctx.info("starting")
    await ctx.report_progress(1, 2, "half way")
    await ctx.report_progress(2, 2, "done")
    return "ok"


if __name__ == "__main__":
    if len(sys.argv) > 1:
        server.settings.port = int(sys.argv[1])  # type: ignore[attr-defined]
        server.run("streamable-http")
    else:
        server.run("stdio")
