"""Live results release every board once every table that plays it has finished, whatever the
movement (rules.md § 11, Law 16): Mitchells with a sit-out, a bye stand and relay, an
arrow-switch, a rover; Howells with and without the phantom; individuals; a late pair in the
empty seat and a pair that left. A table with no pair on one side plays nothing, so it never
holds a board back (protocol/fair_play.py ``released``).

The property drives whole sessions through the table commands (the service layer, as
tests/security/test_fair_play.py does): at every confirmation the public sees exactly the
boards every playing table of the movement has finished, no sooner (fair play) and no later;
after the last one every board is released and the live ranking is the published one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine, event
from sqlmodel import Session

from protocol.messages import (
    ConfirmResult,
    EnterResult,
    EntryValues,
    GetRound,
    NextRound,
    ResultAck,
    RoundInfo,
)
from server.core.db import make_engine, migrate, transact
from server.core.models import Section
from server.movements.howell import howell
from server.movements.individual import individual
from server.movements.individual_pairs import as_partnerships
from server.movements.mitchell import max_rounds, mitchell
from server.movements.mitchell_variants import add_rover
from server.movements.model import Movement, PairRef
from server.services import tokens
from server.services.event import movement_admin, setup
from server.services.results import individual_results, standings
from server.services.td import actions as td
from server.services.td import publication
from tests.security.test_fair_play import send
from tests.support.api import new_id


@dataclass(frozen=True)
class Plan:
    """A session to play: its movement, and the TD's change before one round, if any."""

    movement: Movement
    change: str | None = None  # "late" (a late pair takes the empty seat) or "left"
    before_round: int = 2  # the round the change applies from
    pair: PairRef | None = None  # the late pair, or the pair that left
    after_confirm: str = "traveller"


def _empty_seat_every_round(m: Movement, from_round: int) -> bool:
    return all(
        sum(a.ns is None or a.ew is None for a in m.in_round(r)) == 1
        for r in range(from_round, m.rounds + 1)
    )


@st.composite
def plans(draw: st.DrawFn) -> Plan:
    kind = draw(st.sampled_from(["mitchell", "rover", "howell", "individual"]))
    bpr = draw(st.integers(1, 2))
    movement: Movement
    if kind == "individual":
        movement = as_partnerships(individual(draw(st.sampled_from([8, 12])), boards_per_round=1))
    elif kind == "howell":
        pairs = draw(st.integers(4, 9))  # odd: the phantom's opponents sit out
        rounds = draw(st.integers(2, pairs - 1 + pairs % 2))
        movement = howell(pairs, rounds=rounds, boards_per_round=bpr)
    else:
        tables = draw(st.integers(2 if kind == "mitchell" else 3, 5))
        even = draw(st.sampled_from(["skip", "relay"]))
        rounds = draw(st.integers(min(2, max_rounds(tables, even)), max_rounds(tables, even)))
        arrow = draw(st.integers(0, min(rounds, 2)))
        movement = mitchell(
            tables, rounds=rounds, boards_per_round=bpr, even=even, arrow_switch_rounds=arrow
        )
        if kind == "rover":
            movement = add_rover(movement)
        if draw(st.booleans()):  # an odd number of pairs: one pair sits out every round
            gone = draw(st.sampled_from(sorted(movement.pairs())))
            movement = movement_admin.edits.remove_pair(movement, gone, from_round=1)
    after_confirm = draw(st.sampled_from(["nothing", "score", "traveller"]))
    plan = Plan(movement, after_confirm=after_confirm)
    if kind == "individual" or movement.rounds < 2:
        return plan
    before_round = draw(st.integers(2, movement.rounds))
    change = draw(st.sampled_from([None, "late", "left"]))
    if change == "late" and _empty_seat_every_round(movement, before_round):
        late = PairRef(max(p.number for p in movement.pairs()) + 1, _direction(movement))
        return replace(plan, change="late", before_round=before_round, pair=late)
    if change == "left":
        gone = draw(st.sampled_from(sorted(movement.pairs())))
        return replace(plan, change="left", before_round=before_round, pair=gone)
    return plan


def _direction(m: Movement) -> Any:
    """A late pair is numbered as the movement's pairs are: with a direction in a Mitchell."""
    return next(iter(m.pairs())).direction


def expected_released(m: Movement, finished: set[tuple[int, int, int]]) -> set[int]:
    """The test's own reading of the rule: a board is released once every table that seats a
    pair on each side and has it in its round has finished it."""
    at: dict[int, set[tuple[int, int]]] = {}
    for a in m.assignments:
        if a.ns is not None and a.ew is not None:
            for board in a.boards:
                at.setdefault(board, set()).add((a.table, a.round))
    return {b for b, where in at.items() if all((b, t, r) in finished for t, r in where)}


