"""Decorate annotations that differ only in the order inside them, in a given order.

Run as `python tests/order_probe.py ORDER` (`forward`, `reverse` or a shuffle
seed); prints every export of every tool as JSON, by annotation. Two runs with
different ORDERs must print the same bytes: an annotation's schema never
depends on what was decorated before it in the process.
"""

from __future__ import annotations

import json
import random
import sys
from typing import Any, Literal, Union

from typing_extensions import TypedDict

from toolkit import Tool, ToolSet, tool


class UnionField(TypedDict):
    value: Union[int, str]  # noqa: UP007  # the order inside Union is under test


class UnionFieldSwapped(TypedDict):
    value: Union[str, int]  # noqa: UP007


# Pairs that are equal (==, same hash) but for the order inside them. Python's
# typing caches `Optional[...]`, `Annotated[...]`, `List[...]` by equality, so
# those are already one object when written; they cannot be told apart.
ANNOTATIONS: dict[str, Any] = {
    "union_int_str": Union[int, str],  # noqa: UP007
    "union_str_int": Union[str, int],  # noqa: UP007
    "pipe_int_str": int | str,
    "pipe_str_int": str | int,
    "pipe_int_str_none": int | str | None,
    "pipe_str_int_none": str | int | None,
    "union_int_float": Union[int, float],  # noqa: UP007
    "union_float_int": Union[float, int],  # noqa: UP007
    "literal_ab": Literal["a", "b"],
    "literal_ba": Literal["b", "a"],
    "literal_ab_none": Literal["a", "b", None],
    "literal_ba_none": Literal["b", "a", None],
    "literal_12": Literal[1, 2],
    "literal_21": Literal[2, 1],
    "list_union_int_str": list[Union[int, str]],  # noqa: UP007
    "list_union_str_int": list[Union[str, int]],  # noqa: UP007
    "dict_literal_xy": dict[str, Literal["x", "y"]],
    "dict_literal_yx": dict[str, Literal["y", "x"]],
    "tuple_pipe_int_str": tuple[int | str, ...],
    "tuple_pipe_str_int": tuple[str | int, ...],
    "list_list_pipe_int_str": list[list[int | str]],
    "list_list_pipe_str_int": list[list[str | int]],
    "typeddict_int_str": UnionField,
    "typeddict_str_int": UnionFieldSwapped,
}
FORMATS = ("json", "openai", "openai_responses", "anthropic", "gemini", "mcp")
STRICT = ("openai", "openai_responses", "anthropic")


def make(name: str, annotation: Any) -> Tool[Any, Any]:
    """A tool whose parameter and return value are both `annotation`."""

    def function(x: Any) -> Any:
        return x

    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"Echo {name}.\n\nArgs:\n    x: The value."
    function.__annotations__ = {"x": annotation, "return": annotation}
    return tool(function)


def exports(made: Tool[Any, Any]) -> dict[str, Any]:
    tools = ToolSet([made])
    out: dict[str, Any] = {name: tools.export(name) for name in FORMATS}
    out.update({f"{name} strict": tools.export(name, strict=True) for name in STRICT})
    return out


def main(order: str) -> None:
    names = list(ANNOTATIONS)
    if order == "reverse":
        names.reverse()
    elif order != "forward":
        random.Random(int(order)).shuffle(names)
    made = {name: make(name, ANNOTATIONS[name]) for name in names}
    print(json.dumps({name: exports(made[name]) for name in ANNOTATIONS}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1])
