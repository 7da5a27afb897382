"""`ToolSet`: the per-agent registry of tools with unique names.

A set keeps insertion order everywhere, refuses a second tool under a taken
name unless told `replace=True`, and is safe to use from several threads
(changes take a lock; a read gets a dict that no change touches). It holds
its tools in a `Registry` of its own or, when it was made by composition
(`|`, `prefixed`, `filtered`, `select`, `without`), makes them from the
sets it was made from, again on the first read after one of them changed,
an MCP server's tool list say (`_composition.py`). Exports are cached per
(format, options) until the set's tools change (`_exports.py`).
Its calls (`run`, `execute`, `aexecute`) are those of `Calls` (`_turn.py`),
its middleware `_middleware.py`'s.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Final, ParamSpec, TypeVar, cast, overload

from toolkit.core._exceptions import NotAToolError, ToolDefinitionError
from toolkit.policies._middleware import Middleware, check_middleware
from toolkit.policies._policies import SetPolicy
from toolkit.run._running import DEFAULT_MAX_THREADS, bounded_pool
from toolkit.tools._names import valid_name
from toolkit.tools._options import DecoratorOptions
from toolkit.tools._tool import (
    TOOL_CHANGES,
    AITool,
    ErrorFormatter,
    Tool,
    ToolDecorator,
    check_namespace,
    tool,
    unbound_method_error,
)
from toolkit.values._results import Widget

from ._catalog import Catalog
from ._composition import (
    Combined,
    Composed,
    Filtered,
    Marked,
    Prefixed,
    Selected,
    Tools,
    bad_prefix,
    duplicate,
)
from ._exports import ExportCache
from ._turn import Calls

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from toolkit.run._context import Context
    from toolkit.run._tracing import Redact

__all__ = ["Middleware", "ToolSet"]

P = ParamSpec("P")
R = TypeVar("R")


SetApproval = Callable[[Tool[Any, Any], dict[str, Any], "Context[Any]"], bool]
"""`requires_approval=` of a set: `(tool, arguments, context) -> bool`."""

_STATES: Final = itertools.count()
"""The states of registries, each new one unique in the process: a state
once left never comes back, also to a set that stopped following the sets
it was composed from (which gets a registry of its own)."""


class Registry:
    """The tools added to a set; the set makes every change under its lock."""

    __slots__ = ("_plain", "_seen", "_state", "tools")

    def __init__(self, tools: Tools, *, plain: bool = False) -> None:
        self.tools = tools
        """The tools by name, in order (an attribute: a call reads it on its way to the tool)."""
        self._state = next(_STATES)
        self._plain = plain
        self._seen = TOOL_CHANGES[0]

    @property
    def plain(self) -> bool:
        """True while every tool held is `_plain` (none to check before an export sends it as it is).

        Once False, False for good, so that it never covers tools read
        before it changed; a tool renamed or deferred after it was added
        (`TOOL_CHANGES`) has the set look at its tools again.
        """
        if self._plain and self._seen != TOOL_CHANGES[0]:
            self._seen = TOOL_CHANGES[0]
            self._plain = all(item._plain for item in self.tools.values())
        return self._plain

    def state(self) -> object:
        """Equal to an earlier state only if no tool was added or removed since."""
        return self._state

    def add(self, item: Tool[Any, Any], *, replace: bool) -> None:
        """Register `item` (a `Tool`), refusing a taken name unless `replace`.

        Raises:
            DuplicateToolError: Another tool has the name and `replace` is False.
        """
        existing = self.tools.get(item.name)
        if existing is item:
            return
        if existing is not None and not replace:
            raise duplicate(item, existing)
        self._plain = self._plain and item._plain  # before the tools: see `plain`
        self._hold({**self.tools, item.name: item})  # a replaced tool keeps its place

    def remove(self, name: str) -> Tool[Any, Any]:
        """Unregister and return the tool called `name` (the set checked it is there)."""
        tools = dict(self.tools)
        removed = tools.pop(name)
        self._hold(tools)
        return removed

    def assign(self, tools: Tools) -> None:
        """Hold exactly `tools`, in order; the same tools in the same order change nothing."""
        held = self.tools
        if list(held) != list(tools) or any(
            held[name] is not item for name, item in tools.items()
        ):
            self._plain = self._plain and all(item._plain for item in tools.values())
            self._hold(dict(tools))

    def _hold(self, tools: Tools) -> None:
        # The tools first, then the state: whoever sees the new state sees
        # the new tools too.
        self.tools = tools
        self._state = next(_STATES)


def _unique(tools: Iterable[object], marks: Marks) -> Registry:
    """The registry of the tools, checked and marked in order as `ToolSet.add` does each (`_usable`, `_marked`).

    One loop, with no call per tool that needs none: a set is made for
    each request in some agents, and each of its tools passes here. The
    same loop finds whether every tool is `_plain` (`Registry.plain`).

    Raises:
        NotAToolError: An item is not a `Tool`.
        ToolDefinitionError: A method tool read from its class.
        DuplicateToolError: Two different tools share a name.
    """
    marking = marks != _UNMARKED
    plain = True
    found: Tools = {}
    held = found.setdefault  # looked up once, not per tool
    for item in tools:
        if not isinstance(item, Tool) or not item._plain:
            item = _usable(item)  # raises what add raises
            plain = False
        if marking:
            item = _marked(item, marks)
            plain = plain and item._plain
        existing = held(item.name, item)
        if existing is not item:
            raise duplicate(item, existing)
    return Registry(found, plain=plain)


Marks = tuple[bool | None, str | None]
"""A set's marks for its tools: `defer_loading` (None: each tool's own) and namespace."""

_UNMARKED: Final[Marks] = (None, None)


def _marked(item: Tool[Any, Any], marks: Marks) -> Tool[Any, Any]:
    """`item` with a set's marks (`defer_loading`, `namespace`), a copy when they change it."""
    defer_loading, namespace = marks
    if defer_loading is None and namespace is None:
        return item
    return item.marked(defer_loading=defer_loading, namespace=namespace)


