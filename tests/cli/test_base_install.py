"""A keypad-only install (`pip install traveller[keypad]`) runs the commands a keypad device
needs, and says which extra is missing for the rest.

Each command runs in a child Python that can import only what that install would have: the
standard library, this repository's packages, and the distributions named by the base
dependencies and the `keypad` extra in pyproject.toml, with everything they require in turn.
Every other installed distribution (the server's, the terminal's, the dev tools) is hidden.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
OURS = frozenset({"protocol", "server", "terminal", "firmware_sim", "tests"})


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


def _hidden_modules(extra: str) -> list[str]:
    """Top-level modules of installed distributions that the base install plus ``extra``
    would not have."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    allowed = _installed_with([*project["dependencies"], *project["optional-dependencies"][extra]])
    hidden = []
    for module, dists in metadata.packages_distributions().items():
        if module in OURS or module in sys.stdlib_module_names:
            continue
        if not any(canonicalize_name(d) in allowed for d in dists):
            hidden.append(module)
    return sorted(hidden)


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


def _traveller(hidden: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _CHILD, ",".join(hidden), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "LANG": "da_DK.UTF-8", "PYTHONPATH": str(ROOT)},
    )


@pytest.fixture(scope="module")
def keypad_install() -> list[str]:
    hidden = _hidden_modules("keypad")
    # The check means something only if the server's and the terminal's libraries are hidden.
    assert {"fastapi", "sqlalchemy", "textual", "uvicorn"} <= set(hidden)
    assert "serial" not in hidden
    return hidden


def test_the_cli_lists_its_commands(keypad_install: list[str]) -> None:
    done = _traveller(keypad_install, "--help")
    assert done.returncode == 0, done.stderr
    assert "keypad-sim" in done.stdout


def test_the_keypad_simulator_and_its_table_card_run(keypad_install: list[str]) -> None:
    sim = _traveller(
        keypad_install, "keypad-sim", "--port", "loop://", "--table", "1", "--seconds", "0.5"
    )
    assert sim.returncode == 0, sim.stderr
    assert "+----------------+" in sim.stdout  # the 2x16 display
    card = _traveller(keypad_install, "cards", "--device", "keypad")
    assert card.returncode == 0, card.stderr
    assert "ENT" in card.stdout


@pytest.mark.parametrize(("command", "extra"), [("demo", "server"), ("discover", "terminal")])
def test_a_command_of_another_extra_names_it(
    keypad_install: list[str], command: str, extra: str
) -> None:
    done = _traveller(keypad_install, command)
    assert done.returncode != 0
    assert f"traveller[{extra}]" in done.stderr
    assert "Traceback" not in done.stderr
    # In the user's language (LANG=da_DK): the catalogue was compiled, so Babel is there.
    assert "som ikke er installeret her" in done.stderr
