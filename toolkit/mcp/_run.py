"""Running the MCP server: `serve` over stdio or streamable HTTP, with uvicorn, as `toolkit serve` does.

Over HTTP, uvicorn serves the app of `_app` in this process or, with
`workers`, in worker processes that its own supervisor starts, each of
which imports the target. What an operator sees is this module's: the
start-up line, a port in use, SIGTERM draining the calls in flight (uvicorn's
graceful shutdown, bounded by the grace), the log lines.
"""

from __future__ import annotations

import functools
import ipaddress
import logging
import math
import secrets
import signal
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from toolkit.core._version import __version__
from toolkit.sets._target import TargetError, load_target, target_name

from ._app import asgi_app, is_ipv6

if TYPE_CHECKING:
    from collections.abc import Iterable

    from toolkit.sets._toolset import ToolSet
    from toolkit.tools._tool import Tool

    from ._app import McpApp

__all__ = [
    "DEFAULT_GRACE",
    "DEFAULT_REQUEST_TIMEOUT",
    "LOG_LEVELS",
    "Listen",
    "parse_address",
    "serve",
]

DEFAULT_GRACE: Final = 10.0
"""Seconds that SIGTERM leaves calls in flight to finish."""

DEFAULT_REQUEST_TIMEOUT: Final = 30.0
"""Seconds that a client has to send a request in full, headers and body, once it starts."""

LOG_LEVELS: Final = ("debug", "info", "warning", "error")

_STOP_SIGNALS: Final = (signal.SIGTERM, signal.SIGINT)


def serve(
    toolset: ToolSet | Tool[Any, Any] | Iterable[Tool[Any, Any]] | str,
    http: str | None = None,
    *,
    name: str | None = None,
    version: str | None = None,
    workers: int = 1,
    grace: float = DEFAULT_GRACE,
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT,
    max_connections: int | None = None,
    log_level: str = "warning",
    no_auth: bool = False,
    **options: Any,
) -> None:
    """Serve `toolset` over MCP until stdin closes, SIGTERM or Ctrl-C.

    Over HTTP, a line on stderr says where and how; SIGTERM lets the calls
    in flight finish (for up to `grace` seconds) and returns.

    Args:
        toolset: The tools to serve (a `ToolSet`, a `Tool` or a list of
            tools), or the `module:attribute` or `path/to/file.py:attribute`
            that names them (workers import it).
        http: None for stdio; `"HOST:PORT"` for streamable HTTP at `/mcp`
            (the host defaults to 127.0.0.1, loopback only).
        name: `serverInfo.name` (default: the target's module name, else
            `"toolkit"`).
        version: `serverInfo.version` (default: toolkit's version).
        workers: Worker processes sharing the port; more than one needs
            `stateless=True` and a target the workers can import.
        grace: Seconds SIGTERM waits for calls in flight.
        request_timeout: Seconds a client has to send a request in full
            (headers and body) once its first byte came; a slower one's
            connection is closed. A connection that sends nothing is closed
            after uvicorn's keep-alive timeout (5 seconds).
        max_connections: Connections and requests at most (uvicorn's
            `limit_concurrency`): beyond, requests get 503. None: no limit.
        log_level: `"debug"` (tracebacks too), `"info"` (a line per request),
            `"warning"` or `"error"`; the lines go to stderr.
        no_auth: Serve a non-loopback address without `auth`, on purpose
            (something in front of the server authenticates its clients).
        **options: The options of `asgi_app` (`stateless`, `json_response`,
            `allowed_hosts`, `allowed_origins`, `auth`, `auth_settings`,
            `max_body`, `max_sessions`, `session_idle_timeout`, `resumable`,
            `sse_poll`).

    Raises:
        ImportError: The `mcp` package is not installed.
        ValueError: `http` is not a valid address, an option is out of
            range, or a non-loopback address would be served without auth.
        TypeError: `toolset` holds something that is not a `Tool`.
        OSError: The address cannot be served (a port in use): one line; or
            the workers could not load the tools.
    """
    from ._server import build_server, require_mcp, serve_stdio

    require_mcp()
    target = toolset if isinstance(toolset, str) else None
    tools = _load(toolset)
    name = name or (target_name(target) if target else "toolkit")
    if http is None:
        http_only = {
            "workers": workers != 1,
            "request_timeout": request_timeout != DEFAULT_REQUEST_TIMEOUT,
            "max_connections": max_connections is not None,
        }
        if options or any(http_only.values()):
            given = sorted([*options, *(key for key, on in http_only.items() if on)])
            msg = f"{', '.join(given)}: options of HTTP serving; give http= too"
            raise ValueError(msg)
        configure_logging(log_level)
        import anyio

        server = build_server(tools, name=name, version=version or __version__)
        anyio.run(serve_stdio, server)
        return
    host, port = parse_address(http)
    check_exposure(host, options.get("auth"), no_auth)
    _check_workers(workers, options)
    if workers > 1 and options.get("task_store") is None and any(t.task for t in tools):
        msg = (
            "tools declared task=... need a task store that the workers share: "
            "--task-store redis://HOST:PORT/N (task_store= from Python)"
        )
        raise ValueError(msg)
    if workers > 1 and options.get("state_key") is None:
        # One key for all the workers, so that each takes the rounds of the others.
        options["state_key"] = secrets.token_hex(32)
    if workers > 1 and target is None:
        target = import_path(tools)
    listen = Listen(
        host,
        port,
        {"name": name, "version": version, **options},
        target=target,
        workers=workers,
        grace=grace,
        request_timeout=request_timeout,
        max_connections=max_connections,
        log_level=log_level,
    )
    configure_logging(log_level)
    app = asgi_app(tools, **listen.options)
    line = startup_line(listen, app.tool_count, app.authenticated)
    shared = listen.workers > 1 and sys.platform.startswith("linux")
    sock = bind(listen.host, listen.port, shared=shared)
    try:
        if listen.workers > 1:
            _supervise(listen, sock, line)
        else:
            _serve_here(Running(app, listen.grace), sock, listen, line)
    finally:
        sock.close()


