"""The deal (PBN notation, hand entry checks) and the play (Law 44: following suit, trick
winners; Law 68: claims), checked on every auction and play of a real RealBridge event."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from protocol.bridge import Contract, Seat
from protocol.bridge.auction import parse_pbn_auction
from protocol.bridge.deal import (
    InvalidDeal,
    check_deal,
    confirm_hand,
    format_deal,
    parse_deal,
    parse_hand,
)
from protocol.bridge.enums import Strain
from protocol.bridge.play import IllegalPlay, Play, parse_pbn_play

# A real event: RealBridge "2021 Online Qual: Open R2" (MIT, see tests/data/README.md).
REALBRIDGE = (
    Path(__file__).resolve().parents[2]
    / "data"
    / "endplay-realbridge"
    / "example2_realbridge_2021_online_qual_open_R2.pbn"
)
DEAL = "N:KT8.A96.A95.7542 Q5.KJ52.KQ874.T8 AJ92.874.JT6.AQ3 7643.QT3.32.KJ96"
_TAG = re.compile(r'^\[(\w+) "(.*)"\]\s*$')


def _records(text: str) -> list[dict[str, str]]:
    """Each game's tags, and the section text after [Auction] and [Play] under those names."""
    records = []
    for block in re.split(r"\n\s*\n", text):
        tags: dict[str, str] = {}
        section = None
        for line in block.splitlines():
            match = _TAG.match(line)
            if match:
                name, value = match.groups()
                tags[name] = value
                section = name if name in ("Auction", "Play") else None
                if section:
                    tags[section + "Text"] = ""
            elif section and not line.startswith(("%", ";")):
                tags[section + "Text"] += line + "\n"
        if "Board" in tags:
            records.append(tags)
    return records


RECORDS = _records(REALBRIDGE.read_text(encoding="utf-8"))


def test_a_pbn_deal_reads_and_writes_back() -> None:
    hands = parse_deal(DEAL)
    assert len(hands[Seat.N]) == 13
    assert "SK" in hands[Seat.N]
    assert "CJ" in hands[Seat.W]
    assert format_deal(hands) == DEAL
    assert format_deal(parse_deal("E:" + DEAL[2:].split(" ", 1)[1] + " KT8.A96.A95.7542")) == DEAL


def test_a_void_is_read_written_dash_or_empty() -> None:
    assert parse_hand("Q64.-.KQ8643.KQT4") == parse_hand("Q64..KQ8643.KQT4")
    assert len(parse_hand("Q64.-.KQ8643.KQT4")) == 13


@pytest.mark.parametrize(
    ("deal", "code", "says"),
    [
        # North keyed 12 cards (the 2 of clubs left out), West 14 (it went to West).
        (
            "N:KT8.A96.A95.754 Q5.KJ52.KQ874.T8 AJ92.874.JT6.AQ3 7643.QT3.32.KJ962",
            "hand_size",
            "North has 12 cards",
        ),
        # The king of spades keyed in North and East.
        (
            "N:KT8.A96.A95.7542 KQ5.KJ52.KQ87.T8 AJ92.874.JT6.AQ3 7643.QT3.32.KJ96",
            "card_twice",
            "SK is in two hands: North and East",
        ),
        ("N:KT8.A96.A95.7542 Q5.KJ52.KQ874.T8 AJ92.874.JT6.AQ3", "invalid_deal", "four hands"),
        ("N:KX8.A96.A95.7542 Q5.KJ52.KQ874.T8 AJ92.874.JT6.AQ3 7643.QT3.32.KJ96", None, "'X'"),
        ("N:KT8.A96.A95.7542 Q5.KJ52.KQ874.T8 AJ92.874.JT6.AQ3 7643.QT3.32.KK96", None, "twice"),
    ],
)
def test_a_wrong_deal_is_refused_with_what_is_wrong(deal: str, code: str | None, says: str) -> None:
    with pytest.raises(InvalidDeal) as refused:
        parse_deal(deal)
    if code:
        assert refused.value.code == code
    assert says in str(refused.value)


def test_a_partial_hand_record_checks_only_its_known_hands() -> None:
    # A hand record with East and West not known ("-"): North and South are checked alone.
    partial = parse_deal("N:KT8.A96.A95.7542 - AJ92.874.JT6.AQ3 -", complete=False)
    check_deal(partial, known_only=True)
    with pytest.raises(InvalidDeal, match="East has 0 cards"):
        check_deal(partial)
    short = parse_deal("N:KT8.A96.A95.754 - AJ92.874.JT6.AQ3 -", complete=False)
    with pytest.raises(InvalidDeal, match="North has 12 cards") as refused:
        check_deal(short, known_only=True)
    assert refused.value.code == "hand_size"
    twice = parse_deal("N:KT8.A96.A95.7542 - KJ92.874.JT6.AQ3 -", complete=False)
    with pytest.raises(InvalidDeal, match="SK is in two hands: North and South"):
        check_deal(twice, known_only=True)


