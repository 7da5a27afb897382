"""`toolkit install` against temporary home folders, and the command `toolkit dev` runs."""

from __future__ import annotations

import json
import os
import pathlib
import shlex
import subprocess
import sys
from typing import Any

import pytest

from tests import servers
from toolkit.cli._cli import main
from toolkit.cli._hosts_config import config_path

ROOT = pathlib.Path(__file__).parent.parent
SAMPLE = ROOT / "tests" / "sample_tools.py"
SERVE = [sys.executable, "-m", "toolkit", "serve", str(SAMPLE)]


def toolkit(
    home: pathlib.Path, *args: str, path: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("XDG_CONFIG_HOME", "APPDATA")
    }
    env["HOME"] = str(home)
    if path is not None:
        env["PATH"] = path
    return servers.toolkit(*args, env=env)


@pytest.mark.parametrize(
    ("host", "platform", "expected"),
    [
        (
            "claude-desktop",
            "darwin",
            "Library/Application Support/Claude/claude_desktop_config.json",
        ),
        ("claude-desktop", "win32", "roaming/Claude/claude_desktop_config.json"),
        ("claude-desktop", "linux", ".config/Claude/claude_desktop_config.json"),
        ("vscode", "darwin", "Library/Application Support/Code/User/mcp.json"),
        ("vscode", "win32", "roaming/Code/User/mcp.json"),
        ("vscode", "linux", ".config/Code/User/mcp.json"),
        ("cursor", "darwin", ".cursor/mcp.json"),
        ("cursor", "win32", ".cursor/mcp.json"),
        ("claude-code", "linux", ".claude.json"),
    ],
)
def test_each_host_config_path_per_platform(
    host: str,
    platform: str,
    expected: str,
    tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("USERPROFILE", str(tmp_path))
    environ = {"APPDATA": str(tmp_path / "roaming")}
    assert config_path(host, platform, environ) == tmp_path / expected


def test_xdg_config_home_moves_the_linux_application_folders(
    tmp_path: pathlib.Path,
) -> None:
    environ = {"XDG_CONFIG_HOME": str(tmp_path / "xdg")}
    assert config_path("vscode", "linux", environ) == (
        tmp_path / "xdg" / "Code" / "User" / "mcp.json"
    )


def test_install_writes_the_documented_shape_into_a_new_file(
    tmp_path: pathlib.Path,
) -> None:
    done = toolkit(tmp_path, "install", "cursor", "tests/sample_tools.py")
    config = tmp_path / ".cursor" / "mcp.json"
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == (
        f'Added "sample_tools" to {config}; restart Cursor to load it.\n'
    )
    written = json.loads(config.read_text(encoding="utf-8"))
    assert written == {
        "mcpServers": {"sample_tools": {"command": SERVE[0], "args": SERVE[1:]}}
    }


def test_install_keeps_other_servers_and_keys(tmp_path: pathlib.Path) -> None:
    config = tmp_path / ".config" / "Code" / "User" / "mcp.json"
    config.parent.mkdir(parents=True)
    before: dict[str, Any] = {
        "inputs": [{"id": "key", "type": "promptString"}],
        "servers": {"other": {"type": "http", "url": "http://127.0.0.1:9/mcp"}},
    }
    config.write_text(json.dumps(before), encoding="utf-8")
    done = toolkit(
        tmp_path,
        "install",
        "vscode",
        "tests/sample_tools.py:tools",
        "--name",
        "weather",
        "--env",
        "API_KEY=a=b",
    )
    assert done.returncode == 0, done.stderr
    after = json.loads(config.read_text(encoding="utf-8"))
    assert after == {
        "inputs": before["inputs"],
        "servers": {
            "other": before["servers"]["other"],
            "weather": {
                "type": "stdio",
                "command": SERVE[0],
                "args": [*SERVE[1:-1], f"{SAMPLE}:tools"],
                "env": {"API_KEY": "a=b"},
            },
        },
    }
    again = toolkit(
        tmp_path, "install", "vscode", "tests/sample_tools.py", "--name", "weather"
    )
    assert again.stdout.startswith(f'Replaced "weather" in {config};')
    servers = json.loads(config.read_text(encoding="utf-8"))["servers"]
    assert list(servers) == ["other", "weather"]
    assert servers["weather"]["args"][-1] == str(SAMPLE)


def test_install_into_claude_code_keeps_the_rest_of_its_state(
    tmp_path: pathlib.Path,
) -> None:
    config = tmp_path / ".claude.json"
    state = {"numStartups": 3, "projects": {"/x": {"mcpServers": {}}}}
    config.write_text(json.dumps(state), encoding="utf-8")
    config.chmod(0o600)
    assert toolkit(tmp_path, "install", "claude-code", str(SAMPLE)).returncode == 0
    after = json.loads(config.read_text(encoding="utf-8"))
    assert after["numStartups"] == 3
    assert after["projects"] == state["projects"]
    assert after["mcpServers"]["sample_tools"]["type"] == "stdio"
    assert config.stat().st_mode & 0o777 == 0o600
    assert [path.name for path in tmp_path.iterdir()] == [".claude.json"]


def test_dry_run_prints_the_entry_and_writes_nothing(tmp_path: pathlib.Path) -> None:
    done = toolkit(
        tmp_path, "install", "claude-desktop", "tests/sample_tools.py", "--dry-run"
    )
    config = tmp_path / ".config" / "Claude" / "claude_desktop_config.json"
    assert done.returncode == 0
    assert json.loads(done.stdout) == {
        "mcpServers": {"sample_tools": {"command": SERVE[0], "args": SERVE[1:]}}
    }
    assert done.stderr == (
        f'toolkit: dry run: would add "sample_tools" to {config}, '
        "keeping its other entries\n"
    )
    assert not (tmp_path / ".config").exists()


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ('{"mcpServers": {"a": 1},}', "is not valid JSON ("),
        ("[1, 2]", "holds a JSON list, not an object; nothing was written"),
        ('{"mcpServers": []}', '"mcpServers" is not an object of servers by name'),
    ],
)
def test_a_config_that_is_not_one_is_refused_and_left_alone(
    text: str, error: str, tmp_path: pathlib.Path
) -> None:
    config = tmp_path / "mcp.json"
    config.write_text(text, encoding="utf-8")
    for extra in ([], ["--dry-run"]):
        done = toolkit(
            tmp_path, "install", "cursor", str(SAMPLE), "--config", str(config), *extra
        )
        assert (done.returncode, done.stdout) == (2, "")
        assert done.stderr.startswith(f"toolkit: error: {config}")
        assert error in done.stderr
        assert len(done.stderr.splitlines()) == 1
    assert config.read_text(encoding="utf-8") == text


