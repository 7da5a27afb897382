"""A `TaskStore` in Redis, shared by every worker and replica of a server.

`RedisTaskStore("redis://HOST:PORT/N")` (`--task-store redis://...`) keeps
each task's record as a JSON string and its answers as a hash, both
expiring with the task, so that any process that reaches the same Redis
answers `tasks/get`, `tasks/update` and `tasks/cancel` for a task another
one runs. Each save and answer is also published (`toolkit:task:changed`,
the task id), so that the process running the task hears of a cancellation
or an answer at once, without polling. Needs the `redis` package (`pip install "toolkit-llm[redis]"`),
imported when the store is made.
"""

from __future__ import annotations

import asyncio
import json
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["RedisTaskStore"]

_INSTALL_HINT: Final = (
    'A Redis task store needs the `redis` package: pip install "toolkit-llm[redis]"'
)


class RedisTaskStore:
    """A `TaskStore` in Redis: `toolkit:task:ID` (the record) and `toolkit:task:ID:answers`.

    Args:
        url: `redis://HOST:PORT/N` (or `rediss://` for TLS).
        prefix: What every key starts with, to share a Redis with others.

    Raises:
        ImportError: The `redis` package is not installed.
    """

    def __init__(self, url: str, *, prefix: str = "toolkit:task:") -> None:
        try:
            import redis.asyncio
        except ImportError:
            raise ImportError(_INSTALL_HINT) from None
        self.url = url
        self.prefix = prefix
        self._redis: Any = redis.asyncio.Redis.from_url(url, decode_responses=True)
        self.channel = prefix + "changed"

    async def save(self, task_id: str, record: dict[str, Any], ttl: float) -> None:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.set(
                self.prefix + task_id, json.dumps(record), px=max(1, round(ttl * 1000))
            )
            pipe.publish(self.channel, task_id)
            await pipe.execute()

    async def load(self, task_id: str) -> dict[str, Any] | None:
        text = await self._redis.get(self.prefix + task_id)
        return json.loads(text) if text is not None else None

    async def answer(self, task_id: str, responses: dict[str, Any], ttl: float) -> None:
        key = f"{self.prefix}{task_id}:answers"
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, mapping={k: json.dumps(v) for k, v in responses.items()})
            pipe.pexpire(key, max(1, round(ttl * 1000)))
            pipe.publish(self.channel, task_id)
            await pipe.execute()

    async def answers(self, task_id: str) -> dict[str, Any]:
        found = await self._redis.hgetall(f"{self.prefix}{task_id}:answers")
        return {key: json.loads(value) for key, value in found.items()}

    async def ping(self) -> None:
        """Raise when Redis cannot be reached."""
        await self._redis.ping()

    async def listen(self, notify: Callable[[str], None]) -> None:
        """Call `notify(task_id)` for each save and answer of any process, until cancelled.

        A subscription of its own, on a connection that does not retry by
        itself: when it breaks, this reconnects (with backoff) and calls
        `notify("*")`, since changes made meanwhile were not heard.
        """
        import redis.asyncio
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff

        delay = 0.05
        while True:
            client = redis.asyncio.Redis.from_url(
                self.url, decode_responses=True, retry=Retry(NoBackoff(), 0)
            )
            try:
                async with client.pubsub() as pubsub:
                    await pubsub.subscribe(self.channel)
                    notify("*")  # whatever changed before this subscription
                    delay = 0.05
                    async for message in pubsub.listen():
                        if message.get("type") == "message":
                            notify(str(message["data"]))
            except (redis.RedisError, OSError):
                await asyncio.sleep(delay)
                delay = min(2.0, delay * 2)
            finally:
                await client.aclose()

    async def aclose(self) -> None:
        """Close the connections to Redis."""
        await self._redis.aclose()
