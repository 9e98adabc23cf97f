"""The Law 78B IMP scale: every boundary, far values and antisymmetry."""

import pytest

from protocol.bridge import imps

# Law 78B as printed in rules.md section 5: (lowest difference, highest difference, IMPs).
LAW_78B = [
    (0, 10, 0), (20, 40, 1), (50, 80, 2), (90, 120, 3), (130, 160, 4), (170, 210, 5),
    (220, 260, 6), (270, 310, 7), (320, 360, 8), (370, 420, 9), (430, 490, 10),
    (500, 590, 11), (600, 740, 12), (750, 890, 13), (900, 1090, 14), (1100, 1290, 15),
    (1300, 1490, 16), (1500, 1740, 17), (1750, 1990, 18), (2000, 2240, 19),
    (2250, 2490, 20), (2500, 2990, 21), (3000, 3490, 22), (3500, 3990, 23),
]  # fmt: skip

EDGES = [(0, 0), (10000, 24), (4000, 24), (50000, 24)]
for low, high, value in LAW_78B:
    EDGES += [(low, value), (high, value)]


@pytest.mark.parametrize(("points", "expected"), EDGES, ids=[f"{p}->{e}" for p, e in EDGES])
def test_boundaries(points: int, expected: int) -> None:
    assert imps(points) == expected
    assert imps(-points) == -expected


def test_every_multiple_of_ten_against_the_printed_ranges() -> None:
    for points in range(0, 6000, 10):
        expected = next((v for lo, hi, v in LAW_78B if lo <= points <= hi), 24)
        assert imps(points) == expected, points


def test_antisymmetry_for_any_int() -> None:
    for points in range(-5000, 5001):
        assert imps(-points) == -imps(points)


def test_points_between_the_tens_follow_the_lower_boundary() -> None:
    # "At least this many points gives one more IMP".
    assert imps(19) == 0
    assert imps(45) == 1
    assert imps(3999) == 23


def test_known_examples() -> None:
    assert imps(-500) == -11
    assert imps(620 - 170) == 10
    assert imps(1430 - 680) == 13


@pytest.mark.parametrize("bad", [1.5, "20", True, None])
def test_rejects_non_integers(bad: object) -> None:
    with pytest.raises(TypeError):
        imps(bad)  # type: ignore[arg-type]
