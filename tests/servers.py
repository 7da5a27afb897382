"""Servers that tests start as processes: a free loopback port, and waiting until one listens."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import time
from typing import Any


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(
    process: subprocess.Popen[Any], port: int, *, limit: float = 30, poll: float = 0.05
) -> None:
    """Return once 127.0.0.1:`port` accepts a connection, or `limit` seconds have passed.

    Fails at once if `process` exits first, with its stderr when that is a pipe.
    """
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        with (
            contextlib.suppress(OSError),
            socket.create_connection(("127.0.0.1", port), timeout=0.2),
        ):
            return
        assert process.poll() is None, (
            process.stderr.read() if process.stderr else "the server did not start"
        )
        time.sleep(poll)
