"""The package's layering: no module imports one that imports it back.

Imports inside functions count (they run, only later), and so do the
provider table's imports by name; imports under `TYPE_CHECKING` do not.
"""

from __future__ import annotations

import ast
import pathlib

import toolkit
from toolkit import providers

ROOT = pathlib.Path(toolkit.__file__).parent


def _modules() -> dict[str, pathlib.Path]:
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = ["toolkit", *path.relative_to(ROOT).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for statement in node.body:
                skipped.update(id(inner) for inner in ast.walk(statement))
    return skipped


def _imports(name: str, path: pathlib.Path, modules: set[str]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    skipped = _type_checking_nodes(tree)
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
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
        f"toolkit.providers.{providers._MODULES.get(name, name)}"
        for name in providers.NAMES
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


def test_the_import_graph_has_no_cycle() -> None:
    graph = _graph()
    cycles = [cycle for name in graph if (cycle := _cycle_from(name, graph))]
    assert cycles == []


def test_the_check_sees_a_lazy_import_and_the_table() -> None:
    graph = _graph()
    assert "toolkit.providers.mcp._wire" in graph["toolkit.providers"]
    assert "toolkit._elicit" in graph["toolkit._context"]  # imported inside a method
    assert "toolkit._toolset" not in graph["toolkit.providers._common"]
    looped = {
        **graph,
        "toolkit._typing": graph["toolkit._typing"] | {"toolkit._context"},
    }
    assert _cycle_from("toolkit._context", looped) == [
        "toolkit._context",
        "toolkit._elicit",
        "toolkit._typing",
        "toolkit._context",
    ]
