"""`serve`: run the MCP server over stdio or streamable HTTP, as the command line does.

Above both transports: the server itself (`_mcp_server`) and the HTTP app
and its process management (`_mcp_http`) know nothing of each other.
"""

from __future__ import annotations

import pathlib
from typing import TYPE_CHECKING, Any

from toolkit._target import TargetError, load_target, split_target
from toolkit._version import __version__

from ._http import (
    DEFAULT_GRACE,
    Plan,
    check_exposure,
    configure_logging,
    import_path,
    parse_address,
    run,
)
from ._server import build_server, require_mcp, serve_stdio

if TYPE_CHECKING:
    from toolkit._toolset import ToolSet

__all__ = ["serve"]


def serve(
    toolset: ToolSet | str,
    http: str | None = None,
    *,
    name: str | None = None,
    version: str | None = None,
    workers: int = 1,
    grace: float = DEFAULT_GRACE,
    log_level: str = "warning",
    no_auth: bool = False,
    **options: Any,
) -> None:
    """Serve `toolset` over MCP until stdin closes, SIGTERM or Ctrl-C.

    Over HTTP, a line on stderr says where and how; SIGTERM lets the calls
    in flight finish (for up to `grace` seconds) and returns.

    Args:
        toolset: The tools to serve, or the `module:attribute` or
            `path/to/file.py:attribute` that names them (workers import it).
        http: None for stdio; `"HOST:PORT"` for streamable HTTP at `/mcp`
            (the host defaults to 127.0.0.1, loopback only).
        name: `serverInfo.name` (default: the target's module name, else
            `"toolkit"`).
        version: `serverInfo.version` (default: toolkit's version).
        workers: Worker processes sharing the port; more than one needs
            `stateless=True` and a target the workers can import.
        grace: Seconds SIGTERM waits for calls in flight.
        log_level: `"debug"` (tracebacks too), `"info"` (a line per request),
            `"warning"` or `"error"`; the lines go to stderr.
        no_auth: Serve a non-loopback address without `auth`, on purpose
            (something in front of the server authenticates its clients).
        **options: The options of `asgi_app` (`stateless`, `json_response`,
            `allowed_hosts`, `allowed_origins`, `auth`, `auth_settings`,
            `max_body`, `max_sessions`, `session_idle_timeout`, `resumable`,
            `sse_poll`).

    Raises:
        ImportError: The `mcp` package is not installed.
        ValueError: `http` is not a valid address, an option is out of
            range, or a non-loopback address would be served without auth.
        OSError: The address cannot be served (a port in use).
    """
    require_mcp()
    target = toolset if isinstance(toolset, str) else None
    tools = _load(toolset)
    name = name or (_target_name(target) if target else "toolkit")
    if http is None:
        if workers != 1 or options:
            given = sorted([*options, *(["workers"] if workers != 1 else [])])
            msg = f"{', '.join(given)}: options of HTTP serving; give http= too"
            raise ValueError(msg)
        configure_logging(log_level)
        import anyio

        anyio.run(
            serve_stdio, build_server(tools, name=name, version=version or __version__)
        )
        return
    host, port = parse_address(http)
    check_exposure(host, options.get("auth"), no_auth)
    if workers < 1:
        msg = f"workers must be 1 or more, not {workers}"
        raise ValueError(msg)
    if workers > 1 and not options.get("stateless"):
        msg = (
            "workers need stateless=True (--stateless): a session lives in one worker, "
            "and the next request of its client may reach another"
        )
        raise ValueError(msg)
    if workers > 1 and target is None:
        target = import_path(tools)
    plan = Plan(
        host,
        port,
        {"name": name, "version": version, **options},
        target=target,
        workers=workers,
        grace=grace,
        log_level=log_level,
    )
    configure_logging(log_level)
    run(tools, plan)


def _load(toolset: ToolSet | str) -> ToolSet:
    if not isinstance(toolset, str):
        return toolset
    try:
        return load_target(toolset)
    except TargetError as error:
        raise ValueError(str(error)) from None


def _target_name(target: str) -> str:
    """`path/to/tools.py:tools` → `tools`; `pkg.tools` → `pkg.tools`."""
    location = split_target(target)[0]
    return pathlib.Path(location).stem if location.endswith(".py") else location
