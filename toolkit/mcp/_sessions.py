"""What the HTTP app knows of each MCP session and request, and the store that makes their event streams resumable.

A call's answer travels on the event stream of the POST that made it. When
that stream ends before the answer (the server ends it on purpose while the
tool runs, to poll; or the connection drops), a client that speaks
2025-11-25 reconnects with `GET` and `Last-Event-ID` and is sent what it
missed, the answer included. The SDK's transport does the protocol; it
needs an event store, which `EventLog` is: each session's events in memory,
within bounds.

Why the store must know the session: the SDK names a request's stream by
the JSON-RPC id of the request, which every client numbers from the same
start, and it hands the store only that name. A store shared by the
sessions without knowing them would mix the events of two clients'
request 1, and replay one client's answer to the other. So the app sets
the session and the request in context variables (`current_session`,
`current_request`) before the SDK sees a request. The SDK runs a session's
own tasks (the one that stores the session's outgoing messages) from the
request that opened it, and runs each message's handler in the context of
the request that brought the message, so the store and the handlers see
them too.
"""

from __future__ import annotations

import contextvars
import json
import secrets
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Final

import anyio
from mcp.server.streamable_http import (
    GET_STREAM_KEY,
    MCP_SESSION_ID_HEADER,
    EventCallback,
    EventMessage,
    EventStore,
)
from mcp.shared.inbound import MCP_PROTOCOL_VERSION_HEADER
from mcp.types import JSONRPCError, JSONRPCResponse
from mcp_types import INVALID_REQUEST
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.datastructures import Headers, MutableHeaders
from starlette.responses import JSONResponse

__all__ = [
    "DEFAULT_EVENTS",
    "DEFAULT_EVENTS_PER_STREAM",
    "RESUME_WINDOW",
    "EventLog",
    "Request",
    "Session",
    "Sessions",
    "current_request",
    "current_session",
]

DEFAULT_EVENTS_PER_STREAM: Final = 1000
"""Events kept for one stream (one call, or a session's GET stream); the oldest go first."""

DEFAULT_EVENTS: Final = 10_000
"""Events kept for all sessions together; the streams of finished calls go first."""

RESUME_WINDOW: Final = 10.0
"""Seconds that a client whose connection dropped mid-call has to come back for the answer."""


class Session:
    """One MCP session as the app knows it: its event streams, negotiated version and state."""

    __slots__ = (
        "ids",
        "in_flight",
        "last_seen",
        "opener",
        "requests",
        "state",
        "streams",
        "version",
    )

    def __init__(self) -> None:
        self.streams: dict[str, Stream] = {}
        self.version: str | None = None
        """The protocol version negotiated at `initialize`."""
        self.state: dict[str, Any] = {}
        """What the server keeps for the session (the `logging/setLevel` level)."""
        self.in_flight = 0
        """Its HTTP requests being answered (an open GET stream is one)."""
        self.last_seen = time.monotonic()
        self.requests = 0
        """Its HTTP requests so far: one until the client proves it uses the session."""
        self.ids: set[str] = set()
        """The JSON-RPC ids of its requests being answered."""
        self.opener: Any = None
        """The ASGI scope of the request that opened it (its Host and credential)."""

    def busy(self) -> bool:
        """Whether a request of the session is being answered, or a call of it still runs."""
        return self.in_flight > 0 or any(
            not stream.answered and stream.stream_id != GET_STREAM_KEY
            for stream in self.streams.values()
        )