def _check_workers(workers: int, options: dict[str, Any]) -> None:
    if workers < 1:
        msg = f"workers must be 1 or more, not {workers}"
        raise ValueError(msg)
    if workers > 1 and not options.get("stateless"):
        msg = (
            "workers need stateless=True (--stateless): a session lives in one worker, "
            "and the next request of its client may reach another"
        )
        raise ValueError(msg)


def _load(
    toolset: ToolSet | Tool[Any, Any] | Iterable[Tool[Any, Any]] | str,
) -> ToolSet:
    if not isinstance(toolset, str):
        from ._server import served

        return served(toolset)
    try:
        return load_target(toolset)
    except TargetError as error:
        raise ValueError(str(error)) from None


# ---------------------------------------------------------------- where and how


@dataclass
class Listen:
    """Where and how the HTTP server listens; workers get it pickled, with the target to import."""

    host: str
    port: int
    options: dict[str, Any] = field(default_factory=dict)
    """The options of `asgi_app`."""
    target: str | None = None
    workers: int = 1
    grace: float = DEFAULT_GRACE
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT
    max_connections: int | None = None
    log_level: str = "warning"


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


def startup_line(listen: Listen, tool_count: int, authenticated: bool) -> str:
    """What the server says on stderr once it serves: where, how many tools, and how."""
    options = listen.options
    parts = [f"auth {'on' if authenticated else 'off'}"]
    if options.get("stateless"):
        parts.append("stateless")
    if options.get("json_response"):
        parts.append("JSON responses")
    if options.get("sse_poll"):
        parts.append(f"SSE poll {options['sse_poll']:g}s")
    if listen.workers > 1:
        parts.append(f"{listen.workers} workers")
    shown = f"[{listen.host}]" if is_ipv6(listen.host) else listen.host
    tools = f"{tool_count} tool{'s' if tool_count != 1 else ''}"
    return f"toolkit: serving {tools} at http://{shown}:{listen.port}/mcp ({', '.join(parts)})"


