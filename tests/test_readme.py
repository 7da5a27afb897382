"""The README's examples do what the README says, and it renders on a package index."""

from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import io
import json
import pathlib
import re
import subprocess
import sys
from dataclasses import dataclass

import pytest

from toolkit import ToolDefinitionError, tool

ROOT = pathlib.Path(__file__).parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
SITE = "https://toolkit-llm.github.io/toolkit/"


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
    section = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    examples = re.findall(r"```python\n(.*?)```", section, re.DOTALL)
    assert len(examples) == 2
    assert "provider.handle(tools" in examples[1]
    compile(examples[1], "README.md", "exec")


# ---------------------------------------------------------------- install


def test_the_install_lines_work_from_a_clone_and_agree_with_the_docs() -> None:
    """`pip install ".[...]"` with extras the project has, the same on getting started."""
    extras = set(
        importlib.metadata.metadata("toolkit-llm").get_all("Provides-Extra") or []
    )
    lines = [
        line.split("#", 1)[0].strip()
        for line in _block_after("## Install", "sh").splitlines()
        if not line.startswith("#")
    ]
    assert lines[0] == 'pip install ".[mcp]"'
    for line in lines:
        named = re.fullmatch(r'pip install "\.\[([\w,]+)\]"', line)
        assert named is not None, line
        assert set(named[1].split(",")) <= extras
    section = README.split("## Install", 1)[1].split("\n## ", 1)[0]
    assert 'pip install "toolkit-llm[mcp]"' in section  # at the first release
    assert {"otel", "redis"} <= set(re.findall(r"`(\w+)` \(", section))
    started = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    clone = started.split("## Install", 1)[1].split("\n## ", 1)[0]
    assert 'pip install ".[mcp]"' in clone
    assert "pip install -e" not in clone


# ---------------------------------------------------------------- links


def _site_links() -> list[str]:
    return re.findall(rf"{re.escape(SITE)}([\w/-]*)", README)


def test_every_docs_link_is_a_page_of_the_site() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert f"\nsite_url: {SITE}\n" in config
    pages = _site_links()
    assert len(pages) >= 12
    for page in pages:
        path = page.strip("/")
        source = ROOT / "docs" / (f"{path}.md" if path else "index.md")
        assert source.is_file(), page


def test_every_capability_has_its_page() -> None:
    section = README.split("## Capabilities\n", 1)[1].split("\n## ", 1)[0]
    items = [line for line in section.splitlines() if line.startswith("- ")]
    assert all(line.startswith("- [") and SITE in line for line in items)
    linked = {
        page.strip("/")
        for line in items
        for page in re.findall(rf"{re.escape(SITE)}([\w/-]*)", line)
    }
    assert {
        "types",
        "errors",
        "toolsets",
        "policies",
        "tool-search",
        "context",
        "content",
        "long-running-tools",
        "mcp-server",
        "mcp-client",
        "testing",
        "observability",
    } <= linked
    for words in ("Tool search", "Policies", "Record and replay", "OpenTelemetry"):
        assert f"- [{words}]" in section


def test_every_cli_command_is_in_the_readme() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "toolkit", "--help"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    listed = done.stdout.split("positional arguments:", 1)[1].split("options:", 1)[0]
    commands = re.findall(r"^    (\w+)", listed, re.MULTILINE)
    assert {"budget", "dev", "install", "serve"} <= set(commands)
    shown = _block_after("## Command line", "sh")
    assert [line.split()[1] for line in shown.splitlines()] == [
        "init",
        "schema",
        "call",
        "lint",
        "budget",
        "serve",
        "dev",
        "install",
    ]
    assert sorted(line.split()[1] for line in shown.splitlines()) == sorted(commands)


# ---------------------------------------------------------------- the table


def _table() -> dict[str, dict[str, str]]:
    """The comparison table: first cell -> {library: cell}."""
    section = README.split("## Why toolkit\n", 1)[1].split("\n## ", 1)[0]
    rows = [
        [cell.strip() for cell in line.strip("|").split("|")]
        for line in section.splitlines()
        if line.startswith("|")
    ]
    header, _, *body = rows
    return {row[0]: dict(zip(header[1:], row[1:], strict=True)) for row in body}


