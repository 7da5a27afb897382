"""Hostile peers: schemas a server can send, patterns that backtrack, parts and returns no API takes.

The MCP server here is `tests/mcp_hostile_server.py`, written by hand so
that it can send what the SDK's server would refuse to (stdio and HTTP).
"""

from __future__ import annotations

import asyncio
import json
import logging
import pathlib
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.servers import free_port, run, wait_for_port
from toolkit import (
    Audio,
    File,
    Image,
    Param,
    Tool,
    ToolDefinitionError,
    ToolResult,
    ToolSet,
    mcp,
    tool,
)
from toolkit.core._pattern import MAX_STATES, PatternError, searcher
from toolkit.mcp import _client as _mcp_client
from toolkit.providers import anthropic, gemini, openai, openai_responses
from toolkit.values._results import ToolCall

ROOT = pathlib.Path(__file__).parent.parent
SERVER = str(ROOT / "tests" / "mcp_hostile_server.py")
LIMIT = 60
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16


@pytest.fixture(autouse=True)
def short_waits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        _mcp_client,
        "BACKOFF",
        _mcp_client.Backoff(first_wait=0.01, round_wait=0.05, connect_seconds=3),
    )


def execute_fn(agent_id: str, call_id: str, args: Any) -> str:
    return "ok"


def new(parameters: Any) -> Tool[Any, Any]:
    return Tool.new(
        name="t", description="", parameters=parameters, execute_fn=execute_fn
    )


# ---------------------------------------------------------------- 2: patterns


CATASTROPHIC = [
    "^(a+)+$",
    "(a|aa)*b",
    "^(a|a)*$",
    "(x+x+)+y",
    "^(\\w+\\s?)*$",
    "a*a*a*a*a*a*a*b",
]


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_a_pattern_that_backtracks_for_ages_is_matched_in_linear_time(
    pattern: str,
) -> None:
    """`re` takes minutes on 29 characters of these; the automaton reads 10,000 once each."""
    made = new(
        {"type": "object", "properties": {"s": {"type": "string", "pattern": pattern}}}
    )
    text = "a" * 10_000 + "!"
    result = made.execute("a", "c", {"s": text})
    assert result.is_error
    assert "does not match the pattern" in result.text
    assert asyncio.run(made.aexecute("a", "c", {"s": "a" * 29 + "!"})).is_error


@given(
    st.from_regex(re.compile(r"[ab()|*+?^$.\\dwsBAZ{}0-3,-]{1,12}"), fullmatch=True),
    st.text(alphabet="ab1 _\n-", max_size=12),
)
@settings(max_examples=400, deadline=None)
def test_the_automaton_agrees_with_re_search(pattern: str, text: str) -> None:
    try:
        compiled = re.compile(pattern)
    except re.error:
        return
    try:
        search = searcher(pattern)
    except PatternError:
        return  # refused at definition: never matched
    assert search(text) == bool(compiled.search(text)), (pattern, text)


@pytest.mark.parametrize(
    ("pattern", "why"),
    [
        ("^(?=.*\\d).{8,}$", "lookahead"),
        ("(a)\\1", "backreference"),
        ("(?i)abc", "flags"),
        ("a{5000}", f"more than {MAX_STATES} states"),
        # Python reads atomic groups from 3.11; before, it cannot read them at all.
        (
            "(?>a+)b",
            "atomic group" if sys.version_info >= (3, 11) else "cannot read it",
        ),
        ("[", "Python cannot read it"),
    ],
)
def test_a_pattern_no_automaton_runs_is_a_definition_error(
    pattern: str, why: str
) -> None:
    with pytest.raises(ToolDefinitionError, match=why):
        new(
            {
                "type": "object",
                "properties": {"s": {"type": "string", "pattern": pattern}},
            }
        )
    with pytest.raises(ToolDefinitionError, match=why):
        new({"type": "object", "patternProperties": {pattern: {}}})

    def f(s: str) -> str:
        """F."""
        return s

    f.__annotations__ = {"s": Annotated[str, Param(pattern=pattern)], "return": str}
    with pytest.raises(ToolDefinitionError, match=why):
        tool(f)


