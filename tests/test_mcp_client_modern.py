"""`mcp.connect` against servers of MCP 2026-07-28: tasks, header parameters, caching hints.

The servers are toolkit's own (the app `toolkit serve --http` runs, served
in this process so that the test sees what reached it) and one written with
the SDK's own `MCPServer`. Every wait is a bounded number of looks.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Annotated, Any

import pytest
from mcp.server.mcpserver import (
    AcceptedElicitation,
    Elicit,
    ElicitationResult,
    MCPServer,
    Resolve,
)
from pydantic import BaseModel, Field

from tests import servers
from tests.conftest import call
from tests.test_mcp_http import served
from toolkit import Context, Elicited, Param, ToolResult, ToolSet, mcp
from toolkit.mcp._task_store import MemoryTaskStore

tools = ToolSet()
stopped: list[str] = []


@tools.tool(task="required")
async def report(quarter: str, seconds: float = 0.5) -> str:
    """Build a report, as a task only.

    Args:
        quarter: Which quarter.
        seconds: How long it takes.
    """
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        stopped.append(quarter)
        raise
    return f"report for {quarter}"


@tools.tool(task="required")
async def confirm(ctx: Context) -> str:
    """Ask for a confirmation once the task has started."""
    await asyncio.sleep(0.3)
    form = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    answer = await ctx.elicit("Sure?", form, key="sure")
    return f"{answer.action}, ok={(answer.data or {}).get('ok')}"


@tools.tool(task="required")
async def breaks() -> str:
    """Fail after a moment."""
    await asyncio.sleep(0.3)
    message = "out of paper"
    raise ValueError(message)


@tools.tool
async def ask(ctx: Context) -> str:
    """Ask a question at once (an input-required result, not a task)."""
    form = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    answer = await ctx.elicit("Go?", form)
    return f"{answer.action}, ok={(answer.data or {}).get('ok')}"


@tools.tool
def where(region: Annotated[str, Param(header="Region")], text: str) -> str:
    """Say where.

    Args:
        region: The region, mirrored into the Mcp-Param-Region header.
        text: What to say.
    """
    return f"{text} in {region}"


class Host:
    """A user who accepts every question."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def elicit(
        self, context: Context, message: str, schema: dict[str, Any]
    ) -> Elicited[dict[str, Any]]:
        self.asked.append(message)
        return Elicited("accept", {"ok": True})


class CountingStore(MemoryTaskStore):
    """The in-memory task store, counting the tasks made."""

    def __init__(self) -> None:
        super().__init__()
        self.made: list[str] = []

    async def save(self, task_id: str, record: dict[str, Any], ttl: float) -> None:
        if record["status"] == "working" and task_id not in self.made:
            self.made.append(task_id)
        await super().save(task_id, record, ttl)


