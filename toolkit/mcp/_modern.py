"""What the server does for clients of MCP 2026-07-28 beyond 2025-11-25.

- Schemas and structured content: a 2026-07-28 `outputSchema` may be any
  JSON Schema and `structuredContent` any JSON value, so these clients get
  a tool's output schema and value as they are, where 2025-11-25 clients
  get them wrapped as `{"result": ...}` (their `outputSchema` must be an
  object schema): `toolkit.providers.mcp` makes both forms (`modern=True`).
- Caching hints: `tools/list` carries `ttlMs` and `cacheScope`, how long a
  client may keep the list and whether a shared cache may hold it. A
  `ToolSet` that changes while served should be served with a short `ttl`.
  The (empty) lists of prompts, resources and resource templates carry
  the same hints.
- The `requestState` of an input-required result is sealed (encrypted and
  authenticated) under a key, and every state a client sends back is
  checked before the tool sees it: a state changed, expired or minted for
  another call is refused with a JSON-RPC error (-32602). Workers that share
  the key accept each other's states, so a stateless deployment can take a
  call's next round on any worker. The SDK's `RequestStateBoundary` does the
  sealing; this module gives it the key.
"""

from __future__ import annotations

from typing import Any, Final, Literal

__all__ = [
    "DEFAULT_CACHE_SCOPE",
    "DEFAULT_CACHE_TTL",
    "cache_hints",
    "is_modern",
    "protect_state",
]

DEFAULT_CACHE_TTL: Final = 60.0
"""Seconds a client may keep a `tools/list` result before asking again."""

DEFAULT_CACHE_SCOPE: Final = "public"
"""The tools list is the same for every client, so shared caches may keep it."""

MIN_STATE_KEY: Final = 32
"""Bytes a `requestState` key has at least."""

LISTS: Final = (
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
)
"""The list methods the server answers, each with the caching hints."""


def is_modern(ctx: Any) -> bool:
    """Whether the request comes from a client of protocol 2026-07-28 or later."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS


def cache_hints(ttl: float, scope: Literal["public", "private"]) -> dict[str, Any]:
    """The SDK's `cache_hints` for the list methods: kept for `ttl` seconds, in caches of `scope`.

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
    hint = CacheHint(ttl_ms=round(ttl * 1000), scope=scope)
    return dict.fromkeys(LISTS, hint)


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
