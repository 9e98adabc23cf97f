"""Warnings and penalties (§ 211, § 213B, § 262C2): a warning first, then standard deductions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from fractions import Fraction

from sqlmodel import Session, col, select

from protocol.text import MAX_TEXT
from server import scoring
from server.core.errors import InvalidError, NotFoundError
from server.core.models import Event, MovementAssignment, Pair, Sanction, Section, utcnow
from server.core.text import checked
from server.scoring import Offence, Unit, methods
from server.services import audit
from server.services.results.standings import find_pair as find_pair_in
from server.services.results.standings import load, pair_name

OFFENCES = {
    "262C2": "Entry missing at the end of the round (§ 262C2)",
    "213B": "Slow play (§ 213B)",
    "211": "Other procedural offence (§ 211)",
}


def standard_deduction(session: Session, section: Section) -> Fraction | None:
    """One standard deduction (§ 211B) in the section's unit, or None (total points)."""
    event = session.get(Event, section.event_id)
    assert event is not None
    method = methods.of(event.scoring)
    unit = method.penalty_unit
    if unit is None:
        return None
    plays: dict[int, int] = {}
    for row in session.exec(
        select(MovementAssignment).where(MovementAssignment.section_id == section.id)
    ):
        for board in row.board_numbers():
            plays[board] = plays.get(board, 0) + 1
    field = max(plays.values(), default=1)
    if unit is Unit.MATCHPOINTS:
        return scoring.standard_deduction(unit, top=method.top(field))
    return scoring.standard_deduction(unit, other_tables=field - 1)


@dataclass(frozen=True)
class SanctionLine:
    """A warning or deduction as the TD's page lists it."""

    id: int
    pair: str
    kind: str
    warning: bool
    amount: Decimal
    reason: str
    created_at: datetime
    withdrawn: bool
    applied: bool = True
    """False for a row stored before amounts were bounded whose amount no penalty can be
    (``scoring.stored_deduction``): the standings leave it out; the TD may withdraw it."""


def _pair(session: Session, section: Section, key: str) -> Pair:
    return find_pair_in(load(session, section), key)


def _store(
    session: Session, section: Section, pair: Pair, kind: str, amount: Fraction, reason: str
) -> Sanction:
    row = Sanction(
        section_id=section.id or 0,
        pair_id=pair.id or 0,
        kind=kind,
        warning=amount == 0,
        amount=str(amount),
        reason=reason.strip(),
    )
    session.add(row)
    session.flush()
    audit.record(
        session,
        actor="td",
        action="warning" if row.warning else "deduction",
        section_id=section.id,
        new={"pair": pair_name(pair).label, "kind": kind, "amount": str(amount)},
        reason=reason,
    )
    return row


def record_offence(
    session: Session,
    section: Section,
    *,
    pair_key: str,
    kind: str,
    reason: str = "",
    immediate: bool = False,
) -> Sanction:
    """Record an offence: the pair's first of its kind is a warning, each later one costs a
    standard deduction (§ X90C); ``immediate`` penalises at once (e.g. 3+ minutes late)."""
    if kind not in OFFENCES:
        raise InvalidError(
            "unknown_offence", "{kind} is not an offence the TD can record.", kind=repr(kind)
        )
    reason = checked(reason, max_length=MAX_TEXT)
    pair = _pair(session, section, pair_key)
    earlier = session.exec(
        select(Sanction)
        .where(
            Sanction.section_id == section.id,
            Sanction.pair_id == pair.id,
            Sanction.kind == kind,
            Sanction.withdrawn_at == None,  # noqa: E711
        )
        .order_by(col(Sanction.id))
    ).all()
    deduction = standard_deduction(session, section) or Fraction(0)
    offences = [Offence(pair.id, kind) for _ in earlier]
    offences.append(Offence(pair.id, kind, immediate=immediate))
    ruling = scoring.assess(offences, deduction)[-1]
    text = reason.strip() or OFFENCES[kind]
    return _store(session, section, pair, kind, ruling.deduction, text)


def deduct(
    session: Session,
    section: Section,
    *,
    pair_key: str,
    times: int = 1,
    amount: str | None = None,
    reason: str,
) -> Sanction:
    """A penalty of ``times`` standard deductions, or of an explicit ``amount``."""
    reason = checked(reason, max_length=MAX_TEXT)
    if not reason:
        raise InvalidError("reason_required", "Give a reason for the penalty.")
    pair = _pair(session, section, pair_key)
    one = standard_deduction(session, section)
    if amount:
        value = _amount(amount, one)
    else:
        if one is None:
            raise InvalidError(
                "amount_required", "This scoring method has no standard deduction: give one."
            )
        if not 1 <= times <= 5:
            raise InvalidError("invalid_times", "Give 1 to 5 standard deductions (§ X90B3).")
        value = one * times
    return _store(session, section, pair, "211", value, reason)


def _amount(amount: str, one: Fraction | None) -> Fraction:
    """An explicit deduction: a number more than zero and at most 5 standard deductions
    (``one``, § X90B3), or in total points one board's greatest score (Law 77). "1e26",
    "inf" and "nan" are refused, never stored."""
    try:
        value = Fraction(amount.strip().replace(",", "."))
    except (ValueError, ZeroDivisionError) as exc:
        raise InvalidError(
            "invalid_amount", "{amount} is not a number.", amount=repr(amount)
        ) from exc
    if value <= 0:
        raise InvalidError("invalid_amount", "A penalty is more than zero.")
    most = scoring.largest_deduction(one)
    if value > most:
        largest = scoring.to_decimal(most, 2)
        if one is None:
            raise InvalidError(
                "amount_too_large",
                "A penalty is at most {largest} points (one board's greatest score).",
                largest=largest,
            )
        raise InvalidError(
            "amount_too_large",
            "A penalty is at most {largest} here (5 standard deductions, § X90B3).",
            largest=largest,
        )
    return value


def withdraw(session: Session, section: Section, sanction_id: int, reason: str) -> None:
    """Take back a warning or penalty (kept in the audit trail)."""
    reason = checked(reason, max_length=MAX_TEXT)
    row = session.get(Sanction, sanction_id)
    if row is None or row.section_id != section.id:
        raise NotFoundError(
            "unknown_sanction", "There is no penalty {sanction_id}.", sanction_id=sanction_id
        )
    if row.withdrawn_at is None:
        row.withdrawn_at = utcnow()
        session.add(row)
        pair = session.get(Pair, row.pair_id)
        audit.record(
            session,
            actor="td",
            action="sanction_withdrawn",
            section_id=section.id,
            new={"pair": pair_name(pair).label if pair else "", "amount": row.amount},
            reason=reason or "withdrawn",
        )


def sanctions(session: Session, section: Section) -> list[SanctionLine]:
    """Every warning and penalty of the section, newest first."""
    pairs = {p.id: p for p in session.exec(select(Pair).where(Pair.section_id == section.id))}
    rows = session.exec(
        select(Sanction).where(Sanction.section_id == section.id).order_by(col(Sanction.id).desc())
    ).all()
    out = []
    for row in rows:
        pair = pairs.get(row.pair_id)
        amount = scoring.stored_deduction(row.amount)
        out.append(
            SanctionLine(
                id=row.id or 0,
                pair=pair_name(pair).label if pair else "?",
                kind=row.kind,
                warning=row.warning,
                amount=scoring.to_decimal(amount or 0, 2),
                reason=row.reason,
                created_at=row.created_at,
                withdrawn=row.withdrawn_at is not None,
                applied=amount is not None,
            )
        )
    return out
