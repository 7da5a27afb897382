"""Measure toolkit and its peers side by side on the same work.

Run with `make bench` (it installs the peers into `.venv-bench`). Every path is
checked once before it is timed: the schema is complete, a valid call gives the
right answer, and an invalid call is rejected without running the function.
Timings are medians of interleaved repeats (path A, B, C, A, B, C, ...) with
garbage collection off, so that drift on a noisy machine hits every path alike.

Each goal is a ratio: toolkit's median over a peer's or a floor's median,
both measured in this run. Absolute times drift on a shared machine by tens
of percent from one run to the next; two paths timed in the same interleaved
repeats drift together, so their ratio holds.

    python benchmarks/run.py [--quick] [--markdown PATH] [--json PATH] [--serving PATH]

`--json` writes every median with its library, call path and kind (toolkit,
peer, floor) and every goal's ratio; `benchmarks/chart.py` draws the ratios
against their goals from it. `--serving` adds the serving goals from the JSON
that `benchmarks/serving.py` wrote. Beside each ratio, the table shows the
one measured before the latest round of speed work (`benchmarks/before.json`).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import pathlib
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

sys.path.insert(0, os.path.dirname(__file__))
import fixtures

ARGS = {"a": 1, "b": 2, "c": 3}
BAD_ARGS = {"a": "one", "b": 2, "c": 3}


@dataclass
class Path:
    """One library's way of doing a scenario's work."""

    library: str
    how: str
    run: Callable[[int], float]  # run(n) -> seconds per operation
    samples: list[float] = field(default_factory=list)


@dataclass(frozen=True)
class Goal:
    """toolkit's median over a reference's median, both from one scenario of this run."""

    what: str
    ours: str  # the library label of toolkit's path
    reference: str  # the library label of the peer's or floor's path
    limit: float  # the ratio must be at most this


@dataclass
class Scenario:
    figure: str
    unit: str
    goals: list[Goal]
    toolkit: Path
    peers: list[Path]
    floors: list[Path]
    extras: list[Path] = field(
        default_factory=list
    )  # toolkit variants, shown but not compared
    repeats: int = 9
    number: int = 1000  # a ceiling: each path runs as many times as fill about 20 ms
    calibrate: bool = True
    results: dict[str, float] = field(default_factory=dict)


# ------------------------------------------------------------------ timing


def timed_sync(operation: Callable[[], Any]) -> Callable[[int], float]:
    def run(n: int) -> float:
        started = time.perf_counter()
        for _ in range(n):
            operation()
        return (time.perf_counter() - started) / n

    return run


def timed_async(operation: Callable[[], Awaitable[Any]]) -> Callable[[int], float]:
    loop = asyncio.new_event_loop()

    async def batch(n: int) -> float:
        started = time.perf_counter()
        for _ in range(n):
            await operation()
        return (time.perf_counter() - started) / n

    return lambda n: loop.run_until_complete(batch(n))


def batch_size(path: Path, ceiling: int) -> int:
    """How many operations fill about 20 ms (as timeit.autorange), at most `ceiling`."""
    n = 1
    while n < ceiling and path.run(n) * n < 0.02:
        n *= 2
    return min(n, ceiling)


def measure(scenario: Scenario) -> None:
    paths = [scenario.toolkit, *scenario.extras, *scenario.peers, *scenario.floors]
    sizes = {
        path.library: batch_size(path, scenario.number)
        if scenario.calibrate
        else scenario.number
        for path in paths
    }
    gc.collect()
    gc.disable()
    try:
        for _ in range(scenario.repeats):
            for path in paths:
                path.samples.append(path.run(sizes[path.library]))
    finally:
        gc.enable()
    for path in paths:
        scenario.results[path.library] = statistics.median(path.samples)


def check(condition: bool, what: str) -> None:
    if not condition:
        raise SystemExit(f"benchmark check failed: {what}")


# ------------------------------------------------------------------ scenarios


def decorate_scenario() -> Scenario:
    import docstring_parser
    from agents import function_tool
    from langchain_core.tools import tool as lc_tool
    from mcp.server.mcpserver.tools.base import Tool as McpTool
    from pydantic_ai import Tool as PaiTool

    from toolkit import tool

    def each_fresh(decorate: Callable[[Any], Any]) -> Callable[[int], float]:
        def run(n: int) -> float:
            functions = [fixtures.make_search() for _ in range(n)]
            started = time.perf_counter()
            for function in functions:
                decorate(function)
            return (time.perf_counter() - started) / n

        return run

    def schema_ok(properties: dict[str, Any], required: list[str], who: str) -> None:
        check(
            list(properties) == ["query", "limit", "category", "in_stock", "max_price"],
            f"{who}: all five parameters",
        )
        check(
            properties["query"].get("description") == "Words to look for.",
            f"{who}: parameter descriptions",
        )
        check(required == ["query"], f"{who}: only query is required")

    made = tool(fixtures.make_search())
    schema_ok(made.parameters["properties"], made.parameters["required"], "toolkit")
    pai = PaiTool(fixtures.make_search()).tool_def.parameters_json_schema
    schema_ok(pai["properties"], pai["required"], "pydantic-ai")
    oaa = function_tool(fixtures.make_search()).params_json_schema
    check(
        list(oaa["properties"])
        == ["query", "limit", "category", "in_stock", "max_price"],
        "openai-agents: all five parameters",
    )
    check(
        oaa["properties"]["query"].get("description") == "Words to look for.",
        "openai-agents: descriptions",
    )  # strict mode: all required
    mcp = McpTool.from_function(fixtures.make_search()).parameters
    check(
        list(mcp["properties"])
        == ["query", "limit", "category", "in_stock", "max_price"],
        "mcp: all five parameters",
    )
    lc = lc_tool(
        fixtures.make_search(), parse_docstring=True
    ).tool_call_schema.model_json_schema()
    schema_ok(lc["properties"], lc["required"], "langchain")
    google = docstring_parser.DocstringStyle.GOOGLE
    for style in (docstring_parser.DocstringStyle.AUTO, google):
        naive = fixtures.naive_define(fixtures.make_search(), style)
        check(
            naive["parameters"] == dict(made.parameters)
            and naive["description"] == made.description,
            f"naive definer ({style.name}): the schema toolkit derives",
        )
    return Scenario(
        figure="@tool on a 5-parameter function with a Google docstring",
        unit="us",
        goals=[
            Goal("define vs pydantic-ai", "toolkit", "pydantic-ai", 0.10),
            Goal(
                "define vs naive stdlib + docstring_parser",
                "toolkit",
                "naive definer",
                1.0,
            ),
        ],
        toolkit=Path("toolkit", "toolkit.tool(f)", each_fresh(tool)),
        peers=[
            Path("pydantic-ai", "pydantic_ai.Tool(f)", each_fresh(PaiTool)),
            Path("openai-agents", "agents.function_tool(f)", each_fresh(function_tool)),
            Path(
                "mcp",
                "MCPServer Tool.from_function(f) (no docstring parsing)",
                each_fresh(McpTool.from_function),
            ),
            Path(
                "langchain",
                "langchain_core.tools.tool(f, parse_docstring=True)",
                each_fresh(lambda f: lc_tool(f, parse_docstring=True)),
            ),
        ],
        floors=[
            Path(
                "naive definer",
                "inspect.signature + typing.get_type_hints + docstring_parser.parse(doc) + the schema dict by hand",
                each_fresh(fixtures.naive_define),
            ),
            Path(
                "naive definer (style given)",
                "the same with docstring_parser.parse(doc, GOOGLE): told the style, which toolkit is not",
                each_fresh(lambda f: fixtures.naive_define(f, google)),
            ),
            Path(
                "docstring_parser (style given)",
                "docstring_parser.parse(doc, GOOGLE)",
                timed_sync(lambda: docstring_parser.parse(fixtures.DOC, style=google)),
            ),
            Path(
                "docstring_parser (auto)",
                "docstring_parser.parse(doc)",
                timed_sync(lambda: docstring_parser.parse(fixtures.DOC)),
            ),
        ],
        number=2000,
    )


def execute_scenario() -> Scenario:
    from agents import function_tool
    from agents.tool_context import ToolContext
    from langchain_core.tools import tool as lc_tool
    from mcp.server.mcpserver import Context
    from mcp.server.mcpserver.tools.base import Tool as McpTool
    from pydantic_ai import RunContext
    from pydantic_ai import Tool as PaiTool
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.usage import RunUsage

    from toolkit import tool

    ours = tool(fixtures.add)
    pai = PaiTool(fixtures.add).function_schema
    pai_context = RunContext(deps=None, model=TestModel(), usage=RunUsage())
    oaa = function_tool(fixtures.add)
    mcp = McpTool.from_function(fixtures.add)
    mcp_context = Context()
    lc = lc_tool(fixtures.add, parse_docstring=True)
    json_args = json.dumps(ARGS)

    async def pai_call(args: dict[str, Any]) -> Any:
        return await pai.call(pai.validator.validate_python(args), pai_context)

    async def oaa_call(arguments: str) -> Any:
        context = ToolContext(
            context=None, tool_name="add", tool_call_id="c1", tool_arguments=arguments
        )
        return await oaa.on_invoke_tool(context, arguments)

    loop = asyncio.new_event_loop()
    before = fixtures.CALLS["count"]
    check(
        ours.execute("a", "c", ARGS).text == "6"
        and ours.execute("a", "c", BAD_ARGS).is_error,
        "toolkit valid/invalid",
    )
    check(loop.run_until_complete(pai_call(ARGS)) == "6", "pydantic-ai valid")
    check(
        _raises(lambda: loop.run_until_complete(pai_call(BAD_ARGS))),
        "pydantic-ai invalid",
    )
    check(loop.run_until_complete(oaa_call(json_args)) == "6", "openai-agents valid")
    check(
        loop.run_until_complete(oaa_call(json.dumps(BAD_ARGS))) != "6",
        "openai-agents invalid",
    )
    check(loop.run_until_complete(mcp.run(ARGS, mcp_context)) == "6", "mcp valid")
    check(
        _raises(lambda: loop.run_until_complete(mcp.run(BAD_ARGS, mcp_context))),
        "mcp invalid",
    )
    check(
        lc.invoke(ARGS) == "6" and _raises(lambda: lc.invoke(BAD_ARGS)),
        "langchain valid/invalid",
    )
    check(fixtures.CALLS["count"] == before + 5, "invalid calls never ran the function")
    check(
        fixtures.hand_check(ARGS) and not fixtures.hand_check(BAD_ARGS),
        "hand-written check verdicts",
    )
    loop.close()
    return Scenario(
        figure="Tool.execute overhead over the bare call (sync, 3 scalar args)",
        unit="us",
        goals=[
            Goal(
                "execute overhead, async (the sync function in a worker thread, as the peers run it) vs the MCP SDK's async Tool.run",
                "toolkit (async)",
                "mcp",
                0.5,
            ),
        ],
        toolkit=Path(
            "toolkit",
            'tool.execute("a", "c", args)',
            timed_sync(lambda: ours.execute("a", "c", ARGS)),
        ),
        peers=[
            Path(
                "mcp",
                "await Tool.run(args, ctx) (MCPServer, async)",
                timed_async(lambda: mcp.run(ARGS, mcp_context)),
            ),
            Path(
                "openai-agents",
                "await FunctionTool.on_invoke_tool(ctx, json)",
                timed_async(lambda: oaa_call(json_args)),
            ),
            Path(
                "pydantic-ai",
                "FunctionSchema validate + await call (ToolManager does more)",
                timed_async(lambda: pai_call(ARGS)),
            ),
            Path(
                "langchain",
                "StructuredTool.invoke(args)",
                timed_sync(lambda: lc.invoke(ARGS)),
            ),
        ],
        floors=[
            Path(
                "hand-written check",
                "isinstance checks of the three arguments and their count (no call)",
                timed_sync(lambda: fixtures.hand_check(ARGS)),
            )
        ],
        extras=[
            Path(
                "toolkit (async)",
                'await tool.aexecute("a", "c", args): the sync function in a worker thread, as the peers run it',
                timed_async(lambda: ours.aexecute("a", "c", ARGS)),
            ),
        ],
        number=100_000,
    )


def call_scenario() -> Scenario:
    """Whole calls: an async tool against the MCP SDK's, and a sync one against the same work by hand."""
    from mcp.server.mcpserver import Context
    from mcp.server.mcpserver.tools.base import Tool as McpTool

    from toolkit import tool

    ours_async = tool(fixtures.aadd)
    ours = tool(fixtures.add)
    mcp = McpTool.from_function(fixtures.aadd)
    mcp_context = Context()
    loop = asyncio.new_event_loop()
    before = fixtures.CALLS["count"]
    check(
        loop.run_until_complete(ours_async.aexecute("a", "c", ARGS)).text == "6"
        and loop.run_until_complete(ours_async.aexecute("a", "c", BAD_ARGS)).is_error,
        "toolkit async tool valid/invalid",
    )
    check(loop.run_until_complete(mcp.run(ARGS, mcp_context)) == "6", "mcp valid")
    check(
        _raises(lambda: loop.run_until_complete(mcp.run(BAD_ARGS, mcp_context))),
        "mcp invalid",
    )
    check(
        fixtures.hand_call(ARGS) == "6" and fixtures.hand_call(BAD_ARGS) is None,
        "hand-written check and call",
    )
    check(fixtures.CALLS["count"] == before + 3, "invalid calls never ran the function")
    loop.close()
    return Scenario(
        figure="One whole call (3 scalar args): an async tool, and a sync one",
        unit="us",
        goals=[
            Goal(
                "call of an async tool vs the MCP SDK's async Tool.run of the same function",
                "toolkit (async tool)",
                "mcp (async tool)",
                0.5,
            ),
            Goal(
                "whole call, sync, vs a hand-written check and the call",
                "toolkit",
                "hand-written check + call",
                10,
            ),
        ],
        toolkit=Path(
            "toolkit",
            'tool.execute("a", "c", args)',
            timed_sync(lambda: ours.execute("a", "c", ARGS)),
        ),
        extras=[
            Path(
                "toolkit (async tool)",
                'await tool.aexecute("a", "c", args) of an async function',
                timed_async(lambda: ours_async.aexecute("a", "c", ARGS)),
            ),
        ],
        peers=[
            Path(
                "mcp (async tool)",
                "await Tool.run(args, ctx) of an async function (MCPServer)",
                timed_async(lambda: mcp.run(ARGS, mcp_context)),
            ),
        ],
        floors=[
            Path(
                "hand-written check + call",
                "isinstance checks of the three arguments and their count, then the call",
                timed_sync(lambda: fixtures.hand_call(ARGS)),
            )
        ],
        number=100_000,
    )


