"""The main example: decorate functions and print the schemas the model sees.

Run it with `make demo`. It needs no network and no API key.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from typing import Annotated, Literal

from toolkit import Context, Param, tool


class Priority(Enum):
    """How urgent a task is."""

    LOW = "low"
    HIGH = "high"


@dataclass
class Task:
    """A task on the to-do list.

    Attributes:
        title: What to do.
        priority: How urgent it is.
    """

    title: str
    priority: Priority = Priority.LOW


@tool
def get_weather(city: str, unit: Literal["c", "f"] = "c") -> str:
    """Get the current weather for a city.

    Args:
        city: City name, for example "Paris".
        unit: Temperature unit.
    """
    return f"22 degrees {unit} in {city}"


@tool(read_only=False, title="Add tasks")
def add_tasks(
    tasks: list[Task],
    due_in_days: Annotated[int, Param(ge=0, le=365)] = 7,
    ctx: Context | None = None,
) -> dict[str, int]:
    """Add tasks to the user's to-do list.

    Args:
        tasks: The tasks to add.
        due_in_days: Days until the tasks are due.

    Returns:
        How many tasks were added.
    """
    return {"added": len(tasks)}


def main() -> None:
    """Print each tool's name, description and parameter schema."""
    for made in (get_weather, add_tasks):
        print(f"== {made.name}: {made.description}")
        print(json.dumps(made.parameters, indent=2))
        if made.output_schema is not None:
            print("output schema:", json.dumps(made.output_schema))
        print()
    print("Calling the function directly still works:", get_weather("Paris"))


if __name__ == "__main__":
    main()
