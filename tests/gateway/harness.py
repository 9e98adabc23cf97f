"""A club night of simulated keypads against the real gateway core and a real database.

Keypads are firmware_sim's (device, store, link) played by firmware_sim's players, wired through
fault-injecting lines in virtual time: some point to point (one port each), the others on one
RS-485 bus. The gateway is server.gateway's core with its service calls made inline, on a real
database. ``verify`` then checks the database against what the keypads sent.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from firmware_sim.device import Device
from firmware_sim.faults import FaultInjector, Faults
from firmware_sim.keypad import Keypad
from firmware_sim.nullmodem import Endpoint, Network, NullModem, SharedBus, VirtualClock
from firmware_sim.player import VirtualPlayer
from firmware_sim.store import MemoryStore
from protocol.keypad_codec import KeypadCommand
from protocol.link import BusDevice, LinkConfig, PointToPointLink
from protocol.messages import ConfirmResult, EnterResult, RejectResult
from server.core.db import migrate, transact
from server.core.models import Audit, BridgeTable, ReceivedEntry, Result, Section
from server.gateway.inline import InlineGateway
from server.movements import mitchell
from server.services.event import setup
from server.services.td import actions as td

BAUD = 9600


class RecordingDevice(Device):
    """A keypad device that remembers every command it handed to its link."""

    def __init__(self, table: int) -> None:
        super().__init__(table, MemoryStore(table))
        self.sent: list[KeypadCommand] = []

    def outgoing(self) -> list[KeypadCommand]:
        out = super().outgoing()
        self.sent.extend(out)
        return out


@dataclass(frozen=True)
class Club:
    """The event in the database: a Mitchell section with round 1 started."""

    section_id: int
    codes: dict[int, str]
    tables: int
    rounds: int
    boards_per_round: int


def make_club(engine: Engine, *, tables: int = 10, rounds: int = 7, bpr: int = 4) -> Club:
    """Create the event and start round 1."""
    migrate(engine)

    def work(session: Session) -> Club:
        event = setup.create_event(session, name="Keypad night")
        movement = mitchell(tables, rounds=rounds, boards_per_round=bpr)
        section = setup.create_section(session, event=event, letter="A", movement=movement)
        td.start_round(session, section, 1)
        codes = td.pairing_codes(session, section)
        return Club(section.id or 0, codes, tables, rounds, bpr)

    return transact(engine, work)


def release_all_rounds(engine: Engine, club: Club) -> None:
    """The TD starts every round at once: tables move on as soon as they finish."""

    def work(session: Session) -> None:
        section = session.get(Section, club.section_id)
        assert section is not None
        while section.current_round < section.rounds:
            td.start_round(session, section, section.current_round + 1)

    transact(engine, work)


@dataclass
class Night:
    """Keypads, lines and the gateway of one simulated session."""

    engine: Engine
    faults: Faults = field(default_factory=Faults)
    seed: int = 0
    tables: int = 10
    rounds: int = 7
    bpr: int = 4
    bus_tables: tuple[int, ...] = (1, 2, 3, 4, 5)
    reject_rate: float = 0.05
    service_time: bool = False
    think: float = 0.3  # seconds between a player's keys (real players are far slower)

    def __post_init__(self) -> None:
        self.clock = VirtualClock()
        self.config = LinkConfig(baud=BAUD)
        self.club = make_club(self.engine, tables=self.tables, rounds=self.rounds, bpr=self.bpr)
        self.keypads: dict[int, Keypad] = {}
        self.players: list[VirtualPlayer] = []
        self.wires: dict[int, tuple[FaultInjector, FaultInjector]] = {}
        for t in range(1, self.tables + 1):
            link: PointToPointLink | BusDevice
            if t in self.bus_tables:
                link = BusDevice(t, self.clock, config=self.config, session=self.seed * 1000 + t)
            else:
                link = PointToPointLink(
                    t, self.clock, config=self.config, session=self.seed * 1000 + t
                )
                self.wires[t] = (self._injector(t), self._injector(100 + t))
            keypad = Keypad(RecordingDevice(t), link)
            self.keypads[t] = keypad
            self.players.append(
                VirtualPlayer(
                    keypad,
                    self.clock,
                    code=self.club.codes[t],
                    seed=self.seed * 1000 + t,
                    reject_rate=self.reject_rate,
                    think=self.think,
                )
            )
        # One transmitter per node on the bus: the gateway's, then each keypad's.
        self.bus_wires = [self._injector(200 + i) for i in range(len(self.bus_tables) + 1)]
        self.restarts = 0
        self._td_next = 0.0
        self.gateway = self._new_gateway()
        for keypad in self.keypads.values():
            keypad.boot()

    def _injector(self, n: int) -> FaultInjector:
        return FaultInjector(self.faults, seed=self.seed * 1000 + n, baud=BAUD)

    def _new_gateway(self) -> InlineGateway:
        gateway = InlineGateway(
            self.engine, self.clock, config=self.config, service_time=self.service_time
        )
        lines: list[NullModem | SharedBus] = []
        for t, (up, down) in self.wires.items():
            line = gateway.attach(f"/dev/ttyKP{t}")
            lines.append(NullModem(self.keypads[t].link, line, self.clock, a_to_b=up, b_to_a=down))
        if self.bus_tables:
            master = gateway.attach("/dev/ttyRS485", bus=self.bus_tables)
            nodes: list[Endpoint] = [master, *(self.keypads[t].link for t in self.bus_tables)]
            lines.append(SharedBus(nodes, self.clock, lines=self.bus_wires))
        hooks: list[Callable[[], float | None]] = [k.pump for k in self.keypads.values()]
        hooks += [gateway.pump, *self.players, self._td]
        self.net = Network(lines, self.clock, hooks=hooks)
        return gateway

    def restart_gateway(self) -> None:
        """A new gateway process on the same database; the keypads keep their stores."""
        self.restarts += 1
        self.gateway = self._new_gateway()

    def all_injectors(self) -> list[FaultInjector]:
        """Every line's transmitter (both ends)."""
        return [w for pair in self.wires.values() for w in pair] + self.bus_wires

    def pull_cables(self, start: float, seconds: float) -> None:
        """Unplug every cable (and the bus) from ``start`` for ``seconds``."""
        for injector in self.all_injectors():
            injector.pull_cable(start, seconds)

    def _td(self) -> float | None:
        """The TD starts the next round once half the tables have finished this one."""
        now = self.clock()
        if now < self._td_next:
            return self._td_next
        self._td_next = now + 5.0

        def work(session: Session) -> list[tuple[int, int | None, object]]:
            section = session.get(Section, self.club.section_id)
            assert section is not None
            if section.current_round >= section.rounds:
                return []
            states = td.section_state(session, section)
            done = sum(s.complete and s.round == section.current_round for s in states)
            if done * 2 < len(states):
                return []
            return [
                (p.section_id, p.table, p.message)
                for p in td.start_round(session, section, section.current_round + 1)
            ]

        pushes = transact(self.engine, work)
        self.gateway.push(pushes)  # type: ignore[arg-type]
        return self._td_next

    def done(self) -> bool:
        """Every player finished the last round and nothing is left unsent or unanswered."""
        return all(p.finished for p in self.players) and all(
            k.link.pending == 0 and not k.device.store.pending() for k in self.keypads.values()
        )

    def run(self, until: float | None = None, *, max_time: float = 3600.0) -> bool:
        """Play until done (or until virtual time ``until``); whether it is done."""
        stop = self.done if until is None else (lambda: self.done() or self.clock.t >= until)
        self.net.run(stop, max_time=max_time)
        return self.done()


