"""`mcp.DPoPAuth`: DPoP proofs (RFC 9449) around another auth, against a real server.

The authorization server and the resource server (`tests.oauth_server`) run
under uvicorn on 127.0.0.1 in the test's event loop, in front of a toolkit
MCP server. The tokens come from the MCP SDK's client-credentials provider,
which `DPoPAuth` wraps. The server checks each proof on its own (pyjwt,
against the proof's own key) and records it; the tests read the records.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa
from mcp.client.auth import OAuthTokenError

from tests.oauth_server import (
    AS_NONCE,
    CLIENT_ID,
    CLIENT_SECRET,
    RS_NONCE,
    OAuthServer,
    b64url_sha256,
    thumbprint,
)
from tests.test_mcp_http import run, served
from toolkit import ToolSet, mcp

tools = ToolSet()


@tools.tool
def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: The first.
        b: The second.
    """
    return a + b


class MemoryTokens:
    def __init__(self) -> None:
        self.tokens: Any = None
        self.client: Any = None

    async def get_tokens(self) -> Any:
        return self.tokens

    async def set_tokens(self, tokens: Any) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> Any:
        return self.client

    async def set_client_info(self, client_info: Any) -> None:
        self.client = client_info


def client_credentials(base: str) -> Any:
    from mcp.client.auth.extensions.client_credentials import (
        ClientCredentialsOAuthProvider,
    )

    return ClientCredentialsOAuthProvider(
        server_url=base + "/mcp",
        storage=MemoryTokens(),
        client_id=CLIENT_ID,
        client_secret=CLIENT_SECRET,
        issuer=base,
    )


@contextlib.asynccontextmanager
async def authorization(**options: Any) -> AsyncIterator[tuple[OAuthServer, str]]:
    """The test servers in front of a toolkit MCP server: the app and its base URL."""
    options.setdefault("dpop", True)
    server = OAuthServer(mcp.asgi_app(tools), **options)
    async with served(server) as base:
        server.base = base
        yield server, base


