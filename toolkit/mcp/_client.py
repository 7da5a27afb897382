"""The client side of MCP: any MCP server's tools, as a live `ToolSet`.

```python
from toolkit.providers import mcp

async with mcp.connect("uvx mcp-server-time") as time_tools:
    tools = local | time_tools.prefixed("time_")
```

`connect` starts a server (stdio: a command line or an argument list) or
reaches one (streamable HTTP: an `http(s)://` URL) with the official `mcp`
SDK's `Client`, lists its tools and yields a `ToolSet` with one `Tool` per
remote tool. A remote tool is an ordinary `Tool.new` tool: the arguments are
checked against the server's `inputSchema` here first, with the messages of
local tools, and only valid calls are sent as `tools/call`.

How it is built: the SDK's `Client` must be entered and left by one task, so
one task per connection holds it open, and `connect` ends those tasks when
its block ends (no task group spans the block, so that an exception in the
block comes out as itself); calls from any task share the connection, and calls from another
event loop or thread are handed to its loop. When a connection ends (the
process exits, the HTTP server goes away, a transport fails) its task says
why; a call in flight gets an error result naming the server and the cause,
and the next call opens a new connection: a few tries with growing waits,
then, after a failed round, calls fail at once for a while that grows too,
so that a dead server is never hammered. Calls are never sent twice.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import math
import shlex
import threading
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from toolkit.core._exceptions import ToolDefinitionError
from toolkit.core._log import log_failure, log_warning, logger
from toolkit.run._context import Context
from toolkit.run._running import in_thread, is_seconds, thread_waiting_here
from toolkit.schema._preview import preview
from toolkit.tools._names import API_RULES, TOOL_NAMES, clashes, wire_name
from toolkit.tools._tool import Tool
from toolkit.values._content import Audio, Image, Part, Resource, ResourceLink, Text
from toolkit.values._json import encode
from toolkit.values._results import ToolResult

from ._client_host import HostBridge
from ._client_tasks import DEADLINE, tasks_extension

if TYPE_CHECKING:
    import asyncio

    from mcp.client.client import Client

    from toolkit.sets._toolset import ToolSet

__all__ = ["Backoff", "connect"]

_CLOSE_SECONDS: Final = 15.0
_CAUSE_SECONDS: Final = 5.0  # a connection's task, ending, records why within this
_LIST_PAGES: Final = 100  # a server whose tools/list never ends cannot hang connect
_INSTALL_HINT: Final = (
    'Connecting to MCP servers needs the `mcp` package: pip install "toolkit-llm[mcp]"'
)


class Backoff:
    """How a broken connection is opened again.

    Attributes:
        tries: Connection attempts in one round.
        first_wait: Seconds before the second attempt of a round; doubles.
        round_wait: Seconds after a failed round during which calls fail at
            once without trying; doubles after each failed round.
        max_round_wait: The longest wait between rounds.
        connect_seconds: How long one attempt may take (a server started
            with `uvx` or `npx` may install itself first).
    """

    __slots__ = (
        "connect_seconds",
        "first_wait",
        "max_round_wait",
        "round_wait",
        "tries",
    )

    def __init__(
        self,
        *,
        tries: int = 3,
        first_wait: float = 0.25,
        round_wait: float = 1.0,
        max_round_wait: float = 30.0,
        connect_seconds: float = 60.0,
    ) -> None:
        self.tries = tries
        self.first_wait = first_wait
        self.round_wait = round_wait
        self.max_round_wait = max_round_wait
        self.connect_seconds = connect_seconds


BACKOFF = Backoff()
"""The policy every connection follows (tests shorten its waits)."""


@contextlib.asynccontextmanager
async def connect(
    target: str | Sequence[str],
    *,
    headers: Mapping[str, str] | None = None,
    auth: Any = None,
    host: Any = None,
    timeout: float | None = None,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
) -> AsyncIterator[ToolSet]:
    """Connect to an MCP server and yield its tools as a live `ToolSet`.

    ```python
    async with mcp.connect("uvx mcp-server-time") as time_tools:
        result = await time_tools.aexecute("agent-1", "call-1", "get_current_time", {"timezone": "UTC"})
    ```

    The set holds one `Tool` per remote tool: its name (the server's own,
    kept in `Tool.remote_name` too; one that is not a tool name, with
    whitespace say, gets its characters as `_`), title, description, `inputSchema` as `parameters`,
    `outputSchema` as `output_schema`, and the annotations as the MCP hints.
    It follows the server's `notifications/tools/list_changed`. A call
    checks the arguments here first, then sends `tools/call`; whatever goes
    wrong (a timeout, a transport failure, a server that died) is an error
    result naming the server and the cause, and the next call connects
    again. Leaving the `async with` closes the connection (a stdio server
    is stopped). On a 2026-07-28 connection, a call that the server answers
    with a task (the tasks extension, which the client declares) is followed
    to its end, and its result is the task's; the tool list is kept for as
    long as the server's `ttlMs` allows, across reconnections too.

    Args:
        target: A command line (`"uvx mcp-server-time"`, split as a shell
            would) or a list of arguments, for a server over stdio; or an
            `http://` or `https://` URL, for streamable HTTP.
        headers: HTTP headers sent with every request, for example
            `{"Authorization": "Bearer ..."}` (HTTP only).
        auth: An `httpx2.Auth`, such as the MCP SDK's `OAuthClientProvider`
            (HTTP only).
        host: Where the server's requests and notifications go: progress,
            log records, sampling, elicitation (see `Host`). Without one,
            the client declares no sampling or elicitation capability.
        timeout: Seconds a call (and each request of a listing) may take;
            then the call is cancelled on the server
            (`notifications/cancelled`, or `tasks/cancel` for a call the
            server runs as a task) and its result is an error. None: no
            limit for calls; a whole listing takes at most
            `Backoff.connect_seconds` either way.
        env: Environment variables for a stdio server, over the few that
            the SDK passes on (`HOME`, `PATH`, `USER`, ...).
        cwd: The working directory of a stdio server.

    Yields:
        The live `ToolSet`.

    Raises:
        ImportError: The `mcp` package is not installed.
        ValueError: The target or an option does not fit the transport.
        ConnectionError: The server cannot be started or reached, does not
            answer the handshake, or its tool list cannot be read; the
            message names it and says why. A tool MCP does not allow, or
            whose arguments toolkit cannot check, is left out with a
            warning instead.
    """
    try:
        import mcp  # noqa: F401  # only to see that it is there
    except ImportError:
        raise ImportError(_INSTALL_HINT) from None
    spec = _ServerAddress.of(target, headers=headers, auth=auth, env=env, cwd=cwd)
    remote = _Remote(spec, host=host, timeout=_check_timeout(timeout))
    try:
        await remote.start()
        yield remote.toolset
    finally:
        await remote.close()


def _check_timeout(timeout: object) -> float | None:
    if timeout is None:
        return None
    if not is_seconds(timeout) or not math.isfinite(timeout):
        msg = f"timeout={timeout!r}: give a positive number of seconds, or None"
        raise ValueError(msg)
    return float(timeout)


# ---------------------------------------------------------------- targets


class _ServerAddress:
    """Where the server is and how to reach it; each connection makes a new transport."""

    def __init__(
        self,
        *,
        label: str,
        argv: list[str] | None = None,
        url: str | None = None,
        headers: Mapping[str, str] | None = None,
        auth: Any = None,
        env: Mapping[str, str] | None = None,
        cwd: str | None = None,
    ) -> None:
        self.label = label
        self.argv = argv
        self.url = url
        self.headers = dict(headers) if headers is not None else None
        self.auth = auth
        self.env = dict(env) if env is not None else None
        self.cwd = cwd

    @classmethod
    def of(
        cls,
        target: str | Sequence[str],
        *,
        headers: Mapping[str, str] | None,
        auth: Any,
        env: Mapping[str, str] | None,
        cwd: str | None,
    ) -> _ServerAddress:
        if isinstance(target, str) and target.startswith(("http://", "https://")):
            if env is not None or cwd is not None:
                msg = (
                    f"env and cwd apply to a server started over stdio, not to {target}"
                )
                raise ValueError(msg)
            return cls(label=_shown_url(target), url=target, headers=headers, auth=auth)
        argv = _argv(target)
        if headers is not None or auth is not None:
            msg = f"headers and auth apply to a server over HTTP, not to the command {shlex.join(argv)!r}"
            raise ValueError(msg)
        return cls(label=shlex.join(argv), argv=argv, env=env, cwd=cwd)

    @contextlib.asynccontextmanager
    async def transport(self, on_end: Callable[[], None]) -> AsyncIterator[Any]:
        """The SDK transport's streams, the read side watched for its end."""
        async with contextlib.AsyncExitStack() as stack:
            if self.url is not None:
                import httpx2
                from mcp.client.streamable_http import streamable_http_client

                # The SDK's own client's timeouts: a server may hold a
                # response stream open for long, so reading waits 5 minutes.
                timeout = httpx2.Timeout(30.0, read=300.0)
                http = await stack.enter_async_context(
                    httpx2.AsyncClient(
                        headers=self.headers, auth=self.auth, timeout=timeout
                    )
                )
                streams = streamable_http_client(self.url, http_client=http)
            else:
                from mcp.client.stdio import StdioServerParameters, stdio_client

                assert self.argv is not None  # a target is a URL or a command
                command, *args = self.argv
                params = StdioServerParameters(
                    command=command, args=args, env=self.env, cwd=self.cwd
                )
                _say_when_stdout_is_not_mcp()
                streams = stdio_client(params)
            read, write = await stack.enter_async_context(streams)
            yield _Watched(read, on_end, self.label), write


