"""Serving over streamable HTTP in production: the ASGI app, auth, limits, `toolkit serve` as an operator runs it.

Every server listens on 127.0.0.1, on a free port. The app is driven by the
official `mcp` client and by plain HTTP requests; `toolkit serve` runs in a
child process for what only a process shows (exit status, SIGTERM, the
start-up line, workers).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx2
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.types import TextContent

from tests.servers import free_port
from toolkit import __version__, mcp
from toolkit.mcp._app import transport_security

from .serve_tools import tools as TOOLS

ROOT = pathlib.Path(__file__).parent.parent
TARGET = str(ROOT / "tests" / "serve_tools.py")
LIMIT = 60  # seconds, at most, for anything a test waits on
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}
HEADERS = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
}


def _text(result: Any) -> str:
    return "".join(
        part.text for part in result.content if isinstance(part, TextContent)
    )


# ------------------------------------------------------------ in this process


@contextlib.asynccontextmanager
async def served(app: Any) -> AsyncIterator[str]:
    """`app` under uvicorn on 127.0.0.1 in this event loop; yields the base URL."""
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    port = sock.getsockname()[1]

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield

    server = Server(uvicorn.Config(app, log_config=None, lifespan="on"))
    task = asyncio.ensure_future(server.serve(sockets=[sock]))
    try:
        while not server.started:
            assert not task.done(), task.exception()
            await asyncio.sleep(0.01)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, LIMIT)
        sock.close()


@contextlib.asynccontextmanager
async def session(
    url: str, headers: dict[str, str] | None = None, *, terminate: bool = True
) -> AsyncIterator[ClientSession]:
    """An initialized session; `terminate=False` when the server may be gone at the end."""
    async with (
        httpx2.AsyncClient(headers=headers or {}, timeout=LIMIT) as client,
        streamable_http_client(
            url, http_client=client, terminate_on_close=terminate
        ) as (
            read,
            write,
        ),
        ClientSession(read, write) as opened,
    ):
        await opened.initialize()
        yield opened


def run(coroutine: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, LIMIT))


def test_the_official_client_lists_and_calls_through_asgi_app() -> None:
    async def scenario() -> None:
        async with served(mcp.asgi_app(TOOLS)) as base, session(base + "/mcp") as s:
            listed = await s.list_tools()
            assert [item.name for item in listed.tools] == TOOLS.names
            result = await s.call_tool("add", {"a": 2, "b": 3})
            assert (result.is_error, _text(result)) == (False, "5")

    run(scenario())


def test_asgi_app_serves_a_list_of_tools_as_a_set() -> None:
    # A list (as the providers' exports take) is served as a ToolSet of it:
    # its calls run, rather than fail inside the server.
    async def scenario() -> None:
        app = mcp.asgi_app([TOOLS["add"]])
        async with served(app) as base, session(base + "/mcp") as s:
            listed = await s.list_tools()
            assert [item.name for item in listed.tools] == ["add"]
            result = await s.call_tool("add", {"a": 2, "b": 3})
            assert (result.is_error, _text(result)) == (False, "5")

    run(scenario())


def test_server_info_defaults_to_toolkit_and_its_version_and_takes_both() -> None:
    async def info(app: Any) -> Any:
        async with (
            served(app) as base,
            httpx2.AsyncClient(timeout=LIMIT) as client,
        ):
            reply = await client.post(
                base + "/mcp", json=INIT, headers={"accept": HEADERS["accept"]}
            )
            return _rpc(reply)["result"]["serverInfo"]

    assert run(info(mcp.asgi_app(TOOLS, json_response=True))) == {
        "name": "toolkit",
        "version": __version__,
    }
    named = mcp.asgi_app(TOOLS, json_response=True, name="weather", version="2.1")
    assert run(info(named)) == {"name": "weather", "version": "2.1"}


def _rpc(reply: Any) -> Any:
    """The JSON-RPC message of a reply, sent as JSON or as one server-sent event."""
    assert reply.status_code == 200, (reply.status_code, reply.text)
    if reply.headers["content-type"].startswith("application/json"):
        return reply.json()
    data = [line[5:] for line in reply.text.splitlines() if line.startswith("data:")]
    return json.loads(data[-1])


def test_a_bearer_token_is_required_and_a_wrong_one_refused() -> None:
    async def scenario() -> None:
        app = mcp.asgi_app(TOOLS, auth="s3cret-token")
        async with served(app) as base:
            async with httpx2.AsyncClient(timeout=LIMIT) as client:
                none = await client.post(base + "/mcp", json=INIT, headers=HEADERS)
                wrong = await client.post(
                    base + "/mcp",
                    json=INIT,
                    headers={**HEADERS, "authorization": "Bearer s3cret-tokem"},
                )
                health = await client.get(base + "/healthz")
            assert none.status_code == 401
            assert none.headers["www-authenticate"].startswith("Bearer")
            assert wrong.status_code == 401
            assert health.status_code == 200  # probes need no token
            good = {"authorization": "Bearer s3cret-token"}
            async with session(base + "/mcp", good) as s:
                result = await s.call_tool("add", {"a": 1, "b": 1})
                assert _text(result) == "2"

    run(scenario())


class _Verifier:
    """A `TokenVerifier` that knows one token and its scopes."""

    async def verify_token(self, token: str) -> Any:
        from mcp.server.auth.provider import AccessToken

        if token == "issued-by-the-as":
            return AccessToken(
                token=token,
                client_id="agent",
                scopes=["tools"],
                resource="http://127.0.0.1/mcp",
            )
        return None


def test_a_token_verifier_with_auth_settings_is_an_oauth_resource_server() -> None:
    from mcp.server.auth.settings import AuthSettings

    settings = AuthSettings.model_validate(
        {
            "issuer_url": "https://auth.example.com",
            "resource_server_url": "http://127.0.0.1/mcp",
            "required_scopes": ["tools"],
            "validate_token_resource": True,
        }
    )

    async def scenario() -> None:
        app = mcp.asgi_app(TOOLS, auth=_Verifier(), auth_settings=settings)
        async with (
            served(app) as base,
            httpx2.AsyncClient(timeout=LIMIT) as client,
        ):
            refused = await client.post(base + "/mcp", json=INIT, headers=HEADERS)
            assert refused.status_code == 401
            challenge = refused.headers["www-authenticate"]
            assert (
                'resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp"'
                in challenge
            )
            metadata = await client.get(
                base + "/.well-known/oauth-protected-resource/mcp"
            )
            assert metadata.status_code == 200
            assert metadata.json()["authorization_servers"] == [
                "https://auth.example.com"
            ]
            assert metadata.json()["resource"] == "http://127.0.0.1/mcp"
            good = {"authorization": "Bearer issued-by-the-as"}
            async with session(base + "/mcp", good) as s:
                assert _text(await s.call_tool("add", {"a": 2, "b": 2})) == "4"

    run(scenario())


def test_auth_settings_without_a_verifier_is_refused() -> None:
    from mcp.server.auth.settings import AuthSettings

    settings = AuthSettings.model_validate(
        {"issuer_url": "https://auth.example.com", "resource_server_url": None}
    )
    with pytest.raises(ValueError, match="TokenVerifier"):
        mcp.asgi_app(TOOLS, auth_settings=settings)


def test_a_body_over_the_limit_gets_413_and_one_under_it_is_served() -> None:
    async def scenario() -> None:
        app = mcp.asgi_app(TOOLS, stateless=True, json_response=True)
        async with served(app) as base, httpx2.AsyncClient(timeout=LIMIT) as client:
            call = {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": 1, "b": 2}},
            }
            padding = " " * (4 * 1024 * 1024 - len(json.dumps(call)))
            under = await client.post(
                base + "/mcp", content=json.dumps(call) + padding, headers=HEADERS
            )
            over = await client.post(
                base + "/mcp", content=json.dumps(call) + padding + " ", headers=HEADERS
            )
            assert _rpc(under)["result"]["content"][0]["text"] == "3"
            assert over.status_code == 413

    run(scenario())


def test_max_body_sets_the_limit() -> None:
    async def scenario() -> None:
        app = mcp.asgi_app(TOOLS, max_body=1000)
        async with served(app) as base, httpx2.AsyncClient(timeout=LIMIT) as client:
            big = {**INIT, "padding": "x" * 1000}
            reply = await client.post(base + "/mcp", json=big, headers=HEADERS)
            assert reply.status_code == 413

    run(scenario())
    with pytest.raises(ValueError, match="max_body"):
        mcp.asgi_app(TOOLS, max_body=0)


def test_a_foreign_host_or_origin_is_refused_and_a_named_one_accepted() -> None:
    async def status(options: dict[str, Any], headers: dict[str, str]) -> int:
        app = mcp.asgi_app(TOOLS, json_response=True, **options)
        async with served(app) as base, httpx2.AsyncClient(timeout=LIMIT) as client:
            reply = await client.post(
                base + "/mcp", json=INIT, headers={**HEADERS, **headers}
            )
            return int(reply.status_code)

    assert run(status({}, {"host": "attacker.example:8000"})) == 421
    assert run(status({}, {"origin": "https://attacker.example"})) == 403
    assert run(status({}, {"host": "localhost:9"})) == 200
    assert run(status({}, {"origin": "http://localhost:3000"})) == 200
    named = {
        "allowed_hosts": ["tools.example.com"],
        "allowed_origins": ["https://app.example.com"],
    }
    assert run(status(named, {"host": "tools.example.com"})) == 200
    assert run(status(named, {"host": "tools.example.com:8443"})) == 200
    assert run(status(named, {"origin": "https://app.example.com"})) == 200
    assert run(status(named, {"host": "other.example.com"})) == 421
    assert run(status({"allowed_hosts": ["*"]}, {"host": "anything.example"})) == 200


def test_host_checks_are_on_whatever_the_bind_address() -> None:
    """The app's checks do not depend on the address: 0.0.0.0 keeps them (the SDK's own turns them off)."""
    settings = transport_security([], [])
    assert settings.enable_dns_rebinding_protection
    assert "attacker.example:*" not in settings.allowed_hosts
    assert "localhost:*" in settings.allowed_hosts
    assert "[::1]:*" in settings.allowed_hosts
    named = transport_security(["::1", "10.0.0.5", "tools.example.com:443"], [])
    assert {"10.0.0.5", "10.0.0.5:*", "tools.example.com:443"} <= set(
        named.allowed_hosts
    )
    assert "tools.example.com:443:*" not in named.allowed_hosts


def test_healthz_answers_200() -> None:
    async def scenario() -> None:
        async with served(mcp.asgi_app(TOOLS)) as base, httpx2.AsyncClient() as client:
            reply = await client.get(base + "/healthz", headers={"host": "10.1.2.3:80"})
            assert (reply.status_code, reply.json()) == (200, {"status": "ok"})

    run(scenario())


def test_stateless_json_answers_a_call_without_a_session() -> None:
    async def scenario() -> None:
        app = mcp.asgi_app(TOOLS, stateless=True, json_response=True)
        async with served(app) as base, httpx2.AsyncClient(timeout=LIMIT) as client:
            reply = await client.post(
                base + "/mcp",
                json={
                    "jsonrpc": "2.0",
                    "id": 7,
                    "method": "tools/call",
                    "params": {"name": "add", "arguments": {"a": 20, "b": 22}},
                },
                headers=HEADERS,
            )
            assert reply.headers["content-type"].startswith("application/json")
            assert "mcp-session-id" not in reply.headers
            assert reply.json()["result"]["content"][0]["text"] == "42"

    run(scenario())


def test_mounted_in_a_starlette_app_with_its_lifespan() -> None:
    from starlette.applications import Starlette
    from starlette.routing import Mount

    async def scenario() -> None:
        tools_app = mcp.asgi_app(TOOLS)
        parent = Starlette(
            routes=[Mount("/tools", app=tools_app)], lifespan=tools_app.lifespan
        )
        async with served(parent) as base, session(base + "/tools/mcp") as s:
            assert _text(await s.call_tool("add", {"a": 1, "b": 2})) == "3"

    run(scenario())


def test_max_sessions_a_new_client_takes_the_place_of_one_never_seen_again() -> None:
    """At the limit, the session that never sent a second request is ended (503 when all are busy: test_mcp_hostile_peers)."""

    async def scenario() -> None:
        app = mcp.asgi_app(TOOLS, max_sessions=2)
        async with served(app) as base, httpx2.AsyncClient(timeout=LIMIT) as client:
            opened = [
                await client.post(base + "/mcp", json=INIT, headers=HEADERS)
                for _ in range(3)
            ]
            assert [reply.status_code for reply in opened] == [200, 200, 200]
            ping = {"jsonrpc": "2.0", "id": 3, "method": "ping"}
            codes = [
                (
                    await client.post(
                        base + "/mcp",
                        json=ping,
                        headers={
                            **HEADERS,
                            "mcp-session-id": reply.headers["mcp-session-id"],
                            "mcp-protocol-version": "2025-06-18",
                        },
                    )
                ).status_code
                for reply in opened
            ]
            assert codes == [404, 200, 200]

    run(scenario())


def test_an_idle_session_is_closed_after_the_timeout() -> None:
    async def scenario() -> None:
        app = mcp.asgi_app(TOOLS, session_idle_timeout=0.2, json_response=True)
        async with served(app) as base, httpx2.AsyncClient(timeout=LIMIT) as client:
            opened = await client.post(base + "/mcp", json=INIT, headers=HEADERS)
            session_id = opened.headers["mcp-session-id"]
            ping = {"jsonrpc": "2.0", "id": 3, "method": "ping"}
            deadline = time.monotonic() + LIMIT / 2
            code = 200
            while code == 200 and time.monotonic() < deadline:
                await asyncio.sleep(0.3)
                reply = await client.post(
                    base + "/mcp",
                    json=ping,
                    headers={
                        **HEADERS,
                        "mcp-session-id": session_id,
                        "mcp-protocol-version": "2025-06-18",
                    },
                )
                code = reply.status_code
            assert code == 404

    run(scenario())


def test_a_client_that_disconnects_mid_call_cancels_the_async_tool() -> None:
    async def scenario(folder: str) -> bool:
        marker = pathlib.Path(folder) / "started"
        async with (
            served(mcp.asgi_app(TOOLS)) as base,
            httpx2.AsyncClient(timeout=LIMIT) as client,
        ):
            opened = await client.post(base + "/mcp", json=INIT, headers=HEADERS)
            headers = {
                **HEADERS,
                "mcp-session-id": opened.headers["mcp-session-id"],
                "mcp-protocol-version": "2025-06-18",
            }
            initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            await client.post(base + "/mcp", json=initialized, headers=headers)
            call = {
                "jsonrpc": "2.0",
                "id": 5,
                "method": "tools/call",
                "params": {
                    "name": "slow",
                    "arguments": {"seconds": 3600, "marker": str(marker)},
                },
            }
            async with client.stream(
                "POST", base + "/mcp", json=call, headers=headers
            ) as reply:
                assert reply.status_code == 200
                while not marker.exists():
                    await asyncio.sleep(0.02)
            # Leaving the block closes the connection before the answer came.
            cancelled = pathlib.Path(str(marker) + ".cancelled")
            for _ in range(LIMIT * 50):
                if cancelled.exists():
                    return True
                await asyncio.sleep(0.02)
            return False

    with tempfile.TemporaryDirectory() as folder:
        assert run(scenario(folder))


def test_serve_from_python_refuses_what_the_command_refuses() -> None:
    with pytest.raises(ValueError, match="--auth-token-env"):
        mcp.serve(TOOLS, http="0.0.0.0:1")
    with pytest.raises(ValueError, match="stateless"):
        mcp.serve(TOOLS, http="127.0.0.1:1", workers=2)
    with pytest.raises(ValueError, match="give http= too"):
        mcp.serve(TOOLS, stateless=True)


def test_workers_find_a_toolset_by_the_module_that_holds_it() -> None:
    from toolkit import ToolSet
    from toolkit.mcp._run import import_path
    from toolkit.sets._target import load_target

    found = import_path(TOOLS)  # a module holding it, as workers would import it
    assert load_target(found).names == TOOLS.names
    with pytest.raises(ValueError, match="module:attribute"):
        import_path(ToolSet())


def test_a_worker_that_cannot_load_the_tools_says_why_and_stops_the_others(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """uvicorn's supervisor stops every worker when one exits with its start-up failure status."""
    from uvicorn.config import STARTUP_FAILURE

    from toolkit.mcp import _run
    from toolkit.mcp._run import Listen, worker_app

    # A worker process sets the loggers up; this test's process keeps its own.
    monkeypatch.setattr(_run, "configure_logging", lambda level: None)
    listen = Listen("127.0.0.1", 1, {"stateless": True}, target="no_such_module:tools")
    with pytest.raises(SystemExit) as stopped:
        worker_app(listen)
    assert stopped.value.code == STARTUP_FAILURE
    assert capsys.readouterr().err.startswith("toolkit: error: ")


