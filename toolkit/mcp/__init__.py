"""Model Context Protocol: serve a `ToolSet`, connect to any MCP server, and the wire form.

```python
from toolkit import mcp

mcp.serve(toolset)                               # stdio; http="127.0.0.1:8000" for streamable HTTP
async with mcp.connect("python server.py") as remote:   # an MCP server's tools as a live ToolSet
    ...
mcp.tools(toolset)                               # the `tools` of a tools/list result
```

`@mcp.prompt` makes a function an MCP prompt, which `serve` lists and gets
beside the tools (see `_prompts`).

The wire form (`tools`, `parse_calls`, `results`, `handle`: `outputSchema`
an object schema, a tool failure an `isError` result) is
`toolkit.providers.mcp`'s, the module `ToolSet.export("mcp")` uses; this
package offers it beside the server and the client.

`DPoPAuth(inner)` and `WorkloadIdentityAuth(...)` are `auth=` for
`connect`: DPoP-bound tokens (RFC 9449) around another auth, and the
JWT-bearer grant (RFC 7523) for a workload's identity token.

`serve`, `asgi_app` and `build_server` use the official `mcp` SDK (the
`toolkit-llm[mcp]` extra), imported only when first asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from toolkit.providers.mcp import (
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
    from ._prompts import Prompt, prompt
    from ._run import parse_address, serve
    from ._server import build_server
    from ._workload import WorkloadIdentityAuth

__all__ = [
    "DPoPAuth",
    "Prompt",
    "WorkloadIdentityAuth",
    "asgi_app",
    "build_server",
    "connect",
    "definition",
    "handle",
    "parse_address",
    "parse_calls",
    "problems",
    "prompt",
    "result",
    "results",
    "serve",
    "tools",
]

_LATER = {
    "DPoPAuth": "_dpop",
    "Prompt": "_prompts",
    "prompt": "_prompts",
    "WorkloadIdentityAuth": "_workload",
    "asgi_app": "_app",
    "build_server": "_server",
    "connect": "_client",
    "parse_address": "_run",
    "serve": "_run",
}


def __getattr__(name: str) -> Any:
    """The client and the server, imported when first asked for.

    `from toolkit import mcp` stays as light as the wire form until the
    server or the client is used: they import the `mcp` SDK.
    """
    module = _LATER.get(name)
    if module is None:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    import importlib

    found = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = found
    return found
