"""The tools the official MCP conformance suite calls, served by `toolkit serve`.

The suite (`@modelcontextprotocol/conformance`) connects to a running server
and checks each scenario against the tool it names: `test_simple_text` must
answer with text, `test_error_handling` with an `isError` result,
`test_image_content` with an image block, `json_schema_2020_12_tool` must
keep `$schema`, `$defs` and `additionalProperties` in its `inputSchema`, and
so on. `make conformance` serves this file over streamable HTTP and runs the
suite against it:

    toolkit serve examples/mcp_conformance_server.py --http 127.0.0.1:8765

The tools that log, report progress, sample and elicit do it through their
`Context`: the MCP server is their host. The `@prompt` functions at the end
are the suite's prompts, which prompts/list and prompts/get serve. Scenarios
about what toolkit does not serve (resources, completion) are listed with
their reason in `.ci/conformance-expected-failures.yml`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import struct
import zlib
from typing import Annotated, Any, Literal

from toolkit import (
    Audio,
    Context,
    Image,
    Param,
    Resource,
    Tool,
    ToolError,
    ToolResult,
    ToolSet,
)
from toolkit.mcp import prompt

tools = ToolSet()


def red_pixel() -> bytes:
    """A 1x1 red PNG, built with zlib and struct."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body) & 0xFFFFFFFF
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00"))
        + chunk(b"IEND", b"")
    )


def silence() -> bytes:
    """A WAV file of 8 silent samples: 8 kHz, 8-bit, mono."""
    samples = b"\x80" * 8
    fmt = struct.pack("<HHIIHH", 1, 1, 8000, 8000, 1, 8)
    body = (
        b"WAVE"
        + b"fmt "
        + struct.pack("<I", len(fmt))
        + fmt
        + b"data"
        + struct.pack("<I", len(samples))
        + samples
    )
    return b"RIFF" + struct.pack("<I", len(body)) + body


@tools.tool
def test_simple_text() -> str:
    """Answer with a line of text."""
    return "This is a simple text response for testing."


@tools.tool
def test_error_handling() -> str:
    """Always fail, as an error result the model can read."""
    message = "This tool intentionally returns an error for testing"
    raise ToolError(message)


@tools.tool
def test_image_content() -> Image:
    """Answer with a 1x1 red PNG image."""
    return Image.from_bytes(red_pixel())


@tools.tool
def test_audio_content() -> Audio:
    """Answer with a short silent WAV recording."""
    return Audio.from_bytes(silence())


@tools.tool
def test_embedded_resource() -> Resource:
    """Answer with an embedded text resource."""
    return Resource(
        "test://embedded-resource",
        mime_type="text/plain",
        text="This is an embedded resource content.",
    )


@tools.tool
def test_multiple_content_types() -> list[str | Image | Resource]:
    """Answer with text, an image and an embedded JSON resource."""
    return [
        "Multiple content types test:",
        Image.from_bytes(red_pixel()),
        Resource(
            "test://mixed-content-resource",
            mime_type="application/json",
            text='{"test":"data","value":123}',
        ),
    ]


def _describe_address(agent_id: str, call_id: str, args: dict[str, Any]) -> ToolResult:
    address = args.get("address") or {}
    return ToolResult.ok(
        f"{args.get('name', 'someone')} lives at {address.get('street', '?')}, {address.get('city', '?')}."
    )


# A schema written by hand (Tool.new) keeps every JSON Schema 2020-12 keyword
# it has, `$schema`, a lower-case `$defs` name, `$anchor`, `allOf` and
# `if`/`then`/`else` included, as the suite checks.
tools.add(
    Tool.new(
        name="json_schema_2020_12_tool",
        description="Tool with JSON Schema 2020-12 features",
        parameters={
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {
                "address": {
                    "$anchor": "addressDef",
                    "type": "object",
                    "properties": {
                        "street": {"type": "string"},
                        "city": {"type": "string"},
                    },
                }
            },
            "properties": {
                "name": {"type": "string"},
                "address": {"$ref": "#/$defs/address"},
                "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                "phone": {"type": "string"},
                "email": {"type": "string"},
            },
            "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
            "if": {
                "properties": {"contactMethod": {"const": "phone"}},
                "required": ["contactMethod"],
            },
            "then": {"required": ["phone"]},
            "else": {"required": ["email"]},
            "additionalProperties": False,
        },
        execute_fn=_describe_address,
    )
)


