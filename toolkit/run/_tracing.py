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
start. Nothing of a span runs in the call: its start (where the SDK calls
the span processors' `on_start`), its name, attributes (and the
`trace_content` hook), events, status and end (where a
`SimpleSpanProcessor` exports) run in one thread of toolkit's, in order.
A call waits for its span's start, and then for its end, at most
`END_WAIT` seconds (0.5) each, without blocking the event loop, so that
its span is the current one while it runs and is exported when it
returns; a span not started by then is not the call's current one, and
still ends. A call does not wait at all while that thread is held by an
earlier step (a hanging processor or exporter), and when `MAX_QUEUED`
steps wait for that thread, a new one is dropped with a warning. The MCP
hop is traced by the `mcp` SDK itself (its client and server spans, and
the trace context it carries in `_meta`), so that an agent's call, the MCP
request and the served call are one trace.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from functools import partial
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
    "span_step",
    "start_call",
    "tracer",
    "tracing_on",
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
"""Seconds a call waits, at most, for its span's start, and again for its end (where a `SimpleSpanProcessor` exports)."""
MAX_QUEUED: Final = 10_000
"""Spans' steps (starts, events, ends) that may wait for the tracing thread; beyond them a step is dropped."""
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
    holder: list[Any],
    tool: Traced,
    call_id: str,
    args: Callable[[], Any],
    content: bool | Redact,
    done: Callable[[], None],
) -> bool:
    """Start the span of one call in the tracing thread, into `holder` (unless unrecorded); `done()` then.

    Returns whether the caller may wait for `done` (at most `END_WAIT`
    seconds): False when the span was dropped, or when the tracing thread
    is held by an earlier step. The span's parent is the caller's current
    span; its name and request-side attributes (`args()` gives the
    arguments, for the `trace_content` hook) are set after `done()`.
    """
    try:
        from opentelemetry import context, trace

        found, parent = FOUND[0], context.get_current()
    except Exception as error:
        _failed("starting a span", error)
        return False
    started = time.time_ns()

    def job() -> None:
        try:
            span = found.start_span(
                "execute_tool",
                context=parent,
                kind=trace.SpanKind.INTERNAL,
                start_time=started,
                record_exception=False,
                set_status_on_exception=False,
            )
            if span.is_recording():
                holder.append(span)
        finally:
            done()  # before the hook, which may take its time
        if holder:
            _describe(holder[0], tool, call_id, args, content)

    held = _SPANS.held()
    return _SPANS.submit("starting a span", job) and not held


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
    holder: list[Any],
    result: ToolResult | None,
    content: bool | Redact,
    name: str,
    done: Callable[[], None],
) -> bool:
    """End the span in `holder` in the tracing thread, after `finish` (unless the call gave no result); `done()` then.

    Returns whether the caller may wait for `done`, as `start_call` does.
    """

    def job() -> None:
        try:
            if holder:
                if result is not None:
                    finish(holder[0], result, content, name)
                holder[0].end()
        finally:
            done()

    held = _SPANS.held()
    return _SPANS.submit("ending a span", job) and not held


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
    if FOUND:
        kind = type(error).__qualname__
        _on_current(
            "naming an error on a span",
            lambda span: span.set_attribute("error.type", kind),
        )


def add_event(name: str, attributes: dict[str, Any]) -> None:
    """An event on the current call's span (progress, a log record, an approval)."""
    if FOUND:
        kept = {k: v for k, v in attributes.items() if v is not None}
        when = time.time_ns()  # now, not when the tracing thread gets to it
        _on_current(
            "adding an event to a span",
            lambda span: span.add_event(name, kept, timestamp=when),
        )


def _on_current(step: str, change: Callable[[Any], object]) -> None:
    """`change(span)` of the current span, if it records, in the tracing thread (after its start, before its end)."""
    try:
        from opentelemetry import trace

        span = trace.get_current_span()
    except Exception as error:
        _failed(step, error)
        return
    _SPANS.submit(step, lambda: span.is_recording() and change(span))


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
        self._jobs: deque[tuple[str, Callable[[], object]]] = deque()
        self._thread: threading.Thread | None = None
        self._since = 0.0  # when the running step started; 0 while idle
        self._warned = False

    def submit(self, step: str, job: Callable[[], object]) -> bool:
        """Queue `job` (tracing's `step`, as a failure of it is logged); False (with one warning) when `MAX_QUEUED` jobs already wait."""
        with self._lock:
            if len(self._jobs) >= MAX_QUEUED:
                warn = not self._warned
                self._warned = True
            else:
                self._jobs.append((step, job))
                if self._thread is None:
                    self._start()
                self._ready.notify()
                return True
        if warn:
            from toolkit.core._log import log_warning

            log_warning(
                "Tracing is held up (a span processor or exporter does not return): "
                "%d steps of spans wait, further steps are dropped",
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
                step, job = self._jobs.popleft()
                self._since = time.monotonic()
            try:
                job()
            except (
                BaseException
            ) as error:  # a hook, processor or exporter: never this thread's end
                _failed(step, error)
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


async def span_step(step: Callable[[Callable[[], None]], bool], blocking: bool) -> None:
    """`step(done)` (`start_call` or `end_call`), then wait for `done` at most `END_WAIT` seconds if it may.

    The wait blocks the caller's thread when `blocking` (a call from sync
    code, which never suspends), else it does not block the event loop.
    """
    if blocking:
        ended = threading.Event()
        if step(ended.set):
            ended.wait(END_WAIT)
        return
    import asyncio

    loop = asyncio.get_running_loop()
    waiter: asyncio.Future[None] = loop.create_future()
    if step(partial(_wake, loop, waiter)):
        await asyncio.wait((waiter,), timeout=END_WAIT)


def _wake(loop: Any, waiter: Any) -> None:
    """Wake a call that waits for its span (from the tracing thread), unless its loop is gone."""
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
