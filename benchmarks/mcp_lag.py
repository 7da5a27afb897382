"""Over MCP streamable HTTP: how long one session's big call holds up another session.

A toolkit MCP server (`toolkit.mcp.serve`, the tools of
`loop_lag.py`) runs in a child process on 127.0.0.1. Session A sends one call
with a ~1 MB argument; session B, opened beforehand, calls `add(1, 2)` back to
back until A's answer arrives. The figure is B's longest wait. `--on-loop`
makes the server check every argument on its event loop thread, as toolkit
did before, for comparison. The MCP SDK itself parses each request body on
the loop; that part is the same in both rows.

    python benchmarks/mcp_lag.py [--on-loop] [--repeats N]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

sys.path.insert(0, os.path.dirname(__file__))

N = 150_000
BIG_CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "`Any` (toolkit checks nothing: the SDK's share)": (
        "opaque",
        {"xs": list(range(N))},
    ),
    "list[int], valid": ("total", {"xs": list(range(N))}),
    "list[int], every item wrong": ("total", {"xs": ["x"] * N}),
    "set[int], one repeat at the end": ("distinct", {"xs": [*range(N), 0]}),
    "`Any` holding 75,000 keys (the SDK's share)": (
        "opaque",
        {"xs": {f"k{i}": i for i in range(N // 2)}},
    ),
    "75,000 named arguments, all valid (the SDK's share)": (
        "open",
        {f"k{i}": i for i in range(N // 2)},
    ),
    "unknown keys": ("add", {"a": 1, "b": 2, **{f"k{i}": i for i in range(N // 2)}}),
}


def serve(port: int, on_loop: bool) -> None:
    if on_loop:
        import toolkit.tools._call

        def never_large(value: object, budget: int = 0) -> bool:
            return False

        toolkit.tools._call.is_large = never_large  # type: ignore[attr-defined]  # what the runner asks
    from loop_lag import TOOLS

    from toolkit.mcp import serve as serve_mcp

    serve_mcp(TOOLS, http=f"127.0.0.1:{port}")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def server(on_loop: bool) -> Iterator[str]:
    port = _free_port()
    command = [sys.executable, __file__, "--serve", str(port)]
    process = subprocess.Popen(
        [*command, "--on-loop"] if on_loop else command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", port), timeout=0.2),
            ):
                break
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=30)


async def big_client(url: str, case: str) -> None:
    """Session A, in a process of its own: connect, wait for "go", make the big call."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    name, args = BIG_CALLS[case]
    async with (
        streamable_http_client(url) as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.readline)
        before = time.perf_counter()
        await session.call_tool(name, args)
        print(f"done {time.perf_counter() - before}", flush=True)


async def worst_wait(url: str, case: str) -> tuple[float, float]:
    """(B's longest wait, A's call duration), in seconds.

    Session A runs in another process, so that building and sending its
    megabyte does not hold up this process's loop, where B's calls are timed.
    """
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    big = await asyncio.create_subprocess_exec(
        sys.executable,
        __file__,
        "--big",
        url,
        case,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert big.stdin is not None
    assert big.stdout is not None
    assert (await big.stdout.readline()).strip() == b"ready"
    async with (
        streamable_http_client(url) as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        waits: list[float] = []
        finished = asyncio.ensure_future(big.stdout.readline())

        async def small_call() -> None:
            before = time.perf_counter()
            result = await session.call_tool("add", {"a": 1, "b": 2})
            waits.append(time.perf_counter() - before)
            assert not result.is_error, result

        await small_call()
        big.stdin.write(b"go\n")
        await big.stdin.drain()
        waits.clear()
        while not finished.done() or not waits:
            await small_call()
        line = (await finished).decode().split()
        await big.wait()
        return max(waits), float(line[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--on-loop", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--big", nargs=2, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.serve:
        serve(options.serve, options.on_loop)
        return
    if options.big:
        asyncio.run(big_client(*options.big))
        return
    label = "arguments checked on the loop" if options.on_loop else "toolkit as shipped"
    print(f"Python {sys.version.split()[0]}; MCP streamable HTTP; {label}")
    print("| session A's argument (~1 MB) | A's call | session B's worst wait |")
    print("|---|---|---|")
    with server(options.on_loop) as url:
        for case in BIG_CALLS:
            runs = [asyncio.run(worst_wait(url, case)) for _ in range(options.repeats)]
            wait = statistics.median(run[0] for run in runs)
            took = statistics.median(run[1] for run in runs)
            print(f"| {case} | {took * 1e3:,.0f} ms | {wait * 1e3:,.1f} ms |")


if __name__ == "__main__":
    main()
