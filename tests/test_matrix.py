"""Every annotation kind, as a parameter and as a return type, the way clients use it.

For each kind of the type table (`tests/matrix_tools.py`): every export,
checked by the official SDK types (openai, anthropic, google-genai, mcp) and
by the JSON Schema meta-schema; `execute` with good and bad arguments; the
returned value's `structured` against `output_schema`; and `toolkit serve`
over stdio, listed and called by the official MCP client, with
`structuredContent` validated against `outputSchema`. One served process
serves the whole module.
"""

from __future__ import annotations

import contextlib
import pathlib
from collections.abc import Iterator
from typing import Any

import anyio
import jsonschema
import pytest
from anthropic.types import ToolParam
from google.genai import types as genai
from mcp import types as mcp_types
from mcp_types.methods import validate_server_result
from openai.types.chat import ChatCompletionFunctionToolParam
from openai.types.responses import FunctionToolParam

from tests.conftest import assert_valid_schema
from tests.matrix_tools import (
    ANY_VALUE,
    BROKEN,
    CASES,
    PARAMETER_TOOLS,
    RETURN_TOOLS,
    UNSTRUCTURED,
    VALUE_TOOLS,
    Case,
    return_tool,
)
from tests.providers.oracles import assert_typed_dict
from tests.servers import stdio_session
from toolkit import Tool, ToolCall, ToolDefinitionError, ToolSet
from toolkit.providers import anthropic, gemini, mcp, openai, openai_responses
from toolkit.providers._transform import is_wrapped
from toolkit.values._json import encode, to_jsonable

ROOT = pathlib.Path(__file__).parent.parent
TARGET = f"{ROOT / 'tests' / 'matrix_tools.py'}:tools"
LIMIT = 120  # seconds for the whole served session
MCP_VERSIONS = (
    "2025-06-18",
    "2025-11-25",
)  # the wire types a tools/list is checked against

IDS = [case.id for case in CASES]
TOOLS = [pytest.param(made, id=made.name) for made in (*PARAMETER_TOOLS, *RETURN_TOOLS)]


def _case(made: Tool[Any, Any]) -> Case:
    return next(case for case in CASES if made.name.split("_", 1)[1] == case.id)


# ---------------------------------------------------------------- exports


@pytest.mark.parametrize("made", TOOLS)
@pytest.mark.parametrize("strict", [False, True])
def test_openai_exports_are_accepted_by_the_sdk(
    made: Tool[Any, Any], strict: bool
) -> None:
    (chat,) = openai.tools(made, strict=strict)
    assert_typed_dict(chat, ChatCompletionFunctionToolParam)
    assert_valid_schema(chat["function"]["parameters"])
    assert isinstance(chat["function"]["strict"], bool)
    (responses,) = openai_responses.tools(made, strict=strict)
    assert_typed_dict(responses, FunctionToolParam)
    assert_valid_schema(responses["parameters"])
    assert responses["description"].endswith("Returns: The value.") == (
        made.name.startswith("r_")
    )


@pytest.mark.parametrize("made", TOOLS)
@pytest.mark.parametrize("strict", [False, True])
def test_anthropic_export_is_accepted_by_the_sdk(
    made: Tool[Any, Any], strict: bool
) -> None:
    (definition,) = anthropic.tools(made, strict=strict)
    assert_typed_dict(definition, ToolParam)
    assert definition["input_schema"]["type"] == "object"
    assert_valid_schema(definition["input_schema"])


@pytest.mark.parametrize("made", TOOLS)
def test_gemini_exports_are_accepted_by_the_sdk(made: Tool[Any, Any]) -> None:
    (wrapper,) = gemini.tools(made)
    genai.Tool.model_validate(wrapper)  # the SDK forbids unknown fields
    (declaration,) = wrapper["functionDeclarations"]
    genai.FunctionDeclaration.model_validate(declaration)
    assert_valid_schema(declaration["parametersJsonSchema"])
    if _case(made).openapi or made.name.startswith("r_"):
        (openapi,) = gemini.tools(made, schema="openapi")
        genai.Tool.model_validate(openapi)
    else:
        with pytest.raises(ToolDefinitionError, match="recursive type"):
            gemini.tools(made, schema="openapi")