# ------------------------------------------------------------ toolkit serve


def _serve(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "toolkit", "serve", TARGET, *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )


def _first_line(process: subprocess.Popen[str]) -> str:
    """The start-up line; the server listens once it is printed."""
    assert process.stderr is not None
    line = process.stderr.readline()
    assert line, _finish(process)
    return line


def _finish(process: subprocess.Popen[str], sig: int | None = None) -> tuple[int, str]:
    """Stop (with `sig`) or wait for the process; its exit status and the rest of stderr."""
    if sig is not None and process.poll() is None:
        process.send_signal(sig)
    try:
        _, err = process.communicate(timeout=LIMIT)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
        pytest.fail(f"the server did not stop: {err}")
    return process.returncode, err


@contextlib.contextmanager
def serving(
    *args: str, env: dict[str, str] | None = None
) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    port = free_port()
    process = _serve("--http", f"127.0.0.1:{port}", *args, env=env)
    try:
        line = _first_line(process)
        assert f"http://127.0.0.1:{port}/mcp" in line, line
        yield f"http://127.0.0.1:{port}", process
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def test_serve_prints_where_and_how_on_stderr_and_sigterm_exits_0() -> None:
    port = free_port()
    process = _serve("--http", f"127.0.0.1:{port}")
    line = _first_line(process)
    assert (
        line == f"toolkit: serving 7 tools at http://127.0.0.1:{port}/mcp (auth off)\n"
    )
    code, err = _finish(process, signal.SIGTERM)
    assert (code, err) == (0, "")


