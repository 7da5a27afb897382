"""`ToolSet`: the per-agent registry of tools with unique names.

A set keeps insertion order everywhere, refuses a second tool under a taken
name unless told `replace=True`, and is safe to use from several threads
(mutations take a lock; reads work on snapshots). Composition (`|`,
`prefixed`, `filtered`, `select`, `without`) returns new sets that check
names again and follow their sources: when a source gains or loses a tool
(an MCP server's list changed, say), every set composed from it is made
again. Exports are cached per (format, options) until the set changes.
Its calls (`run`, `execute`, `aexecute`) are `_turn.py`'s, its middleware
`_middleware.py`'s.
"""

from __future__ import annotations

import operator
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Final, ParamSpec, TypeVar, overload

from . import _turn
from ._exceptions import DuplicateToolError, NotAToolError, ToolDefinitionError
from ._frozen import FrozenDict, FrozenList
from ._json import type_name
from ._log import log_warning
from ._middleware import Middleware, check_middleware
from ._options import DecoratorOptions
from ._results import ToolCall, ToolResult, Widget
from ._running import DEFAULT_MAX_THREADS, bounded_pool
from ._tool import AITool, ErrorFormatter, Tool, ToolDecorator, tool, valid_name
from ._views import model_description

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["Middleware", "ToolSet"]

P = ParamSpec("P")
R = TypeVar("R")


