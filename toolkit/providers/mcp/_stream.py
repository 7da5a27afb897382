"""Calls on an event stream, without the SDK's per-request machinery.

For every POST of a session, the MCP SDK's transport builds an event-stream
response with four tasks of its own, two memory streams and a writer task,
and hands the request to the session's dispatcher, which runs it in another
task and routes its answer back through the session's message router
(without sessions, it builds a transport, a dispatcher and a server task
for each POST). `SessionDirect` answers the requests that need none of that
(a single `tools/call` of a tool without a `Context` parameter,
`tools/list` or `ping`, on a session the SDK knows; without sessions,
`initialize` too): the transport's checks run as the transport runs them,
the session's own connection (its negotiated version, its client) and the
SDK's request handling (`ServerRunner`) produce the answer in one task of
the session manager, as the SDK runs a session's requests, and the
request's task writes the response as the transport writes it: the same
headers, the priming event where the SDK sends one, each event stored in
the session's event log under the id the client may resume from.

What stays the SDK's: anything a check refuses, every other request or
notification, and a tool that takes a `Context` (its progress, log records
and questions to the client travel over the session's back channel). What
this path keeps as the SDK does it:

- a `notifications/cancelled` naming a call answered here cancels it (the
  notification then goes on to the SDK, which answers it); the client gets
  the error the SDK sends for a cancelled request;
- a client that leaves mid-call ends the request, not the call: the app's
  endpoint then cancels it (at once, or once the client has not come back
  for the answer within the resume window); until then the call runs, and
  its answer goes through the session's message router, which stores it
  and hands it to a client that resumed. Without sessions, leaving cancels
  the call at once;
- a session that ends (the client's `DELETE`, its idle timeout, a
  client that stopped polling) stops its calls, whose streams end without
  an answer; so does the server's shutdown;
- SSE polling ends the stream while the tool runs (`close_sse_stream`, for
  a client that can resume) in the same way: the answer goes to the
  session, and a later poll ends the stream the client resumed;
- the session counts as in use while the request runs (the SDK's idle
  timeout), and the keep-alive comment goes out every 15 seconds of a long
  call.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Mapping, MutableMapping
from typing import TYPE_CHECKING, Any, Final

import anyio

from ._direct import Direct
from ._sdk import answer, is_json, logger, own_connection, runner

if TYPE_CHECKING:
    from toolkit._toolset import ToolSet

__all__ = ["SessionDirect"]

_REQUESTS: Final = frozenset({"ping", "tools/list", "tools/call"})
_CANCELLED: Final = "notifications/cancelled"
_SEP: Final = "\r\n"
_PING_SECONDS: Final = 15.0
"""How often the SDK's event stream sends a keep-alive comment (sse-starlette's default)."""
_SESSION_KEY: Final = "mcp-session-id"


def _remember_connections(
    server: Any, on_end: Callable[[str], None]
) -> weakref.WeakValueDictionary[str, Any]:
    """The SDK connection of each session, by session id, as the session's requests reveal them.

    A server middleware notes the connection of every request the SDK
    handles; the first request of a session (its `initialize`) is enough.
    A session's connection lives as long as the session does, and however
    the session ends (the client's `DELETE`, its idle timeout, a crash),
    the SDK closes the connection's exit stack, which calls `on_end` with
    the session's id.
    """
    connections: weakref.WeakValueDictionary[str, Any] = weakref.WeakValueDictionary()

    async def remember(ctx: Any, call_next: Any) -> Any:
        connection: Any = getattr(ctx.session, "_connection", None)
        key = getattr(connection, "session_id", None)
        if key is not None and key not in connections:
            connections[key] = connection
            connection.exit_stack.callback(on_end, key)
        return await call_next(ctx)

    server.middleware.append(remember)
    return connections


class SessionDirect(Direct):
    """The MCP endpoint of a stateful event-stream app: a direct answer, or the SDK's.

    Args:
        inner: The SDK's endpoint, for everything not answered here.
        manager: The SDK's `StreamableHTTPSessionManager`.
        security: The SDK's `TransportSecuritySettings` (Host and Origin).
        max_body: Bodies longer than this go to the SDK, which answers 413.
        running: Whether the app's lifespan runs.
        toolset: The tools served (a tool with a `Context` goes to the SDK).
        events: The event log (None: events are not kept, nor resumed).
    """

    def __init__(
        self,
        inner: Any,
        manager: Any,
        security: Any,
        max_body: int,
        running: Any,
        toolset: ToolSet,
        events: Any,
        *,
        stateless: bool = False,
    ) -> None:
        super().__init__(inner, manager, security, max_body, running)
        self.toolset = toolset
        self.events = events
        self.stateless = stateless
        """No sessions: each request has a connection of its own, as the SDK gives it."""
        self.calls: dict[str, dict[Any, _Call]] = {}
        """The calls answered here and running, by session and request id."""
        self.connections: MutableMapping[str, Any] = {}
        """Each session's SDK connection, by session id."""
        self._user: Any = None
        self._owner: Any = None
        self._headers: list[tuple[bytes, bytes]] = []
        self._at: int | None = None
        if self.enabled:  # otherwise the SDK answers everything
            self._prepare()

    def _prepare(self) -> None:
        """What answering reads of the SDK: sessions' connections, owners, the stream's headers."""
        from mcp.server.auth.middleware.bearer_auth import (
            AuthenticatedUser,
            authorization_context,
        )
        from sse_starlette import EventSourceResponse

        if not self.stateless:
            self.connections = _remember_connections(self.manager.app, self._ended)
        self._user = AuthenticatedUser
        self._owner = authorization_context
        marker = "\x00session\x00"
        given = {
            "Cache-Control": "no-cache, no-transform",
            "Connection": "keep-alive",
            "Content-Type": "text/event-stream",
        }
        if not self.stateless:
            given[_SESSION_KEY] = marker
        shape = EventSourceResponse(content=_nothing(), headers=given)
        self._headers = [(k, v) for k, v in shape.raw_headers]
        self._at = next(
            (i for i, (_, v) in enumerate(self._headers) if v == marker.encode()),
            None,
        )

    def _ended(self, key: str) -> None:
        """The session `key` ended: its calls stop, as the SDK's session stops its requests."""
        self.connections.pop(key, None)  # a request still on its way goes to the SDK
        for call in list(self.calls.pop(key, {}).values()):
            call.end()

    async def _answer(
        self, scope: Any, receive: Any, version: str | None, body: bytes, send: Any
    ) -> bool:
        """Answer the POST of `body` here; False (having sent nothing) to leave it to the SDK."""
        from starlette.requests import Request

        request = Request(scope)
        if self.stateless:
            message = self._message(request, body)
            return message is not None and await self._alone(
                scope, request, message, receive, version, send
            )
        key = request.headers.get(_SESSION_KEY)
        transport = None if key is None else self._transport(scope, key)
        if key is None or transport is None:
            return False
        message = self._message(request, body)
        return message is not None and await self._in_session(
            key, transport, request, message, receive, version, send
        )

    def _message(self, request: Any, body: bytes) -> Any:
        """The JSON-RPC message of a POST the SDK's transport takes as it is; None otherwise."""
        import pydantic_core
        from mcp.server.streamable_http import check_accept_headers
        from mcp_types import jsonrpc_message_adapter
        from pydantic import ValidationError

        headers = request.headers
        if not self._passes(headers):
            return None
        has_json, has_sse = check_accept_headers(request)
        if not (has_json and has_sse and is_json(headers)):
            return None
        try:
            return jsonrpc_message_adapter.validate_python(
                pydantic_core.from_json(body), by_name=False
            )
        except (ValueError, ValidationError):
            return None

    async def _in_session(
        self,
        key: str,
        transport: Any,
        request: Any,
        message: Any,
        receive: Any,
        version: str | None,
        send: Any,
    ) -> bool:
        """A message on the session `key`, whose transport takes it."""
        from mcp_types import JSONRPCNotification, JSONRPCRequest

        if isinstance(message, JSONRPCNotification):
            if message.method == _CANCELLED:
                self._cancel(key, message.params)
            return False  # the SDK answers it (and finds nothing more to cancel)
        if not isinstance(message, JSONRPCRequest) or not self._plain(message):
            return False
        connection = self.connections.get(key)
        request_id = _coerced(message.id)
        if (
            connection is None
            or request_id in self.calls.get(key, ())
            or str(message.id) in transport._request_streams
        ):
            return False  # an id in flight: the SDK answers as it does
        self.answered += 1
        call = self.calls.setdefault(key, {})[request_id] = _Call(
            self, request, message, receive, send, key, transport
        )
        await call.run(runner(self.manager, connection), version)
        return True

    async def _alone(
        self,
        scope: Any,
        request: Any,
        message: Any,
        receive: Any,
        version: str | None,
        send: Any,
    ) -> bool:
        """A request without a session, on a connection of its own as the SDK makes it."""
        from mcp_types import JSONRPCNotification, JSONRPCRequest

        if isinstance(message, JSONRPCNotification):
            return await self._accepted(message, scope, receive, send)
        if not isinstance(message, JSONRPCRequest) or not (
            message.method == "initialize" or self._plain(message)
        ):
            return False
        self.answered += 1
        connection = own_connection(version)
        call = _Call(
            self, request, message, receive, send, None, _NO_SESSION, connection
        )
        await call.run(runner(self.manager, connection), version)
        return True

    def _transport(self, scope: Any, key: str) -> Any:
        """The SDK's transport of the session, when it takes this request as it is."""
        manager = self.manager
        transport = manager._server_instances.get(key)
        if transport is None or transport.is_terminated:
            return None
        user = scope.get("user")
        owner = self._owner(user) if isinstance(user, self._user) else None
        if owner != manager._session_owners.get(key):
            return None
        idle = transport.idle_scope
        if idle is not None and idle.cancel_called:
            return None
        return transport

    def _plain(self, message: Any) -> bool:
        """Whether `message` is a request answered here: a tool without a `Context`, a list, a ping."""
        method = message.method
        if method not in _REQUESTS:
            return False
        if method != "tools/call":
            return True
        params = message.params
        name = params.get("name") if isinstance(params, dict) else None
        tool = self.toolset.get(name) if isinstance(name, str) else None
        return tool is None or not _takes_context(tool)

    def _cancel(self, key: str, params: Any) -> None:
        from mcp.shared.jsonrpc_dispatcher import cancelled_request_id_from_params

        wanted = cancelled_request_id_from_params(params)
        calls = self.calls.get(key)
        if wanted is None or not calls:
            return
        call = calls.get(_coerced(wanted))
        if call is not None:
            call.cancel()

    def headers(self, key: str | None) -> list[tuple[bytes, bytes]]:
        """The headers of the transport's event-stream response, with the session's id."""
        at = self._at
        if at is None or key is None:
            return self._headers
        headers = list(self._headers)
        headers[at] = (headers[at][0], key.encode("latin-1"))
        return headers


class _Call:
    """One request answered on its own event stream.

    The call runs in a task of the session manager (`_work`), as the SDK
    runs a session's requests, while the request's task (`run`) holds the
    stream. Its states, and what moves it on:

    - streaming (`gone` false): the request's task waits on `waiting`,
      sending a keep-alive comment now and then; what the call sends goes
      on the stream, its answer (`reply`) ends it;
    - left to the session (`gone` true): the client left (a disconnect),
      or SSE polling ended the stream (`closed` too, by `close_stream`);
      the request's task is done, and what the call still sends, its
      answer included, goes to the session's message router, where a
      client that resumes gets it;
    - cancelled (`cancelled` set, by `cancel`): the client's
      `notifications/cancelled`; the call ends with the SDK's
      `Request cancelled` error, sent as any answer is;
    - ended (`ended` true, by `end`): the session ended, or the server is
      closing; the call is cancelled and its stream ends at once without
      an answer, nothing more goes anywhere but the event log (what the
      SDK stores for such a request).

    A call is in `SessionDirect.calls` (found by its id) from its start
    until `_work` ends, or until `run` ends when `_work` never started.
    """

    def __init__(
        self,
        path: SessionDirect,
        request: Any,
        message: Any,
        receive: Any,
        send: Any,
        key: str | None,
        transport: Any,
        connection: Any = None,
    ) -> None:
        self.path = path
        self.request = request
        self.message = message
        self.receive = receive
        self.send = send
        self.key = key
        self.transport = transport
        self.stream_id = str(message.id)
        self.scope = anyio.CancelScope()
        self.cancelled = anyio.Event()
        self.waiting = anyio.CancelScope()
        self.reply: Any = None
        self.gone = False
        self.resumable = False
        """The client can resume this stream (it was sent the priming event)."""
        self.closed = False
        """The stream was ended early (SSE polling): the answer goes to the session."""
        self.ended = False
        """The session ended, or the server is closing: the stream ends unanswered."""
        self.lock = anyio.Lock()
        self.connection = connection
        """A connection of this call alone, closed once it ends (no session)."""

    def cancel(self) -> None:
        """What the SDK's dispatcher does with a client's `notifications/cancelled`."""
        self.cancelled.set()
        self.scope.cancel()

    def end(self) -> None:
        """What the SDK does to a session's requests when the session ends: cancelled, unanswered.

        The SDK's transport closes each request's stream at once, without
        an answer, and its dispatcher cancels the request's task.
        """
        self.ended = True
        self.scope.cancel()
        self.waiting.cancel()

    async def run(self, handling: Any, version: str | None) -> None:
        """Answer on the stream, or leave the call to the session once the client has gone."""
        transport = self.transport
        idle = transport.idle_scope
        counted = idle is not None and transport._idle_timeout is not None
        if counted:  # a request in flight holds the session, as the transport counts it
            transport._requests_in_flight += 1
            idle.deadline = math.inf
        started = False
        try:
            await self._start(version)
            self.path.manager._task_group.start_soon(self._work, handling)
            started = True
            await self._wait()
            if self.ended or self.closed:  # unanswered; or the client comes back
                async with self.lock:
                    self.gone = True  # what the call still sends goes to the session
                    await self._end_stream()
                return
            if self.reply is None:  # the client left
                if self.key is None:  # no session keeps the call: the SDK ends it
                    self.cancel()
                return  # the call's answer goes to the session
            if self.gone:
                await self._through_session(self.reply)
            else:
                await self._finish(self.reply)
        finally:
            if not started:  # the call never ran: nothing else lets it go
                await self._done()
            if counted:
                transport._requests_in_flight -= 1
                if not transport._requests_in_flight:
                    idle.deadline = anyio.current_time() + transport._idle_timeout

    async def _start(self, version: str | None) -> None:
        """The response's start and, for a client that can resume, the priming event."""
        from mcp_types import DEFAULT_NEGOTIATED_VERSION
        from mcp_types.version import is_version_at_least

        priming = None
        events = self.path.events
        negotiated = version if version is not None else DEFAULT_NEGOTIATED_VERSION
        if events is not None and is_version_at_least(negotiated, "2025-11-25"):
            priming = {"id": await events.store_event(self.stream_id, None), "data": ""}
            retry = self.transport._retry_interval
            if retry is not None:
                priming["retry"] = retry
        await self.send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": self.path.headers(self.key),
            }
        )
        if priming is not None:
            self.resumable = True
            await self._send_event(priming)

    async def close_stream(self) -> None:
        """The SDK's `close_sse_stream` of the request: end its stream while the call runs.

        The first time, the POST's stream ends (after the priming event) and
        what the call sends from then on goes to the session, as when the
        client leaves; later, the stream the client resumed ends, as the
        transport ends it.
        """
        if self.closed or self.gone:
            self.transport.close_sse_stream(self.stream_id)
            return
        self.closed = self.gone = True
        self.waiting.cancel()

    async def close_standalone_stream(self) -> None:
        """The SDK's `close_standalone_sse_stream`: the session's GET stream ends."""
        self.transport.close_standalone_sse_stream()

    async def _wait(self) -> None:
        """Until the answer or the client's leaving; the keep-alive comment meanwhile."""
        with self.waiting:
            while self.reply is None:
                message = None
                with anyio.move_on_after(_PING_SECONDS):
                    message = await self.receive()
                if message is None:
                    await self._ping()
                elif message["type"] == "http.disconnect":
                    self.gone = True
                    return

    async def _ping(self) -> None:
        from datetime import datetime, timezone

        from sse_starlette.event import ServerSentEvent

        ping = ServerSentEvent(comment=f"ping - {datetime.now(timezone.utc)}", sep=_SEP)
        async with self.lock:
            await self.send(
                {"type": "http.response.body", "body": ping.encode(), "more_body": True}
            )

    async def _work(self, handling: Any) -> None:
        """The call, in the session manager's task: its answer to the stream or to the session."""
        reply: Any = None
        try:
            reply = await self._answered(handling)
        finally:
            await self._done()
            if reply is None or self.ended:  # the session ended, or the server closes
                self.end()
                await self._unanswered()
        if self.ended:
            return
        self.reply = reply
        if not self.gone:
            self.waiting.cancel()
            return
        try:
            await self._through_session(reply)
        except Exception:  # a task of the manager: nothing may escape it
            logger.exception("the answer to %r was lost", self.message.method)

    async def _unanswered(self) -> None:
        """What the SDK's dispatcher writes for a request its session's end cut short.

        The session's message router stores it in the event log, which so
        knows the stream finished (the endpoint stops waiting for its
        client to come back); no stream carries it to the client.
        """
        from mcp_types import CONNECTION_CLOSED, ErrorData, JSONRPCError

        events = self.path.events
        if events is None or self.cancelled.is_set():
            return  # a request the client cancelled is not answered
        error = ErrorData(code=CONNECTION_CLOSED, message="Connection closed")
        closed = JSONRPCError(jsonrpc="2.0", id=self.message.id, error=error)
        with anyio.CancelScope(shield=True):
            await events.store_event(self.stream_id, closed)

    async def _done(self) -> None:
        """The call is over: its own connection closed, and no longer found by its id."""
        if self.connection is not None:
            from mcp.server.runner import aclose_shielded

            await aclose_shielded(self.connection)
        self._forget()

    def _forget(self) -> None:
        """No longer a call that `notifications/cancelled` can reach."""
        key = self.key
        if key is None:
            return
        calls = self.path.calls.get(key)
        request_id = _coerced(self.message.id)
        if calls is not None and calls.get(request_id) is self:
            del calls[request_id]
            if not calls:
                del self.path.calls[key]

    async def _answered(self, handling: Any) -> Any:
        """The JSON-RPC answer, as the SDK's dispatcher makes it."""
        from mcp.server.streamable_http import REQUEST_CANCELLED
        from mcp_types import ErrorData, JSONRPCError

        message = self.message
        context = _StreamContext(self)
        reply: Any = None
        with self.scope:
            try:
                reply = await answer(handling, context, message)
            finally:
                context.closed = True
        if self.cancelled.is_set() or reply is None:
            cancelled = ErrorData(code=REQUEST_CANCELLED, message="Request cancelled")
            reply = JSONRPCError(jsonrpc="2.0", id=message.id, error=cancelled)
        return reply

    async def _finish(self, reply: Any) -> None:
        """Send the answer and end the stream."""
        if self.ended or self.transport.is_terminated:  # the session ended meanwhile
            await self._end_stream()
            return
        data = await self._data(reply)
        await self.send(
            {"type": "http.response.body", "body": data, "more_body": False}
        )

    async def _end_stream(self) -> None:
        await self.send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _data(self, message: Any) -> bytes:
        """`message` as the transport writes it: stored, then one event."""
        from sse_starlette.event import ensure_bytes

        event: dict[str, Any] = {
            "event": "message",
            "data": message.model_dump_json(by_alias=True, exclude_unset=True),
        }
        events = self.path.events
        if events is not None:
            event["id"] = await events.store_event(self.stream_id, message)
        return bytes(ensure_bytes(event, _SEP))

    async def _send_event(self, event: dict[str, Any]) -> None:
        from sse_starlette.event import ensure_bytes

        chunk = ensure_bytes(event, _SEP)
        await self.send(
            {"type": "http.response.body", "body": chunk, "more_body": True}
        )

    async def notify(self, message: Any) -> None:
        """A message about the call, on its stream (through the session once the client left)."""
        async with self.lock:
            if self.gone:
                await self._through_session(message)
                return
            chunk = await self._data(message)
            await self.send(
                {"type": "http.response.body", "body": chunk, "more_body": True}
            )

    async def _through_session(self, message: Any) -> None:
        """Hand `message` to the session's message router, which stores it and routes it to a resumed stream."""
        from mcp.shared.message import ServerMessageMetadata, SessionMessage

        writer = self.transport._write_stream
        if writer is None:
            return
        metadata = ServerMessageMetadata(related_request_id=self.message.id)
        try:
            await writer.send(SessionMessage(message, metadata=metadata))
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            return


