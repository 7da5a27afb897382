"""Hostile return values and hostile tool behaviour, through every entry point.

Whatever a tool returns or raises, every entry point (Tool.execute/aexecute,
ToolSet.execute/aexecute/run, run with middleware and truncation, each
provider's handle, the MCP server) answers every call with exactly one
result, in order, without raising and without hanging; only
KeyboardInterrupt and the caller's own cancellation propagate.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import logging
import pathlib
import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests import hostile_tools as hostile
from tests.conftest import chat_message
from tests.servers import stdio_session
from toolkit import ToolCall, ToolResult, ToolSet
from toolkit.providers import anthropic, gemini, mcp, openai, openai_responses

ROOT = pathlib.Path(__file__).parent.parent
T = TypeVar("T")
LIMIT = 60.0  # seconds any one entry point may take before the test calls it a hang


@dataclasses.dataclass(frozen=True)
class Call:
    id: str
    tool: str
    args: dict[str, Any]


@dataclasses.dataclass(frozen=True)
class Seen:
    """What an entry point answered for one call (None: the format does not carry it)."""

    id: str
    text: str | None
    is_error: bool | None


# ------------------------------------------------------------------ expectations


def expected(call: Call) -> tuple[bool, str, bool]:
    """(is an error, the text or its start, whether the text is exact)."""
    if call.tool in hostile.GIVING:
        recipe = call.args["recipe"]
        if hostile.sendable(recipe):
            return False, "", False
        kind = hostile.top_type(recipe)
        return (
            True,
            f'Tool "{call.tool}" returned a value of type {kind} that cannot be sent as JSON: ',
            False,
        )
    kind = call.args["kind"]
    text = hostile.RAISES[kind][1]
    if kind == "stop_iteration" and call.tool in ("athrow", "athrow_timed"):
        text = "RuntimeError: coroutine raised StopIteration"  # what Python makes of it
    return True, text, kind != "recursion"


def check(call: Call, seen: Seen) -> None:
    assert seen.id == call.id
    is_error, text, exact = expected(call)
    if seen.is_error is not None:
        assert seen.is_error is is_error, (call, seen.text and seen.text[:300])
    if seen.text is None:
        return
    assert type(seen.text) is str
    if is_error and exact:
        assert seen.text == text, call
    elif is_error:
        assert seen.text.startswith(text), (call, seen.text[:300])
    else:
        assert not seen.text.startswith(f'Tool "{call.tool}" returned a value'), (
            call,
            seen.text[:300],
        )


def check_all(calls: list[Call], seen: list[Seen]) -> None:
    assert [item.id for item in seen] == [
        call.id for call in calls
    ]  # one each, in order
    for call, item in zip(calls, seen, strict=True):
        check(call, item)


def from_result(call: Call, result: Any, *, truncated: bool = False) -> Seen:
    assert type(result) is ToolResult, result
    assert type(result.text) is str
    if result.structured is not None and not result.is_error:
        sent = json.dumps(result.structured) if truncated else result.text
        assert json.loads(sent) == result.structured  # structured is JSON data
    return Seen(call.id, result.text, result.is_error)


# ------------------------------------------------------------------ entry points


def bounded(make: Callable[[], Awaitable[T]]) -> T:
    async def main() -> T:
        return await asyncio.wait_for(make(), LIMIT)

    return asyncio.run(main())


def bounded_sync(function: Callable[[], T]) -> T:
    """Run `function` in a thread of its own; fail (not hang) if it runs past LIMIT."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = function()
        except BaseException as error:  # re-raised in the test's thread
            box["error"] = error

    worker = threading.Thread(target=target, daemon=True)
    worker.start()
    worker.join(LIMIT)
    assert not worker.is_alive(), "the call hangs"
    if "error" in box:
        raise box["error"]
    return box["value"]  # type: ignore[no-any-return]


TOOLS = hostile.tools


def guarded_set() -> ToolSet:
    guarded = ToolSet(list(TOOLS), max_output_chars=1000)

    @guarded.use
    async def passthrough(call: ToolCall, context: Any, call_next: Any) -> ToolResult:
        result: ToolResult = await call_next(call)
        return result

    return guarded


