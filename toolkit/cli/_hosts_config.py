"""`toolkit dev` and `toolkit install`: a target's MCP server in the MCP Inspector or in a host.

Both start the server the same way: this Python (the environment where
toolkit and the tools' dependencies are installed) running
`-m toolkit serve` on the target, with the file's absolute path, since a
host starts the server from a working folder of its own.

`toolkit install` writes the server's entry into the configuration file a
host documents, keeping every other key and server of that file:

- Claude Desktop: `claude_desktop_config.json` in the application's
  folder, `mcpServers`
  (https://modelcontextprotocol.io/docs/develop/connect-local-servers).
- Cursor: `~/.cursor/mcp.json`, `mcpServers` (https://cursor.com/docs/mcp).
- VS Code: `mcp.json` in the user profile's folder, `servers`, each with a
  `type` (https://code.visualstudio.com/docs/copilot/reference/mcp-configuration).
- Claude Code: `~/.claude.json`, `mcpServers` at the top, the servers of
  the user scope (https://code.claude.com/docs/en/mcp).
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from toolkit.sets._target import TargetError, split_target, target_name
from toolkit.sets._toolset import ToolSet

__all__ = ["HOSTS", "config_path", "dev", "install", "server_entry"]


@dataclass(frozen=True)
class HostConfig:
    """Where and how a host lists its MCP servers."""

    label: str
    key: str  # the object of servers, by name
    typed: bool  # each entry says "type": "stdio"


HOSTS: Final = {
    "claude-desktop": HostConfig("Claude Desktop", "mcpServers", typed=False),
    "cursor": HostConfig("Cursor", "mcpServers", typed=False),
    "vscode": HostConfig("VS Code", "servers", typed=True),
    "claude-code": HostConfig("Claude Code", "mcpServers", typed=True),
}

INSPECTOR: Final = "@modelcontextprotocol/inspector"


def config_path(
    host: str,
    platform: str = sys.platform,
    environ: Mapping[str, str] = os.environ,
) -> pathlib.Path:
    """The user-wide configuration file of `host` on `platform` (a `sys.platform` value)."""
    home = pathlib.Path.home()
    if host == "cursor":
        return home / ".cursor" / "mcp.json"
    if host == "claude-code":
        return home / ".claude.json"
    # Claude Desktop and VS Code keep it in the application's data folder.
    if platform == "darwin":
        data = home / "Library" / "Application Support"
    elif platform == "win32":
        data = pathlib.Path(environ.get("APPDATA") or home / "AppData" / "Roaming")
    else:
        data = pathlib.Path(environ.get("XDG_CONFIG_HOME") or home / ".config")
    if host == "vscode":
        return data / "Code" / "User" / "mcp.json"
    return data / "Claude" / "claude_desktop_config.json"


def serve_command(target: str) -> list[str]:
    """The command that serves `target` over stdio from any working folder."""
    location, sep, attribute = split_target(target)
    path = pathlib.Path(location)
    if location.endswith(".py") or path.is_file():
        location = str(path.resolve())
    return [sys.executable, "-m", "toolkit", "serve", location + sep + attribute]


def server_entry(
    host: str, target: str, env: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """The entry that starts `target`'s server, in `host`'s shape."""
    command, *args = serve_command(target)
    entry: dict[str, Any] = {"type": "stdio"} if HOSTS[host].typed else {}
    entry |= {"command": command, "args": args}
    if env:
        entry["env"] = dict(env)
    return entry


def dev(tools: ToolSet, options: argparse.Namespace) -> int:
    """Open the MCP Inspector on the target's server (`toolkit dev`)."""
    # -y: without a terminal, npx refuses to fetch a package it would ask about.
    command = ["npx", "-y", INSPECTOR, *serve_command(options.target)]
    if options.dry_run:
        print(shlex.join(command))
        return 0
    _require_mcp()
    npx = shutil.which("npx")
    if npx is None:
        msg = "toolkit dev runs the MCP Inspector with npx, which is not on PATH; install Node.js from https://nodejs.org"
        raise TargetError(msg)
    try:
        status = subprocess.call([npx, *command[1:]])
    except KeyboardInterrupt:
        return 130
    if status in (130, -signal.SIGINT):  # stopped with Ctrl-C
        return 130
    if status != 0:
        msg = f"the MCP Inspector failed: `{shlex.join(command[:3])}` exited with status {status}; its output is above"
        raise TargetError(msg)
    return 0


def install(tools: ToolSet, options: argparse.Namespace) -> int:
    """Write the target's server into a host's configuration file (`toolkit install`)."""
    host = HOSTS[options.host]
    path = pathlib.Path(options.config) if options.config else config_path(options.host)
    name = options.name or target_name(options.target)
    entry = server_entry(options.host, options.target, _env(options.env))
    config = _read(path, host.key)
    replaced = name in config.get(host.key, {})
    where = f'"{name}" in {path}' if replaced else f'"{name}" to {path}'
    _require_mcp()  # a dry run fails as the real one would
    if options.dry_run:
        print(json.dumps({host.key: {name: entry}}, indent=2, ensure_ascii=False))
        verb = "replace" if replaced else "add"
        print(
            f"toolkit: dry run: would {verb} {where}, keeping its other entries",
            file=sys.stderr,
        )
        return 0
    config.setdefault(host.key, {})[name] = entry
    _write(path, config)
    print(
        f"{'Replaced' if replaced else 'Added'} {where}; restart {host.label} to load it."
    )
    return 0


def _require_mcp() -> None:
    """The server the entry starts needs `mcp`: say so now, not in the host's log."""
    from toolkit.mcp._server import require_mcp

    try:
        require_mcp()
    except ImportError as error:
        raise TargetError(str(error)) from None


def _env(pairs: list[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            msg = f"--env {pair}: give NAME=VALUE"
            raise TargetError(msg)
        env[key] = value
    return env


def _read(path: pathlib.Path, key: str) -> dict[str, Any]:
    """The configuration in `path`, {} if there is none; refuses what is not a config."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    if not text.strip():
        return {}
    try:
        config = json.loads(text)
    except json.JSONDecodeError as error:
        msg = f"{path} is not valid JSON ({error}); nothing was written: fix the file or move it away"
        raise TargetError(msg) from None
    if not isinstance(config, dict):
        msg = f"{path} holds a JSON {type(config).__name__}, not an object; nothing was written"
        raise TargetError(msg)
    if not isinstance(config.get(key, {}), dict):
        msg = (
            f'{path}: "{key}" is not an object of servers by name; nothing was written'
        )
        raise TargetError(msg)
    return config


def _write(path: pathlib.Path, config: dict[str, Any]) -> None:
    """Replace `path` in one step, so that a host never reads half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = path.stat().st_mode & 0o777 if path.exists() else None
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(json.dumps(config, indent=2, ensure_ascii=False) + "\n")
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        pathlib.Path(temporary).unlink(missing_ok=True)
        raise
