"""Schemas and exports are shared, so they cannot be changed; copies can."""

from __future__ import annotations

import copy
import json
import pickle
import subprocess
import sys
from collections.abc import Callable
from typing import Any

import pytest

from tests.sample_tools import tools
from toolkit import Tool, ToolSet, json_schema
from toolkit.core._frozen import FrozenDict, FrozenList

Mutation = Callable[[Any], object]
MUTATIONS: list[Mutation] = [
    lambda value: value.__setitem__("x", 1),
    lambda value: value.update(x=1),
    lambda value: value.pop("type"),
    lambda value: value.setdefault("x", 1),
    lambda value: value.clear(),
    lambda value: value.popitem(),
    lambda value: value.__delitem__("type"),
]
LIST_MUTATIONS: list[Mutation] = [
    lambda value: value.append(1),
    lambda value: value.extend([1]),
    lambda value: value.insert(0, 1),
    lambda value: value.__setitem__(0, 1),
    lambda value: value.pop(),
    lambda value: value.clear(),
    lambda value: value.sort(),
    lambda value: value.reverse(),
    lambda value: value.remove(value[0]),
]


def _containers(value: Any) -> list[Any]:
    found: list[Any] = []
    if isinstance(value, dict):
        found.append(value)
        for item in value.values():
            found += _containers(item)
    elif isinstance(value, list):
        found.append(value)
        for item in value:
            found += _containers(item)
    return found


# `strict` applies to OpenAI and Anthropic only.
EXPORTS = [
    *(
        (fmt, False)
        for fmt in ("json", "openai", "openai_responses", "anthropic", "gemini", "mcp")
    ),
    *((fmt, True) for fmt in ("openai", "openai_responses", "anthropic")),
]


@pytest.mark.parametrize(("fmt", "strict"), EXPORTS)
def test_every_container_of_an_export_is_frozen(fmt: str, strict: bool) -> None:
    exported = tools.export(fmt, strict=True) if strict else tools.export(fmt)
    before = json.dumps(exported)
    containers = _containers(exported)
    assert all(type(item) in (FrozenDict, FrozenList) for item in containers)
    for item in containers:
        for mutate in MUTATIONS if isinstance(item, dict) else LIST_MUTATIONS:
            if isinstance(item, list) and not item:
                continue
            with pytest.raises(TypeError, match=r"copy\.deepcopy"):
                mutate(item)
    again = tools.export(fmt, strict=True) if strict else tools.export(fmt)
    assert again is exported
    assert json.dumps(again) == before


def test_tool_parameters_are_frozen_and_copies_are_plain() -> None:
    schema = tools["get_weather"].parameters
    with pytest.raises(TypeError):
        schema["properties"]["city"]["description"] = "changed"
    thawed = copy.deepcopy(schema)
    assert type(thawed) is dict
    assert type(thawed["required"]) is list
    thawed["properties"]["city"]["description"] = "changed"
    assert (
        schema["properties"]["city"]["description"] == 'City name, for example "Paris".'
    )
    assert type(copy.copy(schema)) is dict
    assert pickle.loads(pickle.dumps(schema)) == schema


def test_tool_new_keeps_its_own_frozen_copy() -> None:
    raw: dict[str, Any] = {"type": "object", "properties": {"a": {"type": "string"}}}
    made = Tool.new(
        name="raw",
        description="Raw.",
        parameters=raw,
        execute_fn=lambda agent_id, call_id, args: "ok",
    )
    raw["properties"]["a"]["type"] = "integer"
    assert made.parameters == {
        "type": "object",
        "properties": {"a": {"type": "string"}},
    }
    assert made.execute("a", "c", {"a": "text"}).text == "ok"


def test_json_schema_returns_a_plain_dict_to_use_freely() -> None:
    schema = json_schema(list[int])
    schema["minItems"] = 1
    assert json_schema(list[int]) == {"type": "array", "items": {"type": "integer"}}


def test_frozen_values_serialise_like_plain_ones() -> None:
    exported = ToolSet([tools["get_weather"]]).export("openai")
    assert json.dumps(exported) == json.dumps(copy.deepcopy(exported))
    assert exported == copy.deepcopy(exported)


_IMPORTS = (
    "import sys, toolkit; "
    "heavy = sorted(m for m in sys.modules if m.split('.')[0] in "
    "('asyncio', 'jsonschema', 'docstring_parser', 'pydantic', 'mcp', 'typing_extensions', 'annotated_types') "
    "or m.startswith('toolkit.providers')); print(heavy)"
)


def test_import_toolkit_loads_nothing_heavy() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _IMPORTS],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert done.stdout.strip() == "[]"
