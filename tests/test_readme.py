"""The README's examples do what the README says."""

from __future__ import annotations

import contextlib
import io
import json
import pathlib
import re

import pytest

from toolkit import ToolDefinitionError, tool

README = (pathlib.Path(__file__).parent.parent / "README.md").read_text(
    encoding="utf-8"
)


def _block_after(heading: str) -> str:
    section = README.split(heading, 1)[1]
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match is not None
    return match.group(1)


def test_the_two_commands_come_first() -> None:
    first_block = README.split("```sh\n", 1)[1].split("```", 1)[0]
    assert first_block.splitlines()[0].startswith("make demo")
    assert first_block.splitlines()[1].startswith("make test")


def test_quick_start_runs_as_written() -> None:
    namespace: dict[str, object] = {}
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(_block_after("## Quick start"), namespace)  # the README's own code
    lines = output.getvalue().splitlines()
    assert lines[-1] == "22 degrees c in Paris"
    weather = namespace["get_weather"]
    stated = README.split("`get_weather.parameters` is\n`", 1)[1].split("`,", 1)[0]
    assert weather.parameters == json.loads(stated)  # type: ignore[attr-defined]
    assert weather("Paris") == "22 degrees c in Paris"  # type: ignore[operator]


def test_the_definition_error_example_is_real() -> None:
    def search(query: str, limit: int = None) -> str:  # type: ignore[assignment]  # noqa: RUF013
        """Search.

        Args:
            query: What to find.
            max: How many.
        """
        return query

    search.__qualname__ = "search"
    with pytest.raises(ToolDefinitionError) as caught:
        tool(search)
    shown = README.split(
        "raises one `ToolDefinitionError` that lists every problem and its fix:\n\n```\n",
        1,
    )[1].split("\n```", 1)[0]
    assert str(caught.value) == shown


def test_returning_images_runs_and_prints_what_it_says() -> None:
    code = _block_after("## Returning images and files")
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown):
        exec(compile(code, "README.md", "exec"), {})
    expected = code.rsplit("# ", 1)[1].strip()
    assert shown.getvalue().strip() == expected


def test_the_middleware_example_runs_as_written() -> None:
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(_block_after("### Middleware"), {})  # the README's own code
    assert output.getvalue().splitlines() == [
        "Deleted a.txt.",
        "delete_file needs an admin.",
        "['c1: Deleted a.txt.']",
    ]


def test_the_host_example_prints_what_it_says() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(_block_after("## Progress, logging, asking the model and the user"), {})
    assert out.getvalue().splitlines() == [
        "call-1: 1/2 setup.py",
        "call-1: 2/2 tests/test_tool.py",
        "call-1: info indexed {'count': 2}",
        "A Python package with tests. Tests: True.",
    ]
