"""The test harness keeps one copy of each shared helper, in tests/support: no test (nor a
conftest) imports a conftest, and the helpers that used to be copied are defined once."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

TESTS = Path(__file__).resolve().parent


@cache  # read and parsed once for both tests
def _modules() -> tuple[tuple[Path, ast.Module], ...]:
    return tuple((p, ast.parse(p.read_text(encoding="utf-8"), str(p))) for p in TESTS.rglob("*.py"))


def test_no_test_imports_a_conftest() -> None:
    offenders = [
        f"{path.relative_to(TESTS)}:{node.lineno}"
        for path, tree in _modules()
        for node in ast.walk(tree)
        if (isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == "conftest")
        or (
            isinstance(node, ast.Import)
            and any(a.name.split(".")[-1] == "conftest" for a in node.names)
        )
    ]
    assert offenders == [], "import the helpers from tests.support instead"


def test_the_shared_helpers_are_defined_once() -> None:
    defined: dict[str, list[str]] = {"free_port": [], "TD_PASSWORD": [], "uvicorn.Server": []}
    for path, tree in _modules():
        where = str(path.relative_to(TESTS))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.strip(
                "_"
            ) in ("free_port",):
                defined["free_port"].append(where)
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and t.id == "TD_PASSWORD" for t in targets):
                    defined["TD_PASSWORD"].append(where)
            elif (
                isinstance(node, ast.ClassDef)
                and any(ast.unparse(base) in ("uvicorn.Server", "Server") for base in node.bases)
            ) or (isinstance(node, ast.Call) and ast.unparse(node.func) == "uvicorn.Server"):
                defined["uvicorn.Server"].append(where)
    assert defined == {
        "free_port": ["support/net.py"],
        "TD_PASSWORD": ["support/env.py"],
        "uvicorn.Server": ["support/live.py"],
    }
