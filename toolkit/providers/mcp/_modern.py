"""What the server does for clients of MCP 2026-07-28 beyond 2025-11-25.

- Schemas and structured content: a 2026-07-28 `outputSchema` may be any
  JSON Schema and `structuredContent` any JSON value, so these clients get
  a tool's output schema and value as they are, where 2025-11-25 clients
  get them wrapped as `{"result": ...}` (their `outputSchema` must be an
  object schema).
- Caching hints: `tools/list` carries `ttlMs` and `cacheScope`, how long a
  client may keep the list and whether a shared cache may hold it. A
  `ToolSet` that changes while served should be served with a short `ttl`.
- The `requestState` of an input-required result is sealed (encrypted and
  authenticated) under a key, and every state a client sends back is
  checked before the tool sees it: a state changed, expired or minted for
  another call is refused with a JSON-RPC error (-32602). Workers that share
  the key accept each other's states, so a stateless deployment can take a
  call's next round on any worker. The SDK's `RequestStateBoundary` does the
  sealing; this module gives it the key.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final, Literal

from toolkit._results import ToolResult
from toolkit._schema import inline_root
from toolkit.providers._transform import is_wrapped

if TYPE_CHECKING:
    from toolkit._tool import Tool
    from toolkit._toolset import ToolSet

__all__ = [
    "DEFAULT_CACHE_SCOPE",
    "DEFAULT_CACHE_TTL",
    "cache_hints",
    "is_modern",
    "listed",
    "protect_state",
    "unwrapped",
]

DEFAULT_CACHE_TTL: Final = 60.0
"""Seconds a client may keep a `tools/list` result before asking again."""

DEFAULT_CACHE_SCOPE: Final = "public"
"""The tools list is the same for every client, so shared caches may keep it."""

MIN_STATE_KEY: Final = 32
"""Bytes a `requestState` key has at least."""


def is_modern(ctx: Any) -> bool:
    """Whether the request comes from a client of protocol 2026-07-28 or later."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS


def cache_hints(ttl: float, scope: Literal["public", "private"]) -> dict[str, Any]:
    """The SDK's `cache_hints` for `tools/list`: kept for `ttl` seconds, in caches of `scope`.

    Raises:
        ValueError: `ttl` is negative or `scope` is neither "public" nor "private".
    """
    from mcp.server.caching import CacheHint

    if not isinstance(ttl, (int, float)) or not 0 <= ttl < float("inf"):
        msg = f"cache_ttl must be a number of seconds from 0, not {ttl!r}"
        raise ValueError(msg)
    if scope not in ("public", "private"):
        msg = f'cache_scope must be "public" or "private", not {scope!r}'
        raise ValueError(msg)
    return {"tools/list": CacheHint(ttl_ms=round(ttl * 1000), scope=scope)}


def protect_state(server: Any, name: str, key: str | bytes | None) -> None:
    """Seal the `requestState` of `server`'s input-required results under `key`.

    Without a key, one made now for this process only: states survive no
    restart and reach no other worker.

    Raises:
        ValueError: `key` is shorter than 32 bytes.
    """
    from mcp.server.request_state import RequestStateBoundary, RequestStateSecurity

    if key is None:
        security = RequestStateSecurity.ephemeral()
    else:
        raw = key.encode() if isinstance(key, str) else key
        if len(raw) < MIN_STATE_KEY:
            msg = (
                f"the requestState key must be at least {MIN_STATE_KEY} bytes, not {len(raw)}: "
                'make one with python -c "import secrets; print(secrets.token_hex(32))"'
            )
            raise ValueError(msg)
        security = RequestStateSecurity(keys=[raw])
    server.middleware.append(RequestStateBoundary(security, default_audience=name))


def listed(toolset: ToolSet, modern: bool) -> list[dict[str, Any]]:
    """The `tools` of a `tools/list` result, in the set's order, for a client of either generation."""
    from ._wire import tools

    found = tools(toolset)
    if not modern:
        return found
    return [_unwrapped_definition(toolset.get(item["name"]), item) for item in found]


def _unwrapped_definition(
    item: Tool[Any, Any] | None, made: dict[str, Any]
) -> dict[str, Any]:
    if item is None or not is_wrapped(item.output_schema):
        return made
    assert item.output_schema is not None  # is_wrapped says so
    output = dict(inline_root(item.output_schema))
    wrapped = made["outputSchema"]
    if "description" in wrapped and "description" not in output:
        output["description"] = wrapped["description"]
    return {**made, "outputSchema": output}


def unwrapped(
    made: dict[str, Any], outcome: ToolResult, tool: Tool[Any, Any] | None
) -> dict[str, Any]:
    """A `CallToolResult` dict made for 2025-11-25 clients, as 2026-07-28 clients get it.

    `structuredContent` that was wrapped as `{"result": ...}` only because
    2025-11-25 wants an object is sent as the value itself.
    """
    content = made.get("structuredContent")
    if not isinstance(content, dict) or set(content) != {"result"}:
        return made
    if tool is not None and tool.output_schema is not None:
        wrapped = is_wrapped(tool.output_schema)
    else:
        wrapped = not isinstance(outcome.structured, dict)
    return {**made, "structuredContent": content["result"]} if wrapped else made
