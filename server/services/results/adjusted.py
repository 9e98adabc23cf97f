"""The TD's adjusted scores (Law 12C, § X78A): artificial, assigned, weighted and unbalanced.

One ``Adjustment`` says what each side of a table is scored on. It is stored in
``Result.adjusted`` as text that terminals and pages can show as it is, and read back exactly:

* ``A60/40``: artificial, each side its percentage (they need not balance, Law 12C2);
* ``4S S =``: an assigned score, another contract result (Law 12C1b);
* ``60% 4S S = + 40% 4S S -1``: a weighted score (Law 12C1c, § X78A1), weights summing to 1;
* ``NS: 4S S = | EW: 60% 4S S = + 40% 4S S -1``: unbalanced (§ X78A2), each side its own
  (a side may also be artificial: ``NS: A60 | EW: 4S S -1``).
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Literal

from protocol.bridge import BridgeError, TableResult, format_result, ns_score
from server.core.errors import InvalidError, verbatim
from server.scoring import Artificial, BoardResult, Points, SideScore, Weighted

#: More parts than this is a typing slip, not a ruling.
MAX_PARTS = 4
#: The stored text travels to keypads in frames of 255 bytes, with the rest of the result.
MAX_TEXT = 120

Kind = Literal["artificial", "assigned", "weighted", "unbalanced"]


@dataclass(frozen=True)
class ScorePart:
    """One contract result of an assigned or weighted score, with its weight."""

    weight: Fraction
    contract: str  # canonical: "4SX", "PASS"
    declarer: str | None
    tricks: int

    def play(self) -> TableResult:
        return TableResult.make(self.contract, self.declarer, self.tricks)

    def ns_score(self, board: int) -> int:
        play = self.play()
        return ns_score(board, play.contract, play.declarer, play.tricks)

    def text(self, weighted: bool) -> str:
        play = self.play()
        if play.contract.is_pass:
            body = "PASS"
        else:
            body = f"{self.contract} {self.declarer} {format_result(play.contract, self.tricks)}"
        return f"{weight_text(self.weight)} {body}" if weighted else body


@dataclass(frozen=True)
class AdjustedSide:
    """What one side is scored on: an artificial percentage, or contract results by weight."""

    percent: Fraction | None = None
    parts: tuple[ScorePart, ...] = ()

    def text(self) -> str:
        if self.percent is not None:
            return f"A{number_text(self.percent)}"
        weighted = len(self.parts) > 1
        return " + ".join(p.text(weighted) for p in self.parts)

    def side_score(self, board: int) -> SideScore:
        """The scorer's view: Artificial, Points (assigned) or Weighted."""
        if self.percent is not None:
            return Artificial(self.percent)
        if len(self.parts) == 1:
            return Points(self.parts[0].ns_score(board))
        return Weighted(tuple((p.ns_score(board), p.weight) for p in self.parts))


@dataclass(frozen=True)
class Adjustment:
    """A TD's adjusted score for one board at one table."""

    ns: AdjustedSide
    ew: AdjustedSide

    @property
    def kind(self) -> Kind:
        if self.ns.percent is not None and self.ew.percent is not None:
            return "artificial"
        if self.ns != self.ew:
            return "unbalanced"
        return "assigned" if len(self.ns.parts) == 1 else "weighted"

    @property
    def text(self) -> str:
        """The stored (and shown) form; ``parse`` reads it back to an equal Adjustment."""
        if self.kind == "artificial":
            assert self.ns.percent is not None
            assert self.ew.percent is not None
            return f"A{number_text(self.ns.percent)}/{number_text(self.ew.percent)}"
        if self.kind == "unbalanced":
            return f"NS: {self.ns.text()} | EW: {self.ew.text()}"
        return self.ns.text()

    def board_result(
        self,
        board: int,
        ns_pair: Hashable,
        ew_pair: Hashable,
        *,
        table: Hashable | None = None,
        round: int | None = None,
        section: Hashable | None = None,
    ) -> BoardResult:
        """The result as the scorer sees it; an assigned score keeps its contract for the
        traveller."""
        where = {"table": table, "round": round, "section": section}
        ns_side, ew_side = self.ns.side_score(board), self.ew.side_score(board)
        if self.kind == "assigned":
            play = self.ns.parts[0].play()
            return BoardResult(board, ns_pair, ew_pair, ns_side, ns_side, play=play, **where)  # type: ignore[arg-type]
        if self.kind == "weighted":
            return BoardResult(board, ns_pair, ew_pair, ns_side, ns_side, **where)  # type: ignore[arg-type]
        return BoardResult(board, ns_pair, ew_pair, ns_side, ew_side, **where)  # type: ignore[arg-type]


# ------------------------------------------------------------------------------ numbers


