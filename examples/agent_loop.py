"""An offline agent loop for every supported API, with a scripted model.

Each "model" is a list of responses shaped exactly like the real API's. The
first response asks for four tools at once: a good call, a call with a bad
argument, a tool that crashes, and a tool with a UI side effect. The loop
runs them concurrently, shows the UI side effects (which the model never
sees), sends the results back, and prints the model's final answer.

Run it with `make demo`. No network, no API key.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from toolkit import TextUI, ToolCall, ToolResult, ToolSet
from toolkit.providers import anthropic, gemini, mcp, openai, openai_responses

tools = ToolSet()


@tools.tool
def get_weather(city: str) -> str:
    """Get the current weather for a city.

    Args:
        city: City name, for example "Paris".
    """
    return f"22 degrees and sunny in {city}"


@tools.tool
def save_note(text: str) -> ToolResult:
    """Save a note for the user.

    Args:
        text: The note.
    """
    return ToolResult.ok("Saved.", ui=TextUI(f"Note saved: {text!r}"))


@tools.tool
def read_calendar() -> str:
    """Read today's calendar."""
    message = "calendar service unavailable"
    raise RuntimeError(message)


ARGS = [
    ("get_weather", {"city": "Paris"}),
    (
        "get_weather",
        {"town": "Paris"},
    ),  # a bad argument: the model gets told what to fix
    ("read_calendar", {}),  # a crash: the model gets "RuntimeError: ..."
    (
        "save_note",
        {"text": "Buy milk"},
    ),  # a UI side effect: shown to the user, not the model
]
FINAL = "It is sunny in Paris; I could not read your calendar, and I saved your note."


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
    return [
        {
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": calls,
                    },
                }
            ]
        },
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
        {
            "role": "assistant",
            "stop_reason": "tool_use",
            "content": [{"type": "text", "text": "Let me check."}, *blocks],
        },
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


# ----------------------------------------------------------- the loop


def final_text(name: str, response: Any) -> str | None:
    """The model's answer when it asks for no more tools."""
    if name == "openai":
        message = response["choices"][0]["message"]
        return None if message.get("tool_calls") else str(message["content"])
    if name == "openai_responses":
        texts = [
            part["text"]
            for item in response["output"]
            if item["type"] == "message"
            for part in item["content"]
        ]
        return texts[0] if texts else None
    if name == "anthropic":
        return (
            None
            if response["stop_reason"] == "tool_use"
            else str(response["content"][0]["text"])
        )
    parts = response["candidates"][0]["content"]["parts"]
    return (
        None if any("functionCall" in part for part in parts) else str(parts[0]["text"])
    )


async def run_loop(name: str, provider: Any, script: list[Any]) -> None:
    """Ask the scripted model, run the tools it calls, send results back, until it answers."""
    print(f"\n=== {name}")
    conversation: list[Any] = [
        {
            "role": "user",
            "content": "Weather in Paris? Also check my calendar and note: buy milk.",
        }
    ]
    for response in script:
        answer = final_text(name, response)
        if answer is not None:
            print(f"model: {answer}")
            return
        calls: list[ToolCall] = provider.parse_calls(response)
        results = await tools.run("demo-agent", calls)
        for call, result in zip(calls, results, strict=True):
            status = "error" if result.is_error else "ok"
            text = result.text.replace("\n", "\n      ")
            print(f"  {call.name}({call.args}) -> {status}: {text}")
            if result.ui is not None:
                print(f"  [UI, not sent to the model] {result.ui.to_dict()}")
        sent = provider.results(calls, results)
        conversation.extend(sent if isinstance(sent, list) else [sent])
        assert "Note saved" not in json.dumps(
            sent
        )  # the UI side effect never reaches the model
    print("model: (no answer)")


async def run_mcp() -> None:
    """MCP has no model: a client sends tools/call requests; each gets a CallToolResult."""
    print(f"\n=== mcp: {[item['name'] for item in mcp.tools(tools)]}")
    for index, (name, args) in enumerate(ARGS):
        request = {
            "jsonrpc": "2.0",
            "id": index,
            "method": "tools/call",
            "params": {"name": name, "arguments": args},
        }
        (result,) = await mcp.handle(tools, "demo-agent", request)
        text = "\n".join(
            part["text"] for part in result["content"] if part["type"] == "text"
        )
        text = text.replace("\n", "\n      ")  # the whole text the model reads
        print(f"  {name}({args}) -> isError={result['isError']}: {text}")


SCRIPTS: dict[str, tuple[Any, Callable[[], list[Any]]]] = {
    "openai": (openai, openai_script),
    "openai_responses": (openai_responses, responses_script),
    "anthropic": (anthropic, anthropic_script),
    "gemini": (gemini, gemini_script),
}


async def main() -> None:
    """Run the loop for each API, then the MCP exchange."""
    for name, (provider, script) in SCRIPTS.items():
        await run_loop(name, provider, script())
    await run_mcp()


if __name__ == "__main__":
    asyncio.run(main())
