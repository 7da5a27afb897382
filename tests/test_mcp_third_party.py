"""`mcp.connect` with MCP servers nobody here wrote, started by the tests themselves.

- `mcp-server-time` and `mcp-server-git` (PyPI, the official reference
  servers, Python; in the test dependency group), over stdio.
- `@modelcontextprotocol/server-everything` (npm, the reference server that
  exercises every feature, TypeScript), over stdio and streamable HTTP,
  started with `npx -y`. Its HTTP server listens on one port of every
  address; a preloaded script (tests/loopback.cjs) keeps it on 127.0.0.1.

Each server's tools are exported to every API and checked with that API's
own SDK types, then called.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from google.genai import types as genai
from mcp import types as mcp_types
from openai.types.chat import ChatCompletionFunctionToolParam
from openai.types.responses import FunctionToolParam

from tests import servers
from tests.conftest import assert_valid_schema, call
from tests.providers.oracles import assert_round_trip, assert_typed_dict
from tests.servers import free_port, wait_for_port
from toolkit import Image, Resource, ResourceLink, Text, ToolResult, ToolSet, lint, mcp

ROOT = pathlib.Path(__file__).parent.parent
LIMIT = 120  # seconds, for each test: npx may fetch its package first
NPX = shutil.which("npx")
EVERYTHING = "@modelcontextprotocol/server-everything"
LOOPBACK = str(ROOT / "tests" / "loopback.cjs")

needs_npx = pytest.mark.skipif(
    NPX is None, reason="npx (Node.js) is not installed, so the npm server cannot run"
)


def run(main: Callable[[], Awaitable[None]]) -> None:
    servers.run(main, LIMIT)


def assert_every_api_accepts(tools: ToolSet) -> None:
    """Each export of the remote tools is what each SDK's types accept."""
    from anthropic.types import ToolParam

    for strict in (False, True):
        for definition in tools.export("openai", strict=strict):
            assert_typed_dict(definition, ChatCompletionFunctionToolParam)
            assert isinstance(definition["function"]["strict"], bool)
            assert_valid_schema(definition["function"]["parameters"])
        for definition in tools.export("openai_responses", strict=strict):
            assert_typed_dict(definition, FunctionToolParam)
        for definition in tools.export("anthropic", strict=strict):
            assert_typed_dict(definition, ToolParam)
    genai.Tool.model_validate(tools.export("gemini")[0])
    for definition in tools.export("mcp"):
        assert_round_trip(mcp_types.Tool, definition)
    assert [
        finding.code for finding in lint(tools) if finding.code == "invalid-name"
    ] == []


# ---------------------------------------------------------------- mcp-server-time


