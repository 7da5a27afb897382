"""Composition: sets made from other sets (`|`, `prefixed`, `filtered`, ...).

A composed set holds a `Composed` instead of a `Registry` of its own. It
makes its tools from the tools of the sets it is made from, its sources,
and keeps them with the sources' states. On each read it asks the sources
for their states again, and makes its tools again only if one differs. So
a composed set sees every later change of its sources (a tool added or
removed, an MCP server's list read again) without being told, and a source
holds no reference to the sets composed from it: nothing to notify, no weak
reference, no lock.

What composition refuses when a set is composed (a name in both sides of a
`|`, a prefixed name too long) raises then. When a later change of a source
brings it, the composed set leaves out the tool concerned, keeps the tool
it held under that name, follows the rest of the change, and logs a
warning: a read never fails because a source changed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from toolkit.core._exceptions import DuplicateToolError, ToolDefinitionError
from toolkit.core._log import log_warning
from toolkit.tools._names import valid_name
from toolkit.tools._options import valid_namespace
from toolkit.tools._tool import Tool

if TYPE_CHECKING:
    from ._view import SetView

__all__ = [
    "Combined",
    "Composed",
    "Filtered",
    "Marked",
    "Prefixed",
    "Selected",
    "Tools",
    "bad_prefix",
    "duplicate",
]

Tools = dict[str, Tool[Any, Any]]
"""Tools by name, in order; a dict once handed out is never changed."""


class Composed:
    """Tools made from other sets' tools, made again when one of them has changed.

    Subclasses say how (`_make`). The first making raises what composition
    refuses; a later one leaves out each tool it refuses, with a warning,
    and follows the rest of the change.
    """

    def __init__(self) -> None:
        state = self.state()
        made, refused = self._listing({})
        if refused:
            raise refused[0]
        self._made = (state, made)

    plain = False
    """Not counted: an export checks each tool (`Registry.plain`)."""

    def state(self) -> object:
        """What the sources' states are: equal while none of them has changed."""
        raise NotImplementedError

    @property
    def tools(self) -> Tools:
        """The tools by name, in order, made again if a source has changed."""
        state = self.state()  # read before the sources' tools, which may be newer
        made_from, made = self._made
        if state == made_from:
            return made
        fresh, refused = self._listing(made)
        for error in refused:
            log_warning(
                "A composed tool set keeps its tools and leaves out what its sources' change would break: %s",
                error,
            )
        self._made = (state, fresh)
        return fresh

    def _listing(self, before: Tools) -> tuple[Tools, list[ToolDefinitionError]]:
        """The tools made now, and what was refused.

        Of two tools with one name, the one held `before` stays, or else the
        first: a name never moves to another tool because a source changed.
        """
        refused: list[ToolDefinitionError] = []
        held: Tools = {}
        for item in self._make(refused):
            existing = held.setdefault(item.name, item)
            if existing is item:
                continue
            if before.get(item.name) is item:  # the set held this one: it stays
                held[item.name] = item
                item, existing = existing, item
            refused.append(duplicate(item, existing))
        return held, refused

    def _make(self, refused: list[ToolDefinitionError]) -> list[Tool[Any, Any]]:
        """The tools, in order; what cannot be made is added to `refused`."""
        raise NotImplementedError


class Combined(Composed):
    """The tools of `left`, then those of `right` (`left | right`); a name in both is refused."""

    def __init__(self, left: SetView, right: SetView) -> None:
        self._left, self._right = left, right
        super().__init__()

    def state(self) -> object:
        return (self._left._holder.state(), self._right._holder.state())

    def _make(self, refused: list[ToolDefinitionError]) -> list[Tool[Any, Any]]:
        return [*self._left._tools.values(), *self._right._tools.values()]


class _OneSource(Composed):
    """Tools made from the tools of one set, `source`; their state is its state."""

    def __init__(self, source: SetView) -> None:
        self._source = source
        super().__init__()

    def state(self) -> object:
        return self._source._holder.state()


