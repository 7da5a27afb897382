"""Tracing never holds a call: span processors and tracers that hang where the SDK calls them in a call.

OpenTelemetry's SDK calls every span processor's `on_start` inside
`start_span`, and its `on_end` inside `span.end()`. Each test gives toolkit a
tracer of a real SDK `TracerProvider` (or a tracer of its own) that blocks
at one of those steps until the test releases it, never longer than `HOLD`
seconds. The verdicts are orders of events: the call's result (or its
timeout) came back, and the event loop ran other tasks, while the plug-in
was still held; `GUARD` only bounds a test that would otherwise hang.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.context import Context as OtelContext
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)
from opentelemetry.trace import INVALID_SPAN_CONTEXT, NonRecordingSpan

from toolkit import Context, ToolCall, ToolSet, tool
from toolkit.run import _tracing

HOLD = 5.0  # the longest a plug-in holds, whatever the test does
GUARD = 30.0  # a bound on a test that would hang


class Hold:
    """Where a plug-in blocks: entered, released by the test (or after HOLD), returned."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.returned = threading.Event()

    def block(self) -> None:
        if self.entered.is_set():  # only the first time: later spans pass
            return
        self.entered.set()
        self.release.wait(HOLD)
        self.returned.set()

    @property
    def holding(self) -> bool:
        return self.entered.is_set() and not self.returned.is_set()


class Hanging(SpanProcessor):
    """A span processor that blocks in `on_start` or `on_end` (the first span only)."""

    def __init__(self, where: str, hold: Hold) -> None:
        self.where = where
        self.hold = hold

    def on_start(self, span: Span, parent_context: OtelContext | None = None) -> None:
        if self.where == "on_start":
            self.hold.block()

    def on_end(self, span: ReadableSpan) -> None:
        if self.where == "on_end":
            self.hold.block()


class HangingSpan(NonRecordingSpan):
    """A recording span of a tracer that is not the SDK's, blocking at one method."""

    def __init__(self, where: str, hold: Hold) -> None:
        super().__init__(INVALID_SPAN_CONTEXT)
        self.where = where
        self.hold = hold

    def is_recording(self) -> bool:
        return True

    def _at(self, name: str) -> None:
        if name == self.where:
            self.hold.block()

    def update_name(self, name: str) -> None:
        self._at("update_name")

    def set_attributes(self, attributes: Any) -> None:
        self._at("set_attributes")

    def add_event(self, *args: Any, **kwargs: Any) -> None:
        self._at("add_event")

    def end(self, end_time: int | None = None) -> None:
        self._at("end")


class HangingTracer:
    def __init__(self, where: str, hold: Hold) -> None:
        self.where = where
        self.hold = hold

    def start_span(self, *args: Any, **kwargs: Any) -> Any:
        if self.where == "start_span":
            self.hold.block()
        return HangingSpan(self.where, self.hold)


@pytest.fixture(autouse=True)
def no_tracer_left() -> Iterator[None]:
    yield
    _tracing.FOUND.clear()


def settle() -> None:
    _tracing._SPANS.drain(GUARD)


@tool(timeout=0.3)
async def stuck(city: str) -> str:
    """Never answer in time.

    Args:
        city: The city.
    """
    await asyncio.sleep(HOLD * 2)
    return "late"


@tool
async def quick(city: str, ctx: Context) -> str:
    """Answer at once, logging a line (an event of the call's span).

    Args:
        city: The city.
    """
    await ctx.log("info", "found")
    return f"Sunny in {city}."


@tool
def quick_sync(city: str) -> str:
    """Answer at once, from sync code.

    Args:
        city: The city.
    """
    return f"Sunny in {city}."


def calls(*names: str) -> list[ToolCall]:
    return [ToolCall(f"c{i}", name, {"city": "Paris"}) for i, name in enumerate(names)]