def _raises(operation: Callable[[], Any]) -> bool:
    try:
        operation()
    except Exception:  # any rejection counts
        return True
    return False


def validate_scenario() -> Scenario:
    import fastjsonschema
    import jsonschema

    from toolkit import tool

    ours = tool(fixtures.add)
    schema = dict(ours.parameters)
    validator = jsonschema.Draft202012Validator(schema)
    fast = fastjsonschema.compile(json.loads(json.dumps(schema)))
    check(
        ours.validate_args(ARGS) is None and ours.validate_args(BAD_ARGS) is not None,
        "toolkit verdicts",
    )
    check(
        validator.is_valid(ARGS) and not validator.is_valid(BAD_ARGS),
        "jsonschema verdicts",
    )
    check(
        fast(ARGS) is not None and _raises(lambda: fast(BAD_ARGS)),
        "fastjsonschema verdicts",
    )
    check(
        fixtures.hand_check(ARGS) and not fixtures.hand_check(BAD_ARGS),
        "hand-written check verdicts",
    )
    return Scenario(
        figure="validation of a valid call alone",
        unit="us",
        goals=[
            Goal("validate vs fastjsonschema", "toolkit", "fastjsonschema", 1.0),
            Goal(
                "validate vs a hand-written check", "toolkit", "hand-written check", 3
            ),
        ],
        toolkit=Path(
            "toolkit",
            "tool.validate_args(args)",
            timed_sync(lambda: ours.validate_args(ARGS)),
        ),
        peers=[
            Path(
                "jsonschema",
                "Draft202012Validator(schema).validate(args), pre-built",
                timed_sync(lambda: validator.validate(ARGS)),
            )
        ],
        floors=[
            Path(
                "fastjsonschema",
                "fastjsonschema.compile(schema)(args)",
                timed_sync(lambda: fast(ARGS)),
            ),
            Path(
                "hand-written check",
                "isinstance checks of the three arguments and their count",
                timed_sync(lambda: fixtures.hand_check(ARGS)),
            ),
        ],
        number=20000,
    )


