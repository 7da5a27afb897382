"""A small authorization server and resource server in one ASGI app, for the client auth tests.

`OAuthServer(inner)` answers, on the loopback address `served` gives it:

- `/.well-known/oauth-protected-resource/mcp`: the protected resource
  metadata of `/mcp`, naming this app as its authorization server;
- `/.well-known/oauth-authorization-server`: the authorization server
  metadata (`issuer`, `token_endpoint`);
- `POST /token`: the client credentials grant (HTTP basic) and the RFC 7523
  JWT-bearer grant (the assertion checked with pyjwt against
  `assertion_key`), with DPoP proofs (RFC 9449) checked when `dpop` is on;
- `/data`: a protected JSON answer; `/mcp`: `inner`, an MCP server, once
  the request's access token (and, for a DPoP-bound token, its proof) is
  right. Anything else goes to `inner` too, its lifespan included.

The proofs are checked here independently of the client's code: the
signature against the proof's own `jwk`, `typ`, `htm`, `htu`, `iat`, a
`jti` never seen before, `ath` against the token, the key's RFC 7638
thumbprint against the one the token is bound to, and the server's nonce
when it asks for one. Every request is recorded for the tests to read.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

import jwt
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer"
CLIENT_ID = "test-client"
CLIENT_SECRET = "test-secret"
AS_NONCE = "as-nonce-1"
RS_NONCE = "rs-nonce-1"
ASYMMETRIC = ("ES256", "ES384", "ES512", "RS256", "PS256", "EdDSA")


class Refused(Exception):
    """A proof or token this server does not accept; the message says why."""


def b64url_sha256(text: str) -> str:
    digest = hashlib.sha256(text.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def thumbprint(jwk: dict[str, Any]) -> str:
    """RFC 7638: the SHA-256 of the key's required members, in order, without spaces."""
    required = {"EC": ("crv", "kty", "x", "y"), "RSA": ("e", "kty", "n")}.get(
        jwk["kty"], ("crv", "kty", "x")
    )
    canonical = "{" + ",".join(f'"{name}":"{jwk[name]}"' for name in required) + "}"
    digest = hashlib.sha256(canonical.encode("utf-8")).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


@dataclass
class Seen:
    """One request to the token endpoint or to a protected path, and what was made of it."""

    path: str
    method: str
    form: dict[str, str] = field(default_factory=dict)
    authorization: str | None = None
    dpop_header: bool = False
    proof: dict[str, Any] | None = None  # the proof's claims, when it verified
    proof_header: dict[str, Any] | None = None
    status: int = 0
    error: str | None = None


