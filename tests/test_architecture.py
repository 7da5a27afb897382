"""The package's layering, what it reads of its dependencies, and how few modules a call crosses.

No module imports one that imports it back, counting every import: those
inside functions (they run, only later), those under `TYPE_CHECKING` (a
type names its module as surely as a call does) and the provider table's
imports by name. Each subpackage is a layer, and no layer imports a later
one (`LAYERS`). No module reads a dependency's
private names (`_private_uses` says the rule): those change without notice
in any release. The modules a call crosses are counted with
`sys.setprofile`, in every thread, never timed.
"""

from __future__ import annotations

import ast
import asyncio
import pathlib
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

import pytest

import toolkit
from toolkit import Tool, ToolCall, ToolResult, ToolSet, providers, tool

ROOT = pathlib.Path(toolkit.__file__).parent


def _modules() -> dict[str, pathlib.Path]:
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = ["toolkit", *path.relative_to(ROOT).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(name: str, path: pathlib.Path, modules: set[str]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = (
                    package.rsplit(".", node.level - 1)[0]
                    if node.level > 1
                    else package
                )
                base = f"{anchor}.{base}" if base else anchor
            names = {f"{base}.{alias.name}" for alias in node.names}
            found.update(names & modules or {base})
    return {each for each in found if each in modules and each != name}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    graph = {name: _imports(name, path, set(modules)) for name, path in modules.items()}
    graph["toolkit.providers"] |= {
        f"toolkit.providers.{name}" for name in providers.NAMES
    }
    return graph


def _cycle_from(start: str, graph: dict[str, set[str]]) -> list[str] | None:
    """A path of imports from `start` back to it, or None."""
    stack = [(start, [start])]
    seen: set[str] = set()
    while stack:
        name, path = stack.pop()
        for target in sorted(graph[name]):
            if target == start:
                return [*path, start]
            if target not in seen:
                seen.add(target)
                stack.append((target, [*path, target]))
    return None


LAYERS = (
    "core",
    "values",
    "hints",
    "schema",
    "run",
    "policies",
    "tools",
    "providers",
    "sets",
    "mcp",
    "cli",
)
"""The subpackages of toolkit, lowest first; the package, `__main__` and `testing` sit on top."""


def _layer(name: str) -> int:
    parts = name.split(".")
    return LAYERS.index(parts[1]) if parts[1:2] and parts[1] in LAYERS else len(LAYERS)


def test_no_layer_imports_a_later_one() -> None:
    graph = _graph()
    upward = sorted(
        f"{name} -> {target}"
        for name, targets in graph.items()
        for target in targets
        if _layer(target) > _layer(name)
    )
    assert upward == []


def test_every_module_is_in_a_layer_or_on_top() -> None:
    top = {
        name
        for name in _modules()
        if _layer(name) == len(LAYERS) and name.count(".") <= 1
    }
    assert top == {"toolkit", "toolkit.__main__", "toolkit.testing"}


def test_no_module_is_over_700_lines() -> None:
    """A module a reader takes in at once: past 700 lines, split it where its parts meet."""
    sizes = {
        path.relative_to(ROOT).as_posix(): len(path.read_text().splitlines())
        for path in ROOT.rglob("*.py")
    }
    assert {name: lines for name, lines in sizes.items() if lines > 700} == {}


def test_the_import_graph_has_no_cycle() -> None:
    graph = _graph()
    cycles = [cycle for name in graph if (cycle := _cycle_from(name, graph))]
    assert cycles == []


def test_the_check_sees_a_lazy_import_and_the_table() -> None:
    graph = _graph()
    assert "toolkit.providers.mcp" in graph["toolkit.providers"]
    assert (
        "toolkit.schema._elicit" in graph["toolkit.run._context"]
    )  # imported inside a method
    assert "toolkit.sets._toolset" not in graph["toolkit.providers._common"]
    assert (
        "toolkit.values._results" in graph["toolkit.tools._call"]
    )  # under TYPE_CHECKING too
    looped = {
        **graph,
        "toolkit.hints._annotations": graph["toolkit.hints._annotations"]
        | {"toolkit.run._context"},
    }
    assert _cycle_from("toolkit.run._context", looped) == [
        "toolkit.run._context",
        "toolkit.schema._elicit",
        "toolkit.hints._annotations",
        "toolkit.run._context",
    ]


# ------------------------------------------------------------------ one call


@tool
def greet(name: str) -> str:
    """Greet someone."""
    return f"Hello, {name}"


@tool
async def agreet(name: str) -> str:
    """Greet someone, async."""
    return f"Hello, {name}"


def _modules_entered(operation: Callable[[], Any]) -> set[str]:
    """The toolkit modules whose code runs in the second of two calls of `operation`, in any thread.

    The profile is set for new threads before the first call, so that the
    worker threads the first call starts report to it too.
    """
    root = str(ROOT)
    entered: set[str] = set()
    counting = False

    def profile(frame: Any, event: str, arg: Any) -> None:
        if counting and event == "call":
            path = frame.f_code.co_filename
            if path.startswith(root):
                entered.add(pathlib.Path(path).relative_to(ROOT).as_posix())

    threading.setprofile(profile)
    try:
        operation()  # warm: the tool's checks are built, the pool's thread started
        counting = True
        sys.setprofile(profile)
        try:
            operation()
        finally:
            sys.setprofile(None)
            counting = False
    finally:
        threading.setprofile(None)
    return entered


def _crossed(name: str) -> list[str]:
    """The modules a warm `ToolSet.run` of one call of the tool `name` enters."""
    made: Tool[..., Any] = greet if name == "greet" else agreet
    tools = ToolSet([made], max_threads=1)  # a pool whose thread starts in the test
    calls = [ToolCall("c1", made.name, {"name": "Ada"})]
    loop = asyncio.new_event_loop()
    results: list[list[ToolResult]] = []
    try:
        entered = _modules_entered(
            lambda: results.append(loop.run_until_complete(tools.run("a", calls)))
        )
    finally:
        loop.close()
    assert results == [[ToolResult("Hello, Ada")]] * 2
    return sorted(entered)


@pytest.mark.parametrize("name", ["greet", "agreet"], ids=["sync", "async"])
def test_a_warm_run_of_one_call_crosses_at_most_five_modules(name: str) -> None:
    """Counted in a process of its own: as a program runs it, with no OpenTelemetry SDK imported (the tests import one)."""
    code = f"from tests.test_architecture import _crossed; print(_crossed({name!r}))"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    entered = ast.literal_eval(done.stdout.strip().splitlines()[-1])
    assert len(entered) <= 5, entered


def _served() -> list[str]:
    """The modules a warm `tools/call` of `greet` enters, served by `build_server` to the official client in memory.

    The event loop's thread is profiled around the second call (the
    client's and the server's code run there, the tool in the pool's
    thread, which the first call started).
    """
    from mcp.client.client import Client

    from toolkit.mcp import build_server

    root = str(ROOT)
    entered: set[str] = set()
    texts: list[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        path = frame.f_code.co_filename
        if event == "call" and path.startswith(root):
            entered.add(pathlib.Path(path).relative_to(ROOT).as_posix())

    async def calls() -> None:
        async with Client(build_server(ToolSet([greet]))) as client:
            for count in range(2):
                if count:
                    sys.setprofile(profile)
                try:
                    result = await client.call_tool("greet", {"name": "Ada"})
                finally:
                    sys.setprofile(None)
                texts.append(result.content[0].text)  # type: ignore[union-attr]

    asyncio.run(calls())
    assert texts == ["Hello, Ada"] * 2
    return sorted(entered)


def test_a_warm_served_call_crosses_at_most_ten_modules() -> None:
    """Counted as for `run`, in a process of its own: the server's whole path, result's wire form included.

    Ten: the eight of the call and its wire form, and the host (`mcp/_host.py`,
    `run/_host.py`), which every served call has, since a call the tool makes may ask the client.
    """
    code = "from tests.test_architecture import _served; print(_served())"
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT.parent,  # where `mcp` is the SDK, not toolkit/mcp
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    entered = ast.literal_eval(done.stdout.strip().splitlines()[-1])
    assert "mcp/_server.py" in entered, entered
    assert "providers/mcp.py" in entered, entered
    assert len(entered) <= 10, entered


# ------------------------------------------------------------ dependencies' private names

DEPENDENCIES = frozenset(
    {
        "mcp",
        "mcp_types",
        "httpx2",
        "jwt",
        "cryptography",
        "starlette",
        "uvicorn",
        "sse_starlette",
        "pydantic",
        "pydantic_core",
        "jsonschema",
        "anyio",
    }
)
"""The packages whose private names toolkit must not touch."""

SDK_PRIVATE = frozenset(
    {
        "_server_instances",
        "_session_owners",
        "_task_group",
        "_lifespan_state",
        "_idle_timeout",
        "_request_streams",
        "_retry_interval",
        "_requests_in_flight",
        "_write_stream",
        "_connection",
    }
)
"""Private state of the MCP SDK's session manager, transport and session."""


NAMED_TUPLE = frozenset({"_asdict", "_fields", "_field_defaults", "_make", "_replace"})
"""A named tuple's public methods: underscored so that no field name collides."""


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _defined_names() -> set[str]:
    """Every name toolkit itself defines: functions, classes, variables, attributes, slots."""
    found: set[str] = set()
    for path in _modules().values():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                found.add(node.name)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                found.add(node.id)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                found.add(node.attr)
            elif isinstance(node, ast.arg):
                found.add(node.arg)
            elif isinstance(node, ast.Assign) and "__slots__" in ast.unparse(node):
                found.update(
                    item.value
                    for item in ast.walk(node.value)
                    if isinstance(item, ast.Constant) and isinstance(item.value, str)
                )
    return found


def _private_uses(tree: ast.AST, defined: set[str]) -> list[str]:
    """What `tree` reads of a dependency's private names, as `line: text`.

    The rule, kept simple:

    - an import from a dependency whose module path or imported name has a
      part with a leading underscore (`from mcp.server._x import y`,
      `from mcp.x import _y`, `import starlette._utils`);
    - an attribute whose name is private state of the MCP SDK
      (`SDK_PRIVATE`), on any object;
    - any other `x._name` where `x` is not `self`, `cls` or a module of
      the standard library imported by name (`sys._getframe`), and toolkit
      defines no `_name` of its own: the name can only be a dependency's;
    - the same names read by `getattr(x, "_name")` (or `hasattr`,
      `setattr`, `delattr`);
    - a string that is private state of the MCP SDK, however it is used.
    """
    found: list[str] = []
    modules = {
        (alias.asname or alias.name).split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name.split(".")[0] not in DEPENDENCIES
    }
    for node in ast.walk(tree):
        bad = False
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            parts = node.module.split(".")
            bad = parts[0] in DEPENDENCIES and (
                any(_private(part) for part in parts)
                or any(_private(alias.name) for alias in node.names)
            )
        elif isinstance(node, ast.Import):
            bad = any(
                alias.name.split(".")[0] in DEPENDENCIES
                and any(_private(part) for part in alias.name.split("."))
                for alias in node.names
            )
        elif isinstance(node, ast.Attribute) and _private(node.attr):
            bad = _foreign(node.value, node.attr, defined, modules)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr", "setattr", "delattr")
            and len(node.args) > 1
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and _private(node.args[1].value)
        ):
            bad = _foreign(node.args[0], node.args[1].value, defined, modules)
        elif isinstance(node, ast.Constant):
            bad = node.value in SDK_PRIVATE
        if bad:
            found.append(f"{getattr(node, 'lineno', 0)}: {ast.unparse(node)}")
    return found


def _foreign(owner: ast.expr, name: str, defined: set[str], modules: set[str]) -> bool:
    """Whether `owner.name` reads a private name that toolkit does not define."""
    if name in SDK_PRIVATE:
        return True
    if name in NAMED_TUPLE:
        return False
    mine = isinstance(owner, ast.Name) and owner.id in {"self", "cls", *modules}
    return not mine and name not in defined


def test_no_module_reads_a_private_name_of_a_dependency() -> None:
    """Every module of toolkit, by the rule of `_private_uses`."""
    defined = _defined_names()
    found = {
        name: uses
        for name, path in _modules().items()
        if (uses := _private_uses(ast.parse(path.read_text("utf-8")), defined))
    }
    assert found == {}


def test_the_private_name_check_sees_each_kind_of_use() -> None:
    source = """
from mcp.server._streamable_http_modern import handle_modern_request
from mcp.shared import _httpx_utils
import starlette._utils
from jsonschema import _keywords
manager._server_instances
transport._requests_in_flight
ctx.session._connection
self._connection
response._body
self._mine
tool._mine
sys._getframe
getattr(ctx.session, "_connection", None)
getattr(transport, "_terminated")
getattr(tool, "_mine")
NAMES = ("app", "_task_group")
"""
    uses = _private_uses(ast.parse("import sys\n" + source), {"_mine"})
    assert {use.split(": ", 1)[1] for use in uses} == {
        "from mcp.server._streamable_http_modern import handle_modern_request",
        "from mcp.shared import _httpx_utils",
        "import starlette._utils",
        "from jsonschema import _keywords",
        "manager._server_instances",
        "transport._requests_in_flight",
        "ctx.session._connection",
        "self._connection",
        "response._body",
        "getattr(ctx.session, '_connection', None)",
        "'_connection'",
        "getattr(transport, '_terminated')",
        "'_task_group'",
    }
    assert (
        _private_uses(ast.parse("from toolkit.values._json import encode"), set()) == []
    )
