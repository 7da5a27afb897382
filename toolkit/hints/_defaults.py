"""A parameter's default, however it was written.

Three ways are read: `x: int = 3`; pydantic's `x: int = Field(3, ge=0)`, as
FastMCP and the MCP SDK's users write it (the `Field` also constrains and
describes `x`); and `x: Annotated[int, Field(default=3)]`. A `Field` may give
a `default_factory` instead, called for each call that leaves `x` out.

Python's own default of such a parameter is the `Field` object, or none at
all, so the tool passes the real default itself (`fill`). Two different
defaults for one parameter are refused, saying which to keep. pydantic is
never imported: its `FieldInfo` is recognised by its name and attributes, as
`Param` reads its constraints.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Final

from toolkit.core._log import log_failure
from toolkit.values._results import Refused, ToolResult, error_text

from ._nodes import MISSING

__all__ = ["Default", "default_for_call", "fresh", "read_default"]

_IMMUTABLE: Final = (str, int, float, bool, type(None), bytes, frozenset)
ANNOTATED: Final = type(Annotated[int, ""])
"""The class of `Annotated[...]` aliases (typing_extensions uses it too)."""


class Default:
    """Where a parameter's default comes from and what it is.

    Attributes:
        annotation: The annotation to translate: the parameter's own, with a
            `= Field(...)` added to its metadata so that its constraints apply.
        value: The default value, or MISSING (none, or made by `factory`).
        factory: Makes the default for each call (`default_factory`), or None.
        fill: The tool must pass the default itself, because Python's default
            of the parameter is not it.
        problem: Why the parameter's defaults cannot be used, or None.
    """

    __slots__ = ("annotation", "factory", "fill", "problem", "value")

    def __init__(self, annotation: Any) -> None:
        self.annotation = annotation
        self.value: Any = MISSING
        self.factory: Callable[[], Any] | None = None
        self.fill = False
        self.problem: str | None = None

    @property
    def required(self) -> bool:
        """No default of any kind: the model must send the argument."""
        return self.value is MISSING and self.factory is None


def read_default(
    name: str, given: Any, annotation: Any, *, empty: object
) -> Default | None:
    """The default of parameter `name`, when a pydantic `Field` gives or shapes it.

    Args:
        name: The parameter's name, for the problem's text.
        given: What follows `=` in the signature, or `empty`.
        annotation: The parameter's resolved annotation.
        empty: The marker of "no `=`".

    Returns:
        None when no `Field` is involved (the common case, kept cheap): the
        default is `given`, as Python has it.
    """
    annotated = type(annotation) is ANNOTATED
    from_field = given is not empty and _is_field_info(given)
    if not annotated and not from_field:
        return None
    inner = _annotated_default(annotation) if annotated else MISSING
    if not from_field and inner is MISSING:  # Annotated, with no default in it
        return None
    found = Default(annotation)
    # (as written, value, whether it is Python's own default)
    sources: list[tuple[str, Any, bool]] = []
    if from_field:
        found.annotation = Annotated[annotation, given]  # its constraints apply too
        value = _field_default(given)
        if value is not MISSING:
            sources.append((f"`= Field({_shown(value)})`", value, False))
    elif given is not empty:
        sources.append((f"`= {given!r}`", given, True))
    if inner is not MISSING:
        sources.append((f"`Field({_shown(inner)})` in Annotated", inner, False))
    if len(sources) == 2 and not _same(sources[0][1], sources[1][1]):
        written = sources[0][0]
        found.problem = (
            f"parameter {name!r}: it has two defaults, {written} and {sources[1][0]}. "
            f"Keep one: remove the default from the Field in Annotated and keep {written}, "
            f"or remove {written}"
        )
        return found
    if sources:
        value = sources[-1][1]
        if isinstance(value, _Factory):
            found.factory = value.make
        else:
            found.value = value
        found.fill = not any(plain for _, _, plain in sources)
    return found


def fresh(value: Any) -> Any:
    """A default for one call: a copy, so that a call cannot change the next one's."""
    if isinstance(value, _IMMUTABLE):
        return value
    import copy  # only tools with such defaults need it

    try:
        return copy.deepcopy(value)
    except (
        Exception
    ):  # an object that cannot be copied is shared, as Python shares defaults
        return value


def default_for_call(
    tool: str, name: str, value: Any, factory: Callable[[], Any] | None
) -> Any:
    """The default of an argument left out of a call, which the function does not have itself.

    Raises:
        Refused: Its `default_factory` raised; the result says so to the model.
    """
    try:
        return factory() if factory is not None else fresh(value)
    except Exception as error:
        log_failure("The default of %r failed", name, error=error)
        raise Refused(
            ToolResult.error(
                f'The default of "{name}" for tool "{tool}" could not be made: {error_text(error)}'
            )
        ) from None


class _Factory:
    """A `default_factory`: called for each call that leaves the argument out."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], Any]) -> None:
        self.make = make


def _is_field_info(value: object) -> bool:
    """Whether `value` is pydantic's `FieldInfo` (what `Field(...)` returns)."""
    return type(value).__name__ == "FieldInfo" and hasattr(value, "metadata")


def _field_default(info: Any) -> Any:
    """A `FieldInfo`'s default: a value, a `_Factory`, or MISSING."""
    factory = getattr(info, "default_factory", None)
    if callable(factory):
        return _Factory(factory)
    value = getattr(info, "default", MISSING)
    if value is Ellipsis or type(value).__name__ == "PydanticUndefinedType":
        return MISSING
    return value


def _annotated_default(annotation: Any) -> Any:
    """The default of the last `Field(...)` with one in `Annotated` metadata, or MISSING."""
    found = MISSING
    for item in annotation.__metadata__:
        if _is_field_info(item):
            value = _field_default(item)
            if value is not MISSING:
                found = value
    return found


def _shown(value: Any) -> str:
    if isinstance(value, _Factory):
        return (
            f"default_factory={getattr(value.make, '__qualname__', repr(value.make))}"
        )
    return f"default={value!r}"


def _same(first: Any, second: Any) -> bool:
    if isinstance(first, _Factory) or isinstance(second, _Factory):
        return (
            isinstance(first, _Factory)
            and isinstance(second, _Factory)
            and first.make is second.make
        )
    try:
        return type(first) is type(second) and bool(first == second)
    except Exception:  # a value whose == raises is not the same
        return False