GUARDED = guarded_set()


def via_tool_execute(calls: list[Call]) -> list[Seen]:
    return bounded_sync(
        lambda: [
            from_result(c, TOOLS[c.tool].execute("a", c.id, c.args)) for c in calls
        ]
    )


def via_tool_aexecute(calls: list[Call]) -> list[Seen]:
    async def main() -> list[Seen]:
        return [
            from_result(c, await TOOLS[c.tool].aexecute("a", c.id, c.args))
            for c in calls
        ]

    return bounded(main)


def via_toolset_execute(calls: list[Call]) -> list[Seen]:
    return bounded_sync(
        lambda: [
            from_result(c, TOOLS.execute("a", c.id, c.tool, c.args)) for c in calls
        ]
    )


def via_toolset_aexecute(calls: list[Call]) -> list[Seen]:
    async def main() -> list[Seen]:
        return [
            from_result(c, await TOOLS.aexecute("a", c.id, c.tool, c.args))
            for c in calls
        ]

    return bounded(main)


def _tool_calls(calls: list[Call]) -> list[ToolCall]:
    return [ToolCall(c.id, c.tool, c.args) for c in calls]


def via_run(calls: list[Call]) -> list[Seen]:
    results = bounded(lambda: TOOLS.run("a", _tool_calls(calls)))
    return [from_result(c, r) for c, r in zip(calls, results, strict=True)]


def via_run_with_middleware_and_truncation(calls: list[Call]) -> list[Seen]:
    results = bounded(lambda: GUARDED.run("a", _tool_calls(calls)))
    for result in results:
        assert len(result.text) <= 1000
    return [
        from_result(c, r, truncated=True) for c, r in zip(calls, results, strict=True)
    ]


def via_openai(calls: list[Call]) -> list[Seen]:
    message = chat_message(*((c.id, c.tool, json.dumps(c.args)) for c in calls))
    replies = bounded(lambda: openai.handle(TOOLS, "a", message))
    return [Seen(r["tool_call_id"], r["content"], None) for r in replies]


def via_openai_responses(calls: list[Call]) -> list[Seen]:
    output = [
        {
            "type": "function_call",
            "call_id": c.id,
            "name": c.tool,
            "arguments": json.dumps(c.args),
        }
        for c in calls
    ]
    replies = bounded(lambda: openai_responses.handle(TOOLS, "a", output))
    return [Seen(r["call_id"], r["output"], None) for r in replies]


def via_anthropic(calls: list[Call]) -> list[Seen]:
    message = {
        "role": "assistant",
        "content": [
            {"type": "tool_use", "id": c.id, "name": c.tool, "input": c.args}
            for c in calls
        ],
    }
    reply = bounded(lambda: anthropic.handle(TOOLS, "a", message))
    return [
        Seen(block["tool_use_id"], block["content"], block["is_error"])
        for block in reply["content"]
    ]


def via_gemini(calls: list[Call]) -> list[Seen]:
    content = {
        "role": "model",
        "parts": [
            {"functionCall": {"id": c.id, "name": c.tool, "args": c.args}}
            for c in calls
        ],
    }
    reply = bounded(lambda: gemini.handle(TOOLS, "a", content))
    seen = []
    for part in reply["parts"]:
        response = part["functionResponse"]
        error = response["response"].get("error")
        seen.append(Seen(response["id"], error, error is not None))
    return seen


def via_mcp(calls: list[Call]) -> list[Seen]:
    requests = [
        {"id": c.id, "params": {"name": c.tool, "arguments": c.args}} for c in calls
    ]
    replies = bounded(lambda: mcp.handle(TOOLS, "a", requests))
    return [
        Seen(c.id, r["content"][0]["text"], r["isError"])
        for c, r in zip(calls, replies, strict=True)
    ]


