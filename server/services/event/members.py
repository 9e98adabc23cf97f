"""The club's member list (CSV: number, name) and naming pairs from membership numbers."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field

from sqlmodel import Session, col, select

from protocol.text import MAX_NAME, refused
from server.core.errors import InvalidError
from server.core.models import DcPlayer, DcSession, Member, Pair, Section
from server.i18n.notice_words import Notice, said
from server.services.event import setup
from server.services.event.uploads import MAX_MEMBER_LIST

MAX_MEMBERS = 20000


@dataclass
class ImportReport:
    """What an import did, line by line where it could not."""

    added: int = 0
    updated: int = 0
    problems: list[Notice] = field(default_factory=list)


def member_list(file: bytes | None, pasted: str = "") -> str:
    """The member list to import: the file's text when one was sent, else the text pasted;
    refused when the file is too large or nothing was sent."""
    if file is not None:
        if len(file) > MAX_MEMBER_LIST:
            raise InvalidError("file_too_big", "The file is too large for a member list.")
        pasted = file.decode("utf-8-sig", errors="replace")
    if not pasted.strip():
        raise InvalidError("no_member_list", "Paste the member list or choose a CSV file.")
    return pasted


def import_members(session: Session, text: str) -> ImportReport:
    """Add or update members from CSV lines "number,name" (a header line is skipped)."""
    report = ImportReport()
    known = {m.number: m for m in session.exec(select(Member))}
    first = text.lstrip("\ufeff").split("\n", 1)[0]
    delimiter = next((d for d in (",", ";", "\t") if d in first), ",")
    try:
        rows = list(csv.reader(io.StringIO(text.lstrip("\ufeff")), delimiter=delimiter))
    except csv.Error:  # a quote never closed: one field past the csv module's limit
        raise InvalidError(
            "invalid_member_list", "The member list is not CSV: is a quote left open?"
        ) from None
    if len(rows) > MAX_MEMBERS:
        raise InvalidError(
            "too_many_members",
            "At most {MAX_MEMBERS} members in one import.",
            MAX_MEMBERS=MAX_MEMBERS,
        )
    for line, row in enumerate(rows, start=1):
        cells = [c.strip() for c in row]
        if not any(cells):
            continue
        if len(cells) < 2 or not cells[0] or not cells[1]:
            report.problems.append(said("notice", "line {line}: expected number,name", line=line))
            continue
        number, name = cells[0], " ".join(c for c in cells[1:] if c)
        if line == 1 and not any(ch.isdigit() for ch in number):
            continue  # a header line
        if len(number) > 32 or len(name) > MAX_NAME:
            report.problems.append(
                said("notice", "line {line}: number or name too long", line=line)
            )
            continue
        if refused(number) is not None or refused(name) is not None:
            report.problems.append(
                said("notice", "line {line}: a control or formatting character", line=line)
            )
            continue
        member = known.get(number)
        if member is None:
            member = Member(number=number, name=name)
            known[number] = member
            report.added += 1
        elif member.name != name:
            member.name = name
            report.updated += 1
        else:
            continue
        session.add(member)
    return report


def members(session: Session) -> list[Member]:
    return list(session.exec(select(Member).order_by(col(Member.number))))


def name_of(session: Session, number: str | None, section: Section | None = None) -> str | None:
    """The name for a membership (player) number: with ``section``, first the players the
    scoring program sent for its session (Data Connector PutPlayerData: "the player numbers
    must be known before players can make themselves known" at the table), then the club's
    member list."""
    if not number:
        return None
    number = number.strip()
    if section is not None:
        player = session.exec(
            select(DcPlayer)
            .join(DcSession, col(DcSession.id) == col(DcPlayer.dc_session_id))
            .where(
                DcSession.event_id == section.event_id,
                DcSession.session_number == section.session_number,
                DcPlayer.player_number == number,
            )
        ).first()
        if player is not None:
            return f"{player.first_name} {player.last_name}".strip()[:MAX_NAME]
    member = session.exec(select(Member).where(Member.number == number)).first()
    return member.name if member else None


def set_pair(
    session: Session,
    section: Section,
    pair: Pair,
    *,
    player1: str,
    player2: str,
    member1: str | None,
    member2: str | None,
) -> Pair:
    """Name a pair; a blank name with a known membership number takes the member's name
    (visitors simply get a name and no number)."""
    first = player1.strip() or name_of(session, member1, section) or ""
    second = player2.strip() or name_of(session, member2, section) or ""
    return setup.set_pair_names(
        session,
        section=section,
        number=pair.number,
        direction=pair.direction,
        names=setup.PairNames(
            first, second, (member1 or "").strip() or None, (member2 or "").strip() or None
        ),
    )
