from __future__ import annotations

import asyncio
import contextvars
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

import pytest

from tests import sample_tools
from toolkit import (
    AITool,
    Context,
    DuplicateToolError,
    Tool,
    ToolCall,
    ToolDefinitionError,
    ToolError,
    ToolResult,
    ToolSet,
    tool,
)
from toolkit.providers import anthropic, openai


def make(name: str, text: str = "ok") -> Tool[Any, Any]:
    def function() -> str:
        return text

    function.__name__ = name
    function.__qualname__ = name
    return tool(function)


# ------------------------------------------------------------------ registry


def test_insertion_order_everywhere() -> None:
    tools = ToolSet([make("b"), make("a")])
    tools.add(make("c"))
    assert tools.names == ["b", "a", "c"]
    assert [item.name for item in tools] == ["b", "a", "c"]
    assert [ai.name for ai in tools.to_ai_tools()] == ["b", "a", "c"]
    assert len(tools) == 3
    assert "a" in tools
    assert "z" not in tools
    assert tools["a"].name == "a"
    assert tools.get("z") is None
    assert repr(tools) == "ToolSet(['b', 'a', 'c'])"


def test_duplicate_name_is_refused_with_both_tools_and_the_fixes() -> None:
    tools = ToolSet([make("search")])
    with pytest.raises(DuplicateToolError) as caught:
        tools.add(make("search", "other"))
    assert str(caught.value) == (
        "A tool named 'search' is already registered (search); cannot add search under the same name. "
        "Rename one of them (name=...), use add(..., replace=True) to replace it, or combine sets with tools.prefixed(...)"
    )
    assert caught.value.name == "search"
    with pytest.raises(DuplicateToolError):
        ToolSet([make("x"), make("x")])


def test_replace_shadows_deliberately() -> None:
    tools = ToolSet([make("read", "old")])
    tools.add(make("read", "new"), replace=True)
    assert tools.execute("a", "c", "read", {}) == ToolResult("new")
    assert len(tools) == 1


def test_adding_the_same_tool_twice_is_harmless() -> None:
    one = make("one")
    tools = ToolSet([one])
    tools.add(one)
    assert tools.names == ["one"]


def test_decorator_registers_bare_and_with_options() -> None:
    tools = ToolSet()

    @tools.tool
    def now() -> str:
        """Now."""
        return "noon"

    @tools.tool(name="later", description="Later.")
    def later_function() -> str:
        return "soon"

    assert isinstance(now, Tool)
    assert tools.names == ["now", "later"]
    assert tools["later"].description == "Later."
    assert now() == "noon"
    with pytest.raises(DuplicateToolError):

        @tools.tool
        def now() -> str:  # the duplicate under test
            return "again"

    @tools.tool(name="now", replace=True)
    def now_again() -> str:
        return "again"

    assert tools.execute("a", "c", "now", {}).text == "again"


def test_remove() -> None:
    tools = ToolSet([make("a"), make("b")])
    removed = tools.remove("a")
    assert removed.name == "a"
    assert tools.names == ["b"]
    with pytest.raises(KeyError, match=r"Unknown tool \"a\"\. Available tools: b\."):
        tools.remove("a")


def test_lookup_of_a_missing_name_lists_the_available_ones() -> None:
    with pytest.raises(KeyError) as caught:
        ToolSet([make("search")])["serch"]
    assert (
        caught.value.args[0]
        == 'Unknown tool "serch". Available tools: search. Did you mean "search"?'
    )


def test_only_tools_can_be_added() -> None:
    with pytest.raises(TypeError, match=r"ToolSet\.add needs a Tool"):
        ToolSet().add(len)  # type: ignore[arg-type]


def _made_by_adding(items: list[Any]) -> list[Tool[Any, Any]] | tuple[type, str]:
    """What `add`, one item after another, makes of `items`: the tools, or the error."""
    tools = ToolSet()
    try:
        for item in items:
            tools.add(item)
    except Exception as error:
        return type(error), str(error)
    return list(tools)


