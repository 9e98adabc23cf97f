"""The scoring methods of a pairs event, one entry each (Law 78, § 201-§ 204): the one place a
method is named.

Every list, form, file word and dispatch is derived from :data:`METHODS`: the event's stored
``scoring`` value (the key), the label the pages show (translated where it is shown), the unit
of its scores, its standard deduction's unit (§ 211B), how PBN, USEBIO and the Bridgemate Data
Connector name it, and the function that scores a board in one direction. A new method is a
module of its own with that function, and one entry here (CONTRIBUTING.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Protocol, TypeAlias

from .butler import direction_butler
from .exact import Rounding
from .imps import direction_imps
from .matchpoints import direction_matchpoints
from .models import Number, SideScore
from .penalties import Unit
from .total import direction_total


def N_(message: str) -> str:  # noqa: N802
    """Mark a label for extraction (server/locales); it is translated where it is shown."""
    return message


class Method(StrEnum):
    """A scoring method's key: the value an event stores in its ``scoring`` column."""

    MATCHPOINTS = "mp"
    """2-1-0 per comparison (European scale, top 2(n-1))."""
    MATCHPOINTS_AMERICAN = "mp-american"
    """1-½-0 per comparison (American/EBU scale, top n-1)."""
    IMPS_ACROSS = "imps"
    """IMPs across the field, summed over the comparisons (§ 203)."""
    CROSS_IMPS = "cross-imps"
    """IMPs across the field divided by the number of comparisons (an average per comparison)."""
    BUTLER = "butler"
    """IMPs against a datum (§ 204)."""
    TOTAL = "total"
    """Total points."""

    @property
    def spec(self) -> ScoringMethod:
        """The method's entry in the registry."""
        return METHODS[self]

    @property
    def is_matchpoints(self) -> bool:
        return METHODS[self].matchpoint_divisor is not None


class BoardOptions(Protocol):
    """What a board scorer reads of the event's options (``board.ScoringOptions``)."""

    @property
    def factor_artificial(self) -> bool: ...
    @property
    def scaled_rounding(self) -> Rounding | None: ...
    @property
    def butler_drop(self) -> int: ...
    @property
    def butler_round_datum(self) -> bool: ...


DirectionScore: TypeAlias = tuple[list[Number | None], Number | None, dict[int, Fraction]]
"""Each side's score in one direction, the board's top (matchpoints) and each group's datum
(Butler)."""

BoardScorer: TypeAlias = Callable[
    [Sequence[SideScore | None], Sequence[int], int, int, BoardOptions], DirectionScore
]
"""(sides, groups, sign, tables the board is scored over, options) -> the direction's score."""


def _matchpoints(
    sides: Sequence[SideScore | None],
    groups: Sequence[int],
    sign: int,
    size: int,
    options: BoardOptions,
) -> DirectionScore:
    values, top = direction_matchpoints(
        sides,
        groups,
        sign,
        size,
        factor_artificial=options.factor_artificial,
        scaled_rounding=options.scaled_rounding,
    )
    return values, top, {}


def _imps(
    sides: Sequence[SideScore | None],
    groups: Sequence[int],
    sign: int,
    size: int,
    options: BoardOptions,
) -> DirectionScore:
    return direction_imps(sides, groups, sign, size), None, {}


def _cross_imps(
    sides: Sequence[SideScore | None],
    groups: Sequence[int],
    sign: int,
    size: int,
    options: BoardOptions,
) -> DirectionScore:
    return direction_imps(sides, groups, sign, size, average=True), None, {}


def _butler(
    sides: Sequence[SideScore | None],
    groups: Sequence[int],
    sign: int,
    size: int,
    options: BoardOptions,
) -> DirectionScore:
    values, datums = direction_butler(
        sides,
        groups,
        sign,
        size,
        drop=options.butler_drop,
        round_datum=options.butler_round_datum,
    )
    return values, None, datums


def _total(
    sides: Sequence[SideScore | None],
    groups: Sequence[int],
    sign: int,
    size: int,
    options: BoardOptions,
) -> DirectionScore:
    return direction_total(sides, sign), None, {}


@dataclass(frozen=True, slots=True)
class ScoringMethod:
    """One scoring method and every name and rule it carries."""

    key: Method
    label: str
    """What the pages call it: a message id, translated where it is shown, as the templates'
    ``_()`` takes it (which formats it: a per cent sign is written %%)."""
    unit: str
    """The unit its scores are shown in: MP, IMP or points."""
    score_direction: BoardScorer
    """Scores one board in one direction (server/scoring/board.py)."""
    pbn: str
    """The PBN [Scoring] tag written for it."""
    usebio_method: str
    """USEBIO's BOARD_SCORING_METHOD for it."""
    usebio_points: str | None = None
    """The USEBIO TRAVELLER_LINE element (NS_/EW_ + this) holding a line's score, if any, as
    USEBIO 1.2 producers write them (EBU scorers: MATCH_POINTS; Compscore: CROSS_IMP_POINTS and
    BUTLER_POINTS); BOARD_SCORING_METHOD tells an IMP total from a per-comparison average."""
    file_words: tuple[str, ...] = ()
    """Words that name it in a file's method (USEBIO EVENT_TYPE, SCORING_METHOD, PBN
    [Scoring]; upper case, "-" and " " read as "_"): a word found in the name (``*`` before a
    word: the name starts with it; ``=``: the name is it). The longest word found decides."""
    refines: Method | None = None
    """The broader method a file may name for it without disagreeing (USEBIO says IMPS for a
    Butler event)."""
    matchpoint_divisor: int | None = None
    """Matchpoint methods: the board holds 2-1-0 matchpoints, shown divided by this (1, or 2 on
    the American 1-½-0 scale); None for the others."""
    penalty_unit: Unit | None = None
    """The unit of its standard deduction (§ 211B); None: no standard deduction (points)."""
    data_connector: frozenset[int] = frozenset()
    """The Bridgemate Data Connector's ScoringMethod codes it scores."""

    def top(self, tables: int) -> int | None:
        """The matchpoint top on a board played at ``tables`` tables (None: no top)."""
        if self.matchpoint_divisor is None:
            return None
        return 2 * (tables - 1) // self.matchpoint_divisor


