"""The `toolkit` command, run as a subprocess, with exact output."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import textwrap

import pytest

from tests.sample_tools import tools as sample
from tests.servers import toolkit
from toolkit import __version__

ROOT = pathlib.Path(__file__).parent.parent
SAMPLE = "tests/sample_tools.py"
DEFECTS = "tests/cli_targets/defects.py"


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


_DEFECTS_FOUND = [
    "terse: the description 'Search.' is one word; say what the tool does and when to use it [thin-description]",
    "terse: parameter 'q' has no description. Document it in the docstring or with Param(description=...) [undocumented-parameter]",
    "terse: parameter 'n' has no description. Document it in the docstring or with Param(description=...) [undocumented-parameter]",
    "undocumented: has no description; models choose tools by it. Add a docstring [missing-description]",
    "undocumented: parameter 'payload' has no description. Document it in the docstring or with Param(description=...) [undocumented-parameter]",
    "undocumented: cannot be strict for OpenAI, so it is sent with strict: false: payload: an object with free keys cannot be strict in OpenAI [openai-not-strict]",
    "undocumented: cannot be strict for Anthropic, so it is sent with strict: false: payload: an object with free keys cannot be strict in Anthropic [anthropic-not-strict]",
    "wordy: the description has 1,799 characters; OpenAI rejects more than 1,024. Shorten it [long-description]",
]
_GEMINI_OPENAPI_FOUND = "raw: parameter 'file-name' is not a name Gemini accepts in `parameters` (letters, digits, '_', at most 64) [gemini-parameter-name]"


def test_lint_reports_known_defects() -> None:
    done = toolkit("lint", DEFECTS)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [*_DEFECTS_FOUND, "8 problems in 5 tools."]


def test_lint_reports_the_gemini_openapi_limits_only_when_asked() -> None:
    done = toolkit("lint", DEFECTS, "--gemini-openapi")
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        *_DEFECTS_FOUND,
        _GEMINI_OPENAPI_FOUND,
        "9 problems in 5 tools.",
    ]


def test_lint_passes_a_tool_whose_only_problem_is_a_gemini_openapi_limit() -> None:
    # The default Gemini export (parametersJsonSchema) takes any property name.
    done = toolkit("lint", f"{DEFECTS}:raw")
    assert (done.returncode, done.stdout) == (0, "No problems found in 1 tool.\n")
    asked = toolkit("lint", f"{DEFECTS}:raw", "--gemini-openapi")
    assert (asked.returncode, asked.stdout) == (
        1,
        f"{_GEMINI_OPENAPI_FOUND}\n1 problem in 1 tool.\n",
    )


def test_help_lists_the_commands() -> None:
    done = toolkit("--help")
    assert done.returncode == 0
    for command in ("schema", "call", "lint", "serve"):
        assert command in done.stdout


def test_lint_reports_recursion_for_gemini_openapi_only_when_asked(
    tmp_path: pathlib.Path,
) -> None:
    source = tmp_path / "tree.py"
    source.write_text(
        textwrap.dedent(
            '''
            from __future__ import annotations

            from dataclasses import dataclass, field

            from toolkit import tool


            @dataclass
            class Node:
                """A tree node.

                Attributes:
                    name: The node's name.
                    children: The node's children.
                """

                name: str
                children: list[Node] = field(default_factory=list)


            @tool
            def count(tree: Node) -> int:
                """Count the nodes of a tree.

                Args:
                    tree: The tree.
                """
                return 1 + sum(count(child) for child in tree.children)
            '''
        ),
        encoding="utf-8",
    )
    assert "[gemini-openapi]" not in toolkit("lint", str(source)).stdout
    assert "[gemini-openapi]" in toolkit("lint", str(source), "--gemini-openapi").stdout


def test_version() -> None:
    done = toolkit("--version")
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        f"toolkit {__version__}\n",
        "",
    )


@pytest.mark.parametrize("command", ["schema", "call", "lint", "serve", "init"])
def test_every_command_help_ends_with_examples(command: str) -> None:
    done = toolkit(command, "--help")
    assert done.returncode == 0
    examples = done.stdout.split("examples:\n", 1)[1]
    lines = [line for line in examples.splitlines() if line.strip()]
    assert lines
    assert all(line.startswith("  toolkit " + command) for line in lines), lines
    assert done.stdout.rstrip().endswith(lines[-1])


def test_top_level_help_has_examples_and_the_version_option() -> None:
    done = toolkit("--help")
    assert "--version" in done.stdout
    assert "examples:\n  toolkit init\n" in done.stdout


def test_call_help_explains_tool_name_and_args() -> None:
    text = " ".join(toolkit("call", "--help").stdout.split())
    assert "TOOL_NAME the name of the tool to call" in text
    assert "ARGS the arguments as a JSON object (default: {})" in text


@pytest.mark.parametrize(
    ("command", "offers_mcp"),
    [("schema", True), ("call", True), ("lint", True), ("serve", False)],
)
def test_only_commands_that_take_an_mcp_server_offer_one(
    command: str, offers_mcp: bool
) -> None:
    text = toolkit(command, "--help").stdout
    assert ("mcp:" in text) is offers_mcp
    assert "path/to/file.py or package.module" in " ".join(text.split())


def test_lint_help_names_the_gemini_openapi_option() -> None:
    text = " ".join(toolkit("lint", "--help").stdout.split())
    assert "--gemini-openapi" in text


def _many_tools(tmp_path: pathlib.Path) -> pathlib.Path:
    source = tmp_path / "many.py"
    source.write_text(
        textwrap.dedent(
            '''
            from toolkit import ToolSet, tool

            tools = ToolSet()
            for index in range(400):

                def echo(text: str) -> str:
                    """Return the text unchanged, so that a caller can see it.

                    Args:
                        text: The text to send back.
                    """
                    return text

                tools.add(tool(name=f"echo_{index}")(echo))
            '''
        ),
        encoding="utf-8",
    )
    return source


def test_output_into_a_closed_pipe_ends_quietly(tmp_path: pathlib.Path) -> None:
    source = _many_tools(tmp_path)
    process = subprocess.Popen(
        [sys.executable, "-m", "toolkit", "schema", str(source), "--format", "openai"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    assert process.stderr is not None
    first = process.stdout.readline()
    process.stdout.close()  # as `head -n 1` does once it has its line
    errors = process.stderr.read()
    process.stderr.close()
    returncode = process.wait(timeout=120)
    assert first == b"[\n"
    assert errors == b""
    assert returncode == 1


def test_output_piped_into_head_ends_quietly(tmp_path: pathlib.Path) -> None:
    source = _many_tools(tmp_path)
    done = subprocess.run(
        f"{sys.executable} -m toolkit schema {source} --format openai | head -n 2",
        shell=True,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        executable="/bin/bash",
    )
    assert (done.stdout, done.stderr) == ("[\n  {\n", "")


@pytest.mark.parametrize("folder", ["examples", "tests/cli_targets/", "examples/."])
def test_a_folder_is_not_a_target(folder: str) -> None:
    done = toolkit("schema", folder)
    assert (done.returncode, done.stdout, done.stderr) == (
        2,
        "",
        f"toolkit: error: {folder} is a folder, give a .py file or a module\n",
    )


def test_a_package_is_still_a_module() -> None:
    done = toolkit("schema", "tests.cli_targets")
    assert done.stderr == (
        "toolkit: error: tests.cli_targets defines no tools; decorate functions "
        "with @tool, or name a ToolSet with tests.cli_targets:attribute\n"
    )


def test_init_writes_a_starter_whose_test_passes(tmp_path: pathlib.Path) -> None:
    done = toolkit("init", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "test_tools.py",
        "tools.py",
    ]
    assert str(tmp_path / "tools.py") in done.stdout
    listed = toolkit("schema", str(tmp_path / "tools.py"))
    assert len(json.loads(listed.stdout)) == 2
    assert toolkit("lint", str(tmp_path / "tools.py")).stdout == (
        "No problems found in 2 tools.\n"
    )
    tested = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert " passed" in tested.stdout
    assert " failed" not in tested.stdout


def test_init_defaults_to_the_current_folder(tmp_path: pathlib.Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "toolkit", "init"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "tools.py").is_file()
    assert (tmp_path / "test_tools.py").is_file()


def test_init_refuses_to_overwrite(tmp_path: pathlib.Path) -> None:
    mine = tmp_path / "test_tools.py"
    mine.write_text("# mine\n", encoding="utf-8")
    done = toolkit("init", str(tmp_path))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"toolkit: error: {mine} exists; toolkit init writes nothing over an "
        "existing file. Move it away or give another folder\n"
    )
    assert mine.read_text(encoding="utf-8") == "# mine\n"
    assert not (tmp_path / "tools.py").exists()


def test_call_prints_one_line_per_part_and_saves_them(tmp_path: pathlib.Path) -> None:
    from tests import media

    shown = toolkit("call", "tests/cli_targets/media.py", "chart", '{"title": "Sales"}')
    assert shown.returncode == 0, shown.stderr
    png = len(media.png())
    assert shown.stdout == (
        "Chart: Sales\n"
        f"[Image: image/png, {png:,} bytes]\n"
        "[File: text/csv, 8 bytes]\n"
        "[Image: image/png, https://example.com/big.png]\n"
    )
    out = tmp_path / "parts"
    saved = toolkit(
        "call",
        "tests/cli_targets/media.py",
        "chart",
        '{"title": "Sales"}',
        "--save-parts",
        str(out),
    )
    assert saved.returncode == 0, saved.stderr
    assert (out / "part-1.png").read_bytes() == media.png()
    assert (out / "data.csv").read_bytes() == b"a,b\n1,2\n"
    assert (out / "part-3.url").read_text() == "https://example.com/big.png\n"
    assert f"saved to {out / 'part-1.png'}" in saved.stdout
    notes = toolkit(
        "call", "tests/cli_targets/media.py", "notes", "--save-parts", str(out)
    )
    assert (
        notes.stdout.splitlines()[-1]
        == f"[Resource: text/markdown, file:///notes.md] saved to {out / 'part-1.md'}"
    )
    assert (out / "part-1.md").read_text() == "# Notes"


def test_call_verbose_prints_the_traceback_to_stderr() -> None:
    args = ("call", "tests/hostile_tools.py", "throw", '{"kind": "custom"}')
    quiet = toolkit(*args)
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (1, "Custom: mine\n", "")
    for flag in ("--verbose", "-v"):
        loud = toolkit(*args, flag)
        assert (loud.returncode, loud.stdout) == (1, "Custom: mine\n")
        assert loud.stderr.startswith(
            "ERROR toolkit: Tool 'throw' raised Custom: mine\nTraceback (most recent call last):\n"
        )
        assert 'hostile_tools.py", line' in loud.stderr
        assert loud.stderr.endswith("\nhostile_tools.Custom: mine\n")