class Request:
    """One HTTP request to the MCP endpoint: what passes between its client and the SDK, and the calls it carries."""

    __slots__ = (
        "_receive",
        "_send",
        "body",
        "calls",
        "cut",
        "disconnected",
        "ended",
        "left",
        "log",
        "opened",
        "opening",
        "status",
        "streams",
    )

    def __init__(
        self, receive: Any, send: Any, log: EventLog | None, body: bytes | None
    ) -> None:
        self._receive = receive
        self._send = send
        self.body = body
        """A POST's whole body, read before the SDK saw the request: its first message."""
        self.log = log
        """Told of the request's answered streams as its response ends (a POST's)."""
        self.streams: list[Stream] = []
        """The streams the request opened (a call's answer goes on its stream)."""
        self.calls: set[anyio.CancelScope] = set()
        """The calls it carries, running; the app cancels them when the client leaves."""
        self.status = 0
        self.opened: str | None = None
        """The session id that the answer names (the answer to `initialize`)."""
        self.opening: Callable[[str], None] | None = None
        """Told that id before the answer goes out, so that the client's next request finds it."""
        self.ended = False
        """The response ended as the SDK ended it."""
        self.cut = False
        """The server ended its event stream before the answer (SSE polling)."""
        self.disconnected = False
        """The client's connection closed while the SDK was answering."""
        self.left = False
        """Its client left before the answer and did not come back for it."""

    async def receive(self) -> Any:
        if self.body is not None:
            message = {"type": "http.request", "body": self.body, "more_body": False}
            self.body = None
            return message
        message = await self._receive()
        if message["type"] == "http.disconnect":
            self.disconnected = True
        return message

    async def send(self, message: Any) -> None:
        if message["type"] == "http.response.start":
            self.status = message["status"]
            if self.status < 400:
                self.opened = Headers(raw=message["headers"]).get(MCP_SESSION_ID_HEADER)
            if self.opened is not None and self.opening is not None:
                self.opening(self.opened)
        elif message["type"] == "http.response.body" and not message.get(
            "more_body", False
        ):
            self.ended = True
            if self.log is not None:
                # Before the end goes out: a client that sees it sees its answers forgotten.
                self.log.delivered(self)
        await self._send(message)


current_session: contextvars.ContextVar[Session | None] = contextvars.ContextVar(
    "toolkit_mcp_session", default=None
)
current_request: contextvars.ContextVar[Request | None] = contextvars.ContextVar(
    "toolkit_mcp_request", default=None
)


class Stream:
    """The events of one stream of one session, numbered from 0."""

    __slots__ = (
        "answered",
        "events",
        "next",
        "resumed",
        "session",
        "settled",
        "stream_id",
        "token",
    )

    def __init__(self, session: Session, stream_id: str) -> None:
        self.session = session
        self.stream_id = stream_id
        # Event ids are `TOKEN.NUMBER`: the random token makes another
        # session's ids unguessable, the number orders the replay.
        self.token = secrets.token_urlsafe(12)
        self.events: deque[tuple[int, Any]] = deque()
        self.next = 0
        self.answered = False
        self.resumed = False
        self.settled = anyio.Event()
        """Set once the answer is stored or a client came back for the stream."""


