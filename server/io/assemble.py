"""Turn the pair numbers a file writes into pair keys, deciding whether directions are needed;
and the reader contract's last check: a file with nothing usable left is refused as a whole.

Directions are decided per section: a Howell section beside Mitchell sections keeps one key
per pair (never split into N/S, E/W and empty entries).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal

from protocol.text import neutral

from .errors import EventFileError
from .model import EventFile, Line, PairEntry, PairKey, Refusal


@dataclass(slots=True)
class RawPair:
    """A pair as written: number, its section, and any direction the file gives."""

    section: str | None
    number: int
    direction: str | None
    names: tuple[str, ...] = ()
    ids: tuple[str, ...] = ()
    total: Decimal | None = None
    percentage: Decimal | None = None
    place: str | None = None
    explicit: bool = False
    """Whether the pair number itself carried the direction ("7 NS")."""


@dataclass(slots=True)
class RawRef:
    """A pair number on a traveller line, and the direction it sat."""

    section: str | None
    number: int
    seat: str
    """"NS" or "EW": where the pair sat on this line."""
    explicit: str | None = None
    """A direction written with the number ("7 NS"), if any."""


@dataclass(slots=True)
class Assembler:
    """Collects what a reader found, then builds the EventFile with consistent pair keys."""

    event: EventFile
    pairs: list[RawPair] = field(default_factory=list)
    refs: list[tuple[Line, RawRef | None, RawRef | None]] = field(default_factory=list)
    directional: bool | None = None
    """Force pair keys with (True) or without (False) direction; None decides from the data."""

    def add_line(self, line: Line, ns: RawRef | None, ew: RawRef | None) -> None:
        self.refs.append((line, ns, ew))

    def _needs_direction(self, section: str | None) -> bool:
        if self.directional is not None:
            return self.directional
        pairs = [p for p in self.pairs if p.section == section]
        if any(p.explicit for p in pairs):
            return True
        refs = [r for _, *rs in self.refs for r in rs if r is not None and r.section == section]
        if any(r.explicit for r in refs):
            return True
        counts = Counter(p.number for p in pairs)
        if any(n > 1 for n in counts.values()):
            return True
        if self._numbered_per_direction(section):
            return True
        return self.event.winners == 2 and not self.pairs

    def _numbered_per_direction(self, section: str | None) -> bool:
        """Whether numbers sit N/S and E/W on one board, on two boards or more: one pair never
        plays a board twice, so the file numbers each direction from 1 (a Mitchell; Bridgewebs'
        PBN export, tests/data/published/bridgewebs_westwood_2019-06-25_silver_points_pairs.pbn).
        A single such board is more likely a mistyped pair number than a numbering, so it
        only decides with another; the decision is noted either way."""
        seats: dict[tuple[int, int], set[str]] = {}
        for line, *found in self.refs:
            for ref in found:
                if ref is not None and ref.section == section:
                    seats.setdefault((line.board, ref.number), set()).add(ref.seat)
        clashes = sorted((board, number) for (board, number), sat in seats.items() if len(sat) > 1)
        if not clashes:
            return False
        board, number = clashes[0]
        where = f"section {section}: " if section else ""
        boards = len({b for b, _ in clashes})
        if boards < 2:
            self.event.notes.append(
                f"{where}pair {number} sits N/S and E/W on board {board}; read as one pair"
            )
            return False
        self.event.notes.append(
            f"{where}pairs numbered per direction: a number sits N/S and E/W on {boards} "
            f"boards (pair {number}, board {board} first), so N/S {number} and E/W {number} "
            f"are two pairs"
        )
        return True

    def _sections(self) -> set[str | None]:
        found = {p.section for p in self.pairs}
        return found | {r.section for _, *rs in self.refs for r in rs if r is not None}

    def build(self) -> EventFile:
        """The event with every pair and line keyed the same way."""
        directional = {section: self._needs_direction(section) for section in self._sections()}
        event = self.event
        event.name = neutral(event.name)
        seen: dict[PairKey, PairEntry] = {}
        for raw in self.pairs:
            side = raw.direction if directional[raw.section] else None
            key = PairKey(raw.section, raw.number, side)
            names = tuple(neutral(name) for name in raw.names)  # never an ESC to a terminal
            seen[key] = PairEntry(key, names, raw.ids, raw.total, raw.percentage, raw.place)
        lines: list[Line] = []
        for line, ns, ew in self.refs:
            line.ns = _key(ns, directional)
            line.ew = _key(ew, directional)
            for ref_key in (line.ns, line.ew):
                if ref_key is not None and ref_key not in seen:
                    seen[ref_key] = PairEntry(ref_key)
            lines.append(line)
        event.pairs = sorted(seen.values(), key=lambda p: _order(p.key))
        event.lines = lines
        return event


def _key(ref: RawRef | None, directional: dict[str | None, bool]) -> PairKey | None:
    if ref is None:
        return None
    side = (ref.explicit or ref.seat) if directional[ref.section] else None
    return PairKey(ref.section, ref.number, side)


def _order(key: PairKey) -> tuple[str, str, int]:
    return (key.section or "", key.direction or "", key.number)


def unseated(line: Line, ns: RawRef | None, ew: RawRef | None) -> bool:
    """Whether a line with a result names nobody who played it (no pair on either side and
    no players): it cannot be scored, so the reader refuses it where it is."""
    return line.played and ns is None and ew is None and line.players is None


UNSEATED = "the line names no pair and no players: not scored"


def finish(event: EventFile) -> EventFile:
    """The reader contract's last check. Every line was read or refused with its place; a
    line with a result and nobody seated is refused (by board, when its reader had not);
    a file with no result read and no deal (nothing usable left) is refused as a whole,
    named by its first refusal, and so is a traveller with lines but not one result on
    them (a silently empty event)."""
    kept: list[Line] = []
    for line in event.lines:
        if line.played and line.ns is None and line.ew is None and line.players is None:
            event.refused.append(Refusal(UNSEATED, board=line.board))
        else:
            kept.append(line)
    event.lines = kept
    usable = any(line.played for line in event.lines) or any(
        record.deal for record in event.boards.values()
    )
    if usable or (not event.refused and not event.lines):
        return event
    read = len(event.lines)
    if event.refused:
        first = event.refused[0]
        where = first.element + ": " if first.element else ""
        raise EventFileError(
            f"{where}{first.reason} (nothing usable left: {read} lines read without a "
            f"result, {len(event.refused)} refused)",
            line=first.line,
            board=None if first.element else first.board,
        )
    raise EventFileError(f"no traveller line holds a result ({read} lines, none played)")


def summary(event: EventFile, shown: int = 5) -> str:
    """ "412 lines read, 2 refused: line 88: ..., board 7: ..." (the first ``shown``)."""
    text = f"{len(event.lines)} lines read, {len(event.refused)} refused"
    if event.refused:
        listed = "; ".join(str(r) for r in event.refused[:shown])
        more = len(event.refused) - shown
        text += ": " + listed + (f"; and {more} more" if more > 0 else "")
    return text
