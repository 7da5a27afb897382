"""The MCP server over streamable HTTP as an ASGI app, built from the official SDK's public pieces.

One request goes through: Starlette (with `auth`, the SDK's bearer
authentication; `GET /healthz`; the OAuth protected-resource metadata) →
`Sessions` (which session and request it is, for the event store and the
handlers) → the SDK's `StreamableHTTPSessionManager` (the body limit, the
Host and Origin checks, sessions, both protocol generations) → the
lowlevel `Server`'s handlers (`_server`) → the `ToolSet`. Running the app
(uvicorn, workers, SIGTERM) is `_run`'s.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import ipaddress
import math
from collections.abc import AsyncIterator, Iterable
from typing import TYPE_CHECKING, Any, Final

from toolkit.core._version import __version__

if TYPE_CHECKING:
    from toolkit.sets._toolset import ToolSet
    from toolkit.tools._tool import Tool

__all__ = [
    "DEFAULT_MAX_BODY",
    "DEFAULT_MAX_SESSIONS",
    "DEFAULT_SESSION_IDLE_TIMEOUT",
    "McpApp",
    "StaticToken",
    "asgi_app",
    "transport_security",
]

DEFAULT_MAX_BODY: Final = 4 * 1024 * 1024
"""Request bodies larger than this many bytes are refused with 413."""

DEFAULT_MAX_SESSIONS: Final = 1000
"""Open sessions at most; one more takes the place of an idle one, or gets 503."""

DEFAULT_SESSION_IDLE_TIMEOUT: Final = 600.0
"""Seconds without a request after which a session is closed."""

SSE_RETRY_MS: Final = 1000
"""The `retry` of the priming event: how long a client waits before reconnecting."""

_STATIC_CLIENT: Final = "bearer-token"


def asgi_app(
    toolset: ToolSet | Tool[Any, Any] | Iterable[Tool[Any, Any]],
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
    **modern: Any,
) -> McpApp:
    """The MCP server of `toolset` as an ASGI app: streamable HTTP at `path`, `GET /healthz`.

    Run it under any ASGI server, or mount it in a Starlette or FastAPI app;
    a parent app must run this app's lifespan (`lifespan=app.lifespan`),
    which starts and stops the MCP sessions.

    Args:
        toolset: The tools to serve: a `ToolSet`, a `Tool` or a list of tools.
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
        max_sessions: Open sessions at most; None for no limit. At the
            limit, a new session takes the place of one that never sent a
            second request, else of the one idle longest; when every
            session has a request or a call in flight, it gets 503.
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
        **modern: What 2026-07-28 clients get (`build_server`'s options):
            `cache_ttl` and `cache_scope`, the caching hints of the lists;
            `state_key`, the key (32 bytes or more) that seals the
            `requestState` of input-required results, the same for every
            worker or replica that may take a call's next round;
            `task_store` (a `TaskStore`, or `"redis://HOST:PORT/N"`) and
            `task_ttl`, where the tasks of tools declared `task=...` live
            and for how long; `max_tasks`, the live tasks a client may have
            in this process (default 1,000; None for no limit).

    Raises:
        ImportError: The `mcp` package is not installed.
        ValueError: An option is out of range.
        TypeError: `toolset` holds something that is not a `Tool`.
    """
    from ._prompts import is_prompt
    from ._server import build_server, require_mcp, served

    require_mcp()
    toolset = served(toolset)
    if max_body <= 0:  # the SDK checks it too, under its own name for it
        msg = f"max_body must be a positive number of bytes, not {max_body!r}"
        raise ValueError(msg)
    resumable = resumable and not (stateless or json_response)
    _check_poll(sse_poll, resumable)
    verifier = StaticToken(auth) if isinstance(auth, str) else auth
    if auth_settings is not None and verifier is None:
        msg = "auth_settings needs auth=, the TokenVerifier that checks the tokens"
        raise ValueError(msg)
    from mcp.server.streamable_http_manager import (
        StreamableHTTPASGIApp,
        StreamableHTTPSessionManager,
    )

    from toolkit.providers.mcp import tools

    from ._sessions import EventLog, Sessions

    server = build_server(
        toolset,
        name=name or "toolkit",
        version=version or __version__,
        sse_poll=sse_poll,
        **modern,
    )
    server.middleware.append(_note_version)
    events = EventLog() if resumable else None
    manager = StreamableHTTPSessionManager(
        app=server,
        event_store=events,
        retry_interval=SSE_RETRY_MS if events is not None else None,
        json_response=json_response,
        stateless=stateless,
        security_settings=transport_security(allowed_hosts, allowed_origins),
        max_request_body_size=max_body,
        session_idle_timeout=None if stateless else session_idle_timeout,
        max_sessions=max_sessions,
    )
    sessions = Sessions(
        StreamableHTTPASGIApp(manager),
        events,
        None if stateless else session_idle_timeout,
        max_body=max_body,
        max_sessions=None if stateless else max_sessions,
    )
    count = len(tools(toolset.filtered(lambda item: not is_prompt(item))))
    app = McpApp(manager, sessions, count, verifier is not None)
    app.starlette = _starlette(app, path, verifier, auth_settings)
    return app


class McpApp:
    """The ASGI app that `asgi_app` returns: a Starlette app, and what running it needs.

    Attributes:
        manager: The SDK's session manager.
        sessions: The MCP endpoint's sessions (`Sessions`).
        events: The event store of resumable streams, or None.
        tool_count: How many tools are served.
        authenticated: Whether requests to the MCP endpoint need a token.
    """

    def __init__(
        self, manager: Any, sessions: Any, tool_count: int, authenticated: bool
    ) -> None:
        self.manager = manager
        self.sessions = sessions
        self.events = sessions.events
        self.tool_count = tool_count
        self.authenticated = authenticated
        self.starlette: Any = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.starlette(scope, receive, send)

    @contextlib.asynccontextmanager
    async def lifespan(self, app: Any = None) -> AsyncIterator[None]:
        """Start and stop the MCP sessions: pass it as a parent app's `lifespan`."""
        async with self.manager.run():
            self.sessions.open()
            yield

    def close_streams(self) -> None:
        """End the event streams that clients hold open between calls (the server stops).

        Those are the GET streams of sessions, and the `subscriptions/listen`
        streams of 2026-07-28 clients, which are told the stream ends.
        """
        self.sessions.close()
        listen = self.manager.app.get_request_handler("subscriptions/listen")
        if listen is not None:
            listen.handler.close()


def _starlette(app: McpApp, path: str, verifier: Any, settings: Any) -> Any:
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def healthz(request: Any) -> Any:
        return JSONResponse({"status": "ok"})

    endpoint: Any = app.sessions
    routes: list[Any] = [Route("/healthz", healthz, methods=["GET"])]
    middleware: list[Any] = []
    if verifier is not None:
        endpoint, middleware, metadata = _authenticated(endpoint, verifier, settings)
        routes.extend(metadata)
    routes.append(Route(path, endpoint=endpoint))
    return Starlette(routes=routes, middleware=middleware, lifespan=app.lifespan)


async def _note_version(ctx: Any, call_next: Any) -> Any:
    """Note the protocol version that a session's `initialize` negotiated, from the SDK's answer."""
    from ._sessions import current_session

    result = await call_next(ctx)
    session = current_session.get()
    if ctx.method == "initialize" and session is not None and isinstance(result, dict):
        negotiated = result.get("protocolVersion")
        session.version = negotiated if isinstance(negotiated, str) else None
    return result


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
    named = [f"[{host}]" if is_ipv6(host) else host for host in map(str.strip, hosts)]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=_any_port([*loopback, *named]),
        allowed_origins=_any_port(
            [f"{scheme}://{name}" for name in loopback for scheme in ("http", "https")]
            + [origin.rstrip("/") for origin in origins]
        ),
    )


def _any_port(names: list[str]) -> list[str]:
    """Each host or origin, and with any port (`:*`) unless it names its port."""
    patterns = []
    for name in names:
        host = name.rpartition("://")[2]
        has_port = "]:" in host if host.startswith("[") else ":" in host
        patterns.extend([name] if has_port else [name, f"{name}:*"])
    return patterns


def is_ipv6(host: str) -> bool:
    """Whether `host` is an IPv6 address."""
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
