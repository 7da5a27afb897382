"""The MCP server over streamable HTTP: the ASGI app, and running it with uvicorn.

`asgi_app` assembles the official SDK's pieces (its session manager, Host and
Origin checks, request body limit, bearer authentication and protected
resource metadata) into one Starlette app. `run` serves that app with
uvicorn in this process or in worker processes, and owns what an operator
sees: the start-up line, a port in use, SIGTERM draining, the log lines.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import ipaddress
import logging
import math
import os
import signal
import socket
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterable
from typing import TYPE_CHECKING, Any, Final

from toolkit._version import __version__

if TYPE_CHECKING:
    from toolkit._toolset import ToolSet

__all__ = [
    "DEFAULT_GRACE",
    "DEFAULT_MAX_BODY",
    "DEFAULT_MAX_SESSIONS",
    "DEFAULT_SESSION_IDLE_TIMEOUT",
    "LOG_LEVELS",
    "asgi_app",
    "parse_address",
    "run",
]

DEFAULT_MAX_BODY: Final = 4 * 1024 * 1024
"""Request bodies larger than this many bytes are refused with 413."""

DEFAULT_MAX_SESSIONS: Final = 1000
"""Open sessions at most; a client that would open one more gets 503."""

DEFAULT_SESSION_IDLE_TIMEOUT: Final = 600.0
"""Seconds without a request after which a session is closed."""

DEFAULT_GRACE: Final = 10.0
"""Seconds that SIGTERM leaves calls in flight to finish."""

LOG_LEVELS: Final = ("debug", "info", "warning", "error")

LOOPBACK_NAMES: Final = ("127.0.0.1", "localhost", "::1")

_STATIC_CLIENT: Final = "bearer-token"


# ---------------------------------------------------------------- the app


def asgi_app(
    toolset: ToolSet,
    *,
    name: str | None = None,
    version: str | None = None,
    stateless: bool = False,
    json_response: bool = False,
    allowed_hosts: Iterable[str] = (),
    allowed_origins: Iterable[str] = (),
    auth: Any = None,
    auth_settings: Any = None,
    max_body: int = DEFAULT_MAX_BODY,
    max_sessions: int | None = DEFAULT_MAX_SESSIONS,
    session_idle_timeout: float | None = DEFAULT_SESSION_IDLE_TIMEOUT,
    resumable: bool = True,
    sse_poll: float | None = None,
    path: str = "/mcp",
) -> Any:
    """The MCP server of `toolset` as an ASGI app: streamable HTTP at `path`, `GET /healthz`.

    Run it under any ASGI server, or mount it in a Starlette or FastAPI app;
    a parent app must run this app's lifespan (`lifespan=app.lifespan`),
    which starts and stops the MCP sessions.

    Args:
        toolset: The tools to serve.
        name: `serverInfo.name` (default `"toolkit"`).
        version: `serverInfo.version` (default: toolkit's version).
        stateless: Keep no session between requests, so that any worker or
            replica can answer any request.
        json_response: Answer each POST with one JSON body instead of an
            event stream.
        allowed_hosts: `Host` values accepted besides the loopback names
            (`"example.com"` takes any port, `"example.com:8443"` that one);
            `"*"` turns the Host and Origin checks off, for a proxy that
            does them.
        allowed_origins: `Origin` values accepted besides loopback ones
            (`"https://app.example.com"`); requests without `Origin` pass.
        auth: A bearer token string (compared in constant time), or the
            MCP SDK's `TokenVerifier`; requests to `path` without a token it
            accepts get 401. None serves everyone.
        auth_settings: The MCP SDK's `AuthSettings`, with a `TokenVerifier`:
            the required scopes, and with `resource_server_url` the OAuth
            protected-resource metadata (RFC 9728) that points clients to
            the authorization server.
        max_body: Request bodies larger than this many bytes get 413.
        max_sessions: Open sessions at most (503 beyond); None for no limit.
        session_idle_timeout: Seconds without a request after which a
            session is closed; None keeps it until the client ends it.
        resumable: Keep each session's recent events in memory (bounded), so
            that a 2025-11-25 client whose event stream ends before the
            answer reconnects with `Last-Event-ID` and gets what it missed.
            Sessions and event streams only: off when `stateless` or
            `json_response`.
        sse_poll: Seconds after which a call's event stream is ended while
            its tool keeps running, and again each time as long, so that no
            connection stays open longer (proxies with idle timeouts); the
            client reconnects and gets the answer. Only for clients that
            can resume (2025-11-25 and later); needs `resumable`.
        path: Where the MCP endpoint is.

    Raises:
        ImportError: The `mcp` package is not installed.
        ValueError: An option is out of range.
    """
    from ._server import build_server, require_mcp

    require_mcp()
    from ._events import SSE_RETRY_MS, EventLog, Sessions

    _check_limits(max_body, max_sessions, session_idle_timeout)
    resumable = resumable and not (stateless or json_response)
    _check_poll(sse_poll, resumable)
    from mcp.server.streamable_http_manager import (
        StreamableHTTPASGIApp,
        StreamableHTTPSessionManager,
    )
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    server = build_server(
        toolset,
        name=name or "toolkit",
        version=version or __version__,
        sse_poll=sse_poll,
    )
    events = EventLog() if resumable else None
    security = transport_security(allowed_hosts, allowed_origins)
    manager = StreamableHTTPSessionManager(
        app=server,
        json_response=json_response,
        stateless=stateless,
        security_settings=security,
        max_request_body_size=max_body,
        session_idle_timeout=None if stateless else session_idle_timeout,
        max_sessions=max_sessions,
        event_store=events,
        retry_interval=SSE_RETRY_MS if events is not None else None,
    )
    app = App(manager)
    inner: Any = StreamableHTTPASGIApp(manager)
    if not json_response:
        from ._stream import SessionDirect

        inner = app.direct_path = SessionDirect(
            inner,
            manager,
            security,
            max_body,
            lambda: app.running,
            toolset,
            events,
            stateless=stateless,
        )
    if events is not None:
        inner = app.sessions = Sessions(inner, events, session_idle_timeout)
    if stateless and json_response:
        from ._direct import Direct

        inner = app.direct_path = Direct(
            inner, manager, security, max_body, lambda: app.running
        )
    endpoint: Any = app.endpoint(inner)

    async def healthz(request: Any) -> Any:
        return JSONResponse({"status": "ok"})

    routes: list[Any] = [Route("/healthz", healthz, methods=["GET"])]
    middleware: list[Any] = []
    verifier = StaticToken(auth) if isinstance(auth, str) else auth
    if auth_settings is not None and verifier is None:
        msg = "auth_settings needs auth=, the TokenVerifier that checks the tokens"
        raise ValueError(msg)
    if verifier is not None:
        endpoint, auth_middleware, metadata = _authenticated(
            endpoint, verifier, auth_settings
        )
        middleware.extend(auth_middleware)
        routes.extend(metadata)
    routes.append(Route(path, endpoint=endpoint))
    app.inner = Starlette(routes=routes, middleware=middleware, lifespan=app.lifespan)
    if (
        not middleware
    ):  # nothing to run before the endpoint: requests to it skip the router
        app.direct = (path, endpoint, app.inner)
    app.authenticated = verifier is not None
    app.tool_count = len(server_tools(toolset))
    return app


def server_tools(toolset: ToolSet) -> list[Any]:
    from ._wire import tools

    return tools(toolset)


def _check_limits(max_body: int, max_sessions: int | None, idle: float | None) -> None:
    if max_body <= 0:
        msg = f"max_body must be a positive number of bytes, not {max_body!r}"
        raise ValueError(msg)
    if max_sessions is not None and max_sessions <= 0:
        msg = f"max_sessions must be a positive number or None, not {max_sessions!r}"
        raise ValueError(msg)
    if idle is not None and not idle > 0:
        msg = f"session_idle_timeout must be a positive number of seconds or None, not {idle!r}"
        raise ValueError(msg)


def _check_poll(sse_poll: float | None, resumable: bool) -> None:
    if sse_poll is None:
        return
    if not (
        isinstance(sse_poll, (int, float)) and math.isfinite(sse_poll) and sse_poll > 0
    ):
        msg = f"sse_poll must be a positive number of seconds or None, not {sse_poll!r}"
        raise ValueError(msg)
    if not resumable:
        msg = (
            "sse_poll (--sse-poll) ends event streams that clients resume: it needs "
            "sessions and event streams, so not stateless, json_response or resumable=False"
        )
        raise ValueError(msg)


def transport_security(hosts: Iterable[str], origins: Iterable[str]) -> Any:
    """The SDK's Host and Origin checks: loopback names and the given ones; `"*"` turns them off.

    The checks stop DNS rebinding (a web page whose name resolves to this
    machine) whatever address the server is bound to: a server reached
    under another name must be told that name.
    """
    from mcp.server.transport_security import TransportSecuritySettings

    hosts = list(hosts)
    if "*" in hosts:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    loopback = ["127.0.0.1", "localhost", "[::1]"]
    allowed_hosts = [*loopback, *(f"{name}:*" for name in loopback)]
    for host in hosts:
        allowed_hosts.extend(_host_patterns(host))
    allowed_origins = [
        pattern
        for name in loopback
        for pattern in (
            f"http://{name}",
            f"http://{name}:*",
            f"https://{name}",
            f"https://{name}:*",
        )
    ]
    for origin in origins:
        origin = origin.rstrip("/")
        allowed_origins.append(origin)
        if not _has_port(origin.partition("://")[2]):
            allowed_origins.append(f"{origin}:*")
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=allowed_hosts,
        allowed_origins=allowed_origins,
    )


def _host_patterns(host: str) -> list[str]:
    host = host.strip()
    if _is_ipv6(host):
        host = f"[{host}]"
    return [host] if _has_port(host) else [host, f"{host}:*"]


def _has_port(host: str) -> bool:
    if host.startswith("["):
        return "]:" in host
    return ":" in host


def _is_ipv6(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).version == 6
    except ValueError:
        return False


class StaticToken:
    """A `TokenVerifier` for one shared bearer token, compared in constant time."""

    def __init__(self, token: str) -> None:
        if not token:
            msg = "the bearer token is empty"
            raise ValueError(msg)
        self._digest = hashlib.sha256(token.encode()).digest()

    async def verify_token(self, token: str) -> Any:
        from mcp.server.auth.provider import AccessToken

        given = hashlib.sha256(token.encode("utf-8", "replace")).digest()
        if hmac.compare_digest(given, self._digest):
            return AccessToken(token=token, client_id=_STATIC_CLIENT, scopes=[])
        return None


def _authenticated(
    endpoint: Any, verifier: Any, settings: Any
) -> tuple[Any, list[Any], list[Any]]:
    """The endpoint behind the SDK's bearer check, its middleware, and the metadata routes."""
    from mcp.server.auth.middleware.auth_context import AuthContextMiddleware
    from mcp.server.auth.middleware.bearer_auth import (
        BearerAuthBackend,
        RequireAuthMiddleware,
    )
    from mcp.server.auth.routes import (
        build_resource_metadata_url,
        create_protected_resource_routes,
    )
    from starlette.middleware import Middleware
    from starlette.middleware.authentication import AuthenticationMiddleware

    resource = getattr(settings, "resource_server_url", None)
    scopes = list(getattr(settings, "required_scopes", None) or [])
    bound = resource if getattr(settings, "validate_token_resource", False) else None
    middleware = [
        Middleware(
            AuthenticationMiddleware,
            backend=BearerAuthBackend(verifier, resource_server_url=bound),
        ),
        Middleware(AuthContextMiddleware),
    ]
    metadata_url = build_resource_metadata_url(resource) if resource else None
    routes = (
        create_protected_resource_routes(
            resource_url=resource,
            authorization_servers=[settings.issuer_url],
            scopes_supported=settings.required_scopes,
        )
        if resource
        else []
    )
    return RequireAuthMiddleware(endpoint, scopes, metadata_url), middleware, routes


class App:
    """The ASGI app `asgi_app` returns: Starlette inside, with what shutting down needs.

    It counts the POSTs in flight (each carries calls) so that a shutdown
    can wait for them, and ends the event streams that clients hold open
    between calls once they are done, since those never end on their own.
    A request to the MCP endpoint of an app without middleware (no auth)
    goes to the endpoint at once, as Starlette's router would send it: the
    router's layers cost every call and do nothing for it.
    """

    def __init__(self, manager: Any) -> None:
        self.manager = manager
        self.inner: Any = None
        self.direct: tuple[str, Any, Any] | None = None  # path, endpoint, its app
        self.authenticated = False
        self.tool_count = 0
        self.sessions: Any = None  # the session tracker of resumable streams
        self.direct_path: Any = None  # answers without the SDK's per-request machinery
        self.running = False  # the lifespan has started the session manager
        self.in_flight = 0
        self._closing: Any = None  # an anyio Event, made on the event loop

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        direct = self.direct
        if (
            direct is not None
            and scope["type"] == "http"
            and scope["path"] == direct[0]
            and not scope.get("root_path")  # mounted: the router strips its prefix
        ):
            _, endpoint, routed = direct  # the scope keys the router would have set
            scope.update(app=routed, router=routed.router, endpoint=endpoint)
            scope["path_params"] = {}
            await endpoint(scope, receive, send)
            return
        await self.inner(scope, receive, send)

    def lifespan(self, app: Any = None) -> contextlib.AbstractAsyncContextManager[None]:
        """Start and stop the MCP sessions: pass it as a parent app's `lifespan`."""
        return self._lifespan()

    @contextlib.asynccontextmanager
    async def _lifespan(self) -> AsyncIterator[None]:
        import anyio

        self._closing = anyio.Event()
        async with self.manager.run():
            self.running = True
            try:
                yield
            finally:
                self.running = False

    def endpoint(self, inner: Any) -> Any:
        """`inner`, counting the POSTs in flight and ending event streams on close."""
        return _Counted(self, inner)

    def _until_closing(self, receive: Any) -> Any:
        """`receive`, which reports a disconnect once the server closes its streams."""
        import anyio

        closing = self._closing

        async def wrapped() -> Any:
            message: Any = None
            async with anyio.create_task_group() as group:

                async def take() -> None:
                    nonlocal message
                    message = await receive()
                    group.cancel_scope.cancel()

                async def stop() -> None:
                    await closing.wait()
                    group.cancel_scope.cancel()

                group.start_soon(take)
                group.start_soon(stop)
            return message if message is not None else {"type": "http.disconnect"}

        return wrapped

    def close_streams(self) -> None:
        """End the event streams that clients hold open (they never end on their own)."""
        if self._closing is not None:
            self._closing.set()

    async def drain(self, grace: float) -> None:
        """Wait up to `grace` seconds for the POSTs in flight, then end the open event streams."""
        import anyio

        deadline = time.monotonic() + grace
        while self.in_flight and time.monotonic() < deadline:
            await anyio.sleep(0.02)
        self.close_streams()


class _Counted:
    """The MCP endpoint as an ASGI app (Starlette routes take any method to it)."""

    def __init__(self, app: App, inner: Any) -> None:
        self.app = app
        self.inner = inner

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        app = self.app
        if scope.get("method") == "GET" and app._closing is not None:
            await self._stream(scope, receive, send)
            return
        if scope.get("method") != "POST":
            await self.inner(scope, receive, send)
            return
        app.in_flight += 1
        try:
            await self._post(scope, receive, send)
        finally:
            app.in_flight -= 1

    async def _post(self, scope: Any, receive: Any, send: Any) -> None:
        """A POST; when its client leaves before the answer, the calls it made are cancelled.

        The SDK keeps running a session's request after its client has
        disconnected: this sends the session the `notifications/cancelled`
        a client would, so that an async tool stops (a sync tool's thread
        cannot be stopped: its result is dropped). A client that can resume
        the call's stream has a while to come back for the answer first
        (`Sessions.abandoned`).
        """
        body = bytearray()
        seen = {"left": False, "ended": False}

        async def receiving() -> Any:
            message = await receive()
            if message["type"] == "http.request":
                body.extend(message.get("body", b""))
            elif message["type"] == "http.disconnect":
                seen["left"] = True
            return message

        async def sending(message: Any) -> None:
            if message["type"] == "http.response.body" and not message.get(
                "more_body", False
            ):
                seen["ended"] = True
            await send(message)

        await self.inner(scope, receiving, sending)
        if seen["left"] and not seen["ended"] and _session_of(scope):
            sessions = self.app.sessions
            if sessions is None or await sessions.abandoned(scope, bytes(body)):
                await self._cancel(scope, bytes(body))

    async def _cancel(self, scope: Any, body: bytes) -> None:
        """Tell the session that the requests in `body` are abandoned, as its client would."""
        import json

        try:
            sent = json.loads(body)
        except ValueError:
            return
        for message in sent if isinstance(sent, list) else [sent]:
            if isinstance(message, dict) and "method" in message and "id" in message:
                note = {
                    "jsonrpc": "2.0",
                    "method": "notifications/cancelled",
                    "params": {
                        "requestId": message["id"],
                        "reason": "The client disconnected.",
                    },
                }
                with contextlib.suppress(Exception):
                    await self.inner(*_request(scope, json.dumps(note).encode()))

    async def _stream(self, scope: Any, receive: Any, send: Any) -> None:
        """A GET: the event stream a client holds open, ended cleanly when the server closes."""
        state = {"started": False, "ended": False}

        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start":
                state["started"] = True
            elif message["type"] == "http.response.body" and not message.get(
                "more_body", False
            ):
                state["ended"] = True
            await send(message)

        await self.inner(scope, self.app._until_closing(receive), sending)
        if state["started"] and not state["ended"]:
            # The stream stopped because the server is closing: end the
            # response, so that the client sees its end, not a broken one.
            with contextlib.suppress(Exception):
                await send(
                    {"type": "http.response.body", "body": b"", "more_body": False}
                )


def _session_of(scope: Any) -> str | None:
    for key, value in scope.get("headers", []):
        if key == b"mcp-session-id":
            return str(value.decode("latin-1"))
    return None


def _request(scope: Any, body: bytes) -> tuple[Any, Any, Any]:
    """An ASGI call that POSTs `body` with the headers (session, credentials) of `scope`."""
    headers = [
        (key, value) for key, value in scope["headers"] if key != b"content-length"
    ]
    headers.append((b"content-length", str(len(body)).encode()))
    sent = False

    async def receive() -> Any:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: Any) -> None:
        return None

    return {**scope, "headers": headers}, receive, send


