from __future__ import annotations

from typing import Any

import jsonschema
import pytest

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