METHODS: dict[Method, ScoringMethod] = {
    entry.key: entry
    for entry in (
        ScoringMethod(
            key=Method.MATCHPOINTS,
            label=N_("Matchpoints (%%)"),
            unit="MP",
            score_direction=_matchpoints,
            pbn="MatchPoints",
            usebio_method="MATCH_POINTS",
            usebio_points="MATCH_POINTS",
            file_words=("MATCH", "*MP", "=PAIRS"),
            matchpoint_divisor=1,
            penalty_unit=Unit.MATCHPOINTS,
            data_connector=frozenset({10, 60}),
        ),
        ScoringMethod(
            key=Method.MATCHPOINTS_AMERICAN,
            label=N_("Matchpoints, American scale"),
            unit="MP",
            score_direction=_matchpoints,
            pbn="MatchPoints",
            usebio_method="MATCH_POINTS",
            usebio_points="MATCH_POINTS",
            matchpoint_divisor=2,
            penalty_unit=Unit.MATCHPOINTS,
        ),
        ScoringMethod(
            key=Method.IMPS_ACROSS,
            label=N_("IMPs across the field"),
            unit="IMP",
            score_direction=_imps,
            pbn="IMP",
            usebio_method="IMPS",
            usebio_points="CROSS_IMP_POINTS",
            file_words=("IMP",),
            penalty_unit=Unit.IMPS_ACROSS,
            data_connector=frozenset({30, 31, 35, 36, 40, 50, 51, 70}),
        ),
        ScoringMethod(
            key=Method.CROSS_IMPS,
            label=N_("Cross-IMPs (average per comparison)"),
            unit="IMP",
            score_direction=_cross_imps,
            pbn="CrossImps",
            usebio_method="CROSS_IMPS",
            usebio_points="CROSS_IMP_POINTS",
            file_words=("CROSS",),
            refines=Method.IMPS_ACROSS,
            penalty_unit=Unit.IMPS_ACROSS,
        ),
        ScoringMethod(
            key=Method.BUTLER,
            label=N_("Butler"),
            unit="IMP",
            score_direction=_butler,
            pbn="Butler",
            usebio_method="BUTLER",
            usebio_points="BUTLER_POINTS",
            file_words=("BUTLER",),
            refines=Method.IMPS_ACROSS,
            penalty_unit=Unit.BUTLER,
            data_connector=frozenset(range(20, 30)),
        ),
        ScoringMethod(
            key=Method.TOTAL,
            label=N_("Total points"),
            unit="points",
            score_direction=_total,
            pbn="TotalPoints",
            usebio_method="AGGREGATE",
            file_words=("TOTAL", "AGG"),
        ),
    )
}
"""Every method, in the order the pages offer them."""

KEYS: tuple[str, ...] = tuple(m.value for m in METHODS)
"""Every method's key, in the registry's order."""

DEFAULT = Method.MATCHPOINTS
"""An event's method unless the TD chooses another."""
TEAMS_DEFAULT = Method.IMPS_ACROSS
"""What the set-up wizard proposes for a teams event."""
DATA_CONNECTOR_DEFAULT = Method.IMPS_ACROSS
"""A Data Connector code no method claims (its team and IMP codes) is scored in IMPs."""


def of(key: str | None) -> ScoringMethod:
    """The method an event's stored ``scoring`` names (the default for an unknown one)."""
    try:
        return METHODS[Method(key or DEFAULT)]
    except ValueError:
        return METHODS[DEFAULT]


def parse(key: str) -> Method:
    """A method from its key ("total" or the older word "aggregate" too); ValueError otherwise."""
    word = key.strip().lower()
    if word == "aggregate":
        return Method.TOTAL
    try:
        return Method(word)
    except ValueError:
        raise ValueError(
            f"{key!r} is not a method (expected {', '.join(KEYS[:-1])} or {KEYS[-1]})"
        ) from None


def named_in_file(text: str) -> Method | None:
    """The method a file's word names (USEBIO EVENT_TYPE / BOARD_SCORING_METHOD, PBN
    [Scoring]), or None: the longest of the methods' ``file_words`` found in it decides."""
    name = text.strip().upper().replace("-", "_").replace(" ", "_")
    if not name:
        return None
    best: tuple[int, Method] | None = None
    for entry in METHODS.values():
        for word in entry.file_words:
            if word.startswith("="):
                found = name == word[1:]
            elif word.startswith("*"):
                found = name.startswith(word[1:])
            else:
                found = word in name
            length = len(word.lstrip("=*"))
            if found and (best is None or length > best[0]):
                best = (length, entry.key)
    return None if best is None else best[1]


def from_data_connector(code: int) -> Method:
    """The method scoring a Bridgemate Data Connector ScoringMethod code."""
    for entry in METHODS.values():
        if code in entry.data_connector:
            return entry.key
    return DATA_CONNECTOR_DEFAULT
