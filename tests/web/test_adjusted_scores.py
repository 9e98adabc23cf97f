"""Assigned, weighted (§ X78A1) and unbalanced (§ X78A2) scores from the TD, end to end: the
stored text, the scorer, the ranking, traveller and score card, the JSON API and the form."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from fractions import Fraction
from typing import Any, TypeVar

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from server.core.db import transact
from server.core.errors import InvalidError
from server.core.models import Audit, Result, Section
from server.scoring import Artificial, Points, Weighted
from server.services.event import setup
from server.services.results import adjusted, standings
from server.services.td import actions as td
from tests.support.api import Club, open_club
from tests.support.app_factory import app_client
from tests.support.web import web_login

T = TypeVar("T")


@pytest.fixture
def room(db_engine: Engine) -> Iterator[Club]:
    """A 5-table Mitchell, 3 boards a round; rounds 1 and 2 played (each board twice): every
    table plays 4S by South, one down."""
    with app_client(db_engine) as c:
        club = open_club(c, db_engine)
        club.start_round(1)
        tables = [club.pair(n) for n in range(1, 6)]
        for round_ in (1, 2):
            if round_ == 2:
                club.start_round(2)
                for t in tables:
                    assert t.send({"type": "next_round"}).json()["round"] == 2
            for t in tables:
                for b in t.round()["boards"]:
                    ack = t.enter(b["board"], "4S", "S", "-1").json()
                    assert t.confirm(b["board"], ack["result"]["version"]).status_code == 200
        yield club


def run(club: Club, work: Callable[[Session, Section], T]) -> T:
    return transact(club.engine, lambda s: work(s, setup.get_section(s, club.section_id)))


def board_one(club: Club) -> tuple[int, int, int, int, int]:
    """(table, round, board, ns pair id, ew pair id) of round 1, table 1's first board."""

    def work(s: Session, sec: Section) -> tuple[int, int, int, int, int]:
        r = s.exec(
            select(Result)
            .where(Result.section_id == sec.id, Result.table_number == 1, Result.round == 1)
            .order_by(Result.board)  # type: ignore[arg-type]
        ).first()
        assert r is not None
        assert r.ns_pair_id
        assert r.ew_pair_id
        return r.table_number, r.round, r.board, r.ns_pair_id, r.ew_pair_id

    return run(club, work)


def parts(*rows: tuple[str, str, str | None, int | str]) -> list[adjusted.PartIn]:
    return [adjusted.PartIn(*row) for row in rows]


def give(club: Club, made: adjusted.Adjustment, reason: str = "misinformation") -> None:
    table, round_, board, _, _ = board_one(club)
    transact(
        club.engine,
        td.settle(
            club.section_id,
            table,
            round_,
            board,
            lambda s, r: td.adjust_score(s, result=r, adjustment=made, reason=reason),
        ),
    )


def line_of(club: Club, board: int, table: int) -> standings.TravellerLine:
    shown = run(club, lambda s, sec: standings.traveller(s, sec, board, public=False))
    return next(line for line in shown.lines if line.table == table)


# ------------------------------------------------------------------------- the stored text


@pytest.mark.parametrize(
    ("ns", "ew", "kind", "text"),
    [
        ([("", "4S", "S", "=")], None, "assigned", "4S S ="),
        (
            [("60", "4S", "S", "="), ("40", "4s", "s", 9)],
            None,
            "weighted",
            "60% 4S S = + 40% 4S S -1",
        ),
        ([("1/3", "3NT", "N", "="), ("2/3", "3NTX", "N", "-2")], None, "weighted", None),
        ([("0.25", "PASS", None, ""), ("0.75", "2H", "E", 8)], None, "weighted", None),
        (
            [("", "4S", "S", 10)],
            [("60%", "4S", "S", "="), ("40%", "4S", "S", "-1")],
            "unbalanced",
            "NS: 4S S = | EW: 60% 4S S = + 40% 4S S -1",
        ),
    ],
)
def test_an_adjustment_reads_back_exactly_as_it_was_given(
    ns: list[tuple[str, str, str | None, Any]],
    ew: list[tuple[str, str, str | None, Any]] | None,
    kind: str,
    text: str | None,
) -> None:
    made = adjusted.from_rows(5, parts(*ns), ew=parts(*ew) if ew else None)
    assert made.kind == kind
    if text is not None:
        assert made.text == text
    assert adjusted.parse(made.text) == made
    weights = [p.weight for p in made.ns.parts]
    assert sum(weights) == 1


def test_thirds_stay_exact() -> None:
    made = adjusted.from_rows(1, parts(("1/3", "3NT", "N", "="), ("2/3", "3NT", "N", "-1")))
    assert made.text == "1/3 3NT N = + 2/3 3NT N -1"
    assert [p.weight for p in made.ns.parts] == [Fraction(1, 3), Fraction(2, 3)]