_NOT_MCP: Final = (
    "The MCP server's stdout is not MCP: it wrote %s, which is not a JSON-RPC "
    "message (a stdio server writes only MCP messages to stdout; its logs go to stderr)"
)


def _say_when_stdout_is_not_mcp() -> None:
    """One line, not the SDK's traceback, for a stdio server's stdout line that is not JSON-RPC.

    The SDK logs that line's parse failure with its traceback on its
    `mcp.client.stdio` logger, which Python prints when the application
    configured no logging: a server that prints a banner looks like a crash.
    The SDK still skips the line; a filter added once words the record.
    """
    import logging

    found = logging.getLogger("mcp.client.stdio")
    if _not_mcp not in found.filters:
        found.addFilter(_not_mcp)


def _not_mcp(record: Any) -> bool:
    error = record.exc_info[1] if record.exc_info else None
    if isinstance(error, ValueError):  # the line is not JSON-RPC (or not UTF-8)
        listed = getattr(
            error, "errors", None
        )  # pydantic's ValidationError has the line
        try:
            wrote = preview(listed()[0]["input"]) if listed else "a line"
        except Exception:  # not the error of a line
            wrote = "a line"
        record.msg, record.args = _NOT_MCP, (wrote,)
        record.exc_info = record.exc_text = None
    return True


