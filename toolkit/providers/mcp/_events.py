"""Resumable event streams for stateful MCP sessions over streamable HTTP.

A call's answer travels on the event stream of the POST that made it. When
that stream ends before the answer (the server ends it on purpose while the
tool runs, to poll; or the connection drops), a client that speaks
2025-11-25 reconnects with `GET` and `Last-Event-ID` and is sent what it
missed, the answer included. The SDK's transport does the protocol; it
needs an event store, which this module provides: `EventLog` keeps each
session's events in memory, within bounds, and `Sessions` is the ASGI layer
that tells the store which session a request belongs to.

Why the store must know the session: the SDK names a request's stream by
the JSON-RPC id of the request, which every client numbers from the same
start, and it hands the store only that name. A store shared by the
sessions without knowing them would mix the events of two clients' request
1, and replay one client's answer to the other. So the session a request
belongs to is set in a context variable for the request; the SDK runs a
session's own tasks (the one that stores the session's outgoing messages)
from the request that opened it, so they inherit that session too.

Why the protocol version of a request is corrected within a session: the
SDK sends the priming event (an event id, empty data, a `retry` time) and
lets a request end its stream early only when the request's
`MCP-Protocol-Version` header is 2025-11-25 or later, because older clients
cannot read an event without data. The header is meant to repeat the
version negotiated at `initialize`, and the specification tells a server to
rely on that negotiated version where it knows it. So within a session the
negotiated version governs: a header that names another version of the
handshake generation, or none, is replaced by it.
"""

from __future__ import annotations

import contextvars
import json
import secrets
import time
from collections import deque
from typing import Any, Final

from mcp.server.streamable_http import EventCallback, EventMessage, EventStore
from mcp.types import JSONRPCError, JSONRPCResponse
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

__all__ = [
    "DEFAULT_EVENTS",
    "DEFAULT_EVENTS_PER_STREAM",
    "RESUME_WINDOW",
    "SSE_RETRY_MS",
    "EventLog",
    "Session",
    "Sessions",
]

DEFAULT_EVENTS_PER_STREAM: Final = 1000
"""Events kept for one stream (one call, or a session's GET stream); the oldest go first."""

DEFAULT_EVENTS: Final = 10_000
"""Events kept for all sessions together; the streams of finished calls go first."""

SSE_RETRY_MS: Final = 1000
"""The `retry` of the priming event: how long a client waits before reconnecting."""

RESUME_WINDOW: Final = 10.0
"""Seconds that a client whose connection dropped mid-call has to come back for the answer."""

_SESSION_HEADER: Final = b"mcp-session-id"
_VERSION_HEADER: Final = b"mcp-protocol-version"
_HANDSHAKE: Final = frozenset(v.encode() for v in HANDSHAKE_PROTOCOL_VERSIONS)
_SCAN_LIMIT: Final = 1024 * 1024  # bytes of an initialize answer read for its version


class Session:
    """What the HTTP layer knows of one session: its streams, its version, its use."""

    __slots__ = ("in_flight", "last_seen", "streams", "version")

    def __init__(self) -> None:
        self.streams: dict[str, _Stream] = {}
        self.version: bytes | None = None
        self.in_flight = 0
        self.last_seen = time.monotonic()


_current: contextvars.ContextVar[Session | None] = contextvars.ContextVar(
    "toolkit_mcp_session", default=None
)


