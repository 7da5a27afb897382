"""Where a tool's code runs: inline, in toolkit's worker threads, or on an event loop.

A sync function called from async code runs in a thread of a `ThreadPool`
(the caller's context variables go with it), so the event loop never
blocks; so does the check of big arguments (`is_large`). The pool is
toolkit's own rather than asyncio's default executor or a
`concurrent.futures.ThreadPoolExecutor`, for what a tool that times out
needs: its threads are daemons, so a thread left running never holds up
`asyncio.run` (which waits for the default executor's threads) or the
interpreter's exit (which joins an executor's threads); a call whose caller
stopped waiting before it started never starts; the tool can ask whether
its caller still waits (`Context.cancelled`); the threads such calls hold
are counted against the pool's size; and a forked child starts with
empty pools.

A timeout ends the *wait*. An async tool is cancelled; a thread cannot be
killed in Python, so a sync tool that times out keeps running in its thread
until it returns, and its result is dropped. That thread still counts
against the pool's size (the log says so when such threads fill the pool).

Whatever a tool raises reaches its caller as that call's outcome. Some
exceptions cannot travel as themselves: asyncio cannot set `StopIteration`
on a Future, and a `CancelledError` raised by a tool must not pass for the
cancellation of the task that awaits it. They travel wrapped in `Raised`.
`asyncio` is imported only when async code runs.
"""

from __future__ import annotations

import contextvars
import os
import queue
import sys
import threading
import weakref
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Final, TypeGuard, TypeVar

from toolkit.core._exceptions import ToolDefinitionError
from toolkit.core._log import log_warning
from toolkit.values._json import is_number

__all__ = [
    "DEFAULT_MAX_THREADS",
    "Raised",
    "ThreadPool",
    "TimedOut",
    "abandoned_here",
    "await_tool",
    "block_on",
    "bounded_pool",
    "call_in_thread",
    "caller_cancelled",
    "default_pool",
    "finish_wait",
    "in_thread",
    "is_awaitable",
    "is_large",
    "is_seconds",
    "run_blocking",
    "thread_waiting_here",
]

T = TypeVar("T")

DEFAULT_MAX_THREADS: Final = 64
"""Threads of the pool shared by every `ToolSet` without `max_threads` (and by lone tools)."""

_IDLE_SECONDS: Final = 30.0  # a worker thread with nothing to do for this long ends
_TASKS_COUNT_CANCELLING: Final = sys.version_info >= (3, 11)
"""`Task.cancelling()` tells the caller's cancellation from a tool's own `CancelledError`,
so a tool's awaitable without a timeout can be awaited right in the caller's task."""

_PENDING, _RUNNING, _DONE, _SKIPPED = range(4)


class TimedOut(Exception):  # an outcome, not a failure of toolkit
    """The call did not finish within its timeout.

    Attributes:
        note: What became of the call's thread, for the log ("" for async calls).
    """

    def __init__(self, note: str = "") -> None:
        super().__init__(note)
        self.note = note


class Raised(Exception):
    """An exception that a tool raised, carried where it cannot travel as itself.

    Attributes:
        error: The exception the tool raised.
    """

    def __init__(self, error: BaseException) -> None:
        super().__init__(error)
        self.error = error


class _Job:
    """One call of a sync function in a pool thread."""

    __slots__ = ("abandoned", "context", "error", "notify", "state", "thunk", "value")

    def __init__(self, thunk: Callable[[], Any], notify: Callable[[], None]) -> None:
        self.thunk: Callable[[], Any] | None = thunk
        self.notify = notify
        self.context = contextvars.copy_context()
        self.state = _PENDING
        self.abandoned = False
        self.value: Any = None
        self.error: BaseException | None = None

    def outcome(self) -> Any:
        """The function's value; what it raised comes wrapped in `Raised`."""
        if self.error is not None:
            raise Raised(self.error)
        return self.value


