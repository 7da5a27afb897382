"""The examples run offline and show what they promise."""

from __future__ import annotations

import pathlib
import subprocess
import sys

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