def bind(host: str, port: int, *, shared: bool = False) -> socket.socket:
    """The server's listening socket; a port in use or an address not here is a one-line OSError.

    With `shared` (worker processes, on Linux) it is a `WorkersSocket` that
    holds the address without listening.
    """
    import errno

    try:
        infos = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except socket.gaierror as error:
        msg = f"cannot serve on {host}:{port}: {error.strerror}"
        raise OSError(msg) from None
    family, kind, proto, _, address = infos[0]
    sock = (WorkersSocket if shared else socket.socket)(family, kind, proto)
    try:
        if sys.platform != "win32":
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if shared:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind(address)
        if not shared:
            sock.listen(2048)
    except OSError as error:
        sock.close()
        in_use = error.errno in (errno.EADDRINUSE, getattr(errno, "WSAEADDRINUSE", -1))
        msg = f"cannot serve on {host}:{port}: {'the port is in use' if in_use else error.strerror}"
        raise OSError(msg) from None
    sock.set_inheritable(True)
    return sock


class WorkersSocket(socket.socket):
    """The address of worker processes: each worker that receives it listens on a socket of its own.

    uvicorn's supervisor hands its sockets to each worker it starts (pickled,
    as a new process gets its arguments). On one shared listening socket, a
    worker accepts every connection waiting when it wakes: clients that
    connect together and keep their connection (every MCP client does) can
    all land on one worker while the others idle. So this one arrives in a
    worker as a new socket on the same address (`SO_REUSEPORT`), among
    whose listening members Linux spreads new connections; the supervisor
    keeps this one without listening, so that it gets none.
    """

    def __reduce_ex__(self, protocol: Any) -> Any:
        address = self.getsockname()
        return functools.partial(_listening, self.family, address), ()


def _listening(family: int, address: Any) -> socket.socket:
    return socket.create_server(address, family=family, backlog=2048, reuse_port=True)


# ---------------------------------------------------------------- running it


def _config(app: Any, listen: Listen) -> Any:
    import uvicorn

    level = listen.log_level
    connection: Any = functools.partial(timed_connection, listen.request_timeout)
    return uvicorn.Config(
        app,
        http=connection,
        limit_concurrency=listen.max_connections,
        factory=listen.workers > 1,
        workers=listen.workers,
        log_config=None,
        log_level=level,
        access_log=level in ("debug", "info"),
        lifespan="on",
        timeout_graceful_shutdown=math.ceil(listen.grace),
        server_header=False,
    )


def timed_connection(request_timeout: float, **options: Any) -> Any:
    """The h11 connection of uvicorn, which also times out clients that are idle or slow to send.

    uvicorn closes a connection idle between requests after its keep-alive
    timeout, but only once a request was answered, and each byte restarts
    the wait: a connection that sends nothing, or a request's headers or
    body a byte at a time, would hold a socket forever. Here a new
    connection waits for its first byte as long as one between requests
    does, and a request must arrive in full within `request_timeout`
    seconds of its first byte; otherwise the connection is closed.
    """
    return _timed_connection_class()(request_timeout, **options)


@functools.cache
def _timed_connection_class() -> Any:
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class TimedConnection(H11Protocol):
        def __init__(self, request_timeout: float, **options: Any) -> None:
            super().__init__(**options)
            self.request_timeout = request_timeout
            self.request_deadline: Any = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self.timeout_keep_alive_task = self.loop.call_later(
                self.timeout_keep_alive, self.timeout_keep_alive_handler
            )

        def data_received(self, data: bytes) -> None:
            if self.request_deadline is None:
                self.request_deadline = self.loop.call_later(
                    self.request_timeout, self.too_slow
                )
            super().data_received(data)
            if self.conn.their_state not in (h11.IDLE, h11.SEND_BODY):
                self.request_deadline.cancel()  # arrived, or the connection ends
                self.request_deadline = None

        def connection_lost(self, exc: Exception | None) -> None:
            if self.request_deadline is not None:
                self.request_deadline.cancel()
            super().connection_lost(exc)

        def too_slow(self) -> None:
            self.transport.close()

    return TimedConnection


