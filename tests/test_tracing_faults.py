"""Tracing never reaches a call: faults of the OpenTelemetry SDK's plug-ins and of the redaction hook.

Each test gives toolkit a tracer of a real SDK `TracerProvider` (as
tests/test_tracing.py does) with a span processor or exporter that raises
or blocks. A blocking one waits on an event the test sets, never longer than
`HOLD` seconds, so that the verdict is an order of events (the call's
result came back while the exporter was still held), not a measured time;
`GUARD` only bounds a test that would otherwise hang.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Generator, Iterator, Sequence
from typing import Any

import pytest
from opentelemetry.context import Context as OtelContext
from opentelemetry.sdk.trace import ReadableSpan, Span, SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import (
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)

from toolkit import ToolCall, ToolSet, tool
from toolkit.run import _tracing

HOLD = 3.0  # the longest a blocking exporter or hook holds, whatever the test does
GUARD = 30.0  # a bound on a test that would hang


class Held(SpanExporter):
    """An exporter that blocks in `export` until released (at most HOLD seconds)."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.release = threading.Event()
        self.exported: list[str] = []

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        self.entered.set()
        self.release.wait(HOLD)
        self.exported.extend(span.name for span in spans)
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        self.release.set()


class Raising(SpanProcessor):
    """A span processor that raises in `on_start` or `on_end`."""

    def __init__(self, where: str) -> None:
        self.where = where
        self.seen = 0

    def on_start(self, span: Span, parent_context: OtelContext | None = None) -> None:
        self.seen += 1
        if self.where == "on_start":
            raise RuntimeError("on_start failed")

    def on_end(self, span: ReadableSpan) -> None:
        if self.where == "on_end":
            raise RuntimeError("on_end failed")


class RaisingSpan:
    """A span of a tracer that is not the SDK's, failing at one method."""

    def __init__(self, where: str) -> None:
        self.where = where

    def __getattr__(self, name: str) -> Any:
        if name == self.where:

            def fail(*args: Any, **kwargs: Any) -> Any:
                raise RuntimeError(f"{name} failed")

            return fail
        if name == "is_recording":
            return lambda: True
        return lambda *args, **kwargs: None


class RaisingTracer:
    def __init__(self, where: str) -> None:
        self.where = where

    def start_span(self, *args: Any, **kwargs: Any) -> Any:
        if self.where == "start_span":
            raise RuntimeError("start_span failed")
        return RaisingSpan(self.where)


def traced_with(*processors: SpanProcessor) -> Generator[TracerProvider, None, None]:
    provider = TracerProvider()
    for processor in processors:
        provider.add_span_processor(processor)
    _tracing.FOUND.append(provider.get_tracer("test"))
    try:
        yield provider
    finally:
        _tracing.FOUND.clear()


