"""The dealing-machine readers (`server/io/dealing_machines.py`): files written here from the
documented layouts round-trip to the deals they were made from; files written by BigDeal itself
(an independent writer) read to the same deals as BigDeal's own PBN twin; bad input names the
board and gives nothing.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from server.io import dealing_machines as dm
from server.io.errors import EventFileError
from server.io.handrecords import SEATS, hands, normalise_deal
from server.io.pbn import read_pbn

BIGDEAL = Path(__file__).resolve().parents[2] / "data" / "dealing-machines"


def known_deals(count: int, seed: int = 15) -> dict[int, str]:
    """`count` shuffled deals (a fixed seed) in canonical PBN."""
    rng = random.Random(seed)
    out = {}
    for board in range(1, count + 1):
        deck = list(range(1, 53))
        rng.shuffle(deck)
        held = {seat: deck[13 * i : 13 * (i + 1)] for i, seat in enumerate(SEATS)}
        out[board] = dm.to_pbn(held, board)
    return out


def numbers(deal: str) -> dict[str, list[int]]:
    """Seat -> card numbers 1..52 of a PBN deal (the machine's numbering)."""
    return {
        seat: sorted(
            dm.card_number(suit, rank)
            for suit, cards in zip("SHDC", suits, strict=True)
            for rank in cards
        )
        for seat, suits in hands(deal).items()
    }


# -- writers from the documented layouts (the module docstring), for the round trip -----------


def bri_part(deal: str) -> bytes:
    held = numbers(deal)
    return "".join(f"{c:02d}" for seat in "NES" for c in held[seat]).encode()


def dge_part(deal: str) -> bytes:
    out = bytearray()
    for seat in SEATS:
        for symbol, cards in zip(dm.DGE_SUIT_BYTES, hands(deal)[seat], strict=True):
            out.append(symbol)
            out += cards.encode()
    return bytes(out)


def write_bri(deals: dict[int, str]) -> bytes:
    return b"".join(bri_part(d) + b" " * 32 + b"\0" * 18 for _, d in sorted(deals.items()))


def write_dge(deals: dict[int, str]) -> bytes:
    return b"".join(dge_part(d) + b"\0" * 60 for _, d in sorted(deals.items()))


def write_dup(deals: dict[int, str], *, low: int = 1, shown: bool = True) -> bytes:
    high = low + len(deals) - 1
    trailer = f"YN{low:<3}1 {high:<3}".encode()
    assert len(trailer) == 10
    return b"".join(
        bri_part(d) + (dge_part(d) if shown else b" " * 68) + trailer
        for _, d in sorted(deals.items())
    )


def dlm_line(board: int, deal: str) -> str:
    seat_of = {c: SEATS.index(seat) for seat, cards in numbers(deal).items() for c in cards}
    letters = "".join(chr(97 + 4 * seat_of[2 * i + 1] + seat_of[2 * i + 2]) for i in range(26))
    check = board
    for letter in letters:
        check ^= ord(letter)
    return f"Board {board:02d}={letters}{check:03d}"


def write_dlm(deals: dict[int, str], *, crypto: int = 0) -> bytes:
    low, high = min(deals), max(deals)
    lines = [
        "[Document]",
        "Headline=written by the test",
        "Status=Show",
        "Duplicates=0",
        f"From board={low}",
        f"To board={high}",
        "Next board to duplimate=0",
        "PrintOuts=0",
        f"Crypto key={crypto}",
        "Checksum=0",
    ]
    filler = known_deals(1, seed=99)[1]
    for board in range(1, 100):
        lines.append(f"Duplicates {board:02d}=0")
        lines.append(dlm_line(board, deals.get(board, filler)))
    return ("\r\n".join(lines) + "\r\n").encode()


WRITERS = {"bri": write_bri, "dge": write_dge, "dup": write_dup, "dlm": write_dlm}


# -- round trip ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(WRITERS))
def test_a_written_file_reads_back_to_the_deals_it_was_made_from(kind: str) -> None:
    deals = known_deals(32)
    data = WRITERS[kind](deals)
    assert dm.sniff(data) == kind  # from the content, no file name
    assert dm.read_machine_file(data, kind) == deals


def test_a_dup_set_is_numbered_from_its_lowest_board_and_may_hide_the_screen_copy() -> None:
    deals = known_deals(8)
    shifted = {board + 16: deal for board, deal in deals.items()}
    data = write_dup(deals, low=17, shown=False)
    assert dm.sniff(data) == "dup"
    assert dm.read_dup(data) == shifted


def test_a_dlm_reads_only_from_board_to_to_board() -> None:
    deals = {n: d for n, d in known_deals(12).items() if n >= 5}
    assert dm.read_dlm(write_dlm(deals).decode()) == deals


def test_32_board_dup_and_39_board_bri_of_the_same_size_are_told_apart() -> None:
    # 32 x 156 == 39 x 128 bytes: the DUP trailer (Y/N at bytes 147-148) tells them apart.
    dup = write_dup(known_deals(32), shown=False)
    bri = write_bri(known_deals(39))
    assert len(dup) == len(bri)
    assert (dm.sniff(dup), dm.sniff(bri)) == ("dup", "bri")
    assert dm.sniff(dup, "hands.bri") == "dup"  # the content wins over a wrong extension


# -- files written by BigDeal (an independent writer) -----------------------------------------


@pytest.mark.parametrize("kind", ["dup", "bri", "dge", "dlm"])
def test_bigdeal_files_read_to_the_deals_of_their_pbn_twin(kind: str) -> None:
    twin = read_pbn((BIGDEAL / "bigdeal_8.pbn").read_text(encoding="utf-8")).boards
    expected = {n: normalise_deal(b.deal) for n, b in twin.items() if b.deal}
    assert sorted(expected) == list(range(1, 9))
    data = (BIGDEAL / f"bigdeal_8.{kind}").read_bytes()
    assert dm.sniff(data) == kind
    assert dm.read_machine_file(data, kind) == expected


def test_a_pbn_file_is_sniffed_as_pbn() -> None:
    assert dm.sniff((BIGDEAL / "bigdeal_8.pbn").read_bytes()) == "pbn"


# -- bad input --------------------------------------------------------------------------------


def test_a_cut_short_file_names_the_board_it_cuts() -> None:
    data = write_bri(known_deals(5))[:-40]
    with pytest.raises(EventFileError, match=r"board 5: a BRI file is 128 bytes a board"):
        dm.read_bri(data)


def test_a_card_dealt_twice_names_the_board_and_the_card() -> None:
    deals = known_deals(4)
    data = bytearray(write_bri(deals))
    record = 2 * 128  # board 3: East's first card becomes North's first card
    data[record + 26 : record + 28] = data[record : record + 2]
    with pytest.raises(
        EventFileError, match=r"board 3: S[AKQJT2-9] is dealt twice|board 3: .* twice"
    ):
        dm.read_bri(bytes(data))


def test_a_dge_hand_of_twelve_cards_names_the_board() -> None:
    data = bytearray(write_dge(known_deals(3)))
    record = 128 + 17  # board 2, East's hand: drop one card, keep the record's size
    hand = bytes(data[record : record + 17])
    last_rank = max(i for i, b in enumerate(hand) if b not in dm.DGE_SUIT_BYTES)
    cut = hand[:last_rank] + hand[last_rank + 1 :]
    data[128 : 128 + 68] = (
        bytes(data[128:record]) + cut + bytes(data[record + 17 : 128 + 68]) + b"\0"
    )
    with pytest.raises(EventFileError, match=r"board 2: East holds 12 cards, not 13"):
        dm.read_dge(bytes(data))


def test_a_dup_whose_two_copies_disagree_is_refused() -> None:
    deals = known_deals(3)
    data = bytearray(write_dup(deals))
    other = dge_part(known_deals(3, seed=7)[2])
    data[156 + 78 : 156 + 146] = other
    with pytest.raises(EventFileError, match=r"board 2: the two copies .* disagree"):
        dm.read_dup(bytes(data))


def test_a_dlm_with_a_wrong_check_or_encrypted_is_refused() -> None:
    text = write_dlm(known_deals(4)).decode()
    line = dlm_line(3, known_deals(4)[3])
    broken = text.replace(line, line[:-3] + f"{(int(line[-3:]) + 1) % 1000:03d}")
    with pytest.raises(EventFileError, match=r"board 3: the check"):
        dm.read_dlm(broken)
    with pytest.raises(EventFileError, match="encrypted"):
        dm.read_dlm(write_dlm(known_deals(4), crypto=1234).decode())


def test_something_else_is_not_taken_for_a_hand_record_file() -> None:
    with pytest.raises(EventFileError, match="not a hand-record file"):
        dm.sniff(b"\x89PNG\r\n\x1a\n" + b"\0" * 100)


# -- a real Duplimate file ---------------------------------------------------------------------


def test_a_real_duplimate_dlm_file_reads_its_24_boards_and_every_check_holds() -> None:
    """`1.dlm` of rkcb1430/duplimate-to-html (MIT; see tests/data/README.md), written by the
    Duplimate software itself ([DOCUMENT], "Dealing method", "Property NN" lines BigDeal does not
    write). It has no PBN twin: the 99 board checks (the check formula against a file we did
    not write) and 13 different cards in every hand are what can be checked."""
    data = (BIGDEAL / "duplimate-to-html_1.dlm").read_bytes()
    assert dm.sniff(data, "1.dlm") == "dlm"
    assert dm.sniff(data) == "dlm"
    deals = dm.read_dlm(data.decode("ascii"))
    assert sorted(deals) == list(range(1, 25))  # From board=1, To board=24
    for deal in deals.values():
        assert sorted(c for cards in numbers(deal).values() for c in cards) == list(range(1, 53))
    # Every board line of the file, the 75 beyond To board too, passes its check.
    text = data.decode("ascii").replace("To board=24", "To board=99")
    assert len(dm.read_dlm(text)) == 99
