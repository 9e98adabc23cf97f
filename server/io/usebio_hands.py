"""USEBIO 1.2 hand records: the <HANDSET> element (a BOARD per deal, a HAND per seat with its
four suits), read the same for pairs (``usebio``) and team (``usebio_teams``) files."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from . import handrecords
from .model import BoardRecord, EventFile, Refusal

HAND_SEATS = {"North": "N", "East": "E", "South": "S", "West": "W"}
SUIT_TAGS = ("SPADES", "HEARTS", "DIAMONDS", "CLUBS")
#: The suits in the order a HAND is written: as Compscore writes them (the one real USEBIO
#: writer of hand records whose files we could see; tests/server/io/test_usebio_structure.py).
WRITTEN_SUITS = ("CLUBS", "DIAMONDS", "HEARTS", "SPADES")


def child_text(element: ET.Element | None, name: str) -> str:
    """The stripped text of ``element``'s child ``name``, "" when either is missing."""
    if element is None:
        return ""
    child = element.find(name)
    return (child.text or "").strip() if child is not None else ""


def read_handset(handset: ET.Element | None, event: EventFile) -> None:
    """Hand records from <HANDSET>: a BOARD per deal, a HAND per seat with the four suits (a
    void written "-" is a void); a board that cannot be read is refused with its place."""
    if handset is None:
        return
    for index, board_el in enumerate(handset.findall("BOARD"), start=1):
        number_text = child_text(board_el, "BOARD_NUMBER")
        if not number_text.isdigit() or not 1 <= int(number_text) <= 9999:
            reason = f"{number_text!r} is not a board number"
            event.refused.append(Refusal(reason, element=f"HANDSET / BOARD {index}"))
            continue
        number = int(number_text)
        place = f"HANDSET / BOARD {number}"
        held: dict[str, str] = {}
        try:
            for hand in board_el.findall("HAND"):
                seat_text = child_text(hand, "DIRECTION")
                seat = HAND_SEATS.get(seat_text.capitalize()) or seat_text.upper()[:1]
                if seat not in "NESW" or not seat:
                    raise ValueError(f"{seat_text!r} is not a seat")
                suits = (child_text(hand, tag) for tag in SUIT_TAGS)
                held[seat] = ".".join("" if suit == "-" else suit for suit in suits)
            deal = "N:" + " ".join(held.get(seat, "-") for seat in "NESW")
            deal = handrecords.normalise_deal(deal)
        except ValueError as exc:
            event.refused.append(Refusal(f"the deal: {exc}", element=place, board=number))
            continue
        record = event.boards.get(number) or BoardRecord(number)
        record.deal = deal
        record.dealer = record.dealer or handrecords.law2_dealer(number)
        record.vulnerable = record.vulnerable or handrecords.law2_vulnerable(number)
        event.boards[number] = record
