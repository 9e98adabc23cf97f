"""The profile chosen per event: the API (create, patch, public), the live ranking scored under
it, and `traveller score --profile` with the file's program suggesting one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from fastapi.testclient import TestClient
from sqlalchemy import Engine
from typer.testing import CliRunner

from server.core.models import Event, Pair, Section
from server.io.cli import _suggest, score
from server.services.results import standings
from server.services.results.standings import Played, SectionData
from tests.support.api import open_club

FFB = Path(__file__).resolve().parents[2] / "data" / "published"
FFB_FILE = FFB / "ffb_open2_dn1_finale_2022_seance1.pbn"


def test_api_creates_patches_and_shows_the_events_profile(
    client: TestClient, engine: Engine
) -> None:
    club = open_club(client, engine, tables=3, bpr=1, event={"scoring_profile": "abf"})
    r = club.td("GET", f"/api/v1/events/{club.event_id}")
    assert r.status_code == 200, r.text
    assert r.json()["scoring_profile"] == "abf"
    r = club.td("PATCH", f"/api/v1/events/{club.event_id}", json={"scoring_profile": "ffb"})
    assert r.status_code == 200, r.text
    assert r.json()["scoring_profile"] == "ffb"
    r = club.td("PATCH", f"/api/v1/events/{club.event_id}", json={"scoring_profile": "fbb"})
    assert r.status_code == 422  # not one of the profiles: refused, nothing changed
    assert club.td("GET", f"/api/v1/events/{club.event_id}").json()["scoring_profile"] == "ffb"
    default = open_club(client, engine, tables=3, bpr=1)
    assert default.td("GET", f"/api/v1/events/{default.event_id}").json()["scoring_profile"] == (
        "dbf"
    )


def _butler_section(profile: str) -> SectionData:
    # Hand-computed, minimal: board 1 (nobody vulnerable) at four tables, 4S by South making
    # 10, 10, 11, 11 tricks: N/S +420, +420, +450, +450. One score off each end: datum 435.
    # DBf § 204B2 rounds the difference (-15 -> -20: -1 IMP; +15 -> +20: +1 IMP); Compscore
    # (abf) the datum first (440: -20 -> -1 IMP; +10 -> 0 IMP).
    event = Event(id=1, name="Butler night", scoring="butler", scoring_profile=profile)
    section = Section(id=1, event_id=1, tables=4, rounds=1, boards_per_round=1)
    pairs = {
        **{n: Pair(id=n, section_id=1, number=n, direction="NS") for n in (1, 2, 3, 4)},
        **{10 + n: Pair(id=10 + n, section_id=1, number=n, direction="EW") for n in (1, 2, 3, 4)},
    }
    results = [
        Played(t, 1, 1, t, 10 + t, "confirmed", "4S", "S", tricks, None, None, 1)
        for t, tricks in ((1, 10), (2, 10), (3, 11), (4, 11))
    ]
    plays = {1: {(t, 1) for t in (1, 2, 3, 4)}}
    return SectionData(section, event, pairs, results, plays, {})


@pytest.mark.parametrize(("profile", "imps"), [("dbf", [-1, -1, 1, 1]), ("abf", [-1, -1, 0, 0])])
def test_the_live_ranking_is_scored_under_the_events_profile(profile: str, imps: list[int]) -> None:
    ranking = standings.rank(_butler_section(profile), public=False)
    north_south = {line.pair.number: int(line.total) for line in ranking.groups[0].lines}
    assert [north_south[n] for n in (1, 2, 3, 4)] == imps


def test_an_unknown_stored_profile_scores_as_dbf() -> None:
    data = _butler_section("gone")
    assert data.profile.name == "dbf"


runner = CliRunner()


def _traveller() -> typer.Typer:
    app = typer.Typer()
    app.command("score")(score)

    @app.command("calc")
    def calc() -> None:
        """Placeholder (so "score" is named as on the real CLI)."""

    return app


def test_cli_profile_reproduces_the_published_winner() -> None:
    # Magic Contest published pair 7 first with 771.2 MP and 61.21 %; DBf (exact) gives
    # 771.10 and 61.20 (tests/data/published/README.md).
    ffb = runner.invoke(_traveller(), ["score", str(FFB_FILE), "--profile", "ffb"])
    assert ffb.exit_code == 0, ffb.output
    assert "Profile: FFB / Magic Contest" in ffb.stdout
    assert "    1          7    771.20   61.21" in ffb.stdout
    dbf = runner.invoke(_traveller(), ["score", str(FFB_FILE)])
    assert dbf.exit_code == 0, dbf.output
    assert "Profile: DBf" in dbf.stdout
    assert "    1          7    771.10   61.20" in dbf.stdout


def test_cli_refuses_an_unknown_profile_by_name() -> None:
    result = runner.invoke(_traveller(), ["score", str(FFB_FILE), "--profile", "fbb"])
    assert result.exit_code == 2
    assert "unknown profile 'fbb'" in result.output
    assert "ffb" in result.output


def test_cli_names_the_profile_the_files_program_suggests(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _suggest("Magic Contest France 4.13.3.4", "dbf", chosen=False)
    assert "--profile ffb (FFB / Magic Contest)" in capsys.readouterr().err
    _suggest("Magic Contest France 4.13.3.4", "ffb", chosen=True)
    assert capsys.readouterr().err == ""  # the suggested profile is the one used
    _suggest("Compscore3", "dbf", chosen=True)
    assert "its profile is abf" in capsys.readouterr().err
    _suggest("Traveller", "dbf", chosen=False)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(
    "name",
    [
        "ruter_rekrutteringsklubben_ruter7_2012-01-24_butler.pbn",
        "ruter_nbf_ostfold_follo_2022-05-08_km_par.pbn",
    ],
)
def test_cli_an_imported_ruter_file_suggests_the_ruter_profile(name: str) -> None:
    path = FFB / name
    plain = runner.invoke(_traveller(), ["score", str(path), "--format", "json"])
    assert plain.exit_code == 0, plain.output
    shown = json.loads(plain.stdout)
    assert (shown["profile"], shown["suggested_profile"]) == ("dbf", "ruter")
    assert "to reproduce its figures use --profile ruter (NBF / Ruter i Norge)" in plain.stderr
    chosen = runner.invoke(_traveller(), ["score", str(path), "--profile", "ruter"])
    assert chosen.exit_code == 0, chosen.output
    assert "Profile: NBF / Ruter i Norge" in chosen.stdout
    assert "--profile ruter" not in chosen.stderr  # the suggested profile is the one used
