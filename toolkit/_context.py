"""`Context`: what a tool function receives when it asks for it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Generic

from ._record import Record

__all__ = ["Context"]

if (
    TYPE_CHECKING
):  # a default, so that a bare `Context` means `Context[Any]` to type checkers
    from typing_extensions import TypeVar

    DepsT = TypeVar("DepsT", default=Any)
else:  # the same at run time, without importing typing_extensions
    from typing import TypeVar

    DepsT = TypeVar("DepsT")


class Context(Record, Generic[DepsT]):
    """The call's context, injected into a parameter annotated `Context`.

    The parameter never appears in the schema the model sees. Annotate it
    `Context[MyDeps]` to type `deps`.

    Attributes:
        agent_id: The agent that runs the call.
        call_id: The model's id for this call, used to match the result.
        tool_name: The name of the tool being called.
        deps: Whatever the caller passed as `deps=` to `execute`/`run`.
    """

    __match_args__ = ("agent_id", "call_id", "tool_name", "deps")
    __slots__ = ("agent_id", "call_id", "deps", "tool_name")
    agent_id: str
    call_id: str
    tool_name: str
    deps: DepsT

    def __init__(
        self,
        agent_id: str,
        call_id: str,
        tool_name: str,
        deps: DepsT = None,  # type: ignore[assignment]  # None until the caller passes deps
    ) -> None:
        object.__setattr__(self, "agent_id", agent_id)
        object.__setattr__(self, "call_id", call_id)
        object.__setattr__(self, "tool_name", tool_name)
        object.__setattr__(self, "deps", deps)