def new_scenario() -> Scenario:
    """`Tool.new` from real-world schemas, against `jsonschema`'s meta-schema check of them.

    The schemas are every 16th function definition of the Berkeley Function
    Calling Leaderboard (`benchmarks/bfcl.py`, the `bfcl-eval` package);
    each path handles all of them once per sample, in the same order.
    """
    import bfcl
    import jsonschema

    from toolkit import Tool, ToolResult

    definitions = bfcl.load().definitions[::16]
    meta = jsonschema.Draft202012Validator

    def make(item: bfcl.Definition) -> Tool[..., Any]:
        return Tool.new(
            name=item.name,
            description=item.description,
            parameters=item.parameters,
            execute_fn=lambda agent_id, call_id, args: ToolResult.ok(""),
        )

    check(
        all(meta(meta.META_SCHEMA).is_valid(item.parameters) for item in definitions),
        "jsonschema: every schema is valid",
    )
    check(
        all(make(item).parameters == item.parameters for item in definitions),
        "toolkit: every schema accepted as given",
    )

    def each(operation: Callable[[Any], Any]) -> Callable[[int], float]:
        def run(n: int) -> float:
            started = time.perf_counter()
            for item in definitions:
                operation(item)
            return (time.perf_counter() - started) / len(definitions)

        return run

    return Scenario(
        figure=f"Tool.new from a raw schema ({len(definitions)} BFCL function definitions)",
        unit="us",
        goals=[
            Goal(
                "Tool.new vs jsonschema's check_schema",
                "toolkit",
                "jsonschema check_schema",
                0.2,
            )
        ],
        toolkit=Path(
            "toolkit", "Tool.new(name=, description=, parameters=, ...)", each(make)
        ),
        peers=[],
        floors=[
            Path(
                "jsonschema check_schema",
                "Draft202012Validator.check_schema(parameters)",
                each(lambda item: meta.check_schema(item.parameters)),
            )
        ],
        number=1,
        calibrate=False,
    )


