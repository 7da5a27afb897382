"""Each fast path of a call gives exactly what its reference path gives (differential tests).

A call with valid arguments and nothing to convert skips the full binding
(`Invoker.bind`); these tests run the same arguments through a tool with the
fast path and through a copy whose fast path is switched off, and compare the
results and what the function received, value and type alike.
"""

from __future__ import annotations

import asyncio
import inspect
import sys
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolkit import Context, Tool, ToolCall, ToolError, ToolResult, ToolSet, tool

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

    def record(kwargs: dict[str, Any]) -> None:
        seen.append(
            {
                name: (value.call_id if name == "ctx" else value, type(value))
                for name, value in kwargs.items()
            }
        )

    recording: Callable[..., Any]
    if inspect.iscoroutinefunction(function):

        async def recording(*args: Any, **kwargs: Any) -> Any:
            record(kwargs)
            return await function(*args, **kwargs)

    else:

        def recording(*args: Any, **kwargs: Any) -> Any:
            record(kwargs)
            return function(*args, **kwargs)

    recording.__signature__ = inspect.signature(function)  # type: ignore[union-attr]
    recording.__doc__ = function.__doc__
    recording.__annotations__ = function.__annotations__
    recording.__name__ = function.__name__
    fast = tool(**options)(recording)
    slow = tool(**options)(recording)
    _reference(slow)
    return fast, slow, seen


def _reference(made: Tool[Any, Any]) -> None:
    """Switch off every fast path of `made`: each call goes the full, general way."""
    plan = made._plan
    plan.compile()
    plan._direct = None
    plan._adirect = None
    plan._fast = None  # aexecute_into's own path
    plan._call = None  # the function called through the plan's target


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


async def amap(a: int, b: float) -> dict[str, float]:
    """Map, async, with an output schema.

    Args:
        a: An int.
        b: A number.
    """
    if a % 4 == 3:
        return "not a mapping"  # type: ignore[return-value]  # text the schema refuses
    return {"a": a, "b": b}


async def afaults(a: int, b: float) -> str:
    """Fail as `a` says, async.

    Args:
        a: Which way.
        b: A number.
    """
    if a % 5 == 1:
        raise ToolError(f"refused {a}")
    if a % 5 == 2:
        raise RuntimeError(f"boom {a}")
    if a % 5 == 3:
        raise asyncio.CancelledError  # the tool's own, not the caller's
    if a % 5 == 4:
        number: Any = b
        return await asyncio.sleep(0, result=number)  # not text
    return f"{a}"


async def anested(a: int, b: float) -> Any:
    """Return an awaitable, async.

    Args:
        a: An int.
        b: A number.
    """
    return asyncio.sleep(0, result=f"{a}:{b}")


async def acontext(ctx: Context, a: int, b: float) -> str:
    """Use the context, async.

    Args:
        a: An int.
        b: A number.
    """
    return f"{ctx.call_id}:{ctx.tool_name}:{a + b}"


PAIRS = {
    "sync in a thread": _pair(sums),
    "sync with a timeout": _pair(sums, timeout=30),
    "sync on the loop": _pair(sums, thread=False),
    "list": _pair(listing),
    "async": _pair(asum),
    "async with a timeout": _pair(asum, timeout=30),
    "async with an output schema": _pair(amap),
    "async that fails": _pair(afaults),
    "async returning an awaitable": _pair(anested),
}


async def apositional(a: int, /, b: float) -> str:
    """Take `a` by position, async.

    Args:
        a: An int.
        b: A number.
    """
    return f"{a}:{b}"


CONTEXT = _pair(acontext)  # no direct binding: the Context is added
POSITIONAL = _pair(apositional)  # no direct binding, nor a direct call


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
        assert fast._plan._call is not None
    inline = {
        name for name, (fast, _, _) in PAIRS.items() if fast._plan._fast is not None
    }
    expected = {
        "async",
        "async with an output schema",
        "async that fails",
        "async returning an awaitable",
    }
    assert inline == (expected if sys.version_info >= (3, 11) else set())
    assert PAIRS["async with an output schema"][0].output_schema is not None
    CONTEXT[0]._plan.compile()
    assert CONTEXT[0]._plan._call is not None
    POSITIONAL[0]._plan.compile()
    assert POSITIONAL[0]._plan._call is None