class EventLog(EventStore):
    """The MCP SDK's `EventStore`, in memory, per session, bounded.

    At most `per_stream` events per stream (the oldest are dropped: a client
    that resumes from before them misses those, not the ones after) and
    `total` for all sessions: beyond it, whole streams are dropped, those of
    finished calls first, oldest first, so that a long call still running
    keeps its stream while short calls come and go. A call's stream goes
    once its answer went out on it, and a session's streams go when the
    session ends.
    """

    def __init__(
        self,
        *,
        per_stream: int = DEFAULT_EVENTS_PER_STREAM,
        total: int = DEFAULT_EVENTS,
    ) -> None:
        if not 0 < per_stream <= total:
            msg = f"events per stream ({per_stream}) must be from 1 to the total ({total})"
            raise ValueError(msg)
        self.per_stream = per_stream
        self.total = total
        self.count = 0
        self._tokens: dict[str, Stream] = {}
        self._running: dict[Stream, None] = {}  # oldest first
        self._finished: dict[Stream, None] = {}

    @property
    def streams(self) -> int:
        """How many streams are kept."""
        return len(self._tokens)

    async def store_event(self, stream_id: str, message: Any) -> str:
        """Keep `message` (None: the priming event of a request's stream) for the current session."""
        session = current_session.get()
        if session is None:  # not a request of a known session: nothing to resume
            return f"{secrets.token_urlsafe(12)}.0"
        stream = session.streams.get(stream_id)
        if stream is None:
            stream = session.streams[stream_id] = Stream(session, stream_id)
            self._tokens[stream.token] = stream
            self._running[stream] = None
        request = current_request.get()
        if message is None and request is not None:
            request.streams.append(stream)
        number = stream.next
        stream.next += 1
        stream.events.append((number, message))
        self.count += 1
        if len(stream.events) > self.per_stream:
            stream.events.popleft()
            self.count -= 1
        if isinstance(message, (JSONRPCResponse, JSONRPCError)) and not stream.answered:
            stream.answered = True
            stream.settled.set()
            self._running.pop(stream, None)
            self._finished[stream] = None
        self._trim()
        return f"{stream.token}.{number}"

    async def replay_events_after(
        self, last_event_id: str, send_callback: EventCallback
    ) -> str | None:
        """Send the current session's events after `last_event_id`; the stream's name, or None."""
        token, _, number = last_event_id.rpartition(".")
        stream = self._tokens.get(token)
        if (
            stream is None
            or stream.session is not current_session.get()
            or not number.isdigit()
        ):
            return None
        stream.resumed = True
        stream.settled.set()
        after = int(number)
        for position, message in list(stream.events):
            if position > after and message is not None:
                await send_callback(EventMessage(message, f"{token}.{position}"))
        return stream.stream_id

    def delivered(self, request: Request) -> None:
        """Forget the answered streams of a POST whose response ended as the SDK ended it.

        Nobody needs a stream whose answer went out on it, and answers can
        be large. The answer went out when the response ended after it was
        stored, unless the server ended the response first (`Request.cut`).
        """
        if not request.cut:
            for stream in request.streams:
                if stream.answered:
                    self._forget(stream)

    def drop(self, session: Session) -> None:
        """Forget the streams of a session that has ended."""
        for stream in list(session.streams.values()):
            self._forget(stream)

    def _trim(self) -> None:
        while self.count > self.total:
            oldest = next(iter(self._finished or self._running))
            self._forget(oldest)

    def _forget(self, stream: Stream) -> None:
        if self._tokens.pop(stream.token, None) is None:
            return
        self.count -= len(stream.events)
        self._running.pop(stream, None)
        self._finished.pop(stream, None)
        if stream.session.streams.get(stream.stream_id) is stream:
            del stream.session.streams[stream.stream_id]


