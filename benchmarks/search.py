"""Tool search on the Berkeley Function Calling Leaderboard: toolkit, pydantic-ai and FastMCP.

Every query of BFCL's non-live categories is searched against one catalog of
all their functions (`benchmarks/bfcl.py` reads them from the installed
`bfcl-eval` package), by each library through its public API:

- toolkit: `toolkit.sets._search.SearchIndex(tools).search(query, k=5)`.
- pydantic-ai: the local fallback of its `ToolSearch` capability, the
  `search_tools` tool that runs for a model without native tool search:
  `ToolSearch(max_results=5).get_wrapper_toolset(FunctionToolset(tools))`,
  each tool made by `Tool.from_schema` with `defer_loading=True`, then
  `await toolset.call_tool("search_tools", {"queries": [query]}, ctx, tool)`.
- FastMCP: a `FastMCP` server holding the catalog with
  `BM25SearchTransform(max_results=5)`, then
  `await server.call_tool("search_tools", {"query": query})`, in process.
  That call is all a client's search costs the server: it lists the
  catalog through the server's providers and transforms, hashes the
  catalog's text to see whether its index is stale, then ranks; there is
  no public way to time the ranking alone.

Recall@k of one query is the share of its right tools among the first k
results, out of at most k (so recall@1 is 1 when the first result is one
of the right tools, also for a query that needs two); a result counts when
its BFCL name is a right one. The figures are means over the queries.

Latency is the wall-clock time of one search call, and beside it the CPU
time the process spent in it, which other work on a shared machine does
not inflate. toolkit's index is built before (the peers build theirs on the
first call). Each query is searched by the three libraries in turn
(interleaved, so a busy moment hits all three alike), `--rounds` times,
and each query's time is the median of its rounds. The catalog has fewer
than 5,000 functions, so a second run times a 5,000-tool catalog made of
copies of it (each copy's names suffixed, one word of each description
dropped) on every `--every`-th query: latency only, as copies of one tool
crowd the first five results. Last, toolkit's index is built over 20,000
tools made the same way, three times; the median build time is reported.

    python benchmarks/search.py [--rounds N] [--every N] [--markdown PATH] [--json PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import platform
import random
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from importlib import metadata
from typing import Any

sys.path.insert(0, os.path.dirname(__file__))
import bfcl

from toolkit.sets._search import SearchIndex

K = 5
SCALE = 5_000
BUILD_SCALE = 20_000
BUILDS = 3
Search = Callable[[str], Awaitable[list[str]]]


@dataclass
class Engine:
    library: str
    how: str
    search: Search
    # toolkit's index build; the peers index the catalog on their first search.
    built_ms: float | None = None
    found: dict[str, list[str]] = field(default_factory=dict)  # query id -> names
    seconds: dict[str, list[float]] = field(default_factory=dict)  # query id -> times
    cpu: dict[str, list[float]] = field(default_factory=dict)  # query id -> CPU times


def toolkit_engine(catalog: bfcl.Catalog) -> Engine:
    tools = catalog.tools()
    start = time.perf_counter()
    index = SearchIndex(tools)
    built = time.perf_counter() - start

    async def search(query: str) -> list[str]:
        return [name for name, _ in index.search(query, K)]

    how = "`SearchIndex(tools)` once, then `.search(query, k=5)`"
    return Engine("toolkit", how, search, built * 1e3)


def pydantic_ai_engine(catalog: bfcl.Catalog) -> Engine:
    from pydantic_ai import RunContext, Tool
    from pydantic_ai.capabilities import ToolSearch
    from pydantic_ai.exceptions import ModelRetry
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.toolsets import FunctionToolset
    from pydantic_ai.usage import RunUsage

    def not_run(**arguments: Any) -> None:
        raise NotImplementedError

    tools = []
    for item in catalog.definitions:
        made = Tool.from_schema(not_run, item.name, item.description, item.parameters)
        made.defer_loading = True
        tools.append(made)
    toolset = ToolSearch(max_results=K).get_wrapper_toolset(FunctionToolset(tools))
    context = RunContext(deps=None, model=TestModel(), usage=RunUsage())
    search_tool = asyncio.run(toolset.get_tools(context))["search_tools"]

    async def search(query: str) -> list[str]:
        try:
            result = await toolset.call_tool(
                "search_tools", {"queries": [query]}, context, search_tool
            )
        except ModelRetry:  # a query without a word: "provide a non-empty query"
            return []
        return [match["name"] for match in result["discovered_tools"]]

    how = "`ToolSearch(max_results=5).get_wrapper_toolset(...)` `.call_tool('search_tools', {'queries': [query]})` (the local fallback)"
    return Engine("pydantic-ai", how, search)


def fastmcp_engine(catalog: bfcl.Catalog) -> Engine:
    from fastmcp import FastMCP
    from fastmcp.server.transforms.search import BM25SearchTransform
    from fastmcp.tools import Tool

    class CatalogTool(Tool):
        async def run(self, arguments: dict[str, Any]) -> Any:
            raise NotImplementedError

    server = FastMCP("bfcl")
    for item in catalog.definitions:
        server.add_tool(
            CatalogTool(
                name=item.name, description=item.description, parameters=item.parameters
            )
        )
    server.add_transform(
        BM25SearchTransform(
            max_results=K,
            search_result_serializer=lambda tools: [{"name": t.name} for t in tools],
        )
    )

    async def search(query: str) -> list[str]:
        result = await server.call_tool("search_tools", {"query": query})
        return [match["name"] for match in result.structured_content["result"]]

    how = "`FastMCP` + `BM25SearchTransform(max_results=5)`, `await server.call_tool('search_tools', {'query': query})`"
    return Engine("FastMCP", how, search)


async def measure(
    engines: Sequence[Engine], queries: Sequence[bfcl.Query], rounds: int
) -> None:
    """Search every query with every engine, `rounds` times, interleaved."""
    gc.collect()
    gc.disable()
    try:
        for _ in range(rounds):
            for query in queries:
                for engine in engines:
                    start, start_cpu = time.perf_counter(), time.process_time()
                    names = await engine.search(query.text)
                    elapsed = time.perf_counter() - start
                    elapsed_cpu = time.process_time() - start_cpu
                    engine.found.setdefault(query.id, names)
                    engine.seconds.setdefault(query.id, []).append(elapsed)
                    engine.cpu.setdefault(query.id, []).append(elapsed_cpu)
    finally:
        gc.enable()


def recall(
    engine: Engine, queries: Sequence[bfcl.Query], origin: dict[str, str], k: int
) -> float:
    total = 0.0
    for query in queries:
        found = {origin[name] for name in engine.found[query.id][:k]}
        total += len(found & query.right) / min(len(query.right), k)
    return total / len(queries)


def latency(times: dict[str, list[float]]) -> tuple[float, float]:
    """Mean and 99th percentile of each query's median time, in milliseconds."""
    medians = sorted(statistics.median(samples) for samples in times.values())
    p99 = medians[min(len(medians) - 1, round(0.99 * (len(medians) - 1)))]
    return statistics.fmean(medians) * 1e3, p99 * 1e3


