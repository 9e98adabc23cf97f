"""The gateway's database side, command by command: pairing, tokens, bindings, the next round."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import Engine
from sqlmodel import Session, select

from protocol.keypad_codec import decode, encode
from protocol.messages import (
    ConfirmResult,
    EnterDeal,
    EnterResult,
    EntryValues,
    Error,
    GetRound,
    GetTableSettings,
    Hello,
    NextRound,
    Paired,
    PairTerminal,
    ResultAck,
    RoundInfo,
    TableSettings,
)
from server.core.db import transact
from server.core.models import Event, KeypadBinding, Section, TableToken, utcnow
from server.gateway import service
from server.gateway.jobs import KEEP, Binding, Station
from server.gateway.service import handle, load_bindings
from server.limits.ratelimit import GuessLimiter
from server.services.td import actions as td
from server.services.td import round_control
from tests.support.app_factory import AppFactory

from .harness import Club, make_club

KP = Station("/dev/ttyUSB0", 3)


@pytest.fixture
def engine(apps: AppFactory, db_url: str) -> Engine:
    return apps.engine(db_url)


@pytest.fixture
def club(engine: Engine) -> Club:
    return make_club(engine, tables=3, rounds=3, bpr=2)


def pair(engine: Engine, club: Club, table: int = 1, station: Station = KP) -> Paired:
    handled = handle(engine, station, PairTerminal(code=club.codes[table], device="kp"))
    assert isinstance(handled.reply, Paired), handled.reply
    assert handled.binding == Binding(club.section_id, table)
    return handled.reply


def boards(engine: Engine, station: Station = KP) -> list[int]:
    info = handle(engine, station, GetRound()).reply
    assert isinstance(info, RoundInfo)
    return [b.board for b in info.boards]


def play_round(engine: Engine, station: Station = KP, prefix: str = "e") -> None:
    for n, board in enumerate(boards(engine, station)):
        values = EntryValues(contract="3NT", declarer="N", tricks=9)
        ack = handle(
            engine, station, EnterResult(entry_id=f"entry-{prefix}{n}", board=board, values=values)
        )
        assert isinstance(ack.reply, ResultAck), ack.reply
        confirm = ConfirmResult(
            entry_id=f"entry-{prefix}c{n}", board=board, version=ack.reply.result.version
        )
        assert isinstance(handle(engine, station, confirm).reply, ResultAck)


def start_round(engine: Engine, club: Club) -> list[tuple[int, int | None, object]]:
    def work(session: Session) -> list[tuple[int, int | None, object]]:
        section = session.get(Section, club.section_id)
        assert section is not None
        pushes = td.start_round(session, section, section.current_round + 1)
        return [(p.section_id, p.table, p.message) for p in pushes]

    return transact(engine, work)


def test_pairing_binds_the_keypad_and_survives_a_restart(engine: Engine, club: Club) -> None:
    pair(engine, club, table=2)
    assert load_bindings(engine) == {KP: Binding(club.section_id, 2)}
    # A restarted gateway: no Hello needed, the binding is in the database.
    assert boards(engine) != []
    assert load_bindings(engine)[KP].table == 2


@pytest.fixture
def fresh_limiter(monkeypatch: pytest.MonkeyPatch) -> GuessLimiter:
    limiter = GuessLimiter()
    monkeypatch.setattr(service, "PAIRING_FAILURES", limiter)
    return limiter


def test_a_refused_code_and_too_many_of_them(
    engine: Engine, club: Club, fresh_limiter: GuessLimiter
) -> None:
    station = Station("/dev/ttyS9", 1)
    handled = handle(engine, station, PairTerminal(code="000000", device="kp"))
    assert isinstance(handled.reply, Error)
    assert handled.reply.code == "pairing_code_unknown"
    assert handled.binding == KEEP
    for _ in range(20):
        handle(engine, station, PairTerminal(code="000001", device="kp"))
    limited = handle(engine, station, PairTerminal(code=club.codes[1], device="kp")).reply
    assert isinstance(limited, Error)
    assert limited.code == "rate_limited"


def test_many_keypads_guessing_meet_an_overall_hold_but_a_new_keypad_still_pairs(
    engine: Engine, club: Club, fresh_limiter: GuessLimiter
) -> None:
    """Issue 14 M1 at the gateway: 60 keypad addresses on one port share out 120 wrong codes;
    after the overall cap the guessers are held, while a fresh keypad keying the right code
    pairs at once."""
    guessers = [Station("tcp-listen://127.0.0.1:7000", address) for address in range(1, 61)]
    for station in guessers:
        for attempt in range(2):
            reply = handle(engine, station, PairTerminal(code=f"99{attempt:08d}", device="kp"))
            assert isinstance(reply.reply, Error)
            assert reply.reply.code == "pairing_code_unknown"
    held = handle(engine, guessers[0], PairTerminal(code="9900000009", device="kp")).reply
    assert isinstance(held, Error)
    assert held.code == "rate_limited"
    newcomer = Station("tcp-listen://127.0.0.1:7000", 61)
    paired = handle(engine, newcomer, PairTerminal(code=club.codes[1], device="kp"))
    assert isinstance(paired.reply, Paired)


def test_commands_before_hello_ask_for_one(engine: Engine, club: Club) -> None:
    values = EntryValues(contract="PASS", declarer=None, tricks=0)
    handled = handle(engine, KP, EnterResult(entry_id="entry-x1", board=1, values=values))
    assert handled.reply == Error(
        code="not_paired", message="Say hello first.", entry_id="entry-x1"
    )
    assert handled.binding is None


def test_hello_binds_and_a_bad_token_unbinds(engine: Engine, club: Club) -> None:
    token = pair(engine, club, station=Station("/dev/ttyUSB1", 1)).token
    handled = handle(engine, KP, Hello(token=token))
    assert isinstance(handled.reply, RoundInfo)
    assert handled.binding == Binding(club.section_id, 1)
    refused = handle(engine, KP, Hello(token="nonsense"))
    assert isinstance(refused.reply, Error)
    assert refused.reply.code == "invalid_token"  # the keypad asks for a new pairing code
    assert refused.binding is None
    assert KP not in load_bindings(engine)


@pytest.mark.parametrize("how", ["revoked", "expired"])
def test_a_withdrawn_token_unbinds_the_keypad(engine: Engine, club: Club, how: str) -> None:
    pair(engine, club)

    def withdraw(session: Session) -> None:
        section = session.get(Section, club.section_id)
        assert section is not None
        if how == "revoked":
            round_control.move_to_new_device(session, section, 1)
        else:
            for row in session.exec(select(TableToken)).all():
                row.expires_at = utcnow() - timedelta(minutes=1)
                session.add(row)

    transact(engine, withdraw)
    handled = handle(engine, KP, GetRound())
    assert isinstance(handled.reply, Error)
    assert handled.reply.code == {"revoked": "unauthorized", "expired": "token_expired"}[how]
    assert handled.binding is None
    with Session(engine) as session:
        assert session.exec(select(KeypadBinding)).all() == []


def test_next_round_waits_for_the_td_then_moves_on(engine: Engine, club: Club) -> None:
    pair(engine, club)
    play_round(engine)
    waiting = handle(engine, KP, NextRound())
    assert isinstance(waiting.reply, RoundInfo)  # still round 1: the keypad waits
    assert waiting.reply.round == 1
    assert waiting.binding == Binding(club.section_id, 1, next_round_from=1)
    assert load_bindings(engine)[KP].next_round_from == 1  # a restarted gateway remembers
    # Not released yet: a retry changes nothing and says nothing.
    assert handle(engine, KP, NextRound(), retry=True).reply is None
    start_round(engine, club)
    moved = handle(engine, KP, NextRound(), retry=True)
    assert isinstance(moved.reply, RoundInfo)
    assert moved.reply.round == 2
    assert moved.binding == Binding(club.section_id, 1)
    # A retry after the table moved on anyway (a stale one) does nothing.
    assert handle(engine, KP, NextRound(), retry=True).reply is None


def test_the_last_round_just_waits(engine: Engine, club: Club) -> None:
    pair(engine, club)
    for n in (1, 2, 3):
        play_round(engine, prefix=f"r{n}")
        if n < 3:
            start_round(engine, club)
            assert isinstance(handle(engine, KP, NextRound()).reply, RoundInfo)
    last = handle(engine, KP, NextRound())
    assert isinstance(last.reply, RoundInfo)
    assert last.reply.round == last.reply.rounds == 3
    assert last.binding == Binding(club.section_id, 1)


def test_an_incomplete_round_is_refused(engine: Engine, club: Club) -> None:
    pair(engine, club)
    start_round(engine, club)
    refused = handle(engine, KP, NextRound())
    assert isinstance(refused.reply, Error)
    assert refused.reply.code == "round_incomplete"


def test_a_resent_entry_is_stored_once(engine: Engine, club: Club) -> None:
    pair(engine, club)
    board = boards(engine)[0]
    entry = EnterResult(
        entry_id="kp-entry-1",
        board=board,
        values=EntryValues(contract="4S", declarer="S", tricks=10),
    )
    first, again = handle(engine, KP, entry).reply, handle(engine, KP, entry).reply
    assert isinstance(first, ResultAck)
    assert isinstance(again, ResultAck)
    assert (first.duplicate, again.duplicate) == (False, True)
    assert again.result == first.result


def test_wrong_pins_are_refused_then_locked(engine: Engine, club: Club) -> None:
    def ask_for_pins(session: Session) -> None:
        section = session.get(Section, club.section_id)
        assert section is not None
        event = session.get(Event, section.event_id)
        assert event is not None
        event.confirm_pin_required = True
        session.add(event)

    transact(engine, ask_for_pins)
    pair(engine, club)
    board = boards(engine)[0]
    values = EntryValues(contract="4S", declarer="S", tricks=10)
    ack = handle(engine, KP, EnterResult(entry_id="kp-entry-2", board=board, values=values))
    assert isinstance(ack.reply, ResultAck)
    codes = []
    for n in range(6):
        confirm = ConfirmResult(
            entry_id=f"kp-confirm-{n}", board=board, version=ack.reply.result.version, pin="no"
        )
        reply = handle(engine, KP, confirm).reply
        assert isinstance(reply, Error)
        assert reply.entry_id == confirm.entry_id
        codes.append(reply.code)
    assert codes == ["pin_wrong"] * 5 + ["pin_locked"]


# ---------------------------------------------------------------- issue 20: auction and deal


def _event_settings(engine: Engine, club: Club, **values: object) -> None:
    def work(session: Session) -> None:
        section = session.get(Section, club.section_id)
        assert section is not None
        event = session.get(Event, section.event_id)
        assert event is not None
        for name, value in values.items():
            setattr(event, name, value)
        session.add(event)

    transact(engine, work)


def test_the_keypad_reads_the_settings_and_sends_an_auction(engine: Engine, club: Club) -> None:
    """GetTableSettings and an entry with its auction go through the gateway codec to the table
    desk, which checks the calls (Laws 18-19, 22). (The auction alone, contract "", is the
    server's to derive once wt-tablehands is merged: server/services/entries.py _agree.)"""
    _event_settings(engine, club, auction_entry="optional")
    pair(engine, club)
    settings = handle(engine, KP, decode(*encode(GetTableSettings()))).reply
    assert isinstance(settings, TableSettings)
    assert settings.auction_entry == "optional"
    board = boards(engine)[0]
    info = handle(engine, KP, GetRound()).reply
    assert isinstance(info, RoundInfo)
    dealer = next(b.dealer for b in info.boards if b.board == board)
    values = EntryValues(contract="3NT", declarer=dealer, tricks=9, auction="1NT P 3NT P P P")
    command = EnterResult(entry_id="kp-auction-1", board=board, values=values)
    reply = handle(engine, KP, decode(*encode(command))).reply
    assert isinstance(reply, ResultAck), reply
    assert (reply.result.contract, reply.result.declarer) == ("3NT", dealer)
    bad = EntryValues(contract="1C", declarer=dealer, tricks=9, auction="1NT 1C P P P")
    refused = handle(engine, KP, EnterResult(entry_id="kp-auction-2", board=board, values=bad))
    assert isinstance(refused.reply, Error)
    assert refused.reply.code == "insufficient_bid"


def test_a_deal_keyed_at_a_keypad_reaches_the_table_desk(engine: Engine, club: Club) -> None:
    """EnterDeal through the gateway is the desk's to answer: refused while the event does not
    take deals (deal_entry off), as the websocket's would be."""
    pair(engine, club)
    deal = "N:KT8.A96.A95.7542 Q5.KJ52.KQ874.T8 AJ92.874.JT6.AQ3 7643.QT3.32.KJ96"
    command = EnterDeal(entry_id="kp-deal-1", board=boards(engine)[0], deal=deal)
    reply = handle(engine, KP, decode(*encode(command))).reply
    assert isinstance(reply, Error)
    assert reply.code == "deal_entry_off"
    assert reply.entry_id == "kp-deal-1"
