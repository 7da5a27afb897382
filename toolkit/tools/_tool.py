"""`Tool` and the `@tool` decorator (a tool's model-facing view, `AITool`, is `_views`'s).

A `Tool` is built either from an annotated function (`@tool`), whose schema
and description come from the signature and docstring and are checked when
the decorator runs, or from raw parts with `Tool.new`: a name, a description,
a JSON Schema and a function that takes the decoded arguments, for tools
defined at runtime. Either way the model sees only `to_ai_tool()`.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import (
    TYPE_CHECKING,
    Any,
    Concatenate,
    Final,
    Generic,
    Literal,
    ParamSpec,
    Protocol,
    TypeVar,
    cast,
    overload,
)

from toolkit.core._aliases import JsonSchema
from toolkit.core._exceptions import ToolDefinitionError
from toolkit.core._frozen import freeze
from toolkit.core._log import log_warning
from toolkit.run._host import hosted
from toolkit.run._running import run_blocking
from toolkit.values._results import ToolResult, Widget

from ._call import ExecuteFn, ToolRunner
from ._names import RULES, check_name, sent_as_is, sent_name
from ._options import (
    DecoratorOptions,
    NewOptions,
    ToolOptions,
    check_namespace,
    check_options,
    check_timeout,
)
from ._views import AITool, model_description

if TYPE_CHECKING:  # the modules that make and run tools load when first needed
    from typing_extensions import Self, Unpack

    from toolkit.hints._callables import CallableInfo
    from toolkit.hints._docstrings import DocstringStyle
    from toolkit.policies._policies import Rate
    from toolkit.run._context import Context

__all__ = [
    "AITool",
    "ClassLevelTool",
    "ExecuteFn",
    "Tool",
    "ToolDecorator",
    "check_namespace",
    "tool",
    "unbound_method_error",
]

P = ParamSpec("P")
P2 = ParamSpec("P2")
R = TypeVar("R")
R2 = TypeVar("R2")
T = TypeVar("T", bound="Tool[Any, Any]")

ErrorFormatter = Callable[["Tool[Any, Any]", BaseException], str]
"""Turns a tool's exception into the text the model sees (see `ToolSet(error_formatter=...)`)."""


def unbound_method_error(item: Tool[Any, Any]) -> ToolDefinitionError | None:
    """The error of using a method tool read from its class (`Calendar.events`), else None.

    Such a tool has no instance to pass as `self`: every call would fail,
    so a set refuses it when it is added and an export when it is asked for.
    """
    if not item._runner.is_method:
        return None
    shown = str(getattr(item, "__qualname__", item.name))
    owner, _, method = shown.rpartition(".")
    msg = (
        f"{shown} is a method tool read from its class, so no instance would be "
        f"passed as its first parameter and every call would fail. Read it from an "
        f"instance: {owner or 'TheClass'}().{method} (any instance will do)"
    )
    return ToolDefinitionError(msg, function=shown)


_VIEWED: Final = frozenset({"name", "description", "parameters", "returns"})
_PLAIN_SOURCES: Final = frozenset({"name", "defer_loading"})
TOOL_CHANGES: Final = [0]
"""How many times a made tool's name, description, parameters, returns or
`defer_loading` was assigned: a set's kept exports, and its decision that
its tools are all `_plain`, are made again when this moved."""
_POLICY_OPTIONS: Final = frozenset(
    {"requires_approval", "max_concurrency", "rate", "retries", "retry_on"}
)