def test_pattern_properties_are_matched_by_the_automaton() -> None:
    made = new(
        {
            "type": "object",
            "patternProperties": {"^(a+)+$": {"type": "integer"}},
            "additionalProperties": False,
        }
    )
    assert made.execute("a", "c", {"aaa": 1}) == ToolResult("ok")
    assert made.execute("a", "c", {"a" * 10_000 + "!": 1}).is_error
    assert made.execute("a", "c", {"aaa": "x"}).is_error


# ---------------------------------------------------------------- 3: $ref loops

LOOPS = [
    {"type": "object", "$ref": "#"},
    {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/x"}},
        "$defs": {"x": {"$ref": "#/$defs/x"}},
    },
    {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/x"}},
        "$defs": {
            "x": {"anyOf": [{"$ref": "#/$defs/y"}]},
            "y": {"allOf": [{"$ref": "#/$defs/x"}]},
        },
    },
    {
        "type": "object",
        "properties": {"a": {"$ref": "#/$defs/d0"}},
        "$defs": {f"d{i}": {"$ref": f"#/$defs/d{i + 1}"} for i in range(500)}
        | {"d500": {}},
    },
]


@pytest.mark.parametrize("schema", LOOPS)
def test_a_ref_loop_is_a_definition_error(schema: dict[str, Any]) -> None:
    with pytest.raises(ToolDefinitionError, match="endless"):
        new(schema)


def test_a_recursive_schema_through_the_values_parts_is_fine() -> None:
    made = new(
        {
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/node"}},
            "$defs": {
                "node": {
                    "type": "object",
                    "properties": {
                        "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}
                    },
                    "additionalProperties": False,
                }
            },
        }
    )
    assert made.execute("a", "c", {"tree": {"kids": [{"kids": []}]}}) == ToolResult(
        "ok"
    )
    assert made.execute("a", "c", {"tree": {"kids": [{"x": 1}]}}).is_error


# ---------------------------------------------------------------- 7: mcp.connect against hostile servers


