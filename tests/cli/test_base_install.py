"""A keypad-only install (`pip install traveller[keypad]`) runs the commands a keypad device
needs, and says which extra is missing for the rest.

Each command runs in a child Python that can import only what that install would have: the
standard library, this repository's packages, and the distributions named by the base
dependencies and the `keypad` extra in pyproject.toml, with everything they require in turn.
Every other installed distribution (the server's, the terminal's, the dev tools) is hidden.
"""

from __future__ import annotations

import subprocess

import pytest

from tests.support.installs import ROOT, modules_outside, run_cli_without

#: The child's environment: Danish, so a message shows the catalogue was compiled.
DANISH = {"PATH": "/usr/bin:/bin", "LANG": "da_DK.UTF-8", "PYTHONPATH": str(ROOT)}


def _traveller(hidden: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli_without(hidden, *args, env=DANISH, timeout=60)


@pytest.fixture(scope="module")
def keypad_install() -> list[str]:
    hidden = modules_outside("keypad")
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
