"""A `TaskStore` in Redis, shared by every worker and replica of a server.

`RedisTaskStore("redis://HOST:PORT/N")` (`--task-store redis://...`) keeps
each task's record as a JSON string and its answers as a hash, both
expiring with the task, so that any process that reaches the same Redis
answers `tasks/get`, `tasks/update` and `tasks/cancel` for a task another
one runs. Needs the `redis` package (`pip install "toolkit-llm[redis]"`),
imported when the store is made.
"""

from __future__ import annotations

import json
from typing import Any, Final

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

    async def save(self, task_id: str, record: dict[str, Any], ttl: float) -> None:
        await self._redis.set(
            self.prefix + task_id, json.dumps(record), px=max(1, round(ttl * 1000))
        )

    async def load(self, task_id: str) -> dict[str, Any] | None:
        text = await self._redis.get(self.prefix + task_id)
        return json.loads(text) if text is not None else None

    async def answer(self, task_id: str, responses: dict[str, Any], ttl: float) -> None:
        key = f"{self.prefix}{task_id}:answers"
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, mapping={k: json.dumps(v) for k, v in responses.items()})
            pipe.pexpire(key, max(1, round(ttl * 1000)))
            await pipe.execute()

    async def answers(self, task_id: str) -> dict[str, Any]:
        found = await self._redis.hgetall(f"{self.prefix}{task_id}:answers")
        return {key: json.loads(value) for key, value in found.items()}

    async def aclose(self) -> None:
        """Close the connections to Redis."""
        await self._redis.aclose()
