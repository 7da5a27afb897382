"""The MCP tasks extension over streamable HTTP: tasks/get, tasks/update, tasks/cancel, in memory and in Redis.

Requests are the JSON-RPC bodies and headers a 2026-07-28 client sends
(the conformance suite drives the same server too). The Redis store is
tested against a real `redis-server` that the tests start on 127.0.0.1:
two apps (two workers) share it, and a task started through one is read,
answered and cancelled through the other.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
import pytest

from tests.servers import free_port, wait_for_port
from tests.test_mcp_http import served
from toolkit import Context, ToolSet, mcp
from toolkit.mcp._task_store import MemoryTaskStore
from toolkit.mcp._tasks import EXTENSION

tools = ToolSet()
stopped: list[str] = []
gate = {"open": False}


@tools.tool(task="optional")
async def slow(seconds: float) -> str:
    """Work for a while.

    Args:
        seconds: How long.
    """
    try:
        await asyncio.sleep(seconds)
    except asyncio.CancelledError:
        stopped.append("slow")
        raise
    return f"slept {seconds:g}"


@tools.tool(task="required")
async def only_a_task() -> str:
    """Work a moment; callable as a task only."""
    await asyncio.sleep(0.5)
    return "done"


@tools.tool(task="optional")
async def confirm(ctx: Context) -> str:
    """Ask for a confirmation once the task has started."""
    await asyncio.sleep(0.5)
    form = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    answer = await ctx.elicit("Sure?", form, key="sure")
    return f"ok={(answer.data or {}).get('ok')}"


@tools.tool(task="optional")
async def needs_roots(ctx: Context) -> str:
    """Ask for the client's roots once the task has started."""
    await asyncio.sleep(0.5)
    return str(await ctx.roots())


@tools.tool(task="optional")
async def breaks() -> str:
    """Fail after a moment."""
    await asyncio.sleep(0.5)
    message = "out of paper"
    raise ValueError(message)


def _meta(extension: bool) -> dict[str, Any]:
    caps: dict[str, Any] = {"elicitation": {}}
    if extension:
        caps["extensions"] = {EXTENSION: {}}
    return {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": caps,
    }


class Peer:
    """A 2026-07-28 client of one server, speaking JSON-RPC over HTTP."""

    def __init__(
        self, client: httpx2.AsyncClient, url: str, extension: bool = True
    ) -> None:
        self.client = client
        self.url = url
        self.extension = extension
        self.sent = 0

    async def send(
        self, method: str, named: str | None = None, **params: Any
    ) -> tuple[int, dict[str, Any]]:
        self.sent += 1
        name = named or params.get("name") or params.get("taskId")
        headers = {
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": method,
            **({"mcp-name": str(name)} if name is not None else {}),
        }
        body = {
            "jsonrpc": "2.0",
            "id": self.sent,
            "method": method,
            "params": {**params, "_meta": _meta(self.extension)},
        }
        reply = await self.client.post(self.url, json=body, headers=headers)
        return reply.status_code, reply.json()

    async def result(self, method: str, **params: Any) -> dict[str, Any]:
        status, answer = await self.send(method, **params)
        assert status == 200, answer
        return answer["result"]  # type: ignore[no-any-return]

    async def until(self, task_id: str, *statuses: str) -> dict[str, Any]:
        for _ in range(600):  # 600 looks at most, 0.05 s apart
            task = await self.result("tasks/get", taskId=task_id)
            if task["status"] in statuses:
                return task
            await asyncio.sleep(0.05)
        raise AssertionError(f"task {task_id} never reached {statuses}: {task}")


@contextlib.asynccontextmanager
async def peers(*apps: Any, extension: bool = True) -> AsyncIterator[list[Peer]]:
    async with contextlib.AsyncExitStack() as stack:
        client = await stack.enter_async_context(httpx2.AsyncClient(timeout=60))
        found = []
        for app in apps:
            base = await stack.enter_async_context(served(app))
            found.append(Peer(client, base + "/mcp", extension))
        yield found


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 120))


def app(**options: Any) -> Any:
    return mcp.asgi_app(tools, stateless=True, json_response=True, **options)


