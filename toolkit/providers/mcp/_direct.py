"""Stateless JSON-response serving without the SDK's per-request machinery.

With `stateless` and `json_response`, the MCP SDK answers every POST by
building a transport, a pair of memory streams, a JSON-RPC dispatcher and a
connection, and running them in a task of their own, for one request and
one answer. `Direct` answers the requests that need none of that (a single
`initialize`, `ping`, `tools/list` or `tools/call`, or the
`notifications/initialized` notification) in the request's own task: the
body is parsed once, the transport's checks run as the transport runs them,
and the SDK's own request handling (`ServerRunner`: parameter validation,
the OpenTelemetry middleware, the server's handlers, the result's wire
form) produces the answer, written as the transport writes it.

Anything else, or anything a check refuses, goes to the SDK's session
manager untouched (with the body it was sent), so that every refusal and
every unusual request gets the SDK's own answer. In this mode a tool's
`Context` reaches the client as it does through the SDK: progress and log
records are dropped (a JSON body carries the answer only), and `sample` or
`elicit` get the error that says the connection cannot carry them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ._sdk import answer, is_json, json_response, own_connection, runner, usable

__all__ = ["Direct"]

_REQUESTS: Final = frozenset({"initialize", "ping", "tools/list", "tools/call"})
_NOTIFICATIONS: Final = frozenset({"notifications/initialized"})
_JSON: Final = "application/json"


class Direct:
    """The MCP endpoint of a stateless JSON-response app: a direct answer, or the SDK's.

    Args:
        inner: The SDK's endpoint (its session manager), for everything not
            answered here.
        manager: The SDK's `StreamableHTTPSessionManager` (its server, its
            lifespan state).
        security: The SDK's `TransportSecuritySettings` (Host and Origin).
        max_body: Bodies longer than this go to the SDK, which answers 413.
        running: Whether the app's lifespan runs (the SDK refuses requests
            before it does).
    """

    def __init__(
        self,
        inner: Any,
        manager: Any,
        security: Any,
        max_body: int,
        running: Any,
    ) -> None:
        self.inner = inner
        self.manager = manager
        self.max_body = max_body
        self.running = running
        self.enabled = usable(manager)
        """Off: every request goes to the SDK (tests compare the two paths).

        Off from the start when the installed SDK lacks a name this path uses.
        """
        self.answered = 0
        """Requests answered here, not by the SDK."""
        self._security = security
        self._versions: frozenset[str] = frozenset()
        if self.enabled:
            from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

            self._versions = frozenset(HANDSHAKE_PROTOCOL_VERSIONS)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if (
            not self.enabled
            or scope["type"] != "http"
            or scope["method"] != "POST"
            or not self.running()
        ):
            await self.inner(scope, receive, send)
            return
        version = _header(scope, b"mcp-protocol-version")
        if version is not None and version not in self._versions:
            # The SDK's entry for the 2026 protocol, which refuses unknown versions too.
            await self.inner(scope, receive, send)
            return
        body, rest = await self._body(scope, receive)
        if body is None:  # too long, or the client left: the SDK answers it
            await self.inner(scope, rest, send)
            return
        if not await self._answer(scope, receive, version, body, send):
            await self.inner(scope, _replay(body, receive), send)

    def _passes(self, headers: Any) -> bool:
        """Whether the SDK's transport would let the POST through: Content-Type, Host and Origin.

        The same checks as the SDK's, made without its log lines: a request
        that fails one goes to the SDK, which logs and refuses it once.
        """
        kind = headers.get("content-type")
        if kind is None or not kind.lower().startswith(_JSON):
            return False
        settings = self._security
        if not settings.enable_dns_rebinding_protection:
            return True
        host = headers.get("host")
        origin = headers.get("origin")
        return (
            bool(host)
            and _allowed(host, settings.allowed_hosts)
            and (not origin or _allowed(origin, settings.allowed_origins))
        )

    async def _body(self, scope: Any, receive: Any) -> tuple[bytes | None, Any]:
        """The whole body, or None and a `receive` that gives the SDK what was read and the rest."""
        if _declared_size(scope) > self.max_body:
            return None, receive
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return None, _replay_messages(chunks, [message], receive, more=True)
            chunk = message.get("body", b"")
            chunks.append(chunk)
            size += len(chunk)
            more = bool(message.get("more_body", False))
            if size > self.max_body:
                return None, _replay_messages(chunks, [], receive, more=more)
            if not more:
                return b"".join(chunks), receive

    async def _answer(
        self, scope: Any, receive: Any, version: str | None, body: bytes, send: Any
    ) -> bool:
        """Answer the POST of `body` here; False (having sent nothing) to leave it to the SDK."""
        import pydantic_core
        from mcp.server.streamable_http import check_accept_headers
        from mcp_types import (
            JSONRPCNotification,
            JSONRPCRequest,
            jsonrpc_message_adapter,
        )
        from pydantic import ValidationError
        from starlette.requests import Request

        request = Request(scope)
        if not self._passes(request.headers):
            return False
        if not check_accept_headers(request)[0] or not is_json(request.headers):
            return False
        try:
            message = jsonrpc_message_adapter.validate_python(
                pydantic_core.from_json(body), by_name=False
            )
        except (ValueError, ValidationError):
            return False
        if isinstance(message, JSONRPCNotification):
            return await self._accepted(message, scope, receive, send)
        if not isinstance(message, JSONRPCRequest) or message.method not in _REQUESTS:
            return False
        self.answered += 1
        reply = await self._request(request, message, version)
        await json_response(reply, 200)(scope, receive, send)
        return True

    async def _accepted(
        self, message: Any, scope: Any, receive: Any, send: Any
    ) -> bool:
        """A notification without a session: `notifications/initialized` answered, others left to the SDK."""
        if message.method not in _NOTIFICATIONS:
            return False
        # The SDK hands the notification to a server that keeps no state
        # once this request ends: nothing comes of it but the 202.
        self.answered += 1
        await json_response(None, 202)(scope, receive, send)
        return True

    async def _request(self, request: Any, message: Any, version: str | None) -> str:
        """The JSON-RPC answer to `message`, as the SDK's dispatcher makes it."""
        connection = own_connection(version)
        try:
            reply = await answer(
                runner(self.manager, connection), _Context(request, message.id), message
            )
        finally:
            await connection.exit_stack.aclose()
        return str(reply.model_dump_json(by_alias=True, exclude_unset=True))


