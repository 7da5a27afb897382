"""Type nodes to JSON Schema, and back: the compiled check, the messages of invalid arguments, conversion to Python values, and a function's signature read whole.

It imports the layers below: `core`, `values`, `hints`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolkit.core._aliases import JsonSchema

__all__ = ["json_schema"]


def json_schema(annotation: Any) -> JsonSchema:
    """The JSON Schema (Draft 2020-12) of a type annotation.

    Named types (Enum, TypedDict, dataclass, NamedTuple, pydantic model) are
    placed in `$defs` and referenced with `$ref`.

    Args:
        annotation: Any supported annotation: `int`, `list[str] | None`,
            `Annotated[int, Param(ge=0)]`, a dataclass, ...

    Returns:
        The schema, JSON-ready.

    Raises:
        ToolDefinitionError: The annotation is not supported; the message says why.
    """
    from ._schema import schema_of  # the schema code loads when first used

    return schema_of(annotation)
