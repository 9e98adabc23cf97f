"""Change a running session: pure functions from a Movement to the changed Movement.

Rounds before `from_round` are never touched, so results already entered stay valid. Every
function validates what it returns; the caller records the change in the audit trail.
"""

from __future__ import annotations

from dataclasses import replace

from server.movements.model import Movement, PairRef, RoundAssignment
from server.movements.validate import MovementError, validate


def add_late_pair(m: Movement, pair: PairRef, *, from_round: int = 1) -> Movement:
    """Seat a late pair in the phantom's place: the one empty seat of each round from
    `from_round` on (rounds with no empty seat are left alone)."""
    if pair in m.pairs():
        raise MovementError(
            f"pair {pair} is already in the movement", kind="pair_already_seated", pair=pair
        )
    cells = []
    for a in m.assignments:
        if a.round >= from_round:
            empty = [x for x in m.in_round(a.round) if x.ns is None or x.ew is None]
            if len(empty) > 1:
                raise MovementError(
                    "more than one empty seat: say which pair to replace (replace_pair)",
                    kind="several_empty_seats",
                    round=a.round,
                    table=empty[1].table,
                )
            if a.ns is None and a.ew is not None:
                a = replace(a, ns=pair)
            elif a.ew is None and a.ns is not None:
                a = replace(a, ew=pair)
        cells.append(a)
    return _checked(m.with_assignments(cells, name=f"{m.name}, late pair {pair}"))


def add_late_table(
    m: Movement,
    pair: PairRef,
    *,
    share_with: int | None = None,
    from_round: int = 1,
    opponent: PairRef | None = None,
) -> Movement:
    """Give a late pair a new table that shares the boards of an existing table from
    `from_round` on. The late pair sits in its home direction (N/S when it has none).

    The other seat takes `opponent` every round when given (a second late pair, or an
    existing pair that leaves its own seat). Without one, each round the pair that would sit
    out (facing an empty seat) plays the late pair instead. `share_with` fixes the table whose
    boards the new table plays; None shares, each round, the boards of that sit-out pair's
    own table (which it has therefore not played elsewhere).
    """
    if pair in m.pairs():
        raise MovementError(
            f"pair {pair} is already in the movement", kind="pair_already_seated", pair=pair
        )
    if share_with is not None and not 1 <= share_with <= m.tables:
        raise MovementError(
            f"there is no table {share_with} to share boards with",
            kind="no_table_to_share",
            share_with=share_with,
        )
    if from_round > m.rounds:
        raise MovementError(
            "no round is left to play: the late pair cannot join now", kind="late_pair_too_late"
        )
    new_table = m.tables + 1
    cells = [a for a in m.assignments if a.round < from_round]
    sharing: set[int] = set()
    for r in range(from_round, m.rounds + 1):
        others = m.in_round(r)
        other = opponent
        idle_at = next((a for a in others if not a.played and a.pairs()), None)
        if other is None and idle_at is not None:
            other = idle_at.pairs()[0]
        if other is None:
            raise MovementError(
                "nobody sits out to play the late pair: name an opponent",
                kind="no_opponent_for_late_pair",
                round=r,
            )
        source = share_with
        if source is None:
            home = next((a for a in others if other in a.pairs()), None)
            if home is None:
                raise MovementError(
                    "give share_with: the opponent has no table", kind="share_with_needed", round=r
                )
            source = home.table
        shared = m.at(source, r)
        if shared is None:
            raise MovementError(
                "the table to share with is not used",
                kind="share_table_unused",
                round=r,
                table=source,
            )
        sharing.add(source)
        cells.extend(
            replace(a, ns=None if a.ns == other else a.ns, ew=None if a.ew == other else a.ew)
            for a in others
        )
        ns, ew = (other, pair) if pair.direction == "EW" else (pair, other)
        cells.append(RoundAssignment(new_table, r, ns, ew, shared.boards))
    groups = [g for g in m.shared_tables if not sharing & set(g)]
    joined = sorted(
        {*sharing, new_table, *(t for g in m.shared_tables if sharing & set(g) for t in g)}
    )
    return _checked(
        m.with_assignments(
            cells,
            name=f"{m.name}, late pair {pair} at table {new_table}",
            tables=new_table,
            shared_tables=(*groups, tuple(joined)),
        )
    )


def replace_pair(
    m: Movement, old: PairRef, new: PairRef | None, *, from_round: int = 1
) -> Movement:
    """Put another pair (or nobody) in `old`'s seats from `from_round` on."""
    cells = [
        replace(
            a,
            ns=new if a.ns == old else a.ns,
            ew=new if a.ew == old else a.ew,
        )
        if a.round >= from_round
        else a
        for a in m.assignments
    ]
    return _checked(m.with_assignments(cells))


def remove_pair(m: Movement, pair: PairRef, *, from_round: int) -> Movement:
    """A pair has left: from `from_round` its seat is empty and its opponents sit out
    (their boards are scored as § 216 says; not here)."""
    if pair not in m.pairs():
        raise MovementError(
            f"pair {pair} is not in the movement", kind="pair_not_in_movement", pair=pair
        )
    changed = replace_pair(m, pair, None, from_round=from_round)
    return replace(changed, name=f"{m.name}, pair {pair} left after round {from_round - 1}")


def stop_after(m: Movement, rounds: int) -> Movement:
    """Finish the session after `rounds` rounds."""
    if not 1 <= rounds <= m.rounds:
        raise MovementError(
            f"rounds must be between 1 and {m.rounds}", kind="rounds_out_of_range", most=m.rounds
        )
    kept = [a for a in m.assignments if a.round <= rounds]
    return _checked(m.with_assignments(kept, rounds=rounds))


def change_boards_per_round(m: Movement, boards_per_round: int, *, from_round: int) -> Movement:
    """Play a different number of boards per round from `from_round` on.

    Fewer: each set keeps its first boards. More: each set gains new boards, numbered after
    the highest board in the movement, the same extra boards wherever that set goes.
    """
    if boards_per_round < 1:
        raise MovementError(
            "boards_per_round must be at least 1", kind="boards_per_round_too_small"
        )
    next_board = max(m.boards(), default=0) + 1
    extra: dict[tuple[int, ...], tuple[int, ...]] = {}
    cells: list[RoundAssignment] = []
    for a in sorted(m.assignments, key=lambda a: (a.round, a.table)):
        if a.round < from_round:
            cells.append(a)
            continue
        if boards_per_round <= len(a.boards):
            cells.append(replace(a, boards=a.boards[:boards_per_round]))
            continue
        if a.boards not in extra:
            count = boards_per_round - len(a.boards)
            extra[a.boards] = tuple(range(next_board, next_board + count))
            next_board += count
        cells.append(replace(a, boards=a.boards + extra[a.boards]))
    return _checked(
        m.with_assignments(cells, boards_per_round=max(m.boards_per_round, boards_per_round))
    )


def _checked(m: Movement) -> Movement:
    validate(m)
    return m
