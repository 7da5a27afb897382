"""The outcome of a tool call: text for the model, UI side effects for the host.

`ToolResult.text` is all the model ever sees. `ui` is for the host's chat UI
(the seed's `ui_content`), and `structured` keeps the value a tool returned
before it became JSON text.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, TypeAlias, runtime_checkable

__all__ = ["UI", "TextUI", "ToolCall", "ToolResult", "Widget", "WidgetUI"]


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


@dataclass(frozen=True, slots=True)
class TextUI:
    """A note shown in the chat UI, invisible to the model.

    Attributes:
        text: The note.
    """

    text: str

    def to_dict(self) -> dict[str, Any]:
        """The host-UI form: `{"kind": "text", "text": ...}`."""
        return {"kind": "text", "text": self.text}


@dataclass(frozen=True, slots=True)
class WidgetUI:
    """A button in the chat UI that opens a widget, invisible to the model.

    Attributes:
        label: The button's text, written for a person.
        widget: The `id` of the `Widget` to open.
        data: An initial snapshot for the widget's first paint, or None.
    """

    label: str
    widget: str
    data: Any = None

    def to_dict(self) -> dict[str, Any]:
        """The host-UI form: `{"kind": "widget", "label": ..., "widget": ..., "data": ...}`."""
        return {
            "kind": "widget",
            "label": self.label,
            "widget": self.widget,
            "data": self.data,
        }


UI: TypeAlias = TextUI | WidgetUI


@dataclass(frozen=True, slots=True)
class ToolResult:
    """The outcome of one tool call.

    Attributes:
        text: What the model sees, for a success or a failure alike.
        is_error: Whether the call failed.
        ui: A side effect for the host UI; never sent to the model.
        structured: The value the tool returned, when it was not text.
    """

    text: str
    is_error: bool = False
    ui: UI | None = None
    structured: Any = None

    @classmethod
    def ok(
        cls, text: str, *, ui: UI | None = None, structured: Any = None
    ) -> ToolResult:
        """A successful result."""
        return cls(text, False, ui, structured)

    @classmethod
    def error(cls, reason: str, *, ui: UI | None = None) -> ToolResult:
        """A failed result; `reason` is what the model sees."""
        return cls(reason, True, ui)


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One call requested by a model.

    Attributes:
        id: The model's id for the call; its result must carry it back.
        name: The name of the tool to call.
        args: The arguments as received: a dict, or a JSON string (OpenAI).
    """

    id: str
    name: str
    args: Any = None
