"""Code nobody here wrote: a call that ran is never reported as failed, and a docstring never costs the tool.

The tools are in tests/real_code_tools.py. Each loose-return case (a value
that does not fit its own return annotation, or holds a leaf JSON cannot
hold) and each docstring shape goes through `execute`, `aexecute`,
`ToolSet.run`, every provider's `handle`, and the MCP server called by the
official client (`mcp.client.Client`, protocols 2025-11-25 and 2026-07-28,
and `toolkit serve` over stdio). The oracle for a result's text is the
value JSON-encoded with `str()` for what JSON cannot hold, as FastMCP and
pydantic do it. The stateful classes are called directly and as tools side
by side: the same texts, the same final state.
"""

from __future__ import annotations

import asyncio
import copy
import decimal
import json
import logging
import pathlib
from collections.abc import Callable
from typing import Any, Optional, Union

import anyio
import mcp.types as mcp_types
import pytest
from mcp.client import Client
from mcp_types.methods import validate_server_result

from tests import real_code_tools as real
from tests.conftest import chat_message
from tests.servers import stdio_session
from toolkit import Tool, ToolCall, ToolResult, ToolSet, tool
from toolkit.cli._lint import lint
from toolkit.mcp import build_server
from toolkit.providers import anthropic, gemini, mcp, openai, openai_responses

ROOT = pathlib.Path(__file__).parent.parent
TARGET = f"{ROOT / 'tests' / 'real_code_tools.py'}:tools"
LIMIT = 60  # seconds for one served session
MODES = {"legacy": "2025-11-25", "2026-07-28": "2026-07-28"}
RAN = "ran and returned the value above"