@tools.tool
async def test_tool_with_logging(ctx: Context) -> str:
    """Send three log records while working."""
    await ctx.log("info", "Tool execution started")
    await asyncio.sleep(0.05)
    await ctx.log("info", "Tool processing data")
    await asyncio.sleep(0.05)
    await ctx.log("info", "Tool execution completed")
    return "Tool with logging executed successfully"


@tools.tool
async def test_tool_with_progress(ctx: Context) -> str:
    """Report progress 0, 50 and 100 of 100."""
    for done in (0, 50, 100):
        await ctx.report_progress(done, total=100)
        if done < 100:
            await asyncio.sleep(0.05)
    return "Tool with progress executed successfully"


@tools.tool
async def test_sampling(prompt: str, ctx: Context) -> str:
    """Ask the client's model to complete a prompt.

    Args:
        prompt: The prompt to send to the LLM.
    """
    text = await ctx.sample(prompt, max_tokens=100)
    return f"LLM response: {text}"


@dataclasses.dataclass
class UserInfo:
    """Who the user is.

    Attributes:
        username: User's response
        email: User's email address
    """

    username: str
    email: str


@tools.tool
async def test_elicitation(message: str, ctx: Context) -> str:
    """Ask the user for their name and email address.

    Args:
        message: The message to show the user.
    """
    answer = await ctx.elicit(message, UserInfo)
    content = dataclasses.asdict(answer.data) if answer.data else None
    return f"User response: action={answer.action}, content={content}"


@dataclasses.dataclass
class Defaults:
    """A form whose every field has a default.

    Attributes:
        name: User name
        age: User age
        score: User score
        status: User status
        verified: Verification status
    """

    name: str = "John Doe"
    age: int = 30
    score: float = 95.5
    status: Literal["active", "inactive", "pending"] = "active"
    verified: bool = True


@tools.tool
async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
    """Ask the user to confirm a form with a default for each kind of field."""
    answer = await ctx.elicit("Please review and update the form fields", Defaults)
    content = dataclasses.asdict(answer.data) if answer.data else None
    return f"Elicitation completed: action={answer.action}, content={content}"


def _choices(prefix: str, titles: list[str]) -> list[dict[str, str]]:
    return [
        {"const": f"{prefix}{index}", "title": title}
        for index, title in enumerate(titles, start=1)
    ]


# Every kind of choice a form can hold; the legacy `enumNames` form has no
# Python type, so this question is a JSON Schema dict.
ENUMS = {
    "type": "object",
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {
            "type": "string",
            "oneOf": _choices(
                "value", ["First Option", "Second Option", "Third Option"]
            ),
        },
        "legacyEnum": {
            "type": "string",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "items": {
                "anyOf": _choices(
                    "value", ["First Choice", "Second Choice", "Third Choice"]
                )
            },
        },
    },
    "required": [],
}


@tools.tool
async def test_elicitation_sep1330_enums(ctx: Context) -> str:
    """Ask the user to pick from every kind of choice."""
    answer = await ctx.elicit("Please pick your options", ENUMS)
    return f"Elicitation completed: action={answer.action}, content={answer.data}"


RECONNECTION_SECONDS = 1.5
"""How long `test_reconnection` works: longer than the 1 second `--sse-poll`
that `make conformance` serves this file with, shorter than two of them."""


@tools.tool
async def test_reconnection() -> str:
    """Work for longer than the server's SSE poll, so that the answer comes after a reconnection.

    Served with `--sse-poll 1`, the server ends this call's event stream
    after 1 second while the tool still works; the client reconnects with
    `Last-Event-ID` and is sent the answer.
    """
    await asyncio.sleep(RECONNECTION_SECONDS)
    return "Reconnection test completed"


# ---------------------------------------------------------------- 2026-07-28
#
# A client of protocol 2026-07-28 is asked in the call's result: the tool
# stops at a question, the call answers with it (`inputRequests`, under the
# `key` the tool gives it, and a sealed `requestState`), and the client calls
# again with the answer. Clients of 2025-11-25 are asked over the session.

