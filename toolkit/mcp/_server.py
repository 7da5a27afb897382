"""The MCP server: the official `mcp` SDK's lowlevel `Server` listing and calling a `ToolSet`, and stdio.

The same `Server` answers over stdio (`serve_stdio`) and over streamable
HTTP (`_app`); the wire forms of tools and results are `toolkit.providers.mcp`'s, and what
a tool's `Context` asks of the client is `_host`'s.
"""

from __future__ import annotations

import contextlib
import functools
import os
import stat
import sys
from collections import deque
from collections.abc import AsyncIterator, Iterable
from typing import TYPE_CHECKING, Any, Final, Literal

from toolkit.core._log import log_failure
from toolkit.providers._common import as_tools, mint_id
from toolkit.tools._tool import Tool
from toolkit.values._json import TooDeep, to_jsonable
from toolkit.values._results import ToolResult, error_text, safe_text

from ._modern import (
    DEFAULT_CACHE_SCOPE,
    DEFAULT_CACHE_TTL,
    cache_hints,
    is_modern,
    protect_state,
)
from ._tasks import DEFAULT_MAX_TASKS, DEFAULT_TASK_TTL, Tasks

if TYPE_CHECKING:
    from toolkit.sets._toolset import ToolSet

    from ._host import McpHost
    from ._loading import Loading


_INSTALL_HINT = (
    'Serving over MCP needs the `mcp` package: pip install "toolkit-llm[mcp]"'
)


def require_mcp() -> None:
    """Raise ImportError, saying how to install it, when `mcp` is missing."""
    try:
        import mcp  # noqa: F401  # only to see that it is there
    except ImportError:
        raise ImportError(_INSTALL_HINT) from None


def served(source: ToolSet | Tool[Any, Any] | Iterable[Tool[Any, Any]]) -> ToolSet:
    """`source` as the set a server serves: a `ToolSet` as it is, a `Tool` or a list of tools in a new set.

    Raises:
        TypeError: `source` holds something that is not a `Tool`.
        DuplicateToolError: Two of the tools have one name.
    """
    from toolkit.sets._toolset import ToolSet

    if isinstance(source, ToolSet):
        return source
    return ToolSet(as_tools(source))


def build_server(
    toolset: ToolSet | Tool[Any, Any] | Iterable[Tool[Any, Any]],
    *,
    name: str = "toolkit",
    version: str = "",
    agent_id: str = "mcp",
    sse_poll: float | None = None,
    cache_ttl: float = DEFAULT_CACHE_TTL,
    cache_scope: Literal["public", "private"] = DEFAULT_CACHE_SCOPE,
    state_key: str | bytes | None = None,
    task_store: Any = None,
    task_ttl: float = DEFAULT_TASK_TTL,
    max_tasks: int | None = DEFAULT_MAX_TASKS,
) -> Any:
    """An `mcp` low-level `Server` that lists and calls the tools of `toolset` (a set, a `Tool` or a list).

    `name` and `version` are the `serverInfo` that clients are told. With
    `sse_poll`, a call's event stream is ended every `sse_poll` seconds while
    its tool runs, where the transport lets it (a client that can resume).
    `cache_ttl` (seconds) and `cache_scope` are the caching hints of
    the lists (`tools/list` and the empty others) for 2026-07-28 clients; `state_key` (32 bytes or more,
    shared by every worker) seals the `requestState` of input-required
    results (default: a key of this process only). See `_modern`.
    `task_store` (a `TaskStore`; default, in memory) keeps the tasks of the
    tools declared `task=...`, each for `task_ttl` seconds; a client has
    `max_tasks` live tasks at most in this process (None: no limit). See `_tasks`.

    A tool failure (bad arguments, an exception, a timeout) is a result with
    `isError: true`; an unknown tool name is a JSON-RPC error (-32602).

    The set's `Prompt`s (`@prompt`, see `_prompts`) are served as prompts;
    when the set holds one as the server is built, `tools/list` and
    `tools/call` leave every `Prompt` out (a set served without one is
    served as it is, at no cost). The server serves no
    resources, and answers their list methods as the SDK's own `MCPServer`
    does when it has none: `resources/list` and `resources/templates/list`
    with empty lists (and their caching hints), `resources/read` with "not
    found" (-32602, the URI in the error's `data`). Clients that list
    everything on connecting get no errors.

    When `toolset` has deferred tools, each client loads for itself
    (`_loading.Loading`): `tools/list` gives the eager tools and
    `search_tools`, then what that client's searches loaded.

    Raises:
        ImportError: The `mcp` package is not installed; the message says how to install it.
        TypeError: `toolset` holds something that is not a `Tool`.
    """
    require_mcp()
    toolset = served(toolset)
    import mcp.types as types

    from ._host import on_set_level
    from ._loading import Loading
    from ._prompts import Prompts, is_prompt

    prompts = Prompts(toolset, agent_id)
    if len(prompts.prompts):  # the prompts are served as prompts only
        toolset = toolset.filtered(lambda item: not is_prompt(item))
    handlers = Handlers(
        Loading(toolset),
        Tasks(task_store, ttl=task_ttl, max_tasks=max_tasks),
        agent_id,
        sse_poll,
    )
    server = handlers.loading.server(
        name,
        version=version,
        get_tool_input_schema=handlers.input_schema,
        lifespan=handlers.tasks.lifespan,
        cache_hints=cache_hints(cache_ttl, cache_scope),
        on_list_tools=handlers.list_tools,
        on_call_tool=handlers.call_tool,
        on_list_prompts=prompts.list,
        on_get_prompt=prompts.get,
        on_list_resources=_no_resources,
        on_list_resource_templates=_no_resource_templates,
        on_read_resource=_unknown_resource,
    )
    # First, so that the SDK's tracing, which reads the trace context of
    # `_meta` before any other middleware runs, sees only text there.
    server.middleware.insert(0, _textual_trace_context)
    protect_state(server, name, state_key)
    handlers.tasks.register(server)
    # Registered here rather than as on_set_logging_level, which the SDK warns
    # about (the logging capability is deprecated from 2026-07-28); the handler
    # also makes the server declare the logging capability.
    server.add_request_handler(
        "logging/setLevel", types.SetLevelRequestParams, on_set_level
    )
    return server


