"""What a tool with a structured return annotation returned → a `ToolResult` that keeps its promise.

A tool whose return annotation has a schema (`Tool.output_schema`) promises
that `ToolResult.structured` is valid against it, for every annotation:
MCP clients check `structuredContent` against `outputSchema` and refuse the
call otherwise. So the value is turned into JSON data once, kept in
`structured` even when it is a string (`Literal["a", "b"]`, `str | int`) or
`None` (`int | None`), and checked against the schema. A value that does not
match its own annotation is an error result naming the tool, the annotation
and the value's type, as the developer needs to see it.
"""

from __future__ import annotations

from typing import Any, Final

from ._execute import normalise
from ._json import to_jsonable
from ._log import log_failure
from ._results import ToolResult
from ._types import JsonSchema
from ._validation import Check, compile_check, describe_errors, jsonschema_validator

__all__ = ["OutputCheck"]

_ROOT: Final = "(arguments): "  # how the argument checker names the root of a value


class OutputCheck:
    """Shapes and checks the results of one tool against its output schema; built once per tool."""

    def __init__(self, *, name: str, schema: JsonSchema, shown: str) -> None:
        self.name = name
        self.schema = schema
        self.shown = shown
        self._check: Check | None = compile_check(schema)
        self._validator: Any = None  # jsonschema's, built when first needed

    def result(self, value: Any) -> ToolResult:
        """The `ToolResult` for `value`, with `structured` valid against the schema, or an error."""
        if isinstance(value, str):
            text = str(value)
            return self._checked(ToolResult(text, structured=text), value)
        outcome = normalise(value, self.name)
        if outcome.is_error or (outcome.content and outcome.structured is None):
            return outcome  # content parts (an image, ...) are not a structured value
        if isinstance(value, ToolResult):
            try:
                data = to_jsonable(outcome.structured)
            except (TypeError, ValueError, RecursionError) as error:
                return self._mismatch(value, str(error))
            outcome = ToolResult(outcome.text, False, outcome.ui, data, outcome.content)
        return self._checked(outcome, value)

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
            problem = f"it could not be checked ({type(error).__name__})"
        return self._mismatch(value, problem)

    def _valid(self, data: Any) -> bool:
        if self._check is not None:
            return self._check(data)
        return bool(self._jsonschema().is_valid(data))

    def _jsonschema(self) -> Any:
        if self._validator is None:
            self._validator = jsonschema_validator(self.schema)
        return self._validator

    def _problem(self, data: Any) -> str:
        lines = describe_errors(self._jsonschema(), data)
        first = lines[0] if lines else "it does not fit the schema"
        return first.removeprefix(_ROOT)

    def _mismatch(self, value: Any, problem: str) -> ToolResult:
        kind = type(value).__qualname__
        if isinstance(value, ToolResult):
            kind = f"ToolResult (structured: {type(value.structured).__qualname__})"
        return ToolResult.error(
            f'Tool "{self.name}" returned a value of type {kind} that does not match '
            f"its return annotation {self.shown}: {problem}"
        )
