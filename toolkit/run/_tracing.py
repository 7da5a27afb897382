"""OpenTelemetry spans of tool calls, when `opentelemetry-api` is installed.

Each call is a span named `execute_tool {tool}` with the attributes of the
OpenTelemetry GenAI semantic conventions' execute-tool span
(https://opentelemetry.io/docs/specs/semconv/gen-ai/gen-ai-agent-spans/#execute-tool-span,
and `docs/gen-ai/execute-tool.md` of open-telemetry/semantic-conventions-genai):
`gen_ai.operation.name` ("execute_tool"), `gen_ai.tool.name`,
`gen_ai.tool.call.id`, `gen_ai.tool.description`, `gen_ai.tool.type`
("function", or "extension" for a mounted MCP server's tool), and on a
failure `error.type` with an error status. The arguments
(`gen_ai.tool.call.arguments`) and the result (`gen_ai.tool.call.result`)
are recorded only when the set asks for them (`ToolSet(trace_content=...)`),
through its redaction hook. Progress reports, log records and approval
decisions are events of the call's span.

Nothing of OpenTelemetry is imported by toolkit: until the SDK is imported
and its tracer provider set, a call makes no span and costs one look-up. The MCP hop is traced by the `mcp` SDK
itself (its client and server spans, and the trace context it carries in
`_meta`), so that an agent's call, the MCP request and the served call are
one trace.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Protocol

if TYPE_CHECKING:
    from toolkit.values._results import ToolResult

__all__ = [
    "FOUND",
    "SDK",
    "Traced",
    "add_event",
    "current",
    "finish",
    "note_error",
    "start_call",
    "tracer",
]

Redact = Callable[[str, Any], Any]
"""`redact(tool_name, value) -> value`: what of an argument dict or a result text a span may keep."""

FOUND: list[Any] = []
"""Toolkit's tracer, once an SDK's tracer provider is set (then `opentelemetry.trace` is imported)."""
SDK: Final = "opentelemetry.sdk.trace"
"""The module that every tracer provider comes from: until it is imported, no call is traced."""


def tracer() -> Any:
    """Toolkit's tracer once an OpenTelemetry SDK's provider is set, else None (calls go untraced).

    A provider comes from the OpenTelemetry SDK (`opentelemetry-sdk`): until
    its module is imported none can be set, and the call path checks that
    with one look-up (`SDK in sys.modules`) before it asks here. Once a
    provider is set, the tracer is kept (the API lets one be set once).
    """
    if FOUND:
        return FOUND[0]
    # Every call asks until a provider is set: the module as the SDK left
    # it in `sys.modules` is one dictionary look-up, cheaper than an import.
    trace: Any = sys.modules.get("opentelemetry.trace")
    if trace is None:
        try:
            import opentelemetry.trace as trace
        except ImportError:  # the `otel` extra is not installed
            return None
    if isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider):
        return None
    from toolkit.core._version import __version__

    FOUND.append(trace.get_tracer("toolkit", __version__))
    return FOUND[0]


class Traced(Protocol):
    """What a span tells of the tool it traces (a `Tool` has all of it)."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def remote_name(self) -> str | None: ...


def start_call(tool: Traced, call_id: str, args: Any, content: bool | Redact) -> Any:
    """The span of one call with its request-side attributes, or None when nothing records it.

    A sampler may decide not to record it; then the call goes on untraced.
    """
    found = tracer()
    if found is None:
        return None
    from opentelemetry import trace

    span = found.start_span(
        "execute_tool",
        kind=trace.SpanKind.INTERNAL,
        record_exception=False,
        set_status_on_exception=False,
    )
    if not span.is_recording():
        return None
    span.update_name(f"execute_tool {tool.name}")
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": tool.name,
        "gen_ai.tool.call.id": call_id,
        "gen_ai.tool.type": "extension" if tool.remote_name is not None else "function",
    }
    if tool.description:
        attributes["gen_ai.tool.description"] = tool.description
    if content is not False:
        attributes["gen_ai.tool.call.arguments"] = _shown(tool.name, args, content)
    span.set_attributes(attributes)
    return span


def current(span: Any) -> Any:
    """A context manager that makes `span` the current span, and ends it on the way out."""
    from opentelemetry import trace

    return trace.use_span(
        span, end_on_exit=True, record_exception=False, set_status_on_exception=False
    )


def finish(span: Any, result: ToolResult, content: bool | Redact, name: str) -> None:
    """The response-side attributes and the status, from the call's result."""
    if content is not False:
        span.set_attribute(
            "gen_ai.tool.call.result", _shown(name, result.text, content)
        )
    if result.is_error:
        recorded = getattr(span, "attributes", None) or {}
        if "error.type" not in recorded:
            span.set_attribute("error.type", "_OTHER")
        from opentelemetry import trace

        span.set_status(trace.Status(trace.StatusCode.ERROR, result.text[:1000]))


def note_error(error: BaseException) -> None:
    """Name the exception a tool raised on the current call's span (`error.type`)."""
    if not FOUND:
        return
    from opentelemetry import trace

    span = trace.get_current_span()
    if span.is_recording():
        span.set_attribute("error.type", type(error).__qualname__)


def add_event(name: str, attributes: dict[str, Any]) -> None:
    """An event on the current call's span (progress, a log record, an approval)."""
    if not FOUND:
        return
    from opentelemetry import trace

    span = trace.get_current_span()
    if span.is_recording():
        span.add_event(name, {k: v for k, v in attributes.items() if v is not None})


def _shown(name: str, value: Any, content: bool | Redact) -> str:
    """`value` as a span keeps it: JSON text, after the redaction hook.

    Never raises, so that tracing never fails a call: a hook that raises
    (logged on the `toolkit` logger) and a value no JSON text can hold
    (nested too deep, circular) leave a note in the span instead.
    """
    import json

    if callable(content):
        try:
            value = content(name, value)
        except Exception as error:
            from toolkit.core._log import log_failure

            log_failure("The trace_content hook failed for tool %r", name, error=error)
            return f"<not shown: the trace_content hook raised {type(error).__name__}>"
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=repr)
    except (ValueError, RecursionError) as error:  # circular, or nested too deep
        return f"<not shown: {type(error).__name__}, no JSON text holds it>"
