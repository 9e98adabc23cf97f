"""PBN [Auction] and [Play] (issue 20): read from the real RealBridge file, written per table
result by ``write_pbn``, read back the same, and a broken one refused with its place."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from protocol.bridge.deal import parse_deal
from protocol.bridge.play import Play
from server.io.formats import load
from server.io.model import BoardRecord, EventFile, Line, PairKey, TeamLine
from server.io.pbn import read_pbn, write_pbn
from server.io.pbn_syntax import Game, split_games
from tests.support.io import pairs_event

REALBRIDGE = "endplay-realbridge/example2_realbridge_2021_online_qual_open_R2.pbn"
"""MIT licence, from dominicprice/endplay (tests/data/README.md)."""


def _games(data_dir: Path) -> list[Game]:
    return split_games((data_dir / REALBRIDGE).read_text(encoding="utf-8"))


def _file_calls(game: Game) -> list[str]:
    """The file's calls in our spelling, read token by token: "Pass" is "P", a note reference
    "=n=" marks the call before it alerted ("!")."""
    calls: list[str] = []
    for _, text in game.rows.get("Auction", []):
        for token in text.split():
            if token.startswith("=") and token.endswith("="):
                calls[-1] += "!"
            else:
                calls.append("P" if token == "Pass" else token.upper())
    return calls


def _file_cards(game: Game) -> Counter[str]:
    """Every card the file's [Play] gives, up to the "*" that ends it."""
    cards: Counter[str] = Counter()
    for _, text in game.rows.get("Play", []):
        if text.strip() == "*":
            break
        cards.update(token for token in text.split() if token not in ("-", "*"))
    return cards


@pytest.fixture(scope="module")
def realbridge() -> tuple[list[Game], list[TeamLine]]:
    data = Path(__file__).resolve().parents[2] / "data"
    event = load(data / REALBRIDGE)
    assert event.teams is not None
    assert event.refused == []
    return _games(data), event.teams.lines


def test_the_real_files_auctions_are_read_call_for_call(
    realbridge: tuple[list[Game], list[TeamLine]],
) -> None:
    games, lines = realbridge
    assert len(games) == len(lines) == 299
    with_auction = 0
    for game, line in zip(games, lines, strict=True):
        assert int(game.tags["Board"]) == line.board
        if "Auction" not in game.tags:
            assert line.auction is None
            continue
        with_auction += 1
        assert line.auction is not None
        assert line.auction.split() == _file_calls(game), game.lines["Auction"]
    assert with_auction == 279


def test_the_real_files_plays_are_read_card_for_card(
    realbridge: tuple[list[Game], list[TeamLine]],
) -> None:
    games, lines = realbridge
    with_play = claimed = 0
    for game, line in zip(games, lines, strict=True):
        if "Play" not in game.tags:
            assert line.play is None
            continue
        with_play += 1
        assert line.play is not None
        tokens = line.play.split()
        claim = [t for t in tokens if t.startswith("=")]
        cards = Counter(t for t in tokens if not t.startswith("="))
        file_cards = _file_cards(game)
        # Every card we keep is the file's; the file's cards we drop are those of a trick it
        # gives after the play stopped (the leader's column "-": "-  -  H3 -").
        assert cards <= file_cards, game.lines["Play"]
        assert sum(file_cards.values()) - sum(cards.values()) < 4
        if sum(cards.values()) == 52:
            assert claim == []
        else:
            claimed += 1
            assert claim == [f"={int(game.tags['Result'])}"]
        assert int(game.tags["Result"]) == line.tricks
    assert with_play == 278
    assert claimed > 0


