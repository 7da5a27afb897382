from __future__ import annotations

from typing import TYPE_CHECKING, Any

import jsonschema
import pytest

if TYPE_CHECKING:
    from toolkit import ToolResult, ToolSet

_META = jsonschema.Draft202012Validator(jsonschema.Draft202012Validator.META_SCHEMA)


def chat_message(*calls: tuple[str, str, str]) -> dict[str, Any]:
    """An OpenAI Chat assistant message that calls tools: each call as (id, tool name, arguments as JSON text)."""
    return {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": id,
                "type": "function",
                "function": {"name": name, "arguments": args},
            }
            for id, name, args in calls
        ],
    }


def assert_valid_schema(schema: Any) -> None:
    """Fail unless `schema` is valid against the Draft 2020-12 meta-schema."""
    errors = [error.message for error in _META.iter_errors(schema)]
    assert errors == [], f"not a valid Draft 2020-12 schema: {errors}"


@pytest.fixture(name="valid_schema")
def fixture_valid_schema() -> Any:
    return assert_valid_schema


@pytest.fixture
def quick_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    """`mcp.connect` reconnects without the waits meant for real servers (a round still has 3 tries)."""
    from toolkit.mcp import _client

    monkeypatch.setattr(
        _client, "BACKOFF", _client.Backoff(first_wait=0.01, round_wait=0.05)
    )


async def call(tools: ToolSet, name: str, args: Any = None) -> ToolResult:
    """The result of one call of the tool `name` of `tools`."""
    return await tools.aexecute("agent", "call-1", name, args or {})