def test_a_long_call_becomes_a_task_that_completes_with_its_result() -> None:
    async def main() -> None:
        async with peers(app()) as (peer,):
            created = await peer.result(
                "tools/call", name="slow", arguments={"seconds": 1}
            )
            assert created["resultType"] == "task"
            assert created["status"] == "working"
            assert {"createdAt", "lastUpdatedAt", "ttlMs", "pollIntervalMs"} <= set(
                created
            )
            assert "requestState" not in created
            assert "result" not in created
            first = await peer.result("tasks/get", taskId=created["taskId"])
            assert first["status"] == "working"
            done = await peer.until(created["taskId"], "completed")
            assert done["result"]["content"] == [{"type": "text", "text": "slept 1"}]
            quick = await peer.result(
                "tools/call", name="slow", arguments={"seconds": 0}
            )
            assert quick["resultType"] == "complete"
            assert quick["content"][0]["text"] == "slept 0"

    run(main())


def test_without_the_extension_a_task_tool_runs_or_is_refused() -> None:
    async def main() -> None:
        async with peers(app(), extension=False) as (peer,):
            ran = await peer.result(
                "tools/call", name="slow", arguments={"seconds": 0.3}
            )
            assert (ran["resultType"], ran["content"][0]["text"]) == (
                "complete",
                "slept 0.3",
            )
            status, refused = await peer.send(
                "tools/call", name="only_a_task", arguments={}
            )
            assert status == 400
            assert refused["error"]["code"] == -32021
            assert refused["error"]["data"] == {
                "requiredCapabilities": {"extensions": {EXTENSION: {}}}
            }
            status, refused = await peer.send("tasks/get", taskId="anything")
            assert refused["error"]["code"] == -32021

    run(main())


def test_unknown_tasks_and_a_mismatched_name_header_are_refused() -> None:
    async def main() -> None:
        async with peers(app()) as (peer,):
            for method in ("tasks/get", "tasks/cancel"):
                _, unknown = await peer.send(method, taskId="nobody")
                assert unknown["error"]["code"] == -32602
            for method in ("tasks/result", "tasks/list"):
                _, removed = await peer.send(method, taskId="nobody")
                assert removed["error"]["code"] == -32601
            created = await peer.result(
                "tools/call", name="slow", arguments={"seconds": 1}
            )
            status, mismatch = await peer.send(
                "tasks/get", named="another", taskId=created["taskId"]
            )
            assert (status, mismatch["error"]["code"]) == (400, -32020)

    run(main())


def test_cancelling_a_task_stops_its_tool() -> None:
    stopped.clear()

    async def main() -> None:
        async with peers(app()) as (peer,):
            created = await peer.result(
                "tools/call", name="slow", arguments={"seconds": 30}
            )
            ack = await peer.result("tasks/cancel", taskId=created["taskId"])
            assert ack["resultType"] == "complete"
            assert not {"taskId", "status", "result"} & set(ack)
            task = await peer.until(created["taskId"], "cancelled")
            assert "result" not in task
            for _ in range(400):
                if stopped:
                    break
                await asyncio.sleep(0.05)
            assert stopped == ["slow"]
            again = await peer.result("tasks/cancel", taskId=created["taskId"])
            assert "error" not in again

    run(main())


def _ask_and_answer(one: Peer, other: Peer) -> Any:
    async def main() -> str:
        created = await one.result("tools/call", name="confirm", arguments={})
        waiting = await other.until(created["taskId"], "input_required")
        assert list(waiting["inputRequests"]) == ["sure"]
        assert waiting["inputRequests"]["sure"]["method"] == "elicitation/create"
        await other.result(
            "tasks/update",
            taskId=created["taskId"],
            inputResponses={"sure": {"action": "accept", "content": {"ok": True}}},
        )
        done = await one.until(created["taskId"], "completed")
        return str(done["result"]["content"][0]["text"])

    return main()


def test_a_task_waits_for_its_answer_and_goes_on() -> None:
    async def main() -> None:
        async with peers(app()) as (peer,):
            assert await _ask_and_answer(peer, peer) == "ok=True"

    run(main())


def test_a_task_is_kept_for_its_ttl_then_expires() -> None:
    async def main() -> None:
        store = MemoryTaskStore()
        async with peers(app(task_store=store, task_ttl=1.5)) as (peer,):
            created = await peer.result(
                "tools/call", name="slow", arguments={"seconds": 0.3}
            )
            assert created["ttlMs"] == 1500
            await peer.until(created["taskId"], "completed")
            await asyncio.sleep(1.6)
            _, gone = await peer.send("tasks/get", taskId=created["taskId"])
            assert gone["error"]["code"] == -32602

    run(main())


