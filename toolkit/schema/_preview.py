"""How a value the model sent is shown in a message: as JSON, shortened, in bounded work.

A message quotes the value it is about (`expected integer, got string "x"`)
and the path to it (`tags[3]`). The value may be huge, deeply nested, or a
Python caller's object whose own methods raise: `printable` makes the copy
that `jsonschema` reads (plain JSON types, the rest wrapped), and `preview`
writes a value from its parts up to a budget of characters, running none of
its code but `repr` (whose failure is caught).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Final

from toolkit.values._json import Foreign

from ._checker import is_object

__all__ = ["json_kind", "path_text", "preview", "printable"]

_HUGE_BITS: Final = 13_000
"""Ints this long have more digits than Python turns into text (4,300); only a
Python caller can send them, as JSON parsing refuses them too."""
_OWN_COPIES: Final = frozenset({str, float, bool, type(None)})


class _HugeInt(int):
    """An int that `jsonschema` can put in a message: its repr gives its size."""

    def __repr__(self) -> str:
        return _int_text(self)


def printable(value: Any) -> Any:
    """A copy of `value` as plain JSON data, that `jsonschema` can compare and show.

    Subclasses of str, int, float, list and dict become the plain types
    (none of their own methods runs: they may raise); an int too long to
    write out becomes a `_HugeInt`, anything else a `Foreign`. Validity does
    not change. A container met twice (shared, or a cycle) is copied once
    and shared again; the walk keeps its own stack, so depth costs no
    recursion.
    """
    copies: dict[int, Any] = {}
    unfilled: list[tuple[Any, Any]] = []  # (container, its empty copy)

    def copy(item: Any) -> Any:
        kind = type(item)
        if kind in _OWN_COPIES or (kind is int and item.bit_length() <= _HUGE_BITS):
            return item  # immutable, and shown whole: its own copy
        if not isinstance(item, (list, dict)):
            return _plain_scalar(item)
        if id(item) not in copies:
            copies[id(item)] = [] if isinstance(item, list) else {}
            unfilled.append((item, copies[id(item)]))
        return copies[id(item)]

    copied = copy(value)
    while unfilled:
        container, made = unfilled.pop()
        if isinstance(made, list):
            made.extend(map(copy, list.__iter__(container)))
        else:
            for key, item in dict.items(container):
                made[copy(key)] = copy(item)
    return copied


def _plain_scalar(value: Any) -> Any:
    """The copy of what is not its own: a subclass's plain value, a huge int, a `Foreign`."""
    if isinstance(value, int):
        plain = int.__add__(value, 0)
        return _HugeInt(plain) if plain.bit_length() > _HUGE_BITS else plain
    if isinstance(value, float):
        return float.__float__(value)
    if isinstance(value, str):
        return str.__getitem__(value, slice(None))
    return Foreign(value)


_JSON_KINDS: Final = (
    (bool, "boolean"),
    (int, "integer"),
    (float, "number"),
    (str, "string"),
    (list, "array"),
)


def json_kind(value: Any) -> str:
    """The JSON type of a value, or its Python type when it is not JSON (from a Python caller)."""
    if isinstance(value, Foreign):
        return type(value.value).__name__
    if value is None:
        return "null"
    for cls, kind in _JSON_KINDS:  # bool before int: True is an int to Python
        if isinstance(value, cls):
            return kind
    if isinstance(value, dict):
        return "object" if is_object(value) else "dict with non-string keys"
    return type(value).__name__


def preview(value: Any, limit: int = 60) -> str:
    """A value as the model sent it, in JSON, shortened; the work is bounded by `limit`."""
    out: list[str] = []
    _render(value, out, limit + 1)
    text = "".join(out)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _render(value: Any, out: list[str], budget: int) -> int:
    """Append at least `budget` characters of `value`'s JSON (or all of it) to `out`."""
    if isinstance(value, Foreign):
        value = value.value
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        return _render_container(value, out, budget)
    if value is None or isinstance(value, bool):
        piece = "null" if value is None else ("true" if value else "false")
    elif isinstance(value, str):
        import json

        piece = json.dumps(value[:budget], ensure_ascii=False)
    elif isinstance(value, int):
        piece = _int_text(value)
    elif isinstance(value, float):
        piece = _float_text(value)
    else:
        piece = _safe_repr(value)[:budget]
    out.append(piece)
    return budget - len(piece)


def _render_container(
    value: list[Any] | tuple[Any, ...] | dict[Any, Any] | set[Any] | frozenset[Any],
    out: list[str],
    budget: int,
) -> int:
    """A list as JSON; a Python caller's dict, tuple or set in its Python brackets."""
    mapping = isinstance(value, dict)
    opening, closing = (
        ("(", ")")
        if isinstance(value, tuple)
        else ("{", "}")
        if mapping or isinstance(value, (set, frozenset))
        else ("[", "]")
    )
    out.append(opening)
    budget -= 1
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for index, (key, item) in enumerate(items):
        if budget <= 0:
            return budget
        if index:
            out.append(", ")
            budget -= 2
        if mapping:
            budget = _render(key, out, budget)
            out.append(": ")
            budget -= 2
        budget = _render(item, out, budget)
    out.append(closing)
    return budget - 1


def _float_text(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    return repr(value)


def _int_text(value: int) -> str:
    """An int's digits; for a huge one (whose conversion to text is slow), its size."""
    if value.bit_length() <= 256:
        return str(value)
    digits = int(value.bit_length() * math.log10(2)) + 1
    return f"<an integer of about {digits:,} digits>"


def _safe_repr(value: Any) -> str:
    try:
        return repr(value)
    except Exception:  # a Python caller's object whose repr is broken
        return f"<{type(value).__name__}>"


def path_text(parts: Sequence[Any]) -> str:
    """`a.b[0].c`; a key longer than 60 characters is shortened."""
    if not parts:
        return "(arguments)"
    text = ""
    for part in parts:
        if isinstance(part, int) and not isinstance(part, bool):
            text += f"[{part}]"
        else:
            name = str(part) if isinstance(part, str) else preview(part)
            name = name if len(name) <= 60 else name[:57] + "..."
            text += f".{name}" if text else name
    return text