def _serve_here(app: Running, sock: socket.socket, listen: Listen, line: str) -> None:
    """Serve `app` on `sock` in this process until SIGTERM or Ctrl-C."""
    import uvicorn

    server = uvicorn.Server(_config(app, listen))

    def stop(number: int, frame: Any) -> None:
        server.should_exit = True

    # uvicorn takes the signals while it serves, and once stopped raises
    # again the one that stopped it, with the handler it found: this one,
    # which also stops a server that has not taken the signals yet.
    previous = signal.signal(signal.SIGTERM, stop)
    try:
        print(line, file=sys.stderr, flush=True)
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)


def _supervise(listen: Listen, sock: socket.socket, line: str) -> None:
    """Run `listen.workers` processes of uvicorn's supervisor on `sock` until SIGTERM or Ctrl-C.

    Each worker imports the target itself (`worker_app`), so the target
    must be importable (a file path or a module name). A worker that dies
    is replaced; one that cannot load the tools stops them all.
    """
    from uvicorn.config import STARTUP_FAILURE
    from uvicorn.supervisors import Multiprocess
    from uvicorn.supervisors.multiprocess import SIGNALS

    class Workers(Multiprocess):
        def init_processes(self) -> None:
            """Start the workers, and say the start-up line once each answers (it listens then)."""
            super().init_processes()
            for process in self.processes:
                process.is_alive(timeout=self.config.timeout_worker_healthcheck)
            print(line, file=sys.stderr, flush=True)

    config = _config(functools.partial(worker_app, listen), listen)
    previous = {number: signal.getsignal(number) for number in SIGNALS}
    supervisor = Workers(config, sockets=[sock])  # it takes the signals
    try:
        supervisor.run()
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    if any(p.exitcode == STARTUP_FAILURE for p in supervisor.processes):
        msg = "a worker could not load the tools; see above"
        raise OSError(msg)


def worker_app(listen: Listen) -> Running:
    """The app of one worker process: uvicorn calls this in each worker, which imports the target."""
    from uvicorn.config import STARTUP_FAILURE

    configure_logging(listen.log_level)
    try:
        assert listen.target is not None
        app = asgi_app(load_target(listen.target), **listen.options)
    except (TargetError, ImportError, ValueError) as error:
        print(f"toolkit: error: {error}", file=sys.stderr, flush=True)
        sys.exit(STARTUP_FAILURE)
    return Running(app, listen.grace)


