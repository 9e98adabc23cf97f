"""The key grammar for calls, cards and claims (protocol/keys_play.py), and its key counts on
the real RealBridge auctions and plays."""

from __future__ import annotations

import statistics

import pytest

from protocol.bridge import Seat
from protocol.bridge.auction import Auction, Call, IllegalCall, parse_pbn_auction
from protocol.bridge.contract import Contract
from protocol.bridge.deal import parse_deal
from protocol.bridge.enums import Strain
from protocol.bridge.play import IllegalPlay, Play, parse_pbn_play
from protocol.keys import OK, KeyRefusedError
from protocol.keys_play import ALERT, Claim, call_keys, card_keys, read_call, read_card
from tests.protocol.bridge.test_bridge_play import AUCTIONS, DEAL, PLAYS


def _key_auction(dealer: str, keys: list[str]) -> Auction:
    auction = Auction(dealer)
    pending: tuple[str, ...] = ()
    for key in keys:
        if key == ALERT:
            auction.mark_alert()
            continue
        pending = (*pending, key)
        call = read_call(auction, pending)
        if call is not None:
            auction.add(call)
            pending = ()
    assert pending == ()
    return auction


def test_a_typical_auction_is_keyed_in_eight_keys() -> None:
    keys = ["1", "5", "0", "3", "5", "0", "0", "0"]  # 1NT P 3NT P P P
    auction = _key_auction("N", keys)
    assert auction.ended
    outcome = auction.outcome()
    assert (str(outcome.contract), outcome.declarer) == ("3NT", Seat.N)


def test_star_doubles_then_redoubles_whichever_is_legal() -> None:
    auction = _key_auction("N", ["1", "4", "*", "*", "0", "0", "0"])
    assert [c.kind for c in auction.calls] == ["bid", "X", "XX", "P", "P", "P"]
    assert str(auction.outcome().contract) == "1SXX"


def test_the_alert_key_marks_the_call_just_made() -> None:
    auction = _key_auction("N", ["1", "1", ALERT, "0", "1", "2"])
    assert [str(c) for c in auction.calls] == ["1C!", "P", "1D"]


@pytest.mark.parametrize(
    ("before", "keys", "error", "code"),
    [
        (["1S"], ("1", "3"), IllegalCall, "insufficient_bid"),
        (["1S", "P"], ("*",), IllegalCall, "double_own_side"),
        ([], ("*",), IllegalCall, "no_bid"),
        ([], ("8",), KeyRefusedError, "call_level"),
        ([], ("1", "6"), KeyRefusedError, "call_strain"),
    ],
)
def test_a_bad_call_key_is_refused_and_the_auction_is_unchanged(
    before: list[str], keys: tuple[str, ...], error: type[Exception], code: str
) -> None:
    auction = Auction("N", before)
    with pytest.raises(error) as refused:
        read_call(auction, keys)
    assert getattr(refused.value, "code", None) == code
    assert auction.calls == Auction("N", before).calls


def test_call_keys_is_the_inverse_of_read_call() -> None:
    auction = Auction("N", ["1C", "X"])
    for call in (Call("XX"), Call("P"), Call("bid", 2, Strain.NT), Call("bid", 1, Strain.D)):
        keys = call_keys(auction, call)
        assert read_call(auction, keys) == call
    assert call_keys(auction, Call("bid", 2, Strain.H, alert=True)) == ("2", "3", ALERT)


def test_a_card_needs_only_its_rank_when_the_suit_must_be_followed() -> None:
    play = Play(Strain.S, Seat.N, parse_deal(DEAL))  # East leads
    assert read_card(play, ("2",)) is None  # suit 2 = diamonds, rank still to come
    assert read_card(play, ("2", "4")) == "D4"
    play.play("D4")
    assert read_card(play, ("1",)) is None  # 1 = a high rank, one key more
    assert read_card(play, ("1", "1")) == "DJ"  # South follows: 11 = jack
    assert read_card(play, ("0",)) == "DT"
    with pytest.raises(IllegalPlay) as refused:
        read_card(play, ("1", "4"))  # DA is North's, not South's
    assert refused.value.code == "not_in_hand"
    with pytest.raises(KeyRefusedError) as refused_key:
        read_card(play, ("1", "5"))
    assert refused_key.value.code == "card_high"


