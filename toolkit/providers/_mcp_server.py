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

from toolkit._execute import error_text, safe_text
from toolkit._json import to_jsonable
from toolkit._log import log_failure
from toolkit._results import ToolResult
from toolkit._tool import Tool

from ._common import mint_id

if TYPE_CHECKING:
    from toolkit._toolset import ToolSet


_INSTALL_HINT = (
    'Serving over MCP needs the `mcp` package: pip install "toolkit-llm[mcp]"'
)


def _require_mcp() -> None:
    try:
        import mcp  # noqa: F401  # only to see that it is there
    except ImportError:
        raise ImportError(_INSTALL_HINT) from None


def build_server(
    toolset: ToolSet, *, name: str = "toolkit", agent_id: str = "mcp"
) -> Any:
    """An `mcp` low-level `Server` that lists and calls the tools of `toolset`.

    A tool failure (bad arguments, an exception, a timeout) is a result with
    `isError: true`; an unknown tool name is a JSON-RPC error (-32602).

    Raises:
        ImportError: The `mcp` package is not installed; the message says how to install it.
    """
    _require_mcp()
    import mcp.types as types
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError

    invalid_params = (
        -32602
    )  # JSON-RPC "Invalid params", as the MCP spec uses for an unknown tool

    from ._mcp_host import McpHost, on_set_level
    from .mcp import tools

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
        outcome = await toolset.aexecute(
            agent_id, call_id, params.name, params.arguments or {}, host=host
        )
        if (
            host.pending
        ):  # 2026-07-28: the tool asked a question the client answers first
            return host.input_required()
        return _call_tool_result(types, params.name, outcome, toolset.get(params.name))

    server = Server(name, on_list_tools=on_list_tools, on_call_tool=on_call_tool)
    # Registered here rather than as on_set_logging_level, which the SDK warns
    # about (the logging capability is deprecated from 2026-07-28); the handler
    # also makes the server declare the logging capability.
    server.add_request_handler(
        "logging/setLevel", types.SetLevelRequestParams, on_set_level
    )
    return server


def _call_tool_result(
    types: Any, name: str, outcome: ToolResult, tool: Tool[Any, Any] | None
) -> Any:
    """The SDK's `CallToolResult`; a result it cannot carry is an `isError` result.

    A `ToolResult` that a tool built itself may hold `structured` data that
    is not JSON (a cycle, an object, nesting deeper than the SDK serialises):
    the client gets an error result, not a JSON-RPC error.
    """
    from .mcp import result

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


def parse_address(http: str) -> tuple[str, int]:
    """`"HOST:PORT"` or `":PORT"` or `"PORT"` → (host, port); the host defaults to 127.0.0.1.

    Raises:
        ValueError: The port is not a number from 1 to 65535.
    """
    host, _, port = http.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        msg = f"--http {http!r}: give HOST:PORT, for example 127.0.0.1:8000"
        raise ValueError(msg)
    return host, int(port)


def serve(toolset: ToolSet, http: str | None = None, *, name: str = "toolkit") -> None:
    """Serve `toolset` over MCP until stdin closes, SIGTERM or Ctrl-C.

    Args:
        toolset: The tools to serve.
        http: None for stdio; `"HOST:PORT"` for streamable HTTP at `/mcp`
            (the host defaults to 127.0.0.1, loopback only).
        name: The server name reported to clients.

    Raises:
        ImportError: The `mcp` package is not installed.
        ValueError: `http` is not a valid address.
    """
    _require_mcp()
    address = parse_address(http) if http is not None else None
    import anyio

    anyio.run(_serve, toolset, address, name)


async def _serve(toolset: ToolSet, address: tuple[str, int] | None, name: str) -> None:
    import signal

    import anyio

    server = build_server(toolset, name=name)
    async with anyio.create_task_group() as group:

        async def stop_on_sigterm() -> None:
            with anyio.open_signal_receiver(signal.SIGTERM) as signals:
                async for _ in signals:
                    group.cancel_scope.cancel()
                    return

        group.start_soon(stop_on_sigterm)
        if address is None:
            await _serve_stdio(server)
        else:
            await _serve_http(server, *address)
        group.cancel_scope.cancel()


async def _serve_stdio(server: Any) -> None:
    from mcp.server.stdio import stdio_server

    lines = _StdinLines.open()
    try:
        async with stdio_server(stdin=lines) as (read, write):
            await server.run(read, write, server.create_initialization_options())
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


async def _serve_http(server: Any, host: str, port: int) -> None:
    import uvicorn

    app = server.streamable_http_app(host=host)
    config = uvicorn.Config(
        app, host=host, port=port, log_level="warning", lifespan="on"
    )
    await uvicorn.Server(config).serve()