def test_serve_says_auth_is_on_and_refuses_without_the_token() -> None:
    env = {"TOOLKIT_TEST_TOKEN": "tk-123"}
    with serving("--auth-token-env", "TOOLKIT_TEST_TOKEN", env=env) as (base, process):

        async def scenario() -> None:
            async with httpx2.AsyncClient(timeout=LIMIT) as client:
                refused = await client.post(base + "/mcp", json=INIT, headers=HEADERS)
                assert refused.status_code == 401
            async with session(base + "/mcp", {"authorization": "Bearer tk-123"}) as s:
                assert _text(await s.call_tool("add", {"a": 1, "b": 2})) == "3"

        run(scenario())
        code, err = _finish(process, signal.SIGTERM)
        assert code == 0, err


def test_serve_names_the_server_after_the_target() -> None:
    with serving("--json-response") as (base, process):
        reply = httpx2.post(base + "/mcp", json=INIT, headers=HEADERS, timeout=LIMIT)
        assert _rpc(reply)["result"]["serverInfo"] == {
            "name": "serve_tools",
            "version": __version__,
        }
        assert _finish(process, signal.SIGTERM)[0] == 0
    with serving("--name", "weather", "--version", "3.0", "--json-response") as (
        base,
        process,
    ):
        reply = httpx2.post(base + "/mcp", json=INIT, headers=HEADERS, timeout=LIMIT)
        assert _rpc(reply)["result"]["serverInfo"] == {
            "name": "weather",
            "version": "3.0",
        }
        assert _finish(process, signal.SIGTERM)[0] == 0