@pytest.fixture(autouse=True)
def fresh_log(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test sees tracing's first failure of each step logged."""
    monkeypatch.setattr(_tracing, "_LOGGED", {}, raising=False)


def settle() -> None:
    """Let the spans' steps queued so far run (bounded)."""
    spans = getattr(_tracing, "_SPANS", None)
    if spans is not None:
        spans.drain(GUARD)


@pytest.fixture
def held() -> Iterator[Held]:
    exporter = Held()
    gen = traced_with(SimpleSpanProcessor(exporter))
    next(gen)
    yield exporter
    exporter.release.set()
    settle()
    gen.close()


@tool(timeout=0.5)
async def stuck(city: str) -> str:
    """Never answer in time.

    Args:
        city: The city.
    """
    await asyncio.sleep(HOLD * 2)
    return "late"


@tool
async def quick(city: str) -> str:
    """Answer at once.

    Args:
        city: The city.
    """
    return f"Sunny in {city}."


@tool
def quick_sync(city: str) -> str:
    """Answer at once, from sync code.

    Args:
        city: The city.
    """
    return f"Sunny in {city}."


def calls(*names: str) -> list[ToolCall]:
    return [
        ToolCall(f"c{index}", name, {"city": "Paris"})
        for index, name in enumerate(names)
    ]


class TestHangingExporter:
    def test_a_call_comes_back_at_its_timeout_while_the_exporter_hangs(
        self, held: Held
    ) -> None:
        """The exporter of a SimpleSpanProcessor runs in span.end(); the timed-out call does not wait for it."""
        tools = ToolSet([stuck, quick])

        async def main() -> tuple[list[str], bool, list[str], bool]:
            (first,) = await asyncio.wait_for(tools.run("a", calls("stuck")), GUARD)
            first_while_held = held.entered.is_set() and not held.release.is_set()
            # The tracing thread is held by the first span now: later calls do not wait at all.
            later = await asyncio.wait_for(
                tools.run("a", calls("quick", "quick", "quick")), GUARD
            )
            later_while_held = not held.release.is_set() and held.exported == []
            return (
                [first.text],
                first_while_held,
                [r.text for r in later],
                later_while_held,
            )

        first, first_while_held, later, later_while_held = asyncio.run(main())
        assert "timed out" in first[0]
        assert first_while_held
        assert later == ["Sunny in Paris."] * 3
        assert later_while_held
        held.release.set()
        settle()
        assert held.exported == ["execute_tool stuck"] + ["execute_tool quick"] * 3

    def test_the_event_loop_keeps_serving_while_the_exporter_hangs(
        self, held: Held
    ) -> None:
        """Other tasks of the loop run while a span's export is held."""
        tools = ToolSet([quick])
        ticks: list[bool] = []

        async def main() -> None:
            async def ticker() -> None:
                while not held.release.is_set():
                    ticks.append(held.entered.is_set() and not held.exported)
                    await asyncio.sleep(0.01)

            task = asyncio.create_task(ticker())
            (result,) = await asyncio.wait_for(tools.run("a", calls("quick")), GUARD)
            assert result.text == "Sunny in Paris."
            assert not held.release.is_set()
            held.release.set()
            await asyncio.wait_for(task, GUARD)

        asyncio.run(main())
        assert any(ticks)  # the loop ran the ticker while the export was held

    def test_a_blocking_call_comes_back_while_the_exporter_hangs(
        self, held: Held
    ) -> None:
        tools = ToolSet([quick_sync])
        result = tools.execute("a", "c1", "quick_sync", {"city": "Paris"})
        assert result.text == "Sunny in Paris."
        assert held.entered.is_set()
        assert not held.release.is_set()
        assert held.exported == []


class TestRaisingPlugins:
    @pytest.mark.parametrize("where", ["on_start", "on_end"])
    def test_a_raising_span_processor_never_reaches_a_call(
        self, where: str, caplog: pytest.LogCaptureFixture
    ) -> None:
        processor = Raising(where)
        exporter = InMemorySpanExporter()
        gen = traced_with(processor, SimpleSpanProcessor(exporter))
        next(gen)
        try:
            tools = ToolSet([quick, quick_sync])
            results = asyncio.run(tools.run("a", calls("quick", "quick_sync")))
            assert [r.text for r in results] == ["Sunny in Paris."] * 2
            blocking = tools.execute("a", "c9", "quick_sync", {"city": "Paris"})
            assert blocking.text == "Sunny in Paris."
            settle()
        finally:
            gen.close()
        assert processor.seen == 3
        failures = [
            r.getMessage()
            for r in caplog.records
            if r.name == "toolkit" and "Tracing failed" in r.getMessage()
        ]
        assert len(failures) == 1  # once a minute, not once a call

    @pytest.mark.parametrize(
        "where",
        [
            "start_span",
            "set_attributes",
            "update_name",
            "set_attribute",
            "end",
            "add_event",
            "set_status",
        ],
    )
    def test_a_raising_tracer_never_reaches_a_call(self, where: str) -> None:
        _tracing.FOUND.append(RaisingTracer(where))
        try:
            tools = ToolSet([quick, quick_sync], trace_content=True)
            results = asyncio.run(tools.run("a", calls("quick", "quick_sync")))
            assert [r.text for r in results] == ["Sunny in Paris."] * 2
            assert (
                tools.execute("a", "c9", "quick_sync", {"city": "Paris"}).text
                == "Sunny in Paris."
            )
            failed = tools.execute("a", "c9", "quick_sync", {"town": "Paris"})
            assert failed.is_error
            assert "city" in failed.text
            settle()
        finally:
            _tracing.FOUND.clear()


class TestHook:
    def test_a_hanging_trace_content_hook_never_holds_a_call(self) -> None:
        exporter = InMemorySpanExporter()
        gen = traced_with(SimpleSpanProcessor(exporter))
        next(gen)
        entered, release, done = threading.Event(), threading.Event(), threading.Event()

        def redact(name: str, value: Any) -> Any:
            entered.set()
            release.wait(HOLD)
            done.set()
            return value

        try:
            tools = ToolSet([quick], trace_content=redact)
            (result,) = asyncio.run(tools.run("a", calls("quick")))
            assert result.text == "Sunny in Paris."
            assert entered.is_set()
            assert not done.is_set()
            release.set()
            settle()
            assert [s.name for s in exporter.get_finished_spans()] == [
                "execute_tool quick"
            ]
        finally:
            release.set()
            gen.close()


def test_a_span_left_by_a_cancelled_call_ends() -> None:
    exporter = InMemorySpanExporter()
    gen = traced_with(SimpleSpanProcessor(exporter))
    next(gen)
    try:
        tools = ToolSet([stuck])

        async def main() -> None:
            task = asyncio.create_task(tools.run("a", calls("stuck")))
            await asyncio.sleep(0.05)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        asyncio.run(main())
        settle()
        assert [s.name for s in exporter.get_finished_spans()] == ["execute_tool stuck"]
    finally:
        gen.close()


def test_no_tracing_thread_without_a_tracer() -> None:
    """With no tracer, calls queue nothing (the gate is one look-up)."""
    assert not _tracing.FOUND
    before = len(_tracing._SPANS._jobs)
    tools = ToolSet([quick])
    asyncio.run(tools.run("a", calls("quick", "quick")))
    assert len(_tracing._SPANS._jobs) == before == 0
