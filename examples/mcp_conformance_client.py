"""An MCP client built on `toolkit.mcp.connect`, for the official conformance suite.

The suite (`@modelcontextprotocol/conformance client`) starts a test server
for one scenario, runs this file with the server's URL as the last argument
and the scenario's name in `MCP_CONFORMANCE_SCENARIO`, and checks what the
client did:

    ../shared/tools/mcp-conformance client \\
        --command "python examples/mcp_conformance_client.py" --scenario tools_call

- `initialize`: connect (the handshake), list the tools, close.
- `tools_call`: call `add_numbers` with 5 and 3.
- `sse-retry`: call `test_reconnection`, whose stream the server closes
  mid-call; the SDK's transport reconnects as told by the stream's `retry`.
- `elicitation-sep1034-client-defaults`: the server asks a question during
  a call; the host below accepts with the defaults of the question's schema.
- `http-standard-headers`, `http-invalid-tool-headers`: call every tool the
  client keeps (the SDK's client leaves out one whose `x-mcp-header` is
  invalid); `http-custom-headers`: make the calls the scenario names, whose
  parameters marked `x-mcp-header` go as `Mcp-Param-*` headers.
- `sep-2640-client-no-prefetch`: list the tools and the skills (the skills
  extension), and read none of the skills' files.
- `auth/...`: the server wants OAuth. `connect(url, auth=...)` takes the MCP
  SDK's `OAuthClientProvider`; its redirect handler follows the test
  authorization server's redirect and reads the code from it, as a browser
  would, then the connection lists the tools and calls the first one.
  Machine-to-machine scenarios use other auths: the SDK's client-credentials
  providers; its `IdentityAssertionOAuthProvider` for enterprise-managed
  authorization (an ID-JAG from the test IdP, then the JWT-bearer grant);
  `mcp.WorkloadIdentityAuth` for `auth/wif-jwt-bearer` (the workload's
  identity token from the scenario's context); and `auth/dpop`,
  `auth/dpop-nonce` wrap the OAuth provider in `mcp.DPoPAuth`.

Anything that goes wrong exits non-zero, so that the suite sees it.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any
from urllib.parse import parse_qs, urlparse

from toolkit import Context, Elicited, mcp

REDIRECT_URI = "http://localhost:3000/callback"


class DefaultsHost:
    """A host whose user accepts every question with the defaults it offers."""

    async def elicit(
        self, context: Context, message: str, schema: dict[str, Any]
    ) -> Elicited[dict[str, Any]]:
        properties = schema.get("properties", {})
        defaults = {
            name: field["default"]
            for name, field in properties.items()
            if isinstance(field, dict) and "default" in field
        }
        return Elicited("accept", defaults)


async def initialize(url: str) -> None:
    async with mcp.connect(url) as tools:
        print(f"connected: {tools.names}", file=sys.stderr)


async def tools_call(url: str) -> None:
    async with mcp.connect(url) as tools:
        result = await tools.aexecute(
            "conformance", "1", "add_numbers", {"a": 5, "b": 3}
        )
        _expect_ok(result)


async def sse_retry(url: str) -> None:
    async with mcp.connect(url) as tools:
        _expect_ok(await tools.aexecute("conformance", "1", "test_reconnection", {}))


async def elicitation_defaults(url: str) -> None:
    async with mcp.connect(url, host=DefaultsHost()) as tools:
        name = "test_client_elicitation_defaults"
        _expect_ok(await tools.aexecute("conformance", "1", name, {}))


async def schema_echo(url: str) -> None:
    """Send the schema of `json_schema_2020_12_tool` back through `json_schema_echo`, as it came."""
    async with mcp.connect(url) as tools:
        schema = tools["json_schema_2020_12_tool"].parameters
        result = await tools.aexecute(
            "conformance", "1", "json_schema_echo", {"schema": schema}
        )
        _expect_ok(result)


class ConfirmingHost:
    """A host whose user confirms every question."""

    async def elicit(
        self, context: Context, message: str, schema: dict[str, Any]
    ) -> Elicited[dict[str, Any]]:
        return Elicited("accept", {"confirmed": True})


async def request_state(url: str) -> None:
    """Call each tool that answers with input-required results; the client answers and retries.

    The suite checks the requests (the state echoed, never sent where it
    was not given, no retry of a result without `resultType`); a result
    the SDK's client cannot read is an error result here, not a failure.
    """
    async with mcp.connect(url, host=ConfirmingHost()) as tools:
        for name in tools.names:
            result = await tools.aexecute("conformance", "1", name, {})
            print(f"{name}: {result.text}", file=sys.stderr)


async def every_tool(url: str) -> None:
    """List the tools and call each one, a word for each string it requires.

    The SDK's client sends `Mcp-Method` and `Mcp-Name` on every request and
    leaves out a tool whose `x-mcp-header` annotations are invalid.
    """
    async with mcp.connect(url) as tools:
        for item in tools:
            schema = item.parameters
            arguments = {
                name: "conformance"
                for name in schema.get("required", [])
                if schema["properties"][name].get("type") == "string"
            }
            _expect_ok(await tools.aexecute("conformance", "1", item.name, arguments))


async def header_calls(url: str) -> None:
    """Make the calls the scenario names: parameters marked `x-mcp-header` go as `Mcp-Param-*` headers.

    A null argument is left out, as a host does for an optional parameter
    the model set to null (the tool's schema does not allow null).
    """
    async with mcp.connect(url) as tools:
        for call in _context().get("toolCalls", []):
            arguments = {
                key: value
                for key, value in call["arguments"].items()
                if value is not None
            }
            _expect_ok(
                await tools.aexecute("conformance", "1", call["name"], arguments)
            )


async def authorized(url: str) -> None:
    """Connect through OAuth, list the tools, call the first one."""
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    make = MACHINE_AUTH.get(scenario, _oauth)
    auth = make(url)
    if asyncio.iscoroutine(auth):
        auth = await auth
    async with mcp.connect(url, auth=auth) as tools:
        if tools.names:
            result = await tools.aexecute("conformance", "1", tools.names[0], {})
            print(f"{tools.names[0]}: {result.text}", file=sys.stderr)


async def skills_unread(url: str) -> None:
    """List the tools and the skills (the skills extension), and read none of the skills' files.

    toolkit's client lists tools only and reads no resource, so a skill's
    files are fetched only when a host loads the skill. `skills/list` goes
    as a plain request of the 2026-07-28 protocol, which needs no session.
    """
    import httpx2

    async with mcp.connect(url) as tools:
        print(f"tools: {tools.names}", file=sys.stderr)
    request = {"jsonrpc": "2.0", "id": 1, "method": "skills/list", "params": {}}
    headers = {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "skills/list",
    }
    async with httpx2.AsyncClient(timeout=30) as http:
        reply = await http.post(url, json=request, headers=headers)
    for skill in reply.raise_for_status().json()["result"]["skills"]:
        print(f"skill {skill['uri']}: {skill['frontmatter']['name']}", file=sys.stderr)


def _expect_ok(result: Any) -> None:
    print(result.text, file=sys.stderr)
    if result.is_error:
        raise SystemExit(1)


# ------------------------------------------------------------------ OAuth


class MemoryTokens:
    """The OAuth tokens and client registration, kept for this process only."""

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


class Browser:
    """Plays the user's browser: opens the authorization URL, reads the code from its redirect."""

    def __init__(self) -> None:
        self.query: dict[str, list[str]] = {}

    async def open(self, authorization_url: str) -> None:
        import httpx2

        async with httpx2.AsyncClient() as client:
            response = await client.get(authorization_url, follow_redirects=False)
        location = response.headers.get("location")
        if response.status_code not in (301, 302, 303, 307, 308) or not location:
            msg = f"expected a redirect from {authorization_url}, got {response.status_code}"
            raise RuntimeError(msg)
        self.query = parse_qs(urlparse(location).query)
        if "code" not in self.query:
            msg = f"no authorization code in the redirect to {location}"
            raise RuntimeError(msg)

    async def callback(self) -> Any:
        from mcp.shared.auth import AuthorizationCodeResult

        def first(key: str) -> str | None:
            values = self.query.get(key)
            return values[0] if values else None

        code = first("code")
        assert code is not None  # open() saw it
        return AuthorizationCodeResult(
            code=code, state=first("state"), iss=first("iss")
        )


def _oauth(url: str) -> Any:
    from mcp.client.auth import OAuthClientProvider
    from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata
    from pydantic import AnyUrl

    storage = MemoryTokens()
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    if context.get("client_id"):  # a client registered beforehand
        secret = context.get("client_secret")
        storage.client = OAuthClientInformationFull(
            client_id=context["client_id"],
            client_secret=secret,
            redirect_uris=[AnyUrl(REDIRECT_URI)],
            token_endpoint_auth_method="client_secret_basic" if secret else "none",
        )
    browser = Browser()
    return OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            client_name="toolkit conformance client",
            redirect_uris=[AnyUrl(REDIRECT_URI)],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
        ),
        storage=storage,
        redirect_handler=browser.open,
        callback_handler=browser.callback,
        client_metadata_url="https://conformance-test.local/client-metadata.json",
    )


