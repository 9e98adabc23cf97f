"""The gateway core without a database: frames in, jobs out, replies and pushes routed, news
that a keypad already has held back, a keypad swapped on its cable, port specs."""

from __future__ import annotations

import pytest

from firmware_sim.faults import FaultInjector
from firmware_sim.nullmodem import NullModem, VirtualClock
from protocol.keypad_codec import decode, encode, keypad_view
from protocol.link import BusDevice, Delivered, PointToPointLink
from protocol.messages import (
    BoardResultView,
    BoardStatus,
    Error,
    GetRound,
    Hello,
    Message,
    NextPosition,
    NextRound,
    PairTerminal,
    ResultAck,
    ResultChanged,
    RoundChanged,
    RoundInfo,
    SettingsChanged,
    TableSettings,
)
from server.gateway.core import WAIT_RECHECK, GatewayCore
from server.gateway.jobs import KEEP, Binding, Handled, Station
from server.gateway.ports import PortSpec, PortSpecError, parse_addresses, parse_port, parse_ports

SECTION = 7


def view(board: int, version: int = 1, state: str = "entered") -> BoardResultView:
    return BoardResultView.model_validate(
        {
            "board": board,
            "round": 1,
            "table": 1,
            "state": state,
            "version": version,
            "contract": "3NT",
            "declarer": "N",
            "tricks": 9,
            "result": "=",
            "ns_score": 400,
        }
    )


def round_info(*results: BoardResultView, released: bool = False, table: int = 1) -> RoundInfo:
    known = {v.board: v for v in results}
    boards = [
        BoardStatus(
            board=b,
            dealer="N",
            vulnerability="NONE",
            state=known[b].state if b in known else "missing",
            result=known.get(b),
        )
        for b in (1, 2)
    ]
    return RoundInfo(
        event="e",
        section="A",
        table=table,
        round=1,
        rounds=3,
        ns=None,
        ew=None,
        boards=boards,
        complete=False,
        round_open=True,
        next_round_released=released,
    )


class Rig:
    """One keypad link on a cable to a core port, in virtual time."""

    def __init__(self, *, bus: bool = False) -> None:
        self.clock = VirtualClock()
        self.core = GatewayCore(self.clock)
        line = self.core.attach("p", bus=(1,) if bus else None)
        self.keypad: PointToPointLink | BusDevice = (
            BusDevice(1, self.clock, session=1)
            if bus
            else PointToPointLink(1, self.clock, session=1)
        )
        wires = FaultInjector(baud=9600), FaultInjector(baud=9600)  # a bus needs wire time
        self.cable = NullModem(self.keypad, line, self.clock, a_to_b=wires[0], b_to_a=wires[1])
        self.received: list[Message] = []

    def run(self, seconds: float = 1.0) -> None:
        self.cable.advance(self.clock.t + seconds)
        for event in self.keypad.events():
            if isinstance(event, Delivered):
                self.received.append(decode(event.msg_type, event.payload))

    def command(self, message: Message, handled: Handled) -> None:
        self.keypad.send(*encode(message))
        self.run()
        jobs = self.core.take_jobs()
        assert [j.command for j in jobs] == [message]
        self.core.finish(jobs[0], handled)
        self.run()


@pytest.mark.parametrize("bus", [False, True])
def test_a_command_becomes_a_job_and_its_reply_goes_back(bus: bool) -> None:
    rig = Rig(bus=bus)
    rig.command(GetRound(), Handled(round_info(), Binding(SECTION, 1)))
    assert rig.received == [keypad_view(round_info())]
    assert rig.core.watched() == {(SECTION, 1)}
    assert rig.core.status()[0]["table"] == 1


def test_pushes_reach_the_bound_keypad_only_when_they_are_news() -> None:
    rig = Rig()
    rig.command(GetRound(), Handled(round_info(), Binding(SECTION, 1)))
    ack = ResultAck(entry_id="entry-0001", result=view(1))
    rig.command(GetRound(), Handled(ack, Binding(SECTION, 1)))
    rig.received.clear()
    # Its own result coming back from the bus, another table's, the TD starting the next
    # round (only next_round_released flips): nothing to send.
    rig.core.push((SECTION, 1, ResultChanged(result=view(1))))
    rig.core.push((SECTION, 2, ResultChanged(result=view(1, 5))))
    rig.core.push((SECTION, 1, RoundChanged(round=round_info(view(1), released=True))))
    rig.run()
    assert rig.received == []
    # The TD changed the result: news.
    rig.core.push((SECTION, 1, ResultChanged(result=view(1, 2, "confirmed"))))
    rig.core.push((SECTION, 1, RoundChanged(round=round_info(view(1, 2, "confirmed"), view(2)))))
    rig.run()
    assert [type(m) for m in rig.received] == [ResultChanged, RoundChanged]
    assert rig.core.stats.pushes_skipped == 2  # the other table's is not routed at all


