from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit import Finding, ToolSet, lint, tool


def _made(index: int) -> Any:
    def function(city: str) -> str:
        """Get the weather for a city.

        Args:
            city: City name.
        """
        return city

    function.__name__ = f"tool_{index}"
    return tool(function)


def test_lint_returns_findings_as_data() -> None:
    @tool
    def vague(x: int) -> str:
        """Thing."""
        return ""

    assert lint([vague]) == [
        Finding(
            "vague",
            "thin-description",
            "the description 'Thing.' is one word; say what the tool does and when to use it",
        ),
        Finding(
            "vague",
            "undocumented-parameter",
            "parameter 'x' has no description. Document it in the docstring or with Param(description=...)",
        ),
    ]
    assert (
        str(lint([vague])[0])
        == "vague: the description 'Thing.' is one word; say what the tool does and when to use it [thin-description]"
    )


def test_too_many_tools() -> None:
    tools = ToolSet(_made(index) for index in range(129))
    assert lint(tools) == [
        Finding(
            None,
            "too-many-tools",
            "129 tools sent up front; OpenAI accepts at most 128 per request. Defer some (defer_loading: the model finds them by search), split the set or select fewer",
        )
    ]
    assert lint(tools.select(*tools.names[:128])) == []
    # Deferred tools are not sent up front: 128 eager tools and one deferred.
    assert (
        lint(
            tools.select(*tools.names[:128]) | tools.select(tools.names[128]).deferred()
        )
        == []
    )


def test_a_tool_named_like_the_search_of_deferred_tools_is_reported() -> None:
    @tool
    def search_tools(query: str) -> str:
        """Search the web for pages.

        Args:
            query: The words to search for.
        """
        return query

    deferred = ToolSet([_made(0)]).deferred()
    [finding] = lint(ToolSet([search_tools]) | deferred)
    assert (finding.tool, finding.code) == ("search_tools", "shadows-search-tool")
    assert "rename it to keep the search" in finding.message
    assert lint([search_tools, *deferred]) == [finding]
    # Without deferred tools there is no search to take the place of.
    assert lint([search_tools, _made(0)]) == []


def test_renamed_tool_with_an_invalid_name_is_reported() -> None:
    made = _made(0)
    made.name = "has space"
    (finding,) = lint([made])
    assert finding.code == "invalid-name"


def test_a_name_some_api_does_not_take_is_reported_with_each_wire_name() -> None:
    dotted = tool(name="math.factorial")(_made(0).__wrapped__)
    assert lint([dotted]) == [
        Finding(
            "math.factorial",
            "renamed",
            "some APIs do not take this name, so their exports send another (OpenAI 'math_factorial', "
            "Anthropic 'math_factorial'), and calls under it reach this tool; to keep one name everywhere, "
            "name it with letters, digits, '_' and '-' only, a letter first, at most 64 characters",
        )
    ]
    long = tool(name="a" * 65)(_made(1).__wrapped__)
    (finding,) = lint([long])
    assert finding.code == "renamed"
    assert (
        f"(OpenAI {long.wire_name('openai')!r}, Gemini {long.wire_name('gemini')!r})"
        in finding.message
    )
    assert lint([tool(name="fits-every_API")(_made(2).__wrapped__)]) == []


def test_recursive_type_is_reported_for_gemini_and_anthropic() -> None:
    from tests.sample_tools import tools

    codes = [finding.code for finding in lint(tools.select("file_category"))]
    assert codes == ["anthropic-not-strict", "gemini-openapi"]


# ---------------------------------------------------------------- contradictions


def _raw(properties: dict[str, Any], **root: Any) -> Any:
    from toolkit import Tool

    return Tool.new(
        name="raw",
        description="A tool made from a schema written by hand.",
        parameters={"type": "object", "properties": properties, **root},
        execute_fn=lambda agent_id, call_id, args: "ok",
    )


def _codes(made: Any) -> list[str]:
    return [finding.code for finding in lint([made])]


