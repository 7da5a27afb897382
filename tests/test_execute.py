"""Tool.execute / aexecute: validation, conversion, running, results and errors."""

from __future__ import annotations

import asyncio
import contextvars
import dataclasses
import datetime
import decimal
import enum
import json
import logging
import math
import pathlib
import threading
import time
import uuid
from typing import Annotated, Any, Literal, NamedTuple

import pydantic
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typing_extensions import TypedDict

from toolkit import Context, Param, TextUI, Tool, ToolError, ToolResult, WidgetUI, tool


@tool
def get_weather(city: str, unit: Literal["c", "f"] = "c") -> str:
    """Get the current weather for a city.

    Args:
        city: City name.
        unit: Temperature unit.
    """
    return f"22 degrees {unit} in {city}"


def run(made: Tool[Any, Any], args: Any, **kwargs: Any) -> ToolResult:
    return made.execute("agent-1", "call-1", args, **kwargs)


# ---------------------------------------------------------------- validation


def test_spec_validation_message() -> None:
    result = run(get_weather, {"unit": "kelvin"})
    assert result == ToolResult.error(
        'Invalid arguments for tool "get_weather":\n'
        "- city: required property is missing\n"
        '- unit: "kelvin" is not one of "c", "f"'
    )


def test_unknown_keys_are_named_with_the_valid_ones() -> None:
    result = run(get_weather, {"city": "Paris", "country": "FR"})
    assert result.text == (
        'Invalid arguments for tool "get_weather":\n- country: unknown argument; valid arguments: city, unit'
    )


def test_arguments_that_are_not_json() -> None:
    assert run(get_weather, '{"city": ').text == (
        'Arguments for tool "get_weather" are not valid JSON: Expecting value: line 1 column 10 (char 9)'
    )


@pytest.mark.parametrize(
    ("args", "text"),
    [
        (
            "[1, 2]",
            'Arguments for tool "get_weather" must be a JSON object of named arguments, got array.',
        ),
        (
            42,
            'Arguments for tool "get_weather" must be a JSON object of named arguments, got int.',
        ),
        (
            '{"city": NaN}',
            'Arguments for tool "get_weather" are not valid JSON: NaN is not a JSON value',
        ),
    ],
)
def test_arguments_of_the_wrong_shape(args: Any, text: str) -> None:
    assert run(get_weather, args) == ToolResult.error(text)


def test_json_string_arguments_as_openai_sends_them() -> None:
    assert (
        run(get_weather, '{"city": "Oslo", "unit": "f"}').text == "22 degrees f in Oslo"
    )


@pytest.mark.parametrize("args", [None, "", "  ", "null", {}])
def test_empty_arguments_mean_no_arguments(args: Any) -> None:
    @tool
    def now() -> str:
        """Now."""
        return "noon"

    assert run(now, args) == ToolResult.ok("noon")


def test_validate_args() -> None:
    assert get_weather.validate_args({"city": "Paris"}) is None
    assert get_weather.validate_args('{"city": "Paris"}') is None
    assert get_weather.validate_args({"city": 1}) == ToolResult.error(
        'Invalid arguments for tool "get_weather":\n- city: expected string, got integer 1'
    )


@dataclasses.dataclass
class Item:
    sku: str
    qty: Annotated[int, Param(ge=1)] = 1


@dataclasses.dataclass
class Window:
    days: int = 7


def test_nested_problems_have_paths() -> None:
    @tool
    def order(items: list[Item], note: str | None = None) -> str:
        """Order."""
        return "ok"

    result = run(
        order, {"items": [{"sku": "a"}, {"sku": 2, "qty": 0, "size": "L"}], "note": 5}
    )
    assert result.text == (
        'Invalid arguments for tool "order":\n'
        "- items[1].sku: expected string, got integer 2\n"
        "- items[1].qty: 0 is less than the minimum of 1\n"
        "- items[1].size: unknown field; valid fields: sku, qty\n"
        "- note: expected string or null, got integer 5"
    )


def test_whole_float_is_accepted_for_int() -> None:
    seen: list[Any] = []

    @tool
    def count(n: int) -> str:
        """Count."""
        seen.append(n)
        return "ok"

    assert run(count, {"n": 3.0}) == ToolResult.ok("ok")
    assert seen == [3]
    assert type(seen[0]) is int
    assert run(count, {"n": 3.5}).is_error
    assert (
        run(count, {"n": True}).text
        == 'Invalid arguments for tool "count":\n- n: expected integer, got boolean true'
    )


