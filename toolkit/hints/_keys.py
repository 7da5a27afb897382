"""Cache keys for annotations that keep the order of their arguments."""

from __future__ import annotations

from typing import Any, Final

__all__ = ["order_key"]


def order_key(annotation: Any) -> Any:
    """A cache key for `annotation` that also tells the order of its arguments.

    `Union[int, str] == Union[str, int]` and `Literal["a", "b"] ==
    Literal["b", "a"]`, with equal hashes, so a cache keyed on annotations
    alone would give the second the schema of whichever came first in the
    process (its `anyOf` and `enum` order, and the order in which a union's
    members are tried). The key pairs each annotation with the keys of its
    arguments, in order, at every level.

    Python's own typing cache has that flaw for `Optional[...]`,
    `Annotated[...]`, `List[...]` and the like
    (https://github.com/python/cpython/issues/103749): such an object is
    already the first one written, and no key can tell them apart.

    Raises:
        TypeError: The annotation is unhashable, or nested too deeply to key.
    """
    if type(annotation) is type:  # most annotations: a class, which has no arguments
        return annotation
    args = getattr(annotation, "__args__", None)
    if type(args) is not tuple or not args:
        return annotation
    for arg in args:
        if type(arg) is not type:
            return (annotation, _args_key(args, _KEY_DEPTH))
    # Only classes inside (`int | None`): their order is the key.
    return (annotation, args)


def _args_key(args: tuple[Any, ...], depth: int) -> tuple[Any, ...]:
    if not depth:
        msg = "nested too deeply to be a cache key"
        raise TypeError(msg)
    keys: list[Any] = []
    for arg in args:
        if type(arg) is type:
            keys.append(arg)
            continue
        inner = getattr(arg, "__args__", None)
        keys.append(
            (arg, _args_key(inner, depth - 1))
            if type(inner) is tuple and inner
            else arg
        )
    return tuple(keys)


_KEY_DEPTH: Final = 64
"""Deeper annotations are not cached (the translator refuses them)."""
