"""A section's movement in the database: read it back, and change it mid-session (audited).

Rounds already started are never rewritten, so every result entered stays where it is.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace

from sqlmodel import Session, col, select

from protocol.bridge import dealer, vulnerability
from server.core.errors import ConflictError, InvalidError, verbatim
from server.core.models import Board, BridgeTable, MovementAssignment, Pair, Section, SectionPlayer
from server.movements import Movement, MovementError, PairRef, RoundAssignment, validate
from server.movements import edit as edits
from server.movements.individual_pairs import partnership_players, players_of
from server.movements.model import format_seats, parse_seats
from server.services import audit
from server.services.tokens import new_pairing_codes, new_pin

#: A change: (the movement, the first round not yet started) -> the changed movement.
Edit = Callable[[Movement, int], Movement]


def shared_tables(section: Section) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(group) for group in json.loads(section.shared_tables or "[]"))


def circuits(section: Section) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(group) for group in json.loads(section.circuits or "[]"))


def _pair_refs(session: Session, section: Section) -> dict[int, PairRef]:
    pairs = session.exec(select(Pair).where(Pair.section_id == section.id)).all()
    return {
        p.id or 0: PairRef(p.number, p.direction)  # type: ignore[arg-type]
        for p in pairs
    }


def load_movement(session: Session, section: Section) -> Movement:
    """The section's movement as stored (after any changes made during the session)."""
    refs = _pair_refs(session, section)
    rows = session.exec(
        select(MovementAssignment)
        .where(MovementAssignment.section_id == section.id)
        .order_by(col(MovementAssignment.round), col(MovementAssignment.table_number))
    ).all()
    assignments = tuple(
        RoundAssignment(
            table=r.table_number,
            round=r.round,
            ns=refs.get(r.ns_pair_id) if r.ns_pair_id else None,
            ew=refs.get(r.ew_pair_id) if r.ew_pair_id else None,
            boards=tuple(r.boards_listed()),
            seats=parse_seats(r.seats) if r.seats else None,
        )
        for r in rows
    )
    return Movement(
        name=section.movement_name,
        kind=section.movement_kind,
        tables=section.tables,
        rounds=section.rounds,
        boards_per_round=section.boards_per_round,
        assignments=assignments,
        shared_tables=shared_tables(section),
        circuits=circuits(section),
    )


@dataclass(frozen=True)
class Preview:
    """A change worked out but not stored: the movement before and after, and the cells
    (round, table) it changes."""

    before: Movement
    after: Movement
    changed: frozenset[tuple[int, int]]


def preview_change(session: Session, section: Section, edit: Edit) -> Preview:
    """Work out ``edit`` on the stored movement without storing it.

    Refused if it would change a round that has already started (results entered there must
    stay attached to the same tables, pairs and boards), or if it changes nothing (the same
    change sent twice)."""
    before = load_movement(session, section)
    try:
        after = edit(before, section.current_round + 1)
        validate(after)
    except (MovementError, ValueError) as exc:
        raise InvalidError("invalid_movement", verbatim(str(exc))) from exc
    started = section.current_round
    old_started = {(a.round, a.table): a for a in before.assignments if a.round <= started}
    new_started = {(a.round, a.table): a for a in after.assignments if a.round <= started}
    if old_started != new_started:
        raise ConflictError(
            "round_already_started",
            "That change would alter rounds 1-{started}, which have started: change only "
            "later rounds.",
            started=started,
        )
    old = {(a.round, a.table): a for a in before.assignments}
    new = {(a.round, a.table): a for a in after.assignments}
    changed = frozenset(k for k in old.keys() | new.keys() if old.get(k) != new.get(k))
    if not changed and after.rounds == before.rounds:
        raise InvalidError(
            "nothing_changes", "That change leaves the movement as it is: nothing to do."
        )
    return Preview(before, after, changed)


def change_movement(session: Session, section: Section, edit: Edit, *, what: str) -> Movement:
    """Apply ``edit`` to the stored movement and store the result (audited); refused as
    :func:`preview_change` says."""
    worked = preview_change(session, section, edit)
    before, after = worked.before, worked.after
    store(session, section, after, from_round=section.current_round + 1)
    audit.record(
        session,
        actor="td",
        action="movement_changed",
        section_id=section.id,
        old={"name": before.name, "rounds": before.rounds, "pairs": len(before.pairs())},
        new={"name": after.name, "rounds": after.rounds, "pairs": len(after.pairs())},
        reason=what,
    )
    return after


def require_pairs(section: Section) -> None:
    """The changes that seat pairs are for pairs sections, not an individual."""
    if section.movement_kind == "individual":
        raise InvalidError(
            "individual_section",
            "Section {letter} is an individual: players, not pairs, are seated; this change "
            "is for pairs sections.",
            letter=section.letter,
        )


def late_pair(pair: PairRef) -> Edit:
    """Seat a late pair in the phantom's place from the first round not yet started."""

    def edit(m: Movement, first: int) -> Movement:
        if first > m.rounds:
            raise MovementError(
                "no round is left to play: the late pair cannot join now",
                kind="late_pair_too_late",
            )
        seated = edits.add_late_pair(m, pair, from_round=first)
        if pair not in seated.pairs():
            raise MovementError(
                f"no seat is empty for pair {pair}: seat it at a new table sharing boards",
                kind="no_empty_seat",
                late_pair=pair,
            )
        return seated

    return edit


def late_table(pair: PairRef, share_with: int | None, opponent: PairRef | None) -> Edit:
    """Seat a late pair at a new table sharing boards, from the first round not yet started."""
    return lambda m, first: edits.add_late_table(
        m, pair, share_with=share_with, from_round=first, opponent=opponent
    )


