"""The examples run offline and show what they promise."""

from __future__ import annotations

import pathlib
import subprocess
import sys
from typing import Any

EXAMPLES = pathlib.Path(__file__).parent.parent / "examples"


def _run(name: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLES / name)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


def test_demo_prints_the_schemas() -> None:
    done = _run("demo.py")
    assert "== get_weather: Get the current weather for a city." in done.stdout
    assert '"additionalProperties": false' in done.stdout
    assert done.stderr == ""


def test_agent_loop_runs_every_provider() -> None:
    done = _run("agent_loop.py")
    for name in ("openai", "openai_responses", "anthropic", "gemini", "mcp"):
        assert f"=== {name}" in done.stdout
    assert done.stdout.count("model: It is sunny in Paris") == 4
    # the whole text the model reads, MCP included, not its first line
    assert done.stdout.count("- town: unknown argument; valid arguments: city") == 5
    assert done.stdout.count("- city: required property is missing") == 5
    assert done.stdout.count("RuntimeError: calendar service unavailable") == 5
    assert done.stdout.count("[UI, not sent to the model]") == 4
    assert done.stderr == ""


def test_mcp_agent_mounts_an_mcp_server_beside_a_local_tool_for_every_api() -> None:
    done = _run("mcp_agent.py")
    assert done.stdout.splitlines()[0] == (
        "tools: ['get_weather', 'time_get_current_time', 'time_convert_time']"
    )
    for name in ("openai", "openai_responses", "anthropic", "gemini"):
        assert f"=== {name}: " in done.stdout
    assert done.stdout.count("get_weather -> ok: 22 degrees and sunny in Tokyo") == 4
    assert (
        done.stdout.count('time_get_current_time -> ok: {   "timezone": "Asia/Tokyo"')
        == 4
    )
    assert (
        done.stdout.count(
            'time_convert_time -> error: Invalid arguments for tool "time_convert_time": '
            "- target_timezone: required property is missing"
        )
        == 4
    )
    assert done.stdout.count("model: It is sunny in Tokyo") == 4


def test_vision_loop_sends_the_chart_to_every_api_as_media() -> None:
    done = _run("vision_loop.py")
    for name in ("openai", "openai_responses", "anthropic", "gemini", "mcp"):
        assert f"=== {name}" in done.stdout
    assert (
        '"type": "image_url"' in done.stdout
    )  # Chat: the user message after the tool message
    assert '"type": "input_image"' in done.stdout  # Responses
    assert '"media_type": "image/png"' in done.stdout  # Anthropic
    assert '"displayName": "sales_chart-1.png"' in done.stdout  # Gemini
    assert '"mimeType": "image/png"' in done.stdout  # MCP
    assert done.stdout.count("Sales of the last 3 months: [3, 5, 4].") == 5
    assert done.stderr == ""


def test_many_tools_sends_a_fraction_of_the_catalog_on_every_api() -> None:
    done = _run("many_tools.py")
    assert done.stderr == ""
    sections = done.stdout.split("\n=== ")[1:]
    assert [section.split(":")[0] for section in sections] == [
        "openai",
        "openai_responses",
        "anthropic",
        "gemini",
        "mcp",
    ]
    for section in sections:
        assert "254 tools, 252 deferred" in section
        requests = [line for line in section.splitlines() if line.startswith("request")]
        assert len(requests) == 4
        for line in requests:
            numbers = [
                int(word.replace(",", ""))
                for word in line.replace("(", " ").split()
                if word.replace(",", "").isdigit()
            ]
            with_deferral, without = numbers[0], numbers[1]
            # what the model reads of the request
            read = numbers[2] if len(numbers) > 2 else with_deferral
            assert read * 10 < without
        assert "found gh_create_issue" in section
        assert "found cal_create_meeting_room" in section
        assert "gh_create_issue -> create_issue: done" in section
        assert "cal_create_meeting_room -> create_meeting_room: done" in section
        assert "the model answers" in section


def test_the_conformance_server_answers_as_the_suite_expects() -> None:
    """What `make conformance` checks with the official suite, in process, without Node."""
    import asyncio
    import importlib.util

    from mcp_types.methods import validate_server_result

    from toolkit import mcp

    spec = importlib.util.spec_from_file_location(
        "mcp_conformance_server", EXAMPLES / "mcp_conformance_server.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    listed = mcp.tools(module.tools)
    validate_server_result("tools/list", "2025-11-25", {"tools": listed})
    assert all(item["description"] for item in listed)
    schema = {item["name"]: item for item in listed}["json_schema_2020_12_tool"][
        "inputSchema"
    ]
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert "address" in schema["$defs"]
    assert schema["additionalProperties"] is False

    def call(name: str) -> dict[str, Any]:
        (sent,) = asyncio.run(mcp.handle(module.tools, "a", {"name": name}))
        validate_server_result("tools/call", "2025-11-25", sent)
        return sent

    assert call("test_simple_text")["content"] == [
        {"type": "text", "text": "This is a simple text response for testing."}
    ]
    failed = call("test_error_handling")
    assert failed["isError"] is True
    assert failed["content"] == [
        {"type": "text", "text": "This tool intentionally returns an error for testing"}
    ]
    image = call("test_image_content")["content"]
    assert [(block["type"], block["mimeType"]) for block in image] == [
        ("image", "image/png")
    ]
    audio = call("test_audio_content")["content"]
    assert [(block["type"], block["mimeType"]) for block in audio] == [
        ("audio", "audio/wav")
    ]
    assert call("test_embedded_resource")["content"] == [
        {
            "type": "resource",
            "resource": {
                "uri": "test://embedded-resource",
                "mimeType": "text/plain",
                "text": "This is an embedded resource content.",
            },
        }
    ]
    mixed = call("test_multiple_content_types")["content"]
    assert [block["type"] for block in mixed] == ["text", "image", "resource"]


def test_mcp_agent_says_in_one_line_when_the_time_server_cannot_start(
    tmp_path: pathlib.Path,
) -> None:
    # A package that shadows the real server and exits before it speaks MCP:
    # `python -m` finds it first in the working folder the server inherits.
    broken = tmp_path / "mcp_server_time"
    broken.mkdir()
    (broken / "__init__.py").write_text("")
    (broken / "__main__.py").write_text("raise SystemExit(3)\n")
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "mcp_agent.py")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 1
    assert done.stdout == ""
    [line] = done.stderr.splitlines()
    assert line.startswith('mcp_agent.py: Cannot connect to MCP server "')