class ThreadPool:
    """Daemon threads that run sync tools, at most `max_threads` at once.

    Threads start when calls need them and end after some time without
    work. A call whose caller stopped waiting (a timeout, a cancellation)
    keeps its thread until the function returns: such a thread still counts
    against `max_threads`, and a warning goes to the `toolkit` logger when
    they hold every thread of the pool, since other calls then wait.

    Args:
        max_threads: The most threads running at once (at least 1).
    """

    def __init__(self, max_threads: int) -> None:
        self.max_threads = max_threads
        self._start_afresh()
        _POOLS.add(self)

    def _start_afresh(self) -> None:
        self._lock = threading.Lock()
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._idle = 0  # idle threads that no call has claimed (under _lock)
        self._queued = 0  # calls queued while every thread was busy, none claimed yet
        self._threads = 0
        self._held = 0  # threads running a call that nobody waits for
        self._warned = False

    @property
    def threads(self) -> int:
        """The threads alive now."""
        return self._threads

    @property
    def held(self) -> int:
        """The threads running a call whose caller stopped waiting."""
        return self._held

    def __repr__(self) -> str:
        return f"ThreadPool(max_threads={self.max_threads}, threads={self._threads}, held={self._held})"

    def submit(self, thunk: Callable[[], Any], notify: Callable[[], None]) -> _Job:
        """Queue `thunk`; `notify()` is called from the worker thread when it is done.

        Raises:
            RuntimeError: No thread could be started and none is running.
        """
        job = _Job(thunk, notify)
        with self._lock:
            if self._idle:
                self._idle -= 1
                start = warn = False  # an idle thread takes it
            else:
                start = self._threads < self.max_threads
                if start:
                    self._threads += 1
                else:  # the next thread to be done takes it
                    self._queued += 1
                warn = not start and self._held > 0 and not self._warned
                self._warned = self._warned or warn
        # Queued last, so that the woken thread finds the GIL free sooner.
        self._jobs.put(job)
        if start:
            self._start_thread(job)
        elif warn:
            log_warning(
                "All %d threads for sync tools are busy, %d of them with calls that "
                "timed out and are still running; other sync calls wait for a free "
                "thread. Give the pool more threads (ToolSet(max_threads=...)) or make "
                "the slow tools return sooner",
                self.max_threads,
                self._held,
            )
        return job

    def _start_thread(self, job: _Job) -> None:
        try:
            threading.Thread(
                target=self._work, name="toolkit-worker", daemon=True
            ).start()
        except RuntimeError:  # the system refuses more threads
            with self._lock:
                self._threads -= 1
                alone = self._threads == 0
                if alone:
                    job.state = _SKIPPED
                else:  # a running thread takes it once done
                    self._queued += 1
            if alone:  # nobody would ever run it
                raise

    def abandon(self, job: _Job) -> str | None:
        """The caller stops waiting for `job`.

        Returns:
            None when the job has finished (its outcome stands), else a note
            for the log on what becomes of it.
        """
        with self._lock:
            if job.state == _DONE:
                return None
            if job.state == _PENDING:
                job.state = _SKIPPED
                return f"; it never started: all {self.max_threads} threads for sync tools were busy"
            job.abandoned = True
            self._held += 1
            held = self._held
        return (
            f"; its thread runs until the function returns "
            f"({held} of {self.max_threads} threads are held by such calls)"
        )

    def _work(self) -> None:
        while True:
            try:
                job = self._jobs.get(timeout=_IDLE_SECONDS)
            except queue.Empty:
                if self._retire():
                    return
                continue
            notify = self._run(job)
            # The waiter is told last: once the loop's thread wakes, it wants
            # the GIL, which this thread gives up as soon as it waits for work.
            if notify is not None:
                try:  # noqa: SIM105  # no context manager on every call's path
                    notify()
                except Exception:  # the worker outlives any waiter
                    pass

    def _retire(self) -> bool:
        with self._lock:
            if self._jobs.empty() and self._idle:
                self._idle -= 1
                self._threads -= 1
                return True
        return False

    def _done(self) -> None:
        """This thread is free (under the lock): it claims a queued call, else it is idle."""
        if self._queued:
            self._queued -= 1
        else:
            self._idle += 1

    def _run(self, job: _Job) -> Callable[[], None] | None:
        """Run `job`; the thread is idle again after it. Returns whom to notify, if anyone waits."""
        with self._lock:
            if job.state != _PENDING:  # its caller stopped waiting before it started
                self._done()
                return None
            job.state = _RUNNING
        thunk, job.thunk = job.thunk, None
        try:
            job.value = job.context.run(_as_job, job, thunk)
        except BaseException as error:  # every exception goes back to the caller
            job.error = error
        with self._lock:
            job.state = _DONE
            self._done()
            if job.abandoned:
                self._held -= 1
                self._warned = False
                return None
        return job.notify


_CURRENT_JOB: contextvars.ContextVar[_Job | None] = contextvars.ContextVar(
    "toolkit_job", default=None
)


def _as_job(job: _Job, thunk: Callable[[], Any] | None) -> Any:
    """Run `thunk` as `job`, in the job's context, so that the tool can ask whether it is still awaited."""
    _CURRENT_JOB.set(job)
    return thunk()  # type: ignore[misc]  # set by submit, taken once


def abandoned_here() -> bool:
    """Whether the caller stopped waiting for the call running in this worker thread.

    True after a timeout or the cancellation of the awaiting task: the
    thread cannot be stopped, but a tool that asks (`Context.cancelled`)
    can return early. False outside toolkit's worker threads.
    """
    job = _CURRENT_JOB.get()
    return job is not None and job.abandoned


