"""What the direct MCP paths share, and take from the MCP SDK.

The direct paths (`_mcp_direct.py` without sessions, `_mcp_stream.py`
with event streams) answer requests as the SDK answers them, with the
SDK's own helpers and by reading the state of its session manager and
transports, some of it private. A later SDK may move or rename any of
it; `usable` finds out once, when the app is built, so that the direct
paths turn themselves off and the SDK answers every request instead of
each one failing.
"""

from __future__ import annotations

import logging
from typing import Any, Final

__all__ = [
    "answer",
    "is_json",
    "json_response",
    "logger",
    "own_connection",
    "runner",
    "usable",
]

logger = logging.getLogger("mcp.shared.jsonrpc_dispatcher")
"""The SDK's dispatcher logs a handler that raised; so do the direct paths, under its name."""
_toolkit_logger = logging.getLogger("toolkit")

_JSON: Final = "application/json"
_MANAGER: Final = ("app", "_server_instances", "_session_owners", "_task_group")
"""What the direct paths read of the SDK's `StreamableHTTPSessionManager`."""
_TRANSPORT: Final = (
    "is_terminated",
    "idle_scope",
    "_idle_timeout",
    "_requests_in_flight",
    "_request_streams",
    "_retry_interval",
    "_write_stream",
    "close_sse_stream",
    "close_standalone_sse_stream",
)
"""What the direct paths read of a session's `StreamableHTTPServerTransport`."""
_CONNECTION: Final = ("session_id", "exit_stack", "send_raw_request")
"""What the direct paths read of an SDK `Connection`."""
_SECURITY: Final = (
    "enable_dns_rebinding_protection",
    "allowed_hosts",
    "allowed_origins",
)
"""What the direct paths read of the SDK's `TransportSecuritySettings`."""


def is_json(headers: Any) -> bool:
    """Whether the Content-Type is application/json, read as the SDK's transport reads it."""
    kind = headers.get("content-type", "")
    return any(part.strip() == _JSON for part in kind.split(";")[0].split(","))


def json_response(content: str | None, status: int) -> Any:
    """A response with a JSON body (or none), as the SDK's transport makes it."""
    from starlette.responses import Response

    return Response(content, status_code=status, headers={"Content-Type": _JSON})


def own_connection(version: str | None) -> Any:
    """A connection of one request without a session, as the SDK makes it."""
    from mcp.server.connection import Connection
    from mcp_types import DEFAULT_NEGOTIATED_VERSION

    negotiated = version if version is not None else DEFAULT_NEGOTIATED_VERSION
    return Connection.from_envelope(negotiated, None, None)


def runner(manager: Any, connection: Any) -> Any:
    """The SDK's request handling for `connection`: the manager's server, under its lifespan."""
    from mcp.server.runner import ServerRunner

    return ServerRunner(
        manager.app, connection, getattr(manager, "_lifespan_state", None)
    )


async def answer(handling: Any, context: Any, message: Any) -> Any:
    """The JSON-RPC answer to the request `message`, as the SDK's dispatcher makes it.

    The result, or the error a handler's exception is to the SDK (logged
    when the SDK logs it).
    """
    from mcp.shared.jsonrpc_dispatcher import handler_exception_to_error_data
    from mcp_types import ErrorData, JSONRPCError, JSONRPCResponse

    try:
        result = await handling.on_request(context, message.method, message.params)
    except Exception as error:
        data = handler_exception_to_error_data(error)
        if data is None:
            logger.exception("handler for %r raised", message.method)
            data = ErrorData(code=0, message=str(error))  # as the SDK answers it
        return JSONRPCError(jsonrpc="2.0", id=message.id, error=data)
    return JSONRPCResponse(jsonrpc="2.0", id=message.id, result=result)


def usable(manager: Any) -> bool:
    """Whether the installed SDK has every name the direct paths use, for `manager`.

    Every helper is imported, and every attribute read is looked up on the
    manager, on a throwaway transport, connection, session and request
    metadata: anything missing (or any failure) means False.
    """
    try:
        missing = _missing(manager)
    except Exception as error:  # a changed SDK fails in ways nobody can list
        missing = f"{type(error).__name__}: {error}"
    if missing is None:
        return True
    _toolkit_logger.warning(
        "The installed MCP SDK (mcp %s) lacks %s, which toolkit's direct answers use: "
        "the SDK answers every request instead (the same answers, more CPU per call)",
        _sdk_version(),
        missing,
    )
    return False


def _sdk_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("mcp")
    except PackageNotFoundError:
        return "unknown"


def _missing(manager: Any) -> str | None:
    """The first name the direct paths use that the installed SDK lacks; None when it has them all."""
    # Imported for their presence: each is used by one of the direct paths.
    import pydantic_core  # noqa: F401
    from mcp.server.auth.middleware.bearer_auth import (  # noqa: F401
        AuthenticatedUser,
        authorization_context,
    )
    from mcp.server.connection import Connection
    from mcp.server.runner import ServerRunner, aclose_shielded  # noqa: F401
    from mcp.server.session import ServerSession
    from mcp.server.streamable_http import (  # noqa: F401
        REQUEST_CANCELLED,
        StreamableHTTPServerTransport,
        check_accept_headers,
    )
    from mcp.server.transport_security import TransportSecuritySettings
    from mcp.shared.dispatcher import coerce_request_id  # noqa: F401
    from mcp.shared.exceptions import NoBackChannelError  # noqa: F401
    from mcp.shared.jsonrpc_dispatcher import (  # noqa: F401
        cancelled_request_id_from_params,
        handler_exception_to_error_data,
        progress_token_from_params,
    )
    from mcp.shared.message import ServerMessageMetadata, SessionMessage
    from mcp.shared.transport_context import TransportContext
    from mcp_types import (  # noqa: F401
        CONNECTION_CLOSED,
        DEFAULT_NEGOTIATED_VERSION,
        ErrorData,
        JSONRPCError,
        JSONRPCNotification,
        JSONRPCRequest,
        JSONRPCResponse,
        jsonrpc_message_adapter,
    )
    from mcp_types.version import (  # noqa: F401
        HANDSHAKE_PROTOCOL_VERSIONS,
        is_version_at_least,
    )
    from sse_starlette import EventSourceResponse  # noqa: F401
    from sse_starlette.event import ServerSentEvent, ensure_bytes  # noqa: F401

    connection = Connection.from_envelope(DEFAULT_NEGOTIATED_VERSION, None, None)
    session = ServerSession(None, connection)  # type: ignore[arg-type]
    metadata = ServerMessageMetadata(
        request_context=None,
        can_send_request=False,
        close_sse_stream=None,
        close_standalone_sse_stream=None,
    )
    SessionMessage(
        JSONRPCNotification(jsonrpc="2.0", method="ping"),
        metadata=ServerMessageMetadata(related_request_id=1),
    )
    TransportContext(kind="streamable-http", can_send_request=False)
    owners = (
        (manager, _MANAGER),
        (manager.app, ("middleware",)),
        (StreamableHTTPServerTransport(None), _TRANSPORT),
        (connection, _CONNECTION),
        (session, ("_connection",)),
        (metadata, ("request_context",)),
        (TransportSecuritySettings(), _SECURITY),
        (ServerRunner, ("on_request",)),
    )
    for owner, names in owners:
        for name in names:
            if not hasattr(owner, name):
                return f"{type(owner).__name__}.{name}"
    return None
