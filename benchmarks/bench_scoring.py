"""Scoring benchmark: a synthetic congress rescored in full and after one new result."""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from fractions import Fraction

from server.scoring import BoardResult, PairsScorer, ScoringOptions, Weighted

# Plausible N/S scores on a board, most frequent first (a part score, a game, some swings).
_SCORE_SHAPES = (
    (420, 450, 170, 140, -50, -100, 620, 650, 200, -420, 100, 500, -200, 1430, -790, 0),
    (-110, -140, 90, 110, -50, 100, 130, -600, -620, 50, 200, -170, 300, 800, -1100),
    (630, 600, 660, 140, 170, -100, 200, 690, -200, 1440, 1470, -300, 500, 800),
)


def _weights(count: int) -> list[float]:
    return [1.0 / (rank + 1) for rank in range(count)]


def build_congress(
    tables: int = 1000, boards: int = 27, adjusted_fraction: float = 0.03, seed: int = 1
) -> list[BoardResult]:
    """Every board played at every table: N/S pair t stays at table t, E/W pairs move.

    About `adjusted_fraction` of the results are adjusted: mostly artificial (60/40, 50/50,
    40/60, 40/40), some weighted (two contract results).
    """
    rng = random.Random(seed)
    rounds_of = max(1, boards // 9)
    results: list[BoardResult] = []
    for board in range(1, boards + 1):
        shape = _SCORE_SHAPES[board % len(_SCORE_SHAPES)]
        weights = _weights(len(shape))
        scores = rng.choices(shape, weights, k=tables)
        for table in range(1, tables + 1):
            ns = ("NS", table)
            ew = ("EW", (table + board) % tables + 1)
            round_number = (board - 1) // rounds_of + 1
            if rng.random() < adjusted_fraction:
                if rng.random() < 0.8:
                    ns_pct, ew_pct = rng.choice(((60, 40), (50, 50), (40, 60), (40, 40)))
                    results.append(
                        BoardResult.artificial(
                            board, ns, ew, ns_pct, ew_pct, table=table, round=round_number
                        )
                    )
                else:
                    a, b = rng.sample(shape, 2)
                    results.append(
                        BoardResult.weighted(
                            board,
                            ns,
                            ew,
                            (a, Fraction(3, 10)),
                            (b, Fraction(7, 10)),
                            table=table,
                            round=round_number,
                        )
                    )
            else:
                results.append(
                    BoardResult.played(
                        board, ns, ew, scores[table - 1], table=table, round=round_number
                    )
                )
    return results


def _timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def _percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def run(
    tables: int = 1000,
    boards: int = 27,
    adjusted_fraction: float = 0.03,
    seed: int = 1,
    *,
    full_repeats: int = 5,
    incremental_repeats: int = 200,
) -> dict[str, float | int]:
    """Build the congress, time full rescores and one-result rescores; figures in milliseconds."""
    results = build_congress(tables, boards, adjusted_fraction, seed)
    options = ScoringOptions()
    full = [_timed(lambda: PairsScorer(results, options)) for _ in range(full_repeats)]
    scorer = PairsScorer(results, options)
    standings_ms = [_timed(scorer.standings) for _ in range(max(3, full_repeats))]
    rng = random.Random(seed + 1)
    incremental: list[float] = []
    for _ in range(incremental_repeats):
        result = rng.choice(results)
        scorer.remove_result(result)
        start = time.perf_counter()
        scorer.put_result(result)
        incremental.append(time.perf_counter() - start)
    return {
        "tables": tables,
        "pairs": 2 * tables,
        "boards": boards,
        "results": len(results),
        "adjusted": sum(1 for r in results if r.ns is not r.ew or isinstance(r.ns, Weighted)),
        "full_median_ms": 1000 * statistics.median(full),
        "full_max_ms": 1000 * max(full),
        "incremental_median_ms": 1000 * statistics.median(incremental),
        "incremental_p99_ms": 1000 * _percentile(incremental, 0.99),
        "standings_median_ms": 1000 * statistics.median(standings_ms),
    }


def main() -> None:
    """Print the benchmark's figures as a table."""
    figures = run()
    width = max(len(name) for name in figures)
    for name, value in figures.items():
        shown = f"{value:10.2f}" if isinstance(value, float) else f"{value:10d}"
        print(f"{name:<{width}}  {shown}")


if __name__ == "__main__":
    main()
