"""The MCP server, driven end to end by the official `mcp` client, over stdio and HTTP."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import pathlib
import select
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp.types import TextContent

from tests.servers import (
    finished,
    initialize,
    serving,
    stdio_server,
    stdio_session,
)

ROOT = pathlib.Path(__file__).parent.parent
TARGET = str(ROOT / "tests" / "sample_tools.py")
LIMIT = 60  # seconds, for each test


@contextlib.contextmanager
def http_server() -> Iterator[str]:
    """The sample tools served over HTTP; on the way out, SIGTERM ends the server cleanly."""
    with serving(TARGET) as (url, process):
        yield url
        process.send_signal(signal.SIGTERM)
        code, stderr = finished(process, 15)
        assert code == 0, stderr


@contextlib.asynccontextmanager
async def http_session(url: str) -> AsyncIterator[ClientSession]:
    async with (
        streamable_http_client(url) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


async def _exercise(session: ClientSession) -> None:
    listed = await session.list_tools()
    by_name = {item.name: item for item in listed.tools}
    assert list(by_name) == ["get_weather", "search", "file_category", "show_map"]
    weather = by_name["get_weather"]
    assert weather.title == "Weather"
    assert weather.input_schema["required"] == ["city"]
    assert weather.annotations is not None
    assert weather.annotations.read_only_hint is True
    assert by_name["show_map"].output_schema == {
        "type": "object",
        "additionalProperties": {"type": "number"},
        "description": "The centre that was shown.",
    }

    ok = await session.call_tool("get_weather", {"city": "Oslo"})
    assert (ok.is_error, _text(ok)) == (
        False,
        "Sunny in Oslo for 1 day(s), 22 degrees c",
    )

    bad = await session.call_tool("get_weather", {"city": 3})
    assert bad.is_error is True
    assert (
        _text(bad)
        == 'Invalid arguments for tool "get_weather":\n- city: expected string, got integer 3'
    )

    structured = await session.call_tool("show_map", {"lat": 1, "lon": 2})
    assert structured.structured_content == {"lat": 1.0, "lon": 2.0}
    assert json.loads(_text(structured)) == {"lat": 1.0, "lon": 2.0}

    listed_result = await session.call_tool("search", {"query": "mcp"})
    assert listed_result.structured_content == {
        "result": [{"title": "About mcp", "rank": 1}]
    }

    with pytest.raises(MCPError) as caught:
        await session.call_tool("nope", {})
    assert caught.value.error.code == -32602
    assert caught.value.error.message.startswith('Unknown tool "nope".')

    concurrent = await asyncio.gather(
        *(
            session.call_tool(
                "get_weather", {"city": f"c{index}", "days": 1 + index % 7}
            )
            for index in range(20)
        )
    )
    assert [_text(result) for result in concurrent] == [
        f"Sunny in c{index} for {1 + index % 7} day(s), 22 degrees c"
        for index in range(20)
    ]


def _text(result: Any) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


def test_stdio_end_to_end() -> None:
    async def main() -> None:
        with anyio.fail_after(LIMIT):
            async with stdio_session(TARGET) as session:
                await _exercise(session)

    anyio.run(main)


def test_http_end_to_end() -> None:
    async def main(url: str) -> None:
        with anyio.fail_after(LIMIT):
            async with http_session(url) as session:
                await _exercise(session)

    with http_server() as url:
        anyio.run(main, url)


def test_stdio_server_exits_when_stdin_closes() -> None:
    process = stdio_server(TARGET)
    _, stderr = process.communicate(b"", timeout=LIMIT)
    assert process.returncode == 0, stderr


def test_stdio_server_exits_cleanly_on_sigterm() -> None:
    process = stdio_server(TARGET)
    _wait_until_serving(process)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=LIMIT)
    assert process.returncode == 0, stderr


def _wait_until_serving(process: subprocess.Popen[bytes]) -> None:
    """Send `initialize` and wait for the answer: the server is then fully up.

    Waiting a fixed time instead fails on a loaded machine, where starting the
    interpreter and importing `mcp` can take several seconds.
    """
    assert process.stdin is not None
    assert process.stdout is not None
    request = initialize(1, "2025-06-18")
    process.stdin.write(json.dumps(request).encode() + b"\n")
    process.stdin.flush()
    ready, _, _ = select.select([process.stdout], [], [], LIMIT)
    assert ready, "the server did not answer initialize"
    answer = json.loads(process.stdout.readline())
    assert answer["id"] == 1
    assert "result" in answer, answer


def test_build_server_without_mcp_says_how_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from toolkit import mcp as provider

    monkeypatch.setitem(sys.modules, "mcp", None)
    with pytest.raises(ImportError, match=r'pip install "toolkit-llm\[mcp\]"'):
        provider.build_server(
            __import__("tests.sample_tools", fromlist=["tools"]).tools
        )


def test_build_server_serves_a_tool_or_a_list_and_refuses_other_items() -> None:
    from mcp import Client

    from toolkit import tool
    from toolkit.mcp import build_server

    @tool
    def double(n: int) -> int:
        """Double a number.

        Args:
            n: The number.
        """
        return 2 * n

    async def call(served: Any) -> tuple[bool | None, str]:
        with anyio.fail_after(LIMIT):
            async with Client(build_server(served)) as client:
                result = await client.call_tool("double", {"n": 4})
                text = "".join(
                    part.text
                    for part in result.content
                    if isinstance(part, TextContent)
                )
                return result.is_error, text

    assert anyio.run(call, [double]) == (False, "8")
    assert anyio.run(call, double) == (False, "8")
    with pytest.raises(
        TypeError, match="Expected a ToolSet, a Tool or a list of Tools"
    ):
        build_server([double, "not a tool"])  # type: ignore[list-item]


def test_parse_address() -> None:
    from toolkit.mcp import parse_address

    assert parse_address("127.0.0.1:8000") == ("127.0.0.1", 8000)
    assert parse_address(":9000") == ("127.0.0.1", 9000)
    assert parse_address("9000") == ("127.0.0.1", 9000)
    assert parse_address("[::1]:8000") == ("::1", 8000)
    for bad in ("host:", "host:http", "host:70000"):
        with pytest.raises(ValueError, match="give HOST:PORT"):
            parse_address(bad)


def test_served_content_parts_reach_the_official_client_as_mcp_content() -> None:
    """A tool returning an image, a file and a resource, served over stdio."""
    from mcp.types import EmbeddedResource, ImageContent, ResourceLink

    from tests import media

    async def main() -> None:
        params = StdioServerParameters(
            command=sys.executable,
            args=[
                "-m",
                "toolkit",
                "serve",
                str(ROOT / "tests" / "cli_targets" / "media.py"),
            ],
            cwd=str(ROOT),
        )
        with anyio.fail_after(LIMIT):
            async with (
                stdio_client(params) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                listed = await session.list_tools()
                assert all(item.output_schema is None for item in listed.tools)
                result = await session.call_tool("chart", {"title": "Sales"})
                assert result.is_error is False
                kinds = [type(block) for block in result.content]
                assert kinds == [
                    TextContent,
                    ImageContent,
                    EmbeddedResource,
                    ResourceLink,
                ]
                image = result.content[1]
                assert isinstance(image, ImageContent)
                assert (image.mime_type, base64.b64decode(image.data)) == (
                    "image/png",
                    media.png(),
                )
                notes = await session.call_tool("notes", {})
                embedded = notes.content[0]
                assert isinstance(embedded, EmbeddedResource)
                assert embedded.resource.model_dump(
                    by_alias=True, exclude_none=True
                ) == {
                    "uri": "file:///notes.md",
                    "mimeType": "text/markdown",
                    "text": "# Notes",
                }

    anyio.run(main)