@pytest.fixture(params=["stdio", "http"])
def transport(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def serve(transport: str, tmp_path: pathlib.Path) -> Iterator[Callable[..., Any]]:
    """`serve(mode, tools)`: the target of a hostile server (started now when over HTTP)."""
    processes: list[subprocess.Popen[bytes]] = []

    def start(mode: str, tools: list[Any] | None = None) -> Any:
        path = tmp_path / f"tools{len(processes)}.json"
        path.write_text(json.dumps(tools or []), "utf-8")
        argv = [sys.executable, SERVER, mode, str(path)]
        if transport == "stdio":
            return argv
        port = free_port()
        process = subprocess.Popen([*argv, "--port", str(port)])
        processes.append(process)
        wait_for_port(process, port)
        return f"http://127.0.0.1:{port}/mcp"

    yield start
    for process in processes:
        process.kill()  # a silent server's request never ends, so it never drains
        process.wait(timeout=15)


def test_one_tool_without_an_object_schema_is_left_out_and_the_others_work(
    serve: Callable[..., Any], caplog: pytest.LogCaptureFixture
) -> None:
    target = serve(
        "tools",
        [
            {
                "name": "good",
                "inputSchema": {
                    "type": "object",
                    "properties": {"q": {"type": "string"}},
                },
            },
            {"name": "string_root", "inputSchema": {"type": "string"}},
            {
                "name": "untyped",
                "inputSchema": {"properties": {"q": {"type": "string"}}},
            },
            {"name": "looping", "inputSchema": {"type": "object", "$ref": "#"}},
            {
                "name": "backtracking",
                "inputSchema": {
                    "type": "object",
                    "properties": {"q": {"type": "string", "pattern": "^(a+)+$"}},
                },
            },
            {
                "name": "lookahead",
                "inputSchema": {
                    "type": "object",
                    "properties": {"q": {"type": "string", "pattern": "(?=a)"}},
                },
            },
        ],
    )

    async def main() -> None:
        with caplog.at_level(logging.WARNING, logger="toolkit"):
            async with mcp.connect(target) as tools:
                assert tools.names == ["good", "untyped", "backtracking"]
                assert tools["untyped"].parameters["type"] == "object"
                assert await tools.aexecute("a", "c", "good", {"q": "x"}) == ToolResult(
                    "ok"
                )
                refused = await tools.aexecute(
                    "a", "c", "backtracking", {"q": "a" * 50 + "!"}
                )
                assert refused.is_error
                assert "does not match the pattern" in refused.text
        left_out = "\n".join(record.getMessage() for record in caplog.records)
        for name in ("string_root", "looping", "lookahead"):
            assert f"the tool {name!r} is left out" in left_out

    run(main)


@pytest.mark.parametrize("mode", ["silent", "deep"])
def test_a_server_that_never_lists_is_a_connection_error(
    serve: Callable[..., Any], mode: str
) -> None:
    """With no timeout at all, the listing is bounded by `Backoff.connect_seconds`."""
    target = serve(mode)

    async def main() -> None:
        with pytest.raises(ConnectionError, match="its tool list could not be read"):
            async with mcp.connect(target, timeout=None):
                pass

    run(main)


def test_a_listing_that_times_out_is_a_connection_error(
    serve: Callable[..., Any],
) -> None:
    target = serve("silent")

    async def main() -> None:
        with pytest.raises(ConnectionError, match=r"MCPError|TimeoutError"):
            async with mcp.connect(target, timeout=0.5):
                pass

    run(main)


NAMES = st.from_regex(r"[a-z]{1,8}", fullmatch=True)
LEAVES = st.one_of(
    st.just({}),
    st.builds(
        lambda kind: {"type": kind},
        st.sampled_from(["string", "integer", "object", "array", "null"]),
    ),
    st.builds(
        lambda pattern: {"type": "string", "pattern": pattern},
        st.sampled_from(["^(a+)+$", "(?=x)", "^[a-z]+$", "(a|aa)*b", "[", "\\d{3}"]),
    ),
    st.builds(lambda name: {"$ref": f"#/$defs/{name}"}, NAMES),
)
SCHEMAS = st.recursive(
    LEAVES,
    lambda inner: st.one_of(
        st.builds(
            lambda items: {"anyOf": items}, st.lists(inner, min_size=1, max_size=3)
        ),
        st.builds(lambda item: {"type": "array", "items": item}, inner),
        st.builds(
            lambda props: {"type": "object", "properties": props},
            st.dictionaries(NAMES, inner, max_size=3),
        ),
    ),
    max_leaves=8,
)
ROOTS = st.builds(
    lambda root, props, defs: {**root, "properties": props, "$defs": defs},
    st.sampled_from(
        [
            {"type": "object"},
            {},
            {"type": "string"},
            {"type": "array"},
            {"type": ["object", "null"]},
        ]
    ),
    st.dictionaries(NAMES, SCHEMAS, max_size=3),
    st.dictionaries(NAMES, SCHEMAS, max_size=4),
)


@given(st.lists(ROOTS, min_size=1, max_size=6))
@settings(max_examples=6, deadline=None, suppress_health_check=list(HealthCheck))
def test_whatever_schemas_a_server_sends_connect_and_calls_never_raise(
    schemas: list[dict[str, Any]],
) -> None:
    """Over stdio: each tool is there or left out; every call is a result."""
    import tempfile

    listed = [
        {"name": f"t{index}", "inputSchema": schema}
        for index, schema in enumerate(schemas)
    ]
    with tempfile.TemporaryDirectory() as folder:
        path = pathlib.Path(folder) / "tools.json"
        path.write_text(json.dumps(listed), "utf-8")

        async def main() -> None:
            async with mcp.connect(
                [sys.executable, SERVER, "tools", str(path)], timeout=5
            ) as tools:
                assert set(tools.names) <= {item["name"] for item in listed}
                for item in tools:
                    for args in (
                        {},
                        {"a": "a" * 2000 + "!"},
                        {"a": [1, {"b": None}]},
                        "nonsense",
                    ):
                        result = await tools.aexecute("a", "c", item.name, args)
                        assert isinstance(result, ToolResult)
                        assert isinstance(item.execute("a", "c", args), ToolResult)

        run(main)


# ---------------------------------------------------------------- 8 and 9: parts and exports

CALL = ToolCall("1", "t", {})
PROVIDERS = [
    ("openai", lambda results: openai.results([CALL] * len(results), results)),
    (
        "openai_responses",
        lambda results: openai_responses.results([CALL] * len(results), results),
    ),
    ("anthropic", lambda results: anthropic.results([CALL] * len(results), results)),
    ("gemini", lambda results: gemini.results([CALL] * len(results), results)),
    ("mcp", lambda results: mcp.results([CALL] * len(results), results)),
]


def _raw_image(data: Any, mime_type: Any) -> Image:
    """An `Image` as a caller may build one by hand, bypassing its constructor's checks."""
    image = object.__new__(Image)
    for name, value in (("data", data), ("mime_type", mime_type), ("url", None)):
        object.__setattr__(image, name, value)
    return image


def _cyclic() -> dict[str, Any]:
    value: dict[str, Any] = {}
    value["self"] = value
    return value


MEDIA_MARKS = (
    '"inlineData"',
    '"input_image"',
    '"image_url"',
    '"input_audio"',
    '"input_file"',
    '"file_data"',
    '"type": "image"',
    '"type": "audio"',
    '"type": "document"',
    '"type": "resource"',
    "base64",
)
"""What any API's media block holds: none of it may carry a part that is not what it says."""

UNSENDABLE = [
    (
        "junk bytes",
        Image(data=b"junk", mime_type="image/png"),
        "not a PNG, JPEG, GIF or WebP",
    ),
    ("empty", Image(data=b"", mime_type="image/png"), "empty"),
    ("html", Image(data=b"<html></html>", mime_type="text/html"), "not a PNG"),
    (
        "svg",
        Image(
            data=b"<svg xmlns='http://www.w3.org/2000/svg'/>", mime_type="image/svg+xml"
        ),
        "not a PNG",
    ),
    (
        "a JPEG said to be a PNG",
        Image(data=b"\xff\xd8\xff" + b"\x00" * 8, mime_type="image/png"),
        "not a PNG",
    ),
    ("mime type not text", _raw_image(PNG, 123), "MIME type that is not text"),
    (
        "a pdf that is not",
        File(data=b"hello", mime_type="application/pdf", name="x.pdf"),
        "not a PDF",
    ),
    ("wav that is not", Audio(data=b"hello", mime_type="audio/wav"), "not audio"),
]


@pytest.mark.parametrize(("provider", "export"), PROVIDERS)
@pytest.mark.parametrize(("label", "part", "said"), UNSENDABLE)
def test_a_part_whose_bytes_are_not_what_it_says_becomes_a_text_the_model_reads(
    provider: str,
    export: Callable[[list[ToolResult]], Any],
    label: str,
    part: Any,
    said: str,
) -> None:
    sent = json.dumps(export([ToolResult.ok("see", content=[part])]))
    assert said in sent
    for mark in MEDIA_MARKS:
        assert mark not in sent


@pytest.mark.parametrize(("provider", "export"), PROVIDERS)
def test_exports_are_total(
    provider: str, export: Callable[[list[ToolResult]], Any]
) -> None:
    not_parts = ToolResult("x", content=("a str", 5))  # type: ignore[arg-type]
    assert "not a content part" in json.dumps(export([not_parts]))
    cyclic = ToolResult("x", structured=_cyclic())
    sent = json.dumps(export([cyclic]))  # what goes out is JSON: it never raises
    if provider in ("gemini", "mcp"):  # the APIs that are sent `structured`
        assert "is not JSON data" in sent
    weird = ToolResult(
        "x", content=(_raw_image(PNG, 123), _raw_image("text", "image/png"))
    )
    assert "not text" in json.dumps(export([weird]))


@pytest.mark.parametrize(
    ("provider", "export", "limit"),
    [(name, export, limit) for name, export in PROVIDERS[:4] for limit in [None]],
)
def test_the_parts_of_one_request_are_held_to_the_apis_total(
    provider: str, export: Callable[[list[ToolResult]], Any], limit: None
) -> None:
    """Twenty 3 MB images never become one 80 MB request (ten 40 MB ones neither)."""
    big = ToolResult.ok(
        "img", content=[Image(data=PNG + b"\x00" * 3_000_000, mime_type="image/png")]
    )
    sent = json.dumps(export([big] * 20))
    api = "openai" if provider.startswith("openai") else provider
    total = _parts_limits()[api]["request"]
    assert len(sent) < total + 1_000_000
    assert f"limit of {total:,} bytes for all the parts of one request" in sent


def _parts_limits() -> Any:
    from toolkit.providers._parts import LIMITS

    return LIMITS


# ---------------------------------------------------------------- 11: returned awaitables


class _Never:
    def __await__(self) -> Any:
        return asyncio.get_event_loop().create_future().__await__()


async def _three() -> int:
    return 3


@pytest.mark.parametrize(
    "make",
    [
        _three,
        lambda: asyncio.sleep(0, result=3),
        lambda: asyncio.sleep(0, result=_three()),
    ],
)
def test_a_returned_awaitable_is_awaited_by_every_entry_point(
    make: Callable[[], Any],
) -> None:
    @tool
    def gives() -> int:
        """Gives an awaitable."""
        return make()  # type: ignore[no-any-return]

    expected = ToolResult("3", structured=3)
    assert gives.execute("a", "c", {}) == expected
    assert asyncio.run(gives.aexecute("a", "c", {})) == expected
    toolset = ToolSet([gives])
    assert toolset.execute("a", "c", "gives", {}) == expected
    assert asyncio.run(toolset.run("a", [ToolCall("1", "gives", {})])) == [expected]


def _hanging_tools() -> list[Tool[Any, Any]]:
    @tool(timeout=0.2)
    def hangs() -> str:
        """Never done."""
        return _Never()  # type: ignore[return-value]

    @tool(timeout=0.2)
    async def hangs_async() -> Any:
        """Never done either."""
        return _Never()

    def raw(agent_id: str, call_id: str, args: Any) -> Any:
        return _Never()

    made = Tool.new(
        name="hangs_raw",
        description="",
        parameters={"type": "object"},
        execute_fn=raw,
        timeout=0.2,
    )
    return [hangs, hangs_async, made]


@pytest.mark.parametrize("index", range(3))
def test_a_returned_awaitable_that_never_completes_ends_at_the_timeout(
    index: int,
) -> None:
    hangs = _hanging_tools()[index]
    timed_out = ToolResult.error(f'Tool "{hangs.name}" timed out after 0.2 seconds.')
    assert hangs.execute("a", "c", {}) == timed_out
    assert asyncio.run(hangs.aexecute("a", "c", {})) == timed_out
    assert asyncio.run(ToolSet([hangs]).run("a", [ToolCall("1", hangs.name, {})])) == [
        timed_out
    ]


def test_the_timeout_bounds_the_whole_call_not_each_step() -> None:
    """A sync tool that uses most of its time, then returns an awaitable: the rest is what is left."""

    @tool(timeout=0.3)
    def slow_then_awaits() -> str:
        """Slow, then slow again."""
        time.sleep(0.2)
        return asyncio.sleep(0.2, result="late")  # type: ignore[return-value]

    timed_out = ToolResult.error('Tool "slow_then_awaits" timed out after 0.3 seconds.')
    assert slow_then_awaits.execute("a", "c", {}) == timed_out
    assert asyncio.run(slow_then_awaits.aexecute("a", "c", {})) == timed_out