def test_export_and_import_give_the_same_auctions_and_plays(
    realbridge: tuple[list[Game], list[TeamLine]],
) -> None:
    games, lines = realbridge
    event = pairs_event(lines, games)
    text = write_pbn(event)
    again = read_pbn(text)
    assert again.refused == []
    assert len(again.lines) == len(event.lines) == 299  # the table games add no line
    before = {
        (ln.board, ln.table): (ln.auction, ln.play, ln.contract, ln.tricks) for ln in event.lines
    }
    after = {
        (ln.board, ln.table): (ln.auction, ln.play, ln.contract, ln.tricks) for ln in again.lines
    }
    assert after == before
    assert sum(1 for ln in again.lines if ln.auction) == 279
    assert sum(1 for ln in again.lines if ln.play) == 278


def test_an_alert_is_written_as_a_note() -> None:
    event = EventFile(name="Alerts")
    event.lines.append(
        Line(
            1,
            PairKey(None, 1),
            PairKey(None, 2),
            "3NT",
            "N",  # the first of N/S to name no trumps (Law 22B)
            9,
            table=1,
            round=1,
            auction="P P 1C! P 1NT! P 3NT P P P",
        )
    )
    text = write_pbn(event)
    assert '[Auction "N"]\nPass Pass 1C =1= Pass\n1NT =2= Pass 3NT Pass\nPass Pass\n' in text
    assert '[Note "1:Alert"]\n[Note "2:Alert"]' in text
    again = read_pbn(text)
    assert again.refused == []
    (line,) = again.lines
    assert line.auction == "P P 1C! P 1NT! P 3NT P P P"


def test_a_claim_is_written_as_a_stop_and_read_back_from_the_result() -> None:
    deal = "N:KT8.A96.A95.7542 Q5.KJ52.KQ874.T8 AJ92.874.JT6.AQ3 7643.QT3.32.KJ96"
    event = EventFile(name="Claim")
    event.boards[11] = BoardRecord(11, "S", "None", deal)
    play = "D4 DJ D3 D5 S2 S3 SK S5 =8"
    event.lines.append(
        Line(11, PairKey(None, 1), PairKey(None, 2), "1NT", "N", 8, table=3, round=2, play=play)
    )
    text = write_pbn(event)
    assert '[Play "E"]\nD4 DJ D3 D5\nS5 S2 S3 SK\n*\n' in text  # E, S, W, N columns
    (line,) = read_pbn(text).lines
    assert line.play == play
    assert line.tricks == 8


# --- refused with its place -------------------------------------------------------------------

DEAL = "N:AKQJ.AKQ.AKQ.AKQ T987.JT9.JT9.JT9 6543.876.876.876 2.5432.5432.5432"
HEAD = f"""[Event "Broken"]
[Board "1"]
[Dealer "N"]
[Vulnerable "None"]
[Deal "{DEAL}"]
[North "Ann"]
[South "Bob"]
[East "Cid"]
[West "Dee"]
"""


def _refused_one(body: str) -> tuple[Line, str, int | None]:
    event = read_pbn(HEAD + body)
    (line,) = event.lines
    (refusal,) = event.refused
    return line, refusal.reason, refusal.line


@pytest.mark.parametrize(
    ("auction", "says"),
    [
        ("1S 1H Pass Pass Pass", "insufficient"),
        ("1NT Pass X", "X: 1NT was bid by your own side"),
        ("1NT Pass Pass", "does not end"),
        ("1NT Pass Pass Pass", "the auction ends in 1NT by N, the result says 3NT by N"),
        ("1NT Pass 3NT Pass Pass Pass Pass", "the auction has ended"),
    ],
)
def test_a_broken_auction_is_refused_with_its_line_and_the_result_kept(
    auction: str, says: str
) -> None:
    body = f'[Declarer "N"]\n[Contract "3NT"]\n[Result "9"]\n[Auction "N"]\n{auction}\n'
    line, reason, where = _refused_one(body)
    assert says in reason
    assert where == 13  # the [Auction] tag's line
    assert (line.contract, line.declarer, line.tricks, line.auction) == ("3NT", "N", 9, None)


