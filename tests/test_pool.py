"""Sync tools run on toolkit's own bounded pool of threads (counted, never timed)."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from toolkit import ToolCall, ToolDefinitionError, ToolResult, ToolSet

LIMIT = 60.0  # seconds before a wait counts as a hang


class Gate:
    """Sync tools that block until released, and count how many started."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started = 0
        self._lock = threading.Lock()

    def enter(self) -> None:
        with self._lock:
            self.started += 1
        self.release.wait(LIMIT)


@pytest.fixture(name="gate")
def fixture_gate() -> Iterator[Gate]:
    gate = Gate()
    try:
        yield gate
    finally:
        gate.release.set()


def _alive_new(before: set[threading.Thread]) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t not in before and t.is_alive()]


async def _until(predicate: Any) -> None:
    async def wait() -> None:
        while not predicate():
            await asyncio.sleep(0.005)

    await asyncio.wait_for(wait(), LIMIT)


def _stuck_set(gate: Gate, max_threads: int, timeout: float | None) -> ToolSet:
    tools = ToolSet(max_threads=max_threads)

    @tools.tool(timeout=timeout)
    def stuck(n: int) -> str:
        """Block until released."""
        gate.enter()
        return "late"

    @tools.tool
    def free() -> str:
        """Return at once."""
        return "free"

    return tools


def test_timed_out_threads_never_exceed_the_pool(
    gate: Gate, caplog: pytest.LogCaptureFixture
) -> None:
    # a timeout long enough for a free thread to start the call, even on a busy machine
    tools = _stuck_set(gate, max_threads=4, timeout=1)
    before = set(threading.enumerate())
    calls = [ToolCall(str(n), "stuck", {"n": n}) for n in range(200)]
    with caplog.at_level(logging.WARNING, logger="toolkit"):
        results = asyncio.run(tools.run("a", calls))
        for n in range(3):  # and from sync code, while four calls hold the threads
            assert tools.execute("a", "s", "stuck", {"n": n}).is_error
    timed_out = ToolResult.error('Tool "stuck" timed out after 1 seconds.')
    assert results == [timed_out] * 200
    assert len(_alive_new(before)) == 4
    assert gate.started == 4  # a call that never got a thread never ran
    messages = [record.getMessage() for record in caplog.records]
    held = "Tool 'stuck' timed out after 1 seconds; its thread runs until the function returns"
    never = "Tool 'stuck' timed out after 1 seconds; it never started: all 4 threads for sync tools were busy"
    full = "All 4 threads for sync tools are busy, 4 of them with calls that timed out"
    assert sum(message.startswith(held) for message in messages) == 4
    assert sum(message == never for message in messages) == 199
    assert sum(message.startswith(full) for message in messages) == 1


def test_calls_are_starved_only_when_timed_out_calls_hold_every_thread(
    gate: Gate,
) -> None:
    tools = _stuck_set(gate, max_threads=4, timeout=1)
    ran = 0

    @tools.tool(timeout=1)
    def counted() -> str:
        """Count."""
        nonlocal ran
        ran += 1
        return "ran"

    async def main() -> None:
        stuck = [ToolCall(str(n), "stuck", {"n": n}) for n in range(3)]
        assert len(await tools.run("a", stuck)) == 3
        await _until(lambda: gate.started == 3)
        # three of four threads are held by calls that timed out: one is free
        assert await asyncio.wait_for(tools.aexecute("a", "f", "free", {}), LIMIT) == (
            ToolResult("free")
        )
        await tools.aexecute("a", "4", "stuck", {"n": 4})
        await _until(lambda: gate.started == 4)
        # now all four are held: a new call waits, times out, and never runs
        assert await tools.aexecute("a", "c", "counted", {}) == ToolResult.error(
            'Tool "counted" timed out after 1 seconds.'
        )
        gate.release.set()
        assert await asyncio.wait_for(
            tools.aexecute("a", "c", "counted", {}), LIMIT
        ) == (ToolResult("ran"))

    asyncio.run(main())
    assert ran == 1


def test_sixty_slow_sync_calls_leave_room_for_another(gate: Gate) -> None:
    tools = _stuck_set(gate, max_threads=64, timeout=None)
    shared = ToolSet(list(tools))  # toolkit's shared pool, also 64 threads
    assert (tools.max_threads, shared.max_threads) == (64, 64)

    async def main(target: ToolSet) -> None:
        gate.started = 0
        slow = asyncio.ensure_future(
            target.run("a", [ToolCall(str(n), "stuck", {"n": n}) for n in range(60)])
        )
        await _until(lambda: gate.started == 60)
        assert await asyncio.wait_for(target.aexecute("a", "f", "free", {}), LIMIT) == (
            ToolResult("free")
        )
        gate.release.set()
        assert await asyncio.wait_for(slow, LIMIT) == [ToolResult("late")] * 60
        gate.release.clear()

    asyncio.run(main(tools))
    asyncio.run(main(shared))


@pytest.mark.parametrize("bad", [0, -1, True, 2.5, "4"])
def test_max_threads_must_be_a_positive_whole_number(bad: Any) -> None:
    with pytest.raises(ToolDefinitionError) as caught:
        ToolSet(max_threads=bad)
    assert str(caught.value) == (
        f"max_threads={bad!r}: give the number of threads for sync tools, at least 1"
    )


def test_derived_sets_share_the_pool() -> None:
    tools = ToolSet(max_threads=3)
    assert tools.max_threads == 3
    assert tools.prefixed("p_").max_threads == 3
    assert (tools | ToolSet()).max_threads == 3
    assert ToolSet().max_threads == 64


def test_a_pool_thread_survives_whatever_the_tool_raises() -> None:
    tools = ToolSet(max_threads=1)

    @tools.tool
    def stop() -> str:
        """Raise what asyncio cannot put on a Future."""
        raise StopIteration

    @tools.tool
    def fine() -> str:
        """Fine."""
        return "fine"

    async def main() -> list[ToolResult]:
        return await asyncio.wait_for(
            tools.run("a", [ToolCall("1", "stop", {}), ToolCall("2", "fine", {})] * 5),
            LIMIT,
        )

    assert (
        asyncio.run(main())
        == [
            ToolResult.error("StopIteration"),
            ToolResult("fine"),
        ]
        * 5
    )


def test_calls_after_a_burst_beyond_the_pool_and_its_threads_ending_still_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A burst of more sync calls than threads, the threads then ending idle: a later call still gets a thread.

    The calls queued while every thread was busy were counted as idle threads
    once run, so after the threads ended the pool believed it had idle ones
    and a new call waited for a thread that no longer existed.
    """
    from toolkit.run import _running

    monkeypatch.setattr(_running, "_IDLE_SECONDS", 0.05)  # threads end soon when idle
    tools = ToolSet(max_threads=2)

    @tools.tool
    def echo(n: int) -> int:
        """Return n."""
        return n

    pool = tools._pool
    assert pool is not None

    async def main() -> list[int]:
        burst = await tools.run(
            "a", [ToolCall(f"b{n}", "echo", {"n": n}) for n in range(20)]
        )
        assert [int(r.text) for r in burst] == list(range(20))
        await _until(lambda: pool.threads == 0)  # every thread ended, idle
        later = [tools.aexecute("a", f"l{n}", "echo", {"n": n}) for n in range(3)]
        return [
            int(r.text) for r in await asyncio.wait_for(asyncio.gather(*later), LIMIT)
        ]

    assert asyncio.run(main()) == [0, 1, 2]
