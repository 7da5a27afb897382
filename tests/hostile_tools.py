"""Tools that misbehave on purpose: hostile return values and every kind of raise.

Used in-process by tests/test_hostile_results.py and served over MCP by
`toolkit serve tests/hostile_tools.py`. A return value is described by a
recipe (plain JSON), so that a server process builds the same value:

- a string names a leaf (`LEAVES`);
- `{"list": [...]}`, `{"tuple": [...]}`, `{"dict": {...}}`, `{"pair": [a, b]}`
  (a dataclass) and `{"named": [a, b]}` (a NamedTuple) hold other recipes;
- `{"deep": n, "of": recipe}` wraps a recipe in n one-item lists;
- `{"cycle": "list" | "dict" | "pair"}` is a container that holds itself.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple

from toolkit import Tool, ToolError, ToolResult, ToolSet, tool

# ------------------------------------------------------------------ hostile values


class Refused(Exception):
    """What the hostile methods below raise."""


class BadStr(str):
    """A str whose every text method but the data itself raises."""

    def __str__(self) -> str:
        raise Refused("__str__")

    def __repr__(self) -> str:
        raise Refused("__repr__")

    def __format__(self, spec: str) -> str:
        raise Refused("__format__")

    def __len__(self) -> int:
        raise Refused("__len__")


class BadInt(int):
    def __str__(self) -> str:
        raise Refused("__str__")

    def __repr__(self) -> str:
        raise Refused("__repr__")


class BadFloat(float):
    def __repr__(self) -> str:
        raise Refused("__repr__")


class BadMapping(Mapping[str, int]):
    """A Mapping whose iteration raises."""

    def __getitem__(self, key: str) -> int:
        raise Refused("__getitem__")

    def __iter__(self) -> Iterator[str]:
        raise Refused("__iter__")

    def __len__(self) -> int:
        return 1


class BadList(list[int]):
    def __iter__(self) -> Iterator[int]:
        raise Refused("__iter__")


class BadModel:
    """Looks like a pydantic model; its model_dump raises."""

    @classmethod
    def model_json_schema(cls) -> dict[str, Any]:
        return {"type": "object"}

    def model_dump(self, **options: Any) -> dict[str, Any]:
        raise Refused("model_dump")


class BadMessage(Exception):
    def __str__(self) -> str:
        raise Refused("__str__")


class Opaque(enum.Enum):
    THING = object()


@dataclasses.dataclass
class Pair:
    first: Any
    second: Any


@dataclasses.dataclass
class BadField:
    value: int = 0

    def __getattribute__(self, name: str) -> Any:
        if name == "value":
            raise Refused("value")
        return object.__getattribute__(self, name)


class Named(NamedTuple):
    first: Any
    second: Any


def _generator() -> Iterator[int]:
    yield 1


LEAVES: dict[str, tuple[Callable[[], Any], bool]] = {
    # name: (make it, can it be sent as JSON; a leaf JSON cannot hold is sent as its str())
    "int": (lambda: 7, True),
    "text": (lambda: "plain", True),
    "none": (lambda: None, True),
    "float": (lambda: 1.5, True),
    "bytes": (lambda: b"\x00\xff", True),
    "big_text": (lambda: "x" * 1_000_000, True),
    "bad_str": (lambda: BadStr("held"), True),
    "bad_int": (lambda: BadInt(3), True),
    "bad_float": (lambda: BadFloat(2.5), True),
    "nan": (lambda: float("nan"), True),
    "huge_int": (lambda: 10**5000, False),
    "object": (object, True),
    "generator": (_generator, True),
    "bad_mapping": (BadMapping, False),
    "bad_list": (lambda: BadList([1]), False),
    "bad_model": (BadModel, False),
    "bad_message": (lambda: BadMessage(), False),
    "opaque_enum": (lambda: Opaque.THING, True),
    "bad_field": (BadField, False),
    "bad_key": (lambda: {BadStr("k"): 1}, True),
    "object_key": (lambda: {object(): 1}, True),
}

CONTAINERS = ("list", "tuple", "dict", "pair", "named")


def build(recipe: Any) -> Any:
    """The value a recipe describes."""
    if isinstance(recipe, str):
        return LEAVES[recipe][0]()
    if "deep" in recipe:
        value = build(recipe["of"])
        for _ in range(recipe["deep"]):
            value = [value]
        return value
    if "cycle" in recipe:
        return _cycle(recipe["cycle"])
    ((kind, inner),) = recipe.items()
    if kind == "dict":
        return {key: build(item) for key, item in inner.items()}
    items = [build(item) for item in inner]
    if kind == "list":
        return items
    if kind == "tuple":
        return tuple(items)
    return (Pair if kind == "pair" else Named)(*items)


def _cycle(kind: str) -> Any:
    if kind == "list":
        looped: list[Any] = [1]
        looped.append(looped)
        return looped
    if kind == "dict":
        mapping: dict[str, Any] = {"a": 1}
        mapping["self"] = mapping
        return mapping
    pair = Pair(1, None)
    pair.second = [pair]
    return pair


def sendable(recipe: Any, depth: int = 0) -> bool:
    """Whether toolkit can send the value (the depth limit is 100 containers)."""
    if isinstance(recipe, str):
        return LEAVES[recipe][1] and (
            recipe not in ("bad_key", "object_key") or depth < 100
        )
    if "cycle" in recipe:
        return False
    if "deep" in recipe:
        return depth + recipe["deep"] <= 100 and sendable(
            recipe["of"], depth + recipe["deep"]
        )
    ((kind, inner),) = recipe.items()
    items = inner.values() if kind == "dict" else inner
    return depth < 100 and all(sendable(item, depth + 1) for item in items)


def top_type(recipe: Any) -> str:
    """The name of the returned value's type, as an error result names it."""
    return type(build(recipe)).__qualname__