def figures(
    engines: Sequence[Engine], catalog: bfcl.Catalog, queries: Sequence[bfcl.Query]
) -> list[dict[str, Any]]:
    origin = catalog.origin
    rows = []
    for engine in engines:
        mean, p99 = latency(engine.seconds)
        cpu_mean, cpu_p99 = latency(engine.cpu)
        rows.append(
            {
                "library": engine.library,
                "how": engine.how,
                "catalog": len(catalog.definitions),
                "queries": len(queries),
                "built_ms": engine.built_ms,
                "recall@1": recall(engine, queries, origin, 1),
                "recall@5": recall(engine, queries, origin, K),
                "mean_ms": mean,
                "p99_ms": p99,
                "cpu_mean_ms": cpu_mean,
                "cpu_p99_ms": cpu_p99,
                "by_category": {
                    category: {
                        "recall@1": recall(engine, subset, origin, 1),
                        "recall@5": recall(engine, subset, origin, K),
                    }
                    for category in bfcl.QUERY_CATEGORIES
                    if (subset := [q for q in queries if q.category == category])
                },
            }
        )
    return rows


def scaled(catalog: bfcl.Catalog, size: int) -> bfcl.Catalog:
    """`size` tools: the catalog, then copies of it, each copy's names suffixed and one description word dropped."""
    shuffle = random.Random(28)
    definitions = list(catalog.definitions)
    copy = 1
    while len(definitions) < size:
        copy += 1
        for item in catalog.definitions[: size - len(definitions)]:
            description = item.description.split()
            if len(description) > 1:
                del description[shuffle.randrange(len(description))]
            definitions.append(
                replace(
                    item,
                    name=f"{item.name[:56]}_copy{copy}",
                    description=" ".join(description),
                )
            )
    return replace(catalog, definitions=tuple(definitions))


