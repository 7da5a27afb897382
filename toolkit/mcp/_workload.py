"""Workload identity federation: the RFC 7523 JWT-bearer grant, for agents without a user.

```python
from toolkit import mcp

auth = mcp.WorkloadIdentityAuth(
    "https://example.com/mcp",
    read_identity_token,                 # a str, or async (audience) -> str
    client_id="my-agent",
    issuer="https://auth.example.com",
)
async with mcp.connect("https://example.com/mcp", auth=auth) as tools:
    ...
```

A workload (a CI job, a pod, a cloud function) holds an identity token
that its platform issued: a signed JWT naming the workload. When the MCP
server answers `401`, `WorkloadIdentityAuth` trades that token for an
access token at the authorization server's token endpoint
(`grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer`, the identity
token as `assertion`) and sends the request again with it. No secret is
kept, no browser is opened.

The authorization server is configuration, not discovery, as with the MCP
SDK's `IdentityAssertionOAuthProvider`: its metadata is read from the
configured issuer's own well-known address, and the identity token goes to
that issuer's token endpoint only, whatever the MCP server says. A refused
grant (`invalid_grant`, `invalid_scope`, `unauthorized_client`, ...) is an
`OAuthTokenError` that quotes the server's error, and it is not tried again
with the same token or with another grant.
"""

from __future__ import annotations

import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any, Final, TypeAlias
from urllib.parse import urlsplit

_INSTALL_HINT: Final = (
    'WorkloadIdentityAuth needs the `mcp` extra: pip install "toolkit-llm[mcp]"'
)

try:
    import anyio
    import httpx2
    from mcp.client.auth import OAuthFlowError, OAuthTokenError
    from mcp.client.auth.utils import (
        build_oauth_authorization_server_metadata_discovery_urls,
        create_oauth_metadata_request,
        extract_field_from_www_auth,
        extract_scope_from_www_auth,
        handle_token_response_scopes,
        issuers_match,
        union_scopes,
    )
    from mcp.shared.auth import JWT_BEARER_GRANT_TYPE, OAuthToken
    from mcp.shared.auth_utils import (
        calculate_token_expiry,
        resource_url_from_server_url,
    )

    from ._auth import AsyncAuth, json_object
except ImportError as error:  # pragma: no cover - the extra is installed in tests
    raise ImportError(_INSTALL_HINT) from error

__all__ = ["Assertion", "WorkloadIdentityAuth"]

Assertion: TypeAlias = str | Callable[[str], Awaitable[str]]
"""The workload's identity token, or an async function of the audience that returns a fresh one."""


