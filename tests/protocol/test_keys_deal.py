"""The deal's key grammar (protocol/keys_deal.py), shared by the terminal and the keypad."""

from __future__ import annotations

import pytest

from protocol.bridge.deal import InvalidDeal, parse_deal
from protocol.bridge.enums import Seat
from protocol.keys import KeyRefusedError
from protocol.keys_deal import DealKeys

DEAL = "N:AKQJ.T98.765.432 T98.765.432.AKQJ 765.432.AKQJ.T98 432.AKQJ.T98.765"
KEY_OF = {"T": ("0",), "J": ("1", "1"), "Q": ("1", "2"), "K": ("1", "3"), "A": ("1", "4")}


def key_hand(keys: DealKeys, hand: str) -> bool:
    done = False
    for holding in hand.split("."):
        for rank in holding:
            for key in KEY_OF.get(rank, (rank,)):
                keys.press(key)
        done = keys.next_suit()
    return done


def test_the_four_hands_keyed_give_the_deal() -> None:
    keys = DealKeys("enter")
    hands = DEAL[2:].split()
    assert [key_hand(keys, hand) for hand in hands] == [False, False, False, True]
    assert parse_deal(keys.text()) == parse_deal(DEAL)


def test_a_check_keys_north_alone() -> None:
    keys = DealKeys("check")
    assert key_hand(keys, "AKQJ.T98.765.432")
    assert keys.text() == "AKQJ.T98.765.432"
    assert keys.seats == (Seat.N,)


@pytest.mark.parametrize(
    ("presses", "code"),
    [(("1", "5"), "deal_high"), (("1", "0"), "deal_high"), (("2", "2"), "deal_keyed_already")],
)
def test_a_key_that_does_not_fit_is_refused_and_changes_nothing(
    presses: tuple[str, ...], code: str
) -> None:
    keys = DealKeys("enter")
    for key in presses[:-1]:
        keys.press(key)
    before = list(keys.holdings)
    with pytest.raises(KeyRefusedError) as refused:
        keys.press(presses[-1])
    assert refused.value.code == code
    assert keys.holdings == before


def test_thirteen_cards_a_hand() -> None:
    keys = DealKeys("enter")
    for _ in range(3):
        assert not keys.next_suit()
    with pytest.raises(KeyRefusedError) as refused:
        keys.next_suit()  # clubs closed with no card in the hand
    assert refused.value.code == "deal_hand_size"


def test_a_card_in_two_hands_is_refused_by_the_deal_check() -> None:
    keys = DealKeys("enter")
    north = "AKQJ.T98.765.432"
    for hand in (north, north, north):
        key_hand(keys, hand)
    with pytest.raises(InvalidDeal):
        key_hand(keys, north)


def test_back_takes_back_a_key_then_a_suit() -> None:
    keys = DealKeys("enter")
    assert not keys.back()
    keys.press("1")
    assert keys.back()
    assert not keys.high
    keys.press("2")
    keys.next_suit()
    assert keys.suit == "H"
    assert keys.back()
    assert keys.suit == "S"
    assert keys.holdings == ["2"]