def import_scenario(quick: bool) -> Scenario:
    compile_toolkit()

    def cost(module: str) -> Callable[[int], float]:
        def run(n: int) -> float:
            return _spawn(f"import {module}") - _spawn("pass")

        return run

    return Scenario(
        figure="import toolkit (above a bare interpreter)",
        unit="ms",
        goals=[
            Goal(
                "import toolkit vs importing its required dependencies",
                "toolkit",
                "required dependencies",
                1.0,
            )
        ],
        toolkit=Path("toolkit", "import toolkit", cost("toolkit")),
        peers=[
            Path(
                "langchain", "import langchain_core.tools", cost("langchain_core.tools")
            ),
            Path("openai-agents", "import agents", cost("agents")),
            Path("mcp", "import mcp.server.mcpserver", cost("mcp.server.mcpserver")),
            Path("pydantic-ai", "import pydantic_ai", cost("pydantic_ai")),
        ],
        floors=[
            Path(
                "required dependencies",
                "import typing_extensions, docstring_parser (toolkit imports jsonschema only to word an invalid call's message)",
                cost("typing_extensions, docstring_parser"),
            ),
            Path(
                "every runtime dependency",
                "import jsonschema, typing_extensions, docstring_parser",
                cost("jsonschema, typing_extensions, docstring_parser"),
            ),
            Path("asyncio", "import asyncio", cost("asyncio")),
        ],
        repeats=5 if quick else 15,
        number=1,
        calibrate=False,
    )


