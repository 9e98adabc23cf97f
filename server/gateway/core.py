"""The gateway's core, sans I/O: link events in, jobs for the database out, replies and pushes
routed to the right keypad. The drivers (inline.py in virtual time, runner.py for real ports)
move the bytes, run the jobs and hand back what they did."""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

from protocol.keypad_codec import (
    CodecError,
    KeypadCommand,
    decode,
    encode,
    without_player_positions,
)
from protocol.link import Clock, Delivered, LinkConfig, LinkDown, LinkUp, PeerRestarted
from protocol.messages import (
    ConflictRaised,
    Error,
    GetRound,
    Hello,
    Message,
    NextRound,
    PairTerminal,
    ResultAck,
    ResultChanged,
    RoundChanged,
    RoundInfo,
    SettingsChanged,
)
from server.live.bus import Delivery

from .jobs import KEEP, Binding, Handled, KeypadJob, Station
from .line import SerialLine

log = logging.getLogger(__name__)

#: Pushes a keypad understands as they are (SettingsChanged goes as a TableSettings frame).
PUSHED = (RoundChanged, ResultChanged, ConflictRaised)
#: Refusals that show the keypad's picture of its round is wrong (stale, or hit by a damaged
#: frame that passed the CRC): it is sent the round as it is, so it cannot loop on them.
OUT_OF_STEP = frozenset(
    {"board_not_in_round", "unknown_board", "not_entered", "stale_version", "round_not_started"}
)
#: Seconds between the gateway's own looks whether the TD released the round a keypad waits for
#: (the push usually says so at once; this covers a push missed while the keypad was away).
WAIT_RECHECK = 10.0
#: Seconds between the gateway's word to the server that a bound keypad is there, while its link
#: is up and it sends nothing (a GetRound as news: the server notes the table token's last
#: seen, the keypad gets the round only if it changed). "Last seen" on the TD's pages is then
#: the link's, not the last key's: an idle keypad stays online (within the dashboard's 90 s)
#: and a pulled cable shows offline once its link is down (protocol.link keepalive).
PRESENCE_EVERY = 30.0


@dataclass(slots=True)
class _Keypad:
    """What the gateway knows of one keypad."""

    station: Station
    binding: Binding | None = None
    up: bool | None = None
    queue: deque[KeypadJob] = field(default_factory=deque)
    busy: bool = False  # a job of this keypad is running: its commands run one at a time
    retry_at: float = 0.0  # the database was away: not before this
    recheck_at: float = 0.0  # waiting for the next round: ask again then
    presence_at: float = 0.0  # when the server is next told it is there (if nothing else)
    round_no: int | None = None  # the round it was last told of
    round_sent: tuple[object, ...] | None = None  # what it shows of that round
    views_sent: dict[tuple[int, int], tuple[int, str]] = field(default_factory=dict)
    #: Its pairing or Hello said its firmware reads an individual's players' positions (until
    #: then, and for older firmware, its rounds carry the pairs' only: without_player_positions).
    player_positions: bool = False


@dataclass(slots=True)
class CoreStats:
    """Counters for logs, tests and benchmarks."""

    commands: int = 0
    bad_frames: int = 0
    replies: int = 0
    pushes_sent: int = 0
    pushes_skipped: int = 0
    postponed: int = 0


