"""OpenTelemetry spans of tool calls, checked with the SDK's in-memory exporter.

The expected attribute names are written from the OpenTelemetry GenAI
semantic conventions' execute-tool span (semantic-conventions v1.41.0,
docs/gen-ai/gen-ai-agent-spans.md, "Execute tool span"; and
open-telemetry/semantic-conventions-genai, docs/gen-ai/execute-tool.md),
and the MCP conventions' `mcp.method.name` (docs/gen-ai/mcp.md), not read
from toolkit's code. The in-process tests give toolkit a tracer of a
provider of their own, so the process's global provider stays unset for the
other tests; the test across processes sets the global one in each process.
"""

from __future__ import annotations

import asyncio
import json
import pathlib
import subprocess
import sys
import warnings
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)
from opentelemetry.trace import SpanKind, StatusCode

from tests.servers import free_port, wait_for_port
from toolkit import Context, ToolCall, ToolError, ToolSet, tool
from toolkit.run import _tracing

ROOT = pathlib.Path(__file__).parent.parent

# From the conventions (see the module docstring).
OPERATION = "gen_ai.operation.name"
TOOL_NAME = "gen_ai.tool.name"
CALL_ID = "gen_ai.tool.call.id"
TOOL_TYPE = "gen_ai.tool.type"
DESCRIPTION = "gen_ai.tool.description"
ARGUMENTS = "gen_ai.tool.call.arguments"
RESULT = "gen_ai.tool.call.result"
ERROR_TYPE = "error.type"


@pytest.fixture
def spans(monkeypatch: pytest.MonkeyPatch) -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    _tracing.FOUND.append(provider.get_tracer("test"))
    yield exporter
    _tracing.FOUND.clear()
    provider.shutdown()


@tool
async def weather(city: str, ctx: Context) -> str:
    """Get the weather.

    Args:
        city: The city.
    """
    await ctx.report_progress(1, total=2, message="looking")
    await ctx.log("info", "found")
    return f"Sunny in {city}."


@tool
def broken(city: str) -> str:
    """Fail.

    Args:
        city: The city.
    """
    raise ValueError("no such city")


@tool
def refused(city: str) -> str:
    """Refuse.

    Args:
        city: The city.
    """
    raise ToolError("Try another city.")


def test_a_call_is_an_execute_tool_span(spans: InMemorySpanExporter) -> None:
    tools = ToolSet([weather])
    asyncio.run(
        tools.run("agent-1", [ToolCall("call-1", "weather", {"city": "Paris"})])
    )
    (span,) = spans.get_finished_spans()
    assert span.name == "execute_tool weather"
    assert span.kind == SpanKind.INTERNAL
    assert dict(span.attributes or {}) == {
        OPERATION: "execute_tool",
        TOOL_NAME: "weather",
        CALL_ID: "call-1",
        TOOL_TYPE: "function",
        DESCRIPTION: "Get the weather.",
    }
    assert span.status.status_code == StatusCode.UNSET
    assert [(event.name, dict(event.attributes or {})) for event in span.events] == [
        ("toolkit.progress", {"progress": 1, "total": 2, "message": "looking"}),
        ("toolkit.log", {"level": "info", "message": "found"}),
    ]
    # Stamped when the tool made them, inside the span, in order.
    stamps = [event.timestamp for event in span.events]
    assert span.start_time is not None
    assert span.end_time is not None
    assert span.start_time <= stamps[0] <= stamps[1] <= span.end_time


@pytest.mark.parametrize(
    ("name", "args", "error_type"),
    [
        ("broken", {"city": "x"}, "ValueError"),
        ("refused", {"city": "x"}, "ToolError"),
        ("broken", {"town": "x"}, "_OTHER"),  # invalid arguments: no exception
    ],
)
def test_a_failure_sets_the_error_type_and_status(
    spans: InMemorySpanExporter, name: str, args: dict[str, Any], error_type: str
) -> None:
    tools = ToolSet([broken, refused])
    result = tools.execute("agent-1", "call-1", name, args)
    assert result.is_error
    (span,) = spans.get_finished_spans()
    assert span.attributes is not None
    assert span.attributes[ERROR_TYPE] == error_type
    assert span.status.status_code == StatusCode.ERROR