def test_the_scorer_sees_points_weights_and_percentages() -> None:
    # Board 1: nobody vulnerable. 4S= is +420, 4S-1 is -50.
    assigned = adjusted.from_rows(1, parts(("", "4S", "S", "=")))
    result = assigned.board_result(1, "a", "b")
    assert (result.ns, result.ew) == (Points(420), Points(420))
    assert result.play is not None
    assert str(result.play) == "4S S ="
    weighted = adjusted.from_rows(1, parts(("60", "4S", "S", "="), ("40", "4S", "S", "-1")))
    side = Weighted(((420, Fraction(3, 5)), (-50, Fraction(2, 5))))
    assert weighted.board_result(1, "a", "b").ns == side
    mixed = adjusted.from_rows(1, parts(("", "4S", "S", "=")), ew_percent="40")
    result = mixed.board_result(1, "a", "b")
    assert (result.ns, result.ew) == (Points(420), Artificial(Fraction(40)))
    assert adjusted.parse("A60/40").board_result(1, "a", "b").ew == Artificial(Fraction(40))


@pytest.mark.parametrize(
    ("rows", "code"),
    [
        ([("60", "4S", "S", "="), ("30", "4S", "S", "-1")], "weights_not_one"),
        ([("0.5", "4S", "S", "="), ("0.6", "4S", "S", "-1")], "weights_not_one"),
        ([("60%", "4S", "S", "="), ("0.4", "4S", "S", "-1")], "weights_not_one"),
        ([("", "4S", "S", "="), ("40", "4S", "S", "-1")], "weight_missing"),
        ([("110", "4S", "S", "="), ("-10", "4S", "S", "-1")], "invalid_weight"),
        ([("sixty", "4S", "S", "="), ("40", "4S", "S", "-1")], "invalid_weight"),
        ([("50", "4S", "S", "="), ("50", "4S", "S", 10)], "part_twice"),
        ([("20", "4S", "S", "=")] * 5, "too_many_parts"),
        ([("", "8S", "S", "=")], "invalid_level"),
        ([("", "4S", None, "=")], "invalid_seat"),
        ([("", "", None, "")], "score_missing"),
    ],
)
def test_bad_input_gets_a_clear_error(
    rows: list[tuple[str, str, str | None, Any]], code: str
) -> None:
    with pytest.raises(InvalidError) as caught:
        adjusted.from_rows(1, parts(*rows))
    assert caught.value.code == code
    assert caught.value.message


def test_an_artificial_side_of_an_unbalanced_score_is_a_percentage() -> None:
    with pytest.raises(InvalidError, match="0 to 100"):
        adjusted.from_rows(1, parts(("", "4S", "S", "=")), ew_percent="120")


# ------------------------------------------------------------------- the ranking moves


def test_a_weighted_score_is_scored_and_shown_everywhere(room: Club) -> None:
    table, _, board, ns_id, ew_id = board_one(room)
    before = run(room, lambda s, sec: standings.ranking(s, sec, public=False))
    ns_before = next(x for x in before.lines if x.pair.id == ns_id).total
    assert line_of(room, board, table).ns_value == Decimal("4")  # a tie of two: average
    made = adjusted.from_rows(board, parts(("60", "4S", "S", "="), ("40", "4S", "S", "-1")))
    give(room, made)
    line = line_of(room, board, table)
    # Against the other table's 4S-1, N/S earn 2 x 60 % for the make and 1 x 40 % for the
    # tie: 1.6 of a top of 2, scaled to the 5 tables by Neuberg: 5/2 x (1.6 + 1) - 1 = 5.5.
    assert line.ns_value == Decimal("5.5")
    assert line.ew_value == Decimal("2.5")
    assert line.note == "weighted"
    assert line.ns_score.startswith("60% ")
    assert " / 40% " in line.ns_score
    other = next(
        x
        for x in run(room, lambda s, sec: standings.traveller(s, sec, board, public=False)).lines
        if x.table != table
    )
    assert (other.ns_value, other.ew_value) == (Decimal("2.5"), Decimal("5.5"))
    after = run(room, lambda s, sec: standings.ranking(s, sec, public=False))
    ns_after = next(x for x in after.lines if x.pair.id == ns_id).total
    assert ns_after - ns_before == Decimal("1.5")
    key = next(x.pair.key for x in after.lines if x.pair.id == ns_id)
    card = run(room, lambda s, sec: standings.score_card(s, sec, key, public=False))
    row = next(r for r in card.lines if r.board == board)
    assert (row.note, row.value) == ("weighted", Decimal("5.5"))
    assert ew_id != ns_id


def test_an_unbalanced_score_is_compared_per_direction(room: Club) -> None:
    table, _, board, _, _ = board_one(room)
    made = adjusted.from_rows(
        board,
        parts(("", "4S", "S", "=")),
        ew=parts(("60", "4S", "S", "="), ("40", "4S", "S", "-1")),
    )
    give(room, made)
    line = line_of(room, board, table)
    # N/S on 4S= beat the other 4S-1: 2 of 2 -> 5/2 x 3 - 1 = 6.5; E/W on the weighted
    # score earn 0.4 -> 2.5. The two sides need not add up to a top (§ X78A2).
    assert (line.ns_value, line.ew_value) == (Decimal("6.5"), Decimal("2.5"))
    assert line.note == "unbalanced"


