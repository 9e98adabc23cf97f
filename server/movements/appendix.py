"""Appendix Mitchell for an odd number of pairs (the "1½-table appendix" clubs use).

With 2n + 1 pairs (n full tables and a half table) a base Mitchell of n - 1 tables is set up
and table n, the appendix table, is placed beside table 1 and shares its boards every round.
N/S pairs 1..n sit still. The n + 1 E/W pairs move as in an (n + 1)-table Mitchell: up one
table a round, table n then a bye (the half table: that pair sits out), then table 1. E/W pair
n + 1 starts on the bye. The boards move down one table round the base tables only, so there
are n - 1 sets and n - 1 rounds; with an even base the E/W pairs skip one extra table after
half the rounds, so nobody meets a board again. Two E/W pairs never sit out; the rest once.
"""

from __future__ import annotations

from server.movements.model import Movement, PairRef, RoundAssignment, board_set


def appendix_mitchell(
    tables: int, *, boards_per_round: int = 2, arrow_switch_rounds: int = 0
) -> Movement:
    """An appendix Mitchell for `tables` full tables and a half table (2 * tables + 1 pairs)."""
    if tables < 4:
        raise ValueError("an appendix Mitchell needs 4 or more full tables (9 or more pairs)")
    if boards_per_round < 1:
        raise ValueError("boards_per_round must be at least 1")
    base = tables - 1
    rounds = base
    if not 0 <= arrow_switch_rounds <= rounds:
        raise ValueError("arrow_switch_rounds must be between 0 and the number of rounds")
    positions = tables + 1  # tables 1..n and the bye
    assignments = []
    for r in range(1, rounds + 1):
        moved = r - 1
        if base % 2 == 0 and r > base // 2:
            moved += 1  # the skip
        east_west = {(e - 1 + moved) % positions + 1: e for e in range(1, positions + 1)}
        switched = r > rounds - arrow_switch_rounds
        for t in range(1, tables + 1):
            home = 1 if t == tables else t  # the appendix table plays table 1's boards
            s = (home - 1 + r - 1) % base + 1
            ns: PairRef | None = PairRef(t, "NS")
            ew = PairRef(east_west[t], "EW") if t in east_west else None
            if switched and ew is not None:
                ns, ew = ew, ns
            assignments.append(RoundAssignment(t, r, ns, ew, board_set(s, boards_per_round)))
    name = f"Appendix Mitchell {tables}½ tables"
    if arrow_switch_rounds:
        name += f", arrow-switch last {arrow_switch_rounds}"
    return Movement(
        name=name,
        kind="appendix-mitchell",
        tables=tables,
        rounds=rounds,
        boards_per_round=boards_per_round,
        assignments=tuple(assignments),
        shared_tables=((1, tables),),
    )
