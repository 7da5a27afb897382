"""Content parts reach every API in its own native shape, checked by the official SDK types."""

from __future__ import annotations

import asyncio
import base64
from typing import Any

import pytest

from tests import media
from tests.conftest import chat_message
from tests.providers.oracles import assert_typed_dict
from toolkit import (
    Audio,
    File,
    Image,
    Resource,
    ResourceLink,
    Text,
    ToolCall,
    ToolResult,
    ToolSet,
    tool,
)
from toolkit.providers import anthropic, gemini, mcp, openai, openai_responses

PNG = media.png()
WAV = media.wav()
PDF = media.pdf()

EVERY_PART: list[Any] = [
    "Revenue grew 4%.",
    Image.from_bytes(PNG),
    Image.from_url("https://example.com/chart.png"),
    Audio.from_bytes(WAV),
    File.from_bytes(PDF, name="report.pdf"),
    File.from_bytes(b"plain notes", name="notes.txt"),
    File.from_url("https://example.com/r.pdf", name="r.pdf"),
    Resource("file:///notes.md", mime_type="text/markdown", text="# Notes"),
    Resource("file:///a.bin", mime_type="application/octet-stream", data=b"\x00\x01"),
    ResourceLink(
        "file:///big.csv", "big.csv", mime_type="text/csv", description="All rows"
    ),
]
MIXES: dict[str, list[Any]] = {
    "image": [Image.from_bytes(PNG)],
    "text and image": ["Here is the chart.", Image.from_bytes(PNG)],
    "audio": [Audio.from_bytes(WAV)],
    "pdf": [File.from_bytes(PDF, name="report.pdf")],
    "every part": EVERY_PART,
}
CALL = ToolCall("call_1", "report", "{}")


def _result(parts: list[Any]) -> ToolResult:
    return ToolResult.ok(content=parts)


def test_tool_returning_parts_gives_content_and_joined_text() -> None:
    @tool
    def report(month: str) -> list[str | Image | File]:
        """The monthly report: a summary, a chart and the PDF."""
        return [
            f"Revenue grew 4% in {month}.",
            Image.from_bytes(PNG),
            File.from_bytes(PDF, name="r.pdf"),
        ]

    result = report.execute("a", "c", {"month": "May"})
    assert not result.is_error
    assert result.text == "Revenue grew 4% in May."
    assert [type(part).__name__ for part in result.content] == ["Text", "Image", "File"]
    assert result.structured is None
    assert report.output_schema is None


def test_a_single_part_and_toolresult_ok_with_content() -> None:
    @tool
    def screenshot(url: str) -> Image:
        """Take a screenshot of a web page."""
        return Image.from_bytes(PNG)

    result = screenshot.execute("a", "c", {"url": "https://x"})
    assert (result.text, result.content) == ("", (Image.from_bytes(PNG),))
    made = ToolResult.ok("Here is the chart.", content=[Image.from_bytes(PNG)])
    assert made.text == "Here is the chart."
    assert made.content == (Text("Here is the chart."), Image.from_bytes(PNG))


def test_parts_mixed_with_data_are_an_error_that_says_what_to_do() -> None:
    @tool
    def bad() -> list[Any]:
        """Mixes a part with data."""
        return [Image.from_bytes(PNG), {"rows": 3}]

    result = bad.execute("a", "c", {})
    assert result.is_error
    assert 'Tool "bad" returned content parts mixed with other values' in result.text
    assert "item 1 is a dict" in result.text
    assert "structured=data" in result.text


@pytest.mark.parametrize("mix", list(MIXES))
def test_openai_responses_output_items(mix: str) -> None:
    from openai.types.responses.response_input_item_param import FunctionCallOutput

    [item] = openai_responses.results([CALL], [_result(MIXES[mix])])
    assert_typed_dict(item, FunctionCallOutput)
    assert isinstance(item["output"], list)
    kinds = [entry["type"] for entry in item["output"]]
    assert "input_text" in kinds or "input_image" in kinds or "input_file" in kinds
    if mix == "image":
        assert item["output"] == [
            {
                "type": "input_image",
                "image_url": f"data:image/png;base64,{base64.b64encode(PNG).decode()}",
                "detail": "auto",
            }
        ]
    if mix == "audio":
        assert item["output"][0]["type"] == "input_text"
        assert "left out: the Responses API takes no audio" in item["output"][0]["text"]


@pytest.mark.parametrize("mix", list(MIXES))
def test_openai_chat_tool_message_then_one_user_message(mix: str) -> None:
    from openai.types.chat import (
        ChatCompletionToolMessageParam,
        ChatCompletionUserMessageParam,
    )

    second = ToolCall("call_2", "plain", "{}")
    messages = openai.results(
        [CALL, second], [_result(MIXES[mix]), ToolResult("just text")]
    )
    tool_messages = [message for message in messages if message["role"] == "tool"]
    assert [message["tool_call_id"] for message in tool_messages] == [
        "call_1",
        "call_2",
    ]
    for message in tool_messages:
        assert_typed_dict(message, ChatCompletionToolMessageParam)
        assert isinstance(message["content"], str)
    user = [message for message in messages if message["role"] == "user"]
    assert messages[:2] == tool_messages
    assert len(user) == 1
    assert_typed_dict(user[0], ChatCompletionUserMessageParam)
    assert user[0]["content"][0] == {
        "type": "text",
        "text": "Attachments from tool call call_1 (report):",
    }
    assert "[Attached in the next user message:" in tool_messages[0]["content"]