def test_a_port_in_use_is_one_line_and_exit_2() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, err = _finish(_serve("--http", f"127.0.0.1:{port}"))
    assert code == 2
    assert (
        err == f"toolkit: error: cannot serve on 127.0.0.1:{port}: the port is in use\n"
    )


def test_a_non_loopback_address_without_auth_is_refused_before_binding() -> None:
    code, err = _finish(_serve("--http", "0.0.0.0:1"))
    assert code == 2
    assert err.count("\n") == 1
    assert err.startswith(
        "toolkit: error: refusing to serve 0.0.0.0 without authentication"
    )
    assert "--auth-token-env" in err
    assert "--no-auth" in err


def test_an_unset_token_variable_is_refused() -> None:
    env = {"TOOLKIT_TEST_UNSET": ""}
    code, err = _finish(
        _serve(
            "--http", "127.0.0.1:1", "--auth-token-env", "TOOLKIT_TEST_UNSET", env=env
        )
    )
    assert code == 2
    assert "TOOLKIT_TEST_UNSET is not set" in err


def test_http_flags_without_http_are_refused() -> None:
    code, err = _finish(_serve("--stateless", "--workers", "2"))
    assert code == 2
    assert "--stateless, --workers: options of HTTP serving" in err


def test_workers_without_stateless_are_refused() -> None:
    code, err = _finish(_serve("--http", "127.0.0.1:1", "--workers", "2"))
    assert code == 2
    assert "--stateless" in err