def checked_while_held(tools: ToolSet, hold: Hold) -> None:
    """Calls, a timeout and the event loop go on while `hold` is held; then the plug-in is released."""
    ticks_while_held = 0

    async def main() -> None:
        nonlocal ticks_while_held
        done = asyncio.Event()

        async def ticker() -> None:
            nonlocal ticks_while_held
            while not done.is_set():
                ticks_while_held += hold.holding
                await asyncio.sleep(0)

        task = asyncio.create_task(ticker())
        first = await asyncio.wait_for(tools.run("a", calls("quick")), GUARD)
        assert [r.text for r in first] == ["Sunny in Paris."]
        timed = await asyncio.wait_for(tools.run("a", calls("stuck", "quick")), GUARD)
        assert "timed out" in timed[0].text
        assert timed[1].text == "Sunny in Paris."
        assert hold.holding  # all of that while the plug-in was still held
        done.set()
        await task

    try:
        asyncio.run(main())
        assert hold.entered.is_set()
        assert ticks_while_held > 0  # the loop ran the ticker while held
        blocking = tools.execute("a", "c9", "quick_sync", {"city": "Paris"})
        assert blocking.text == "Sunny in Paris."
        assert hold.holding
    finally:
        hold.release.set()
        settle()


@pytest.mark.parametrize("where", ["on_start", "on_end"])
def test_a_hanging_span_processor_holds_no_call_timeout_or_loop(where: str) -> None:
    hold = Hold()
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(Hanging(where, hold))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    _tracing.FOUND.append(provider.get_tracer("test"))
    checked_while_held(ToolSet([stuck, quick, quick_sync]), hold)
    # Released, every span of those calls ends: none is lost to the hold.
    names = sorted(s.name for s in exporter.get_finished_spans())
    assert names == sorted(
        ["execute_tool quick"] * 2 + ["execute_tool stuck", "execute_tool quick_sync"]
    )


@pytest.mark.parametrize(
    "where", ["start_span", "update_name", "set_attributes", "add_event", "end"]
)
def test_a_hanging_tracer_holds_no_call_timeout_or_loop(where: str) -> None:
    hold = Hold()
    _tracing.FOUND.append(HangingTracer(where, hold))
    checked_while_held(ToolSet([stuck, quick, quick_sync]), hold)


def test_the_span_is_the_calls_current_one_under_the_callers_span() -> None:
    """Started in the tracing thread, the span is still the child of the caller's span and the parent of the tool's."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracer = provider.get_tracer("test")
    _tracing.FOUND.append(tracer)

    @tool
    def inner(city: str) -> str:
        """Trace a step of its own.

        Args:
            city: The city.
        """
        with tracer.start_as_current_span("lookup"):
            return city

    tools = ToolSet([inner])
    with tracer.start_as_current_span("agent"):
        assert tools.execute("a", "c1", "inner", {"city": "Paris"}).text == "Paris"
    settle()
    by_name = {s.name: s for s in exporter.get_finished_spans()}
    agent, call, lookup = (
        by_name["agent"],
        by_name["execute_tool inner"],
        by_name["lookup"],
    )
    assert call.parent is not None
    assert agent.context is not None
    assert call.parent.span_id == agent.context.span_id
    assert lookup.parent is not None
    assert call.context is not None
    assert lookup.parent.span_id == call.context.span_id
    assert call.start_time is not None
    assert lookup.start_time is not None
    assert call.start_time <= lookup.start_time


def test_a_call_cancelled_while_its_span_starts_never_runs_and_its_span_ends() -> None:
    """Cancelled during the wait for the span's start: the steps are closed (never "never awaited"), the span still ends."""
    import gc
    import warnings

    hold = Hold()
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(Hanging("on_start", hold))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    _tracing.FOUND.append(provider.get_tracer("test"))
    ran: list[str] = []
    tools = ToolSet()

    @tools.tool
    async def work(city: str) -> str:
        """Work."""
        ran.append(city)
        return city

    async def cancelled() -> None:
        task = asyncio.ensure_future(tools.aexecute("a", "c1", "work", {"city": "x"}))
        await asyncio.to_thread(hold.entered.wait, GUARD)  # the span is starting
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        asyncio.run(cancelled())
        hold.release.set()
        settle()
        gc.collect()
    assert ran == []
    assert [str(w.message) for w in caught if "never awaited" in str(w.message)] == []
    assert [span.name for span in exporter.get_finished_spans()] == [
        "execute_tool work"
    ]
