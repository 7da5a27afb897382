"""`lint`: what will make models misuse a tool, or an API refuse it, found before a request.

The checks every API shares live here (names, descriptions, documented
parameters); each provider adds its own rules through its `lint` (what its
API rejects, why a tool cannot be strict there). Findings are data
(`Finding`); the `toolkit lint` command only prints them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from toolkit.core._exceptions import ToolDefinitionError
from toolkit.core._finding import Finding
from toolkit.schema._contradictions import contradictions
from toolkit.tools._deferred import shadowed_search
from toolkit.tools._names import API_RULES, check_name, wire_name
from toolkit.tools._tool import Tool, unbound_method_error

__all__ = ["Finding", "lint"]


def lint(tools: Iterable[Tool[Any, Any]]) -> list[Finding]:
    """Check a set of tools for what providers reject and what confuses models.

    Checks names, descriptions (missing, one word), undocumented parameters,
    contradictions inside the parameter schema (a parameter no value can
    satisfy, a default its own schema refuses, `default: null` on a
    parameter that cannot be null, `required` naming an undeclared
    property), a tool named `search_tools` among deferred tools (it takes
    the place of the search that finds them), then every provider's own rules: OpenAI's description and tool-count
    limits and strict-mode problems, Anthropic's strict subset, MCP
    definitions that clients would refuse, and the limits of Gemini's older
    OpenAPI form.

    Args:
        tools: A `ToolSet` or tools.

    Returns:
        The findings, tool by tool in order, then those of the whole set;
        empty when all is well.
    """
    from toolkit import providers

    found = list(tools)
    rules = [providers.get(name).lint for name in providers.NAMES]
    findings = [finding for item in found for finding in _lint_tool(item)]
    shadowed = shadowed_search(found)
    if shadowed is not None:
        findings.append(shadowed)
    for rule in rules:
        findings.extend(rule(found))
    return sorted(findings, key=_order(found))


def _order(found: list[Tool[Any, Any]]) -> Any:
    """Tool by tool in the set's order (a stable sort keeps each tool's own order); the set last."""
    position = {item.name: index for index, item in enumerate(found)}
    return lambda finding: (
        position.get(finding.tool, len(found))
        if finding.tool is not None
        else len(found)
    )


def _lint_tool(item: Tool[Any, Any]) -> Iterator[Finding]:
    unbound = unbound_method_error(item)
    if unbound is not None:
        yield Finding(item.name, "method-without-instance", str(unbound))
    yield from _names(item)
    yield from _descriptions(item)
    yield from _docstring(item)
    yield from _parameters(item)
    fix = ". Its MCP server has to fix it" if _remote(item) else ""
    yield from contradictions(item.name, item.parameters, fix)
    if item.max_concurrency:
        from toolkit.policies._policies import policy_findings

        yield from policy_findings(item)


def _names(item: Tool[Any, Any]) -> Iterator[Finding]:
    try:
        check_name(item.name)
    except ToolDefinitionError as error:
        yield Finding(item.name, "invalid-name", str(error))
        return
    sent = [rule for rule in API_RULES if not rule.fits(item.name)]
    if sent:
        said = ", ".join(f"{rule.api} {wire_name(item.name, rule)!r}" for rule in sent)
        fix = (
            "its MCP server would have to rename it"
            if _remote(item)
            else "name it with letters, digits, '_' and '-' only, a letter first, at most 64 characters"
        )
        yield Finding(
            item.name,
            "renamed",
            f"some APIs do not take this name, so their exports send another ({said}), "
            f"and calls under it reach this tool; to keep one name everywhere, {fix}",
        )


def _descriptions(item: Tool[Any, Any]) -> Iterator[Finding]:
    description = item.description.strip()
    if not description:
        fix = _REMOTE_FIX if _remote(item) else "Add a docstring"
        yield Finding(
            item.name,
            "missing-description",
            f"has no description; models choose tools by it. {fix}",
        )
    elif len(description.split()) == 1:
        yield Finding(
            item.name,
            "thin-description",
            f"the description {description!r} is one word; say what the tool does and when to use it",
        )


def _docstring(item: Tool[Any, Any]) -> Iterator[Finding]:
    """The parts of a function tool's docstring that the parser could not read (they stay in its description)."""
    state = vars(item)
    if "__wrapped__" not in state or not isinstance(state.get("__doc__"), str):
        return
    from toolkit.hints._docstrings import parse_docstring

    for part in parse_docstring(state["__doc__"]).unread:
        shown = " ".join(part.split())
        yield Finding(
            item.name,
            "unread-docstring",
            f"the docstring part {shown!r} is not in the style of the rest, so the parser "
            "could not read it; it stays in the description as it is. Write it as the "
            "other entries are (`name: description` in Google style)",
        )


def _parameters(item: Tool[Any, Any]) -> Iterator[Finding]:
    fix = (
        _REMOTE_FIX
        if _remote(item)
        else "Document it in the docstring or with Param(description=...)"
    )
    for name, schema in item.parameters.get("properties", {}).items():
        if not (isinstance(schema, dict) and schema.get("description")):
            yield Finding(
                item.name,
                "undocumented-parameter",
                f"parameter {name!r} has no description. {fix}",
            )


_REMOTE_FIX = "Its MCP server has to give one"


def _remote(item: Tool[Any, Any]) -> bool:
    """Whether the tool is an MCP server's: its server, not its user, fixes what lint finds."""
    return item.remote_name is not None