def test_sigterm_lets_a_call_in_flight_finish_then_exits_0_quietly() -> None:
    with (
        serving() as (base, process),
        tempfile.TemporaryDirectory() as folder,
    ):
        marker = pathlib.Path(folder) / "started"

        async def scenario() -> Any:
            async with session(base + "/mcp", terminate=False) as s:
                await s.list_tools()  # the client checks results against it: ask now
                call = asyncio.ensure_future(
                    s.call_tool("slow", {"seconds": 2, "marker": str(marker)})
                )
                while not marker.exists():
                    assert not call.done(), call.result()
                    await asyncio.sleep(0.02)
                process.send_signal(signal.SIGTERM)
                return await call

        result = run(scenario())
        assert (result.is_error, _text(result)) == (False, "slept 2.0")
        code, err = _finish(process)
        assert code == 0
        assert "Traceback" not in err, err
        assert "Error" not in err, err


def test_sigterm_ends_a_call_that_outlasts_the_grace() -> None:
    exited: list[tuple[int, str]] = []
    with (
        serving("--grace", "0.5") as (base, process),
        tempfile.TemporaryDirectory() as folder,
    ):
        marker = pathlib.Path(folder) / "started"

        async def scenario() -> None:
            async with session(base + "/mcp", terminate=False) as s:
                await s.list_tools()
                call = asyncio.ensure_future(
                    s.call_tool("slow", {"seconds": 3600, "marker": str(marker)})
                )
                while not marker.exists():
                    await asyncio.sleep(0.02)
                process.send_signal(signal.SIGTERM)
                exited.append(await asyncio.to_thread(_finish, process))
                call.cancel()

        with contextlib.suppress(
            Exception
        ):  # the client's streams break: the server is gone
            run(scenario())
    ((code, err),) = exited
    assert code == 0
    assert "Traceback" not in err, err


