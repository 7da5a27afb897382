"""Middleware: what it returns is checked, how it is called is checked, its failures are logged."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from toolkit import Context, ToolCall, ToolDefinitionError, ToolResult, ToolSet, tool


@tool
def echo(text: str) -> str:
    """Echo."""
    return text


def _set(*middleware: Any) -> ToolSet:
    tools = ToolSet([echo])
    for item in middleware:
        tools.use(item)
    return tools


def _call(tools: ToolSet) -> ToolResult:
    return tools.execute("a", "c", "echo", {"text": "hi"})


async def blank(call: ToolCall, context: Context[Any], call_next: Any) -> ToolResult:
    return ToolResult(None)  # type: ignore[arg-type]


async def plain(call: ToolCall, context: Context[Any], call_next: Any) -> Any:
    return "just text"


async def nothing(call: ToolCall, context: Context[Any], call_next: Any) -> Any:
    await call_next(call)  # forgets to return it


@pytest.mark.parametrize(
    ("middleware", "text"),
    [
        (
            blank,
            'Middleware "blank" returned a ToolResult whose text is NoneType, not str.',
        ),
        (plain, 'Middleware "plain" returned str, not a ToolResult.'),
        (nothing, 'Middleware "nothing" returned NoneType, not a ToolResult.'),
    ],
)
def test_a_result_that_is_not_a_result_names_the_middleware(
    middleware: Any, text: str
) -> None:
    tools = _set(middleware)
    assert _call(tools) == ToolResult.error(text)
    assert asyncio.run(tools.run("a", [ToolCall("c", "echo", {"text": "hi"})])) == [
        ToolResult.error(text)
    ]


def test_an_outer_middleware_sees_the_checked_result() -> None:
    seen: list[ToolResult] = []

    async def outer(call: ToolCall, context: Context[Any], call_next: Any) -> Any:
        result = await call_next(call)
        seen.append(result)
        return result

    tools = _set(outer, blank)
    assert _call(tools).is_error
    assert seen == [
        ToolResult.error(
            'Middleware "blank" returned a ToolResult whose text is NoneType, not str.'
        )
    ]


def test_a_wrong_signature_is_refused_when_added_and_names_the_middleware() -> None:
    async def two(call: ToolCall, call_next: Any) -> ToolResult:
        return await call_next(call)  # type: ignore[no-any-return]

    with pytest.raises(ToolDefinitionError) as caught:
        ToolSet([echo]).use(two)  # type: ignore[arg-type]
    assert str(caught.value) == (
        "Middleware two cannot be called with (call, context, call_next): too many "
        "positional arguments. Write it as `async def two(call, context, call_next) "
        "-> ToolResult`, calling `await call_next(call)` to go on"
    )
    with pytest.raises(ToolDefinitionError) as not_callable:
        ToolSet([echo]).use("approve")  # type: ignore[arg-type]
    assert str(not_callable.value).startswith("Middleware 'approve' is not callable.")


@pytest.mark.parametrize(
    ("how", "given"),
    [("none", "()"), ("two", "(ToolCall, Context)"), ("dict", "(dict)")],
)
def test_call_next_called_wrongly_names_call_next_and_the_middleware(
    how: str, given: str
) -> None:
    async def lazy(call: ToolCall, context: Context[Any], call_next: Any) -> Any:
        if how == "none":
            return await call_next()
        if how == "two":
            return await call_next(call, context)
        return await call_next({"name": "echo"})

    assert _call(_set(lazy)) == ToolResult.error(
        "TypeError: call_next takes the ToolCall, as in `await call_next(call)`; "
        f'middleware "lazy" gave {given}'
    )


def test_call_next_by_keyword_works() -> None:
    async def keyword(call: ToolCall, context: Context[Any], call_next: Any) -> Any:
        return await call_next(call=call)

    assert _call(_set(keyword)) == ToolResult("hi")


@pytest.mark.parametrize(
    ("error", "text"),
    [
        (GeneratorExit(), "GeneratorExit"),
        (StopIteration(), "RuntimeError: coroutine raised StopIteration"),
        (asyncio.CancelledError("mine"), "CancelledError: mine"),
        (SystemExit(2), "SystemExit: 2"),
    ],
)
def test_whatever_a_middleware_raises_is_that_calls_result(
    error: BaseException, text: str
) -> None:
    async def raising(call: ToolCall, context: Context[Any], call_next: Any) -> Any:
        if call.args["text"] == "bad":
            raise error
        return await call_next(call)

    tools = _set(raising)
    calls = [
        ToolCall("1", "echo", {"text": "ok"}),
        ToolCall("2", "echo", {"text": "bad"}),
        ToolCall("3", "echo", {"text": "fine"}),
    ]
    assert asyncio.run(tools.run("a", calls)) == [
        ToolResult("ok"),
        ToolResult.error(text),
        ToolResult("fine"),
    ]


def test_a_middleware_failure_is_logged_with_its_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def broken(call: ToolCall, context: Context[Any], call_next: Any) -> Any:
        raise PermissionError("no quota left")

    with caplog.at_level(logging.ERROR, logger="toolkit"):
        assert _call(_set(broken)) == ToolResult.error("PermissionError: no quota left")
    (record,) = caplog.records
    assert record.getMessage() == "Middleware 'broken' failed on tool 'echo'"
    assert record.exc_info is not None
    assert record.exc_info[0] is PermissionError
