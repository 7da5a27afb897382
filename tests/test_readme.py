"""The README's examples do what the README says, and it renders on a package index."""

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


def _block_after(heading: str, language: str = "python") -> str:
    section = README.split(heading, 1)[1]
    match = re.search(rf"```{language}\n(.*?)```", section, re.DOTALL)
    assert match is not None
    return match.group(1)


def test_contributors_find_the_two_commands() -> None:
    lines = _block_after("## Contributing", "sh").splitlines()
    assert lines[0].startswith("make demo")
    assert lines[1].startswith("make test")


def test_it_stays_a_package_page() -> None:
    """Short, and no link or image that only resolves inside the repository."""
    assert len(README.splitlines()) <= 160
    targets = re.findall(r"!?\[[^\]]*\]\(([^)]+)\)", README)
    targets += re.findall(r"""(?:src|href)=["']([^"']+)""", README)
    assert [t for t in targets if not t.startswith("https://")] == []


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
    tools = namespace["tools"]
    wrong = tools.execute(  # type: ignore[attr-defined]
        "agent-1", "call-2", "get_weather", {"city": "Paris", "unit": "kelvin"}
    )
    assert wrong.is_error
    assert wrong.text == _block_after("## Quick start", "text").strip()


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
    shown = README.split("lists every\nproblem and its fix:\n\n```\n", 1)[1]
    assert str(caught.value) == shown.split("\n```", 1)[0]


def test_the_provider_example_compiles() -> None:
    compile(_block_after("## With each API"), "README.md", "exec")
    compile(_block_after("## MCP, both ways"), "README.md", "exec")
