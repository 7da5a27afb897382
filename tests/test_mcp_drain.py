"""SIGTERM while the official `mcp` client's calls are in flight, against `toolkit serve` in a subprocess.

The official client checks a call's result against the tool's output
schema, and lists the tools for it when it has not yet: a request it sends
after the call's answer, on a connection of its own. The draining server
must answer those too, or the call that it let finish still fails in the
client (ConnectError).
"""

from __future__ import annotations

import asyncio
import pathlib
import signal
import tempfile
from typing import Any

from tests.test_mcp_http import _finish, _text, run, serving, session


def test_sigterm_answers_the_official_clients_calls_in_flight_and_what_they_need() -> (
    None
):
    with (
        serving() as (base, process),
        tempfile.TemporaryDirectory() as folder,
    ):
        markers = [pathlib.Path(folder) / f"started{n}" for n in range(3)]

        async def one(marker: pathlib.Path, seconds: float) -> Any:
            # A session of its own that never listed the tools: the client
            # lists them once the call's result comes.
            async with session(base + "/mcp", terminate=False) as s:
                return await s.call_tool(
                    "slow", {"seconds": seconds, "marker": str(marker)}
                )

        async def scenario() -> list[Any]:
            calls = [
                asyncio.ensure_future(one(marker, 1.0 + n * 0.5))
                for n, marker in enumerate(markers)
            ]
            while not all(marker.exists() for marker in markers):
                for call in calls:
                    assert not call.done(), call.result()
                await asyncio.sleep(0.02)
            process.send_signal(signal.SIGTERM)
            return await asyncio.gather(*calls)

        results = run(scenario())
        assert [(r.is_error, _text(r)) for r in results] == [
            (False, "slept 1.0"),
            (False, "slept 1.5"),
            (False, "slept 2.0"),
        ]
        code, err = _finish(process)
        assert code == 0
        assert "Traceback" not in err, err