def compile_toolkit() -> None:
    """Byte-compile toolkit's modules, as installing a package does.

    The peers and the dependencies are installed, their modules compiled;
    toolkit runs from this checkout, where nothing may have written
    `__pycache__` yet (with PYTHONDONTWRITEBYTECODE set, nothing ever does),
    so each timed import would compile its sources, which no installed
    toolkit does.
    """
    import compileall

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    compileall.compile_dir(os.path.join(root, "toolkit"), quiet=1)


def _spawn(code: str) -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - started


def export_scenarios() -> list[Scenario]:
    from agents import function_tool
    from agents.models.chatcmpl_converter import Converter
    from langchain_core.tools import tool as lc_tool
    from langchain_core.utils.function_calling import convert_to_openai_tool

    from toolkit import ToolSet, tool

    ours = [tool(fixtures.tool_source(index)) for index in range(500)]
    agents_tools = [function_tool(fixtures.tool_source(index)) for index in range(500)]
    lc_tools = [
        lc_tool(fixtures.tool_source(index), parse_docstring=True)
        for index in range(500)
    ]
    plain = [(item.name, item.description, dict(item.parameters)) for item in ours]
    warm = ToolSet(ours)
    warm.export("openai")

    def first(n: int) -> float:
        """A new set of the same tools, built in the timing, as the peers' paths reuse their tools."""
        started = time.perf_counter()
        for _ in range(n):
            ToolSet(ours).export("openai")
        return (time.perf_counter() - started) / n

    def export_only(n: int) -> float:
        """The same, with the set built before the timing."""
        total = 0.0
        for _ in range(n):
            fresh = ToolSet(ours)
            started = time.perf_counter()
            fresh.export("openai")
            total += time.perf_counter() - started
        return total / n

    def cold(n: int) -> float:
        """Tools made just before (untimed), so their memory is cold."""
        total = 0.0
        for _ in range(n):
            fresh = ToolSet(tool(fixtures.tool_source(index)) for index in range(500))
            gc.collect()  # the setup's garbage is not the export's cost
            started = time.perf_counter()
            fresh.export("openai")
            total += time.perf_counter() - started
        return total / n

    exported = ToolSet(ours).export("openai")
    check(
        len(exported) == 500
        and exported[0]["function"]["parameters"]["required"] == ["query"],
        "toolkit export",
    )
    check(exported[0]["function"]["strict"] is False, "toolkit sends strict explicitly")
    check(
        len([Converter.tool_to_openai(item) for item in agents_tools]) == 500,
        "openai-agents export",
    )
    check(
        convert_to_openai_tool(lc_tools[0])["function"]["name"] == "search_0",
        "langchain export",
    )
    floor = Path(
        "500 dicts",
        "[{'type': 'function', 'function': {...}} for each tool]",
        timed_sync(
            lambda: [
                {
                    "type": "function",
                    "function": {"name": n, "description": d, "parameters": p},
                }
                for n, d, p in plain
            ]
        ),
    )
    peers = [
        Path(
            "openai-agents",
            "Converter.tool_to_openai(t) for 500 (no cache)",
            timed_sync(
                lambda: [Converter.tool_to_openai(item) for item in agents_tools]
            ),
        ),
        Path(
            "langchain",
            "convert_to_openai_tool(t) for 500 (no cache)",
            timed_sync(lambda: [convert_to_openai_tool(item) for item in lc_tools]),
        ),
    ]
    return [
        Scenario(
            "export('openai') of a 500-tool set, first",
            "us",
            [
                Goal(
                    "first export of a new 500-tool set vs building the dicts",
                    "toolkit",
                    "500 dicts",
                    1.0,
                )
            ],
            Path(
                "toolkit",
                "ToolSet(tools).export('openai'): a new set built in the timing, tools made once (as for the peers)",
                first,
            ),
            peers,
            [floor],
            extras=[
                Path(
                    "toolkit (set built before)",
                    "tools.export('openai') of a new ToolSet(tools) built before the timing",
                    export_only,
                ),
                Path(
                    "toolkit (just-made tools)",
                    "ToolSet(500 tools made just before, untimed).export('openai'): memory still cold from making them",
                    cold,
                ),
            ],
            number=50,  # batches of about 20 ms, as for the other scenarios
            repeats=15,
        ),
        Scenario(
            "export('openai') of a 500-tool set, repeated",
            "us",
            [
                Goal(
                    "repeated export vs openai-agents", "toolkit", "openai-agents", 0.01
                )
            ],
            Path(
                "toolkit",
                "tools.export('openai'), cached",
                timed_sync(lambda: warm.export("openai")),
            ),
            peers,
            [floor],
            number=100_000,
        ),
    ]


