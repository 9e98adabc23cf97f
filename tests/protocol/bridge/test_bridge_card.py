"""parse_card: the opening lead as keyed."""

import pytest

from protocol.bridge import InvalidCard, parse_card


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("SA", "SA"), ("sa", "SA"), ("AS", "SA"), ("H7", "H7"), ("DT", "DT"), ("D10", "DT"),
        ("10H", "HT"), ("♠A", "SA"), ("A♠", "SA"), ("♣2", "C2"), (" c 2 ", "C2"),
    ],
)  # fmt: skip
def test_parse_card(text: str, card: str) -> None:
    assert parse_card(text) == card


@pytest.mark.parametrize("bad", ["1S", "SZ", "", "NTA", "NA", "S", "SAK"])
def test_parse_card_rejects(bad: str) -> None:
    with pytest.raises(InvalidCard) as caught:
        parse_card(bad)
    assert caught.value.code == "invalid_card"
    assert caught.value.value == bad
    assert repr(bad) in str(caught.value)
