"""Serving an MCP tool: `toolkit serve` against the MCP SDK's own `MCPServer`, same function.

Two measurements, on 127.0.0.1 only, each server started fresh on a free port:

- Load: SESSIONS sessions of the official MCP client (spread over CLIENTS
  client processes) call `add` back to back for DURATION seconds: calls/s,
  p50 and p99 latency, errors, and the server's RSS (workers included)
  before the load and after the clients have gone.
- Cold start: spawn to the first `tools/list` answer over stdio, raw
  JSON-RPC over the pipes, REPEATS times interleaved; the median.

    python benchmarks/serving.py [--duration 20] [--sessions 20] [--clients 2]
        [--rounds 3] [--repeats 9] [--only load|cold] [--markdown PATH] [--json PATH]

Everything is bounded: every wait has a deadline, and every server is
stopped (SIGTERM, then SIGKILL) at the end of its row.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import select
import signal
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TARGET = f"{os.path.join(HERE, 'serving_tools.py')}:tools"
SDK = os.path.join(HERE, "serving_sdk.py")
START_LIMIT = 60.0  # seconds for a server to listen, or to answer over stdio


# ------------------------------------------------------------------ servers


@dataclass
class Row:
    label: str
    command: list[str]
    calls_per_s: float = 0.0
    p50_ms: float = 0.0
    p99_ms: float = 0.0
    errors: int = 0
    calls: int = 0
    cpu_ms_per_call: float = 0.0
    rss_before_mb: float = 0.0
    rss_after_mb: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


LOAD_ROWS: list[tuple[str, list[str] | None]] = [
    ("toolkit serve (default)", []),
    ("MCP SDK MCPServer (default)", None),
    (
        "toolkit serve --stateless --json-response --workers 2",
        ["--stateless", "--json-response", "--workers", "2"],
    ),
    ("toolkit serve --stateless", ["--stateless"]),
    ("toolkit serve --stateless --workers 2", ["--stateless", "--workers", "2"]),
]


def command(flags: list[str] | None, port: int) -> list[str]:
    """`toolkit serve` with `flags`, or the SDK's server (None), on `port`."""
    python = sys.executable
    if flags is None:
        return [python, SDK, "http", str(port)]
    return [
        python,
        "-m",
        "toolkit",
        "serve",
        TARGET,
        "--http",
        f"127.0.0.1:{port}",
        *flags,
    ]