NAME_FORM = {
    "type": "object",
    "properties": {"name": {"type": "string"}},
    "required": ["name"],
}
CONFIRM_FORM = {
    "type": "object",
    "properties": {"ok": {"type": "boolean"}},
    "required": ["ok"],
}


async def _name(ctx: Context, key: str, message: str = "What is your name?") -> str:
    answer = await ctx.elicit(message, NAME_FORM, key=key)
    return str((answer.data or {}).get("name", "friend"))


@tools.tool
async def test_input_required_result_elicitation(ctx: Context) -> str:
    """Ask the user's name (question `user_name`) and greet them."""
    return f"Hello, {await _name(ctx, 'user_name')}!"


@tools.tool
async def test_input_required_result_sampling(ctx: Context) -> str:
    """Ask the client's model a question (`capital_question`)."""
    text = await ctx.sample(
        "What is the capital of France?", max_tokens=100, key="capital_question"
    )
    return f"Sampling result: {text}"


@tools.tool
async def test_input_required_result_list_roots(ctx: Context) -> str:
    """Ask the client for its roots (`client_roots`)."""
    roots = await ctx.roots(key="client_roots")
    return f"Found {len(roots)} root(s)"


@tools.tool
async def test_input_required_result_request_state(ctx: Context) -> str:
    """Ask for a confirmation (`confirm`); the answers so far travel in the sealed requestState."""
    answer = await ctx.elicit("Please confirm", CONFIRM_FORM, key="confirm")
    return f"state-ok: requestState validated (action={answer.action})"


@tools.tool
async def test_input_required_result_multiple_inputs(ctx: Context) -> str:
    """Ask three questions in one round: awaited together, they are asked together."""
    name, greeting, roots = await asyncio.gather(
        _name(ctx, "user_name"),
        ctx.sample("Generate a greeting", max_tokens=50, key="greeting"),
        ctx.roots(key="client_roots"),
    )
    return f"Name: {name}; Greeting: {greeting}; Roots: {len(roots)}"


@tools.tool
async def test_input_required_result_multi_round(ctx: Context) -> str:
    """Ask two questions one after the other: two rounds."""
    name = await _name(ctx, "step1", "Step 1: What is your name?")
    answer = await ctx.elicit(
        "Step 2: What is your favorite color?",
        {
            "type": "object",
            "properties": {"color": {"type": "string"}},
            "required": ["color"],
        },
        key="step2",
    )
    return (
        f"Multi-round complete for {name} who likes {(answer.data or {}).get('color')}"
    )


@tools.tool
async def test_input_required_result_tampered_state(ctx: Context) -> str:
    """Ask for a confirmation; a requestState changed by the client is refused (-32602)."""
    await ctx.elicit("Please confirm", CONFIRM_FORM, key="confirm")
    return "integrity-ok: state verified"


@tools.tool
async def test_input_required_result_capabilities(ctx: Context) -> str:
    """Ask only the client's model, so that a client with sampling alone can answer."""
    await ctx.sample("Sample request", max_tokens=50, key="sample_input")
    return "capabilities-ok: received sample_input"


@tools.tool
async def test_missing_capability(ctx: Context) -> str:
    """Sample: a 2026-07-28 client that did not declare sampling gets error -32021 (HTTP 400)."""
    await ctx.sample("Say something", max_tokens=20)
    return "Success"


@tools.tool
async def test_streaming_elicitation(ctx: Context) -> str:
    """Elicit: a 2026-07-28 client is asked in the result, never by a request on the stream."""
    await ctx.elicit("Please confirm", CONFIRM_FORM, key="confirm")
    return "Streaming complete"


@tools.tool
async def test_logging_tool(ctx: Context) -> str:
    """Log a record: a 2026-07-28 client gets it only when its request asked for a log level."""
    await ctx.log("info", "Diagnostic trace logging activated")
    return "Logging evaluated"