# ---------------------------------------------------------------- running it


def parse_address(http: str) -> tuple[str, int]:
    """`"HOST:PORT"` or `":PORT"` or `"PORT"` → (host, port); the host defaults to 127.0.0.1.

    Raises:
        ValueError: The port is not a number from 1 to 65535.
    """
    host, _, port = http.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        msg = f"--http {http!r}: give HOST:PORT, for example 127.0.0.1:8000"
        raise ValueError(msg)
    return host, int(port)


def is_loopback(host: str) -> bool:
    """Whether `host` is reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class Plan:
    """Everything a serving process needs; workers get it pickled, with the target to import."""

    def __init__(
        self,
        host: str,
        port: int,
        options: dict[str, Any],
        *,
        target: str | None = None,
        workers: int = 1,
        grace: float = DEFAULT_GRACE,
        log_level: str = "warning",
    ) -> None:
        self.host = host
        self.port = port
        self.options = options
        self.target = target
        self.workers = workers
        self.grace = grace
        self.log_level = log_level


def check_exposure(host: str, auth: Any, no_auth: bool) -> None:
    """Refuse to serve a non-loopback address to anyone unless asked to on purpose."""
    if is_loopback(host) or auth is not None or no_auth:
        return
    msg = (
        f"refusing to serve {host} without authentication: anyone who can reach it could "
        "call every tool. Give --auth-token-env VAR (clients send 'Authorization: Bearer' "
        "and the value of VAR), or --no-auth if something in front of the server "
        "authenticates its clients (auth= or no_auth=True from Python)."
    )
    raise ValueError(msg)


def bind(
    host: str, port: int, *, listen: bool = True, spread: bool = False
) -> socket.socket:
    """The server's socket; a port in use or an address not here is a one-line OSError.

    With `spread` it is one of a group of sockets on the address
    (`SO_REUSEPORT`), among whose listening members the kernel spreads new
    connections: each worker listens on one of its own, and the supervisor
    holds the address with one that does not listen, so that it gets none.
    """
    try:
        infos = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except socket.gaierror as error:
        msg = f"cannot serve on {host}:{port}: {error.strerror}"
        raise OSError(msg) from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        if sys.platform != "win32":
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if spread:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(address)
        if listen:
            sock.listen(2048)
    except OSError as error:
        sock.close()
        reason = "the port is in use" if _in_use(error) else error.strerror
        msg = f"cannot serve on {host}:{port}: {reason}"
        raise OSError(msg) from None
    sock.set_inheritable(True)
    return sock


def spreads_connections() -> bool:
    """Whether workers listen on sockets of their own, among which the kernel spreads connections.

    On one shared listening socket, a worker accepts every connection
    waiting when it wakes: clients that connect together and keep their
    connection (every MCP client does) can all land on one worker while the
    others idle. Linux spreads the connections of a `SO_REUSEPORT` group
    evenly; elsewhere the workers share one socket.
    """
    return sys.platform.startswith("linux") and hasattr(socket, "SO_REUSEPORT")


def _in_use(error: OSError) -> bool:
    import errno

    return error.errno in (errno.EADDRINUSE, getattr(errno, "WSAEADDRINUSE", -1))


def url_of(host: str, port: int, path: str = "/mcp") -> str:
    shown = f"[{host}]" if _is_ipv6(host) else host
    return f"http://{shown}:{port}{path}"


def startup_line(plan: Plan, tool_count: int, authenticated: bool) -> str:
    options = plan.options
    parts = [f"auth {'on' if authenticated else 'off'}"]
    if options.get("stateless"):
        parts.append("stateless")
    if options.get("json_response"):
        parts.append("JSON responses")
    if options.get("sse_poll"):
        parts.append(f"SSE poll {options['sse_poll']:g}s")
    if plan.workers > 1:
        parts.append(f"{plan.workers} workers")
    tools = f"{tool_count} tool{'s' if tool_count != 1 else ''}"
    return f"toolkit: serving {tools} at {url_of(plan.host, plan.port)} ({', '.join(parts)})"


def run(toolset: ToolSet, plan: Plan) -> None:
    """Serve until SIGTERM or Ctrl-C, in this process or in `plan.workers` processes.

    Raises:
        OSError: The address cannot be bound (a port in use): one line.
        ValueError: An option is out of range, or workers cannot import the target.
    """
    app = asgi_app(toolset, **plan.options)
    spread = plan.workers > 1 and spreads_connections()
    sock = bind(plan.host, plan.port, listen=not spread, spread=spread)
    line = startup_line(plan, app.tool_count, app.authenticated)
    try:
        if plan.workers > 1:
            _supervise(plan, None if spread else sock, line)
        else:
            configure_logging(plan.log_level)
            _serve_socket(app, sock, plan, line)
    finally:
        sock.close()


def _serve_socket(
    app: App, sock: socket.socket, plan: Plan, announce: str | None
) -> None:
    """Serve `app` on `sock` until SIGTERM (or Ctrl-C, unless in a worker: `announce` is None).

    uvicorn's own `run` picks the event loop (uvloop when it is installed).
    """
    import uvicorn

    class Server(uvicorn.Server):
        @contextlib.contextmanager
        def capture_signals(self) -> Any:  # the signals are ours: see `serve`
            yield

        async def serve(self, sockets: Any = None) -> None:
            await _serve_async(self, super().serve(sockets), app, plan, announce)

    level = plan.log_level
    config = uvicorn.Config(
        app,
        log_config=None,
        log_level=level,
        access_log=level in ("debug", "info"),
        lifespan="on",
        timeout_graceful_shutdown=math.ceil(plan.grace),
        server_header=False,
    )
    Server(config).run(sockets=[sock])


def _announce(line: str) -> None:
    """The start-up line, once the signals are ours (a SIGTERM from then on drains)."""
    print(line, file=sys.stderr, flush=True)


async def _serve_async(
    server: Any, serve: Any, app: App, plan: Plan, announce: str | None
) -> None:
    """Run `serve` (uvicorn serving); on SIGTERM, drain for `plan.grace` and stop."""
    import asyncio

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    interrupts = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    if announce is not None:
        loop.add_signal_handler(signal.SIGINT, _both(stop, interrupts))
        _announce(announce)
    try:
        serving = asyncio.ensure_future(serve)
        stopping = asyncio.ensure_future(stop.wait())
        await asyncio.wait({serving, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if not serving.done():
            interrupts.clear()
            server.should_exit = True
            draining = asyncio.ensure_future(app.drain(plan.grace))
            again = asyncio.ensure_future(interrupts.wait())  # Ctrl-C twice: now
            await asyncio.wait({serving, again}, return_when=asyncio.FIRST_COMPLETED)
            if not serving.done():
                app.close_streams()
                for task in list(server.server_state.tasks):
                    task.cancel()
                await serving
            draining.cancel()
            again.cancel()
        stopping.cancel()
        serving.result()
    finally:
        loop.remove_signal_handler(signal.SIGTERM)
        if announce is not None:
            loop.remove_signal_handler(signal.SIGINT)


def _both(*events: Any) -> Callable[[], None]:
    def set_all() -> None:
        for event in events:
            event.set()

    return set_all


# ---------------------------------------------------------------- workers


def _supervise(plan: Plan, sock: socket.socket | None, line: str) -> None:
    """Run `plan.workers` processes on `sock` until SIGTERM or Ctrl-C, then stop them.

    Each worker imports the target itself, so the target must be importable
    (a file path or a module name); with `sock` None, each listens on a
    socket of its own (`spreads_connections`). The start-up line comes once
    every worker is ready. A worker that dies is replaced, unless it could
    not load the target: then every worker stops.
    """
    import multiprocessing

    multiprocessing.allow_connection_pickling()
    spawn = multiprocessing.get_context("spawn")
    stop: list[int] = []
    previous = {
        sig: signal.signal(sig, lambda number, frame: stop.append(number))
        for sig in (signal.SIGTERM, signal.SIGINT)
    }

    ready = spawn.Semaphore(0)  # a worker releases it once it takes connections

    def start() -> Any:
        process = spawn.Process(target=_worker, args=(plan, sock, ready), daemon=False)
        process.start()
        return process

    processes = [start() for _ in range(plan.workers)]
    waiting = plan.workers
    try:
        while not stop:
            if waiting and ready.acquire(timeout=0.1):
                waiting -= 1
                if not waiting:
                    _announce(line)
            elif not waiting:
                time.sleep(0.1)
            _replace_dead(processes, start)
    finally:
        _stop_all(processes, plan.grace + 5)
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _replace_dead(processes: list[Any], start: Callable[[], Any]) -> None:
    for index, process in enumerate(processes):
        if process.is_alive():
            continue
        process.join()
        if process.exitcode == _WORKER_CANNOT_START:
            msg = "a worker could not load the tools; see above"
            raise OSError(msg)
        processes[index] = start()


def _stop_all(processes: list[Any], timeout: float) -> None:
    """SIGTERM every worker (each drains its calls); kill those still there after `timeout`."""
    for process in processes:
        if process.is_alive() and process.pid is not None:
            os.kill(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
        if process.is_alive():
            process.kill()
            process.join()


_WORKER_CANNOT_START: Final = 3


def _worker(plan: Plan, sock: socket.socket | None, ready: Any) -> None:
    """One worker process: import the target, serve until SIGTERM.

    It serves the shared socket `sock`, or with None a socket of its own
    on the address; it releases `ready` once it takes connections.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the supervisor stops the workers
    configure_logging(plan.log_level)
    try:
        from toolkit._target import TargetError, load_target

        assert plan.target is not None
        toolset = load_target(plan.target)
        app = asgi_app(toolset, **plan.options)
    except (TargetError, ImportError, ValueError) as error:
        print(f"toolkit: error: {error}", file=sys.stderr, flush=True)
        sys.exit(_WORKER_CANNOT_START)
    if sock is None:
        try:
            sock = bind(plan.host, plan.port, spread=True)
        except OSError as error:
            print(f"toolkit: error: {error}", file=sys.stderr, flush=True)
            sys.exit(_WORKER_CANNOT_START)
    ready.release()
    _serve_socket(app, sock, plan, None)