def run_scenario() -> Scenario:
    from agents import function_tool
    from agents.tool_context import ToolContext
    from mcp.server.mcpserver import Context
    from mcp.server.mcpserver.tools.base import Tool as McpTool
    from pydantic_ai import RunContext
    from pydantic_ai import Tool as PaiTool
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.usage import RunUsage

    from toolkit import ToolCall, ToolSet, tool

    tools = ToolSet([tool(fixtures.wait)])
    calls = [ToolCall(str(index), "wait", {"n": index}) for index in range(1000)]
    pai = PaiTool(fixtures.wait).function_schema
    pai_context = RunContext(deps=None, model=TestModel(), usage=RunUsage())
    oaa = function_tool(fixtures.wait)
    mcp = McpTool.from_function(fixtures.wait)
    mcp_context = Context()

    async def ours() -> list[Any]:
        return await tools.run("agent", calls)

    async def pai_all() -> list[Any]:
        return await asyncio.gather(
            *(
                pai.call(pai.validator.validate_python({"n": i}), pai_context)
                for i in range(1000)
            )
        )

    async def oaa_all() -> list[Any]:
        async def one(i: int) -> Any:
            arguments = json.dumps({"n": i})
            return await oaa.on_invoke_tool(
                ToolContext(
                    context=None,
                    tool_name="wait",
                    tool_call_id=str(i),
                    tool_arguments=arguments,
                ),
                arguments,
            )

        return await asyncio.gather(*(one(i) for i in range(1000)))

    async def mcp_all() -> list[Any]:
        return await asyncio.gather(
            *(mcp.run({"n": i}, mcp_context) for i in range(1000))
        )

    async def bare() -> list[Any]:
        return await asyncio.gather(*(fixtures.wait(i) for i in range(1000)))

    def whole(operation: Callable[[], Awaitable[list[Any]]]) -> Callable[[int], float]:
        def run(n: int) -> float:
            started = time.perf_counter()
            asyncio.run(operation())
            return time.perf_counter() - started

        return run

    check(
        [result.text for result in asyncio.run(ours())]
        == [str(i) for i in range(1000)],
        "toolkit run: results in order",
    )
    check(asyncio.run(pai_all())[999] == "999", "pydantic-ai gather")
    check(asyncio.run(oaa_all())[999] == "999", "openai-agents gather")
    check(asyncio.run(mcp_all())[999] == "999", "mcp gather")
    return Scenario(
        figure="ToolSet.run of 1,000 calls that each await 10 ms",
        unit="ms",
        goals=[
            Goal(
                "1,000-call fan-out vs bare asyncio.gather",
                "toolkit",
                "asyncio.gather",
                1.10,
            ),
            Goal("1,000-call fan-out vs pydantic-ai", "toolkit", "pydantic-ai", 1.0),
        ],
        toolkit=Path("toolkit", "await tools.run(agent, calls)", whole(ours)),
        peers=[
            Path(
                "pydantic-ai", "gather(FunctionSchema validate + call)", whole(pai_all)
            ),
            Path(
                "openai-agents", "gather(FunctionTool.on_invoke_tool)", whole(oaa_all)
            ),
            Path("mcp", "gather(Tool.run)", whole(mcp_all)),
        ],
        floors=[
            Path("asyncio.gather", "bare asyncio.gather of the coroutines", whole(bare))
        ],
        repeats=9,
        number=1,
        calibrate=False,
    )


# ------------------------------------------------------------------ report


def scaled(value: float, unit: str) -> float:
    return value * (1e6 if unit == "us" else 1e3)


def path_of(scenario: Scenario, library: str) -> Path:
    for path in [scenario.toolkit, *scenario.extras, *scenario.peers, *scenario.floors]:
        if path.library == library:
            return path
    raise KeyError(f"{scenario.figure}: no path {library!r}")


