"""Online SQLite backups: taken mid-round while the server runs, restored to a working server
with every result; rotation; the scheduler (timer and round end); the restore command."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from server.app import create_app
from server.core.config import Settings
from server.core.db import make_engine
from server.live.bus import Bus
from server.ops.deploy_cli import app as deploy_app
from server.site.backup import (
    BackupError,
    BackupSettings,
    backup,
    list_backups,
    restore,
    rotate,
    scheduled_backups,
)
from tests.support.api import Club, Table, open_club
from tests.support.env import TD_PASSWORD
from tests.support.wait import wait_until, wait_until_async

CONTRACTS = ["3NT", "4S", "2H", "1NT", "5DX", "PASS"]


@contextmanager
def served(url: str) -> Iterator[TestClient]:
    engine = make_engine(url)
    app = create_app(Settings(td_password=TD_PASSWORD, database_url=url), engine=engine)
    try:
        with TestClient(app) as client:
            yield client
    finally:
        engine.dispose()


def _td_headers(client: TestClient) -> dict[str, str]:
    r = client.post("/api/v1/td/login", json={"password": TD_PASSWORD})
    assert r.status_code == 200, r.text
    return {"Authorization": f"Bearer {r.json()['token']}"}


def _results(client: TestClient, section_id: int) -> dict[tuple[int, int], dict[str, Any]]:
    r = client.get(f"/api/v1/sections/{section_id}/results", headers=_td_headers(client))
    assert r.status_code == 200, r.text
    return {(x["table"], x["board"]): x for x in r.json()}


def _play(table: Table, boards: list[int], confirm: bool) -> None:
    for i, board in enumerate(boards):
        contract = CONTRACTS[(table.number + i) % len(CONTRACTS)]
        declarer = None if contract == "PASS" else "NESW"[i % 4]
        r = table.enter(board, contract, declarer, 0 if contract == "PASS" else 7 + i % 3)
        assert r.status_code == 200, r.text
        if confirm:
            r = table.confirm(board, r.json()["result"]["version"])
            assert r.status_code == 200, r.text


def test_a_backup_taken_mid_round_restores_to_a_working_server(tmp_path: Path) -> None:
    live = f"sqlite:///{tmp_path / 'club.db'}"
    with served(live) as client:
        club: Club = open_club(client, client.app.state.runtime.engine)  # type: ignore[attr-defined]
        club.start_round(1)
        tables = [club.pair(n) for n in range(1, 6)]
        boards = {t.number: [b["board"] for b in t.round()["boards"]] for t in tables}
        for t in tables:  # every table has confirmed some boards and entered one more
            _play(t, boards[t.number][:2], confirm=True)
            _play(t, boards[t.number][2:], confirm=False)
        before = _results(client, club.section_id)
        assert len(before) == 15
        taken = backup(live, tmp_path / "backups", keep=5, label="test")  # the server is running
        # A result entered after the backup is not in it: a backup is a point in time.
        r = tables[0].confirm(boards[1][2], before[(1, boards[1][2])]["version"])
        assert r.status_code == 200, r.text
    # Disaster: the database is lost. Restore the backup in its place.
    for suffix in ("", "-wal", "-shm"):
        Path(f"{tmp_path / 'club.db'}{suffix}").unlink(missing_ok=True)
    assert restore(taken, live) is None  # nothing was there to keep
    with served(live) as client:
        after = _results(client, club.section_id)
        assert after == before  # every result, state and version as they were at the backup
        # The server works: the same terminals (their tokens were restored) carry on.
        t1 = Table(client, tables[0].token, 1)
        info = t1.round()
        assert info["round"] == 1
        last = boards[1][2]
        r = t1.confirm(last, after[(1, last)]["version"])
        assert r.status_code == 200, r.text
        assert r.json()["result"]["state"] == "confirmed"
        assert t1.round()["complete"] is True


def test_restore_keeps_the_database_it_replaces(tmp_path: Path) -> None:
    live = f"sqlite:///{tmp_path / 'club.db'}"
    with served(live) as client:
        open_club(client, client.app.state.runtime.engine)  # type: ignore[attr-defined]
    taken = backup(live, tmp_path / "b")
    kept = restore(taken, live)
    assert kept is not None
    assert kept.name.startswith("club.db.before-restore-")
    assert kept.stat().st_size > 0


def test_rotation_keeps_the_newest_n(tmp_path: Path) -> None:
    live = f"sqlite:///{tmp_path / 'club.db'}"
    with served(live):
        pass
    directory = tmp_path / "backups"
    made = [backup(live, directory, keep=3) for _ in range(5)]
    assert list_backups(directory) == made[-3:]
    assert all(
        sqlite3.connect(p).execute("PRAGMA quick_check").fetchone() == ("ok",) for p in made[-3:]
    )
    assert rotate(directory, 1) == made[-3:-1]
    assert not list(directory.glob(".*.part"))


def test_refusals(tmp_path: Path) -> None:
    with pytest.raises(BackupError, match="pg_dump"):
        backup("postgresql+psycopg://x@127.0.0.1/db", tmp_path)
    with pytest.raises(BackupError, match="no database"):
        backup(f"sqlite:///{tmp_path / 'missing.db'}", tmp_path)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(BackupError, match="not a SQLite database"):
        restore(junk, f"sqlite:///{tmp_path / 'x.db'}")
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE t (x)").connection.close()
    with pytest.raises(BackupError, match="not a Traveller database"):
        restore(other, f"sqlite:///{tmp_path / 'x.db'}")
    assert not (tmp_path / "x.db").exists()


def test_scheduled_backups_on_a_timer_at_round_end_and_at_shutdown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through the app: TRAVELLER_BACKUP_* turn the schedule on; closing a round backs up."""
    directory = tmp_path / "backups"
    monkeypatch.setenv("TRAVELLER_BACKUP_DIR", str(directory))
    monkeypatch.setenv("TRAVELLER_BACKUP_MINUTES", "60")
    monkeypatch.setenv("TRAVELLER_BACKUP_KEEP", "10")
    live = f"sqlite:///{tmp_path / 'club.db'}"
    with served(live) as client:
        club = open_club(client, client.app.state.runtime.engine)  # type: ignore[attr-defined]
        club.start_round(1)
        wait_until(
            lambda: any("-round" in p.name for p in list_backups(directory)),
            30,
            "a backup after the round started",
        )
        r = club.td("POST", f"/api/v1/sections/{club.section_id}/rounds/1/close")
        assert r.status_code == 200, r.text
        wait_until(
            lambda: sum("-round" in p.name for p in list_backups(directory)) >= 2,
            30,
            "a backup after the round closed",
        )
    names = [p.name for p in list_backups(directory)]
    assert names[-1].endswith("-shutdown.db"), names