def test_openai_chat_without_media_adds_no_user_message() -> None:
    messages = openai.results([CALL], [_result(["a", ResourceLink("file:///x", "x")])])
    assert [message["role"] for message in messages] == ["tool"]
    assert messages[0]["content"] == "a\n[Resource link x <file:///x>]"


@pytest.mark.parametrize("mix", list(MIXES))
def test_anthropic_tool_result_blocks(mix: str) -> None:
    from anthropic.types import MessageParam

    message = anthropic.results([CALL], [_result(MIXES[mix])])
    assert_typed_dict(message, MessageParam)
    blocks = message["content"][0]["content"]
    kinds = {block["type"] for block in blocks}
    assert kinds <= {"text", "image", "document"}
    if mix == "audio":
        assert blocks == [
            {
                "type": "text",
                "text": f"[Audio: audio/wav, {len(WAV):,} bytes left out: Anthropic takes no audio in a tool result]",
            }
        ]
    if mix == "pdf":
        assert blocks[0]["type"] == "document"
        assert blocks[0]["source"]["media_type"] == "application/pdf"


def test_anthropic_refuses_an_image_over_its_limit_by_name() -> None:
    big = Image.from_bytes(PNG + b"\x00" * 4_000_000)
    message = anthropic.results([CALL], [_result([big])])
    block = message["content"][0]
    assert block["is_error"] is True
    assert "over anthropic's limit of 5,242,880 bytes for one image" in block["content"]
    small = anthropic.results(
        [CALL], [_result([big])], limits={"anthropic": {"image": 10_000_000}}
    )
    assert small["content"][0]["is_error"] is False


@pytest.mark.parametrize("mix", list(MIXES))
@pytest.mark.parametrize("multimodal", [True, False])
def test_gemini_function_response_parts(mix: str, multimodal: bool) -> None:
    from google.genai import types as genai

    content = gemini.results([CALL], [_result(MIXES[mix])], multimodal=multimodal)
    parsed = genai.Content.model_validate(content)
    response = parsed.parts[0].function_response  # type: ignore[index]
    assert response is not None
    if multimodal:
        assert len(parsed.parts) == 1  # type: ignore[arg-type]
        names = []
        for part in response.parts or []:
            held = part.inline_data or part.file_data
            assert held is not None
            names.append(held.display_name)
        for name in names:
            assert name in response.response["output"]  # type: ignore[index]
    else:
        assert response.parts is None
        assert len(parsed.parts) >= 1  # type: ignore[arg-type]


@pytest.mark.parametrize("mix", list(MIXES))
def test_mcp_content_blocks(mix: str) -> None:
    import mcp.types as types

    out = mcp.result(_result(MIXES[mix]))
    parsed = types.CallToolResult.model_validate(out)
    assert parsed.is_error is False
    if mix == "every part":
        assert [block.type for block in parsed.content] == [
            "text",
            "image",
            "resource_link",
            "audio",
            "resource",
            "resource",
            "resource_link",
            "resource",
            "resource",
            "resource_link",
        ]


def test_handle_sends_a_tool_image_to_every_api() -> None:
    tools = ToolSet()

    @tools.tool
    def chart() -> Image:
        """A chart."""
        return Image.from_bytes(PNG)

    call = chat_message(("c1", "chart", "{}"))
    messages = asyncio.run(openai.handle(tools, "a", call))
    assert messages[-1]["content"][1]["type"] == "image_url"
    served = asyncio.run(mcp.handle(tools, "a", {"name": "chart", "arguments": {}}))
    assert served[0]["content"][0]["type"] == "image"


def test_max_output_chars_cuts_the_text_parts_too() -> None:
    tools = ToolSet(max_output_chars=100)

    @tools.tool
    def long() -> list[Any]:
        """Long text and an image."""
        return ["x" * 500, Image.from_bytes(PNG), "y" * 500]

    [result] = asyncio.run(tools.run("a", [ToolCall("c", "long", {})]))
    assert len(result.text) <= 100
    assert result.content == (Text(result.text), Image.from_bytes(PNG))


def test_max_output_chars_counts_text_only() -> None:
    tools = ToolSet(max_output_chars=100)

    @tools.tool
    def big() -> list[Any]:
        """Big image, short text."""
        return ["short", Image.from_bytes(PNG + b"\x00" * 10_000)]

    [result] = asyncio.run(tools.run("a", [ToolCall("c", "big", {})]))
    assert result.text == "short"
    assert len(result.content) == 2


def test_a_part_inside_data_is_an_error_that_says_where_parts_go() -> None:
    @tool
    def chart() -> dict[str, Any]:
        """A chart inside a dict, which JSON cannot carry."""
        return {"chart": Image.from_bytes(PNG), "rows": 3}

    result = chart.execute("a", "c", {})
    assert result.is_error
    assert "a value of type Image cannot be converted to JSON" in result.text
    assert "return ToolResult.ok(text, content=[...], structured=data)" in result.text
