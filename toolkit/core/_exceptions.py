"""The exceptions of toolkit, every one a subclass of `ToolkitError`.

```
ToolkitError
├── ToolDefinitionError (also ValueError)   a tool is defined wrongly; raised when it is defined
│   ├── DuplicateToolError                  a name is registered twice in one ToolSet
│   └── NotAToolError (also TypeError)      a ToolSet was given something that is not a Tool
├── ToolError                               raised by a tool to send a clean message to the model
└── ContentError (also ValueError)          a content part was made from bad input (not an image, ...)
```
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "ContentError",
    "DuplicateToolError",
    "NotAToolError",
    "ToolDefinitionError",
    "ToolError",
    "ToolkitError",
]


class ToolkitError(Exception):
    """The base of every exception that toolkit raises."""


class ToolDefinitionError(ToolkitError, ValueError):
    """A tool, a type or a schema is defined wrongly.

    Raised when the definition runs (decoration, `Tool.new`, registration),
    never later. The message names the function, each problem and its fix.

    Attributes:
        function: The qualified name of the function at fault, when there is one.
        problems: Each problem found, one sentence each, with its fix.
    """

    function: str | None
    problems: tuple[str, ...]

    def __init__(
        self, message: str, *, function: str | None = None, problems: Sequence[str] = ()
    ) -> None:
        super().__init__(message)
        self.function = function
        self.problems = tuple(problems) or (message,)

    @classmethod
    def collected(cls, function: str, problems: Sequence[str]) -> ToolDefinitionError:
        """Build one error that lists every problem found in `function`."""
        if len(problems) == 1:
            message = f"Cannot make a tool of {function}: {problems[0]}"
        else:
            lines = "\n".join(f"- {problem}" for problem in problems)
            message = f"Cannot make a tool of {function}:\n{lines}"
        return cls(message, function=function, problems=problems)


class DuplicateToolError(ToolDefinitionError):
    """A tool name is already taken in a `ToolSet`.

    Attributes:
        name: The name that is registered twice.
    """

    name: str

    def __init__(self, message: str, *, name: str) -> None:
        super().__init__(message)
        self.name = name


class NotAToolError(ToolDefinitionError, TypeError):
    """A `ToolSet` was given something that is not a `Tool`.

    A `TypeError` as well, since it is the wrong type of argument.
    """


class ToolError(ToolkitError):
    """Raise inside a tool to send exactly this message to the model as an error.

    Use it for failures the model can act on ("No city named 'Pariss'. Did you
    mean 'Paris'?"). Any other exception is reported as `"<Type>: <message>"`.

    Args:
        *args: The message, as for any exception.
        retry: The failure is transient: a tool with `retries=` runs the
            call again (the model sees only the last outcome).
    """

    def __init__(self, *args: object, retry: bool = False) -> None:
        super().__init__(*args)
        self.retry = retry


class ContentError(ToolkitError, ValueError):
    """A content part was made from input that cannot be one.

    For example `Image.from_bytes` of bytes that are not an image, or an
    `Image` with neither data nor a URL. Raised inside a tool, it becomes that
    call's error result like any other exception.
    """