def test_a_forced_card_is_played_with_ok() -> None:
    play = Play(Strain.NT, Seat.W, parse_deal(DEAL))  # North leads
    with pytest.raises(KeyRefusedError):
        read_card(play, (OK,))  # North has a choice
    for card in ("S8", "S5", "S2", "S3"):  # North wins with the eight
        play.play(card)
    play.play("ST")
    assert card_keys(play, "SQ") == (OK,)  # East's last spade
    assert read_card(play, (OK,)) == "SQ"


def test_a_claim_is_star_tricks_ok() -> None:
    play = Play(Strain.NT, Seat.N)
    assert read_card(play, ("*", "1")) is None
    assert read_card(play, ("*", "1", "0", OK)) == Claim(10)
    with pytest.raises(KeyRefusedError):
        read_card(play, ("*", "1", "4"))


def _auction_keys(record: dict[str, str]) -> int:
    auction = parse_pbn_auction(record["Auction"], record["AuctionText"])
    replay = Auction(auction.dealer)
    count = 0
    for call in auction.calls:
        keys = call_keys(replay, call)
        assert read_call(replay, tuple(k for k in keys if k != ALERT)) == Call(
            call.kind, call.level, call.strain
        )
        count += len(keys)
        replay.add(call)
    return count


def _play_keys(record: dict[str, str]) -> tuple[int, int, int]:
    """(keys with this grammar, keys with suit and rank for every card, cards) of one play."""
    contract = Contract.parse(record["Contract"])
    assert contract.strain is not None
    hands = parse_deal(record["Deal"])
    played = parse_pbn_play(
        record["Play"], record["PlayText"], contract.strain, record["Declarer"], hands
    )
    replay = Play(contract.strain, record["Declarer"], hands)
    count = naive = cards = 0
    for trick in played.tricks:
        for _seat, card in trick.cards:
            keys = card_keys(replay, card)
            assert read_card(replay, keys) == card
            assert 1 <= len(keys) <= 3
            replay.play(card)
            count += len(keys)
            naive += 2 if card[1] in "23456789T" else 3
            cards += 1
    return count, naive, cards


def test_key_counts_on_the_real_auctions_and_plays() -> None:
    """Every real call and card keys back to itself, each in at most 3 keys, and the implied
    suit and forced card make every complete play shorter than suit-and-rank keying. The
    figures are in protocol/keys.md (`python -m tests.protocol.test_keys_play`)."""
    for record in AUCTIONS:
        calls = [t for t in record["AuctionText"].split() if not t.startswith("=")]
        assert _auction_keys(record) <= 3 * len(calls) + 3  # AP is up to three passes
    complete = [(keys, naive) for keys, naive, cards in map(_play_keys, PLAYS) if cards == 52]
    assert len(complete) == 64
    assert all(keys < naive for keys, naive in complete)


def key_counts() -> str:
    """The key counts of the real file, as protocol/keys.md reports them."""
    auctions = [_auction_keys(r) for r in AUCTIONS]
    six = [
        n
        for r, n in zip(AUCTIONS, auctions, strict=True)
        if len([t for t in r["AuctionText"].split() if not t.startswith("=")]) == 6
    ]
    plays = [_play_keys(r) for r in PLAYS]
    full = [(keys, naive) for keys, naive, cards in plays if cards == 52]
    cards = sum(c for _, _, c in plays)
    keys = sum(k for k, _, _ in plays)
    return "\n".join(
        [
            f"auctions: {len(auctions)}, keys per auction mean {statistics.mean(auctions):.1f}"
            f" (alerts included), max {max(auctions)}",
            f"6-call auctions: {len(six)}, keys min {min(six)} mean {statistics.mean(six):.1f}"
            f" max {max(six)}",
            f"complete 13-trick plays: {len(full)}, keys min {min(k for k, _ in full)} mean"
            f" {statistics.mean(k for k, _ in full):.1f} max {max(k for k, _ in full)}"
            f" (suit and rank for every card: mean {statistics.mean(n for _, n in full):.1f})",
            f"all {cards} cards played: {keys / cards:.2f} keys a card",
        ]
    )


if __name__ == "__main__":
    print(key_counts())