def test_json_encoded_string_is_decoded_for_non_string_parameters() -> None:
    @tool
    def total(numbers: list[int], label: str = "") -> str:
        """Total."""
        return f"{label}{sum(numbers)}"

    assert run(total, {"numbers": "[1, 2]"}) == ToolResult.ok("3")
    assert run(total, {"numbers": [1], "label": "[1]"}) == ToolResult.ok("[1]1")
    assert run(total, {"numbers": "[1, 'x']"}).text == (
        'Invalid arguments for tool "total":\n- numbers: expected array, got string "[1, \'x\']"'
    )


def test_formats_are_checked() -> None:
    @tool
    def book(when: datetime.datetime, ref: uuid.UUID) -> str:
        """Book."""
        return "ok"

    result = run(book, {"when": "next tuesday", "ref": "123"})
    assert result.text == (
        'Invalid arguments for tool "book":\n'
        '- when: "next tuesday" is not a valid date-time\n'
        '- ref: "123" is not a valid uuid'
    )
    assert run(
        book, {"when": "2024-02-30T10:00:00Z", "ref": str(uuid.UUID(int=1))}
    ).text == (
        'Invalid arguments for tool "book":\n- when: "2024-02-30T10:00:00Z" is not a valid date-time (day is out of range for month)'
    )


# ---------------------------------------------------------------- conversion


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


class Size(enum.IntEnum):
    S = 1
    L = 3


class Point(NamedTuple):
    x: int
    y: int = 0


class Meta(TypedDict):
    tag: str


@dataclasses.dataclass
class Box:
    size: Size
    corner: Point
    colors: frozenset[Color] = frozenset()


class Owner(pydantic.BaseModel):
    name: str
    age: int


def test_arguments_become_the_annotated_python_types() -> None:
    received: dict[str, Any] = {}

    @tool
    def everything(
        color: Color,
        box: Box,
        pair: tuple[int, str],
        tags: set[str],
        when: datetime.datetime,
        day: datetime.date,
        at: datetime.time,
        span: datetime.timedelta,
        ref: uuid.UUID,
        price: decimal.Decimal,
        path: pathlib.Path,
        blob: bytes,
        owner: Owner,
        meta: Meta,
        lit: Literal[Color.BLUE],
        ratio: float,
    ) -> str:
        """Everything."""
        received.update(locals())
        return "ok"

    args = {
        "color": "red",
        "box": {"size": 3, "corner": {"x": 1}, "colors": ["blue"]},
        "pair": [1, "a"],
        "tags": ["x", "y"],
        "when": "2024-05-01T09:30:00Z",
        "day": "2024-05-01",
        "at": "09:30",
        "span": "PT90M",
        "ref": "123e4567-e89b-12d3-a456-426614174000",
        "price": "19.99",
        "path": "/tmp/x",
        "blob": "aGVsbG8=",
        "owner": {"name": "Ada", "age": 36},
        "meta": {"tag": "t"},
        "lit": "blue",
        "ratio": 1,
    }
    assert run(everything, args) == ToolResult.ok("ok")
    assert received["color"] is Color.RED
    assert received["box"] == Box(
        size=Size.L, corner=Point(1, 0), colors=frozenset({Color.BLUE})
    )
    assert type(received["box"].size) is Size
    assert received["pair"] == (1, "a")
    assert received["tags"] == {"x", "y"}
    assert received["when"] == datetime.datetime(
        2024, 5, 1, 9, 30, tzinfo=datetime.timezone.utc
    )
    assert received["day"] == datetime.date(2024, 5, 1)
    assert received["at"] == datetime.time(9, 30)
    assert received["span"] == datetime.timedelta(minutes=90)
    assert received["ref"] == uuid.UUID("123e4567-e89b-12d3-a456-426614174000")
    assert received["price"] == decimal.Decimal("19.99")
    assert received["path"] == pathlib.Path("/tmp/x")
    assert received["blob"] == b"hello"
    assert received["owner"] == Owner(name="Ada", age=36)
    assert received["meta"] == {"tag": "t"}
    assert received["lit"] is Color.BLUE
    assert received["ratio"] == 1.0
    assert type(received["ratio"]) is float


