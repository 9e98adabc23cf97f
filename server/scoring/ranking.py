"""Places from ordered scores: shared places as "3=" or "3-4"."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from typing import TypeVar

T = TypeVar("T")


def place_label(position: int, size: int, style: str = "=") -> str:
    """The place of a group of `size` contestants sharing position `position` (1-based)."""
    if size == 1:
        return str(position)
    if style == "-":
        return f"{position}-{position + size - 1}"
    return f"{position}="


def tied_groups(ordered: Sequence[T], key: Callable[[T], Hashable]) -> list[list[T]]:
    """Split an already ordered sequence into runs of equal key."""
    groups: list[list[T]] = []
    previous: object = object()
    for item in ordered:
        k = key(item)
        if groups and k == previous:
            groups[-1].append(item)
        else:
            groups.append([item])
        previous = k
    return groups


def places(groups: Sequence[Sequence[T]], style: str = "=") -> list[tuple[T, int, str]]:
    """(item, position, place label) for groups in order, each group sharing one place."""
    out: list[tuple[T, int, str]] = []
    position = 1
    for group in groups:
        label = place_label(position, len(group), style)
        for item in group:
            out.append((item, position, label))
        position += len(group)
    return out


def rank(scores: Sequence[Fraction | int], style: str = "=") -> list[str]:
    """The place of each score in a list (highest first), e.g. [10, 12, 10] -> ["2=", "1", "2="]."""
    order = sorted(range(len(scores)), key=scores.__getitem__, reverse=True)
    labels = [""] * len(scores)
    for index, _, label in places(tied_groups(order, scores.__getitem__), style):
        labels[index] = label
    return labels
