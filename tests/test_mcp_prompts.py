"""`@prompt`: functions served by `prompts/list` and `prompts/get`, beside the tools, in both protocol generations.

The oracle is the official SDK's client (`mcp.client.Client`), connected in
memory to `build_server` at 2025-11-25 (`mode="legacy"`: the server sends
its elicitation request over the session) and at 2026-07-28 (the answer is
an `InputRequiredResult`, and the client asks again with the answers); the
hostile requests go as raw JSON-RPC over HTTP to `asgi_app`.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import pathlib
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

import httpx2
import mcp.types as types
import pytest
from mcp.client import Client
from mcp.shared.exceptions import MCPError

from toolkit import Context, Image, Param, Resource, ToolDefinitionError, ToolSet
from toolkit import mcp as toolkit_mcp
from toolkit.mcp import Prompt, build_server, prompt
from toolkit.sets._target import load_target

ROOT = pathlib.Path(__file__).parent.parent
VERSIONS = {"legacy": "2025-11-25", "2026-07-28": "2026-07-28"}
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC"
)
runs: dict[str, int] = {}

tools = ToolSet()


@tools.tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


@prompt
def review(
    code: str,
    focus: Literal["style", "bugs"] = "bugs",
    note: Annotated[str | None, Param(description="Anything else.")] = None,
) -> str:
    """Review a piece of code.

    Args:
        code: The code to review.
        focus: What to look at.
    """
    return f"Review this code for {focus}: {code} ({note or 'no note'})"


@prompt(name="picture", title="A picture")
def picture_prompt(uri: str) -> list[Image | Resource | str]:
    """Show a picture and a document.

    Args:
        uri: Where the document lives.
    """
    return [
        Image.from_bytes(PNG),
        Resource(uri, mime_type="text/plain", text="the document"),
        "Describe both.",
    ]


@prompt
async def with_context(ctx: Context) -> str:
    """Ask the user for the context first."""
    runs["with_context"] = runs.get("with_context", 0) + 1
    form = {
        "type": "object",
        "properties": {"context": {"type": "string"}},
        "required": ["context"],
    }
    answer = await ctx.elicit("What context?", form, key="user_context")
    return f"Context: {(answer.data or {}).get('context')}"


@prompt
def broken() -> str:
    """Fail."""
    raise RuntimeError("the template is gone")


for item in (review, picture_prompt, with_context, broken):
    tools.add(item)


@contextlib.asynccontextmanager
async def connect(mode: str, **options: Any) -> AsyncIterator[Client]:
    asked: list[Any] = []

    async def elicitation(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params)
        return types.ElicitResult(action="accept", content={"context": "a test"})

    async with Client(
        build_server(tools), mode=mode, elicitation_callback=elicitation, **options
    ) as client:
        assert client.protocol_version == VERSIONS[mode]
        client.asked = asked  # type: ignore[attr-defined]  # what the user was asked
        yield client


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 60))


@pytest.mark.parametrize("mode", list(VERSIONS))
def test_prompts_are_listed_with_their_arguments_and_are_no_tools(mode: str) -> None:
    async def main() -> tuple[Any, Any, Any]:
        async with connect(mode) as client:
            return (
                await client.list_prompts(),
                await client.list_tools(),
                client.server_capabilities,
            )

    prompts, listed_tools, capabilities = run(main())
    assert [item.name for item in listed_tools.tools] == ["add"]
    assert [item.name for item in prompts.prompts] == [
        "review",
        "picture",
        "with_context",
        "broken",
    ]
    first = prompts.prompts[0]
    assert first.description == "Review a piece of code."
    assert [(a.name, a.description, a.required) for a in first.arguments or []] == [
        ("code", "The code to review.", True),
        ("focus", "What to look at.", False),
        ("note", "Anything else.", False),
    ]
    assert prompts.prompts[1].title == "A picture"
    if mode == "legacy":
        assert capabilities.prompts is not None


@pytest.mark.parametrize("mode", list(VERSIONS))
def test_a_prompt_answers_its_messages(mode: str) -> None:
    async def main() -> tuple[Any, Any]:
        async with connect(mode) as client:
            return (
                await client.get_prompt("review", {"code": "x = 1", "focus": "style"}),
                await client.get_prompt("picture", {"uri": "test://doc"}),
            )

    text, parts = run(main())
    assert text.description == "Review a piece of code."
    assert [(m.role, m.content.type) for m in text.messages] == [("user", "text")]
    assert text.messages[0].content.text == (
        "Review this code for style: x = 1 (no note)"
    )
    assert [(m.role, m.content.type) for m in parts.messages] == [
        ("user", "image"),
        ("user", "resource"),
        ("user", "text"),
    ]
    image, resource, last = (m.content for m in parts.messages)
    assert (base64.b64decode(image.data), image.mime_type) == (PNG, "image/png")
    assert (str(resource.resource.uri), resource.resource.text) == (
        "test://doc",
        "the document",
    )
    assert last.text == "Describe both."


@pytest.mark.parametrize("mode", list(VERSIONS))
def test_a_prompt_asks_the_user_through_its_context(mode: str) -> None:
    """2025-11-25: one run, an elicitation request; 2026-07-28: an input-required round, then a second run."""

    async def main() -> tuple[Any, list[Any]]:
        async with connect(mode) as client:
            got = await client.get_prompt("with_context")
            return got, client.asked  # type: ignore[attr-defined]

    runs.clear()
    got, asked = run(main())
    assert [m.content.text for m in got.messages] == ["Context: a test"]
    assert [params.message for params in asked] == ["What context?"]
    assert runs["with_context"] == (1 if mode == "legacy" else 2)


def _meta() -> dict[str, Any]:
    return {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    }


async def _post(http: httpx2.AsyncClient, method: str, params: Any) -> Any:
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
    }
    if isinstance(params, dict) and "name" in params:
        headers["mcp-name"] = str(params["name"])
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
    reply = await http.post("/mcp", content=json.dumps(body), headers=headers)
    return reply.json()


def test_the_2026_rounds_are_an_input_required_result_then_the_messages() -> None:
    async def main() -> tuple[Any, Any]:
        app = toolkit_mcp.asgi_app(tools)
        transport = httpx2.ASGITransport(app=app)
        async with (
            app.lifespan(),
            httpx2.AsyncClient(
                transport=transport, base_url="http://127.0.0.1:8000", timeout=60
            ) as http,
        ):
            params = {"_meta": _meta(), "name": "with_context"}
            first = (await _post(http, "prompts/get", params))["result"]
            answer = {"action": "accept", "content": {"context": "raw"}}
            again = {
                **params,
                "inputResponses": {"user_context": answer},
                "requestState": first["requestState"],
            }
            second = (await _post(http, "prompts/get", again))["result"]
            return first, second

    first, second = run(main())
    assert first["resultType"] == "input_required"
    question = first["inputRequests"]["user_context"]
    assert question["method"] == "elicitation/create"
    assert question["params"]["requestedSchema"]["required"] == ["context"]
    assert second["messages"] == [
        {"role": "user", "content": {"type": "text", "text": "Context: raw"}}
    ]


HOSTILE: dict[str, dict[str, Any]] = {
    "unknown prompt": {"name": "nope"},
    "a required argument missing": {"name": "review", "arguments": {}},
    "an unknown argument": {
        "name": "review",
        "arguments": {"code": "x", "extra": "y"},
    },
    "a value outside the Literal": {
        "name": "review",
        "arguments": {"code": "x", "focus": "speed"},
    },
    "a number for a string": {"name": "review", "arguments": {"code": 5}},
    "arguments that are a list": {"name": "review", "arguments": ["x"]},
    "a name that is no string": {"name": 7},
    "the function fails": {"name": "broken"},
}


def test_bad_requests_are_json_rpc_errors_and_the_server_goes_on() -> None:
    async def main() -> tuple[dict[str, Any], Any, Any]:
        app = toolkit_mcp.asgi_app(tools)
        transport = httpx2.ASGITransport(app=app, raise_app_exceptions=True)
        async with (
            app.lifespan(),
            httpx2.AsyncClient(
                transport=transport, base_url="http://127.0.0.1:8000", timeout=60
            ) as http,
        ):
            answers = {
                case: await _post(http, "prompts/get", {"_meta": _meta(), **params})
                for case, params in HOSTILE.items()
            }
            huge = "x" * 3_000_000
            big = await _post(
                http,
                "prompts/get",
                {"_meta": _meta(), "name": "review", "arguments": {"code": huge}},
            )
            after = await _post(
                http,
                "prompts/get",
                {"_meta": _meta(), "name": "review", "arguments": {"code": "y"}},
            )
            return answers, big, after

    answers, big, after = run(main())
    for case, answer in answers.items():
        assert "result" not in answer, case
        # A name that is no string cannot match its Mcp-Name header (-32020).
        code = -32020 if case == "a name that is no string" else -32602
        assert answer["error"]["code"] == code, (case, answer)
    messages = {case: answer["error"]["message"] for case, answer in answers.items()}
    assert messages["unknown prompt"] == "Unknown prompt: nope"
    assert (
        "code: required property is missing" in messages["a required argument missing"]
    )
    assert "extra: unknown argument" in messages["an unknown argument"]
    assert "RuntimeError" in messages["the function fails"]
    assert "the template is gone" in messages["the function fails"]
    text = big["result"]["messages"][0]["content"]["text"]
    assert len(text) > 3_000_000
    assert after["result"]["messages"][0]["content"]["text"].endswith("y (no note)")


def test_a_parameter_that_takes_no_text_is_refused_at_decoration() -> None:
    with pytest.raises(ToolDefinitionError) as raised:

        @prompt
        def count(word: str, times: int) -> str:
            """Repeat."""
            return word * times

    message = str(raised.value)
    assert "count" in message
    assert "'times'" in message
    assert "annotate it str" in message


def test_a_prompt_is_a_tool_that_toolkit_serve_finds_in_a_file() -> None:
    """The conformance example's module-level prompts: prompts of the served set, not tools."""

    async def main() -> tuple[list[str], list[str]]:
        served = load_target(str(ROOT / "examples" / "mcp_conformance_server.py"))
        async with Client(build_server(served)) as client:
            listed = await client.list_prompts()
            called = await client.list_tools()
        return [p.name for p in listed.prompts], [t.name for t in called.tools]

    prompts, names = run(main())
    assert prompts == [
        "test_simple_prompt",
        "test_prompt_with_arguments",
        "test_prompt_with_embedded_resource",
        "test_prompt_with_image",
        "test_input_required_result_prompt",
    ]
    assert not set(prompts) & set(names)
    assert "test_simple_text" in names
    assert isinstance(review, Prompt)
    assert review(code="c") == "Review this code for bugs: c (no note)"


