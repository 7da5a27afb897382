"""What a tool returns, as clients see it: output schemas, structured results, the Returns text."""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import json
import logging
from typing import Any, Literal, NamedTuple, Optional, Union

import jsonschema
import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcp_types.methods import validate_server_result
from typing_extensions import TypedDict

from tests.conftest import assert_valid_schema
from toolkit import Tool, ToolDefinitionError, ToolResult, ToolSet, tool
from toolkit.cli._lint import lint
from toolkit.core._frozen import FrozenDict
from toolkit.providers import anthropic, gemini, mcp, openai, openai_responses

# The protocol versions whose wire types MCP clients check a tools/list against.
MCP_VERSIONS = ("2025-06-18", "2025-11-25")


@dataclasses.dataclass
class Point:
    """A point."""

    x: int
    y: int


class Pair(TypedDict):
    left: str
    right: str


class Span(NamedTuple):
    start: int
    end: int


class Person(pydantic.BaseModel):
    full_name: str = pydantic.Field(alias="fullName")
    age: int = 0


@dataclasses.dataclass
class Node:
    value: int
    children: list[Node] = dataclasses.field(default_factory=list)


class Tree(pydantic.BaseModel):
    value: int
    children: list[Tree] = []


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


def _returning(annotation: Any, value: Any, name: str = "give") -> Tool[Any, Any]:
    def give() -> Any:
        """Give something back."""
        return value

    give.__annotations__["return"] = annotation
    give.__name__ = name
    return tool(give)


def _listed(made: Tool[Any, Any]) -> dict[str, Any]:
    (definition,) = mcp.tools(made)
    for version in MCP_VERSIONS:
        validate_server_result("tools/list", version, {"tools": [definition]})
    return dict(definition)


# ------------------------------------------------------- object output schemas

OBJECT_RETURNS = [
    pytest.param(Point, Point(1, 2), id="dataclass"),
    pytest.param(Pair, {"left": "a", "right": "b"}, id="TypedDict"),
    pytest.param(Span, Span(1, 2), id="NamedTuple"),
    pytest.param(Person, Person(fullName="Ada"), id="pydantic"),
    pytest.param(Node, Node(1, [Node(2)]), id="recursive dataclass"),
    pytest.param(
        Tree, Tree(value=1, children=[Tree(value=2)]), id="recursive pydantic"
    ),
]


@pytest.mark.parametrize(("annotation", "value"), OBJECT_RETURNS)
def test_a_named_object_return_has_an_inline_object_root(
    annotation: Any, value: Any
) -> None:
    made = _returning(annotation, value)
    assert made.output_schema is not None
    assert made.output_schema["type"] == "object"
    assert "$ref" not in made.output_schema
    output = _listed(made)["outputSchema"]
    assert output["type"] == "object"
    assert "$ref" not in output
    assert_valid_schema(output)
    result = made.execute("a", "c", {})
    assert result.is_error is False, result.text
    jsonschema.validate(result.structured, made.output_schema)
    validate_server_result(
        "tools/call", "2025-11-25", mcp.result(result, made)
    )  # the wire type of a tools/call result
    jsonschema.validate(mcp.result(result, made)["structuredContent"], output)


@pytest.mark.parametrize("annotation", [Node, Tree])
def test_a_recursive_return_keeps_its_definitions(annotation: Any) -> None:
    output = _listed(_returning(annotation, None))["outputSchema"]
    name = annotation.__name__
    assert output["properties"]["children"]["items"] == {"$ref": f"#/$defs/{name}"}
    assert list(output["$defs"]) == [name]


def test_a_plain_object_return_keeps_no_unused_definitions() -> None:
    output = _listed(_returning(Point, Point(1, 2)))["outputSchema"]
    assert "$defs" not in output
    assert output["description"] == "A point."


def test_tool_new_inlines_an_output_schema_with_a_ref_root() -> None:
    made = Tool.new(
        name="where",
        description="Where.",
        parameters={"type": "object"},
        execute_fn=lambda agent_id, call_id, args: ToolResult.ok(
            "{}", structured={"x": 1}
        ),
        output_schema={
            "$ref": "#/$defs/P",
            "$defs": {
                "P": {"type": "object", "properties": {"x": {"type": "integer"}}}
            },
        },
    )
    output = _listed(made)["outputSchema"]
    assert output == {"type": "object", "properties": {"x": {"type": "integer"}}}