# ---------------------------------------------------------------- Redis


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """A redis-server of its own on a free loopback port, without persistence."""
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    port = free_port()
    process = subprocess.Popen(
        [
            server,
            "--bind",
            "127.0.0.1",
            "--port",
            str(port),
            "--save",
            "",
            "--appendonly",
            "no",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        wait_for_port(process, port)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=15)
        if process.stderr:
            process.stderr.close()


def test_two_workers_sharing_a_redis_store_answer_for_each_others_tasks(
    redis_url: str,
) -> None:
    stopped.clear()

    async def main() -> None:
        key = "s" * 32
        one_app = app(task_store=redis_url, state_key=key)
        other_app = app(task_store=redis_url, state_key=key)
        async with peers(one_app, other_app) as (one, other):
            created = await one.result(
                "tools/call", name="slow", arguments={"seconds": 0.5}
            )
            done = await other.until(created["taskId"], "completed")
            assert done["result"]["content"][0]["text"] == "slept 0.5"
            assert await _ask_and_answer(one, other) == "ok=True"
            long = await other.result(
                "tools/call", name="slow", arguments={"seconds": 30}
            )
            await one.result("tasks/cancel", taskId=long["taskId"])
            await other.until(long["taskId"], "cancelled")
            for _ in range(400):
                if stopped:
                    break
                await asyncio.sleep(0.05)
            assert stopped == ["slow"]

    run(main())


def test_a_task_id_naming_another_redis_key_is_an_unknown_task(redis_url: str) -> None:
    async def main() -> None:
        async with peers(app(task_store=redis_url)) as (peer,):
            created = await peer.result("tools/call", name="confirm", arguments={})
            task_id = created["taskId"]
            await peer.until(task_id, "input_required")
            answer = {"sure": {"action": "accept", "content": {"ok": True}}}
            await peer.result("tasks/update", taskId=task_id, inputResponses=answer)
            # the task's answers are a Redis hash under toolkit:task:ID:answers
            for method in ("tasks/get", "tasks/update", "tasks/cancel"):
                status, refused = await peer.send(method, taskId=f"{task_id}:answers")
                assert (status, refused["error"]["code"]) == (400, -32602)
                assert refused["error"]["message"].startswith("Unknown task")
            done = await peer.until(task_id, "completed")
            assert done["result"]["content"][0]["text"] == "ok=True"

    run(main())


@pytest.mark.parametrize("ttl", [0, -1, float("nan"), float("inf"), "5", True])
def test_a_task_ttl_that_is_no_positive_number_of_seconds_is_refused(
    ttl: Any,
) -> None:
    with pytest.raises(ValueError, match="task_ttl must be a positive number"):
        app(task_ttl=ttl)


def test_the_redis_store_needs_the_redis_url() -> None:
    with pytest.raises(ValueError, match="redis://"):
        app(task_store="memcached://127.0.0.1")


def test_a_task_option_other_than_optional_or_required_is_a_definition_error() -> None:
    from toolkit import ToolDefinitionError, tool

    def work() -> str:
        """Work."""
        return "done"

    with pytest.raises(ToolDefinitionError, match='"optional", "required" or None'):
        tool(task="always")(work)  # type: ignore[call-overload]


def test_workers_without_a_shared_task_store_are_refused() -> None:
    with pytest.raises(ValueError, match="--task-store redis://"):
        mcp.serve(tools, "127.0.0.1:8999", workers=2, stateless=True)


def test_a_tool_error_completes_and_a_protocol_error_fails_the_task() -> None:
    """A tool that raised completed with an error result; a question the client cannot take failed it."""

    async def main() -> None:
        async with peers(app()) as (peer,):
            created = await peer.result("tools/call", name="breaks", arguments={})
            done = await peer.until(created["taskId"], "completed", "failed")
            assert done["status"] == "completed"
            assert done["result"]["isError"] is True
            created = await peer.result("tools/call", name="needs_roots", arguments={})
            failed = await peer.until(created["taskId"], "completed", "failed")
            assert failed["status"] == "failed"
            assert "result" not in failed
            assert failed["error"]["code"] == -32021

    run(main())
