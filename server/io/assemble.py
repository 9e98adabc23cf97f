"""Turn the pair numbers a file writes into pair keys, deciding whether directions are needed."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from decimal import Decimal

from protocol.text import neutral

from .model import EventFile, Line, PairEntry, PairKey


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

    def _needs_direction(self) -> bool:
        if self.directional is not None:
            return self.directional
        if any(p.explicit for p in self.pairs):
            return True
        if any(r is not None and r.explicit for _, *rs in self.refs for r in rs):
            return True
        counts = Counter((p.section, p.number) for p in self.pairs)
        if any(n > 1 for n in counts.values()):
            return True
        return self.event.winners == 2 and not self.pairs

    def build(self) -> EventFile:
        """The event with every pair and line keyed the same way."""
        directional = self._needs_direction()
        event = self.event
        event.name = neutral(event.name)
        seen: dict[PairKey, PairEntry] = {}
        for raw in self.pairs:
            key = PairKey(raw.section, raw.number, raw.direction if directional else None)
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


def _key(ref: RawRef | None, directional: bool) -> PairKey | None:
    if ref is None:
        return None
    side = (ref.explicit or ref.seat) if directional else None
    return PairKey(ref.section, ref.number, side)


def _order(key: PairKey) -> tuple[str, str, int]:
    return (key.section or "", key.direction or "", key.number)
