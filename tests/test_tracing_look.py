"""A process that imported the OpenTelemetry SDK but set no tracer provider pays for tracing once per `LOOK_EVERY`.

The API's `get_tracer_provider` reads the environment on every call
(2 µs, a third of a call), so toolkit asks it at most every `LOOK_EVERY`
seconds until a provider is set. These run in a process of their own: a
provider can be set once per process.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import textwrap

ROOT = pathlib.Path(__file__).parent.parent


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return done.stdout.strip().splitlines()[-1]


def test_without_a_provider_the_api_is_asked_once_per_interval() -> None:
    out = _run(
        """
        import time
        import opentelemetry.sdk.trace  # imported, no provider set
        import opentelemetry.trace as trace
        from toolkit import tool
        from toolkit.run._tracing import LOOK_EVERY

        asked = []
        real = trace.get_tracer_provider
        trace.get_tracer_provider = lambda: asked.append(1) or real()

        @tool
        def add(a: int, b: int) -> int:
            "Add."
            return a + b

        started = time.monotonic()
        results = [add.execute("a", str(i), {"a": i, "b": 1}).text for i in range(2000)]
        elapsed = time.monotonic() - started
        assert results == [str(i + 1) for i in range(2000)]
        print(len(asked), int(elapsed / LOOK_EVERY) + 1)
        """
    )
    asked, intervals = map(int, out.split())
    assert 1 <= asked <= intervals


def test_a_provider_set_while_calls_run_traces_the_calls_after_the_interval() -> None:
    out = _run(
        """
        import time
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        from toolkit import tool
        from toolkit.run._tracing import LOOK_EVERY

        @tool
        def add(a: int, b: int) -> int:
            "Add."
            return a + b

        add.execute("a", "before", {"a": 1, "b": 1})  # untraced: no provider yet
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        time.sleep(LOOK_EVERY * 1.5)
        assert add.execute("a", "after", {"a": 2, "b": 2}).text == "4"
        time.sleep(0.5)  # the span ends in toolkit's tracing thread
        print([span.attributes.get("gen_ai.tool.call.id") for span in exporter.get_finished_spans()])
        """
    )
    assert out == "['after']"
