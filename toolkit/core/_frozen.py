"""Immutable dicts and lists for schemas and exports.

`Tool.parameters`, `Tool.output_schema` and every `ToolSet.export(...)` are
shared: the export cache hands the same object to every caller, and a
tool's compiled validator was built from its schema. So they are made of
`FrozenDict` and `FrozenList`, subclasses of `dict` and `list` (JSON
encoders and the SDKs take them as they are) whose mutating methods raise.
`copy.deepcopy(...)` of either gives plain, mutable dicts and lists.
"""

from __future__ import annotations

from typing import Any, NoReturn, TypeVar

T = TypeVar("T")

__all__ = ["FrozenDict", "FrozenList", "freeze", "thaw"]

_MESSAGE = "toolkit schemas and exports are shared and cannot be changed; change a copy: copy.deepcopy(value)"


def _refuse(self: object, *args: Any, **kwargs: Any) -> NoReturn:
    raise TypeError(_MESSAGE)


class FrozenDict(dict):  # type: ignore[type-arg]  # holds JSON values
    """A dict that refuses changes."""

    __slots__ = ()
    __setitem__ = __delitem__ = clear = pop = popitem = setdefault = update = _refuse
    __ior__ = _refuse

    def __deepcopy__(self, memo: dict[int, Any]) -> dict[str, Any]:
        return {key: thaw(value) for key, value in self.items()}

    def __copy__(self) -> dict[str, Any]:
        return dict(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (dict, (dict(self),))


class FrozenList(list):  # type: ignore[type-arg]  # holds JSON values
    """A list that refuses changes."""

    __slots__ = ()
    __setitem__ = __delitem__ = append = extend = insert = pop = remove = _refuse
    clear = sort = reverse = __iadd__ = __imul__ = _refuse

    def __deepcopy__(self, memo: dict[int, Any]) -> list[Any]:
        return [thaw(value) for value in self]

    def __copy__(self) -> list[Any]:
        return list(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (list, (list(self),))


def freeze(value: T) -> T:
    """A frozen deep copy of JSON data; already-frozen parts are shared, not copied."""
    kind = type(value)
    if kind is FrozenDict or kind is FrozenList:
        return value
    if isinstance(value, dict):
        return FrozenDict({key: freeze(item) for key, item in value.items()})  # type: ignore[return-value]
    if isinstance(value, (list, tuple)):
        return FrozenList([freeze(item) for item in value])  # type: ignore[return-value]
    return value


def thaw(value: Any) -> Any:
    """A plain, mutable deep copy of JSON data."""
    if isinstance(value, dict):
        return {key: thaw(item) for key, item in value.items()}
    if isinstance(value, list):
        return [thaw(item) for item in value]
    return value
