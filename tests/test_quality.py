"""The house rules as tests: ruff, mypy, the import-linter layers, and a stdlib-only bridge."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["protocol", "server", "terminal", "firmware_sim"]


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:  # pragma: no cover - the dev extra installs them
        pytest.fail(f"{name} is not installed in this environment (pip install -e '.[dev]')")
    return found


def _run(*cmd: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)


def test_ruff_lint() -> None:
    proc = _run(_tool("ruff"), "check", *PACKAGES, "tests", "benchmarks")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_ruff_format() -> None:
    proc = _run(_tool("ruff"), "format", "--check", *PACKAGES, "tests", "benchmarks")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_mypy() -> None:
    proc = _run(_tool("mypy"))
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_import_layers() -> None:
    proc = _run(_tool("lint-imports"))
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_bridge_domain_imports_only_the_standard_library() -> None:
    allowed = set(sys.stdlib_module_names) | {"protocol"}
    offenders = []
    for path in sorted((ROOT / "protocol" / "bridge").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] not in allowed]
    assert offenders == []