def test_an_assigned_score_shows_its_contract(room: Club) -> None:
    table, _, board, _, _ = board_one(room)
    give(room, adjusted.from_rows(board, parts(("", "4S", "S", "="))))
    line = line_of(room, board, table)
    assert (line.contract, line.declarer, line.result, line.note) == ("4♠", "S", "=", "assigned")
    assert line.ns_value == Decimal("6.5")


def test_the_change_is_audited_with_the_old_result(room: Club) -> None:
    table, _, board, _, _ = board_one(room)
    give(room, adjusted.from_rows(board, parts(("", "4S", "S", "="))), reason="misinformation")

    def rows(s: Session, sec: Section) -> list[Audit]:
        return list(s.exec(select(Audit).where(Audit.action == "td_adjusted")))

    (row,) = run(room, rows)
    assert row.reason == "misinformation"
    assert '"adjusted": "4S S ="' in (row.new or "")
    assert '"state": "confirmed"' in (row.old or "")
    assert table == 1


# -------------------------------------------------------------------------- API and form


def test_the_td_api_gives_a_weighted_score_and_refuses_bad_weights(room: Club) -> None:
    table, round_, board, _, _ = board_one(room)
    url = f"/api/v1/sections/{room.section_id}/results/score"
    body = {
        "table": table,
        "round": round_,
        "board": board,
        "ns": [
            {"weight": "60%", "contract": "4S", "declarer": "S", "tricks": "="},
            {"weight": "30%", "contract": "4S", "declarer": "S", "tricks": "-1"},
        ],
        "reason": "misinformation",
    }
    refused = room.td("POST", url, json=body)
    assert refused.status_code == 422
    assert refused.json()["code"] == "weights_not_one"
    assert "90 %" in refused.json()["message"]
    body["ns"][1]["weight"] = "40%"  # type: ignore[index]
    r = room.td("POST", url, json=body)
    assert r.status_code == 200, r.text
    view = r.json()[0]
    assert (view["state"], view["adjusted"]) == ("adjusted", "60% 4S S = + 40% 4S S -1")
    assert line_of(room, board, table).ns_value == Decimal("5.5")


def test_the_result_editor_form_gives_an_unbalanced_score(room: Club) -> None:
    client = room.client
    csrf = web_login(client)
    table, round_, board, _, _ = board_one(room)
    base = f"/td/s/{room.section_id}/tables/{table}/rounds/{round_}/boards/{board}"
    form: dict[str, Any] = {
        "csrf": csrf,
        "reason": "wrong explanation",
        "ns_weight": ["", "", "", ""],
        "ns_contract": ["4S", "", "", ""],
        "ns_declarer": ["S", "", "", ""],
        "ns_tricks": ["=", "", "", ""],
        "ew_mode": "parts",
        "ew_weight": ["70", "20", "", ""],
        "ew_contract": ["4S", "4S", "", ""],
        "ew_declarer": ["S", "S", "", ""],
        "ew_tricks": ["=", "-1", "", ""],
    }
    bad = client.post(base + "/score", data=form)
    assert "they must make exactly 100 %" in bad.text
    assert "Board" in bad.text
    assert "adjusted" not in run(room, lambda s, sec: _state(s, sec, board))
    form["ew_weight"] = ["70", "30", "", ""]
    ok = client.post(base + "/score", data=form)
    assert "Unbalanced score NS: 4S S = | EW: 70% 4S S = + 30% 4S S -1" in ok.text
    assert run(room, lambda s, sec: _state(s, sec, board)) == "adjusted"


def _state(s: Session, sec: Section, board: int) -> str:
    r = s.exec(
        select(Result).where(
            Result.section_id == sec.id,
            Result.table_number == 1,
            Result.round == 1,
            Result.board == board,
        )
    ).first()
    assert r is not None
    return r.state


@pytest.mark.parametrize("tricks", ["²", "١٠", "①"])
def test_a_non_ascii_digit_as_tricks_is_a_clear_refusal(room: Club, tricks: str) -> None:
    """Digits of other scripts are digits to str.isdigit(); the form says the tricks are
    wrong, as for any bad value, and changes nothing (it answered 500 with "²")."""
    client = room.client
    csrf = web_login(client)
    table, round_, board, _, _ = board_one(room)
    base = f"/td/s/{room.section_id}/tables/{table}/rounds/{round_}/boards/{board}"
    form: dict[str, Any] = {
        "csrf": csrf,
        "reason": "misinformation",
        "ns_weight": [""],
        "ns_contract": ["4S"],
        "ns_declarer": ["S"],
        "ns_tricks": [tricks],
    }
    answer = client.post(base + "/score", data=form)
    assert answer.status_code == 200, answer.text  # the board's page, with the notice
    assert "4S" in answer.text
    assert "adjusted" not in run(room, lambda s, sec: _state(s, sec, board))
    with pytest.raises(InvalidError):
        adjusted.from_rows(board, parts(("", "4S", "S", tricks)))
