"""Context reaches the host: progress, log, sample, elicit, cancelled, and ctx.sync.

A recording host stands for the program that runs the tools. Without a
host, progress and log records go to the `toolkit` logger and sample/elicit
are error results that say the host cannot do it.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import threading
from typing import Any, Literal

import pytest

from tests.conftest import chat_message
from toolkit import Context, Elicited, Tool, ToolCall, ToolError, ToolSet, tool


class Recorder:
    """A host with every method; records what reaches it, per call."""

    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []
        self.threads: set[str] = set()
        self.answer: Elicited[dict[str, Any]] = Elicited("accept", {"name": "Ann"})

    async def progress(
        self,
        context: Context,
        progress: float,
        total: float | None,
        message: str | None,
    ) -> None:
        self.threads.add(threading.current_thread().name)
        self.events.append(("progress", context.call_id, progress, total, message))

    async def log(
        self, context: Context, level: str, message: str, data: dict[str, Any]
    ) -> None:
        self.events.append(("log", context.call_id, level, message, data))

    async def sample(
        self,
        context: Context,
        messages: list[dict[str, str]],
        *,
        system: str | None,
        max_tokens: int,
        temperature: float | None,
    ) -> str:
        self.events.append(
            ("sample", context.call_id, messages, system, max_tokens, temperature)
        )
        return f"completion of {messages[-1]['content']}"

    async def elicit(
        self, context: Context, message: str, schema: dict[str, Any]
    ) -> Elicited[dict[str, Any]]:
        self.events.append(("elicit", context.call_id, message, schema))
        return self.answer


@dataclasses.dataclass
class Person:
    name: str
    age: int = 30


tools = ToolSet()


@tools.tool
async def reporter(steps: int, ctx: Context) -> str:
    """Report progress for each step, then log."""
    for step in range(steps):
        await ctx.report_progress(step + 1, total=steps, message=f"step {step + 1}")
        await asyncio.sleep(0)
    await ctx.log("info", "done", steps=steps)
    return "ok"


@tools.tool
def sync_reporter(steps: int, ctx: Context) -> str:
    """The same from a sync tool, through ctx.sync."""
    for step in range(steps):
        ctx.sync.report_progress(step + 1, total=steps)
    ctx.sync.log("warning", "careful", steps=steps)
    return "ok"


@tools.tool
async def asker(ctx: Context) -> str:
    """Sample, then ask the user."""
    text = await ctx.sample("hello", system="be brief", max_tokens=20, temperature=0.5)
    answer = await ctx.elicit("Who are you?", Person)
    return f"{text} / {answer.action} {answer.data!r}"


@tools.tool
def sync_asker(ctx: Context) -> str:
    """The same from a sync tool in a worker thread."""
    text = ctx.sync.sample([{"role": "user", "content": "hi"}])
    answer = ctx.sync.elicit("Who are you?", Person)
    return f"{text} / {answer.action} {answer.data!r}"


def run(coro: Any) -> Any:
    return asyncio.run(coro)


class TestWithoutHost:
    def test_progress_and_log_go_to_the_toolkit_logger(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        """Without a host, progress is a DEBUG record and log a record at its level."""
        caplog.set_level(logging.DEBUG, logger="toolkit")
        result = run(tools.aexecute("agent", "c1", "reporter", {"steps": 2}))
        assert result.text == "ok"
        records = [
            (r.levelname, r.getMessage()) for r in caplog.records if r.name == "toolkit"
        ]
        assert ("DEBUG", "Tool 'reporter' (call c1) progress 2/2: step 2") in records
        assert ("INFO", "Tool 'reporter' (call c1): done steps=2") in records

    def test_sync_tool_logs_without_a_loop(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        """ctx.sync without a host logs on the spot, from sync execute too."""
        caplog.set_level(logging.DEBUG, logger="toolkit")
        assert tools.execute("agent", "c2", "sync_reporter", {"steps": 1}).text == "ok"
        assert ("WARNING", "Tool 'sync_reporter' (call c2): careful steps=1") in [
            (r.levelname, r.getMessage()) for r in caplog.records
        ]

    @pytest.mark.parametrize("name", ["asker", "sync_asker"])
    def test_sample_is_an_error_result_saying_the_host_cannot(self, name: str) -> None:
        """sample without a host: a ToolError the model reads."""
        result = run(tools.aexecute("agent", "c3", name, {}))
        assert result.is_error
        assert result.text == (
            f'Tool "{name}" needs to ask the host\'s model for a completion, '
            "but this host cannot do that."
        )

    def test_elicit_is_an_error_result_saying_the_host_cannot(self) -> None:
        """A host without elicit: the same kind of error, for the question."""

        class SamplesOnly:
            async def sample(
                self, context: Context, messages: Any, **options: Any
            ) -> str:
                return "text"

        result = run(tools.aexecute("agent", "c4", "asker", {}, host=SamplesOnly()))
        assert result.is_error
        assert result.text == (
            'Tool "asker" needs to ask the user a question, but this host cannot do that.'
        )

    def test_cancelled_is_false_outside_a_cancelled_call(self) -> None:
        """A plain call is not cancelled."""
        seen: list[bool] = []

        @tool
        def probe(ctx: Context) -> None:
            """Look."""
            seen.append(ctx.cancelled)
            seen.append(ctx.sync.cancelled)

        probe.execute("agent", "c", {})
        run(probe.aexecute("agent", "c", {}))
        assert seen == [False, False, False, False]


class TestCustomHost:
    def test_each_method_reaches_the_host_with_the_calls_context(self) -> None:
        """Progress, log, sample and elicit from an async tool, with their arguments."""
        host = Recorder()
        first = run(tools.aexecute("agent", "a1", "reporter", {"steps": 2}, host=host))
        second = run(tools.aexecute("agent", "a2", "asker", {}, host=host))
        assert first.text == "ok"
        assert second.text == "completion of hello / accept Person(name='Ann', age=30)"
        assert host.events[:3] == [
            ("progress", "a1", 1, 2, "step 1"),
            ("progress", "a1", 2, 2, "step 2"),
            ("log", "a1", "info", "done", {"steps": 2}),
        ]
        assert host.events[3] == (
            "sample",
            "a2",
            [{"role": "user", "content": "hello"}],
            "be brief",
            20,
            0.5,
        )
        kind, call_id, message, schema = host.events[4]
        assert (kind, call_id, message) == ("elicit", "a2", "Who are you?")
        assert schema == {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "age": {"type": "integer", "default": 30},
            },
            "required": ["name"],
        }

    def test_sync_tool_in_a_worker_thread_hands_off_to_the_loop(self) -> None:
        """ctx.sync from a worker thread: the host runs on the event loop's thread."""
        host = Recorder()

        async def main() -> list[Any]:
            return await tools.run(
                "agent",
                [
                    ToolCall("s1", "sync_reporter", {"steps": 3}),
                    ToolCall("s2", "sync_asker", {}),
                ],
                host=host,
            )

        first, second = run(main())
        assert first.text == "ok"
        assert second.text == "completion of hi / accept Person(name='Ann', age=30)"
        assert [event for event in host.events if event[1] == "s1"] == [
            ("progress", "s1", 1, 3, None),
            ("progress", "s1", 2, 3, None),
            ("progress", "s1", 3, 3, None),
            ("log", "s1", "warning", "careful", {"steps": 3}),
        ]
        assert host.threads == {threading.main_thread().name}

    def test_sync_execute_with_a_host(self) -> None:
        """From sync code the host's coroutines run on a loop of their own."""
        host = Recorder()
        result = tools.execute("agent", "x", "sync_asker", {}, host=host)
        assert result.text == "completion of hi / accept Person(name='Ann', age=30)"
        result = sync_reporter.execute("agent", "y", {"steps": 1}, host=host)
        assert ("progress", "y", 1, 1, None) in host.events

    def test_sync_execute_through_middleware_keeps_the_host(self) -> None:
        """ToolSet.execute with middleware runs on a loop of its own; the host goes with it."""
        host = Recorder()
        wrapped = ToolSet([sync_asker, sync_reporter])
        seen: list[str] = []

        @wrapped.use
        async def note(call: ToolCall, context: Context, call_next: Any) -> Any:
            seen.append(call.name)
            return await call_next(call)

        result = wrapped.execute("agent", "m", "sync_asker", {}, host=host)
        assert result.text == "completion of hi / accept Person(name='Ann', age=30)"
        assert seen == ["sync_asker"]
        assert [event[0] for event in host.events] == ["sample", "elicit"]

    def test_a_providers_handle_passes_the_host_on(self) -> None:
        """`await provider.handle(..., host=...)`: the agent loop's one call reaches the host."""
        from toolkit.providers import openai

        host = Recorder()
        message = chat_message(("call-9", "reporter", '{"steps": 1}'))
        replies = run(openai.handle(tools, "agent", message, host=host))
        assert replies[0]["content"] == "ok"
        assert ("progress", "call-9", 1, 1, "step 1") in host.events

    def test_concurrent_calls_each_report_to_their_own_call(self) -> None:
        """Twenty calls in one run: every progress carries its own call's id, in order."""
        host = Recorder()
        calls = [ToolCall(f"c{index}", "reporter", {"steps": 5}) for index in range(20)]
        results = run(tools.run("agent", calls, host=host))
        assert [result.text for result in results] == ["ok"] * 20
        for index in range(20):
            mine = [
                e[2] for e in host.events if e[0] == "progress" and e[1] == f"c{index}"
            ]
            assert mine == [1, 2, 3, 4, 5]

    def test_a_host_may_implement_some_methods_sync(self) -> None:
        """Host methods may be plain functions; the missing ones fall back."""

        class Partial:
            def __init__(self) -> None:
                self.lines: list[str] = []

            def log(
                self, context: Context, level: str, message: str, data: Any
            ) -> None:
                self.lines.append(f"{level}:{message}")

        host = Partial()
        assert (
            run(tools.aexecute("agent", "p", "reporter", {"steps": 1}, host=host)).text
            == "ok"
        )
        assert host.lines == ["info:done"]

    def test_a_failing_progress_or_log_method_does_not_fail_the_tool(
        self, caplog: pytest.LogCaptureFixture
    ) -> None:
        """A broken host is logged; the tool's result stands."""

        class Broken:
            async def progress(self, *args: Any) -> None:
                raise RuntimeError("progress sink down")

            def log(self, *args: Any) -> None:
                raise RuntimeError("log sink down")

        result = run(
            tools.aexecute("agent", "b", "reporter", {"steps": 2}, host=Broken())
        )
        assert result.text == "ok"
        assert "The host's progress method failed for tool 'reporter'" in caplog.text
        assert "The host's log method failed for tool 'reporter'" in caplog.text

    def test_a_failing_sample_is_the_tools_error_result(self) -> None:
        """The host's exception reaches the tool as a ToolError naming it."""

        class Failing(Recorder):
            async def sample(
                self, context: Context, messages: Any, **options: Any
            ) -> str:
                raise ConnectionError("model unreachable")

        result = run(tools.aexecute("agent", "f", "asker", {}, host=Failing()))
        assert result.is_error
        assert result.text == (
            "The host could not get a completion from its model: "
            "ConnectionError: model unreachable"
        )

    def test_declined_and_cancelled_answers_carry_no_data(self) -> None:
        """decline and cancel come back with data None, whatever the host sent."""
        host = Recorder()
        for action in ("decline", "cancel"):
            host.answer = Elicited(action, {"name": "ignored"})
            result = run(tools.aexecute("agent", "d", "asker", {}, host=host))
            assert result.text == f"completion of hello / {action} None"

    def test_an_answer_that_does_not_fit_is_an_error_result_naming_the_fields(
        self,
    ) -> None:
        """Invalid data from the host: the tool's error result lists each field."""
        host = Recorder()
        host.answer = Elicited("accept", {"age": "old"})
        result = run(tools.aexecute("agent", "i", "asker", {}, host=host))
        assert result.is_error
        assert result.text.startswith("The answer to the question does not fit Person:")
        assert "- name: required property is missing" in result.text
        assert "- age:" in result.text

    def test_a_host_that_answers_with_the_wrong_type_is_an_error(self) -> None:
        """A host must answer elicit with an Elicited."""

        class Sloppy(Recorder):
            async def elicit(self, context: Context, message: str, schema: Any) -> Any:
                return {"action": "accept", "content": {"name": "x"}}

        result = run(tools.aexecute("agent", "w", "asker", {}, host=Sloppy()))
        assert (
            result.text == "The host answered the question with dict, not an Elicited."
        )

    def test_the_host_does_not_leak_into_later_calls(self) -> None:
        """A host given to one call is gone for the next one without it."""
        host = Recorder()
        run(tools.aexecute("agent", "h1", "reporter", {"steps": 1}, host=host))
        count = len(host.events)
        run(tools.aexecute("agent", "h2", "reporter", {"steps": 1}))
        tools.execute("agent", "h3", "sync_reporter", {"steps": 1})
        assert len(host.events) == count