def _argv(target: str | Sequence[str]) -> list[str]:
    if isinstance(target, str):
        try:
            argv = shlex.split(target)
        except ValueError as error:
            msg = f"Cannot split the command line {target!r}: {error}"
            raise ValueError(msg) from None
    elif isinstance(target, Sequence) and all(isinstance(arg, str) for arg in target):
        argv = list(target)
    else:
        msg = f"An MCP server is a command line, a list of arguments or an http(s):// URL; got {target!r}"
        raise ValueError(msg)
    if not argv:
        msg = "The command that starts the MCP server is empty"
        raise ValueError(msg)
    return argv


def _shown_url(url: str) -> str:
    """The URL without user name and password, for messages."""
    scheme, _, rest = url.partition("://")
    authority, slash, path = rest.partition("/")
    return f"{scheme}://{authority.rpartition('@')[2]}{slash}{path}"


class _Watched:
    """The transport's read stream, telling when it ends: the server is gone.

    The SDK notices the end only when a request fails; knowing it at once
    lets the next call connect again instead of failing first. It also
    leaves out of a `tools/list` result each tool that the SDK would refuse
    (`_usable_tools`): the SDK checks the result as a whole, so that one bad
    definition would make every tool of the server unusable.
    """

    def __init__(self, inner: Any, on_end: Callable[[], None], label: str) -> None:
        self._inner = inner
        self._on_end = on_end
        self._label = label
        self._version = _FALLBACK_VERSION

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def __aenter__(self) -> _Watched:
        await self._inner.__aenter__()
        return self

    async def __aexit__(self, *exc: object) -> Any:
        return await self._inner.__aexit__(*exc)

    def __aiter__(self) -> _Watched:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return self._read(await self._inner.receive())
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._on_end()
            raise StopAsyncIteration from None

    async def receive(self) -> Any:
        import anyio

        try:
            return self._read(await self._inner.receive())
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._on_end()
            raise

    def _read(self, item: Any) -> Any:
        result = getattr(getattr(item, "message", None), "result", None)
        if isinstance(result, dict):
            version = result.get("protocolVersion")
            if isinstance(version, str):  # the initialize handshake's answer
                self._version = version
            supported = result.get("supportedVersions")
            if isinstance(supported, list):  # server/discover's (2026-07-28 on)
                self._version = _adopted(supported, self._version)
            tools = result.get("tools")
            if isinstance(tools, list):
                result["tools"] = _usable_tools(result, self._version, self._label)
        return item


