"""What MCP 2026-07-28 clients get beyond 2025-11-25: schemas and values as they are, caching hints, sealed request state.

The oracle is the official SDK's client (`mcp.client.Client`), connected in
memory to `build_server` in either protocol generation.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Annotated, Any

import mcp.types as types
import pytest
from mcp.client import Client
from mcp.shared.exceptions import MCPError

from toolkit import Context, Param, Tool, ToolSet
from toolkit.mcp import build_server

tools = ToolSet()


@tools.tool
def count(word: str) -> int:
    """How many letters a word has."""
    return len(word)


@tools.tool
def point() -> dict[str, int]:
    """A point."""
    return {"x": 1, "y": 2}


SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {"address": {"$anchor": "addressDef", "type": "object"}},
    "properties": {
        "address": {"$ref": "#/$defs/address"},
        "method": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"method": {"const": "phone"}}, "required": ["method"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}
tools.add(
    Tool.new(
        name="contact",
        description="Contact someone.",
        parameters=SCHEMA,
        execute_fn=lambda agent_id, call_id, args: "ok",
    )
)


@tools.tool
async def ask_name(ctx: Context) -> str:
    """Ask the user's name."""
    answer = await ctx.elicit(
        "Your name?", {"type": "object", "properties": {"name": {"type": "string"}}}
    )
    return f"Hello, {(answer.data or {}).get('name')}!"


VERSIONS = {"legacy": "2025-11-25", "2026-07-28": "2026-07-28"}


@contextlib.asynccontextmanager
async def connect(
    mode: str, server: Any = None, **options: Any
) -> AsyncIterator[Client]:
    async def elicitation(context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"name": "Ann"})

    async with Client(
        server or build_server(tools),
        mode=mode,
        elicitation_callback=elicitation,
        **options,
    ) as client:
        assert client.protocol_version == VERSIONS[mode]
        yield client


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 60))


@pytest.mark.parametrize("mode", list(VERSIONS))
def test_tools_are_listed_in_registration_order_with_every_schema_keyword(
    mode: str,
) -> None:
    async def main() -> types.ListToolsResult:
        async with connect(mode) as client:
            return await client.list_tools()

    listed = run(main())
    assert [tool.name for tool in listed.tools] == [tool.name for tool in tools]
    contact = next(tool for tool in listed.tools if tool.name == "contact")
    assert contact.input_schema == SCHEMA


def test_2026_clients_get_output_schemas_and_values_unwrapped() -> None:
    async def main(mode: str) -> tuple[Any, Any, Any]:
        async with connect(mode) as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            counted = await client.call_tool("count", {"word": "four"})
            pointed = await client.call_tool("point", {})
            return listed, counted.structured_content, pointed.structured_content

    listed, counted, pointed = run(main("2026-07-28"))
    assert listed["count"].output_schema["type"] == "integer"
    assert counted == 4
    assert pointed == {"x": 1, "y": 2}
    listed, counted, pointed = run(main("legacy"))
    assert listed["count"].output_schema["properties"]["result"]["type"] == "integer"
    assert counted == {"result": 4}
    assert pointed == {"x": 1, "y": 2}


def test_tools_list_carries_caching_hints_for_2026_clients() -> None:
    async def main(server: Any) -> types.ListToolsResult:
        async with connect("2026-07-28", server) as client:
            return await client.list_tools()

    listed = run(main(build_server(tools)))
    assert (listed.ttl_ms, listed.cache_scope) == (60_000, "public")
    listed = run(main(build_server(tools, cache_ttl=0, cache_scope="private")))
    assert (listed.ttl_ms, listed.cache_scope) == (0, "private")