def test_install_refuses_a_bad_target_or_env_before_writing(
    tmp_path: pathlib.Path,
) -> None:
    missing = toolkit(tmp_path, "install", "cursor", "missing.py")
    assert (missing.returncode, missing.stderr) == (
        2,
        "toolkit: error: no such file: missing.py\n",
    )
    env = toolkit(tmp_path, "install", "cursor", str(SAMPLE), "--env", "NOVALUE")
    assert (env.returncode, env.stderr) == (
        2,
        "toolkit: error: --env NOVALUE: give NAME=VALUE\n",
    )
    server = toolkit(tmp_path, "install", "cursor", "mcp:uvx mcp-server-time")
    assert server.returncode == 2
    assert server.stderr.startswith("toolkit: error: toolkit install takes a Python")
    assert list(tmp_path.iterdir()) == []


def test_without_mcp_install_and_dev_say_so_and_write_nothing(
    tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setitem(sys.modules, "mcp", None)  # `import mcp` fails
    for command in (
        ["install", "cursor", str(SAMPLE)],
        ["install", "cursor", str(SAMPLE), "--dry-run"],  # fails as the real one
        ["dev", str(SAMPLE)],
    ):
        assert main(command) == 2, command
        assert capsys.readouterr().err == (
            "toolkit: error: Serving over MCP needs the `mcp` package: "
            'pip install "toolkit-llm[mcp]"\n'
        )
    assert list(tmp_path.iterdir()) == []


def test_dev_runs_the_inspector_on_toolkit_serve(tmp_path: pathlib.Path) -> None:
    done = toolkit(tmp_path, "dev", "tests/sample_tools.py:tools", "--dry-run")
    assert done.returncode == 0, done.stderr
    assert shlex.split(done.stdout) == [
        "npx",
        "-y",
        "@modelcontextprotocol/inspector",
        *SERVE[:-1],
        f"{SAMPLE}:tools",
    ]


def test_dev_without_node_is_one_line_and_status_2(tmp_path: pathlib.Path) -> None:
    done = toolkit(tmp_path, "dev", str(SAMPLE), path=str(tmp_path))
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "toolkit: error: toolkit dev runs the MCP Inspector with npx, which is not "
        "on PATH; install Node.js from https://nodejs.org\n"
    )


# npx as npm 10 behaves without a terminal: without -y (or --yes) it refuses to
# fetch a package, with exit status 1. The real Inspector would start a web
# server; this one records its arguments and exits with INSPECTOR_STATUS.
FAKE_NPX = """#!/bin/sh
printf '%s\\n' "$@" > "$(dirname "$0")/npx-args"
case " $* " in
  *" -y "*|*" --yes "*) exit "${INSPECTOR_STATUS:-0}" ;;
esac
echo "npm error npx canceled due to missing packages and no YES option: [\"@modelcontextprotocol/inspector\"]" >&2
exit 1
"""


def _fake_npx(folder: pathlib.Path) -> str:
    npx = folder / "npx"
    npx.write_text(FAKE_NPX, encoding="utf-8")
    npx.chmod(0o755)
    return f"{folder}{os.pathsep}{os.environ['PATH']}"


def test_dev_without_a_terminal_runs_npx_with_yes(tmp_path: pathlib.Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "toolkit", "dev", str(SAMPLE)],
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "HOME": str(tmp_path), "PATH": _fake_npx(tmp_path)},
    )
    assert (done.returncode, done.stderr) == (0, "")
    args = (tmp_path / "npx-args").read_text(encoding="utf-8").splitlines()
    assert args == ["-y", "@modelcontextprotocol/inspector", *SERVE]


def test_dev_when_the_inspector_fails_is_one_line_and_status_2(
    tmp_path: pathlib.Path,
) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "INSPECTOR_STATUS": "1"}
    env["PATH"] = _fake_npx(tmp_path)
    done = servers.toolkit("dev", str(SAMPLE), env=env)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "toolkit: error: the MCP Inspector failed: `npx -y "
        "@modelcontextprotocol/inspector` exited with status 1; its output is above\n"
    )