class ToolSet:
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
    ) -> None:
        if max_output_chars is not None and (
            isinstance(max_output_chars, bool) or max_output_chars < 100
        ):
            msg = f"max_output_chars={max_output_chars!r} is too small to hold a truncation notice; use at least 100"
            raise ToolDefinitionError(msg)
        self._tools: dict[str, Tool[Any, Any]] = {}
        self._lock = threading.RLock()
        self._exports: dict[Any, Any] = {}
        # Composition: how this set is made from its sources (None: it is
        # not composed, or was changed by hand), and the sets made from it.
        self._recipe: Callable[[], list[Tool[Any, Any]]] | None = None
        self._views: weakref.WeakSet[ToolSet] = weakref.WeakSet()
        self._middleware: list[Middleware] = []
        self.max_output_chars = max_output_chars
        self.error_formatter = error_formatter
        self._pool = None if max_threads is None else bounded_pool(max_threads)
        if type(self).add is ToolSet.add:
            self._register(tools)
        else:  # a subclass's add sees every tool
            for item in tools:
                self.add(item)

    def _register(self, tools: Iterable[Tool[Any, Any]]) -> None:
        """What `add` does for each tool in turn, for a set still being made.

        A new set has no export to forget, no recipe and no set composed from
        it yet, so only the checks remain: a Tool, and a name not taken by
        another tool. Tools whose names all differ pass both at once; a
        repeated name goes tool by tool, for add's verdict on it.
        """
        items = list(tools)
        if all(issubclass(kind, Tool) for kind in set(map(type, items))):
            by_name = dict(zip(map(_NAME, items), items, strict=True))
            if len(by_name) == len(items):  # every name once: nothing to refuse
                self._tools = by_name
                return
        self._tools = _unique(items)

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
        if not isinstance(item, Tool):
            raise _not_a_tool(item)
        with self._lock:
            existing = self._tools.get(item.name)
            if existing is not None and existing is not item and not replace:
                raise _duplicate(item, existing)
            self._tools[item.name] = item
            self._exports.clear()
            self._recipe = None
        if self._views:
            self._changed()
        return item

    @overload
    def tool(self, func: Callable[P, R], /) -> Tool[P, R]: ...

    @overload
    def tool(
        self, /, *, replace: bool = False, **options: Unpack[DecoratorOptions]
    ) -> ToolDecorator: ...

    def tool(
        self,
        func: Any = None,
        /,
        *,
        replace: bool = False,
        **options: Unpack[DecoratorOptions],
    ) -> Any:
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

        return decorate if func is None else decorate(func)

    def remove(self, name: str) -> Tool[Any, Any]:
        """Unregister and return the tool called `name`.

        On a composed set, this ends its following of its sources, as `add` does.

        Raises:
            KeyError: No tool has that name.
        """
        with self._lock:
            if name not in self._tools:
                raise KeyError(self._unknown(name))
            self._exports.clear()
            self._recipe = None
            removed = self._tools.pop(name)
        if self._views:
            self._changed()
        return removed

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __getitem__(self, name: str) -> Tool[Any, Any]:
        found = self._tools.get(name)
        if found is None:
            raise KeyError(self._unknown(name))
        return found

    def get(
        self, name: str, default: Tool[Any, Any] | None = None
    ) -> Tool[Any, Any] | None:
        """The tool called `name`, or `default`."""
        return self._tools.get(name, default)

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[Tool[Any, Any]]:
        with self._lock:
            return iter(list(self._tools.values()))

    @property
    def names(self) -> list[str]:
        """The tool names, in insertion order."""
        with self._lock:
            return list(self._tools)

    def __repr__(self) -> str:
        return f"ToolSet({self.names!r})"

    # ------------------------------------------------------------ composition

    def _derive(
        self, recipe: Callable[[], list[Tool[Any, Any]]], *sources: ToolSet
    ) -> ToolSet:
        """A set made by `recipe` from `self` (and `sources`), made again when they change."""
        derived = ToolSet(
            recipe(),
            max_output_chars=self.max_output_chars,
            error_formatter=self.error_formatter,
        )
        derived._middleware = list(self._middleware)
        derived._pool = self._pool  # one limit on threads for a set and its views
        derived._recipe = recipe
        for source in (self, *sources):
            source._views.add(derived)
        return derived

    def _changed(self) -> None:
        """Make every set composed from this one again."""
        for view in list(self._views):
            view._follow()

    def _follow(self) -> None:
        """Make this composed set again from its sources' tools as they are now.

        A change that composition refuses (a name now in two sources, a
        prefixed name now too long) leaves the set as it was, with a warning:
        it happens in whatever changed a source, which cannot be told.
        """
        # Made under this set's lock, so that two sources changing at once
        # cannot leave it as the older of the two made it; the sets composed
        # from it are told after the lock is let go (they read this one).
        with self._lock:
            recipe = self._recipe
            if recipe is None:
                return
            try:
                fresh = _unique(recipe())
            except ToolDefinitionError as error:
                log_warning(
                    "A composed tool set keeps its tools, since its sources changed in a way it cannot follow: %s",
                    error,
                )
                return
            changed = self._hold(fresh)
        if changed:
            self._changed()

    def _assign(self, tools: dict[str, Tool[Any, Any]]) -> None:
        """Hold exactly `tools`, in order, and tell the sets composed from this one."""
        with self._lock:
            changed = self._hold(tools)
        if changed:
            self._changed()

    def _hold(self, tools: dict[str, Tool[Any, Any]]) -> bool:
        """Hold exactly `tools` (under the lock); whether that changed anything."""
        if _same(self._tools, tools):
            return False
        self._tools = tools
        self._exports.clear()
        return True

    def __or__(self, other: ToolSet) -> ToolSet:
        """A new set with the tools of both; a shared name raises `DuplicateToolError`.

        The new set follows both: a tool either one gains or loses later is
        gained or lost in the new set too.
        """
        if not isinstance(other, ToolSet):
            return NotImplemented
        return self._derive(lambda: [*self, *other], other)

    def prefixed(self, prefix: str) -> ToolSet:
        """A new set whose tools are named `prefix + name`; it follows this one.

        Raises:
            ToolDefinitionError: Some prefixed name is not valid (too long, bad characters).
        """
        bad = [item.name for item in self if not valid_name(prefix + item.name)]
        if bad or not valid_name(prefix + "x"):
            raise _bad_prefix(prefix, bad)
        # id(source tool) -> (source tool, renamed copy): an unchanged tool
        # keeps its copy, and with it the copy's export caches.
        renamed: dict[int, tuple[Tool[Any, Any], Tool[Any, Any]]] = {}

        def recipe() -> list[Tool[Any, Any]]:
            tools = list(self)
            bad = [item.name for item in tools if not valid_name(prefix + item.name)]
            if bad:
                raise _bad_prefix(prefix, bad)
            made = {id(item): (item, _renamed(item, prefix, renamed)) for item in tools}
            renamed.clear()
            renamed.update(made)
            return [copy for _, copy in made.values()]

        return self._derive(recipe)

    def filtered(self, predicate: Callable[[Tool[Any, Any]], bool]) -> ToolSet:
        """A new set with the tools for which `predicate(tool)` is true; it follows this one."""
        return self._derive(lambda: [item for item in self if predicate(item)])

    def select(self, *names: str) -> ToolSet:
        """A new set with the named tools, in the order given; it follows this one.

        A named tool that this set loses later leaves the new set too.

        Raises:
            KeyError: A name is not in this set.
        """
        for name in names:
            self[name]  # raises a KeyError that lists the available tools
        return self._derive(
            lambda: [found for name in names if (found := self.get(name)) is not None]
        )

    def without(self, *names: str) -> ToolSet:
        """A new set without the named tools; it follows this one.

        Raises:
            KeyError: A name is not in this set.
        """
        for name in names:
            self[name]  # raises a KeyError that lists the available tools
        dropped = set(names)
        return self._derive(lambda: [item for item in self if item.name not in dropped])

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
            JSON-ready data, the same object until the set changes: copy it
            before changing it.

        Raises:
            ValueError: The format is unknown.
            ToolDefinitionError: A tool cannot take that form (Python's
                recursion limit reached from a deep caller included).
        """
        key: Any = format
        if options or type(format) is not str:
            try:
                key = (format, tuple(sorted(options.items())))
                hash(key)
            except TypeError:
                key = None
        else:  # the export of every request: one look-up (a change clears it under the lock)
            kept = self._exports.get(key)
            if kept is not None:
                return kept
        with self._lock:
            if key is not None and key in self._exports:
                return self._exports[key]
            exporter = _exporter(format)
            try:
                value = exporter(self, **options)
            except RecursionError:
                msg = f"The schemas of {self.names!r} nest too deeply for Python's recursion limit to export them as {format!r} from here. Use flatter types"
                raise ToolDefinitionError(msg) from None
            if key is not None:
                self._exports[key] = value
            return value

    def list_widgets(self) -> list[Widget]:
        """The widgets of the tools, each once, in tool order."""
        seen: dict[str, Widget] = {}
        for item in self:
            if item.widget is not None:
                seen.setdefault(item.widget.id, item.widget)
        return list(seen.values())

    # ------------------------------------------------------------ calls (`_turn.py`)

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

    def execute(
        self,
        agent_id: str,
        call_id: str,
        name: str,
        args: Any,
        *,
        deps: Any = None,
        host: object = None,
    ) -> ToolResult:
        """Run one call by tool name, from sync code; never raises for the model's or the tool's faults.

        `host` is what the tool's `Context` reaches for progress, log records,
        sampling and questions: any object with some of the `Host` methods.
        """
        return _turn.execute(self, agent_id, call_id, name, args, deps=deps, host=host)

    async def aexecute(
        self,
        agent_id: str,
        call_id: str,
        name: str,
        args: Any,
        *,
        deps: Any = None,
        host: object = None,
    ) -> ToolResult:
        """Run one call by tool name, from async code (`host` as for `execute`)."""
        return await _turn.aexecute(
            self, agent_id, call_id, name, args, deps=deps, host=host
        )

    async def run(
        self,
        agent_id: str,
        calls: Iterable[ToolCall],
        *,
        deps: Any = None,
        host: object = None,
    ) -> list[ToolResult]:
        """Run one turn of calls concurrently; one result per call, in call order.

        A tool marked `sequential=True` runs alone: the calls before it finish
        first, and the calls after it start after it. One call's failure,
        timeout or crash never affects another. `host` is what the tools'
        `Context` reaches (see `execute`); each call's `Context` has its own
        `call_id`, so the host tells the calls apart.
        """
        return await _turn.run(self, agent_id, calls, deps=deps, host=host)

    def _unknown(self, name: object) -> str:
        names = self.names
        available = ", ".join(names) if names else "none"
        shown = name if type(name) is str else type_name(name)
        message = f'Unknown tool "{shown}". Available tools: {available}.'
        import difflib

        close = difflib.get_close_matches(shown, names, n=1, cutoff=0.6)
        return f'{message} Did you mean "{close[0]}"?' if close else message


def _renamed(
    item: Tool[Any, Any],
    prefix: str,
    made: dict[int, tuple[Tool[Any, Any], Tool[Any, Any]]],
) -> Tool[Any, Any]:
    kept = made.get(id(item))
    if kept is not None and kept[0] is item:
        return kept[1]
    return item.renamed(prefix + item.name)


def _bad_prefix(prefix: str, bad: list[str]) -> ToolDefinitionError:
    listed = ", ".join(prefix + name for name in bad) or prefix
    msg = f"Prefix {prefix!r} makes invalid tool names: {listed}. Names start with a letter or underscore, use letters, digits, '_' or '-', and have at most 64 characters; use a shorter prefix"
    return ToolDefinitionError(msg)


def _unique(tools: Iterable[Tool[Any, Any]]) -> dict[str, Tool[Any, Any]]:
    """The tools by name, in order, checked in order as `add` checks each.

    Raises:
        NotAToolError: An item is not a `Tool`.
        DuplicateToolError: Two different tools share a name.
    """
    found: dict[str, Tool[Any, Any]] = {}
    for item in tools:
        if not isinstance(item, Tool):
            raise _not_a_tool(item)
        existing = found.get(item.name)
        if existing is not None and existing is not item:
            raise _duplicate(item, existing)
        found[item.name] = item
    return found


def _same(held: dict[str, Tool[Any, Any]], tools: dict[str, Tool[Any, Any]]) -> bool:
    """Whether both hold the same tool objects in the same order."""
    return list(held) == list(tools) and all(
        held[name] is tools[name] for name in tools
    )


_NAME = operator.attrgetter("name")


def _not_a_tool(item: object) -> NotAToolError:
    from ._callables import unbound_method_problem

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


def _duplicate(item: Tool[Any, Any], existing: Tool[Any, Any]) -> DuplicateToolError:
    def origin(candidate: Tool[Any, Any]) -> str:
        return getattr(candidate, "__qualname__", None) or "Tool.new(...)"

    msg = (
        f"A tool named {item.name!r} is already registered ({origin(existing)}); cannot add {origin(item)} "
        "under the same name. Rename one of them (name=...), use add(..., replace=True) to replace it, "
        "or combine sets with tools.prefixed(...)"
    )
    return DuplicateToolError(msg, name=item.name)


def _exporter(format: str) -> Callable[..., Any]:
    if format == "json":
        return _export_json
    from . import (
        providers,  # the table of providers; each is imported when first asked for
    )

    return providers.get(format).tools  # type: ignore[no-any-return]


def _export_json(toolset: ToolSet) -> list[dict[str, Any]]:
    return FrozenList(
        [
            FrozenDict(
                name=item.name,
                description=model_description(item),
                parameters=item.parameters,
            )
            for item in toolset
        ]
    )
