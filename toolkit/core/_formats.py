"""String formats that toolkit checks, and how it reads them into Python values.

The same function decides whether a string is a valid `date-time` (say) in
the compiled check, in the `jsonschema` validator that writes messages, and
before conversion, so the three can never disagree. Date-times may omit the
UTC offset (models often do); the function then receives a naive datetime.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import datetime
    import uuid

__all__ = ["FORMAT_CHECKS", "parse_duration"]

_DATE: Final = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
_TIME: Final = re.compile(
    r"\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?([Zz]|[+-]\d{2}:\d{2})?", re.ASCII
)
_DATE_TIME: Final = re.compile(
    r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?([Zz]|[+-]\d{2}:\d{2})?",
    re.ASCII,
)
_DURATION: Final = re.compile(
    r"(-)?P(?:(\d+(?:\.\d+)?)W|(?:(\d+(?:\.\d+)?)Y)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)D)?"
    r"(?:T(?=\d)(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?)",
    re.ASCII,
)
_UUID: Final = re.compile(
    r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
    re.ASCII,
)
_EMAIL: Final = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")
_HOSTNAME: Final = re.compile(
    r"(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*",
    re.ASCII,
)
_URI: Final = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s]*")
_DAYS: Final = {"W": 7.0, "Y": 365.0, "M": 30.0, "D": 1.0}


def _check(pattern: re.Pattern[str], text: str, expected: str) -> None:
    """Raise a ValueError saying that `text` is not `expected` unless `pattern` matches all of it."""
    if not pattern.fullmatch(text):
        msg = f"{text!r} is not {expected}"
        raise ValueError(msg)


def _zulu(text: str) -> str:
    """Python 3.10's fromisoformat does not read `Z`."""
    return text[:-1] + "+00:00" if text[-1:] in "Zz" else text


def parse_date_time(text: str) -> datetime.datetime:
    """Read an RFC 3339 date-time (offset optional, `T` or space)."""
    import datetime

    _check(_DATE_TIME, text, "a date-time like 2024-05-01T09:30:00Z")
    return datetime.datetime.fromisoformat(_zulu(text).replace("t", "T"))


def parse_date(text: str) -> datetime.date:
    """Read a calendar date, `YYYY-MM-DD`."""
    import datetime

    _check(_DATE, text, "a date like 2024-05-01")
    return datetime.date.fromisoformat(text)


def parse_time(text: str) -> datetime.time:
    """Read a time of day, `HH:MM[:SS[.ffffff]]` with an optional offset."""
    import datetime

    _check(_TIME, text, "a time like 09:30:00")
    return datetime.time.fromisoformat(_zulu(text))


def parse_duration(text: str) -> datetime.timedelta:
    """Read an ISO 8601 duration (`P1DT2H`, `PT90S`); a year is 365 days, a month 30."""
    import datetime

    match = _DURATION.fullmatch(text)
    if match is None or text.rstrip("T") in ("P", "-P") or text.endswith("T"):
        msg = f"{text!r} is not an ISO 8601 duration like P1DT2H30M"
        raise ValueError(msg)
    sign, weeks, years, months, days, hours, minutes, seconds = match.groups()
    total_days = sum(
        float(amount or 0) * _DAYS[unit]
        for amount, unit in ((weeks, "W"), (years, "Y"), (months, "M"), (days, "D"))
    )
    delta = datetime.timedelta(
        days=total_days,
        hours=float(hours or 0),
        minutes=float(minutes or 0),
        seconds=float(seconds or 0),
    )
    return -delta if sign else delta


def parse_uuid(text: str) -> uuid.UUID:
    """Read a UUID in its canonical hyphenated form."""
    import uuid

    _check(_UUID, text, "a UUID like 123e4567-e89b-12d3-a456-426614174000")
    return uuid.UUID(text)


def _matches(pattern: re.Pattern[str], example: str) -> Callable[[str], object]:
    def check(text: str) -> str:
        _check(pattern, text, f"valid (expected something like {example})")
        return text

    return check


def _ipv4(text: str) -> object:
    import ipaddress

    return ipaddress.IPv4Address(text)


def _ipv6(text: str) -> object:
    import ipaddress

    return ipaddress.IPv6Address(text)


FORMAT_CHECKS: Final[dict[str, Callable[[str], object]]] = {
    "date-time": parse_date_time,
    "date": parse_date,
    "time": parse_time,
    "duration": parse_duration,
    "uuid": parse_uuid,
    "email": _matches(_EMAIL, "name@example.com"),
    "hostname": _matches(_HOSTNAME, "example.com"),
    "uri": _matches(_URI, "https://example.com/"),
    "ipv4": _ipv4,
    "ipv6": _ipv6,
}
"""Format name → a function that reads a string and raises ValueError when it is not valid."""