class _Context:
    """The SDK's `DispatchContext` of one request answered with a JSON body.

    A JSON body carries the answer and nothing else: progress and other
    notifications are dropped, and a request to the client cannot be sent
    (the SDK's transport says the same for this mode).
    """

    def __init__(self, request: Any, request_id: Any) -> None:
        from mcp.shared.message import ServerMessageMetadata
        from mcp.shared.transport_context import TransportContext

        self.transport = TransportContext(
            kind="streamable-http", can_send_request=False
        )
        self.request_id = request_id
        self.message_metadata = ServerMessageMetadata(
            request_context=request, can_send_request=False
        )
        self._cancel: Any = None

    @property
    def can_send_request(self) -> bool:
        return False

    @property
    def cancel_requested(self) -> Any:
        import anyio

        if self._cancel is None:
            self._cancel = anyio.Event()
        return self._cancel

    async def notify(
        self, method: str, params: Mapping[str, Any] | None, opts: Any = None
    ) -> None:
        return None

    async def progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        return None

    async def send_raw_request(
        self, method: str, params: Mapping[str, Any] | None, opts: Any = None
    ) -> dict[str, Any]:
        from mcp.shared.exceptions import NoBackChannelError

        raise NoBackChannelError(method)


def _header(scope: Any, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return str(value.decode("latin-1"))
    return None


def _allowed(value: str, patterns: list[str]) -> bool:
    """`value` is one of `patterns`, or has a port after one that ends in `:*`."""
    if value in patterns:
        return True
    return any(
        pattern.endswith(":*") and value.startswith(pattern[:-1])
        for pattern in patterns
    )


def _declared_size(scope: Any) -> int:
    """The Content-Length, read as the SDK's body limit reads it; 0 when absent or not a number."""
    declared = _header(scope, b"content-length")
    try:
        return int(declared) if declared is not None else 0
    except ValueError:
        return 0


def _replay(body: bytes, receive: Any) -> Any:
    return _replay_messages([body], [], receive, more=False)


def _replay_messages(
    chunks: list[bytes], after: list[Any], receive: Any, *, more: bool
) -> Any:
    """A `receive` that gives the body read so far (as one message), then `after`, then `receive`'s."""
    pending: list[Any] = []
    if chunks:
        pending.append(
            {"type": "http.request", "body": b"".join(chunks), "more_body": more}
        )
    pending.extend(after)

    async def replayed() -> Any:
        if pending:
            return pending.pop(0)
        return await receive()

    return replayed
