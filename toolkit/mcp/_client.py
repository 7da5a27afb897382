"""The client side of MCP: any MCP server's tools, as a live `ToolSet`.

```python
from toolkit import mcp

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

import contextlib
import functools
import math
import threading
import time
from collections.abc import AsyncIterator, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from toolkit.core._log import log_warning, logger
from toolkit.run._context import Context
from toolkit.run._running import in_thread, is_seconds, thread_waiting_here
from toolkit.tools._names import API_RULES, TOOL_NAMES, clashes, wire_name
from toolkit.tools._tool import Tool
from toolkit.values._results import ToolResult

from ._address import BACKOFF, Backoff, ServerAddress
from ._client_host import HostBridge
from ._client_tasks import DEADLINE, tasks_extension
from ._definitions import cause, dump, first_error, new_tool, result_of, tool_options

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
    spec = ServerAddress.of(target, headers=headers, auth=auth, env=env, cwd=cwd)
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
        self, target: ServerAddress, *, host: Any, timeout: float | None
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
            msg = f'Cannot connect to MCP server "{self.label}": its tool list could not be read: {cause(error)}'
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
                link.error = first_error(error)
                link.end(cause(error))
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
                cause(error),
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
            dumped = dump(definition)
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
        options = tool_options(definition)
        execute = self._executor(definition.name)
        try:
            made = new_tool(name, definition, execute, options)
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
                return self._error(remote, cause(error))
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
                link.end(cause(error))
                return self._error(remote, cause(error))
            finally:
                DEADLINE.reset(deadline)
            return result_of(result)
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
