"""MCP tasks and their store failing, the server stopping, many live tasks, and a client's cap.

A Redis outage is a real `redis-server` (started here on 127.0.0.1, with an
append-only file so that what it kept survives) stopped and started again
on the same port while a task runs. The cost of live tasks is counted in
store operations, never timed.
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.servers import free_port, wait_for_port
from tests.test_mcp_tasks import peers, run
from toolkit import ToolSet, mcp
from toolkit.mcp._task_store import MemoryTaskStore
from toolkit.mcp._tasks import Tasks

tools = ToolSet()
started: list[str] = []
release: dict[str, asyncio.Event | None] = {"event": None}


@tools.tool(task="optional")
async def hold(label: str) -> str:
    """Work until the test lets it finish.

    Args:
        label: What the call is.
    """
    started.append(label)
    event = release["event"]
    assert isinstance(event, asyncio.Event)
    await event.wait()
    return f"done {label}"


def app(**options: Any) -> Any:
    return mcp.asgi_app(tools, stateless=True, json_response=True, **options)


def _fresh() -> asyncio.Event:
    started.clear()
    event = asyncio.Event()
    release["event"] = event
    return event


class Counting(MemoryTaskStore):
    """A memory store that counts its reads."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    async def load(self, task_id: str) -> dict[str, Any] | None:
        self.reads += 1
        return await super().load(task_id)

    async def answers(self, task_id: str) -> dict[str, Any]:
        self.reads += 1
        return await super().answers(task_id)


class Redis:
    """A redis-server of this test on a fixed loopback port, which the test stops and starts again."""

    def __init__(self, folder: Path) -> None:
        self.port = free_port()
        self.folder = folder
        self.process: subprocess.Popen[bytes] | None = None
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        server = shutil.which("redis-server")
        assert server is not None
        self.process = subprocess.Popen(
            [
                server,
                "--bind",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--dir",
                str(self.folder),
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for_port(self.process, self.port)

    def stop(self) -> None:
        assert self.process is not None
        self.process.terminate()
        self.process.wait(timeout=15)
        self.process = None


@pytest.fixture
def redis(tmp_path: Path) -> Iterator[Redis]:
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    server = Redis(tmp_path)
    server.start()
    try:
        yield server
    finally:
        if server.process is not None:
            server.stop()


def test_a_redis_outage_while_a_task_runs_loses_nothing_and_refuses_new_calls(
    redis: Redis,
) -> None:
    async def main() -> None:
        event = _fresh()
        async with peers(app(task_store=redis.url)) as (peer,):
            created = await peer.result(
                "tools/call", name="hold", arguments={"label": "a"}
            )
            assert created["resultType"] == "task"
            redis.stop()
            await asyncio.sleep(0.3)  # the task's process meets the outage
            # A call now cannot be kept as a task: refused, its tool never started.
            refused = await peer.result(
                "tools/call", name="hold", arguments={"label": "b"}
            )
            assert refused["isError"] is True
            assert "not started" in refused["content"][0]["text"]
            assert "task store" in refused["content"][0]["text"]
            # Reading the task now says why it cannot be read, not "Internal server error".
            status, read = await peer.send("tasks/get", taskId=created["taskId"])
            assert status == 200
            assert read["error"]["code"] == -32603
            assert "task store cannot be reached" in read["error"]["message"]
            event.set()  # the first tool ends while Redis is down
            await asyncio.sleep(0.5)
            redis.start()
            done = await peer.until(created["taskId"], "completed")
            assert done["result"]["content"][0]["text"] == "done a"
            assert started == ["a"]

    run(main())


def test_stopping_the_server_records_its_running_tasks_cancelled() -> None:
    store = MemoryTaskStore()

    async def main() -> list[dict[str, Any] | None]:
        _fresh()
        async with peers(app(task_store=store)) as (peer,):
            ids = [
                (
                    await peer.result(
                        "tools/call", name="hold", arguments={"label": str(n)}
                    )
                )["taskId"]
                for n in range(3)
            ]
        # The server stopped (its lifespan ended); what the store keeps is
        # what a restarted server would answer.
        return [await store.load(task_id) for task_id in ids]

    for record in run(main()):
        assert record is not None
        assert record["status"] == "cancelled"
        assert "stopped" in record["statusMessage"]


def test_live_tasks_cost_no_store_reads_while_nothing_happens() -> None:
    store = Counting()

    async def main() -> None:
        event = _fresh()
        async with peers(app(task_store=store)) as (peer,):
            made = await asyncio.gather(
                *(
                    peer.result("tools/call", name="hold", arguments={"label": str(n)})
                    for n in range(100)
                )
            )
            assert {task["status"] for task in made} == {"working"}
            before = store.reads
            await asyncio.sleep(1)  # 100 tasks polling every 0.1 s read 1,000 times
            assert store.reads - before == 0
            cancelled = made[0]["taskId"]
            await peer.result("tasks/cancel", taskId=cancelled)
            await asyncio.sleep(0.2)
            # The cancel's own read and the one follower it woke: no others.
            assert store.reads - before <= 3
            event.set()
            for task in made[1:4]:
                done = await peer.until(task["taskId"], "completed")
                assert done["result"]["content"][0]["text"].startswith("done")

    run(main())


def test_reading_a_task_does_not_look_at_the_other_tasks() -> None:
    class NoScan(dict[str, Any]):
        def __iter__(self) -> Any:
            raise AssertionError("the store went through every task")

        def items(self) -> Any:
            raise AssertionError("the store went through every task")

        def keys(self) -> Any:
            raise AssertionError("the store went through every task")

        def values(self) -> Any:
            raise AssertionError("the store went through every task")

    async def main() -> None:
        store = MemoryTaskStore()
        store._records = NoScan()
        for n in range(2000):
            await store.save(f"t{n}", {"n": n}, 60)
        await store.save("short", {"n": -1}, 0.05)
        # Saved again: the time of its first save is no longer its own.
        await store.save("t7", {"n": 70}, 60)
        assert await store.load("t1999") == {"n": 1999}
        await asyncio.sleep(0.1)
        assert await store.load("short") is None
        assert await store.load("t7") == {"n": 70}

    run(main())


def test_a_client_beyond_max_tasks_is_refused_before_its_tool_starts() -> None:
    async def main() -> None:
        event = _fresh()
        async with peers(app(max_tasks=2)) as (peer,):
            for label in ("a", "b"):
                task = await peer.result(
                    "tools/call", name="hold", arguments={"label": label}
                )
                assert task["resultType"] == "task"
            refused = await peer.result(
                "tools/call", name="hold", arguments={"label": "c"}
            )
            assert refused["isError"] is True
            assert "max_tasks" in refused["content"][0]["text"]
            assert started == ["a", "b"]
            await peer.result("tasks/cancel", taskId=task["taskId"])
            for _ in range(100):  # the cancelled task's slot comes back
                again = await peer.result(
                    "tools/call", name="hold", arguments={"label": "d"}
                )
                if again.get("resultType") == "task":
                    break
                await asyncio.sleep(0.05)
            assert again["resultType"] == "task"
            event.set()

    run(main())


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "3"])
def test_max_tasks_that_is_no_positive_whole_number_is_refused(bad: Any) -> None:
    with pytest.raises(ValueError, match="max_tasks"):
        Tasks(max_tasks=bad)