class Tool(Generic[P, R]):
    """An executable tool: the model-facing schema plus the code that runs.

    Made by `@tool` from a function or by `Tool.new` from raw parts. Calling a
    tool made by `@tool` calls the function unchanged.

    Attributes:
        name: The tool's name, unique within a `ToolSet`: 1 to 128 printable
            characters without whitespace. An API that takes fewer is sent
            `wire_name(format)` instead.
        description: What the tool does, for the model.
        parameters: The JSON Schema (Draft 2020-12) of the arguments.
        execute_fn: `execute_fn(agent_id, call_id, args)`, sync or async.
        widget: The UI widget paired with this tool, or None.
        output_schema: The JSON Schema of a structured return value, or None.
        returns: What the tool returns, for the model (the docstring's Returns
            text), or None. Exports carry it, apart from `description`.
        title: A human-readable title (MCP `title`), or None.
        timeout: Seconds a call may take in `aexecute`/`run`, or None.
        sequential: Run alone, never beside other calls of the same `run`.
        thread: Run a sync function in a worker thread from async code.
        read_only: MCP hint: the tool does not modify its environment.
        destructive: MCP hint: the tool may destroy data.
        idempotent: MCP hint: repeating a call has no further effect.
        open_world: MCP hint: the tool reaches outside systems.
        requires_approval: True, or `(arguments, context) -> bool`: a call
            runs only once a human approved it (see `ToolSet.approve`).
        max_concurrency: At most this many calls at once, or None.
        rate: At most so many calls in a window (a `Rate`), or None.
        retries: Tries after the first for a retryable failure (idempotent
            tools only).
        retry_on: Exception classes worth a retry, besides
            `ToolError(..., retry=True)`; only with `retries`.
        task: `"optional"` or `"required"`: over MCP, a task for clients
            that negotiated the tasks extension; None: never a task.
        defer_loading: Not sent up front: found by tool search, then sent.
        namespace: The group of tools it belongs to, or None.
        remote_name: For a tool of an MCP server (`mcp.connect`), the name
            the server knows it by, which its `tools/call` requests carry;
            None for a local tool. It differs from `name` when the server's
            name is not a tool name (whitespace, over 128 characters), or
            the set was `prefixed`.
    """

    name: str
    description: str
    parameters: JsonSchema
    execute_fn: ExecuteFn
    # Copied from the function by functools.update_wrapper (tools made by @tool).
    __name__: str
    __qualname__: str
    __wrapped__: Callable[..., Any]
    # The options (`ToolOptions`), with their defaults.
    output_schema: JsonSchema | None = None
    returns: str | None = None
    widget: Widget | None = None
    title: str | None = None
    timeout: float | None = None
    sequential: bool = False
    thread: bool = True
    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None
    requires_approval: bool | Callable[[dict[str, Any], Context[Any]], bool] = False
    max_concurrency: int | None = None
    rate: Rate | None = None
    retries: int = 0
    retry_on: tuple[type[BaseException], ...] = ()
    task: Literal["optional", "required"] | None = None
    defer_loading: bool = False
    namespace: str | None = None
    remote_name: str | None = None
    _runner: ToolRunner
    _views: dict[str, Any]
    _plain: bool

    def __init__(
        self,
        *,
        name: str,
        description: str,
        parameters: JsonSchema,
        execute_fn: ExecuteFn,
        **options: Unpack[NewOptions],
    ) -> None:
        check_options(dict(options), NewOptions, f"Tool {name!r}")
        self._define(check_name(name), description, parameters, options)
        self._use(ToolRunner(self, execute_fn=execute_fn))

    def _define(
        self, name: str, description: str, parameters: JsonSchema, options: Any
    ) -> None:
        """Hold the parts and the options (the name and the options' names checked); check the options' values."""
        state = self.__dict__  # a new tool has no views to forget: no `__setattr__`
        state.update(options, name=name, description=description)
        state["parameters"] = parameters
        state["_views"] = {}  # the views providers keep with it (`_views.kept_views`)
        if "timeout" in options:
            state["timeout"] = check_timeout(self.timeout, name)
        if options.keys() & _POLICY_OPTIONS:
            from toolkit.policies._policies import check_policies

            check_policies(self)
        if self.task not in (None, "optional", "required"):
            msg = f'task of tool {name!r} is {self.task!r}. Pass "optional", "required" or None'
            raise ToolDefinitionError(msg)
        if "namespace" in options:
            check_namespace(self.namespace, f"tool {name!r}")

    @classmethod
    def new(
        cls,
        *,
        name: str,
        description: str,
        parameters: JsonSchema,
        execute_fn: ExecuteFn,
        **options: Unpack[NewOptions],
    ) -> Tool[..., Any]:
        """Build a tool from raw parts: a name, a description, a schema and a function.

        Args:
            name: The tool name: 1 to 128 printable characters without
                whitespace (`math.factorial` too; see `wire_name`).
            description: What the tool does, for the model.
            parameters: An `object` JSON Schema, valid against Draft 2020-12.
            execute_fn: Called as `execute_fn(agent_id, call_id, args)` with the
                JSON-decoded args; sync or async; returns a `ToolResult` or text.
            **options: The options of every tool (`ToolOptions`: `widget`,
                `title`, `timeout`, ...), `output_schema` (a JSON Schema of
                the structured result) and `returns` (what the tool returns,
                said to the model).

        Returns:
            The tool.

        Raises:
            ToolDefinitionError: A bad name, a schema that is not an object
                schema or is invalid, an `output_schema` that is invalid or
                refers outside itself, an `execute_fn` that is not callable,
                or an unknown option.
        """
        _check_new(name, parameters, execute_fn, options)
        return cls(
            name=name,
            description=description,
            parameters=freeze(parameters),
            execute_fn=execute_fn,
            **options,
        )

    if not TYPE_CHECKING:  # mypy keeps checking the attributes assigned

        def __setattr__(self, name: str, value: Any) -> None:
            # The views that providers keep with the tool (`_views.kept_views`)
            # are built from these four: a new value makes them again.
            object.__setattr__(self, name, value)
            if name in _VIEWED and "_views" in self.__dict__:
                self.__dict__["_views"] = {}
                TOOL_CHANGES[0] += 1
            if name in _PLAIN_SOURCES and "_runner" in self.__dict__:
                self._use(self._runner)
                TOOL_CHANGES[0] += 1

    def _use(self, runner: ToolRunner) -> None:
        """Run calls with `runner` (how a call runs; `execute_fn` is the runner's).

        Also decides `_plain`: whether a set can take the tool and export it
        as it is, with no check of it (no method read from its class, not
        deferred, a name no API renames), so that a set of such tools
        decides once that it has none to check (`Registry.plain`).
        """
        # None is a view's source: no views to forget, no `__setattr__`.
        self.__dict__.update(
            _runner=runner,
            execute_fn=runner.execute_fn,
            _plain=not (runner.is_method or self.defer_loading)
            and sent_as_is(self.name),
        )

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        """Call the underlying function unchanged."""
        function = self._runner.function
        if function is None:
            msg = f"Tool {self.name!r} was made with Tool.new and has no function to call; use execute()"
            raise TypeError(msg)
        return function(*args, **kwargs)  # type: ignore[no-any-return]

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> Self: ...

    @overload
    def __get__(
        self: Tool[Concatenate[Any, P2], R2],
        instance: object,
        owner: type | None = None,
    ) -> Tool[P2, R2]: ...

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        """Bind a method tool to an instance, dropping `self`."""
        if not self._runner.is_method or instance is None:
            return self
        return _bound_to(self, instance, owner)

    def _copy(self) -> Self:
        clone = object.__new__(type(self))
        clone.__dict__.update(self.__dict__)
        clone.__dict__["_views"] = {}
        return clone

    def renamed(self, name: str) -> Self:
        """A copy of this tool under another name (messages and `Context` use the new one).

        Raises:
            ToolDefinitionError: `name` is not a valid tool name.
        """
        return self._changed(
            name=check_name(name, function=getattr(self, "__qualname__", None))
        )

    def marked(
        self, *, defer_loading: bool | None = None, namespace: str | None = None
    ) -> Self:
        """This tool, or a copy of it with `defer_loading` and `namespace` set to the values given.

        Raises:
            ToolDefinitionError: `namespace` is not a valid namespace name.
        """
        changes: dict[str, Any] = {}
        if defer_loading is not None and defer_loading != self.defer_loading:
            changes["defer_loading"] = bool(defer_loading)
        if namespace is not None and namespace != self.namespace:
            changes["namespace"] = check_namespace(namespace, f"tool {self.name!r}")
        return self._changed(**changes) if changes else self

    def _changed(self, **attributes: Any) -> Self:
        """A copy of this tool with other `attributes`, and a runner of its own."""
        clone = self._copy()
        for key, value in attributes.items():
            setattr(clone, key, value)
        clone._use(self._runner.for_tool(clone))
        return clone

    # ---------------------------------------------------------- execution

    def validate_args(self, args: Any) -> ToolResult | None:
        """Check arguments against `parameters`, as `execute` reads them.

        `null` for a parameter that may be left out but cannot be None
        means "not given" here too (OpenAI's strict mode sends it), so it is
        valid. `execute` also decodes a JSON-encoded string when that makes
        the call valid; this answers for the arguments as sent.

        Args:
            args: The arguments as the model sent them: a dict or a JSON string.

        Returns:
            None when they are valid, else an error `ToolResult` listing every
            problem with its path, ready to return from an `execute_fn`.
        """
        return self._runner.binder().validate(args)

    def execute(
        self,
        agent_id: str,
        call_id: str,
        args: Any,
        *,
        deps: Any = None,
        host: object = None,
    ) -> ToolResult:
        """Validate, convert, run and normalise one call, from sync code.

        Never raises for anything the model sent or the tool did (whatever
        it raises or returns): every failure becomes an error result.
        `KeyboardInterrupt` propagates. An async tool runs on an event loop
        of its own; `timeout` is enforced.

        Args:
            agent_id: The agent that runs the call.
            call_id: The model's id for the call.
            args: The arguments as received: a dict, or a JSON string.
            deps: Passed to a `Context` parameter as `deps`.
            host: What the `Context`'s progress, log, sample and elicit
                reach: any object with some of the `Host` methods.

        Returns:
            The result: text for the model, plus `ui` and `structured`.
        """
        steps = self._runner.aexecute(
            agent_id, call_id, args, deps, None, blocking=True
        )
        if host is None:  # the current host, if any, stays (a third of a µs less)
            return run_blocking(steps)
        with hosted(host, on_loop=False):
            return run_blocking(steps)

    async def aexecute(
        self,
        agent_id: str,
        call_id: str,
        args: Any,
        *,
        deps: Any = None,
        host: object = None,
    ) -> ToolResult:
        """Like `execute`, from async code.

        A sync function runs in a worker thread of toolkit's pool (unless
        `thread=False`), so the event loop is never blocked. On `timeout` the
        result is an error; a sync tool's thread cannot be killed and is left
        to finish. `KeyboardInterrupt` and the cancellation of the awaiting
        task propagate; a `CancelledError` the tool raises itself is its
        error result.
        """
        steps = self._runner.aexecute(agent_id, call_id, args, deps, None)
        if host is None:  # the current host, if any, stays
            return await steps
        with hosted(host, on_loop=True):
            return await steps

    def wire_name(self, format: str) -> str:
        """The name an export for `format` sends, and the API calls the tool by.

        The name itself where the API takes it (MCP takes every name); else
        a name it takes: other characters as `_`, a `_` first where the API
        wants a letter first, and a name over the API's limit cut to end
        with a short hash of the whole name. `ToolSet.run` and the
        providers' `handle` find the tool by either name.

        Raises:
            ValueError: The format is unknown.
        """
        if format not in RULES:
            msg = f"Unknown export format {format!r}; use one of {', '.join(RULES)}"
            raise ValueError(msg)
        return sent_name(self, format)

    def to_ai_tool(self) -> AITool:
        """The model-facing view: name, description, parameters (no `execute_fn`).

        The description ends with the Returns text, if any, as a last
        `Returns: ...` paragraph.
        """
        return AITool(self.name, model_description(self), self.parameters)

    def __repr__(self) -> str:
        return f"Tool(name={self.name!r})"


