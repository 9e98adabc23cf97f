"""The `./traveller` bootstrap: `demo` (and every command that runs something) installs only the
runtime extras; `test` and `bench` add the dev tools to the same .venv, topped up, never rebuilt;
a changed pyproject.toml installs again. Driven with a stand-in Python that logs what it is asked
to do instead of creating a real virtualenv."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: A stand-in for python3: version checks and hashing run on the real interpreter, except the
#: probe for a recent pip, answered by FAKE_PIP ("recent" or not); `-m venv DIR`
#: makes DIR/bin/python (this script again) and DIR/bin/traveller; `-m pip ...` is logged.
FAKE_PYTHON = """#!/bin/sh
log="$FAKE_LOG"
if [ "$1" = "-c" ]; then
    case "$2" in
        *"import sys, pip"*) [ "$FAKE_PIP" = recent ]; exit $?;;
    esac
    exec "$REAL_PYTHON" "$@"
fi
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
    eval dir=\\"\\${$#}\\"
    echo "venv $dir" >> "$log"
    mkdir -p "$dir/bin"
    cp "$0" "$dir/bin/python"
    printf '#!/bin/sh\\necho "ran traveller $*"\\n' > "$dir/bin/traveller"
    chmod +x "$dir/bin/python" "$dir/bin/traveller"
    exit 0
fi
if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then echo "pip $*" >> "$log"; exit 0; fi
echo "unexpected: $*" >> "$log"; exit 3
"""


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """The bootstrap and pyproject.toml in a folder of their own, with the stand-in Python."""
    shutil.copy(ROOT / "traveller", tmp_path / "traveller")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    fake = tmp_path / "python-stand-in"
    fake.write_text(FAKE_PYTHON)
    fake.chmod(0o755)
    return tmp_path


def run(checkout: Path, *args: str, pip: str = "recent") -> tuple[str, list[str]]:
    log = checkout / "calls.log"
    log.unlink(missing_ok=True)
    env = {
        **os.environ,
        "PYTHON": str(checkout / "python-stand-in"),
        "REAL_PYTHON": sys.executable,
        "FAKE_LOG": str(log),
        "FAKE_PIP": pip,
    }
    out = subprocess.run(
        ["sh", str(checkout / "traveller"), *args],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    calls = log.read_text().splitlines() if log.exists() else []
    return out.stdout, calls


def extras(calls: list[str]) -> set[str]:
    """The extras of the one `pip install -e DIR[...]` in the calls."""
    installs = [c for c in calls if c.startswith("pip ") and " install " in c]
    assert len(installs) == 1, calls
    assert "--no-compile" in installs[0]
    return set(installs[0].rsplit("[", 1)[1].rstrip("]").split(","))


def test_demo_installs_the_runtime_only_and_test_tops_it_up(checkout: Path) -> None:
    out, calls = run(checkout, "demo", "--port", "8001")
    assert out.strip() == "ran traveller demo --port 8001"
    assert [c for c in calls if c.startswith("venv")] == [f"venv {checkout / '.venv'}"]
    assert extras(calls) == {"server", "terminal", "keypad"}
    # The Python on PATH has a recent pip: it installs into the .venv, which needs none.
    assert any(f"--python {checkout / '.venv' / 'bin' / 'python'} install" in c for c in calls)

    out, calls = run(checkout, "demo")
    assert calls == []  # ready: no pip, no new venv

    out, calls = run(checkout, "test", "-x")
    assert out.strip() == "ran traveller test -x"
    assert not any(c.startswith("venv") for c in calls), "topped up, not rebuilt"
    assert {"dev", "handrecords", "bws", "server", "terminal", "keypad"} <= extras(calls)

    _, calls = run(checkout, "test")
    assert calls == []
    _, calls = run(checkout, "demo")
    assert calls == []  # a dev .venv runs the demo as it is


def test_a_changed_pyproject_installs_again_for_what_the_venv_was_made(checkout: Path) -> None:
    run(checkout, "test")
    with (checkout / "pyproject.toml").open("a") as f:
        f.write("\n# changed\n")
    _, calls = run(checkout, "bench", "--help")
    assert not any(c.startswith("venv") for c in calls)
    assert "dev" in extras(calls)
    _, calls = run(checkout, "serve")
    assert calls == []  # installed for dev with this pyproject: enough to serve


def test_without_a_recent_pip_on_path_the_venv_gets_its_own(checkout: Path) -> None:
    venv_python = checkout / ".venv" / "bin" / "python"
    _, calls = run(checkout, "demo", pip="none")
    assert [c for c in calls if c.startswith("venv")] == [f"venv {checkout / '.venv'}"]
    assert extras(calls) == {"server", "terminal", "keypad"}
    assert not any("--python" in c for c in calls), calls
    assert venv_python.exists()


#: Stands in for the .venv's `traveller`: prints the bytecode settings it was started with.
ENV_PROBE = (
    '#!/bin/sh\necho "prefix=${PYTHONPYCACHEPREFIX:-} nowrite=${PYTHONDONTWRITEBYTECODE:-}"\n'
)


def test_the_cli_keeps_its_compiled_modules_in_the_venv(
    checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A machine that sets PYTHONDONTWRITEBYTECODE would compile every module in every process
    (seconds a start, for each server and worker the tests start); the bootstrap points the
    cache at .venv/pycache instead, and keeps a prefix the user chose."""
    run(checkout, "demo")
    (checkout / ".venv" / "bin" / "traveller").write_text(ENV_PROBE)
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    out, _ = run(checkout, "demo")
    assert out.strip() == f"prefix={checkout / '.venv' / 'pycache'} nowrite="
    monkeypatch.setenv("PYTHONPYCACHEPREFIX", str(checkout / "mine"))
    out, _ = run(checkout, "demo")
    assert out.strip() == f"prefix={checkout / 'mine'} nowrite=1"
