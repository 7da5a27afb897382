from __future__ import annotations

from typing import Any

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
            "129 tools in one set; OpenAI accepts at most 128 per request. Split the set or select fewer",
        )
    ]
    assert lint(tools.select(*tools.names[:128])) == []


def test_renamed_tool_with_an_invalid_name_is_reported() -> None:
    made = _made(0)
    made.name = "has.dot"
    (finding,) = lint([made])
    assert finding.code == "invalid-name"


def test_recursive_type_is_reported_for_gemini_and_anthropic() -> None:
    from tests.sample_tools import tools

    codes = [finding.code for finding in lint(tools.select("file_category"))]
    assert codes == ["anthropic-not-strict", "gemini-openapi"]
