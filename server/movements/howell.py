"""Howell movements: complete, three-quarter and short, for 3 to 40 pairs (odd with a phantom).

Sizes 3, 4 and 7..40 pairs come from cyclic designs tuned for balance (data/howell_designs.json,
made by howell_design.search_design and a hill-climb over the N/S-E/W orientation of each
table; the three-quarter Howells have designs of their own). Six pairs have no design where
every table holds its own set, so the default 3-table Howell is the bridgescorer
"Howell06T3B20" pattern: each table plays two half-sets a round, which needs an even number
of boards per round. With `relay=True` or an odd number of boards per round it is the cyclic
design where all three tables share one set.
"""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache
from importlib import resources

from server.movements.howell_design import HowellDesign, design_movement
from server.movements.model import Movement, PairRef, RoundAssignment

MIN_PAIRS = 3
MAX_PAIRS = 40
_THREE_TABLE_PATTERN = (  # (round, table, ns, ew, half-sets), from Movement.Howell06T3B20
    (1, 1, 6, 1, (1, 2)), (1, 2, 4, 3, (3, 9)), (1, 3, 2, 5, (6, 8)),
    (2, 1, 6, 2, (3, 4)), (2, 2, 5, 4, (1, 5)), (2, 3, 3, 1, (8, 10)),
    (3, 1, 6, 3, (5, 6)), (3, 2, 1, 5, (3, 7)), (3, 3, 4, 2, (2, 10)),
    (4, 1, 6, 4, (7, 8)), (4, 2, 2, 1, (5, 9)), (4, 3, 5, 3, (2, 4)),
    (5, 1, 6, 5, (9, 10)), (5, 2, 3, 2, (1, 7)), (5, 3, 1, 4, (4, 6)),
)  # fmt: skip


@cache
def designs(length: str = "complete") -> dict[int, HowellDesign]:
    """The bundled cyclic designs by number of pairs, tuned for a "complete" or a
    "three_quarter" Howell (odd numbers tuned with the phantom, the stationary pair, absent)."""
    text = resources.files("server.movements.data").joinpath("howell_designs.json").read_text()
    return {int(k): HowellDesign.from_dict(v) for k, v in json.loads(text)[length].items()}


def three_quarter_rounds(pairs: int) -> int:
    """Rounds of a three-quarter Howell: 3/4 of a complete one, rounded to the nearest."""
    return max(1, round(complete_rounds(pairs) * 3 / 4))


def complete_rounds(pairs: int) -> int:
    """Rounds of a complete Howell: every pair meets every other once."""
    return pairs - 1 if pairs % 2 == 0 else pairs


def howell(
    pairs: int,
    *,
    rounds: int | None = None,
    boards_per_round: int = 2,
    relay: bool = False,
) -> Movement:
    """A Howell for `pairs` pairs; with an odd number the highest-numbered pair is a phantom
    (its seat is empty, so its opponents sit out). Fewer `rounds` give a short Howell."""
    if not MIN_PAIRS <= pairs <= MAX_PAIRS:
        raise ValueError(f"Howells are offered for {MIN_PAIRS} to {MAX_PAIRS} pairs")
    if boards_per_round < 1:
        raise ValueError("boards_per_round must be at least 1")
    seated = pairs + pairs % 2
    most = seated - 1
    rounds = most if rounds is None else rounds
    if not 1 <= rounds <= most:
        raise ValueError(f"a Howell for {pairs} pairs plays 1 to {most} rounds")
    if seated == 6 and boards_per_round % 2 == 0 and not relay:
        full = _three_table(boards_per_round, rounds)
    else:
        tuned = designs("three_quarter" if rounds == three_quarter_rounds(pairs) else "complete")
        design = tuned.get(pairs) or designs()[pairs]
        full = design_movement(design, rounds=rounds, boards_per_round=boards_per_round)
    name = f"Howell {pairs} pairs"
    if rounds < most:
        name += f", {rounds} of {most} rounds"
    if pairs % 2:
        full = without_pair(full, PairRef(seated))
        name += f" (phantom {seated})"
    return replace(full, name=name)


def three_quarter_howell(pairs: int, *, boards_per_round: int = 2) -> Movement:
    """The first three quarters of a complete Howell's rounds (rounded to the nearest)."""
    rounds = three_quarter_rounds(pairs)
    return replace(
        howell(pairs, rounds=rounds, boards_per_round=boards_per_round),
        name=f"3/4 Howell {pairs} pairs, {rounds} rounds",
    )


def without_pair(m: Movement, pair: PairRef) -> Movement:
    """The movement with the pair's seat left empty: its opponents sit out."""
    return m.with_assignments(
        replace(
            a,
            ns=None if a.ns == pair else a.ns,
            ew=None if a.ew == pair else a.ew,
        )
        for a in m.assignments
    )


def _three_table(boards_per_round: int, rounds: int) -> Movement:
    """The 6-pair Howell with two half-sets per table per round."""
    half = boards_per_round // 2
    cells = tuple(
        RoundAssignment(
            table,
            round_number,
            PairRef(ns),
            PairRef(ew),
            tuple(b for s in sorted(sets) for b in range((s - 1) * half + 1, s * half + 1)),
        )
        for round_number, table, ns, ew, sets in _THREE_TABLE_PATTERN
        if round_number <= rounds
    )
    return Movement("Howell 6 pairs", "howell", 3, rounds, boards_per_round, cells)