class _Stream:
    """The events of one stream of one session, numbered from 0."""

    __slots__ = (
        "answer",
        "done",
        "events",
        "next",
        "resumed",
        "session",
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
        self.done = False
        self.answer = -1  # the number of the answer's event, once done
        self.resumed = False


class EventLog(EventStore):
    """The MCP SDK's `EventStore`, in memory, per session, bounded.

    At most `per_stream` events per stream (the oldest are dropped: a client
    that resumes from before them misses those, not the ones after) and
    `total` for all sessions: beyond it, whole streams are dropped, those of
    finished calls first, oldest first, so that a long call still running
    keeps its stream while short calls come and go. A session's streams go
    when the session ends.
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
        self._tokens: dict[str, _Stream] = {}
        self._running: dict[_Stream, None] = {}  # oldest first
        self._finished: dict[_Stream, None] = {}

    @property
    def streams(self) -> int:
        """How many streams are kept."""
        return len(self._tokens)

    async def store_event(self, stream_id: str, message: Any) -> str:
        """Keep `message` (None: a priming event) for `stream_id` of the current session."""
        session = _current.get()
        if session is None:  # not a request of a known session: nothing to resume
            return f"{secrets.token_urlsafe(12)}.0"
        stream = session.streams.get(stream_id)
        if stream is None:
            stream = session.streams[stream_id] = _Stream(session, stream_id)
            self._tokens[stream.token] = stream
            self._running[stream] = None
        number = stream.next
        stream.next += 1
        stream.events.append((number, message))
        self.count += 1
        if len(stream.events) > self.per_stream:
            stream.events.popleft()
            self.count -= 1
        if isinstance(message, (JSONRPCResponse, JSONRPCError)) and not stream.done:
            stream.done = True
            stream.answer = number
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
            or stream.session is not _current.get()
            or not number.isdigit()
        ):
            return None
        stream.resumed = True
        after = int(number)
        for position, message in list(stream.events):
            if position > after and message is not None:
                await send_callback(EventMessage(message, f"{token}.{position}"))
        return stream.stream_id

    def resumed(self, session: Session, stream_id: str) -> bool | None:
        """Whether a client came back for the stream; None when it is finished or not kept."""
        stream = session.streams.get(stream_id)
        if stream is None or stream.done:
            return None
        return stream.resumed

    def delivered(self, session: Session, chunk: bytes) -> None:
        """Forget a call's stream once its answer went out: `chunk` is the last event a response sent.

        Nobody needs a stream whose answer the client was sent, and answers
        can be large: keeping every one until the total pushes it out would
        hold thousands of them. (A client that loses its connection in the
        very moment of the answer finds nothing to resume, and its request
        fails instead of waiting.)
        """
        line = chunk.split(b"\n", 1)[0].strip()
        token, _, number = line[4:].decode("latin-1").rpartition(".")
        stream = self._tokens.get(token)
        if (
            stream is not None
            and stream.session is session
            and stream.done
            and str(stream.answer) == number
        ):
            self._forget(stream)

    def drop(self, session: Session) -> None:
        """Forget the streams of a session that has ended."""
        for stream in list(session.streams.values()):
            self._forget(stream)

    def _trim(self) -> None:
        while self.count > self.total:
            oldest = next(iter(self._finished or self._running))
            self._forget(oldest)

    def _forget(self, stream: _Stream) -> None:
        if self._tokens.pop(stream.token, None) is None:
            return
        self.count -= len(stream.events)
        self._running.pop(stream, None)
        self._finished.pop(stream, None)
        if stream.session.streams.get(stream.stream_id) is stream:
            del stream.session.streams[stream.stream_id]


class Sessions:
    """The MCP endpoint as an ASGI app that knows each request's session, for `EventLog`.

    It learns a session's id and negotiated version from the answer to the
    `initialize` that opened it, and forgets the session when the client
    ends it (DELETE), when the SDK no longer knows it (404), or once it has
    been idle longer than the SDK keeps an idle session.
    """

    def __init__(self, inner: Any, log: EventLog, idle_timeout: float | None) -> None:
        self.inner = inner
        self.log = log
        self.idle_timeout = idle_timeout
        self.known: dict[str, Session] = {}
        self.resume_window = RESUME_WINDOW
        self._pruned = time.monotonic()

    def current(self, scope: Any) -> Session | None:
        """The session of a request, by its `Mcp-Session-Id` header."""
        found = _header(scope, _SESSION_HEADER)
        return None if found is None else self.known.get(found.decode("latin-1"))

    async def abandoned(self, scope: Any, body: bytes) -> bool:
        """Whether a call whose client left before the answer is to be cancelled.

        A disconnection is not a cancellation when the client can resume:
        the specification asks clients to cancel with
        `notifications/cancelled`, and connections drop on their own. So a
        call whose stream the client can resume (it has an event id of it)
        is cancelled only if the client does not come back for it, with
        `Last-Event-ID`, within `resume_window` seconds; a client that
        cannot resume cancels its call by leaving.
        """
        import anyio

        session = self.current(scope)
        stream_id = _request_id(body)
        if session is None or stream_id is None:
            return True
        deadline = time.monotonic() + self.resume_window
        while (state := self.log.resumed(session, stream_id)) is not None:
            if state:
                return False
            if time.monotonic() >= deadline:
                return True
            await anyio.sleep(0.05)
        return True  # answered already, or not kept: cancelling changes nothing then

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        session_id = _header(scope, _SESSION_HEADER)
        if session_id is None:
            if scope.get("method") == "POST":
                await self._opening(scope, receive, send)
            else:
                await self.inner(scope, receive, send)
            return
        key = session_id.decode("latin-1")
        session = self.known.get(key)
        if session is None:  # unknown or ended: the SDK answers 404
            await self.inner(scope, receive, send)
            return
        status = await self._within(
            session, _corrected(scope, session.version), receive, send
        )
        if status == 404 or (scope.get("method") == "DELETE" and status == 200):
            self._end(key)

    async def _within(
        self, session: Session, scope: Any, receive: Any, send: Any
    ) -> int:
        answer: dict[str, Any] = {"status": 0, "event": b""}

        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start":
                answer["status"] = message["status"]
            elif message.get("body", b"").startswith(b"id: "):
                answer["event"] = message["body"]
            await send(message)

        session.in_flight += 1
        token = _current.set(session)
        try:
            await self.inner(scope, receive, sending)
        finally:
            _current.reset(token)
            session.in_flight -= 1
            session.last_seen = time.monotonic()
        if answer["event"]:
            self.log.delivered(session, answer["event"])
        return int(answer["status"])

    async def _opening(self, scope: Any, receive: Any, send: Any) -> None:
        """A POST without a session: when it opens one, note its id and version."""
        session = Session()
        scanned = [0]
        opened = [False]
        event = [b""]

        async def sending(message: Any) -> None:
            if message["type"] == "http.response.start":
                found = _header(message, _SESSION_HEADER)
                if found is not None and message["status"] < 400:
                    self._prune()
                    self.known[found.decode("latin-1")] = session
                    opened[0] = True
            else:
                body = message.get("body", b"")
                if body.startswith(b"id: "):
                    event[0] = body
                if session.version is None and scanned[0] < _SCAN_LIMIT:
                    scanned[0] += len(body)
                    session.version = _negotiated(body)
            await send(message)  # the version is known before the client reads it

        token = _current.set(session)
        try:
            await self.inner(scope, receive, sending)
        finally:
            _current.reset(token)
            session.last_seen = time.monotonic()
            if not opened[0]:  # no session came of it: nothing to resume
                self.log.drop(session)
        if opened[0] and event[0]:
            self.log.delivered(session, event[0])

    def _end(self, key: str) -> None:
        session = self.known.pop(key, None)
        if session is not None:
            self.log.drop(session)

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


def _header(scope: Any, name: bytes) -> bytes | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value)
    return None


def _request_id(body: bytes) -> str | None:
    """The name of a request's stream (its JSON-RPC id), for a body of one request."""
    try:
        sent = json.loads(body)
    except ValueError:
        return None
    if isinstance(sent, dict) and "method" in sent and "id" in sent:
        return str(sent["id"])
    return None


def _corrected(scope: Any, version: bytes | None) -> Any:
    """`scope` with the session's negotiated version as `MCP-Protocol-Version`."""
    if version is None:
        return scope
    given = _header(scope, _VERSION_HEADER)
    if given == version or (given is not None and given not in _HANDSHAKE):
        return scope  # the one negotiated, or another generation's: the SDK judges
    headers = [(k, v) for k, v in scope["headers"] if k != _VERSION_HEADER]
    headers.append((_VERSION_HEADER, version))
    return {**scope, "headers": headers}


def _negotiated(body: bytes) -> bytes | None:
    """The `protocolVersion` of an initialize answer: one JSON body, or the data of SSE events."""
    chunks = [body] if body.lstrip().startswith(b"{") else []
    chunks += [line[5:] for line in body.splitlines() if line.startswith(b"data:")]
    for chunk in chunks:
        try:
            sent = json.loads(chunk)
        except ValueError:
            continue
        result = sent.get("result") if isinstance(sent, dict) else None
        version = result.get("protocolVersion") if isinstance(result, dict) else None
        if isinstance(version, str) and version.encode() in _HANDSHAKE:
            return version.encode()
    return None
