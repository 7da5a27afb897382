"""The MCP server is a host: the official `mcp` client drives each Context method.

Every test runs against both protocol generations the SDK speaks: the
2025-11-25 handshake (`mode="legacy"`: the server sends sampling and
elicitation requests back over the session) and 2026-07-28 (the SDK
client's default: the call answers with an input-required result and the
client calls again with the answers). The client is connected in process;
`test_served_over_http` does the same through `toolkit serve`.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import pathlib
import threading
import time
import warnings
from collections.abc import AsyncIterator, Iterator
from typing import Any, Literal

import mcp.types as types
import pytest
from mcp.client import Client
from mcp.shared.exceptions import MCPDeprecationWarning

from tests.servers import serving
from toolkit import Context, ToolSet
from toolkit.mcp import build_server
from toolkit.mcp._host import _decode_state, _encode_state

ROOT = pathlib.Path(__file__).parent.parent
MODES = ["legacy", "2026-07-28"]
VERSIONS = {"legacy": "2025-11-25", "2026-07-28": "2026-07-28"}


@dataclasses.dataclass
class Who:
    """Who you are.

    Attributes:
        name: Your name.
    """

    name: str
    age: int = 30
    role: Literal["admin", "user"] = "user"


class Probe:
    """What the tools saw, for the tests to read."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.cancelled: list[str] = []
        self.runs: dict[str, int] = {}


probe = Probe()
tools = ToolSet()


@tools.tool
async def report(ctx: Context) -> str:
    """Report three steps and log at three levels."""
    for step in (1, 2, 3):
        await ctx.report_progress(step, total=3, message=f"step {step}")
    await ctx.log("debug", "details")
    await ctx.log("info", "halfway", step=2)
    await ctx.log("warning", "careful")
    return "reported"


@tools.tool
async def ask(ctx: Context) -> str:
    """Sample, then ask the user."""
    probe.runs["ask"] = probe.runs.get("ask", 0) + 1
    text = await ctx.sample("Say hi", system="Be brief", max_tokens=20)
    answer = await ctx.elicit(f"The model said {text!r}. Who are you?", Who)
    return f"{text} / {answer.action} {answer.data!r}"


@tools.tool
def sync_ask(ctx: Context) -> str:
    """The same from a sync tool, in a worker thread."""
    ctx.sync.report_progress(1, total=1)
    text = ctx.sync.sample("Say hi", system="Be brief", max_tokens=20)
    answer = ctx.sync.elicit(f"The model said {text!r}. Who are you?", Who)
    return f"{text} / {answer.action} {answer.data!r}"


@tools.tool
async def wait_async(ctx: Context) -> str:
    """Wait until cancelled."""
    probe.started.set()
    try:
        await asyncio.sleep(60)
    except asyncio.CancelledError:
        probe.cancelled.append("async")
        raise
    return "finished"


@tools.tool
def wait_sync(ctx: Context) -> str:
    """Poll ctx.cancelled until it is true."""
    probe.started.set()
    deadline = time.monotonic() + 60
    while not ctx.cancelled and time.monotonic() < deadline:
        time.sleep(0.01)
    probe.cancelled.append(f"sync:{ctx.cancelled}")
    return "stopped"


class Callbacks:
    """The client side: a model and a user that answer, and what they were asked."""

    def __init__(
        self, action: str = "accept", content: dict[str, Any] | None = None
    ) -> None:
        self.samples: list[types.CreateMessageRequestParams] = []
        self.questions: list[Any] = []
        self.logs: list[tuple[str, Any, Any]] = []
        self.progress: list[tuple[float, float | None, str | None]] = []
        self.notifications: list[str] = []
        self.action = action
        self.content = content if content is not None else {"name": "Ann"}

    async def sampling(
        self, context: Any, params: types.CreateMessageRequestParams
    ) -> types.CreateMessageResult:
        self.samples.append(params)
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="hi"),
            model="test-model",
        )

    async def elicitation(self, context: Any, params: Any) -> types.ElicitResult:
        self.questions.append(params)
        return types.ElicitResult(action=self.action, content=self.content)  # type: ignore[arg-type]

    async def logging(self, params: types.LoggingMessageNotificationParams) -> None:
        self.logs.append((params.level, params.logger, params.data))

    async def on_progress(
        self, progress: float, total: float | None, message: str | None
    ) -> None:
        self.progress.append((progress, total, message))

    async def messages(self, message: Any) -> None:
        method = getattr(getattr(message, "root", message), "method", None)
        if method is not None:
            self.notifications.append(method)


@contextlib.asynccontextmanager
async def connect(
    mode: str,
    callbacks: Callbacks | None = None,
    *,
    capable: bool = True,
    **options: Any,
) -> AsyncIterator[Client]:
    callbacks = callbacks or Callbacks()
    if capable:
        options.update(
            sampling_callback=callbacks.sampling,
            elicitation_callback=callbacks.elicitation,
        )
    async with Client(
        build_server(tools),
        mode=mode,
        logging_callback=callbacks.logging,
        message_handler=callbacks.messages,
        **options,
    ) as client:
        assert client.protocol_version == VERSIONS[mode]
        yield client


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 60))