@pytest.fixture(scope="module")
def release_engine(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One SQLite database for the property's examples (each opens its own event)."""
    eng = make_engine(f"sqlite:///{tmp_path_factory.mktemp('release') / 'release.db'}")

    @event.listens_for(eng, "connect")
    def no_fsync(connection: Any, _: Any) -> None:  # durability is not what this test is about
        connection.execute("PRAGMA synchronous=OFF")

    migrate(eng)
    yield eng
    eng.dispose()


class Night:
    """One session played through the table commands, with the TD's side in the service layer."""

    def __init__(self, db: Engine, plan: Plan) -> None:
        self.db, self.plan, self.movement = db, plan, plan.movement

        def work(session: Session) -> tuple[int, dict[int, str]]:
            event_ = setup.create_event(
                session, name="Release night", after_confirm=plan.after_confirm
            )
            section = setup.create_section(
                session, event=event_, letter="A", movement=plan.movement
            )
            td.start_round(session, section, 1)
            paired = {
                number: tokens.pair_terminal(session, code=code, device=f"t{number}")[0]
                for number, code in td.pairing_codes(session, section).items()
            }
            return section.id or 0, paired

        self.section_id, self.tokens = transact(db, work)
        self.finished: set[tuple[int, int, int]] = set()

    def td(self, work: Any) -> Any:
        return transact(self.db, lambda s: work(s, s.get(Section, self.section_id)))

    def released(self) -> set[int]:
        return set(self.td(lambda s, section: standings.released_boards(s, section)))

    def start(self, round_: int) -> None:
        plan = self.plan
        if plan.change is not None and round_ == plan.before_round and plan.pair is not None:
            pair = plan.pair
            edit = (
                movement_admin.late_pair(pair)
                if plan.change == "late"
                else movement_admin.pair_left(pair, round_)
            )
            self.movement = self.td(
                lambda s, section: movement_admin.change_movement(s, section, edit, what="test")
            )
        self.td(lambda s, section: td.start_round(s, section, round_))
        for token in self.tokens.values():
            moved = send(self.db, token, NextRound())
            assert isinstance(moved, RoundInfo), moved
            assert moved.round == round_

    def play_round(self, round_: int) -> None:
        cells = {a.table: a for a in self.movement.in_round(round_)}
        for table, token in sorted(self.tokens.items()):
            info = send(self.db, token, GetRound())
            assert isinstance(info, RoundInfo), info
            assert info.round == round_
            cell = cells.get(table)
            playing = cell is not None and cell.ns is not None and cell.ew is not None
            boards = [status.board for status in info.boards]
            assert boards == (list(cell.boards) if playing and cell else []), (table, info)
            for board in boards:
                entry = EnterResult(
                    entry_id=new_id(),
                    board=board,
                    values=EntryValues(contract="3NT", declarer="N", tricks=7 + board % 5),
                )
                ack = send(self.db, token, entry)
                assert isinstance(ack, ResultAck), ack
                confirm = ConfirmResult(entry_id=new_id(), board=board, version=ack.result.version)
                assert isinstance(send(self.db, token, confirm), ResultAck)
                self.finished.add((board, table, round_))
                # fair play and no hold-back, at every step
                assert self.released() == expected_released(self.movement, self.finished)


def rankings(night: Night, individual_section: bool) -> tuple[Any, Any]:
    """The live public ranking now, and the published one."""

    def ranked(s: Session, section: Section) -> Any:
        if individual_section:
            found = individual_results.load_individual(s, section)
            return individual_results.ranking(found, public=True).lines
        placed = standings.ranking(s, section, public=True)
        return [(g.title, g.lines) for g in placed.groups], placed.boards_shown

    live = night.td(ranked)
    night.td(lambda s, section: publication.publish(s, section, status="provisional"))
    return live, night.td(ranked)


SEVEN_PAIR_HOWELL = Plan(howell(7, boards_per_round=3))
FIVE_PAIR_HOWELL = Plan(howell(5, boards_per_round=3))
NINE_PAIR_MITCHELL = Plan(
    movement_admin.edits.remove_pair(
        mitchell(5, boards_per_round=2), PairRef(5, "EW"), from_round=1
    )
)


#: Every kind the property draws, once for sure (hypothesis adds its random ones).
LATE_PAIR = Plan(howell(7, boards_per_round=2), "late", before_round=3, pair=PairRef(8))
PAIR_LEFT = Plan(
    mitchell(4, boards_per_round=2, even="relay", arrow_switch_rounds=1),
    "left",
    before_round=2,
    pair=PairRef(2, "EW"),
)
ROVER = Plan(add_rover(mitchell(5, boards_per_round=1)))
INDIVIDUAL = Plan(as_partnerships(individual(8, boards_per_round=1)))


@pytest.mark.slow  # whole sessions through the table commands: out of `traveller test --fast`
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plan=plans())
@example(plan=SEVEN_PAIR_HOWELL)
@example(plan=FIVE_PAIR_HOWELL)
@example(plan=NINE_PAIR_MITCHELL)
@example(plan=LATE_PAIR)
@example(plan=PAIR_LEFT)
@example(plan=ROVER)
@example(plan=INDIVIDUAL)
def test_every_board_is_released_once_every_table_has_played_it(
    release_engine: Engine, plan: Plan
) -> None:
    night = Night(release_engine, plan)
    for round_ in range(1, plan.movement.rounds + 1):
        if round_ > 1:
            night.start(round_)
        night.play_round(round_)
        assert night.released() == expected_released(night.movement, night.finished)
    # every board is played at some table, so every one is out
    assert night.released() == {b for a in night.movement.assignments if a.played for b in a.boards}
    live, published = rankings(night, plan.movement.kind == "individual")
    assert live == published


def test_a_seven_pair_howell_releases_all_21_boards_and_ranks_as_published(
    release_engine: Engine,
) -> None:
    """The club night's 7-pair Howell: 21 boards, one table each round seats the phantom."""
    night = Night(release_engine, SEVEN_PAIR_HOWELL)
    for round_ in range(1, 8):
        if round_ > 1:
            night.start(round_)
        night.play_round(round_)
    assert sorted(night.released()) == list(range(1, 22))
    # each board is played at three tables: the phantom's is not a fourth in the field
    assert night.td(lambda s, section: standings.load(s, section).field_size) == 3
    live, published = rankings(night, False)
    assert live == published