@pytest.mark.parametrize(
    ("output_schema", "message"),
    [
        (
            {"$ref": "#/$defs/Missing"},
            r"refers to #/\$defs/Missing, which is not inside",
        ),
        ({"type": 5}, "is not a valid JSON Schema"),
        ({"$ref": "https://example.com/p.json"}, "which is not inside the schema"),
        (True, "must be a JSON Schema object"),
    ],
)
def test_tool_new_refuses_an_output_schema_no_client_can_use(
    output_schema: Any, message: str
) -> None:
    with pytest.raises(ToolDefinitionError, match=message):
        Tool.new(
            name="bad",
            description="Bad.",
            parameters={"type": "object"},
            execute_fn=lambda agent_id, call_id, args: "x",
            output_schema=output_schema,
        )


def _broken() -> Tool[Any, Any]:
    @tool
    def broken() -> Point:
        """Broken after it was made."""
        return Point(1, 2)

    broken.output_schema = FrozenDict({"$ref": "#/$defs/Gone"})
    return broken


def test_one_broken_tool_is_left_out_of_the_listing_with_a_logged_reason(
    caplog: pytest.LogCaptureFixture,
) -> None:
    @tool
    def fine() -> Point:
        """Fine."""
        return Point(1, 2)

    with caplog.at_level(logging.WARNING, logger="toolkit"):
        listed = ToolSet([_broken(), fine]).export("mcp")
    assert [item["name"] for item in listed] == ["fine"]
    validate_server_result("tools/list", "2025-11-25", {"tools": listed})
    (record,) = caplog.records
    assert "'broken' is left out of the tools list" in record.getMessage()
    assert "#/$defs/Gone" in record.getMessage()


def test_lint_reports_what_mcp_clients_would_refuse() -> None:
    findings = [item for item in lint([_broken()]) if item.code == "mcp-invalid"]
    assert [item.message for item in findings] == [
        "MCP clients would refuse it, so it is left out of the MCP tools list: "
        "outputSchema refers to #/$defs/Gone, which is not inside it; clients cannot resolve it"
    ]


# ------------------------------------------------------- structured results

WRAPPED_RETURNS = [
    pytest.param(int, 3, 3, id="int"),
    pytest.param(float, 2.5, 2.5, id="float"),
    pytest.param(bool, True, True, id="bool"),
    pytest.param(Union[int, str], "x", "x", id="union returning str"),  # noqa: UP007
    pytest.param(Union[int, str], 4, 4, id="union returning int"),  # noqa: UP007  # the typing spelling
    pytest.param(Literal["a", "b"], "a", "a", id="Literal"),
    pytest.param(Optional[int], None, None, id="Optional returning None"),  # noqa: UP045  # the typing spelling
    pytest.param(Optional[int], 5, 5, id="Optional returning int"),  # noqa: UP045
    pytest.param(
        Optional[Pair],  # noqa: UP045
        {"left": "a", "right": "b"},
        {"left": "a", "right": "b"},
        id="Optional TypedDict",
    ),
    pytest.param(Optional[Pair], None, None, id="Optional TypedDict returning None"),  # noqa: UP045
    pytest.param(list[int], [1, 2], [1, 2], id="list"),
    pytest.param(set[int], {2, 1}, [1, 2], id="set"),
    pytest.param(tuple[int, str], (1, "a"), [1, "a"], id="tuple"),
    pytest.param(Color, Color.RED, "red", id="Enum"),
    pytest.param(Point | None, Point(1, 2), {"x": 1, "y": 2}, id="dataclass or None"),
    pytest.param(
        list[Person],
        [Person(fullName="Ada")],
        [{"fullName": "Ada", "age": 0}],
        id="list of pydantic",
    ),
]


