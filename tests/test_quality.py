"""The house rules: their step in `traveller test` (ruff, mypy, the import-linter layers run there,
before pytest), and a stdlib-only bridge."""

from __future__ import annotations

import ast
import shutil
import sys
import tomllib
from pathlib import Path

from server.ops.dev_cli import QUALITY_CHECKS

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ["protocol", "server", "terminal", "firmware_sim"]


def test_the_house_rules_are_a_step_of_traveller_test() -> None:
    """ruff, ruff format, the import-linter layers and mypy run before pytest in `traveller test`
    (and so in CI, .ci/run), not inside it (tests/cli/test_fast_tests.py runs the step); here:
    each has its configuration and its tool in this environment."""
    assert [(tool, args) for tool, args in QUALITY_CHECKS] == [
        ("ruff", ("check", ".")),
        ("ruff", ("format", "--check", ".")),
        ("lint-imports", ()),
        ("mypy", ()),
    ]
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]
    assert config["ruff"]["lint"]["select"]
    assert config["importlinter"]["contracts"]
    assert config["mypy"]["packages"]
    bin_dir = str(Path(sys.executable).parent)
    missing = [t for t, _ in QUALITY_CHECKS if shutil.which(t, path=bin_dir) is None]
    assert missing == [], f"not installed here (pip install -e '.[dev]'): {missing}"


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
