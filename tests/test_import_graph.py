"""No import cycles among swagkit's modules (project rule: "No import cycles, function-level imports included").

Every ``.py`` file of the four folders is parsed with :mod:`ast` and every ``import``/``from ... import`` it holds
is an edge -- at module level, inside functions and under ``if TYPE_CHECKING:`` (a layering rule: the type checker
follows those too) --, relative ones resolved, ``from pkg import name`` to ``pkg.name`` when that is a module (else
to ``pkg``). ``importlib.import_module("...")`` calls are not edges: they are the deliberate call-time hops (the
runtime's debug mode into :mod:`swagkit.verify`), each documented where it is made. Importing ``a.b`` also
runs ``a/__init__``, but that implicit child -> parent edge is left out: a package's ``__init__`` re-exporting its
own modules would otherwise always be a cycle. A cycle is a strongly connected component of more than one module.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ("spec", "reference", "optimized", "verify")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(("swagkit", *parts))


def _modules() -> dict[str, Path]:
    """Every module of the four folders -> its file."""
    return {_module_name(p): p for folder in FOLDERS for p in sorted((ROOT / folder).rglob("*.py"))}


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement of ``tree``, at any depth."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node


def _edges(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The swagkit modules ``name`` (the module in ``path``) imports."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in _imports(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
            continue
        base = node.module or ""
        if node.level:
            anchor = package.split(".")
            anchor = anchor[: len(anchor) - (node.level - 1)]
            base = ".".join([*anchor, *([base] if base else [])])
        for alias in node.names:
            child = f"{base}.{alias.name}"
            out.add(child if child in modules else base)
    return {m for m in out if m in modules and m != name}


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _edges(name, path, modules) for name, path in modules.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            for succ in successors:
                if succ not in index:
                    index[succ] = low[succ] = len(index)
                    stack.append(succ)
                    on_stack.add(succ)
                    work.append((succ, iter(sorted(graph[succ]))))
                    break
                if succ in on_stack:
                    low[node] = min(low[node], index[succ])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component: list[str] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def _report(cycles: list[list[str]]) -> str:
    return "\n".join(f"import cycle of {len(c)} modules: {', '.join(c)}" for c in cycles)


def test_the_graph_sees_the_imports() -> None:
    """The parser finds what it must: relative, function-level and ``from pkg import module`` imports."""
    graph = _graph()
    assert "swagkit.spec.monoid" in graph["swagkit.spec.library"]  # from .monoid import Monoid
    assert "swagkit.spec.checkers" in graph["swagkit.spec.algorithms"]  # from .. import checkers
    assert "swagkit.optimized.spark.frames_exec" in graph["swagkit.optimized.spark.frames"]  # inside a function
    assert "swagkit.optimized" in graph["swagkit.verify.registry"] or any(
        m.startswith("swagkit.optimized.") for m in graph["swagkit.verify.registry"]
    )
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycle_in_the_four_folders() -> None:
    """No cycle anywhere in spec/, reference/, optimized/ and verify/ -- within a folder or across folders (the
    runtime, swagkit.optimized, reaches verification code only by a call-time ``importlib`` hop)."""
    cycles = _cycles(_graph())
    assert not cycles, _report(cycles)


def test_verify_is_a_graph_of_its_own_layers() -> None:
    """Spot checks of verify/'s layering: the trace and the replay format name no runner; the kinds name
    neither the registry nor the command line."""
    graph = _graph()
    reach = _reachable(graph)
    for low in ("swagkit.verify.trace", "swagkit.verify.replayfile", "swagkit.verify.kinds"):
        assert "swagkit.verify.runner" not in reach[low] and "swagkit.verify.cli" not in reach[low], low
    assert "swagkit.verify.registry" not in reach["swagkit.verify.kinds.base"]


def _reachable(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for start in graph:
        seen, todo = set(), [start]
        while todo:
            for succ in graph[todo.pop()]:
                if succ not in seen:
                    seen.add(succ)
                    todo.append(succ)
        out[start] = seen
    return out
