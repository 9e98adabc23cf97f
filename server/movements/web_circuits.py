"""The EBU web Mitchell: one Mitchell field whose boards travel in two circuits.

Tables 1..2n form one field: N/S pairs sit still and every E/W pair moves up one table a round
across all 2n tables, never skipping. There are two copies of each board and an odd number of
board sets s (n <= s < 2n; the session has s rounds). Circuit one is tables 1..n: set k starts
on table k, the sets left over wait on a relay stand after table n, and the boards move down
one table, so each table meets the sets in ascending order. Circuit two is tables n+1..2n:
set n-1 starts on table n+1, down to set 1 on table 2n-1, set s on table 2n, the rest on its
own relay stand; its boards also move down one table, so those tables meet them in descending
order. Each set is thus in play at one table of each circuit every round (two copies), and the
E/W pairs, crossing from one circuit to the other, still meet every set exactly once.
"""

from __future__ import annotations

from server.movements.model import Movement, PairRef, RoundAssignment, board_set


def ebu_web_mitchell(
    tables: int, *, sets: int | None = None, boards_per_round: int = 2
) -> Movement:
    """A two-circuit web Mitchell for an even number of tables (default sets: 2n - 1)."""
    if tables < 6 or tables % 2:
        raise ValueError("a two-circuit web Mitchell needs an even number of tables, 6 or more")
    if boards_per_round < 1:
        raise ValueError("boards_per_round must be at least 1")
    half = tables // 2
    sets = tables - 1 if sets is None else sets
    if sets % 2 == 0 or not half <= sets < tables:
        raise ValueError(
            f"a {tables}-table web Mitchell needs an odd number of board sets from {half} "
            f"to {tables - 1}"
        )
    assignments = []
    for r in range(1, sets + 1):
        for t in range(1, tables + 1):
            if t <= half:
                s = (t - 1 + r - 1) % sets + 1
            else:
                s = (half - 2 - (t - half - 1) - (r - 1)) % sets + 1
            ew = (t - 1 - (r - 1)) % tables + 1
            assignments.append(
                RoundAssignment(
                    t, r, PairRef(t, "NS"), PairRef(ew, "EW"), board_set(s, boards_per_round)
                )
            )
    return Movement(
        name=f"Web Mitchell {tables} tables, two circuits, {sets} rounds",
        kind="web-mitchell",
        tables=tables,
        rounds=sets,
        boards_per_round=boards_per_round,
        assignments=tuple(assignments),
        circuits=(tuple(range(1, half + 1)), tuple(range(half + 1, tables + 1))),
    )
