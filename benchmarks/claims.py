"""The facts about the peers that README.md's comparison table states, checked.

Run in a venv with toolkit and the peers at the versions the README names:

    pip install -e . fastmcp==4.2.3 pydantic-ai-slim==2.78.0 \
        openai-agents==0.25.0 langchain-core==1.8.3
    python benchmarks/claims.py

Each library gets the same definitions; the script prints what each did,
and exits with status 1 where that is not what the README's table says.

- `ship(to: Address)`, called with a key inside `to` that `Address` lacks:
  an error, or a call that ran without the key (dropped silently)?
- the same, with an unknown top-level argument.
- `search(query: str, limit: int = None)` whose docstring documents a
  parameter `max` it does not have: refused when defined, or accepted?
- `page(query: str, limit: int = None)`, its docstring right: refused when
  defined, or accepted?
- whether a dataclass's `Attributes:` reach the schema.
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass
from typing import Any


@dataclass
class Address:
    """A postal address.

    Attributes:
        street: The street and number.
        city: The city.
    """

    street: str
    city: str


def ship(to: Address, note: str = "") -> str:
    """Ship a parcel.

    Args:
        to: Where to send it.
        note: A note for the courier.
    """
    return f"ran: {to.city}"


def search(query: str, limit: int = None) -> str:  # type: ignore[assignment]  # noqa: RUF013
    """Search.

    Args:
        query: What to find.
        max: How many.
    """
    return query


def page(query: str, limit: int = None) -> str:  # type: ignore[assignment]  # noqa: RUF013
    """Page through results.

    Args:
        query: What to find.
        limit: How many.
    """
    return query


GOOD = {"street": "1 Main St", "city": "Oslo"}
NESTED_STRAY = {"to": {**GOOD, "zip": "0150"}}
TOP_STRAY = {"to": GOOD, "nte": "fragile"}


def outcome(run: Any) -> str:
    try:
        text = str(run())
    except Exception as error:  # what the peer raises is the answer
        return f"error ({type(error).__name__})"
    return "ran" if text.startswith("ran") else f"error ({text[:40]!r})"


def defined(make: Any) -> str:
    try:
        make()
    except Exception as error:
        return f"refused ({type(error).__name__})"
    return "accepted"


def has_attributes(schema: Any) -> bool:
    return "The city." in json.dumps(schema)


def toolkit_row() -> dict[str, Any]:
    from toolkit import tool

    made = tool(ship)

    def call(args: dict[str, Any]) -> Any:
        result = made.execute("a", "c", args)
        return result.text if result.is_error else "ran"

    return {
        "nested": outcome(lambda: call(NESTED_STRAY)),
        "top": outcome(lambda: call(TOP_STRAY)),
        "definition": defined(lambda: tool(search)),
        "none default": defined(lambda: tool(page)),
        "attributes": has_attributes(made.parameters),
    }


def pydantic_ai_row() -> dict[str, Any]:
    from pydantic_ai import RunContext
    from pydantic_ai import Tool as PaiTool
    from pydantic_ai.models.test import TestModel
    from pydantic_ai.usage import RunUsage

    schema = PaiTool(ship).function_schema
    context = RunContext(deps=None, model=TestModel(), usage=RunUsage())

    def call(args: dict[str, Any]) -> Any:
        async def go() -> Any:
            return await schema.call(schema.validator.validate_python(args), context)

        return asyncio.run(go())

    return {
        "nested": outcome(lambda: call(NESTED_STRAY)),
        "top": outcome(lambda: call(TOP_STRAY)),
        "definition": defined(lambda: PaiTool(search)),
        "none default": defined(lambda: PaiTool(page)),
        "attributes": has_attributes(schema.json_schema),
    }


def fastmcp_row() -> dict[str, Any]:
    from fastmcp import Client, FastMCP

    server = FastMCP("claims")
    server.tool(ship)

    def call(args: dict[str, Any]) -> Any:
        async def go() -> Any:
            async with Client(server) as client:
                result = await client.call_tool("ship", args, raise_on_error=False)
                return "".join(getattr(b, "text", "") for b in result.content)

        return asyncio.run(go())

    async def schema() -> Any:
        async with Client(server) as client:
            return (await client.list_tools())[0].input_schema

    return {
        "nested": outcome(lambda: call(NESTED_STRAY)),
        "top": outcome(lambda: call(TOP_STRAY)),
        "definition": defined(lambda: FastMCP("other").tool(search)),
        "none default": defined(lambda: FastMCP("other").tool(page)),
        "attributes": has_attributes(asyncio.run(schema())),
    }


def openai_agents_row() -> dict[str, Any]:
    from agents import function_tool
    from agents.tool_context import ToolContext

    made = function_tool(ship)

    def call(args: dict[str, Any]) -> Any:
        arguments = json.dumps(args)
        context = ToolContext(
            context=None, tool_name="ship", tool_call_id="c1", tool_arguments=arguments
        )
        return asyncio.run(made.on_invoke_tool(context, arguments))

    return {
        "nested": outcome(lambda: call(NESTED_STRAY)),
        "top": outcome(lambda: call(TOP_STRAY)),
        "definition": defined(lambda: function_tool(search)),
        "none default": defined(lambda: function_tool(page)),
        "attributes": has_attributes(made.params_json_schema),
    }


def langchain_row() -> dict[str, Any]:
    from langchain_core.tools import tool as lc_tool

    made = lc_tool(ship, parse_docstring=True)
    return {
        "nested": outcome(lambda: made.invoke(NESTED_STRAY)),
        "top": outcome(lambda: made.invoke(TOP_STRAY)),
        "definition": defined(lambda: lc_tool(search, parse_docstring=True)),
        "none default": defined(lambda: lc_tool(page, parse_docstring=True)),
        "attributes": has_attributes(made.tool_call_schema.model_json_schema()),
    }


# What README.md's table says: "error"/"ran" for a call, "refused"/"accepted"
# for a definition.
EXPECTED: dict[str, dict[str, Any]] = {
    "toolkit": {
        "nested": "error",
        "top": "error",
        "definition": "refused",
        "none default": "refused",
        "attributes": True,
    },
    "pydantic-ai": {
        "nested": "ran",
        "top": "error",
        "definition": "accepted",
        "none default": "accepted",
        "attributes": True,
    },
    "FastMCP": {
        "nested": "ran",
        "top": "error",
        "definition": "accepted",
        "none default": "accepted",
        "attributes": False,
    },
    "OpenAI Agents SDK": {
        "nested": "ran",
        "top": "ran",
        "definition": "accepted",
        "none default": "accepted",
        "attributes": True,
    },
    "LangChain": {
        "nested": "ran",
        "top": "ran",
        "definition": "refused",
        "none default": "accepted",
        "attributes": True,
    },
}

ROWS = {
    "toolkit": toolkit_row,
    "pydantic-ai": pydantic_ai_row,
    "FastMCP": fastmcp_row,
    "OpenAI Agents SDK": openai_agents_row,
    "LangChain": langchain_row,
}


def main() -> int:
    import importlib.metadata as metadata
    import logging

    logging.disable(logging.CRITICAL)  # the peers log the invalid calls
    for dist in (
        "toolkit-llm",
        "pydantic-ai-slim",
        "fastmcp",
        "openai-agents",
        "langchain-core",
    ):
        print(f"{dist} {metadata.version(dist)}")
    found = {name: row() for name, row in ROWS.items()}
    print(json.dumps(found, indent=2))
    short = {
        name: {
            key: value.split(" ")[0] if isinstance(value, str) else value
            for key, value in row.items()
        }
        for name, row in found.items()
    }
    wrong = [
        f"{name} {key}: {short[name][key]!r}, the README says {value!r}"
        for name, row in EXPECTED.items()
        for key, value in row.items()
        if short[name][key] != value
    ]
    for line in wrong:
        print(f"claims: {line}", file=sys.stderr)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