def oracle(value: Any) -> Any:
    """`value` as JSON data, each leaf JSON cannot hold as its `str()`, sets as sorted lists."""
    if isinstance(value, dict):
        return {
            key if isinstance(key, str) else str(key): oracle(item)
            for key, item in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [oracle(item) for item in value]
    if isinstance(value, (set, frozenset)):
        return sorted(oracle(item) for item in value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def text_of(value: Any) -> str:
    """The text the model must read for a returned value: a str as it is, else compact JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(oracle(value), separators=(",", ":"), ensure_ascii=False)


LOOSE_IDS = [name for name, _, _ in real.LOOSE]
LOOSE = [
    pytest.param(made, value, id=name)
    for made, (name, _, value) in zip(real.LOOSE_TOOLS, real.LOOSE, strict=True)
]
SET = real.tools


def _through_every_entry_point(made: Tool[Any, Any]) -> dict[str, tuple[str, bool]]:
    """(text, is_error) of one call of `made`, as each entry point gives it to the model."""
    name, call = made.name, ToolCall("c1", made.name, {})

    async def gather() -> dict[str, tuple[str, bool]]:
        seen: dict[str, tuple[str, bool]] = {}
        result = made.execute("a", "c1", {})
        seen["Tool.execute"] = (result.text, result.is_error)
        result = await made.aexecute("a", "c1", {})
        seen["Tool.aexecute"] = (result.text, result.is_error)
        (result,) = await SET.run("a", [call])
        seen["ToolSet.run"] = (result.text, result.is_error)
        (reply,) = await openai.handle(SET, "a", chat_message(("c1", name, "{}")))
        seen["openai"] = (reply["content"], False)  # the API has no error flag
        output = [
            {"type": "function_call", "call_id": "c1", "name": name, "arguments": "{}"}
        ]
        (reply,) = await openai_responses.handle(SET, "a", output)
        seen["openai_responses"] = (reply["output"], False)
        message = {
            "content": [{"type": "tool_use", "id": "c1", "name": name, "input": {}}]
        }
        block = (await anthropic.handle(SET, "a", message))["content"][0]
        seen["anthropic"] = (block["content"], block.get("is_error", False))
        content = {"parts": [{"functionCall": {"id": "c1", "name": name, "args": {}}}]}
        response = (await gemini.handle(SET, "a", content))["parts"][0]
        answer = response["functionResponse"]["response"]
        # The response is the value as JSON data: an object itself, else under "output".
        sent = (
            answer.get("output", answer) if "error" not in answer else answer["error"]
        )
        shown = sent if sent == result.text else json.dumps(sent, separators=(",", ":"))
        seen["gemini"] = (shown, "error" in answer)
        (sent,) = await mcp.handle(SET, "a", {"name": name, "arguments": {}})
        validate_server_result("tools/call", "2025-11-25", sent)
        seen["mcp.handle"] = (sent["content"][0]["text"], False)  # flagged: see below
        return seen

    return asyncio.run(asyncio.wait_for(gather(), LIMIT))


@pytest.mark.parametrize(("made", "value"), LOOSE)
def test_a_call_that_ran_is_ok_with_its_text_through_every_entry_point(
    made: Tool[Any, Any], value: Any
) -> None:
    seen = _through_every_entry_point(made)
    assert seen == dict.fromkeys(seen, (text_of(value), False))


@pytest.mark.parametrize(("made", "value"), LOOSE)
def test_only_the_structured_form_is_lost_and_the_logger_warns_once(
    made: Tool[Any, Any], value: Any, caplog: pytest.LogCaptureFixture
) -> None:
    fresh = tool(made.__wrapped__)  # a tool that has not warned yet
    with caplog.at_level(logging.WARNING, logger="toolkit"):
        first, second = fresh.execute("a", "c", {}), fresh.execute("a", "c", {})
    assert first == second
    warned = [record.getMessage() for record in caplog.records]
    if fresh.output_schema is None:  # nothing to fit: the value is kept as JSON data
        assert (first.structured, warned) == (json.loads(first.text), [])
        return
    if first.structured is not None:  # it fits once its leaves are text
        assert (first.structured, warned) == (json.loads(first.text), [])
        return
    (message,) = warned
    assert message.startswith(f"Tool {fresh.name!r} returned a value of type ")
    assert "does not match its return annotation" in message


def test_a_value_that_fits_keeps_its_structured_form() -> None:
    @tool
    def fits() -> dict[str, int]:
        """Fit."""
        return {"a": 1}

    assert fits.execute("a", "c", {}) == ToolResult('{"a":1}', structured={"a": 1})


@pytest.mark.parametrize("deep", [10_000, "cycle"])
def test_a_value_too_deep_or_holding_itself_is_an_error_result(deep: Any) -> None:
    value: Any = []
    if deep == "cycle":
        value.append(value)
    else:
        for _ in range(deep):
            value = [value]

    @tool
    def give() -> list[Any]:
        """Give."""
        return value  # type: ignore[no-any-return]

    result = give.execute("a", "c", {})
    assert result.is_error is True
    assert result.text.startswith(
        'Tool "give" returned a value of type list that cannot be sent as JSON'
    )


def test_nan_and_infinities_in_a_result_are_their_text() -> None:
    @tool
    def give() -> dict[str, float]:
        """Give."""
        return {"nan": float("nan"), "inf": float("inf"), "low": float("-inf")}

    result = give.execute("a", "c", {})
    assert (result.is_error, result.text) == (
        False,
        '{"nan":"nan","inf":"inf","low":"-inf"}',
    )


def test_output_schema_false_sends_every_value_as_a_plain_success() -> None:
    made = tool(output_schema=False)(real.LOOSE_TOOLS[0].__wrapped__)
    assert made.output_schema is None
    (definition,) = mcp.tools(made)
    assert "outputSchema" not in definition
    sent = mcp.result(made.execute("a", "c", {}), made)
    validate_server_result("tools/call", "2025-11-25", sent)
    assert sent["isError"] is False
    assert sent["structuredContent"] == {"a": "1", "b": {"c": 2}}


# ------------------------------------------------------------------ MCP


async def _served_calls(mode: str) -> tuple[Any, dict[str, Any]]:
    found: dict[str, Any] = {}
    async with Client(build_server(SET), mode=mode) as client:
        assert client.protocol_version == MODES[mode]
        listed = await client.list_tools()
        for made in SET:
            try:
                found[made.name] = await client.call_tool(made.name, {})
            except Exception as error:  # the client refused the result
                found[made.name] = error
    return listed, found


@pytest.fixture(scope="module", params=list(MODES))
def served(request: pytest.FixtureRequest) -> tuple[str, Any, dict[str, Any]]:
    """Every tool called once by the official client, in one protocol generation."""
    mode: str = request.param
    listed, found = asyncio.run(asyncio.wait_for(_served_calls(mode), LIMIT))
    return mode, listed, found


def _assert_served(result: Any, text: str, declared: bool, name: str) -> None:
    assert not isinstance(result, Exception), repr(result)  # the client accepts it
    blocks = [
        block.text
        for block in result.content
        if isinstance(block, mcp_types.TextContent)
    ]
    assert blocks[0] == text  # the model reads what the call returned, first
    if not declared or SET[name].execute("a", "c", {}).structured is not None:
        assert result.is_error is False
        return
    # A declared outputSchema obliges structuredContent that fits it: the
    # value is flagged, and says that the call ran.
    assert result.is_error is True
    assert blocks[-1] == (
        f'The call of tool "{name}" {RAN}. It is flagged as an error only because the '
        "value does not fit the output schema the tool declares, which MCP clients hold "
        "every successful result to."
    )


@pytest.mark.parametrize(("made", "value"), LOOSE)
def test_the_official_client_accepts_every_loose_result(
    served: tuple[str, Any, dict[str, Any]], made: Tool[Any, Any], value: Any
) -> None:
    _mode, listed, found = served
    declared = {item.name: item.output_schema is not None for item in listed.tools}
    _assert_served(found[made.name], text_of(value), declared[made.name], made.name)


def test_toolkit_serve_over_stdio_sends_the_same() -> None:
    async def main() -> dict[str, Any]:
        found: dict[str, Any] = {}
        with anyio.fail_after(LIMIT):
            async with stdio_session(TARGET) as session:
                listed = await session.list_tools()
                declared = {
                    item.name: item.output_schema is not None for item in listed.tools
                }
                for made in real.LOOSE_TOOLS:
                    result: Any
                    try:
                        result = await session.call_tool(made.name, {})
                    except Exception as error:
                        result = error
                    found[made.name] = (result, declared[made.name])
        return found

    found = anyio.run(main)
    for made, (_, _, value) in zip(real.LOOSE_TOOLS, real.LOOSE, strict=True):
        result, declared = found[made.name]
        _assert_served(result, text_of(value), declared, made.name)


# ------------------------------------------------------------------ docstrings

DOCS = [
    pytest.param(made, case, id=case[0])
    for made, case in zip(real.DOCSTRING_TOOLS, real.DOCSTRINGS, strict=True)
]


@pytest.mark.parametrize(("made", "case"), DOCS)
def test_every_docstring_shape_makes_the_tool(
    made: Tool[Any, Any], case: tuple[str, str, list[str], dict[str, str], str]
) -> None:
    _, _, parameters, described, kept = case
    properties = made.parameters["properties"]
    assert list(properties) == parameters
    assert {
        key: item["description"]
        for key, item in properties.items()
        if "description" in item
    } == described
    assert kept in made.description
    assert "None" not in made.description.split(
        "\n"
    )  # `Args:` over `None`: no parameters


@pytest.mark.parametrize(("made", "case"), DOCS)
def test_every_export_carries_what_the_docstring_said(
    made: Tool[Any, Any], case: tuple[str, str, list[str], dict[str, str], str]
) -> None:
    _, _, parameters, described, kept = case
    exports: dict[str, Callable[[Any], tuple[str, Any]]] = {
        "openai": lambda item: (
            item["function"]["description"],
            item["function"]["parameters"],
        ),
        "openai_responses": lambda item: (item["description"], item["parameters"]),
        "anthropic": lambda item: (item["description"], item["input_schema"]),
        "gemini": lambda item: (item["description"], item["parametersJsonSchema"]),
        "mcp": lambda item: (item["description"], item["inputSchema"]),
    }
    for name, read in exports.items():
        exported = ToolSet([made]).export(name)
        if name == "gemini":
            exported = exported[0]["functionDeclarations"]
        description, schema = read(exported[0])
        assert kept in description, name
        assert list(schema["properties"]) == parameters, name
        for key, text in described.items():
            assert schema["properties"][key]["description"] == text, name


@pytest.mark.parametrize("mode", list(MODES))
def test_every_docstring_tool_is_served_and_called(mode: str) -> None:
    async def main() -> tuple[Any, list[Any]]:
        async with Client(build_server(SET), mode=mode) as client:
            listed = await client.list_tools()
            called = [
                await client.call_tool(made.name, dict.fromkeys(parameters, "v"))
                for made, (_, _, parameters, _, _) in zip(
                    real.DOCSTRING_TOOLS, real.DOCSTRINGS, strict=True
                )
            ]
            return listed, called

    listed, called = asyncio.run(asyncio.wait_for(main(), LIMIT))
    by_name = {item.name: item for item in listed.tools}
    for made, result, (_, _, parameters, _described, kept) in zip(
        real.DOCSTRING_TOOLS, called, real.DOCSTRINGS, strict=True
    ):
        item = by_name[made.name]
        assert kept in (item.description or "")
        assert list(item.input_schema["properties"]) == parameters
        assert result.is_error is False
        assert result.content[0].text == ",".join(
            f"{key}=v" for key in sorted(parameters)
        )


def test_lint_reports_each_part_the_parser_could_not_read() -> None:
    found = [
        (item.tool, item.code)
        for item in lint(real.DOCSTRING_TOOLS)
        if item.code == "unread-docstring"
    ]
    assert found == [
        ("d_missing_colon", "unread-docstring"),
        ("d_rest_nameless", "unread-docstring"),
    ]


def test_a_documented_parameter_the_function_lacks_is_still_refused() -> None:
    from toolkit import ToolDefinitionError

    def send(to: str) -> str:
        """Send.

        Args:
            None
            to (str): The receiver.
            body (str): Not a parameter.
        """
        return to

    with pytest.raises(ToolDefinitionError, match="documents a parameter 'body'"):
        tool(send)


# ------------------------------------------------------------------ arguments

INFINITE = [
    pytest.param(float, '{"x": 1e400}', id="float 1e400"),
    pytest.param(float, '{"x": -1e400}', id="float -1e400"),
    pytest.param(float, {"x": float("inf")}, id="float inf in a dict"),
    pytest.param(float, {"x": float("nan")}, id="float nan in a dict"),
    pytest.param(decimal.Decimal, '{"x": 1e400}', id="Decimal 1e400"),
    pytest.param(decimal.Decimal, {"x": float("nan")}, id="Decimal nan in a dict"),
    pytest.param(list[float], '{"x": [1, 1e400]}', id="list item"),
    pytest.param(dict[str, float], {"x": {"a": float("-inf")}}, id="dict value"),
    pytest.param(Optional[float], '{"x": -1e400}', id="optional"),  # noqa: UP045
    pytest.param(Union[float, str], '{"x": 1e400}', id="union with str"),  # noqa: UP007
    pytest.param(Union[int, float], {"x": float("inf")}, id="union of numbers"),  # noqa: UP007
]


def _receiving(annotation: Any) -> tuple[Tool[Any, Any], list[Any]]:
    got: list[Any] = []

    def take(x: Any) -> str:
        """Take a value.

        Args:
            x: The value.
        """
        got.append(x)
        return "taken"

    take.__annotations__ = {"x": annotation, "return": str}
    return tool(take), got


@pytest.mark.parametrize(("annotation", "args"), INFINITE)
def test_infinity_and_nan_never_reach_a_tool(annotation: Any, args: Any) -> None:
    made, got = _receiving(annotation)
    for result in (
        made.execute("a", "c", args),
        asyncio.run(made.aexecute("a", "c", args)),
        *asyncio.run(ToolSet([made]).run("a", [ToolCall("c", "take", args)])),
    ):
        assert result.is_error is True
        assert result.text.startswith('Invalid arguments for tool "take":\n- x')
        assert "send a finite number" in result.text
    assert got == []


@pytest.mark.parametrize(
    "annotation",
    [Union[int, str], Union[str, int], Union[int, float], Union[int, float, str]],  # noqa: UP007
)
def test_a_union_with_numbers_accepts_every_int_that_int_accepts(
    annotation: Any,
) -> None:
    huge = 10**5001 - 1
    assert _receiving(int)[0].execute("a", "c", {"x": huge}).is_error is False
    made, got = _receiving(annotation)
    assert made.execute("a", "c", {"x": huge}) == ToolResult("taken")
    assert got == [huge]


# ------------------------------------------------------------------ parse_calls


class Unprintable:
    def __str__(self) -> str:
        raise RuntimeError("no text")


def _nested(depth: int, inner: Any) -> Any:
    for _ in range(depth):
        inner = [inner] if depth % 2 else {"a": inner}
    return inner


ODD_VALUES = {
    "huge int": 10**5000,
    "deep list": _nested(1001, 1),
    "deep dict": _nested(1000, 1),
    "unprintable": Unprintable(),
}
MESSAGES: dict[str, Callable[[Any, Any], Any]] = {
    "openai": lambda call_id, name: {
        "role": "assistant",
        "tool_calls": [
            {
                "id": call_id,
                "type": "function",
                "function": {"name": name, "arguments": "{}"},
            }
        ],
    },
    "openai_responses": lambda call_id, name: {
        "output": [
            {
                "type": "function_call",
                "call_id": call_id,
                "name": name,
                "arguments": "{}",
            }
        ]
    },
    "anthropic": lambda call_id, name: {
        "content": [{"type": "tool_use", "id": call_id, "name": name, "input": {}}]
    },
    "gemini": lambda call_id, name: {
        "parts": [{"functionCall": {"id": call_id, "name": name, "args": {}}}]
    },
    "mcp": lambda call_id, name: {
        "id": call_id,
        "params": {"name": name, "arguments": {}},
    },
}
PROVIDERS = {
    "openai": openai,
    "openai_responses": openai_responses,
    "anthropic": anthropic,
    "gemini": gemini,
    "mcp": mcp,
}


def _reply_text(provider: str, reply: Any) -> str:
    if provider == "openai":
        return str(reply[0]["content"])
    if provider == "openai_responses":
        return str(reply[0]["output"])
    if provider == "anthropic":
        return str(reply["content"][0]["content"])
    if provider == "gemini":
        return str(reply["parts"][0]["functionResponse"]["response"]["error"])
    return str(reply[0]["content"][0]["text"])


@pytest.mark.parametrize("provider", list(PROVIDERS))
@pytest.mark.parametrize("odd", list(ODD_VALUES))
@pytest.mark.parametrize("where", ["id", "name"])
def test_parse_calls_never_raises_and_handle_answers_in_the_apis_shape(
    provider: str, odd: str, where: str
) -> None:
    module = PROVIDERS[provider]
    value = ODD_VALUES[odd]
    message = MESSAGES[provider](
        *((value, "d_lone_args") if where == "id" else ("c1", value))
    )
    (call,) = module.parse_calls(copy.copy(message))
    assert type(call.id) is str
    assert type(call.name) is str
    reply = asyncio.run(module.handle(SET, "a", message))
    readable = _as_text(value)
    if readable is not None:  # Python 3.12 on writes deep lists and dicts as text
        assert (call.id, call.name) == (
            (readable, "d_lone_args") if where == "id" else ("c1", readable)
        )
        if where == "name":
            assert _reply_text(provider, reply).startswith('Unknown tool "')
        return
    text = _reply_text(provider, reply)
    assert (
        call.name
        == f"(a {'call id' if where == 'id' else 'tool name'} of type {type(value).__name__} that cannot be read as text)"
    )
    assert text.startswith(f'Unknown tool "{call.name}". Available tools: r_')


def _as_text(value: Any) -> str | None:
    """`str(value)`, or None where this Python cannot write it (too deep, too long, a raising `__str__`)."""
    try:
        return str(value)
    except Exception:
        return None


def test_mcp_lists_nested_deeply_are_read_without_recursion() -> None:
    calls = mcp.parse_calls(_deep_list(3000))
    assert [call.name for call in calls] == ["d_lone_args"]


def _deep_list(depth: int) -> Any:
    value: Any = {"name": "d_lone_args"}
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    "message", [{"choices": []}, {"choices": 5}, {"tool_calls": 5}]
)
def test_odd_chat_messages_hold_no_calls(message: Any) -> None:
    assert openai.parse_calls(message) == []


# ------------------------------------------------------------------ stateful APIs

# (api, method, arguments): sequences as a model would send them.
SEQUENCE: list[tuple[int, str, dict[str, Any]]] = [
    (0, "list_users", {}),
    (0, "get_user_id", {"user": "Bob"}),
    (0, "get_user_id", {"user": "Eve"}),
    (0, "send_message", {"receiver_id": "USR002", "message": "hello"}),
    (0, "send_message", {"receiver_id": "USR001", "message": "hi"}),
    (0, "view_messages_sent", {}),
    (1, "mean", {"numbers": [1, 2, 4]}),
    (1, "mean", {"numbers": []}),
    (1, "square_root", {"number": 2, "precision": 20}),
    (1, "add", {"a": 1.5, "b": 2}),
    (2, "ls", {}),
    (2, "touch", {"file_name": "todo.txt"}),
    (2, "touch", {"file_name": "todo.txt"}),
    (2, "wc", {"file_name": "notes.txt", "mode": "c"}),
    (2, "ls", {}),
]


def _instances() -> list[Any]:
    return [api() for api in real.APIS]


def _direct(instances: list[Any]) -> list[str]:
    return [
        text_of(getattr(instances[api], method)(**args))
        for api, method, args in SEQUENCE
    ]


def _state(instances: list[Any]) -> list[Any]:
    return [oracle(vars(item)) for item in instances]


def test_every_method_of_the_classes_is_a_tool() -> None:
    made = real.api_tools(*_instances())
    assert [item.name for item in made] == [
        "list_users", "get_user_id", "send_message", "view_messages_sent",
        "mean", "square_root", "add", "ls", "touch", "wc",
    ]  # fmt: skip
    assert made[0].parameters["properties"] == {}  # `Args:` over `None`


def test_no_call_that_ran_is_reported_as_failed_through_run() -> None:
    direct = _instances()
    expected = _direct(direct)
    used = _instances()
    toolset = ToolSet(real.api_tools(*used))
    calls = [
        ToolCall(f"c{index}", method, json.dumps(args))
        for index, (_, method, args) in enumerate(SEQUENCE)
    ]
    results = asyncio.run(_one_by_one(toolset, calls))
    assert [(result.text, result.is_error) for result in results] == [
        (text, False) for text in expected
    ]
    assert _state(used) == _state(direct)


async def _one_by_one(toolset: ToolSet, calls: list[ToolCall]) -> list[ToolResult]:
    """One call per turn, in order, as a model sends a sequence."""
    return [(await toolset.run("a", [call]))[0] for call in calls]


@pytest.mark.parametrize("mode", list(MODES))
def test_no_call_that_ran_is_lost_over_mcp(mode: str) -> None:
    direct = _instances()
    expected = _direct(direct)
    used = _instances()
    server = build_server(ToolSet(real.api_tools(*used)))

    async def main() -> tuple[dict[str, bool], list[Any]]:
        async with Client(server, mode=mode) as client:
            listed = await client.list_tools()
            declared = {
                item.name: item.output_schema is not None for item in listed.tools
            }
            return declared, [
                await client.call_tool(method, args) for _, method, args in SEQUENCE
            ]

    declared, results = asyncio.run(asyncio.wait_for(main(), LIMIT))
    for (_, method, _), result, text in zip(SEQUENCE, results, expected, strict=True):
        first = result.content[0].text
        assert first == text, method
        assert result.is_error is False or (
            declared[method] and RAN in result.content[-1].text
        )
    assert _state(used) == _state(direct)


@pytest.mark.parametrize(
    "message",
    [{"candidates": 5}, {"candidates": True}, {"candidates": []}, {"parts": 5}],
)
def test_odd_gemini_responses_hold_no_calls(message: Any) -> None:
    assert gemini.parse_calls(message) == []
    assert asyncio.run(gemini.handle(SET, "a", message)) is not None