def test_a_call_of_a_prompt_as_a_tool_is_an_unknown_tool() -> None:
    async def main() -> MCPError:
        async with connect("2026-07-28") as client:
            with pytest.raises(MCPError) as raised:
                await client.call_tool("review", {"code": "x"})
            return raised.value

    error = run(main())
    assert error.error.code == -32602
    assert "review" in error.error.message


@pytest.mark.parametrize("mode", list(VERSIONS))
def test_the_official_client_gets_errors_it_raises_and_the_session_goes_on(
    mode: str,
) -> None:
    async def main() -> tuple[list[Any], Any]:
        async with connect(mode) as client:
            errors = []
            for name, arguments in [
                ("nope", {}),
                ("review", {}),
                ("review", {"code": "x", "focus": "speed"}),
                ("broken", {}),
            ]:
                with pytest.raises(MCPError) as raised:
                    await client.get_prompt(name, arguments)
                errors.append(raised.value.error)
            return errors, await client.get_prompt("review", {"code": "z"})

    errors, after = run(main())
    assert [error.code for error in errors] == [-32602] * 4
    assert errors[0].message == "Unknown prompt: nope"
    assert "focus" in errors[2].message
    assert after.messages[0].content.text.startswith("Review this code for bugs: z")


class WithClassPrompt:
    @prompt
    @classmethod
    def greeting(cls, who: str) -> str:
        """Greet someone, from the class."""
        return f"Hello, {who} ({cls.__name__})"


