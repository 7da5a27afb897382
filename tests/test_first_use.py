"""What a new user's first definitions get: a lambda needs a name, a tool without a description is warned about."""

from __future__ import annotations

import logging

import pytest

from toolkit import ToolDefinitionError, ToolSet, tool


def test_a_lambda_without_a_name_is_refused_at_decoration() -> None:
    with pytest.raises(ToolDefinitionError) as caught:
        tool(lambda q: q)
    assert str(caught.value) == (
        f"Cannot make a tool of {caught.value.function}: a lambda has no name a "
        'model could call the tool by. Pass name=, as in `tool(name="echo")(lambda '
        "q: q)`, or use a def"
    )
    assert caught.value.function is not None
    assert caught.value.function.endswith("<lambda>")
    with pytest.raises(ToolDefinitionError, match="Pass name="):
        ToolSet().tool(lambda q: q)


def test_a_lambda_with_a_name_is_a_tool() -> None:
    echo = tool(name="echo", description="Say it back.")(lambda q: q)
    assert echo.name == "echo"
    assert echo.to_ai_tool().to_dict()["name"] == "echo"
    assert echo.execute("agent-1", "call-1", {"q": "hi"}).text == "hi"


def test_a_tool_without_a_description_is_made_and_warned_about(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def lookup(key: str) -> str:
        return key

    with caplog.at_level(logging.WARNING, logger="toolkit"):
        made = tool(lookup)
    assert made.description == ""
    assert made.execute("agent-1", "call-1", {"key": "k"}).text == "k"
    assert [(r.name, r.levelno) for r in caplog.records] == [
        ("toolkit", logging.WARNING)
    ]
    assert caplog.records[0].getMessage() == (
        f"Tool 'lookup' ({lookup.__qualname__}) has no description, and models "
        "choose tools by it: add a docstring, or pass description="
    )


def test_a_docstring_or_a_description_is_not_warned_about(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def lookup(key: str) -> str:
        """Look a key up."""
        return key

    def other(key: str) -> str:
        return key

    with caplog.at_level(logging.WARNING, logger="toolkit"):
        tool(lookup)
        tool(description="Look a key up.")(other)
    assert caplog.records == []