class Running:
    """The app as `run` serves it: what stops the server first lets the calls in flight finish, listening still.

    uvicorn stops on SIGTERM or Ctrl-C: it stops taking connections, waits
    up to the grace for the requests in flight, then cancels them. But a
    client whose call is in flight may need another request to finish it:
    the official `mcp` client lists the tools, on a new connection, to check
    the call's result against the tool's output schema. So this app holds
    the signal back from uvicorn while it drains: it ends the event streams
    that clients hold open between calls (they never end on their own), and
    keeps answering until no request (other than those streams) has been in
    flight for `QUIET` seconds, or the grace is over (then it cancels the
    requests still running); only then is uvicorn told to stop. A second
    signal stops it at once.
    """

    QUIET: Final = 0.5
    """Seconds without a request in flight after which a draining server stops listening."""

    def __init__(self, app: McpApp, grace: float = DEFAULT_GRACE) -> None:
        self.app = app
        self.grace = grace
        self.requests: set[Any] = set()  # the tasks of the requests in flight
        self.last = 0.0  # when the last one ended (loop time)
        self.draining = False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope.get("method") != "GET":
            # GET streams stay open between calls (and are ended when
            # draining starts): requests are what the drain waits for.
            await self._request(scope, receive, send)
            return
        if scope["type"] != "lifespan":
            await self.app(scope, receive, send)
            return
        import asyncio

        from sse_starlette.sse import AppStatus

        loop = asyncio.get_running_loop()
        previous = {number: signal.getsignal(number) for number in _STOP_SIGNALS}
        draining: list[asyncio.Future[None]] = []

        def forward(number: int, frame: Any) -> None:
            handler = previous[signal.Signals(number)]
            if callable(handler):
                handler(number, frame)

        def stop(number: int, frame: Any) -> None:
            if self.draining:  # a second signal: stop now
                forward(number, frame)
                return
            self.draining = True
            loop.call_soon_threadsafe(self.app.close_streams)
            loop.call_soon_threadsafe(
                lambda: draining.append(
                    asyncio.ensure_future(self._drain(forward, number, frame))
                )
            )

        # sse-starlette ends every event stream once uvicorn is told to
        # stop, calls in flight included: here only the idle ones end.
        drains = AppStatus.enable_automatic_graceful_drain
        AppStatus.disable_automatic_graceful_drain()  # type: ignore[no-untyped-call]
        for number in _STOP_SIGNALS:
            signal.signal(number, stop)
        try:
            await self.app(scope, receive, send)
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)
            AppStatus.enable_automatic_graceful_drain = drains
            for task in draining:
                task.cancel()

    async def _request(self, scope: Any, receive: Any, send: Any) -> None:
        import asyncio

        task = asyncio.current_task()
        self.requests.add(task)
        try:
            await self.app(scope, receive, send)
        finally:
            self.requests.discard(task)
            self.last = asyncio.get_running_loop().time()

    async def _drain(self, forward: Any, number: int, frame: Any) -> None:
        """Wait for quiet (or the grace's end, cancelling what still runs), then let uvicorn stop."""
        import asyncio

        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.grace
        self.last = loop.time()
        while loop.time() < deadline and (
            self.requests or loop.time() - self.last < self.QUIET
        ):
            await asyncio.sleep(0.05)
        for task in list(self.requests):
            task.cancel()
        forward(number, frame)


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
_OUT_OF_DESCRIPTORS: Final = "socket.accept() out of system resource"


class _AcceptFlood(logging.Filter):
    """One record a `interval` of asyncio's "socket.accept() out of system resource"; the others counted.

    At its file-descriptor limit, asyncio's accept loop logs that line once
    per connection waiting in the backlog and schedules a retry for each,
    so the lines multiply (tens of thousands a second); the first of each
    interval says how many were left out.
    """

    def __init__(self, interval: float = 10.0) -> None:
        super().__init__()
        self.interval = interval
        self._lock = threading.Lock()
        self._last: float | None = None
        self._left_out = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith(_OUT_OF_DESCRIPTORS):
            return True
        now = time.monotonic()
        with self._lock:
            if self._last is not None and now - self._last < self.interval:
                self._left_out += 1
                return False
            self._last, left_out, self._left_out = now, self._left_out, 0
        if left_out:
            record.msg = f"{record.msg} ({left_out} more like it in the last {self.interval:g} seconds left out)"
        return True


def configure_logging(level: str) -> None:
    """Log lines on stderr: toolkit's, the MCP SDK's, uvicorn's and asyncio's, at `level`.

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
        (
            "asyncio",
            number,
        ),  # accept() out of descriptors: one line in 10 s (_AcceptFlood)
    ):
        found = logging.getLogger(name)
        for old in [h for h in found.handlers if h.get_name() == _HANDLER_NAME]:
            found.removeHandler(old)
        found.addHandler(handler)
        found.setLevel(at)
        found.propagate = False
    flood = logging.getLogger("asyncio")
    for kept in [f for f in flood.filters if isinstance(f, _AcceptFlood)]:
        flood.removeFilter(kept)
    flood.addFilter(_AcceptFlood())
