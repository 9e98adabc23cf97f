"""No import cycles among the project's modules (the allowlist below has been empty since issue
19 broke the last ones; it stays for a cycle that would have to be allowed while its issue is
open).

The graph is grimp's (installed with import-linter, the dev extra). It holds every import a
module makes: at the top, inside functions and under `if TYPE_CHECKING:`, because a module that
imports another only inside a function, or only for its types, still depends on it. A cycle is a
strongly connected group of modules: each reaches every other by imports.

The allowlist only shrinks. A new cycle, or a module joining a listed one, fails the first test;
a listed cycle that was broken (or became smaller) fails the second until its entry is removed or
narrowed, so the list always says exactly what is left.
"""

from __future__ import annotations

from pathlib import Path

import grimp
import pytest

PACKAGES = ("protocol", "server", "terminal", "firmware_sim")

#: The cycles that remain, each with the issue that removes it: none. Remove an entry once its
#: cycle is broken; never add one.
ALLOWED_CYCLES: dict[frozenset[str], str] = {}


def _graph() -> grimp.ImportGraph:
    return grimp.build_graph(*PACKAGES, cache_dir=None)


def cycles(graph: grimp.ImportGraph) -> list[frozenset[str]]:
    """The strongly connected groups of two or more modules (Tarjan, without recursion)."""
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work: list[tuple[str, int]] = [(root, 0)]
        while work:
            module, position = work.pop()
            if position == 0:
                index[module] = low[module] = len(index)
                stack.append(module)
                on_stack.add(module)
            targets = edges.get(module, [])
            if position < len(targets):
                work.append((module, position + 1))
                target = targets[position]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[module] = min(low[module], index[target])
                continue
            if low[module] == index[module]:
                group: set[str] = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.add(member)
                    if member == module:
                        break
                if len(group) > 1:
                    found.append(frozenset(group))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[module])
    return found


def _loop(graph: grimp.ImportGraph, group: frozenset[str]) -> str:
    """The shortest import loop through the group's first module, for the failure message."""
    first = min(group)
    loops = []
    for target in graph.find_modules_directly_imported_by(first) & group:
        back = graph.find_shortest_chain(importer=target, imported=first, as_packages=False)
        if back:
            loops.append((first, *back))
    return " -> ".join(min(loops, key=lambda loop: (len(loop), loop)))


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return _graph()


def test_the_cycle_finder_finds_a_loop_and_nothing_else() -> None:
    graph = grimp.ImportGraph()
    for module in ("pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.d"):
        graph.add_module(module)
    graph.add_import(importer="pkg.a", imported="pkg.b")
    graph.add_import(importer="pkg.b", imported="pkg.c")
    graph.add_import(importer="pkg.c", imported="pkg.a")
    graph.add_import(importer="pkg.c", imported="pkg.d")
    assert cycles(graph) == [frozenset({"pkg.a", "pkg.b", "pkg.c"})]
    graph.remove_import(importer="pkg.c", imported="pkg.a")
    assert cycles(graph) == []


def test_the_graph_holds_imports_inside_functions_and_for_types(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "looped"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "first.py").write_text("def later():\n    from looped import second\n")
    (package / "second.py").write_text(
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from looped import first\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    graph = grimp.build_graph("looped", cache_dir=None)
    assert cycles(graph) == [frozenset({"looped.first", "looped.second"})]


def test_no_import_cycle_outside_the_allowlist(graph: grimp.ImportGraph) -> None:
    new = [
        _loop(graph, group)
        for group in cycles(graph)
        if not any(group <= allowed for allowed in ALLOWED_CYCLES)
    ]
    assert new == [], "import cycles (break them at their seam; do not add them to the list):\n" + (
        "\n".join(new)
    )


def test_the_allowlist_names_only_cycles_that_remain(graph: grimp.ImportGraph) -> None:
    found = cycles(graph)
    stale = []
    for allowed, issue in ALLOWED_CYCLES.items():
        remaining = frozenset().union(*(group for group in found if group <= allowed))
        if remaining != allowed:
            gone = ", ".join(sorted(allowed - remaining))
            stale.append(f"{issue}: no longer in a cycle: {gone}")
    assert stale == [], "narrow or remove these ALLOWED_CYCLES entries:\n" + "\n".join(stale)