def _run_both(
    fast: Tool[Any, Any], slow: Tool[Any, Any], seen: list[Any], batch: list[Any]
) -> None:
    """A turn through `ToolSet.run` with the fast paths, and each call alone through the reference path."""
    calls = [ToolCall(f"c{index}", fast.name, args) for index, args in enumerate(batch)]
    calls.insert(1, ToolCall("u", "nothing", {}))  # a name of no tool, mixed in

    async def both() -> tuple[list[ToolResult], list[Any], list[ToolResult], list[Any]]:
        seen.clear()
        ours = await ToolSet([fast]).run("a", calls)
        fast_seen = sorted(seen, key=repr)
        seen.clear()
        reference = ToolSet([slow])
        theirs = [
            await reference.aexecute("a", call.id, call.name, call.args)
            for call in calls
        ]
        return ours, fast_seen, theirs, sorted(seen, key=repr)

    ours, fast_seen, theirs, slow_seen = asyncio.run(both())
    assert ours == theirs
    assert fast_seen == slow_seen


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    which=st.sampled_from(sorted(PAIRS)),
    batch=st.lists(arguments, min_size=2, max_size=6),
)
def test_a_turn_of_calls_matches_each_call_through_the_reference_path(
    which: str, batch: list[Any]
) -> None:
    _run_both(*PAIRS[which], batch)


def test_every_outcome_of_a_fast_turn_matches_the_reference_path() -> None:
    batch = [{"a": a, "b": 0.5} for a in range(10)]
    for fast, slow, seen in [*PAIRS.values(), CONTEXT, POSITIONAL]:
        _run_both(fast, slow, seen, batch)
        _run_both(
            fast, slow, seen, [{"a": "x", "b": 1}, {"a": 1}, [], {"a": 2, "b": 2}]
        )
    for args in batch:
        _same(*POSITIONAL, args)
    assert asyncio.run(
        POSITIONAL[0].aexecute("a", "c", {"a": 1, "b": 2})
    ) == ToolResult("1:2.0")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(args=arguments)
def test_a_context_tool_called_directly_matches_the_reference_path(args: Any) -> None:
    _same(*CONTEXT, args)


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


def _shut_down_before_the_tasks_start(make: Callable[[], Any]) -> list[str]:
    """Start `make()` as the caller's task, stop the loop once it has made its
    tasks, then cancel every task before any of them has begun, as a loop's
    shutdown does; the "never awaited" warnings that collecting the
    leftovers raises."""
    import gc
    import warnings

    loop = asyncio.new_event_loop()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            caller = loop.create_task(make())
            loop.call_soon(loop.stop)
            loop.run_forever()  # the caller has made its tasks; none has begun
            waiting = asyncio.all_tasks(loop)
            assert len(waiting) > 1  # the caller and the tasks it made
            for task in waiting:
                task.cancel()
            try:
                loop.run_until_complete(caller)
            except asyncio.CancelledError:
                pass
            else:
                raise AssertionError("not cancelled")
            del caller, waiting, task
            gc.collect()
    finally:
        loop.close()
    return [
        str(item.message) for item in caught if "never awaited" in str(item.message)
    ]


def test_fan_out_cancelled_before_its_tasks_begin_leaves_no_coroutine_unawaited() -> (
    None
):
    from toolkit._running import fan_out

    async def work(index: int) -> int:
        await asyncio.sleep(0)
        return index

    def make() -> Any:
        return fan_out([work(index) for index in range(5)])

    assert _shut_down_before_the_tasks_start(make) == []


def test_a_cancelled_turn_cancels_each_fast_call_as_the_reference_path_does(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ended: list[str] = []

    async def slow(a: int) -> str:
        """Wait long.

        Args:
            a: An int.
        """
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            await asyncio.sleep(0)  # cleanup that takes a turn of the loop
            ended.append(f"cancelled {a}")
            raise
        return "never"

    fast = tool(slow)
    reference = tool(slow)
    _reference(reference)
    calls = [ToolCall(str(a), "slow", {"a": a}) for a in range(5)]

    async def cancelled(tools: ToolSet) -> int:
        task = asyncio.ensure_future(tools.run("a", calls))
        await asyncio.sleep(0.01)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            return len(ended)  # every call finished before the caller resumed
        raise AssertionError("not cancelled")

    for made in (fast, reference):
        ended.clear()
        caplog.clear()
        assert asyncio.run(asyncio.wait_for(cancelled(ToolSet([made])), 30)) == 5
        assert sorted(ended) == [f"cancelled {a}" for a in range(5)]
        assert caplog.records == []  # the caller's cancellation is no tool failure


def test_a_turn_cancelled_before_its_tasks_begin_leaves_no_coroutine_unawaited() -> (
    None
):
    fast, _, _ = PAIRS["async"]
    calls = [
        ToolCall("1", "asum", {"a": 1, "b": 2.0}),  # the fast path
        ToolCall("2", "nothing", {}),  # a name of no tool: an answer to await
        ToolCall("3", "asum", {"a": "x"}),  # the full path
    ]

    def make() -> Any:
        return ToolSet([fast]).run("a", calls)

    assert _shut_down_before_the_tasks_start(make) == []
