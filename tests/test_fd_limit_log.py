"""At its file-descriptor limit, a server logs asyncio's accept failure once an interval, not once a try.

A subprocess lowers RLIMIT_NOFILE, configures logging as `toolkit serve`
does, and serves with asyncio on 127.0.0.1 for a bounded time, keeping each
connection open; the test opens more connections than the limit allows and
counts the lines on the server's stderr.
"""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest

SERVER = r"""
import asyncio, resource, sys
resource.setrlimit(resource.RLIMIT_NOFILE, (48, 48))
from toolkit.mcp._run import configure_logging
configure_logging("info")

async def main():
    async def hold(reader, writer):
        await reader.read()  # keeps the connection (and its descriptor) until the client goes
    server = await asyncio.start_server(hold, "127.0.0.1", 0, backlog=200)
    print(server.sockets[0].getsockname()[1], flush=True)
    await asyncio.sleep(4)

asyncio.run(main())
"""


@pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_NOFILE is POSIX")
def test_the_accept_flood_is_one_line_an_interval() -> None:
    process = subprocess.Popen(
        [sys.executable, "-c", SERVER],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline())
        clients = []
        for _ in range(120):  # far past the 48 descriptors
            clients.append(socket.create_connection(("127.0.0.1", port), timeout=5))
        _, errors = process.communicate(timeout=30)
    finally:
        process.kill()
        for client in locals().get("clients", []):
            client.close()
    lines = [
        line
        for line in errors.splitlines()
        if "socket.accept() out of system resource" in line
    ]
    assert process.returncode == 0, errors[-2000:]
    assert 1 <= len(lines) <= 2, len(lines)