def test_conversion_failure_is_an_error_result() -> None:
    @tool
    def decode(blob: bytes) -> str:
        """Decode."""
        return "ok"

    assert run(decode, {"blob": "not base64!"}) == ToolResult.error(
        "Invalid arguments for tool \"decode\":\n- blob: 'not base64!' is not valid base64"
    )


def test_union_picks_the_member_the_value_fits() -> None:
    seen: list[Any] = []

    @tool
    def pick(value: int | datetime.date | str) -> str:
        """Pick."""
        seen.append(value)
        return "ok"

    for sent in (2.0, "2024-01-02", "hello"):
        assert not run(pick, {"value": sent}).is_error
    assert seen == [2, datetime.date(2024, 1, 2), "hello"]


def test_missing_optional_parameters_take_their_defaults() -> None:
    @tool
    def greet(name: str, greeting: str = "hello", times: int = 1) -> str:
        """Greet."""
        return f"{greeting} {name} x{times}"

    assert run(greet, {"name": "Ada"}).text == "hello Ada x1"


def test_null_for_a_non_nullable_parameter_with_a_default_takes_the_default() -> None:
    @tool
    def report(
        limit: int = 10, note: str | None = "x", window: Window | None = None
    ) -> str:
        """Report."""
        return f"{limit} {note} {window}"

    assert run(report, {"limit": None, "note": None}).text == "10 None None"
    assert run(report, {"window": {"days": None}}).text == "10 x Window(days=7)"


def _omittable_tools() -> list[Tool[Any, Any]]:
    """`limit` may be left out but cannot be None; `note` may be None; `window.days` is nested."""

    @tool
    def report(
        limit: int = 10, note: str | None = "x", window: Window | None = None
    ) -> str:
        """Report."""
        return f"{limit} {note} {window}"

    raw = Tool.new(
        name="report_raw",
        description="Report.",
        parameters={
            "type": "object",
            "properties": {
                "limit": {"type": "integer"},
                "note": {"type": ["string", "null"]},
            },
        },
        execute_fn=lambda agent_id, call_id, args: repr(args),
    )
    return [report, raw]


@pytest.mark.parametrize("made", _omittable_tools(), ids=lambda made: made.name)
def test_validate_args_and_execute_read_null_for_an_omittable_parameter_alike(
    made: Tool[Any, Any],
) -> None:
    good: list[Any] = [{"limit": None}, '{"limit": null, "note": null}', {"note": None}]
    for args in good:
        assert made.validate_args(args) is None, args
        assert made.execute("a", "c", args).is_error is False, args
    bad: list[Any] = [{"limit": "x"}, {"note": 1}, {"limit": None, "note": 1}]
    for args in bad:
        refused = made.validate_args(args)
        assert refused is not None
        assert refused == made.execute("a", "c", args), args


@given(
    st.dictionaries(
        st.sampled_from(["limit", "note", "window", "other"]),
        st.one_of(
            st.none(),
            st.integers(),
            st.text("ab", max_size=3),  # never JSON text, which execute decodes
            st.just({"days": None}),
        ),
        max_size=4,
    )
)
@settings(max_examples=200, deadline=None)
def test_validate_args_is_what_execute_refuses(args: dict[str, Any]) -> None:
    """`validate_args` refuses exactly what `execute` refuses, with the same text.

    (`execute` also decodes a JSON-encoded string that makes the call valid:
    see `test_json_encoded_string_is_decoded_for_non_string_parameters`.)
    """
    for made in OMITTABLE:
        refused = made.validate_args(args)
        outcome = made.execute("a", "c", args)
        if refused is None:
            assert outcome.is_error is False, (made.name, args, outcome.text)
        else:
            assert outcome == refused, (made.name, args)


OMITTABLE = _omittable_tools()


def test_null_for_a_required_parameter_is_still_an_error() -> None:
    assert run(get_weather, {"city": None}).text == (
        'Invalid arguments for tool "get_weather":\n- city: expected string, got null'
    )


