"""What `tool(...)` was given → what to call, and where its signature lives.

A tool can be made of a plain or async function, a method decorated in its
class body, a bound method (`obj.method`, or a classmethod reached through
its class), a staticmethod, a `functools.partial` or an object with
`__call__`. Each is called as it was given, with the parameters its own
signature leaves (a bound method has no `self`, a partial none of the
arguments it binds); its annotations, docstring and globals are read from the
function that was written (`__func__`, `partial.func`, `type(obj).__call__`).

What cannot be called as a tool is refused here, with the fix: an instance
method taken from its class (nothing would be passed as `self`) and a
builtin whose signature Python cannot read.
"""

from __future__ import annotations

import functools
import sys
import types
from collections.abc import Callable, Collection
from typing import Any, Final

from toolkit.core._exceptions import ToolDefinitionError

_CO_COROUTINE: Final = 0x80  # inspect.CO_COROUTINE

__all__ = [
    "EMPTY",
    "KEYWORD_ONLY",
    "POSITIONAL",
    "POSITIONAL_ONLY",
    "VAR_KEYWORD",
    "VAR_POSITIONAL",
    "CallableInfo",
    "Parameter",
    "read_parameters",
    "resolve",
    "unbound_method_problem",
]

EMPTY: Final = object()  # no default, no annotation
_CO_VARARGS: Final = 0x04
_CO_VARKEYWORDS: Final = 0x08
_METHOD_FIRST: Final = frozenset({"self", "cls"})
_BUILTINS: Final = (
    types.BuiltinFunctionType,
    types.WrapperDescriptorType,
    types.MethodWrapperType,
    types.MethodDescriptorType,
    types.ClassMethodDescriptorType,
)
# Kinds of parameter, in signature order (as inspect.Parameter numbers them).
POSITIONAL_ONLY, POSITIONAL, VAR_POSITIONAL, KEYWORD_ONLY, VAR_KEYWORD = range(5)


class Parameter:
    """One parameter of a function: what `inspect.Parameter` says, for less."""

    __slots__ = ("annotation", "default", "kind", "name")

    def __init__(self, name: str, kind: int, default: Any, annotation: Any) -> None:
        self.name = name
        self.kind = kind
        self.default = default
        self.annotation = annotation


class CallableInfo:
    """A callable made ready to become a tool.

    Attributes:
        call: What a call of the tool runs, as it was given.
        source: The function whose annotations and globals are read.
        parameters: The parameters a call passes, in signature order.
        every: The names of every parameter `source` declares (what its
            docstring may document).
        name: The default tool name, or None when there is none.
        qualname: The name used in error messages.
        doc: The docstring that describes the tool.
        is_method: Defined in a class body with `self`/`cls` first, which
            `parameters` leaves out; binding fills it in.
        class_level: A classmethod or staticmethod object from a class body.
    """

    __slots__ = (
        "call",
        "class_level",
        "doc",
        "every",
        "is_method",
        "name",
        "parameters",
        "qualname",
        "source",
    )

    def __init__(
        self,
        *,
        call: Callable[..., Any],
        source: Any,
        parameters: list[Parameter],
        every: Collection[str],
        name: str | None,
        qualname: str,
        doc: str | None,
        is_method: bool = False,
        class_level: bool = False,
    ) -> None:
        self.call = call
        self.source = source
        self.parameters = parameters
        self.every = every
        self.name = name
        self.qualname = qualname
        self.doc = doc
        self.is_method = is_method
        self.class_level = class_level


def resolve(target: Any) -> CallableInfo:  # one line per kind of callable
    """Read what `tool(target)` needs to know about `target`.

    Raises:
        ToolDefinitionError: `target` cannot be called as a tool: an instance
            method taken from its class, a builtin without a signature, or
            something that is not callable.
    """
    if isinstance(target, classmethod):
        return _from_body(target.__func__, class_level=True, is_method=True)
    if isinstance(target, staticmethod):
        return _from_body(target.__func__, class_level=True, is_method=False)
    if type(target) is types.FunctionType:
        return _function(target)
    if isinstance(target, type):
        return _plain(target, target, name=target.__name__, doc=target.__doc__)
    if isinstance(target, types.MethodType):
        return _plain(target, _source(target), name=None, doc=None)
    if isinstance(target, functools.partial):
        return _partial(target)
    if isinstance(target, _BUILTINS):
        return _plain(target, target, name=None, doc=target.__doc__)
    if callable(target):
        return _callable_object(target)
    msg = f"@tool needs a function; got {target!r}"
    raise ToolDefinitionError(msg)


