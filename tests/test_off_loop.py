"""Big arguments are checked in a worker thread: the event loop keeps serving other calls."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest

from toolkit import Tool, ToolCall, ToolSet, tool
from toolkit.run._running import is_large
from toolkit.tools._call import Binder


@tool
def total(xs: list[int]) -> int:
    """Add numbers."""
    return sum(xs)


@tool
async def atotal(xs: list[int]) -> int:
    """Add numbers, async."""
    return sum(xs)


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


BIG = {"xs": list(range(200_000))}  # about 1.3 MB as JSON


def test_a_few_scalars_are_small() -> None:
    assert not is_large({"a": 1, "b": 2.5, "c": "Paris", "d": None, "e": True})
    assert not is_large({"xs": list(range(100))})
    assert not is_large('{"a": 1}')


@pytest.mark.parametrize(
    "value",
    [
        BIG,
        {"text": "x" * 2_000_000},
        "[" + "1," * 500_000 + "1]",
        {"deep": [[[[list(range(50_000))]]]]},
        {f"k{i}": i for i in range(50_000)},
    ],
    ids=["list", "string", "json text", "nested", "keys"],
)
def test_big_values_are_large(value: Any) -> None:
    assert is_large(value)


def test_the_size_probe_stops_early_on_cycles_and_depth() -> None:
    cycle: dict[str, Any] = {}
    cycle["self"] = cycle
    assert is_large(cycle)
    deep: list[Any] = []
    for _ in range(100_000):
        deep = [deep]
    assert is_large(deep)


def _bind_threads(monkeypatch: pytest.MonkeyPatch) -> list[threading.Thread]:
    """Record the thread that checks each call's arguments."""
    seen: list[threading.Thread] = []
    original = Binder.bind

    def spy(self: Binder, *args: Any) -> Any:
        seen.append(threading.current_thread())
        return original(self, *args)

    monkeypatch.setattr(Binder, "bind", spy)
    return seen


@pytest.mark.parametrize("made", [total, atotal], ids=["sync", "async"])
def test_big_arguments_are_checked_off_the_loop(
    monkeypatch: pytest.MonkeyPatch, made: Tool[Any, Any]
) -> None:
    seen = _bind_threads(monkeypatch)

    async def main() -> tuple[threading.Thread, Any]:
        result = await made.aexecute("a", "c", BIG)
        return threading.current_thread(), result

    loop_thread, result = asyncio.run(main())
    assert result.text == str(sum(BIG["xs"]))
    assert len(seen) == 1
    assert seen[0] is not loop_thread


def test_small_arguments_are_checked_on_the_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = _bind_threads(monkeypatch)

    async def main() -> threading.Thread:
        assert (await add.aexecute("a", "c", {"a": 1, "b": "2"})).text == "3"
        return threading.current_thread()

    assert seen == [asyncio.run(main())]


def test_a_concurrent_call_runs_while_big_arguments_are_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The check of a big call waits for a small call to finish: on the loop thread this would deadlock."""
    small_done = threading.Event()
    original = Binder.bind

    def slow_bind(self: Binder, args: Any, *rest: Any) -> Any:
        if is_large(args):
            assert small_done.wait(timeout=30), "the loop was blocked"
        return original(self, args, *rest)

    monkeypatch.setattr(Binder, "bind", slow_bind)
    tools = ToolSet([total, add])

    async def small() -> Any:
        result = await tools.aexecute("a", "c2", "add", {"a": 1, "b": 2})
        small_done.set()
        return result

    async def main() -> tuple[list[Any], Any]:
        return await asyncio.gather(
            tools.run("a", [ToolCall("c1", "total", BIG)]), small()
        )

    big, small_result = asyncio.run(main())
    assert big[0].text == str(sum(BIG["xs"]))
    assert small_result.text == "3"


def test_big_invalid_arguments_give_an_error_result_off_the_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = _bind_threads(monkeypatch)

    async def main() -> tuple[threading.Thread, Any]:
        result = await total.aexecute("a", "c", {"xs": ["x"] * 100_000})
        return threading.current_thread(), result

    loop_thread, result = asyncio.run(main())
    assert result.is_error
    assert result.text.startswith('Invalid arguments for tool "total":\n- xs[0]: ')
    assert seen[0] is not loop_thread
