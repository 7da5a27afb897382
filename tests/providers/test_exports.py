"""Every export, checked by the provider's own SDK types, and pinned in a golden file."""

from __future__ import annotations

import copy
import json
import os
import pathlib
from typing import Any

import pytest
from google.genai import types as genai
from mcp import types as mcp_types
from openai.lib._pydantic import _ensure_strict_json_schema
from openai.types.chat import ChatCompletionFunctionToolParam
from openai.types.responses import FunctionToolParam

from tests.conftest import assert_valid_schema
from tests.providers.oracles import assert_round_trip, assert_typed_dict
from tests.sample_tools import tools
from toolkit import ToolDefinitionError, ToolSet
from toolkit.providers import anthropic, gemini, mcp, openai, openai_responses

GOLDEN = pathlib.Path(__file__).parent.parent / "golden"
openapi_tools = tools.without(
    "file_category"
)  # recursive: not expressible in Gemini's OpenAPI form

EXPORTS: dict[str, Any] = {
    "json": lambda: tools.export("json"),
    "openai": lambda: tools.export("openai"),
    "openai_strict": lambda: tools.export("openai", strict=True),
    "openai_responses": lambda: tools.export("openai_responses"),
    "openai_responses_strict": lambda: tools.export("openai_responses", strict=True),
    "anthropic": lambda: tools.export("anthropic"),
    "anthropic_strict": lambda: tools.export("anthropic", strict=True),
    "gemini": lambda: tools.export("gemini"),
    "gemini_openapi": lambda: openapi_tools.export("gemini", schema="openapi"),
    "mcp": lambda: tools.export("mcp"),
}


