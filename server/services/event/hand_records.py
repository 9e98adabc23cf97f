"""Hand records loaded into a section that exists: a PBN file or a dealing machine's
(Duplimate .dup/.dlm, BigDeal .bri/.dge), read by ``event_wizard.read_hand_records`` as the
set-up wizard reads them, each deal put on the board of its number and audited ("deal_set",
with the deal it replaces).

Nothing is overwritten silently: a board already holding another deal is refused
(``deals_already_set``) unless the TD asks to replace, and then each replaced deal is in the
audit. In strict mode a file with a refused board stores nothing (``hand_records_refused``,
as in the wizard). Deals of boards the section does not play are named in the answer."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, select

from server.core.errors import ConflictError, InvalidError
from server.core.models import Board, Section
from server.services.event.event_wizard import HandRecords, put_deals


@dataclass(frozen=True)
class Loaded:
    """What loading a hand-record file did."""

    read: int
    stored: int
    refused: tuple[str, ...]
    not_in_section: tuple[int, ...]


def load(
    session: Session, section: Section, hands: HandRecords, *, strict: bool, replace: bool
) -> Loaded:
    """Put ``hands`` on the section's boards (one transaction: a refusal stores nothing)."""
    if strict and hands.refused:
        read, refused = len(hands.deals), len(hands.refused)
        places = "; ".join(hands.refused[:5]) + ("; ..." if refused > 5 else "")
        raise InvalidError(
            "hand_records_refused",
            "The hand-record file: {read} read, {refused} refused: {places}. Strict mode: "
            "nothing was created.",
            read=read,
            refused=refused,
            places=places,
        )
    boards = {
        b.number: b for b in session.exec(select(Board).where(Board.section_id == section.id))
    }
    clashing = sorted(
        n for n, deal in hands.deals.items() if n in boards and boards[n].deal not in (None, deal)
    )
    if clashing and not replace:
        listed = ", ".join(str(n) for n in clashing[:10]) + (", ..." if len(clashing) > 10 else "")
        raise ConflictError(
            "deals_already_set",
            "Boards {listed} already hold another deal: load with replace to overwrite them "
            "(each replaced deal is audited).",
            listed=listed,
        )
    stored = put_deals(session, section.id or 0, hands.deals)
    return Loaded(
        read=len(hands.deals),
        stored=stored,
        refused=hands.refused,
        not_in_section=tuple(sorted(n for n in hands.deals if n not in boards)),
    )
