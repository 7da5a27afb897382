"""A function's signature and docstring → its parameters, schema and description.

Every problem is collected and reported in one `ToolDefinitionError` that
names the function, each parameter at fault and the fix (pydantic-ai's
`function_schema` does the same). `Context` parameters are recognised by
their annotation before any schema is built, so they never reach it.
"""

from __future__ import annotations

import enum
import functools
import types
import typing
from collections.abc import Callable
from typing import Any, Final

from toolkit.core._aliases import JsonSchema
from toolkit.core._exceptions import ToolDefinitionError
from toolkit.hints._annotations import Translator, describe, get_hints, remember
from toolkit.hints._callables import (
    EMPTY,
    POSITIONAL_ONLY,
    VAR_KEYWORD,
    VAR_POSITIONAL,
    CallableInfo,
    Parameter,
)
from toolkit.hints._defaults import Default, read_default
from toolkit.hints._docstrings import Docstring, DocstringStyle, parse_docstring
from toolkit.hints._nodes import MISSING, Field, TypeNode

from ._fit import fits
from ._schema import SchemaBuilder, inline_root

__all__ = ["FunctionInfo", "analyze"]

_UNSTRUCTURED_RETURNS: Final = frozenset({str, type(None), None, EMPTY, typing.Any})


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
        returns: The docstring's Returns text, if any.
        return_shown: The return annotation as error messages show it, or None.
    """

    __slots__ = (
        "context",
        "description",
        "fields",
        "output_schema",
        "parameters",
        "positional_only",
        "return_node",
        "return_shown",
        "returns",
    )

    def __init__(
        self,
        *,
        fields: tuple[Field, ...],
        positional_only: frozenset[str],
        context: str | None,
        parameters: JsonSchema,
        description: str,
        output_schema: JsonSchema | None,
        return_node: TypeNode | None,
        returns: str | None = None,
        return_shown: str | None = None,
    ) -> None:
        self.returns = returns
        self.return_shown = return_shown
        self.fields = fields
        self.positional_only = positional_only
        self.context = context
        self.parameters = parameters
        self.description = description
        self.output_schema = output_schema
        self.return_node = return_node


def analyze(
    target: CallableInfo, *, docstring_style: DocstringStyle | None = None
) -> FunctionInfo:
    """Read a callable's signature, annotations and docstring.

    Args:
        target: The callable, as `resolve` read it.
        docstring_style: The docstring style; None detects it.

    Returns:
        The tool's view of the function.

    Raises:
        ToolDefinitionError: Listing every problem found, each with its fix.
    """
    return _Analysis(target, style=docstring_style).run()


class _Analysis:
    def __init__(self, target: CallableInfo, *, style: DocstringStyle | None) -> None:
        self.target = target
        self.func = target.source
        self.style = style
        self.problems: list[str] = []
        self.translator = Translator()
        self.contexts: list[str] = []

    def run(self) -> FunctionInfo:
        parameters = self.target.parameters
        hints = self._hints(parameters)
        docs = self._docstring()
        fields = [
            field
            for parameter in parameters
            if (field := self._field(parameter, hints, docs)) is not None
        ]
        if len(self.contexts) > 1:
            listed = ", ".join(repr(name) for name in self.contexts)
            self.problems.append(
                f"parameters {listed} are all annotated Context. Keep one Context parameter"
            )
        self._check_documented(docs, parameters)
        return_node = self._return_node(hints)
        if self.problems:
            raise ToolDefinitionError.collected(self.target.qualname, self.problems)
        info = self._build(fields, parameters, docs, return_node)
        if return_node is not None:
            info.return_shown = describe(hints["return"])
        return info

    def _build(
        self,
        fields: list[Field],
        parameters: list[Parameter],
        docs: Docstring,
        return_node: TypeNode | None,
    ) -> FunctionInfo:
        builder = SchemaBuilder()
        schema = builder.finish(builder.object_schema(fields))
        return FunctionInfo(
            fields=tuple(fields),
            positional_only=frozenset(
                p.name for p in parameters if p.kind == POSITIONAL_ONLY
            ),
            context=self.contexts[0] if self.contexts else None,
            parameters=schema,
            description=docs.description,
            output_schema=_output_schema(return_node, docs.returns),
            return_node=return_node,
            returns=docs.returns,
        )

    def _hints(self, parameters: list[Parameter]) -> dict[str, Any]:
        try:
            settled = _settled_hints(self.func)
            if settled is not None:
                return settled
            return get_hints(self.func)
        except NameError as error:
            hints: dict[str, Any] = {}
            for parameter in parameters:
                self._resolve_one(parameter, hints)
            if not self.problems:
                self.problems.append(
                    f"its annotations cannot be resolved ({error}). Define or import the missing name at module level"
                )
            return hints

    def _resolve_one(self, parameter: Parameter, hints: dict[str, Any]) -> None:
        annotation = parameter.annotation
        if annotation is EMPTY:
            return
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
        docs = parse_docstring(self.target.doc, style=self.style)
        if docs.unread:
            from toolkit.core._log import log_warning

            log_warning(
                "The docstring of %s has parts the docstring parser cannot read; "
                "they stay in the tool's description as they are: %s",
                self.target.qualname,
                " | ".join(" ".join(part.split()) for part in docs.unread),
            )
        return docs

    def _field(
        self, parameter: Parameter, hints: dict[str, Any], docs: Docstring
    ) -> Field | None:
        name = parameter.name
        if parameter.kind == VAR_POSITIONAL:
            self.problems.append(
                f"parameter '*{name}': *args cannot be sent by a model, which sends named arguments. Replace it with a parameter such as `{name}: list[...]`"
            )
            return None
        if parameter.kind == VAR_KEYWORD:
            self.problems.append(
                f"parameter '**{name}': **kwargs has no schema a model can follow. Replace it with named parameters, or with `{name}: dict[str, ...]`"
            )
            return None
        annotation = hints.get(name, Any)
        read = read_default(name, parameter.default, annotation, empty=EMPTY)
        if read is None:  # Python's own default, or none
            read = Default(annotation)
            read.value = MISSING if parameter.default is EMPTY else parameter.default
        try:
            node = self.translator.parameter(read.annotation)
            if node is None:
                self.contexts.append(name)
                return None
        except ToolDefinitionError as error:
            self.problems.append(f"parameter {name!r}: {error}")
            return None
        description = (
            node.meta.description
            if node.meta and node.meta.description
            else docs.params.get(name)
        )
        return self._field_default(
            read,
            Field(name=name, node=node, required=True, description=description),
            annotation,
        )

    def _field_default(self, read: Default, made: Field, annotation: Any) -> Field:
        """`made` with its default: Python's own, or the one a pydantic `Field` gave it."""
        if read.problem is not None:
            self.problems.append(read.problem)
        elif read.value is not MISSING and not fits(read.value, made.node):
            self.problems.append(_default_problem(made.name, read.value, annotation))
        made.required = read.required
        made.default = read.value
        made.factory = read.factory
        made.fill = read.fill
        return made

    def _check_documented(self, docs: Docstring, parameters: list[Parameter]) -> None:
        for name in docs.params:
            if name not in self.target.every:
                listed = ", ".join(p.name for p in parameters) or "none"
                self.problems.append(
                    f"the docstring documents a parameter {name!r} that the function does not have (its parameters: {listed}). Fix the name or remove it from the docstring"
                )

    def _return_node(self, hints: dict[str, Any]) -> TypeNode | None:
        annotation = hints.get("return", EMPTY)
        if _is_unstructured(annotation):
            return None
        try:
            return self.translator.translate(annotation)
        except ToolDefinitionError:
            return None  # an unsupported return type still runs; its value is serialised at run time