class _Copies(_OneSource):
    """The source's tools, each a copy (`_copy`), made once per tool.

    An unchanged tool keeps its copy, and with it the copy's kept exports.
    """

    def __init__(self, source: SetView) -> None:
        # id(source tool) -> (that tool, its copy)
        self._copies: dict[int, tuple[Tool[Any, Any], Tool[Any, Any]]] = {}
        super().__init__(source)

    def _make(self, refused: list[ToolDefinitionError]) -> list[Tool[Any, Any]]:
        tools = [
            item for item in self._source._tools.values() if self._keeps(item, refused)
        ]
        kept, copies = self._copies, {}
        for item in tools:
            copy = kept.get(id(item))
            if copy is None or copy[0] is not item:
                copy = (item, self._copy(item))
            copies[id(item)] = copy
        self._copies = copies
        return [made for _, made in copies.values()]

    def _keeps(self, item: Tool[Any, Any], refused: list[ToolDefinitionError]) -> bool:
        """Whether `item` can be copied (else what it breaks is added to `refused`)."""
        return True

    def _copy(self, item: Tool[Any, Any]) -> Tool[Any, Any]:
        raise NotImplementedError


class Prefixed(_Copies):
    """The source's tools, each a copy named `prefix + name`; a name made invalid is refused.

    A copy with no namespace of its own is in the prefix's namespace: the
    prefix less the separators at its ends (`gh_` gives `gh`).
    """

    def __init__(self, source: SetView, prefix: str) -> None:
        self._prefix = prefix
        namespace = prefix.strip("_-./:")
        self._namespace = namespace if valid_namespace(namespace) else None
        super().__init__(source)

    def _make(self, refused: list[ToolDefinitionError]) -> list[Tool[Any, Any]]:
        prefix = self._prefix
        bad = [
            item.name
            for item in self._source._tools.values()
            if not valid_name(prefix + item.name)
        ]
        if bad:
            refused.append(bad_prefix(prefix, bad))
        return super()._make(refused)

    def _keeps(self, item: Tool[Any, Any], refused: list[ToolDefinitionError]) -> bool:
        return valid_name(self._prefix + item.name)

    def _copy(self, item: Tool[Any, Any]) -> Tool[Any, Any]:
        renamed = item.renamed(self._prefix + item.name)
        if item.namespace is None and self._namespace is not None:
            return renamed.marked(namespace=self._namespace)
        return renamed


class Marked(_Copies):
    """The source's tools, each marked deferred and/or in a namespace (`Tool.marked`)."""

    def __init__(
        self, source: SetView, *, defer_loading: bool | None, namespace: str | None
    ) -> None:
        self._marks = (defer_loading, namespace)
        super().__init__(source)

    def _copy(self, item: Tool[Any, Any]) -> Tool[Any, Any]:
        defer_loading, namespace = self._marks
        return item.marked(defer_loading=defer_loading, namespace=namespace)


class Filtered(_OneSource):
    """The source's tools for which `predicate(tool)` is true."""

    def __init__(
        self, source: SetView, predicate: Callable[[Tool[Any, Any]], bool]
    ) -> None:
        self._predicate = predicate
        super().__init__(source)

    def _make(self, refused: list[ToolDefinitionError]) -> list[Tool[Any, Any]]:
        predicate = self._predicate
        return [item for item in self._source._tools.values() if predicate(item)]


class Selected(_OneSource):
    """The source's tools of the given names, in that order; a name it lost is left out."""

    def __init__(self, source: SetView, names: tuple[str, ...]) -> None:
        self._names = names
        super().__init__(source)

    def _make(self, refused: list[ToolDefinitionError]) -> list[Tool[Any, Any]]:
        tools = self._source._tools
        return [tools[name] for name in self._names if name in tools]


def bad_prefix(prefix: str, bad: list[str]) -> ToolDefinitionError:
    """The error of a prefix that makes the names `bad` (or itself, when empty) invalid."""
    listed = ", ".join(prefix + name for name in bad) or prefix
    msg = f"Prefix {prefix!r} makes invalid tool names: {listed}. A name has 1 to 128 printable characters and no whitespace; use a shorter prefix"
    return ToolDefinitionError(msg)


def duplicate(item: Tool[Any, Any], existing: Tool[Any, Any]) -> DuplicateToolError:
    """The error of `item` taking the name of `existing`, another tool, with the fixes.

    Raised by a set's `add` and by composition alike.
    """

    def origin(candidate: Tool[Any, Any]) -> str:
        return getattr(candidate, "__qualname__", None) or "Tool.new(...)"

    msg = (
        f"A tool named {item.name!r} is already registered ({origin(existing)}); cannot add {origin(item)} "
        "under the same name. Rename one of them (name=...), use add(..., replace=True) to replace it, "
        "or combine sets with tools.prefixed(...)"
    )
    return DuplicateToolError(msg, name=item.name)