def run(
    catalog: bfcl.Catalog, queries: Sequence[bfcl.Query], rounds: int
) -> list[dict[str, Any]]:
    engines = [
        toolkit_engine(catalog),
        pydantic_ai_engine(catalog),
        fastmcp_engine(catalog),
    ]
    asyncio.run(measure(engines, queries, rounds))
    return figures(engines, catalog, queries)


def build_seconds(catalog: bfcl.Catalog, builds: int) -> float:
    """The median time of `SearchIndex(tools)` over `catalog`, of `builds` builds."""
    tools = catalog.tools()
    times = []
    for _ in range(builds):
        gc.collect()
        start = time.perf_counter()
        SearchIndex(tools)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def goals(results: dict[str, Any]) -> list[dict[str, Any]]:
    ours, *peers = results["bfcl"]
    at_scale = results["scaled"][0]
    built_ms = results["built_at_scale_ms"]
    return [
        {
            "goal": "recall@5 ≥ 0.85",
            "toolkit": ours["recall@5"],
            "reference": 0.85,
            "met": ours["recall@5"] >= 0.85,
        },
        *(
            {
                "goal": f"recall@5 above {peer['library']}'s",
                "toolkit": ours["recall@5"],
                "reference": peer["recall@5"],
                "met": ours["recall@5"] > peer["recall@5"],
            }
            for peer in peers
        ),
        {
            "goal": f"≤ 1 ms per query (mean) over {at_scale['catalog']:,} tools",
            "toolkit": at_scale["mean_ms"],
            "reference": 1.0,
            "met": at_scale["mean_ms"] <= 1.0,
        },
        {
            "goal": f"index over {results['built_at_scale']:,} tools built in ≤ 1 s (ms, median of {BUILDS})",
            "toolkit": built_ms,
            "reference": 1000.0,
            "met": built_ms <= 1000.0,
        },
    ]


def versions() -> dict[str, str]:
    return {
        name: metadata.version(name)
        for name in ("pydantic-ai-slim", "fastmcp", "bfcl-eval", "mcp")
    }


def _table(rows: Sequence[dict[str, Any]], *, recall: bool) -> list[str]:
    ours = rows[0]
    head = "| library | recall@1 | recall@5 " if recall else "| library "
    lines = [
        head
        + "| mean per query | p99 | CPU mean | CPU p99 | toolkit's mean over this one's |",
        "|---|" + ("---|---|" if recall else "") + "---|---|---|---|---|",
    ]
    for row in rows:
        cells = [f"{row['recall@1']:.3f}", f"{row['recall@5']:.3f}"] if recall else []
        cells += [
            f"{row[key]:.3f} ms"
            for key in ("mean_ms", "p99_ms", "cpu_mean_ms", "cpu_p99_ms")
        ]
        cells.append(f"{ours['mean_ms'] / row['mean_ms']:.3g}×")
        lines.append(f"| {row['library']} | " + " | ".join(cells) + " |")
    return lines


