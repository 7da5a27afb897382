"""Tools defined in a module that uses postponed annotations (PEP 563)."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Literal

from toolkit import Context, Param, tool


@dataclasses.dataclass
class Address:
    """A postal address.

    Attributes:
        street: Street and number.
        next_door: The neighbour's address.
    """

    street: str
    next_door: Address | None = None


@tool
def send(
    to: Address,
    weight: Annotated[float, Param(gt=0)],
    speed: Literal["slow", "fast"] = "slow",
    ctx: Context[dict[str, str]] | None = None,
) -> dict[str, str]:
    """Send a parcel.

    Args:
        to: Where it goes.
        weight: Kilograms.
        speed: How fast.
    """
    return {"to": to.street}
