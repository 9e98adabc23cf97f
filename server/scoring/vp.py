"""The WBF 2013 victory point scales (§ 202): continuous to 0.01 VP, and discrete."""

from __future__ import annotations

from decimal import ROUND_FLOOR, ROUND_HALF_UP, Context, Decimal
from fractions import Fraction
from functools import lru_cache

from .exact import round_to_int
from .models import Number

_CTX = Context(prec=50)
_TAU = (_CTX.sqrt(Decimal(5)) - 1) / 2
_TAU_CUBED = _CTX.power(_TAU, 3)
_LN_TAU = _CTX.ln(_TAU)


def blitz(boards: int) -> Decimal:
    """The margin X = 15·√N at which the winner gets 20 VPs."""
    if boards < 1:
        raise ValueError("a match has at least one board")
    return 15 * _CTX.sqrt(Decimal(boards))


def _formula(margin: Decimal, boards: int) -> Decimal:
    """The winner's VPs before rounding: 10 + 10·(1-τ^(3I/X))/(1-τ³), capped at 20."""
    x = blitz(boards)
    if margin >= x:
        return Decimal(20)
    power = _CTX.exp(_CTX.multiply(3 * margin / x, _LN_TAU))
    return 10 + 10 * (1 - power) / (1 - _TAU_CUBED)


@lru_cache(maxsize=256)
def continuous_scale(boards: int) -> tuple[Fraction, ...]:
    """The winner's VPs for margins 0, 1, 2, ... up to the first margin worth 20.

    The formula is rounded to 0.01 and the rounded scale is then kept concave as the WBF
    tables are: wherever an IMP would be worth more than the IMP before it, the VPs at the
    earlier margin go up by 0.01, repeating until every step is no larger than the one before.
    """
    cap = int(blitz(boards).to_integral_value(rounding="ROUND_CEILING"))
    hundredths = [
        int((_formula(Decimal(i), boards) * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP))
        for i in range(cap + 1)
    ]
    while True:
        for j in range(1, cap):
            if hundredths[j + 1] - hundredths[j] > hundredths[j] - hundredths[j - 1]:
                hundredths[j] += 1
                break
        else:
            break
    return tuple(Fraction(h, 100) for h in hundredths)


def victory_points(margin: Number, boards: int) -> tuple[Fraction, Fraction]:
    """(VPs of the side with this IMP margin, VPs of its opponents) on the continuous scale.

    A fractional margin is first rounded to whole IMPs, halves away from zero (§ 202A2).
    """
    whole = round_to_int(margin)
    scale = continuous_scale(boards)
    winner = scale[min(abs(whole), len(scale) - 1)]
    return (winner, 20 - winner) if whole >= 0 else (20 - winner, winner)


def _margin_for(vp: Decimal, boards: int) -> Decimal:
    """The real IMP margin at which the unrounded formula reaches `vp` (10 <= vp < 20)."""
    inner = 1 - (vp / 10 - 1) * (1 - _TAU_CUBED)
    return blitz(boards) * _CTX.ln(inner) / _CTX.ln(_TAU_CUBED)


@lru_cache(maxsize=256)
def discrete_scale(boards: int) -> tuple[int, ...]:
    """The highest margin worth 10, 11, ..., 19 VPs on the whole-number scale (above: 20).

    A margin earns the VPs the formula rounds to (margins below where it reaches V+0.5 earn V);
    then, as the WBF discrete scales require, each VP's IMP range is made no narrower than the
    range of the VP below it (10 VPs covering -b..b), by moving a bound down one IMP at a time.
    """
    bounds = [
        int(_margin_for(Decimal(v) + Decimal("0.5"), boards).to_integral_value(ROUND_FLOOR))
        for v in range(10, 20)
    ]

    def width(i: int) -> int:
        return 2 * bounds[0] + 1 if i == 0 else bounds[i] - bounds[i - 1]

    while True:
        for i in range(len(bounds) - 1):
            if width(i + 1) < width(i) and bounds[i] > (0 if i == 0 else bounds[i - 1] + 1):
                bounds[i] -= 1
                break
        else:
            break
    return tuple(bounds)


def victory_points_integer(margin: Number, boards: int) -> tuple[int, int]:
    """(VPs of the side with this margin, VPs of its opponents) on the whole-number scale."""
    whole = round_to_int(margin)
    bounds = discrete_scale(boards)
    winner = 20
    for vp, bound in enumerate(bounds, start=10):
        if abs(whole) <= bound:
            winner = vp
            break
    return (winner, 20 - winner) if whole >= 0 else (20 - winner, winner)


def imps_for_vp(vp: Number, boards: int) -> int:
    """The smallest IMP margin worth at least `vp` VPs on the continuous scale (§ 202C5)."""
    if vp <= 10:
        return 0
    scale = continuous_scale(boards)
    for margin, value in enumerate(scale):
        if value >= vp:
            return margin
    return len(scale) - 1
