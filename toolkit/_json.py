"""Python values → JSON data: for defaults in schemas and for tool results.

Handles what tools return in practice: dataclasses, NamedTuples, Enums,
datetimes, UUIDs, Decimals, paths, bytes (base64), sets and pydantic models.
Sets are sorted when their items can be, so the output is deterministic.
"""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import datetime

__all__ = ["dumps", "to_jsonable"]

_PLAIN: Final = (str, int, bool, type(None))


@functools.cache
def _encoder() -> Any:
    import json

    return json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def to_jsonable(value: Any) -> Any:  # a flat chain: one line per kind
    """Convert `value` to data that `json.dumps` accepts.

    Raises:
        TypeError: The value (or a value inside it) has no JSON form; the
            message names its type.
        ValueError: The value holds NaN or an infinity.
    """
    if isinstance(value, _PLAIN):
        return value.value if isinstance(value, enum.Enum) else value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        msg = f"{value} is not a JSON number"
        raise ValueError(msg)
    if isinstance(value, enum.Enum):
        return to_jsonable(value.value)
    if isinstance(value, Mapping):
        return {_key(key): to_jsonable(item) for key, item in value.items()}
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {key: to_jsonable(item) for key, item in value._asdict().items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(item) for item in value]
    if isinstance(value, (set, frozenset)):
        return _sorted_if_possible([to_jsonable(item) for item in value])
    if hasattr(type(value), "__dataclass_fields__"):  # a dataclass instance
        import dataclasses  # loaded already: the value is a dataclass

        return {
            item.name: to_jsonable(getattr(value, item.name))
            for item in dataclasses.fields(value)
        }
    return _special(value)


def _special(value: Any) -> Any:
    import base64
    import datetime
    import decimal
    import pathlib
    import uuid

    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return _duration(value)
    if isinstance(value, (uuid.UUID, decimal.Decimal, pathlib.PurePath)):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode("ascii")
    if hasattr(value, "model_dump") and hasattr(type(value), "model_json_schema"):
        return value.model_dump(mode="json")
    msg = f"a value of type {type(value).__qualname__} cannot be converted to JSON"
    raise TypeError(msg)


def dumps(value: Any) -> str:
    """Compact JSON text of `value` (non-ASCII kept, NaN refused).

    Raises:
        TypeError: The value has no JSON form.
        ValueError: The value holds NaN or an infinity.
    """
    if isinstance(value, str):
        return _encoder().encode(value)  # type: ignore[no-any-return]
    return _encoder().encode(to_jsonable(value))  # type: ignore[no-any-return]


def _key(key: Any) -> str:
    if isinstance(key, str):
        return str(key.value) if isinstance(key, enum.Enum) else key
    if isinstance(key, enum.Enum):
        return str(key.value)
    if isinstance(key, (int, float, bool)) or key is None:
        return str(_encoder().encode(key))
    msg = f"a dict key of type {type(key).__qualname__} cannot be a JSON object key"
    raise TypeError(msg)


def _sorted_if_possible(items: list[Any]) -> list[Any]:
    try:
        return sorted(items)
    except TypeError:
        import json

        return sorted(items, key=lambda item: json.dumps(item, sort_keys=True))


def _duration(value: datetime.timedelta) -> str:
    """ISO 8601 duration, as `format: duration` expects: `P1DT2H3M4.5S`."""
    sign = "-" if value.days < 0 else ""
    value = abs(value)
    seconds = value.seconds + value.microseconds / 1_000_000
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{sign}P{value.days}DT{int(hours)}H{int(minutes)}M{secs:g}S"
