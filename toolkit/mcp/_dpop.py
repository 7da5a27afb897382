"""DPoP (RFC 9449): access tokens bound to a key that the client proves it holds.

```python
from toolkit import mcp

auth = mcp.DPoPAuth(oauth_provider)   # any httpx2.Auth that gets the tokens
async with mcp.connect("https://example.com/mcp", auth=auth) as tools:
    ...
```

`DPoPAuth` wraps the auth that obtains the tokens (the MCP SDK's
`OAuthClientProvider`, a client-credentials provider, `WorkloadIdentityAuth`)
and leaves the flow to it; on the way out it adds a proof to each request
that needs one:

- a token request (a form `POST` with a `grant_type`) gets a `DPoP` header:
  a JWT signed with the client's key, whose header carries the public key
  and whose claims say which request it is for (`htm`, `htu`), when (`iat`)
  and once (`jti`);
- a request carrying an access token as `Authorization: Bearer <token>`
  is sent as `Authorization: DPoP <token>`, with a proof whose `ath` is the
  token's SHA-256: a stolen token is useless without the key.

A server may want a nonce of its own in the proofs: the authorization
server answers `400` with `error: use_dpop_nonce`, the resource server
`401` with `error="use_dpop_nonce"`, each with a `DPoP-Nonce` header. The
request is then sent once more with a fresh proof carrying that nonce, and
later proofs to that server carry the newest nonce it gave.

The token response says `token_type: DPoP`. The SDK's providers read token
responses into the SDK's `OAuthToken`, which accepts only `Bearer`; the
response they see says `Bearer` instead, and the token is still presented
with the `DPoP` scheme here. A token the server issued as `Bearer` (one
that does not support DPoP) is left as it is.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from collections.abc import AsyncGenerator
from typing import Any, Final, Literal, TypeAlias
from urllib.parse import parse_qs

_INSTALL_HINT: Final = (
    'DPoP needs the `mcp` extra (httpx2, pyjwt[crypto]): pip install "toolkit-llm[mcp]"'
)

try:
    import httpx2
    import jwt
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

    from ._auth import AsyncAuth, json_object
except ImportError as error:  # pragma: no cover - the extra is installed in tests
    raise ImportError(_INSTALL_HINT) from error

__all__ = ["DPoPAuth", "PrivateKey"]

PrivateKey: TypeAlias = (
    ec.EllipticCurvePrivateKey | rsa.RSAPrivateKey | ed25519.Ed25519PrivateKey
)
"""The keys a proof can be signed with."""

_EC_ALGORITHMS: Final = {
    "secp256r1": "ES256",
    "secp384r1": "ES384",
    "secp521r1": "ES512",
}
_RSA_ALGORITHMS: Final = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512"}
)
_THUMBPRINT_MEMBERS: Final = {
    "EC": ("crv", "kty", "x", "y"),
    "RSA": ("e", "kty", "n"),
    "OKP": ("crv", "kty", "x"),
}
_KEPT_TOKENS: Final = 16  # the Bearer tokens remembered, so the set stays small
_Kind = Literal["token", "resource"]


class DPoPAuth(AsyncAuth):
    """An `httpx2.Auth` that adds DPoP proofs (RFC 9449) to the requests of another auth.

    ```python
    auth = mcp.DPoPAuth(oauth_provider)
    async with mcp.connect("https://example.com/mcp", auth=auth) as tools:
        ...
    ```

    Args:
        inner: The auth that obtains the access tokens and answers the
            server's challenges, such as the MCP SDK's
            `OAuthClientProvider`, its client-credentials providers, or
            `WorkloadIdentityAuth`.
        key: The private key the proofs are signed with: an EC key
            (P-256, P-384 or P-521), an RSA key or an Ed25519 key from
            `cryptography`. None: a new P-256 key, kept for as long as this
            object lives (the tokens it gets are bound to it).
        algorithm: The JWS algorithm (`ES256`, `PS256`, `EdDSA`, ...).
            None: the one the key calls for (`RS256` for an RSA key).

    Raises:
        TypeError: `inner` is not an `httpx2.Auth`.
        ValueError: The algorithm does not fit the key, or the key is of a
            kind DPoP cannot use.
    """

    def __init__(
        self,
        inner: httpx2.Auth,
        *,
        key: PrivateKey | None = None,
        algorithm: str | None = None,
    ) -> None:
        if not isinstance(inner, httpx2.Auth):
            msg = f"DPoPAuth: inner must be the httpx2.Auth that obtains the tokens, got {type(inner).__name__}"
            raise TypeError(msg)
        self.inner = inner
        self.key: PrivateKey = (
            key if key is not None else ec.generate_private_key(ec.SECP256R1())
        )
        self.algorithm = _algorithm_for(self.key, algorithm)
        self.jwk = _public_jwk(self.key, self.algorithm)
        self.thumbprint = _thumbprint(self.jwk)
        self._nonces: dict[str, str] = {}  # origin -> the newest nonce it gave
        self._bearer: list[str] = []  # tokens issued as Bearer: sent as they are

    # ------------------------------------------------------------ proofs

    def proof(
        self,
        method: str,
        url: str,
        *,
        token: str | None = None,
        nonce: str | None = None,
    ) -> str:
        """A DPoP proof JWT for one request: `htm`, `htu`, `iat`, a fresh `jti`, and `ath` with a token."""
        claims: dict[str, Any] = {
            "jti": secrets.token_urlsafe(16),
            "htm": method,
            "htu": _htu(url),
            "iat": int(time.time()),
        }
        if token is not None:
            claims["ath"] = _sha256(token)
        if nonce is not None:
            claims["nonce"] = nonce
        headers = {"typ": "dpop+jwt", "jwk": self.jwk}
        return jwt.encode(claims, self.key, algorithm=self.algorithm, headers=headers)

    # ------------------------------------------------------------ the flow

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        flow = self.inner.async_auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                kind = self._sign(outgoing)
                response = yield outgoing
                self._note_nonce(response)
                if kind is not None and await _wants_nonce(response, kind):
                    self._sign(outgoing)  # a fresh proof, with the nonce just noted
                    response = yield outgoing
                    self._note_nonce(response)
                if kind == "token":
                    response = await self._as_bearer(response)
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()

    def _sign(self, request: httpx2.Request) -> _Kind | None:
        """Add a proof to a token request or to a request with an access token; which it was."""
        nonce = self._nonces.get(_origin(request.url))
        if _is_token_request(request):
            request.headers["DPoP"] = self.proof(
                request.method, str(request.url), nonce=nonce
            )
            return "token"
        scheme, _, token = request.headers.get("Authorization", "").partition(" ")
        token = token.strip()
        if (
            scheme.lower() not in ("bearer", "dpop")
            or not token
            or token in self._bearer
        ):
            request.headers.pop("DPoP", None)  # a proof left from an earlier try
            return None
        request.headers["Authorization"] = f"DPoP {token}"
        request.headers["DPoP"] = self.proof(
            request.method, str(request.url), token=token, nonce=nonce
        )
        return "resource"

    def _note_nonce(self, response: httpx2.Response) -> None:
        nonce = response.headers.get("DPoP-Nonce")
        if nonce:
            self._nonces[_origin(response.request.url)] = nonce

    async def _as_bearer(self, response: httpx2.Response) -> httpx2.Response:
        """The token response as the SDK's token model reads it: `token_type` `Bearer`.

        The SDK's `OAuthToken` accepts no other type; the token's real type
        is kept here (a token issued as `Bearer` is sent as it is).
        """
        if response.status_code not in (200, 201):
            return response
        body = await json_object(response)
        if body is None or not isinstance(body.get("access_token"), str):
            return response  # the inner auth says what is wrong with it
        kind = body.get("token_type")
        if not isinstance(kind, str) or kind.lower() != "dpop":
            self._bearer = [*self._bearer, body["access_token"]][-_KEPT_TOKENS:]
            return response
        body["token_type"] = "Bearer"
        headers = [
            (name, value)
            for name, value in response.headers.items()
            if name.lower()
            not in ("content-length", "content-encoding", "transfer-encoding")
        ]
        return httpx2.Response(
            response.status_code,
            headers=headers,
            content=json.dumps(body).encode(),
            request=response.request,
        )


def _sha256(text: str) -> str:
    """The unpadded base64url SHA-256 of ASCII text: a token's `ath` claim, a JWK's thumbprint."""
    digest = hashlib.sha256(text.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


async def _wants_nonce(response: httpx2.Response, kind: _Kind) -> bool:
    """Whether the server refused the proof for want of its nonce (RFC 9449 §8 and §9)."""
    if not response.headers.get("DPoP-Nonce"):
        return False
    if kind == "resource":
        challenge = response.headers.get("WWW-Authenticate", "")
        return response.status_code == 401 and "use_dpop_nonce" in challenge
    if response.status_code != 400:
        return False
    body = await json_object(response)
    return body is not None and body.get("error") == "use_dpop_nonce"


def _is_token_request(request: httpx2.Request) -> bool:
    """A form `POST` with a `grant_type`: a request to a token endpoint."""
    if request.method != "POST":
        return False
    kind = request.headers.get("Content-Type", "")
    if not kind.startswith("application/x-www-form-urlencoded"):
        return False
    try:
        body = request.content
    except httpx2.RequestNotRead:
        return False
    return "grant_type" in parse_qs(body.decode("utf-8", "replace"))


def _htu(url: str) -> str:
    """The request's URL without query and fragment (RFC 9449 §4.2)."""
    return str(httpx2.URL(url).copy_with(query=None, fragment=None))


