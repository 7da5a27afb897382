"""Arguments that a tool cannot use as sent: repaired when they can be, else described.

Some clients send a JSON-encoded string for a list or an object (`"[1, 2]"`
for a `list[int]`). When decoding such strings makes the arguments valid,
the call goes on with the decoded values; otherwise the model gets one
message that lists every problem with its path, worded by `jsonschema`
(`describe_errors`). The checks that word the message are built on the
first call that needs them, so a tool whose calls are all valid never
builds them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

from toolkit.values._results import Refused, ToolResult, error_text, safe_text

if TYPE_CHECKING:
    from toolkit.core._aliases import JsonObject, JsonSchema
    from toolkit.hints._nodes import Field, TypeNode

    from ._checker import Check

__all__ = [
    "Refusal",
    "not_converted",
    "parse_arguments",
    "reject_constant",
    "too_deep",
    "unchecked",
]


class Refusal:
    """The repair and the message for one tool's arguments that fail its check.

    Args:
        name: The tool's name, for messages.
        parameters: The JSON Schema of its arguments.
        fields: Its parameters (none for `Tool.new`): a string sent for one
            that takes text is never decoded.
    """

    def __init__(
        self, name: str, parameters: JsonSchema, fields: tuple[Field, ...]
    ) -> None:
        from ._checker import property_checks
        from ._invalid import jsonschema_validator

        self.name = name
        self.parameters = parameters
        self.validator: Any = jsonschema_validator(parameters)
        self.checks: dict[str, Check] = property_checks(parameters)
        self.strings = frozenset(item.name for item in fields if _takes(item.node))

    def repaired(
        self, args: JsonObject, valid: Callable[[JsonObject], bool]
    ) -> JsonObject:
        """`args` with JSON-encoded strings decoded, when that makes them `valid`.

        Only an argument that is invalid as sent is decoded: `"null"` stays
        the text "null" for a parameter that takes text (`Path | None`),
        whatever the other arguments needed.

        Raises:
            Refused: Decoding does not make them valid; its result lists
                every problem of the arguments as sent.
        """
        import json

        decoded = dict(args)
        for key, value in args.items():
            if (
                not isinstance(value, str)
                or key in self.strings
                or self._valid_as_sent(key, value)
            ):
                continue
            try:
                decoded[key] = json.loads(value, parse_constant=reject_constant)
            except (ValueError, RecursionError):
                continue
        if decoded != args and valid(decoded):
            return decoded
        raise Refused(self.invalid(args))

    def _valid_as_sent(self, key: str, value: Any) -> bool:
        check = self.checks.get(key)
        if check is not None:
            return check(value)
        schema = self.parameters.get("properties", {}).get(key)
        if schema is None:
            return True  # an unknown argument: decoding it cannot help
        errors = self.validator.descend(value, schema, path=key)
        return next(errors, None) is None

    def invalid(self, args: Any) -> ToolResult:
        """The error result listing every problem of `args`, each with its path."""
        from ._invalid import describe_errors

        lines = describe_errors(self.validator, args, self.checks)
        listed = "\n".join(f"- {line}" for line in lines) or "- (arguments): invalid"
        return ToolResult.error(f'Invalid arguments for tool "{self.name}":\n{listed}')


def _takes(node: TypeNode) -> bool:
    """Whether a parameter of this type takes text (a `str`, or a union with one)."""
    from toolkit.hints._nodes import ScalarType, UnionType

    if isinstance(node, ScalarType):
        return node.py is str
    if isinstance(node, UnionType):
        return any(_takes(member) for member in node.members)
    return False


def too_deep(name: str) -> ToolResult:
    """The arguments nest deeper than Python's recursion limit lets toolkit check."""
    return ToolResult.error(f'Arguments for tool "{name}" are nested too deeply.')


def unchecked(name: str, error: Exception) -> ToolResult:
    """Checking the arguments failed (a container whose own code raised, or a bug)."""
    return ToolResult.error(
        f'Arguments for tool "{name}" could not be checked: {error_text(error)}'
    )


def not_converted(name: str, parameter: str, error: Exception) -> Refused:
    """A valid value that could not be made the annotated type (the value's own code raised)."""
    return Refused(
        ToolResult.error(
            f'Invalid arguments for tool "{name}":\n- {parameter}: {_problem(error)}'
        )
    )


def _problem(error: Exception) -> str:
    """Why a value could not be converted.

    The reason a converter gives, else the exception that a Python caller's
    object raised; its type alone when its text cannot be made.
    """
    text = safe_text(error)
    if text is None:
        return type(error).__name__
    lines = text.strip().splitlines()
    first = lines[0] if lines else type(error).__name__
    if isinstance(error, (ValueError, TypeError, ArithmeticError)):
        return first
    return f"{type(error).__name__}: {first}"


def reject_constant(constant: str) -> Any:
    """`parse_constant` for `json.loads`: NaN and Infinity are not JSON.

    Raises:
        ValueError: Always.
    """
    msg = f"{constant} is not a JSON value"
    raise ValueError(msg)


_NO_ARGS: Final = ("", "null")


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
            args = json.loads(text, parse_constant=reject_constant)
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
