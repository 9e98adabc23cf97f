"""Every movement offered, one entry a kind: its builder and the options it reads (for the API,
the CLI and the pages). A new kind is its module under ``server/movements/`` and one entry in
:data:`KINDS` (CONTRIBUTING.md)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeVar

from server.movements.appendix import appendix_mitchell
from server.movements.bridgescorer import bundled_names, load_bundled
from server.movements.howell import howell, three_quarter_howell
from server.movements.individual import individual
from server.movements.mitchell import mitchell
from server.movements.mitchell_variants import add_rover, hesitation_mitchell
from server.movements.model import IndividualMovement, Movement
from server.movements.teams import team_match
from server.movements.web_circuits import ebu_web_mitchell

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class MovementOptions:
    """The options a movement is built with; each kind reads those its entry names."""

    tables: int | None = None
    pairs: int | None = None
    rounds: int | None = None
    boards_per_round: int = 2
    even: Literal["skip", "relay"] = "skip"
    arrow_switch_rounds: int = 0
    name: str | None = None


Builder = Callable[[MovementOptions], Movement | IndividualMovement]


@dataclass(frozen=True, slots=True)
class MovementKind:
    """A kind of movement: its name (as the API and the CLI take it), its builder and the
    options the builder reads."""

    name: str
    build: Builder
    options: tuple[str, ...]


def _need(value: T | None, what: str) -> T:
    if value is None:
        raise ValueError(f"this movement needs {what}")
    return value


def _mitchell(o: MovementOptions) -> Movement:
    return mitchell(
        _need(o.tables, "tables"),
        rounds=o.rounds,
        boards_per_round=o.boards_per_round,
        even=o.even,
        arrow_switch_rounds=o.arrow_switch_rounds,
    )


def _rover_mitchell(o: MovementOptions) -> Movement:
    return add_rover(_mitchell(o))


def _howell(o: MovementOptions) -> Movement:
    return howell(
        o.pairs or 2 * _need(o.tables, "pairs or tables"),
        rounds=o.rounds,
        boards_per_round=o.boards_per_round,
        relay=o.even == "relay",
    )


def _three_quarter_howell(o: MovementOptions) -> Movement:
    return three_quarter_howell(
        o.pairs or 2 * _need(o.tables, "pairs or tables"), boards_per_round=o.boards_per_round
    )


def _hesitation(o: MovementOptions) -> Movement:
    return hesitation_mitchell(
        _need(o.tables, "tables"),
        boards_per_round=o.boards_per_round,
        arrow_switch_rounds=o.arrow_switch_rounds,
    )


def _appendix_mitchell(o: MovementOptions) -> Movement:
    tables = o.tables
    if tables is None and o.pairs is not None:
        if o.pairs % 2 == 0:
            raise ValueError("an appendix Mitchell is for an odd number of pairs")
        tables = o.pairs // 2
    return appendix_mitchell(
        _need(tables, "tables (the full tables) or pairs"),
        boards_per_round=o.boards_per_round,
        arrow_switch_rounds=o.arrow_switch_rounds,
    )


def _web_mitchell(o: MovementOptions) -> Movement:
    return ebu_web_mitchell(
        _need(o.tables, "tables"), sets=o.rounds, boards_per_round=o.boards_per_round
    )


def _individual(o: MovementOptions) -> IndividualMovement:
    return individual(
        _need(o.pairs, "pairs (the number of players)"), boards_per_round=o.boards_per_round
    )


def _team_match(o: MovementOptions) -> Movement:
    stanzas = o.rounds or 1
    return team_match(1, 2, boards=range(1, o.boards_per_round * stanzas + 1), rounds=stanzas)


def _bundled(o: MovementOptions) -> Movement | IndividualMovement:
    wanted = _need(o.name, "name")
    matches = [n for n in bundled_names() if wanted.lower() in n.lower()]
    if len(matches) != 1:
        raise ValueError(f"name {wanted!r} matches {matches or 'nothing'}")
    return load_bundled(matches[0])


_MITCHELL_OPTIONS = ("tables", "rounds", "boards_per_round", "even", "arrow_switch_rounds")

KINDS: dict[str, MovementKind] = {
    kind.name: kind
    for kind in (
        MovementKind("mitchell", _mitchell, _MITCHELL_OPTIONS),
        MovementKind("howell", _howell, ("pairs", "tables", "rounds", "boards_per_round", "even")),
        MovementKind(
            "three-quarter-howell", _three_quarter_howell, ("pairs", "tables", "boards_per_round")
        ),
        MovementKind(
            "hesitation", _hesitation, ("tables", "boards_per_round", "arrow_switch_rounds")
        ),
        MovementKind(
            "appendix-mitchell",
            _appendix_mitchell,
            ("tables", "pairs", "boards_per_round", "arrow_switch_rounds"),
        ),
        MovementKind("web-mitchell", _web_mitchell, ("tables", "rounds", "boards_per_round")),
        MovementKind("rover-mitchell", _rover_mitchell, _MITCHELL_OPTIONS),
        MovementKind("individual", _individual, ("pairs", "boards_per_round")),
        MovementKind("team-match", _team_match, ("rounds", "boards_per_round")),
        MovementKind("bundled", _bundled, ("name",)),
    )
}
"""Every kind offered, in the order the API and the CLI list them."""


def build(
    kind: str,
    *,
    tables: int | None = None,
    pairs: int | None = None,
    rounds: int | None = None,
    boards_per_round: int = 2,
    even: Literal["skip", "relay"] = "skip",
    arrow_switch_rounds: int = 0,
    name: str | None = None,
) -> Movement | IndividualMovement:
    """Build a movement of one of KINDS; raises ValueError for a missing or bad option."""
    entry = KINDS.get(kind)
    if entry is None:
        raise ValueError(f"unknown movement kind {kind!r}; offered: {', '.join(KINDS)}")
    return entry.build(
        MovementOptions(
            tables=tables,
            pairs=pairs,
            rounds=rounds,
            boards_per_round=boards_per_round,
            even=even,
            arrow_switch_rounds=arrow_switch_rounds,
            name=name,
        )
    )
