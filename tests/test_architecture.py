"""The layout holds: layers import only downwards, no import cycles, small modules.

The import graph is read from the source (``ast``), so a rule is checked even for code no
other test happens to run. Imports inside functions and ``TYPE_CHECKING`` blocks count for
the layer rules (they still couple the layers) but not for cycles (they cannot deadlock an
import).
"""

from __future__ import annotations

import ast
import statistics
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.conftest import REPO

PACKAGE = REPO / "rackplanner"
QT = ("PySide6", "shiboken6", "pyqtgraph")
MAX_MODULE_LINES = 500
MAX_MEDIAN_MODULE_LINES = 200


@dataclass
class Module:
    name: str
    path: Path
    lines: int
    top_level: set[str] = field(default_factory=set)  # imported when the module is imported
    anywhere: set[str] = field(default_factory=set)  # every import, lazy and type-only included


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imported(node: ast.Import | ast.ImportFrom, known: set[str]) -> set[str]:
    """Modules a statement imports: ``from a.b import c`` names ``a.b.c`` when that is a module."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names}
    base = node.module or ""
    found = set()
    for alias in node.names:
        full = f"{base}.{alias.name}"
        found.add(full if full in known else base)
    return found


def _walk(body: list[ast.stmt], known: set[str], module: Module, *, top: bool) -> None:
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = _imported(node, known)
            module.anywhere |= names
            if top:
                module.top_level |= names
        elif isinstance(node, ast.If) and _is_type_checking(node):
            _walk(node.body, known, module, top=False)
            _walk(node.orelse, known, module, top=top)
        else:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    nested_top = top and isinstance(node, ast.If | ast.Try | ast.With)
                    _walk([child], known, module, top=nested_top)


def load_modules() -> dict[str, Module]:
    paths = sorted(PACKAGE.rglob("*.py"))
    modules = {_module_name(p): Module(_module_name(p), p, len(p.read_text().splitlines())) for p in paths}
    known = set(modules)
    for module in modules.values():
        _walk(ast.parse(module.path.read_text()).body, known, module, top=True)
    return modules


MODULES = load_modules()


def _under(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


def imports_of(package: str, *, anywhere: bool = True) -> set[tuple[str, str]]:
    """(importing module, imported module) for every module of ``package``."""
    return {
        (m.name, target)
        for m in MODULES.values()
        if _under(m.name, package)
        for target in (m.anywhere if anywhere else m.top_level)
    }


# Each package and what it may not import. Core's domains form layers: a lower one never
# reaches up (catalog < plan < machine < rack; capacity and bom sit on machine; the advisor
# sits on top of them all and on the analysis entry point).
FORBIDDEN = {
    "rackplanner.core": (*QT, "rackplanner.draw", "rackplanner.gui", "rackplanner.report", "rackplanner.bench"),
    "rackplanner.core.catalog": (
        "rackplanner.core.advise",
        "rackplanner.core.plan",
        "rackplanner.core.machine",
        "rackplanner.core.rack",
        "rackplanner.core.capacity",
        "rackplanner.core.bom",
        "rackplanner.core.analysis",
    ),
    "rackplanner.core.plan": (
        "rackplanner.core.advise",
        "rackplanner.core.machine",
        "rackplanner.core.rack",
        "rackplanner.core.capacity",
        "rackplanner.core.bom",
        "rackplanner.core.analysis",
    ),
    "rackplanner.core.machine": (
        "rackplanner.core.advise",
        "rackplanner.core.rack",
        "rackplanner.core.capacity",
        "rackplanner.core.bom",
        "rackplanner.core.analysis",
    ),
    "rackplanner.core.rack": (
        "rackplanner.core.capacity",
        "rackplanner.core.bom",
        "rackplanner.core.analysis",
        "rackplanner.core.advise",
    ),
    "rackplanner.core.capacity": (
        "rackplanner.core.rack",
        "rackplanner.core.bom",
        "rackplanner.core.analysis",
        "rackplanner.core.advise",
    ),
    "rackplanner.core.bom": ("rackplanner.core.capacity", "rackplanner.core.analysis", "rackplanner.core.advise"),
    "rackplanner.draw": ("rackplanner.gui", "rackplanner.report", "rackplanner.bench"),
    "rackplanner.report": ("rackplanner.gui", "rackplanner.bench"),
    "rackplanner.gui": ("rackplanner.bench",),
}


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_layer_imports_only_downwards(package: str) -> None:
    bad = sorted(
        f"{source} imports {target}"
        for source, target in imports_of(package)
        if any(_under(target, forbidden) for forbidden in FORBIDDEN[package])
    )
    assert not bad, "\n".join(bad)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles() -> None:
    graph = {m.name: {t for t in m.top_level if t in MODULES} for m in MODULES.values()}
    assert _cycles(graph) == []


def test_cycle_finder_finds_a_cycle() -> None:
    # The check above is only worth something if the finder sees a planted cycle.
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_graph_sees_the_real_imports() -> None:
    # Without this, a parser that found no imports would pass every rule above.
    analysis = MODULES["rackplanner.core.analysis"]
    assert "rackplanner.core.machine.topology" in analysis.top_level
    assert "rackplanner.core.plan.edits" in MODULES["rackplanner.gui.document"].top_level


def test_no_module_is_long() -> None:
    long = sorted(
        f"{m.path.relative_to(REPO)}: {m.lines} lines" for m in MODULES.values() if m.lines > MAX_MODULE_LINES
    )
    assert not long, "\n".join(long)


def test_modules_are_small_on_the_whole() -> None:
    median = statistics.median(m.lines for m in MODULES.values() if m.path.name != "__init__.py")
    assert median <= MAX_MEDIAN_MODULE_LINES, f"median module is {median} lines"
