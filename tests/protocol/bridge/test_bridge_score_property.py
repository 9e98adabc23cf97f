"""contract_score against a trick-by-trick oracle over all 2,940 cases, plus ordering checks."""

import itertools

import pytest

from protocol.bridge import Contract, Doubling, Strain, contract_score

LEVELS = range(1, 8)
TRICKS = range(14)
BIDS = [
    Contract(level, strain, doubling)
    for level in LEVELS
    for strain in Strain
    for doubling in Doubling
]


def oracle(level: int, strain: str, multiplier: int, tricks: int, vulnerable: bool) -> int:
    """Law 77 read literally, one trick at a time; shares nothing with the table-driven code."""
    needed = level + 6
    if tricks < needed:
        penalty = 0
        for nth_down in range(1, needed - tricks + 1):
            if multiplier == 1:
                penalty += 100 if vulnerable else 50
                continue
            if vulnerable:
                step = 200 if nth_down == 1 else 300
            elif nth_down == 1:
                step = 100
            elif nth_down <= 3:
                step = 200
            else:
                step = 300
            penalty += step * multiplier // 2
        return -penalty

    points = 0
    for nth_trick in range(1, level + 1):
        if strain in ("C", "D"):
            value = 20
        elif strain in ("H", "S"):
            value = 30
        else:
            value = 40 if nth_trick == 1 else 30
        points += value * multiplier
    score = points
    if points >= 100:
        score += 500 if vulnerable else 300
    else:
        score += 50
    if level == 6:
        score += 750 if vulnerable else 500
    if level == 7:
        score += 1500 if vulnerable else 1000
    if multiplier == 2:
        score += 50
    if multiplier == 4:
        score += 100
    for _ in range(tricks - needed):
        if multiplier == 1:
            score += 20 if strain in ("C", "D") else 30
        else:
            score += (200 if vulnerable else 100) * multiplier // 2
    return score


def test_every_combination_is_covered() -> None:
    assert len(BIDS) * len(TRICKS) * 2 == 2940


@pytest.mark.parametrize("contract", BIDS, ids=str)
def test_matches_the_oracle(contract: Contract) -> None:
    assert contract.strain is not None
    for tricks, vulnerable in itertools.product(TRICKS, (False, True)):
        expected = oracle(
            contract.level, contract.strain.value, int(contract.doubling), tricks, vulnerable
        )
        assert contract_score(contract, tricks, vulnerable) == expected, (tricks, vulnerable)


@pytest.mark.parametrize("contract", BIDS, ids=str)
def test_sign_and_monotonicity(contract: Contract) -> None:
    for vulnerable in (False, True):
        scores = [contract_score(contract, tricks, vulnerable) for tricks in TRICKS]
        # More tricks never score less.
        assert scores == sorted(scores)
        for tricks, score in zip(TRICKS, scores, strict=True):
            if tricks >= contract.tricks_needed:
                assert score > 0
            else:
                assert score < 0
            # Always a multiple of 10.
            assert score % 10 == 0
    for tricks in TRICKS:
        nv = contract_score(contract, tricks, False)
        vul = contract_score(contract, tricks, True)
        # Vulnerability raises both the rewards and the risks.
        assert abs(vul) >= abs(nv)
        assert (vul > 0) == (nv > 0)


@pytest.mark.parametrize(
    ("level", "strain"), list(itertools.product(LEVELS, Strain)), ids=lambda x: str(x)
)
def test_doubling_raises_the_stakes(level: int, strain: Strain) -> None:
    for tricks, vulnerable in itertools.product(TRICKS, (False, True)):
        plain, doubled, redoubled = (
            contract_score(Contract(level, strain, doubling), tricks, vulnerable)
            for doubling in Doubling
        )
        if tricks >= level + 6:
            assert plain < doubled < redoubled
        else:
            assert plain > doubled > redoubled
            assert redoubled == 2 * doubled


def test_pass_scores_zero() -> None:
    for vulnerable in (False, True):
        assert contract_score(Contract.passed_out(), 0, vulnerable) == 0
        assert contract_score("PASS", 0, vulnerable) == 0
