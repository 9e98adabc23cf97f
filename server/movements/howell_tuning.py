"""Regenerate data/howell_designs.json: search cyclic designs and orient tables for balance.

Run `python -m server.movements.howell_tuning` (about 15 minutes on one core). The search is
randomised but seeded, so a run repeats on the same Python; results may still differ
slightly with the time budget.
"""

from __future__ import annotations

import json
import random
import sys
import time

from server.movements.balance import comparison_balance
from server.movements.howell import MAX_PAIRS, without_pair
from server.movements.howell_design import HowellDesign, design_movement, orient, search_design
from server.movements.model import Movement, PairRef


def _laid_out(design: HowellDesign, pairs: int, rounds: int) -> Movement:
    m = design_movement(design, rounds=rounds, boards_per_round=1)
    return without_pair(m, PairRef(pairs + 1)) if pairs % 2 else m


def tune(pairs: int, rounds: int, *, seconds: float) -> tuple[HowellDesign, float]:
    """The best-balanced design found in the time: for each seed a fresh design, then a
    hill-climb flipping one table's N/S-E/W at a time while the balance improves."""
    m = pairs + pairs % 2 - 1
    best: tuple[HowellDesign, float] | None = None
    started = time.monotonic()
    for seed in range(1000):
        if best is not None and (time.monotonic() - started > seconds or best[1] > 99.999):
            break
        design = search_design(m, seed=seed)
        if design is None:
            continue
        flips = random.Random(seed).getrandbits(len(design.tables))
        score = comparison_balance(_laid_out(orient(design, flips), pairs, rounds)).balance
        improved = True
        while improved:
            improved = False
            for i in range(len(design.tables)):
                trial = flips ^ (1 << i)
                value = comparison_balance(_laid_out(orient(design, trial), pairs, rounds))
                if value.balance > score + 1e-9:
                    score, flips, improved = value.balance, trial, True
        if best is None or score > best[1]:
            best = (orient(design, flips), score)
    if best is None:
        raise ValueError(f"no cyclic design found for {pairs} pairs")
    return best


def main() -> None:
    path = "server/movements/data/howell_designs.json"
    with open(path) as f:
        data = json.load(f)
    for pairs in range(7, MAX_PAIRS + 1):
        m = pairs + pairs % 2 - 1
        for length, rounds in (("complete", m), ("three_quarter", max(1, round(m * 3 / 4)))):
            design, score = tune(pairs, rounds, seconds=8 if m < 21 else 16)
            data[length][str(pairs)] = design.to_dict()
            print(length, pairs, rounds, f"{score:.2f}", file=sys.stderr, flush=True)
    with open(path, "w") as f:
        json.dump(data, f, indent=1)


if __name__ == "__main__":
    main()
