"""An agent whose tools are a local function and an MCP server's, with a scripted model for each API.

`mcp.connect` starts `mcp-server-time` (the reference time server, from
PyPI) over stdio and yields its tools as a `ToolSet`; they are prefixed
`time_` and put next to a local `get_weather`. Each "model" is a list of
responses shaped exactly like the real API's: the first asks for three
tools at once (the local one, the server's `get_current_time`, and the
server's `convert_time` with an argument missing, which is answered here
without reaching the server); the loop runs them concurrently, sends the
results back, and prints the model's answer.

    pip install "toolkit-llm[mcp]" mcp-server-time
    python examples/mcp_agent.py

No network and no API key: the server runs on this machine. Without
`mcp-server-time` installed here, the server is started with `uvx`; without
either, or when the server cannot start, the example says so in one line.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import shutil
import sys
from collections.abc import Callable
from typing import Any

from toolkit import ToolCall, ToolSet, mcp, tool
from toolkit.providers import anthropic, gemini, openai, openai_responses


def time_server() -> list[str] | str | None:
    """The command that starts mcp-server-time here, or None when nothing can."""
    if importlib.util.find_spec("mcp_server_time") is not None:
        return [sys.executable, "-m", "mcp_server_time", "--local-timezone", "UTC"]
    if shutil.which("uvx") is not None:
        return "uvx mcp-server-time --local-timezone UTC"
    return None


@tool
def get_weather(city: str) -> str:
    """Get the current weather for a city.

    Args:
        city: City name, for example "Tokyo".
    """
    return f"22 degrees and sunny in {city}"


ARGS = [
    ("get_weather", {"city": "Tokyo"}),
    ("time_get_current_time", {"timezone": "Asia/Tokyo"}),
    ("time_convert_time", {"source_timezone": "UTC", "time": "12:00"}),
]
FINAL = "It is sunny in Tokyo; I have the local time there."


# ----------------------------------------------------------- scripted responses


def openai_script() -> list[Any]:
    calls = [
        {
            "id": f"call_{index}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        }
        for index, (name, args) in enumerate(ARGS)
    ]
    message = {"role": "assistant", "content": None, "tool_calls": calls}
    return [
        {"choices": [{"index": 0, "finish_reason": "tool_calls", "message": message}]},
        {
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": FINAL},
                }
            ]
        },
    ]


def responses_script() -> list[Any]:
    calls = [
        {
            "type": "function_call",
            "id": f"fc_{index}",
            "call_id": f"call_{index}",
            "name": name,
            "arguments": json.dumps(args),
            "status": "completed",
        }
        for index, (name, args) in enumerate(ARGS)
    ]
    final = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": FINAL}],
    }
    return [{"output": calls}, {"output": [final]}]


def anthropic_script() -> list[Any]:
    blocks = [
        {"type": "tool_use", "id": f"toolu_{index}", "name": name, "input": args}
        for index, (name, args) in enumerate(ARGS)
    ]
    return [
        {"role": "assistant", "stop_reason": "tool_use", "content": blocks},
        {
            "role": "assistant",
            "stop_reason": "end_turn",
            "content": [{"type": "text", "text": FINAL}],
        },
    ]


def gemini_script() -> list[Any]:
    parts = [{"functionCall": {"name": name, "args": args}} for name, args in ARGS]
    return [
        {"candidates": [{"content": {"role": "model", "parts": parts}}]},
        {"candidates": [{"content": {"role": "model", "parts": [{"text": FINAL}]}}]},
    ]


SCRIPTS: dict[str, tuple[Any, Callable[[], list[Any]]]] = {
    "openai": (openai, openai_script),
    "openai_responses": (openai_responses, responses_script),
    "anthropic": (anthropic, anthropic_script),
    "gemini": (gemini, gemini_script),
}


# ----------------------------------------------------------- the loop


def final_text(response: Any) -> str | None:
    """The model's answer when it asks for no more tools (any of the four shapes)."""
    if "choices" in response:
        message = response["choices"][0]["message"]
        return None if message.get("tool_calls") else str(message["content"])
    if "output" in response:
        texts = [
            part["text"]
            for item in response["output"]
            if item["type"] == "message"
            for part in item["content"]
        ]
        return texts[0] if texts else None
    if "stop_reason" in response:
        if response["stop_reason"] == "tool_use":
            return None
        return str(response["content"][0]["text"])
    parts = response["candidates"][0]["content"]["parts"]
    if any("functionCall" in part for part in parts):
        return None
    return str(parts[0]["text"])


async def run_loop(tools: ToolSet, provider: Any, script: list[Any]) -> None:
    """Ask the scripted model, run the tools it calls, until it answers."""
    for response in script:
        answer = final_text(response)
        if answer is not None:
            print(f"model: {answer}")
            return
        calls: list[ToolCall] = provider.parse_calls(response)
        results = await tools.run("mcp-agent", calls)
        for call, result in zip(calls, results, strict=True):
            status = "error" if result.is_error else "ok"
            text = result.text.replace("\n", " ")
            print(f"  {call.name} -> {status}: {text}")
        provider.results(calls, results)  # what goes back to the model


async def main(server: list[str] | str) -> None:
    async with mcp.connect(server) as time_tools:
        tools = ToolSet([get_weather]) | time_tools.prefixed("time_")
        print(f"tools: {tools.names}")
        for name, (provider, script) in SCRIPTS.items():
            definitions = provider.tools(tools)
            print(
                f"\n=== {name}: {len(json.dumps(definitions))} characters of tool definitions"
            )
            await run_loop(tools, provider, script())


if __name__ == "__main__":
    server = time_server()
    if server is None:
        sys.exit(
            "mcp_agent.py needs the time server: pip install mcp-server-time "
            "(or install uv, whose uvx starts it)"
        )
    try:
        asyncio.run(main(server))
    except ConnectionError as error:  # the server did not start, or not as MCP
        sys.exit(f"mcp_agent.py: {error}")
