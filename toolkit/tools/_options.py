"""The options of a tool, declared once.

`ToolOptions` is what `Tool.new` takes beside the raw parts; `@tool` and
`ToolSet.tool` take the same plus `DecoratorOptions`' three. Type checkers
read the keyword arguments from these TypedDicts (`Unpack`), the docs read
their docstrings, and `check_options` refuses a misspelt one at run time.
Defaults live on `Tool` itself, as class attributes.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypedDict, TypeGuard

from toolkit.core._exceptions import ToolDefinitionError
from toolkit.policies._policies import Guarded
from toolkit.run._running import is_seconds

from ._names import sent_as_is

if TYPE_CHECKING:
    from toolkit.core._aliases import JsonObject, JsonSchema
    from toolkit.hints._docstrings import DocstringStyle
    from toolkit.policies._policies import Rate
    from toolkit.run._context import Context
    from toolkit.values._results import ToolResult as Result
    from toolkit.values._results import Widget

__all__ = [
    "DecoratorOptions",
    "ExecuteFn",
    "Formatter",
    "NewOptions",
    "Runnable",
    "ToolOptions",
    "check_namespace",
    "check_options",
    "check_timeout",
    "valid_namespace",
]


ExecuteFn = Callable[[str, str, "JsonObject"], "Result | str | Awaitable[Result | str]"]
"""`execute_fn(agent_id, call_id, args)`, sync or async, with the JSON-decoded args."""

Formatter = Callable[[Any, BaseException], str]
"""A set's `error_formatter`, given the tool and its exception (`ToolSet` types the tool)."""


class Runnable(Guarded, Protocol):
    """What a call reads of its tool, besides its policies (a `Tool` has it all)."""

    @property
    def description(self) -> str: ...

    @property
    def remote_name(self) -> str | None: ...

    @property
    def thread(self) -> bool: ...

    @property
    def parameters(self) -> JsonSchema: ...

    @property
    def output_schema(self) -> JsonSchema | None: ...


class ToolOptions(TypedDict, total=False):
    """How a tool runs and how hosts describe it; every option is optional.

    Attributes:
        widget: The UI widget paired with the tool (default: None).
        title: A human-readable title, for MCP hosts (default: None).
        timeout: Seconds a call may take from async code; then the result is
            an error (default: None, no limit).
        sequential: Never run beside other calls of the same `ToolSet.run`
            (default: False).
        thread: Run a sync function in a worker thread from async code; False
            runs it inline, for thread-affine libraries (default: True).
        read_only: MCP hint: the tool does not modify its environment.
        destructive: MCP hint: the tool may destroy data.
        idempotent: MCP hint: repeating a call has no further effect.
        open_world: MCP hint: the tool reaches outside systems.
        requires_approval: A call runs only after a human approved it: True,
            or a function `(arguments, context) -> bool` deciding per call
            (default: False).
        max_concurrency: At most this many calls at once; a call waits for
            a slot, never longer than `timeout` (default: None, no limit).
        rate: At most so many calls in a window, such as `"10/minute"` or
            `Rate(10, 60, per_agent=True)`; a call over it is an error result
            that says when to retry (default: None).
        retries: Run a call again this many times at most when it raises
            `ToolError(..., retry=True)` or one of `retry_on`, after a
            growing wait with jitter; only for `idempotent=True` tools
            (default: 0).
        retry_on: The exception classes that are worth a retry, with
            `retries` of 1 or more (default: ()).
        task: Over MCP, run as a task (the `io.modelcontextprotocol/tasks`
            extension) for clients that negotiated it: `"optional"` runs
            synchronously for other clients, `"required"` refuses them
            (default: None, never a task).
        defer_loading: Keep the tool out of the first request of a
            conversation: the model finds it with tool search, and it is
            sent from then on (default: False).
        namespace: The group the tool belongs to, for the APIs that group
            tools (OpenAI Responses) and for search (default: None). A
            prefixed set's tools are in the prefix's namespace.
    """

    widget: Widget | None
    title: str | None
    timeout: float | None
    sequential: bool
    thread: bool
    read_only: bool | None
    destructive: bool | None
    idempotent: bool | None
    open_world: bool | None
    requires_approval: bool | Callable[[dict[str, Any], Context[Any]], bool]
    max_concurrency: int | None
    rate: str | Rate | None
    retries: int
    retry_on: tuple[type[BaseException], ...]
    task: Literal["optional", "required"] | None
    defer_loading: bool
    namespace: str | None


class NewOptions(ToolOptions, total=False):
    """`Tool.new`'s options: those of every tool, plus what a function's annotations and docstring give.

    Attributes:
        output_schema: The JSON Schema of the structured results, or None.
        returns: What the tool returns, said to the model with the
            description (a docstring's Returns text), or None.
    """

    output_schema: JsonSchema | None
    returns: str | None


class DecoratorOptions(ToolOptions, total=False):
    """`@tool`'s options: those of every tool, plus what the function gives by default.

    Attributes:
        name: The tool name (default: the function's `__name__`).
        description: What the tool does (default: from the docstring).
        docstring_style: "google", "numpy", "rest" or "epydoc" (default: detected).
        output_schema: False to give the tool no output schema whatever its
            return annotation says, for an annotation looser than what the
            function returns: MCP then sends each value as it is, never
            flagged (default: True, the annotation's schema).
    """

    name: str | None
    description: str | None
    docstring_style: DocstringStyle | None
    output_schema: bool


def check_options(options: dict[str, Any], allowed: type, where: str) -> None:
    """Refuse an option that `allowed` (one of the TypedDicts above) does not declare.

    Raises:
        ToolDefinitionError: Names the unknown option, the closest known one,
            and every option that `where` takes.
    """
    known: frozenset[str] = allowed.__optional_keys__  # type: ignore[attr-defined]
    unknown = [key for key in options if key not in known]
    if not unknown:
        return
    import difflib

    close = difflib.get_close_matches(unknown[0], sorted(known), n=1)
    hint = f" Did you mean {close[0]!r}?" if close else ""
    msg = f"{where} has no option {unknown[0]!r}.{hint} Its options: {', '.join(sorted(known))}"
    raise ToolDefinitionError(msg)


def valid_namespace(namespace: object) -> TypeGuard[str]:
    """Whether `namespace` is a name every API takes for a group of tools: one every API takes for a tool."""
    return isinstance(namespace, str) and sent_as_is(namespace)


def check_namespace(namespace: object, where: str) -> str | None:
    """`namespace` (of `where`: "tool 'x'", "a ToolSet"), when it is None or a name every API takes for a group of tools."""
    if namespace is None or valid_namespace(namespace):
        return namespace
    msg = f"namespace of {where} is {namespace!r}. Use letters, digits, '_' or '-' (at most 64 characters, not starting with a digit or '-'), or None"
    raise ToolDefinitionError(msg)


# ---------------------------------------------------------------- decorator


def check_timeout(timeout: float | None, name: str) -> float | None:
    if timeout is None:
        return None
    if not is_seconds(timeout):
        msg = f"timeout of tool {name!r} is {timeout!r}. Pass a positive number of seconds, or None"
        raise ToolDefinitionError(msg)
    return float(timeout)