_POOLS: weakref.WeakSet[ThreadPool] = weakref.WeakSet()
_default: ThreadPool | None = None
_default_lock = threading.Lock()


def bounded_pool(max_threads: object) -> ThreadPool:
    """A new pool of at most `max_threads` threads (`ToolSet(max_threads=...)`).

    Raises:
        ToolDefinitionError: `max_threads` is not a whole number of at least 1.
    """
    if (
        not isinstance(max_threads, int)
        or isinstance(max_threads, bool)
        or max_threads < 1
    ):
        msg = f"max_threads={max_threads!r}: give the number of threads for sync tools, at least 1"
        raise ToolDefinitionError(msg)
    return ThreadPool(max_threads)


def default_pool() -> ThreadPool:
    """The pool shared by tools that are not run through a `ToolSet` with its own."""
    global _default  # made on first use
    if _default is None:
        with _default_lock:
            if _default is None:
                _default = ThreadPool(DEFAULT_MAX_THREADS)
    return _default


def _after_fork_in_child() -> None:
    """A forked child has none of its parent's threads: every pool starts empty."""
    global _default_lock
    _default_lock = threading.Lock()
    for pool in list(_POOLS):
        pool._start_afresh()


if hasattr(os, "register_at_fork"):  # POSIX
    os.register_at_fork(after_in_child=_after_fork_in_child)


# ------------------------------------------------------------------ waiting


def is_seconds(value: object) -> TypeGuard[float]:
    """Whether `value` can be a timeout: a positive int or float, not a bool."""
    return is_number(value) and value > 0


def is_awaitable(value: Any) -> bool:
    """`inspect.isawaitable`, for the values a tool returns, without importing inspect."""
    return hasattr(type(value), "__await__")


def call_in_thread(
    thunk: Callable[[], Any], timeout: float | None, pool: ThreadPool | None
) -> Any:
    """Run a sync thunk in a pool thread and wait for it, from sync code.

    Raises:
        TimedOut: It ran past `timeout`.
        Raised: It raised (the exception is in `.error`).
    """
    pool = pool or default_pool()
    finished = threading.Event()
    job = pool.submit(thunk, finished.set)
    try:
        done = finished.wait(timeout)
    except BaseException:  # an interrupt while waiting
        pool.abandon(job)
        raise
    return _outcome(pool, job, done=done)


async def in_thread(
    thunk: Callable[[], Any], timeout: float | None, pool: ThreadPool | None
) -> Any:
    """Run a sync thunk in a pool thread and await it.

    Raises:
        TimedOut: It ran past `timeout`.
        Raised: It raised (the exception is in `.error`).
        asyncio.CancelledError: The awaiting task was cancelled.
    """
    import asyncio

    pool = pool or default_pool()
    loop = asyncio.get_running_loop()
    future: asyncio.Future[None] = loop.create_future()

    def notify() -> None:
        try:  # noqa: SIM105  # no context manager on every call's path
            loop.call_soon_threadsafe(finish_wait, future)
        except RuntimeError:  # the loop has closed: nobody waits
            pass

    job = pool.submit(thunk, notify)
    try:
        if timeout is None:
            await future
            done = True
        else:
            finished, _ = await asyncio.wait({future}, timeout=timeout)
            done = bool(finished)
    except BaseException:  # the caller's cancellation
        pool.abandon(job)
        raise
    return _outcome(pool, job, done=done)


def _outcome(pool: ThreadPool, job: _Job, *, done: bool) -> Any:
    """The outcome of `job`, or `TimedOut` when the wait ended first (the job is abandoned)."""
    note = None if done else pool.abandon(job)
    if note is not None:
        raise TimedOut(note)
    return job.outcome()


def finish_wait(future: Any) -> None:
    """Give `future` its result (None), unless it is done (cancelled meanwhile); on its loop."""
    if not future.done():
        future.set_result(None)


async def await_tool(awaitable: Awaitable[Any], timeout: float | None) -> Any:
    """Await what a tool returned; raise `TimedOut` after `timeout` seconds.

    An awaitable that it gives in turn (an async tool may return one) is
    awaited too, with the same timeout. Where the task can tell its own
    cancellation apart (`Task.cancelling`, Python 3.11+) and there is no
    timeout, the awaitable runs right here; `caller_cancelled` then tells a
    `CancelledError` of the caller from one the tool raised. Otherwise it
    runs in a task of its own, and whatever it raises comes back wrapped in
    `Raised`.
    """
    if timeout is None and _TASKS_COUNT_CANCELLING:
        value = await awaitable
    else:
        value = await _in_task(awaitable, timeout)
    if is_awaitable(value):
        return await await_tool(value, timeout)
    return value


