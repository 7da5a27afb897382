"""Helpers shared by the provider modules: reading messages, pairing results."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Coroutine, Iterable, Iterator, Mapping
from typing import Any, Final, Protocol, TypeAlias, TypeVar

from toolkit.core._finding import Finding
from toolkit.tools._deferred import offered as listed
from toolkit.tools._tool import Tool, unbound_method_error
from toolkit.values._json import type_name
from toolkit.values._results import ToolCall, ToolResult


class Runs(Protocol):
    """A `ToolSet`, as the providers use it: its tools, one by name, what it offers, a turn of calls."""

    def __iter__(self) -> Iterator[Tool[Any, Any]]: ...

    def get(self, name: str) -> Tool[Any, Any] | None: ...

    def _offered(self) -> list[Tool[Any, Any]]: ...

    async def run(
        self,
        agent_id: str,
        calls: Iterable[ToolCall],
        *,
        deps: Any = None,
        host: object = None,
    ) -> list[ToolResult]: ...


Source: TypeAlias = "Runs | Tool[Any, Any] | Iterable[Tool[Any, Any]]"
"""What `tools(...)` takes: a `ToolSet`, one `Tool`, or tools."""

R = TypeVar("R")

__all__ = [
    "MINTED_PREFIX",
    "Runs",
    "Source",
    "as_tools",
    "call_of",
    "field",
    "handler",
    "items",
    "mint_id",
    "not_strict",
    "offered",
    "pair",
]

MINTED_PREFIX: Final = "toolkit-"
"""Ids that toolkit made up for calls that came without one (Gemini, MCP)."""


def as_tools(
    source: Source,
) -> list[Tool[Any, Any]]:
    """The tools of a `ToolSet`, a single `Tool` or a list of tools, in order.

    A set is known by the mark its class carries, not by importing it: the
    set's `export` asks the providers, which stay below it.
    """
    if isinstance(source, Tool):
        found: list[Any] = [source]
    elif getattr(type(source), "_only_tools", False):
        return list(source)  # a set holds only usable tools: add checks each
    else:
        found = list(source)
    for item in found:
        if not isinstance(item, Tool):
            msg = f"Expected a ToolSet, a Tool or a list of Tools; found {item!r}"
            raise TypeError(msg)
        error = unbound_method_error(item)
        if error is not None:
            raise error
    return found


def offered(source: Source) -> list[Tool[Any, Any]]:
    """What a request offers of `source` for an API that does not load tools itself.

    The eager tools, then `search_tools` when some are deferred, then (for
    a `ToolSet`) the tools its searches loaded (`ToolSet.load`).
    """
    if getattr(type(source), "_only_tools", False):
        return source._offered()  # type: ignore[union-attr]
    return listed(as_tools(source))


def field(obj: Any, name: str, camel: str | None = None) -> Any:
    """`obj[name]` for a dict (also its camelCase spelling), `obj.name` for an object."""
    if isinstance(obj, dict):
        if name in obj:
            return obj[name]
        return obj.get(camel) if camel is not None else None
    value = getattr(obj, name, None)
    if value is None and camel is not None:
        value = getattr(obj, camel, None)
    return value


def items(value: Any) -> list[Any]:
    """A list from a list, a tuple, None or any iterable; empty for a value that is none of these."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    try:
        return list(value)
    except Exception:  # not a list of calls: no calls in it
        return []


def call_of(raw_id: Any, raw_name: Any, args: Any) -> ToolCall:
    """The `ToolCall` of an id, a name and arguments as an API's message holds them.

    An id or a name that cannot become text (an int of over 4,300 digits,
    a list nested 1,000 deep, an object whose `__str__` raises) makes a
    call of no tool, under a name that says what could not be read: it
    answers with the "unknown tool" error, which lists the tools the model
    may call, in the API's own shape, instead of failing the whole message.
    """
    call_id, name = _text_of(raw_id), _text_of(raw_name)
    if call_id is not None and name is not None:
        return ToolCall(call_id, name, args)
    unread = "call id" if call_id is None else "tool name"
    kind = type_name(raw_id if call_id is None else raw_name)
    return ToolCall(
        call_id if call_id is not None else mint_id(),
        f"(a {unread} of type {kind} that cannot be read as text)",
        args,
    )


def _text_of(value: Any) -> str | None:
    """`value` as text (a str as it is, else its `str()`), or None when that fails."""
    if type(value) is str:
        return value
    try:
        text = str(value)
    except Exception:  # too many digits, too deep, a hostile __str__
        return None
    return text if type(text) is str else None


def mint_id() -> str:
    """A fresh, unique id for a call that came without one."""
    return f"{MINTED_PREFIX}{uuid.uuid4().hex}"


def not_strict(
    item: Tool[Any, Any], api: str, problems: Iterable[str]
) -> Iterator[Finding]:
    """The lint findings of a tool that cannot be strict for `api` (code `<api>-not-strict`)."""
    for problem in problems:
        yield Finding(
            item.name,
            f"{api.lower()}-not-strict",
            f"cannot be strict for {api}, so it is sent with strict: false: {problem}",
        )


def pair(
    calls: Iterable[ToolCall],
    results: Iterable[ToolResult],
    api: str | None = None,
    limits: Mapping[str, Mapping[str, int]] | None = None,
) -> list[tuple[ToolCall, ToolResult]]:
    """Calls with their results, as they can go to `api` (`exportable`) when one is named; a count that does not match is refused."""
    calls, results = list(calls), list(results)
    if len(calls) != len(results):
        msg = f"Got {len(calls)} calls but {len(results)} results; every call needs exactly one result"
        raise ValueError(msg)
    for call, result in zip(calls, results, strict=True):
        if not isinstance(call, ToolCall) or not isinstance(result, ToolResult):
            msg = f"Expected ToolCall and ToolResult pairs; got {call!r} and {result!r}"
            raise TypeError(msg)
    if api is not None:
        from ._parts import exportable

        results = exportable(results, api, limits)
    return list(zip(calls, results, strict=True))


def handler(
    parse_calls: Callable[[Any], list[ToolCall]],
    results: Callable[..., R],
    replies: str,
    *,
    with_toolset: bool = False,
) -> Callable[..., Coroutine[Any, Any, R]]:
    """A provider's `handle`: parse the calls, run them concurrently, build the reply.

    Args:
        parse_calls: The provider's `parse_calls`.
        results: The provider's `results`; `handle`'s extra keyword arguments
            go to it.
        replies: What the reply is, for the docstring ("the messages to append").
        with_toolset: Pass the toolset to `results` too (`toolset=`), for a
            provider whose results depend on the tools' definitions.
    """

    async def handle(
        toolset: Runs,
        agent_id: str,
        message: Any,
        *,
        deps: Any = None,
        host: object = None,
        **options: Any,
    ) -> R:
        calls = parse_calls(message)
        if with_toolset:
            options["toolset"] = toolset
        outcomes = await toolset.run(agent_id, calls, deps=deps, host=host)
        return results(calls, outcomes, **options)

    handle.__doc__ = f"""Parse the calls in `message`, run them concurrently, and return {replies}.

    Args:
        toolset: The tools to run the calls with.
        agent_id: The agent that runs the calls (`Context.agent_id`).
        message: The model's response, as `parse_calls` takes it.
        deps: Passed to each tool's `Context` as `deps`.
        host: What each tool's `Context` reaches for progress, log records,
            sampling and questions (see `toolkit.Host`).
        **options: Passed to `results` (for example `limits=`).
    """
    return handle
