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
and its tracer provider set, a call makes no span and costs one look-up.

Tracing never reaches a call. Whatever a tracer, span processor, exporter
or `trace_content` hook raises is logged (on the `toolkit` logger, once a
minute per step) and the call goes on, untraced if its span could not
start. Only the span's start runs in the call (the SDK calls the span
processors' `on_start` there); naming the span, its attributes (and the
`trace_content` hook), its status and its end (where a `SimpleSpanProcessor`
exports) run in one thread of toolkit's, in order. A call waits for its
span's end at most `END_WAIT` seconds (0.5), without blocking the event
loop, so that its spans are exported when it returns; it does not wait at
all while that thread is held by an earlier span (a hanging exporter), and
when `MAX_QUEUED` spans wait for that thread, a new span is dropped with a
warning. The MCP hop is traced by the `mcp` SDK
itself (its client and server spans, and the trace context it carries in
`_meta`), so that an agent's call, the MCP request and the served call are
one trace.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Protocol

from toolkit.schema._arguments import parse_arguments
from toolkit.values._results import ToolResult

from ._running import finish_wait

if TYPE_CHECKING:
    from toolkit.values._results import ToolResult

__all__ = [
    "END_WAIT",
    "FOUND",
    "LOOK_EVERY",
    "MAX_QUEUED",
    "SDK",
    "Traced",
    "add_event",
    "current",
    "end_call",
    "finish",
    "hook_arguments",
    "note_error",
    "start_call",
    "tracer",
    "tracing_on",
    "wake",
]

Redact = Callable[[str, Any], Any]
"""`redact(tool_name, value) -> value`: what of an argument dict or a result text a span may keep."""

FOUND: list[Any] = []
"""Toolkit's tracer, once an SDK's tracer provider is set (then `opentelemetry.trace` is imported)."""
SDK: Final = "opentelemetry.sdk.trace"
"""The module that every tracer provider comes from: until it is imported, no call is traced."""
LOOK_EVERY: Final = 0.1
"""Seconds between two looks for a tracer provider, until one is set (`tracer`)."""
_LOOKED = [0.0]  # when the next look may be
END_WAIT: Final = 0.5
"""Seconds a call waits, at most, for its span's end (where a `SimpleSpanProcessor` exports)."""
MAX_QUEUED: Final = 10_000
"""Spans' steps that may wait for the tracing thread; beyond them a span is dropped."""
_LOG_EVERY: Final = 60.0  # seconds between two log records of one step's failures


def tracing_on() -> bool:
    """Whether a tracer takes spans now; a tracer provider that raises counts as none, so the call goes on."""
    try:
        return tracer() is not None
    except Exception:  # tracing never reaches a call
        return False


def tracer() -> Any:
    """Toolkit's tracer once an OpenTelemetry SDK's provider is set, else None (calls go untraced).

    A provider comes from the OpenTelemetry SDK (`opentelemetry-sdk`): until
    its module is imported none can be set, and the call path checks that
    with one look-up (`SDK in sys.modules`) before it asks here. Once a
    provider is set, the tracer is kept (the API lets one be set once).
    Until then the API is asked at most every `LOOK_EVERY` seconds (it
    reads the environment, 2 µs, a third of a call): a process that
    imported the SDK but set no provider pays for tracing once in that
    time, and a provider set while calls run traces the calls that start
    from then on, at most that much later.
    """
    if FOUND:
        return FOUND[0]
    now = time.monotonic()
    if now < _LOOKED[0]:
        return None
    _LOOKED[0] = now + LOOK_EVERY
    # The module as the SDK left it in `sys.modules` is one dictionary
    # look-up, cheaper than an import.
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


def start_call(
    tool: Traced, call_id: str, args: Callable[[], Any], content: bool | Redact
) -> Any:
    """The span of one call, started, or None when nothing records it (or starting it failed).

    A sampler may decide not to record it; then the call goes on untraced.
    The span's name and request-side attributes (`args()` gives the
    arguments, for the `trace_content` hook) are set in the tracing thread.
    """
    try:
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
    except Exception as error:
        _failed("starting a span", error)
        return None
    _SPANS.submit(lambda: _describe(span, tool, call_id, args, content))
    return span


def _describe(
    span: Any,
    tool: Traced,
    call_id: str,
    args: Callable[[], Any],
    content: bool | Redact,
) -> None:
    """The span's name and request-side attributes (in the tracing thread)."""
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
        attributes["gen_ai.tool.call.arguments"] = _shown(tool.name, args(), content)
    span.set_attributes(attributes)


def current(span: Any) -> Any:
    """A context manager that makes `span` the current span (`end_call` ends it)."""
    from opentelemetry import trace

    return trace.use_span(
        span, end_on_exit=False, record_exception=False, set_status_on_exception=False
    )