class ClassLevelTool(Tool[P, R]):
    """A tool made from a `classmethod` or `staticmethod`.

    Its schema never had `cls`, and reading it from the class or an instance
    gives a tool with the same signature (a classmethod bound to the class).
    """

    def __get__(self, instance: object, owner: type | None = None) -> Self:
        """Bind a classmethod tool to its class; a staticmethod tool is returned as is."""
        if not self._runner.is_method:
            return self
        return _bound_to(self, owner if owner is not None else type(instance), owner)


def _bound_to(tool: T, instance: object, owner: type | None) -> T:
    """A copy of a method tool whose calls go to its function bound to `instance`.

    `Tool.__get__` binds to an instance, `ClassLevelTool.__get__` to a class.
    """
    bound = tool._copy()
    bound._use(tool._runner.bound_to(bound, instance, owner))
    return bound


def _check_new(
    name: str, parameters: object, execute_fn: object, options: NewOptions
) -> None:
    """Check the parts given to `Tool.new`; freeze its output schema in `options`."""
    from toolkit.schema._schema import check_given_schemas

    check_given_schemas(name, parameters, options.get("output_schema"))
    if "output_schema" in options:
        options["output_schema"] = freeze(options["output_schema"])
    if not callable(execute_fn):
        msg = f"execute_fn of tool {name!r} is {execute_fn!r}, which cannot be called. Pass a function (agent_id, call_id, args) -> ToolResult"
        raise ToolDefinitionError(msg)