MADE_UP_ARGUMENT = "an argument the model made up"
MADE_UP_NESTED = "a key the model made up in a nested object"
NONE_DEFAULT = "`limit: int = None`"
WRONG_DOCSTRING = "a docstring naming a parameter the function lacks"


@dataclass
class _Address:
    """A postal address.

    Attributes:
        street: The street and number.
        city: The city.
    """

    street: str
    city: str


def test_toolkit_does_what_its_column_says() -> None:
    from toolkit import ToolSet

    table = _table()
    ours = {row: cells["toolkit"] for row, cells in table.items()}
    assert ours == {
        "made for": "your own loop on OpenAI Chat and Responses, Anthropic, Gemini; MCP server and client",
        MADE_UP_ARGUMENT: "error naming the valid ones",
        MADE_UP_NESTED: "error naming the valid fields",
        NONE_DEFAULT: "refused at decoration",
        WRONG_DOCSTRING: "refused at decoration",
    }

    def ship(to: _Address, note: str = "") -> str:
        """Ship a parcel.

        Args:
            to: Where to send it.
            note: A note for the courier.
        """
        return to.city

    tools = ToolSet([tool(ship)])
    # One set, five APIs' definitions (each checked against its SDK's types
    # in tests/test_schema_oracle.py and tests/providers/).
    for api in ("openai", "openai_responses", "anthropic", "gemini", "mcp"):
        assert len(tools.export(api)) == 1
    from toolkit import mcp

    assert callable(mcp.connect)  # the client
    assert callable(mcp.serve)  # the server

    address = {"street": "1 Main St", "city": "Oslo"}
    top = tools.execute("a", "c", "ship", {"to": address, "nte": "fragile"})
    assert top.is_error
    assert "- nte: unknown argument; valid arguments: to, note" in top.text
    nested = tools.execute("a", "c", "ship", {"to": {**address, "zip": "0150"}})
    assert nested.is_error
    assert "- to.zip: unknown field; valid fields: street, city" in nested.text

    def page(query: str, limit: int = None) -> str:  # type: ignore[assignment]  # noqa: RUF013
        """Page through results.

        Args:
            query: What to find.
            limit: How many.
        """
        return query

    with pytest.raises(ToolDefinitionError, match="parameter 'limit'"):
        tool(page)

    def search(query: str) -> str:
        """Search.

        Args:
            query: What to find.
            max: How many.
        """
        return query

    with pytest.raises(ToolDefinitionError, match="documents a parameter 'max'"):
        tool(search)


def test_the_peers_columns_are_what_benchmarks_claims_checks() -> None:
    """Each peer's cell is what benchmarks/claims.py found with the peer installed.

    That script runs the same definitions and calls through each library and
    fails on a fact this table states that the library contradicts.
    """
    spec = importlib.util.spec_from_file_location(
        "claims", ROOT / "benchmarks" / "claims.py"
    )
    assert spec is not None
    assert spec.loader is not None
    claims = importlib.util.module_from_spec(spec)
    sys.modules["claims"] = claims  # its dataclass resolves its module
    try:
        spec.loader.exec_module(claims)
    finally:
        del sys.modules["claims"]
    expected: dict[str, dict[str, object]] = claims.EXPECTED
    table = _table()
    words = {
        "error": "error",
        "dropped": "ran",
        "refused": "refused",
        "accepted": "accepted",
    }
    keys = {
        MADE_UP_ARGUMENT: "top",
        MADE_UP_NESTED: "nested",
        NONE_DEFAULT: "none default",
        WRONG_DOCSTRING: "definition",
    }
    assert set(expected) == set(table["made for"])
    for row, key in keys.items():
        for library, cell in table[row].items():
            assert words[cell.split()[0]] == expected[library][key], (row, library)
