"""A function's signature and docstring → its parameters, schema and description.

Every problem is collected and reported in one `ToolDefinitionError` that
names the function, each parameter at fault and the fix (pydantic-ai's
`function_schema` does the same). `Context` parameters are recognised by
their annotation before any schema is built, so they never reach it.
"""

from __future__ import annotations

import enum
import inspect
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import typing_extensions

from ._docstrings import Docstring, DocstringStyle, parse_docstring
from ._exceptions import ToolDefinitionError
from ._schema import SchemaBuilder
from ._types import JsonSchema
from ._typing import (
    MISSING,
    AnyType,
    ArrayType,
    EnumType,
    Field,
    LiteralType,
    MapType,
    ModelType,
    ObjectType,
    ScalarType,
    Translator,
    TupleType,
    TypeNode,
    UnionType,
    describe,
    is_context,
)

__all__ = ["FunctionInfo", "analyze"]

_EMPTY: Final = inspect.Parameter.empty
_UNSTRUCTURED_RETURNS: Final = frozenset({str, type(None), None, _EMPTY, typing.Any})


@dataclass(frozen=True, slots=True, kw_only=True)
class FunctionInfo:
    """What a tool needs to know about its function.

    Attributes:
        fields: The model-facing parameters, in signature order.
        positional_only: Names of the parameters that must be passed by position.
        context: The name of the `Context` parameter, if there is one.
        parameters: The JSON Schema of the arguments (root `type: object`).
        description: The tool description from the docstring.
        output_schema: The schema of the return annotation when it is structured.
        return_node: The type node of the return annotation, when it has one.
    """

    fields: tuple[Field, ...]
    positional_only: frozenset[str]
    context: str | None
    parameters: JsonSchema
    description: str
    output_schema: JsonSchema | None
    return_node: TypeNode | None


def analyze(
    func: Callable[..., Any],
    *,
    skip_first: bool,
    docstring_style: DocstringStyle | None = None,
) -> FunctionInfo:
    """Read a function's signature, annotations and docstring.

    Args:
        func: The plain function (not a bound method).
        skip_first: Leave out the first parameter (`self` or `cls` of a method).
        docstring_style: The docstring style; None detects it.

    Returns:
        The tool's view of the function.

    Raises:
        ToolDefinitionError: Listing every problem found, each with its fix.
    """
    return _Analysis(func, skip_first=skip_first, style=docstring_style).run()


class _Analysis:
    def __init__(
        self,
        func: Callable[..., Any],
        *,
        skip_first: bool,
        style: DocstringStyle | None,
    ) -> None:
        self.func = func
        self.skip_first = skip_first
        self.style = style
        self.problems: list[str] = []
        self.translator = Translator()

    def run(self) -> FunctionInfo:
        parameters = list(inspect.signature(self.func).parameters.values())
        if self.skip_first and parameters:
            parameters = parameters[1:]
        hints = self._hints(parameters)
        docs = self._docstring()
        contexts = self._context_names(parameters, hints)
        fields = [
            field
            for parameter in parameters
            if parameter.name not in contexts
            and (field := self._field(parameter, hints, docs)) is not None
        ]
        self._check_documented(docs, parameters)
        return_node = self._return_node(hints)
        if self.problems:
            raise ToolDefinitionError.collected(self.func.__qualname__, self.problems)
        return self._build(
            fields, parameters, contexts[0] if contexts else None, docs, return_node
        )

    def _build(
        self,
        fields: list[Field],
        parameters: list[inspect.Parameter],
        context: str | None,
        docs: Docstring,
        return_node: TypeNode | None,
    ) -> FunctionInfo:
        builder = SchemaBuilder()
        schema = builder.finish(builder.object_schema(fields))
        return FunctionInfo(
            fields=tuple(fields),
            positional_only=frozenset(
                p.name for p in parameters if p.kind is p.POSITIONAL_ONLY
            ),
            context=context,
            parameters=schema,
            description=docs.description,
            output_schema=_output_schema(return_node, docs.returns),
            return_node=return_node,
        )

    def _hints(self, parameters: list[inspect.Parameter]) -> dict[str, Any]:
        try:
            return typing_extensions.get_type_hints(self.func, include_extras=True)
        except NameError as error:
            hints: dict[str, Any] = {}
            for parameter in parameters:
                self._resolve_one(parameter, hints)
            if not self.problems:
                self.problems.append(
                    f"its annotations cannot be resolved ({error}). Define or import the missing name at module level"
                )
            return hints

    def _resolve_one(self, parameter: inspect.Parameter, hints: dict[str, Any]) -> None:
        annotation = parameter.annotation
        if not isinstance(annotation, str):
            hints[parameter.name] = annotation
            return
        try:
            hints[parameter.name] = eval(
                annotation, getattr(self.func, "__globals__", {})
            )  # how get_type_hints resolves them too
        except NameError as error:
            self.problems.append(
                f"parameter {parameter.name!r}: its annotation {annotation!r} cannot be resolved ({error}). Define or import it at module level"
            )

    def _docstring(self) -> Docstring:
        try:
            return parse_docstring(self.func.__doc__, style=self.style)
        except ToolDefinitionError as error:
            self.problems.append(str(error))
            return Docstring()

    def _context_names(
        self, parameters: list[inspect.Parameter], hints: dict[str, Any]
    ) -> list[str]:
        names = [
            p.name for p in parameters if p.name in hints and is_context(hints[p.name])
        ]
        if len(names) > 1:
            listed = ", ".join(repr(name) for name in names)
            self.problems.append(
                f"parameters {listed} are all annotated Context. Keep one Context parameter"
            )
        return names

    def _field(
        self, parameter: inspect.Parameter, hints: dict[str, Any], docs: Docstring
    ) -> Field | None:
        name = parameter.name
        if parameter.kind is parameter.VAR_POSITIONAL:
            self.problems.append(
                f"parameter '*{name}': *args cannot be sent by a model, which sends named arguments. Replace it with a parameter such as `{name}: list[...]`"
            )
            return None
        if parameter.kind is parameter.VAR_KEYWORD:
            self.problems.append(
                f"parameter '**{name}': **kwargs has no schema a model can follow. Replace it with named parameters, or with `{name}: dict[str, ...]`"
            )
            return None
        try:
            node = self.translator.translate(hints.get(name, Any))
        except ToolDefinitionError as error:
            self.problems.append(f"parameter {name!r}: {error}")
            return None
        default = MISSING if parameter.default is _EMPTY else parameter.default
        if default is not MISSING and not fits(default, node):
            self.problems.append(_default_problem(name, default, hints.get(name, Any)))
        description = (
            node.meta.description
            if node.meta and node.meta.description
            else docs.params.get(name)
        )
        return Field(
            name=name,
            node=node,
            required=default is MISSING,
            default=default,
            description=description,
        )

    def _check_documented(
        self, docs: Docstring, parameters: list[inspect.Parameter]
    ) -> None:
        known = {p.name for p in inspect.signature(self.func).parameters.values()}
        for name in docs.params:
            if name not in known:
                listed = ", ".join(p.name for p in parameters) or "none"
                self.problems.append(
                    f"the docstring documents a parameter {name!r} that the function does not have (its parameters: {listed}). Fix the name or remove it from the docstring"
                )

    def _return_node(self, hints: dict[str, Any]) -> TypeNode | None:
        annotation = hints.get("return", _EMPTY)
        if _is_unstructured(annotation):
            return None
        try:
            return self.translator.translate(annotation)
        except ToolDefinitionError:
            return None  # an unsupported return type still runs; its value is serialised at run time


