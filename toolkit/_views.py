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

__all__ = ["keep_openai_view", "model_description", "openai_view"]

_META_KEYS = ("$schema", "$id", "$comment")


def openai_view(item: Tool[Any, Any]) -> FrozenDict:
    """The non-strict OpenAI Chat envelope of `item`, built now if not kept."""
    kept = item._views.get("openai")
    if (
        kept is not None
        and kept[0] is item.name
        and kept[1] is item.description
        and kept[2] is item.parameters
        and kept[3] is item.returns
    ):
        return kept[4]
    return keep_openai_view(item)


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


def keep_openai_view(item: Tool[Any, Any]) -> FrozenDict:
    """Build `item`'s OpenAI envelope and keep it on the tool."""
    parameters = item.parameters
    if "$schema" in parameters or "$id" in parameters or "$comment" in parameters:
        parameters = FrozenDict(
            {key: value for key, value in parameters.items() if key not in _META_KEYS}
        )
    description = model_description(item)
    if description:
        function = FrozenDict(
            name=item.name,
            description=description,
            parameters=parameters,
            strict=False,
        )
    else:
        function = FrozenDict(name=item.name, parameters=parameters, strict=False)
    envelope = FrozenDict(type="function", function=function)
    item._views["openai"] = (
        item.name,
        item.description,
        item.parameters,
        item.returns,
        envelope,
    )
    return envelope
