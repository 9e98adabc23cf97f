"""Exact rounding helpers: halves away from zero, to a number of decimals or to a multiple."""

from __future__ import annotations

from dataclasses import dataclass
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


def round_toward_zero(value: Number, places: int = 0) -> Fraction:
    """Cut to `places` decimals, dropping the rest (truncation, as some programs do)."""
    scale = 10**places
    scaled = Fraction(value) * scale
    whole = abs(scaled.numerator) // scaled.denominator
    return Fraction(whole if scaled >= 0 else -whole, scale)


@dataclass(frozen=True, slots=True)
class Rounding:
    """Rounding a value to `places` decimals: halves away from zero, or cut ("truncate").

    The regulations round nothing on a board (§ X78C1); some programs round each board's
    score, or the factored ones, and their published totals are sums of the rounded values.
    """

    places: int = 1
    mode: str = "half-away"
    """"half-away" (§ X78C2's rule for halves) or "truncate" (drop the rest)."""

    def __post_init__(self) -> None:
        if self.mode not in ("half-away", "truncate"):
            raise ValueError(f"rounding is 'half-away' or 'truncate', not {self.mode!r}")
        if not 0 <= self.places <= 6:
            raise ValueError("round to between 0 and 6 decimals")

    def __call__(self, value: Number, scale: int = 1) -> Fraction:
        """The rounded value; with `scale`, rounded as value/scale is shown (the American
        matchpoint scale is the 2-1-0 value halved)."""
        shown = Fraction(value) / scale
        if self.mode == "truncate":
            return round_toward_zero(shown, self.places) * scale
        return round_half_away(shown, self.places) * scale