@tools.tool
def test_header_parameter(region: Annotated[str, Param(header="Region")]) -> str:
    """Answer for a region that 2026-07-28 clients also send as the `Mcp-Param-Region` header.

    Args:
        region: The region, mirrored into the header; the server refuses a
            call whose header and argument differ.
    """
    return f"Region: {region}"


# ---------------------------------------------------------------- tasks
#
# A tool declared `task=...` becomes a task (the io.modelcontextprotocol/tasks
# extension) for a client that declared the extension, once it works for
# longer than a moment: the call answers with the task, and the client
# follows it with tasks/get, answers its questions with tasks/update and can
# stop it with tasks/cancel.


@tools.tool
def greet(name: str) -> str:
    """Greet someone; never a task.

    Args:
        name: Who to greet.
    """
    return f"Hello, {name}!"


@tools.tool(task="optional")
async def slow_compute(seconds: float, label: str = "") -> str:
    """Work for a while, as a task for clients that take tasks.

    Args:
        seconds: How long to work.
        label: A name for the work.
    """
    await asyncio.sleep(seconds)
    return f"Computed {label or 'result'} in {seconds:g}s"


@tools.tool(task="required")
async def failing_job() -> str:
    """Work for a second, then fail with an error result; only as a task."""
    await asyncio.sleep(1)
    message = "The job failed, as it always does"
    raise ToolError(message)


@tools.tool(task="optional")
async def protocol_error_job(ctx: Context) -> str:
    """Ask the client for its roots after a moment: a client without the roots capability fails the task."""
    await asyncio.sleep(0.5)
    roots = await ctx.roots()
    return f"{len(roots)} roots"


@tools.tool(task="optional")
async def confirm_delete(ctx: Context, filename: str = "example.txt") -> str:
    """Ask the user to confirm a deletion, once the task has started.

    Args:
        filename: What to delete.
    """
    await asyncio.sleep(0.5)
    answer = await ctx.elicit(f"Delete {filename}?", CONFIRM_FORM, key="confirm")
    confirmed = answer.accepted and bool((answer.data or {}).get("ok"))
    return f"{'Deleted' if confirmed else 'Kept'} {filename}"


@tools.tool(task="optional")
async def multi_input(ctx: Context) -> str:
    """Ask two questions at once, once the task has started."""
    await asyncio.sleep(0.5)
    first, second = await asyncio.gather(
        _name(ctx, "first_name", "Your first name?"),
        _name(ctx, "last_name", "Your last name?"),
    )
    return f"Hello, {first} {second}!"


@tools.tool(task="required")
async def test_tool_with_task(ctx: Context) -> str:
    """Ask the user's name in the call, then work on as a task."""
    name = await _name(ctx, "user_name")
    await asyncio.sleep(1)
    return f"Task done for {name}"


# ------------------------------------------------------------------ prompts
# `@prompt` functions are served by prompts/list and prompts/get, not as tools;
# each part a prompt returns is one user message.


@prompt
def test_simple_prompt() -> str:
    """A prompt without arguments."""
    return "This is a simple prompt for testing."


@prompt
def test_prompt_with_arguments(arg1: str, arg2: str) -> str:
    """A prompt whose text holds its two arguments.

    Args:
        arg1: First test argument.
        arg2: Second test argument.
    """
    return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"


@prompt
def test_prompt_with_embedded_resource(resourceUri: str) -> list[Resource | str]:
    """A prompt that embeds a resource.

    Args:
        resourceUri: URI of the resource to embed.
    """
    embedded = Resource(
        resourceUri,
        mime_type="text/plain",
        text="Embedded resource content for testing.",
    )
    return [embedded, "Please process the embedded resource above."]


@prompt
def test_prompt_with_image() -> list[Image | str]:
    """A prompt with an image."""
    return [Image.from_bytes(red_pixel()), "Please analyze the image above."]


CONTEXT_FORM = {
    "type": "object",
    "properties": {"context": {"type": "string"}},
    "required": ["context"],
}


@prompt
async def test_input_required_result_prompt(ctx: Context) -> str:
    """A prompt that first asks the user for its context (question `user_context`)."""
    answer = await ctx.elicit(
        "What context should the prompt use?", CONTEXT_FORM, key="user_context"
    )
    return f"Use this context: {(answer.data or {}).get('context', '')}"