def decoded(proof: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """A proof's header and claims, its signature checked against its own `jwk`."""
    header = jwt.get_unverified_header(proof)
    key = jwt.PyJWK(header["jwk"], algorithm=header["alg"]).key
    return header, jwt.decode(proof, key, algorithms=[header["alg"]])


# ------------------------------------------------------------ proofs


def test_a_proof_is_signed_by_the_key_it_carries_and_names_its_request() -> None:
    auth = mcp.DPoPAuth(httpx2.Auth())
    proof = auth.proof("POST", "https://as.example/token?x=1#part")
    header, claims = decoded(proof)
    assert header["typ"] == "dpop+jwt"
    assert header["alg"] == auth.algorithm == "ES256"
    assert set(header["jwk"]) == {"kty", "crv", "x", "y"}  # public: no "d"
    assert thumbprint(header["jwk"]) == auth.thumbprint
    assert claims["htm"] == "POST"
    assert claims["htu"] == "https://as.example/token"  # no query, no fragment
    assert isinstance(claims["iat"], int)
    assert "ath" not in claims
    assert "nonce" not in claims
    again = decoded(auth.proof("POST", "https://as.example/token"))[1]
    assert again["jti"] != claims["jti"]


def test_a_proof_with_a_token_carries_its_hash_and_the_nonce() -> None:
    auth = mcp.DPoPAuth(httpx2.Auth())
    claims = decoded(
        auth.proof("GET", "https://rs.example/mcp", token="tok-123", nonce="n-1")
    )[1]
    assert claims["ath"] == b64url_sha256("tok-123")
    assert claims["nonce"] == "n-1"


@pytest.mark.parametrize(
    ("key", "algorithm", "expected"),
    [
        (ec.generate_private_key(ec.SECP384R1()), None, "ES384"),
        (rsa.generate_private_key(public_exponent=65537, key_size=2048), None, "RS256"),
        (
            rsa.generate_private_key(public_exponent=65537, key_size=2048),
            "PS256",
            "PS256",
        ),
        (ed25519.Ed25519PrivateKey.generate(), None, "EdDSA"),
    ],
)
def test_the_algorithm_follows_the_key(key: Any, algorithm: Any, expected: str) -> None:
    auth = mcp.DPoPAuth(httpx2.Auth(), key=key, algorithm=algorithm)
    assert auth.algorithm == expected
    header, _ = decoded(auth.proof("GET", "https://rs.example/mcp"))
    assert header["alg"] == expected
    assert thumbprint(header["jwk"]) == auth.thumbprint


def test_an_algorithm_that_does_not_fit_the_key_is_refused_at_once() -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    with pytest.raises(ValueError, match="'ES256' does not fit"):
        mcp.DPoPAuth(httpx2.Auth(), key=key, algorithm="ES256")
    with pytest.raises(ValueError, match="P-256, P-384 or P-521"):
        mcp.DPoPAuth(httpx2.Auth(), key=ec.generate_private_key(ec.SECP256K1()))
    with pytest.raises(TypeError, match=r"httpx2\.Auth"):
        mcp.DPoPAuth("a token")  # type: ignore[arg-type]


PEM = "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIEx4mPlEfw==\n-----END PRIVATE KEY-----"


@pytest.mark.parametrize(
    ("options", "error", "names"),
    [
        ({"inner": "a token"}, TypeError, "DPoPAuth: inner must be"),
        ({"key": PEM}, ValueError, "DPoPAuth: key must be"),
        (
            {"key": ec.generate_private_key(ec.SECP256K1())},
            ValueError,
            "DPoPAuth: key must be",
        ),
        (
            {"key": ed25519.Ed25519PrivateKey.generate(), "algorithm": "ES256"},
            ValueError,
            "DPoPAuth: algorithm='ES256'",
        ),
    ],
)
def test_a_wrong_argument_names_the_class_and_the_parameter_and_shows_no_secret(
    options: dict[str, Any], error: type[Exception], names: str
) -> None:
    options.setdefault("inner", httpx2.Auth())
    inner = options.pop("inner")
    with pytest.raises(error) as caught:
        mcp.DPoPAuth(inner, **options)
    message = str(caught.value)
    assert message.startswith(names)
    assert "PRIVATE KEY" not in message  # a key given as PEM text is not repeated


def test_the_sync_client_is_refused_with_the_class_named() -> None:
    auth = mcp.DPoPAuth(httpx2.Auth())
    with (
        httpx2.Client(auth=auth) as client,
        pytest.raises(RuntimeError, match=r"^DPoPAuth works with httpx2\.AsyncClient"),
    ):
        client.get("https://rs.example/mcp")


# ------------------------------------------------------------ against the servers


def test_a_connection_gets_a_bound_token_and_proves_each_request() -> None:
    async def scenario() -> tuple[OAuthServer, Any, str]:
        async with authorization() as (server, base):
            auth = mcp.DPoPAuth(client_credentials(base))
            async with mcp.connect(base + "/mcp", auth=auth) as remote:
                result = await remote.aexecute("agent", "1", "add", {"a": 2, "b": 3})
            return server, auth, result.text

    server, auth, text = run(scenario())
    assert text == "5"
    [token_request] = server.token_requests
    assert token_request.status == 200
    assert token_request.form["grant_type"] == "client_credentials"
    assert token_request.proof is not None
    assert token_request.proof["htu"] == server.base + "/token"
    [bound] = server.tokens.values()
    assert bound == auth.thumbprint
    proved = [seen for seen in server.resource_requests if seen.authorization]
    assert len(proved) >= 3  # initialize, the listing, the call (and the rest)
    assert {seen.authorization for seen in proved} == {"DPoP"}
    assert all(seen.status == 200 and seen.proof for seen in proved)
    jtis = [seen.proof["jti"] for seen in proved if seen.proof]
    assert len(set(jtis)) == len(jtis)


def test_each_server_s_nonce_is_asked_for_once_and_then_sent() -> None:
    async def scenario() -> OAuthServer:
        async with authorization(as_nonce=True, rs_nonce=True) as (server, base):
            auth = mcp.DPoPAuth(client_credentials(base))
            async with mcp.connect(base + "/mcp", auth=auth) as remote:
                result = await remote.aexecute("agent", "1", "add", {"a": 1, "b": 1})
                assert result.text == "2"
            return server

    server = run(scenario())
    challenged, granted = server.token_requests
    assert (challenged.status, challenged.error) == (400, "use_dpop_nonce")
    assert challenged.proof is not None
    assert "nonce" not in challenged.proof
    assert granted.status == 200
    assert granted.proof is not None
    assert granted.proof["nonce"] == AS_NONCE
    proved = [seen for seen in server.resource_requests if seen.proof]
    first, *later = proved
    assert (first.status, first.error) == (401, "use_dpop_nonce")
    assert later
    assert all(seen.status == 200 for seen in later)
    assert all(seen.proof and seen.proof["nonce"] == RS_NONCE for seen in later)
    assert first.proof is not None
    assert later[0].proof is not None
    assert first.proof["jti"] != later[0].proof["jti"]  # a fresh proof, not the same


def test_a_nonce_that_never_satisfies_is_tried_once_then_the_error_is_told() -> None:
    async def scenario() -> tuple[OAuthServer, str]:
        async with authorization(as_nonce_broken=True) as (server, base):
            auth = mcp.DPoPAuth(client_credentials(base))
            async with httpx2.AsyncClient(auth=auth, timeout=30) as client:
                with pytest.raises(OAuthTokenError) as caught:
                    await client.get(base + "/data")
            return server, str(caught.value)

    server, message = run(scenario())
    assert [seen.error for seen in server.token_requests] == ["use_dpop_nonce"] * 2
    assert "use_dpop_nonce" in message
    assert "400" in message


def test_the_resource_server_s_nonce_is_tried_once_per_request() -> None:
    async def scenario() -> tuple[OAuthServer, int]:
        async with authorization() as (server, base):
            auth = mcp.DPoPAuth(client_credentials(base))
            async with httpx2.AsyncClient(auth=auth, timeout=30) as client:
                assert (await client.get(base + "/data")).status_code == 200
                server.rs_nonce_broken = True
                server.token_requests.clear()
                server.resource_requests.clear()
                status = (await client.get(base + "/data")).status_code
            return server, status

    server, status = run(scenario())
    assert status == 401
    proved = [seen for seen in server.resource_requests if seen.proof]
    # The token with a proof, then once more with the nonce; the provider
    # takes the refusal for an expired token, gets a new one and sends the
    # request once more: again a proof, and once more with the nonce.
    assert [seen.error for seen in proved] == ["use_dpop_nonce"] * 4
    assert [bool(seen.proof and "nonce" in seen.proof) for seen in proved] == [
        False,
        True,
        True,
        True,
    ]
    hashes = [seen.proof["ath"] for seen in proved if seen.proof]
    assert hashes[0] == hashes[1] != hashes[2] == hashes[3]
    assert len(server.token_requests) == 1


def test_a_replayed_or_wrong_proof_is_refused_by_the_server() -> None:
    async def scenario() -> list[int]:
        async with authorization() as (server, base):
            auth = mcp.DPoPAuth(client_credentials(base))
            async with httpx2.AsyncClient(auth=auth, timeout=30) as client:
                assert (await client.get(base + "/data")).status_code == 200
            [token] = server.tokens
            url = base + "/data"
            proof = auth.proof("GET", url, token=token)
            other = mcp.DPoPAuth(httpx2.Auth())
            attempts = [
                {"DPoP": proof},
                {"DPoP": proof},  # the same proof again
                {"DPoP": other.proof("GET", url, token=token)},  # another key
                {"DPoP": auth.proof("GET", base + "/mcp", token=token)},  # another URL
                {"DPoP": auth.proof("GET", url)},  # no ath
                {"DPoP": auth.proof("GET", url, token="another")},  # a wrong ath
                {},  # no proof
            ]
            statuses = []
            async with httpx2.AsyncClient(timeout=30) as plain:
                for headers in attempts:
                    reply = await plain.get(
                        url, headers={"Authorization": f"DPoP {token}", **headers}
                    )
                    statuses.append(reply.status_code)
            return statuses

    assert run(scenario()) == [200, 401, 401, 401, 401, 401, 401]


def test_a_token_issued_as_bearer_is_sent_as_bearer_without_a_proof() -> None:
    """An authorization server without DPoP ignores the proof and issues a Bearer token."""

    async def scenario() -> tuple[OAuthServer, int]:
        async with authorization(dpop=False) as (server, base):
            auth = mcp.DPoPAuth(client_credentials(base))
            async with httpx2.AsyncClient(auth=auth, timeout=30) as client:
                status = (await client.get(base + "/data")).status_code
            return server, status

    server, status = run(scenario())
    assert status == 200
    [token_request] = server.token_requests
    assert token_request.dpop_header  # offered; this server does not bind
    sent = [seen for seen in server.resource_requests if seen.authorization]
    assert [(seen.authorization, seen.dpop_header) for seen in sent] == [
        ("Bearer", False)
    ]