ENTRY_POINTS: dict[str, Callable[[list[Call]], list[Seen]]] = {
    "Tool.execute": via_tool_execute,
    "Tool.aexecute": via_tool_aexecute,
    "ToolSet.execute": via_toolset_execute,
    "ToolSet.aexecute": via_toolset_aexecute,
    "ToolSet.run": via_run,
    "ToolSet.run with middleware and max_output_chars": via_run_with_middleware_and_truncation,
    "openai.handle": via_openai,
    "openai_responses.handle": via_openai_responses,
    "anthropic.handle": via_anthropic,
    "gemini.handle": via_gemini,
    "mcp.handle": via_mcp,
}


# ------------------------------------------------------------------ strategies

cycles = st.sampled_from(["list", "dict", "pair"]).map(lambda kind: {"cycle": kind})
leaves = st.one_of(st.sampled_from(sorted(hostile.LEAVES)), cycles)
recipes = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda items: {"list": items}),
        st.lists(inner, max_size=3).map(lambda items: {"tuple": items}),
        st.dictionaries(st.text(max_size=3), inner, max_size=3).map(
            lambda items: {"dict": items}
        ),
        st.tuples(inner, inner).map(lambda two: {"pair": list(two)}),
        st.tuples(inner, inner).map(lambda two: {"named": list(two)}),
        st.tuples(st.sampled_from([1, 50, 99, 100, 101, 10_000]), inner).map(
            lambda deep: {"deep": deep[0], "of": deep[1]}
        ),
    ),
    max_leaves=6,
)
raising_calls = st.tuples(
    st.sampled_from(hostile.RAISING), st.sampled_from(sorted(hostile.RAISES))
)
giving_calls = st.tuples(st.sampled_from(hostile.GIVING), recipes)


def _calls(drawn: list[tuple[str, Any]]) -> list[Call]:
    calls = []
    for index, (name, detail) in enumerate(drawn):
        args = {"recipe": detail} if name in hostile.GIVING else {"kind": detail}
        calls.append(Call(f"call-{index}", name, args))
    return calls


SETTINGS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
@SETTINGS
@given(drawn=st.lists(st.one_of(giving_calls, raising_calls), min_size=1, max_size=4))
def test_hostile_values_and_raises_through_every_entry_point(
    entry: str, drawn: list[tuple[str, Any]]
) -> None:
    calls = _calls(drawn)
    check_all(calls, ENTRY_POINTS[entry](calls))


@pytest.mark.parametrize("entry", list(ENTRY_POINTS))
@pytest.mark.parametrize("kind", sorted(hostile.RAISES))
def test_every_raise_from_every_kind_of_tool(entry: str, kind: str) -> None:
    """A batch of every raising tool and one good call: all answered, in order."""
    calls = [Call(f"{name}-{kind}", name, {"kind": kind}) for name in hostile.RAISING]
    calls.append(Call("fine", "give", {"recipe": {"list": ["int", "text"]}}))
    check_all(calls, ENTRY_POINTS[entry](calls))


# ------------------------------------------------------------------ exact results


def _give(recipe: Any) -> ToolResult:
    return hostile.give.execute("a", "c", {"recipe": recipe})


def test_nesting_is_limited_to_a_hundred_containers() -> None:
    assert _give({"deep": 99, "of": {"list": ["int"]}}) == ToolResult(
        "[" * 100 + "7" + "]" * 100,
        structured=hostile.build({"deep": 100, "of": "int"}),
    )
    assert _give({"deep": 101, "of": "int"}) == ToolResult.error(
        'Tool "give" returned a value of type list that cannot be sent as JSON: it is nested more than 100 levels deep'
    )
    assert _give({"deep": 10_000, "of": "int"}) == _give({"deep": 101, "of": "int"})


@pytest.mark.parametrize(
    ("kind", "type_name"), [("list", "list"), ("dict", "dict"), ("pair", "Pair")]
)
def test_a_value_that_holds_itself_is_named_so(kind: str, type_name: str) -> None:
    assert _give({"cycle": kind}) == ToolResult.error(
        f'Tool "give" returned a value of type {type_name} that cannot be sent as JSON: it refers to itself'
    )