class Sessions:
    """The MCP endpoint as an ASGI app that knows the session and the request of each request.

    It learns a session's id from the `Mcp-Session-Id` header of the answer
    to the request that opened it, and forgets the session when the client
    ends it (DELETE), when the SDK no longer knows it (404), or once it has
    been idle longer than the SDK keeps an idle session. A request with
    another credential than the one that opened a session is no request of
    that session (the SDK answers it 404, as for a session that is not):
    it changes nothing of the session's.

    A POST's body is read in full before the SDK sees it (at most
    `max_body` bytes and one more, so that the SDK refuses a larger one):
    a client that leaves before its request arrived (or whose connection
    was closed as too slow) is no error of the server's. A request whose
    JSON-RPC id is that of a request of the same session still being
    answered gets a JSON-RPC error: the SDK would answer only the second.

    When `max_sessions` sessions are open, a request that opens one more
    makes room: the session that never sent a second request, else the one
    idle longest, is ended as its client would end it (DELETE, with the
    credential that opened it). Sessions with a request or a call in flight
    are kept; when all are, the SDK answers 503.

    A POST whose client leaves before the answer stops the calls it
    carries (the SDK keeps running a request whose client has gone). A
    client that can resume the call's stream (it holds an event id of it)
    has `resume_window` seconds to come back for the answer first: a
    disconnection is not a cancellation (clients cancel with
    `notifications/cancelled`), and connections drop on their own.

    Within a session the version negotiated at `initialize` governs. The
    SDK sends the priming event, and lets a request end its stream early,
    only when the request's `MCP-Protocol-Version` header is 2025-11-25 or
    later; the header is meant to repeat the negotiated version, and the
    specification tells a server to rely on the negotiated version where it
    knows it. So a header that names another version of the handshake
    generation, or none, is replaced by the negotiated one.

    The event streams that clients hold open between calls (GET) never end
    on their own: `close()` ends them, when the server stops.
    """

    def __init__(
        self,
        inner: Any,
        events: EventLog | None,
        idle_timeout: float | None,
        *,
        max_body: int = 4 * 1024 * 1024,
        max_sessions: int | None = None,
    ) -> None:
        self.inner = inner
        self.events = events
        self.idle_timeout = idle_timeout
        self.max_body = max_body
        self.max_sessions = max_sessions
        self.known: dict[str, Session] = {}
        self.opening = 0
        self.resume_window = RESUME_WINDOW
        self.closing: anyio.Event | None = None
        self._pruned = time.monotonic()

    def open(self) -> None:
        """Start taking requests (on the event loop that serves them)."""
        self.closing = anyio.Event()

    def close(self) -> None:
        """End the event streams that clients hold open between calls."""
        if self.closing is not None:
            self.closing.set()

    def _closed(self) -> bool:
        return self.closing is not None and self.closing.is_set()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        key = Headers(scope=scope).get(MCP_SESSION_ID_HEADER)
        session = Session() if key is None else self.known.get(key)
        if key is not None and session is not None and not _owner(session, scope):
            # Another credential's session: the SDK answers 404, as for none.
            session = None
        if session is not None:
            _negotiated(scope, session.version)
        method = scope.get("method")
        name: str | None = None  # the JSON-RPC id of the request, as the SDK names it
        body = await _body(receive, self.max_body) if method == "POST" else None
        if method == "POST":
            if body is None:
                return  # its client left (or was too slow) before the request arrived
            request_id, rpc_method = _request(body)
            if key is None and rpc_method == "initialize":
                await self._make_room()
            if key is not None and session is not None and rpc_method is not None:
                name = str(request_id)
                if _in_use(session, name):
                    await _refused(request_id)(scope, receive, send)
                    return
                session.ids.add(name)
        if method == "GET" and self.closing is not None:
            receive = _until(self.closing, receive)
        request = Request(receive, send, None if body is None else self.events, body)
        try:
            await self._serve(key, session, request, scope)
        finally:
            if session is not None and name is not None:
                session.ids.discard(name)

    async def _serve(
        self, key: str | None, session: Session | None, request: Request, scope: Any
    ) -> None:
        """Let the SDK answer; then know or forget the session, and see the POST to its end."""
        if key is None:
            if session is not None:
                request.opening = lambda opened: self._open(opened, session, scope)
            self.opening += 1
            try:
                await self._within(session, request, scope)
            finally:
                self.opening -= 1
            if request.opened is None and session is not None and self.events:
                self.events.drop(session)  # it opened no session: forget what it stored
        else:
            await self._within(session, request, scope)
            if (request.status == 404 and session is not None) or (
                scope.get("method") == "DELETE" and request.status == 200
            ):
                self._end(key)
        if (
            scope.get("method") == "GET"
            and request.status
            and not request.ended
            and self._closed()
        ):
            # The stream ended because the server closes: end the response,
            # so that the client sees its end, not a broken one.
            await request.send(
                {"type": "http.response.body", "body": b"", "more_body": False}
            )
        if scope.get("method") == "POST":
            await self._finished(request)

    async def _within(
        self, session: Session | None, request: Request, scope: Any
    ) -> None:
        """Let the SDK answer, with the request's session and record in their context variables."""
        if session is not None:
            session.in_flight += 1
            session.requests += 1
        tokens = current_session.set(session), current_request.set(request)
        try:
            await self.inner(scope, request.receive, request.send)
        finally:
            current_request.reset(tokens[1])
            current_session.reset(tokens[0])
            if session is not None:
                session.in_flight -= 1
                session.last_seen = time.monotonic()

    async def _finished(self, request: Request) -> None:
        """After a POST: forget the answers it delivered, or stop the calls its client left."""
        if request.ended:
            return  # its answers were forgotten as the response ended
        if not request.disconnected:
            if self.events is not None:
                self.events.delivered(request)
            return
        waiting = [stream for stream in request.streams if not stream.answered]
        if request.streams and not waiting:
            return  # answered already: stopping changes nothing
        if waiting:
            with anyio.move_on_after(self.resume_window):
                for stream in waiting:
                    await stream.settled.wait()
            if all(stream.settled.is_set() for stream in waiting):
                return  # the client came back, or the answers are kept for it
        request.left = True
        for call in list(request.calls):
            call.cancel()

    async def _make_room(self) -> None:
        """At the session limit, end the session that matters least, if one may go (see above)."""
        if self.max_sessions is None:
            return
        self._prune()
        if len(self.known) + self.opening < self.max_sessions:
            return
        idle = [item for item in self.known.items() if not item[1].busy()]
        if not idle:
            return
        key, session = min(
            idle, key=lambda item: (item[1].requests > 1, item[1].last_seen)
        )
        self._end(key)
        headers = MutableHeaders(
            {"host": Headers(scope=session.opener).get("host", "")}
        )
        headers[MCP_SESSION_ID_HEADER] = key
        ending = {**session.opener, "method": "DELETE", "headers": headers.raw}

        async def nothing() -> Any:
            return {"type": "http.request", "body": b"", "more_body": False}

        async def ignored(message: Any) -> None:
            return None

        await self.inner(ending, nothing, ignored)

    def _open(self, key: str, session: Session, scope: Any) -> None:
        """Know the session that a request without one opened, as soon as the answer names it."""
        self._prune()
        session.opener = scope
        self.known[key] = session

    def _end(self, key: str) -> None:
        session = self.known.pop(key, None)
        if session is not None and self.events is not None:
            self.events.drop(session)

    def _prune(self) -> None:
        """Forget the sessions idle for longer than the SDK keeps them (it has ended them)."""
        if self.idle_timeout is None:
            return
        now = time.monotonic()
        if now - self._pruned < self.idle_timeout / 2:
            return
        self._pruned = now
        for key, session in list(self.known.items()):
            if not session.in_flight and now - session.last_seen > self.idle_timeout:
                self._end(key)