def goal_rows(scenarios: list[Scenario]) -> list[dict[str, Any]]:
    """Every goal of the measured scenarios: the ratio and the two medians it came from."""
    rows = []
    for scenario in scenarios:
        for goal in scenario.goals:
            ours = scenario.results[goal.ours]
            reference = scenario.results[goal.reference]
            ratio = ours / reference
            rows.append(
                {
                    "goal": goal.what,
                    "figure": scenario.figure,
                    "ratio": ratio,
                    "comparison": "≤",
                    "limit": goal.limit,
                    "met": ratio <= goal.limit,
                    "toolkit": side(scenario, goal.ours),
                    "reference": side(scenario, goal.reference),
                    "source": "benchmarks/run.py",
                }
            )
    return rows


def side(scenario: Scenario, library: str) -> dict[str, Any]:
    return {
        "library": library,
        "how": path_of(scenario, library).how,
        "median": scaled(scenario.results[library], scenario.unit),
        "unit": scenario.unit,
    }


TOOLKIT_SERVER = "toolkit serve (default)"
SDK_SERVER = "MCP SDK MCPServer (default)"
TOOLKIT_STDIO = "toolkit serve (stdio)"
SDK_STDIO = "MCP SDK MCPServer (stdio)"


def serving_rows(path: str) -> tuple[list[dict[str, Any]], str]:
    """The two serving goals, from the JSON `benchmarks/serving.py --json` wrote.

    Returns the rows (none if the file or a figure is missing) and that run's
    machine line.
    """
    if not os.path.exists(path):
        return [], ""
    with open(path, encoding="utf-8") as source:
        serving = json.load(source)
    rows = []
    load = {entry["label"]: entry for entry in serving.get("load", [])}
    if TOOLKIT_SERVER in load and SDK_SERVER in load:
        ours, sdk = load[TOOLKIT_SERVER], load[SDK_SERVER]
        ratio = ours["calls_per_s"] / sdk["calls_per_s"]
        rows.append(
            {
                "goal": "MCP streamable HTTP calls/s vs the SDK's MCPServer (p99 no worse)",
                "figure": "MCP server, streamable HTTP, one tool, 20 concurrent sessions",
                "ratio": ratio,
                "comparison": "≥",
                "limit": 1.0,
                "met": ratio >= 1.0 and ours["p99_ms"] <= sdk["p99_ms"],
                "toolkit": served(TOOLKIT_SERVER, ours),
                "reference": served(SDK_SERVER, sdk),
                "source": "benchmarks/serving.py",
            }
        )
    cold = serving.get("cold", {})
    if TOOLKIT_STDIO in cold and SDK_STDIO in cold:
        ratio = cold[TOOLKIT_STDIO] / cold[SDK_STDIO]
        rows.append(
            {
                "goal": "stdio cold start to the first tools/list vs MCPServer",
                "figure": "toolkit serve FILE over stdio, start to the first tools/list answer",
                "ratio": ratio,
                "comparison": "≤",
                "limit": 1.05,
                "met": ratio <= 1.05,
                "toolkit": started(TOOLKIT_STDIO, cold[TOOLKIT_STDIO]),
                "reference": started(SDK_STDIO, cold[SDK_STDIO]),
                "source": "benchmarks/serving.py",
            }
        )
    return rows, str(serving.get("machine", ""))


def served(label: str, entry: dict[str, Any]) -> dict[str, Any]:
    return {
        "library": label,
        "how": f"calls/s, p99 {entry['p99_ms']:,.0f} ms",
        "median": entry["calls_per_s"],
        "unit": "calls/s",
        "p99_ms": entry["p99_ms"],
    }


def started(label: str, seconds: float) -> dict[str, Any]:
    return {
        "library": label,
        "how": "spawn to the first tools/list answer",
        "median": seconds * 1e3,
        "unit": "ms",
    }


def ratio_text(ratio: float) -> str:
    return f"{ratio:.3g}×"


def median_text(entry: dict[str, Any]) -> str:
    text = f"{entry['median']:,.2f} {entry['unit']}"
    if "p99_ms" in entry:
        text += f", p99 {entry['p99_ms']:,.0f} ms"
    return text


BEFORE = pathlib.Path(__file__).with_name("before.json")
"""The ratios before the latest round of speed work, printed beside today's."""


def before_ratios() -> tuple[str, dict[str, float]]:
    """The date and the ratios of `before.json`, by goal."""
    kept = json.loads(BEFORE.read_text(encoding="utf-8"))
    return kept["date"], kept["ratios"]


