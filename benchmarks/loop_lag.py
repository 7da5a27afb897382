"""How long one call with a big argument holds up the other calls of the same event loop.

A server answers every session from one event loop. While `aexecute` checks
a call's arguments, a concurrent small call (`add(1, 2)`) waits; this script
measures that wait: the longest latency of small calls made back to back
while the big call runs, for a few shapes of a ~1 MB argument, each valid and
invalid. `--on-loop` checks every argument on the loop thread, for a
before/after comparison.

    python benchmarks/loop_lag.py [--on-loop] [--repeats N] [--only TEXT]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from typing import Any

from toolkit import Tool, ToolResult, ToolSet, tool


@tool
def total(xs: list[int]) -> int:
    """Add numbers."""
    return len(xs)


@tool
def distinct(xs: set[int]) -> int:
    """Count distinct numbers."""
    return len(xs)


@tool
def words(text: str, tags: dict[str, int]) -> int:
    """Count words."""
    return len(text.split()) + len(tags)


@tool
def opaque(xs: Any) -> int:
    """Count anything."""
    return len(xs)


OPEN = Tool.new(
    name="open",
    description="Take any named arguments.",
    parameters={"type": "object"},
    execute_fn=lambda agent_id, call_id, args: ToolResult(str(len(args))),
)


@tool
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


TOOLS = ToolSet([total, distinct, words, opaque, OPEN, add])
N = 150_000

CASES: dict[str, tuple[str, Any]] = {
    "list[int], valid": ("total", {"xs": list(range(N))}),
    "list[int], every item wrong": ("total", {"xs": ["x"] * N}),
    "set[int], valid": ("distinct", {"xs": list(range(N))}),
    "set[int], one repeat at the end": ("distinct", {"xs": [*range(N), 0]}),
    "dict[str, int], valid": (
        "words",
        {"text": "w " * 1000, "tags": {f"k{i}": i for i in range(N // 2)}},
    ),
    "unknown keys": ("add", {"a": 1, "b": 2, **{f"k{i}": i for i in range(N // 2)}}),
    "JSON text of the arguments": ("total", json.dumps({"xs": list(range(N))})),
}


async def worst_lag(name: str, args: Any) -> tuple[float, float, int]:
    """(longest small-call latency, big call's duration, small calls made), in seconds.

    The small calls start first and go on back to back until the big call
    has finished, so that a big call that holds the loop shows as the
    latency of the small call that was waiting meanwhile.
    """
    big_done = asyncio.Event()
    latencies: list[float] = []

    async def small_calls() -> None:
        while not big_done.is_set() or not latencies:
            before = time.perf_counter()
            result = await TOOLS.aexecute("a", "s", "add", {"a": 1, "b": 2})
            latencies.append(time.perf_counter() - before)
            assert result.text == "3", result

    async def big_call() -> None:
        await asyncio.sleep(0)  # the first small call is under way
        result = await TOOLS.aexecute("a", "big", name, args)
        assert result.text, result
        big_done.set()

    started = time.perf_counter()
    small = asyncio.ensure_future(small_calls())
    await big_call()
    took = time.perf_counter() - started
    await small
    return max(latencies), took, len(latencies)


async def alone(duration: float) -> float:
    """The longest latency of small calls made back to back with nothing else running."""
    worst, started = 0.0, time.perf_counter()
    while time.perf_counter() - started < duration:
        before = time.perf_counter()
        await TOOLS.aexecute("a", "s", "add", {"a": 1, "b": 2})
        worst = max(worst, time.perf_counter() - before)
    return worst


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--on-loop", action="store_true", help="check arguments on the loop thread"
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--only", default="", help="run the cases whose label has this text"
    )
    options = parser.parse_args()
    if options.on_loop:
        import toolkit.tools._call

        def never_large(value: object, budget: int = 0) -> bool:
            return False

        toolkit.tools._call.is_large = never_large  # type: ignore[attr-defined]  # what the runner asks
    print(
        f"Python {sys.version.split()[0]}; {'on the loop' if options.on_loop else 'toolkit as shipped'}"
    )
    print("| argument (~1 MB) | size | big call | worst wait of a concurrent call |")
    print("|---|---|---|---|")
    floor = statistics.median(asyncio.run(alone(0.3)) for _ in range(options.repeats))
    print(f"| none (small calls alone, for 300 ms) | | | {floor * 1e3:,.1f} ms |")
    for label, (name, args) in CASES.items():
        if options.only not in label:
            continue
        size = len(args) if isinstance(args, str) else len(json.dumps(args))
        runs = [asyncio.run(worst_lag(name, args)) for _ in range(options.repeats)]
        lag = statistics.median(run[0] for run in runs)
        took = statistics.median(run[1] for run in runs)
        print(
            f"| {label} | {size / 1e6:.2f} MB | {took * 1e3:,.1f} ms | {lag * 1e3:,.1f} ms |"
        )


if __name__ == "__main__":
    main()
