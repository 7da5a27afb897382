"""The MCP server: the official `mcp` SDK serving a `ToolSet` over stdio or HTTP.

The wire forms (`definition`, `result`, `tools`) live in `toolkit.providers.mcp`,
which re-exports `build_server`, `serve` and `parse_address` from here.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
from typing import TYPE_CHECKING, Any

from toolkit._json import to_jsonable
from toolkit._log import log_failure
from toolkit._results import ToolResult, error_text, safe_text
from toolkit._tool import Tool
from toolkit.providers._common import mint_id

if TYPE_CHECKING:
    from toolkit._toolset import ToolSet


_INSTALL_HINT = (
    'Serving over MCP needs the `mcp` package: pip install "toolkit-llm[mcp]"'
)


def require_mcp() -> None:
    """Raise ImportError, saying how to install it, when `mcp` is missing."""
    try:
        import mcp  # noqa: F401  # only to see that it is there
    except ImportError:
        raise ImportError(_INSTALL_HINT) from None


def build_server(
    toolset: ToolSet,
    *,
    name: str = "toolkit",
    version: str = "",
    agent_id: str = "mcp",
    sse_poll: float | None = None,
) -> Any:
    """An `mcp` low-level `Server` that lists and calls the tools of `toolset`.

    `name` and `version` are the `serverInfo` that clients are told. With
    `sse_poll`, a call's event stream is ended every `sse_poll` seconds while
    its tool runs, where the transport lets it (a client that can resume).

    A tool failure (bad arguments, an exception, a timeout) is a result with
    `isError: true`; an unknown tool name is a JSON-RPC error (-32602).

    Raises:
        ImportError: The `mcp` package is not installed; the message says how to install it.
    """
    require_mcp()
    import mcp.types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    invalid_params = (
        -32602
    )  # JSON-RPC "Invalid params", as the MCP spec uses for an unknown tool

    from ._host import McpHost, on_set_level
    from ._wire import tools

    async def on_list_tools(ctx: Any, params: Any) -> Any:
        return types.ListToolsResult(
            tools=[types.Tool.model_validate(item) for item in tools(toolset)]
        )

    async def on_call_tool(ctx: Any, params: Any) -> Any:
        if params.name not in toolset:
            raise MCPError(invalid_params, toolset._unknown(params.name))
        request_id = getattr(ctx, "request_id", None)
        call_id = str(request_id) if request_id is not None else mint_id()
        host = McpHost(ctx, params)
        call = toolset.aexecute(
            agent_id, call_id, params.name, params.arguments or {}, host=host
        )
        close = getattr(ctx, "close_sse_stream", None) if sse_poll else None
        outcome = await (call if close is None else _polled(call, close, sse_poll))
        if (
            host.pending
        ):  # 2026-07-28: the tool asked a question the client answers first
            return host.input_required()
        return _call_tool_result(types, params.name, outcome, toolset.get(params.name))

    server = Server(
        name, version=version, on_list_tools=on_list_tools, on_call_tool=on_call_tool
    )
    # Registered here rather than as on_set_logging_level, which the SDK warns
    # about (the logging capability is deprecated from 2026-07-28); the handler
    # also makes the server declare the logging capability.
    server.add_request_handler(
        "logging/setLevel", types.SetLevelRequestParams, on_set_level
    )
    return server


async def _polled(call: Any, close: Any, seconds: Any) -> ToolResult:
    """Await `call`, ending its event stream every `seconds` meanwhile.

    The transport gives `close` only to requests whose client can resume
    (it sent them the priming event); the client reconnects with
    `Last-Event-ID` and is sent the answer. This is SSE polling: no
    connection stays open longer than `seconds`, whatever the tool takes.
    """
    import anyio

    async def poll() -> None:
        while True:
            await anyio.sleep(seconds)
            await close()

    async with anyio.create_task_group() as group:
        group.start_soon(poll)
        try:
            outcome: ToolResult = await call
        finally:
            group.cancel_scope.cancel()
    return outcome


def _call_tool_result(
    types: Any, name: str, outcome: ToolResult, tool: Tool[Any, Any] | None
) -> Any:
    """The SDK's `CallToolResult`; a result it cannot carry is an `isError` result.

    A `ToolResult` that a tool built itself may hold `structured` data that
    is not JSON (a cycle, an object, nesting deeper than the SDK serialises):
    the client gets an error result, not a JSON-RPC error.
    """
    from ._wire import result

    try:
        if not outcome.is_error and outcome.structured is not None:
            to_jsonable(outcome.structured)
        return types.CallToolResult.model_validate(result(outcome, tool))
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # this call's failure, not the session's
        log_failure("The result of tool %r cannot be sent over MCP", name, error=error)
        reason = (
            safe_text(error) if isinstance(error, (TypeError, ValueError)) else None
        )
        text = f'Tool "{name}" returned a result that cannot be sent over MCP: {reason or error_text(error)}'
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], isError=True
        )


async def serve_stdio(server: Any) -> None:
    """Run `server` over stdin and stdout until stdin closes or SIGTERM."""
    import signal

    import anyio

    async with anyio.create_task_group() as group:

        async def stop_on_sigterm() -> None:
            with anyio.open_signal_receiver(signal.SIGTERM) as signals:
                async for _ in signals:
                    group.cancel_scope.cancel()
                    return

        group.start_soon(stop_on_sigterm)
        await _serve_stdio(server)
        group.cancel_scope.cancel()


async def _serve_stdio(server: Any) -> None:
    from mcp.server.stdio import stdio_server

    lines = _StdinLines.open()
    try:
        async with stdio_server(stdin=lines) as (read, write):
            try:
                await server.run(read, write, server.create_initialization_options())
            finally:
                # While serving, descriptor 1 is stderr: what tools printed and
                # Python still buffers goes there too, not to the protocol.
                with contextlib.suppress(Exception):
                    sys.stdout.flush()
    finally:
        if lines is not None:
            lines.close()


class _StdinLines:
    """Lines of stdin read without a worker thread, so that SIGTERM can end the wait.

    The SDK's default reader blocks a thread in `readline`, which no
    cancellation interrupts: the server would outlive SIGTERM until stdin
    closed. Used where the event loop can watch the descriptor (a pipe, a
    socket or a terminal on POSIX); elsewhere the SDK's reader is kept.
    """

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._buffer = b""
        os.set_blocking(fd, False)

    @classmethod
    def open(cls) -> Any:
        try:
            fd = sys.stdin.fileno()
            mode = os.fstat(fd).st_mode
        except (AttributeError, OSError, ValueError):
            return None
        watchable = stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or os.isatty(fd)
        return cls(fd) if watchable and sys.platform != "win32" else None

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.set_blocking(self._fd, True)

    def __aiter__(self) -> _StdinLines:
        return self

    async def __anext__(self) -> str:
        import anyio

        while b"\n" not in self._buffer:
            await anyio.wait_readable(self._fd)
            try:
                chunk = os.read(self._fd, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                if not self._buffer:
                    raise StopAsyncIteration
                line, self._buffer = self._buffer, b""
                return line.decode("utf-8", "replace")
            self._buffer += chunk
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", "replace") + "\n"