# Each rule, on a schema that has the fault and on the nearest one that has not.
CONTRADICTIONS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    (
        "unsatisfiable-parameter",
        {"a": {"type": "integer", "enum": ["x", "y"], "description": "A."}},
        {"a": {"type": "integer", "enum": [1, "y"], "description": "A."}},
    ),
    (
        "unsatisfiable-parameter",
        {"a": {"type": "string", "const": 3, "description": "A."}},
        {"a": {"type": "string", "const": "3", "description": "A."}},
    ),
    (
        "unsatisfiable-parameter",
        {"a": {"type": "integer", "minimum": 5, "maximum": 1, "description": "A."}},
        {"a": {"type": "integer", "minimum": 1, "maximum": 1, "description": "A."}},
    ),
    (
        "unsatisfiable-parameter",
        {"a": {"type": "string", "minLength": 4, "maxLength": 2, "description": "A."}},
        {"a": {"type": "string", "minLength": 2, "maxLength": 4, "description": "A."}},
    ),
    (
        "unsatisfiable-parameter",
        {"a": {"exclusiveMinimum": 1, "exclusiveMaximum": 1, "description": "A."}},
        {"a": {"exclusiveMinimum": 1, "exclusiveMaximum": 2, "description": "A."}},
    ),
    (
        "null-default",
        {"a": {"type": "string", "default": None, "description": "A."}},
        {"a": {"type": ["string", "null"], "default": None, "description": "A."}},
    ),
    (
        "default-outside-schema",
        {"a": {"type": "integer", "default": "3", "description": "A."}},
        {"a": {"type": "integer", "default": 3, "description": "A."}},
    ),
    (
        "default-outside-schema",
        {
            "a": {
                "type": "string",
                "enum": ["c", "f"],
                "default": "k",
                "description": "A.",
            }
        },
        {
            "a": {
                "type": "string",
                "enum": ["c", "f"],
                "default": "f",
                "description": "A.",
            }
        },
    ),
    (
        "default-outside-schema",
        {
            "a": {
                "type": "object",
                "properties": {"b": {"type": "integer", "default": 1.5}},
                "description": "A.",
            }
        },
        {
            "a": {
                "type": "object",
                "properties": {"b": {"type": "number", "default": 1.5}},
                "description": "A.",
            }
        },
    ),
    (
        "default-outside-schema",
        {"a": {"$ref": "#/$defs/N", "default": "one", "description": "A."}},
        {"a": {"$ref": "#/$defs/N", "default": 1, "description": "A."}},
    ),
]


@pytest.mark.parametrize(("code", "flawed", "sound"), CONTRADICTIONS)
def test_a_contradiction_is_found_and_its_correction_is_not(
    code: str, flawed: dict[str, Any], sound: dict[str, Any]
) -> None:
    defs = {"$defs": {"N": {"type": "integer"}}}
    assert _codes(_raw(flawed, **defs)) == [code]
    assert _codes(_raw(sound, **defs)) == []


def test_required_names_an_undeclared_property() -> None:
    a = {"a": {"type": "string", "description": "A."}}
    [finding] = lint([_raw(a, required=["a", "b"])])
    assert finding == Finding(
        "raw",
        "undeclared-required",
        "the parameter schema requires 'b', which is not among its properties ('a'); "
        "declare it or take it out of `required`",
    )
    assert lint([_raw(a, required=["a"])]) == []


def test_a_nested_parameter_is_named_by_its_path() -> None:
    inner = {"type": "object", "properties": {"b": {"type": "string", "default": None}}}
    [finding] = lint([_raw({"a": {**inner, "description": "A."}})])
    assert finding.message.startswith("parameter 'a.b' has `default: null`")


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=6,
)
SCHEMAS = st.fixed_dictionaries(
    {},
    optional={
        "type": st.sampled_from(
            ["string", "integer", "number", "boolean", "array", "object", "null"]
        )
        | st.lists(
            st.sampled_from(["string", "integer", "null"]), min_size=1, unique=True
        ),
        "minimum": st.integers(-3, 3),
        "maxLength": st.integers(0, 3),
        "enum": st.lists(JSON_VALUES, min_size=1, max_size=3),
    },
)


@settings(max_examples=300, deadline=None)
@given(schema=SCHEMAS, default=JSON_VALUES)
def test_a_default_is_reported_exactly_when_jsonschema_refuses_it(
    schema: dict[str, Any], default: Any
) -> None:
    import jsonschema

    fits = jsonschema.Draft202012Validator(schema).is_valid(default)
    findings = lint([_raw({"a": {**schema, "default": default, "description": "A."}})])
    codes = {finding.code for finding in findings} & {
        "null-default",
        "default-outside-schema",
    }
    assert codes == (
        set()
        if fits
        else {"null-default" if default is None else "default-outside-schema"}
    )


def test_lint_of_a_mounted_mcp_server_reports_its_contradictions() -> None:
    server = Path(__file__).parent / "mcp_flawed_server.py"
    linted = subprocess.run(
        [sys.executable, "-m", "toolkit", "lint", f"mcp:{sys.executable} {server}"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert linted.returncode == 1, linted.stderr
    fix = ". Its MCP server has to fix it"
    assert linted.stdout.splitlines() == [
        f"pick: parameter 'unit' accepts no value: none of its enum values ['c', 'f'] "
        f"fits the rest of its schema (type 'integer'){fix} [unsatisfiable-parameter]",
        f"greet: parameter 'name' has `default: null` but cannot be null; make it "
        f'nullable (add "null" to its type) or drop the default{fix} [null-default]',
        f"count: the parameter schema requires 'size', which is not among its "
        f"properties ('n'); declare it or take it out of `required`{fix} "
        "[undeclared-required]",
        f"count: parameter 'n' has the default '3', which its own schema refuses "
        f"(type 'integer'); fix the default or the schema{fix} [default-outside-schema]",
        "4 problems in 4 tools.",
    ]