_FALLBACK_VERSION: Final = "2025-11-25"  # the SDK's own, before a version is agreed


def _adopted(supported: list[Any], current: str) -> str:
    """The version the SDK's client adopts from a discover answer: the newest modern one both speak."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    modern = [item for item in supported if item in MODERN_PROTOCOL_VERSIONS]
    return max(modern) if modern else current


def _usable_tools(listed: dict[str, Any], version: str, label: str) -> list[Any]:
    """The listed tools that the SDK's check of `tools/list` accepts; a warning for each other.

    An `inputSchema` without a `type` (which MCP asks for, and some servers
    leave out) is taken as the object schema it describes.
    """
    from mcp_types.methods import validate_server_result

    kept = []
    for tool in listed["tools"]:
        schema = tool.get("inputSchema") if isinstance(tool, dict) else None
        if isinstance(schema, dict) and "type" not in schema:
            tool = {**tool, "inputSchema": {"type": "object", **schema}}
        try:
            validate_server_result("tools/list", version, {**listed, "tools": [tool]})
        except Exception as error:  # pydantic's ValidationError, an unknown version
            name = tool.get("name") if isinstance(tool, dict) else None
            log_warning(
                "MCP server %r: the tool %r is left out: its definition is not one MCP allows: %s",
                label,
                name if isinstance(name, str) else "(no name)",
                _cause(error).splitlines()[0],
            )
            continue
        kept.append(tool)
    return kept


# ---------------------------------------------------------------- connections


class _Unavailable(Exception):
    """No connection to the server can be had now; the message says why."""


class _Link:
    """One connection: the SDK `Client`, held open by a task of its own."""

    def __init__(self) -> None:
        import anyio

        self.client: Client | None = None
        self.settled = anyio.Event()  # connected, or failed to
        self.ended = anyio.Event()  # the connection is over (or never was)
        self.stop = anyio.Event()
        self.done = (
            anyio.Event()
        )  # its task has finished: `cause` and `error` are final
        self.cause: str | None = None
        self.error: BaseException | None = None
        self.scope = anyio.CancelScope()

    @property
    def live(self) -> bool:
        return self.client is not None and not self.ended.is_set()

    def end(self, cause: str | None = None) -> None:
        if cause is not None and self.cause is None:
            self.cause = cause
        self.ended.set()
        self.stop.set()


class _Remote:
    """One MCP server: its connection, its tools (the live `ToolSet`) and its calls."""

    def __init__(
        self, target: _ServerAddress, *, host: Any, timeout: float | None
    ) -> None:
        import anyio
        from mcp.client.caching import CacheConfig, InMemoryResponseCacheStore

        from toolkit.sets._toolset import ToolSet

        self.target = target
        self.label = target.label
        self.bridge = HostBridge(host, self.label)
        self.timeout = timeout
        self.toolset = ToolSet()
        self._tasks: set[asyncio.Task[None]] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: int | None = None
        self._link: _Link | None = None
        self._lock = anyio.Lock()
        self._closed = False
        self._failed_rounds = 0
        self._retry_at = 0.0
        self._last_cause = ""
        self._refreshing = False
        self._stale = False
        # Kept across reconnections: a tools/list within its ttlMs is not asked again.
        self._cache = CacheConfig(
            store=InMemoryResponseCacheStore(),
            partition="toolkit",
            target_id=self.label,
        )
        self._known: dict[
            str, tuple[str, Tool[Any, Any]]
        ] = {}  # remote name -> (definition, tool)

    # ------------------------------------------------------------ lifecycle

    async def start(self) -> None:
        import asyncio

        self._loop = asyncio.get_running_loop()
        self._thread = threading.get_ident()
        try:
            link = await self._open()
        except _Unavailable as error:
            msg = f'Cannot connect to MCP server "{self.label}": {error}'
            raise ConnectionError(msg) from None
        try:
            await self._refresh_from(link)
        except Exception as error:  # whatever the server sent instead of its tools
            msg = f'Cannot connect to MCP server "{self.label}": its tool list could not be read: {_cause(error)}'
            raise ConnectionError(msg) from None

    async def close(self) -> None:
        self._closed = True
        link, self._link = self._link, None
        if link is not None:
            link.stop.set()
            import anyio

            # The SDK bounds its own shutdown (a stdio server is stopped, then
            # killed); this bound keeps a stuck transport from holding the exit.
            with anyio.move_on_after(_CLOSE_SECONDS, shield=True):
                await link.done.wait()
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):
                await task

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        """Run `work` in a task of its own, kept until it ends (the loop keeps only weak references)."""
        import asyncio

        task = asyncio.ensure_future(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _open(self) -> _Link:
        """A new connection, or `_Unavailable` with the reason it cannot be had."""
        import anyio

        link = _Link()
        self._spawn(self._hold(link))
        with anyio.move_on_after(BACKOFF.connect_seconds):
            await link.settled.wait()
        if link.client is None:
            link.scope.cancel()
            link.end(
                f"no answer to the handshake within {BACKOFF.connect_seconds:g} seconds"
            )
            raise _Unavailable(link.cause)
        if link.ended.is_set():  # connected, then gone at once
            raise _Unavailable(link.cause or "the server closed the connection")
        self._link = link
        return link

    async def _hold(self, link: _Link) -> None:
        """Open the SDK `Client`, keep it open until told to stop or the server goes."""
        from mcp.client.client import Client

        with link.scope:
            try:
                client = Client(
                    self.target.transport(lambda: link.end()),
                    **self._callbacks(),
                    read_timeout_seconds=self.timeout,
                    extensions=[tasks_extension()],
                    cache=self._cache,
                )
                async with client:
                    link.client = client
                    link.settled.set()
                    await self._serve(link, client)
            except Exception as error:  # this connection's end, never the caller's
                link.error = _first(error)
                link.end(_cause(error))
                logger().debug(
                    "MCP server %r: the connection ended", self.label, exc_info=error
                )
            finally:
                link.end()
                link.settled.set()
                link.done.set()

    async def _serve(self, link: _Link, client: Client) -> None:
        """Until the connection is to end: follow the tool list on a modern connection."""
        import anyio

        async with anyio.create_task_group() as group:
            if _listens_for_changes(client):
                group.start_soon(self._listen, client)
            await link.stop.wait()
            group.cancel_scope.cancel()

    async def _listen(self, client: Client) -> None:
        """Refresh on every change of the tool list (`subscriptions/listen`)."""
        try:
            async with client.listen(tools_list_changed=True) as events:
                async for _ in events:
                    self._changed()
        except Exception as error:  # the subscription failed; calls still work
            logger().debug(
                "MCP server %r: no tool list changes", self.label, exc_info=error
            )

    def _callbacks(self) -> dict[str, Any]:
        return {"message_handler": self._on_message, **self.bridge.callbacks()}

    async def _on_message(self, message: Any) -> None:
        from mcp.types import ToolListChangedNotification

        if isinstance(message, ToolListChangedNotification):
            self._changed()

    # ------------------------------------------------------------ reconnecting

    async def _live(self) -> _Link:
        """The connection to use now, opened again if it ended."""
        link = self._link
        if link is not None and link.live:
            return link
        async with self._lock:
            link = self._link
            if link is not None and link.live:
                return link
            if self._closed:
                msg = "the connection is closed (the `async with mcp.connect(...)` block has ended)"
                raise _Unavailable(msg)
            link = await self._reopen(link)
        await self._refresh_from(link)
        return link

    async def _reopen(self, gone: _Link | None) -> _Link:
        import anyio

        cause = (gone.cause if gone is not None else None) or self._last_cause
        wait = self._retry_at - time.monotonic()
        if wait > 0:
            msg = f"{cause}; connecting again in {wait:.0f} s"
            raise _Unavailable(msg)
        pause = BACKOFF.first_wait
        for attempt in range(BACKOFF.tries):
            if attempt:
                await anyio.sleep(pause)
                pause *= 2
            try:
                link = await self._open()
            except _Unavailable as error:
                cause = str(error)
                continue
            self._failed_rounds = 0
            return link
        self._failed_rounds += 1
        self._last_cause = cause or "the server is unavailable"
        pause = min(
            BACKOFF.round_wait * 2 ** (self._failed_rounds - 1), BACKOFF.max_round_wait
        )
        self._retry_at = time.monotonic() + pause
        msg = f"{self._last_cause} (tried {BACKOFF.tries} times)"
        raise _Unavailable(msg)

    # ------------------------------------------------------------ the tool list

    def _changed(self) -> None:
        """The server's tool list changed: read it again, once at a time."""
        if self._refreshing:
            self._stale = True
            return
        if not self._closed:
            self._spawn(self._refresh())

    async def _refresh(self) -> None:
        try:
            await self._refresh_from(await self._live())
        except Exception as error:  # the calls will say why; the set stays as it was
            log_warning(
                "MCP server %r: its tool list could not be read again: %s",
                self.label,
                _cause(error),
            )

    async def _refresh_from(self, link: _Link) -> None:
        self._refreshing = True
        try:
            while True:
                self._stale = False
                listed = await self._list(link)
                # In a thread: checking a big schema must not hold up the loop.
                made = await in_thread(
                    functools.partial(self._tools, listed), None, None
                )
                self.toolset._assign(made)
                if not self._stale:
                    return
        finally:
            self._refreshing = False

    async def _list(self, link: _Link) -> list[Any]:
        """Every page of `tools/list`, within `Backoff.connect_seconds` whatever the timeout."""
        import anyio

        assert link.client is not None  # a live link
        listed: list[Any] = []
        cursor: str | None = None
        with anyio.move_on_after(BACKOFF.connect_seconds) as scope:
            for _ in range(_LIST_PAGES):
                page = await link.client.list_tools(cursor=cursor)
                listed.extend(page.tools)
                cursor = page.next_cursor
                if cursor is None:
                    break
        if scope.cancelled_caught:
            msg = f"no complete answer within {BACKOFF.connect_seconds:g} seconds"
            raise TimeoutError(msg)
        return listed

    def _tools(self, listed: list[Any]) -> dict[str, Tool[Any, Any]]:
        """The set's tools for the listed ones, in order; an unchanged tool stays the same object."""
        known, self._known = self._known, {}
        unique: dict[str, Any] = {}
        for definition in listed:
            if unique.setdefault(definition.name, definition) is not definition:
                log_warning(
                    "MCP server %r lists the tool %r twice; the first one is used",
                    self.label,
                    definition.name,
                )
        names = {remote: wire_name(remote, TOOL_NAMES) for remote in unique}
        left_out = self._clashes(names)
        made: dict[str, Tool[Any, Any]] = {}
        for remote, definition in unique.items():
            if remote in left_out:
                continue
            dumped = _dump(definition)
            kept = known.get(remote)
            if kept is not None and kept[0] == dumped:
                item: Tool[Any, Any] | None = kept[1]
            else:
                item = self._tool(definition, names[remote])
            if item is not None:
                made[item.name] = item
                self._known[remote] = (dumped, item)
        return made

    def _clashes(self, names: dict[str, str]) -> set[str]:
        """The remote tools left out, with a warning, since one of their names is another's.

        A name that is not a tool name (`names` maps each remote name to the
        tool's) or that an API is sent could be another tool's: one of the
        two is left out, the same one whatever the order of the list.
        """
        refused = clashes(names, [TOOL_NAMES])
        named = {names[remote]: remote for remote in names if remote not in refused}
        refused.update(
            (named[name], why) for name, why in clashes(named, API_RULES).items()
        )
        for remote, why in refused.items():
            log_warning(
                "MCP server %r: the tool %r is left out: %s",
                self.label,
                remote,
                why,
            )
        return set(refused)

    def _tool(self, definition: Any, name: str) -> Tool[Any, Any] | None:
        """The `Tool` of one remote tool, or None (with a warning) when its schema cannot be used."""
        options = _options(definition)
        execute = self._executor(definition.name)
        try:
            made = _new_tool(name, definition, execute, options)
        except Exception as error:  # a ToolDefinitionError, or a check that broke on it
            log_warning(
                "MCP server %r: the tool %r is left out: %s",
                self.label,
                definition.name,
                error,
            )
            return None
        made.remote_name = definition.name
        return made

    # ------------------------------------------------------------ calls

    def _executor(self, remote: str) -> _Caller:
        return _Caller(self, remote)

    async def call(
        self, remote: str, args: Any, *, agent_id: str, call_id: str
    ) -> ToolResult:
        """Run `tools/call` for the remote tool `remote`; every failure is an error result."""
        import asyncio

        context: Context[Any] = Context(agent_id, call_id, remote)
        loop = asyncio.get_running_loop()
        if loop is self._loop:
            return await self._call(remote, args, context)
        return await self._call_from_elsewhere(remote, args, context)

    async def _call_from_elsewhere(
        self, remote: str, args: Any, context: Context[Any]
    ) -> ToolResult:
        """A call from another event loop or thread, run on the connection's loop."""
        import asyncio

        home = self._loop
        if home is None or home.is_closed() or self._closed:
            return self._error(
                remote,
                "the connection is closed (the `async with mcp.connect(...)` block has ended)",
            )
        if thread_waiting_here() == self._thread:
            return self._error(
                remote,
                "the call was made with the sync `execute` from the event loop that holds the "
                "connection, which waits for it and so cannot run it. Use `await aexecute(...)` or "
                "`await run(...)` there",
            )
        future = asyncio.run_coroutine_threadsafe(
            self._call(remote, args, context), home
        )
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()
            raise

    async def _call(self, remote: str, args: Any, context: Context[Any]) -> ToolResult:
        from mcp.shared.exceptions import MCPError

        for attempt in range(2):
            try:
                link = await self._live()
            except _Unavailable as error:
                return self._error(remote, f"it is unavailable: {error}")
            except Exception as error:  # listing the tools again failed
                return self._error(remote, _cause(error))
            assert link.client is not None  # a live link
            ends = time.monotonic() + (
                math.inf if self.timeout is None else self.timeout
            )
            deadline = DEADLINE.set(ends)  # a task's polling ends by then too
            try:
                with self.bridge.calling(context):
                    result = await link.client.call_tool(
                        remote,
                        args,
                        progress_callback=self.bridge.progress_callback(context),
                    )
            except MCPError as error:
                if attempt == 0 and await self._undelivered(link, error):
                    continue  # the server never saw it: send it on a new connection
                return await self._failed(remote, link, error)
            except RuntimeError as error:  # the SDK's check of structured content
                return self._error(remote, str(error))
            except Exception as error:  # a transport failure: this connection is over
                link.end(_cause(error))
                return self._error(remote, _cause(error))
            finally:
                DEADLINE.reset(deadline)
            return _result(result)
        raise AssertionError  # pragma: no cover  # the second attempt returns

    async def _undelivered(self, link: _Link, error: Any) -> bool:
        """Whether a failed request never reached the server, so that sending it again is safe.

        So it is when the connection could not be made (the HTTP server
        went away between calls: "connection refused"), and when the server
        refused the request for a session it no longer knows (it restarted).
        """
        from mcp.types import CONNECTION_CLOSED, INVALID_REQUEST

        if (
            error.code == INVALID_REQUEST
            and error.error.message == "Session terminated"
        ):
            link.end("the server ended the session")
            return True
        if error.code != CONNECTION_CLOSED:
            return False
        await self._ended(link)
        return type(link.error).__name__ == "ConnectError"

    async def _ended(self, link: _Link) -> None:
        """Wait (briefly) for the connection's task to say why it ended."""
        import anyio

        link.stop.set()
        with anyio.move_on_after(_CAUSE_SECONDS):
            await link.done.wait()
        link.end()

    async def _failed(self, remote: str, link: _Link, error: Any) -> ToolResult:
        from mcp.types import CONNECTION_CLOSED, REQUEST_TIMEOUT

        if error.code == REQUEST_TIMEOUT:
            return self._error(
                remote,
                f"no answer within {self.timeout:g} seconds; the call was cancelled",
            )
        if error.code == CONNECTION_CLOSED:
            await self._ended(link)
            cause = link.cause or "the server closed the connection"
            return self._error(remote, f"the connection ended during the call: {cause}")
        return self._error(
            remote, f"the server answered with an error: {error.error.message}"
        )

    def _error(self, remote: str, reason: str) -> ToolResult:
        text = f'Tool "{remote}" of MCP server "{self.label}" failed: {reason}'
        logger().info("%s", text)
        return ToolResult.error(text)


