"""A 3.9 MB MCP `tools/call` never holds another client: its arguments are checked off the event loop.

The served app runs under uvicorn in this process; the check of the big
call's `Decimal` pattern waits until another client's small call over MCP
has been answered. Were the check run on the loop, that small call could
never be served and the big one would give up (a refusal, not a result).
The verdict is that order of events, counted, never a time.
"""

from __future__ import annotations

import asyncio
import json
import threading
from decimal import Decimal
from typing import Any

import httpx2
import pytest

from tests.test_mcp_http import run, served
from toolkit import ToolSet, mcp, tool
from toolkit.core import _pattern

BIG_TEXT = (
    "1" * 3_900_000 + "x"
)  # a Decimal no pattern allows, under the 4 MB body limit
HEADERS = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": "2025-06-18",
}


@tool
def price(amount: Decimal) -> str:
    """Price an amount.

    Args:
        amount: The amount.
    """
    return str(amount)


@tool
def ping(word: str) -> str:
    """Echo a word.

    Args:
        word: The word.
    """
    return word


def body(name: str, arguments: dict[str, Any], ident: int) -> str:
    call = {"name": name, "arguments": arguments}
    return json.dumps(
        {"jsonrpc": "2.0", "id": ident, "method": "tools/call", "params": call}
    )


def test_small_calls_are_answered_while_a_big_one_is_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    searching, small_answered = threading.Event(), threading.Event()
    checked_after_small: list[bool] = []
    search = _pattern._Search.search

    def held_search(self: Any, text: str) -> bool:
        if len(text) >= len(BIG_TEXT):  # only the big call's check waits
            searching.set()
            checked_after_small.append(small_answered.wait(timeout=30))
        return search(self, text)

    monkeypatch.setattr(_pattern._Search, "search", held_search)
    app = mcp.asgi_app(ToolSet([price, ping]), stateless=True, json_response=True)

    async def scenario() -> tuple[str, list[str]]:
        async with served(app) as base, httpx2.AsyncClient(timeout=60) as client:
            url = base + "/mcp"
            big = asyncio.ensure_future(
                client.post(
                    url, content=body("price", {"amount": BIG_TEXT}, 1), headers=HEADERS
                )
            )
            while not searching.is_set() and not big.done():
                await asyncio.sleep(0.01)  # until the big call's check has started
            small = []
            for n in range(5):
                reply = await client.post(
                    url,
                    content=body("ping", {"word": f"w{n}"}, 10 + n),
                    headers=HEADERS,
                )
                small.append(reply.json()["result"]["content"][0]["text"])
                small_answered.set()
            return (await big).json()["result"]["content"][0]["text"], small

    big_text, small = run(scenario())
    assert small == [f"w{n}" for n in range(5)]
    assert checked_after_small[:1] == [True]  # the big check waited for a small answer
    assert "does not match the pattern" in big_text