async def test_the_timer_backs_up_every_period(tmp_path: Path) -> None:
    live = f"sqlite:///{tmp_path / 'club.db'}"
    with served(live):
        pass
    engine = make_engine(live)
    settings = BackupSettings(dir=tmp_path / "b", minutes=0.005, keep=2)  # every 0.3 s
    try:
        async with scheduled_backups(Bus(), engine, settings) as schedule:
            assert schedule is not None
            await wait_until_async(
                lambda: len(schedule.taken) >= 3, 10, "three timed backups", every=0.1
            )
        assert len(schedule.taken) >= 4  # three timed, one at shutdown
        assert all("-timed" in p.name for p in schedule.taken[:3])
        assert len(list_backups(tmp_path / "b")) == 2
    finally:
        engine.dispose()


def test_backup_and_restore_commands(tmp_path: Path) -> None:
    live = f"sqlite:///{tmp_path / 'club.db'}"
    with served(live) as client:
        open_club(client, client.app.state.runtime.engine)  # type: ignore[attr-defined]
    runner = CliRunner()
    out = runner.invoke(
        deploy_app, ["backup", "--database-url", live, "--dir", str(tmp_path / "b")]
    )
    assert out.exit_code == 0, out.output
    file = Path(out.output.split("backup written: ", 1)[1].strip())
    out = runner.invoke(deploy_app, ["backup", "--list", "--dir", str(tmp_path / "b")])
    assert str(file) in out.output
    target = f"sqlite:///{tmp_path / 'restored.db'}"
    out = runner.invoke(deploy_app, ["restore", str(file), "--database-url", target], input="n\n")
    assert out.exit_code == 1
    assert not (tmp_path / "restored.db").exists()
    out = runner.invoke(deploy_app, ["restore", str(file), "--database-url", target, "--yes"])
    assert out.exit_code == 0, out.output
    with served(target) as client:
        assert client.get("/api/v1/events/1", headers=_td_headers(client)).json()["name"]
    out = runner.invoke(deploy_app, ["restore", str(tmp_path / "nope.db"), "--yes"])
    assert out.exit_code == 2
    assert "no such file" in out.output


@pytest.mark.skipif(os.geteuid() != 0, reason="only root hands files to another user")
def test_restore_as_root_leaves_the_database_to_the_service_user(tmp_path: Path) -> None:
    live = f"sqlite:///{tmp_path / 'club.db'}"
    with served(live):
        pass
    taken = backup(live, tmp_path / "b")
    home = tmp_path / "var-lib-traveller"
    home.mkdir()
    os.chown(home, 65534, 65534)
    kept = restore(taken, f"sqlite:///{home / 'traveller.db'}")
    assert kept is None
    assert {p.stat().st_uid for p in home.iterdir()} == {65534}