def _usable(item: object) -> Tool[Any, Any]:
    """`item`, or what registering it must refuse: not a `Tool`, or a method tool with no instance."""
    if not isinstance(item, Tool):
        raise _not_a_tool(item)
    error = unbound_method_error(item)
    if error is not None:
        raise error
    return item


def _not_a_tool(item: object) -> NotAToolError:
    """The error of registering `item`, which is not a `Tool`, with the fix."""
    from toolkit.hints._callables import unbound_method_problem

    problem = unbound_method_problem(item)
    if problem is not None:
        qualname = getattr(item, "__qualname__", "")
        msg = f"ToolSet.add needs a Tool; {qualname} cannot be one: {problem}"
        return NotAToolError(msg, function=qualname)
    if callable(item):
        shown = getattr(item, "__qualname__", None) or repr(item)
        msg = f"ToolSet.add needs a Tool; got {shown}. Make one with tool({getattr(item, '__name__', shown)}), or decorate the function with @tool"
        return NotAToolError(msg, function=shown)
    msg = f"ToolSet.add needs a Tool (decorate the function with @tool); got {item!r}"
    return NotAToolError(msg)


class ToolSet(Calls):
    """A per-agent registry of tools with unique names.

    Args:
        tools: The tools to register, in order; a repeated name raises
            `DuplicateToolError`.
        max_output_chars: Truncate result text longer than this (the full
            value stays in `ToolResult.structured`), or None.
        error_formatter: `formatter(tool, exception) -> str` gives the text
            the model sees when a tool raises (not for `ToolError`).
        max_threads: Run the set's sync tools (from async code, or with a
            timeout) on a pool of its own with at most this many threads;
            None shares toolkit's pool of `DEFAULT_MAX_THREADS` (64). A sync
            tool that timed out holds its thread until it returns.
        requires_approval: Ask a human's approval before calls of the set's
            tools besides the tools' own rule: True, or a function
            `(tool, arguments, context) -> bool` (e.g. every tool not marked
            `read_only`, for a mounted MCP server's tools). A call that needs
            it does not run; its result has `status == "needs_approval"`.
            Sets made from this one share its rule and its approvals.
        approval_key: Sign approval ids with this secret (HMAC-SHA256), so
            that a host that keeps no state can hand an id back to another
            process with the same key; None keeps approvals in memory.
        approval_ttl: Seconds a signed approval id stays valid (default an
            hour), checked by every process, the one that issued it too.
        trace_content: Record each call's arguments and result text on its
            OpenTelemetry span: True, or a redaction hook
            `(tool_name, value) -> value` that returns what to keep (default:
            False, neither is recorded).
        defer_loading: Mark every tool of the set, those added later too,
            `defer_loading` (`Tool.marked`): found by search, not sent up front.
        namespace: Put every tool of the set in this namespace (`Tool.marked`).

    With marks, the set holds marked copies of the tools given (`add`
    returns the copy); a tool's own `defer_loading=True` or namespace
    stays when the set has none.
    """

    # How providers tell a set (whose items add checks) without importing it.
    _only_tools: Final = True

    def __init__(
        self,
        tools: Iterable[Tool[Any, Any]] = (),
        *,
        max_output_chars: int | None = None,
        error_formatter: ErrorFormatter | None = None,
        max_threads: int | None = None,
        requires_approval: bool | SetApproval = False,
        approval_key: bytes | None = None,
        approval_ttl: float = 3600.0,
        trace_content: bool | Redact = False,
        defer_loading: bool = False,
        namespace: str | None = None,
    ) -> None:
        if max_output_chars is not None and (
            isinstance(max_output_chars, bool) or max_output_chars < 100
        ):
            msg = f"max_output_chars={max_output_chars!r} is too small to hold a truncation notice; use at least 100"
            raise ToolDefinitionError(msg)
        self._lock = threading.RLock()  # taken by every change
        self._exports: ExportCache = ExportCache()
        self._middleware: list[Middleware] = []
        self.max_output_chars = max_output_chars
        self.error_formatter = error_formatter
        self._pool = None if max_threads is None else bounded_pool(max_threads)
        self._policy = SetPolicy(
            requires_approval, approval_key, trace_content, approval_ttl
        )
        self._catalog: Catalog = Catalog()
        self._marks = (defer_loading or None, check_namespace(namespace, "a ToolSet"))
        if type(self).add is ToolSet.add:  # add's checks, in order, at once
            self._holder: Registry | Composed = _unique(tools, self._marks)
        else:  # a subclass's add sees every tool
            self._holder = Registry({}, plain=True)
            for item in tools:
                self.add(item)

    # ------------------------------------------------------------ registry

    def add(self, item: Tool[Any, Any], *, replace: bool = False) -> Tool[Any, Any]:
        """Register a tool; return it.

        On a composed set, this ends its following of its sources: it keeps
        the tools it has and the ones added by hand.

        Raises:
            DuplicateToolError: The name is taken and `replace` is False.
            NotAToolError: `item` is not a `Tool` (a `ToolDefinitionError`
                and a `TypeError`).
        """
        item = _marked(_usable(item), self._marks)
        with self._lock:
            self._own_registry().add(item, replace=replace)
        return item

    @overload
    def tool(self, func: Callable[P, R], /) -> Tool[P, R]: ...

    @overload
    def tool(
        self, /, *, replace: bool = False, **options: Unpack[DecoratorOptions]
    ) -> ToolDecorator: ...

    def tool(
        self,
        func: Callable[..., Any] | None = None,
        /,
        *,
        replace: bool = False,
        **options: Unpack[DecoratorOptions],
    ) -> Tool[Any, Any] | ToolDecorator:
        """Decorate a function with `@tool` and register it; bare, or with `tool`'s options.

        Args:
            func: The function (when used bare).
            replace: Replace a tool of the same name instead of raising.
            **options: The options of `toolkit.tool` (`DecoratorOptions`).

        Returns:
            The registered `Tool`, or a decorator that makes and registers one.
        """
        make = tool(**options)  # refuses a misspelt option now, not at decoration

        def decorate(target: Any) -> Tool[Any, Any]:
            made: Tool[Any, Any] = make(target)
            return self.add(made, replace=replace)

        return cast("ToolDecorator", decorate) if func is None else decorate(func)

    def remove(self, name: str) -> Tool[Any, Any]:
        """Unregister and return the tool called `name`.

        On a composed set, this ends its following of its sources, as `add` does.

        Raises:
            KeyError: No tool has that name.
        """
        with self._lock:
            if name not in self._holder.tools:
                raise KeyError(self._unknown(name))
            return self._own_registry().remove(name)

    def _assign(self, tools: dict[str, Tool[Any, Any]]) -> None:
        """Hold exactly `tools`, in order (an MCP server's tools as listed again).

        The sets composed from this one see them on their next read.
        """
        with self._lock:
            self._own_registry().assign(tools)

    def _own_registry(self) -> Registry:
        """This set's own tools (under the lock); a composed set stops following and keeps the tools it has."""
        holder = self._holder
        if not isinstance(holder, Registry):
            holder = self._holder = Registry(holder.tools)
        return holder

    @property
    def _tools(self) -> dict[str, Tool[Any, Any]]:
        """The tools by name as they are now, in order (a dict no change touches)."""
        return self._holder.tools

    def __contains__(self, name: object) -> bool:
        return name in self._holder.tools

    def __getitem__(self, name: str) -> Tool[Any, Any]:
        found = self._holder.tools.get(name)
        if found is None:
            raise KeyError(self._unknown(name))
        return found

    def get(
        self, name: str, default: Tool[Any, Any] | None = None
    ) -> Tool[Any, Any] | None:
        """The tool called `name`, or `default`."""
        return self._holder.tools.get(name, default)

    def __len__(self) -> int:
        return len(self._holder.tools)

    def __iter__(self) -> Iterator[Tool[Any, Any]]:
        return iter(self._holder.tools.values())

    @property
    def names(self) -> list[str]:
        """The tool names, in insertion order."""
        return list(self._holder.tools)

    def __repr__(self) -> str:
        return f"ToolSet({self.names!r})"

    # ------------------------------------------------------------ composition

    def _derive(self, holder: Composed) -> ToolSet:
        """A set whose tools `holder` makes, with this set's settings."""
        derived = ToolSet(
            max_output_chars=self.max_output_chars,
            error_formatter=self.error_formatter,
        )
        derived._holder = holder
        derived._middleware = list(self._middleware)
        derived._pool = self._pool  # one limit on threads for a set and its views
        derived._policy = (
            self._policy
        )  # and one rule and store of approvals, one trace setting
        return derived

    def __or__(self, other: ToolSet) -> ToolSet:
        """A new set with the tools of both; a shared name raises `DuplicateToolError`.

        The new set follows both: a tool either one gains or loses later is
        gained or lost in the new set too, except a tool whose name the new
        set already holds, which is left out with a warning.
        """
        if not isinstance(other, ToolSet):
            return NotImplemented
        return self._derive(Combined(self, other))

    def prefixed(self, prefix: str) -> ToolSet:
        """A new set whose tools are named `prefix + name`; it follows this one.

        Its tools are copies of this set's (`Tool.renamed`), made once per
        tool. A tool added later whose prefixed name is not valid is left
        out, with a warning.

        Raises:
            ToolDefinitionError: Some prefixed name is not valid (too long, bad characters).
        """
        holder = Prefixed(self, prefix)
        if not valid_name(prefix + "x"):  # refused for a set with no tools too
            raise bad_prefix(prefix, [])
        return self._derive(holder)

    def filtered(self, predicate: Callable[[Tool[Any, Any]], bool]) -> ToolSet:
        """A new set with the tools for which `predicate(tool)` is true; it follows this one."""
        return self._derive(Filtered(self, predicate))

    def select(self, *names: str) -> ToolSet:
        """A new set with the named tools, in the order given; it follows this one.

        A named tool that this set loses later leaves the new set too.

        Raises:
            KeyError: A name is not in this set.
        """
        for name in names:
            self[name]  # raises a KeyError that lists the available tools
        return self._derive(Selected(self, names))

    def without(self, *names: str) -> ToolSet:
        """A new set without the named tools; it follows this one.

        Raises:
            KeyError: A name is not in this set.
        """
        for name in names:
            self[name]  # raises a KeyError that lists the available tools
        dropped = set(names)
        return self._derive(Filtered(self, lambda item: item.name not in dropped))

    def deferred(self, *, namespace: str | None = None) -> ToolSet:
        """A new set whose tools are marked `defer_loading` (and in `namespace`, if given); it follows this one.

        Its tools are copies of this set's (`Tool.marked`), made once per tool.

        Raises:
            ToolDefinitionError: `namespace` is not a valid namespace name.
        """
        check_namespace(namespace, "deferred()")  # refused for a set with no tools too
        return self._derive(Marked(self, defer_loading=True, namespace=namespace))

    # ------------------------------------------------------------ search and loading

    def search(self, query: str, k: int = 5) -> list[Tool[Any, Any]]:
        """The `k` tools that best match `query` (name, description, parameters), best first.

        Ranks every tool of the set, deferred or not, with BM25F
        (`toolkit.sets._search`); the index is made on the first search after
        the set's tools change. A host can preload what it finds with `load`.
        """
        index = self._catalog.index(self)
        tools = self._tools
        found = (tools.get(name) for name, _ in index.search(query, k))
        return [item for item in found if item is not None]

    def load(self, *names: str) -> tuple[str, ...]:
        """Load deferred tools: the exports that do not load tools themselves send them from now on.

        What a `search_tools` call does with the tools it finds. Exports
        for Chat Completions, Gemini and MCP offer the eager tools, then
        `search_tools`, then the loaded tools in the order they were
        loaded, so that the start of the export stays the same.

        Returns:
            The names that were not loaded before.

        Raises:
            KeyError: A name is not in this set.
        """
        for name in names:
            self[name]  # raises a KeyError that lists the available tools
        return self._catalog.load(names)

    @property
    def loaded(self) -> tuple[str, ...]:
        """The names of the tools loaded so far (`load`, `search_tools`), in order."""
        return self._catalog.loaded

    def _as_is(self) -> bool:
        """Whether an export sends every tool as it is, as far as the set knows: each is `_plain` (read it after the tools)."""
        return self._holder.plain

    def _offered(self) -> list[Tool[Any, Any]]:
        """What a request offers of this set, for the exports that do not load tools themselves."""
        return self._catalog.offered(self)

    # ------------------------------------------------------------ views

    def to_ai_tools(self) -> list[AITool]:
        """The model-facing views of the tools, in insertion order."""
        return [item.to_ai_tool() for item in self]

    def export(
        self, format: str = "json", **options: Any
    ) -> Any:  # the public name: it shadows the builtin on purpose
        """The value of the request's `tools` field for one LLM API.

        Args:
            format: "json", "openai", "openai_responses", "anthropic",
                "gemini" or "mcp".
            **options: Passed to the provider (`strict=True`, ...).

        Returns:
            JSON-ready data, the same object until the set's tools change
            (here or in a set it was composed from): copy it before changing it.

        Raises:
            ValueError: The format is unknown.
            ToolDefinitionError: A tool cannot take that form (Python's
                recursion limit reached from a deep caller included).
        """
        return self._exports.export(self, format, options)

    def list_widgets(self) -> list[Widget]:
        """The widgets of the tools, each once, in tool order."""
        seen: dict[str, Widget] = {}
        for item in self:
            if item.widget is not None:
                seen.setdefault(item.widget.id, item.widget)
        return list(seen.values())

    # ------------------------------------------------------------ calls (`Calls`, `_turn.py`)

    @property
    def max_threads(self) -> int:
        """The most threads that run this set's sync tools at once."""
        return DEFAULT_MAX_THREADS if self._pool is None else self._pool.max_threads

    def use(self, middleware: Middleware) -> Middleware:
        """Wrap every execution: `async def m(call, context, call_next) -> ToolResult`.

        Middleware runs in the order added (the first is outermost) and calls
        `await call_next(call)` to go on to the next one, then the tool. An
        exception in it, or a return value that is not a `ToolResult` with
        text, becomes an error result. Returns `middleware`, so it works as a
        decorator.

        Raises:
            ToolDefinitionError: `middleware` cannot be called with the three
                arguments `(call, context, call_next)`.
        """
        check_middleware(middleware)
        with self._lock:
            self._middleware.append(middleware)
        return middleware

    @property
    def requires_approval(self) -> bool | SetApproval:
        """The set's own approval rule (see the class); assignable."""
        return self._policy.rule

    @requires_approval.setter
    def requires_approval(self, rule: bool | SetApproval) -> None:
        self._policy.rule = rule

    def approve(self, approval_id: str) -> bool:
        """Approve the call that waits with `approval_id`: the next call of that tool with the same arguments runs, once.

        Returns False when the set does not know the id (it was used, or
        never handed out; with an `approval_key`, a token is checked when a
        call uses it).
        """
        return self._decide(approval_id, True)

    def deny(self, approval_id: str, reason: str = "") -> bool:
        """Deny the call that waits with `approval_id`: its next try is an error result with `reason`, for the model.

        Returns False when the set does not know the id.
        """
        return self._decide(approval_id, reason or False)