# ------------------------------------------------------------------ machine to machine


def _context() -> dict[str, Any]:
    found: dict[str, Any] = json.loads(
        os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}"
    )
    return found


def _client_secret(url: str) -> Any:
    """The client credentials grant, the secret sent with HTTP basic authentication."""
    from mcp.client.auth.extensions.client_credentials import (
        ClientCredentialsOAuthProvider,
    )

    context = _context()
    return ClientCredentialsOAuthProvider(
        server_url=url,
        storage=MemoryTokens(),
        client_id=context["client_id"],
        client_secret=context["client_secret"],
        token_endpoint_auth_method="client_secret_basic",
    )


def _client_jwt(url: str) -> Any:
    """The client credentials grant, the client proving itself with a JWT it signs."""
    from mcp.client.auth.extensions.client_credentials import (
        PrivateKeyJWTOAuthProvider,
        SignedJWTParameters,
    )

    context = _context()
    signer = SignedJWTParameters(
        issuer=context["client_id"],
        subject=context["client_id"],
        signing_algorithm=context.get("signing_algorithm", "ES256"),
        signing_key=context["private_key_pem"],
    )
    return PrivateKeyJWTOAuthProvider(
        server_url=url,
        storage=MemoryTokens(),
        client_id=context["client_id"],
        assertion_provider=signer.create_assertion_provider(),
    )


