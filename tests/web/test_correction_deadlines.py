"""§ X79: the correction period from publication, one deadline per published change, the day's
sections sharing the latest deadline, and no change after every deadline but for a ruling."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import TypeVar

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from protocol.messages import EntryValues
from server.core.db import transact
from server.core.errors import ConflictError
from server.core.models import Audit, Result, Section, utcnow
from server.services import deadlines
from server.services.event import setup
from server.services.results import standings
from server.services.td import actions as td
from server.services.td import publication
from tests.support.api import Club, open_club
from tests.support.app_factory import app_client
from tests.support.web import web_login

T = TypeVar("T")
DAY = timedelta(hours=72)


@pytest.fixture
def room(db_engine: Engine) -> Iterator[Club]:
    """A 5-table Mitchell; table 1 has played its three boards of round 1."""
    with app_client(db_engine) as c:
        club = open_club(c, db_engine)
        club.start_round(1)
        t = club.pair(1)
        for b in t.round()["boards"]:
            ack = t.enter(b["board"], "3NT", "N", 9).json()
            assert t.confirm(b["board"], ack["result"]["version"]).status_code == 200
        yield club


def run(club: Club, work: Callable[[Session, Section], T]) -> T:
    return transact(club.engine, lambda s: work(s, setup.get_section(s, club.section_id)))


def first_board(club: Club) -> int:
    """Table 1's first board of round 1."""

    def work(s: Session, sec: Section) -> int:
        stmt = select(Result.board).where(Result.section_id == sec.id, Result.table_number == 1)
        return min(s.exec(stmt))

    return run(club, work)


def change(club: Club, board: int, tricks: int, *, in_time: bool = False) -> None:
    values = EntryValues(contract="3NT", declarer="N", tricks=tricks)
    transact(
        club.engine,
        td.settle(
            club.section_id,
            1,
            1,
            board,
            lambda s, r: td.set_result(
                s, result=r, values=values, reason="scoring error", ruling_in_time=in_time
            ),
        ),
    )


def audits(club: Club) -> list[Audit]:
    def work(s: Session, sec: Section) -> list[Audit]:
        stmt = select(Audit).where(Audit.action == "td_set_result").order_by(col(Audit.id))
        return list(s.exec(stmt))

    return run(club, work)


def test_a_change_before_publication_opens_no_deadline(room: Club) -> None:
    change(room, first_board(room), 10)
    assert [a.corrections_until for a in audits(room)] == [None]
    assert run(room, deadlines.published_changes) == []


def test_each_published_change_carries_its_own_deadline(room: Club) -> None:
    board = first_board(room)
    published = utcnow() - timedelta(hours=1)
    run(room, lambda s, sec: publication.publish(s, sec, status="provisional", now=published))
    change(room, board, 10)
    change(room, board, 8)
    first, second = audits(room)
    assert first.corrections_until == first.at + DAY
    assert second.corrections_until == second.at + DAY
    assert second.corrections_until is not None
    assert first.corrections_until is not None
    assert second.corrections_until >= first.corrections_until
    section_deadline = run(room, lambda s, sec: sec.corrections_until)
    assert section_deadline == published + DAY
    assert first.corrections_until > section_deadline  # opened later: it ends later
    changes = run(room, deadlines.published_changes)
    assert [(c.board, c.table, c.until) for c in changes] == [
        (board, 1, second.corrections_until),
        (board, 1, first.corrections_until),
    ]
    ranking = run(room, lambda s, sec: standings.ranking(s, sec))
    assert [c.until for c in ranking.changes] == [c.until for c in changes]
    line = run(room, lambda s, sec: standings.traveller(s, sec, board, public=False)).lines[0]
    assert line.corrections_until == second.corrections_until
    page = room.client.get(f"/results/{room.section_id}")
    assert "2 changes after publication" in page.text
    assert f'data-board="{board}"' in page.text


def test_a_short_provisional_deadline_is_the_period_of_each_change(room: Club) -> None:
    board = first_board(room)
    run(room, lambda s, sec: publication.publish(s, sec, status="provisional", minutes=15))
    change(room, board, 10)
    (row,) = audits(room)
    assert row.corrections_until == row.at + timedelta(minutes=15)


def test_after_every_deadline_only_a_ruling_in_time_changes_a_result(room: Club) -> None:
    board = first_board(room)
    long_ago = utcnow() - timedelta(hours=100)
    run(room, lambda s, sec: publication.publish(s, sec, status="provisional", now=long_ago))
    change(room, board, 10, in_time=True)  # an appeal lodged in time: allowed, and published
    change(room, board, 11)  # inside the deadline the first change opened: a plain fix

    def age(s: Session, sec: Section) -> None:
        for row in s.exec(select(Audit).where(col(Audit.corrections_until).is_not(None))):
            row.corrections_until = utcnow() - timedelta(minutes=1)
            s.add(row)

    run(room, age)
    with pytest.raises(ConflictError) as refused:
        change(room, board, 8)
    assert refused.value.code == "corrections_closed"
    assert "ruling or appeal" in refused.value.message
    assert len(audits(room)) == 2
    change(room, board, 8, in_time=True)
    assert len(audits(room)) == 3

    def tricks(s: Session, sec: Section) -> int | None:
        r = s.exec(
            select(Result).where(
                Result.section_id == sec.id, Result.board == board, Result.table_number == 1
            )
        ).one()
        return r.tricks

    assert run(room, tricks) == 8


def test_a_late_change_is_refused_before_any_change_opened_a_deadline(room: Club) -> None:
    board = first_board(room)
    long_ago = utcnow() - timedelta(hours=100)
    run(room, lambda s, sec: publication.publish(s, sec, status="provisional", now=long_ago))
    with pytest.raises(ConflictError):
        change(room, board, 10)
    assert audits(room) == []


def test_the_days_sections_share_the_deadline_of_the_last_published(room: Club) -> None:
    r = room.td(
        "POST",
        f"/api/v1/events/{room.event_id}/sections",
        json={"letter": "B", "movement": {"tables": 3, "boards_per_round": 2}},
    )
    assert r.status_code == 201, r.text
    other = r.json()["id"]
    t0 = utcnow()
    run(room, lambda s, sec: publication.publish(s, sec, status="provisional", now=t0))
    later = t0 + timedelta(hours=2)
    transact(
        room.engine,
        lambda s: publication.publish(
            s, setup.get_section(s, other), status="provisional", now=later
        ),
    )
    assert run(room, lambda s, sec: sec.corrections_until) == later + DAY

    def moved(s: Session, sec: Section) -> list[str]:
        return [a.action for a in s.exec(select(Audit).where(Audit.section_id == sec.id))]

    assert "deadline_moved" in run(room, moved)


def test_the_board_page_and_audit_log_show_the_deadline(room: Club) -> None:
    board = first_board(room)
    run(room, lambda s, sec: publication.publish(s, sec, status="provisional"))
    change(room, board, 10)
    web_login(room.client)
    page = room.client.get(f"/td/s/{room.section_id}/tables/1/rounds/1/boards/{board}")
    assert "§ X79: corrections open until" in page.text
    assert "this change is open to corrections until" in page.text
    log = room.client.get(f"/td/s/{room.section_id}/audit?board={board}")
    assert "open to corrections until" in log.text
    publish_page = room.client.get(f"/td/s/{room.section_id}/publish")
    assert "Changes after publication" in publish_page.text