def unbound_method_problem(target: Any) -> str | None:
    """Why `target` cannot be a tool when it is an instance method taken from its class."""
    if (
        type(target) is not types.FunctionType
        or not _in_class(target)
        or _first_name(target) not in _METHOD_FIRST
    ):
        return None
    owner = target.__qualname__.rpartition(".")[0].rpartition(".")[2]
    return (
        f"it is an instance method taken from its class, so nothing would be passed "
        f"as {_first_name(target)!r}. Bind it: tool({owner}().{target.__name__}) "
        "(with any instance), or decorate the method with @tool in its class body"
    )


def _function(func: types.FunctionType) -> CallableInfo:
    """A function: a method when written in a class body with `self`/`cls` first."""
    if _in_class(func) and _first_name(func) in _METHOD_FIRST:
        if not _class_body_running(func):
            msg = f"Cannot make a tool of {func.__qualname__}: {unbound_method_problem(func)}"
            raise ToolDefinitionError(msg, function=func.__qualname__)
        return _from_body(func, class_level=False, is_method=True)
    return _plain(func, func, name=func.__name__, doc=func.__doc__)


def _from_body(func: Any, *, class_level: bool, is_method: bool) -> CallableInfo:
    """A function written in a class body, bound later (`self`/`cls` left out)."""
    made = _plain(func, func, name=None, doc=None)
    if is_method:
        made.parameters = made.parameters[1:]
    made.is_method, made.class_level = is_method, class_level
    return made


def _plain(
    call: Callable[..., Any], source: Any, *, name: str | None, doc: str | None
) -> CallableInfo:
    """A callable whose own signature lists exactly what a call passes."""
    parameters = _parameters(call, source)
    every = parameters if source is call else _parameters(source, source)
    return CallableInfo(
        call=call,
        source=source,
        parameters=parameters,
        every={item.name for item in every},
        name=name if name is not None else getattr(source, "__name__", None),
        qualname=_qualname(source),
        doc=doc if doc is not None else getattr(source, "__doc__", None),
    )


def _partial(target: functools.partial[Any]) -> CallableInfo:
    """Bound arguments, positional or by keyword, are not the model's to send."""
    made = _plain(target, _source(target), name=None, doc=None)
    bound = frozenset(target.keywords)
    made.parameters = [item for item in made.parameters if item.name not in bound]
    return made


def _callable_object(target: Any) -> CallableInfo:
    cls = type(target)
    source = _source(target)
    doc = getattr(source, "__doc__", None) or cls.__dict__.get("__doc__")
    made = _plain(target, source, name=cls.__name__, doc=doc)
    made.qualname = cls.__qualname__
    return made


def _source(target: Any) -> Any:
    """The function that was written, behind bound methods, partials and `__call__`."""
    for _ in range(100):  # a chain of wrappers this long is not a program's
        if isinstance(target, types.MethodType):
            target = target.__func__
        elif isinstance(target, functools.partial):
            target = target.func
        elif isinstance(target, (types.FunctionType, type, *_BUILTINS)):
            return target
        elif callable(target):
            target = type(target).__call__
        else:
            return target
    return target


def _parameters(call: Any, source: Any) -> list[Parameter]:
    try:
        return read_parameters(call)
    except (ValueError, TypeError) as error:
        qualname = _qualname(source)
        msg = (
            f"Cannot make a tool of {qualname}: Python cannot read its signature ({error}); "
            "builtins written in C often have none. Wrap it in a function with annotated "
            "parameters and call it from there"
        )
        raise ToolDefinitionError(msg, function=qualname) from None


def _qualname(source: Any) -> str:
    found = getattr(source, "__qualname__", None)
    return found if isinstance(found, str) else repr(source)