def test_a_classmethod_prompt_is_read_from_its_class_as_a_classmethod_tool_is() -> None:
    made = WithClassPrompt.greeting
    assert isinstance(made, Prompt)
    toolset = ToolSet([made])

    async def main() -> str:
        async with Client(build_server(toolset)) as client:
            got = await client.get_prompt("greeting", {"who": "Ada"})
        content = got.messages[0].content
        assert isinstance(content, types.TextContent)
        return content.text

    assert run(main()) == "Hello, Ada (WithClassPrompt)"


@prompt
def long_review(code: str) -> str:
    """Review code at length."""
    return "Review this: " + code * 50


def test_a_prompt_is_not_held_to_the_sets_approval_rule_or_output_limit() -> None:
    asked: list[str] = []

    async def elicit(context: Any, params: Any) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"approve": True})

    async def main(toolset: ToolSet) -> str:
        async with Client(
            build_server(toolset), mode="legacy", elicitation_callback=elicit
        ) as client:
            got = await client.get_prompt("long_review", {"code": "x = 1\n"})
        content = got.messages[0].content
        assert isinstance(content, types.TextContent)
        return content.text

    expected = "Review this: " + "x = 1\n" * 50
    assert run(main(ToolSet([add, long_review], requires_approval=True))) == expected
    assert run(main(ToolSet([add, long_review], max_output_chars=120))) == expected
    assert asked == []


def test_the_start_up_count_leaves_prompts_out_of_deferred_tools_too() -> None:
    deferred = toolkit_mcp.asgi_app(ToolSet([add, long_review], defer_loading=True))
    assert (
        deferred.tool_count == 1
    )  # tools/list offers search_tools; a prompt is no tool
    assert toolkit_mcp.asgi_app(ToolSet([add, long_review])).tool_count == 1
