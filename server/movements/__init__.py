"""Movements: who plays whom on which boards, generated, imported, validated and edited."""

from server.movements.mitchell import mitchell
from server.movements.model import Direction, Movement, PairRef, RoundAssignment
from server.movements.validate import MovementError, validate

__all__ = [
    "Direction",
    "Movement",
    "MovementError",
    "PairRef",
    "RoundAssignment",
    "mitchell",
    "validate",
]
