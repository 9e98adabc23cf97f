"""Exact rounding helpers: halves away from zero, to a number of decimals or to a multiple."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from .models import Number


def round_half_away(value: Number, places: int = 0) -> Fraction:
    """Round to `places` decimals, a half going away from zero (§ 202A2, § X78C2)."""
    scale = 10**places
    scaled = Fraction(value) * scale
    whole, rest = divmod(abs(scaled.numerator), scaled.denominator)
    if 2 * rest >= scaled.denominator:
        whole += 1
    signed = whole if scaled >= 0 else -whole
    return Fraction(signed, scale)


def round_to_int(value: Number) -> int:
    """The nearest whole number, halves away from zero (whole IMPs before a VP look-up)."""
    return int(round_half_away(value))


def round_to_multiple(value: Number, step: int) -> int:
    """The nearest multiple of `step`, halves away from zero (§ 204B2: Butler rounds to 10)."""
    return round_to_int(Fraction(value) / step) * step


def to_decimal(value: Number, places: int = 2) -> Decimal:
    """An exact value shown with `places` decimals, rounded halves away from zero."""
    rounded = round_half_away(value, places)
    return (Decimal(rounded.numerator) / Decimal(rounded.denominator)).quantize(
        Decimal(1).scaleb(-places)
    )