@pytest.mark.parametrize("mode", list(VERSIONS))
def test_prompts_and_resources_are_answered_empty_and_not_found(mode: str) -> None:
    async def main() -> tuple[Any, list[Any], list[MCPError]]:
        async with connect(mode, build_server(tools, cache_ttl=5)) as client:
            capabilities = client.server_capabilities
            lists = [
                await client.list_prompts(),
                await client.list_resources(),
                await client.list_resource_templates(),
            ]
            refused = []
            for ask in (
                lambda: client.get_prompt("greet", {"name": "Ann"}),
                lambda: client.read_resource("file:///etc/hosts"),
            ):
                with pytest.raises(MCPError) as raised:
                    await ask()
                refused.append(raised.value)
            return capabilities, lists, refused

    capabilities, lists, refused = run(main())
    # Told at initialize; a 2026-07-28 client of a fixed version asks nothing.
    if mode == "legacy":
        assert capabilities.prompts is not None
        assert capabilities.resources is not None
    prompts, resources, templates = lists
    assert (prompts.prompts, resources.resources, templates.resource_templates) == (
        [],
        [],
        [],
    )
    if mode == "2026-07-28":  # the hints are 2026-07-28 fields
        hints = [(item.ttl_ms, item.cache_scope) for item in lists]
        assert hints == [(5_000, "public")] * 3
    prompt, resource = (error.error for error in refused)
    assert (prompt.code, prompt.message) == (-32602, "Unknown prompt: greet")
    assert resource.code == -32602
    assert resource.data == {"uri": "file:///etc/hosts"}


@pytest.mark.parametrize(
    ("option", "value"),
    [("cache_ttl", -1), ("cache_scope", "shared"), ("state_key", "short")],
)
def test_bad_options_are_refused(option: str, value: Any) -> None:
    with pytest.raises(ValueError, match=option.replace("_", " ").split()[-1]):
        build_server(tools, **{option: value})


KEY = "k" * 32


async def first_round(client: Client) -> Any:
    return await client.session.call_tool("ask_name", {}, allow_input_required=True)


def answered(result: Any) -> dict[str, Any]:
    return {
        key: types.ElicitResult(action="accept", content={"name": "Ann"})
        for key in result.input_requests
    }


def test_request_state_made_by_one_worker_is_taken_by_another_sharing_the_key() -> None:
    async def main() -> str:
        async with connect("2026-07-28", build_server(tools, state_key=KEY)) as one:
            asked = await first_round(one)
        async with connect("2026-07-28", build_server(tools, state_key=KEY)) as other:
            done = await other.session.call_tool(
                "ask_name",
                {},
                input_responses=answered(asked),
                request_state=asked.request_state,
                allow_input_required=True,
            )
        assert isinstance(done, types.CallToolResult)
        return "".join(
            block.text for block in done.content if isinstance(block, types.TextContent)
        )

    assert run(main()) == "Hello, Ann!"


@pytest.mark.parametrize("how", ["tampered", "other key", "other call"])
def test_a_tampered_or_foreign_request_state_is_refused(how: str) -> None:
    async def main() -> MCPError:
        async with connect("2026-07-28", build_server(tools, state_key=KEY)) as one:
            asked = await first_round(one)
        state = asked.request_state
        assert isinstance(state, str)
        assert state
        if how == "tampered":
            state = state[:-2] + ("AA" if not state.endswith("AA") else "BB")
        server = build_server(tools, state_key="o" * 32 if how == "other key" else KEY)
        arguments = {"extra": 1} if how == "other call" else {}
        async with connect("2026-07-28", server) as other:
            with pytest.raises(MCPError) as caught:
                await other.session.call_tool(
                    "ask_name",
                    arguments,
                    input_responses=answered(asked),
                    request_state=state,
                    allow_input_required=True,
                )
        return caught.value

    error = run(main())
    assert error.error.code == -32602


questions = ToolSet()


@questions.tool
async def survey(ctx: Context) -> str:
    """Three questions in one round, then one more."""
    form = {"type": "object", "properties": {"name": {"type": "string"}}}
    name, text, roots = await asyncio.gather(
        ctx.elicit("Your name?", form, key="user_name"),
        ctx.sample("Say hi", max_tokens=10, key="greeting"),
        ctx.roots(key="client_roots"),
    )
    again = await ctx.elicit("Your name, again?", form, key="user_name")
    return f"{(name.data or {}).get('name')} {text} {roots} {(again.data or {}).get('name')}"


