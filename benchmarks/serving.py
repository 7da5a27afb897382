"""Serving an MCP tool: `toolkit serve` against the MCP SDK's own `MCPServer`, same function.

Two measurements, on 127.0.0.1 only, each server started fresh on a free port:

- Load: SESSIONS sessions (spread over CLIENTS generator processes) call
  `add` back to back for DURATION seconds: calls/s, p50 and p99 latency,
  errors, the server's CPU per call and RSS (workers included) before the
  load and after the sessions have gone, and the generator's CPU per call.
  The default generator (`--generator raw`) sends the requests the official
  MCP client sends, as bytes over keep-alive connections, and checks every
  answer; each server is first checked with a session of the official
  client. The official client costs more CPU per call than the server
  it loads, and on a small machine the two compete for the cores; the raw
  sessions cost a tenth of it. With `--generator client` the sessions are
  the official client's.
- The rows marked "2026-07-28 client" load the same servers with a client of
  MCP 2026-07-28: no session; each request carries the protocol version,
  client info and capabilities in `_meta`, and the `Mcp-Method` and
  `Mcp-Name` headers (the official client's `Client`, mode "auto").
- Cold start: spawn to the first `tools/list` answer over stdio, raw
  JSON-RPC over the pipes, REPEATS times interleaved; the median. Both run
  from byte-compiled modules, as installed packages do.

    python benchmarks/serving.py [--duration 20] [--sessions 20] [--clients N]
        [--generator raw|client] [--rounds 3] [--repeats 9] [--only load|cold]
        [--rows TEXT] [--markdown PATH] [--json PATH]

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
    client_cpu_ms_per_call: float = 0.0
    rss_before_mb: float = 0.0
    rss_after_mb: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


PROTOCOL_VERSION = "2025-06-18"
MODERN = "2026-07-28"

LOAD_ROWS: list[tuple[str, list[str] | None]] = [
    ("toolkit serve (default)", []),
    ("MCP SDK MCPServer (default)", None),
    (f"toolkit serve (default), {MODERN} client", []),
    (f"MCP SDK MCPServer (default), {MODERN} client", None),
    ("toolkit serve --no-resume", ["--no-resume"]),
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

TOOLKIT = "toolkit serve (default)"
SDK_ROW = "MCP SDK MCPServer (default)"


def version_of(label: str) -> str:
    """The protocol version a row's clients speak."""
    return MODERN if label.endswith(f"{MODERN} client") else PROTOCOL_VERSION


@contextlib.asynccontextmanager
async def official(url: str, version: str) -> Any:
    """A connected session of the official MCP client, of `version`; yields something with `call_tool`."""
    from mcp import Client, ClientSession
    from mcp.client.streamable_http import streamable_http_client

    if version == MODERN:
        async with Client(url) as client:
            assert client.protocol_version == MODERN, client.protocol_version
            yield client
        return
    async with (
        streamable_http_client(url) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def added(result: dict[str, Any], total: int) -> bool:
    """Whether a `CallToolResult` is `add`'s right sum (2026-07-28 clients may get it unwrapped)."""
    return (
        not result.get("isError")
        and result.get("structuredContent") in ({"result": total}, total)
        and result.get("content") == [{"type": "text", "text": str(total)}]
    )


async def _client(
    url: str, sessions: int, duration: float, version: str
) -> dict[str, Any]:
    """`sessions` sessions of the official MCP client; each calls `add` back to back once told to go."""

    latencies: list[float] = []
    errors = 0
    ready = 0
    go = asyncio.Event()
    stop_at = 0.0
    cpu_before = 0.0

    async def one(index: int) -> None:
        nonlocal errors, ready
        async with official(url, version) as session:
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
        nonlocal stop_at, cpu_before
        while ready < sessions:
            await asyncio.sleep(0.01)
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.readline)
        cpu_before = _own_cpu()
        stop_at = time.perf_counter() + duration
        go.set()
        await asyncio.sleep(duration)
        cpu_before -= _own_cpu()  # the calls' CPU, before the sessions end

    await asyncio.gather(control(), *(one(i) for i in range(sessions)))
    return {"latencies": latencies, "errors": errors, "cpu_s": -cpu_before}