def _in_class(func: types.FunctionType) -> bool:
    """Whether `func` was written in a class body (its qualified name says so)."""
    parts = func.__qualname__.split(".")
    return len(parts) > 1 and parts[-2] != "<locals>"


def _first_name(func: types.FunctionType) -> str | None:
    parameters = read_parameters(func)
    if parameters and parameters[0].kind in (POSITIONAL_ONLY, POSITIONAL):
        return parameters[0].name
    return None


def _class_body_running(func: types.FunctionType) -> bool:
    """Whether the body of the class that defines `func` is running now.

    It is when `@tool` decorates a method in the class body. Once the class
    exists, `Cls.method` is a plain function that nothing will pass `self`
    to. A class body's frame is named after the class and holds its
    `__qualname__` among its locals.
    """
    owner = func.__qualname__.rpartition(".")[0]
    short = owner.rpartition(".")[2]
    frame: types.FrameType | None = sys._getframe(1)
    while frame is not None:
        if (
            frame.f_code.co_name == short
            and frame.f_locals.get("__qualname__") == owner
            and frame.f_globals.get("__name__") == func.__module__
        ):
            return True
        frame = frame.f_back
    return False


def read_parameters(func: Callable[..., Any]) -> list[Parameter]:
    """The parameters of `func` in signature order.

    A plain function is read from its code object, which is several times
    cheaper than `inspect.signature`; anything else (a wrapped function, a
    partial, a callable object) goes through `inspect.signature`.

    Raises:
        ValueError: Python cannot read the signature (some builtins).
        TypeError: `func` is not a callable with a signature.
    """
    code = getattr(func, "__code__", None)
    if (
        type(func) is not types.FunctionType
        or code is None
        or hasattr(func, "__wrapped__")
        or hasattr(func, "__signature__")
    ):
        return _inspect_parameters(func)
    names = code.co_varnames
    positional, positional_only, keyword_only = (
        code.co_argcount,
        code.co_posonlyargcount,
        code.co_kwonlyargcount,
    )
    defaults = func.__defaults__ or ()
    keyword_defaults = func.__kwdefaults__ or {}
    annotations = func.__annotations__
    first_default = positional - len(defaults)
    found = [
        Parameter(
            names[index],
            POSITIONAL_ONLY if index < positional_only else POSITIONAL,
            defaults[index - first_default] if index >= first_default else EMPTY,
            annotations.get(names[index], EMPTY),
        )
        for index in range(positional)
    ]
    extra = positional + keyword_only
    if code.co_flags & _CO_VARARGS:
        found.append(
            Parameter(
                names[extra],
                VAR_POSITIONAL,
                EMPTY,
                annotations.get(names[extra], EMPTY),
            )
        )
        extra += 1
    for name in names[positional : positional + keyword_only]:
        found.append(
            Parameter(
                name,
                KEYWORD_ONLY,
                keyword_defaults.get(name, EMPTY),
                annotations.get(name, EMPTY),
            )
        )
    if code.co_flags & _CO_VARKEYWORDS:
        found.append(
            Parameter(
                names[extra], VAR_KEYWORD, EMPTY, annotations.get(names[extra], EMPTY)
            )
        )
    return found


def _inspect_parameters(func: Callable[..., Any]) -> list[Parameter]:
    import inspect

    empty = inspect.Parameter.empty
    return [
        Parameter(
            item.name,
            int(item.kind),
            EMPTY if item.default is empty else item.default,
            EMPTY if item.annotation is empty else item.annotation,
        )
        for item in inspect.signature(func).parameters.values()
    ]


def is_async_callable(function: Callable[..., Any]) -> bool:
    """Whether calling `function` returns an awaitable (async def, or a callable object's async __call__)."""
    if type(function) is types.FunctionType:  # a plain function: its code says it
        return bool(function.__code__.co_flags & _CO_COROUTINE)
    import inspect

    if inspect.iscoroutinefunction(function):
        return True
    call = getattr(function, "__call__", None)  # noqa: B004  # an object with an async __call__
    return call is not None and inspect.iscoroutinefunction(call)
