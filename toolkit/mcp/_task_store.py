"""Where tasks are kept: the `TaskStore` protocol, the in-memory store, and the store a URL names."""

from __future__ import annotations

import asyncio
import datetime
import heapq
import time
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Callable


__all__ = ["MemoryTaskStore", "TaskStore", "now", "store_at"]


class TaskStore(Protocol):
    """Where tasks live: a record per task, and the answers its client sent, each kept for `ttl` seconds.

    Records are JSON objects (dicts of JSON values); a store never reads
    them. Every method may be called from any worker.
    """

    async def save(self, task_id: str, record: dict[str, Any], ttl: float) -> None:
        """Keep `record` as the task's record (replacing the one kept), for `ttl` seconds from now."""
        ...

    async def load(self, task_id: str) -> dict[str, Any] | None:
        """The task's record, or None for a task this store does not know (or that expired)."""
        ...

    async def answer(self, task_id: str, responses: dict[str, Any], ttl: float) -> None:
        """Add `responses` (question key → answer) to the task's answers."""
        ...

    async def answers(self, task_id: str) -> dict[str, Any]:
        """The answers sent for the task so far."""
        ...

    # Optional, looked up with getattr (a store without them still works):
    #
    # async def listen(self, notify: Callable[[str], None]) -> None:
    #     Until cancelled, call notify(task_id) after each save or answer
    #     of any process, and notify("*") when changes may have been missed
    #     (after reconnecting). Without it, running tasks poll the store.
    #
    # async def ping(self) -> None:
    #     Raise when the store cannot be reached (else load() is tried).


class MemoryTaskStore:
    """A `TaskStore` in this process's memory: for one process (stdio, or HTTP without workers)."""

    def __init__(self) -> None:
        self._records: dict[str, tuple[float, dict[str, Any]]] = {}
        self._answers: dict[str, dict[str, Any]] = {}
        self._expiries: list[tuple[float, str]] = []  # a heap: the next to expire first
        self._listeners: list[Callable[[str], None]] = []

    async def save(self, task_id: str, record: dict[str, Any], ttl: float) -> None:
        self._prune()
        until = time.monotonic() + ttl
        self._records[task_id] = (until, dict(record))
        heapq.heappush(self._expiries, (until, task_id))
        if (
            len(self._expiries) > 2 * len(self._records) + 64
        ):  # replaced records' entries
            self._expiries = [(u, k) for k, (u, _) in self._records.items()]
            heapq.heapify(self._expiries)
        self._tell(task_id)

    async def load(self, task_id: str) -> dict[str, Any] | None:
        self._prune()
        kept = self._records.get(task_id)
        return dict(kept[1]) if kept is not None else None

    async def answer(self, task_id: str, responses: dict[str, Any], ttl: float) -> None:
        self._answers.setdefault(task_id, {}).update(responses)
        self._tell(task_id)

    async def answers(self, task_id: str) -> dict[str, Any]:
        return dict(self._answers.get(task_id, {}))

    async def listen(self, notify: Callable[[str], None]) -> None:
        """Call `notify(task_id)` after each save and answer, until cancelled."""
        self._listeners.append(notify)
        try:
            await asyncio.Event().wait()
        finally:
            self._listeners.remove(notify)

    def _tell(self, task_id: str) -> None:
        for notify in list(self._listeners):
            notify(task_id)

    def _prune(self) -> None:
        """Drop the records whose time is up: only those, the earliest first (never a scan of all)."""
        now = time.monotonic()
        while self._expiries and self._expiries[0][0] <= now:
            until, task_id = heapq.heappop(self._expiries)
            kept = self._records.get(task_id)
            if kept is not None and kept[0] == until:  # not saved again since
                del self._records[task_id]
                self._answers.pop(task_id, None)


def now() -> str:
    return (
        datetime.datetime.now(datetime.timezone.utc)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )


def store_at(url: str) -> TaskStore:
    """The store a URL names: `redis://HOST:PORT/N` (or `rediss://`).

    Raises:
        ValueError: Not a URL of a store that toolkit has.
    """
    if url.startswith(("redis://", "rediss://")):
        from ._redis import RedisTaskStore

        return RedisTaskStore(url)
    msg = f"task store {url!r}: give redis://HOST:PORT/N, or a TaskStore from Python"
    raise ValueError(msg)
