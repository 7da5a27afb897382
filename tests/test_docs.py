"""The documentation's examples run, and say what they print.

Every page under docs/ is read as the site shows it:

- Each ```python block runs, in order, in one module per page (later blocks
  see what earlier ones defined), in a fresh working folder. A block whose
  first line starts with `# needs:` (an API key, the network) is compiled,
  not run; the line tells the reader so. Top-level `await` is allowed.
- A ```python block followed directly by a ```text block must print
  exactly that text.
- Functions named `test_*` that a block defines are called after it, as
  pytest would (the testing page's examples are tests).
- A ```python block with a title (```python title="tools.py"```) is a
  file: it is written to the page's folder for the commands that follow.
- A ```console block runs its `$ ` commands with bash in the page's folder,
  and each command's output must be the lines under it.
- A ```json block must be valid JSON.

The site's structure is checked too: every page is in the nav of mkdocs.yml,
every page in the nav exists, and no install hint names the wrong package.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import pathlib
import re
import subprocess
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

ROOT = pathlib.Path(__file__).parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md"))
COMPILE_ONLY = "# needs:"

_FENCE = re.compile(
    r"^```([\w-]*)(?:[ \t]+title=\"([^\"]+)\")?[^\n]*\n(.*?)^```[ \t]*$",
    re.DOTALL | re.MULTILINE,
)


@dataclass
class Block:
    language: str
    title: str | None
    code: str
    line: int  # 1-based line of the opening fence
    end: int  # offset just past the closing fence


def blocks(text: str) -> list[Block]:
    return [
        Block(
            match.group(1),
            match.group(2),
            match.group(3),
            text.count("\n", 0, match.start()) + 1,
            match.end(),
        )
        for match in _FENCE.finditer(text)
    ]


def expected_output(text: str, block: Block, following: Block | None) -> str | None:
    """The ```text block right after `block`, if there is one."""
    if following is None or following.language != "text":
        return None
    between = text[block.end : text.index("```text", block.end)]
    return following.code if not between.strip() else None


def compile_block(code: str, where: str) -> types.CodeType:
    # dont_inherit: this file's `from __future__ import annotations` must not
    # leak into the examples, which run as a reader's file would. No top-level
    # `await` either: a block pasted into a file must run as it is.
    compiled: types.CodeType = compile(code, where, "exec", dont_inherit=True)
    return compiled


def run_python(code: str, module: types.ModuleType, where: str) -> str:
    compiled = compile_block(code, where)
    before = dict(module.__dict__)
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compiled, module.__dict__)  # the docs' own code
        for name, value in list(module.__dict__.items()):
            if name.startswith("test_") and before.get(name) is not value:
                value()
    return output.getvalue()


def run_console(code: str, folder: pathlib.Path, where: str) -> None:
    for command, expected in commands(code):
        done = subprocess.run(
            ["bash", "-c", command],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=120,
            env={
                **os.environ,
                "PATH": f"{pathlib.Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
                "COLUMNS": "80",
            },
        )
        shown = (done.stdout + done.stderr).rstrip("\n").splitlines()
        assert [line.rstrip() for line in shown] == expected, f"{where}: $ {command}"


def commands(code: str) -> Iterator[tuple[str, list[str]]]:
    """(command, expected output lines) for each `$ ` line of a console block."""
    command: str | None = None
    expected: list[str] = []
    for line in code.rstrip("\n").splitlines():
        if line.startswith("$ "):
            if command is not None:
                yield command, expected
            command, expected = line[2:], []
        else:
            expected.append(line.rstrip())
    if command is not None:
        yield command, expected


@contextlib.contextmanager
def page_module(page: str) -> Iterator[types.ModuleType]:
    """A real module, so that postponed annotations and dataclasses resolve."""
    name = "docs_" + re.sub(r"\W", "_", page.removesuffix(".md"))
    module = types.ModuleType(name)
    sys.modules[name] = module
    try:
        yield module
    finally:
        del sys.modules[name]


@pytest.mark.parametrize("page", PAGES)
def test_page_examples_run(
    page: str, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (DOCS / page).read_text(encoding="utf-8")
    found = blocks(text)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    with page_module(page) as module:
        for index, block in enumerate(found):
            where = f"docs/{page}:{block.line}"
            following = found[index + 1] if index + 1 < len(found) else None
            if block.language == "python" and block.title:
                compile_block(block.code, where)
                (tmp_path / block.title).write_text(block.code, encoding="utf-8")
            elif block.language == "python":
                if block.code.startswith(COMPILE_ONLY):
                    compile_block(block.code, where)
                    continue
                printed = run_python(block.code, module, where)
                expected = expected_output(text, block, following)
                if expected is not None:
                    assert printed == expected, where
            elif block.language == "console":
                run_console(block.code, tmp_path, where)
            elif block.language == "json":
                json.loads(block.code)


def test_every_page_is_in_the_nav_and_every_nav_entry_exists() -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    nav = config.split("\nnav:\n", 1)[1]
    listed = re.findall(r"^\s+- (?:[^:\n]+: )?([\w/.-]+\.md)\s*$", nav, re.MULTILINE)
    assert sorted(listed) == PAGES
    assert len(listed) == len(set(listed))


def test_the_index_links_every_section() -> None:
    index = (DOCS / "index.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(([\w/.-]+\.md)(?:#[\w-]+)?\)", index))
    assert set(PAGES) - {"index.md"} <= linked


def test_the_examples_page_lists_every_example() -> None:
    page = (DOCS / "examples.md").read_text(encoding="utf-8")
    listed = re.findall(r"^## `(\w+\.py)`$", page, re.MULTILINE)
    assert sorted(listed) == sorted(
        path.name for path in (ROOT / "examples").glob("*.py")
    )


def test_python_blocks_that_need_a_key_say_so() -> None:
    for page in PAGES:
        for block in blocks((DOCS / page).read_text(encoding="utf-8")):
            if block.language == "python" and block.code.startswith(COMPILE_ONLY):
                first = block.code.splitlines()[0]
                assert "only compiles" in first, f"docs/{page}:{block.line}: {first}"


def test_install_hints_name_the_distribution() -> None:
    # `pip install toolkit[...]` would install an unrelated package.
    wrong = re.compile(r"(?<![\w-])toolkit\[")
    sources = [
        ROOT / "README.md",
        ROOT / "pyproject.toml",
        *DOCS.rglob("*.md"),
        *(ROOT / "toolkit").rglob("*.py"),
        *(ROOT / "examples").rglob("*.py"),
    ]
    offenders = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in sources
        for number, line in enumerate(
            path.read_text(encoding="utf-8").splitlines(), start=1
        )
        if wrong.search(line)
    ]
    assert offenders == []


def test_the_api_reference_covers_every_public_name() -> None:
    import toolkit

    documented = {
        name
        for page in (DOCS / "reference").glob("*.md")
        for name in re.findall(
            r"^::: ([\w.]+)$", page.read_text(encoding="utf-8"), re.MULTILINE
        )
    }
    public = {f"toolkit.{name}" for name in toolkit.__all__}
    providers = {
        f"toolkit.providers.{name}"
        for name in ("openai", "openai_responses", "anthropic", "gemini", "mcp")
    } | {"toolkit.mcp"}
    assert public | providers <= documented
    # An exception a docstring's Raises names is documented too, importable
    # from `toolkit` or not.
    from toolkit.core import _exceptions

    raised = {
        f"toolkit.{name}"
        if name in toolkit.__all__
        else f"toolkit.core._exceptions.{name}"
        for name in _exceptions.__all__
    }
    assert raised <= documented