class WorkloadIdentityAuth(AsyncAuth):
    """An `httpx2.Auth` that trades the workload's identity token for access tokens (RFC 7523).

    ```python
    auth = mcp.WorkloadIdentityAuth(
        "https://example.com/mcp", identity_token,
        client_id="my-agent", issuer="https://auth.example.com",
    )
    ```

    Args:
        server_url: The MCP server's URL (its `resource` in the token request).
        assertion: The identity token (a JWT whose audience is the
            authorization server), or an async function that takes that
            audience (the issuer) and returns a fresh one, for tokens that
            expire: it is called for each token request.
        client_id: The client's id at the authorization server.
        issuer: The authorization server's issuer URL; its metadata is read
            from there, and the identity token is sent nowhere else.
        scope: The scopes to ask for, space-separated. None: those the MCP
            server's challenge names, if any.

    Raises:
        ValueError: The issuer is not an http(s) URL.
        TypeError: The assertion is neither a str nor a function.
    """

    def __init__(
        self,
        server_url: str,
        assertion: Assertion,
        *,
        client_id: str,
        issuer: str,
        scope: str | None = None,
    ) -> None:
        if urlsplit(issuer).scheme not in ("http", "https"):
            msg = f"WorkloadIdentityAuth: issuer must be the authorization server's http(s) issuer URL, got {issuer!r}"
            raise ValueError(msg)
        if not isinstance(assertion, str) and not callable(assertion):
            # The type only: a token of the wrong type is not repeated.
            msg = f"WorkloadIdentityAuth: assertion must be the identity token (a str) or an async function that returns one, got {type(assertion).__name__}"
            raise TypeError(msg)
        self.server_url = server_url
        self.resource = resource_url_from_server_url(server_url)
        self.client_id = client_id
        self.issuer = issuer
        self.scope = scope
        self.tokens: OAuthToken | None = None
        self.token_endpoint: str | None = None
        self._assertion = assertion
        self._expiry: float | None = None
        self._lock = anyio.Lock()

    def token_request(self, assertion: str, scope: str | None) -> httpx2.Request:
        """The RFC 7523 token request: the grant type, the assertion, the client and the resource."""
        if self.token_endpoint is None:
            msg = "No token endpoint yet: the authorization server's metadata is read first"
            raise OAuthFlowError(msg)
        data = {
            "grant_type": JWT_BEARER_GRANT_TYPE,
            "assertion": assertion,
            "client_id": self.client_id,
            "resource": self.resource,
        }
        if scope:
            data["scope"] = scope
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        return httpx2.Request("POST", self.token_endpoint, data=data, headers=headers)

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        async with self._lock:
            if self._valid():
                self._authorize(request)
            response = yield request
            wanted, scope = self._scope_after(response)
            if not wanted:
                return
            if self.token_endpoint is None:
                for url in build_oauth_authorization_server_metadata_discovery_urls(
                    self.issuer, self.issuer
                ):
                    found = yield create_oauth_metadata_request(url)
                    if await self._read_metadata(found):
                        break
                if self.token_endpoint is None:
                    msg = (
                        f"No authorization server metadata at the issuer {self.issuer}"
                    )
                    raise OAuthFlowError(msg)
            assertion = await self._fresh_assertion()
            answer = yield self.token_request(assertion, scope)
            await self._read_tokens(answer, scope)
            self._authorize(request)
            yield request

    def _valid(self) -> bool:
        return self.tokens is not None and (
            self._expiry is None or time.time() <= self._expiry
        )

    def _authorize(self, request: httpx2.Request) -> None:
        assert self.tokens is not None  # a token was just read, or is valid
        request.headers["Authorization"] = f"Bearer {self.tokens.access_token}"

    def _scope_after(self, response: httpx2.Response) -> tuple[bool, str | None]:
        """Whether `response` calls for a new token, and the scope to ask it for."""
        if response.status_code == 401:
            return True, self.scope or extract_scope_from_www_auth(response)
        if (
            response.status_code == 403
            and extract_field_from_www_auth(response, "error") == "insufficient_scope"
        ):
            granted = self.tokens.scope if self.tokens else self.scope
            return True, union_scopes(granted, extract_scope_from_www_auth(response))
        return False, None

    async def _read_metadata(self, response: httpx2.Response) -> bool:
        """Whether the search for metadata ends here: found, or a server error.

        Only `issuer` and `token_endpoint` are read (RFC 8414), so that the
        metadata of a server without an authorization endpoint is read too.
        """
        if response.status_code >= 500:
            return True
        if response.status_code != 200:
            return False  # not served at this address: the next one
        metadata = await json_object(response)
        if metadata is None:
            return False
        issuer, endpoint = metadata.get("issuer"), metadata.get("token_endpoint")
        if not isinstance(issuer, str) or not isinstance(endpoint, str):
            return False
        if not issuers_match(issuer, self.issuer):
            msg = f"The authorization server metadata at {response.request.url} names the issuer {issuer}, not {self.issuer}"
            raise OAuthFlowError(msg)
        if urlsplit(endpoint).scheme not in ("http", "https"):
            msg = f"The authorization server's token endpoint {endpoint!r} is not an http(s) URL"
            raise OAuthFlowError(msg)
        self.token_endpoint = endpoint
        return True

    async def _fresh_assertion(self) -> str:
        if isinstance(self._assertion, str):
            return self._assertion
        found: Any = await self._assertion(self.issuer)
        if not isinstance(found, str) or not found:
            # The type only: a token of the wrong type is not repeated.
            got = "an empty str" if found == "" else type(found).__name__
            msg = f"WorkloadIdentityAuth: the assertion function must return the identity token, a non-empty str; it returned {got}"
            raise OAuthTokenError(msg)
        return found

    async def _read_tokens(self, response: httpx2.Response, scope: str | None) -> None:
        if response.status_code != 200:
            raise OAuthTokenError(await _refusal(response))
        tokens = await handle_token_response_scopes(response)
        if tokens.scope is None:
            tokens.scope = scope
        self.tokens = tokens
        self._expiry = calculate_token_expiry(tokens.expires_in)


async def _refusal(response: httpx2.Response) -> str:
    """What the token endpoint said, in a sentence: its `error` and `error_description`."""
    body = await json_object(response)
    where = f"The token endpoint {response.request.url} refused the JWT-bearer grant ({response.status_code})"
    if body is not None and isinstance(body.get("error"), str):
        said = body["error"]
        if isinstance(body.get("error_description"), str):
            said = f"{said}: {body['error_description']}"
        return f"{where}: {said}"
    text = response.text.strip()
    return f"{where}: {text[:200]}" if text else where