@pytest.mark.parametrize("made", TOOLS)
def test_mcp_export_is_accepted_by_the_sdk(made: Tool[Any, Any]) -> None:
    (definition,) = mcp.tools(made)
    mcp_types.Tool.model_validate(definition)
    for version in MCP_VERSIONS:
        validate_server_result("tools/list", version, {"tools": [definition]})
    assert_valid_schema(definition["inputSchema"])
    if "outputSchema" in definition:
        assert definition["outputSchema"]["type"] == "object"
        assert_valid_schema(definition["outputSchema"])


@pytest.mark.parametrize("made", TOOLS)
def test_json_export_is_valid(made: Tool[Any, Any]) -> None:
    from toolkit import ToolSet

    (definition,) = ToolSet([made]).export("json")
    assert definition["name"] == made.name
    assert_valid_schema(definition["parameters"])
    if made.output_schema is not None:
        assert_valid_schema(made.output_schema)


# ---------------------------------------------------------------- execute


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_good_argument_reaches_the_function_as_its_type(case: Case) -> None:
    made = PARAMETER_TOOLS[CASES.index(case)]
    result = made.execute("a", "c", {"value": case.good})
    assert (result.is_error, result.text) == (False, repr(case.received))


# Where every JSON value fits (`Any`, `object`, a JSON value), no argument is bad.
BAD_CASES = [case for case in CASES if case.bad is not ANY_VALUE]
BAD_IDS = [case.id for case in BAD_CASES]


@pytest.mark.parametrize("case", BAD_CASES, ids=BAD_IDS)
def test_a_bad_argument_is_an_error_result(case: Case) -> None:
    made = PARAMETER_TOOLS[CASES.index(case)]
    result = made.execute("a", "c", {"value": case.bad})
    assert result.is_error is True
    assert result.text.startswith(
        f'Invalid arguments for tool "p_{case.id}":\n- value'
    ), result.text


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_returned_value_is_structured_as_its_schema_says(case: Case) -> None:
    made = RETURN_TOOLS[CASES.index(case)]
    result = made.execute("a", "c", {})
    assert result.is_error is False, result.text
    if case.structured is UNSTRUCTURED:
        assert made.output_schema is None
        return
    assert made.output_schema is not None
    assert result.structured == case.structured
    jsonschema.validate(result.structured, made.output_schema)
    (definition,) = mcp.tools(made)
    sent = mcp.result(result, made)
    validate_server_result("tools/call", "2025-11-25", sent)
    jsonschema.validate(sent["structuredContent"], definition["outputSchema"])


RETURNING = [pytest.param(made, id=made.name) for made in (*RETURN_TOOLS, *VALUE_TOOLS)]


def _expected(made: Tool[Any, Any], structured: Any) -> Any:
    """The `structuredContent` the output schema asks for: wrapped exactly when it is."""
    return {"result": structured} if is_wrapped(made.output_schema) else structured


@pytest.mark.parametrize("made", RETURNING)
def test_structured_content_follows_the_schema_whatever_the_value(
    made: Tool[Any, Any],
) -> None:
    outcome = made.execute("a", "c", {})
    assert outcome.is_error is False, outcome.text
    (definition,) = mcp.tools(made)
    calls = [ToolCall("c", made.name, {})]
    (sent,) = mcp.results(calls, [outcome], toolset=ToolSet([made]))
    validate_server_result("tools/call", "2025-11-25", sent)
    if made.output_schema is None:
        assert "outputSchema" not in definition
        return
    assert sent["structuredContent"] == _expected(made, outcome.structured)
    jsonschema.validate(sent["structuredContent"], definition["outputSchema"])


@pytest.mark.parametrize("made", RETURNING)
def test_without_the_toolset_no_structured_content_is_guessed(
    made: Tool[Any, Any],
) -> None:
    """Only the tool's output schema says whether its value is wrapped."""
    outcome = made.execute("a", "c", {})
    (sent,) = mcp.results([ToolCall("c", made.name, {})], [outcome])
    validate_server_result("tools/call", "2025-11-25", sent)
    assert "structuredContent" not in sent
    assert sent["content"] == [{"type": "text", "text": outcome.text}]


