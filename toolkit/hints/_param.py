"""`Param`: metadata for `Annotated` parameters and fields.

Several `Param(...)` in one `Annotated` merge, later values winning. The
constraints of `annotated_types` (and of pydantic's `Field`) are read into the
same record by duck typing, so the core never imports either library.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from toolkit.core._record import Record

__all__ = ["CONSTRAINTS", "Param", "merge_metadata"]

CONSTRAINTS: Final = (
    "ge",
    "gt",
    "le",
    "lt",
    "multiple_of",
    "min_length",
    "max_length",
    "pattern",
    "format",
)
"""The fields of `Param` that constrain values (the others describe them)."""
_FOREIGN_CONSTRAINTS: Final = CONSTRAINTS[
    :-1
]  # annotated_types and pydantic carry all but format


class Param(Record):
    """Describe and constrain a parameter: `Annotated[int, Param(ge=0)]`.

    Every field is optional; `None` means "not set".

    Attributes:
        description: Text for the model; wins over the docstring.
        title: A short human title (emitted as `title`).
        examples: Example values (emitted as `examples`).
        ge: Minimum, inclusive (`minimum`).
        gt: Minimum, exclusive (`exclusiveMinimum`).
        le: Maximum, inclusive (`maximum`).
        lt: Maximum, exclusive (`exclusiveMaximum`).
        multiple_of: `multipleOf`.
        min_length: `minLength` for strings, `minItems` for arrays,
            `minProperties` for mappings.
        max_length: `maxLength`, `maxItems` or `maxProperties` likewise.
        pattern: A regular expression that strings must match (`pattern`).
        format: A JSON Schema `format`, for example `"email"`.
        deprecated: Marks the parameter deprecated (`deprecated: true`).
        header: For a top-level string, integer or boolean parameter: MCP
            clients of protocol 2026-07-28 mirror its value into the HTTP
            header `Mcp-Param-{header}` (`x-mcp-header`), so that proxies
            route on it without reading the body; the server refuses a call
            whose header and argument differ.
    """

    __match_args__ = (
        "description",
        "title",
        "examples",
        *CONSTRAINTS,
        "deprecated",
        "header",
    )
    __slots__ = __match_args__
    description: str | None
    title: str | None
    examples: list[Any] | None
    ge: float | None
    gt: float | None
    le: float | None
    lt: float | None
    multiple_of: float | None
    min_length: int | None
    max_length: int | None
    pattern: str | None
    format: str | None
    deprecated: bool | None
    header: str | None

    def __init__(  # one keyword per JSON Schema keyword
        self,
        *,
        description: str | None = None,
        title: str | None = None,
        examples: list[Any] | None = None,
        ge: float | None = None,
        gt: float | None = None,
        le: float | None = None,
        lt: float | None = None,
        multiple_of: float | None = None,
        min_length: int | None = None,
        max_length: int | None = None,
        pattern: str | None = None,
        format: str | None = None,  # the JSON Schema keyword
        deprecated: bool | None = None,
        header: str | None = None,
    ) -> None:
        values = (
            *(description, title, examples, ge, gt, le, lt, multiple_of),
            *(min_length, max_length, pattern, format, deprecated, header),
        )  # in the order of __match_args__
        for name, value in zip(self.__match_args__, values, strict=True):
            object.__setattr__(self, name, value)

    def merged(self, other: Param) -> Param:
        """Return this metadata with every field that `other` sets replaced."""
        changes = {
            name: value
            for name in other.__slots__
            if (value := getattr(other, name)) is not None
        }
        return self.__replace__(**changes) if changes else self


def merge_metadata(base: Param | None, metadata: Iterable[object]) -> Param | None:
    """Fold `Annotated` metadata into one `Param`, later values winning.

    Understands `Param`, a plain string (a description), `annotated_types`
    constraints and grouped metadata, and pydantic's `FieldInfo`. Anything
    else is metadata for some other library and is ignored.
    """
    result = base
    for item in metadata:
        found = _as_param(item)
        if found is not None:
            result = found if result is None else result.merged(found)
    return result


def _as_param(item: object) -> Param | None:
    if isinstance(item, Param):
        return item
    if isinstance(item, str):
        return Param(description=item)
    if getattr(type(item), "__is_annotated_types_grouped_metadata__", False):
        return merge_metadata(None, item)  # type: ignore[arg-type]  # it is iterable
    if type(item).__name__ == "FieldInfo":
        return _from_field_info(item)
    found = {
        attr: value
        for attr in _FOREIGN_CONSTRAINTS
        if (value := getattr(item, attr, None)) is not None
    }
    if isinstance(found.get("pattern"), str) or "pattern" not in found:
        return Param(**found) if found else None
    found["pattern"] = found["pattern"].pattern  # a compiled re.Pattern
    return Param(**found)


def _from_field_info(info: Any) -> Param | None:
    """Read pydantic's `Field(...)` without importing pydantic."""
    examples = getattr(info, "examples", None)
    own = Param(
        description=getattr(info, "description", None),
        title=getattr(info, "title", None),
        examples=list(examples) if examples is not None else None,
    )
    return merge_metadata(own, getattr(info, "metadata", ()))