# ------------------------------------------------------------------ hostile raises


class Custom(BaseException):
    """A BaseException of the application's own."""


class BadToolError(ToolError):
    def __str__(self) -> str:
        raise Refused("__str__")


def _recurse(n: int) -> int:
    return _recurse(n + 1) + 1


def _raise(kind: str) -> str:
    if kind == "recursion":
        _recurse(0)
    raise RAISES[kind][0]()


RAISES: dict[str, tuple[Callable[[], BaseException], str]] = {
    # kind: (the exception, the error result's text)
    "stop_iteration": (StopIteration, "StopIteration"),
    "stop_async_iteration": (StopAsyncIteration, "StopAsyncIteration"),
    "generator_exit": (GeneratorExit, "GeneratorExit"),
    "custom": (lambda: Custom("mine"), "Custom: mine"),
    "cancelled": (lambda: asyncio.CancelledError("own"), "CancelledError: own"),
    "system_exit": (lambda: SystemExit(3), "SystemExit: 3"),
    "bad_message": (BadMessage, "BadMessage"),
    "timeout": (lambda: TimeoutError("its own"), "TimeoutError: its own"),
    "memory": (lambda: MemoryError("big"), "MemoryError: big"),
    "tool_error": (lambda: ToolError("Clean message."), "Clean message."),
    "bad_tool_error": (BadToolError, "BadToolError"),
    "recursion": (
        lambda: RecursionError(),
        "RecursionError: maximum recursion depth exceeded",
    ),
}


# ------------------------------------------------------------------ the tools


@tool
def give(recipe: Any) -> Any:
    """Return the value a recipe describes."""
    return build(recipe)


@tool
async def agive(recipe: Any) -> Any:
    """Return the value a recipe describes, from async code."""
    await asyncio.sleep(0)
    return build(recipe)


@tool
def throw(kind: str) -> str:
    """Raise an exception of one kind."""
    return _raise(kind)


@tool
async def athrow(kind: str) -> str:
    """Raise an exception of one kind, from async code."""
    await asyncio.sleep(0)
    return _raise(kind)


@tool(timeout=60)
def throw_timed(kind: str) -> str:
    """Raise, in a thread with a timeout."""
    return _raise(kind)


@tool(timeout=60)
async def athrow_timed(kind: str) -> str:
    """Raise, from async code with a timeout."""
    await asyncio.sleep(0)
    return _raise(kind)


@tool(thread=False)
def throw_inline(kind: str) -> str:
    """Raise, run inline on the event loop's thread."""
    return _raise(kind)


def _raw_throw(agent_id: str, call_id: str, args: dict[str, Any]) -> str:
    return _raise(args["kind"])


raw_throw = Tool.new(
    name="raw_throw",
    description="Raise, from an execute_fn.",
    parameters={
        "type": "object",
        "properties": {"kind": {"type": "string"}},
        "required": ["kind"],
    },
    execute_fn=_raw_throw,
)


@tool
def bad_result(kind: str) -> Any:
    """Return a ToolResult that is not one, or whose text is not text."""
    if kind == "none_text":
        return ToolResult(None)  # type: ignore[arg-type]
    if kind == "bad_str_text":
        return ToolResult(BadStr("held"))
    if kind == "cyclic_structured":
        return ToolResult("text", structured=_cycle("dict"))
    return ToolResult("fine")


RAISING = (
    "throw",
    "athrow",
    "throw_timed",
    "athrow_timed",
    "throw_inline",
    "raw_throw",
)
GIVING = ("give", "agive")

tools = ToolSet(
    [
        give,
        agive,
        throw,
        athrow,
        throw_timed,
        athrow_timed,
        throw_inline,
        raw_throw,
        bad_result,
    ]
)