async def _body(receive: Any, limit: int) -> bytes | None:
    """A request's body, up to `limit` bytes and one more; None when its client left first."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if not message.get("more_body", False) or size > limit:
            return b"".join(chunks)


def _request(body: bytes) -> tuple[Any, str | None]:
    """The id and method of the JSON-RPC request in `body`; (None, None) for anything else."""
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):
        return None, None  # not JSON, or nested too deeply: the SDK says so
    if isinstance(message, dict) and "id" in message:
        method = message.get("method")
        return message["id"], method if isinstance(method, str) else None
    return None, None


def _owner(session: Session, scope: Any) -> bool:
    """Whether the request of `scope` has the credential that opened `session`, as the SDK compares them."""
    if session.opener is None:
        return True
    return bool(_requestor(scope) == _requestor(session.opener))


def _requestor(scope: Any) -> Any:
    from mcp.server.auth.middleware.bearer_auth import (
        AuthenticatedUser,
        authorization_context,
    )

    user = scope.get("user")
    return authorization_context(user) if isinstance(user, AuthenticatedUser) else None


def _in_use(session: Session, name: str) -> bool:
    """Whether a request of `session` named `name` is being answered (its stream not yet answered)."""
    stream = session.streams.get(name)
    return name in session.ids or (stream is not None and not stream.answered)


def _refused(request_id: Any) -> Any:
    """The JSON-RPC error for a request whose id is in use on its session."""
    message = (
        f"Request id {request_id!r} is in use by a request of this session that is "
        "still being answered; give each request in flight an id of its own"
    )
    error = {"code": INVALID_REQUEST, "message": message}
    return JSONResponse(
        {"jsonrpc": "2.0", "id": request_id, "error": error}, status_code=400
    )


def _until(closing: anyio.Event, receive: Any) -> Any:
    """`receive`, which reports a disconnect once `closing` is set."""

    async def receiving() -> Any:
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

    return receiving


def _negotiated(scope: Any, version: str | None) -> Any:
    """`scope`, with the session's negotiated version as `MCP-Protocol-Version` (see `Sessions`)."""
    headers = MutableHeaders(scope=scope)
    given = headers.get(MCP_PROTOCOL_VERSION_HEADER)
    if version is not None and (given is None or given in HANDSHAKE_PROTOCOL_VERSIONS):
        headers[MCP_PROTOCOL_VERSION_HEADER] = version
    return scope  # with another generation's version, or an unknown one: the SDK judges