def _own_cpu() -> float:
    """CPU seconds this process has used (the load generator's own cost)."""
    usage = os.times()
    return usage.user + usage.system


async def precheck(url: str, version: str) -> None:
    """One session of the official MCP client: connect, list, call `add`, check the sum.

    Run against each server before the raw load, so that what the load
    measures is a server the official client works with.
    """
    async with official(url, version) as session:
        listed = await session.list_tools()
        assert [t.name for t in listed.tools] == ["add"], listed
        for a in (1, 20):
            result = await session.call_tool("add", {"a": a, "b": 1})
            dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
            assert added(dumped, a + 1), result


class RawSession:
    """One MCP session over one keep-alive HTTP/1.1 connection, as bytes.

    The requests are those the official client sends (the same headers, the
    session id, the protocol version; for 2026-07-28, no session and the
    `_meta` and headers each request carries); an answer is read whole
    (JSON, or the event stream up to its end) and checked. It costs the load
    generator a fraction of what the official client does, so that the
    server, not the generator, is what the load measures.
    """

    def __init__(self, url: str, version: str = PROTOCOL_VERSION) -> None:
        rest = url.split("://", 1)[1]
        hostport, _, path = rest.partition("/")
        host, _, port = hostport.rpartition(":")
        self.host, self.port, self.path = host, int(port), "/" + path
        self.version = version
        self.extra: list[bytes] = []  # the headers of the request being sent
        self.session: str | None = None
        self.next_id = 0
        self.reader: asyncio.StreamReader | None = None
        self.writer: asyncio.StreamWriter | None = None

    async def open(self) -> None:
        self.reader, self.writer = await asyncio.open_connection(self.host, self.port)
        if self.version == MODERN:  # no handshake: every request says who it is
            listed = await self.request("tools/list", {})
            assert [t["name"] for t in listed["result"]["tools"]] == ["add"], listed
            return
        answer = await self.request(
            "initialize",
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        )
        assert answer["result"]["protocolVersion"] == PROTOCOL_VERSION, answer
        await self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        listed = await self.request("tools/list", {})
        assert [t["name"] for t in listed["result"]["tools"]] == ["add"], listed

    async def close(self) -> None:
        if self.writer is not None:
            if self.session is not None:
                with contextlib.suppress(OSError, asyncio.IncompleteReadError):
                    await self._exchange(b"DELETE", b"")
            self.writer.close()
            with contextlib.suppress(OSError):
                await self.writer.wait_closed()

    async def call_add(self, a: int, b: int) -> bool:
        """Whether `add(a, b)` came back as the right sum."""
        answer = await self.request(
            "tools/call", {"name": "add", "arguments": {"a": a, "b": b}}
        )
        return added(answer.get("result") or {}, a + b)

    async def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        self.extra = []
        if self.version == MODERN:
            params = {**params, "_meta": MODERN_META}
            self.extra.append(f"mcp-method: {method}".encode())
            if "name" in params:
                self.extra.append(f"mcp-name: {params['name']}".encode())
        message["params"] = params
        for answer in await self.post(message):
            if answer.get("id") == self.next_id:
                return answer
        msg = f"no answer to {method}"
        raise RuntimeError(msg)

    async def post(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        kind, body = await self._exchange(b"POST", json.dumps(message).encode())
        if not body:
            return []
        if kind.startswith(b"text/event-stream"):
            return [
                json.loads(line[5:])
                for line in body.split(b"\n")
                if line.startswith(b"data:") and line[5:].strip()
            ]
        return [json.loads(body)]

    async def _exchange(self, method: bytes, body: bytes) -> tuple[bytes, bytes]:
        assert self.reader is not None
        assert self.writer is not None
        head = [
            method + b" " + self.path.encode() + b" HTTP/1.1",
            f"host: {self.host}:{self.port}".encode(),
            b"accept: application/json, text/event-stream",
            b"content-type: application/json",
            f"mcp-protocol-version: {self.version}".encode(),
            f"content-length: {len(body)}".encode(),
            *self.extra,
        ]
        if self.session is not None:
            head.append(b"mcp-session-id: " + self.session.encode())
        self.writer.write(b"\r\n".join(head) + b"\r\n\r\n" + body)
        status, headers = await self._head()
        if status >= 300:
            msg = f"HTTP {status}"
            raise RuntimeError(msg)
        if b"mcp-session-id" in headers:
            self.session = headers[b"mcp-session-id"].decode()
        return headers.get(b"content-type", b""), await self._body(headers)

    async def _head(self) -> tuple[int, dict[bytes, bytes]]:
        assert self.reader is not None
        raw = await self.reader.readuntil(b"\r\n\r\n")
        lines = raw[:-4].split(b"\r\n")
        headers = {}
        for line in lines[1:]:
            key, _, value = line.partition(b":")
            headers[key.strip().lower()] = value.strip()
        return int(lines[0].split()[1]), headers

    async def _body(self, headers: dict[bytes, bytes]) -> bytes:
        assert self.reader is not None
        if b"content-length" in headers:
            return await self.reader.readexactly(int(headers[b"content-length"]))
        if headers.get(b"transfer-encoding", b"").lower() != b"chunked":
            return b""
        parts = []
        while True:
            size = int((await self.reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                await self.reader.readuntil(b"\r\n")
                return b"".join(parts)
            parts.append(await self.reader.readexactly(size))
            await self.reader.readexactly(2)


MODERN_META: dict[str, Any] = {
    "io.modelcontextprotocol/protocolVersion": MODERN,
    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


async def _raw_client(
    url: str, sessions: int, duration: float, version: str
) -> dict[str, Any]:
    """`sessions` `RawSession`s in this process; each calls `add` back to back once told to go."""
    latencies: list[float] = []
    errors = 0
    go = asyncio.Event()
    stop_at = 0.0
    opened = [RawSession(url, version) for _ in range(sessions)]
    await asyncio.gather(*(each.open() for each in opened))
    print("ready", flush=True)
    await asyncio.to_thread(sys.stdin.readline)
    cpu_before = _own_cpu()

    async def one(index: int, session: RawSession) -> None:
        nonlocal errors
        await go.wait()
        while time.perf_counter() < stop_at:
            before = time.perf_counter()
            try:
                if not await session.call_add(index, 1):
                    errors += 1
            except Exception:
                errors += 1
            latencies.append(time.perf_counter() - before)

    stop_at = time.perf_counter() + duration
    go.set()
    await asyncio.gather(*(one(i, s) for i, s in enumerate(opened)))
    cpu_used = _own_cpu() - cpu_before
    await asyncio.gather(*(each.close() for each in opened))
    return {"latencies": latencies, "errors": errors, "cpu_s": cpu_used}


def median_row(runs: list[Row]) -> Row:
    """One row from its runs: the run with the median calls/s, errors summed over all."""
    ordered = sorted(runs, key=lambda row: row.calls_per_s)
    middle = ordered[len(ordered) // 2]
    middle.errors = sum(row.errors for row in runs)
    middle.extra["calls_per_s_runs"] = [round(row.calls_per_s, 1) for row in runs]
    return middle


def measure_load(
    row: Row, port: int, sessions: int, clients: int, duration: float, generator: str
) -> None:
    url = f"http://127.0.0.1:{port}/mcp"
    version = version_of(row.label)
    with running(row.command, port) as server:
        if generator == "raw":
            asyncio.run(asyncio.wait_for(precheck(url, version), START_LIMIT))
        row.rss_before_mb = settled_rss(server.pid)
        shares = [
            sessions // clients + (i < sessions % clients) for i in range(clients)
        ]
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    __file__,
                    "--client",
                    generator,
                    url,
                    str(share),
                    str(duration),
                    version,
                ],
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
    client_cpu = sum(out["cpu_s"] for out in outputs)
    row.client_cpu_ms_per_call = client_cpu * 1000 / max(1, row.calls)
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


def compile_sources() -> None:
    """Byte-compile toolkit and the served file, as installing a package does.

    The SDK is installed, its modules compiled; toolkit runs from this
    checkout, where nothing may have written `__pycache__` yet (with
    PYTHONDONTWRITEBYTECODE set, nothing ever does): it would compile its
    sources at every start, which no installed toolkit does.
    """
    import compileall

    compileall.compile_dir(os.path.join(ROOT, "toolkit"), quiet=1)
    compileall.compile_file(os.path.join(HERE, "serving_tools.py"), quiet=1)


def measure_cold(repeats: int) -> dict[str, float]:
    python = sys.executable
    commands = {
        "toolkit serve (stdio)": [python, "-m", "toolkit", "serve", TARGET],
        "MCP SDK MCPServer (stdio)": [python, SDK, "stdio"],
    }
    samples: dict[str, list[float]] = {label: [] for label in commands}
    compile_sources()
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
        who = (
            "raw sessions (the official client's requests as bytes, over keep-alive "
            "connections; each server first checked with one session of the official client)"
            if options.generator == "raw"
            else "sessions of the official MCP client"
        )
        lines += [
            f"Load: {options.sessions} {who} in {_clients(options)} generator "
            f"process(es), calling `add` for {options.duration:g} s, each row {options.rounds} times "
            "interleaved on a fresh server; the run with the median calls/s (errors: all runs); "
            "CPU and RSS of the server and its workers; the generator's CPU per call.",
            "",
            "| server | calls/s | runs | p50 | p99 | errors | server CPU per call | generator CPU per call | RSS before | RSS after |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for row in rows:
            lines.append(
                f"| {row.label} | {row.calls_per_s:,.0f} | {', '.join(f'{x:.0f}' for x in row.extra['calls_per_s_runs'])} "
                f"| {row.p50_ms:.1f} ms | {row.p99_ms:.1f} ms "
                f"| {row.errors} | {row.cpu_ms_per_call:.2f} ms | {row.client_cpu_ms_per_call:.2f} ms "
                f"| {row.rss_before_mb:.0f} MB | {row.rss_after_mb:.0f} MB |"
            )
        by_label = {row.label: row for row in rows}
        ours = by_label.get(TOOLKIT)
        sdk = by_label.get(SDK_ROW)
        scaled = by_label.get("toolkit serve --stateless --json-response --workers 2")
        one = by_label.get("toolkit serve --stateless")
        two = by_label.get("toolkit serve --stateless --workers 2")
        lines.append("")
        if ours and sdk:
            lines.append(
                f"- toolkit / SDK calls/s: **{ours.calls_per_s / sdk.calls_per_s:.2f}×** (goal ≥ 1.0×); "
                f"p99 {ours.p99_ms:.0f} vs {sdk.p99_ms:.0f} ms (goal: no worse)"
            )
        modern = [
            by_label.get(f"{label}, {MODERN} client") for label in (TOOLKIT, SDK_ROW)
        ]
        if modern[0] and modern[1]:
            lines.append(
                f"- {MODERN} clients, toolkit / SDK calls/s: "
                f"**{modern[0].calls_per_s / modern[1].calls_per_s:.2f}×**; "
                f"p99 {modern[0].p99_ms:.0f} vs {modern[1].p99_ms:.0f} ms"
            )
        plain = by_label.get("toolkit serve --no-resume")
        if plain and sdk:
            lines.append(
                f"- toolkit without resumable streams / SDK calls/s: "
                f"**{plain.calls_per_s / sdk.calls_per_s:.2f}×** (the SDK's default keeps no events either)"
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


def _clients(options: argparse.Namespace) -> int:
    return int(options.clients or (1 if options.generator == "raw" else 2))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument(
        "--clients",
        type=int,
        help="load generator processes (default: 1 raw, 2 of the official client)",
    )
    parser.add_argument(
        "--generator",
        choices=["raw", "client"],
        default="raw",
        help="raw: the official client's requests as bytes over keep-alive "
        "connections, after a check with the official client; client: "
        "sessions of the official client",
    )
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
                    row,
                    port,
                    options.sessions,
                    _clients(options),
                    options.duration,
                    options.generator,
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
        kind, url = sys.argv[2], sys.argv[3]
        sessions, duration, version = int(sys.argv[4]), float(sys.argv[5]), sys.argv[6]
        load = _raw_client if kind == "raw" else _client
        print(
            json.dumps(asyncio.run(load(url, sessions, duration, version))), flush=True
        )
    else:
        main()
