"""What a tool with a structured return annotation returned → a `ToolResult` that keeps its promise.

A tool whose return annotation has a schema (`Tool.output_schema`) promises
that `ToolResult.structured` is valid against it, for every annotation:
MCP clients check `structuredContent` against `outputSchema` and refuse the
call otherwise. So the value is turned into JSON data once, kept in
`structured` even when it is a string (`Literal["a", "b"]`, `str | int`) or
`None` (`int | None`), and checked against the schema. A value that does not
match its own annotation (real code's annotations are loose: a
`dict[str, str]` that also holds a dict) is still what the call gave: the
model reads its text, ok, and only `structured` is dropped (None), since it
would break the promise. The `toolkit` logger says so once per tool, naming
the path in the value and the annotation, for the developer to declare the
return as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from toolkit.core._aliases import JsonSchema
from toolkit.core._log import log_failure, log_warning
from toolkit.values._json import encode, to_jsonable, type_name
from toolkit.values._results import ToolResult, error_text, normalise, safe_text

from ._checker import Check, compile_check
from ._invalid import describe_errors, jsonschema_validator

__all__ = ["OutputCheck"]

_ROOT: Final = "(arguments): "  # how the argument checker names the root of a value


class OutputCheck:
    """Shapes and checks the results of one tool against its output schema; built once per tool."""

    def __init__(
        self,
        *,
        name: str,
        schema: JsonSchema,
        shown: str,
        rename: Callable[[Any], Any] | None = None,
    ) -> None:
        self.name = name
        self.schema = schema
        self.shown = shown
        self._rename = (
            rename  # puts aliased fields under their JSON keys (`key_renamer`)
        )
        self._validator: Any = None  # jsonschema's, built when first needed
        self._warned = False  # a value that does not fit was logged once
        self._valid: Check = compile_check(schema) or self._valid_by_jsonschema

    def result(self, value: Any) -> ToolResult:
        """The `ToolResult` for `value`, with `structured` valid against the schema, or an error.

        Never raises (but for `KeyboardInterrupt`): a value whose own code
        fails while it is read is an error result, as `normalise` makes it.
        """
        outcome = normalise(value, self.name)
        if outcome.is_error or (outcome.content and outcome.structured is None):
            return outcome  # content parts (an image, ...) are not a structured value
        if isinstance(value, str):  # the text it holds is the structured value too
            return self._checked(
                ToolResult(outcome.text, structured=outcome.text), value
            )
        if isinstance(
            value, ToolResult
        ):  # `outcome` is it, checked: read it, not `value`
            try:
                data = self._renamed(to_jsonable(outcome.structured, loose=True))
            except KeyboardInterrupt:
                raise
            except BaseException as error:  # the structured value's own code failed
                self._warn(outcome, safe_text(error) or error_text(error))
                return _unstructured(outcome)
            shaped = ToolResult(outcome.text, False, outcome.ui, data, outcome.content)
            return self._checked(shaped, outcome)
        if self._rename is not None:
            data = self._renamed(outcome.structured)
            outcome = ToolResult(encode(data), structured=data)
        return self._checked(outcome, value)

    def _renamed(self, data: Any) -> Any:
        return data if self._rename is None else self._rename(data)

    def _checked(self, outcome: ToolResult, value: Any) -> ToolResult:
        data = outcome.structured
        try:
            if self._valid(data):
                return outcome
            problem = self._problem(data)
        except RecursionError:
            problem = "it is nested too deeply to check"
        except Exception as error:  # a bug in a check must still not escape execute()
            log_failure("Checking the result of %r failed", self.name, error=error)
            problem = f"it could not be checked ({type_name(error)})"
        self._warn(value, problem)
        return _unstructured(outcome)

    def _valid_by_jsonschema(self, data: Any) -> bool:
        """The check of a schema that does not compile."""
        return bool(self._jsonschema().is_valid(data))

    def _jsonschema(self) -> Any:
        if self._validator is None:
            self._validator = jsonschema_validator(self.schema)
        return self._validator

    def _problem(self, data: Any) -> str:
        lines = describe_errors(self._jsonschema(), data)
        first = lines[0] if lines else "it does not fit the schema"
        return first.removeprefix(_ROOT)

    def _warn(self, value: Any, problem: str) -> None:
        """Tell the developer, the first time for this tool, that a value did not fit the annotation."""
        if not self._warned:
            self._warned = True
            kind = type_name(value)
            if isinstance(value, ToolResult):
                kind = f"ToolResult (structured: {type_name(value.structured)})"
            log_warning(
                "Tool %r returned a value of type %s that does not match its return "
                "annotation %s (%s): the model gets its text, without a structured "
                "value. Annotate the return as what the function gives (for example "
                "`dict[str, Any]`, or `Any` for no output schema)",
                self.name,
                kind,
                self.shown,
                problem,
            )


def _unstructured(outcome: ToolResult) -> ToolResult:
    """`outcome` without its structured value, which does not keep the output schema's promise."""
    return ToolResult(outcome.text, False, outcome.ui, None, outcome.content)
