"""Hand-record files from dealing machines: Duplimate `.dup`, BigDeal `.bri` and `.dge`, and
the newer Duplimate `.dlm`, read into the deals the PBN reader gives (board -> "N:..." PBN deal,
`handrecords.normalise_deal`), so a file from the machine puts its deals on the boards as a PBN
file does. Dealer and vulnerability are not in these files: they follow the board number (Law 2).

Layouts, learnt from public code and notes (nothing copied):

- **BRI** - 128 bytes a board, boards in order from board 1. Bytes 1-78 are the thirteen cards
  of North, then East, then South, each card two ASCII digits "01" (spade ace) to "52" (club
  two): spades A..2 are 01-13, hearts 14-26, diamonds 27-39, clubs 40-52. West holds the 13
  cards left over. The rest of the record is filler (BigDeal writes 32 spaces, 18 NUL bytes).
  Source: BigDeal `output.c` (`out_bri`, `print_bri`; github.com/hansvanstaveren/BigDeal,
  commit a980e7ff), and njhammond/hand_record_utility `DESIGN.md` (MIT).
- **DGE** - 128 bytes a board, from board 1. Bytes 1-68 are the four hands N, E, S, W, each as
  four suits S, H, D, C: the suit's DOS symbol byte (spade 0x06, heart 0x03, diamond 0x04,
  club 0x05) followed by its ranks "AKQJT98765432"; 17 bytes a hand. Then 60 bytes of filler.
  Source: BigDeal `output.c` (`out_handrep`, `dge_suitstr`, `print_dge`).
- **DUP** (Jannersten Duplimate) - 156 bytes a board: the 78-byte BRI part, the 68-byte DGE
  part (68 spaces when the deal is not to be shown on the machine's screen) and 10 bytes for
  the machine: byte 147 "random hands" Y/N, 148 "backwards counting" Y/N, 149-151 the lowest
  board of the set, 152-153 copies of each board, 154-156 the highest board, each field left
  aligned and space padded ("YN1  0 32 "). Boards are numbered from the lowest board.
  Source: njhammond/hand_record_utility `DESIGN.md` (citing duplimate.com/DuplimateClub/
  convert.pdf) and BigDeal `output.c` (`print_dup_common`).
- **DLM** (the newer Duplimate format; BigDeal's "dlm", for Jannersten's software) - text, INI
  style: a ``[Document]`` block with "From board=", "To board=", "Crypto key=" (0: not
  encrypted) and, per board, ``Board NN=`` 26 lower-case letters and a three-digit check. The
  52 cards are taken in pairs in the order spade ace .. club two; each letter is
  ``'a' + 4 * seat(first card) + seat(second card)`` with seats N=0, E=1, S=2, W=3; the check
  is the board number XOR every letter's code. The file always holds boards 1-99: the boards
  outside From..To are filler and are not read. Source: BigDeal `output.c` (`print_dlm`,
  `init_dlmcommon`, `fill_dlm`); the letter table agrees with rkcb1430/duplimate-to-html
  `readers.php` (MIT: a = N,N; b = N,E ...), and that project's real `1.dlm`, written by the
  Duplimate software ("[DOCUMENT]", "Dealing method", "Property NN" lines, read and ignored),
  passes all 99 checks. No published spec of Jannersten's Dealer4 was found: an encrypted file
  (Crypto key not 0) is refused.

Every board is checked (13 cards a hand, no card twice, the DUP's two copies agree, the DLM
check) and the whole file is read before any deal is given: a fault names the board and
nothing is half read. The format is told from the content (`sniff`); the file name's extension
only breaks a tie.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from .errors import EventFileError
from .handrecords import SEATS, normalise_deal

_RANKS = "AKQJT98765432"
_SUITS = "SHDC"
#: The DOS (code page 437) suit symbols of a DGE record, spades first.
DGE_SUIT_BYTES = (0x06, 0x03, 0x04, 0x05)

BRI_RECORD = 128
DGE_RECORD = 128
DUP_RECORD = 156
BRI_PART = 78
DGE_PART = 68
DLM_BOARDS = 99
MAX_BOARDS = 999

FORMATS = ("pbn", "dup", "bri", "dge", "dlm")
EXTENSIONS = {f".{name}": name for name in FORMATS}

#: A deal as the machine knows it: seat -> the card numbers 1 (spade ace) .. 52 (club two).
Held = Mapping[str, Sequence[int]]


def card_number(suit: str, rank: str) -> int:
    """The machine's number of a card: 1 for the spade ace, 52 for the club two."""
    return _SUITS.index(suit) * 13 + _RANKS.index(rank) + 1