@pytest.mark.parametrize(
    "case", [case for case in CASES if case.wrong is not None], ids=lambda case: case.id
)
def test_a_value_that_does_not_match_its_annotation_keeps_its_text(case: Case) -> None:
    """The call ran: the model reads what it gave, ok; only `structured` is dropped."""
    made = return_tool(case, value=case.wrong, prefix="w")
    result = made.execute("a", "c", {})
    assert (result.is_error, result.structured) == (False, None), result.text
    wrong = case.wrong
    text = wrong if isinstance(wrong, str) else encode(to_jsonable(wrong, loose=True))
    if case.id == "typeddict_alias":  # its keys as the schema names them
        text = text.replace('"zip_code"', '"zipCode"').replace(
            '"city_name"', '"cityName"'
        )
    assert result.text == text


# ---------------------------------------------------------------- served


@pytest.fixture(scope="module")
def served() -> dict[Any, Any]:
    """One `toolkit serve` process: the listing and every call's result (or the exception it raised)."""
    return anyio.run(_serve_and_call)


async def _serve_and_call() -> dict[Any, Any]:
    found: dict[Any, Any] = {}
    with anyio.fail_after(LIMIT):
        async with stdio_session(TARGET) as session:
            found["listed"] = await session.list_tools()
            for case in CASES:
                for key, name, args in (
                    ("good", f"p_{case.id}", {"value": case.good}),
                    ("bad", f"p_{case.id}", {"value": case.bad}),
                    ("returned", f"r_{case.id}", {}),
                ):
                    if args.get("value") is ANY_VALUE:
                        continue
                    with _kept(found, (key, case.id)):
                        found[key, case.id] = await session.call_tool(name, args)
            for made in VALUE_TOOLS:
                with _kept(found, ("value", made.name)):
                    found["value", made.name] = await session.call_tool(made.name, {})
    return found


@contextlib.contextmanager
def _kept(found: dict[Any, Any], key: tuple[str, str]) -> Iterator[None]:
    """Keep an exception as the call's outcome, so that one failure does not hide the others."""
    try:
        yield
    except Exception as error:  # the client refused the result
        found[key] = error


def _text(result: Any) -> str:
    assert not isinstance(result, Exception), repr(result)
    block = result.content[0]
    assert isinstance(block, mcp_types.TextContent)
    return block.text


def test_serve_lists_every_tool_but_the_broken_one(served: dict[Any, Any]) -> None:
    listed = served["listed"].tools
    names = [item.name for item in listed]
    assert names == [
        made.name for made in (*PARAMETER_TOOLS, *RETURN_TOOLS, *VALUE_TOOLS)
    ]
    assert BROKEN.name not in names
    for item in listed:
        if item.output_schema is not None:
            assert item.output_schema["type"] == "object"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_served_good_argument(served: dict[Any, Any], case: Case) -> None:
    result = served["good", case.id]
    assert (result.is_error, _text(result)) == (False, repr(case.received))


@pytest.mark.parametrize("case", BAD_CASES, ids=BAD_IDS)
def test_served_bad_argument(served: dict[Any, Any], case: Case) -> None:
    result = served["bad", case.id]
    assert result.is_error is True
    assert _text(result).startswith(f'Invalid arguments for tool "p_{case.id}"')


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_served_structured_content_fits_the_output_schema(
    served: dict[Any, Any], case: Case
) -> None:
    result = served["returned", case.id]
    assert not isinstance(result, Exception), repr(result)
    assert result.is_error is False, _text(result)
    listed = {item.name: item for item in served["listed"].tools}[f"r_{case.id}"]
    if case.structured is UNSTRUCTURED:
        assert listed.output_schema is None
        return
    assert listed.output_schema is not None
    jsonschema.validate(result.structured_content, listed.output_schema)
    wrapped = is_wrapped(RETURN_TOOLS[CASES.index(case)].output_schema)
    expected = {"result": case.structured} if wrapped else case.structured
    assert result.structured_content == expected


@pytest.mark.parametrize(
    "made", [pytest.param(made, id=made.name) for made in VALUE_TOOLS]
)
def test_served_every_admitted_value_fits_the_output_schema(
    served: dict[Any, Any], made: Tool[Any, Any]
) -> None:
    result = served["value", made.name]
    assert not isinstance(result, Exception), repr(result)
    assert result.is_error is False, _text(result)
    listed = {item.name: item for item in served["listed"].tools}[made.name]
    if made.output_schema is None:
        assert listed.output_schema is None
        return
    assert listed.output_schema is not None
    jsonschema.validate(result.structured_content, listed.output_schema)
    expected = _expected(made, made.execute("a", "c", {}).structured)
    assert result.structured_content == expected
