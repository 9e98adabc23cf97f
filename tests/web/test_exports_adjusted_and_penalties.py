"""Exports (USEBIO, PBN, CSV) carry the TD's weighted scores and penalties, and agree with the
live ranking."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from decimal import Decimal

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from server.core.db import transact
from server.core.models import Result
from server.services.event import setup
from server.services.results import adjusted, exports, standings
from server.services.td import actions as td
from server.services.td import sanctions
from tests.support.api import Club, open_club
from tests.support.app_factory import app_client


@pytest.fixture
def room(engine: Engine) -> Iterator[Club]:
    """Rounds 1 and 2 of a 5-table Mitchell, every table 4S by South one down; board one of
    table 1 gets a weighted score, pair 3 N/S a standard deduction."""
    with app_client(engine) as c:
        club = open_club(c, engine)
        club.start_round(1)
        tables = [club.pair(n) for n in range(1, 6)]
        for round_ in (1, 2):
            if round_ == 2:
                club.start_round(2)
                for t in tables:
                    t.send({"type": "next_round"})
            for t in tables:
                for b in t.round()["boards"]:
                    ack = t.enter(b["board"], "4S", "S", "-1").json()
                    t.confirm(b["board"], ack["result"]["version"])

        def settle(s: Session) -> None:
            section = setup.get_section(s, club.section_id)
            result = s.exec(
                select(Result)
                .where(Result.section_id == section.id, Result.table_number == 1)
                .order_by(Result.round, Result.board)  # type: ignore[arg-type]
            ).first()
            assert result is not None
            made = adjusted.from_rows(
                result.board,
                [
                    adjusted.PartIn("60", "4S", "S", "="),
                    adjusted.PartIn("40", "4S", "S", "-1"),
                ],
            )
            td.adjust_score(s, result=result, adjustment=made, reason="misinformation")
            sanctions.deduct(s, section, pair_key="3NS", reason="§ 211 slow play")

        transact(engine, settle)
        yield club


def _data(club: Club) -> standings.SectionData:
    return transact(club.engine, lambda s: standings.load(s, setup.get_section(s, club.section_id)))


def test_the_ranking_csv_lists_the_penalty_and_nets_it(room: Club) -> None:
    data = _data(room)
    live = {line.pair.key: line for line in standings.rank(data, public=False).lines}
    made = exports.export(data, "ranking")
    rows = list(csv.DictReader(io.StringIO(made.content.decode())))
    by_pair = {f"{r['number']}{r['direction']}": r for r in rows}
    assert by_pair["3NS"]["penalty"] == "0.80"  # 10 % of a top of 8
    assert by_pair["1NS"]["penalty"] == ""
    for key, line in live.items():
        assert Decimal(by_pair[key]["total"]) == line.total, key
    assert live["3NS"].penalty == Decimal("0.80")


def test_pbn_has_a_penalty_column_and_the_weighted_label(room: Club) -> None:
    text = exports.export(_data(room), "pbn").content.decode()
    assert "TotalPercentage\\6R;Penalty\\6R" in text  # one backslash, as Ruter writes it
    row = next(line for line in text.splitlines() if line.split()[1:3] == ["3", "NS"])
    assert " 0.80 " in row
    assert '"60% -50 / 40% -50"' not in text  # the weighted score is not flattened
    assert '"60% 420 / 40% -50"' in text or '"60% 620 / 40% -100"' in text


def test_usebio_and_travellers_carry_the_weighted_score(room: Club) -> None:
    data = _data(room)
    xml = exports.export(data, "usebio").content.decode()
    assert "<SCORE>60% " in xml
    travellers = exports.export(data, "travellers").content.decode()
    weighted = [line for line in travellers.splitlines() if "60% " in line]
    assert len(weighted) == 1
    # The weighted side earned 5.5 of 8 against the other table's 4S-1 (as on the pages).
    assert ",5.50,2.50," in weighted[0]