def test_a_revoke_in_the_play_is_refused_when_the_deal_is_known() -> None:
    # West leads H2; North holds the AKQ of hearts, so North's SA is a revoke (Law 61).
    body = '[Declarer "S"]\n[Contract "1NT"]\n[Result "7"]\n[Play "W"]\nH2 SA H6 HT\n*\n'
    line, reason, where = _refused_one(body)
    assert "SA: North must follow suit" in reason
    assert where == 13
    assert line.play is None
    assert (line.contract, line.tricks) == ("1NT", 7)


def _greedy_play(deal: str, strain: str, declarer: str) -> tuple[list[str], int]:
    """Thirteen legal tricks (each player follows with its first card of the suit led, else its
    first card), as [Play] lines in the opening leader's columns, and declarer's tricks."""
    play = Play(strain, declarer, parse_deal(deal))
    while not play.ended:
        held = sorted(play.held(play.to_play) or ())
        led = play.tricks[-1].suit_led
        play.play(next((c for c in held if c[0] == led), held[0]))
    first = play.declarer.lho
    columns = (first, first.lho, first.partner, first.rho)
    rows = [" ".join(dict(trick.cards)[seat] for seat in columns) for trick in play.tricks]
    return rows, play.declarer_tricks()


def test_a_play_that_disagrees_with_the_result_is_refused() -> None:
    rows, won = _greedy_play(DEAL, "NT", "N")
    body = f'[Declarer "N"]\n[Contract "6NT"]\n[Result "{won - 1}"]\n[Play "E"]\n'
    line, reason, where = _refused_one(body + "\n".join(rows) + "\n")
    assert reason == f"the play gives declarer {won} tricks, the result {won - 1}"
    assert where == 13
    assert line.play is None


def test_a_whole_play_that_agrees_is_read() -> None:
    rows, won = _greedy_play(DEAL, "NT", "N")
    body = f'[Declarer "N"]\n[Contract "6NT"]\n[Result "{won}"]\n[Play "E"]\n'
    event = read_pbn(HEAD + body + "\n".join(rows) + "\n")
    assert event.refused == []
    (line,) = event.lines
    assert line.play is not None
    assert len(line.play.split()) == 52


def test_a_table_game_that_matches_no_line_is_refused() -> None:
    event = EventFile(name="Orphan")
    event.lines.append(
        Line(
            1,
            PairKey(None, 1),
            PairKey(None, 2),
            "3NT",
            "N",
            9,
            table=1,
            round=1,
            auction="1NT P 3NT P P P",
        )
    )
    text = write_pbn(event).replace('[Table "1"]', '[Table "7"]')
    again = read_pbn(text)
    assert len(again.lines) == 1
    assert again.lines[0].auction is None
    (refusal,) = again.refused
    assert "table 7, round 1" in refusal.reason
    assert "matches no [ScoreTable] line" in refusal.reason
    assert refusal.line is not None


def test_a_table_game_without_a_round_is_matched_by_its_table() -> None:
    event = EventFile(name="No round")
    event.lines.append(Line(1, PairKey(None, 1), PairKey(None, 2), "3NT", "N", 9, table=2, round=1))
    event.lines[0].auction = "1NT P 3NT P P P"
    text = write_pbn(event).replace('[Round "1"]\n[Declarer', "[Declarer")
    assert text.count("[Round ") == 0
    again = read_pbn(text)
    assert again.refused == []
    (line,) = again.lines
    assert line.auction == "1NT P 3NT P P P"


def test_a_table_game_repeating_another_contract_is_refused() -> None:
    event = EventFile(name="Other contract")
    event.lines.append(
        Line(
            1,
            PairKey(None, 1),
            PairKey(None, 2),
            "3NT",
            "N",
            9,
            table=1,
            round=1,
            auction="1NT P 3NT P P P",
        )
    )
    text = write_pbn(event).replace('[Result "9"]', '[Result "10"]')
    again = read_pbn(text)
    (line,) = again.lines
    assert (line.tricks, line.auction) == (9, None)
    (refusal,) = again.refused
    assert "says 3NT N 10, its [ScoreTable] line 3NT N 9" in refusal.reason
