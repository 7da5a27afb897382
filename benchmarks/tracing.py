"""The cost of OpenTelemetry on a call: `python benchmarks/tracing.py --markdown benchmarks/tracing.md`.

Each figure is measured in a process of its own, since a tracer provider is
set once per process and importing the SDK changes what a call checks:

- no SDK imported (the API installed, as the `mcp` extra brings it);
- the SDK imported but no provider set;
- a provider set: every call makes an `execute_tool` span, recorded by a
  processor that exports nowhere.

Each is the median over 9 batches of `tool.execute` of a three-argument
tool, and the ratio is to the first, measured the same way.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap

CASES = {
    "no SDK imported": "",
    "SDK imported, no provider set": "import opentelemetry.sdk.trace",
    "SDK provider set, every call a recorded span": textwrap.dedent(
        """
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult

        class Nowhere(SpanExporter):
            def export(self, spans):
                return SpanExportResult.SUCCESS

        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(Nowhere()))
        trace.set_tracer_provider(provider)
        """
    ),
}

TIMED = textwrap.dedent(
    """
    import json, statistics, time
    from toolkit import tool

    @tool
    def add(a: int, b: int, c: int) -> int:
        \"\"\"Add three numbers.

        Args:
            a: The first.
            b: The second.
            c: The third.
        \"\"\"
        return a + b + c

    args = {"a": 1, "b": 2, "c": 3}
    assert add.execute("a", "c", args).text == "6"
    samples = []
    for _ in range(9):
        started = time.perf_counter()
        for _ in range(20000):
            add.execute("a", "c", args)
        samples.append((time.perf_counter() - started) / 20000)
    print(json.dumps(statistics.median(samples)))
    """
)


def measure(setup: str) -> float:
    done = subprocess.run(
        [sys.executable, "-c", setup + "\n" + TIMED],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return float(json.loads(done.stdout))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--markdown", help="write the table here too")
    options = parser.parse_args()
    figures = {name: measure(setup) for name, setup in CASES.items()}
    base = figures["no SDK imported"]
    lines = [
        "| OpenTelemetry | `tool.execute` (µs, median) | ratio |",
        "|---|---|---|",
        *(
            f"| {name} | {seconds * 1e6:.2f} | {seconds / base:.2f}× |"
            for name, seconds in figures.items()
        ),
    ]
    table = "\n".join(lines)
    print(table)
    if options.markdown:
        with open(options.markdown, "w", encoding="utf-8") as out:
            out.write(table + "\n")


if __name__ == "__main__":
    main()