@pytest.mark.parametrize(("annotation", "value", "structured"), WRAPPED_RETURNS)
def test_a_non_object_return_is_structured_and_wrapped_for_mcp(
    annotation: Any, value: Any, structured: Any
) -> None:
    made = _returning(annotation, value)
    result = made.execute("a", "c", {})
    assert result.is_error is False, result.text
    assert result.structured == structured
    assert made.output_schema is not None
    jsonschema.validate(result.structured, made.output_schema)
    output = _listed(made)["outputSchema"]
    assert output["required"] == ["result"]
    sent = mcp.result(result, made)
    validate_server_result("tools/call", "2025-11-25", sent)
    assert sent["structuredContent"] == {"result": structured}
    jsonschema.validate(sent["structuredContent"], output)


def test_a_string_result_keeps_its_plain_text() -> None:
    result = _returning(Literal["a", "b"], "a").execute("a", "c", {})
    assert (result.text, result.structured) == ("a", "a")


def test_pydantic_aliases_are_used_as_the_schema_names_them() -> None:
    made = _returning(Person, Person(fullName="Ada", age=3))
    assert made.output_schema is not None
    assert list(made.output_schema["properties"]) == ["fullName", "age"]
    result = made.execute("a", "c", {})
    assert result.structured == {"fullName": "Ada", "age": 3}
    assert result.text == '{"fullName":"Ada","age":3}'


def test_a_tool_result_with_a_fitting_structured_value_is_kept() -> None:
    ui_result = ToolResult.ok("Here.", structured=Point(1, 2))
    result = _returning(Point, ui_result).execute("a", "c", {})
    assert result == ToolResult("Here.", structured={"x": 1, "y": 2})


def test_a_tool_result_keeps_its_content_parts() -> None:
    from toolkit import Image

    picture = Image.from_bytes(b"\x89PNG\r\n\x1a\n" + b"0" * 16)
    returned = ToolResult.ok(
        "Here.", structured=Point(1, 2), content=["Here.", picture]
    )
    result = _returning(Point, returned).execute("a", "c", {})
    assert result.content == returned.content
    assert result.structured == {"x": 1, "y": 2}


def test_content_parts_are_not_held_to_a_loose_return_annotation() -> None:
    from toolkit import Image

    picture = Image.from_bytes(b"\x89PNG\r\n\x1a\n" + b"0" * 16)
    made = _returning(list[Any], ["A chart:", picture], name="chart")
    result = made.execute("a", "c", {})
    assert (result.is_error, result.structured, result.content[1]) == (
        False,
        None,
        picture,
    )
    sent = mcp.result(result, made)  # MCP clients hold it to its outputSchema
    validate_server_result("tools/call", "2025-11-25", sent)
    assert sent["isError"] is True
    assert "Annotate the return as the parts it gives" in sent["content"][0]["text"]


def test_an_error_tool_result_passes_whatever_the_annotation() -> None:
    failed = ToolResult.error("No point today.")
    assert _returning(Point, failed).execute("a", "c", {}) == failed


MISMATCHES = [
    pytest.param(int, "x", "int", "str", id="str for int"),
    pytest.param(int, True, "int", "bool", id="bool for int"),
    pytest.param(Point, {"x": "a", "y": 1}, "Point", "dict", id="bad field"),
    pytest.param(
        Literal["a", "b"], "c", "Literal['a', 'b']", "str", id="not in Literal"
    ),
    pytest.param(list[int], [1, "a"], "list[int]", "list", id="bad item"),
    pytest.param(Pair, None, "Pair", "NoneType", id="None for TypedDict"),
    pytest.param(
        Point,
        ToolResult.ok("text only"),
        "Point",
        "ToolResult (structured: NoneType)",
        id="ToolResult without a value",
    ),
]


@pytest.mark.parametrize(("annotation", "value", "shown", "kind"), MISMATCHES)
def test_a_value_that_does_not_match_its_annotation_keeps_its_text(
    annotation: Any, value: Any, shown: str, kind: str, caplog: pytest.LogCaptureFixture
) -> None:
    made = _returning(annotation, value, name="liar")
    with caplog.at_level(logging.WARNING, logger="toolkit"):
        result = made.execute("a", "c", {})
        again = made.execute("a", "c", {})
    if isinstance(value, ToolResult):
        text = value.text
    else:
        text = (
            value
            if isinstance(value, str)
            else json.dumps(value, separators=(",", ":"))
        )
    assert (result.is_error, result.text, result.structured) == (False, text, None)
    assert again == result
    (warned,) = [record.getMessage() for record in caplog.records]  # once per tool
    assert warned.startswith(
        f"Tool 'liar' returned a value of type {kind} that does not match its return annotation {shown} ("
    ), warned