def number_text(value: Fraction) -> str:
    """60 -> "60", 121/2 -> "60.5", 1/3 -> "1/3": exact, and as short as it can be."""
    if value.denominator == 1:
        return str(value.numerator)
    scaled = value * 10**4
    if scaled.denominator == 1:
        return f"{Decimal(scaled.numerator).scaleb(-4).normalize():f}"
    return f"{value.numerator}/{value.denominator}"


def weight_text(weight: Fraction) -> str:
    """A weight as a percentage when that is exact ("60%"), else as a fraction ("1/3")."""
    percent = weight * 100
    if (percent * 10**4).denominator == 1:
        return f"{number_text(percent)}%"
    return number_text(weight)


def _number(text: str) -> Fraction:
    """ "60", "60.5", "3/5" exactly (never through a float)."""
    cleaned = text.strip().replace(",", ".")
    try:
        if "/" in cleaned:
            num, den = cleaned.split("/", 1)
            value = Fraction(int(num), int(den))
        else:
            number = Decimal(cleaned)
            if not number.is_finite() or abs(number.adjusted()) > 9:  # inf, NaN, 1e999
                raise ValueError(text)
            value = Fraction(number)
    except (ValueError, ZeroDivisionError, InvalidOperation):
        raise InvalidError(
            "invalid_weight",
            "{text} is not a weight: write 60, 60 %, 0.6 or 3/5.",
            text=repr(text),
        ) from None
    return value


def weights(texts: Sequence[str]) -> list[Fraction]:
    """The weights of a weighted score, as fractions of 1 summing to exactly 1.

    Written as percentages summing to 100 ("60", "40" or "60%", "40%": any "%" or any weight
    above 1 makes them percentages) or as fractions of one summing to 1 ("0.6", "0.4" or
    "3/5", "2/5"). A single result with no weight is an assigned score (weight 1).
    """
    if len(texts) == 1 and not texts[0].strip():
        return [Fraction(1)]
    if any(not t.strip() for t in texts):
        raise InvalidError(
            "weight_missing", "Give a weight for each result of a weighted score (e.g. 60 %)."
        )
    percent = any("%" in t for t in texts)
    values = [_number(t.replace("%", "")) for t in texts]
    for text, value in zip(texts, values, strict=True):
        if value <= 0:
            raise InvalidError(
                "invalid_weight", "A weight must be above zero, not {text}.", text=repr(text)
            )
    total = sum(values, Fraction(0))
    if percent or any(v > 1 for v in values):
        if total != 100:
            raise InvalidError(
                "weights_not_one",
                "The weights add up to {value} %: they must make exactly 100 %.",
                value=number_text(total),
            )
        return [v / 100 for v in values]
    if total != 1:
        raise InvalidError(
            "weights_not_one",
            "The weights add up to {value}: as fractions they must make exactly 1 (or write "
            "percentages making 100).",
            value=number_text(total),
        )
    return values


# ------------------------------------------------------------------------------ building


@dataclass(frozen=True)
class PartIn:
    """One contract result as the TD keys it: weight, contract, declarer, tricks."""

    weight: str
    contract: str
    declarer: str | None
    tricks: int | str


def side_of_parts(board: int, rows: Sequence[PartIn], direction: str = "") -> AdjustedSide:
    """An assigned (one row) or weighted score from the TD's rows; every row is checked."""
    rows = [r for r in rows if r.contract.strip() or str(r.tricks).strip() or r.weight.strip()]
    who = f" for {direction}" if direction else ""
    if not rows:
        raise InvalidError("score_missing", "Give at least one contract result{who}.", who=who)
    if len(rows) > MAX_PARTS:
        raise InvalidError(
            "too_many_parts",
            "A weighted score has at most {MAX_PARTS} results{who}.",
            MAX_PARTS=MAX_PARTS,
            who=who,
        )
    shares = weights([r.weight for r in rows])
    parts: list[ScorePart] = []
    for row, share in zip(rows, shares, strict=True):
        tricks = row.tricks.strip() if isinstance(row.tricks, str) else row.tricks
        if isinstance(tricks, str) and tricks.isascii() and tricks.isdigit():
            tricks = int(tricks)  # "²" is a digit to isdigit() but not to int(): a bad value
        try:
            play = TableResult.make(row.contract.strip().upper(), row.declarer or None, tricks)
        except BridgeError as exc:
            raise InvalidError(exc.code, verbatim(f"{row.contract or '?'}{who}: {exc}")) from exc
        declarer = play.declarer.value if play.declarer is not None else None
        part = ScorePart(share, str(play.contract), declarer, play.tricks)
        if any(
            (p.contract, p.declarer, p.tricks) == (part.contract, declarer, part.tricks)
            for p in parts
        ):
            raise InvalidError(
                "part_twice",
                "{value} is given twice{who}: add its weights up.",
                value=part.text(False),
                who=who,
            )
        parts.append(part)
    if len(parts) == 1 and parts[0].weight != 1:  # pragma: no cover - weights() sums to 1
        raise InvalidError("weights_not_one", "A single result has the whole weight.")
    return AdjustedSide(parts=tuple(parts))