@pytest.mark.parametrize("name", list(EXPORTS))
def test_golden(name: str) -> None:
    """A change in any export shows up in review as a change to its golden file."""
    path = GOLDEN / f"{name}.json"
    text = json.dumps(EXPORTS[name](), indent=2, ensure_ascii=False) + "\n"
    if os.environ.get("TOOLKIT_UPDATE_GOLDEN"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


@pytest.mark.parametrize("strict", [False, True])
def test_openai_chat_export_is_accepted_by_the_sdk(strict: bool) -> None:
    for definition in tools.export("openai", strict=strict):
        assert_typed_dict(definition, ChatCompletionFunctionToolParam)
        assert isinstance(definition["function"]["strict"], bool)
        assert_valid_schema(definition["function"]["parameters"])


@pytest.mark.parametrize("strict", [False, True])
def test_openai_responses_export_is_accepted_by_the_sdk(strict: bool) -> None:
    for definition in tools.export("openai_responses", strict=strict):
        assert_typed_dict(definition, FunctionToolParam)
        assert "strict" in definition
        assert "parameters" in definition


def test_openai_strict_is_a_fixed_point_of_openais_own_helper() -> None:
    for definition in tools.export("openai", strict=True):
        function = definition["function"]
        assert function["strict"] is True
        schema = function["parameters"]
        again = _ensure_strict_json_schema(
            copy.deepcopy(schema), path=(), root=copy.deepcopy(schema)
        )
        assert again == schema


def test_anthropic_export_is_accepted_by_the_sdk() -> None:
    from anthropic.types import ToolParam

    for strict in (False, True):
        for definition in tools.export("anthropic", strict=strict):
            assert_typed_dict(definition, ToolParam)
            assert definition["input_schema"]["type"] == "object"


def test_anthropic_strict_refuses_recursion_and_keeps_the_rest_strict() -> None:
    exported = {item["name"]: item for item in tools.export("anthropic", strict=True)}
    assert exported["file_category"]["strict"] is False
    assert (
        exported["file_category"]["input_schema"] == tools["file_category"].parameters
    )
    assert all(
        exported[name]["strict"] for name in ("get_weather", "search", "show_map")
    )
    assert anthropic.strict_problems(tools["file_category"]) == (
        "$defs.Category: a recursive type, which Anthropic strict mode rejects",
    )


def test_anthropic_strict_budget_is_spent_in_order() -> None:
    from toolkit import tool

    many = ToolSet()
    for index in range(25):

        def function(a: int = 0, b: int = 0) -> str:
            return "ok"

        function.__name__ = f"t{index}"
        many.add(tool(function))
    flags = [item["strict"] for item in many.export("anthropic", strict=True)]
    assert (
        flags == [True] * 12 + [False] * 13
    )  # 24 optional properties at most, 2 per tool


def test_gemini_export_is_accepted_by_the_sdk() -> None:
    for exported in (
        tools.export("gemini"),
        openapi_tools.export("gemini", schema="openapi"),
    ):
        assert len(exported) == 1
        genai.Tool.model_validate(exported[0])  # the SDK forbids unknown fields


def test_gemini_openapi_refuses_recursion() -> None:
    with pytest.raises(ToolDefinitionError) as caught:
        tools.export("gemini", schema="openapi")
    assert str(caught.value) == (
        "Tool 'file_category' has a recursive type (Category -> Category), which Gemini's OpenAPI `parameters` "
        "form cannot express. Export with the default schema (parametersJsonSchema)"
    )


def test_gemini_schema_option_is_checked() -> None:
    with pytest.raises(ValueError, match="use 'json'"):
        gemini.tools(tools, schema="yaml")  # type: ignore[arg-type]


def test_mcp_export_is_accepted_by_the_sdk() -> None:
    for definition in tools.export("mcp"):
        parsed = assert_round_trip(mcp_types.Tool, definition)
        assert parsed.input_schema["type"] == "object"
        if parsed.output_schema is not None:
            assert parsed.output_schema["type"] == "object"
            assert_valid_schema(parsed.output_schema)


def test_mcp_output_schemas_are_objects() -> None:
    exported = {item["name"]: item for item in tools.export("mcp")}
    assert exported["search"]["outputSchema"] == {
        "type": "object",
        "properties": {"result": {"type": "array", "items": {"type": "object"}}},
        "required": ["result"],
        "description": "The matching documents.",
    }
    assert exported["show_map"]["outputSchema"]["type"] == "object"
    assert "outputSchema" not in exported["get_weather"]
    assert exported["get_weather"]["annotations"] == {
        "title": "Weather",
        "readOnlyHint": True,
    }
    assert exported["file_category"]["annotations"] == {
        "destructiveHint": True,
        "idempotentHint": False,
    }


def test_every_export_schema_is_valid_draft_2020_12() -> None:
    for definition in tools.export("openai"):
        assert_valid_schema(definition["function"]["parameters"])
    for definition in tools.export("anthropic", strict=True):
        assert_valid_schema(definition["input_schema"])
    for definition in tools.export("gemini")[0]["functionDeclarations"]:
        assert_valid_schema(definition["parametersJsonSchema"])


def test_provider_functions_take_a_toolset_a_tool_or_a_list() -> None:
    weather = tools["get_weather"]
    assert (
        openai.tools(weather)
        == openai.tools([weather])
        == openai.tools(tools.select("get_weather"))
    )
    assert mcp.tools([weather]) == [mcp.definition(weather)]
    assert openai_responses.tools(weather)[0]["name"] == "get_weather"
    with pytest.raises(
        TypeError, match="Expected a ToolSet, a Tool or a list of Tools"
    ):
        openai.tools([len])  # type: ignore[list-item]


def test_strict_fallback_is_explicit_and_explained() -> None:
    from toolkit import tool

    @tool
    def tag(labels: dict[str, str]) -> str:
        """Tag."""
        return "ok"

    (definition,) = openai.tools(tag, strict=True)
    assert definition["function"]["strict"] is False
    assert definition["function"]["parameters"] == tag.parameters
    assert openai.strict_problems(tag) == (
        "labels: a map with free keys (additionalProperties) cannot be strict in OpenAI",
    )