async def _in_task(awaitable: Awaitable[Any], timeout: float | None) -> Any:
    import asyncio

    task = asyncio.ensure_future(_captured(awaitable))
    try:
        finished, _ = await asyncio.wait({task}, timeout=timeout)
    except BaseException:  # the caller's cancellation
        task.cancel()
        raise
    if not finished:
        task.cancel()
        raise TimedOut
    value, error = task.result()
    if error is not None:
        raise Raised(error)
    return value


async def _captured(awaitable: Awaitable[Any]) -> tuple[Any, BaseException | None]:
    """(value, None) or (None, what it raised): nothing escapes into the task.

    A task that raises `SystemExit` or `KeyboardInterrupt` stops the event
    loop itself; one that raises `CancelledError` looks cancelled.
    """
    try:
        return await awaitable, None
    except BaseException as error:  # carried back to the awaiting call
        return None, error


def caller_cancelled(error: BaseException) -> bool:
    """Whether `error` is the cancellation of the task that awaits the call.

    Before Python 3.11 every awaitable of a tool runs in a task of its own
    (see `await_tool`), so a bare `CancelledError` can only be the caller's.
    """
    import asyncio

    if not isinstance(error, asyncio.CancelledError):
        return False
    if not _TASKS_COUNT_CANCELLING:
        return True
    try:
        task = asyncio.current_task()
    except RuntimeError:  # no loop: not awaited from a task
        return True
    return task is None or task.cancelling() > 0  # type: ignore[attr-defined]  # 3.11+


def run_blocking(steps: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine whose every wait blocks (it never suspends): one `send` runs it to the end, with no event loop.

    Raises:
        RuntimeError: It suspended after all, waiting for an event loop.
    """
    try:
        steps.send(None)
    except StopIteration as done:
        value: T = done.value
        return value
    steps.close()
    msg = "A blocking call suspended: it needs an event loop"
    raise RuntimeError(msg)


def block_on(make: Callable[[], Awaitable[Any]]) -> Any:
    """Run a coroutine to completion from sync code, even when a loop runs in this thread."""
    import asyncio

    async def main() -> Any:
        return await make()

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(main())
    return _in_helper_thread(lambda: asyncio.run(main()))


_WAITING: dict[int, int] = {}  # helper thread -> the thread blocked until it ends


def thread_waiting_here() -> int | None:
    """The id of the thread that `block_on` blocked until this helper thread ends, if any.

    Such a thread's event loop cannot run meanwhile: work handed to that
    loop from here would never start.
    """
    return _WAITING.get(threading.get_ident())


def _in_helper_thread(thunk: Callable[[], Any]) -> Any:
    """Run `thunk` in a thread of its own and wait: this thread's loop is busy."""
    box: dict[str, Any] = {}
    context = contextvars.copy_context()
    caller = threading.get_ident()

    def target() -> None:
        _WAITING[threading.get_ident()] = caller
        try:
            box["value"] = context.run(thunk)
        except BaseException as error:  # carried back to the caller's thread
            box["error"] = error
        finally:
            _WAITING.pop(threading.get_ident(), None)

    worker = threading.Thread(target=target, name="toolkit-loop", daemon=True)
    worker.start()
    worker.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")


# ------------------------------------------------------------------ the size of arguments

_LARGE: Final = 20_000
"""Work units (container items; four characters of text, as a JSON-encoded
string sent for a list may be decoded) above which checking a value can hold
a thread for a millisecond or more."""
_SMALL_SCALARS: Final = frozenset({int, float, bool, type(None)})


def is_large(value: Any, budget: int = _LARGE) -> bool:
    """Whether checking `value` would noticeably hold up an event loop: then it is checked in a thread.

    The walk stops as soon as the budget is spent, so it costs at most
    `budget` steps whatever the value's size, depth or cycles.
    """
    if type(value) is dict and len(value) < 64:  # a few scalars and short strings
        for item in value.values():
            kind = type(item)
            if kind is str:
                if len(item) > 4096:
                    break
            elif kind not in _SMALL_SCALARS:
                break
        else:
            return False
    try:
        return _over_budget(value, budget)
    except Exception:  # a Python caller's container whose own code raises
        return True  # checked off the loop, where its error becomes the call's result


def _over_budget(value: Any, budget: int) -> bool:
    pending = [value]
    while pending:
        item = pending.pop()
        if type(item) in _SMALL_SCALARS:
            budget -= 1
        elif isinstance(item, (str, bytes, bytearray)):
            budget -= 1 + len(item) // 4
        elif isinstance(item, (dict, list, tuple, set, frozenset)):
            budget -= 1 + len(item)
            if budget >= 0:
                pending.extend(item.items() if isinstance(item, dict) else item)
        else:
            budget -= 1
        if budget < 0:
            return True
    return False
