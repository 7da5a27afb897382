"""A representative tool set, used by export and determinism tests."""

from __future__ import annotations

import dataclasses
import datetime
import enum
from typing import Annotated, Any, Literal

from typing_extensions import NotRequired, TypedDict

from toolkit import Context, Param, ToolResult, ToolSet, WidgetUI


class Unit(enum.Enum):
    """Temperature unit."""

    C = "c"
    F = "f"


class Filters(TypedDict):
    """Search filters.

    Attributes:
        tags: Tags that must all match.
        since: Only items newer than this.
    """

    tags: NotRequired[list[str]]
    since: NotRequired[datetime.date]


@dataclasses.dataclass
class Category:
    """A category in a tree.

    Attributes:
        name: Category name.
        children: Sub-categories.
    """

    name: str
    children: list[Category] = dataclasses.field(default_factory=list)


class MapWidget:
    id = "map"

    def render(self, data: Any) -> Any:
        return {"center": data}


tools = ToolSet()


@tools.tool(read_only=True, title="Weather")
def get_weather(
    city: str, unit: Unit = Unit.C, days: Annotated[int, Param(ge=1, le=7)] = 1
) -> str:
    """Get the weather forecast for a city.

    Args:
        city: City name, for example "Paris".
        unit: Temperature unit.
        days: Number of days to forecast.
    """
    return f"Sunny in {city} for {days} day(s), 22 degrees {unit.value}"


@tools.tool
def search(
    query: str,
    limit: int = 10,
    filters: Filters | None = None,
    sort: Literal["relevance", "date"] = "relevance",
    labels: frozenset[str] = frozenset({"b", "a", "c"}),
) -> list[dict[str, Any]]:
    """Search the knowledge base.

    Args:
        query: What to look for.
        limit: At most this many results.
        filters: Optional filters.
        sort: Result order.
        labels: Labels to search in.

    Returns:
        The matching documents.
    """
    return [{"title": f"About {query}", "rank": 1}][:limit]


@tools.tool(destructive=True, idempotent=False)
def file_category(category: Category, ctx: Context) -> ToolResult:
    """File a category tree.

    Args:
        category: The root category.
    """
    return ToolResult.ok(
        f"Filed {category.name}",
        ui=WidgetUI(label="Open tree", widget="tree", data=category.name),
    )


@tools.tool(widget=MapWidget())
async def show_map(lat: float, lon: float, zoom: int | None = None) -> dict[str, float]:
    """Show a map centred on a point.

    Args:
        lat: Latitude in degrees.
        lon: Longitude in degrees.
        zoom: Zoom level; None picks one.

    Returns:
        The centre that was shown.
    """
    return {"lat": lat, "lon": lon}
