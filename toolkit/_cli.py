"""The `toolkit` command: schema, call, lint and serve, for tools in a file or module.

TARGET is `path/to/file.py` or `package.module`, optionally followed by
`:attribute` (a `ToolSet`, a `Tool` or a list of tools); without it, every
tool defined in the module is used. A bad target is a one-line error and
exit status 2; an error result or a lint finding is exit status 1.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import pathlib
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import Any, Final

from ._lint import lint
from ._tool import Tool
from ._toolset import EXPORT_FORMATS, ToolSet

__all__ = ["main"]

_STRICT_FORMATS: Final = ("openai", "openai_responses", "anthropic")


class TargetError(Exception):
    """The TARGET cannot be loaded or holds no tools."""


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = _parser()
    options = parser.parse_args(argv)
    try:
        tools = load_target(options.target)
        return int(options.run(tools, options))
    except TargetError as error:
        print(f"toolkit: error: {error}", file=sys.stderr)
        return 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="toolkit", description="Turn annotated Python functions into LLM tools."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    target_help = "path/to/file.py or package.module, optionally :attribute"

    schema = commands.add_parser(
        "schema", help="print the tools' schemas for an LLM API"
    )
    schema.add_argument("target", metavar="TARGET", help=target_help)
    schema.add_argument(
        "--format",
        choices=EXPORT_FORMATS,
        default="json",
        help="the API (default: json)",
    )
    schema.add_argument(
        "--strict",
        action="store_true",
        help="strict mode (openai, openai_responses, anthropic)",
    )
    schema.set_defaults(run=_schema)

    call = commands.add_parser("call", help="call one tool and print the result text")
    call.add_argument("target", metavar="TARGET", help=target_help)
    call.add_argument("tool", metavar="TOOL_NAME")
    call.add_argument(
        "args",
        metavar="ARGS",
        nargs="?",
        default="{}",
        help="the arguments as a JSON object",
    )
    call.add_argument(
        "--agent-id", default="cli", help="the agent id the tool sees (default: cli)"
    )
    call.set_defaults(run=_call)

    check = commands.add_parser(
        "lint", help="report what will make models misuse the tools"
    )
    check.add_argument("target", metavar="TARGET", help=target_help)
    check.set_defaults(run=_lint)

    serve = commands.add_parser(
        "serve", help="serve the tools over MCP (stdio, or streamable HTTP)"
    )
    serve.add_argument("target", metavar="TARGET", help=target_help)
    serve.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve streamable HTTP at /mcp (host default 127.0.0.1)",
    )
    serve.set_defaults(run=_serve)
    return parser


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
    return 0


def _call(tools: ToolSet, options: argparse.Namespace) -> int:
    result = tools.execute(options.agent_id, "cli", options.tool, options.args)
    print(result.text)
    return 1 if result.is_error else 0


def _lint(tools: ToolSet, options: argparse.Namespace) -> int:
    findings = lint(tools)
    for finding in findings:
        print(finding)
    count = len(tools)
    if findings:
        print(
            f"{len(findings)} problem{'s' if len(findings) != 1 else ''} in {count} tool{'s' if count != 1 else ''}."
        )
        return 1
    print(f"No problems found in {count} tool{'s' if count != 1 else ''}.")
    return 0


def _serve(tools: ToolSet, options: argparse.Namespace) -> int:
    from .providers import mcp

    try:
        mcp.serve(tools, options.http)
    except (ImportError, ValueError) as error:
        raise TargetError(str(error)) from None
    return 0


# ------------------------------------------------------------------ targets


def load_target(target: str) -> ToolSet:
    """The tools named by TARGET, as a `ToolSet`.

    Raises:
        TargetError: The module cannot be found or imported, the attribute is
            missing, or there are no tools.
    """
    location, _, attribute = _split(target)
    module = _import(location)
    if attribute:
        return _as_toolset(_attribute(module, attribute), target)
    return _module_tools(module, target)


def _split(target: str) -> tuple[str, str, str]:
    """`file.py:attr` or `pkg.mod:attr`; a Windows drive letter's colon is not a separator."""
    head, sep, tail = target.rpartition(":")
    if sep and tail and not tail.startswith(("\\", "/")) and len(head) > 1:
        return head, sep, tail
    return target, "", ""


def _import(location: str) -> ModuleType:
    path = pathlib.Path(location)
    if location.endswith(".py") or path.is_file():
        return _import_file(path)
    if str(pathlib.Path.cwd()) not in sys.path:
        sys.path.insert(0, str(pathlib.Path.cwd()))
    try:
        return importlib.import_module(location)
    except ImportError as error:
        msg = f"cannot import {location!r}: {error}"
        raise TargetError(msg) from None


def _import_file(path: pathlib.Path) -> ModuleType:
    if not path.is_file():
        msg = f"no such file: {path}"
        raise TargetError(msg)
    name = path.stem
    spec = importlib.util.spec_from_file_location(name, path.resolve())
    if spec is None or spec.loader is None:
        msg = f"cannot load {path} as a Python module"
        raise TargetError(msg)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.resolve().parent))
    sys.modules[name] = module  # postponed annotations are resolved through sys.modules
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        msg = f"importing {path} failed: {type(error).__name__}: {error}"
        raise TargetError(msg) from None
    return module


def _attribute(module: ModuleType, attribute: str) -> Any:
    value: Any = module
    for part in attribute.split("."):
        if not hasattr(value, part):
            msg = f"{module.__name__!r} has no attribute {attribute!r}"
            raise TargetError(msg)
        value = getattr(value, part)
    return value


def _as_toolset(value: Any, target: str) -> ToolSet:
    if isinstance(value, ToolSet):
        return value
    if isinstance(value, Tool):
        return ToolSet([value])
    if (
        isinstance(value, (list, tuple))
        and value
        and all(isinstance(item, Tool) for item in value)
    ):
        return ToolSet(value)
    kind = (
        f"the class {value.__name__}"
        if isinstance(value, type)
        else f"a value of type {type(value).__name__}"
    )
    msg = f"{target} is {kind}, not a ToolSet, a Tool or a list of tools"
    raise TargetError(msg)


def _module_tools(module: ModuleType, target: str) -> ToolSet:
    tools = ToolSet()
    for value in list(vars(module).values()):
        candidates = list(value) if isinstance(value, ToolSet) else [value]
        for item in candidates:
            if isinstance(item, Tool) and tools.get(item.name) is not item:
                try:
                    tools.add(item)
                except ValueError as error:
                    raise TargetError(str(error)) from None
    if not tools:
        msg = f"{target} defines no tools; decorate functions with @tool, or name a ToolSet with {target}:attribute"
        raise TargetError(msg)
    return tools