def _origin(url: httpx2.URL) -> str:
    return f"{url.scheme}://{url.netloc.decode('ascii')}"


def _algorithm_for(key: object, algorithm: str | None) -> str:
    """The JWS algorithm for `key`: `algorithm` if it fits, else the key's own."""
    if isinstance(key, ec.EllipticCurvePrivateKey):
        own = _EC_ALGORITHMS.get(key.curve.name)
        if own is None:
            msg = f"DPoPAuth: key must be an EC key on P-256, P-384 or P-521, not on {key.curve.name}"
            raise ValueError(msg)
        allowed: frozenset[str] = frozenset({own})
    elif isinstance(key, rsa.RSAPrivateKey):
        own, allowed = "RS256", _RSA_ALGORITHMS
    elif isinstance(key, ed25519.Ed25519PrivateKey):
        own, allowed = "EdDSA", frozenset({"EdDSA"})
    else:
        # The type only: a key given as PEM text is not repeated.
        msg = f"DPoPAuth: key must be an EC, RSA or Ed25519 private key from cryptography (load a PEM with serialization.load_pem_private_key), got {type(key).__name__}"
        raise ValueError(msg)
    if algorithm is None:
        return own
    if algorithm not in allowed:
        msg = f"DPoPAuth: algorithm={algorithm!r} does not fit a {type(key).__name__}; use one of {sorted(allowed)}"
        raise ValueError(msg)
    return algorithm


def _public_jwk(key: PrivateKey, algorithm: str) -> dict[str, str]:
    """The public half of `key` as a JWK, with the members RFC 7638 names only."""
    found = jwt.get_algorithm_by_name(algorithm).to_jwk(key.public_key(), as_dict=True)
    return {name: str(found[name]) for name in _THUMBPRINT_MEMBERS[str(found["kty"])]}


def _thumbprint(jwk: dict[str, str]) -> str:
    """The RFC 7638 SHA-256 thumbprint of a public JWK, base64url."""
    return _sha256(json.dumps(jwk, sort_keys=True, separators=(",", ":")))
