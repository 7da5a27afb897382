"""`Record`: the base of toolkit's small public value types.

A record is immutable, slotted, and compared, hashed, copied and printed by
the values of its fields, as a frozen dataclass is. It is written out here
because importing `dataclasses` loads `inspect`, `ast` and `dis` and would
cost `import toolkit` about a third of its time. A subclass lists its fields
in `__slots__` and, in order, in `__match_args__` (the order of repr,
pattern matching and copies), and sets them in `__init__` with
`object.__setattr__`.
"""

from __future__ import annotations

from typing import Any, NoReturn, TypeVar

__all__ = ["Record", "TextRecord"]

R = TypeVar("R", bound="Record")
_set = object.__setattr__


class Record:
    """Immutable value records: equality, hashing, repr and copies from the fields."""

    __slots__ = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in _fields(type(self)))

    def __setattr__(self, name: str, value: Any) -> NoReturn:
        msg = f"cannot assign to field {name!r}: {type(self).__name__} is immutable; use copy.replace or make a new one"
        raise AttributeError(msg)

    def __delattr__(self, name: str) -> NoReturn:
        msg = f"cannot delete field {name!r}: {type(self).__name__} is immutable"
        raise AttributeError(msg)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash((self.__class__, self._values()))

    def __repr__(self) -> str:
        fields = ", ".join(
            f"{name}={getattr(self, name)!r}" for name in _fields(type(self))
        )
        return f"{type(self).__name__}({fields})"

    def __copy__(self: R) -> R:
        return self

    def __deepcopy__(self: R, memo: dict[int, Any]) -> R:
        import copy

        return _rebuild(
            type(self), tuple(copy.deepcopy(value, memo) for value in self._values())
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (type(self), self._values()))

    def __replace__(self: R, **changes: Any) -> R:
        """`copy.replace(record, field=value)` (Python 3.13) or `record.__replace__(...)`."""
        unknown = set(changes) - set(_fields(type(self)))
        if unknown:
            msg = f"{type(self).__name__} has no field {sorted(unknown)[0]!r}"
            raise TypeError(msg)
        return _rebuild(
            type(self),
            tuple(
                changes.get(name, getattr(self, name)) for name in _fields(type(self))
            ),
        )


class TextRecord(Record):
    """A record of one string, `text`; the base of `Text` and `TextUI`."""

    __match_args__ = ("text",)
    __slots__ = ("text",)
    text: str

    def __init__(self, text: str) -> None:
        _set(self, "text", text)


def _fields(cls: type) -> tuple[str, ...]:
    """The fields in declaration order, as the record's `__match_args__` lists them."""
    names: tuple[str, ...] = getattr(cls, "__match_args__", ())
    return names


def _rebuild(cls: type[R], values: tuple[Any, ...]) -> R:
    made = object.__new__(cls)
    for name, value in zip(_fields(cls), values, strict=True):
        _set(made, name, value)
    return made
