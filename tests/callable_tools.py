"""One tool of every kind of callable `tool(...)` accepts, in one `ToolSet`.

Used by tests/test_callables.py, in process and served by `toolkit serve
tests/callable_tools.py:tools`.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from toolkit import Context, ToolSet, tool

F = TypeVar("F", bound=Callable[..., Any])


def add(a: int, b: int) -> str:
    """Add two numbers.

    Args:
        a: The first.
        b: The second.
    """
    return str(a + b)


async def multiply(a: int, b: int) -> str:
    """Multiply two numbers.

    Args:
        a: The first.
        b: The second.
    """
    return str(a * b)


class Weather:
    """Forecasts in one unit."""

    def __init__(self, unit: str) -> None:
        self.unit = unit

    def forecast(self, city: str, days: int = 1) -> str:
        """Forecast the weather.

        Args:
            city: The city.
            days: How many days.
        """
        return f"{city}: {days} day(s) in {self.unit}"

    async def aforecast(self, city: str) -> str:
        """Forecast the weather, asynchronously.

        Args:
            city: The city.
        """
        return f"{city} in {self.unit} (async)"

    def located(self, context: Context, city: str) -> str:
        """Forecast for the caller.

        Args:
            city: The city.
        """
        return f"{context.tool_name} {city} in {self.unit}"

    @tool
    def report(self, city: str) -> str:
        """Report the weather.

        Args:
            city: The city.
        """
        return f"report for {city} in {self.unit}"

    @tool
    @classmethod
    def units(cls, city: str) -> str:
        """The units used in a city.

        Args:
            city: The city.
        """
        return f"{cls.__name__} units of {city}"

    @tool
    @staticmethod
    def normalise(city: str) -> str:
        """Normalise a city name.

        Args:
            city: The city.
        """
        return city.strip().title()


class Repo:
    """A key-value repository."""

    prefix = "repo"

    @classmethod
    def find(cls, key: str) -> str:
        """Find a key.

        Args:
            key: The key.
        """
        return f"{cls.prefix}/{key}"

    @classmethod
    async def afind(cls, key: str) -> str:
        """Find a key, asynchronously.

        Args:
            key: The key.
        """
        return f"{cls.prefix}/{key} (async)"

    @classmethod
    def located(cls, context: Context, key: str) -> str:
        """Find a key for the caller.

        Args:
            key: The key.
        """
        return f"{context.tool_name} {cls.prefix}/{key}"

    @staticmethod
    def slug(text: str) -> str:
        """Make a slug.

        Args:
            text: The text.
        """
        return text.lower().replace(" ", "-")


class Inventory:
    """Stock levels."""

    def stock_level(self, sku: str) -> int:
        """The stock level of an item.

        Args:
            sku: The item.
        """
        return len(sku)


def scaled(factor: int, value: int, *, offset: int = 0) -> str:
    """Scale a value.

    Args:
        factor: What to multiply by.
        value: The value.
        offset: What to add.
    """
    return str(factor * value + offset)


async def ascaled(factor: int, value: int) -> str:
    """Scale a value, asynchronously.

    Args:
        factor: What to multiply by.
        value: The value.
    """
    return str(factor * value)


class Counter:
    """Counts up."""

    def __call__(self, step: int) -> str:
        """Count by a step.

        Args:
            step: How much to add.
        """
        return f"counted {step}"


class AsyncCounter:
    """Counts up, asynchronously."""

    async def __call__(self, step: int) -> str:
        """Count by a step.

        Args:
            step: How much to add.
        """
        return f"counted {step} (async)"


def logged(function: F) -> F:
    """A decorator as real code writes them: `functools.wraps` over `*args, **kwargs`."""

    @functools.wraps(function)
    def inner(*args: Any, **kwargs: Any) -> Any:
        return function(*args, **kwargs)

    return inner  # type: ignore[return-value]


def alogged(function: Callable[..., Awaitable[Any]]) -> Any:
    """The same for a coroutine function: the wrapper is async too."""

    @functools.wraps(function)
    async def inner(*args: Any, **kwargs: Any) -> Any:
        return await function(*args, **kwargs)

    return inner


@logged
def shout(text: str) -> str:
    """Shout a text.

    Args:
        text: The text.
    """
    return text.upper()


@alogged
async def ashout(text: str) -> str:
    """Shout a text, asynchronously.

    Args:
        text: The text.
    """
    return text.upper() + " (async)"


class Mailbox:
    """A mailbox whose methods are decorated with `functools.wraps` wrappers."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    @logged
    def send(self, to: str) -> str:
        """Send a message.

        Args:
            to: The recipient.
        """
        self.sent.append(to)
        return f"sent to {to}"

    @alogged
    async def asend(self, to: str) -> str:
        """Send a message, asynchronously.

        Args:
            to: The recipient.
        """
        return f"sent to {to} (async)"


@dataclasses.dataclass
class Account:
    """A bank account, a dataclass."""

    balance: int = 0

    def deposit(self, amount: int) -> str:
        """Deposit money.

        Args:
            amount: How much.
        """
        self.balance += amount
        return f"balance {self.balance}"


class Tally:
    """A counter with `__slots__`."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0

    def bump(self, by: int) -> str:
        """Count up.

        Args:
            by: How much.
        """
        self.count += by
        return f"tally {self.count}"


celsius = Weather("c")
repo = Repo()
mailbox = Mailbox()
account = Account()
tally = Tally()

tools = ToolSet(
    [
        tool(add),
        tool(multiply),
        tool(celsius.forecast),
        tool(celsius.aforecast),
        tool(name="weather_located")(celsius.located),
        celsius.report,
        Weather.units,
        Weather.normalise,
        tool(Repo.find),
        tool(Repo.afind),
        tool(name="repo_located")(Repo.located),
        tool(Repo.slug),
        tool(functools.partial(scaled, 10, offset=1)),
        tool(functools.partial(ascaled, 3)),
        tool(Counter()),
        tool(AsyncCounter()),
        tool(name="find_on_instance")(repo.find),
        tool(name="slug_on_instance")(repo.slug),
        tool(shout),
        tool(ashout),
        tool(mailbox.send),
        tool(mailbox.asend),
        tool(account.deposit),
        tool(tally.bump),
    ]
)
