"""The pieces of one call: its arguments checked and converted, its result normalised.

`Invoker` is built once per tool (by its plan, `_plan.py`). `bind` turns the
model's arguments into the keyword arguments of the function (parse,
validate, convert, inject `Context`), or raises `Refused` with the error
result the model can act on. `normalise` turns what a tool returned into a
`ToolResult`. Nothing the model sends and nothing the tool returns escapes
as an exception but `KeyboardInterrupt`: a value that cannot be sent,
whatever its own methods do, is an error result too.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from ._checker import Check, compile_check, property_checks
from ._context import Context
from ._convert import Converter, Converters, null_stripper
from ._defaults import fresh
from ._invalid import describe_errors, jsonschema_validator
from ._log import log_failure
from ._nodes import Field, ScalarType, TypeNode, UnionType
from ._results import Refused, ToolResult, error_text, safe_text
from ._scalars import to_float, to_int
from ._types import JsonObject, JsonSchema

__all__ = [
    "Invoker",
    "error_text",
    "parse_arguments",
    "safe_text",
]

_NO_ARGS: Final = ("", "null")


def _refused_if_error(parsed: JsonObject | ToolResult) -> JsonObject:
    if isinstance(parsed, ToolResult):
        raise Refused(parsed)
    return parsed


class Invoker:
    """Validates, converts and calls for one tool; built once, used for every call."""

    def __init__(
        self,
        *,
        name: str,
        parameters: JsonSchema,
        fields: tuple[Field, ...] = (),
        context: str | None = None,
        positional: tuple[tuple[str, Any], ...] = (),
    ) -> None:
        self.name = name
        self.parameters = parameters
        self._check: Check | None = compile_check(parameters)
        self._validator: Any = None  # jsonschema's, built on the first invalid call
        self._by_parameter: dict[str, Check] | None = None
        self._converters: list[tuple[str, Converter]] = Converters().fields(fields)
        self._strip = (
            null_stripper(fields) if fields else _raw_null_stripper(parameters)
        )
        self._context = context
        self._stringly = frozenset(
            item.name for item in fields if _takes_strings(item.node)
        )
        self.positional = positional  # (name, default) of each, in order
        self._fill = tuple(
            (item.name, item.default, item.factory) for item in fields if item.fill
        )  # defaults the function does not have itself (pydantic's Field)

        self.direct = self._direct_check()
        """Set when valid arguments can be passed to the function as they are: the fast path."""

    def _direct_check(self) -> Check | None:
        """A check that, when true, lets valid arguments go to the function as they are.

        None when the tool always needs the full path (nulls to drop, values
        to convert, a Context to inject, positional-only parameters). Numbers
        only need converting when they arrive as the other kind (`3.0` for an
        int), so for them the check also asks that each already has its type.
        """
        check = self._check
        if (
            check is None
            or self._strip is not None
            or self._context is not None
            or self.positional
            or self._fill
        ):
            return None
        finals: dict[Converter, type] = {to_int: int, to_float: float}
        typed = [(name, finals.get(convert)) for name, convert in self._converters]
        if any(final is None for _, final in typed):
            return None
        if not typed:
            return check

        def direct(args: JsonObject) -> bool:
            if not check(args):
                return False
            for name, final in typed:
                value = args.get(name, final)
                if value is not final and type(value) is not final:
                    return False
            return True

        return direct

    # ------------------------------------------------------------ arguments

    def bind(self, args: Any, agent_id: str, call_id: str, deps: Any) -> dict[str, Any]:
        """The function's keyword arguments.

        Raises:
            Refused: The arguments cannot be used; its result tells the model why.
        """
        try:
            return self._bind(args, agent_id, call_id, deps)
        except Refused:
            raise
        except RecursionError:
            raise Refused(self._too_deep()) from None
        except Exception as error:  # a bug here must still not escape execute()
            log_failure("Checking the arguments of %r failed", self.name, error=error)
            raise Refused(self._unchecked(error)) from None

    def _bind(
        self, args: Any, agent_id: str, call_id: str, deps: Any
    ) -> dict[str, Any]:
        if type(args) is not dict:
            args = _refused_if_error(parse_arguments(self.name, args))
        if self._strip is not None:
            args = self._strip(args)
        if not self._valid(args):
            args = self._repair(args)
        kwargs = self._convert(args)
        if self._fill:
            kwargs = self._filled(kwargs)
        if self._context is None:
            return kwargs
        kwargs[self._context] = Context(agent_id, call_id, self.name, deps)
        return kwargs

    def _filled(self, kwargs: dict[str, Any]) -> dict[str, Any]:
        """Add the defaults the function does not have itself, for arguments left out."""
        missing = [item for item in self._fill if item[0] not in kwargs]
        if not missing:
            return kwargs
        kwargs = dict(kwargs)  # never the caller's dict
        for name, value, factory in missing:
            try:
                kwargs[name] = factory() if factory is not None else fresh(value)
            except Exception as error:
                log_failure("The default of %r failed", name, error=error)
                raise Refused(
                    ToolResult.error(
                        f'The default of "{name}" for tool "{self.name}" could not be made: {error_text(error)}'
                    )
                ) from None
        return kwargs

    def validate(self, args: Any) -> ToolResult | None:
        """None when `args` fit the schema, else the error result listing every problem."""
        try:
            return self._validate(args)
        except RecursionError:
            return self._too_deep()
        except Exception as error:  # a bug here must still not escape
            return self._unchecked(error)

    def _validate(self, args: Any) -> ToolResult | None:
        if type(args) is not dict:
            parsed = parse_arguments(self.name, args)
            if isinstance(parsed, ToolResult):
                return parsed
            args = parsed
        return None if self._valid(args) else self._invalid(args)

    def _too_deep(self) -> ToolResult:
        return ToolResult.error(
            f'Arguments for tool "{self.name}" are nested too deeply.'
        )

    def _unchecked(self, error: Exception) -> ToolResult:
        return ToolResult.error(
            f'Arguments for tool "{self.name}" could not be checked: {error_text(error)}'
        )

    def _valid(self, args: JsonObject) -> bool:
        if self._check is not None:
            return self._check(args)
        return bool(self._jsonschema().is_valid(args))

    def _jsonschema(self) -> Any:
        if self._validator is None:
            self._validator = jsonschema_validator(self.parameters)
        return self._validator

    def _invalid(self, args: Any) -> ToolResult:
        lines = describe_errors(self._jsonschema(), args, self._parameter_checks())
        listed = "\n".join(f"- {line}" for line in lines) or "- (arguments): invalid"
        return ToolResult.error(f'Invalid arguments for tool "{self.name}":\n{listed}')

    def _parameter_checks(self) -> dict[str, Check]:
        """A compiled check of each parameter, built on the first call that needs it."""
        if self._by_parameter is None:
            self._by_parameter = property_checks(self.parameters)
        return self._by_parameter

    def _repair(self, args: JsonObject) -> JsonObject:
        """Decode JSON-encoded strings sent for non-string parameters, when that makes them valid.

        Only an argument that is invalid as sent is decoded: `"null"` stays
        the text "null" for a parameter that takes text (`Path | None`),
        whatever the other arguments needed.
        """
        import json

        decoded = dict(args)
        for key, value in args.items():
            if (
                not isinstance(value, str)
                or key in self._stringly
                or self._valid_as_sent(key, value)
            ):
                continue
            try:
                decoded[key] = json.loads(value, parse_constant=_reject_constant)
            except (ValueError, RecursionError):
                continue
        if decoded != args and self._valid(decoded):
            return decoded
        raise Refused(self._invalid(args))

    def _valid_as_sent(self, key: str, value: Any) -> bool:
        check = self._parameter_checks().get(key)
        if check is not None:
            return check(value)
        schema = self.parameters.get("properties", {}).get(key)
        if schema is None:
            return True  # an unknown argument: decoding it cannot help
        errors = self._jsonschema().descend(value, schema, path=key)
        return next(errors, None) is None

    def _convert(self, args: JsonObject) -> dict[str, Any]:
        if not self._converters:
            return dict(args) if self._context is not None else args
        kwargs = dict(args)
        for name, convert in self._converters:
            if name in kwargs:
                try:
                    kwargs[name] = convert(kwargs[name])
                except RecursionError:
                    raise
                except Exception as error:  # the value's own code may raise anything
                    raise Refused(
                        ToolResult.error(
                            f'Invalid arguments for tool "{self.name}":\n- {name}: {_conversion_problem(error)}'
                        )
                    ) from None
        return kwargs

    # ------------------------------------------------------------ calling

    def call(self, function: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
        """Call `function` with the bound arguments (positional-only ones by position)."""
        if not self.positional:
            return function(**kwargs)
        return function(*self._pop_positional(kwargs), **kwargs)

    def _pop_positional(self, kwargs: dict[str, Any]) -> list[Any]:
        values: list[Any] = []
        pending: list[Any] = []
        for name, default in self.positional:
            if name in kwargs:
                values.extend(pending)
                pending.clear()
                values.append(kwargs.pop(name))
            else:
                pending.append(default)
        return values


def _raw_null_stripper(
    parameters: JsonSchema,
) -> Callable[[JsonObject], JsonObject] | None:
    """For a `Tool.new` schema: drop `null` for optional properties that do not accept it.

    A strict export makes every optional property nullable; `null` then means
    "not given".
    """
    required = set(parameters.get("required", ()))
    defs = {"$defs": parameters["$defs"]} if "$defs" in parameters else {}
    droppable = []
    for name, schema in parameters.get("properties", {}).items():
        check = compile_check({**schema, **defs}) if isinstance(schema, dict) else None
        if name not in required and check is not None and not check(None):
            droppable.append(name)
    if not droppable:
        return None

    def strip(args: JsonObject) -> JsonObject:
        if any(args.get(name, 0) is None for name in droppable):
            return {
                key: value
                for key, value in args.items()
                if not (value is None and key in droppable)
            }
        return args

    return strip


def _takes_strings(node: TypeNode) -> bool:
    if isinstance(node, ScalarType):
        return node.py is str
    if isinstance(node, UnionType):
        return any(_takes_strings(member) for member in node.members)
    return False


def _conversion_problem(error: Exception) -> str:
    """Why a value could not be converted.

    The reason a converter gives, else the exception that a Python caller's
    object raised.
    """
    if isinstance(error, (ValueError, TypeError, ArithmeticError)):
        return _first_line(error)
    try:
        return f"{type(error).__name__}: {_first_line(error)}"
    except Exception:  # an exception whose text cannot be made
        return type(error).__name__


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


def parse_arguments(name: str, args: Any) -> JsonObject | ToolResult:
    """Arguments as received (a dict, a JSON string, None) → a dict, or an error result."""
    import json

    if args is None:
        return {}
    if isinstance(args, (str, bytes, bytearray)):
        text = (
            args.decode("utf-8", "replace")
            if isinstance(args, (bytes, bytearray))
            else args
        )
        if text.strip() in _NO_ARGS:
            return {}
        try:
            args = json.loads(text, parse_constant=_reject_constant)
        except (ValueError, RecursionError) as error:
            return ToolResult.error(
                f'Arguments for tool "{name}" are not valid JSON: {error}'
            )
    if not isinstance(args, dict):
        kind = "array" if isinstance(args, list) else type(args).__name__
        return ToolResult.error(
            f'Arguments for tool "{name}" must be a JSON object of named arguments, got {kind}.'
        )
    return args


def _reject_constant(constant: str) -> Any:
    msg = f"{constant} is not a JSON value"
    raise ValueError(msg)