class TestToolChecks:
    def test_bad_arguments_are_the_tools_error(self) -> None:
        """Wrong kinds of arguments to the Context's methods fail the call, named."""

        @tool
        async def bad(
            which: Literal["level", "progress", "role", "tokens"], ctx: Context
        ) -> None:
            """Misuse the Context."""
            if which == "level":
                await ctx.log("loud", "x")
            elif which == "progress":
                await ctx.report_progress("half")  # type: ignore[arg-type]
            elif which == "role":
                await ctx.sample([{"role": "system", "content": "x"}])
            else:
                await ctx.sample("x", max_tokens=0)

        texts = [
            run(bad.aexecute("a", "c", {"which": which}, host=Recorder())).text
            for which in ("level", "progress", "role", "tokens")
        ]
        assert texts == [
            "ValueError: log level 'loud' is not one of debug, info, notice, warning, error, critical, alert, emergency",
            "TypeError: report_progress: progress must be a number, got str",
            'ValueError: sample: message 0 has role \'system\'; use "user" or "assistant" (the system prompt goes in system=)',
            "ValueError: sample: max_tokens must be a positive integer, got 0",
        ]

    def test_a_schema_no_form_holds_is_refused_at_the_call(self) -> None:
        """elicit with a nested type fails the call, naming the field."""

        @dataclasses.dataclass
        class Nested:
            person: Person

        @tool
        async def nested(ctx: Context) -> None:
            """Ask for too much."""
            await ctx.elicit("?", Nested)

        result = run(nested.aexecute("a", "c", {}, host=Recorder()))
        assert result.is_error
        assert "elicit cannot ask for field 'person' of" in result.text

    def test_sync_tool_on_the_loop_thread_cannot_wait_for_an_answer(self) -> None:
        """thread=False: progress is scheduled, a completion is refused."""
        host = Recorder()

        @tool(thread=False)
        def inline(ctx: Context) -> str:
            """Run on the loop."""
            ctx.sync.report_progress(1)
            return ctx.sync.sample("x")

        async def main() -> Any:
            result = await inline.aexecute("a", "inline", {}, host=host)
            await asyncio.sleep(0)  # the scheduled progress runs
            return result

        result = run(main())
        assert result.is_error
        assert "runs on the event loop's thread (thread=False)" in result.text
        assert ("progress", "inline", 1, None, None) in host.events