class _StreamContext:
    """The SDK's `DispatchContext` of one request answered on its own event stream."""

    def __init__(self, call: _Call) -> None:
        from mcp.shared.jsonrpc_dispatcher import progress_token_from_params
        from mcp.shared.message import ServerMessageMetadata
        from mcp.shared.transport_context import TransportContext

        self._call = call
        self.transport = (
            TransportContext(kind="jsonrpc", can_send_request=True)
            if call.key is not None
            else TransportContext(kind="streamable-http", can_send_request=False)
        )
        self.request_id = call.message.id
        self.message_metadata = (
            ServerMessageMetadata(
                request_context=call.request,
                close_sse_stream=call.close_stream,
                close_standalone_sse_stream=call.close_standalone_stream,
            )
            if call.resumable
            else ServerMessageMetadata(request_context=call.request)
        )
        self._token = progress_token_from_params(call.message.params)
        self.closed = False

    @property
    def can_send_request(self) -> bool:
        return bool(self.transport.can_send_request) and not self.closed

    @property
    def cancel_requested(self) -> Any:
        return self._call.cancelled

    async def notify(
        self, method: str, params: Mapping[str, Any] | None, opts: Any = None
    ) -> None:
        from mcp_types import JSONRPCNotification

        if self.closed:
            return
        if params is not None:
            message = JSONRPCNotification(
                jsonrpc="2.0", method=method, params=dict(params)
            )
        else:
            message = JSONRPCNotification(jsonrpc="2.0", method=method)
        await self._call.notify(message)

    async def progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        if self._token is None:
            return
        params: dict[str, Any] = {"progressToken": self._token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        await self.notify("notifications/progress", params)

    async def send_raw_request(
        self, method: str, params: Mapping[str, Any] | None, opts: Any = None
    ) -> dict[str, Any]:
        """A request to the client: over the session's own stream (tools that ask take the SDK's path)."""
        from mcp.shared.exceptions import NoBackChannelError

        key = self._call.key
        connection = None if key is None else self._call.path.connections.get(key)
        if not self.can_send_request or connection is None:
            raise NoBackChannelError(method)
        result: dict[str, Any] = await connection.send_raw_request(method, params, opts)
        return result


class _NoSession:
    """What a call without a session reads of a transport: nothing to count, nowhere else to send."""

    idle_scope: Final = None
    _idle_timeout: Final = None
    _retry_interval: Final = None
    _write_stream: Final = None
    is_terminated: Final = False


_NO_SESSION: Final = _NoSession()


def _takes_context(tool: Any) -> bool:
    """Whether a tool may use its `Context` (any tool but a plain function's without one)."""
    from toolkit._plan import FunctionPlan

    plan = getattr(tool, "_plan", None)
    return not isinstance(plan, FunctionPlan) or plan.info.context is not None


def _coerced(request_id: Any) -> Any:
    from mcp.shared.dispatcher import coerce_request_id

    return coerce_request_id(request_id)


async def _nothing() -> Any:
    return
    yield  # an empty async iterator