def test_sigterm_leaves_no_task_working_in_redis(redis: Redis) -> None:
    import json
    import signal
    import sys

    import httpx2
    import redis as redis_client

    from tests.test_mcp_tasks import Peer

    port = free_port()
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "toolkit",
            "serve",
            "tests/test_mcp_tasks.py:tools",
            "--http",
            f"127.0.0.1:{port}",
            "--stateless",
            "--json-response",
            "--task-store",
            redis.url,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for_port(process, port)

        async def main() -> list[str]:
            async with httpx2.AsyncClient(timeout=60) as client:
                peer = Peer(client, f"http://127.0.0.1:{port}/mcp")
                return [
                    (
                        await peer.result(
                            "tools/call", name="slow", arguments={"seconds": 600}
                        )
                    )["taskId"]
                    for _ in range(3)
                ]

        ids = run(main())
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        assert process.stderr is not None
        process.stderr.close()
    kept = redis_client.Redis.from_url(redis.url, decode_responses=True)
    try:
        for task_id in ids:
            text = kept.get(f"toolkit:task:{task_id}")
            assert isinstance(text, str)
            record = json.loads(text)
            assert record["status"] == "cancelled"
            assert (
                record["statusMessage"]
                == "The server stopped before the tool finished."
            )
    finally:
        kept.close()


stopped: list[str] = []


@tools.tool(task="optional")
async def linger(label: str) -> str:
    """Work until cancelled.

    Args:
        label: What the call is.
    """
    try:
        await asyncio.Event().wait()
    except asyncio.CancelledError:
        stopped.append(label)
        raise
    return label


def test_a_task_whose_record_expires_stops_its_tool_though_no_change_is_heard() -> None:
    """An expiring record tells no one (Redis keys, the memory store's pruning): the follower looks when it would expire."""
    store = MemoryTaskStore()  # a store that tells of changes: no polling

    async def main() -> None:
        stopped.clear()
        async with peers(app(task_store=store, task_ttl=0.5)) as (peer,):
            task = await peer.result(
                "tools/call", name="linger", arguments={"label": "late"}
            )
            assert task["status"] == "working"
            for _ in range(100):  # bounded: 10 s at most, the record lives 0.5 s
                if stopped:
                    break
                await asyncio.sleep(0.1)
            assert stopped == ["late"]
            assert await store.load(task["taskId"]) is None

    run(main())


class Deaf(MemoryTaskStore):
    """A store whose change listener fails at once."""

    async def listen(self, notify: Any) -> None:
        raise ConnectionError("the store's channel is gone")


def test_a_store_whose_listener_fails_is_logged_once_and_its_tasks_still_end(
    caplog: pytest.LogCaptureFixture,
) -> None:
    store = Deaf()

    async def main() -> None:
        event = _fresh()
        async with peers(app(task_store=store)) as (peer,):
            task = await peer.result(
                "tools/call", name="hold", arguments={"label": "deaf"}
            )
            await asyncio.sleep(0.2)  # the listener has failed by now
            event.set()  # the follower polls: it still sees the end
            done = await peer.until(task["taskId"], "completed")
            assert done["result"]["content"][0]["text"] == "done deaf"

    with caplog.at_level("WARNING", logger="toolkit"):
        run(main())
    told = [
        record.getMessage()
        for record in caplog.records
        if "stopped telling of changes" in record.getMessage()
    ]
    assert told == [
        "The task store stopped telling of changes (ConnectionError: the store's channel is gone); tasks poll it instead"
    ]