def test_positional_only_parameters() -> None:
    @tool
    def div(a: int, b: int = 1, /, *, exact: bool = False) -> str:
        """Divide."""
        return str(a / b if exact else a // b)

    assert run(div, {"a": 7, "b": 2}).text == "3"
    assert run(div, {"a": 7}).text == "7"
    assert run(div, {"a": 7, "b": 2, "exact": True}).text == "3.5"


def test_valid_arguments_reach_the_function_as_their_annotated_types() -> None:
    seen: list[dict[str, tuple[Any, type]]] = []

    @tool
    def sums(a: int, b: float, c: str) -> str:
        """Add."""
        seen.append({"a": (a, type(a)), "b": (b, type(b)), "c": (c, type(c))})
        return f"{a + b}{c}"

    assert asyncio.run(sums.aexecute("a", "c", {"a": 1, "b": 2.5, "c": "x"})) == (
        ToolResult("3.5x")
    )
    assert run(sums, {"a": 1, "b": 2, "c": "x"}) == ToolResult("3.0x")
    assert run(sums, {"a": 3.0, "b": 1.5, "c": "x"}) == ToolResult("4.5x")
    assert seen == [
        {"a": (1, int), "b": (2.5, float), "c": ("x", str)},
        {"a": (1, int), "b": (2.0, float), "c": ("x", str)},  # an int for a float
        {"a": (3, int), "b": (1.5, float), "c": ("x", str)},  # a whole float for an int
    ]


def test_an_async_tool_with_positional_only_parameters() -> None:
    @tool
    async def apositional(a: int, /, b: float) -> str:
        """Take `a` by position.

        Args:
            a: An int.
            b: A number.
        """
        return f"{a}:{b}"

    assert asyncio.run(apositional.aexecute("a", "c", {"a": 1, "b": 2})) == (
        ToolResult("1:2.0")
    )
    assert run(apositional, {"a": 1, "b": 2}) == ToolResult("1:2.0")


def test_context_is_injected_with_deps() -> None:
    @tool
    def whoami(ctx: Context[dict[str, str]], shout: bool = False) -> str:
        """Who."""
        text = f"{ctx.agent_id}/{ctx.call_id}/{ctx.tool_name}/{ctx.deps['user']}"
        return text.upper() if shout else text

    assert run(whoami, {}, deps={"user": "ada"}).text == "agent-1/call-1/whoami/ada"
    assert run(whoami, {"ctx": 1}).text == (
        'Invalid arguments for tool "whoami":\n- ctx: unknown argument; valid arguments: shout'
    )


# ---------------------------------------------------------------- results


@dataclasses.dataclass
class Reading:
    city: str
    temp: float


@pytest.mark.parametrize(
    ("returned", "text", "structured"),
    [
        (
            {"temp": 21, "city": "Zürich"},
            '{"temp":21,"city":"Zürich"}',
            {"temp": 21, "city": "Zürich"},
        ),
        ([1, "a", None], '[1,"a",null]', [1, "a", None]),
        (42, "42", 42),
        (2.5, "2.5", 2.5),
        (True, "true", True),
        (None, "null", None),
        (
            Reading("Oslo", 3.5),
            '{"city":"Oslo","temp":3.5}',
            {"city": "Oslo", "temp": 3.5},
        ),
        (Color.RED, '"red"', "red"),
        (datetime.date(2024, 5, 1), '"2024-05-01"', "2024-05-01"),
        (
            Owner(name="Ada", age=36),
            '{"name":"Ada","age":36}',
            {"name": "Ada", "age": 36},
        ),
        (Point(1, 2), '{"x":1,"y":2}', {"x": 1, "y": 2}),
        ({"tag": "t"}, '{"tag":"t"}', {"tag": "t"}),
    ],
)
def test_returned_values_become_compact_json(
    returned: Any, text: str, structured: Any
) -> None:
    @tool
    def give() -> Any:
        """Give."""
        return returned

    assert run(give, {}) == ToolResult(text, False, None, structured)


def test_returned_string_and_tool_results_pass_through() -> None:
    ui = WidgetUI(label="Open map", widget="map", data={"lat": 1})

    @tool
    def plain() -> str:
        """Plain."""
        return "hello"

    @tool
    def with_ui() -> ToolResult:
        """With UI."""
        return ToolResult.ok("Saved 3 files", ui=ui)

    @tool
    def failing() -> ToolResult:
        """Failing."""
        return ToolResult.error("No such file")

    assert run(plain, {}) == ToolResult("hello")
    assert run(with_ui, {}) == ToolResult("Saved 3 files", False, ui, None)
    assert run(failing, {}) == ToolResult("No such file", True)


def test_ui_never_reaches_the_text() -> None:
    result = ToolResult.ok("Saved", ui=TextUI("Saved 3 files to /home/ada"))
    assert result.text == "Saved"
    assert TextUI("note").to_dict() == {"kind": "text", "text": "note"}
    assert WidgetUI(label="Open", widget="map").to_dict() == {
        "kind": "widget",
        "label": "Open",
        "widget": "map",
        "data": None,
    }


_OBJECT = object()


@pytest.mark.parametrize(
    ("returned", "text"),
    [
        pytest.param(_OBJECT, json.dumps(str(_OBJECT)), id="object"),
        pytest.param(
            {"x": math.nan, "y": -math.inf}, '{"x":"nan","y":"-inf"}', id="nan"
        ),
        pytest.param({"x": {1j}}, '{"x":["1j"]}', id="complex"),
        pytest.param(
            {(1, 2): decimal.Decimal("1.10")}, '{"(1, 2)":"1.10"}', id="tuple key"
        ),
    ],
)
def test_leaves_json_cannot_hold_are_sent_as_their_text(
    returned: Any, text: str
) -> None:
    @tool
    def give() -> Any:
        """Give."""
        return returned

    assert run(give, {}) == ToolResult(text, structured=json.loads(text))


# ---------------------------------------------------------------- errors


def test_tool_error_text_is_passed_through() -> None:
    @tool
    def strict() -> str:
        """Strict."""
        raise ToolError("No city named 'Pariss'. Did you mean 'Paris'?")

    assert run(strict, {}) == ToolResult.error(
        "No city named 'Pariss'. Did you mean 'Paris'?"
    )


@pytest.mark.parametrize(
    ("exception", "text"),
    [
        (ValueError("bad value"), "ValueError: bad value"),
        (KeyError("k"), "KeyError: 'k'"),
        (RuntimeError(), "RuntimeError"),
        (SystemExit(3), "SystemExit: 3"),
    ],
)
def test_other_exceptions_become_type_and_message(
    exception: BaseException, text: str, caplog: pytest.LogCaptureFixture
) -> None:
    @tool
    def crash() -> str:
        """Crash."""
        raise exception

    with caplog.at_level(logging.ERROR, logger="toolkit"):
        assert run(crash, {}) == ToolResult.error(text)
        assert asyncio.run(crash.aexecute("a", "c", {})) == ToolResult.error(text)
    assert [record.exc_info[1] for record in caplog.records if record.exc_info] == [
        exception,
        exception,
    ]
    assert "Traceback" not in run(crash, {}).text


def test_keyboard_interrupt_propagates() -> None:
    @tool
    def stop() -> str:
        """Stop."""
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(stop, {})
    with pytest.raises(KeyboardInterrupt):
        asyncio.run(stop.aexecute("a", "c", {}))


def test_cancellation_propagates() -> None:
    @tool
    async def forever() -> str:
        """Forever."""
        await asyncio.sleep(60)
        return "never"

    async def main() -> None:
        task = asyncio.ensure_future(forever.aexecute("a", "c", {}))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())