def _made_by_constructing(
    items: Iterable[Any],
) -> list[Tool[Any, Any]] | tuple[type, str]:
    try:
        return list(ToolSet(items))
    except Exception as error:
        return type(error), str(error)


def test_the_constructor_registers_as_add_does_one_tool_after_another() -> None:
    # The constructor checks and registers a whole list at once; it must keep
    # every verdict of add: order, the same tool twice, a duplicate name, not a tool.
    a, b, c, other_a = make("a"), make("b"), make("c"), make("a", "other")
    cases: list[list[Any]] = [
        [],
        [a, b, c],
        [c, a, b],
        [a, a, b],
        [a, b, a],
        [a, other_a],
        [a, b, other_a, c],
        [a, len, b],
        [a, "a", b],
        [len],
    ]
    many = [make(f"t{index}") for index in range(300)]
    cases += [many, [*many, many[7]], [*many, make("t7", "other")], [*many, 3]]
    for items in cases:
        expected = _made_by_adding(items)
        assert _made_by_constructing(items) == expected, items
        assert _made_by_constructing(iter(items)) == expected, items
    assert list(ToolSet(ToolSet(many))) == many


def test_a_subclass_that_overrides_add_sees_every_tool_of_the_constructor() -> None:
    seen: list[str] = []

    class Counting(ToolSet):
        def add(self, item: Tool[Any, Any], *, replace: bool = False) -> Tool[Any, Any]:
            seen.append(item.name)
            return super().add(item, replace=replace)

    Counting([make("a"), make("b")])
    assert seen == ["a", "b"]


