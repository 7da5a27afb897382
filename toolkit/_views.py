"""A tool's default wire view, built once when the tool is made.

Tools are made once and exported on every request, so the envelope that
`export("openai")` sends for a tool (`{"type": "function", "function":
{...}}`) is built with the tool, not with each new set that holds it. It is
kept on the tool with the name, description and parameters it was built
from, and rebuilt if any of them is replaced. Provider modules read it
through `openai_view`; nothing here knows any other API.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._frozen import FrozenDict

if TYPE_CHECKING:
    from ._tool import Tool

__all__ = ["keep_openai_view", "openai_view"]

_META_KEYS = ("$schema", "$id", "$comment")


def openai_view(item: Tool[Any, Any]) -> FrozenDict:
    """The non-strict OpenAI Chat envelope of `item`, built now if not kept."""
    kept = item._views.get("openai")
    if (
        kept is not None
        and kept[0] is item.name
        and kept[1] is item.description
        and kept[2] is item.parameters
    ):
        return kept[3]
    return keep_openai_view(item)


def keep_openai_view(item: Tool[Any, Any]) -> FrozenDict:
    """Build `item`'s OpenAI envelope and keep it on the tool."""
    parameters = item.parameters
    if "$schema" in parameters or "$id" in parameters or "$comment" in parameters:
        parameters = FrozenDict(
            {key: value for key, value in parameters.items() if key not in _META_KEYS}
        )
    if item.description:
        function = FrozenDict(
            name=item.name,
            description=item.description,
            parameters=parameters,
            strict=False,
        )
    else:
        function = FrozenDict(name=item.name, parameters=parameters, strict=False)
    envelope = FrozenDict(type="function", function=function)
    item._views["openai"] = (item.name, item.description, item.parameters, envelope)
    return envelope
