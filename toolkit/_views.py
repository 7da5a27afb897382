"""What every provider shows of a tool: the model's description, and views kept with the tool."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from ._tool import Tool

__all__ = [
    "build_when_made",
    "keep_when_made",
    "kept_view",
    "kept_views",
    "model_description",
    "named",
]

T = TypeVar("T")

_WHEN_MADE: dict[str, Callable[[Tool[Any, Any]], Any]] = {}
"""The views built as each tool is made, by kind (`keep_when_made`)."""


def model_description(item: Tool[Any, Any]) -> str:
    """The description, then the Returns text as a last paragraph.

    What an API without an output schema shows the model, so that the model
    knows what a call gives back: "Search the web.", a blank line, then
    "Returns: The top hits.".
    """
    returns = item.returns
    if not returns:
        return item.description
    paragraph = f"Returns: {returns}"
    return f"{item.description}\n\n{paragraph}" if item.description else paragraph


def named(item: Tool[Any, Any]) -> dict[str, Any]:
    """`{"name": ..., "description": ...}` of a tool, without a description when it has none."""
    description = model_description(item)
    if description:
        return {"name": item.name, "description": description}
    return {"name": item.name}


def kept_view(
    item: Tool[Any, Any], kind: str, build: Callable[[Tool[Any, Any]], T]
) -> T:
    """`build(item)`, kept on the tool under `kind` until its name, description, parameters or returns change.

    Tools are made once and exported on every request, so a provider keeps
    the view it built for a tool with the tool, not with each new set that
    holds it. Setting any of those four attributes of a tool forgets its
    views (`Tool.__setattr__`).
    """
    kept = item._views.get(kind)
    if kept is None:
        kept = item._views[kind] = build(item)
    return kept


def kept_views(
    items: list[Tool[Any, Any]], kind: str, build: Callable[[Tool[Any, Any]], T]
) -> list[T]:
    """`kept_view(item, kind, build)` of each tool, in order.

    An export of hundreds of tools is mostly these look-ups: one loop with
    one look-up per tool keeps the first export of a new set below the cost
    of building its dicts.
    """
    views: list[T] = []
    append = views.append
    for item in items:
        kept = item._views.get(kind)
        append(kept_view(item, kind, build) if kept is None else kept)
    return views


def keep_when_made(kind: str, build: Callable[[Tool[Any, Any]], Any]) -> None:
    """From now on, build each new tool's `kind` view as the tool is made.

    A provider whose export runs on every request registers its view when
    it is first loaded. Tools made afterwards carry the view from birth, so
    the first export of a set of new tools reads kept views instead of
    building them, while the tool's memory is cold. Building it costs about
    1 µs of a tool's making (which reads a signature and a docstring); a
    provider never loaded costs nothing.
    """
    _WHEN_MADE[kind] = build


def build_when_made(item: Tool[Any, Any]) -> None:
    """Build the views registered with `keep_when_made` for a tool just made.

    A view that cannot be built now is left to be built when it is asked
    for, where its error belongs to the export, not to the tool's making.
    """
    views = item._views
    for kind, build in _WHEN_MADE.items():
        with contextlib.suppress(Exception):  # raised again by the export that asks
            views[kind] = build(item)
