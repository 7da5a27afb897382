from __future__ import annotations

import logging
from typing import Annotated

import pytest

from toolkit import ToolDefinitionError, tool
from toolkit.hints._docstrings import Docstring, detect_style, parse_docstring

GOOGLE = """Get the weather.

    Uses the public feed.

    Args:
        city (str): City name,
            for example "Paris".
        unit: Temperature unit.

    Notes:
        The feed lags by ten minutes.

    Returns:
        The weather as text.

    Raises:
        ValueError: Never.
    """

NUMPY = """Get the weather.

    Uses the public feed.

    Parameters
    ----------
    city : str
        City name,
        for example "Paris".
    unit : str
        Temperature unit.

    Notes
    -----
    The feed lags by ten minutes.

    Returns
    -------
    str
        The weather as text.
    """

REST = """Get the weather.

    Uses the public feed.

    :param city: City name,
        for example "Paris".
    :type city: str
    :param unit: Temperature unit.
    :returns: The weather as text.
    :raises ValueError: Never.
    """

EPYDOC = """Get the weather.

    Uses the public feed.

    @param city: City name,
        for example "Paris".
    @type city: str
    @param unit: Temperature unit.
    @return: The weather as text.
    """

PARAMS = {"city": 'City name,\nfor example "Paris".', "unit": "Temperature unit."}


@pytest.mark.parametrize(
    ("doc", "style", "description"),
    [
        (
            GOOGLE,
            "google",
            "Get the weather.\n\nUses the public feed.\n\nNotes:\n    The feed lags by ten minutes.",
        ),
        (
            NUMPY,
            "numpy",
            "Get the weather.\n\nUses the public feed.\n\nNotes\n-----\nThe feed lags by ten minutes.",
        ),
        (REST, "rest", "Get the weather.\n\nUses the public feed."),
        (EPYDOC, "epydoc", "Get the weather.\n\nUses the public feed."),
    ],
)
def test_each_style_is_detected_and_parsed(
    doc: str, style: str, description: str
) -> None:
    import inspect

    assert detect_style(inspect.cleandoc(doc)) == style
    assert parse_docstring(doc) == Docstring(
        description=description, params=PARAMS, returns="The weather as text."
    )


@pytest.mark.parametrize("doc", [GOOGLE, NUMPY, REST, EPYDOC])
def test_tool_reads_every_style(doc: str) -> None:
    def get_weather(city: str, unit: str = "c") -> str:
        return city

    get_weather.__doc__ = doc
    made = tool(get_weather)
    assert made.description.startswith("Get the weather.\n\nUses the public feed.")
    assert "Args" not in made.description
    assert ":param" not in made.description
    assert "Returns" not in made.description
    assert (
        made.parameters["properties"]["city"]["description"]
        == 'City name,\nfor example "Paris".'
    )
    assert made.parameters["properties"]["unit"]["description"] == "Temperature unit."


def test_no_docstring_gives_empty_description() -> None:
    assert parse_docstring(None) == Docstring()

    @tool
    def f(x: int) -> int:
        return x

    assert f.description == ""
    assert f.parameters["properties"]["x"] == {"type": "integer"}


def test_plain_docstring_is_the_whole_description() -> None:
    assert parse_docstring("  Do one thing.\n\n  Then another.\n  ") == Docstring(
        description="Do one thing.\n\nThen another."
    )


def test_args_first_docstring_keeps_param_descriptions() -> None:
    def f(a: int, b: int) -> int:
        """Args:
        a: First.
        b: Second.
        """
        return a

    made = tool(f)
    assert made.description == ""
    assert [
        made.parameters["properties"][name]["description"] for name in ("a", "b")
    ] == ["First.", "Second."]


def test_google_sections_other_than_params_stay_in_description() -> None:
    @tool
    def f(x: int) -> int:
        """Summary.

        Args:
            x: The x.

        Example:
            >>> f(1)
            1

        Rules:
            Be kind.
        """
        return x

    assert (
        f.description
        == "Summary.\n\nExample:\n    >>> f(1)\n    1\n\nRules:\n    Be kind."
    )


def test_returns_describes_output_schema_not_the_tool() -> None:
    @tool
    def f(x: int) -> list[int]:
        """Summary.

        Returns:
            The numbers.
        """
        return [x]

    assert f.description == "Summary."
    assert f.output_schema == {
        "type": "array",
        "items": {"type": "integer"},
        "description": "The numbers.",
    }


def test_annotated_description_wins_over_docstring() -> None:
    @tool
    def f(x: Annotated[int, "From Annotated."]) -> int:
        """Summary.

        Args:
            x: From the docstring.
        """
        return x

    assert f.parameters["properties"]["x"]["description"] == "From Annotated."


def test_explicit_description_wins_over_docstring() -> None:
    @tool(description="Explicit.")
    def f(x: int) -> int:
        """From the docstring."""
        return x

    assert f.description == "Explicit."


def test_given_style_is_used() -> None:
    @tool(docstring_style="rest")
    def f(x: int) -> int:
        """Summary.

        :param x: The x.
        """
        return x

    assert f.parameters["properties"]["x"]["description"] == "The x."


def test_documented_parameter_that_does_not_exist_is_an_error() -> None:
    with pytest.raises(ToolDefinitionError) as caught:

        @tool
        def search(query: str) -> str:
            """Search.

            Args:
                query: What to find.
                limit: How many.
            """
            return query

    assert str(caught.value) == (
        "Cannot make a tool of test_documented_parameter_that_does_not_exist_is_an_error.<locals>.search: "
        "the docstring documents a parameter 'limit' that the function does not have (its parameters: query). "
        "Fix the name or remove it from the docstring"
    )


def test_a_malformed_entry_stays_in_the_description_and_is_warned(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING, logger="toolkit"):

        @tool
        def f(x: int, y: int) -> int:
            """Summary.

            Args:
                x The x, missing its colon.
                y: The y.
            """
            return x

    assert f.description == "Summary.\n\nArgs:\n    x The x, missing its colon."
    assert f.parameters["properties"]["y"]["description"] == "The y."
    assert "description" not in f.parameters["properties"]["x"]
    (warned,) = [record.getMessage() for record in caplog.records]
    assert warned.endswith(
        "has parts the docstring parser cannot read; they stay in the tool's "
        "description as they are: Args: x The x, missing its colon."
    )


def test_bad_docstring_style_option() -> None:
    with pytest.raises(
        ToolDefinitionError,
        match=r"^docstring_style='sphinx' is not one of google, numpy, rest, epydoc$",
    ):
        tool(docstring_style="sphinx")  # type: ignore[call-overload]
