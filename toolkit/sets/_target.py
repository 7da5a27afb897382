"""Loading TARGET, the tools a command or a server names: `file.py[:attr]` or `pkg.mod[:attr]`.

The command line and the MCP server (and each of its worker processes)
load their tools from such a name, so it lives here, below both.
"""

from __future__ import annotations

import importlib
import importlib.util
import pathlib
import sys
from types import ModuleType
from typing import Any

from toolkit.tools._tool import Tool

from ._toolset import ToolSet

__all__ = ["TargetError", "load_target", "split_target", "target_name"]


class TargetError(Exception):
    """The TARGET cannot be loaded or holds no tools."""


def load_target(target: str) -> ToolSet:
    """The tools named by TARGET, as a `ToolSet`.

    Raises:
        TargetError: The module cannot be found or imported, the attribute is
            missing, or there are no tools.
    """
    location, _, attribute = split_target(target)
    module = _import(location)
    if attribute:
        return _as_toolset(_attribute(module, attribute), target)
    return _module_tools(module, target)


def split_target(target: str) -> tuple[str, str, str]:
    """`file.py:attr` or `pkg.mod:attr`; a Windows drive letter's colon is not a separator."""
    head, sep, tail = target.rpartition(":")
    if sep and tail and not tail.startswith(("\\", "/")) and len(head) > 1:
        return head, sep, tail
    return target, "", ""


def target_name(target: str) -> str:
    """The name a server of TARGET goes by: `path/to/tools.py:tools` → `tools`; `pkg.tools` → `pkg.tools`."""
    location = split_target(target)[0]
    return pathlib.Path(location).stem if location.endswith(".py") else location


def _import(location: str) -> ModuleType:
    path = pathlib.Path(location)
    if location.endswith(".py") or path.is_file():
        return _import_file(path)
    if path.is_dir() and not _is_package(location, path):
        msg = f"{location} is a folder, give a .py file or a module"
        raise TargetError(msg)
    if str(pathlib.Path.cwd()) not in sys.path:
        sys.path.insert(0, str(pathlib.Path.cwd()))
    try:
        return importlib.import_module(location)
    except ImportError as error:
        msg = f"cannot import {location!r}: {error}"
        raise TargetError(msg) from None


def _is_package(location: str, path: pathlib.Path) -> bool:
    """`pkg.sub` naming a folder with an `__init__.py` is a module; `pkg/sub` is a path."""
    dotted = all(part.isidentifier() for part in location.split("."))
    return dotted and (path / "__init__.py").is_file()


def _import_file(path: pathlib.Path) -> ModuleType:
    if not path.is_file():
        msg = f"no such file: {path}"
        raise TargetError(msg)
    name = path.stem
    spec = importlib.util.spec_from_file_location(name, path.resolve())
    if spec is None or spec.loader is None:
        msg = f"cannot load {path} as a Python module"
        raise TargetError(msg)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.resolve().parent))
    sys.modules[name] = module  # postponed annotations are resolved through sys.modules
    try:
        spec.loader.exec_module(module)
    except Exception as error:
        msg = f"importing {path} failed: {type(error).__name__}: {error}"
        raise TargetError(msg) from None
    return module


def _attribute(module: ModuleType, attribute: str) -> Any:
    value: Any = module
    for part in attribute.split("."):
        if not hasattr(value, part):
            msg = f"{module.__name__!r} has no attribute {attribute!r}"
            raise TargetError(msg)
        value = getattr(value, part)
    return value


def _as_toolset(value: Any, target: str) -> ToolSet:
    if isinstance(value, ToolSet):
        return value
    if isinstance(value, Tool):
        return ToolSet([value])
    if (
        isinstance(value, (list, tuple))
        and value
        and all(isinstance(item, Tool) for item in value)
    ):
        return ToolSet(value)
    kind = (
        f"the class {value.__name__}"
        if isinstance(value, type)
        else f"a value of type {type(value).__name__}"
    )
    msg = f"{target} is {kind}, not a ToolSet, a Tool or a list of tools"
    raise TargetError(msg)


def _module_tools(module: ModuleType, target: str) -> ToolSet:
    tools = ToolSet()
    for value in list(vars(module).values()):
        candidates = list(value) if isinstance(value, ToolSet) else [value]
        for item in candidates:
            if isinstance(item, Tool) and tools.get(item.name) is not item:
                try:
                    tools.add(item)
                except ValueError as error:
                    raise TargetError(str(error)) from None
    if not tools:
        msg = f"{target} defines no tools; decorate functions with @tool, or name a ToolSet with {target}:attribute"
        raise TargetError(msg)
    return tools