def test_registration_from_eight_threads_loses_nothing() -> None:
    tools = ToolSet()
    barrier = threading.Barrier(8)

    def register(worker: int) -> None:
        barrier.wait()
        for index in range(200):
            tools.add(make(f"t{worker}_{index}"))
            tools.export("json")

    threads = [threading.Thread(target=register, args=(worker,)) for worker in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(tools) == 1600
    assert {f"t{w}_{i}" for w in range(8) for i in range(200)} == set(tools.names)
    assert len(tools.export("json")) == 1600


def test_concurrent_duplicates_admit_exactly_one() -> None:
    tools = ToolSet()
    candidates = [make("same", str(index)) for index in range(8)]
    outcomes: list[str] = []
    barrier = threading.Barrier(8)

    def register(item: Tool[Any, Any]) -> None:
        barrier.wait()
        try:
            tools.add(item)
            outcomes.append("added")
        except DuplicateToolError:
            outcomes.append("refused")

    threads = [threading.Thread(target=register, args=(item,)) for item in candidates]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["added"] + ["refused"] * 7
    assert len(tools) == 1


# ------------------------------------------------------------------ composition


def test_union_and_its_conflicts() -> None:
    left, right = ToolSet([make("a")]), ToolSet([make("b")])
    both = left | right
    assert both.names == ["a", "b"]
    assert left.names == ["a"]
    with pytest.raises(DuplicateToolError):
        left | ToolSet([make("a")])


def test_prefixed_renames_and_keeps_working() -> None:
    prefixed = ToolSet([sample_tools.get_weather]).prefixed("wx_")
    assert prefixed.names == ["wx_get_weather"]
    assert (
        prefixed.execute("a", "c", "wx_get_weather", {"city": "Oslo"}).text
        == "Sunny in Oslo for 1 day(s), 22 degrees c"
    )
    assert prefixed.execute("a", "c", "wx_get_weather", {}).text.startswith(
        'Invalid arguments for tool "wx_get_weather"'
    )
    assert sample_tools.get_weather.name == "get_weather"


@pytest.mark.parametrize(
    ("prefix", "message"),
    [
        (
            "x" * 123,
            f"Prefix {'x' * 123!r} makes invalid tool names: " + "x" * 123 + "search",
        ),
        ("gh ", "Prefix 'gh ' makes invalid tool names: gh search"),
    ],
)
def test_prefixed_names_must_stay_valid(prefix: str, message: str) -> None:
    with pytest.raises(ToolDefinitionError) as caught:
        ToolSet([make("search")]).prefixed(prefix)
    assert str(caught.value).startswith(message + ". ")


def test_prefixed_can_collide_with_nothing_but_union_checks_again() -> None:
    base = ToolSet([make("a_b"), make("b")])
    with pytest.raises(DuplicateToolError):
        base | ToolSet([make("b")]).prefixed("a_")


def test_filtered_select_without() -> None:
    tools = ToolSet([make("a"), make("b"), make("c")])
    assert tools.filtered(lambda item: item.name != "b").names == ["a", "c"]
    assert tools.select("c", "a").names == ["c", "a"]
    assert tools.without("a").names == ["b", "c"]
    with pytest.raises(KeyError):
        tools.select("z")
    with pytest.raises(KeyError):
        tools.without("z")


def test_composed_sets_follow_their_sources() -> None:
    local, remote = ToolSet([make("a")]), ToolSet([make("b")])
    both = local | remote
    shown = both.prefixed("x_")
    only_b = both.select("b")
    no_a = both.without("a")
    long_names = both.filtered(lambda item: len(item.name) > 1)
    first_export = shown.export("openai")
    kept_copy = shown["x_a"]

    remote.add(make("bb"))
    assert both.names == ["a", "b", "bb"]
    assert shown.names == ["x_a", "x_b", "x_bb"]
    assert shown["x_a"] is kept_copy  # an unchanged tool keeps its renamed copy
    assert [
        entry["function"]["name"] for entry in shown.export("openai")
    ] == shown.names
    assert shown.export("openai") is not first_export
    assert no_a.names == ["b", "bb"]
    assert long_names.names == ["bb"]
    assert shown.execute("agent", "call", "x_bb", {}) == ToolResult("ok")

    remote.remove("b")
    assert both.names == ["a", "bb"]
    assert shown.names == ["x_a", "x_bb"]
    assert only_b.names == []  # the named tool left its source


def test_a_change_composition_would_refuse_leaves_the_composed_set_as_it_was(
    caplog: pytest.LogCaptureFixture,
) -> None:
    local, remote = ToolSet([make("a")]), ToolSet([make("b")])
    both = local | remote
    prefix = "p" * 124 + "_"
    shown = remote.prefixed(prefix)
    remote.add(make("a"))  # now in both sources
    assert both.names == ["a", "b"]
    assert "keeps its tools" in caplog.text
    assert "'a'" in caplog.text
    remote.add(make("longer_name"))  # too long once prefixed
    assert shown.names == [prefix + "b", prefix + "a"]
    assert prefix + "longer_name" in caplog.text
    remote.remove("a")
    remote.remove("longer_name")
    assert both.names == ["a", "b"]  # following again


def test_sources_changed_from_eight_threads_leave_the_composed_set_current() -> None:
    left, right = ToolSet(), ToolSet()
    both = (left | right).prefixed("p_")
    tools = {side: [make(f"{side}_{i}") for i in range(40)] for side in ("l", "r")}
    start = threading.Barrier(8)

    def work(source: ToolSet, mine: list[Tool[Any, Any]]) -> None:
        start.wait()
        for item in mine:
            source.add(item)
        for item in mine[::2]:
            source.remove(item.name)

    threads = [
        threading.Thread(target=work, args=(source, tools[side][k::4]))
        for source, side in ((left, "l"), (right, "r"))
        for k in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(both.names) == sorted(
        "p_" + name for name in [*left.names, *right.names]
    )
    assert len(both) == 40


def test_a_composed_set_changed_by_hand_stops_following() -> None:
    source = ToolSet([make("a")])
    view = source.filtered(lambda item: True)
    view.add(make("mine"))
    source.add(make("b"))
    assert view.names == ["a", "mine"]
    assert source.names == ["a", "b"]


def test_a_source_does_not_keep_its_composed_sets_alive() -> None:
    import gc
    import weakref

    source = ToolSet([make("a")])
    view = weakref.ref(source.prefixed("p_"))
    gc.collect()
    assert view() is None
    source.add(make("b"))  # nothing left to follow
    assert source.names == ["a", "b"]


def test_derived_sets_keep_settings() -> None:
    formatter = lambda item, error: "hidden"  # noqa: E731
    tools = ToolSet([make("a")], max_output_chars=500, error_formatter=formatter)
    derived = tools.prefixed("p_")
    assert (derived.max_output_chars, derived.error_formatter) == (500, formatter)


# ------------------------------------------------------------------ exports


def test_to_ai_tools_and_json_export() -> None:
    tools = ToolSet([sample_tools.get_weather])
    assert tools.to_ai_tools() == [
        AITool(
            "get_weather",
            sample_tools.get_weather.description,
            sample_tools.get_weather.parameters,
        )
    ]
    assert tools.export("json") == [
        {
            "name": "get_weather",
            "description": "Get the weather forecast for a city.",
            "parameters": sample_tools.get_weather.parameters,
        }
    ]
    assert tools.export() == tools.export("json")


def test_exports_are_cached_until_the_set_changes() -> None:
    tools = ToolSet([make("a")])
    first = tools.export("json")
    assert tools.export("json") is first
    tools.add(make("b"))
    second = tools.export("json")
    assert second is not first
    assert [item["name"] for item in second] == ["a", "b"]
    tools.remove("a")
    assert [item["name"] for item in tools.export("json")] == ["b"]
    # An export with options is kept apart from the one without.
    plain = tools.export("openai")
    strict = tools.export("openai", strict=True)
    assert tools.export("openai") is plain
    assert tools.export("openai", strict=True) is strict
    assert plain[0]["function"]["strict"] is False
    assert strict[0]["function"]["strict"] is True
    tools.add(make("c"))
    assert [item["function"]["name"] for item in tools.export("openai")] == ["b", "c"]
    assert len(tools.export("openai", strict=True)) == 2


def test_a_composed_set_exports_the_change_of_its_source() -> None:
    source = ToolSet([make("a")])
    composed = source | ToolSet([make("b")])
    first = composed.export("json")
    assert composed.export("json") is first
    source.add(make("c"))
    assert [item["name"] for item in composed.export("json")] == ["a", "c", "b"]


def test_unknown_export_format() -> None:
    with pytest.raises(
        ValueError,
        match=r"^Unknown export format 'cohere'; use one of json, openai, openai_responses, anthropic, gemini, mcp$",
    ):
        ToolSet().export("cohere")


_DUMP = "import json, sys; from tests.sample_tools import tools; sys.stdout.write(json.dumps(tools.export('json')))"


def test_exports_are_byte_identical_across_processes() -> None:
    outputs = []
    for seed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = subprocess.run(
            [sys.executable, "-c", _DUMP],
            capture_output=True,
            text=True,
            env=env,
            check=True,
            timeout=60,
        )
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert outputs[0] == json.dumps(sample_tools.tools.export("json"))
    assert '"default": ["a", "b", "c"]' in outputs[0]


def test_list_widgets_returns_each_widget_once() -> None:
    widget = sample_tools.MapWidget()
    other = make("other")
    other.widget = widget
    tools = ToolSet([sample_tools.show_map, other, sample_tools.get_weather])
    assert tools.list_widgets() == [sample_tools.show_map.widget]


# ------------------------------------------------------------------ execution


def test_execute_by_name_and_unknown_names() -> None:
    tools = sample_tools.tools
    assert (
        tools.execute("a", "c", "get_weather", {"city": "Rome"}).text
        == "Sunny in Rome for 1 day(s), 22 degrees c"
    )
    assert tools.execute("a", "c", "get_wether", {}) == ToolResult.error(
        'Unknown tool "get_wether". Available tools: get_weather, search, file_category, show_map. Did you mean "get_weather"?'
    )
    assert tools.execute("a", "c", "zzz", {}) == ToolResult.error(
        'Unknown tool "zzz". Available tools: get_weather, search, file_category, show_map.'
    )
    assert asyncio.run(
        tools.aexecute("a", "c", "show_map", {"lat": 1, "lon": 2})
    ).structured == {"lat": 1.0, "lon": 2.0}


def test_bad_json_arguments_name_the_tool() -> None:
    results = asyncio.run(
        sample_tools.tools.run("a", [ToolCall("1", "search", '{"query": ')])
    )
    assert results == [
        ToolResult.error(
            'Arguments for tool "search" are not valid JSON: Expecting value: line 1 column 11 (char 10)'
        )
    ]


def _fault_set() -> ToolSet:
    tools = ToolSet()

    @tools.tool
    async def ok(ctx: Context, n: int) -> str:
        """Ok."""
        await asyncio.sleep(0.001)
        return f"{ctx.call_id}:{n}"

    @tools.tool
    def refuse(ctx: Context) -> str:
        """Refuse."""
        raise ToolError(f"refused {ctx.call_id}")

    @tools.tool
    def crash(ctx: Context) -> str:
        """Crash."""
        raise RuntimeError(f"boom {ctx.call_id}")

    @tools.tool(timeout=0.05)
    async def hang() -> str:
        """Hang."""
        await asyncio.sleep(10)
        return "never"

    return tools


def test_run_of_a_thousand_calls_mixing_every_outcome() -> None:
    tools = _fault_set()
    kinds = ["ok", "refuse", "crash", "hang", "nope", "ok-bad"]
    calls = []
    for index in range(1000):
        kind = kinds[index % len(kinds)]
        if kind == "ok":
            calls.append(ToolCall(f"id{index}", "ok", {"n": index}))
        elif kind == "ok-bad":
            calls.append(ToolCall(f"id{index}", "ok", '{"n": "x"}'))
        else:
            calls.append(ToolCall(f"id{index}", kind, "{}"))
    started = time.monotonic()
    results = asyncio.run(tools.run("agent", calls))
    assert time.monotonic() - started < 5
    assert len(results) == 1000
    for index, (call, result) in enumerate(zip(calls, results, strict=True)):
        kind = kinds[index % len(kinds)]
        expected = {
            "ok": ToolResult(f"{call.id}:{index}"),
            "refuse": ToolResult.error(f"refused {call.id}"),
            "crash": ToolResult.error(f"RuntimeError: boom {call.id}"),
            "hang": ToolResult.error('Tool "hang" timed out after 0.05 seconds.'),
            "nope": ToolResult.error(
                'Unknown tool "nope". Available tools: ok, refuse, crash, hang.'
            ),
            "ok-bad": ToolResult.error(
                'Invalid arguments for tool "ok":\n- n: expected integer, got string "x"'
            ),
        }[kind]
        assert result == expected, (index, kind)


def test_an_item_that_is_not_a_tool_call_gets_a_result_naming_the_fix() -> None:
    tools = _fault_set()
    raw: Any = {
        "id": "1",
        "name": "ok",
        "arguments": '{"n": 1}',
    }  # an API's call, not parsed
    first, second = asyncio.run(tools.run("a", [raw, ToolCall("2", "ok", {"n": 2})]))
    assert first == ToolResult.error(
        "Not a tool call: dict. Pass ToolCall(id, name, arguments) items, such as those"
        " a provider's parse_calls(message) reads from the model's response"
    )
    assert second == ToolResult("2:2")


def test_run_is_concurrent() -> None:
    tools = ToolSet()

    @tools.tool
    async def wait() -> str:
        """Wait."""
        await asyncio.sleep(0.2)
        return "done"

    started = time.monotonic()
    results = asyncio.run(
        tools.run("a", [ToolCall(str(index), "wait", {}) for index in range(50)])
    )
    assert time.monotonic() - started < 1.5
    assert results == [ToolResult("done")] * 50


def test_sequential_tools_run_alone() -> None:
    tools = ToolSet()
    running: list[str] = []
    overlaps: list[tuple[str, list[str]]] = []

    async def body(name: str) -> str:
        overlaps.append((name, list(running)))
        running.append(name)
        await asyncio.sleep(0.02)
        running.remove(name)
        return name

    @tools.tool
    async def free(tag: str) -> str:
        """Free."""
        return await body(tag)

    @tools.tool(sequential=True)
    async def alone(tag: str) -> str:
        """Alone."""
        return await body(tag)

    calls = [
        ToolCall("1", "free", {"tag": "f1"}),
        ToolCall("2", "free", {"tag": "f2"}),
        ToolCall("3", "alone", {"tag": "s"}),
        ToolCall("4", "free", {"tag": "f3"}),
    ]
    results = asyncio.run(tools.run("a", calls))
    assert [result.text for result in results] == ["f1", "f2", "s", "f3"]
    assert dict(overlaps)["s"] == []
    assert dict(overlaps)["f3"] == []
    assert dict(overlaps)["f2"] == ["f1"]


def test_each_call_of_a_turn_has_its_own_context_variables() -> None:
    seen: contextvars.ContextVar[str] = contextvars.ContextVar("seen", default="")
    tools = ToolSet()

    @tools.tool
    async def mark(tag: str) -> str:
        """Mark."""
        before = seen.get()
        seen.set(tag)
        await asyncio.sleep(0)
        return f"{before}>{seen.get()}"

    async def main(count: int) -> tuple[list[str], str]:
        seen.set("caller")
        calls = [ToolCall(str(n), "mark", {"tag": f"t{n}"}) for n in range(count)]
        results = await tools.run("a", calls)
        return [result.text for result in results], seen.get()

    assert asyncio.run(main(1)) == (["caller>t0"], "caller")
    assert asyncio.run(main(3)) == (["caller>t0", "caller>t1", "caller>t2"], "caller")


def test_a_cancelled_turn_cancels_every_call_and_waits_for_each(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ended: list[str] = []
    tools = ToolSet()

    @tools.tool
    async def slow(a: int) -> str:
        """Wait long."""
        try:
            await asyncio.sleep(60)
        except asyncio.CancelledError:
            await asyncio.sleep(0)  # cleanup that takes a turn of the loop
            ended.append(f"cancelled {a}")
            raise
        return "never"

    calls = [ToolCall(str(a), "slow", {"a": a}) for a in range(5)]

    async def cancelled() -> int:
        task = asyncio.ensure_future(tools.run("a", calls))
        await asyncio.sleep(0.01)
        task.cancel()
        try:
            await task
        except asyncio.CancelledError:
            return len(ended)  # every call finished before the caller resumed
        raise AssertionError("not cancelled")

    assert asyncio.run(asyncio.wait_for(cancelled(), 30)) == 5
    assert sorted(ended) == [f"cancelled {a}" for a in range(5)]
    assert caplog.records == []  # the caller's cancellation is no tool failure


def _shut_down_before_the_tasks_start(make: Any) -> list[str]:
    """Start `make()` as the caller's task, stop the loop once it has made its
    tasks, then cancel every task before any of them has begun, as a loop's
    shutdown does; the "never awaited" warnings that collecting the
    leftovers raises."""
    import gc
    import warnings

    loop = asyncio.new_event_loop()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            caller = loop.create_task(make())
            loop.call_soon(loop.stop)
            loop.run_forever()  # the caller has made its tasks; none has begun
            waiting = asyncio.all_tasks(loop)
            assert len(waiting) > 1  # the caller and the tasks it made
            for task in waiting:
                task.cancel()
            try:
                loop.run_until_complete(caller)
            except asyncio.CancelledError:
                pass
            else:
                raise AssertionError("not cancelled")
            del caller, waiting, task
            gc.collect()
    finally:
        loop.close()
    return [
        str(item.message) for item in caught if "never awaited" in str(item.message)
    ]


def test_a_turn_cancelled_before_its_calls_begin_leaves_no_coroutine_unawaited() -> (
    None
):
    @tool
    async def asum(a: int, b: float) -> str:
        """Add, async."""
        return str(a + b)

    calls = [
        ToolCall("1", "asum", {"a": 1, "b": 2.0}),
        ToolCall("2", "nothing", {}),  # a name of no tool
        ToolCall("3", "asum", {"a": "x"}),  # invalid arguments
    ]
    guarded = ToolSet([asum])

    @guarded.use
    async def passing(call: ToolCall, context: Context[Any], call_next: Any) -> Any:
        return await call_next(call)

    for tools in (ToolSet([asum]), ToolSet([asum], max_output_chars=100), guarded):

        def make(tools: ToolSet = tools) -> Any:
            return tools.run("a", calls)

        assert _shut_down_before_the_tasks_start(make) == []


def test_max_output_chars_truncates_and_keeps_the_full_value() -> None:
    tools = ToolSet(max_output_chars=120)

    @tools.tool
    def long() -> str:
        """Long."""
        return "".join(str(index % 10) for index in range(1000))

    @tools.tool
    def data() -> list[int]:
        """Data."""
        return list(range(500))

    result = tools.execute("a", "c", "long", {})
    assert len(result.text) == 118
    assert "\n[... 921 of 1,000 characters cut ...]\n" in result.text
    assert result.text.startswith("0123456789")
    assert result.text.endswith("3456789")
    assert result.structured == "".join(str(index % 10) for index in range(1000))
    structured = tools.execute("a", "c", "data", {})
    assert structured.structured == list(range(500))
    assert len(structured.text) == 120


def test_max_output_chars_must_fit_a_notice() -> None:
    with pytest.raises(ToolDefinitionError, match="too small"):
        ToolSet(max_output_chars=10)


def test_error_formatter_masks_crashes_but_not_tool_errors() -> None:
    seen: list[tuple[str, str]] = []

    def formatter(item: Tool[Any, Any], error: BaseException) -> str:
        seen.append((item.name, type(error).__name__))
        return f"Tool {item.name} failed; the details are in the server log."

    tools = ToolSet(list(_fault_set()), error_formatter=formatter)
    assert tools.execute("a", "c", "crash", {}) == ToolResult.error(
        "Tool crash failed; the details are in the server log."
    )
    assert tools.execute("a", "c", "refuse", {}) == ToolResult.error("refused c")
    assert (
        asyncio.run(tools.aexecute("a", "c", "crash", {})).text
        == "Tool crash failed; the details are in the server log."
    )
    assert seen == [("crash", "RuntimeError"), ("crash", "RuntimeError")]


def test_middleware_wraps_every_execution_in_order() -> None:
    tools = ToolSet([sample_tools.get_weather])
    order: list[str] = []

    @tools.use
    async def log(call: ToolCall, context: Context[Any], call_next: Any) -> ToolResult:
        order.append(f"log>{call.name}:{context.call_id}")
        result: ToolResult = await call_next(call)
        order.append("log<")
        return result

    @tools.use
    async def approve(
        call: ToolCall, context: Context[Any], call_next: Any
    ) -> ToolResult:
        order.append("approve")
        if call.args.get("city") == "Atlantis":
            return ToolResult.error("Not approved.")
        return await call_next(ToolCall(call.id, call.name, {**call.args, "days": 2}))  # type: ignore[no-any-return]

    assert (
        tools.execute("a", "c1", "get_weather", {"city": "Rome"}).text
        == "Sunny in Rome for 2 day(s), 22 degrees c"
    )
    assert asyncio.run(
        tools.run("a", [ToolCall("c2", "get_weather", {"city": "Atlantis"})])
    ) == [ToolResult.error("Not approved.")]
    assert order == [
        "log>get_weather:c1",
        "approve",
        "log<",
        "log>get_weather:c2",
        "approve",
        "log<",
    ]


def test_middleware_exception_becomes_an_error_result() -> None:
    tools = ToolSet([sample_tools.get_weather])

    @tools.use
    async def broken(
        call: ToolCall, context: Context[Any], call_next: Any
    ) -> ToolResult:
        raise PermissionError("no quota left")

    assert tools.execute("a", "c", "get_weather", {"city": "x"}) == ToolResult.error(
        "PermissionError: no quota left"
    )


def test_kept_envelopes_follow_changes_to_the_tool() -> None:
    made = make("kept", "ok")
    first = ToolSet([made]).export("openai")
    again = ToolSet([made]).export("openai")
    assert again[0] is first[0]  # a new set of a known tool reuses its envelope
    made.description = "Now described."
    changed = ToolSet([made]).export("openai")
    assert changed[0]["function"]["description"] == "Now described."
    renamed = ToolSet([made]).prefixed("p_").export("openai")
    assert renamed[0]["function"]["name"] == "p_kept"
    assert ToolSet([made]).export("openai")[0]["function"]["name"] == "kept"


def test_a_raw_tools_envelope_is_kept_with_it_until_it_is_renamed() -> None:
    raw = Tool.new(
        name="raw_kept",
        description="Raw.",
        parameters={"type": "object", "properties": {}},
        execute_fn=lambda agent, call, args: "ok",
    )
    first = ToolSet([raw]).export("openai")[0]
    assert ToolSet([raw]).export("openai")[0] is first
    raw.name = "renamed_after"
    assert ToolSet([raw]).export("openai")[0]["function"]["name"] == "renamed_after"


@pytest.mark.parametrize(
    ("format", "sent"),
    [("openai", "a_b"), ("anthropic", "a_b"), ("gemini", "a.b"), ("mcp", "a.b")],
)
def test_the_name_sent_for_a_tool_follows_its_renaming(format: str, sent: str) -> None:
    """Each tool keeps the name each API is sent for it; a new name is sent anew."""
    raw = Tool.new(
        name="plain",
        description="Raw.",
        parameters={"type": "object", "properties": {}},
        execute_fn=lambda agent, call, args: "ok",
    )
    assert raw.wire_name(format) == "plain"
    raw.name = "a.b"
    assert raw.wire_name(format) == sent
    exported = json.dumps(ToolSet([raw]).export(format))
    assert f'"{sent}"' in exported


def test_a_copy_of_a_tool_changed_leaves_the_original_export_alone() -> None:
    import copy

    made = make("original")
    first = ToolSet([made]).export("openai")[0]
    other = copy.copy(made)
    other.description = "The copy."
    assert (
        ToolSet([other]).export("openai")[0]["function"]["description"] == "The copy."
    )
    assert ToolSet([made]).export("openai")[0] is first
    made.returns = "Something."
    assert (
        ToolSet([made]).export("openai")[0]["function"]["description"]
        == "Returns: Something."
    )
    assert (
        ToolSet([other]).export("openai")[0]["function"]["description"] == "The copy."
    )


# ------------------------------------------------------------ method tools read from their class


class _Calendar:
    @tool
    def events(self, day: str) -> str:
        """List the events of a day."""
        return f"events of {day}"


_UNBOUND = (
    "_Calendar.events is a method tool read from its class, so no instance would be "
    "passed as its first parameter and every call would fail. Read it from an "
    "instance: _Calendar().events (any instance will do)"
)


@pytest.mark.parametrize(
    "use",
    [
        lambda: ToolSet([_Calendar.events]),
        lambda: ToolSet().add(_Calendar.events),
        lambda: ToolSet() | ToolSet([_Calendar.events]),
        lambda: openai.tools([_Calendar.events]),
        lambda: openai.tools(_Calendar.events),
        lambda: anthropic.tools([_Calendar.events]),
    ],
    ids=["constructor", "add", "composed", "export-list", "export-tool", "anthropic"],
)
def test_a_method_tool_read_from_its_class_is_refused_with_the_fix(
    use: Callable[[], object],
) -> None:
    with pytest.raises(ToolDefinitionError) as raised:
        use()
    assert str(raised.value) == _UNBOUND
    assert raised.value.function == "_Calendar.events"


def test_a_method_tool_read_from_an_instance_is_added_and_runs() -> None:
    tools = ToolSet([_Calendar().events])
    assert tools.execute("a", "c", "events", {"day": "Monday"}) == ToolResult(
        "events of Monday"
    )
    assert openai.tools(tools)[0]["function"]["name"] == "events"


def test_lint_reports_a_method_tool_read_from_its_class() -> None:
    from toolkit import Finding, lint

    assert lint([_Calendar.events])[0] == Finding(
        "events", "method-without-instance", _UNBOUND
    )
    assert [finding.code for finding in lint([_Calendar().events])] == [
        "undocumented-parameter"
    ]
