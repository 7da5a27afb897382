"""Every served call reaches the client, whatever in it asks: the tool, middleware, approval, or a call it makes.

A tool that takes no `Context` may still make a call that asks (a gateway
calling another set's tool), and a set's middleware and approval rule ask
for tools that take none. Each case is driven with the official client at
both protocol generations: the question reaches the client's callbacks.
"""

from __future__ import annotations

import asyncio
from typing import Any

import mcp.types as types
import pytest
from mcp.client import Client

from toolkit import Context, ToolCall, ToolResult, ToolSet, tool
from toolkit.mcp import build_server

MODES = ["legacy", "2026-07-28"]
WHO = {"type": "object", "properties": {"name": {"type": "string"}}}


@tool
def plain(name: str) -> str:
    """Greet someone."""
    return f"Hello, {name}"


@tool(requires_approval=True)
def guarded(path: str) -> str:
    """Delete a file (asks first)."""
    return f"deleted {path}"


class User:
    """The client's user: approves, and says who it is."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def elicitation(self, context: Any, params: Any) -> types.ElicitResult:
        self.asked.append(params.message)
        if "Allow the tool" in params.message:
            return types.ElicitResult(action="accept", content={"approve": True})
        return types.ElicitResult(action="accept", content={"name": "Ann"})


async def _call(
    toolset: ToolSet, mode: str, name: str, args: dict[str, Any]
) -> tuple[str, list[str]]:
    user = User()
    async with Client(
        build_server(toolset), mode=mode, elicitation_callback=user.elicitation
    ) as client:
        result = await client.call_tool(name, args)
    text = "".join(b.text for b in result.content if isinstance(b, types.TextContent))
    return text, user.asked


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 60))


@pytest.mark.parametrize("mode", MODES)
def test_a_plain_tool_of_a_plain_set_answers(mode: str) -> None:
    text, asked = run(_call(ToolSet([plain]), mode, "plain", {"name": "Ada"}))
    assert (text, asked) == ("Hello, Ada", [])


@pytest.mark.parametrize("mode", MODES)
def test_middleware_asks_the_client_for_a_tool_without_a_context(mode: str) -> None:
    toolset = ToolSet([plain])

    @toolset.use
    async def who_asks(call: ToolCall, context: Context, call_next: Any) -> ToolResult:
        answer = await context.elicit("Who are you?", WHO)
        result: ToolResult = await call_next(call)
        return ToolResult.ok(f"{result.text} (asked {answer.data!r})")

    text, asked = run(_call(toolset, mode, "plain", {"name": "Ada"}))
    assert asked == ["Who are you?"]
    assert text == "Hello, Ada (asked {'name': 'Ann'})"


@pytest.mark.parametrize("mode", MODES)
def test_a_tool_that_waits_for_approval_asks_the_client(mode: str) -> None:
    text, asked = run(_call(ToolSet([guarded]), mode, "guarded", {"path": "a.txt"}))
    assert text == "deleted a.txt"
    assert len(asked) == 1
    assert asked[0].startswith('Allow the tool "guarded"')


@pytest.mark.parametrize("mode", MODES)
def test_a_call_made_by_a_tool_without_a_context_asks_the_client(mode: str) -> None:
    inner = ToolSet()

    @inner.tool
    async def who(ctx: Context) -> str:
        """Ask who the user is."""
        answer = await ctx.elicit("Who are you?", WHO)
        return f"asked: {answer.data!r}"

    @tool
    async def delegate() -> str:
        """Hand the question to another set's tool."""
        result = await inner.aexecute("a", "inner", "who", {})
        return result.text

    text, asked = run(_call(ToolSet([delegate]), mode, "delegate", {}))
    assert asked == ["Who are you?"]
    assert text == "asked: {'name': 'Ann'}"


@pytest.mark.parametrize("mode", MODES)
def test_a_sets_approval_rule_asks_the_client_for_a_plain_tool(mode: str) -> None:
    toolset = ToolSet([plain], requires_approval=True)
    text, asked = run(_call(toolset, mode, "plain", {"name": "Ada"}))
    assert text == "Hello, Ada"
    assert len(asked) == 1
    assert asked[0].startswith('Allow the tool "plain"')
