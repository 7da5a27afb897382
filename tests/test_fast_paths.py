"""Each fast path of a call gives exactly what its reference path gives (differential tests).

A call with valid arguments and nothing to convert skips the full binding
(`Invoker.bind`); these tests run the same arguments through a tool with the
fast path and through a copy whose fast path is switched off, and compare the
results and what the function received, value and type alike.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolkit import Tool, ToolResult, tool

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False),
    st.text(max_size=8),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
KEYS = ["a", "b", "c", "flag", "tags", "extra"]
valid = st.one_of(
    st.fixed_dictionaries(
        {"a": st.integers(), "b": st.floats(allow_nan=False) | st.integers()},
        optional={"c": st.text(max_size=8)},
    ),
    st.fixed_dictionaries(
        {"tags": st.lists(st.text(max_size=4), max_size=3), "flag": st.booleans()}
    ),
)
arguments = st.one_of(
    valid,
    st.dictionaries(st.sampled_from(KEYS), values, max_size=6),
    st.builds(lambda a, b, c: {"a": a, "b": b, "c": c}, scalars, scalars, scalars),
)


def _pair(
    function: Callable[..., Any], **options: Any
) -> tuple[Tool[Any, Any], Tool[Any, Any], list[Any]]:
    """The tool with its fast paths, the same tool without, and the kwargs each call received."""
    seen: list[Any] = []

    def recording(*args: Any, **kwargs: Any) -> Any:
        seen.append({name: (value, type(value)) for name, value in kwargs.items()})
        return function(*args, **kwargs)

    recording.__signature__ = __import__("inspect").signature(function)  # type: ignore[attr-defined]
    recording.__doc__ = function.__doc__
    recording.__annotations__ = function.__annotations__
    recording.__name__ = function.__name__
    fast = tool(**options)(recording)
    slow = tool(**options)(recording)
    slow._plan.compile()
    slow._plan._direct = None
    slow._plan._adirect = None
    return fast, slow, seen


def sums(a: int, b: float, c: str) -> str:
    """Add.

    Args:
        a: An int.
        b: A number.
        c: A text.
    """
    return f"{a + b}{c}"


def listing(tags: list[str], flag: bool) -> dict[str, Any]:
    """List.

    Args:
        tags: Tags.
        flag: A flag.
    """
    return {"tags": tags, "flag": flag}


async def asum(a: int, b: float) -> str:
    """Add, async.

    Args:
        a: An int.
        b: A number.
    """
    return str(a + b)


def _same(
    fast: Tool[Any, Any], slow: Tool[Any, Any], seen: list[Any], args: Any
) -> None:
    async def both() -> tuple[ToolResult, list[Any], ToolResult, list[Any]]:
        seen.clear()
        one = await fast.aexecute("a", "c", args)
        fast_seen = list(seen)
        seen.clear()
        two = await slow.aexecute("a", "c", args)
        return one, fast_seen, two, list(seen)

    one, fast_seen, two, slow_seen = asyncio.run(both())
    assert one == two
    assert fast_seen == slow_seen


PAIRS = {
    "sync in a thread": _pair(sums),
    "sync with a timeout": _pair(sums, timeout=30),
    "sync on the loop": _pair(sums, thread=False),
    "list": _pair(listing),
    "async": _pair(asum),
    "async with a timeout": _pair(asum, timeout=30),
}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(which=st.sampled_from(sorted(PAIRS)), args=arguments)
def test_the_direct_binding_of_aexecute_matches_the_full_binding(
    which: str, args: Any
) -> None:
    _same(*PAIRS[which], args)


def test_every_pair_has_a_fast_path_to_compare() -> None:
    for fast, _, _ in PAIRS.values():
        fast._plan.compile()
        assert fast._plan._adirect is not None


def test_valid_arguments_reach_the_function_alike() -> None:
    fast, slow, seen = PAIRS["sync in a thread"]
    _same(fast, slow, seen, {"a": 1, "b": 2.5, "c": "x"})
    assert seen == [{"a": (1, int), "b": (2.5, float), "c": ("x", str)}]
    _same(fast, slow, seen, {"a": 1, "b": 2, "c": "x"})  # an int for a float: converted
    assert seen == [{"a": (1, int), "b": (2.0, float), "c": ("x", str)}]


# ------------------------------------------------------------------ fan_out


def test_fan_out_gives_what_gather_gives() -> None:
    from toolkit._running import fan_out

    async def value(index: int) -> int:
        for _ in range(index % 3):
            await asyncio.sleep(0)
        return index * 2

    async def both() -> tuple[list[int], list[int]]:
        ours = await fan_out([value(index) for index in range(50)])
        theirs = await asyncio.gather(*(value(index) for index in range(50)))
        return ours, list(theirs)

    ours, theirs = asyncio.run(both())
    assert ours == theirs == [index * 2 for index in range(50)]
    assert asyncio.run(fan_out([])) == []


def test_fan_out_raises_the_first_exception_as_gather_does() -> None:
    from toolkit._running import fan_out

    class Boom(Exception):
        pass

    async def fails() -> int:
        await asyncio.sleep(0)
        raise Boom

    async def fine() -> int:
        return 1

    async def main() -> None:
        try:
            await fan_out([fine(), fails(), fine()])
        except Boom:
            return
        raise AssertionError("no exception")

    asyncio.run(main())


def test_cancelling_fan_out_cancels_every_task_and_waits_for_them() -> None:
    from toolkit._running import fan_out

    ended: list[str] = []

    async def slow(index: int) -> int:
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            await asyncio.sleep(0)  # cleanup that takes a turn of the loop
            ended.append(f"cancelled {index}")
            raise
        return index

    async def main() -> None:
        task = asyncio.ensure_future(fan_out([slow(index) for index in range(5)]))
        await asyncio.sleep(0.01)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            finished = len(ended)  # every task finished before the caller resumed
            assert finished == 5
            return
        raise AssertionError("not cancelled")

    asyncio.run(asyncio.wait_for(main(), 30))
    assert sorted(ended) == [f"cancelled {index}" for index in range(5)]


def test_a_task_cancelled_from_outside_cancels_fan_out_as_with_gather() -> None:
    from toolkit._running import fan_out

    async def main() -> str:
        holder: list[asyncio.Task[Any]] = []

        async def victim() -> int:
            holder.append(asyncio.current_task())  # type: ignore[arg-type]
            await asyncio.sleep(60)
            return 1

        async def killer() -> int:
            await asyncio.sleep(0.01)
            holder[0].cancel()
            return 2

        try:
            await fan_out([victim(), killer()])
        except asyncio.CancelledError:
            return "cancelled"
        return "finished"

    assert asyncio.run(asyncio.wait_for(main(), 30)) == "cancelled"