def test_cancelled_error_raised_by_a_tool_is_its_error_result() -> None:
    """Only the caller's own cancellation propagates; the tool's is its result."""

    @tool
    async def cancels() -> str:
        """Cancels."""
        raise asyncio.CancelledError("by the tool")

    expected = ToolResult.error("CancelledError: by the tool")
    assert asyncio.run(cancels.aexecute("a", "c", {})) == expected
    assert run(cancels, {}) == expected


# ---------------------------------------------------------------- async, threads, timeouts


def test_async_tool_from_sync_execute() -> None:
    @tool
    async def fetch(url: str) -> dict[str, str]:
        """Fetch."""
        await asyncio.sleep(0)
        return {"url": url}

    assert run(fetch, {"url": "u"}) == ToolResult(
        '{"url":"u"}', structured={"url": "u"}
    )


def test_async_tool_from_sync_execute_inside_a_running_loop() -> None:
    @tool
    async def fetch() -> str:
        """Fetch."""
        return "ok"

    async def main() -> ToolResult:
        return run(fetch, {})

    assert asyncio.run(main()) == ToolResult("ok")


def test_an_awaitable_that_an_async_tool_returns_is_awaited_too() -> None:
    @tool
    async def nested(a: int) -> Any:
        """Return an awaitable."""
        return asyncio.sleep(0, result=f"got {a}")

    assert run(nested, {"a": 1}) == ToolResult("got 1")
    assert asyncio.run(nested.aexecute("a", "c", {"a": 2})) == ToolResult("got 2")