class Handlers:
    """The `tools/list` and `tools/call` handlers of a served set, and what they share."""

    def __init__(
        self, loading: Loading, tasks: Tasks, agent_id: str, sse_poll: float | None
    ) -> None:
        self.loading = loading
        self.tasks = tasks
        self.agent_id = agent_id
        self.sse_poll = sse_poll

    async def list_tools(self, ctx: Any, params: Any) -> Any:
        """The tools the client of `ctx` sees, in the form of its protocol generation."""
        import mcp.types as types

        from toolkit.providers.mcp import tools

        made = tools(self.loading.of(ctx), modern=is_modern(ctx))
        return types.ListToolsResult(
            tools=[types.Tool.model_validate(item) for item in made]
        )

    async def call_tool(self, ctx: Any, params: Any) -> Any:
        """Run the named tool for the client of `ctx`: a `CallToolResult`, a task, or a question first."""
        from mcp.shared.exceptions import MCPError
        from mcp_types import INVALID_PARAMS

        from ._host import McpHost

        loading = self.loading  # a set without deferred tools is served as it is
        served = loading.of(ctx) if loading.deferred else loading.toolset
        tool = served._callable(params.name)
        if tool is None:  # a JSON-RPC error, as the MCP spec says
            raise MCPError(INVALID_PARAMS, served._unknown(params.name))
        request_id = getattr(ctx, "request_id", None)
        call_id = str(request_id) if request_id is not None else mint_id()
        host = McpHost(ctx, params)
        loaded = served.loaded if loading.deferred else ()
        call = served.aexecute(
            self.agent_id, call_id, params.name, params.arguments or {}, host=host
        )
        finish = functools.partial(_finish, ctx, host, params.name, tool)
        if tool.task is not None and self.tasks.negotiated(ctx):
            return await self.tasks.call(host, call, finish)
        if tool.task == "required":  # a client without the extension is refused
            self.tasks.refuse_required(tool, call, ctx)
        outcome = await self.run(ctx, call, params.name)
        if loading.deferred and served.loaded != loaded:  # search_tools loaded some
            outcome = await self.loading.loaded(ctx, served, outcome)
        return finish(outcome)

    async def run(self, ctx: Any, call: Any, name: str) -> ToolResult:
        """Await `call`, the tool `name` running for the request of `ctx`.

        Over HTTP the request's record (`_sessions.Request`) holds the call,
        so that the app can stop it when the client leaves and does not
        come back for the answer: the result then says so. With `sse_poll`
        (the transport gives `close_sse_stream` only to requests whose
        client can resume), the request's event stream is ended every
        `sse_poll` seconds while the call runs: the client reconnects with
        `Last-Event-ID` and is sent the answer, and no connection stays
        open longer, whatever the tool takes. A `KeyboardInterrupt` that
        the tool raised is its error result; a real interrupt of the server
        is a signal, which stops it without raising here.
        """
        import anyio

        from ._sessions import current_request

        seconds = self.sse_poll
        close = getattr(ctx, "close_sse_stream", None) if seconds else None
        request = current_request.get()
        outcome: ToolResult | None = None
        with anyio.CancelScope() as scope:
            if request is not None:
                request.calls.add(scope)
                if request.left:
                    scope.cancel()
            try:
                async with anyio.create_task_group() as group:
                    if close is not None and seconds is not None:
                        group.start_soon(_poll, close, seconds, request)
                    outcome = await _uninterrupted(call, name)
                    group.cancel_scope.cancel()
            finally:
                if request is not None:
                    request.calls.discard(scope)
        if scope.cancel_called or outcome is None:
            return ToolResult.error(
                f'Tool "{name}" was stopped: its client left before the answer.'
            )
        return outcome

    def input_schema(self, tool_name: str) -> Any:
        """What the transport checks a call's `Mcp-Param-*` headers against."""
        tool = self.loading.toolset.get(tool_name)
        return tool.parameters if tool is not None else None


