"""Approval ids, tokens and arguments that no input can break.

A host hands ids back from anywhere (a browser, a URL), and the model sends
any text: a bad id is refused and never kept, any argument is digested, and
no later call of the set raises because of either.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit import (
    Tool,
    ToolCall,
    ToolDefinitionError,
    ToolResult,
    ToolSet,
    tool,
)
from toolkit.policies import _policies

KEY = b"k" * 32


def deleter(calls: list[str]) -> Tool[Any, Any]:
    @tool(name="delete_file", requires_approval=True)
    def delete_file(path: str) -> str:
        """Delete a file.

        Args:
            path: The file.
        """
        calls.append(path)
        return f"Deleted {path}."

    return delete_file


def run(tools: ToolSet, path: str = "a.txt", **options: Any) -> ToolResult:
    (result,) = asyncio.run(
        tools.run("agent-1", [ToolCall("c1", "delete_file", {"path": path})], **options)
    )
    return result


BAD_IDS = [
    "n.\u00b2.m",  # '²' passes str.isdigit, and int() refuses it
    "n.\u0663.m",  # an Arabic-Indic digit: int() takes it, the token's form does not
    "a.1.b",
    "..",
    "a" * 16 + "." + "9" * 40 + "." + "0" * 64,  # an expiry far too long
    "a" * 16 + ".1." + "G" * 64,
    "\ud800.1.x",
    "x" * 10_000,
    "",
]


class TestBadIds:
    @pytest.mark.parametrize("key", [KEY, None])
    @pytest.mark.parametrize("ident", BAD_IDS)
    def test_a_bad_id_is_refused_and_the_set_still_works(
        self, key: bytes | None, ident: str
    ) -> None:
        """approve and deny answer False; the next call waits for approval, the one after runs once approved."""
        calls: list[str] = []
        tools = ToolSet([deleter(calls)], approval_key=key)
        assert tools.approve(ident) is False
        assert tools.deny(ident, "no") is False
        waiting = run(tools, approvals={ident: True})
        assert waiting.status == "needs_approval"
        assert waiting.approval is not None
        assert tools.approve(waiting.approval.id) is True
        assert run(tools).text == "Deleted a.txt."
        assert calls == ["a.txt"]
        assert (
            tools.execute("agent-1", "c2", "delete_file", {"path": "b"}).status
            == "needs_approval"
        )

    @pytest.mark.parametrize("ident", [None, 1, ["a"], {"a": 1}, b"a.1.b"])
    def test_an_id_of_another_type_is_refused(self, ident: Any) -> None:
        tools = ToolSet([deleter([])], approval_key=KEY)
        assert tools.approve(ident) is False
        assert run(tools, approvals={"x": True}).status == "needs_approval"

    @settings(max_examples=150, deadline=None)
    @given(ident=st.text(max_size=120))
    def test_no_text_breaks_a_keyed_set(self, ident: str) -> None:
        """Whatever text is handed back as an id, the set's calls give results."""
        tools = ToolSet([deleter([])], approval_key=KEY)
        tools.approve(ident)
        result = run(tools)
        assert result.status == "needs_approval"


class TestArguments:
    @pytest.mark.parametrize("path", ["\ud800", "a\udfffb", "\udc80\ud800", "\x00"])
    def test_a_lone_surrogate_is_digested(self, path: str) -> None:
        """The call waits for approval, and runs once approved, with those arguments only."""
        calls: list[str] = []
        tools = ToolSet([deleter(calls)])
        waiting = run(tools, path)
        assert waiting.status == "needs_approval"
        assert waiting.approval is not None
        tools.approve(waiting.approval.id)
        assert run(tools, path + "x").status == "needs_approval"
        assert run(tools, path).status == "ok"
        assert calls == [path]

    @settings(max_examples=100, deadline=None)
    @given(
        value=st.recursive(
            st.none()
            | st.booleans()
            | st.floats()
            | st.text(st.characters(codec=None)),
            lambda inner: (
                st.lists(inner, max_size=3)
                | st.dictionaries(st.text(max_size=3), inner, max_size=3)
            ),
            max_leaves=8,
        )
    )
    def test_any_json_value_is_digested(self, value: Any) -> None:
        digest = _policies.digest_of({"v": value})
        assert isinstance(digest, str)

    def test_a_circular_value_is_digested_and_matches_nothing(self) -> None:
        loop: list[Any] = []
        loop.append(loop)
        assert _policies.digest_of({"v": loop}) != _policies.digest_of({"v": loop})


class TestExpiry:
    def test_an_expired_token_is_refused_by_the_process_that_issued_it(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        calls: list[str] = []
        tools = ToolSet([deleter(calls)], approval_key=KEY, approval_ttl=60)
        waiting = run(tools)
        assert waiting.approval is not None
        ident = waiting.approval.id
        now = _policies._wall()
        monkeypatch.setattr(_policies, "_wall", lambda: now + 61)
        assert tools.approve(ident) is False
        assert run(tools).status == "needs_approval"
        assert calls == []

    def test_the_default_ttl_is_an_hour_in_the_issuing_process(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        calls: list[str] = []
        tools = ToolSet([deleter(calls)], approval_key=KEY)
        waiting = run(tools)
        assert waiting.approval is not None
        tools.approve(waiting.approval.id)
        now = _policies._wall()
        monkeypatch.setattr(_policies, "_wall", lambda: now + 3601)
        assert run(tools).status == "needs_approval"
        assert calls == []

    def test_a_token_that_expires_after_approval_is_refused(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        calls: list[str] = []
        tools = ToolSet([deleter(calls)], approval_key=KEY, approval_ttl=60)
        waiting = run(tools)
        assert waiting.approval is not None
        assert tools.approve(waiting.approval.id) is True
        now = _policies._wall()
        monkeypatch.setattr(_policies, "_wall", lambda: now + 61)
        assert run(tools).status == "needs_approval"
        assert calls == []

    def test_the_ttl_reaches_another_process_through_the_token(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """The expiry is in the signed token: a set with the default ttl refuses it too."""
        issuer = ToolSet([deleter([])], approval_key=KEY, approval_ttl=60)
        waiting = run(issuer)
        assert waiting.approval is not None
        now = _policies._wall()
        calls: list[str] = []
        other = ToolSet([deleter(calls)], approval_key=KEY)
        monkeypatch.setattr(_policies, "_wall", lambda: now + 30)
        fresh = ToolSet([deleter(calls)], approval_key=KEY)
        assert run(fresh, approvals={waiting.approval.id: True}).status == "ok"
        monkeypatch.setattr(_policies, "_wall", lambda: now + 61)
        assert (
            run(other, approvals={waiting.approval.id: True}).status == "needs_approval"
        )
        assert calls == ["a.txt"]

    @pytest.mark.parametrize("ttl", [0, -1, True, "60", float("nan")])
    def test_a_bad_ttl_is_refused(self, ttl: Any) -> None:
        with pytest.raises(ToolDefinitionError, match="approval_ttl"):
            ToolSet(approval_key=KEY, approval_ttl=ttl)