class Answers:
    def __init__(self) -> None:
        self.rounds: list[set[str]] = []

    async def elicitation(self, context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"name": "Ann"})

    async def sampling(self, context: Any, params: Any) -> types.CreateMessageResult:
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="hi"),
            model="test",
        )

    async def roots(self, context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(
            roots=[types.Root.model_validate({"uri": "file:///work"})]
        )


@pytest.mark.parametrize("mode", list(VERSIONS))
def test_named_questions_several_in_a_round_and_roots(mode: str) -> None:
    """The tool's keys name the questions; awaited together, they are asked in one round."""
    answers = Answers()

    async def main() -> tuple[str, list[set[str]]]:
        rounds: list[set[str]] = []
        done: Any = None
        async with Client(
            build_server(questions),
            mode=mode,
            elicitation_callback=answers.elicitation,
            sampling_callback=answers.sampling,
            list_roots_callback=answers.roots,
        ) as client:
            if mode == "legacy":
                done = await client.call_tool("survey", {})
            else:
                state = None
                responses: dict[str, Any] = {}
                while True:
                    done = await client.session.call_tool(
                        "survey",
                        {},
                        input_responses=responses or None,
                        request_state=state,
                        allow_input_required=True,
                    )
                    if isinstance(done, types.CallToolResult):
                        break
                    rounds.append(set(done.input_requests))
                    state = done.request_state
                    responses = {
                        "user_name": await answers.elicitation(None, None),
                        "greeting": await answers.sampling(None, None),
                        "client_roots": await answers.roots(None),
                        "user_name-1": await answers.elicitation(None, None),
                    }
                    responses = {key: responses[key] for key in done.input_requests}
        assert isinstance(done, types.CallToolResult)
        text = "".join(
            block.text for block in done.content if isinstance(block, types.TextContent)
        )
        return text, rounds

    text, rounds = run(main())
    assert text == "Ann hi ['file:///work'] Ann"
    if mode != "legacy":
        assert rounds == [{"user_name", "greeting", "client_roots"}, {"user_name-1"}]


# ---------------------------------------------------------------- header parameters

routed = ToolSet()


@routed.tool
def weather(region: Annotated[str, Param(header="Region")], day: int = 0) -> str:
    """The weather of a region.

    Args:
        region: Where.
        day: Days from today.
    """
    return f"sunny in {region}"


def test_a_header_parameter_is_marked_for_clients() -> None:
    assert (
        routed["weather"].parameters["properties"]["region"]["x-mcp-header"] == "Region"
    )


@pytest.mark.parametrize(
    ("annotation", "problem"),
    [
        ("Annotated[str, Param(header='Bad Name')]", "not an HTTP header name"),
        ("Annotated[list[str], Param(header='Region')]", "needs a str, int or bool"),
    ],
)
def test_a_header_on_a_wrong_name_or_type_is_a_definition_error(
    annotation: str, problem: str
) -> None:
    from toolkit import ToolDefinitionError

    scope: dict[str, Any] = {"Annotated": Annotated, "Param": Param}
    exec(f"def f(region: {annotation}) -> str:\n    return ''", scope)
    with pytest.raises(ToolDefinitionError, match=problem):
        ToolSet().tool(scope["f"])


def _call(region: str, header: str | None) -> tuple[dict[str, Any], dict[str, str]]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "weather",
            "arguments": {"region": region},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "weather",
    }
    if header is not None:
        headers["mcp-param-region"] = header
    return body, headers


@pytest.mark.parametrize(
    ("region", "header", "accepted"),
    [
        ("eu-west", "eu-west", True),
        ("zürich", "=?base64?esO8cmljaA==?=", True),
        ("eu-west", "us-east", False),
        ("eu-west", None, False),
        ("eu-west", "=?base64?not base64!?=", False),
    ],
)
def test_the_server_checks_the_header_against_the_argument(
    region: str, header: str | None, accepted: bool
) -> None:
    import httpx2

    from tests.test_mcp_http import served
    from toolkit import mcp

    async def main() -> tuple[int, dict[str, Any]]:
        async with (
            served(mcp.asgi_app(routed, json_response=True)) as base,
            httpx2.AsyncClient(timeout=60) as client,
        ):
            body, headers = _call(region, header)
            reply = await client.post(base + "/mcp", json=body, headers=headers)
            return reply.status_code, reply.json()

    status, answer = run(main())
    if accepted:
        assert status == 200
        assert answer["result"]["content"][0]["text"] == f"sunny in {region}"
    else:
        assert status == 400
        assert answer["error"]["code"] == -32020