def report(
    scenarios: list[Scenario], goals: list[dict[str, Any]], serving_machine: str
) -> str:
    date, before = before_ratios()
    lines = [
        f"| comparison | ratio | before ({date}) | goal | met | toolkit | reference |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in goals:
        met = "yes" if row["met"] else "**no**"
        earlier = before.get(row["goal"])
        shown = "—" if earlier is None else ratio_text(earlier)
        lines.append(
            f"| {row['goal']} | {ratio_text(row['ratio'])} | {shown} | {row['comparison']} {row['limit']:g}× | {met} "
            f"| {median_text(row['toolkit'])} | {row['reference']['library']} {median_text(row['reference'])} |"
        )
    if serving_machine:
        lines += [
            "",
            f"The serving rows come from `benchmarks/serving.py` ({serving_machine.replace('`', '')}).",
        ]
    lines += [
        "",
        "Every path, as measured (median):",
        "",
        "| figure | library | call path | median |",
        "|---|---|---|---|",
    ]
    for scenario in scenarios:
        for path in [
            scenario.toolkit,
            *scenario.extras,
            *scenario.peers,
            *scenario.floors,
        ]:
            value = scaled(scenario.results[path.library], scenario.unit)
            lines.append(
                f"| {scenario.figure} | {path.library} | `{path.how}` | {value:,.2f} {scenario.unit} |"
            )
    return "\n".join(lines)


def as_json(scenarios: list[Scenario], goals: list[dict[str, Any]]) -> dict[str, Any]:
    """Every goal's ratio and every median, in the scenario's unit, with what it measured."""

    def entries(
        paths: list[Path], kind: str, scenario: Scenario
    ) -> list[dict[str, Any]]:
        return [
            {
                "library": path.library,
                "how": path.how,
                "kind": kind,
                "median": scaled(scenario.results[path.library], scenario.unit),
            }
            for path in paths
        ]

    return {
        "machine": machine(),
        "goals": goals,
        "scenarios": [
            {
                "figure": scenario.figure,
                "unit": scenario.unit,
                "paths": [
                    *entries([scenario.toolkit], "toolkit", scenario),
                    *entries(scenario.extras, "toolkit variant", scenario),
                    *entries(scenario.peers, "peer", scenario),
                    *entries(scenario.floors, "floor", scenario),
                ],
            }
            for scenario in scenarios
        ],
    }


def versions() -> str:
    from importlib.metadata import PackageNotFoundError, version

    names = [
        "pydantic-ai-slim",
        "openai-agents",
        "langchain-core",
        "mcp",
        "fastjsonschema",
        "jsonschema",
        "docstring-parser",
    ]
    found = []
    for name in names:
        try:
            found.append(f"{name} {version(name)}")
        except PackageNotFoundError:
            continue
    return ", ".join(found)


def machine() -> str:
    return (
        f"{os.cpu_count()} cores (`nproc`), {platform.python_implementation()} {platform.python_version()}, "
        f"{platform.system()} {platform.machine()}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--markdown", help="also write the report to this file")
    parser.add_argument(
        "--json", help="also write every median and ratio to this file, for the chart"
    )
    parser.add_argument(
        "--serving",
        help="add the serving goals from this JSON of benchmarks/serving.py, if it exists",
    )
    parser.add_argument(
        "--only", help="run only the scenarios whose figure contains this text"
    )
    options = parser.parse_args()
    execute = execute_scenario()
    scenarios = [
        decorate_scenario(),
        new_scenario(),
        execute,
        call_scenario(),
        validate_scenario(),
        import_scenario(options.quick),
        *export_scenarios(),
        run_scenario(),
    ]
    if options.only:
        scenarios = [
            scenario for scenario in scenarios if options.only in scenario.figure
        ]
    for scenario in scenarios:
        if options.quick:
            scenario.repeats = min(scenario.repeats, 5)
        print(f"measuring: {scenario.figure}", file=sys.stderr, flush=True)
        measure(scenario)
    bare = timed_sync(lambda: fixtures.bare_add(**ARGS))
    bare_call = statistics.median(bare(20000) for _ in range(9))
    if execute in scenarios:
        for path in [execute.toolkit, *execute.extras, *execute.peers]:
            execute.results[path.library] -= bare_call
    goals = goal_rows(scenarios)
    serving_machine = ""
    if options.serving:
        served_goals, serving_machine = serving_rows(options.serving)
        goals += served_goals
    text = (
        f"Machine: {machine()}.\n\nVersions: {versions()}.\n\n"
        f"Command: `make bench` (`python benchmarks/run.py`).\n\n"
        f"{report(scenarios, goals, serving_machine)}\n"
    )
    print(text)
    if options.markdown:
        with open(options.markdown, "w", encoding="utf-8") as out:
            out.write(text)
    if options.json:
        with open(options.json, "w", encoding="utf-8") as out:
            json.dump(as_json(scenarios, goals), out, indent=2, ensure_ascii=False)
            out.write("\n")


if __name__ == "__main__":
    main()