def test_sync_tool_does_not_block_the_event_loop() -> None:
    @tool
    def slow() -> str:
        """Slow."""
        time.sleep(0.3)
        return "done"

    async def main() -> tuple[ToolResult, int]:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        ticking = asyncio.ensure_future(ticker())
        result = await slow.aexecute("a", "c", {})
        ticking.cancel()
        return result, ticks

    result, ticks = asyncio.run(main())
    assert result == ToolResult("done")
    assert ticks >= 10


def test_context_variables_reach_the_worker_thread() -> None:
    request_id: contextvars.ContextVar[str] = contextvars.ContextVar("request_id")

    @tool
    def read() -> str:
        """Read."""
        return f"{request_id.get()} on {threading.current_thread() is not threading.main_thread()}"

    async def main() -> ToolResult:
        request_id.set("r-42")
        return await read.aexecute("a", "c", {})

    assert asyncio.run(main()) == ToolResult("r-42 on True")


def test_thread_false_runs_inline() -> None:
    @tool(thread=False)
    def where() -> str:
        """Where."""
        return str(threading.current_thread() is threading.main_thread())

    assert asyncio.run(where.aexecute("a", "c", {})) == ToolResult("True")


@pytest.mark.parametrize("mode", ["execute", "aexecute"])
def test_timeouts(mode: str) -> None:
    @tool(timeout=0.1)
    def sync_slow() -> str:
        """Slow."""
        time.sleep(1)
        return "late"

    @tool(timeout=0.1)
    async def async_slow() -> str:
        """Slow."""
        await asyncio.sleep(1)
        return "late"

    @tool(timeout=1)
    def quick() -> str:
        """Quick."""
        return "on time"

    for made in (sync_slow, async_slow):
        started = time.monotonic()
        if mode == "execute":
            result = run(made, {})
        else:
            result = asyncio.run(made.aexecute("a", "c", {}))
        assert result == ToolResult.error(
            f'Tool "{made.name}" timed out after 0.1 seconds.'
        )
        assert time.monotonic() - started < 0.9
    assert run(quick, {}) == ToolResult("on time")


# ---------------------------------------------------------------- Tool.new


def test_tool_new_execute_fn_receives_validated_args() -> None:
    calls: list[tuple[str, str, dict[str, Any]]] = []

    def read_file(agent_id: str, call_id: str, args: dict[str, Any]) -> ToolResult:
        calls.append((agent_id, call_id, args))
        return ToolResult.ok(f"contents of {args['path']}", ui=TextUI("read"))

    made = Tool.new(
        name="read_file",
        description="Read a file",
        parameters={
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
        execute_fn=read_file,
    )
    assert run(made, '{"path": "a.txt"}') == ToolResult(
        "contents of a.txt", False, TextUI("read")
    )
    assert calls == [("agent-1", "call-1", {"path": "a.txt"})]
    assert (
        run(made, {}).text
        == 'Invalid arguments for tool "read_file":\n- path: required property is missing'
    )
    assert len(calls) == 1


def test_tool_new_async_execute_fn_and_plain_text() -> None:
    async def shout(agent_id: str, call_id: str, args: dict[str, Any]) -> str:
        return str(args["word"]).upper()

    made = Tool.new(
        name="shout",
        description="Shout",
        parameters={"type": "object", "properties": {"word": {"type": "string"}}},
        execute_fn=shout,
    )
    assert run(made, {"word": "hi"}) == ToolResult("HI")
    assert asyncio.run(made.aexecute("a", "c", {"word": "yo"})) == ToolResult("YO")


def test_decorated_tool_execute_fn_follows_the_seed() -> None:
    assert get_weather.execute_fn("a", "c", {"city": "Rome"}) == ToolResult(
        "22 degrees c in Rome"
    )


def test_method_tool_executes_bound() -> None:
    class Counter:
        def __init__(self) -> None:
            self.total = 0

        @tool
        def add(self, n: int) -> int:
            """Add."""
            self.total += n
            return self.total

    counter = Counter()
    assert run(counter.add, {"n": 2}) == ToolResult("2", structured=2)
    assert counter.add.execute_fn("a", "c", {"n": 3}) == ToolResult("5", structured=5)