class GatewayCore:
    """Keypads on ports: decodes their commands into jobs, and encodes replies and pushes."""

    def __init__(self, now: Clock, *, config: LinkConfig | None = None) -> None:
        self.now = now
        self.config = config or LinkConfig()
        self.lines: dict[str, SerialLine] = {}
        self.keypads: dict[Station, _Keypad] = {}
        self.stats = CoreStats()
        self._jobs = 0

    # ------------------------------------------------------------------ set-up

    def attach(self, name: str, *, bus: Sequence[int] | None = None) -> SerialLine:
        """Open the link of a port (call ``bind`` for the stored bindings first)."""
        known = [k.address for k in self.keypads if k.port == name]
        address = known[0] if bus is None and len(known) == 1 else None
        line = SerialLine(name, self.now, bus=bus, address=address, config=self.config)
        self.lines[name] = line
        return line

    def bind(self, station: Station, binding: Binding) -> None:
        """A stored binding (at start): route pushes to it, and resume a wait for the next round
        (``take_jobs`` looks at once whether it is over)."""
        self._keypad(station).binding = binding

    def _keypad(self, station: Station) -> _Keypad:
        keypad = self.keypads.get(station)
        if keypad is None:
            keypad = self.keypads[station] = _Keypad(station)
        return keypad

    def _enqueue(
        self, keypad: _Keypad, command: KeypadCommand, *, news: bool = False, retry: bool = False
    ) -> None:
        self._jobs += 1
        keypad.queue.append(KeypadJob(keypad.station, command, self._jobs, news=news, retry=retry))

    # ------------------------------------------------------------------ link events -> jobs

    def take_jobs(self) -> list[KeypadJob]:
        """Read the links' events; the next job of each keypad that has none running."""
        for name, line in self.lines.items():
            for address, event in line.events():
                self._on_event(self._keypad(Station(name, address)), event)
        now = self.now()
        jobs = []
        for keypad in self.keypads.values():
            here = keypad.station.port in self.lines  # not a port no longer served
            if here and self._waiting(keypad) and now >= keypad.recheck_at:
                keypad.recheck_at = now + WAIT_RECHECK
                self._enqueue(keypad, NextRound(), news=True, retry=True)
            if here and self._present(keypad) and now >= keypad.presence_at:
                keypad.presence_at = now + PRESENCE_EVERY
                self._enqueue(keypad, GetRound(), news=True)
            if keypad.queue and not keypad.busy and now >= keypad.retry_at:
                keypad.busy = True
                jobs.append(keypad.queue.popleft())
        return jobs

    def _on_event(self, keypad: _Keypad, event: object) -> None:
        if isinstance(event, Delivered):
            try:
                command = decode(event.msg_type, event.payload)
            except CodecError as exc:
                self.stats.bad_frames += 1
                log.warning("%s: undecodable message: %s", keypad.station, exc)
                return
            if not isinstance(command, KeypadCommand):
                self.stats.bad_frames += 1
                log.warning("%s: sent a %s, not a command", keypad.station, command.type)
                return
            self.stats.commands += 1
            if isinstance(command, PairTerminal | Hello):
                keypad.player_positions = bool(command.player_positions)
            log.debug("%s: keypad sent %s", keypad.station, _brief(command))
            self._enqueue(keypad, command)
            keypad.presence_at = self.now() + PRESENCE_EVERY  # its command says it is there
        elif isinstance(event, LinkUp):
            if keypad.up is False and keypad.binding is not None:
                # Back after a silence: whatever it missed, the round as it is now.
                self._enqueue(keypad, GetRound(), news=True)
            if keypad.up is not None:
                log.info("%s: link up again", keypad.station)
            keypad.up = True
        elif isinstance(event, LinkDown):
            log.warning("%s: link down (keypad not answering)", keypad.station)
            keypad.up = False
        elif isinstance(event, PeerRestarted):
            log.info("%s: keypad restarted", keypad.station)

    # ------------------------------------------------------------------ outcomes -> frames

    def _present(self, keypad: _Keypad) -> bool:
        """Bound, its link up, and nothing of it queued or running (which tells as much)."""
        return (
            keypad.binding is not None
            and keypad.up is True
            and not keypad.queue
            and not keypad.busy
        )

    def _waiting(self, keypad: _Keypad) -> bool:
        """Waiting for the TD to release its next round, with no retry queued or running."""
        binding = keypad.binding
        return (
            binding is not None
            and binding.next_round_from is not None
            and not keypad.busy
            and not any(j.retry for j in keypad.queue)
        )

    def finish(self, job: KeypadJob, handled: Handled) -> None:
        """A job is done and committed: queue its reply, note the keypad's binding."""
        keypad = self._keypad(job.station)
        keypad.busy = False
        if handled.binding != KEEP:
            keypad.binding = handled.binding
            if not job.retry:
                # A wait that has just begun: the TD may have released the round while the
                # job ran (its push found no wait to end), so look once more at once.
                keypad.recheck_at = self.now()
        if handled.reply is None:
            return
        if job.news:
            self._offer(keypad, handled.reply)
            return
        reply = self._readable(keypad, handled.reply)
        stale = isinstance(reply, RoundInfo) and self._compare(keypad, reply) == "older"
        self.stats.replies += 1
        self._send(keypad, reply)
        if isinstance(reply, Error) and reply.code in OUT_OF_STEP:
            keypad.round_no, keypad.round_sent = None, None
            keypad.views_sent.clear()  # whatever it shows, it is not what was sent
            stale = True
        if stale:
            # Overtaken by a push made after it (the TD moved the table on meanwhile), or out
            # of step: the keypad gets its answer, then the round as it is now.
            self._enqueue(keypad, GetRound(), news=True)

    def postpone(self, job: KeypadJob, delay: float) -> None:
        """The database could not take the job: run it again (first of its keypad) later."""
        keypad = self._keypad(job.station)
        keypad.busy = False
        keypad.queue.appendleft(job)
        keypad.retry_at = self.now() + delay
        self.stats.postponed += 1

    def push(self, delivery: Delivery) -> None:
        """A server push for a table (from the bus or the database watcher)."""
        section_id, table, message = delivery
        if isinstance(message, SettingsChanged):
            self._settings(section_id, table, message)
            return
        if not isinstance(message, PUSHED):
            return
        table = table or _table_of(message)
        for keypad in self.keypads.values():
            binding = keypad.binding
            if binding is None or (binding.section_id, binding.table) != (section_id, table):
                continue
            self._offer(keypad, message)
            if (
                isinstance(message, RoundChanged)
                and message.round.next_round_released
                and binding.next_round_from == message.round.round
                and self._waiting(keypad)
            ):
                self._enqueue(keypad, NextRound(), news=True, retry=True)

    def _settings(self, section_id: int, table: int | None, message: SettingsChanged) -> None:
        """The TD changed the event's table settings (the auction or a hand-dealt board's deal
        keyed, say): the section's keypads (or the one table's) get them as a TableSettings
        frame, as when they asked at start-up, so a keypad follows without re-pairing."""
        for keypad in self.keypads.values():
            binding = keypad.binding
            if binding is None or binding.section_id != section_id:
                continue
            if table is not None and binding.table != table:
                continue
            self.stats.pushes_sent += 1
            self._send(keypad, message.settings)

    def _offer(self, keypad: _Keypad, message: Message) -> None:
        """Send news unless the keypad already has it (its own change coming back, a round
        that changed only where a keypad does not look: a bus at 9600 baud has no bytes to
        spare), or has newer (a push computed before the reply it overtook)."""
        message = self._readable(keypad, message)
        if isinstance(message, RoundInfo | RoundChanged):
            info = message if isinstance(message, RoundInfo) else message.round
            if self._compare(keypad, info) != "newer":
                self.stats.pushes_skipped += 1
                return
            message = RoundChanged(round=info)
        elif isinstance(message, ResultChanged):
            view = message.result
            known = keypad.views_sent.get((view.round, view.board))
            if known is not None and view.version <= known[0]:
                self.stats.pushes_skipped += 1
                return
        self.stats.pushes_sent += 1
        self._send(keypad, message)

    @staticmethod
    def _readable(keypad: _Keypad, message: Message) -> Message:
        """``message`` as this keypad's firmware reads it (players' positions only for one
        that said it reads them)."""
        return message if keypad.player_positions else without_player_positions(message)

    def _compare(self, keypad: _Keypad, info: RoundInfo) -> str:
        """``info`` against what the keypad was told: "same", "newer" or "older"."""
        if keypad.round_no is not None and info.round != keypad.round_no:
            return "newer" if info.round > keypad.round_no else "older"  # rounds only go up
        verdict = "same" if _shown(info) == keypad.round_sent else "newer"
        for status in info.boards:
            view = status.result
            known = keypad.views_sent.get((info.round, status.board))
            if known is not None and (view is None or view.version < known[0]):
                return "older"  # results are never deleted, versions only go up
            if (None if view is None else (view.version, view.state)) != known:
                verdict = "newer"
        return verdict

    def _send(self, keypad: _Keypad, message: Message) -> None:
        station = keypad.station
        try:
            msg_type, payload = encode(message)
        except CodecError as exc:
            log.error("%s: cannot send %s: %s", station, type(message).__name__, exc)
            entry_id = getattr(message, "entry_id", None)
            fallback = Error(code="too_large", message="Reply too large", entry_id=entry_id)
            msg_type, payload = encode(fallback)
        line = self.lines.get(station.port)
        if line is None or not line.send(station.address, msg_type, payload):
            log.warning("%s: not on its port any more; %s dropped", station, type(message).__name__)
            return
        log.debug("%s: keypad told %s", station, _brief(message))
        self._remember(keypad, message)

    def _remember(self, keypad: _Keypad, message: Message) -> None:
        info = None
        if isinstance(message, RoundInfo):
            info = message
        elif isinstance(message, RoundChanged):
            info = message.round
        if info is not None:
            keypad.round_no, keypad.round_sent = info.round, _shown(info)
            views = [s.result for s in info.boards if s.result is not None]
        elif isinstance(message, ResultAck | ResultChanged | ConflictRaised):
            views = [message.result]
        else:
            views = []
        for view in views:
            key = (view.round, view.board)
            known = keypad.views_sent.get(key)
            if known is None or view.version >= known[0]:
                keypad.views_sent[key] = (view.version, view.state)

    # ------------------------------------------------------------------ for the drivers

    def next_deadline(self) -> float | None:
        """When the core next has something to do (a link timer, a job to run or retry)."""
        times = [line.next_deadline() for line in self.lines.values()]
        times.append(self.jobs_deadline())
        known = [t for t in times if t is not None]
        return min(known) if known else None

    def jobs_deadline(self) -> float | None:
        """When ``take_jobs`` next has a job to give (a postponed one, a wait to look at)."""
        times = [k.retry_at for k in self.keypads.values() if k.queue and not k.busy]
        times += [
            k.recheck_at
            for k in self.keypads.values()
            if k.station.port in self.lines and self._waiting(k)
        ]
        times += [
            k.presence_at
            for k in self.keypads.values()
            if k.station.port in self.lines and self._present(k)
        ]
        return min(times) if times else None

    def watched(self) -> set[tuple[int, int]]:
        """(section id, table) of every bound keypad whose link is up: the tables to watch."""
        return {
            (k.binding.section_id, k.binding.table)
            for k in self.keypads.values()
            if k.binding is not None and k.up
        }

    def status(self) -> list[dict[str, object]]:
        """One line per keypad: where, which table, link state, queued work."""
        out: list[dict[str, object]] = []
        for station, keypad in sorted(self.keypads.items()):
            binding = keypad.binding
            line = self.lines.get(station.port)
            out.append(
                {
                    "port": station.port,
                    "address": station.address,
                    "table": None if binding is None else binding.table,
                    "up": bool(keypad.up),
                    "queued": len(keypad.queue) + keypad.busy,
                    "unacked": 0 if line is None else line.pending(station.address),
                }
            )
        return out


def _shown(info: RoundInfo) -> tuple[object, ...]:
    """What a keypad shows of a round, besides its boards' results (firmware_sim/device.py):
    not ``round_open`` or ``next_round_released``, which only the TD's start of a round flips.
    A board's ``deal`` (key or check the hand-dealt deal) is shown: once a table has
    keyed it, the other tables' keypads are told to check it."""
    return (
        info.round,
        info.rounds,
        info.ns,
        info.ew,
        tuple((b.board, b.dealer, b.vulnerability, b.deal) for b in info.boards),
        tuple(info.next),
        info.complete,
        info.lead_required,
        info.tricks_style,
        info.confirm_pin_required,
    )


def _table_of(message: Message) -> int:
    if isinstance(message, RoundChanged):
        return message.round.table
    assert isinstance(message, ResultChanged | ConflictRaised)
    return message.result.table


def _brief(message: Message) -> str:
    """A message for the log (`gateway -v`): its type and the fields that are set."""
    fields = message.model_dump(mode="json", exclude_none=True, exclude={"type"})
    return f"{getattr(message, 'type', type(message).__name__)} {fields}"