@pytest.mark.parametrize(
    ("leaf", "reason"),
    [
        ("bad_mapping", "Refused: __iter__"),
        ("bad_list", "Refused: __iter__"),
        ("bad_model", "Refused: model_dump"),
        ("bad_field", "Refused: value"),
        ("bad_message", "Refused: __str__"),
    ],
)
def test_a_value_whose_own_code_fails_is_an_error_naming_tool_and_type(
    leaf: str, reason: str
) -> None:
    shown = hostile.top_type(leaf)
    assert _give(leaf) == ToolResult.error(
        f'Tool "give" returned a value of type {shown} that cannot be sent as JSON: {reason}'
    )


def test_leaves_json_cannot_hold_are_sent_as_their_text() -> None:
    result = _give({"dict": {"nan": "nan", "key": "object_key", "enum": "opaque_enum"}})
    assert result.is_error is False
    data = json.loads(result.text)
    assert data["nan"] == "nan"
    assert [key[:18] for key in data["key"]] == ["<object object at "]
    assert data["enum"].startswith("<object object at ")
    assert _give("generator").text.startswith('"<generator object _generator at ')


def test_subclasses_of_str_int_and_float_send_the_value_they_hold() -> None:
    assert _give("bad_str") == ToolResult("held")
    assert _give(
        {"list": ["bad_str", "bad_int", "bad_float", "bad_key"]}
    ) == ToolResult('["held",3,2.5,{"k":1}]', structured=["held", 3, 2.5, {"k": 1}])
    result = _give({"list": ["bad_str", "bad_int"]})
    assert [type(item) for item in result.structured] == [str, int]


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        (
            "none_text",
            'Tool "bad_result" returned a ToolResult whose text is NoneType, not str.',
        ),
        ("bad_str_text", "held"),
    ],
)
def test_a_tool_result_whose_text_is_not_text(kind: str, text: str) -> None:
    result = hostile.bad_result.execute("a", "c", {"kind": kind})
    assert (result.text, type(result.text), result.is_error) == (
        text,
        str,
        kind == "none_text",
    )


def test_stop_iteration_with_a_timeout_is_not_a_timeout() -> None:
    result = bounded(
        lambda: hostile.throw_timed.aexecute("a", "c", {"kind": "stop_iteration"})
    )
    assert result == ToolResult.error("StopIteration")
    assert hostile.throw_timed.execute("a", "c", {"kind": "stop_iteration"}) == result


# ------------------------------------------------------------------ what propagates


class _Interrupting:
    def __init__(self) -> None:
        self.tools = ToolSet()

        @self.tools.tool
        def sync_stop() -> str:
            """Stop."""
            raise KeyboardInterrupt

        @self.tools.tool
        async def async_stop() -> str:
            """Stop."""
            raise KeyboardInterrupt

        @self.tools.tool(timeout=30)
        def timed_stop() -> str:
            """Stop."""
            raise KeyboardInterrupt


@pytest.mark.parametrize("name", ["sync_stop", "async_stop", "timed_stop"])
def test_keyboard_interrupt_propagates(name: str) -> None:
    tools = _Interrupting().tools
    with pytest.raises(KeyboardInterrupt):
        tools.execute("a", "c", name, {})
    with pytest.raises(KeyboardInterrupt):
        asyncio.run(tools.aexecute("a", "c", name, {}))
    with pytest.raises(KeyboardInterrupt):
        asyncio.run(tools.run("a", [ToolCall("c", name, {})]))


@pytest.mark.parametrize("kind", ["async", "thread", "timed_thread"])
def test_the_callers_cancellation_propagates(kind: str) -> None:
    release = threading.Event()
    tools = ToolSet()
    started = threading.Event()

    if kind == "async":

        @tools.tool
        async def wait() -> str:
            """Wait."""
            started.set()
            await asyncio.sleep(LIMIT)
            return "late"

    else:

        @tools.tool(timeout=LIMIT if kind == "timed_thread" else None)
        def wait() -> str:
            """Wait."""
            started.set()
            release.wait(LIMIT)
            return "late"

    async def main() -> None:
        task = asyncio.ensure_future(tools.run("a", [ToolCall("c", "wait", {})]))
        while not started.is_set():
            await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    try:
        bounded(main)
    finally:
        release.set()


