"""What every provider shows of a tool: the model's description, and views kept with the tool."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol, TypeVar

from toolkit.core._aliases import JsonSchema
from toolkit.core._record import Record

__all__ = ["AITool", "Viewed", "kept_views", "model_description", "named"]

T = TypeVar("T")


class AITool(Record):
    """The model-facing view of a tool: what is sent to the LLM API.

    Attributes:
        name: The name the model calls the tool by.
        description: What the tool does, for the model.
        parameters: The JSON Schema of the arguments.
    """

    __match_args__ = ("name", "description", "parameters")
    __slots__ = ("description", "name", "parameters")
    name: str
    description: str
    parameters: JsonSchema

    def __init__(self, name: str, description: str, parameters: JsonSchema) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "description", description)
        object.__setattr__(self, "parameters", parameters)

    def to_dict(self) -> dict[str, Any]:
        """`{"name", "description", "parameters"}`, JSON-ready."""
        return {
            "name": self.name,
            "description": self.description,
            "parameters": self.parameters,
        }


class Viewed(Protocol):
    """What a provider's view reads of a tool, and where it keeps its views (a `Tool` has it all)."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def returns(self) -> str | None: ...

    @property
    def _views(self) -> dict[str, Any]: ...


V = TypeVar("V", bound=Viewed)


def model_description(item: Viewed) -> str:
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


def named(item: Viewed, name: str) -> dict[str, Any]:
    """`{"name": name, "description": ...}` of a tool (`name`: what its API is sent), without a description when it has none."""
    description = model_description(item)
    if description:
        return {"name": name, "description": description}
    return {"name": name}


def kept_views(items: Iterable[V], kind: str, build: Callable[[V], T]) -> list[T]:
    """`build(item)` for each of `items`, kept on the tool under `kind` until its name, description, parameters or returns change.

    Tools are made once and exported on every request, so a provider keeps
    the view it built for a tool with the tool, not with each new set that
    holds it. Setting any of those four attributes of a tool forgets its
    views (`Tool.__setattr__`). One pass for all the tools of an export,
    with a call only for a view not kept yet (a view is never empty).
    """
    return [item._views.get(kind) or _kept(item, kind, build) for item in items]


def _kept(item: V, kind: str, build: Callable[[V], T]) -> T:
    view = item._views[kind] = build(item)
    return view
