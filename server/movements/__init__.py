"""Movements: who plays whom on which boards, generated, imported, validated and edited."""

from server.movements.balance import BalanceReport, comparison_balance
from server.movements.howell import howell, three_quarter_howell
from server.movements.mitchell import mitchell
from server.movements.mitchell_variants import add_rover, hesitation_mitchell, web_mitchell
from server.movements.model import Direction, Movement, PairRef, RoundAssignment
from server.movements.teams import round_robin, swiss_pairings, team_match
from server.movements.validate import MovementError, validate

__all__ = [
    "BalanceReport",
    "Direction",
    "Movement",
    "MovementError",
    "PairRef",
    "RoundAssignment",
    "add_rover",
    "comparison_balance",
    "hesitation_mitchell",
    "howell",
    "mitchell",
    "round_robin",
    "swiss_pairings",
    "team_match",
    "three_quarter_howell",
    "validate",
    "web_mitchell",
]