class OAuthServer:
    """The ASGI app; the options say what it asks of the client (see the module's docstring)."""

    def __init__(
        self,
        inner: Any,
        *,
        dpop: bool = False,
        as_nonce: bool = False,
        rs_nonce: bool = False,
        as_nonce_broken: bool = False,
        rs_nonce_broken: bool = False,
        token_type: str | None = None,
        assertion_key: Any = None,
        issuer_override: str | None = None,
    ) -> None:
        self.inner = inner
        self.dpop = dpop
        self.as_nonce = as_nonce
        self.rs_nonce = rs_nonce
        # A broken server, whom no nonce satisfies.
        self.as_nonce_broken = as_nonce_broken
        self.rs_nonce_broken = rs_nonce_broken
        self.token_type = token_type or ("DPoP" if dpop else "Bearer")
        self.assertion_key = assertion_key
        self.issuer_override = issuer_override
        self.base = ""
        self.tokens: dict[str, str | None] = {}  # token -> the jkt it is bound to
        self.jtis: set[str] = set()
        self.token_requests: list[Seen] = []
        self.resource_requests: list[Seen] = []
        self.metadata_requests: list[str] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.inner(scope, receive, send)
            return
        request = Request(scope, receive)
        if not self.base:
            self.base = str(request.base_url).rstrip("/")
        path = scope["path"]
        if path == "/.well-known/oauth-protected-resource/mcp":
            response: Response = JSONResponse(
                {"resource": self.base + "/mcp", "authorization_servers": [self.base]}
            )
        elif path == "/.well-known/oauth-authorization-server":
            self.metadata_requests.append(path)
            response = JSONResponse(
                {
                    "issuer": self.issuer_override or self.base,
                    "authorization_endpoint": self.base + "/authorize",
                    "token_endpoint": self.base + "/token",
                    "response_types_supported": ["code"],
                    "grant_types_supported": ["client_credentials", JWT_BEARER],
                    "dpop_signing_alg_values_supported": list(ASYMMETRIC),
                }
            )
        elif path == "/token" and scope["method"] == "POST":
            response = await self.token(request)
        elif path in ("/data", "/mcp"):
            seen = Seen(path, scope["method"])
            self.resource_requests.append(seen)
            refusal = self.guard(request, seen)
            if refusal is None and path == "/mcp":
                seen.status = 200
                await self.inner(scope, receive, send)
                return
            response = refusal or JSONResponse({"ok": True})
            seen.status = response.status_code
        else:
            await self.inner(scope, receive, send)
            return
        await response(scope, receive, send)

    # ------------------------------------------------------------ proofs

    def verify_proof(
        self, proof: str | None, method: str, url: str, token: str | None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The proof's header and claims, checked; `Refused` says what is wrong."""
        if not proof or "," in proof:
            raise Refused("one DPoP proof is required")
        try:
            header = jwt.get_unverified_header(proof)
        except jwt.PyJWTError as error:
            raise Refused(f"not a JWT: {error}") from None
        if header.get("typ") != "dpop+jwt" or header.get("alg") not in ASYMMETRIC:
            raise Refused("typ must be dpop+jwt, alg asymmetric")
        jwk = header.get("jwk")
        if not isinstance(jwk, dict) or "d" in jwk:
            raise Refused("a public jwk is required")
        try:
            key = jwt.PyJWK(jwk, algorithm=header["alg"]).key
            claims = jwt.decode(
                proof,
                key,
                algorithms=[header["alg"]],
                options={"require": ["jti", "htm", "htu", "iat"]},
            )
        except jwt.PyJWTError as error:
            raise Refused(f"the signature or a claim is wrong: {error}") from None
        if claims["htm"] != method or claims["htu"] != url:
            raise Refused(f"htm/htu {claims['htm']} {claims['htu']} != {method} {url}")
        if abs(time.time() - claims["iat"]) > 60:
            raise Refused("iat too far from now")
        if token is not None and claims.get("ath") != b64url_sha256(token):
            raise Refused("ath is not the token's hash")
        if claims["jti"] in self.jtis:
            raise Refused("replayed: this jti was seen before")
        self.jtis.add(claims["jti"])
        return header, claims

    # ------------------------------------------------------------ token endpoint

    async def token(self, request: Request) -> Response:
        form = {key: str(value) for key, value in (await request.form()).items()}
        seen = Seen("/token", "POST", form, request.headers.get("authorization"))
        seen.dpop_header = "dpop" in request.headers
        self.token_requests.append(seen)
        response = self.grant(request, form, seen)
        seen.status = response.status_code
        if isinstance(response, JSONResponse) and response.status_code >= 400:
            seen.error = json.loads(bytes(response.body))["error"]
        return response

    def grant(self, request: Request, form: dict[str, str], seen: Seen) -> Response:
        jkt = None
        if self.dpop:
            try:
                header, claims = self.verify_proof(
                    request.headers.get("dpop"), "POST", self.base + "/token", None
                )
            except Refused as error:
                return _error(400, "invalid_dpop_proof", str(error))
            seen.proof, seen.proof_header = claims, header
            wrong = self.as_nonce and claims.get("nonce") != AS_NONCE
            if wrong or self.as_nonce_broken:
                return _error(400, "use_dpop_nonce", "a nonce is required", AS_NONCE)
            jkt = thumbprint(header["jwk"])
        refused = self.check_grant(request, form)
        if refused is not None:
            return refused
        token = secrets.token_urlsafe(16)
        self.tokens[token] = jkt
        body: dict[str, Any] = {
            "access_token": token,
            "token_type": self.token_type,
            "expires_in": 3600,
        }
        if form.get("scope"):
            body["scope"] = form["scope"]
        return JSONResponse(body, headers={"Cache-Control": "no-store"})

    def check_grant(self, request: Request, form: dict[str, str]) -> Response | None:
        grant = form.get("grant_type")
        if grant == "client_credentials":
            expected = base64.b64encode(
                f"{CLIENT_ID}:{CLIENT_SECRET}".encode()
            ).decode()
            if request.headers.get("authorization") != f"Basic {expected}":
                return _error(401, "invalid_client", "wrong client credentials")
            return None
        if grant != JWT_BEARER:
            return _error(400, "unsupported_grant_type", f"not {grant}")
        if "unauthorized" in form.get("scope", "").split():
            return _error(400, "unauthorized_client", "not for this client")
        try:
            jwt.decode(
                form.get("assertion", ""),
                self.assertion_key,
                algorithms=["ES256"],
                audience=self.base,
            )
        except jwt.ExpiredSignatureError:
            return _error(400, "invalid_grant", "JWT assertion is expired")
        except jwt.PyJWTError as error:
            return _error(400, "invalid_grant", f"JWT assertion refused: {error}")
        return None

    # ------------------------------------------------------------ resource server

    def guard(self, request: Request, seen: Seen) -> Response | None:
        """None: let the request through; else the refusal."""
        scheme, _, token = request.headers.get("authorization", "").partition(" ")
        seen.authorization = scheme or None
        seen.dpop_header = "dpop" in request.headers
        challenge = "DPoP" if self.dpop else "Bearer"
        where = (
            f'resource_metadata="{self.base}/.well-known/oauth-protected-resource/mcp"'
        )
        if not token:
            return _challenge(f"{challenge} {where}")
        if token not in self.tokens:
            return _challenge(f'{challenge} error="invalid_token", {where}')
        jkt = self.tokens[token]
        if jkt is None:
            return (
                None
                if scheme == "Bearer"
                else _challenge('Bearer error="invalid_token"')
            )
        if scheme != "DPoP":
            return _challenge('DPoP error="invalid_token"')
        url = self.base + request.url.path
        try:
            header, claims = self.verify_proof(
                request.headers.get("dpop"), request.method, url, token
            )
            if thumbprint(header["jwk"]) != jkt:
                raise Refused("the proof's key is not the one the token is bound to")
        except Refused as error:
            seen.error = str(error)
            return _challenge(
                f'DPoP error="invalid_dpop_proof", error_description="{error}"'
            )
        seen.proof, seen.proof_header = claims, header
        wrong = self.rs_nonce and claims.get("nonce") != RS_NONCE
        if wrong or self.rs_nonce_broken:
            seen.error = "use_dpop_nonce"
            return _challenge(f'DPoP error="use_dpop_nonce", {where}', RS_NONCE)
        return None


def _error(
    status: int, error: str, description: str, nonce: str | None = None
) -> Response:
    headers = {"DPoP-Nonce": nonce} if nonce else None
    return JSONResponse(
        {"error": error, "error_description": description}, status, headers=headers
    )


def _challenge(value: str, nonce: str | None = None) -> Response:
    headers = {"WWW-Authenticate": value}
    if nonce:
        headers["DPoP-Nonce"] = nonce
    return JSONResponse({"error": "unauthorized"}, 401, headers=headers)
