"""Latency percentiles and Markdown tables for the benchmark reports."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) by the nearest-rank method; NaN for no values."""
    if not values:
        return math.nan
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[min(rank, len(ordered)) - 1]


@dataclass(frozen=True)
class Latency:
    """p50/p99/max of a set of latencies, in milliseconds."""

    count: int
    p50: float
    p99: float
    max: float

    @classmethod
    def of(cls, seconds: Sequence[float]) -> Latency:
        ms = [s * 1000 for s in seconds]
        return cls(len(ms), percentile(ms, 50), percentile(ms, 99), max(ms, default=math.nan))


def fmt(value: float, digits: int = 1) -> str:
    return "-" if math.isnan(value) else f"{value:,.{digits}f}"


def markdown(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A GitHub Markdown table."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)
