"""Every movement offered, built by kind name with keyword options (for the API and the CLI)."""

from __future__ import annotations

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

KINDS = (
    "mitchell",
    "howell",
    "three-quarter-howell",
    "hesitation",
    "appendix-mitchell",
    "web-mitchell",
    "rover-mitchell",
    "individual",
    "team-match",
    "bundled",
)
T = TypeVar("T")


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
    if kind == "mitchell":
        return mitchell(
            _need(tables, "tables"),
            rounds=rounds,
            boards_per_round=boards_per_round,
            even=even,
            arrow_switch_rounds=arrow_switch_rounds,
        )
    if kind == "rover-mitchell":
        base = mitchell(
            _need(tables, "tables"),
            rounds=rounds,
            boards_per_round=boards_per_round,
            even=even,
            arrow_switch_rounds=arrow_switch_rounds,
        )
        return add_rover(base)
    if kind == "howell":
        return howell(
            pairs or 2 * _need(tables, "pairs or tables"),
            rounds=rounds,
            boards_per_round=boards_per_round,
            relay=even == "relay",
        )
    if kind == "three-quarter-howell":
        return three_quarter_howell(
            pairs or 2 * _need(tables, "pairs or tables"), boards_per_round=boards_per_round
        )
    if kind == "hesitation":
        return hesitation_mitchell(
            _need(tables, "tables"),
            boards_per_round=boards_per_round,
            arrow_switch_rounds=arrow_switch_rounds,
        )
    if kind == "appendix-mitchell":
        if tables is None and pairs is not None:
            if pairs % 2 == 0:
                raise ValueError("an appendix Mitchell is for an odd number of pairs")
            tables = pairs // 2
        return appendix_mitchell(
            _need(tables, "tables (the full tables) or pairs"),
            boards_per_round=boards_per_round,
            arrow_switch_rounds=arrow_switch_rounds,
        )
    if kind == "web-mitchell":
        return ebu_web_mitchell(
            _need(tables, "tables"), sets=rounds, boards_per_round=boards_per_round
        )
    if kind == "individual":
        return individual(
            _need(pairs, "pairs (the number of players)"), boards_per_round=boards_per_round
        )
    if kind == "team-match":
        stanzas = rounds or 1
        return team_match(1, 2, boards=range(1, boards_per_round * stanzas + 1), rounds=stanzas)
    if kind == "bundled":
        wanted = _need(name, "name")
        matches = [n for n in bundled_names() if wanted.lower() in n.lower()]
        if len(matches) != 1:
            raise ValueError(f"name {wanted!r} matches {matches or 'nothing'}")
        return load_bundled(matches[0])
    raise ValueError(f"unknown movement kind {kind!r}; offered: {', '.join(KINDS)}")


def _need(value: T | None, what: str) -> T:
    if value is None:
        raise ValueError(f"this movement needs {what}")
    return value