class ToolDecorator(Protocol):
    """What `tool(...)` with options returns: a decorator that makes a `Tool`."""

    @overload
    def __call__(self, func: classmethod[Any, P, R], /) -> ClassLevelTool[P, R]: ...
    @overload
    def __call__(self, func: staticmethod[P, R], /) -> ClassLevelTool[P, R]: ...
    @overload
    def __call__(self, func: Callable[P, R], /) -> Tool[P, R]: ...


@overload
def tool(func: classmethod[Any, P, R], /) -> ClassLevelTool[P, R]: ...


@overload
def tool(func: staticmethod[P, R], /) -> ClassLevelTool[P, R]: ...


@overload
def tool(func: Callable[P, R], /) -> Tool[P, R]: ...


@overload
def tool(**options: Unpack[DecoratorOptions]) -> ToolDecorator: ...


def tool(
    func: Callable[..., Any] | classmethod[Any, Any, Any] | None = None,
    /,
    **options: Unpack[DecoratorOptions],
) -> Tool[Any, Any] | ToolDecorator:
    """Make a `Tool` of an annotated function; use bare (`@tool`) or with options.

    The schema comes from the type hints, the description from the docstring.
    Everything is checked now: a bad definition raises `ToolDefinitionError`.

    Args:
        func: The function (when used bare): a plain or async function, a
            method in its class body, a bound method, a classmethod or
            staticmethod, a `functools.partial` or an object with `__call__`.
        **options: `name`, `description`, `docstring_style` and
            `output_schema=False` (`DecoratorOptions`), and the options of every tool
            (`ToolOptions`: `widget`, `title`, `timeout`, `sequential`,
            `thread`, and the MCP hints `read_only`, `destructive`,
            `idempotent`, `open_world`).

    Returns:
        The `Tool`, or a decorator that makes one.

    Raises:
        ToolDefinitionError: The function cannot be a tool (an instance method
            taken from its class, a builtin without a signature, a lambda
            without `name=` included), or an option is unknown; the message
            lists every problem and its fix.
    """
    check_options(dict(options), DecoratorOptions, "@tool")
    style = options.get("docstring_style")
    if style is not None and style not in _docstring_styles():
        msg = (
            f"docstring_style={style!r} is not one of {', '.join(_docstring_styles())}"
        )
        raise ToolDefinitionError(msg)

    def decorate(target: Any) -> Tool[Any, Any]:
        if isinstance(target, Tool):
            msg = f"{target.name!r} is already a Tool; apply @tool once"
            raise ToolDefinitionError(msg)
        resolved = _definition().resolve(target)
        kind = ClassLevelTool if resolved.class_level else Tool
        try:
            return _from_function(kind, resolved, **options)
        except RecursionError:
            raise _too_deep(resolved.qualname) from None

    return cast("ToolDecorator", decorate) if func is None else decorate(func)


