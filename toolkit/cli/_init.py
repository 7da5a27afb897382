"""`toolkit init FOLDER`: a starter `tools.py` and its tests, to begin from."""

from __future__ import annotations

import pathlib
from typing import Final

from toolkit.sets._target import TargetError

__all__ = ["write_starter"]


def write_starter(folder: pathlib.Path) -> int:
    """Write the starter files into `folder`; refuse if either exists."""
    files = {folder / name: text for name, text in _STARTER.items()}
    for path in files:
        if path.exists():
            msg = f"{path} exists; toolkit init writes nothing over an existing file. Move it away or give another folder"
            raise TargetError(msg)
    folder.mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path}")
    source, test = files
    print(
        "\nTry:\n"
        f"  toolkit schema {source} --format openai\n"
        f'  toolkit call {source} capital \'{{"country": "Japan"}}\'\n'
        f"  toolkit lint {source}\n"
        f"  python -m pytest {test}   # needs pytest"
    )
    return 0


_STARTER_TOOLS = '''\
"""Tools for an LLM, made with toolkit: each decorated function is one tool.

The type hints become the JSON Schema the model fills in, and the docstring
the descriptions it reads. Try them from the command line:

    toolkit schema tools.py --format openai
    toolkit call tools.py word_count '{"text": "to be or not to be", "unique": true}'
    toolkit lint tools.py
    toolkit serve tools.py   # an MCP server: pip install "toolkit-llm[mcp]"
"""

from __future__ import annotations

from toolkit import ToolError, ToolSet

tools = ToolSet()

CAPITALS = {"france": "Paris", "japan": "Tokyo", "kenya": "Nairobi", "peru": "Lima"}


@tools.tool
def word_count(text: str, unique: bool = False) -> int:
    """Count the words in a text.

    Args:
        text: The text whose words to count.
        unique: Count each different word once, ignoring case.
    """
    words = text.split()
    if unique:
        return len({word.lower() for word in words})
    return len(words)


@tools.tool(read_only=True)
def capital(country: str) -> str:
    """Give the capital city of a country.

    Args:
        country: The country's English name, for example "Japan".
    """
    found = CAPITALS.get(country.strip().lower())
    if found is None:
        known = ", ".join(name.title() for name in CAPITALS)
        # A ToolError's message is exactly what the model reads.
        message = f"No capital known for {country!r}. Known countries: {known}."
        raise ToolError(message)
    return found
'''

_STARTER_TEST = '''\
"""Tests for tools.py; run them with `python -m pytest`.

`tools.execute(agent_id, call_id, name, arguments)` runs a call the way a
model's call arrives: by name, with the arguments as JSON. It never raises;
a mistake becomes an error result whose text the model reads.
"""

from __future__ import annotations

from tools import capital, tools, word_count


def test_the_functions_still_work_as_plain_python() -> None:
    assert word_count("to be or not to be") == 6
    assert capital("Japan") == "Tokyo"


def test_the_model_sees_documented_parameters() -> None:
    parameters = tools["word_count"].parameters
    assert parameters["required"] == ["text"]
    assert parameters["properties"]["unique"] == {
        "type": "boolean",
        "default": False,
        "description": "Count each different word once, ignoring case.",
    }


def test_a_call_from_a_model() -> None:
    arguments = \'{"text": "to be or not to be", "unique": true}\'
    result = tools.execute("test", "call-1", "word_count", arguments)
    assert (result.is_error, result.text) == (False, "4")


def test_bad_arguments_tell_the_model_what_to_fix() -> None:
    result = tools.execute("test", "call-1", "capital", \'{"county": "Japan"}\')
    assert result.is_error
    assert result.text.splitlines() == [
        \'Invalid arguments for tool "capital":\',
        "- country: required property is missing",
        "- county: unknown argument; valid arguments: country",
    ]


def test_a_tool_error_is_what_the_model_reads() -> None:
    result = tools.execute("test", "call-1", "capital", {"country": "Atlantis"})
    assert result.is_error
    assert result.text == (
        "No capital known for \'Atlantis\'. Known countries: France, Japan, Kenya, Peru."
    )
'''

_STARTER: Final = {"tools.py": _STARTER_TOOLS, "test_tools.py": _STARTER_TEST}
