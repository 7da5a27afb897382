"""The `toolkit` command, run as a subprocess, with exact output."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

from tests.sample_tools import tools as sample

ROOT = pathlib.Path(__file__).parent.parent
SAMPLE = "tests/sample_tools.py"
DEFECTS = "tests/cli_targets/defects.py"


def toolkit(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolkit", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    "fmt", ["json", "openai", "openai_responses", "anthropic", "gemini", "mcp"]
)
def test_schema_prints_the_export(fmt: str) -> None:
    done = toolkit("schema", SAMPLE, "--format", fmt)
    assert done.returncode == 0, done.stderr
    assert (
        done.stdout
        == json.dumps(sample.export(fmt), indent=2, ensure_ascii=False) + "\n"
    )


def test_schema_defaults_to_json_and_takes_a_module_and_attribute() -> None:
    done = toolkit("schema", "tests.sample_tools:tools")
    assert (
        done.stdout
        == json.dumps(sample.export("json"), indent=2, ensure_ascii=False) + "\n"
    )
    single = toolkit("schema", "tests.sample_tools:get_weather")
    assert [item["name"] for item in json.loads(single.stdout)] == ["get_weather"]


def test_schema_strict() -> None:
    done = toolkit("schema", SAMPLE, "--format", "openai", "--strict")
    assert done.returncode == 0
    assert (
        done.stdout
        == json.dumps(
            sample.export("openai", strict=True), indent=2, ensure_ascii=False
        )
        + "\n"
    )
    refused = toolkit("schema", SAMPLE, "--format", "mcp", "--strict")
    assert (refused.returncode, refused.stderr) == (
        2,
        "toolkit: error: --strict applies to openai, openai_responses, anthropic, not mcp\n",
    )


def test_call_prints_the_result_text() -> None:
    done = toolkit("call", SAMPLE, "get_weather", '{"city": "Oslo", "days": 2}')
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        "Sunny in Oslo for 2 day(s), 22 degrees c\n",
        "",
    )


def test_call_error_result_exits_1() -> None:
    done = toolkit("call", SAMPLE, "get_weather", '{"town": "Oslo"}')
    assert done.returncode == 1
    assert done.stdout == (
        'Invalid arguments for tool "get_weather":\n'
        "- city: required property is missing\n"
        "- town: unknown argument; valid arguments: city, unit, days\n"
    )
    unknown = toolkit("call", SAMPLE, "get_wether", "{}")
    assert unknown.returncode == 1
    assert unknown.stdout == (
        'Unknown tool "get_wether". Available tools: get_weather, search, file_category, show_map. Did you mean "get_weather"?\n'
    )


def test_call_agent_id_reaches_the_context() -> None:
    done = toolkit(
        "call",
        "examples/demo.py",
        "add_tasks",
        '{"tasks": [{"title": "a"}]}',
        "--agent-id",
        "me",
    )
    assert (done.returncode, done.stdout) == (0, '{"added":1}\n')


def test_python_dash_m_and_console_script_agree() -> None:
    script = pathlib.Path(sys.executable).parent / "toolkit"
    done = subprocess.run(
        [str(script), "call", SAMPLE, "get_weather", '{"city": "Rome"}'],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (
        done.stdout == toolkit("call", SAMPLE, "get_weather", '{"city": "Rome"}').stdout
    )


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("missing.py", "toolkit: error: no such file: missing.py\n"),
        (
            "no.such.module",
            "toolkit: error: cannot import 'no.such.module': No module named 'no'\n",
        ),
        (
            "tests.sample_tools:nothing",
            "toolkit: error: 'tests.sample_tools' has no attribute 'nothing'\n",
        ),
        (
            "tests.sample_tools:Unit",
            "toolkit: error: tests.sample_tools:Unit is the class Unit, not a ToolSet, a Tool or a list of tools\n",
        ),
        (
            "tests/conftest.py",
            "toolkit: error: tests/conftest.py defines no tools; decorate functions with @tool, or name a ToolSet with tests/conftest.py:attribute\n",
        ),
    ],
)
def test_bad_targets_exit_2_with_one_line(target: str, message: str) -> None:
    done = toolkit("schema", target)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", message)


def test_module_without_attribute_takes_every_tool() -> None:
    done = toolkit("schema", "examples/agent_loop.py")
    assert [item["name"] for item in json.loads(done.stdout)] == [
        "get_weather",
        "save_note",
        "read_calendar",
    ]


def test_lint_clean_set() -> None:
    done = toolkit("lint", "tests.sample_tools:get_weather")
    assert (done.returncode, done.stdout) == (0, "No problems found in 1 tool.\n")


def test_lint_reports_known_defects() -> None:
    done = toolkit("lint", DEFECTS)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "terse: the description 'Search.' is one word; say what the tool does and when to use it [thin-description]",
        "terse: parameter 'q' has no description. Document it in the docstring or with Param(description=...) [undocumented-parameter]",
        "terse: parameter 'n' has no description. Document it in the docstring or with Param(description=...) [undocumented-parameter]",
        "undocumented: has no description; models choose tools by it. Add a docstring [missing-description]",
        "undocumented: parameter 'payload' has no description. Document it in the docstring or with Param(description=...) [undocumented-parameter]",
        "undocumented: cannot be strict for OpenAI, so it is sent with strict: false: payload: an object with free keys cannot be strict in OpenAI [openai-not-strict]",
        "undocumented: cannot be strict for Anthropic, so it is sent with strict: false: payload: an object with free keys cannot be strict in Anthropic [anthropic-not-strict]",
        "wordy: the description has 1,799 characters; OpenAI rejects more than 1,024. Shorten it [long-description]",
        "raw: parameter 'file-name' is not a name Gemini accepts in `parameters` (letters, digits, '_', at most 64) [gemini-parameter-name]",
        "9 problems in 5 tools.",
    ]


def test_help_lists_the_commands() -> None:
    done = toolkit("--help")
    assert done.returncode == 0
    for command in ("schema", "call", "lint", "serve"):
        assert command in done.stdout
