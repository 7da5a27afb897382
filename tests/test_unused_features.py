"""A set without policies, tracing, truncation or a timeout enters none of their steps on a call.

Counted in functions entered (`sys.setprofile`), never in time.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from toolkit import ToolSet, providers, tool

# The steps of features a plain set does not use.
UNUSED = {"_within", "_deadline", "_traced", "start_call", "guarded", "_left"}


def entered(run: Callable[[], object]) -> Counter[str]:
    """The names of the Python functions `run` entered, and of the C functions as `C:name`, with how often."""
    names: Counter[str] = Counter()

    def profile(frame: Any, event: str, arg: object) -> None:
        if event == "call":
            names[frame.f_code.co_name] += 1
        elif event == "c_call":
            names[f"C:{getattr(arg, '__qualname__', arg)}"] += 1

    sys.setprofile(profile)
    try:
        run()
    finally:
        sys.setprofile(None)
    return names


def add(a: int, b: float, c: str) -> str:
    """Join three values."""
    return f"{a}{b}{c}"


def test_a_warm_call_of_a_plain_set_enters_no_step_of_an_unused_feature() -> None:
    tools = ToolSet([tool(add)])
    arguments = {"a": 1, "b": 2.0, "c": "x"}
    assert tools.execute("a", "1", "add", arguments).text == "12.0x"
    names = entered(lambda: tools.execute("a", "2", "add", arguments))
    assert "add" in names  # the count sees the call
    assert not UNUSED & set(names)


def test_a_set_with_a_limit_or_a_tool_with_a_timeout_takes_those_steps() -> None:
    """The same count sees the steps when the features are in use."""
    limited = ToolSet([tool(timeout=5)(add)], max_output_chars=100)
    arguments = {"a": 1, "b": 2.0, "c": "x"}
    limited.execute("a", "1", "add", arguments)
    names = entered(lambda: limited.execute("a", "2", "add", arguments))
    assert {"_within", "_deadline"} <= set(names)


def test_the_sdk_imported_with_no_provider_set_adds_no_span_step() -> None:
    """In a process of its own: other tests may set a tracer provider."""
    script = textwrap.dedent(
        """
        import sys
        import opentelemetry.sdk.trace  # imported, no provider set
        from toolkit import ToolSet, tool

        def add(a: int, b: float, c: str) -> str:
            \"\"\"Join three values.\"\"\"
            return f"{a}{b}{c}"

        tools = ToolSet([tool(add)])
        tools.execute("a", "1", "add", {"a": 1, "b": 2.0, "c": "x"})
        names = set()
        sys.setprofile(lambda frame, event, arg: event == "call" and names.add(frame.f_code.co_name))
        result = tools.execute("a", "2", "add", {"a": 1, "b": 2.0, "c": "x"})
        sys.setprofile(None)
        assert result.text == "12.0x", result
        print(sorted(names & {"_traced", "start_call", "add"}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.strip() == "['add']"


def test_each_provider_is_imported_once_however_often_a_set_exports(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib

    asked: list[str] = []
    real = importlib.import_module

    def counting(name: str, package: str | None = None) -> Any:
        asked.append(name)
        return real(name, package)

    providers.get("anthropic")  # loaded before the count
    monkeypatch.setattr(importlib, "import_module", counting)
    for _ in range(3):
        ToolSet([tool(add)]).export("anthropic")
    assert asked == []


def test_the_first_export_of_a_set_of_plain_tools_looks_at_each_once() -> None:
    """No tool deferred, no name an API renames: the set knows it from its making, the export checks neither per tool."""
    made = [tool(name=f"add_{index}")(add) for index in range(50)]
    first = ToolSet(made).export("openai")  # each tool's envelope made and kept
    names = entered(lambda: ToolSet(made).export("openai"))
    assert "wire_names" not in names
    assert names["C:dict.get"] <= len(made) + 2  # each tool's kept envelope, once
    assert ToolSet(made).export("openai") == first


def test_a_definition_checks_its_name_and_options_once() -> None:
    tool(add)  # the modules that read functions loaded before the count
    names = entered(lambda: tool(add))
    assert names["check_name"] == names["check_options"] == names["_use"] == 1


def test_a_function_defined_again_has_its_docstring_read_once() -> None:
    """As when tools are defined for each agent: the same text is read once."""

    def make() -> Callable[[str], str]:
        def search(query: str) -> str:
            """Search the catalogue.

            Args:
                query: Words to look for.
            """
            return query

        return search

    first = tool(make())
    names = entered(lambda: tool(make()))
    assert "_clean" not in names
    assert "parse_docstring" not in names
    again = tool(make())
    assert (again.description, again.parameters) == (
        first.description,
        first.parameters,
    )
    assert (
        again.parameters["properties"]["query"]["description"] == "Words to look for."
    )
