"""The outcome of a tool call: text for the model, UI side effects for the host.

`ToolResult.text` is all the model ever sees. `ui` is for the host's chat UI
(a note or a widget to open), and `structured` keeps the value a tool returned
before it became JSON text.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Literal, Protocol, TypeAlias, runtime_checkable

from toolkit.core._exceptions import ContentError
from toolkit.core._log import log_failure
from toolkit.core._record import Record, TextRecord

from ._content import PART_TYPES, Part, Text, as_parts, is_content, joined_text
from ._json import TooDeep, encode, refers_to_itself, to_jsonable, type_name

__all__ = [
    "UI",
    "Approval",
    "Refused",
    "TextUI",
    "ToolCall",
    "ToolResult",
    "Widget",
    "WidgetUI",
    "checked_result",
    "error_text",
    "normalise",
    "safe_text",
]

_set = object.__setattr__


class Approval(Record):
    """A call that waits for a human's approval (`ToolResult.approval`).

    Approve it with `ToolSet.approve(id)`, deny it with
    `ToolSet.deny(id, reason)`, or pass `approvals={id: True}` (or a reason
    to deny) to the next `ToolSet.run`; then send the same call again.

    Attributes:
        id: The approval's id (a signed token when the set has an `approval_key`).
        tool: The name of the tool the call names.
        arguments: The call's arguments, as the model sent them.
    """

    __match_args__ = ("id", "tool", "arguments")
    __slots__ = ("arguments", "id", "tool")
    id: str
    tool: str
    arguments: dict[str, Any]

    def __init__(
        self, id: str, tool: str, arguments: dict[str, Any]
    ) -> None:  # the field's name
        _set(self, "id", id)
        _set(self, "tool", tool)
        _set(self, "arguments", arguments)


@runtime_checkable
class Widget(Protocol):
    """A UI widget that a tool can pair with (its `widget=` option).

    Attributes:
        id: The widget's identifier; `WidgetUI.widget` names it.
    """

    id: str

    def render(self, data: Any) -> Any:
        """Render the widget's content from `data`."""
        ...


class TextUI(TextRecord):
    """A note shown in the chat UI, invisible to the model.

    Attributes:
        text: The note.
    """

    __slots__ = ()

    def to_dict(self) -> dict[str, Any]:
        """The host-UI form: `{"kind": "text", "text": ...}`."""
        return {"kind": "text", "text": self.text}


class WidgetUI(Record):
    """A button in the chat UI that opens a widget, invisible to the model.

    Attributes:
        label: The button's text, written for a person.
        widget: The `id` of the `Widget` to open.
        data: An initial snapshot for the widget's first paint, or None.
    """

    __match_args__ = ("label", "widget", "data")
    __slots__ = ("data", "label", "widget")
    label: str
    widget: str
    data: Any

    def __init__(self, label: str, widget: str, data: Any = None) -> None:
        _set(self, "label", label)
        _set(self, "widget", widget)
        _set(self, "data", data)

    def to_dict(self) -> dict[str, Any]:
        """The host-UI form: `{"kind": "widget", "label": ..., "widget": ..., "data": ...}`."""
        return {
            "kind": "widget",
            "label": self.label,
            "widget": self.widget,
            "data": self.data,
        }


UI: TypeAlias = TextUI | WidgetUI


class ToolResult(Record):
    """The outcome of one tool call.

    Attributes:
        text: What the model reads, for a success or a failure alike: the
            text of the `Text` parts when there are content parts.
        is_error: Whether the call failed.
        ui: A side effect for the host UI; never sent to the model.
        structured: The value the tool returned, when it was not text.
        content: The content parts (`Text`, `Image`, `Audio`, `File`,
            `Resource`, `ResourceLink`) in order, or empty when the result is
            text alone. Providers send them in their API's native shapes.
        approval: For a call that did not run because it waits for a
            human's approval, what to approve (`ToolSet.approve`); else None.
    """

    __match_args__ = ("text", "is_error", "ui", "structured", "content", "approval")
    __slots__ = ("approval", "content", "is_error", "structured", "text", "ui")
    text: str
    is_error: bool
    ui: UI | None
    structured: Any
    content: tuple[Part, ...]
    approval: Approval | None

    def __init__(
        self,
        text: str,
        is_error: bool = False,
        ui: UI | None = None,
        structured: Any = None,
        content: tuple[Part, ...] = (),
        approval: Approval | None = None,
    ) -> None:
        _set(self, "text", text)
        _set(self, "is_error", is_error)
        _set(self, "ui", ui)
        _set(self, "structured", structured)
        _set(self, "content", content)
        _set(self, "approval", approval)

    @property
    def status(self) -> Literal["ok", "error", "needs_approval"]:
        """`"needs_approval"` for a call waiting for approval, else `"error"` or `"ok"`."""
        if self.approval is not None:
            return "needs_approval"
        return "error" if self.is_error else "ok"

    @property
    def parts(self) -> tuple[Part, ...]:
        """The parts a provider sends for the result: its `content`, with its text first as a `Text` where no part is text; or the text alone, as one `Text`."""
        content = self.content
        if not content:
            return (Text(self.text),)
        if self.text and not any(isinstance(part, Text) for part in content):
            return (Text(self.text), *content)
        return content

    @classmethod
    def ok(
        cls,
        text: str = "",
        *,
        ui: UI | None = None,
        structured: Any = None,
        content: Iterable[Part | str] = (),
    ) -> ToolResult:
        """A successful result.

        Args:
            text: The text for the model; it becomes the first `Text` part
                when there are other parts.
            ui: A side effect for the host UI.
            structured: The value behind the text, if any.
            content: Parts to send beside the text (a `str` is a `Text`).

        Raises:
            ContentError: `content` holds something that is not a part or a str.
        """
        parts = as_parts(content)
        if not parts:
            return cls(text, False, ui, structured)
        if text:
            parts = (Text(text), *parts)
        return cls(joined_text(parts), False, ui, structured, parts)

    @classmethod
    def error(cls, reason: str, *, ui: UI | None = None) -> ToolResult:
        """A failed result; `reason` is what the model sees."""
        return cls(reason, True, ui)