TIME = [sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"]


def test_mcp_server_time() -> None:
    async def main() -> None:
        async with mcp.connect(TIME) as tools:
            assert tools.names == ["get_current_time", "convert_time"]
            assert_every_api_accepts(tools)
            now = await call(tools, "get_current_time", {"timezone": "Asia/Tokyo"})
            assert not now.is_error
            assert now.structured["timezone"] == "Asia/Tokyo"
            assert json.loads(now.text) == now.structured
            converted = await call(
                tools,
                "convert_time",
                {
                    "source_timezone": "UTC",
                    "time": "12:00",
                    "target_timezone": "Asia/Tokyo",
                },
            )
            assert converted.structured["target"]["datetime"].endswith(
                "T21:00:00+09:00"
            )
            assert converted.structured["time_difference"] == "+9.0h"
            # checked here, never sent: the same message as a local tool
            assert await call(tools, "get_current_time") == ToolResult.error(
                'Invalid arguments for tool "get_current_time":\n'
                "- timezone: required property is missing"
            )
            # sent, and refused by the server: its own error result
            mars = await call(tools, "get_current_time", {"timezone": "Mars/Base"})
            assert mars.is_error
            assert "Mars/Base" in mars.text

    run(main)


def test_mcp_server_time_next_to_local_tools_through_a_provider() -> None:
    from toolkit import tool
    from toolkit.providers import anthropic

    @tool
    def add(a: int, b: int) -> int:
        """Add two numbers.

        Args:
            a: The first.
            b: The second.
        """
        return a + b

    async def main() -> None:
        async with mcp.connect(TIME) as remote:
            tools = ToolSet([add]) | remote.prefixed("time_")
            reply = await anthropic.handle(
                tools,
                "agent",
                {
                    "role": "assistant",
                    "content": [
                        {
                            "type": "tool_use",
                            "id": "t1",
                            "name": "add",
                            "input": {"a": 1, "b": 2},
                        },
                        {
                            "type": "tool_use",
                            "id": "t2",
                            "name": "time_get_current_time",
                            "input": {"timezone": "UTC"},
                        },
                    ],
                },
            )
            blocks = reply["content"]
            assert blocks[0] == {
                "type": "tool_result",
                "tool_use_id": "t1",
                "content": "3",
                "is_error": False,
            }
            assert blocks[1]["tool_use_id"] == "t2"
            assert json.loads(blocks[1]["content"])["timezone"] == "UTC"

    run(main)


# ---------------------------------------------------------------- mcp-server-git


def test_mcp_server_git(tmp_path: pathlib.Path) -> None:
    repo = tmp_path / "repo"

    def git(*args: str) -> None:
        subprocess.run(
            [
                "git",
                "-C",
                str(repo),
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@example.com",
                *args,
            ],
            check=True,
            capture_output=True,
        )

    repo.mkdir()
    git("init", "-q", "-b", "main")
    (repo / "notes.txt").write_text("first\n", encoding="utf-8")
    git("add", "notes.txt")
    git("commit", "-qm", "The first commit")
    (repo / "notes.txt").write_text("first\nsecond\n", encoding="utf-8")

    async def main() -> None:
        command = [sys.executable, "-m", "mcp_server_git", "--repository", str(repo)]
        async with mcp.connect(command) as tools:
            assert {"git_status", "git_log", "git_diff_unstaged", "git_add"} <= set(
                tools.names
            )
            assert_every_api_accepts(tools)
            status = await call(tools, "git_status", {"repo_path": str(repo)})
            assert not status.is_error
            assert "modified:   notes.txt" in status.text
            log = await call(tools, "git_log", {"repo_path": str(repo)})
            assert "Message: The first commit" in log.text
            diff = await call(tools, "git_diff_unstaged", {"repo_path": str(repo)})
            assert "+second" in diff.text
            # minItems from the server's schema, checked here
            empty = await call(tools, "git_add", {"repo_path": str(repo), "files": []})
            assert empty.is_error
            assert empty.text.startswith(
                'Invalid arguments for tool "git_add":\n- files:'
            )

    run(main)


# ---------------------------------------------------------------- server-everything


class Progress:
    """A host that keeps the progress reports."""

    def __init__(self) -> None:
        self.reports: list[tuple[float, float | None]] = []

    async def progress(
        self, context: Any, progress: float, total: float | None, message: str | None
    ) -> None:
        self.reports.append((progress, total))


async def exercise_everything(tools: ToolSet, host: Progress) -> None:
    assert {"echo", "get-sum", "get-tiny-image", "get-structured-content"} <= set(
        tools.names
    )
    assert_every_api_accepts(tools)
    assert await call(tools, "echo", {"message": "hi"}) == ToolResult("Echo: hi")
    total = await call(tools, "get-sum", {"a": 2, "b": 3})
    assert not total.is_error
    assert "5" in total.text
    assert (await call(tools, "get-sum", {"a": "two", "b": 3})).text == (
        'Invalid arguments for tool "get-sum":\n- a: expected number, got string "two"'
    )
    image = await call(tools, "get-tiny-image")
    pictures = [part for part in image.content if isinstance(part, Image)]
    assert len(pictures) == 1
    assert pictures[0].mime_type == "image/png"
    assert pictures[0].data is not None
    assert pictures[0].data.startswith(b"\x89PNG")
    assert all(isinstance(part, (Text, Image)) for part in image.content)
    weather = await call(tools, "get-structured-content", {"location": "Chicago"})
    assert isinstance(weather.structured, dict)
    assert tools["get-structured-content"].output_schema is not None
    links = await call(tools, "get-resource-links", {"count": 2})
    assert [type(part) for part in links.content].count(ResourceLink) == 2
    embedded = await call(tools, "get-resource-reference", {"resourceType": "Text"})
    resources = [part for part in embedded.content if isinstance(part, Resource)]
    assert len(resources) == 1
    long_running = await call(
        tools, "trigger-long-running-operation", {"duration": 1, "steps": 2}
    )
    assert not long_running.is_error
    assert host.reports == [(1.0, 2.0), (2.0, 2.0)]


@needs_npx
def test_server_everything_over_stdio() -> None:
    host = Progress()

    async def main() -> None:
        assert NPX is not None  # needs_npx
        async with mcp.connect(
            [NPX, "-y", EVERYTHING, "stdio"], host=host, env=_node_env()
        ) as tools:
            await exercise_everything(tools, host)

    run(main)


def _node_env() -> dict[str, str]:
    """npm's cache and the loopback preload, for a server started with the SDK's short environment."""
    env = {"NODE_OPTIONS": f"--require {LOOPBACK}"}
    for name in ("npm_config_cache", "NPM_CONFIG_CACHE", "npm_config_registry"):
        if name in os.environ:
            env[name] = os.environ[name]
    return env


@contextlib.contextmanager
def everything_over_http(port: int) -> Iterator[None]:
    assert NPX is not None  # needs_npx
    env = {**os.environ, **_node_env(), "PORT": str(port)}
    process = subprocess.Popen(
        [NPX, "-y", EVERYTHING, "streamableHttp"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # npx starts node: stop both together
    )
    try:
        wait_for_port(process, port, limit=LIMIT, poll=0.1)
        yield
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=15)


@needs_npx
def test_server_everything_over_streamable_http() -> None:
    host = Progress()
    port = free_port()

    async def main() -> None:
        async with mcp.connect(f"http://127.0.0.1:{port}/mcp", host=host) as tools:
            await exercise_everything(tools, host)

    with everything_over_http(port):
        run(main)
