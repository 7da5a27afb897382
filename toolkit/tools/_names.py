"""Tool names: what a tool name is, what each API takes, and the one mapping between them.

A tool's name is any 1 to 128 printable characters without whitespace
(`math.factorial`, `github/search_issues`, `db:query`), as function catalogs
and MCP servers name their tools. An export sends it as it is where the API
takes it, else its wire name (`wire_name`), which depends on the name and the
API only, never on the other tools or their order. A set finds a tool by
either name (`called_names`); an export refuses two tools that would answer
to one name (`wire_names`).
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable, Sequence
from typing import Final, NamedTuple, TypeGuard

from toolkit.core._exceptions import ToolDefinitionError

from ._views import V, kept_views

__all__ = [
    "API_RULES",
    "RULES",
    "TOOL_NAMES",
    "NameRule",
    "called_names",
    "check_name",
    "check_names",
    "clashes",
    "sent_as_is",
    "sent_name",
    "sent_names",
    "valid_name",
    "wire_name",
    "wire_names",
]

_WHITESPACE: Final = re.compile(r"\s")
_LETTER_FIRST: Final = re.compile(r"[A-Za-z_]")
_EVERY_API: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")
"""The names that every rule of `API_RULES` takes as they are (the tests check it against them)."""


class NameRule(NamedTuple):
    """The names one API takes.

    Attributes:
        api: The API, as messages name it.
        allowed: Whether the API takes one character.
        limit: The most characters a name has.
        letter_first: The name starts with an ASCII letter or `_`.
        said: The rule in words, for messages.
    """

    api: str
    allowed: Callable[[str], bool]
    limit: int
    letter_first: bool
    said: str

    def fits(self, name: str) -> bool:
        """Whether the API takes `name` as it is."""
        return (
            0 < len(name) <= self.limit
            and all(map(self.allowed, name))
            and (not self.letter_first or _LETTER_FIRST.match(name) is not None)
        )


def _ascii(extra: str) -> Callable[[str], bool]:
    """Takes an ASCII letter, a digit or one of `extra`."""
    return frozenset(string.ascii_letters + string.digits + extra).__contains__


def _printable(char: str) -> bool:
    return char.isprintable() and not char.isspace()


TOOL_NAMES: Final = NameRule(
    "tool names",
    _printable,
    128,
    False,
    "1 to 128 printable characters without whitespace",
)
"""What `Tool.new` and `@tool(name=...)` take."""

_OPENAI: Final = NameRule(  # the openai SDK's FunctionDefinition.name; Responses alike
    "OpenAI", _ascii("_-"), 64, False, "letters, digits, '_' and '-', at most 64"
)
RULES: Final[dict[str, NameRule | None]] = {
    "json": None,
    "openai": _OPENAI,
    "openai_responses": _OPENAI,
    "anthropic": NameRule(  # the Messages API reference, and the pattern its errors quote
        "Anthropic",
        _ascii("_-"),
        128,
        False,
        "letters, digits, '_' and '-', at most 128",
    ),
    "gemini": NameRule(  # google-genai's FunctionDeclaration.name; 64 as the Gemini API says
        "Gemini",
        _ascii("_.:-"),
        64,
        True,
        "a letter or '_', then letters, digits, '_', '.', ':' and '-', at most 64",
    ),
    "mcp": None,  # a tool's MCP name is its identity: the spec's character advice is a SHOULD
}
"""The rule of each export format; None where every tool name is sent as it is."""


API_RULES: Final = tuple(dict.fromkeys(rule for rule in RULES.values() if rule))
"""Each rule of an API that does not take every tool name, once."""


def sent_as_is(name: str) -> bool:
    """Whether every API is sent `name` itself: no rule of `API_RULES` renames it."""
    return _EVERY_API.fullmatch(name) is not None


def valid_name(name: object) -> TypeGuard[str]:
    """Whether `name` is a tool name: 1 to 128 printable characters, no whitespace."""
    return (
        isinstance(name, str)
        and 0 < len(name) <= 128
        and name.isprintable()
        and _WHITESPACE.search(name) is None
    )


def check_name(name: object, *, function: str | None = None) -> str:
    """Return `name` if it is a tool name.

    Raises:
        ToolDefinitionError: It is not a string of 1 to 128 printable
            characters without whitespace.
    """
    if valid_name(name):
        return name
    where = f" of {function}" if function else ""
    msg = (
        f"The tool name {name!r}{where} is not valid: a name has 1 to 128 printable "
        "characters and no whitespace. Pass name= with such a name"
    )
    raise ToolDefinitionError(msg, function=function)


def wire_name(name: str, rule: NameRule | None) -> str:
    """The name sent for the tool `name` under `rule` (None: every name as it is).

    `name` itself when the rule takes it; else each character the rule
    refuses becomes `_`, a `_` goes in front when the rule wants a letter
    or `_` first, and a name over the limit is cut to end with `_` and
    eight hex digits of the SHA-256 of `name`.
    """
    if rule is None or rule.fits(name):
        return name
    made = "".join(char if rule.allowed(char) else "_" for char in name) or "_"
    if rule.letter_first and _LETTER_FIRST.match(made) is None:
        made = "_" + made
    if len(made) > rule.limit:
        import hashlib

        digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()
        made = f"{made[: rule.limit - 9]}_{digest[:8]}"
    return made


def sent_name(item: V, format: str) -> str:
    """`wire_name(item.name, RULES[format])`, kept with the tool until its name changes (`sent_names`)."""
    return sent_names([item], format)[0]


def sent_names(tools: list[V], format: str) -> list[str]:
    """`sent_name` of each of `tools`, in order.

    Every export asks it of every tool, and a name is made once and
    exported on every request; checking a name character by character
    costs more than the rest of an export of a tool.
    """
    if RULES[format] is None:
        return [item.name for item in tools]
    return kept_views(tools, _NAME_VIEWS[format], _SENDERS[format])


def _sender(rule: NameRule) -> Callable[[V], str]:
    return lambda item: wire_name(item.name, rule)


_NAME_VIEWS: Final = {format: f"name:{format}" for format in RULES}
_SENDERS: Final = {format: _sender(rule) for format, rule in RULES.items() if rule}


def wire_names(tools: Iterable[V], format: str) -> list[str]:
    """The names an export for `format` sends for `tools`, in order.

    A name sent instead of a tool's own must be no other tool's: neither its
    name nor the name any API is sent for it. So a call under any name an
    export sent reaches one tool, whichever API it comes from.

    Raises:
        ToolDefinitionError: Two tools would answer to one name; the
            message names both.
    """
    found = list(tools)
    rule = RULES[format]
    names = sent_names(found, format)
    if rule is None or names == [item.name for item in found]:
        return names  # no tool is sent under a name not its own: nothing can clash
    own = {item.name: item for item in found}
    called = called_names(found)
    for item, sent in zip(found, names, strict=True):
        if sent == item.name:
            continue
        others = (own.get(sent), *called[sent])  # `item` is among them
        other = next((each for each in others if each not in (None, item)), None)
        if other is not None:
            msg = (
                f"The tools {item.name!r} and {other.name!r} would both be called {sent!r}: "
                f"{rule.api} takes {rule.said}, so it is sent {sent!r} for {item.name!r}. "
                "Rename one of them"
            )
            raise ToolDefinitionError(msg)
    return names


def check_names(source: object, tools: list[V], format: str) -> None:
    """`wire_names(tools, format)`, for its check: `tools` are what `source` offers.

    A set that knows that no API renames any of its tools (`ToolSet._as_is`)
    has no tool to look at for it.
    """
    as_is = getattr(source, "_as_is", None)
    if as_is is None or not as_is():
        wire_names(tools, format)


def clashes(names: Iterable[str], rules: Sequence[NameRule]) -> dict[str, str]:
    """The names to leave out of `names` so that none answers to a name another answers to.

    A name answers to itself and to what each rule sends for it. Each name
    left out comes with why, naming the name it gives way to. Which stay
    never depends on the order of `names`: the names fewer rules rename come
    first (those every rule takes as they are, first of all), then code point
    order decides; each is kept unless it answers to a name a kept one
    answers to.
    """
    kept: dict[str, str] = {}  # a name answered to -> the kept name that answers
    left_out: dict[str, str] = {}
    for name in sorted(set(names), key=lambda each: (_renaming(each, rules), each)):
        answers = {name, *(wire_name(name, rule) for rule in rules)}
        shared = sorted(answers & kept.keys())
        if not shared:
            kept.update(dict.fromkeys(answers, name))
            continue
        other, called = kept[shared[0]], shared[0]
        where = sorted(
            {
                rule.api
                for rule in rules
                for each in (name, other)
                if wire_name(each, rule) == called != each
            }
        )
        left_out[name] = (
            f"it and {other!r} would both be called {called!r} for {', '.join(where)}"
        )
    return left_out


def _renaming(name: str, rules: Sequence[NameRule]) -> int:
    """How many of `rules` send another name for `name`."""
    return sum(not rule.fits(name) for rule in rules)


def called_names(tools: Iterable[V]) -> dict[str, list[V]]:
    """Each name an API is sent instead of a tool's own, with the tools it is sent for.

    What a set looks a called name up in when no tool has it: the tool
    called `a.b` answers a call of `a_b`, the name OpenAI is sent. An
    export refuses a name sent for two tools (`wire_names`).
    """
    found: dict[str, list[V]] = {}
    for item in tools:
        for rule in API_RULES:
            sent = wire_name(item.name, rule)
            if sent != item.name:
                sharing = found.setdefault(sent, [])
                if item not in sharing:
                    sharing.append(item)
    return found
