"""A process with the OpenTelemetry SDK configured, for the tracing tests.

`python tests/traced_process.py serve SPANS PORT` serves tests/serve_tools.py
over HTTP; `python tests/traced_process.py agent SPANS URL` mounts that
server with `mcp.connect` and calls its `add` tool inside a span of its own.
Each process appends every span it ends to SPANS, one JSON object a line.
"""

from __future__ import annotations

import asyncio
import json
import pathlib
import sys
from collections.abc import Sequence
from typing import Any

from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import (
    SimpleSpanProcessor,
    SpanExporter,
    SpanExportResult,
)

ROOT = pathlib.Path(__file__).parent.parent


class ToFile(SpanExporter):
    def __init__(self, path: str) -> None:
        self.path = path

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        with open(self.path, "a", encoding="utf-8") as out:
            for span in spans:
                context = span.get_span_context()
                assert context is not None
                out.write(
                    json.dumps(
                        {
                            "name": span.name,
                            "trace": f"{context.trace_id:032x}",
                            "id": f"{context.span_id:016x}",
                            "parent": f"{span.parent.span_id:016x}"
                            if span.parent
                            else None,
                            "attributes": dict(span.attributes or {}),
                        },
                        default=str,
                    )
                    + "\n"
                )
        return SpanExportResult.SUCCESS


def main(argv: list[str]) -> None:
    mode, spans, where = argv
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(ToFile(spans)))
    trace.set_tracer_provider(provider)
    if mode == "serve":
        from toolkit.cli._cli import main as toolkit

        sys.exit(
            toolkit(
                [
                    "serve",
                    str(ROOT / "tests" / "serve_tools.py"),
                    "--http",
                    f"127.0.0.1:{where}",
                ]
            )
        )
    asyncio.run(agent(where))


async def agent(url: str) -> None:
    from toolkit import mcp

    tracer = trace.get_tracer("agent")
    async with mcp.connect(url) as tools:
        with tracer.start_as_current_span("agent turn"):
            result: Any = await tools.aexecute(
                "agent-1", "call-1", "add", {"a": 2, "b": 3}
            )
    print(result.text)


if __name__ == "__main__":
    main(sys.argv[1:])