class Recorded:
    """An ASGI app that keeps the method and headers of each JSON-RPC POST, then runs `app`."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.posts: list[dict[str, str]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            headers = {k.decode(): v.decode() for k, v in scope["headers"]}
            self.posts.append(headers)
        await self.app(scope, receive, send)

    def methods(self) -> list[str]:
        return [post.get("mcp-method", "") for post in self.posts]


@contextlib.asynccontextmanager
async def toolkit_server(**options: Any) -> AsyncIterator[tuple[str, Recorded]]:
    app = Recorded(mcp.asgi_app(tools, stateless=True, **options))
    async with served(app) as base:
        yield base + "/mcp", app


def run(main: Any) -> None:
    servers.run(main, 120)


pytestmark = pytest.mark.usefixtures("quick_backoff")


async def until(condition: Any) -> None:
    for _ in range(200):  # 200 looks at most, 0.05 s apart
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the condition never held")


# ---------------------------------------------------------------- tasks


def test_a_task_is_followed_to_its_result_as_a_normal_call_gives_it() -> None:
    async def main() -> None:
        store = CountingStore()
        host = Host()
        async with (
            toolkit_server(task_store=store) as (url, app),
            mcp.connect(url, host=host) as remote,
        ):
            assert await call(remote, "report", {"quarter": "Q3"}) == ToolResult(
                "report for Q3"
            )
            assert len(store.made) == 1  # it ran as a task
            methods = app.methods()
            assert "tasks/get" in methods
            assert "tasks/cancel" not in methods
            # The task's question reached the host; its answer went with tasks/update.
            assert await call(remote, "confirm") == ToolResult("accept, ok=True")
            assert host.asked == ["Sure?"]
            assert "tasks/update" in app.methods()
            failed = await call(remote, "breaks")
            assert failed.is_error
            assert "out of paper" in failed.text
            assert len(store.made) == 3
        tasks_get = [
            post for post in app.posts if post.get("mcp-method") == "tasks/get"
        ]
        assert all(post["mcp-name"] == store.made[0] for post in tasks_get[:1])

    run(main)


def test_a_task_is_cancelled_when_its_call_times_out_or_its_caller_is_cancelled() -> (
    None
):
    async def main() -> None:
        stopped.clear()
        store = CountingStore()
        async with toolkit_server(task_store=store) as (url, app):
            async with mcp.connect(url, timeout=2) as remote:
                late = await call(remote, "report", {"quarter": "late", "seconds": 60})
                assert late.is_error
                assert "no answer within 2 seconds; the call was cancelled" in late.text
                assert len(store.made) == 1  # it became a task, then timed out
                await until(lambda: stopped == ["late"])
            async with mcp.connect(url) as remote:
                running = asyncio.ensure_future(
                    call(remote, "report", {"quarter": "dropped", "seconds": 60})
                )
                polled = app.methods().count("tasks/get")
                # Cancelled once the client follows the task (before, it has no task id).
                await until(lambda: app.methods().count("tasks/get") > polled)
                running.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await running
                await until(lambda: stopped == ["late", "dropped"])
        assert app.methods().count("tasks/cancel") == 2

    run(main)


# ---------------------------------------------------------------- input-required, headers, caching


def test_an_input_required_result_is_answered_by_the_host() -> None:
    async def main() -> None:
        host = Host()
        async with (
            toolkit_server() as (url, app),
            mcp.connect(url, host=host) as remote,
        ):
            assert await call(remote, "ask") == ToolResult("accept, ok=True")
        assert host.asked == ["Go?"]
        assert app.methods().count("tools/call") == 2  # asked, then answered

    run(main)


def test_a_header_parameter_is_sent_as_its_mcp_param_header() -> None:
    async def main() -> None:
        async with toolkit_server() as (url, app), mcp.connect(url) as remote:
            result = await call(remote, "where", {"region": "eu-west1", "text": "hi"})
            assert result == ToolResult("hi in eu-west1")
            plain = await call(remote, "where", {"region": "über", "text": "hi"})
            assert plain == ToolResult("hi in über")
        calls = [post for post in app.posts if post.get("mcp-method") == "tools/call"]
        assert calls[0]["mcp-param-region"] == "eu-west1"
        assert calls[1]["mcp-param-region"].startswith("=?base64?")  # not ASCII

    run(main)


def test_the_tool_list_is_kept_for_its_ttl_across_reconnections() -> None:
    from tests.test_mcp_client import tools_link

    async def reconnect(remote: Any) -> None:
        tools_link(remote).end("the test ended it")
        assert await call(remote, "where", {"region": "r", "text": "t"}) == ToolResult(
            "t in r"
        )

    async def main() -> None:
        async with (
            toolkit_server(cache_ttl=60) as (url, app),
            mcp.connect(url) as remote,
        ):
            await reconnect(remote)
        assert app.methods().count("tools/list") == 1
        async with (
            toolkit_server(cache_ttl=0) as (url, app),
            mcp.connect(url) as remote,
        ):
            await reconnect(remote)
        assert app.methods().count("tools/list") == 2

    run(main)


# ---------------------------------------------------------------- a server of the SDK's own


class Answer(BaseModel):
    """The answer to the SDK server's question."""

    ok: bool = False


def question() -> Elicit[Answer]:
    return Elicit("Go?", Answer)


def sdk_server() -> MCPServer:
    """An `MCPServer` with a header parameter and a question asked before the tool runs."""
    server = MCPServer("sdk")

    @server.tool()
    def where(
        region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})],
        text: str,
    ) -> str:
        """Say where."""
        return f"{text} in {region}"

    @server.tool()
    def ask(answer: Annotated[ElicitationResult[Answer], Resolve(question)]) -> str:
        """Ask a question first."""
        if isinstance(answer, AcceptedElicitation):
            return f"accept, ok={answer.data.ok}"
        return answer.action

    return server


def test_an_sdk_server_gets_header_parameters_and_its_questions_answered() -> None:
    from tests.test_mcp_client import tools_link

    async def main() -> None:
        host = Host()
        app = Recorded(sdk_server().streamable_http_app())
        async with served(app) as base, mcp.connect(base + "/mcp", host=host) as remote:
            assert tools_link(remote).client.protocol_version == "2026-07-28"
            result = await call(remote, "where", {"region": "eu-west1", "text": "hi"})
            assert result.text == "hi in eu-west1"
            assert (await call(remote, "ask")).text == "accept, ok=True"
        assert host.asked == ["Go?"]
        calls = [post for post in app.posts if post.get("mcp-method") == "tools/call"]
        assert calls[0]["mcp-param-region"] == "eu-west1"
        assert len(calls) == 3  # where; ask, then ask again with the answer

    run(main)
