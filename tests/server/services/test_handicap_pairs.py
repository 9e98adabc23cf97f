"""Handicap pairs in a live event: the TD sets a pair's handicap (API), the live ranking shows
the handicapped percentage beside the raw one under the event's profile, the exports carry it.
On SQLite and PostgreSQL (the ``db_url`` fixture)."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace
from decimal import Decimal
from fractions import Fraction

import pytest
from sqlmodel import Session, col, select

from server import scoring
from server.core.db import transact
from server.core.models import Audit, Pair
from server.io.csv_io import RANKING_COLUMNS
from server.io.usebio import read_usebio
from server.services.event import setup
from server.services.results import exports, standings
from tests.support.api import Club


def play_two_rounds(club: Club) -> None:
    """Rounds 1 and 2, 3NT by North everywhere, table t taking 7 + t tricks: every board is
    played twice with different results, so the percentages differ."""
    tables = [club.pair(n) for n in range(1, 6)]
    for round_ in (1, 2):
        club.start_round(round_)
        for t in tables:
            if round_ == 2:
                t.send({"type": "next_round"})
            for b in t.round()["boards"]:
                ack = t.enter(b["board"], "3NT", "N", 7 + t.number)
                assert ack.status_code == 200, ack.text
                t.confirm(b["board"], ack.json()["result"]["version"])


def put(club: Club, pair: str, **body: object) -> object:
    names = {"player1": f"North of {pair}", "player2": f"South of {pair}"}
    return club.td("PUT", f"/api/v1/sections/{club.section_id}/pairs/{pair}", json=names | body)


def data_of(club: Club) -> standings.SectionData:
    return transact(club.engine, lambda s: standings.load(s, setup.get_section(s, club.section_id)))


def stored(club: Club) -> dict[str, str | None]:
    def work(s: Session) -> dict[str, str | None]:
        rows = s.exec(select(Pair).where(Pair.section_id == club.section_id)).all()
        return {f"{p.number}{p.direction or ''}": p.handicap for p in rows}

    return transact(club.engine, work)


def audits(club: Club, action: str) -> list[Audit]:
    return transact(
        club.engine,
        lambda s: list(
            s.exec(select(Audit).where(col(Audit.action) == action).order_by(col(Audit.id))).all()
        ),
    )


def test_a_scratch_section_has_no_handicap_columns(club: Club) -> None:
    play_two_rounds(club)
    ranking = standings.rank(data_of(club), public=False)
    assert not ranking.handicaps
    assert all(line.handicap is None and line.handicapped is None for line in ranking.lines)
    made = exports.export(data_of(club), "ranking").content.decode()
    assert made.splitlines()[0] == ",".join(RANKING_COLUMNS)
    assert "<HANDICAP>" not in exports.export(data_of(club), "usebio").content.decode()
    assert "Handicap" not in exports.export(data_of(club), "pbn").content.decode()


def test_the_api_sets_handicaps_and_the_ranking_adds_half_to_the_raw_percentage(
    club: Club,
) -> None:
    play_two_rounds(club)
    before = standings.rank(data_of(club), public=False)
    r = put(club, "1NS", handicap="4")
    assert r.status_code == 200, r.text
    assert r.json()["handicap"] == "4"
    assert put(club, "2EW", handicap="-2,5").json()["handicap"] == "-2.5"
    assert stored(club)["1NS"] == "4"
    assert stored(club)["2EW"] == "-2.5"
    assert stored(club)["3NS"] is None
    listed = club.td("GET", f"/api/v1/sections/{club.section_id}/pairs").json()
    assert {f"{p['number']}{p['direction']}": p["handicap"] for p in listed}["2EW"] == "-2.5"

    data = data_of(club)
    assert data.profile.name == "dbf"
    after = standings.rank(data, public=False)
    assert after.handicaps
    engine = standings.scorer(data, public=False)
    exact = {s.pair: s.percent for s in engine.standings(list(data.pairs))}
    ids = {f"{p.number}{p.direction}": pid for pid, p in data.pairs.items()}
    lines = {line.pair.key: line for line in after.lines}
    one, two = lines["1NS"], lines["2EW"]
    raw_one, raw_two = exact[ids["1NS"]], exact[ids["2EW"]]
    assert raw_one is not None
    assert raw_two is not None
    assert one.handicap == Decimal("4")
    assert one.handicapped == scoring.to_decimal(raw_one + 2, 2)
    assert two.handicap == Decimal("-2.5")
    assert two.handicapped == scoring.to_decimal(raw_two - Fraction(5, 4), 2)
    assert one.handicapped != one.percent
    assert lines["3NS"].handicap is None
    assert lines["3NS"].handicapped is None
    # The places stay the scratch places; the raw columns are as before.
    assert [(x.pair.key, x.place, x.percent, x.total) for x in before.lines] == [
        (x.pair.key, x.place, x.percent, x.total) for x in after.lines
    ]
    rows = audits(club, "pair_handicap")
    assert [(json.loads(a.old or "{}"), json.loads(a.new or "{}")) for a in rows] == [
        ({"pair": "1NS", "handicap": None}, {"pair": "1NS", "handicap": "4"}),
        ({"pair": "2EW", "handicap": None}, {"pair": "2EW", "handicap": "-2.5"}),
    ]


def test_leaving_the_handicap_out_keeps_it_and_null_clears_it(club: Club) -> None:
    assert put(club, "1NS", handicap="3.25").status_code == 200
    assert put(club, "1NS").json()["handicap"] == "3.25"  # a rename keeps the handicap
    assert len(audits(club, "pair_handicap")) == 1
    assert put(club, "1NS", handicap="3.25").status_code == 200  # unchanged: not audited
    assert len(audits(club, "pair_handicap")) == 1
    assert put(club, "1NS", handicap=None).json()["handicap"] is None
    assert stored(club)["1NS"] is None
    assert len(audits(club, "pair_handicap")) == 2


@pytest.mark.parametrize(
    ("text", "shown"), [("abc", "'abc' is not a handicap"), ("150", "'150' is not a handicap")]
)
def test_a_bad_handicap_is_refused_and_nothing_is_stored(club: Club, text: str, shown: str) -> None:
    names_before = len(audits(club, "pair_names"))
    r = put(club, "1NS", handicap=text)
    assert r.status_code == 422, r.text
    assert r.json()["code"] == "invalid_handicap"
    assert f"Pair 1NS: {shown}" in r.json()["message"]
    assert "between -100 and 100" in r.json()["message"]
    assert stored(club)["1NS"] is None
    assert audits(club, "pair_handicap") == []
    # The names in the same request are not stored either: one transaction.
    assert len(audits(club, "pair_names")) == names_before
    pairs = club.td("GET", f"/api/v1/sections/{club.section_id}/pairs").json()
    first = next(p for p in pairs if (p["number"], p["direction"]) == (1, "NS"))
    assert first["player1"] != "North of 1NS"


def test_the_exports_carry_the_handicap(club: Club) -> None:
    play_two_rounds(club)
    put(club, "1NS", handicap="4")
    put(club, "2EW", handicap="-2.5")
    data = data_of(club)
    lines = {line.pair.key: line for line in standings.rank(data, public=False).lines}

    usebio = exports.export(data, "usebio").content
    assert usebio.count(b"<HANDICAP>") == 2
    back = read_usebio(usebio)
    handicaps = {f"{p.key.number}{p.key.direction or ''}": p.handicap for p in back.pairs}
    assert {k: v for k, v in handicaps.items() if v is not None} in (
        {"1NS": Decimal("4"), "2EW": Decimal("-2.5")},
        {"1": Decimal("4"), "2": Decimal("-2.5")},
    )

    rows = list(csv.DictReader(io.StringIO(exports.export(data, "ranking").content.decode())))
    assert list(rows[0]) == [*RANKING_COLUMNS, "handicap", "handicapped_percentage"]
    by_pair = {f"{r['number']}{r['direction']}": r for r in rows}
    assert by_pair["1NS"]["handicap"] == "4"
    assert by_pair["2EW"]["handicap"] == "-2.5"
    assert Decimal(by_pair["1NS"]["handicapped_percentage"]) == lines["1NS"].handicapped
    assert Decimal(by_pair["2EW"]["handicapped_percentage"]) == lines["2EW"].handicapped
    assert by_pair["3NS"]["handicap"] == by_pair["3NS"]["handicapped_percentage"] == ""

    pbn = exports.export(data, "pbn").content.decode()
    head = next(x for x in pbn.splitlines() if x.startswith("[TotalScoreTable"))
    assert r"Handicap\6R;HandicapPercentage\6R" in head
    one = next(x for x in pbn.splitlines() if x.split()[1:3] == ["1", "NS"])
    assert f" 4.00 {lines['1NS'].handicapped:.2f} " in one


def test_the_share_of_the_handicap_is_the_event_profiles(
    club: Club, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every named profile adds half today; a profile with a whole share shows that the
    ranking takes the event's profile, not a fixed half."""
    play_two_rounds(club)
    r = club.td("PATCH", f"/api/v1/events/{club.event_id}", json={"scoring_profile": "ebu"})
    assert r.status_code == 200, r.text
    put(club, "1NS", handicap="4")
    assert data_of(club).profile.name == "ebu"
    half = {x.pair.key: x for x in standings.rank(data_of(club), public=False).lines}["1NS"]
    whole = replace(scoring.PROFILES["ebu"], handicap_share=Fraction(1))
    monkeypatch.setattr(scoring, "PROFILES", {**scoring.PROFILES, "ebu": whole})
    data = data_of(club)
    line = {x.pair.key: x for x in standings.rank(data, public=False).lines}["1NS"]
    engine = standings.scorer(data, public=False)
    ids = {f"{p.number}{p.direction}": pid for pid, p in data.pairs.items()}
    raw = {s.pair: s.percent for s in engine.standings(list(data.pairs))}[ids["1NS"]]
    assert raw is not None
    assert line.handicapped == scoring.to_decimal(raw + 4, 2)
    assert half.handicapped == scoring.to_decimal(raw + 2, 2)