def test_a_waiting_keypad_is_moved_on_when_the_round_is_released() -> None:
    rig = Rig()
    waiting = Binding(SECTION, 1, next_round_from=1)
    rig.command(NextRound(), Handled(round_info(), waiting))
    # Once at once (the TD may have released it while the job ran), then on the push.
    (recheck,) = rig.core.take_jobs()
    assert (recheck.command, recheck.retry, recheck.news) == (NextRound(), True, True)
    rig.core.finish(recheck, Handled(None, waiting))
    assert rig.core.take_jobs() == []
    rig.core.push((SECTION, 1, RoundChanged(round=round_info(released=True))))
    (retry,) = rig.core.take_jobs()
    assert retry.retry
    rig.core.finish(retry, Handled(None, waiting))
    # And every WAIT_RECHECK seconds in case a push was missed.
    assert rig.core.next_deadline() is not None
    rig.clock.t += WAIT_RECHECK
    assert [j.retry for j in rig.core.take_jobs()] == [True]


def test_a_stored_wait_is_resumed_at_start() -> None:
    core = GatewayCore(VirtualClock())
    core.bind(Station("p", 4), Binding(SECTION, 4, next_round_from=2))
    core.bind(Station("gone", 4), Binding(SECTION, 5, next_round_from=2))  # port not served
    core.attach("p")
    jobs = core.take_jobs()
    assert [(j.station, j.retry) for j in jobs] == [(Station("p", 4), True)]


def test_a_postponed_job_runs_again_first() -> None:
    rig = Rig()
    rig.keypad.send(*encode(GetRound()))
    rig.keypad.send(*encode(NextRound()))
    rig.run()
    (job,) = rig.core.take_jobs()
    rig.core.postpone(job, 2.0)
    assert rig.core.take_jobs() == []
    assert rig.core.next_deadline() is not None
    rig.clock.t += 2.0
    (again,) = rig.core.take_jobs()
    assert again == job


def test_a_point_to_point_port_follows_a_swapped_keypad() -> None:
    clock = VirtualClock()
    core = GatewayCore(clock)
    line = core.attach("p")
    first = PointToPointLink(1, clock, session=1)
    NullModem(first, line, clock).advance(1.0)
    first.send(*encode(GetRound()))
    NullModem(first, line, clock).advance(2.0)
    assert [j.station for j in core.take_jobs()] == [Station("p", 1)]
    second = PointToPointLink(2, clock, session=2)
    second.send(*encode(GetRound()))
    NullModem(second, line, clock).advance(8.0)
    assert line.swaps == 1
    assert [j.station for j in core.take_jobs()] == [Station("p", 2)]


def test_port_specs() -> None:
    assert parse_addresses("1-3, 7") == (1, 2, 3, 7)
    assert parse_port("/dev/ttyUSB0") == PortSpec("/dev/ttyUSB0")
    assert parse_port("/dev/ttyUSB1#2-4") == PortSpec("/dev/ttyUSB1", (2, 3, 4))
    assert parse_port("loop://", (5,)) == PortSpec("loop://", (5,))
    assert str(PortSpec("x", (1, 2))) == "x#1,2"
    specs = parse_ports("/dev/ttyUSB0; tcp-listen://0.0.0.0:7001 /dev/ttyUSB1#1-2")
    assert [s.url for s in specs] == ["/dev/ttyUSB0", "tcp-listen://0.0.0.0:7001", "/dev/ttyUSB1"]
    for bad in ("#1", "x#0", "x#1-200", "x#a"):
        with pytest.raises(PortSpecError):
            parse_port(bad)
    with pytest.raises(PortSpecError):
        parse_ports("a a")


def test_a_bus_keypad_noticing_a_silent_gateway_lets_time_move_on() -> None:
    """Regression (protocol/link.py): the silence check of BusDevice.poll must use the same sum
    as next_deadline, or a float rounding left the deadline due for ever and a simulation spun
    at one instant (found by the 10-keypad bus benchmark at 1 % corruption)."""
    clock = VirtualClock(31.135625000000186)
    device = BusDevice(2, clock)
    device._up, device._last_addressed = True, clock.t
    clock.t = device._last_addressed + device.config.silence_timeout
    assert device.next_deadline() == clock.t
    device.poll()
    assert not device.up