def text_of(result: types.CallToolResult) -> str:
    return "".join(
        block.text for block in result.content if isinstance(block, types.TextContent)
    )


@pytest.mark.parametrize("mode", MODES)
def test_progress_reaches_the_client_for_its_token(mode: str) -> None:
    """A progress handler gets every step, in order, with total and message."""
    callbacks = Callbacks()

    async def main() -> str:
        async with connect(mode, callbacks) as client:
            return text_of(
                await client.call_tool(
                    "report", {}, progress_callback=callbacks.on_progress
                )
            )

    assert run(main()) == "reported"
    assert [(float(p), float(t or 0), m) for p, t, m in callbacks.progress] == [
        (1.0, 3.0, "step 1"),
        (2.0, 3.0, "step 2"),
        (3.0, 3.0, "step 3"),
    ]


def test_no_progress_is_sent_without_a_token() -> None:
    """A call without a progress token gets no notifications/progress."""
    callbacks = Callbacks()

    async def main() -> str:
        async with connect("legacy", callbacks) as client:
            return text_of(await client.call_tool("report", {}))

    assert run(main()) == "reported"
    assert "notifications/progress" not in callbacks.notifications
    assert "notifications/message" in callbacks.notifications


def test_the_server_declares_logging_and_set_level_filters() -> None:
    """Every level until logging/setLevel; then that level and above."""
    callbacks = Callbacks()

    async def main() -> None:
        async with connect("legacy", callbacks) as client:
            assert client.server_capabilities.logging is not None
            await client.call_tool("report", {})
            with (
                warnings.catch_warnings()
            ):  # the SDK marks the capability deprecated from 2026-07-28
                warnings.simplefilter("ignore", MCPDeprecationWarning)
                await client.set_logging_level("warning")
            await client.call_tool("report", {})

    run(main())
    assert callbacks.logs == [
        ("debug", "report", "details"),
        ("info", "report", {"message": "halfway", "step": 2}),
        ("warning", "report", "careful"),
        ("warning", "report", "careful"),
    ]


@pytest.mark.parametrize(
    ("level", "expected"), [(None, []), ("info", ["info", "warning"])]
)
def test_logging_reaches_2026_clients_that_opt_in(
    level: str | None, expected: list[str]
) -> None:
    """2026-07-28: records at or above the level the request opted in to, none without."""
    callbacks = Callbacks()

    async def main() -> None:
        async with connect("2026-07-28", callbacks, log_level=level) as client:
            await client.call_tool("report", {})

    run(main())
    assert [entry[0] for entry in callbacks.logs] == expected


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["ask", "sync_ask"])
def test_sample_and_elicit_reach_the_clients_model_and_user(
    mode: str, name: str
) -> None:
    """sampling/createMessage and elicitation/create, answered by the client's callbacks."""
    callbacks = Callbacks()

    async def main() -> str:
        async with connect(mode, callbacks) as client:
            return text_of(await client.call_tool(name, {}))

    assert run(main()) == "hi / accept Who(name='Ann', age=30, role='user')"
    assert len(callbacks.samples) == 1
    sample = callbacks.samples[0]
    assert (sample.max_tokens, sample.system_prompt) == (20, "Be brief")
    assert sample.messages[0].role == "user"
    assert sample.messages[0].content == types.TextContent(type="text", text="Say hi")
    assert len(callbacks.questions) == 1
    question = callbacks.questions[0]
    assert question.message == "The model said 'hi'. Who are you?"
    assert question.requested_schema == {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "Your name."},
            "age": {"type": "integer", "default": 30},
            "role": {"type": "string", "enum": ["admin", "user"], "default": "user"},
        },
        "required": ["name"],
    }


def test_2026_reruns_the_tool_once_per_question() -> None:
    """The tool runs again from the start for each answer: three runs for two questions."""
    probe.runs.clear()

    async def main() -> str:
        async with connect("2026-07-28") as client:
            return text_of(await client.call_tool("ask", {}))

    assert run(main()).startswith("hi / accept")
    assert probe.runs["ask"] == 3


def test_a_2026_client_without_the_capabilities_gets_the_missing_capability_error() -> (
    None
):
    """2026-07-28: no sampling capability is JSON-RPC error -32021 naming the capability."""
    from mcp.shared.exceptions import MCPError

    async def main() -> MCPError:
        async with connect("2026-07-28", capable=False) as client:
            with pytest.raises(MCPError) as caught:
                await client.call_tool("ask", {})
            return caught.value

    error = run(main())
    assert error.error.code == -32021
    assert error.error.data == {"requiredCapabilities": {"sampling": {}}}


def test_a_legacy_client_without_the_capabilities_gets_an_error_result() -> None:
    """Up to 2025-11-25: no sampling capability: the tool's error result says so."""

    async def main() -> types.CallToolResult:
        async with connect("legacy", capable=False) as client:
            return await client.call_tool("ask", {})

    result = run(main())
    assert result.is_error
    assert text_of(result) == (
        'Tool "ask" needs to ask the client\'s model for a completion, '
        "but the MCP client did not declare the sampling capability."
    )