TRACE_CONTEXT: Final = ("traceparent", "tracestate", "baggage")
"""The `_meta` keys of W3C trace context, which the SDK's tracing reads (text, as HTTP headers)."""


async def _textual_trace_context(ctx: Any, call_next: Any) -> Any:
    """Leave out of `_meta` the trace context keys whose values are not text.

    Trace context is a hint: one that is no text (`"baggage": 5`) is
    ignored, as a malformed one is; the propagator the SDK calls raises on
    it, which failed the request with an internal error.
    """
    import dataclasses

    meta = ctx.meta
    if isinstance(meta, dict) and any(
        key in meta and not isinstance(meta[key], str) for key in TRACE_CONTEXT
    ):
        kept = {
            key: value
            for key, value in meta.items()
            if key not in TRACE_CONTEXT or isinstance(value, str)
        }
        ctx = dataclasses.replace(ctx, meta=kept)
    return await call_next(ctx)


async def _no_resources(ctx: Any, params: Any) -> Any:
    import mcp.types as types

    return types.ListResourcesResult(resources=[])


async def _no_resource_templates(ctx: Any, params: Any) -> Any:
    import mcp.types as types

    return types.ListResourceTemplatesResult(resource_templates=[])


async def _unknown_resource(ctx: Any, params: Any) -> Any:
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    uri = str(params.uri)
    raise MCPError(INVALID_PARAMS, f"Resource not found: {uri}", data={"uri": uri})


def _finish(
    ctx: Any,
    host: McpHost,
    name: str,
    tool: Tool[Any, Any],
    outcome: ToolResult,
) -> Any:
    """What a call answers: its result, or (2026-07-28) the question the client answers first."""
    if host.missing is not None:  # 2026-07-28: a question the client cannot take
        raise host.missing_capability()
    if host.pending:  # 2026-07-28: a question that the client answers first
        return host.input_required()
    # The protocol generation shapes structuredContent alone.
    shaped = tool.output_schema is not None or outcome.structured is not None
    return _call_tool_result(name, outcome, tool, shaped and is_modern(ctx))


async def _uninterrupted(call: Any, name: str) -> ToolResult:
    try:
        outcome: ToolResult = await call
    except KeyboardInterrupt as error:
        log_failure("Tool %r raised KeyboardInterrupt", name, error=error)
        return ToolResult.error(f'Tool "{name}" raised KeyboardInterrupt.')
    return outcome


async def _poll(close: Any, seconds: float, request: Any) -> None:
    import anyio

    while True:
        await anyio.sleep(seconds)
        if request is not None:
            request.cut = True
        await close()


def _call_tool_result(
    name: str,
    outcome: ToolResult,
    tool: Tool[Any, Any] | None,
    modern: bool = False,
) -> Any:
    """The SDK's `CallToolResult`; a result it cannot carry is an `isError` result.

    A `ToolResult` that a tool built itself may hold `structured` data that
    is not JSON (a cycle, an object, nesting deeper than the SDK serialises):
    the client gets an error result, not a JSON-RPC error.
    """
    import mcp.types as types

    from toolkit.providers.mcp import result

    try:
        if not outcome.is_error and outcome.structured is not None:
            try:
                to_jsonable(outcome.structured)
            except TooDeep:
                raise
            except (TypeError, ValueError):  # leaves JSON cannot hold: their str()
                data = to_jsonable(outcome.structured, loose=True)
                outcome = ToolResult(
                    outcome.text, False, outcome.ui, data, outcome.content
                )
        made = result(outcome, tool, modern=modern)
        return types.CallToolResult.model_validate(made)
    except BaseException as error:  # this call's failure, not the session's
        log_failure("The result of tool %r cannot be sent over MCP", name, error=error)
        reason = (
            safe_text(error) if isinstance(error, (TypeError, ValueError)) else None
        )
        text = f'Tool "{name}" returned a result that cannot be sent over MCP: {reason or error_text(error)}'
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], is_error=True
        )