def test_content_only_on_request_and_through_the_hook(
    spans: InMemorySpanExporter,
) -> None:
    plain = ToolSet([weather])
    plain.execute("a", "1", "weather", {"city": "Paris"})

    def redact(name: str, value: Any) -> Any:
        if isinstance(value, dict):
            return {
                key: "***" if key == "city" else item for key, item in value.items()
            }
        return value.replace("Paris", "***")

    traced = ToolSet([weather], trace_content=redact)
    traced.execute("a", "2", "weather", {"city": "Paris"})
    everything = ToolSet([weather], trace_content=True)
    everything.execute("a", "3", "weather", '{"city": "Rome"}')
    first, second, third = spans.get_finished_spans()
    assert first.attributes is not None
    assert ARGUMENTS not in first.attributes
    assert RESULT not in first.attributes
    assert second.attributes is not None
    assert json.loads(str(second.attributes[ARGUMENTS])) == {"city": "***"}
    assert second.attributes[RESULT] == "Sunny in ***."
    assert third.attributes is not None
    assert third.attributes[ARGUMENTS] == '{"city": "Rome"}'
    assert third.attributes[RESULT] == "Sunny in Rome."


def test_the_hook_gets_arguments_sent_as_json_text_as_a_dict(
    spans: InMemorySpanExporter,
) -> None:
    """As OpenAI sends them: the documented hook, which redacts dicts, redacts these too."""

    def redact(name: str, value: Any) -> Any:
        if isinstance(value, dict):
            return {
                key: "***" if key == "city" else item for key, item in value.items()
            }
        return value

    traced = ToolSet([weather], trace_content=redact)
    traced.execute("a", "1", "weather", '{"city": "Paris"}')
    traced.execute("a", "2", "weather", b'{"city": "Paris"}')
    traced.execute("a", "3", "weather", '["Paris"]')  # no object: its text, as sent
    first, second, third = spans.get_finished_spans()
    for span in (first, second):
        assert span.attributes is not None
        assert json.loads(str(span.attributes[ARGUMENTS])) == {"city": "***"}
    assert third.attributes is not None
    assert third.attributes[ARGUMENTS] == '["Paris"]'