@contextlib.contextmanager
def running(command: list[str], port: int) -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen(
        command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + START_LIMIT
        while True:
            with contextlib.suppress(OSError):
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            if process.poll() is not None or time.monotonic() > deadline:
                msg = f"the server did not start: {command}"
                raise RuntimeError(msg)
            time.sleep(0.05)
        yield process
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            _kill_tree(process.pid)
            process.wait()


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            with contextlib.suppress(OSError), open(f"/proc/{entry}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    found.append(int(entry))
    return found


def _kill_tree(pid: int) -> None:
    for child in _children(pid):
        with contextlib.suppress(OSError):
            os.kill(child, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)


def settled_rss(pid: int) -> float:
    """`rss_mb` once it stops changing (workers still importing, sessions still ending): 2 s without a 1% move, at most 30 s."""
    deadline = time.monotonic() + 30
    last = rss_mb(pid)
    steady_since = time.monotonic()
    while time.monotonic() < deadline and time.monotonic() - steady_since < 2:
        time.sleep(0.25)
        now = rss_mb(pid)
        if abs(now - last) > last * 0.01:
            steady_since = time.monotonic()
        last = now
    return last


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) of `pid` and its children so far, in seconds."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0
    for each in [pid, *_children(pid)]:
        with contextlib.suppress(OSError), open(f"/proc/{each}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
    return total / ticks


def rss_mb(pid: int) -> float:
    """The resident memory of `pid` and its children (the workers), in MB."""
    total = 0
    for each in [pid, *_children(pid)]:
        with contextlib.suppress(OSError), open(f"/proc/{each}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
    return total / 1024


# ------------------------------------------------------------------ load


async def _client(url: str, sessions: int, duration: float) -> dict[str, Any]:
    """`sessions` sessions in this process; each calls `add` back to back once told to go."""
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    latencies: list[float] = []
    errors = 0
    ready = 0
    go = asyncio.Event()
    stop_at = 0.0

    async def one(index: int) -> None:
        nonlocal errors, ready
        async with (
            streamable_http_client(url) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            await session.list_tools()
            ready += 1
            await go.wait()
            while time.perf_counter() < stop_at:
                before = time.perf_counter()
                try:
                    result = await session.call_tool("add", {"a": index, "b": 1})
                    if result.is_error:
                        errors += 1
                except Exception:
                    errors += 1
                latencies.append(time.perf_counter() - before)

    async def control() -> None:
        nonlocal stop_at
        while ready < sessions:
            await asyncio.sleep(0.01)
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.readline)
        stop_at = time.perf_counter() + duration
        go.set()

    await asyncio.gather(control(), *(one(i) for i in range(sessions)))
    return {"latencies": latencies, "errors": errors}


def median_row(runs: list[Row]) -> Row:
    """One row from its runs: the run with the median calls/s, errors summed over all."""
    ordered = sorted(runs, key=lambda row: row.calls_per_s)
    middle = ordered[len(ordered) // 2]
    middle.errors = sum(row.errors for row in runs)
    middle.extra["calls_per_s_runs"] = [round(row.calls_per_s, 1) for row in runs]
    return middle


def measure_load(
    row: Row, port: int, sessions: int, clients: int, duration: float
) -> None:
    url = f"http://127.0.0.1:{port}/mcp"
    with running(row.command, port) as server:
        row.rss_before_mb = settled_rss(server.pid)
        shares = [
            sessions // clients + (i < sessions % clients) for i in range(clients)
        ]
        procs = [
            subprocess.Popen(
                [sys.executable, __file__, "--client", url, str(share), str(duration)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
            )
            for share in shares
        ]
        try:
            for proc in procs:
                _read_line(proc, START_LIMIT, "ready")
            cpu_before = cpu_seconds(server.pid)
            for proc in procs:
                assert proc.stdin is not None
                proc.stdin.write("go\n")
                proc.stdin.flush()
            time.sleep(duration)  # the clients stop calling then
            cpu_used = cpu_seconds(server.pid) - cpu_before
            outputs = [
                json.loads(_read_line(proc, duration + START_LIMIT, None))
                for proc in procs
            ]
        finally:
            for proc in procs:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=30)
                if proc.poll() is None:
                    proc.kill()
        row.rss_after_mb = settled_rss(server.pid)  # the sessions have ended
    latencies = sorted(x for out in outputs for x in out["latencies"])
    row.calls = len(latencies)
    row.errors = sum(out["errors"] for out in outputs)
    row.calls_per_s = row.calls / duration
    row.cpu_ms_per_call = cpu_used * 1000 / max(1, row.calls)
    row.p50_ms = statistics.median(latencies) * 1000
    row.p99_ms = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000


def _read_line(proc: subprocess.Popen[str], limit: float, expected: str | None) -> str:
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], limit)
    if not ready:
        msg = "a client did not answer in time"
        raise RuntimeError(msg)
    line = proc.stdout.readline().strip()
    if expected is not None and line != expected:
        msg = f"a client said {line!r}"
        raise RuntimeError(msg)
    return line


# ------------------------------------------------------------------ cold start

_REQUESTS = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "1"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def cold_start(command: list[str]) -> float:
    """Seconds from spawn to the `tools/list` answer over stdio.

    `initialize` is answered before the rest is sent, as clients do: the
    SDK may drop a request pipelined behind the handshake.
    """
    before = time.perf_counter()
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    deadline = before + START_LIMIT

    def send(*messages: dict[str, Any]) -> None:
        assert process.stdin is not None
        process.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
        process.stdin.flush()

    def answer(request_id: int) -> dict[str, Any]:
        assert process.stdout is not None
        while True:
            ready, _, _ = select.select(
                [process.stdout], [], [], max(0.0, deadline - time.perf_counter())
            )
            if not ready:
                msg = f"no answer to request {request_id}: {command}"
                raise RuntimeError(msg)
            message: dict[str, Any] = json.loads(process.stdout.readline())
            if message.get("id") == request_id:
                return message

    try:
        send(_REQUESTS[0])
        answer(1)
        send(*_REQUESTS[1:])
        listed = answer(2)
        elapsed = time.perf_counter() - before
        assert [t["name"] for t in listed["result"]["tools"]] == ["add"]
        return elapsed
    finally:
        process.stdin.close()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def measure_cold(repeats: int) -> dict[str, float]:
    python = sys.executable
    commands = {
        "toolkit serve (stdio)": [python, "-m", "toolkit", "serve", TARGET],
        "MCP SDK MCPServer (stdio)": [python, SDK, "stdio"],
    }
    samples: dict[str, list[float]] = {label: [] for label in commands}
    for each in commands.values():  # warm the file caches
        cold_start(each)
    for _ in range(repeats):
        for label, command in commands.items():
            samples[label].append(cold_start(command))
    return {label: statistics.median(values) for label, values in samples.items()}


# ------------------------------------------------------------------ report


def machine() -> str:
    from importlib.metadata import version

    return (
        f"{os.cpu_count()} cores (`nproc`), {platform.python_implementation()} {platform.python_version()}, "
        f"mcp {version('mcp')}, uvicorn {version('uvicorn')}, {time.strftime('%Y-%m-%d')}"
    )


def report(rows: list[Row], cold: dict[str, float], options: argparse.Namespace) -> str:
    lines = [f"Machine: {machine()}.", ""]
    if rows:
        lines += [
            f"Load: {options.sessions} sessions of the official MCP client ({options.clients} client "
            f"processes) calling `add` for {options.duration:g} s, each row {options.rounds} times "
            "interleaved on a fresh server; the run with the median calls/s (errors: all runs); "
            "CPU and RSS of the server and its workers.",
            "",
            "| server | calls/s | runs | p50 | p99 | errors | server CPU per call | RSS before | RSS after |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for row in rows:
            lines.append(
                f"| {row.label} | {row.calls_per_s:,.0f} | {', '.join(f'{x:.0f}' for x in row.extra['calls_per_s_runs'])} "
                f"| {row.p50_ms:.1f} ms | {row.p99_ms:.1f} ms "
                f"| {row.errors} | {row.cpu_ms_per_call:.2f} ms | {row.rss_before_mb:.0f} MB | {row.rss_after_mb:.0f} MB |"
            )
        by_label = {row.label: row for row in rows}
        ours = by_label.get("toolkit serve (default)")
        sdk = by_label.get("MCP SDK MCPServer (default)")
        scaled = by_label.get("toolkit serve --stateless --json-response --workers 2")
        one = by_label.get("toolkit serve --stateless")
        two = by_label.get("toolkit serve --stateless --workers 2")
        lines.append("")
        if ours and sdk:
            lines.append(
                f"- toolkit / SDK calls/s: **{ours.calls_per_s / sdk.calls_per_s:.2f}×** (goal ≥ 1.2×); "
                f"p99 {ours.p99_ms:.0f} vs {sdk.p99_ms:.0f} ms (goal: no worse)"
            )
        if ours and scaled:
            lines.append(
                f"- `--stateless --json-response --workers 2` / toolkit default: "
                f"**{scaled.calls_per_s / ours.calls_per_s:.2f}×** (goal ≥ 2×)"
            )
        if one and two:
            lines.append(
                f"- `--stateless`, 2 workers / 1: **{two.calls_per_s / one.calls_per_s:.2f}×**"
            )
    if cold:
        ours_cold = cold["toolkit serve (stdio)"]
        sdk_cold = cold["MCP SDK MCPServer (stdio)"]
        lines += [
            "",
            f"Cold start, spawn to the first `tools/list` answer over stdio (median of {options.repeats}):",
            "",
            "| server | cold start |",
            "|---|---|",
            *(f"| {label} | {value * 1000:.0f} ms |" for label, value in cold.items()),
            "",
            f"- toolkit / SDK: **{ours_cold / sdk_cold:.3f}×** (goal ≤ 1.05×)",
        ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--clients", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument(
        "--rounds", type=int, default=3, help="load runs of each row, interleaved"
    )
    parser.add_argument("--only", choices=["load", "cold"])
    parser.add_argument(
        "--rows", help="run only the load rows whose label contains this"
    )
    parser.add_argument("--markdown")
    parser.add_argument("--json")
    options = parser.parse_args()
    rows: list[Row] = []
    if options.only in (None, "load"):
        chosen = [
            (label, flags)
            for label, flags in LOAD_ROWS
            if not options.rows or options.rows in label
        ]
        runs: dict[str, list[Row]] = {label: [] for label, _ in chosen}
        for round_number in range(
            options.rounds
        ):  # interleaved: drift hits every row alike
            for label, flags in chosen:
                port = _free_port()
                row = Row(label, command(flags, port))
                print(
                    f"load {round_number + 1}/{options.rounds}: {label}",
                    file=sys.stderr,
                    flush=True,
                )
                measure_load(
                    row, port, options.sessions, options.clients, options.duration
                )
                runs[label].append(row)
        rows = [median_row(each) for each in runs.values()]
    cold: dict[str, float] = {}
    if options.only in (None, "cold"):
        print("cold start", file=sys.stderr, flush=True)
        cold = measure_cold(options.repeats)
    text = report(rows, cold, options)
    print(text)
    if options.markdown:
        with open(options.markdown, "w", encoding="utf-8") as out:
            out.write(text)
    if options.json:
        with open(options.json, "w", encoding="utf-8") as out:
            json.dump(
                {"machine": machine(), "load": [asdict(r) for r in rows], "cold": cold},
                out,
                indent=2,
            )
            out.write("\n")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--client"]:
        url, sessions, duration = sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
        print(json.dumps(asyncio.run(_client(url, sessions, duration))), flush=True)
    else:
        main()
