"""Handicap pairs in a live event: the TD sets each pair's handicap, audited like its names.

A handicap is in percentage points (USEBIO 1.2, ``PAIR / HANDICAP``), kept exactly as the
decimal the TD typed ("2.5", "-1"). How it enters the published percentage is the event's
convention profile (``Profile.handicapped``: raw plus its share, half by default); the places
stay the scratch places. Bad input is refused with the pair named, and nothing is stored.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from sqlmodel import Session

from server.core.errors import InvalidError
from server.core.models import Pair, Section
from server.io.handicap_io import handicap_text, parse_handicap
from server.services import audit


def parse(text: str | None, label: str) -> str | None:
    """The stored form of a handicap the TD typed (blank: no handicap); ``label`` names the
    pair in the refusal."""
    if text is None or not text.strip():
        return None
    try:
        return handicap_text(parse_handicap(text))
    except ValueError:
        shown = text.strip()[:20]
        raise InvalidError(
            "invalid_handicap",
            "Pair {label}: {shown} is not a handicap. Type percentage points between -100 "
            "and 100, such as 2.5, or leave it blank.",
            label=label,
            shown=repr(shown),
        ) from None


def value(pair: Pair) -> Fraction | None:
    """A pair's handicap as the scorer takes it, or None in a scratch event."""
    return None if pair.handicap is None else Fraction(Decimal(pair.handicap))


def set_handicap(
    session: Session, section: Section, pair: Pair, text: str | None, *, actor: str = "td"
) -> bool:
    """Set (or clear, with a blank) a pair's handicap; False when it is unchanged (nothing
    written, nothing audited)."""
    label = f"{pair.number}{pair.direction or ''}"
    stored = parse(text, label)
    if stored == pair.handicap:
        return False
    audit.record(
        session,
        actor=actor,
        action="pair_handicap",
        section_id=section.id,
        old={"pair": label, "handicap": pair.handicap},
        new={"pair": label, "handicap": stored},
    )
    pair.handicap = stored
    session.add(pair)
    return True