def pair_left(pair: PairRef, from_round: int) -> Edit:
    """A pair has left: from ``from_round`` its opponents sit out (§ 216)."""
    return lambda m, _first: edits.remove_pair(m, pair, from_round=from_round)


def stop_after(rounds: int) -> Edit:
    """Finish the session after ``rounds`` rounds."""
    return lambda m, _first: edits.stop_after(m, rounds)


def boards_per_round(count: int, from_round: int) -> Edit:
    """Play ``count`` boards a round from ``from_round`` on."""
    return lambda m, _first: edits.change_boards_per_round(m, count, from_round=from_round)


def swap_pairs(first: PairRef, second: PairRef, from_round: int | None = None) -> Edit:
    """Two pairs change places from ``from_round`` (default: the first round not yet
    started): each takes the other's seats, opponents and boards (e.g. two pairs who sat
    down at each other's table). A round already started is refused by the caller."""
    return lambda m, start: swapped(m, first, second, from_round=from_round or start)


def swapped(m: Movement, first: PairRef, second: PairRef, *, from_round: int) -> Movement:
    """The movement with ``first`` and ``second`` in each other's seats from ``from_round``."""
    if first == second:
        raise MovementError(
            f"pick two different pairs to swap, not {first} twice",
            kind="same_pair_twice",
            chosen=first,
        )
    for pair in (first, second):
        if pair not in m.pairs():
            raise MovementError(
                f"pair {pair} is not in the movement", kind="pair_not_in_movement", pair=pair
            )
    if from_round > m.rounds:
        raise MovementError("no round is left to play: nothing to swap", kind="nothing_to_swap")
    other = {first: second, second: first}

    def seat(p: PairRef | None) -> PairRef | None:
        return other.get(p, p) if p is not None else None

    cells = [
        replace(a, ns=seat(a.ns), ew=seat(a.ew)) if a.round >= from_round else a
        for a in m.assignments
    ]
    changed = m.with_assignments(cells, name=f"{m.name}, pairs {first} and {second} swapped")
    validate(changed)
    return changed


def store(session: Session, section: Section, m: Movement, *, from_round: int) -> None:
    """Write the assignments of rounds >= from_round, adding the tables (with pairing codes),
    pairs (with PINs) and boards (Law 2) that are new."""
    have = {
        t.number
        for t in session.exec(select(BridgeTable).where(BridgeTable.section_id == section.id))
    }
    new_tables = [number for number in range(1, m.tables + 1) if number not in have]
    # A table added mid-session starts where the others are, with nobody seated in the rounds
    # already started, so its terminal moves on like every other table.
    started = min(section.current_round, from_round - 1)
    for number, code in zip(new_tables, new_pairing_codes(session, len(new_tables)), strict=True):
        session.add(
            BridgeTable(section_id=section.id or 0, number=number, pairing_code=code, round=started)
        )
        for r in range(1, started + 1):
            session.add(
                MovementAssignment(
                    section_id=section.id or 0, table_number=number, round=r, boards=""
                )
            )
    ids = {ref: pid for pid, ref in _pair_refs(session, section).items()}
    names = _store_players(session, section, m)
    partners = partnership_players(m)
    added: dict[PairRef, Pair] = {}
    for ref in m.pairs():
        if ref not in ids:
            first, second = (names[p] for p in partners[ref]) if ref in partners else ("", "")
            pair = Pair(
                section_id=section.id or 0,
                number=ref.number,
                direction=ref.direction,
                pin=new_pin(),
                player1=first,
                player2=second,
            )
            session.add(pair)
            added[ref] = pair
    session.flush()  # one batch of INSERTs for the new tables and pairs, which gives the ids
    ids.update({ref: pair.id or 0 for ref, pair in added.items()})
    known = {
        b.number for b in session.exec(select(Board).where(Board.section_id == section.id)).all()
    }
    for number in m.boards():
        if number not in known:
            session.add(
                Board(
                    section_id=section.id or 0,
                    number=number,
                    dealer=dealer(number).value,
                    vulnerability=vulnerability(number).value,
                )
            )
    for row in session.exec(
        select(MovementAssignment).where(
            MovementAssignment.section_id == section.id, MovementAssignment.round >= from_round
        )
    ).all():
        session.delete(row)
    session.flush()
    for a in m.assignments:
        if a.round >= from_round:
            session.add(
                MovementAssignment(
                    section_id=section.id or 0,
                    table_number=a.table,
                    round=a.round,
                    ns_pair_id=ids[a.ns] if a.ns is not None else None,
                    ew_pair_id=ids[a.ew] if a.ew is not None else None,
                    boards=",".join(str(b) for b in a.boards),
                    seats=None if a.seats is None else format_seats(a.seats),
                )
            )
    section.movement_name = m.name
    section.rounds = m.rounds
    section.tables = max(section.tables, m.tables)
    section.boards_per_round = m.boards_per_round
    section.shared_tables = json.dumps([list(g) for g in m.shared_tables])
    section.circuits = json.dumps([list(c) for c in m.circuits])
    session.add(section)
    session.flush()


def player_label(number: int, name: str) -> str:
    """How a player of an individual is named on a partnership: "3 Ann Berg" or "Player 3"."""
    return f"{number} {name}".strip() if name else f"Player {number}"


def _store_players(session: Session, section: Section, m: Movement) -> dict[int, str]:
    """Add the players an individual movement seats; their labels by number."""
    have = {
        p.number: p
        for p in session.exec(select(SectionPlayer).where(SectionPlayer.section_id == section.id))
    }
    for number in players_of(m):
        if number not in have:
            have[number] = SectionPlayer(section_id=section.id or 0, number=number)
            session.add(have[number])
    session.flush()
    return {n: player_label(n, p.name) for n, p in have.items()}
