"""One word per concept: a class name is defined in one module of the shipped packages, but for
the few listed below, each with why it is still shared (ARCHITECTURE.md, Names).

The list only shrinks and holds at most three names. A new class named like one elsewhere fails
the first test; a listed name that is no longer shared fails the second until it is removed.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("protocol", "server", "terminal", "firmware_sim")
MOST_SHARED = 3

#: Class names defined in two modules, with the reason; at most MOST_SHARED, never longer.
SHARED: dict[str, tuple[frozenset[str], str]] = {}


@cache
def defined() -> dict[str, frozenset[str]]:
    """Every class name -> the modules defining it (top level, nested and private alike)."""
    found: dict[str, set[str]] = defaultdict(set)
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    found[node.name].add(path.relative_to(ROOT).as_posix())
    return {name: frozenset(modules) for name, modules in found.items()}


def shared() -> dict[str, frozenset[str]]:
    return {name: modules for name, modules in defined().items() if len(modules) > 1}


def test_no_class_name_is_defined_twice_but_the_listed_ones() -> None:
    assert len(SHARED) <= MOST_SHARED
    unexpected = {
        name: sorted(modules)
        for name, modules in shared().items()
        if name not in SHARED or modules != SHARED[name][0]
    }
    assert not unexpected, f"class names defined in more than one module: {unexpected}"


def test_every_listed_name_is_still_shared() -> None:
    """A name that is one class again leaves the list."""
    stale = sorted(
        name for name, (modules, _why) in SHARED.items() if shared().get(name) != modules
    )
    assert not stale, f"no longer shared, remove from SHARED: {stale}"


def test_the_scan_sees_classes() -> None:
    assert "server/core/models.py" in defined()["Event"]
    assert len(defined()) > 500