def card_of(number: int) -> tuple[str, str]:
    """(suit, rank) of a card number 1..52."""
    return _SUITS[(number - 1) // 13], _RANKS[(number - 1) % 13]


def to_pbn(held: Held, board: int) -> str:
    """The deal in canonical PBN, after checking 13 different cards in each hand."""
    seen: dict[int, str] = {}
    for seat in SEATS:
        cards = held.get(seat, ())
        if len(cards) != 13:
            raise EventFileError(
                f"{_SEAT_NAMES[seat]} holds {len(cards)} cards, not 13", board=board
            )
        for card in cards:
            if not 1 <= card <= 52:
                raise EventFileError(f"{card:02d} is not a card number (01-52)", board=board)
            if card in seen:
                suit, rank = card_of(card)
                raise EventFileError(
                    f"{suit}{rank} is dealt twice ({_SEAT_NAMES[seen[card]]} and "
                    f"{_SEAT_NAMES[seat]})",
                    board=board,
                )
            seen[card] = seat
    hands = []
    for seat in SEATS:
        suits = ["", "", "", ""]
        for card in sorted(held[seat]):
            suit, rank = card_of(card)
            suits[_SUITS.index(suit)] += rank
        hands.append(".".join(suits))
    return normalise_deal("N:" + " ".join(hands))


_SEAT_NAMES = {"N": "North", "E": "East", "S": "South", "W": "West"}


# ---------------------------------------------------------------- the formats


def read_bri(data: bytes, *, first: int = 1) -> dict[int, str]:
    """The deals of a BRI file, board `first` onwards."""
    return {
        board: to_pbn(_bri_part(record, board), board)
        for board, record in _records(data, BRI_RECORD, "BRI", first)
    }


def read_dge(data: bytes, *, first: int = 1) -> dict[int, str]:
    """The deals of a DGE file, board `first` onwards."""
    return {
        board: to_pbn(_dge_part(record[:DGE_PART], board), board)
        for board, record in _records(data, DGE_RECORD, "DGE", first)
    }


def read_dup(data: bytes) -> dict[int, str]:
    """The deals of a Duplimate DUP file, numbered from the set's lowest board."""
    if len(data) < DUP_RECORD:
        raise EventFileError(f"a DUP file has {DUP_RECORD} bytes a board; this has {len(data)}")
    first = _dup_low_board(data[:DUP_RECORD])
    deals: dict[int, str] = {}
    for board, record in _records(data, DUP_RECORD, "DUP", first):
        deal = to_pbn(_bri_part(record, board), board)
        shown = record[BRI_PART : BRI_PART + DGE_PART]
        if shown.strip(b" \x00") and to_pbn(_dge_part(shown, board), board) != deal:
            raise EventFileError(
                "the two copies of the deal in the record (cards and screen) disagree",
                board=board,
            )
        deals[board] = deal
    return deals


_DLM_BOARD = re.compile(r"^Board\s+(\d+)\s*=\s*(\S*)\s*$", re.IGNORECASE)
_DLM_SETTING = re.compile(r"^([A-Za-z][A-Za-z0-9 ]*?)\s*=\s*(.*?)\s*$")


def read_dlm(text: str) -> dict[int, str]:
    """The deals of a DLM file, boards From..To of its [Document] block."""
    settings: dict[str, str] = {}
    codes: dict[int, tuple[int, str]] = {}
    for line_no, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("["):
            continue
        board_match = _DLM_BOARD.match(line)
        if board_match:
            number = int(board_match.group(1))
            if number in codes:
                raise EventFileError("the board is in the file twice", board=number, line=line_no)
            codes[number] = (line_no, board_match.group(2))
            continue
        setting = _DLM_SETTING.match(line)
        if setting is None:
            raise EventFileError(f"{line[:40]!r} is not a DLM line (name=value)", line=line_no)
        settings[setting.group(1).casefold()] = setting.group(2)
    low = _dlm_number(settings, "from board")
    high = _dlm_number(settings, "to board")
    if not 1 <= low <= high <= DLM_BOARDS:
        raise EventFileError(f"From board={low} and To board={high} are not a set of boards")
    if settings.get("crypto key", "0").strip() not in ("", "0"):
        raise EventFileError(
            "the DLM file is encrypted (Crypto key is not 0); export it unencrypted or as PBN"
        )
    deals: dict[int, str] = {}
    for board in range(low, high + 1):
        if board not in codes:
            raise EventFileError("the file has no line for the board", board=board)
        line_no, code = codes[board]
        deals[board] = _dlm_deal(code, board, line_no)
    return deals


# ---------------------------------------------------------------- sniffing and the one entry


def sniff(data: bytes, filename: str | None = None) -> str:
    """The format of a hand-record file ("pbn", "dup", "bri", "dge" or "dlm") from its content;
    the name's extension decides only when the content fits more than one (or none)."""
    body = data.lstrip(b"\xef\xbb\xbf").lstrip()
    fits: list[str] = []
    if body[:10].lower() == b"[document]":
        fits.append("dlm")
    if _digits(data[:BRI_PART]):
        if (
            len(data) % DUP_RECORD == 0
            and data[BRI_PART] in (DGE_SUIT_BYTES[0], 0x20)
            and all(b in b"YNyn" for b in data[146:148])
        ):
            fits.append("dup")  # a BRI record has digits where the DUP trailer has Y/N
        elif len(data) % BRI_RECORD == 0:
            fits.append("bri")
    if data[:1] == bytes([DGE_SUIT_BYTES[0]]):
        fits.append("dge")
    if not fits and (body[:1] in (b"[", b"%", b"{") or b"[Deal " in data[:20000]):
        fits.append("pbn")
    extension = _extension(filename)
    if extension in fits or (not fits and extension):
        return extension or fits[0]
    if fits:
        return fits[0]
    raise EventFileError(
        "this is not a hand-record file Traveller reads (PBN, Duplimate .dup or .dlm, "
        "BigDeal .bri or .dge)"
    )


def read_machine_file(data: bytes, kind: str) -> dict[int, str]:
    """The deals of a dealing-machine file of the given kind ("dup", "bri", "dge", "dlm")."""
    if kind == "dup":
        return read_dup(data)
    if kind == "bri":
        return read_bri(data)
    if kind == "dge":
        return read_dge(data)
    if kind == "dlm":
        return read_dlm(data.decode("cp1252", errors="replace"))
    raise ValueError(f"{kind!r} is not a dealing-machine format")


# ---------------------------------------------------------------- the parts


def _records(data: bytes, size: int, name: str, first: int) -> list[tuple[int, bytes]]:
    if not data:
        raise EventFileError(f"the {name} file is empty")
    whole, rest = divmod(len(data), size)
    if rest:
        raise EventFileError(
            f"a {name} file is {size} bytes a board; the last record is {rest} bytes long",
            board=first + whole,
        )
    if whole > MAX_BOARDS:
        raise EventFileError(f"the {name} file holds {whole} boards; at most {MAX_BOARDS}")
    return [(first + i, data[i * size : (i + 1) * size]) for i in range(whole)]


def _digits(part: bytes) -> bool:
    return len(part) == BRI_PART and part.isdigit()


def _bri_part(record: bytes, board: int) -> dict[str, list[int]]:
    part = record[:BRI_PART]
    if not _digits(part):
        raise EventFileError("the cards are not 78 digits (two a card)", board=board)
    numbers = [int(part[i : i + 2]) for i in range(0, BRI_PART, 2)]
    held = {seat: numbers[13 * k : 13 * (k + 1)] for k, seat in enumerate(SEATS[:3])}
    for seat, cards in held.items():
        bad = [c for c in cards if not 1 <= c <= 52]
        if bad:
            raise EventFileError(
                f"{bad[0]:02d} in {_SEAT_NAMES[seat]}'s hand is not a card number (01-52)",
                board=board,
            )
    dealt = [c for cards in held.values() for c in cards]
    twice = next((c for c in dealt if dealt.count(c) > 1), None)
    if twice is not None:
        suit, rank = card_of(twice)
        raise EventFileError(f"{suit}{rank} is dealt twice", board=board)
    held["W"] = [c for c in range(1, 53) if c not in set(dealt)]
    return held


def _dge_part(part: bytes, board: int) -> dict[str, list[int]]:
    if len(part) != DGE_PART:
        raise EventFileError(f"the hands are {len(part)} bytes, not {DGE_PART}", board=board)
    held: dict[str, list[int]] = {seat: [] for seat in SEATS}
    seat_index, suit_index = -1, -1
    for byte in part.rstrip(b" \x00"):  # a short hand leaves filler at the end
        if byte in DGE_SUIT_BYTES:
            new_suit = DGE_SUIT_BYTES.index(byte)
            if new_suit == 0:
                seat_index += 1
                if seat_index > 3:
                    raise EventFileError("the hands hold a fifth hand", board=board)
            elif new_suit != suit_index + 1:
                raise EventFileError("the suits are not in the order S, H, D, C", board=board)
            suit_index = new_suit
            continue
        rank = chr(byte).upper()
        if seat_index < 0 or rank not in _RANKS:
            raise EventFileError(f"byte {byte:#04x} is not a card rank or suit", board=board)
        held[SEATS[seat_index]].append(card_number(_SUITS[suit_index], rank))
    return held


def _dup_low_board(record: bytes) -> int:
    """The lowest board of a DUP set (bytes 149-151 of a record); 1 when not given."""
    field = record[148:151].strip(b" \x00")
    if not field:
        return 1
    if not field.isdigit() or not 1 <= int(field) <= MAX_BOARDS:
        raise EventFileError(f"the lowest board {field!r} of the DUP set is not a board number")
    return int(field)


def _dlm_number(settings: Mapping[str, str], key: str) -> int:
    text = settings.get(key, "").strip()
    if not text.isdigit():
        raise EventFileError(f"the DLM file has no {key.capitalize()}= line with a board number")
    return int(text)


def _dlm_deal(code: str, board: int, line: int) -> str:
    letters, check = code[:26], code[26:]
    if len(letters) != 26 or len(check) != 3 or not check.isdigit():
        raise EventFileError(
            f"a DLM board is 26 letters and a three-digit check, not {code[:40]!r}",
            board=board,
            line=line,
        )
    total = board
    held: dict[str, list[int]] = {seat: [] for seat in SEATS}
    for i, letter in enumerate(letters):
        value = ord(letter) - ord("a")
        if not 0 <= value <= 15:
            raise EventFileError(f"{letter!r} is not a DLM letter (a-p)", board=board, line=line)
        total ^= ord(letter)
        held[SEATS[value >> 2]].append(2 * i + 1)
        held[SEATS[value & 3]].append(2 * i + 2)
    if total != int(check):
        raise EventFileError(
            f"the check {check} does not match the cards (expected {total:03d})",
            board=board,
            line=line,
        )
    return to_pbn(held, board)


def _extension(filename: str | None) -> str:
    if not filename or "." not in filename:
        return ""
    return EXTENSIONS.get("." + filename.rsplit(".", 1)[1].lower(), "")
