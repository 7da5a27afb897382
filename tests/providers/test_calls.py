"""Calls in, results out, for each provider: SDK objects and plain dicts alike."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from anthropic.types import Message, MessageParam
from google.genai import types as genai
from mcp import types as mcp_types
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionMessage,
    ChatCompletionToolMessageParam,
)
from openai.types.responses import ResponseFunctionToolCall
from openai.types.responses.response_input_item_param import FunctionCallOutput

from tests.conftest import chat_message
from tests.providers.oracles import assert_round_trip, assert_typed_dict
from tests.sample_tools import tools
from toolkit import ToolCall, ToolResult, ToolSet, WidgetUI, tool
from toolkit.providers import anthropic, gemini, mcp, openai, openai_responses

OK = ToolResult.ok(
    "Sunny", ui=WidgetUI(label="Open", widget="map", data={"secret": "ui only"})
)
FAILED = ToolResult.error("Invalid arguments")
STRUCTURED = ToolResult('{"lat":1.0}', structured={"lat": 1.0})
LISTED = ToolResult("[1,2]", structured=[1, 2])


# ------------------------------------------------------------------ OpenAI Chat


def _chat_message() -> dict[str, Any]:
    return chat_message(
        ("call_1", "get_weather", '{"city": "Paris"}'),
        ("call_2", "show_map", '{"lat": 1, "lon": 2}'),
    )


EXPECTED_OPENAI_CALLS = [
    ToolCall("call_1", "get_weather", '{"city": "Paris"}'),
    ToolCall("call_2", "show_map", '{"lat": 1, "lon": 2}'),
]


def test_openai_parse_calls_from_dicts_and_sdk_objects() -> None:
    message = _chat_message()
    completion = ChatCompletion.model_validate(
        {
            "id": "c",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {"index": 0, "finish_reason": "tool_calls", "message": message}
            ],
        }
    )
    assert openai.parse_calls(message) == EXPECTED_OPENAI_CALLS
    assert (
        openai.parse_calls(ChatCompletionMessage.model_validate(message))
        == EXPECTED_OPENAI_CALLS
    )
    assert openai.parse_calls(completion) == EXPECTED_OPENAI_CALLS
    assert openai.parse_calls({"role": "assistant", "content": "hi"}) == []


def test_openai_results_are_tool_messages_without_ui() -> None:
    messages = openai.results(EXPECTED_OPENAI_CALLS, [OK, FAILED])
    assert messages == [
        {"role": "tool", "tool_call_id": "call_1", "content": "Sunny"},
        {"role": "tool", "tool_call_id": "call_2", "content": "Invalid arguments"},
    ]
    for item in messages:
        assert_typed_dict(item, ChatCompletionToolMessageParam)
    assert "ui only" not in json.dumps(messages)


def test_results_need_one_result_per_call() -> None:
    with pytest.raises(ValueError, match="Got 2 calls but 1 results"):
        openai.results(EXPECTED_OPENAI_CALLS, [OK])


def test_openai_handle_runs_the_calls() -> None:
    messages = asyncio.run(openai.handle(tools, "agent", _chat_message()))
    assert messages == [
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "content": "Sunny in Paris for 1 day(s), 22 degrees c",
        },
        {"role": "tool", "tool_call_id": "call_2", "content": '{"lat":1.0,"lon":2.0}'},
    ]


def test_strict_round_trip_null_means_the_python_default() -> None:
    """Exported strict, called with null for an optional parameter, the tool gets its default."""
    received: list[Any] = []
    strict_set = ToolSet()

    @strict_set.tool
    def search(
        query: str, limit: int = 10, exact: bool = False, tags: list[str] | None = None
    ) -> str:
        """Search."""
        received.append((limit, exact, tags))
        return "ok"

    (definition,) = strict_set.export("openai", strict=True)
    assert definition["function"]["strict"] is True
    assert definition["function"]["parameters"]["required"] == [
        "query",
        "limit",
        "exact",
        "tags",
    ]
    message = {
        "role": "assistant",
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {
                    "name": "search",
                    "arguments": '{"query": "q", "limit": null, "exact": null, "tags": null}',
                },
            }
        ],
    }
    assert asyncio.run(openai.handle(strict_set, "a", message)) == [
        {"role": "tool", "tool_call_id": "c1", "content": "ok"}
    ]
    assert received == [(10, False, None)]


def test_strict_round_trip_for_a_raw_tool() -> None:
    from toolkit import Tool

    seen: list[dict[str, Any]] = []

    def record(agent_id: str, call_id: str, args: dict[str, Any]) -> str:
        seen.append(args)
        return "ok"

    raw = Tool.new(
        name="raw",
        description="Raw.",
        parameters={
            "type": "object",
            "properties": {"a": {"type": "string"}, "n": {"type": "integer"}},
            "required": ["a"],
        },
        execute_fn=record,
    )
    assert raw.execute("x", "y", {"a": "s", "n": None}) == ToolResult("ok")
    assert seen == [{"a": "s"}]


# ------------------------------------------------------------------ Responses


def test_responses_parse_calls_and_results() -> None:
    items = [
        {"type": "reasoning", "id": "r1", "summary": []},
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_a",
            "name": "get_weather",
            "arguments": '{"city":"Oslo"}',
            "status": "completed",
        },
    ]
    expected = [ToolCall("call_a", "get_weather", '{"city":"Oslo"}')]
    assert openai_responses.parse_calls(items) == expected
    assert openai_responses.parse_calls({"output": items}) == expected
    sdk_item = ResponseFunctionToolCall.model_validate(items[1])
    assert openai_responses.parse_calls([sdk_item]) == expected
    outputs = openai_responses.results(expected, [OK])
    assert outputs == [
        {"type": "function_call_output", "call_id": "call_a", "output": "Sunny"}
    ]
    assert_typed_dict(outputs[0], FunctionCallOutput)
    handled = asyncio.run(openai_responses.handle(tools, "a", {"output": items}))
    assert handled == [
        {
            "type": "function_call_output",
            "call_id": "call_a",
            "output": "Sunny in Oslo for 1 day(s), 22 degrees c",
        }
    ]


# ------------------------------------------------------------------ Anthropic


def _anthropic_message() -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude",
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
        "content": [
            {"type": "text", "text": "Let me check."},
            {
                "type": "tool_use",
                "id": "toolu_1",
                "name": "get_weather",
                "input": {"city": "Rome"},
            },
            {"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": {}},
        ],
    }


def test_anthropic_parse_calls_and_results() -> None:
    expected = [
        ToolCall("toolu_1", "get_weather", {"city": "Rome"}),
        ToolCall("toolu_2", "get_weather", {}),
    ]
    raw = _anthropic_message()
    assert anthropic.parse_calls(raw) == expected
    assert anthropic.parse_calls(raw["content"]) == expected
    assert anthropic.parse_calls(Message.model_validate(raw)) == expected
    assert anthropic.parse_calls(Message.model_validate(raw).content) == expected
    message = anthropic.results(expected, [OK, FAILED])
    assert message == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "toolu_1",
                "content": "Sunny",
                "is_error": False,
            },
            {
                "type": "tool_result",
                "tool_use_id": "toolu_2",
                "content": "Invalid arguments",
                "is_error": True,
            },
        ],
    }
    assert_typed_dict(message, MessageParam)
    handled = asyncio.run(anthropic.handle(tools, "a", raw))
    assert [block["is_error"] for block in handled["content"]] == [False, True]
    assert (
        handled["content"][1]["content"]
        == 'Invalid arguments for tool "get_weather":\n- city: required property is missing'
    )


# ------------------------------------------------------------------ Gemini


def _gemini_response() -> dict[str, Any]:
    return {
        "candidates": [
            {
                "content": {
                    "role": "model",
                    "parts": [
                        {
                            "functionCall": {
                                "id": "fc1",
                                "name": "get_weather",
                                "args": {"city": "Lima"},
                            },
                            "thoughtSignature": "AAEC",
                        },
                        {
                            "functionCall": {
                                "name": "show_map",
                                "args": {"lat": 1, "lon": 2},
                            }
                        },
                        {"functionCall": {"name": "search"}},
                    ],
                }
            }
        ]
    }


def test_gemini_parse_calls_from_dicts_and_sdk_objects() -> None:
    raw = _gemini_response()
    for message in (
        raw,
        raw["candidates"][0]["content"],
        raw["candidates"][0]["content"]["parts"],
        genai.GenerateContentResponse.model_validate(raw),
        genai.Content.model_validate(raw["candidates"][0]["content"]),
    ):
        calls = gemini.parse_calls(message)
        assert [(call.name, call.args) for call in calls] == [
            ("get_weather", {"city": "Lima"}),
            ("show_map", {"lat": 1, "lon": 2}),
            ("search", {}),
        ]
        assert calls[0].id == "fc1"
        assert calls[1].id.startswith("toolkit-")
        assert calls[1].id != calls[2].id


def test_gemini_results_are_function_responses() -> None:
    calls = [
        ToolCall("fc1", "get_weather", {}),
        ToolCall("toolkit-abc", "show_map", {}),
        ToolCall("fc3", "x", {}),
        ToolCall("fc4", "y", {}),
    ]
    content = gemini.results(calls, [OK, STRUCTURED, FAILED, LISTED])
    assert content == {
        "role": "user",
        "parts": [
            {
                "functionResponse": {
                    "id": "fc1",
                    "name": "get_weather",
                    "response": {"output": "Sunny"},
                }
            },
            {"functionResponse": {"name": "show_map", "response": {"lat": 1.0}}},
            {
                "functionResponse": {
                    "id": "fc3",
                    "name": "x",
                    "response": {"error": "Invalid arguments"},
                }
            },
            {
                "functionResponse": {
                    "id": "fc4",
                    "name": "y",
                    "response": {"output": [1, 2]},
                }
            },
        ],
    }
    genai.Content.model_validate(content)
    handled = asyncio.run(gemini.handle(tools, "a", _gemini_response()))
    assert len(handled["parts"]) == 3
    genai.Content.model_validate(handled)


# ------------------------------------------------------------------ MCP


def test_mcp_parse_calls_and_results() -> None:
    params = {"name": "get_weather", "arguments": {"city": "Oslo"}}
    (call,) = mcp.parse_calls(params)
    assert (call.name, call.args) == ("get_weather", {"city": "Oslo"})
    (from_request,) = mcp.parse_calls(
        {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
    )
    assert from_request == ToolCall("7", "get_weather", {"city": "Oslo"})
    (from_sdk,) = mcp.parse_calls(
        mcp_types.CallToolRequestParams(name="show_map", arguments=None)
    )
    assert (from_sdk.name, from_sdk.args) == ("show_map", {})
    assert len(mcp.parse_calls([params, params])) == 2

    @tool
    def get_weather(city: str) -> ToolResult:
        """The weather: a result of its own, without an output schema."""
        return OK

    calls = [call, call, call, call]
    outcomes = [OK, FAILED, STRUCTURED, LISTED]
    results = mcp.results(calls, outcomes, toolset=ToolSet([get_weather]))
    assert results == [
        {"content": [{"type": "text", "text": "Sunny"}], "isError": False},
        {"content": [{"type": "text", "text": "Invalid arguments"}], "isError": True},
        {
            "content": [{"type": "text", "text": '{"lat":1.0}'}],
            "isError": False,
            "structuredContent": {"lat": 1.0},
        },
        {
            "content": [{"type": "text", "text": "[1,2]"}],
            "isError": False,
            "structuredContent": {"result": [1, 2]},
        },
    ]
    # Without the tools, whose output schemas alone say the form, none is guessed.
    assert mcp.results(calls, outcomes) == [
        {key: value for key, value in item.items() if key != "structuredContent"}
        for item in results
    ]
    for item in results:
        assert_round_trip(mcp_types.CallToolResult, item)


def test_mcp_handle() -> None:
    handled = asyncio.run(
        mcp.handle(tools, "a", {"name": "search", "arguments": {"query": "x"}})
    )
    assert handled == [
        {
            "content": [{"type": "text", "text": '[{"title":"About x","rank":1}]'}],
            "isError": False,
            "structuredContent": {"result": [{"title": "About x", "rank": 1}]},
        }
    ]


def test_ui_never_appears_in_any_provider_result() -> None:
    call = ToolCall("c", "t", {})
    for module in (openai, openai_responses, anthropic, gemini, mcp):
        assert "ui only" not in json.dumps(module.results([call], [OK])), (
            module.__name__
        )


@pytest.mark.parametrize("module", [openai, openai_responses, anthropic, gemini, mcp])
def test_every_provider_module_has_the_four_functions(module: Any) -> None:
    for name in ("tools", "parse_calls", "results", "handle"):
        assert callable(getattr(module, name))
    assert asyncio.iscoroutinefunction(module.handle)


def test_export_by_name_uses_the_provider_modules() -> None:
    assert tools.export("openai") == openai.tools(tools)
    assert tools.export("anthropic", strict=True) == anthropic.tools(tools, strict=True)
    assert tools.export("mcp") == mcp.tools(tools)
    single = ToolSet([tool(name="lam")(lambda: "x")])
    assert single.export("gemini") == [
        {
            "functionDeclarations": [
                {"name": "lam", "parametersJsonSchema": single["lam"].parameters}
            ]
        }
    ]