class ToolCall(Record):
    """One call requested by a model.

    Attributes:
        id: The model's id for the call; its result must carry it back.
        name: The name of the tool to call: its own, or the name its API
            was sent for it (`Tool.wire_name`), as `parse_calls` reads it;
            a set finds the tool by either.
        args: The arguments as received: a dict, or a JSON string (OpenAI).
    """

    __match_args__ = ("id", "name", "args")
    __slots__ = ("args", "id", "name")
    id: str
    name: str
    args: Any

    def __init__(
        self, id: str, name: str, args: Any = None
    ) -> None:  # the providers' word
        _set(self, "id", id)
        _set(self, "name", name)
        _set(self, "args", args)


def checked_result(result: Any, who: str) -> ToolResult:
    """`result` if it is a `ToolResult` with `str` text, else an error result saying what `who` returned.

    A `str` subclass for the text becomes the plain text it holds, so that
    no overridden method of it runs later (truncation, providers).

    Raises:
        Exception: Reading the result's fields failed (a hostile subclass).
    """
    if not isinstance(result, ToolResult):
        return ToolResult.error(
            f"{who} returned {type_name(result)}, not a ToolResult."
        )
    text, is_error = result.text, result.is_error
    if type(text) is str and type(is_error) is bool:
        return result
    if not isinstance(text, str):
        return ToolResult.error(
            f"{who} returned a ToolResult whose text is {type_name(text)}, not str."
        )
    return ToolResult(
        str.__str__(text), bool(is_error), result.ui, result.structured, result.content
    )


def error_text(error: BaseException) -> str:
    """`"<ExceptionType>: <message>"`, or the type alone when the message is empty or cannot be read."""
    message = safe_text(error)
    name = type_name(error).rpartition(".")[2]
    return f"{name}: {message}" if message else name


def safe_text(value: object) -> str | None:
    """`str(value)` as a plain `str`, or None when the value's `__str__` fails."""
    try:
        text = str(value)
        return text if type(text) is str else str.__str__(text)
    except KeyboardInterrupt:
        raise
    except BaseException:  # a hostile __str__ must not break the call
        return None


class Refused(Exception):  # an outcome for the model, not a failure of toolkit
    """Arguments that cannot be used, with the error result that says why.

    Attributes:
        result: The error result for the model.
    """

    def __init__(self, result: ToolResult) -> None:
        super().__init__(result.text)
        self.result = result


# ------------------------------------------------------------------ what a tool returned


def normalise(value: Any, name: str) -> ToolResult:
    """What a tool returned → a `ToolResult`: text as is, parts as content, other values as JSON.

    A leaf JSON cannot hold (a `Decimal` is text already; an `mpmath` or
    `numpy` number, an arbitrary object, NaN, a dict key that is not text)
    is sent as its `str()`, as `fallback=str` does elsewhere: the call ran,
    and the model must read what it gave. Never raises (but for `KeyboardInterrupt`): a value that cannot be sent,
    whatever its methods do when read, is an error result naming the tool
    and the value's type.
    """
    if type(value) is str:
        return ToolResult(value)
    try:
        if isinstance(value, ToolResult):
            return checked_result(value, f'Tool "{name}"')
        if isinstance(value, str):
            return ToolResult(str.__str__(value))  # the text it holds; no override runs
        if is_content(value):
            return _content_result(value, name)
        try:
            data = to_jsonable(value)
        except TooDeep:
            raise
        except (TypeError, ValueError):  # a leaf JSON cannot hold: sent as its str()
            data = to_jsonable(value, loose=True)
        return ToolResult(encode(data), structured=data)
    except KeyboardInterrupt:
        raise
    except BaseException as error:  # the value's own code failed: this call's error
        return _unsendable(value, name, error)


def _unsendable(value: Any, name: str, error: BaseException) -> ToolResult:
    if isinstance(error, TooDeep) and refers_to_itself(value):
        reason = "it refers to itself"
    elif type(error) in (TypeError, ValueError, TooDeep):  # toolkit's own reasons
        reason = safe_text(error) or error_text(error)
    else:
        reason = error_text(error)
    log_failure("The value that tool %r returned cannot be sent", name, error=error)
    return ToolResult.error(
        f'Tool "{name}" returned a value of type {type_name(value)} that cannot be sent as JSON: {reason}'
    )


def _content_result(value: Any, name: str) -> ToolResult:
    """A returned part, or list of parts and strings → a result with `content`."""
    items = (value,) if isinstance(value, PART_TYPES) else value
    try:
        return ToolResult.ok(content=items)
    except ContentError as error:
        return ToolResult.error(
            f'Tool "{name}" returned content parts mixed with other values: {error}.'
        )