async def serve_stdio(server: Any) -> None:
    """Run `server` over stdin and stdout until stdin closes, SIGTERM or SIGINT."""
    import signal

    import anyio
    from mcp.server.stdio import stdio_server

    async with anyio.create_task_group() as group:

        async def stop_on_signal() -> None:
            with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
                async for _ in signals:
                    group.cancel_scope.cancel()
                    return

        group.start_soon(stop_on_signal)
        async with _stdin_lines() as lines:
            taken: deque[str] = deque()
            counted: Any = _counted(lines, taken) if lines is not None else None
            async with (
                stdio_server(stdin=counted) as (read, write),
                _answering_broken_lines(read, write, taken, lines is not None) as read,
            ):
                try:
                    await server.run(
                        read, write, server.create_initialization_options()
                    )
                finally:
                    # While serving, descriptor 1 is stderr: what tools printed and
                    # Python still buffers goes there too, not to the protocol.
                    with contextlib.suppress(Exception):
                        sys.stdout.flush()
        group.cancel_scope.cancel()


async def _counted(lines: Any, taken: deque[str]) -> AsyncIterator[str]:
    """`lines`, each noted in `taken` as the SDK takes it (it makes one message or one error of each)."""
    async for line in lines:
        taken.append(line)
        yield line


@contextlib.asynccontextmanager
async def _answering_broken_lines(
    read: Any, write: Any, taken: deque[str], counted: bool
) -> AsyncIterator[Any]:
    """The SDK's stream of messages read from stdin, where each line it could not read is answered.

    The SDK's stdio transport passes the server an exception for such a
    line, which the server only logs: a client that sent a request it
    cannot read (not JSON, nested too deeply, `params` that are no object)
    would wait for an answer forever. Over HTTP the SDK answers those with
    -32700 or -32600, and so does this, with the request's id when it has
    one. A blank line is no message, and gets no answer. `taken` holds the
    lines the SDK took and has not passed on yet (`counted`: when toolkit
    reads stdin, else the stream is left as it is).
    """
    import anyio

    if not counted:
        yield read
        return
    forward, messages = anyio.create_memory_object_stream[Any](0)

    async def sort() -> None:
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            async with forward:
                async for item in read:
                    line = taken.popleft() if taken else ""
                    if not isinstance(item, Exception):
                        await forward.send(item)
                    elif line.strip():
                        await write.send(_unreadable(line))

    async with anyio.create_task_group() as group, messages:
        group.start_soon(sort)
        yield messages
        group.cancel_scope.cancel()


def _unreadable(line: str) -> Any:
    """The JSON-RPC error that answers a line of stdin that is no JSON-RPC message."""
    import json

    from mcp.shared.message import SessionMessage
    from mcp.types import ErrorData, JSONRPCError
    from mcp_types import INVALID_REQUEST, PARSE_ERROR

    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        error = ErrorData(
            code=PARSE_ERROR,
            message="Parse error: the line is no JSON the server can read",
        )
        return SessionMessage(JSONRPCError(jsonrpc="2.0", id=None, error=error))
    given = message.get("id") if isinstance(message, dict) else None
    request_id = (
        given if isinstance(given, (str, int)) and not isinstance(given, bool) else None
    )
    error = ErrorData(
        code=INVALID_REQUEST,
        message="Invalid request: not a JSON-RPC 2.0 request or notification object",
    )
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=request_id, error=error))


@contextlib.asynccontextmanager
async def _stdin_lines() -> AsyncIterator[Any]:
    """Lines of stdin read by asyncio's pipe reader, so that SIGTERM can end the wait.

    The SDK's default reader blocks a thread in `readline`, which no
    cancellation interrupts: the server would outlive SIGTERM until stdin
    closed. asyncio reads a pipe, a socket or a terminal on POSIX; for
    anything else (a file, or Windows) this gives None, and the SDK's reader
    is kept.
    """
    import asyncio

    try:
        fd = sys.stdin.fileno()
        mode = os.fstat(fd).st_mode
    except (AttributeError, OSError, ValueError):  # no stdin, or not a real one
        fd, mode = -1, 0
    watched = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or (fd >= 0 and os.isatty(fd))
    if not watched or sys.platform == "win32":
        yield None
        return
    reader = asyncio.StreamReader(limit=_MAX_LINE)
    transport, _ = await asyncio.get_running_loop().connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(os.dup(fd), "rb", 0)
    )
    try:
        yield (line.decode("utf-8", "replace") async for line in reader)
    finally:
        transport.close()
        with contextlib.suppress(OSError):
            os.set_blocking(fd, True)  # for what runs after, on the same stdin


_MAX_LINE: Final = 2**30
"""Bytes of one line of stdin at most: a message with large content parts is one line."""