class _Caller:
    """The `execute_fn` of a remote tool: `tools/call` on its server, under its remote name."""

    __slots__ = ("remote", "remote_name")

    def __init__(self, remote: _Remote, remote_name: str) -> None:
        self.remote = remote
        self.remote_name = remote_name

    async def __call__(self, agent_id: str, call_id: str, args: Any) -> ToolResult:
        return await self.remote.call(
            self.remote_name, args, agent_id=agent_id, call_id=call_id
        )

    def __repr__(self) -> str:
        return f"<tools/call {self.remote_name!r} on {self.remote.label!r}>"


def _listens_for_changes(client: Client) -> bool:
    """A modern connection whose server says its tool list changes: changes come by subscription."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    tools = client.server_capabilities.tools
    return (
        client.protocol_version in MODERN_PROTOCOL_VERSIONS
        and tools is not None
        and bool(tools.list_changed)
    )


def _first(error: BaseException) -> BaseException:
    """The first error of an exception group (the SDK's task groups raise them); else `error`."""
    while getattr(error, "exceptions", None):
        error = error.exceptions[0]  # type: ignore[attr-defined]
    return error


def _cause(error: BaseException) -> str:
    """What went wrong, in one line: the first error of a group, its type and message."""
    error = _first(error)
    message = getattr(getattr(error, "error", None), "message", None) or str(error)
    if isinstance(error, OSError) and not message:
        message = error.strerror or ""
    kind = type(error).__name__
    return f"{kind}: {message}" if message else kind


# ---------------------------------------------------------------- tools and results


def _options(definition: Any) -> dict[str, Any]:
    annotations = definition.annotations
    title = definition.title or (annotations.title if annotations is not None else None)
    options: dict[str, Any] = {"thread": False}
    if title:
        options["title"] = title
    if annotations is not None:
        for attribute, hint in _HINTS:
            value = getattr(annotations, hint)
            if value is not None:
                options[attribute] = value
    return options


_HINTS: Final = (
    ("read_only", "read_only_hint"),
    ("destructive", "destructive_hint"),
    ("idempotent", "idempotent_hint"),
    ("open_world", "open_world_hint"),
)


def _new_tool(
    name: str, definition: Any, execute: Any, options: dict[str, Any]
) -> Tool[Any, Any]:
    """`Tool.new` from the remote definition; an output schema toolkit cannot use is dropped."""
    parameters = definition.input_schema
    output = definition.output_schema
    if output is not None:
        returns = output.get("description")
        if isinstance(returns, str) and returns:
            options["returns"] = returns
        try:
            return Tool.new(
                name=name,
                description=definition.description or "",
                parameters=parameters,
                execute_fn=execute,
                output_schema=output,
                **options,
            )
        except ToolDefinitionError as error:
            if "output_schema" not in str(error):
                raise
            log_warning("MCP tool %r: its outputSchema is left out: %s", name, error)
            options.pop("returns", None)
    return Tool.new(
        name=name,
        description=definition.description or "",
        parameters=parameters,
        execute_fn=execute,
        **options,
    )


def _dump(definition: Any) -> str:
    return str(definition.model_dump_json(by_alias=True, exclude_none=True))


def _result(result: Any) -> ToolResult:
    """A `CallToolResult` as a `ToolResult`: text, parts, `structured`, `is_error`."""
    parts = tuple(_part(block) for block in result.content)
    structured = result.structured_content
    is_error = bool(result.is_error)
    if all(isinstance(part, Text) for part in parts):
        texts = [part.text for part in parts if isinstance(part, Text)]
        text = "\n".join(texts)
        if not texts and structured is not None:
            text = encode(structured)
        return ToolResult(text, is_error, None, None if is_error else structured)
    text = "\n".join(part.text for part in parts if isinstance(part, Text))
    return ToolResult(text, is_error, None, None if is_error else structured, parts)


def _part(block: Any) -> Part:
    """One content block as a content part; one that cannot be read becomes a text saying so."""
    kind = getattr(block, "type", None)
    try:
        if kind == "text":
            return Text(block.text)
        if kind == "image":
            return Image(data=_bytes(block.data), mime_type=block.mime_type)
        if kind == "audio":
            return Audio(data=_bytes(block.data), mime_type=block.mime_type)
        if kind == "resource":
            contents = block.resource
            text = getattr(contents, "text", None)
            if text is not None:
                return Resource(
                    str(contents.uri), mime_type=contents.mime_type, text=text
                )
            return Resource(
                str(contents.uri),
                mime_type=contents.mime_type,
                data=_bytes(contents.blob),
            )
        if kind == "resource_link":
            return ResourceLink(
                str(block.uri),
                block.name,
                mime_type=block.mime_type,
                description=block.description,
            )
    except (ValueError, TypeError) as error:
        log_failure("An MCP content block could not be read", error=error)
        return Text(f"[a {kind} block that could not be read: {error}]")
    return Text(f"[a content block of type {kind!r}, which toolkit does not read]")


def _bytes(data: str) -> bytes:
    return base64.b64decode(data, validate=True)