def test_sigterm_with_idle_sessions_open_exits_at_once() -> None:
    """Open sessions hold an event stream each: the server ends them cleanly instead of waiting out the grace."""
    exited: list[tuple[int, str]] = []
    with serving("--grace", "600") as (base, process):

        async def scenario() -> None:
            async with (
                session(base + "/mcp", terminate=False) as one,
                session(base + "/mcp", terminate=False) as two,
            ):
                await one.list_tools()
                await two.list_tools()
                process.send_signal(signal.SIGTERM)
                exited.append(await asyncio.to_thread(_finish, process))

        with contextlib.suppress(
            Exception
        ):  # the client's streams break: the server is gone
            run(scenario())
    assert exited == [(0, "")]


def test_two_stateless_workers_answer_60_concurrent_calls() -> None:
    with serving("--stateless", "--workers", "2") as (base, process):
        pids: set[int] = set()

        async def scenario() -> None:
            async with session(base + "/mcp") as s:
                for _ in range(
                    5
                ):  # the kernel spreads connections; five rounds see both
                    results = await asyncio.gather(
                        *(s.call_tool("pid", {}) for _ in range(60))
                    )
                    assert [r.is_error for r in results] == [False] * 60
                    pids.update(int(_text(r)) for r in results)
                    if len(pids) == 2:
                        return

        run(scenario())
        assert len(pids) == 2
        assert process.pid not in pids
        code, err = _finish(process, signal.SIGTERM)
        assert code == 0, err
        assert "Traceback" not in err