async def _cross_app(url: str) -> Any:
    """Enterprise-managed access: an identity assertion from the company's IdP, then a token."""
    import httpx2
    from mcp.client.auth.extensions.identity_assertion import (
        IdentityAssertionOAuthProvider,
    )

    context = _context()
    issuer = await _authorization_server(url)

    async def assertion(audience: str, resource: str) -> str:
        async with httpx2.AsyncClient(timeout=30) as http:
            response = await http.post(
                context["idp_token_endpoint"],
                data={
                    "grant_type": "urn:ietf:params:oauth:grant-type:token-exchange",
                    "requested_token_type": "urn:ietf:params:oauth:token-type:id-jag",
                    "subject_token": context["idp_id_token"],
                    "subject_token_type": "urn:ietf:params:oauth:token-type:id_token",
                    "audience": audience,
                    "resource": resource,
                    "client_id": context["idp_client_id"],
                },
            )
        token: str = response.raise_for_status().json()["access_token"]
        return token

    return IdentityAssertionOAuthProvider(
        server_url=url,
        storage=MemoryTokens(),
        client_id=context["client_id"],
        client_secret=context["client_secret"],
        issuer=issuer,
        assertion_provider=assertion,
        token_endpoint_auth_method="client_secret_basic",
    )


async def _workload(url: str) -> Any:
    """The JWT-bearer grant: the workload's identity token, traded for an access token."""
    context = _context()
    return mcp.WorkloadIdentityAuth(
        url,
        context["valid_jwt"],
        client_id=context["client_id"],
        issuer=await _authorization_server(url),
    )


def _dpop(url: str) -> Any:
    """The authorization code flow, its tokens bound to a key by DPoP proofs."""
    return mcp.DPoPAuth(_oauth(url))


async def _authorization_server(url: str) -> str:
    """The first authorization server that the MCP server's protected resource metadata names."""
    import httpx2
    from mcp.client.auth.utils import build_protected_resource_metadata_discovery_urls

    metadata_url = build_protected_resource_metadata_discovery_urls(None, url)[0]
    async with httpx2.AsyncClient(timeout=30) as http:
        metadata = (await http.get(metadata_url)).raise_for_status().json()
    issuer: str = metadata["authorization_servers"][0]
    return issuer


MACHINE_AUTH: dict[str, Any] = {
    "auth/client-credentials-basic": _client_secret,
    "auth/client-credentials-jwt": _client_jwt,
    "auth/cross-app-access-complete-flow": _cross_app,
    "auth/enterprise-managed-authorization": _cross_app,
    "auth/wif-jwt-bearer": _workload,
    "auth/dpop": _dpop,
    "auth/dpop-nonce": _dpop,
}


SCENARIOS = {
    "initialize": initialize,
    "tools_call": tools_call,
    "sse-retry": sse_retry,
    "elicitation-sep1034-client-defaults": elicitation_defaults,
    "request-metadata": initialize,
    "json-schema-ref-no-deref": initialize,
    "json-schema-2020-12-preservation": schema_echo,
    "sep-2322-client-request-state": request_state,
    "http-standard-headers": every_tool,
    "http-custom-headers": header_calls,
    "http-invalid-tool-headers": every_tool,
    "sep-2640-client-no-prefetch": skills_unread,
}


def main() -> None:
    if len(sys.argv) < 2:
        print(f"usage: {sys.argv[0]} SERVER_URL", file=sys.stderr)
        raise SystemExit(2)
    url = sys.argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    run = SCENARIOS.get(scenario)
    if run is None and scenario.startswith("auth/"):
        run = authorized
    if run is None:
        print(f"unknown scenario {scenario!r}", file=sys.stderr)
        raise SystemExit(2)
    asyncio.run(run(url))


if __name__ == "__main__":
    main()
