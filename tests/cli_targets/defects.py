"""A tool set with known defects, for `toolkit lint`."""

from typing import Any

from toolkit import Tool, ToolSet

tools = ToolSet()


@tools.tool
def good(city: str) -> str:
    """Get the weather for a city.

    Args:
        city: City name.
    """
    return city


@tools.tool
def terse(q: str, n: int = 3) -> str:
    """Search."""
    return q


@tools.tool
def undocumented(payload: dict[str, Any]) -> str:
    return "ok"


@tools.tool
def wordy(x: int) -> str:
    """Do it.

    Args:
        x: The x.
    """
    return str(x)


wordy.description = "Explain. " * 200

raw = tools.add(
    Tool.new(
        name="raw",
        description="A raw tool with a dashed property name.",
        parameters={
            "type": "object",
            "properties": {"file-name": {"type": "string", "description": "The file."}},
        },
        execute_fn=lambda agent_id, call_id, args: "ok",
    )
)