class _Definition:
    """The functions that read a function to make a tool, from modules loaded on the first `@tool`."""

    def __init__(self) -> None:
        from toolkit.hints._callables import is_async_callable, resolve
        from toolkit.schema._signature import analyze

        self.resolve = resolve
        self.analyze = analyze
        self.is_async_callable = is_async_callable


@functools.cache
def _definition() -> _Definition:
    return _Definition()


def _docstring_styles() -> tuple[str, ...]:
    from toolkit.hints._docstrings import DOCSTRING_STYLES

    return DOCSTRING_STYLES


def _from_function(
    kind: type[Tool[Any, Any]],
    target: CallableInfo,
    *,
    name: str | None = None,
    description: str | None = None,
    docstring_style: DocstringStyle | None = None,
    output_schema: bool = True,
    **options: Unpack[ToolOptions],
) -> Tool[Any, Any]:
    """A tool of `kind` made from `target`: its signature and docstring read, its runner calling the function."""
    qualname = target.qualname
    if name is None and target.name == "<lambda>":
        # Every lambda has this name: the tool would reach models as `_lambda_`.
        problem = 'a lambda has no name a model could call the tool by. Pass name=, as in `tool(name="echo")(lambda q: q)`, or use a def'
        raise ToolDefinitionError.collected(qualname, [problem])
    tool_name = check_name(name if name is not None else target.name, function=qualname)
    definition = _definition()
    info = definition.analyze(target, docstring_style=docstring_style)
    said = info.description if description is None else description
    if not said.strip():
        # Not an error: much real code has no docstrings, and the tool works.
        log_warning(
            "Tool %r (%s) has no description, and models choose tools by it: "
            "add a docstring, or pass description=",
            tool_name,
            qualname,
        )
    made = kind.__new__(kind)  # the options' names were checked by `tool`
    made._define(
        tool_name,
        said,
        info.parameters,
        {
            **options,
            "output_schema": info.output_schema if output_schema else None,
            "returns": info.returns,
        },
    )
    func = target.call
    is_async = definition.is_async_callable(func)
    if made.timeout is not None and not made.thread and not is_async:
        msg = f"timeout={made.timeout:g} cannot stop the sync tool {tool_name!r}, which runs inline (thread=False). Drop the timeout, or let it run in a thread"
        raise ToolDefinitionError(msg, function=qualname)
    _wrap(made, target)  # before `_use`, which reads the name it may set
    made._use(
        ToolRunner(
            made,
            function=func,
            info=info,
            is_method=target.is_method,
            is_async=is_async,
        )
    )
    return made