def test_news_older_than_what_the_keypad_has_is_held_back() -> None:
    rig = Rig()
    later = round_info(view(1, 3, "confirmed")).model_copy(update={"round": 2})
    rig.command(GetRound(), Handled(later, Binding(SECTION, 1)))
    rig.received.clear()
    # A push made before the table moved on, delivered after: not sent.
    rig.core.push((SECTION, 1, RoundChanged(round=round_info(view(1)))))
    rig.run()
    assert rig.received == []
    # A reply overtaken that way is sent (it answers the keypad) and followed by the truth.
    rig.command(GetRound(), Handled(round_info(view(1)), Binding(SECTION, 1)))
    (refresh,) = rig.core.take_jobs()
    assert (refresh.command, refresh.news) == (GetRound(), True)


def test_a_keypad_out_of_step_is_sent_its_round_again() -> None:
    rig = Rig()
    info = round_info(view(1))
    rig.command(GetRound(), Handled(info, Binding(SECTION, 1)))
    refused = Error(code="board_not_in_round", message="Not this round.", entry_id="entry-0002")
    rig.command(GetRound(), Handled(refused))
    (refresh,) = rig.core.take_jobs()
    assert refresh.news
    rig.received.clear()
    rig.core.finish(refresh, Handled(info, Binding(SECTION, 1)))  # the same round as before
    rig.run()
    assert rig.received == [keypad_view(RoundChanged(round=info))]


def test_a_board_whose_deal_is_asked_no_more_is_news_for_the_keypad() -> None:
    """Issue 20: once a table has keyed a hand-dealt board's deal, the others are asked to
    check it: a round that changed only there is sent on."""
    rig = Rig()
    info = round_info()
    asked = info.model_copy(
        update={"boards": [b.model_copy(update={"deal": "enter"}) for b in info.boards]}
    )
    rig.command(GetRound(), Handled(asked, Binding(SECTION, 1)))
    rig.received.clear()
    checking = asked.model_copy(
        update={"boards": [b.model_copy(update={"deal": "check"}) for b in asked.boards]}
    )
    rig.core.push((SECTION, 1, RoundChanged(round=checking)))
    rig.run()
    assert rig.received == [keypad_view(RoundChanged(round=checking))]


def test_the_tds_new_table_settings_reach_the_sections_keypads() -> None:
    """A SettingsChanged push (the TD turned the auction on mid-session) goes to the bound
    keypad as a TableSettings frame, as the settings it asked for at start-up; another
    section's change does not."""
    rig = Rig()
    rig.command(GetRound(), Handled(round_info(), Binding(SECTION, 1)))
    rig.received.clear()
    settings = TableSettings(auction_entry="optional", deal_entry=True)
    rig.core.push((SECTION + 1, None, SettingsChanged(settings=TableSettings())))
    rig.run()
    assert rig.received == []
    rig.core.push((SECTION, None, SettingsChanged(settings=settings)))
    rig.core.push((SECTION, 2, SettingsChanged(settings=TableSettings())))  # another table's
    rig.run()
    assert rig.received == [settings]


PLAYERS_MOVING = [
    NextPosition(pair="5", table=2, seat="E", boards=[3, 4], player=True),
    NextPosition(pair="6", table=None, player=True),
]


@pytest.mark.parametrize("first", ["pairing", "hello"])
@pytest.mark.parametrize("says", [None, False, True])
def test_players_positions_go_only_to_a_keypad_that_reads_them(
    says: bool | None, first: str
) -> None:
    """An individual's round names where each player goes next. Keypad firmware older than
    that cannot read such a round at all (the seat byte is out of its range), so it would
    never show its round: a keypad gets the players' positions, in the reply and in a push,
    only once its pairing or its Hello said it reads them. A pair's position goes to every
    keypad."""
    rig = Rig()
    said: Message = (
        PairTerminal(code="0001", device="keypad-t1", player_positions=says)
        if first == "pairing"
        else Hello(token="t0k3n", player_positions=says)
    )
    rig.command(said, Handled(None, Binding(SECTION, 1)))
    pairs_too = [NextPosition(pair="3", table=2, seat="EW", boards=[1]), *PLAYERS_MOVING]
    moving = round_info().model_copy(update={"next": pairs_too})
    rig.command(GetRound(), Handled(moving, KEEP))
    pushed = moving.model_copy(update={"complete": True})
    rig.core.push((SECTION, 1, RoundChanged(round=pushed)))
    rig.run()
    rounds = [m for m in rig.received if isinstance(m, RoundInfo | RoundChanged)]
    told = [m if isinstance(m, RoundInfo) else m.round for m in rounds]
    assert [r.complete for r in told] == [False, True]  # the reply, then the push
    for info in told:
        players = [p for p in info.next if p.player]
        assert players == (PLAYERS_MOVING if says else [])
        assert [p.pair for p in info.next if not p.player] == ["3"]  # the pair's, always
    if not says:  # what such a keypad got is what a round of pairs alone encodes
        pairs_only = moving.model_copy(update={"next": pairs_too[:1]})
        assert encode(told[0]) == encode(pairs_only)
