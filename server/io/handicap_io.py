"""Handicap pairs in files: USEBIO ``PAIR / HANDICAP`` read into ``PairEntry.handicap`` and back.

A handicap pairs event gives each pair a handicap in percentage points (USEBIO 1.2, PAIR
element, ``HANDICAP``). Reading only carries the value to the pair; how it enters the published
percentage is a convention profile's business (the scoring layer), never the reader's. A value
that is not a number is refused with the pair named, never dropped silently.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from .assemble import RawPair
from .model import EventFile, Refusal

MAX_HANDICAP = Decimal(100)
"""A handicap is in percentage points: anything beyond ±100 cannot be one."""


def parse_handicap(text: str) -> Decimal:
    """A handicap from "3", "-2.5", "+1,5"; ValueError if it is not a number of points."""
    cleaned = text.strip().replace(",", ".")
    try:
        value = Decimal(cleaned)
    except InvalidOperation:
        raise ValueError(f"{text.strip()!r} is not a handicap (expected a number)") from None
    if not value.is_finite() or abs(value) > MAX_HANDICAP:
        raise ValueError(f"{text.strip()!r} is not a handicap in percentage points")
    return value


def handicap_text(value: Decimal) -> str:
    """The handicap as USEBIO writes it: plain decimal notation, no exponent."""
    return format(value.normalize(), "f") if value == value.to_integral() else format(value, "f")


@dataclass(slots=True)
class Handicaps:
    """The HANDICAPs of the PAIRs a USEBIO reader met, put on the pair entries once built."""

    found: list[tuple[RawPair, Decimal]] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)

    def read(self, element: ET.Element, raw: RawPair) -> None:
        child = element.find("HANDICAP")
        if child is None or not (child.text or "").strip():
            return
        try:
            self.found.append((raw, parse_handicap(child.text or "")))
        except ValueError as exc:
            where = f"PAIR {raw.number}" + (f" (section {raw.section})" if raw.section else "")
            self.refused.append(Refusal(str(exc), element=f"{where} / HANDICAP"))

    def apply(self, event: EventFile) -> None:
        """Set each pair's handicap; the entry is the one with the pair's section and number
        (and its direction, when the keys carry one)."""
        for raw, value in self.found:
            for entry in event.pairs:
                key = entry.key
                if (key.section, key.number) == (raw.section, raw.number) and (
                    key.direction is None or raw.direction is None or key.direction == raw.direction
                ):
                    entry.handicap = value
        event.refused.extend(self.refused)
