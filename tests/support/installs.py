"""Running the CLI as a smaller install would: a child Python in which some installed
distributions' modules cannot be imported (a terminal without the server extra, a keypad-only
install)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from collections.abc import Iterable
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
OURS = frozenset({"protocol", "server", "terminal", "firmware_sim", "tests"})

#: The child: argv[1] names the hidden top-level modules (comma-separated), the rest is the
#: `traveller` command line.
_CHILD = """
import sys
HIDDEN = frozenset(sys.argv[1].split(","))

class Hidden:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in HIDDEN:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Hidden())
sys.argv = ["traveller", *sys.argv[2:]]
from server.ops.cli import main
main()
"""


def run_cli_without(
    hidden: Iterable[str],
    *args: str,
    env: dict[str, str] | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """`traveller ARGS` in a child Python that cannot import the ``hidden`` modules."""
    return subprocess.run(
        [sys.executable, "-c", _CHILD, ",".join(sorted(hidden)), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def _installed_with(requirements: list[str]) -> set[str]:
    """The distributions that installing ``requirements`` brings, transitively."""
    wanted = [Requirement(r) for r in requirements]
    found: set[str] = set()
    while wanted:
        req = wanted.pop()
        name = canonicalize_name(req.name)
        if name in found or (req.marker is not None and not req.marker.evaluate({"extra": ""})):
            continue
        found.add(name)
        try:
            wanted += [Requirement(r) for r in metadata.requires(req.name) or []]
        except metadata.PackageNotFoundError:  # pragma: no cover - required but not here
            continue
    return found


def modules_outside(extra: str) -> list[str]:
    """Top-level modules of installed distributions that the base install plus ``extra``
    (pyproject.toml) would not have."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    allowed = _installed_with([*project["dependencies"], *project["optional-dependencies"][extra]])
    hidden = []
    for module, dists in metadata.packages_distributions().items():
        if module in OURS or module in sys.stdlib_module_names:
            continue
        if not any(canonicalize_name(d) in allowed for d in dists):
            hidden.append(module)
    return sorted(hidden)
