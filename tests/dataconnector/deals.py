"""Deterministic deals for the tests (no client needed)."""

from __future__ import annotations

import random


def deal(board: int) -> list[list[str]]:
    """A deterministic deal: four hands, each four suits S, H, D, C."""
    cards = [s + r for s in "SHDC" for r in "AKQJT98765432"]
    random.Random(board).shuffle(cards)
    hands = [sorted(cards[i * 13 : (i + 1) * 13]) for i in range(4)]
    order = "AKQJT98765432"
    return [
        ["".join(sorted((c[1] for c in h if c[0] == s), key=order.index)) for s in "SHDC"]
        for h in hands
    ]