class TestCancellation:
    def test_a_sync_tool_sees_cancelled_and_returns(self) -> None:
        """Cancelling the awaiting task: the sync tool's ctx.cancelled turns true."""
        started = threading.Event()
        finished = threading.Event()
        seen: list[bool] = []

        @tool
        def poller(ctx: Context) -> str:
            """Work until cancelled."""
            started.set()
            while not ctx.cancelled:
                finished.wait(0.01)
            seen.append(ctx.cancelled)
            finished.set()
            return "stopped"

        async def main() -> None:
            task = asyncio.ensure_future(poller.aexecute("a", "c", {}, host=Recorder()))
            await asyncio.get_running_loop().run_in_executor(None, started.wait, 10)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

        run(main())
        assert finished.wait(10)
        assert seen == [True]

    def test_a_timed_out_sync_tool_sees_cancelled(self) -> None:
        """A timeout ends the wait; the thread learns it through ctx.cancelled."""
        done = threading.Event()

        @tool(timeout=0.05)
        def slow(ctx: Context) -> None:
            """Wait for the timeout."""
            while not ctx.cancelled:
                done.wait(0.01)
            done.set()

        result = run(slow.aexecute("a", "c", {}))
        assert result.text == 'Tool "slow" timed out after 0.05 seconds.'
        assert done.wait(10)

    def test_a_sync_tool_waiting_for_the_host_is_released_on_cancel(self) -> None:
        """Blocked in ctx.sync.sample when the call is cancelled: the wait ends, the host's request too."""
        asked = threading.Event()
        outcome: list[str] = []

        class Slow(Recorder):
            def __init__(self) -> None:
                super().__init__()
                self.cancelled = False

            async def sample(
                self, context: Context, messages: Any, **options: Any
            ) -> str:
                asked.set()
                try:
                    await asyncio.sleep(60)
                except asyncio.CancelledError:
                    self.cancelled = True
                    raise
                return "never"

        @tool
        def waiting(ctx: Context) -> None:
            """Wait for a completion."""
            try:
                ctx.sync.sample("x")
            except ToolError as error:
                outcome.append(str(error))

        host = Slow()

        async def main() -> None:
            task = asyncio.ensure_future(waiting.aexecute("a", "c", {}, host=host))
            await asyncio.get_running_loop().run_in_executor(None, asked.wait, 10)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            for _ in range(1000):  # the thread gives up within a poll or two
                if outcome and host.cancelled:
                    break
                await asyncio.sleep(0.01)

        run(main())
        assert outcome == ["The call was cancelled while it waited for the host."]
        assert host.cancelled


def test_elicited_refuses_an_unknown_action() -> None:
    """Elicited is accept, decline or cancel."""
    with pytest.raises(ValueError, match="one of 'accept', 'decline', 'cancel'"):
        Elicited("maybe")  # type: ignore[arg-type]
    assert Elicited("accept", {"a": 1}).accepted
    assert not Elicited("decline").accepted


def test_a_copied_context_keeps_its_fields() -> None:
    """copy.replace and pickling keep the fields; the host is not carried."""
    import pickle

    context: Context[int] = Context("a", "c", "t", 5)
    assert pickle.loads(pickle.dumps(context)) == context
    assert context.__replace__(deps=6).deps == 6
    assert not pickle.loads(pickle.dumps(context)).cancelled


def test_tool_new_execute_fn_is_unaffected_by_host() -> None:
    """A raw Tool.new tool runs as before with a host."""
    raw = Tool.new(
        name="raw",
        description="Raw.",
        parameters={"type": "object", "properties": {}},
        execute_fn=lambda agent_id, call_id, args: "fine",
    )
    assert raw.execute("a", "c", {}, host=Recorder()).text == "fine"
