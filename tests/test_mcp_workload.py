"""`mcp.WorkloadIdentityAuth`: the RFC 7523 JWT-bearer grant, against a real server.

The authorization server and the resource server (`tests.oauth_server`) run
under uvicorn on 127.0.0.1 in the test's event loop, in front of a toolkit
MCP server. The workload's identity token is a JWT the test signs; the
server checks it with pyjwt and records every token request.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx2
import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from mcp.client.auth import OAuthFlowError, OAuthTokenError

from tests.oauth_server import JWT_BEARER, OAuthServer
from tests.test_mcp_dpop import tools
from tests.test_mcp_http import run, served
from toolkit import mcp

IDENTITY_KEY = ec.generate_private_key(ec.SECP256R1())


def identity_token(audience: str, *, lifetime: int = 300) -> str:
    """A workload identity token as a platform would issue it, for `audience`."""
    now = int(time.time())
    claims = {
        "iss": "https://idp.example",
        "sub": "workload-7",
        "aud": audience,
        "iat": now - 5,
        "exp": now + lifetime,
    }
    return jwt.encode(claims, IDENTITY_KEY, algorithm="ES256")


@contextlib.asynccontextmanager
async def authorization(**options: Any) -> AsyncIterator[tuple[OAuthServer, str]]:
    server = OAuthServer(
        mcp.asgi_app(tools), assertion_key=IDENTITY_KEY.public_key(), **options
    )
    async with served(server) as base:
        server.base = base
        yield server, base


async def fetch(auth: Any, url: str) -> int:
    async with httpx2.AsyncClient(auth=auth, timeout=30) as client:
        status: int = (await client.get(url)).status_code
        return status


def test_a_connection_trades_the_identity_token_for_an_access_token() -> None:
    async def scenario() -> tuple[OAuthServer, str, str]:
        async with authorization() as (server, base):
            token = identity_token(base)
            auth = mcp.WorkloadIdentityAuth(
                base + "/mcp", token, client_id="agent-7", issuer=base
            )
            async with mcp.connect(base + "/mcp", auth=auth) as remote:
                result = await remote.aexecute("agent", "1", "add", {"a": 2, "b": 3})
            return server, token, result.text

    server, token, text = run(scenario())
    assert text == "5"
    [grant] = server.token_requests
    assert grant.form == {
        "grant_type": JWT_BEARER,
        "assertion": token,
        "client_id": "agent-7",
        "resource": server.base + "/mcp",
    }
    assert grant.authorization is None  # no secret: the assertion is the proof
    assert grant.status == 200
    sent = [seen for seen in server.resource_requests if seen.authorization]
    assert sent
    assert {seen.authorization for seen in sent} == {"Bearer"}
    assert all(seen.status == 200 for seen in sent)


def test_a_function_gives_a_fresh_token_for_the_issuer_and_the_scope_is_sent() -> None:
    audiences: list[str] = []

    async def scenario() -> tuple[OAuthServer, int]:
        async with authorization() as (server, base):

            async def fresh(audience: str) -> str:
                audiences.append(audience)
                return identity_token(audience)

            auth = mcp.WorkloadIdentityAuth(
                base + "/mcp", fresh, client_id="agent-7", issuer=base, scope="read"
            )
            return server, await fetch(auth, base + "/data")

    server, status = run(scenario())
    assert status == 200
    assert audiences == [server.base]
    [grant] = server.token_requests
    assert grant.form["scope"] == "read"
    assert grant.form["assertion"] != ""


@pytest.mark.parametrize(
    ("lifetime", "scope", "said"),
    [
        (-60, None, "invalid_grant: JWT assertion is expired"),
        (300, "unauthorized", "unauthorized_client: not for this client"),
    ],
)
def test_a_refused_grant_is_an_error_that_quotes_the_server_and_is_not_retried(
    lifetime: int, scope: str | None, said: str
) -> None:
    async def scenario() -> tuple[OAuthServer, str]:
        async with authorization() as (server, base):
            token = identity_token(base, lifetime=lifetime)
            auth = mcp.WorkloadIdentityAuth(
                base + "/mcp", token, client_id="agent-7", issuer=base, scope=scope
            )
            with pytest.raises(OAuthTokenError) as caught:
                await fetch(auth, base + "/data")
            return server, str(caught.value)

    server, message = run(scenario())
    assert message == (
        f"The token endpoint {server.base}/token refused the JWT-bearer grant (400): {said}"
    )
    assert [seen.form["grant_type"] for seen in server.token_requests] == [JWT_BEARER]


def test_connect_says_why_the_grant_was_refused() -> None:
    async def scenario() -> str:
        async with authorization() as (_, base):
            auth = mcp.WorkloadIdentityAuth(
                base + "/mcp",
                identity_token("https://wrong.example"),
                client_id="agent-7",
                issuer=base,
            )
            with pytest.raises(ConnectionError) as caught:
                async with mcp.connect(base + "/mcp", auth=auth):
                    pass
            return str(caught.value)

    message = run(scenario())
    assert "OAuthTokenError: The token endpoint" in message
    assert "(400): invalid_grant: JWT assertion refused" in message


def test_the_identity_token_goes_to_the_configured_issuer_only() -> None:
    """The MCP server names itself as its authorization server; the configured one gets the token."""

    async def scenario() -> tuple[OAuthServer, OAuthServer, int]:
        async with (
            authorization() as (resource, base),
            authorization() as (issuer, issuer_base),
        ):
            resource.tokens = issuer.tokens  # the resource server trusts the issuer
            auth = mcp.WorkloadIdentityAuth(
                base + "/mcp",
                identity_token(issuer_base),
                client_id="agent-7",
                issuer=issuer_base,
            )
            return resource, issuer, await fetch(auth, base + "/data")

    resource, issuer, status = run(scenario())
    assert status == 200
    assert resource.token_requests == []
    assert resource.metadata_requests == []
    assert len(issuer.token_requests) == 1


def test_metadata_that_names_another_issuer_is_refused() -> None:
    async def scenario() -> tuple[OAuthServer, str]:
        async with authorization(issuer_override="https://other.example") as (
            server,
            base,
        ):
            auth = mcp.WorkloadIdentityAuth(
                base + "/mcp", identity_token(base), client_id="agent-7", issuer=base
            )
            with pytest.raises(OAuthFlowError) as caught:
                await fetch(auth, base + "/data")
            return server, str(caught.value)

    server, message = run(scenario())
    assert "names the issuer https://other.example" in message
    assert server.token_requests == []


def test_with_dpop_the_traded_token_is_bound_to_the_key() -> None:
    async def scenario() -> tuple[OAuthServer, Any, int]:
        async with authorization(dpop=True) as (server, base):
            auth = mcp.DPoPAuth(
                mcp.WorkloadIdentityAuth(
                    base + "/mcp",
                    identity_token(base),
                    client_id="agent-7",
                    issuer=base,
                )
            )
            return server, auth, await fetch(auth, base + "/data")

    server, auth, status = run(scenario())
    assert status == 200
    [grant] = server.token_requests
    assert grant.form["grant_type"] == JWT_BEARER
    assert list(server.tokens.values()) == [auth.thumbprint]
    sent = [seen for seen in server.resource_requests if seen.authorization]
    assert [seen.authorization for seen in sent] == ["DPoP"]


def test_the_arguments_are_checked_at_once() -> None:
    with pytest.raises(ValueError, match="http"):
        mcp.WorkloadIdentityAuth(
            "https://mcp.example/mcp", "token", client_id="a", issuer="auth.example"
        )
    with pytest.raises(TypeError, match="identity token"):
        mcp.WorkloadIdentityAuth(
            "https://mcp.example/mcp",
            42,  # type: ignore[arg-type]
            client_id="a",
            issuer="https://auth.example",
        )


@pytest.mark.parametrize(
    ("assertion", "issuer", "error", "names"),
    [
        ("token", "auth.example", ValueError, "WorkloadIdentityAuth: issuer must be"),
        (
            b"eyJhbGciOi.secret",
            "https://auth.example",
            TypeError,
            "WorkloadIdentityAuth: assertion must be",
        ),
    ],
)
def test_a_wrong_argument_names_the_class_and_the_parameter_and_shows_no_token(
    assertion: Any, issuer: str, error: type[Exception], names: str
) -> None:
    with pytest.raises(error) as caught:
        mcp.WorkloadIdentityAuth(
            "https://mcp.example/mcp", assertion, client_id="a", issuer=issuer
        )
    assert str(caught.value).startswith(names)
    assert "secret" not in str(caught.value)


@pytest.mark.parametrize("given", ["", b"eyJhbGciOi.secret", None])
def test_an_assertion_function_that_gives_no_token_is_told_without_echoing_it(
    given: Any,
) -> None:
    async def assertion(audience: str) -> Any:
        return given

    async def scenario() -> str:
        async with authorization() as (_, base):
            auth = mcp.WorkloadIdentityAuth(
                base + "/mcp", assertion, client_id="agent-7", issuer=base
            )
            with pytest.raises(OAuthTokenError) as caught:
                await fetch(auth, base + "/data")
            return str(caught.value)

    message = run(scenario())
    assert message.startswith(
        "WorkloadIdentityAuth: the assertion function must return the identity token"
    )
    assert "secret" not in message


def test_the_sync_client_is_refused_with_the_class_named() -> None:
    auth = mcp.WorkloadIdentityAuth(
        "https://mcp.example/mcp", "token", client_id="a", issuer="https://auth.example"
    )
    with (
        httpx2.Client(auth=auth) as client,
        pytest.raises(
            RuntimeError, match=r"^WorkloadIdentityAuth works with httpx2\.AsyncClient"
        ),
    ):
        client.get("https://mcp.example/mcp")