def test_the_mismatch_says_what_is_wrong(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="toolkit"):
        _returning(Point, {"x": "a", "y": 1}).execute("a", "c", {})
    assert '(x: expected integer, got string "a")' in caplog.records[0].getMessage()


@pytest.mark.parametrize(("annotation", "value"), [(int, "x"), (Point, None)])
def test_aexecute_keeps_the_text_of_a_value_that_does_not_fit(
    annotation: Any, value: Any
) -> None:
    result = asyncio.run(_returning(annotation, value).aexecute("a", "c", {}))
    assert (result.is_error, result.text, result.structured) == (
        False,
        json.dumps(value) if value is None else value,
        None,
    )


def test_a_result_that_contradicts_a_raw_output_schema_is_flagged_on_mcp() -> None:
    made = Tool.new(
        name="raw",
        description="Raw.",
        parameters={"type": "object"},
        execute_fn=lambda agent_id, call_id, args: ToolResult.ok("7", structured="7"),
        output_schema={"type": "integer"},
    )
    sent = mcp.result(made.execute("a", "c", {}), made)
    validate_server_result("tools/call", "2025-11-25", sent)
    assert sent["isError"] is True  # clients refuse it unflagged
    assert sent["content"][0] == {"type": "text", "text": "7"}  # what it returned first
    assert sent["content"][1]["text"].startswith(
        'The call of tool "raw" ran and returned the value above.'
    )


def test_handle_follows_each_tools_output_schema() -> None:
    tools = ToolSet([_returning(Optional[int], None, name="nothing")])  # noqa: UP045
    (sent,) = asyncio.run(mcp.handle(tools, "a", {"name": "nothing", "arguments": {}}))
    assert sent["structuredContent"] == {"result": None}
    assert sent["isError"] is False


# ------------------------------------------------------- the Returns text


@tool
def search(query: str) -> list[str]:
    """Search the web.

    Args:
        query: What to look for.

    Returns:
        The titles of the best pages.
    """
    return [query]


@tool
def greet(name: str) -> str:
    """Greet someone.

    Args:
        name: Who.

    Returns:
        A greeting.
    """
    return f"Hello {name}"


@tool
def quiet(name: str) -> str:
    """Say nothing.

    Args:
        name: Who.
    """
    return ""


RETURNS_TOOLS = ToolSet([search, greet, quiet])
SEARCH = "Search the web.\n\nReturns: The titles of the best pages."
GREET = "Greet someone.\n\nReturns: A greeting."


def _descriptions(exported: list[dict[str, Any]], *path: str) -> list[str | None]:
    found = []
    for entry in exported:
        for key in path:
            entry = entry[key]
        found.append(entry.get("description"))
    return found


@pytest.mark.parametrize("strict", [False, True])
def test_openai_descriptions_end_with_the_returns_text(strict: bool) -> None:
    chat = openai.tools(RETURNS_TOOLS, strict=strict)
    assert _descriptions(chat, "function") == [SEARCH, GREET, "Say nothing."]
    responses = openai_responses.tools(RETURNS_TOOLS, strict=strict)
    assert _descriptions(responses) == [SEARCH, GREET, "Say nothing."]


@pytest.mark.parametrize("strict", [False, True])
def test_anthropic_descriptions_end_with_the_returns_text(strict: bool) -> None:
    assert _descriptions(anthropic.tools(RETURNS_TOOLS, strict=strict)) == [
        SEARCH,
        GREET,
        "Say nothing.",
    ]


@pytest.mark.parametrize("schema", ["json", "openapi"])
def test_gemini_descriptions_end_with_the_returns_text(
    schema: Literal["json", "openapi"],
) -> None:
    (wrapper,) = gemini.tools(RETURNS_TOOLS, schema=schema)
    assert _descriptions(wrapper["functionDeclarations"]) == [
        SEARCH,
        GREET,
        "Say nothing.",
    ]


