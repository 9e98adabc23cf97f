"""The play's table-side text (issue 20): format_play and parse_play round-trip and refuse."""

from __future__ import annotations

import pytest

from protocol.bridge.deal import parse_deal
from protocol.bridge.play import IllegalPlay, Play, format_play, parse_play

DEAL = parse_deal("N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432")


def test_cards_and_a_claim_round_trip() -> None:
    play = Play("S", "S", DEAL)
    for card in ("H2", "HA", "HJ", "H8"):
        play.play(card)
    play.claim(12)
    text = format_play(play)
    assert text == "H2 HA HJ H8 =12"
    again = parse_play(text, "S", "S", DEAL)
    assert again.claimed == 12
    assert again.declarer_tricks() == 12
    assert format_play(again) == text


def test_a_revoke_is_refused_with_its_code() -> None:
    with pytest.raises(IllegalPlay) as refused:
        parse_play("H2 HA ST", "S", "S", DEAL)
    assert refused.value.code == "revoke"


def test_a_claim_must_be_last() -> None:
    with pytest.raises(IllegalPlay) as refused:
        parse_play("H2 =12 HA", "S", "S", DEAL)
    assert refused.value.code == "claim_not_last"


def test_a_claim_that_is_not_a_number_is_refused() -> None:
    with pytest.raises(IllegalPlay) as refused:
        parse_play("H2 HA HJ H8 =x", "S", "S", DEAL)
    assert refused.value.code == "bad_claim"
