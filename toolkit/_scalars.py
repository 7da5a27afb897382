"""The scalar types, in one table: each one's schema, how its JSON value is read and written.

JSON's own scalars (str, int, float, bool, None) and bytes (base64 text)
are in the table from the start. The string-encoded stdlib types
(datetimes, UUID, Decimal, paths) join it the first time an annotation or a
value needs one, so that `import toolkit` loads none of their modules.
Every module that asks about a scalar type (the translation of annotations,
the schema, the conversion of arguments, union matching, default checks,
JSON output) asks this table.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Container
from typing import Any, Final

from ._frozen import freeze
from ._types import JsonSchema

__all__ = [
    "NOT_SCALAR",
    "Scalar",
    "among",
    "b64",
    "dumped",
    "is_scalar",
    "scalar",
    "stdlib_scalars",
    "to_float",
    "to_int",
]

Converter = Callable[[Any], Any]

_NONE_TYPE: Final = type(None)
_DECIMAL_PATTERN: Final = r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$"
# Modules whose types are string-encoded scalars; they are imported only when
# an annotation already uses one of them.
_STDLIB_MODULES: Final = frozenset(
    {
        "datetime",
        "decimal",
        "_decimal",
        "_pydecimal",
        "uuid",
        "pathlib",
        "pathlib._local",
    }
)


class Scalar:
    """One scalar type's entry in the table.

    Attributes:
        schema: Its JSON Schema.
        parse: JSON value → the Python value; None when the JSON value is it.
        dump: The Python value → its JSON value; None when it is JSON already.
    """

    __slots__ = ("dump", "parse", "schema")

    def __init__(
        self,
        schema: dict[str, Any],
        parse: Converter | None = None,
        dump: Converter | None = None,
    ) -> None:
        self.schema: JsonSchema = freeze(schema)
        self.parse = parse
        self.dump = dump


def to_int(value: Any) -> Any:
    return int(value) if isinstance(value, float) else value


def to_float(value: Any) -> Any:
    return float(value) if isinstance(value, int) else value


def _to_bytes(value: str) -> bytes:
    import base64

    try:
        return base64.b64decode(value, validate=True)
    except ValueError:
        shown = value if len(value) <= 40 else value[:37] + "..."
        msg = f"{shown!r} is not valid base64"
        raise ValueError(msg) from None


def b64(data: bytes | bytearray) -> str:
    """`data` as base64 text."""
    import base64

    return base64.b64encode(data).decode("ascii")


_TABLE: Final[dict[type, Scalar]] = {
    str: Scalar({"type": "string"}),
    int: Scalar({"type": "integer"}, to_int),
    float: Scalar({"type": "number"}, to_float),
    bool: Scalar({"type": "boolean"}),
    _NONE_TYPE: Scalar({"type": "null"}),
    bytes: Scalar({"type": "string", "contentEncoding": "base64"}, _to_bytes),
}
_BASIC: Final = frozenset(_TABLE)


def scalar(py: type) -> Scalar:
    """The entry of a scalar type (`is_scalar(py)` is true)."""
    found = _TABLE.get(py)
    if found is None:
        _TABLE.update(_stdlib_table())
        found = _TABLE[py]
    return found


@functools.cache
def stdlib_scalars() -> frozenset[type]:
    """The string-encoded scalar types: datetimes, UUID, Decimal, paths."""
    return frozenset(_stdlib_table())


def is_scalar(tp: Any) -> bool:
    """Whether `tp` is one of the scalar types (a JSON scalar or a string-encoded one).

    Matched by identity, so that `bool` is never taken for `int`, and
    without importing a stdlib module that `tp` does not come from.
    """
    if among(tp, _BASIC):
        return True
    return getattr(tp, "__module__", None) in _STDLIB_MODULES and among(
        tp, stdlib_scalars()
    )


def among(tp: Any, table: Container[Any]) -> bool:
    """`tp in table`, False for an unhashable annotation (`Annotated[int, {...}]`)."""
    try:
        return tp in table
    except TypeError:
        return False


@functools.cache
def _stdlib_table() -> dict[type, Scalar]:
    import datetime
    import decimal
    import pathlib
    import uuid

    from ._formats import (
        parse_date,
        parse_date_time,
        parse_duration,
        parse_time,
        parse_uuid,
    )

    def iso(value: Any) -> str:
        return value.isoformat()  # type: ignore[no-any-return]

    table = {
        datetime.datetime: Scalar(
            {"type": "string", "format": "date-time"}, parse_date_time, iso
        ),
        datetime.date: Scalar({"type": "string", "format": "date"}, parse_date, iso),
        datetime.time: Scalar({"type": "string", "format": "time"}, parse_time, iso),
        datetime.timedelta: Scalar(
            {"type": "string", "format": "duration"}, parse_duration, _duration_text
        ),
        uuid.UUID: Scalar({"type": "string", "format": "uuid"}, parse_uuid, str),
        decimal.Decimal: Scalar(
            {
                "anyOf": [
                    {"type": "number"},
                    {"type": "string", "pattern": _DECIMAL_PATTERN},
                ]
            },
            _to_decimal,
            str,
        ),
    }
    for path in (
        pathlib.Path,
        pathlib.PurePath,
        pathlib.PosixPath,
        pathlib.PurePosixPath,
        pathlib.WindowsPath,
        pathlib.PureWindowsPath,
    ):
        table[path] = Scalar({"type": "string"}, path, str)
    return table


def _to_decimal(value: Any) -> Any:
    import decimal

    return decimal.Decimal(value if isinstance(value, str) else repr(value))


NOT_SCALAR: Final = object()
"""What `dumped` gives for a value of no scalar type it writes."""


def dumped(value: Any) -> Any:
    """The JSON value of bytes or of a string-encoded type's value (a subclass's too), else `NOT_SCALAR`."""
    if isinstance(value, (bytes, bytearray)):
        return b64(value)
    for py, entry in _stdlib_table().items():
        if isinstance(value, py):
            return entry.dump(value)  # type: ignore[misc]  # every stdlib entry has one
    return NOT_SCALAR


def _duration_text(value: Any) -> str:
    """ISO 8601 duration, as `format: duration` expects: `P1DT2H3M4.5S`."""
    sign = "-" if value.days < 0 else ""
    value = abs(value)
    seconds = value.seconds + value.microseconds / 1_000_000
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{sign}P{value.days}DT{int(hours)}H{int(minutes)}M{secs:g}S"
