"""Model Context Protocol: `Tool` definitions, `tools/call` params, `CallToolResult`s.

```python
from toolkit.providers import mcp as provider

provider.tools(toolset)                          # the `tools` of a tools/list result
await provider.handle(toolset, "agent-1", params)   # CallToolResult dicts for tools/call params
```

The wire form (`outputSchema` an object schema, a tool failure an
`isError` result) is `_wire`'s.

`connect(target)` is the other side: an MCP server's tools as a live
`ToolSet` (see `connect`).

`DPoPAuth(inner)` and `WorkloadIdentityAuth(...)` are `auth=` for
`connect`: DPoP-bound tokens (RFC 9449) around another auth, and the
JWT-bearer grant (RFC 7523) for a workload's identity token.

`serve(toolset)` runs an MCP server with the official `mcp` SDK (the
`toolkit-llm[mcp]` extra, imported only then): over stdio, or over streamable
HTTP with `serve(toolset, http="127.0.0.1:8000")`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._wire import (  # lint: the provider table's rules, not a name to import
    definition,
    handle,
    parse_calls,
    problems,
    result,
    results,
    tools,
)

if TYPE_CHECKING:
    from ._app import asgi_app
    from ._client import connect
    from ._dpop import DPoPAuth
    from ._run import parse_address, serve
    from ._server import build_server
    from ._workload import WorkloadIdentityAuth

__all__ = [
    "DPoPAuth",
    "WorkloadIdentityAuth",
    "asgi_app",
    "build_server",
    "connect",
    "definition",
    "handle",
    "parse_address",
    "parse_calls",
    "problems",
    "result",
    "results",
    "serve",
    "tools",
]

_LATER = {
    "DPoPAuth": "_dpop",
    "WorkloadIdentityAuth": "_workload",
    "asgi_app": "_app",
    "build_server": "_server",
    "connect": "_client",
    "parse_address": "_run",
    "serve": "_run",
}


def __getattr__(name: str) -> Any:
    """The client and the server, imported when first asked for.

    The provider table imports the wire form (`_wire`) from this package,
    which runs this module: it stays as light as the wire form alone.
    """
    module = _LATER.get(name)
    if module is None:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    import importlib

    found = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = found
    return found