def end_call(
    span: Any,
    result: ToolResult | None,
    content: bool | Redact,
    name: str,
    done: Callable[[], None] | None = None,
) -> bool:
    """End `span` in the tracing thread, after `finish` (unless the call gave no result); `done()` then.

    Returns whether the caller may wait for `done` (at most `END_WAIT`
    seconds): False when the span was dropped, or when the tracing thread
    is held by an earlier span.
    """

    def job() -> None:
        try:
            if result is not None:
                finish(span, result, content, name)
        finally:
            try:
                span.end()
            finally:
                if done is not None:
                    done()

    held = _SPANS.held()
    return _SPANS.submit(job) and not held and done is not None


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

    try:
        span = trace.get_current_span()
        if span.is_recording():
            span.set_attribute("error.type", type(error).__qualname__)
    except Exception as failure:
        _failed("naming an error on a span", failure)


def add_event(name: str, attributes: dict[str, Any]) -> None:
    """An event on the current call's span (progress, a log record, an approval)."""
    if not FOUND:
        return
    from opentelemetry import trace

    try:
        span = trace.get_current_span()
        if span.is_recording():
            span.add_event(name, {k: v for k, v in attributes.items() if v is not None})
    except Exception as error:
        _failed("adding an event to a span", error)


_LOGGED: dict[str, float] = {}


def _failed(step: str, error: BaseException) -> None:
    """Log a failure of tracing's `step`, at most once in `_LOG_EVERY` seconds per step."""
    now = time.monotonic()
    last = _LOGGED.get(step)
    if last is not None and now - last < _LOG_EVERY:
        return
    _LOGGED[step] = now
    from toolkit.core._log import log_failure

    log_failure(
        "Tracing failed while %s; the calls go on (logged once a minute)",
        step,
        error=error,
    )


class _Thread:
    """One daemon thread that runs spans' steps in order, so that no call runs them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)
        self._jobs: deque[Callable[[], None]] = deque()
        self._thread: threading.Thread | None = None
        self._since = 0.0  # when the running step started; 0 while idle
        self._warned = False

    def submit(self, job: Callable[[], None]) -> bool:
        """Queue `job`; False (with one warning) when `MAX_QUEUED` jobs already wait."""
        with self._lock:
            if len(self._jobs) >= MAX_QUEUED:
                warn = not self._warned
                self._warned = True
            else:
                self._jobs.append(job)
                if self._thread is None:
                    self._start()
                self._ready.notify()
                return True
        if warn:
            from toolkit.core._log import log_warning

            log_warning(
                "Tracing is held up (a span processor or exporter does not return): "
                "%d spans wait, further spans are dropped",
                MAX_QUEUED,
            )
        return False

    def held(self) -> bool:
        """Whether the running step has run longer than a call waits for one."""
        since = self._since
        return since != 0.0 and time.monotonic() - since > END_WAIT

    def drain(self, timeout: float) -> None:
        """Wait, at most `timeout` seconds, until every queued step ran (at exit)."""
        deadline = time.monotonic() + timeout
        while (self._jobs or self._since) and time.monotonic() < deadline:
            time.sleep(0.01)

    def _start(self) -> None:
        """Start the thread (under the lock); at exit, the steps queued get a moment to run."""
        import atexit

        self._thread = threading.Thread(
            target=self._work, name="toolkit-tracing", daemon=True
        )
        self._thread.start()
        atexit.unregister(self.drain)
        atexit.register(self.drain, 2 * END_WAIT)

    def _work(self) -> None:
        while True:
            with self._lock:
                while not self._jobs:
                    self._ready.wait()
                job = self._jobs.popleft()
                self._since = time.monotonic()
            try:
                job()
            except (
                BaseException
            ) as error:  # a hook, processor or exporter: never this thread's end
                _failed("ending a span", error)
            finally:
                self._since = 0.0

    def forked(self) -> None:
        """In a forked child: no thread yet, nothing queued (the parent's spans are the parent's)."""
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)
        self._jobs = deque()
        self._thread = None
        self._since = 0.0


_SPANS: Final = _Thread()
if hasattr(os, "register_at_fork"):  # not on Windows
    os.register_at_fork(after_in_child=_SPANS.forked)


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


def wake(loop: Any, waiter: Any) -> None:
    """Wake a call that waits for its span's end (from the tracing thread), unless its loop is gone."""
    import contextlib

    with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
        loop.call_soon_threadsafe(finish_wait, waiter)


def hook_arguments(args: Any, content: Any) -> Any:
    """The arguments as a `trace_content` hook gets them: a dict, from JSON text too; other text as it is.

    The arguments OpenAI sends are JSON text: a hook that redacts dicts
    would pass them on whole.
    """
    if not callable(content) or type(args) is dict:
        return args
    parsed = parse_arguments("", args)
    return args if isinstance(parsed, ToolResult) else parsed