def test_json_export_and_ai_tools_carry_the_returns_text() -> None:
    assert _descriptions(RETURNS_TOOLS.export("json")) == [
        SEARCH,
        GREET,
        "Say nothing.",
    ]
    assert [item.description for item in RETURNS_TOOLS.to_ai_tools()] == [
        SEARCH,
        GREET,
        "Say nothing.",
    ]


def test_mcp_puts_the_returns_text_in_the_output_schema_when_there_is_one() -> None:
    listed = {item["name"]: item for item in mcp.tools(RETURNS_TOOLS)}
    assert listed["search"]["description"] == "Search the web."
    assert listed["search"]["outputSchema"]["description"] == (
        "The titles of the best pages."
    )
    assert listed["greet"]["description"] == GREET
    assert "outputSchema" not in listed["greet"]
    assert listed["quiet"]["description"] == "Say nothing."


def test_the_description_itself_stays_without_the_returns_text() -> None:
    assert search.description == "Search the web."
    assert search.returns == "The titles of the best pages."
    assert quiet.returns is None


# ------------------------------------------------------- hostile return values


class _LoudStr(str):
    def __str__(self) -> str:
        raise RuntimeError("no")


class _BadDump:
    def model_dump(self, **options: Any) -> Any:
        raise RuntimeError("cannot dump")

    @classmethod
    def model_json_schema(cls) -> Any:
        return {}


class _BadMapping(dict[str, int]):
    def items(self) -> Any:
        raise RuntimeError("cannot iterate")


HOSTILE = [
    pytest.param(Literal["a"], _LoudStr("a"), id="str subclass whose __str__ raises"),
    pytest.param(
        Point, ToolResult.ok("x", structured=_BadDump()), id="model_dump raises"
    ),
    pytest.param(dict[str, int], _BadMapping(a=1), id="mapping whose items raise"),
]


@pytest.mark.parametrize(("annotation", "value"), HOSTILE)
def test_a_hostile_return_value_never_escapes(annotation: Any, value: Any) -> None:
    made = _returning(annotation, value, name="hostile")
    results: list[Any] = [
        made.execute("a", "c", {}),
        asyncio.run(made.aexecute("a", "c", {})),
        *asyncio.run(
            mcp.handle(ToolSet([made]), "a", {"name": "hostile", "arguments": {}})
        ),
    ]
    for result in results[:2]:
        assert isinstance(result.text, str)
        assert result.is_error or result.structured in ("a", None)
    sent = results[2]
    validate_server_result("tools/call", "2025-11-25", sent)
    if not sent["isError"]:
        assert sent["structuredContent"] == {"result": "a"}


def test_a_hostile_structured_value_loses_only_its_structured_form(
    caplog: pytest.LogCaptureFixture,
) -> None:
    returned = ToolResult.ok("x", structured=_BadDump())
    with caplog.at_level(logging.WARNING, logger="toolkit"):
        result = _returning(Point, returned, name="hostile").execute("a", "c", {})
    assert result == ToolResult("x")
    assert "_BadDump" in caplog.records[-1].getMessage()


_SCALAR_RETURNS = [
    int,
    float,
    bool,
    str,
    int | None,
    int | str,
    str | None,
    Literal["a", "b", 3, True],
    Any,
]


@settings(max_examples=300, deadline=None)
@given(
    annotation=st.sampled_from(_SCALAR_RETURNS),
    value=st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.integers(min_value=-(2**80), max_value=2**80),
        st.text(max_size=20),
        st.sampled_from(["a", "b", "", "null", "3"]),
    ),
)
def test_a_scalar_return_value_is_its_own_text_and_structured_value(
    annotation: Any, value: Any
) -> None:
    made = _returning(annotation, value)
    result = made.execute("a", "c", {})
    if made.output_schema is None:  # an annotation without an output schema
        return
    if jsonschema.Draft202012Validator(made.output_schema).is_valid(value):
        text = value if isinstance(value, str) else json.dumps(value)
        assert result == ToolResult(text, structured=value)
    else:  # the call ran: its text, ok, without a structured value
        text = value if isinstance(value, str) else json.dumps(value)
        assert result == ToolResult(text)
