"""Cyclic Howell designs: a starter and adders over Z_m, searched for and tuned for balance.

A complete Howell for 2n pairs plays m = 2n - 1 rounds at n tables with m board sets. In the
cyclic form pair 2n sits still at table 1 and meets pair r + 1 in round r + 1 (r counted from
0); table i + 1 seats pairs r + u_i (N/S) and r + v_i (E/W) with set r + w_i, all mod m.
The {u_i, v_i} form a starter (their differences +-(v_i - u_i) cover every non-zero residue
once, so every pair meets every other once) and the w_i are adders (distinct, so no two tables
hold one set; and w_0, w_i - u_i, w_i - v_i all distinct, so every pair plays every set once).
Such a design is a cyclic Room square; none exists for m = 3 or 5, so the 4-pair design has
both tables share a set every round and the 6-pair one all three tables (relays).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from server.movements.model import Movement, PairRef, RoundAssignment, board_set


@dataclass(frozen=True)
class HowellDesign:
    """A cyclic complete Howell: table i + 1 seats (u_i, v_i) with set w_i, table 1 uses w_0."""

    m: int
    w0: int
    tables: tuple[tuple[int, int, int], ...]
    stationary_ns: bool = True
    relay: tuple[int, ...] = ()

    @property
    def pairs(self) -> int:
        return self.m + 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "m": self.m,
            "w0": self.w0,
            "tables": [list(t) for t in self.tables],
            "stationary_ns": self.stationary_ns,
            "relay": list(self.relay),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> HowellDesign:
        return cls(
            m=int(d["m"]),
            w0=int(d["w0"]),
            tables=tuple((int(u), int(v), int(w)) for u, v, w in d["tables"]),
            stationary_ns=bool(d.get("stationary_ns", True)),
            relay=tuple(int(t) for t in d.get("relay", ())),
        )


def design_movement(
    design: HowellDesign, *, rounds: int | None = None, boards_per_round: int = 2, name: str = ""
) -> Movement:
    """Lay a design out as a Movement (pairs 1..m+1, pair m+1 stationary at table 1)."""
    m = design.m
    rounds = m if rounds is None else rounds
    still = PairRef(m + 1)
    assignments = []
    for r in range(rounds):
        mover = PairRef(r % m + 1)
        ns, ew = (still, mover) if design.stationary_ns else (mover, still)
        first = board_set((r + design.w0) % m + 1, boards_per_round)
        assignments.append(RoundAssignment(1, r + 1, ns, ew, first))
        for i, (u, v, w) in enumerate(design.tables, start=2):
            assignments.append(
                RoundAssignment(
                    i,
                    r + 1,
                    PairRef((r + u) % m + 1),
                    PairRef((r + v) % m + 1),
                    board_set((r + w) % m + 1, boards_per_round),
                )
            )
    return Movement(
        name=name or f"Howell {m + 1} pairs",
        kind="howell",
        tables=len(design.tables) + 1,
        rounds=rounds,
        boards_per_round=boards_per_round,
        assignments=tuple(assignments),
        shared_tables=(design.relay,) if design.relay else (),
    )


def search_design(m: int, *, seed: int = 0, relay: bool = False) -> HowellDesign | None:
    """Find a cyclic design for m + 1 pairs by randomised backtracking (None if none found).

    With relay=True tables 1 and 2 share one set every round (w_1 = w_0).
    """
    rng = random.Random(seed)
    n = (m + 1) // 2
    w0 = 0
    used_pairs: set[int] = {0}
    played: set[int] = {w0}
    adders: set[int] = {w0}
    chosen: list[tuple[int, int, int]] = []
    budget = [200_000]

    def place(d: int) -> bool:
        if d == n:
            return True
        budget[0] -= 1
        if budget[0] < 0:
            return False
        starts = list(range(1, m))
        rng.shuffle(starts)
        for x in starts:
            y = (x + d) % m
            if x in used_pairs or y in used_pairs or y == 0:
                continue
            if relay and not chosen:
                ws = [w0]
            else:
                ws = [w for w in range(m) if w not in adders]
                rng.shuffle(ws)
            for w in ws:
                a, b = (w - x) % m, (w - y) % m
                if a in played or b in played or a == b:
                    continue
                used_pairs.update((x, y))
                played.update((a, b))
                adders.add(w)
                chosen.append((x, y, w))
                if place(d + 1):
                    return True
                chosen.pop()
                if w != w0:
                    adders.discard(w)
                played.difference_update((a, b))
                used_pairs.difference_update((x, y))
        return False

    if not place(1):
        return None
    tables = tuple(sorted(chosen, key=lambda t: t[2]))
    relay_tables = tuple(i for i, t in enumerate(tables, start=2) if t[2] == w0)
    return HowellDesign(m=m, w0=w0, tables=tables, relay=(1, *relay_tables) if relay else ())


def orient(design: HowellDesign, flips: int) -> HowellDesign:
    """Swap N/S and E/W at the moving tables whose bit is set (bit i: table i + 2)."""
    tables = tuple(
        (v, u, w) if flips >> i & 1 else (u, v, w) for i, (u, v, w) in enumerate(design.tables)
    )
    return HowellDesign(design.m, design.w0, tables, design.stationary_ns, design.relay)
