"""A server process's interpreter settings (server/live/runtime.py): its entry points set the
thread switch interval and, once the app is built, take the program's own objects out of the
garbage collector's passes and make its full passes rarer. A library object (an app built in
a test) changes none of it."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from server.core.db import make_engine
from server.live.runtime import FULL_PASS_AFTER, SWITCH_INTERVAL
from tests.support.app_factory import app_client

ROOT = Path(__file__).resolve().parents[3]
PROBE = """
import gc, json, sys
from server.app import app_from_env
before = gc.get_freeze_count()
app_from_env()
print(json.dumps({"before": before, "after": gc.get_freeze_count(),
                  "switch": sys.getswitchinterval(), "gc": gc.isenabled(),
                  "threshold": gc.get_threshold()}))
"""


def test_the_serve_factory_freezes_the_program_and_keeps_the_collector_on(
    tmp_path: Path,
) -> None:
    env = {
        **os.environ,
        "TRAVELLER_DATABASE_URL": f"sqlite:///{tmp_path / 'probe.db'}",
        "TRAVELLER_TD_PASSWORD": "a-long-enough-password-for-the-probe",
        "PYTHONPATH": str(ROOT),
    }
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, cwd=tmp_path, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["before"] == 0
    assert seen["after"] > 50_000  # the modules, schemas and the app: most of the program
    assert seen["switch"] == SWITCH_INTERVAL
    assert seen["gc"] is True  # frozen, not switched off: the event's own cycles are freed
    assert seen["threshold"][2] == FULL_PASS_AFTER


def test_an_app_built_and_served_in_process_freezes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only the entry points freeze: what is frozen is never freed, so an app a test (or a
    tool) builds and drops must leave the collector as it was."""
    touched: list[str] = []
    monkeypatch.setattr(gc, "freeze", lambda: touched.append("freeze"))
    monkeypatch.setattr(gc, "set_threshold", lambda *a: touched.append(f"threshold {a}"))
    engine = make_engine(f"sqlite:///{tmp_path / 'inproc.db'}")
    with app_client(engine) as client:
        assert client.get("/api/v1/health").status_code == 200
    engine.dispose()
    assert touched == []