def test_a_tool_that_cancels_itself_does_not_cancel_the_batch() -> None:
    calls = [
        ToolCall("1", "athrow", {"kind": "cancelled"}),
        ToolCall("2", "throw", {"kind": "cancelled"}),
        ToolCall("3", "give", {"recipe": "int"}),
    ]
    assert bounded(lambda: TOOLS.run("a", calls)) == [
        ToolResult.error("CancelledError: own"),
        ToolResult.error("CancelledError: own"),
        ToolResult("7", structured=7),
    ]


# ------------------------------------------------------------------ MCP server


class _Client:
    """The official MCP client over stdio, on a loop in a thread of its own."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._ready: Any = None
        self._stop: asyncio.Event | None = None
        self._thread = threading.Thread(target=self._main, daemon=True)

    def _main(self) -> None:
        try:
            self.loop.run_until_complete(self._serve())
        finally:
            self.loop.close()

    async def _serve(self) -> None:
        self._stop = asyncio.Event()
        try:
            async with stdio_session("tests/hostile_tools.py:tools") as session:
                self._ready.set_result(session)
                await self._stop.wait()
        except BaseException as error:
            if not self._ready.done():
                self._ready.set_exception(error)
            raise

    def start(self) -> Any:
        import concurrent.futures

        self._ready = concurrent.futures.Future()
        self._thread.start()
        self.session = self._ready.result(timeout=LIMIT)
        return self

    def call(self, name: str, args: dict[str, Any]) -> Any:
        future = asyncio.run_coroutine_threadsafe(
            self.session.call_tool(name, args), self.loop
        )
        return future.result(timeout=LIMIT)

    def close(self) -> None:
        if self._stop is not None:
            self.loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(LIMIT)


@pytest.fixture(scope="module", name="served")
def fixture_served() -> Iterator[_Client]:
    client = _Client().start()
    try:
        yield client
    finally:
        client.close()


def _over_mcp(served: _Client, calls: list[Call]) -> list[Seen]:
    seen = []
    for call in calls:
        reply = served.call(call.tool, call.args)
        texts = [block.text for block in reply.content if block.type == "text"]
        assert len(texts) == 1
        seen.append(Seen(call.id, texts[0], reply.is_error))
    return seen


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.function_scoped_fixture,
    ],
)
@given(drawn=st.lists(st.one_of(giving_calls, raising_calls), min_size=1, max_size=3))
def test_hostile_values_and_raises_over_mcp(
    served: _Client, drawn: list[tuple[str, Any]]
) -> None:
    calls = _calls(drawn)
    check_all(calls, _over_mcp(served, calls))


def test_every_raise_over_mcp(served: _Client) -> None:
    calls = [
        Call(f"{name}-{kind}", name, {"kind": kind})
        for name in hostile.RAISING
        for kind in sorted(hostile.RAISES)
    ]
    check_all(calls, _over_mcp(served, calls))


def test_a_result_mcp_cannot_carry_is_an_error_result(served: _Client) -> None:
    reply = served.call("bad_result", {"kind": "cyclic_structured"})
    assert reply.is_error is True
    assert reply.content[0].text.startswith(
        'Tool "bad_result" returned a result that cannot be sent over MCP: '
    )
    assert served.call("bad_result", {"kind": "none_text"}).is_error is True
    assert served.call("give", {"recipe": "int"}).is_error is False  # still serving


# ------------------------------------------------------------------ logging


def test_the_logger_has_a_null_handler_and_records_tracebacks(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.ERROR, logger="toolkit"):
        hostile.throw.execute("a", "c", {"kind": "custom"})
        _give("bad_model")
    assert any(
        isinstance(handler, logging.NullHandler)
        for handler in logging.getLogger("toolkit").handlers
    )
    raised, unsendable = caplog.records
    assert raised.getMessage() == "Tool 'throw' raised Custom: mine"
    assert raised.exc_info is not None
    assert raised.exc_info[0] is hostile.Custom
    assert (
        unsendable.getMessage() == "The value that tool 'give' returned cannot be sent"
    )
    assert unsendable.exc_info is not None
    assert unsendable.exc_info[0] is hostile.Refused