@dataclass
class Report:
    """What verify found."""

    results: int
    entries: int
    commands_sent: int
    resends: int
    problems: list[str]


def verify(night: Night) -> Report:
    """Check the night's database against what its keypads sent (see ``verify_db``)."""
    return verify_db(night.engine, night.club, night.keypads)


def sent_by(keypads: dict[int, Keypad]) -> dict[int, list[KeypadCommand]]:
    """Every command each table's keypad sent, resends included."""
    out = {}
    for t, keypad in keypads.items():
        assert isinstance(keypad.device, RecordingDevice)
        out[t] = keypad.device.sent
    return out


def verify_db(engine: Engine, club: Club, keypads: dict[int, Keypad]) -> Report:
    """Check the database against what the keypads sent: every board confirmed once, with the
    values North keyed, every command stored exactly once, none applied twice."""
    sent = sent_by(keypads)
    problems: list[str] = []
    entries = {
        c.entry_id: (t, c)
        for t, commands in sent.items()
        for c in commands
        if isinstance(c, EnterResult | ConfirmResult | RejectResult)
    }
    with Session(engine) as session:
        tables = {
            t.id: t.number
            for t in session.exec(
                select(BridgeTable).where(BridgeTable.section_id == club.section_id)
            ).all()
        }
        results = session.exec(select(Result).where(Result.section_id == club.section_id)).all()
        received = session.exec(
            select(ReceivedEntry).where(col(ReceivedEntry.table_id).in_(list(tables)))
        ).all()
        audits = session.exec(
            select(Audit).where(Audit.section_id == club.section_id, col(Audit.result_id) != None)  # noqa: E711
        ).all()
    expected = club.tables * club.rounds * club.boards_per_round
    if len(results) != expected:
        problems.append(f"{len(results)} results, expected {expected}")
    keys = Counter((r.table_number, r.round, r.board) for r in results)
    problems += [f"{k} stored {n} times" for k, n in keys.items() if n > 1]
    for r in results:
        where = f"table {r.table_number} round {r.round} board {r.board}"
        if r.state != "confirmed":
            problems.append(f"{where} is {r.state}")
        table, command = entries.get(r.entry_id or "", (None, None))
        if not isinstance(command, EnterResult) or table != r.table_number:
            problems.append(f"{where}: entry {r.entry_id} was not sent by its keypad")
            continue
        values = command.values
        keyed = (values.contract, values.declarer, values.tricks)
        if keyed != (r.contract, r.declarer, r.tricks):
            problems.append(f"{where}: stored {r.contract} {r.declarer} {r.tricks}, keyed {keyed}")
    stored_ids = Counter(e.entry_id for e in received)
    problems += [f"entry {e} stored {n} times" for e, n in stored_ids.items() if n > 1]
    lost = set(entries) - set(stored_ids)
    problems += [f"entry {e} ({entries[e][1].type}) was lost" for e in sorted(lost)]
    problems += [f"entry {e} came from nowhere" for e in set(stored_ids) - set(entries)]
    applied = Counter((a.result_id, a.action) for a in audits)
    for r in results:
        boards_entries = {
            e
            for e, (t, c) in entries.items()
            if t == r.table_number and isinstance(c, EnterResult) and c.board == r.board
        }
        # Keyed entries for this board in other rounds cannot exist: boards are played once.
        n_entered = applied[(r.id, "entered")] + applied[(r.id, "re-entered")]
        if n_entered != len(boards_entries):
            problems.append(
                f"table {r.table_number} board {r.board}: {n_entered} entries applied, "
                f"{len(boards_entries)} keyed"
            )
        confirmed = applied[(r.id, "confirmed")]
        if confirmed != 1:
            problems.append(f"table {r.table_number} board {r.board}: confirmed {confirmed} times")
        if applied[(r.id, "conflict")]:
            problems.append(f"table {r.table_number} board {r.board}: a conflict")
    for t, keypad in keypads.items():
        if keypad.device.store.pending():
            problems.append(f"keypad {t} still holds {len(keypad.device.store.pending())} entries")
    all_sent = [c for commands in sent.values() for c in commands]
    with_ids = [c for c in all_sent if isinstance(c, EnterResult | ConfirmResult | RejectResult)]
    return Report(
        results=len(results),
        entries=len(entries),
        commands_sent=len(all_sent),
        resends=len(with_ids) - len({c.entry_id for c in with_ids}),
        problems=problems,
    )


def describe(night: Night, report: Report) -> str:
    """One line for the test log."""
    injected = Counter[str]()
    for injector in night.all_injectors():
        for name in ("corrupted", "dropped", "duplicated", "pulled"):
            injected[name] += getattr(injector.stats, name)
    core = night.gateway.core.stats
    return (
        f"{report.results} results, {report.entries} entries, {report.resends} resent by "
        f"keypads, virtual {night.clock.t:.0f} s; injected {dict(injected)}; "
        f"gateway restarts {night.restarts}, commands {core.commands}, "
        f"pushes sent {core.pushes_sent} skipped {core.pushes_skipped}"
    )


def flatten(groups: Iterable[Iterable[str]]) -> list[str]:
    """All problems of several reports."""
    return [p for g in groups for p in g]