def _pid_over(connection: socket.socket, host: str) -> int:
    """Call `pid` over an open connection (stateless: no session), as one HTTP/1.1 request."""
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "pid", "arguments": {}},
        }
    ).encode()
    head = (
        f"POST /mcp HTTP/1.1\r\nhost: {host}\r\ncontent-type: application/json\r\n"
        "accept: application/json, text/event-stream\r\n"
        "mcp-protocol-version: 2025-06-18\r\n"
        f"content-length: {len(body)}\r\n\r\n"
    )
    connection.sendall(head.encode() + body)
    received = b""
    while b'"structuredContent"' not in received:
        chunk = connection.recv(65536)
        assert chunk, received
        received += chunk
    answer = received.split(b"data: ", 1)[1].split(b"\r\n", 1)[0]
    return int(json.loads(answer)["result"]["structuredContent"]["result"])


def _wait_for_both(host: str, port: int) -> None:
    """Until both workers have answered (each has loaded the tools), at most LIMIT seconds."""
    deadline = time.monotonic() + LIMIT
    seen: set[int] = set()
    while len(seen) < 2 and time.monotonic() < deadline:
        with socket.create_connection((host, port), timeout=LIMIT) as connection:
            seen.add(_pid_over(connection, f"{host}:{port}"))


@pytest.mark.skipif(
    not sys.platform.startswith("linux"),
    reason="the kernel spreads connections on Linux",
)
def test_two_workers_share_connections_that_arrive_together() -> None:
    """Connections opened at the same moment and kept are shared by both workers.

    A worker accepts every connection waiting when it wakes: on one shared
    listening socket, the first worker to wake took most of them or all,
    and the other idled for as long as those clients stayed connected. The
    kernel spreads them by a hash, so the bound leaves room for chance
    (a worker with 5 of 32 or fewer: about 1 run in 10,000).
    """
    with serving("--stateless", "--workers", "2") as (base, process):
        address = base.removeprefix("http://")
        host, port = address.rsplit(":", 1)
        _wait_for_both(host, int(port))
        connections = [
            socket.create_connection((host, int(port)), timeout=LIMIT)
            for _ in range(32)
        ]
        try:
            pids = [_pid_over(each, address) for each in connections]
        finally:
            for each in connections:
                each.close()
        shares = sorted(pids.count(pid) for pid in set(pids))
        assert len(shares) == 2, shares
        assert shares[0] >= 6, shares
        assert process.pid not in pids
        code, err = _finish(process, signal.SIGTERM)
        assert code == 0, err


