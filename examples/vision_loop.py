"""A tool that returns a chart image, sent to every API in its own shape.

A scripted "model" asks for a chart; the tool draws a tiny PNG (with zlib
and struct, no imaging library) and returns it beside a line of text. For
each API the script prints the exact JSON that the next request carries
for the tool results: the image travels as an image, not as a base64 string
the model would have to read as text.

Run it with `python examples/vision_loop.py`. No network, no API key.
"""

from __future__ import annotations

import asyncio
import json
import struct
import zlib
from typing import Any

from toolkit import Image, ToolSet
from toolkit.providers import anthropic, gemini, mcp, openai, openai_responses

tools = ToolSet()


def draw_bars(values: list[int]) -> bytes:
    """A PNG bar chart, one dark bar per value on white, 4 pixels per unit of height."""
    width, height = 8 * len(values), 4 * max(values, default=1)

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    rows = []
    for y in range(height):
        row = bytearray(b"\x00")  # filter type: none
        for value in values:
            filled = height - y <= 4 * value
            row += (
                b"\x20\x40\x80" if filled else b"\xff\xff\xff"
            ) * 6 + b"\xff\xff\xff" * 2
        rows.append(bytes(row))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"".join(rows)))
        + chunk(b"IEND", b"")
    )


@tools.tool
def sales_chart(months: int = 3) -> list[str | Image]:
    """Chart the sales of the last months.

    Args:
        months: How many months to chart, at most 6.
    """
    values = [3, 5, 4, 6, 2, 5][: max(1, min(months, 6))]
    return [
        f"Sales of the last {len(values)} months: {values}.",
        Image.from_bytes(draw_bars(values)),
    ]


ARGS = {"months": 3}
MODEL_TURNS: dict[
    str, Any
] = {  # what each API's model answers: one call to sales_chart
    "openai": {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "sales_chart", "arguments": json.dumps(ARGS)},
            }
        ],
    },
    "openai_responses": {
        "output": [
            {
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_1",
                "name": "sales_chart",
                "arguments": json.dumps(ARGS),
            }
        ]
    },
    "anthropic": {
        "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "sales_chart", "input": ARGS}
        ]
    },
    "gemini": {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {
                            "functionCall": {
                                "id": "fc-1",
                                "name": "sales_chart",
                                "args": ARGS,
                            }
                        }
                    ],
                }
            }
        ]
    },
    "mcp": {"name": "sales_chart", "arguments": ARGS},
}
PROVIDERS: dict[str, Any] = {
    "openai": openai,
    "openai_responses": openai_responses,
    "anthropic": anthropic,
    "gemini": gemini,
    "mcp": mcp,
}
WHERE = {
    "openai": "appended to `messages`",
    "openai_responses": "appended to `input`",
    "anthropic": "appended to `messages`",
    "gemini": "appended to `contents`",
    "mcp": "the tools/call result",
}


async def main() -> None:
    for name, provider in PROVIDERS.items():
        sent = await provider.handle(tools, "agent-1", MODEL_TURNS[name])
        print(f"=== {name}: {WHERE[name]}")
        print(json.dumps(sent, indent=2))
        print()


if __name__ == "__main__":
    asyncio.run(main())