@pytest.mark.parametrize("mode", MODES)
def test_declined_and_invalid_answers(mode: str) -> None:
    """A decline comes back without data; an answer that does not fit names its fields."""

    async def call(callbacks: Callbacks) -> types.CallToolResult:
        async with connect(mode, callbacks) as client:
            result: types.CallToolResult = await client.call_tool("ask", {})
            return result

    declined = run(call(Callbacks(action="decline", content={})))
    assert text_of(declined) == "hi / decline None"
    invalid = run(call(Callbacks(content={"age": "old", "role": "root"})))
    assert invalid.is_error
    text = text_of(invalid)
    assert text.startswith("The answer to the question does not fit Who:")
    assert "- name: required property is missing" in text
    assert "- age:" in text
    assert "- role:" in text


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("name", "seen"), [("wait_async", "async"), ("wait_sync", "sync:True")]
)
def test_cancelling_the_call_cancels_the_tool(mode: str, name: str, seen: str) -> None:
    """The client's cancellation reaches the tool: CancelledError, or ctx.cancelled for a sync tool."""
    probe.started.clear()
    probe.cancelled.clear()

    async def main() -> None:
        async with connect(mode) as client:
            call = asyncio.ensure_future(client.call_tool(name, {}))
            await asyncio.get_running_loop().run_in_executor(
                None, probe.started.wait, 30
            )
            call.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await call
            for _ in range(3000):  # the server sees the cancellation within moments
                if probe.cancelled:
                    break
                await asyncio.sleep(0.01)

    run(main())
    assert probe.cancelled == [seen]


def test_request_state_round_trips_and_garbage_reads_as_no_answers() -> None:
    """The state carries the answers; a state this server did not make carries none."""
    answers = {"elicit-abc-0": {"action": "accept", "content": {"name": "Ann"}}}
    assert _decode_state(_encode_state(answers)) == answers
    for garbage in (None, "", "not base64!", "e30=", 5):
        assert _decode_state(garbage) == {}


# ------------------------------------------------------------------ over HTTP


@contextlib.contextmanager
def served(*flags: str) -> Iterator[str]:
    with serving("examples/mcp_conformance_server.py", *flags) as (url, _):
        yield url


def test_served_over_http() -> None:
    """The conformance example's tools through `toolkit serve --http`, with clients of both generations."""
    with served() as url:
        for mode in MODES:
            callbacks = Callbacks(
                content={"username": "ann", "email": "ann@example.com"}
            )

            async def main(
                mode: str = mode, callbacks: Callbacks = callbacks
            ) -> list[str]:
                async with Client(
                    url,
                    mode="legacy" if mode == "legacy" else "auto",
                    sampling_callback=callbacks.sampling,
                    elicitation_callback=callbacks.elicitation,
                    logging_callback=callbacks.logging,
                    log_level=None if mode == "legacy" else "info",
                ) as client:
                    assert client.protocol_version == VERSIONS[mode]
                    texts = []
                    for name, args in [
                        ("test_sampling", {"prompt": "Say hi"}),
                        ("test_elicitation", {"message": "Who are you?"}),
                        ("test_tool_with_logging", {}),
                    ]:
                        texts.append(text_of(await client.call_tool(name, args)))
                    await client.call_tool(
                        "test_tool_with_progress",
                        {},
                        progress_callback=callbacks.on_progress,
                    )
                    return texts

            assert run(main()) == [
                "LLM response: hi",
                "User response: action=accept, content={'username': 'ann', 'email': 'ann@example.com'}",
                "Tool with logging executed successfully",
            ], mode
            assert [entry[2] for entry in callbacks.logs] == [
                "Tool execution started",
                "Tool processing data",
                "Tool execution completed",
            ], mode
            assert [float(entry[0]) for entry in callbacks.progress] == [
                0.0,
                50.0,
                100.0,
            ], mode


@pytest.mark.parametrize("flag", ["--stateless", "--json-response"])
def test_without_a_channel_to_the_client_only_2026_clients_are_asked(flag: str) -> None:
    """A stateless or JSON-answering server: 2026-07-28 clients answer through the rounds; older ones get an error result saying why."""
    with served(flag) as url:

        async def main(mode: str) -> types.CallToolResult:
            callbacks = Callbacks(
                content={"username": "ann", "email": "ann@example.com"}
            )
            async with Client(
                url,
                mode=mode,
                sampling_callback=callbacks.sampling,
                elicitation_callback=callbacks.elicitation,
            ) as client:
                result: types.CallToolResult = await client.call_tool(
                    "test_elicitation", {"message": "Who are you?"}
                )
                return result

        modern = run(main("auto"))
        assert text_of(modern) == (
            "User response: action=accept, content={'username': 'ann', 'email': 'ann@example.com'}"
        )
        legacy = run(main("legacy"))
        assert legacy.is_error
        assert text_of(legacy) == (
            'Tool "test_elicitation" needs to ask the user a question, but this connection '
            "cannot carry a request from the server to the client (the server keeps no "
            "session, or answers with JSON bodies). Clients of MCP protocol 2026-07-28 can answer it."
        )