def _settled_hints(func: Callable[..., Any]) -> dict[str, Any] | None:
    """A plain function's annotations, resolved, when nothing unusual is in them.

    What `get_type_hints` would return, for less: a string annotation (as
    `from __future__ import annotations` makes them all) is evaluated in the
    function's globals from code compiled once per string, where
    `get_type_hints` compiles it again on every call. Without Python 3.10's
    implicit `Optional` for a `None` default, which would hide a default that
    does not fit. None (use `get_type_hints`) when an annotation holds a forward
    reference inside it.

    Raises:
        NameError: A string annotation names something that is not defined.
    """
    annotations = getattr(func, "__annotations__", None)
    if type(func) is not types.FunctionType or not isinstance(annotations, dict):
        return None
    hints: dict[str, Any] = {}
    for name, annotation in annotations.items():
        value = (
            eval(_compiled(annotation), func.__globals__)
            if isinstance(annotation, str)
            else annotation
        )  # as get_type_hints does
        if not _is_settled(value):
            return None
        hints[name] = type(None) if value is None else value
    return hints


@functools.lru_cache(maxsize=4096)
def _compiled(annotation: str) -> types.CodeType:
    return compile(annotation, "<annotation>", "eval")


def _is_settled(annotation: Any) -> bool:
    """Whether an annotation holds no string or forward reference (cached by value).

    Keyed by the annotation alone, although `Union[int, str] ==
    Union[str, int]`: the answer does not depend on the order of arguments.
    """
    try:
        known = _SETTLED.get(annotation)
    except TypeError:  # unhashable metadata
        return _check_settled(annotation)
    if known is None:
        known = remember(_SETTLED, annotation, _check_settled(annotation))
    return known


_SETTLED: dict[Any, bool] = {}


def _check_settled(annotation: Any) -> bool:
    """Walked with a stack of its own: an annotation may nest deeper than recursion can go."""
    pending = [annotation]
    while pending:
        item = pending.pop()
        if isinstance(item, type) or item is None:
            continue
        if isinstance(item, (str, typing.ForwardRef)):
            return False
        pending.extend(
            arg
            for arg in getattr(item, "__args__", ())
            if not isinstance(arg, (int, bool, float, enum.Enum, bytes, tuple))
        )
    return True


def _is_unstructured(annotation: Any) -> bool:
    try:
        if annotation in _UNSTRUCTURED_RETURNS:
            return True
    except TypeError:
        return False
    return getattr(annotation, "__name__", None) == "ToolResult"


def _output_schema(node: TypeNode | None, returns: str | None) -> JsonSchema | None:
    """The schema of what the function returns, with the Returns text as its description.

    A named object type is inlined at the root (its definition, not a `$ref`),
    so that the root says `"type": "object"`, as MCP's `outputSchema` must.
    """
    if node is None:
        return None
    builder = SchemaBuilder(output=True)
    schema = builder.schema(node)
    if returns:
        schema = {**schema, "description": returns}
    return inline_root(builder.finish(schema))


def _default_problem(name: str, default: Any, annotation: Any) -> str:
    shown = describe(annotation)
    if default is None:
        return f"parameter {name!r}: its default is None, which the annotation {shown} does not allow. Annotate it `{shown} | None`"
    return f"parameter {name!r}: its default {default!r} does not fit its annotation {shown}. Change the default or the annotation"
