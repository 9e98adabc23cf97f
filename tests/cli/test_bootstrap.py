"""The `./traveller` bootstrap: `demo` (and every command that runs something) installs only the
runtime extras; `test` and `bench` add the dev tools to the same .venv, topped up, never rebuilt;
a changed pyproject.toml installs again. uv installs when it is on PATH or can be fetched with
pip, and pip when not. Driven with a stand-in Python (and uv) that logs what it is asked to do
instead of creating a real virtualenv."""

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
#: makes DIR/bin/python (this script again) and DIR/bin/traveller; `-m pip ...` is logged, and
#: `-m pip install --target DIR uv` puts FAKE_UV_SCRIPT in DIR/bin/uv when FAKE_UV_FETCH=ok
#: (else it fails, as with no network).
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
if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then
    echo "pip $*" >> "$log"
    case "$*" in
        *" --target "*" uv")
            [ "${FAKE_UV_FETCH:-}" = ok ] || exit 1
            dir=$(echo "$*" | sed 's/.*--target \\([^ ]*\\) uv$/\\1/')
            mkdir -p "$dir/bin"; cp "$FAKE_UV_SCRIPT" "$dir/bin/uv"; chmod +x "$dir/bin/uv";;
    esac
    exit 0
fi
echo "unexpected: $*" >> "$log"; exit 3
"""

#: A stand-in uv: logs "uv ARGS" (and which uv it is); fails when FAKE_UV_FAILS is set.
FAKE_UV = """#!/bin/sh
echo "uv($0) $*" >> "$FAKE_LOG"
[ -z "${FAKE_UV_FAILS:-}" ]
"""


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """The bootstrap and pyproject.toml in a folder of their own, with the stand-in Python."""
    shutil.copy(ROOT / "traveller", tmp_path / "traveller")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    fake = tmp_path / "python-stand-in"
    fake.write_text(FAKE_PYTHON)
    fake.chmod(0o755)
    (tmp_path / "uv-stand-in").write_text(FAKE_UV)
    return tmp_path


def run(
    checkout: Path, *args: str, pip: str = "recent", env: dict[str, str] | None = None
) -> tuple[str, list[str]]:
    """Run the bootstrap with no uv on PATH unless `env` puts one there."""
    log = checkout / "calls.log"
    log.unlink(missing_ok=True)
    env = {
        **os.environ,
        "PATH": NO_UV_PATH,
        "PYTHON": str(checkout / "python-stand-in"),
        "REAL_PYTHON": sys.executable,
        "FAKE_LOG": str(log),
        "FAKE_PIP": pip,
        "FAKE_UV_SCRIPT": str(checkout / "uv-stand-in"),
        **(env or {}),
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


def _path_without_uv() -> str:
    """PATH without the folders holding a uv (the machine's own would be used)."""
    dirs = os.environ.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(d for d in dirs if not (Path(d) / "uv").exists())


NO_UV_PATH = _path_without_uv()


def extras(calls: list[str], by: str = "pip") -> set[str]:
    """The extras of the one `pip install -e DIR[...]` (or `uv pip install ...`) in the calls."""
    installs = [c for c in calls if c.startswith(by) and " install -" in c and "[" in c]
    assert len(installs) == 1, calls
    if by == "pip":
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


def _uv_on_path(checkout: Path) -> dict[str, str]:
    bin_dir = checkout / "bin"
    bin_dir.mkdir(exist_ok=True)
    shutil.copy(checkout / "uv-stand-in", bin_dir / "uv")
    (bin_dir / "uv").chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{NO_UV_PATH}"}


def test_a_uv_on_path_installs_and_pip_is_not_asked(checkout: Path) -> None:
    on_path = _uv_on_path(checkout)
    venv_python = checkout / ".venv" / "bin" / "python"
    out, calls = run(checkout, "demo", env=on_path)
    assert out.strip() == "ran traveller demo"
    assert [c for c in calls if c.startswith("venv")] == [f"venv {checkout / '.venv'}"]
    assert not any(c.startswith("pip ") for c in calls), calls
    assert extras(calls, by=f"uv({checkout / 'bin' / 'uv'}) pip install") == {
        "server",
        "terminal",
        "keypad",
    }
    assert any(f"--python {venv_python} " in c for c in calls)
    _, calls = run(checkout, "demo", env=on_path)
    assert calls == []
    _, calls = run(checkout, "test", env=on_path)
    assert {"dev", "handrecords", "server"} <= extras(calls, by="uv(")


def test_without_uv_the_bootstrap_fetches_one_once(checkout: Path) -> None:
    fetched = checkout / ".venv" / "uv-bootstrap"
    _, calls = run(checkout, "demo", env={"FAKE_UV_FETCH": "ok"})
    fetches = [c for c in calls if c.startswith("pip ") and f"--target {fetched} uv" in c]
    assert len(fetches) == 1, calls
    assert extras(calls, by=f"uv({fetched / 'bin' / 'uv'}) pip install") == {
        "server",
        "terminal",
        "keypad",
    }
    assert not any(c.startswith("pip ") and "[" in c for c in calls), "pip installed too"
    _, calls = run(checkout, "test", env={"FAKE_UV_FETCH": "ok"})
    assert not any("--target" in c for c in calls), "fetched again"
    assert "dev" in extras(calls, by=f"uv({fetched / 'bin' / 'uv'})")


def test_pip_installs_when_uv_cannot(checkout: Path) -> None:
    # No uv to be had (the fetch fails): pip, as before.
    _, calls = run(checkout, "demo")
    assert any("--target" in c for c in calls)
    assert extras(calls) == {"server", "terminal", "keypad"}
    # A uv that fails (an index it cannot reach): pip installs, and the stamp is written.
    checkout.joinpath(".venv", ".traveller-stamp").unlink()
    env = {**_uv_on_path(checkout), "FAKE_UV_FAILS": "1"}
    _, calls = run(checkout, "demo", env=env)
    assert extras(calls, by="uv(") == {"server", "terminal", "keypad"}
    assert extras(calls) == {"server", "terminal", "keypad"}
    _, calls = run(checkout, "demo", env=env)
    assert calls == []


def test_traveller_extras_adds_extras_and_a_top_up_keeps_them(checkout: Path) -> None:
    _, calls = run(checkout, "demo", env={"TRAVELLER_EXTRAS": "handrecords"})
    assert extras(calls) == {"server", "terminal", "keypad", "handrecords"}
    _, calls = run(checkout, "demo")
    assert calls == []  # fewer extras than installed: ready
    _, calls = run(checkout, "test")
    assert {"handrecords", "dev", "bws"} <= extras(calls)
    with (checkout / "pyproject.toml").open("a") as f:
        f.write("\n# changed\n")
    _, calls = run(checkout, "serve", env={"TRAVELLER_EXTRAS": "bws"})
    assert extras(calls) == {"server", "terminal", "keypad", "bws"}


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
