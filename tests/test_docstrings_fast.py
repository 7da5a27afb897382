"""The Google fast path gives exactly what docstring_parser gives (differential test)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit import ToolDefinitionError, _docstrings
from toolkit._docstrings import Docstring, parse_docstring

names = st.sampled_from(
    ["x", "city", "max_price", "_private", "*args", "**kwargs", "n2"]
)
types_ = st.sampled_from(
    [
        "",
        " (int)",
        " (str, optional)",
        "(list[int])",
        " ()",
        " (dict[str, int])",
        " (:)",
        " (a: b)",
    ]
)
words = st.text(alphabet="abc xyz,.:()[]'\"-@", min_size=0, max_size=25)
indents = st.sampled_from(["    ", "  ", "\t", "      "])


@st.composite
def items(draw: st.DrawFn) -> list[str]:
    indent = draw(indents)
    deeper = indent + draw(st.sampled_from(["    ", "  ", ""]))
    lines = []
    for _ in range(draw(st.integers(1, 4))):
        separator = draw(st.sampled_from([": ", ":", " : ", " ", ":  "]))
        lines.append(f"{indent}{draw(names)}{draw(types_)}{separator}{draw(words)}")
        for _ in range(draw(st.integers(0, 2))):
            lines.append(f"{deeper}{draw(words)}")
        if draw(st.integers(0, 9)) == 0:
            lines.append("")
    return lines


@st.composite
def docstrings(draw: st.DrawFn) -> str:
    parts = [
        draw(st.sampled_from(["", "Args:", "  Summary."])) or draw(words) or "Summary."
    ]
    if draw(st.booleans()):
        parts += ["", draw(words)]
    for _ in range(draw(st.integers(1, 3))):
        if draw(st.integers(0, 6)) == 0:
            parts.append(
                draw(
                    st.sampled_from(
                        [
                            "---",
                            "    ---",
                            ":param x: y",
                            "@param x: y",
                            "Notes",
                            "-",
                            "Keyword Args:",
                        ]
                    )
                )
            )
        title = draw(
            st.sampled_from(
                [
                    "Args",
                    "Arguments",
                    "Parameters",
                    "Attributes",
                    "Raises",
                    "Returns",
                    "Yields",
                    "Notes",
                    "args",
                    "Example",
                ]
            )
        )
        parts += ["", f"{title}:"]
        if title in ("Returns", "Yields", "Notes", "Example"):
            indent = draw(indents)
            first = draw(st.sampled_from(["", "int: ", "dict[str, int]: ", "The "]))
            parts.append(f"{indent}{first}{draw(words)}")
            for _ in range(draw(st.integers(0, 2))):
                parts.append(
                    f"{indent}{draw(st.sampled_from(['', '  ']))}{draw(words)}"
                )
        else:
            parts += draw(items())
    return "\n".join(parts)


def _parse(doc: str, *, fast: bool) -> Docstring | str:
    saved = _docstrings._FAST
    _docstrings._FAST = fast
    try:
        return parse_docstring(doc, style="google")
    except ToolDefinitionError as error:
        return str(error)
    finally:
        _docstrings._FAST = saved


@settings(max_examples=1500, deadline=None)
@given(doc=docstrings())
def test_fast_path_agrees_with_docstring_parser(doc: str) -> None:
    assert _parse(doc, fast=True) == _parse(doc, fast=False)


def _common_cases() -> Iterator[str]:
    yield "Get the weather.\n\nArgs:\n    city: City name.\n    unit (str): Unit.\n        Celsius or Fahrenheit.\n\nReturns:\n    The weather."
    yield "Search.\n\nArgs:\n    query: What: to find.\n\nRaises:\n    ValueError: If empty.\n\nReturns:\n    list[str]: The hits,\n    one per line."
    yield "Args:\n    a: first\n    b: second"


@pytest.mark.parametrize("doc", list(_common_cases()))
def test_common_docstrings_take_the_fast_path(doc: str) -> None:
    lines = parse_docstring.__globals__["_split_sections"](
        parse_docstring.__globals__["_clean"](doc), "google"
    )[0]
    assert _docstrings._google_fast(lines) is not None
    assert _parse(doc, fast=True) == _parse(doc, fast=False)


@settings(max_examples=500, deadline=None)
@given(doc=st.text(alphabet=" \t\nab:", max_size=40))
def test_clean_matches_inspect_cleandoc(doc: str) -> None:
    import inspect

    lines = _docstrings._clean(doc)
    if lines and _docstrings._GOOGLE_HEADER.match(lines[0]):
        return  # the one documented difference: an Args-first docstring is re-indented
    assert "\n".join(lines) == inspect.cleandoc(doc)