def test_the_next_table_confirms_one_hand_or_sees_the_difference() -> None:
    stored = parse_deal(DEAL)
    assert confirm_hand(stored, Seat.S, parse_hand("AJ92.874.JT6.AQ3")) == []
    keyed = parse_hand("AJ92.874.JT6.KQ3")
    assert confirm_hand(stored, Seat.S, keyed) == ["CA missing", "CK extra"]


def test_following_suit_is_enforced_and_the_winner_leads_next() -> None:
    hands = parse_deal(DEAL)
    play = Play(Strain.S, Seat.N, hands)  # 4S by North: East leads
    assert play.to_play is Seat.E
    play.play("D4")
    with pytest.raises(IllegalPlay) as refused:
        play.play("SA")  # South holds diamonds (JT6)
    assert refused.value.code == "revoke"
    with pytest.raises(IllegalPlay) as refused:
        play.play("DA")  # North holds it, not South
    assert refused.value.code == "not_in_hand"
    assert play.play("DJ") is None
    play.play("D3")
    assert play.play("D5") is Seat.S  # DJ beats D5, D4, D3
    assert play.to_play is Seat.S
    with pytest.raises(IllegalPlay) as refused:
        play.play("DJ")
    assert refused.value.code == "card_played"


def test_a_trump_wins_over_the_suit_led() -> None:
    play = Play(Strain.H, Seat.S)  # no deal: only repeats are refused
    for card in ("SA", "H2", "SK", "SQ"):  # W leads SA, N ruffs
        winner = play.play(card)
    assert winner is Seat.N
    assert play.declarer_tricks() == 1


def test_a_claim_ends_the_play_within_what_is_possible() -> None:
    play = Play(Strain.NT, Seat.N)  # East leads
    for card in ("D4", "D3", "DA", "D2"):  # West wins the first trick for the defence
        play.play(card)
    with pytest.raises(IllegalPlay) as refused:
        play.claim(13)
    assert refused.value.code == "bad_claim"
    assert "at most 12" in str(refused.value)
    play = Play(Strain.NT, Seat.N)
    for card in ("D4", "DJ", "D3", "D5"):  # South wins it for declarer
        play.play(card)
    assert play.declarer_tricks() == 1
    with pytest.raises(IllegalPlay):
        play.claim(0)  # fewer than declarer has already won
    play.claim(9)
    assert play.ended
    assert play.declarer_tricks() == 9
    with pytest.raises(IllegalPlay):
        play.play("SA")


AUCTIONS = [r for r in RECORDS if r.get("AuctionText", "").strip()]
PLAYS = [r for r in RECORDS if r.get("PlayText", "").strip()]


def test_the_real_file_has_auctions_and_plays_to_check() -> None:
    assert len(RECORDS) == 299
    assert len(AUCTIONS) == 279
    assert len(PLAYS) == 278


@pytest.mark.parametrize("record", AUCTIONS, ids=lambda r: f"b{r['Board']}t{r.get('Table')}")
def test_every_real_auction_is_legal_and_gives_the_published_contract(
    record: dict[str, str],
) -> None:
    auction = parse_pbn_auction(record["Auction"], record["AuctionText"])
    assert auction.ended
    outcome = auction.outcome()
    published = record["Contract"]
    if published.casefold() == "pass":
        assert outcome.contract == Contract(0, None)
        assert outcome.declarer is None
    else:
        assert outcome.contract == Contract.parse(published)
        assert outcome.declarer == Seat(record["Declarer"])


@pytest.mark.parametrize("record", PLAYS, ids=lambda r: f"b{r['Board']}t{r.get('Table')}")
def test_every_real_play_is_legal_and_agrees_with_the_published_result(
    record: dict[str, str],
) -> None:
    contract = Contract.parse(record["Contract"])
    assert contract.strain is not None
    play = parse_pbn_play(
        record["Play"],
        record["PlayText"],
        contract.strain,
        record["Declarer"],
        parse_deal(record["Deal"]),
    )
    taken = int(record["Result"])
    complete = sum(1 for trick in play.tricks if trick.complete)
    won = play.declarer_tricks()
    if complete == 13:
        assert won == taken
    else:  # claimed: the result lies within what the play left open
        assert won <= taken <= won + 13 - complete
