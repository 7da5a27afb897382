"""The `toolkit` command: schema, call, lint, budget, serve, dev and install for tools in a file or module, and init.

TARGET is `path/to/file.py` or `package.module`, optionally followed by
`:attribute` (a `ToolSet`, a `Tool` or a list of tools); without it, every
tool defined in the module is used. For schema, call and lint, TARGET may
also be an MCP server: `mcp:COMMAND LINE` (started over stdio) or
`mcp:URL` (streamable HTTP). A bad target is a one-line error and
exit status 2; an error result or a lint finding is exit status 1. Output
cut short by its reader (`toolkit schema ... | head`) ends quietly with
status 1, as other command-line tools do.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys
from collections.abc import Sequence
from typing import Any, Final, TypeAlias

from toolkit.core._version import __version__
from toolkit.sets._target import TargetError, load_target
from toolkit.sets._toolset import ToolSet
from toolkit.values._content import Text, describe, save_part

from . import _hosts_config as hosts
from ._help import EXAMPLES, PYTHON_TARGET_HELP, TARGET_HELP
from ._init import write_starter
from ._lint import Finding, lint

__all__ = ["main"]

_STRICT_FORMATS: Final = ("openai", "openai_responses", "anthropic")
# Limits of Gemini's older OpenAPI `parameters` form only: the default Gemini
# export (`parametersJsonSchema`) takes any property name and recursion.


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    try:
        status = _main(argv)
        sys.stdout.flush()  # a reader that left shows up here, not at exit
    except TargetError as error:
        print(f"toolkit: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader (`head`, a pager) has what it wanted. Point stdout at
        # /dev/null so that the flush at exit cannot fail again, and end
        # without a traceback, with the status Python gives a broken pipe.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    return status


def _main(argv: Sequence[str] | None) -> int:
    options = _parser().parse_args(argv)
    if options.command == "init":
        return write_starter(pathlib.Path(options.folder))
    if options.target.startswith(_MCP_PREFIX):
        return _with_mcp_server(options)
    if options.command == "serve":
        return _serve(options)  # serve loads the target by its name, as workers do
    tools = load_target(options.target)
    return int(options.run(tools, options))


_MCP_PREFIX: Final = "mcp:"


def _with_mcp_server(options: argparse.Namespace) -> int:
    """Run the command on the tools of an MCP server (`mcp:COMMAND LINE` or `mcp:URL`).

    The connection lives on an event loop here; the command itself runs in
    a worker thread, whose calls the connection's loop carries out.
    """
    server = options.target[len(_MCP_PREFIX) :].strip()
    if options.command in ("serve", "dev", "install"):
        msg = f"toolkit {options.command} takes a Python file or module; mcp: targets work with schema, call and lint"
        raise TargetError(msg)
    if not server:
        msg = 'mcp: needs a server: mcp:"uvx mcp-server-time" or mcp:http://127.0.0.1:8000/mcp'
        raise TargetError(msg)
    import asyncio

    async def main() -> int:
        from toolkit import mcp

        async with mcp.connect(server) as tools:
            return int(await asyncio.to_thread(options.run, tools, options))

    try:
        return asyncio.run(main())
    except (ConnectionError, ValueError, ImportError) as error:
        raise TargetError(str(error)) from None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toolkit",
        description="Turn annotated Python functions into LLM tools.",
        epilog=EXAMPLES["toolkit"],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"toolkit {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (
        _schema_command,
        _call_command,
        _lint_command,
        _budget_command,
        _serve_command,
        _dev_command,
        _install_command,
        _init_command,
    ):
        add(commands)  # in the order `toolkit --help` lists them
    return parser


_Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


def _command(
    commands: _Commands,
    name: str,
    help: str,
    description: str,
    *,
    target: str | None = TARGET_HELP,
) -> argparse.ArgumentParser:
    """A subcommand; `target`: the help of its TARGET, None when it takes none."""
    command = commands.add_parser(
        name,
        help=help,
        description=description,
        epilog=EXAMPLES[name],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    if target is not None:
        command.add_argument("target", metavar="TARGET", help=target)
    return command


def _schema_command(commands: _Commands) -> None:
    from toolkit import providers

    schema = _command(
        commands,
        "schema",
        "print the tools' schemas for an LLM API",
        "Print the tools' definitions for an LLM API as indented JSON.",
    )
    schema.add_argument(
        "--format",
        choices=("json", *providers.NAMES),
        default="json",
        help="the API (default: json)",
    )
    schema.add_argument(
        "--strict",
        action="store_true",
        help="strict mode (openai, openai_responses, anthropic)",
    )
    schema.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also print each tool's policies (approval, limits, retries) to stderr",
    )
    schema.set_defaults(run=_schema)


def _schema(tools: ToolSet, options: argparse.Namespace) -> int:
    extra: dict[str, Any] = {}
    if options.strict:
        if options.format not in _STRICT_FORMATS:
            msg = f"--strict applies to {', '.join(_STRICT_FORMATS)}, not {options.format}"
            raise TargetError(msg)
        extra["strict"] = True
    print(
        json.dumps(tools.export(options.format, **extra), indent=2, ensure_ascii=False)
    )
    if options.verbose:
        for line in _policy_lines(tools):
            print(line, file=sys.stderr)
    return 0


def _policy_lines(tools: ToolSet) -> list[str]:
    """One line per tool with a policy: what it must pass before it runs."""
    from toolkit.policies._policies import shown

    lines = [f"{item.name}: {shown(item)} [policy]" for item in tools if shown(item)]
    if tools.requires_approval is not False:
        lines.append(
            "(tool set): requires approval for its tools as its rule says [policy]"
        )
    return lines


def _call_command(commands: _Commands) -> None:
    call = _command(
        commands,
        "call",
        "call one tool and print the result text",
        "Call one tool as a model would and print the text the model would read,\n"
        "then one line per image, audio, file or resource it returned;\n"
        "exit status 1 on an error result.",
    )
    call.add_argument(
        "tool",
        metavar="TOOL_NAME",
        help="the name of the tool to call (toolkit schema TARGET lists them)",
    )
    call.add_argument(
        "args",
        metavar="ARGS",
        nargs="?",
        default="{}",
        help="the arguments as a JSON object (default: {})",
    )
    call.add_argument(
        "--agent-id", default="cli", help="the agent id the tool sees (default: cli)"
    )
    call.add_argument(
        "--save-parts",
        metavar="DIR",
        help="write the result's images, audio, files and resources into DIR",
    )
    call.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="print what the toolkit logger records, tracebacks included, to stderr",
    )
    call.set_defaults(run=_call)


def _call(tools: ToolSet, options: argparse.Namespace) -> int:
    if options.verbose:
        _log_to_stderr()
    result = tools.execute(options.agent_id, "cli", options.tool, options.args)
    print(result.text)
    media = [part for part in result.content if not isinstance(part, Text)]
    for index, part in enumerate(media, start=1):
        line = f"[{describe(part)}]"
        if options.save_parts:
            line += f" saved to {save_part(part, options.save_parts, index)}"
        print(line)
    return 1 if result.is_error else 0


def _log_to_stderr() -> None:
    """Show the `toolkit` logger's records (a failing tool's traceback) on stderr."""
    import logging

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    found = logging.getLogger("toolkit")
    found.addHandler(handler)
    found.setLevel(logging.DEBUG)


def _lint_command(commands: _Commands) -> None:
    check = _command(
        commands,
        "lint",
        "report what will make models misuse the tools",
        "Report what will make models misuse the tools or an API refuse them:\n"
        "missing or thin descriptions, undocumented parameters, bad names,\n"
        "schemas that contradict themselves, strict-mode problems. Exit status\n"
        "1 when it finds any.",
    )
    check.add_argument(
        "--gemini-openapi",
        action="store_true",
        help="also report the limits of Gemini's older OpenAPI `parameters` form "
        "(the default Gemini export has none of them)",
    )
    check.set_defaults(run=_lint)


def _lint(tools: ToolSet, options: argparse.Namespace) -> int:
    findings: list[Finding] = lint(tools)
    if not options.gemini_openapi:
        from toolkit.providers import gemini

        findings = [item for item in findings if item.code not in gemini.OPENAPI_CODES]
    for finding in findings:
        print(finding)
    for line in _policy_lines(tools):
        print(line)
    count = len(tools)
    if findings:
        print(
            f"{len(findings)} problem{'s' if len(findings) != 1 else ''} in {count} tool{'s' if count != 1 else ''}."
        )
        return 1
    print(f"No problems found in {count} tool{'s' if count != 1 else ''}.")
    return 0


def _budget_command(commands: _Commands) -> None:
    from toolkit import providers

    budget = _command(
        commands,
        "budget",
        "print what the tools cost in each API's request, with and without deferral",
        "Print the size of what the model reads up front of each API's export, in\n"
        "bytes of compact JSON and estimated tokens (one per four bytes): with the\n"
        "tools as marked, with none deferred and with all deferred (defer_loading).\n"
        "With --format, also each tool's share of that API's export.",
    )
    budget.add_argument(
        "--format", choices=providers.NAMES, help="one API, tool by tool"
    )
    budget.set_defaults(run=_budget)


def _budget(tools: ToolSet, options: argparse.Namespace) -> int:
    from toolkit import providers

    from ._budget import sizes, tool_sizes

    formats = (options.format,) if options.format else providers.NAMES
    columns = ("as marked", "none deferred", "all deferred")
    print(f"{'api':<18}" + "".join(f"{name:>24}" for name in columns))
    for format in formats:
        found = sizes(tools, format)
        cells = (
            f"{found[name].bytes:,} B ~{found[name].tokens:,} tok" for name in columns
        )
        print(f"{format:<18}" + "".join(f"{cell:>24}" for cell in cells))
    if options.format:
        shares = tool_sizes(tools, options.format)
        total = sum(share.bytes for _, share in shares) or 1
        print(f"\n{'tool':<40}{'bytes':>10}{'~tokens':>10}{'share':>8}  deferred")
        for item, share in sorted(shares, key=lambda pair: -pair[1].bytes):
            deferred = "yes" if item.defer_loading else "no"
            print(
                f"{item.name:<40}{share.bytes:>10,}{share.tokens:>10,}{share.bytes / total:>8.1%}  {deferred}"
            )
    return 0


def _serve_command(commands: _Commands) -> None:
    serve = _command(
        commands,
        "serve",
        "serve the tools over MCP (stdio, or streamable HTTP)",
        "Serve the tools over MCP: stdio by default, streamable HTTP with --http.\n"
        'Needs the mcp extra: pip install "toolkit-llm[mcp]".',
        target=PYTHON_TARGET_HELP,  # an MCP server's tools are served by that server
    )
    from toolkit.mcp import _app as app
    from toolkit.mcp import _run as run
    from toolkit.mcp._modern import DEFAULT_CACHE_TTL

    serve.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve streamable HTTP at /mcp (host default 127.0.0.1)",
    )
    serve.add_argument(
        "--log-level",
        choices=run.LOG_LEVELS,
        default="warning",
        help="what goes to stderr: debug shows tracebacks, info a line per request "
        "(default: warning)",
    )
    serve.add_argument("--name", help="serverInfo.name (default: the target's name)")
    serve.add_argument(
        "--version", help="serverInfo.version (default: toolkit's version)"
    )
    group = serve.add_argument_group("HTTP (with --http)")
    flag = group.add_argument
    flag(
        "--auth-token-env",
        metavar="VAR",
        help="accept only 'Authorization: Bearer <value of the environment variable VAR>'",
    )
    flag(
        "--no-auth",
        action="store_true",
        help="serve a non-loopback address without --auth-token-env, on purpose",
    )
    flag(
        "--allowed-host",
        action="append",
        default=[],
        metavar="HOST",
        help="a Host name clients use besides the loopback ones (repeatable); "
        "'*' turns the Host and Origin checks off",
    )
    flag(
        "--allowed-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a browser Origin to accept, such as https://app.example.com (repeatable)",
    )
    flag(
        "--stateless",
        action="store_true",
        help="keep no session between requests, so any worker or replica can answer",
    )
    flag(
        "--json-response",
        action="store_true",
        help="answer each POST with one JSON body instead of an event stream",
    )
    flag(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="worker processes sharing the port (needs --stateless)",
    )
    flag(
        "--grace",
        type=float,
        default=run.DEFAULT_GRACE,
        metavar="SECONDS",
        help="how long SIGTERM waits for calls in flight "
        f"(default: {run.DEFAULT_GRACE:g})",
    )
    flag(
        "--request-timeout",
        type=float,
        default=run.DEFAULT_REQUEST_TIMEOUT,
        metavar="SECONDS",
        help="close a connection whose request (headers and body) takes longer to "
        f"arrive (default: {run.DEFAULT_REQUEST_TIMEOUT:g})",
    )
    flag(
        "--max-connections",
        type=int,
        metavar="N",
        help="connections and requests at most; beyond, requests get 503 (default: no limit)",
    )
    flag(
        "--max-body",
        type=_size,
        default=app.DEFAULT_MAX_BODY,
        metavar="BYTES",
        help="larger request bodies get 413; 4MB, 512KB or a number (default: 4MB)",
    )
    flag(
        "--max-sessions",
        type=int,
        default=app.DEFAULT_MAX_SESSIONS,
        metavar="N",
        help=f"open sessions at most (default: {app.DEFAULT_MAX_SESSIONS})",
    )
    flag(
        "--session-idle-timeout",
        type=float,
        default=app.DEFAULT_SESSION_IDLE_TIMEOUT,
        metavar="SECONDS",
        help="close a session after this long without a request "
        f"(default: {app.DEFAULT_SESSION_IDLE_TIMEOUT:g})",
    )
    flag(
        "--sse-poll",
        type=float,
        metavar="SECONDS",
        help="end a call's event stream after this long while the tool runs (again "
        "each time); the client reconnects and gets the answer (proxies' idle timeouts)",
    )
    flag(
        "--no-resume",
        action="store_true",
        help="keep no events for clients that reconnect with Last-Event-ID",
    )
    flag(
        "--cache-ttl",
        type=float,
        metavar="SECONDS",
        help="how long 2026-07-28 clients may keep the tools, prompts and resources lists "
        f"(default: {DEFAULT_CACHE_TTL:g}; 0 for a set that changes)",
    )
    flag(
        "--task-store",
        metavar="URL",
        help="where tasks live, redis://HOST:PORT/N, so that every worker and replica "
        "answers for them (default: in this process)",
    )
    flag(
        "--max-tasks",
        type=int,
        metavar="N",
        help="live tasks a client may have in this process; a call beyond is refused "
        "before its tool starts (default: 1000)",
    )
    flag(
        "--state-key-env",
        metavar="VAR",
        help="the environment variable holding the key (32 bytes or more) that seals "
        "input-required results' requestState; give every worker and replica the same",
    )


def _size(text: str) -> int:
    units = {"kb": 1024, "mb": 1024**2, "gb": 1024**3, "b": 1}
    lowered = text.strip().lower()
    for unit, factor in units.items():
        if lowered.endswith(unit) and lowered[: -len(unit)].strip().isdigit():
            return int(lowered[: -len(unit)]) * factor
    if lowered.isdigit():
        return int(lowered)
    msg = f"{text!r} is not a size; give 4MB, 512KB or a number of bytes"
    raise argparse.ArgumentTypeError(msg)


_HTTP_FLAGS: Final[dict[str, Any]] = {
    "auth_token_env": None,
    "no_auth": False,
    "allowed_host": [],
    "allowed_origin": [],
    "stateless": False,
    "json_response": False,
    "workers": 1,
    "max_connections": None,
    "sse_poll": None,
    "no_resume": False,
    "cache_ttl": None,
    "state_key_env": None,
    "task_store": None,
    "max_tasks": None,
}


def _serve(options: argparse.Namespace) -> int:
    from toolkit.mcp._run import serve

    given = [
        key for key, value in _HTTP_FLAGS.items() if getattr(options, key) != value
    ]
    if options.http is None and given:
        flags = ", ".join("--" + key.replace("_", "-") for key in given)
        msg = f"{flags}: options of HTTP serving; give --http HOST:PORT too"
        raise TargetError(msg)
    extra: dict[str, Any] = {}
    if options.http is not None:
        extra = {
            "auth": _token(options.auth_token_env),
            "no_auth": options.no_auth,
            "allowed_hosts": options.allowed_host,
            "allowed_origins": options.allowed_origin,
            "stateless": options.stateless,
            "json_response": options.json_response,
            "workers": options.workers,
            "grace": options.grace,
            "request_timeout": options.request_timeout,
            "max_connections": options.max_connections,
            "max_body": options.max_body,
            "max_sessions": options.max_sessions,
            "session_idle_timeout": options.session_idle_timeout,
            "resumable": not options.no_resume,
        }
        if options.sse_poll is not None:
            extra["sse_poll"] = options.sse_poll
        if options.cache_ttl is not None:
            extra["cache_ttl"] = options.cache_ttl
        if options.task_store is not None:
            extra["task_store"] = options.task_store
        if options.max_tasks is not None:
            extra["max_tasks"] = options.max_tasks
        if options.state_key_env is not None:
            extra["state_key"] = _secret("--state-key-env", options.state_key_env)
    try:
        serve(
            options.target,
            options.http,
            name=options.name,
            version=options.version,
            log_level=options.log_level,
            **extra,
        )
    except (ImportError, ValueError, OSError) as error:
        raise TargetError(str(error)) from None
    return 0


def _token(variable: str | None) -> str | None:
    if variable is None:
        return None
    return _secret("--auth-token-env", variable)


def _secret(flag: str, variable: str) -> str:
    value = os.environ.get(variable, "")
    if not value:
        msg = f"{flag} {variable}: the environment variable {variable} is not set, or empty"
        raise TargetError(msg)
    return value


def _dev_command(commands: _Commands) -> None:
    dev = _command(
        commands,
        "dev",
        "open the MCP Inspector on the tools' server",
        "Open the official MCP Inspector (a web page to list and call the tools)\n"
        "on `toolkit serve TARGET`, through npx: needs Node.js.",
        target=PYTHON_TARGET_HELP,
    )
    dev.add_argument(
        "--dry-run", action="store_true", help="print the command instead of running it"
    )
    dev.set_defaults(run=hosts.dev)


def _install_command(commands: _Commands) -> None:
    install = _command(
        commands,
        "install",
        "add the tools' server to an MCP host's configuration",
        "Write the entry that starts `toolkit serve TARGET` into the MCP\n"
        "configuration file of a host, keeping its other entries. The entry\n"
        "runs this Python with the target's absolute path.",
        target=None,
    )
    install.add_argument(
        "host", metavar="HOST", choices=hosts.HOSTS, help=", ".join(hosts.HOSTS)
    )
    install.add_argument("target", metavar="TARGET", help=PYTHON_TARGET_HELP)
    install.add_argument(
        "--name", help="the server's name in the host (default: the target's name)"
    )
    install.add_argument(
        "--env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an environment variable for the server (repeatable)",
    )
    install.add_argument(
        "--config",
        metavar="PATH",
        help="write this file instead of the host's own (a project's .cursor/mcp.json, .vscode/mcp.json)",
    )
    install.add_argument(
        "--dry-run",
        action="store_true",
        help="print the entry and the file it would go into; write nothing",
    )
    install.set_defaults(run=hosts.install)


# ------------------------------------------------------------------ init


def _init_command(commands: _Commands) -> None:
    init = _command(
        commands,
        "init",
        "write a starter tools.py and its test",
        "Write a starter tools.py with two documented tools, and a test_tools.py\n"
        "that pytest runs. An existing file is never overwritten.",
        target=None,
    )
    init.add_argument(
        "folder",
        metavar="FOLDER",
        nargs="?",
        default=".",
        help="where to write them (default: the current folder)",
    )
