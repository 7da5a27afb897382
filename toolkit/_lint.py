"""`lint`: what will make models misuse a tool, or an API refuse it, found before a request.

Findings are data (`Finding`); the `toolkit lint` command only prints them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any, Final

from ._exceptions import ToolDefinitionError
from ._record import Record
from ._tool import Tool, check_name
from ._toolset import ToolSet

__all__ = ["Finding", "lint"]

_MAX_DESCRIPTION: Final = 1024  # OpenAI answers "string_above_max_length" past this
_MAX_TOOLS: Final = 128  # OpenAI's limit of tools per request
_GEMINI_PROPERTY: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


class Finding(Record):
    """One problem found by `lint`.

    Attributes:
        tool: The tool's name, or None for a problem of the whole set.
        code: A short, stable identifier, for example "undocumented-parameter".
        message: What is wrong and what to do, in one sentence.
    """

    __match_args__ = ("tool", "code", "message")
    __slots__ = ("code", "message", "tool")
    tool: str | None
    code: str
    message: str

    def __init__(self, tool: str | None, code: str, message: str) -> None:
        object.__setattr__(self, "tool", tool)
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "message", message)

    def __str__(self) -> str:
        return f"{self.tool or '(tool set)'}: {self.message} [{self.code}]"


def lint(tools: ToolSet | Iterable[Tool[Any, Any]]) -> list[Finding]:
    """Check a set of tools for what providers reject and what confuses models.

    Checks descriptions (missing, one word, over 1,024 characters),
    undocumented parameters, names, parameter names Gemini's OpenAPI form
    rejects, recursion Gemini's OpenAPI form cannot express, reasons a tool
    cannot be strict for OpenAI or Anthropic, MCP definitions that clients
    would refuse, and more than 128 tools.

    Args:
        tools: A `ToolSet` or tools.

    Returns:
        The findings, tool by tool in order; empty when all is well.
    """
    found = list(tools)
    findings = [finding for item in found for finding in _lint_tool(item)]
    if len(found) > _MAX_TOOLS:
        message = f"{len(found)} tools in one set; OpenAI accepts at most {_MAX_TOOLS} per request. Split the set or select fewer"
        findings.append(Finding(None, "too-many-tools", message))
    return findings


def _lint_tool(item: Tool[Any, Any]) -> Iterator[Finding]:
    yield from _names(item)
    yield from _descriptions(item)
    yield from _parameters(item)
    yield from _providers(item)


def _names(item: Tool[Any, Any]) -> Iterator[Finding]:
    try:
        check_name(item.name)
    except ToolDefinitionError as error:
        yield Finding(item.name, "invalid-name", str(error))


def _descriptions(item: Tool[Any, Any]) -> Iterator[Finding]:
    description = item.description.strip()
    if not description:
        yield Finding(
            item.name,
            "missing-description",
            "has no description; models choose tools by it. Add a docstring",
        )
    elif len(description.split()) == 1:
        yield Finding(
            item.name,
            "thin-description",
            f"the description {description!r} is one word; say what the tool does and when to use it",
        )
    if len(description) > _MAX_DESCRIPTION:
        yield Finding(
            item.name,
            "long-description",
            f"the description has {len(description):,} characters; OpenAI rejects more than {_MAX_DESCRIPTION:,}. Shorten it",
        )


def _parameters(item: Tool[Any, Any]) -> Iterator[Finding]:
    for name, schema in item.parameters.get("properties", {}).items():
        if not (isinstance(schema, dict) and schema.get("description")):
            yield Finding(
                item.name,
                "undocumented-parameter",
                f"parameter {name!r} has no description. Document it in the docstring or with Param(description=...)",
            )
        if not _GEMINI_PROPERTY.fullmatch(name):
            yield Finding(
                item.name,
                "gemini-parameter-name",
                f"parameter {name!r} is not a name Gemini accepts in `parameters` (letters, digits, '_', at most 64)",
            )


def _providers(item: Tool[Any, Any]) -> Iterator[Finding]:
    from .providers import anthropic, mcp, openai
    from .providers._transform import gemini_openapi

    for problem in mcp.problems(item):
        yield Finding(
            item.name,
            "mcp-invalid",
            f"MCP clients would refuse it, so it is left out of the MCP tools list: {problem}",
        )

    for problem in openai.strict_problems(item):
        yield Finding(
            item.name,
            "openai-not-strict",
            f"cannot be strict for OpenAI, so it is sent with strict: false: {problem}",
        )
    for problem in anthropic.strict_problems(item):
        yield Finding(
            item.name,
            "anthropic-not-strict",
            f"cannot be strict for Anthropic, so it is sent with strict: false: {problem}",
        )
    try:
        gemini_openapi(item.parameters, tool_name=item.name)
    except ToolDefinitionError as error:
        yield Finding(item.name, "gemini-openapi", str(error))
