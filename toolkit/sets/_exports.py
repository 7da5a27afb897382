"""A set's exports: the value of a request's `tools` field for each API, kept.

A set is exported on every request to a model, and changes rarely, so
`ToolSet.export(format, **options)` asks the set's `ExportCache`. It keeps
each export it made by (format, options), together with the state of the
set it was made from (equal while the set holds the same tools, also
through the sets it was composed from: `Registry.state`, `Composed.state`),
and makes them all again once the state differs. Options that cannot be a
dict key are exported each time. The export itself comes from the provider
named by the format (`toolkit.providers.get(format).tools`), or from here
for "json".
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, Any, Final

from toolkit.core._exceptions import ToolDefinitionError
from toolkit.core._frozen import FrozenDict, FrozenList
from toolkit.tools._names import called_names
from toolkit.tools._tool import TOOL_CHANGES
from toolkit.tools._views import model_description

if TYPE_CHECKING:
    from ._view import SetView

__all__ = ["ExportCache"]

_CALLED_NAMES: Final = object()
"""The key of the names calls may use besides the tools' own (`called_names`)."""

_NOT_MADE: Final = object()
"""The state of a cache that has made no export yet: equal to no set's state."""


class ExportCache:
    """The exports of one set, by (format, options), for one state of the set."""

    __slots__ = ("_kept", "_lock")

    def __init__(self) -> None:
        self._kept: tuple[object, dict[Hashable, Any]] = (_NOT_MADE, {})
        self._lock = threading.Lock()  # one export made at a time, then kept

    def export(self, toolset: SetView, format: str, options: dict[str, Any]) -> Any:
        """`toolset`'s export for `format` with `options`: the kept one, or a new one.

        Raises:
            ValueError: The format is unknown.
            ToolDefinitionError: A tool cannot take that form.
        """
        key = format if not options and type(format) is str else _key(format, options)
        return self.kept(toolset, key, lambda: _made(toolset, format, options))

    def called_names(self, toolset: SetView) -> dict[str, Any]:
        """The names exports send instead of the tools' own, each with its tool (`_names.called_names`)."""
        return self.kept(toolset, _CALLED_NAMES, lambda: called_names(toolset))  # type: ignore[no-any-return]

    def kept(
        self, toolset: SetView, key: Hashable | None, make: Callable[[], Any]
    ) -> Any:
        """The value kept under `key` for the set's state, or `make()`, kept unless `key` is None."""
        # Read before the tools, which may be newer; loading tools changes
        # what the exports without native deferral offer, and a held tool
        # renamed or redescribed changes what every export sends.
        state = (toolset._holder.state(), toolset._catalog.loaded, TOOL_CHANGES[0])
        kept_state, kept = self._kept
        if key is not None and kept_state == state:
            found = kept.get(key)
            if found is not None:
                return found
        with self._lock:
            kept_state, kept = self._kept
            if kept_state != state:
                kept = {}
                self._kept = (state, kept)
            elif key in kept:
                return kept[key]
            value = make()
            if key is not None:
                kept[key] = value
            return value


def _key(format: str, options: dict[str, Any]) -> Hashable | None:
    """The key of an export with options, or None when one cannot be part of a key."""
    key = (format, tuple(sorted(options.items())))
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _made(toolset: SetView, format: str, options: dict[str, Any]) -> Any:
    exporter = _exporter(format)
    try:
        return exporter(toolset, **options)
    except RecursionError:
        msg = f"The schemas of {toolset.names!r} nest too deeply for Python's recursion limit to export them as {format!r} from here. Use flatter types"
        raise ToolDefinitionError(msg) from None


def _exporter(format: str) -> Callable[..., Any]:
    if format == "json":
        return _export_json
    from toolkit import providers

    return providers.get(format).tools  # type: ignore[no-any-return]


def _export_json(toolset: SetView) -> list[dict[str, Any]]:
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
