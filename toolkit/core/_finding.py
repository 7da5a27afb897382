"""`Finding`: one problem that `lint` found, as data."""

from __future__ import annotations

from ._record import Record

__all__ = ["Finding"]


class Finding(Record):
    """One problem found by `lint`.

    Attributes:
        tool: The tool's name, or None for a problem of the whole set.
        code: A short, stable identifier, for example "undocumented-parameter".
        message: What is wrong and what to do, in one sentence.
    """

    __match_args__ = ("tool", "code", "message")
    __slots__ = ("code", "message", "tool")
    tool: str | None
    code: str
    message: str

    def __init__(self, tool: str | None, code: str, message: str) -> None:
        object.__setattr__(self, "tool", tool)
        object.__setattr__(self, "code", code)
        object.__setattr__(self, "message", message)

    def __str__(self) -> str:
        return f"{self.tool or '(tool set)'}: {self.message} [{self.code}]"
