"""The dashboard's read models and the TD's extra actions, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from decimal import Decimal
from fractions import Fraction
from typing import Any, TypeVar

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from server.core.db import transact
from server.core.errors import ConflictError, InvalidError
from server.core.models import Section, utcnow
from server.services.event import members, setup
from server.services.glance import dashboard
from server.services.results import standings
from server.services.td import publication, round_control, sanctions
from tests.support.api import Club, open_club
from tests.support.app_factory import app_client

T = TypeVar("T")


@pytest.fixture
def room(db_engine: Engine) -> Iterator[Club]:
    """A 5-table Mitchell, 3 boards a round, round 1 started, on both databases."""
    with app_client(db_engine) as c:
        club = open_club(c, db_engine)
        club.start_round(1)
        yield club


def run(club: Club, work: Callable[[Session, Section], T]) -> T:
    def inner(s: Session) -> T:
        return work(s, setup.get_section(s, club.section_id))

    return transact(club.engine, inner)


def play(club: Club, table: int, boards: int | None = None, tricks: int = 9) -> list[int]:
    """Table ``table`` enters and confirms its first ``boards`` boards (default: all)."""
    t = club.pair(table)
    numbers = [b["board"] for b in t.round()["boards"]][:boards]
    for board in numbers:
        ack = t.enter(board, "3NT", "N", tricks).json()
        assert t.confirm(board, ack["result"]["version"]).status_code == 200
    return numbers


def test_grid_counts_each_state_and_flags_late_tables(room: Club) -> None:
    play(room, 2)
    t1 = room.pair(1)
    t1.enter(t1.round()["boards"][0]["board"], "4S", "S", 10)

    def age_table_3(s: Session, section: Section) -> None:
        round_control.set_round_time(s, section, 15)
        table = setup.find_table(s, section, 3)
        table.round_entered_at = utcnow() - timedelta(minutes=16)
        s.add(table)

    run(room, age_table_3)
    grid = run(room, lambda s, sec: dashboard.grid(s, sec, connected={1: 1}))
    rows = {r.table: r for r in grid.rows}
    first = rows[1].cells[0]
    # Table 1 is still in time: its open boards are in play, not missing (not red).
    assert (first.status, first.entered, first.missing, first.current) == ("playing", 1, 2, True)
    assert rows[3].cells[0].status == "missing"  # past the round time: overdue, red
    assert rows[2].cells[0].status == "complete"
    assert rows[2].complete
    assert rows[3].late
    assert not rows[2].late
    assert not rows[1].late
    assert rows[1].online
    assert not rows[4].online
    assert rows[2].cells[1].status == "future"
    assert grid.totals["entered"] == 1
    assert grid.totals["confirmed"] == 3
    assert grid.totals["missing"] == 3  # table 3's boards, as the missing-entries panel lists
    assert grid.totals["late"] == 1
    missing = run(room, dashboard.missing_entries)
    assert {(m.table, m.left) for m in missing} == {(3, False)}


def test_gate_override_moves_a_table_on_and_lists_what_it_left(room: Club) -> None:
    played = play(room, 4, boards=1)
    with pytest.raises(ConflictError):
        run(room, lambda s, sec: round_control.release_table(s, sec, 4, "left early"))
    room.start_round(2)
    pushes = run(room, lambda s, sec: round_control.release_table(s, sec, 4, "left early"))
    assert pushes[0].table == 4
    assert pushes[0].message.type == "round_changed"
    grid = run(room, dashboard.grid)
    row = next(r for r in grid.rows if r.table == 4)
    assert row.round == 2
    assert row.cells[0].status == "left"
    missing = run(room, dashboard.missing_entries)
    left = [m for m in missing if m.left]
    assert {m.table for m in left} == {4}
    assert played[0] not in {m.board for m in left}
    assert len(left) == 2
    assert left == sorted(left, key=lambda m: m.board)
    trail = run(room, lambda s, sec: dashboard.audit_log(s, sec))
    assert trail[0].action == "gate_override"
    assert trail[0].reason == "left early"


def test_round_time_must_be_sensible(room: Club) -> None:
    with pytest.raises(InvalidError):
        run(room, lambda s, sec: round_control.set_round_time(s, sec, 0))
    run(room, lambda s, sec: round_control.set_round_time(s, sec, None))


def test_new_device_withdraws_terminals_and_changes_the_code(room: Club) -> None:
    table = room.pair(1)
    old = room.section["pairing_codes"]["1"]
    code = run(room, lambda s, sec: round_control.move_to_new_device(s, sec, 1))
    assert code != old
    refused = table.client.get("/api/v1/table/round", headers=table.headers)
    assert refused.json()["code"] == "token_revoked"
    rows = run(room, dashboard.pairing)
    assert rows[0].code == code
    assert not rows[0].terminals[0].active


def test_an_offence_is_a_warning_first_then_a_standard_deduction(room: Club) -> None:
    one = run(room, sanctions.standard_deduction)
    assert one == Fraction(4, 5)  # 10 % of a top of 8 on a 5-table board
    first = run(room, lambda s, sec: sanctions.record_offence(s, sec, pair_key="2NS", kind="262C2"))
    second = run(
        room, lambda s, sec: sanctions.record_offence(s, sec, pair_key="2NS", kind="262C2")
    )
    assert first.warning
    assert not second.warning
    assert Fraction(second.amount) == one
    other = run(
        room,
        lambda s, sec: sanctions.record_offence(
            s, sec, pair_key="3EW", kind="213B", immediate=True
        ),
    )
    assert not other.warning
    run(room, lambda s, sec: sanctions.deduct(s, sec, pair_key="3EW", times=2, reason="§ 211"))
    ranking = run(room, lambda s, sec: standings.ranking(s, sec, public=False))
    penalties = {line.pair.key: line.penalty for line in ranking.lines}
    assert penalties["2NS"] == Decimal("0.80")
    assert penalties["3EW"] == Decimal("2.40")
    run(room, lambda s, sec: sanctions.withdraw(s, sec, other.id or 0, "mistake"))
    lines = run(room, sanctions.sanctions)
    assert [line.withdrawn for line in lines].count(True) == 1
    with pytest.raises(InvalidError):
        run(room, lambda s, sec: sanctions.deduct(s, sec, pair_key="1NS", reason=""))


def test_publishing_sets_the_correction_deadline(room: Club) -> None:
    now = utcnow()
    run(room, lambda s, sec: publication.publish(s, sec, status="provisional", now=now))
    section = run(room, lambda s, sec: sec)
    assert section.corrections_until == now + timedelta(hours=72)
    assert publication.corrections_open(section, now + timedelta(hours=71))
    with pytest.raises(InvalidError):
        run(room, lambda s, sec: publication.publish(s, sec, status="provisional", minutes=4))
    run(room, lambda s, sec: publication.publish(s, sec, status="final", minutes=5, now=now))
    section = run(room, lambda s, sec: sec)
    assert section.publication == "final"
    assert section.corrections_until == now + timedelta(minutes=5)
    run(room, lambda s, sec: publication.publish(s, sec, status="live"))
    assert run(room, lambda s, sec: sec).corrections_until is None


def test_member_list_import_and_pair_names_from_numbers(room: Club) -> None:
    text = "number;name\n1021;Anna Jensen\n1022;Bo Nielsen\n\nbad line\n1021;Anna B. Jensen\n"
    report = transact(room.engine, lambda s: members.import_members(s, text))
    assert (report.added, report.updated, len(report.problems)) == (2, 1, 1)

    def name(s: Session, sec: Section) -> Any:
        pair = next(p for p in setup.pairs_of(s, sec) if p.number == 1 and p.direction == "NS")
        return members.set_pair(
            s, sec, pair, player1="", player2="Visitor Smith", member1="1021", member2=""
        )

    pair = run(room, name)
    assert (pair.player1, pair.player2, pair.member1) == ("Anna B. Jensen", "Visitor Smith", "1021")


def test_public_ranking_uses_only_boards_every_table_has_played(room: Club) -> None:
    play(room, 1)
    ranking = run(room, lambda s, sec: standings.ranking(s, sec, public=True))
    assert ranking.boards_shown == []
    assert ranking.boards_total == 15
    td_view = run(room, lambda s, sec: standings.ranking(s, sec, public=False))
    assert td_view.boards_shown == [1, 2, 3]
    board = td_view.boards_shown[0]
    hidden = run(room, lambda s, sec: standings.traveller(s, sec, board, public=True))
    assert not hidden.visible
    assert hidden.lines == []
    shown = run(room, lambda s, sec: standings.traveller(s, sec, board, public=False))
    assert shown.visible
    assert len(shown.lines) == 1
    card = run(room, lambda s, sec: standings.score_card(s, sec, "1NS", public=True))
    assert card.lines == []
    run(room, lambda s, sec: publication.publish(s, sec, status="provisional"))
    card = run(room, lambda s, sec: standings.score_card(s, sec, "1NS", public=True))
    assert [line.board for line in card.lines] == [1, 2, 3]


def test_audit_log_filters_by_table_board_and_pair(room: Club) -> None:
    play(room, 1, boards=1)
    play(room, 2, boards=1)
    by_table = run(room, lambda s, sec: dashboard.audit_log(s, sec, table=2))
    assert by_table
    assert {line.table for line in by_table} == {2}
    assert {line.action for line in by_table} == {"entered", "confirmed"}
    by_board = run(room, lambda s, sec: dashboard.audit_log(s, sec, board=1))
    assert {line.board for line in by_board} == {1}
    pair_id = run(room, lambda s, sec: setup.find_pair(s, sec, 1, "NS").id)
    by_pair = run(room, lambda s, sec: dashboard.audit_log(s, sec, pair=pair_id))
    assert {line.table for line in by_pair} == {1}
    everything = run(room, dashboard.audit_log)
    assert everything[-1].action == "section_created"


def test_board_desk_shows_the_conflicting_entries(room: Club) -> None:
    t = room.pair(3)
    board = t.round()["boards"][1]["board"]
    t.enter(board, "3NT", "N", 9)
    t.enter(board, "3NT", "N", 8)
    desk = run(room, lambda s, sec: dashboard.board_desk(s, sec, 3, 1, board))
    assert desk.state == "conflict"
    assert len(desk.entries) == 2
    assert [e.tricks for e in desk.entries] == [9, 8]
    assert [a.action for a in desk.trail] == ["entered", "conflict"]
    values = run(
        room,
        lambda s, sec: dashboard.entry_values(
            s, dashboard.board_desk(s, sec, 3, 1, board).result, desk.entries[1].entry_id
        ),
    )
    assert values["tricks"] == 8


def test_round_window_keeps_the_current_round_in_view() -> None:
    assert dashboard.round_window(9, 1) == list(range(1, 10))
    assert dashboard.round_window(29, 3) == list(range(1, 13))
    window = dashboard.round_window(29, 20)
    assert 20 in window
    assert len(window) == 11
    assert window[-1] == 22
    assert dashboard.round_window(29, 29)[-1] == 29


def test_sections_list_names_every_event(room: Club) -> None:
    heads = transact(room.engine, dashboard.sections)
    assert heads[0].event == "Monday pairs"
    assert heads[0].tables == 5
