"""Serve tests/mcp_client_tools.py the first time only; every later start fails.

    python tests/mcp_once.py COUNTER_FILE

Each start adds a line to COUNTER_FILE, so that a test counts how often the
client started the server: a client that reconnects without bound would
start it again and again.
"""

from __future__ import annotations

import os
import pathlib
import sys

counter = pathlib.Path(sys.argv[1])
with counter.open("a", encoding="utf-8") as lines:
    lines.write("start\n")
if len(counter.read_text(encoding="utf-8").splitlines()) > 1:
    print("this server starts only once", file=sys.stderr)
    raise SystemExit(1)
tools = str(pathlib.Path(__file__).with_name("mcp_client_tools.py"))
os.execv(sys.executable, [sys.executable, "-m", "toolkit", "serve", tools])