def test_arguments_no_json_text_can_hold_are_an_error_result_not_an_exception(
    spans: InMemorySpanExporter,
) -> None:
    """Arguments nested deeper than JSON text can be made of: the call's error, and a span that says so."""
    nested: dict[str, Any] = {}
    inner = nested
    for _ in range(100_000):
        inner["city"] = {}
        inner = inner["city"]
    traced = ToolSet([weather], trace_content=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a coroutine left unawaited is a warning
        result = traced.execute("a", "1", "weather", nested)
    assert result.is_error
    (span,) = spans.get_finished_spans()
    assert span.attributes is not None
    assert str(span.attributes[ARGUMENTS]).startswith("<not shown: RecursionError")
    assert span.status.status_code == StatusCode.ERROR


def test_a_failing_hook_is_logged_and_the_call_goes_on(
    spans: InMemorySpanExporter, caplog: pytest.LogCaptureFixture
) -> None:
    def redact(name: str, value: Any) -> Any:
        raise RuntimeError("the redaction service is down")

    traced = ToolSet([weather], trace_content=redact)
    result = traced.execute("a", "1", "weather", '{"city": "Paris"}')
    assert result.text == "Sunny in Paris."
    (span,) = spans.get_finished_spans()
    assert span.attributes is not None
    note = "<not shown: the trace_content hook raised RuntimeError>"
    assert (span.attributes[ARGUMENTS], span.attributes[RESULT]) == (note, note)
    failures = [record for record in caplog.records if record.levelname == "ERROR"]
    assert [record.getMessage() for record in failures] == [
        "The trace_content hook failed for tool 'weather'"
    ] * 2


def test_an_approval_is_an_event(spans: InMemorySpanExporter) -> None:
    @tool(requires_approval=True)
    def delete(path: str) -> str:
        """Delete.

        Args:
            path: The file.
        """
        return "deleted"

    tools = ToolSet([delete])
    waiting = tools.execute("a", "1", "delete", {"path": "x"})
    assert waiting.approval is not None
    tools.approve(waiting.approval.id)
    tools.execute("a", "2", "delete", {"path": "x"})
    outcomes = [
        dict(event.attributes or {})["toolkit.approval.outcome"]
        for span in spans.get_finished_spans()
        for event in span.events
    ]
    assert outcomes == ["waiting", "approved"]


def test_without_the_package_or_an_sdk_calls_work_and_import_nothing(
    tmp_path: pathlib.Path,
) -> None:
    """`import toolkit` loads no OpenTelemetry module; without the package a call imports none either."""
    code = (
        "import sys, toolkit\n"
        "print([m for m in sys.modules if m.startswith('opentelemetry')])\n"
        "@toolkit.tool\n"
        "def ping() -> str:\n"
        '    """Ping."""\n'
        "    return 'pong'\n"
        "print(ping.execute('a', 'c', {}).text)\n"
        "print([m for m in sys.modules if m.startswith('opentelemetry')])\n"
    )
    installed = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert installed.stdout.splitlines() == ["[]", "pong", "[]"]
    absent = tmp_path / "absent"
    (absent / "opentelemetry").mkdir(parents=True)
    (absent / "opentelemetry" / "__init__.py").write_text(
        "raise ImportError('absent')\n"
    )
    blocked = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        env={"PYTHONPATH": str(absent), "PATH": ""},
    )
    assert blocked.stdout.splitlines() == ["[]", "pong", "[]"]


def test_one_trace_across_an_mcp_hop(tmp_path: pathlib.Path) -> None:
    """agent span → execute_tool (client) → MCP client span → MCP server span → execute_tool (server)."""
    server_spans, agent_spans = tmp_path / "server.jsonl", tmp_path / "agent.jsonl"
    port = free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "tests" / "traced_process.py"),
            "serve",
            str(server_spans),
            str(port),
        ],
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    try:
        wait_for_port(server, port)
        agent = subprocess.run(
            [
                sys.executable,
                str(ROOT / "tests" / "traced_process.py"),
                "agent",
                str(agent_spans),
                f"http://127.0.0.1:{port}/mcp",
            ],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=ROOT,
        )
        assert agent.returncode == 0, agent.stderr
        assert agent.stdout.strip() == "5"
    finally:
        server.terminate()
        server.wait(30)
        assert server.stderr is not None
        server.stderr.close()
    theirs = [json.loads(line) for line in server_spans.read_text().splitlines()]
    ours = [json.loads(line) for line in agent_spans.read_text().splitlines()]
    by_id = {span["id"]: span for span in theirs + ours}
    (served,) = [s for s in theirs if s["name"] == "execute_tool add"]
    chain = [served]
    while chain[-1]["parent"] is not None:
        chain.append(by_id[chain[-1]["parent"]])
    names = [span["name"] for span in chain]
    assert names[0] == "execute_tool add"
    assert names[-1] == "agent turn"
    assert "execute_tool add" in names[1:]  # the client's span of the same call
    assert len({span["trace"] for span in chain}) == 1
    methods = [span["attributes"].get("mcp.method.name") for span in chain]
    assert methods.count("tools/call") == 2  # the MCP client's and server's spans
    client_side = next(s for s in chain[1:] if s["name"] == "execute_tool add")
    assert client_side["attributes"][TOOL_TYPE] == "extension"
