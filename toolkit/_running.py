"""Where a tool's code runs: inline, in a worker thread, or on an event loop, with timeouts.

A sync function called from async code runs in a worker thread (the context
variables of the caller go with it), so the event loop never blocks. A
timeout ends the *wait*: an async tool is cancelled, but a thread cannot be
killed in Python, so a sync tool that times out keeps running in its thread
until it returns, and its result is dropped. `asyncio` is imported only when
async code runs.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["TimedOut", "block_on", "bounded", "in_thread", "thread_with_timeout"]


class TimedOut(Exception):  # an outcome, not a failure of toolkit
    """The call did not finish within its timeout."""


async def bounded(awaitable: Awaitable[Any], timeout: float | None) -> Any:
    """Await `awaitable`; raise `TimedOut` after `timeout` seconds and cancel it."""
    if timeout is None:
        return await awaitable
    import asyncio

    task = asyncio.ensure_future(awaitable)
    try:
        done, _ = await asyncio.wait({task}, timeout=timeout)
    except asyncio.CancelledError:
        task.cancel()
        raise
    if not done:
        task.cancel()
        raise TimedOut
    return task.result()


async def in_thread(thunk: Callable[[], Any], timeout: float | None) -> Any:
    """Run a sync thunk in a worker thread, with the caller's context variables.

    Without a timeout it uses the loop's default executor. With one it uses a
    daemon thread of its own: a thread left running after its timeout must not
    hold up `asyncio.run`, which waits for the default executor when it ends.
    """
    import asyncio

    loop = asyncio.get_running_loop()
    context = contextvars.copy_context()
    if timeout is None:
        return await loop.run_in_executor(None, context.run, thunk)
    future: asyncio.Future[Any] = loop.create_future()

    def target() -> None:
        try:
            value = context.run(thunk)
        except BaseException as error:  # carried back to the awaiting task
            _settle(loop, future, error=error)
        else:
            _settle(loop, future, value=value)

    threading.Thread(target=target, name="toolkit-call", daemon=True).start()
    return await bounded(future, timeout)


def _settle(
    loop: Any, future: Any, *, value: Any = None, error: BaseException | None = None
) -> None:
    def settle() -> None:
        if future.done():  # timed out or cancelled meanwhile
            return
        if error is None:
            future.set_result(value)
        else:
            future.set_exception(error)

    with contextlib.suppress(
        RuntimeError
    ):  # the loop has closed: nobody waits for this result
        loop.call_soon_threadsafe(settle)


def block_on(make: Callable[[], Awaitable[Any]], timeout: float | None) -> Any:
    """Run a coroutine to completion from sync code, even when a loop runs in this thread."""
    import asyncio

    async def main() -> Any:
        return await bounded(make(), timeout)

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(main())
    return _in_helper_thread(lambda: asyncio.run(main()), None)


def thread_with_timeout(thunk: Callable[[], Any], timeout: float) -> Any:
    """Run a sync thunk in a daemon thread; raise `TimedOut` if it runs past `timeout`."""
    return _in_helper_thread(thunk, timeout)


def _in_helper_thread(thunk: Callable[[], Any], timeout: float | None) -> Any:
    box: dict[str, Any] = {}
    context = contextvars.copy_context()

    def target() -> None:
        try:
            box["value"] = context.run(thunk)
        except BaseException as error:  # carried back to the caller's thread
            box["error"] = error

    worker = threading.Thread(target=target, name="toolkit-call", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        raise TimedOut
    if "error" in box:
        raise box["error"]
    return box.get("value")