def _too_deep(qualname: str) -> ToolDefinitionError:
    """Python's recursion limit was reached reading a tool's types (from a deep caller)."""
    msg = (
        f"Cannot make a tool of {qualname}: its types nest too deeply for Python's recursion "
        "limit to walk them from here. Use flatter types, or `dict[str, Any]` for the deep part"
    )
    return ToolDefinitionError(msg, function=qualname)


def _wrap(made: Tool[Any, Any], target: CallableInfo) -> None:
    """Give the tool the function's `__name__`, `__doc__`, `__wrapped__`, ...

    A function's own attributes (`__dict__`) are copied as `functools.wraps`
    does; an object's or a partial's are not, since they are its state
    (`name`, `timeout`, ...), not the function's, and would hide the tool's.
    """
    func = target.call
    # What `functools.update_wrapper` does, written to the tool's dict (none
    # of these is a view's source, so `__setattr__` has nothing to do).
    state = made.__dict__
    for attribute in functools.WRAPPER_ASSIGNMENTS:
        try:
            state[attribute] = getattr(func, attribute)
        except AttributeError:
            continue
    if type(func) is types.FunctionType or isinstance(func, types.MethodType):
        state.update(getattr(func, "__dict__", {}))
    state["__wrapped__"] = func
    if "__name__" not in state:
        state["__name__"] = target.name or made.name
    if "__qualname__" not in state:
        state["__qualname__"] = target.qualname
    if state.get("__doc__") is None and target.doc is not None:
        state["__doc__"] = target.doc
