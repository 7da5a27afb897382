"""What the direct MCP paths take from the MCP SDK, and whether the installed SDK has it.

The direct paths (`_mcp_direct.py` without sessions, `_mcp_stream.py`
with event streams) answer requests as the SDK answers them, with the
SDK's own helpers and by reading the state of its session manager and
transports, some of it private. A later SDK may move or rename any of
it; `usable` finds out once, when the app is built, so that the direct
paths turn themselves off and the SDK answers every request instead of
each one failing.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["usable"]

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


def usable(manager: Any) -> bool:
    """Whether the installed SDK has every name the direct paths use, for `manager`.

    Every helper is imported, and every attribute read is looked up on the
    manager, on a throwaway transport, connection, session and request
    metadata: anything missing (or any failure) means False.
    """
    try:
        return _has_everything(manager)
    except Exception:  # a changed SDK fails in ways nobody can list
        return False


def _has_everything(manager: Any) -> bool:
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
    return all(hasattr(owner, name) for owner, names in owners for name in names)
