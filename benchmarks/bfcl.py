"""The Berkeley Function Calling Leaderboard's non-live data, as a tool catalog and queries.

Read at run time from the installed PyPI package `bfcl-eval` (its `data/`
folder), never copied into this repository. Only the non-live categories are
read: the live ones (`BFCL_v4_live_*`) are held out, so that what is tuned
here is judged on data it never saw.

The catalog is every function definition of the non-live categories (the
irrelevance category and the multi-turn APIs included), identical
definitions once. Each becomes a `toolkit.Tool` through `Tool.new`, with
BFCL's types turned into JSON Schema ("dict" → "object", "float" → "number",
"tuple" → "array", "any" → no type, Java's "String", "HashMap", ... alike).
Names that no LLM API accepts (`math.factorial`) have their other
characters replaced by `_` (`math_factorial`); a name that several different
definitions share gets `_2`, `_3`, ... on the later ones. `Catalog.origin`
maps each tool's name back to its BFCL name, which is what the answers name.

A query is the user's turn of an entry of `simple_python`, `simple_java`,
`simple_javascript`, `multiple`, `parallel` or `parallel_multiple`; its right
tools are the functions its ground-truth calls name (`possible_answer/`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import metadata, resources
from typing import Any

from toolkit import Tool, ToolResult

QUERY_CATEGORIES = (
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
)
CATALOG_ONLY_CATEGORIES = ("irrelevance",)  # no right answer: functions only

_TYPES = {
    "dict": "object",
    "hashmap": "object",
    "map": "object",
    "object": "object",
    "float": "number",
    "double": "number",
    "number": "number",
    "integer": "integer",
    "int": "integer",
    "long": "integer",
    "short": "integer",
    "byte": "integer",
    "string": "string",
    "char": "string",
    "str": "string",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "arraylist": "array",
    "list": "array",
    "tuple": "array",
    "set": "array",
}
_INVALID = re.compile(r"[^A-Za-z0-9_-]")


@dataclass(frozen=True)
class Query:
    category: str
    id: str
    text: str
    right: frozenset[str]  # BFCL names of the functions the answer calls


@dataclass(frozen=True)
class Definition:
    """One function as BFCL gives it, its types made JSON Schema."""

    name: str  # the name in the catalog, accepted by every API
    origin: str  # BFCL's name
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class Catalog:
    definitions: tuple[Definition, ...]
    queries: tuple[Query, ...]
    version: str

    @property
    def origin(self) -> dict[str, str]:
        return {item.name: item.origin for item in self.definitions}

    def tools(self) -> list[Tool[..., Any]]:
        return [
            Tool.new(
                name=item.name,
                description=item.description,
                parameters=item.parameters,
                execute_fn=_not_run,
            )
            for item in self.definitions
        ]


def _not_run(agent_id: str, call_id: str, args: dict[str, Any]) -> ToolResult:
    raise NotImplementedError  # the benchmark searches; it never calls


def _data() -> Any:
    return resources.files("bfcl_eval") / "data"


def _rows(path: Any) -> Iterator[dict[str, Any]]:
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


def _schema(node: Any) -> Any:
    """A BFCL parameter schema as JSON Schema."""
    if isinstance(node, list):
        return [_schema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type" and isinstance(value, str):
            kind = _TYPES.get(value.strip().lower())
            if kind is not None:
                converted["type"] = kind
        elif key == "properties" and isinstance(value, dict):
            converted[key] = {name: _schema(sub) for name, sub in value.items()}
        elif key in ("items", "additionalProperties", "anyOf", "oneOf", "allOf"):
            converted[key] = _schema(value)
        else:
            converted[key] = value
    if converted.get("type") == "object" or "properties" in converted:
        declared = converted.get("properties", {})
        required = converted.get("required")
        if isinstance(
            required, list
        ):  # BFCL requires a few parameters it never declares
            converted["required"] = [name for name in required if name in declared]
    if (
        converted.get("type") == "array"
        and "items" in converted
        and not isinstance(converted["items"], dict)
    ):
        del converted["items"]
    return converted


def _parameters(function: dict[str, Any]) -> dict[str, Any]:
    schema: dict[str, Any] = _schema(function.get("parameters") or {})
    schema["type"] = "object"
    schema.setdefault("properties", {})
    return schema


def _api_name(origin: str, taken: set[str]) -> str:
    base = _INVALID.sub("_", origin)
    if not re.match(r"[A-Za-z_]", base):
        base = "_" + base
    base = base[:60]
    name, number = base, 1
    while name in taken:
        number += 1
        name = f"{base}_{number}"
    taken.add(name)
    return name


def _functions() -> Iterator[dict[str, Any]]:
    data = _data()
    for category in QUERY_CATEGORIES + CATALOG_ONLY_CATEGORIES:
        for row in _rows(data / f"BFCL_v4_{category}.json"):
            yield from row["function"]
    docs = data / "multi_turn_func_doc"
    for path in sorted(docs.iterdir(), key=lambda item: item.name):
        if path.name.endswith(".json"):
            yield from _rows(path)


def _question(row: dict[str, Any]) -> str:
    turn = row["question"][0]
    users = [message["content"] for message in turn if message.get("role") == "user"]
    return str(users[-1] if users else turn[-1]["content"])


def _queries() -> Iterator[Query]:
    data = _data()
    for category in QUERY_CATEGORIES:
        answers = {
            row["id"]: row["ground_truth"]
            for row in _rows(data / "possible_answer" / f"BFCL_v4_{category}.json")
        }
        for row in _rows(data / f"BFCL_v4_{category}.json"):
            right = frozenset(name for call in answers[row["id"]] for name in call)
            yield Query(category, row["id"], _question(row), right)


def load() -> Catalog:
    """The catalog of every non-live function and the queries of the non-live categories."""
    seen: set[str] = set()
    taken: set[str] = set()
    definitions: list[Definition] = []
    for function in _functions():
        key = json.dumps(function, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        origin = str(function["name"])
        definitions.append(
            Definition(
                name=_api_name(origin, taken),
                origin=origin,
                description=str(function.get("description") or ""),
                parameters=_parameters(function),
            )
        )
    return Catalog(tuple(definitions), tuple(_queries()), metadata.version("bfcl-eval"))
