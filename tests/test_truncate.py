"""`max_output_chars` keeps the head and the tail, says what was cut, and never hides what to fix."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit import ToolCall, ToolResult, ToolSet, tool
from toolkit.values._truncate import shorten


def test_short_text_is_kept() -> None:
    assert shorten("abc", 100) == "abc"


def test_head_and_tail_are_kept_with_a_notice_between() -> None:
    text = "".join(str(index % 10) for index in range(1000))
    short = shorten(text, 120)
    assert short == (
        text[:52] + "\n[... 921 of 1,000 characters cut ...]\n" + text[-27:]
    )
    assert len(short) == 118


def test_cuts_fall_on_line_breaks() -> None:
    text = "".join(f"line {n}\n" for n in range(100))
    assert shorten(text, 120) == (
        "line 0\nline 1\nline 2\nline 3\nline 4\nline 5\nline 6"
        "\n[... 718 of 790 characters cut ...]\n"
        "line 97\nline 98\nline 99\n"
    )


@settings(max_examples=300, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from("ab\n-é"), max_size=3000),
    limit=st.integers(min_value=100, max_value=2000),
)
def test_any_text_fits_and_says_what_was_cut(text: str, limit: int) -> None:
    short = shorten(text, limit)
    if len(text) <= limit:
        assert short == text
        return
    assert len(short) <= limit
    head, rest = short.split("\n[... ", 1)
    counted, tail = rest.split(" characters cut ...]\n", 1)
    cut, total = (int(part.replace(",", "")) for part in counted.split(" of "))
    assert total == len(text)
    assert text.startswith(head)
    assert text.endswith(tail)
    assert len(head) + cut + len(tail) == len(text)


def invalid_message(problems: int, width: int = 40) -> str:
    lines = [f"- xs[{index}]: {'x' * width}" for index in range(problems)]
    return 'Invalid arguments for tool "count":\n' + "\n".join(lines)


@settings(max_examples=200, deadline=None)
@given(
    problems=st.integers(min_value=1, max_value=200),
    width=st.integers(min_value=0, max_value=300),
    limit=st.integers(min_value=100, max_value=1000),
)
def test_an_argument_error_keeps_its_header_and_first_problem(
    problems: int, width: int, limit: int
) -> None:
    text = invalid_message(problems, width)
    short = shorten(text, limit)
    first_two = "\n".join(text.splitlines()[:2])
    assert short.startswith(first_two)
    if len(first_two) + 60 <= limit:
        assert len(short) <= limit


def test_a_toolset_keeps_the_problem_of_a_long_argument_error() -> None:
    tools = ToolSet(max_output_chars=100)

    @tools.tool
    def count(xs: list[int], label: str) -> int:
        """Count."""
        return len(xs)

    result = tools.execute("a", "c", "count", {"xs": ["x"] * 50, "label": "y"})
    lines = result.text.splitlines()
    assert lines[:2] == [
        'Invalid arguments for tool "count":',
        '- xs[0]: expected integer, got string "x"',
    ]
    assert lines[2].startswith("[... ")
    assert lines[2].endswith(" characters cut ...]")


def test_run_with_middleware_keeps_the_problem_too() -> None:
    tools = ToolSet(max_output_chars=100)

    @tools.tool
    def count(xs: list[int]) -> int:
        """Count."""
        return len(xs)

    async def passthrough(call: ToolCall, context: Any, call_next: Any) -> ToolResult:
        result: ToolResult = await call_next(call)
        return result

    tools.use(passthrough)
    import asyncio

    (result,) = asyncio.run(
        tools.run("a", [ToolCall("c", "count", {"xs": ["x"] * 50})])
    )
    assert result.text.startswith(
        'Invalid arguments for tool "count":\n'
        '- xs[0]: expected integer, got string "x"\n[... '
    )


def test_a_long_first_problem_is_kept_whole() -> None:
    @tool
    def pick(mode: str) -> str:
        """Pick."""
        return mode

    tools = ToolSet([pick], max_output_chars=100)
    result = tools.execute("a", "c", "pick", {"mode": 1, "k" * 500: 1})
    lines = result.text.splitlines()
    assert lines[0] == 'Invalid arguments for tool "pick":'
    assert lines[1] == "- mode: expected string, got integer 1"