def test_log_level_info_writes_an_access_line_per_request() -> None:
    with serving("--log-level", "info") as (base, process):
        httpx2.get(base + "/healthz", timeout=LIMIT)
        code, err = _finish(process, signal.SIGTERM)
    assert code == 0
    assert '"GET /healthz HTTP/1.1" 200' in err


def test_a_tool_traceback_is_logged_at_debug_never_sent_to_the_model() -> None:
    for level, shown in (("debug", True), ("warning", False)):
        with serving("--log-level", level) as (base, process):

            async def scenario() -> Any:
                async with session(base + "/mcp") as s:
                    return await s.call_tool("explode", {"reason": "kaboom"})

            result = run(scenario())
            _, err = _finish(process, signal.SIGTERM)
        assert result.is_error
        assert "Traceback" not in _text(result)
        assert "kaboom" in err
        assert ("Traceback" in err) is shown, err


# ------------------------------------------------------------ stdio


def test_under_stdio_what_tools_print_goes_to_stderr() -> None:
    async def scenario(errlog: Any) -> list[str]:
        params = StdioServerParameters(
            command=sys.executable,
            args=["-m", "toolkit", "serve", TARGET],
            cwd=str(ROOT),
        )
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as s,
        ):
            await s.initialize()
            return [
                _text(await s.call_tool("print_sync", {"text": "SYNC-PRINTED"})),
                _text(await s.call_tool("print_async", {"text": "ASYNC-PRINTED"})),
                _text(await s.call_tool("write_fd", {"text": "FD-WRITTEN"})),
                _text(await s.call_tool("add", {"a": 1, "b": 2})),
            ]

    with tempfile.TemporaryFile("w+") as errlog:
        answers = run(scenario(errlog))
        errlog.seek(0)
        err = errlog.read()
    assert answers == ["printed", "printed", "written", "3"]
    for text in ("SYNC-PRINTED", "ASYNC-PRINTED", "FD-WRITTEN"):
        assert text in err


# ------------------------------------------------------------ deploy/


def _deploy_commands() -> list[list[str]]:
    """The `toolkit serve` command lines of the Dockerfile and the Kubernetes Deployment."""
    dockerfile = (ROOT / "deploy" / "Dockerfile").read_text(encoding="utf-8")
    cmd = dockerfile.split("CMD ", 1)[1].replace("\\\n", "")
    manifest = (ROOT / "deploy" / "kubernetes.yaml").read_text(encoding="utf-8")
    block = manifest.split("args:\n", 1)[1].split("env:", 1)[0]
    args = [
        line.strip()[2:].strip('"')
        for line in block.splitlines()
        if line.strip().startswith("- ")
    ]
    return [json.loads(cmd), args]


def test_the_deploy_files_run_toolkit_serve_with_flags_it_has() -> None:
    from toolkit.cli._cli import _parser

    for command in _deploy_commands():
        assert command[:2] == ["toolkit", "serve"], command
        options = _parser().parse_args(command[1:])
        assert options.stateless
        assert options.auth_token_env == "TOOLS_TOKEN"
        assert options.allowed_host == ["tools.example.com"]
        assert options.http == "0.0.0.0:8000"