def _is_unstructured(annotation: Any) -> bool:
    try:
        if annotation in _UNSTRUCTURED_RETURNS:
            return True
    except TypeError:
        return False
    return getattr(annotation, "__name__", None) == "ToolResult"


def _output_schema(node: TypeNode | None, returns: str | None) -> JsonSchema | None:
    if node is None:
        return None
    builder = SchemaBuilder()
    schema = builder.schema(node)
    if returns:
        schema["description"] = returns
    return builder.finish(schema)


def _default_problem(name: str, default: Any, annotation: Any) -> str:
    shown = describe(annotation)
    if default is None:
        return f"parameter {name!r}: its default is None, which the annotation {shown} does not allow. Annotate it `{shown} | None`"
    return f"parameter {name!r}: its default {default!r} does not fit its annotation {shown}. Change the default or the annotation"


# ---------------------------------------------------------------- defaults


def fits(value: Any, node: TypeNode) -> bool:
    """Whether a Python value (a default) is a valid value of the type `node`."""
    if isinstance(node, AnyType):
        return True
    if isinstance(node, ScalarType):
        return _fits_scalar(value, node.py)
    if isinstance(node, LiteralType):
        return any(_same(value, member) for member in (*node.members, *node.values))
    if isinstance(node, EnumType):
        return isinstance(value, node.cls) or any(
            _same(value, member.value) for member in node.cls
        )
    if isinstance(node, UnionType):
        return any(fits(value, member) for member in node.members)
    return _fits_container(value, node)


def _fits_container(value: Any, node: TypeNode) -> bool:
    if isinstance(node, ArrayType):
        return isinstance(value, (list, tuple, set, frozenset)) and all(
            fits(item, node.item) for item in value
        )
    if isinstance(node, TupleType):
        return (
            isinstance(value, (list, tuple))
            and len(value) == len(node.items)
            and all(map(fits, value, node.items))
        )
    if isinstance(node, MapType):
        return isinstance(value, Mapping) and all(
            fits(key, node.key) and fits(item, node.value)
            for key, item in value.items()
        )
    if isinstance(node, ObjectType) and node.kind == "typeddict":
        return isinstance(value, Mapping)
    if isinstance(node, (ObjectType, ModelType)):
        return isinstance(value, node.cls)
    return False


def _fits_scalar(value: Any, py: type) -> bool:
    if py is float:
        return type(value) in (int, float)
    if py in (int, bool, str):
        return type(value) is py or (
            isinstance(value, py) and not isinstance(value, (bool, enum.Enum))
        )
    if py is type(None):
        return value is None
    return isinstance(value, py)


def _same(value: Any, member: Any) -> bool:
    return type(value) is type(member) and value == member