def artificial_side(percent: Fraction | int | str) -> AdjustedSide:
    value = percent if isinstance(percent, Fraction) else _number(str(percent))
    if not 0 <= value <= 100:
        raise InvalidError(
            "invalid_adjustment",
            "{value} % is not a percentage from 0 to 100.",
            value=number_text(value),
        )
    return AdjustedSide(percent=value)


def artificial(ns_percent: Fraction | int, ew_percent: Fraction | int) -> Adjustment:
    """Ave+/Ave/Ave- or any split: each side its own percentage."""
    return Adjustment(artificial_side(Fraction(ns_percent)), artificial_side(Fraction(ew_percent)))


def _check_board(board: int, side: AdjustedSide) -> None:
    for part in side.parts:
        part.ns_score(board)


def adjustment(board: int, ns: AdjustedSide, ew: AdjustedSide | None = None) -> Adjustment:
    """A balanced score (``ew`` None: the same as N/S) or an unbalanced one (§ X78A2)."""
    made = Adjustment(ns, ns if ew is None else ew)
    _check_board(board, made.ns)
    _check_board(board, made.ew)
    if len(made.text) > MAX_TEXT:
        raise InvalidError(
            "adjustment_too_long",
            "This adjusted score is {value} characters long; at most {MAX_TEXT} can be kept: "
            "give fewer results.",
            value=len(made.text),
            MAX_TEXT=MAX_TEXT,
        )
    return made


# ------------------------------------------------------------------------------ reading back

_PART = re.compile(
    r"^(?:(?P<weight>[0-9./]+%?)\s+)?(?P<contract>PASS|[1-7](?:C|D|H|S|NT)X{0,2})"
    r"(?:\s+(?P<declarer>[NESW])\s+(?P<result>=|[+-]\d{1,2}))?$"
)


def _side(text: str) -> AdjustedSide:
    text = text.strip()
    if text.startswith("A"):
        return AdjustedSide(percent=_number(text[1:]))
    pieces = [p.strip() for p in text.split(" + ")]
    matches = [_PART.match(p) for p in pieces]
    if any(m is None for m in matches):
        raise ValueError(f"not an adjusted score: {text!r}")
    shares = weights([m["weight"] or "" for m in matches if m is not None])
    parts = []
    for match, share in zip(matches, shares, strict=True):
        assert match is not None
        play = TableResult.make(match["contract"], match["declarer"], match["result"] or 0)
        declarer = play.declarer.value if play.declarer is not None else None
        parts.append(ScorePart(share, str(play.contract), declarer, play.tricks))
    return AdjustedSide(parts=tuple(parts))


def parse(text: str) -> Adjustment:
    """Read a stored adjusted score back (ValueError if it is not one)."""
    text = text.strip()
    legacy = re.fullmatch(r"A([0-9./]+)/([0-9./]+)", text)
    try:
        if legacy:
            return Adjustment(
                AdjustedSide(percent=_number(legacy[1])), AdjustedSide(percent=_number(legacy[2]))
            )
        if text.startswith("NS:") and " | EW:" in text:
            ns_text, ew_text = text[3:].split(" | EW:", 1)
            return Adjustment(_side(ns_text), _side(ew_text))
        side = _side(text)
        return Adjustment(side, side)
    except (InvalidError, BridgeError) as exc:
        raise ValueError(f"not an adjusted score: {text!r} ({exc})") from None


def kind_of(text: str | None) -> Kind | None:
    """The kind of a stored adjusted score (None: none, or unreadable)."""
    if not text:
        return None
    try:
        return parse(text).kind
    except ValueError:
        return None


def from_rows(
    board: int,
    ns: Sequence[PartIn],
    *,
    ew: Sequence[PartIn] | None = None,
    ew_percent: str | None = None,
) -> Adjustment:
    """The TD's form or API body as an Adjustment: N/S's contract results (one: assigned,
    several: weighted), and for an unbalanced score E/W's own results or percentage."""
    ns_side = side_of_parts(board, ns, "N/S" if ew is not None or ew_percent else "")
    if ew_percent is not None and ew_percent.strip():
        return adjustment(board, ns_side, artificial_side(ew_percent))
    if ew is not None:
        return adjustment(board, ns_side, side_of_parts(board, ew, "E/W"))
    return adjustment(board, ns_side)
