"""What the client's auths (`DPoPAuth`, `WorkloadIdentityAuth`) share: an async flow, and JSON answers."""

from __future__ import annotations

import json
from collections.abc import Generator
from typing import Any

import httpx2

__all__ = ["AsyncAuth", "json_object"]


class AsyncAuth(httpx2.Auth):
    """An `httpx2.Auth` whose flow awaits: the sync `httpx2.Client` is refused."""

    def sync_auth_flow(
        self, request: httpx2.Request
    ) -> Generator[httpx2.Request, httpx2.Response, None]:
        """Refused: the flow awaits; use `httpx2.AsyncClient` (`mcp.connect` does)."""
        msg = f"{type(self).__name__} works with httpx2.AsyncClient (as mcp.connect uses), not the sync Client"
        raise RuntimeError(msg)


async def json_object(response: httpx2.Response) -> dict[str, Any] | None:
    """The JSON object that `response`'s body holds (read in full first); None for any other body."""
    await response.aread()
    try:
        body = json.loads(response.content)
    except ValueError:  # not JSON, or not text
        return None
    return body if isinstance(body, dict) else None
