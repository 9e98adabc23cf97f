"""End of session over HTTP: one page reaches publishing (§ X79), the exports, the printable
results sheet and the one-click backup; the backup downloads a real copy and is audited."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from server.core.models import Audit, Section
from tests.support.api import Club, open_club
from tests.support.app_factory import AppFactory
from tests.support.web import web_login


def play_round_1(club: Club) -> None:
    """Every table plays its round-1 boards: 4S by South, made or one down by table."""
    for number in range(1, 6):
        table = club.pair(number)
        for b in table.round()["boards"]:
            ack = table.enter(b["board"], "4S", "S", "=" if number % 2 else "-1").json()
            table.confirm(b["board"], ack["result"]["version"])


def test_the_end_page_reaches_publishing_exports_sheet_and_backup(
    client: TestClient, club: Club
) -> None:
    csrf = web_login(client)
    base = f"/td/s/{club.section_id}"
    assert f'href="{base}/end"' in client.get(base).text  # in the TD's navigation
    page = client.get(f"{base}/end")
    assert page.status_code == 200
    forms = re.findall(r'<form method="post" action="([^"]+)"[^>]*>(.*?)</form>', page.text, re.S)
    publish = [body for action, body in forms if action == f"{base}/publish"]
    statuses = [re.search(r'name="status" value="(\w+)"', body) for body in publish]
    assert [m.group(1) for m in statuses if m] == ["provisional", "provisional", "final"]
    assert any('value="minutes"' in body for body in publish)  # the short § X79 deadline
    assert [a for a, _ in forms if a.endswith("/end/backup")] == [f"{base}/end/backup"]
    for kind in ("usebio", "pbn", "ranking", "travellers"):
        link = f"{base}/publish/export/{kind}"
        assert f'href="{link}"' in page.text
        r = client.get(link)
        assert r.status_code == 200, kind
        assert r.content, kind
    assert "no BWS export" in page.text
    assert f'href="{base}/end/sheet"' in page.text

    form = {"csrf": csrf, "status": "provisional", "period": "minutes", "amount": "15"}
    asked = client.post(f"{base}/publish", data=form, follow_redirects=False)
    assert asked.status_code == 200  # results are missing: the TD is asked first
    assert 'name="confirmed"' in asked.text
    with Session(club.engine) as s:
        section = s.get(Section, club.section_id)
        assert section is not None
        assert section.publication == "live"
    r = client.post(f"{base}/publish", data={**form, "confirmed": "yes"}, follow_redirects=False)
    assert r.status_code == 303
    with Session(club.engine) as s:
        section = s.get(Section, club.section_id)
        assert section is not None
        assert section.publication == "provisional"
        assert section.published_at is not None
        assert section.corrections_until is not None
        assert (section.corrections_until - section.published_at).total_seconds() == 15 * 60
    assert "open until" in client.get(f"{base}/end").text


def test_the_results_sheet_holds_the_ranking_every_traveller_and_every_card(
    client: TestClient, club: Club
) -> None:
    web_login(client)
    play_round_1(club)
    page = client.get(f"/td/s/{club.section_id}/end/sheet")
    assert page.status_code == 200
    text = page.text
    assert 'id="sheet-ranking"' in text
    assert 'class="ranking"' in text
    boards = re.findall(r'class="sheet-board" data-board="(\d+)"', text)
    assert boards == [str(n) for n in range(1, 16)]  # every board of the movement
    cards = re.findall(r'class="sheet-part sheet-card" data-pair="(\w+)"', text)
    assert sorted(cards) == sorted(f"{n}{d}" for n in range(1, 6) for d in ("NS", "EW"))
    # Round 1's boards are scored: 4S made at odd tables, one down at even ones.
    assert "4♠" in text
    assert "620" in text
    assert "100" in text
    assert text.count('class="list scorecard"') == 10
    assert 'id="traveller"' not in text  # the public page's id, not repeated on the sheet
    assert "window.print()" in text


def test_the_results_sheet_needs_the_td(client: TestClient, club: Club) -> None:
    r = client.get(f"/td/s/{club.section_id}/end/sheet", follow_redirects=False)
    assert r.status_code == 303
    assert "/td/login" in r.headers["location"]


def test_a_backup_downloads_a_consistent_copy_and_is_audited(
    client: TestClient, club: Club, engine: Engine
) -> None:
    csrf = web_login(client)
    play_round_1(club)
    r = client.post(f"/td/s/{club.section_id}/end/backup", data={"csrf": csrf})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "application/octet-stream"
    name = re.search(r'filename="([^"]+)"', r.headers["content-disposition"])
    assert name is not None
    assert name.group(1).startswith("traveller-")
    source = Path(str(engine.url.database))
    kept = source.parent / "backups" / name.group(1)
    assert kept.read_bytes() == r.content  # also kept on the server
    conn = sqlite3.connect(kept)
    try:
        assert conn.execute("PRAGMA quick_check").fetchone() == ("ok",)
        confirmed = conn.execute(
            "SELECT count(*) FROM result WHERE section_id = ? AND state = 'confirmed'",
            (club.section_id,),
        ).fetchone()
    finally:
        conn.close()
    assert confirmed == (15,)  # 5 tables x 3 boards of round 1
    with Session(engine) as s:
        row = s.exec(select(Audit).where(Audit.action == "backup")).one()
    assert row.section_id == club.section_id
    assert row.actor == "td"
    assert name.group(1) in (row.new or "")
    assert "Backup taken" in client.get(f"/td/s/{club.section_id}/audit").text


def test_a_backup_without_the_form_token_is_refused_and_writes_nothing(
    client: TestClient, club: Club, engine: Engine
) -> None:
    web_login(client)
    r = client.post(f"/td/s/{club.section_id}/end/backup", data={"csrf": "forged"})
    assert r.status_code == 403
    assert not (Path(str(engine.url.database)).parent / "backups").exists()
    with Session(engine) as s:
        assert s.exec(select(Audit).where(col(Audit.action) == "backup")).first() is None


def test_a_backup_of_a_missing_section_is_a_clear_404(
    client: TestClient, club: Club, engine: Engine
) -> None:
    csrf = web_login(client)
    r = client.post("/td/s/999/end/backup", data={"csrf": csrf}, follow_redirects=False)
    assert r.status_code == 303  # back to the form, with the refusal as its notice
    assert "section" in client.get(r.headers["location"]).text.lower()
    assert not (Path(str(engine.url.database)).parent / "backups").exists()


@pytest.fixture
def pg_client(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, apps: AppFactory
) -> Club:
    monkeypatch.setenv("TRAVELLER_BACKUP_DIR", str(tmp_path / "pg-backups"))
    engine = apps.engine(pg_url)
    made = open_club(apps.client(engine), engine)
    made.start_round(1)
    return made


@pytest.mark.postgres
def test_a_backup_on_postgresql_is_a_pg_dump_archive(pg_client: Club, tmp_path: Path) -> None:
    client = pg_client.client
    csrf = web_login(client)
    play_round_1(pg_client)
    r = client.post(f"/td/s/{pg_client.section_id}/end/backup", data={"csrf": csrf})
    assert r.status_code == 200, r.text
    assert r.content.startswith(b"PGDMP")  # pg_dump's custom format
    kept = list((tmp_path / "pg-backups").glob("traveller-*-td.pgdump"))
    assert len(kept) == 1
    assert kept[0].read_bytes() == r.content
    with Session(pg_client.engine) as s:
        assert s.exec(select(Audit).where(Audit.action == "backup")).one().actor == "td"
