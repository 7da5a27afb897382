"""Measure toolkit and its peers side by side on the same work.

Run with `make bench` (it installs the peers into `.venv-bench`). Every path is
checked once before it is timed: the schema is complete, a valid call gives the
right answer, and an invalid call is rejected without running the function.
Timings are medians of interleaved repeats (path A, B, C, A, B, C, ...) with
garbage collection off, so that drift on a noisy machine hits every path alike.

    python benchmarks/run.py [--quick] [--markdown PATH] [--json PATH]

`--json` writes every median with its library, call path and kind (toolkit,
peer, floor); `benchmarks/chart.py` draws the chart the docs show from it.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
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


@dataclass
class Scenario:
    figure: str
    unit: str
    target: float
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
    return Scenario(
        figure="@tool on a 5-parameter function with a Google docstring",
        unit="us",
        target=80,
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

    def floor(args: dict[str, Any]) -> bool:
        return (
            len(args) == 3
            and type(args.get("a")) is int
            and type(args.get("b")) is int
            and type(args.get("c")) is int
        )

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
    loop.close()
    return Scenario(
        figure="Tool.execute overhead over the bare call (sync, 3 scalar args)",
        unit="us",
        target=3,
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
                "type checks of the three arguments (no call)",
                timed_sync(lambda: floor(ARGS)),
            )
        ],
        extras=[
            Path(
                "toolkit (async)",
                'await tool.aexecute("a", "c", args): the sync function in a worker thread, as the peers run it',
                timed_async(lambda: ours.aexecute("a", "c", ARGS)),
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
    return Scenario(
        figure="validation of a valid call alone",
        unit="us",
        target=1.5,
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
            )
        ],
        number=20000,
    )


def import_scenario(quick: bool) -> Scenario:
    def cost(module: str) -> Callable[[int], float]:
        def run(n: int) -> float:
            return _spawn(f"import {module}") - _spawn("pass")

        return run

    return Scenario(
        figure="import toolkit (above a bare interpreter)",
        unit="ms",
        target=40,
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
            Path("asyncio", "import asyncio", cost("asyncio")),
            Path("jsonschema", "import jsonschema", cost("jsonschema")),
        ],
        repeats=5 if quick else 15,
        number=1,
        calibrate=False,
    )


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
        """A new set of the same tools, as the peers' paths reuse their tools."""
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
            400,
            Path(
                "toolkit",
                "ToolSet(tools).export('openai'): a new set, tools made once (as for the peers)",
                first,
            ),
            peers,
            [floor],
            extras=[
                Path(
                    "toolkit (just-made tools)",
                    "ToolSet(500 tools made just before, untimed).export('openai'): memory still cold from making them",
                    cold,
                )
            ],
            number=5,
            repeats=15,
            calibrate=False,
        ),
        Scenario(
            "export('openai') of a 500-tool set, repeated",
            "us",
            5,
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
        target=25,
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


def report(scenarios: list[Scenario]) -> str:
    lines = [
        "| figure | toolkit | target | met | fastest peer | peer / toolkit | floor | toolkit / floor |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for scenario in scenarios:
        unit = scenario.unit
        ours = scaled(scenario.results["toolkit"], unit)
        peer = min(scenario.peers, key=lambda path: scenario.results[path.library])
        peer_value = scaled(scenario.results[peer.library], unit)
        floor = min(scenario.floors, key=lambda path: scenario.results[path.library])
        floor_value = scaled(scenario.results[floor.library], unit)
        met = "yes" if ours <= scenario.target else "**no**"
        lines.append(
            f"| {scenario.figure} | {ours:,.2f} {unit} | ≤ {scenario.target:g} {unit} | {met} | {peer.library} {peer_value:,.2f} {unit} "
            f"| {peer_value / ours:,.1f}× | {floor.library} {floor_value:,.2f} {unit} | {_ratio(ours, floor_value)} |"
        )
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


def as_json(scenarios: list[Scenario]) -> dict[str, Any]:
    """Every median, in the scenario's unit, with what it measured."""

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


def _ratio(value: float, floor: float) -> str:
    return f"{value / floor:,.2f}×" if floor > 0 else "n/a"


def machine() -> str:
    return (
        f"{os.cpu_count()} cores (`nproc`), {platform.python_implementation()} {platform.python_version()}, "
        f"{platform.system()} {platform.machine()}, {time.strftime('%Y-%m-%d')}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--markdown", help="also write the report to this file")
    parser.add_argument(
        "--json", help="also write every median to this file, for the chart"
    )
    parser.add_argument(
        "--only", help="run only the scenarios whose figure contains this text"
    )
    options = parser.parse_args()
    execute = execute_scenario()
    scenarios = [
        decorate_scenario(),
        execute,
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
    text = f"Machine: {machine()}.\n\nCommand: `make bench` (`python benchmarks/run.py`).\n\n{report(scenarios)}\n"
    print(text)
    if options.markdown:
        with open(options.markdown, "w", encoding="utf-8") as out:
            out.write(text)
    if options.json:
        with open(options.json, "w", encoding="utf-8") as out:
            json.dump(as_json(scenarios), out, indent=2, ensure_ascii=False)
            out.write("\n")


if __name__ == "__main__":
    main()