def import_path(toolset: ToolSet) -> str:
    """`module:attribute` (or `file.py:attribute`) under which worker processes find `toolset`.

    Raises:
        ValueError: No loaded module holds `toolset` under a name.
    """
    for module in list(sys.modules.values()):
        for attribute, value in list(getattr(module, "__dict__", {}).items()):
            if value is toolset and not attribute.startswith("__"):
                name = module.__name__
                if name == "__main__" and getattr(module, "__file__", None):
                    name = str(module.__file__)
                return f"{name}:{attribute}"
    msg = (
        "workers need a target they can import: pass serve() 'module:attribute' "
        "or 'path/to/file.py:attribute' instead of the ToolSet"
    )
    raise ValueError(msg)


# ---------------------------------------------------------------- logging


class _Formatter(logging.Formatter):
    """One line per record; the traceback too when `tracebacks` is on."""

    def __init__(self, tracebacks: bool) -> None:
        super().__init__("%(levelname)s %(name)s: %(message)s")
        self.tracebacks = tracebacks

    def format(self, record: logging.LogRecord) -> str:
        if self.tracebacks:
            return super().format(record)
        kept = record.exc_info, record.exc_text, record.stack_info
        record.exc_info = record.exc_text = record.stack_info = None
        try:
            return super().format(record)
        finally:
            record.exc_info, record.exc_text, record.stack_info = kept


_HANDLER_NAME: Final = "toolkit-serve"


def configure_logging(level: str) -> None:
    """Log lines on stderr: toolkit's, the MCP SDK's and uvicorn's, at `level`.

    A tool's traceback is shown at `debug` only; at the other levels its
    failure is one line. Nothing of it reaches the model.
    """
    if level not in LOG_LEVELS:
        msg = f"log level {level!r}: use one of {', '.join(LOG_LEVELS)}"
        raise ValueError(msg)
    handler = logging.StreamHandler(sys.stderr)
    handler.set_name(_HANDLER_NAME)
    handler.setFormatter(_Formatter(tracebacks=level == "debug"))
    number = getattr(logging, level.upper())
    for name, at in (
        ("toolkit", number),
        ("mcp", max(number, logging.INFO)),
        ("uvicorn", number),
        ("uvicorn.access", number),
    ):
        found = logging.getLogger(name)
        for old in [h for h in found.handlers if h.get_name() == _HANDLER_NAME]:
            found.removeHandler(old)
        found.addHandler(handler)
        found.setLevel(at)
        found.propagate = False