def _by_category(rows: Sequence[dict[str, Any]]) -> list[str]:
    categories = list(rows[0]["by_category"])
    lines = [
        "| library | " + " | ".join(f"{c} @1 / @5" for c in categories) + " |",
        "|---|" + "---|" * len(categories),
    ]
    for row in rows:
        cells = [
            f"{row['by_category'][c]['recall@1']:.3f} / {row['by_category'][c]['recall@5']:.3f}"
            for c in categories
        ]
        lines.append(f"| {row['library']} | " + " | ".join(cells) + " |")
    return lines


def report(results: dict[str, Any]) -> str:
    bfcl_rows, scaled_rows = results["bfcl"], results["scaled"]
    versions = ", ".join(f"{n} {v}" for n, v in results["versions"].items())
    lines = [
        f"Machine: {results['machine']}, {results['date']}. Versions: {versions}.",
        "",
        "Command: `make bench` (`python benchmarks/search.py`).",
        "",
        "| goal | met | toolkit | reference |",
        "|---|---|---|---|",
        *(
            f"| {g['goal']} | {'yes' if g['met'] else 'no'} | {g['toolkit']:.3f} | {g['reference']:.3f} |"
            for g in results["goals"]
        ),
        "",
        f"Every query of BFCL's non-live categories against one catalog of all "
        f"their functions: {bfcl_rows[0]['catalog']:,} tools, "
        f"{bfcl_rows[0]['queries']:,} queries; toolkit's index built in "
        f"{bfcl_rows[0]['built_ms']:.0f} ms.",
        "",
        *_table(bfcl_rows, recall=True),
        "",
        f"Latency over {scaled_rows[0]['catalog']:,} tools (the catalog and "
        f"copies of it, names suffixed, one description word dropped), "
        f"{scaled_rows[0]['queries']:,} of the queries (every "
        f"{results['scaled_every']}th, {results['rounds']} rounds); toolkit's index built in "
        f"{scaled_rows[0]['built_ms']:.0f} ms.",
        "",
        *_table(scaled_rows, recall=False),
        "",
        "Recall by category:",
        "",
        *_by_category(bfcl_rows),
        "",
        "How each library was called:",
        "",
        *(f"- {row['library']}: {row['how']}" for row in bfcl_rows),
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--rounds", type=int, default=3, help="searches of each query per library"
    )
    parser.add_argument(
        "--every",
        type=int,
        default=8,
        help="over 5,000 tools, time every n-th query (FastMCP takes a third of a second each)",
    )
    parser.add_argument("--markdown", help="also write the report to this file")
    parser.add_argument("--json", help="also write the figures to this file")
    options = parser.parse_args()
    catalog = bfcl.load()
    results = {
        "machine": f"{os.cpu_count()} cores, CPython {platform.python_version()}, {platform.system()} {platform.machine()}",
        "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "versions": versions(),
        "bfcl": run(catalog, catalog.queries, options.rounds),
        "scaled": run(
            scaled(catalog, SCALE), catalog.queries[:: options.every], options.rounds
        ),
        "scaled_every": options.every,
        "built_at_scale": BUILD_SCALE,
        "built_at_scale_ms": build_seconds(scaled(catalog, BUILD_SCALE), BUILDS) * 1e3,
        "rounds": options.rounds,
    }
    results["goals"] = goals(results)
    text = report(results)
    print(text)
    if options.markdown:
        with open(options.markdown, "w", encoding="utf-8") as out:
            out.write(text)
    if options.json:
        with open(options.json, "w", encoding="utf-8") as out:
            json.dump(results, out, indent=2)
            out.write("\n")


if __name__ == "__main__":
    main()
