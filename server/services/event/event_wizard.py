"""The set-up wizard's last step: an event, its sections, pair names and hand records, all
stored in one go or not at all.

Names are taken as typed (a visitor) or, when the text is a membership number or a member's
exact name, as that member. Markup and control characters are refused. A hand-record file
(PBN, or a dealing machine's Duplimate .dup/.dlm or BigDeal .bri/.dge: `server.io.
dealing_machines`, told from the content) puts each deal on the boards of that number in every
section.

A teams movement (a two-room match or a round robin, `movements.teams`) also stores the event's
teams (models.Team, named as typed) and links each team's two pairs to it; such an event is one
section, as team numbers are the event's.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from sqlmodel import Session, select

from server.core.errors import InvalidError
from server.core.models import Board, Member, Pair, Team
from server.io import dealing_machines
from server.io.errors import EventFileError
from server.io.handrecords import normalise_deal
from server.io.pbn import read_pbn
from server.movements import Movement
from server.scoring import methods
from server.services import audit
from server.services.event import members, setup
from server.services.event.uploads import text_of

#: Characters a name may not hold: markup (apostrophes stay: O'Brien).
MARKUP = frozenset("<>")
MAX_NAME = 100


@dataclass(frozen=True)
class WizardSettings:
    """The event's settings (models.Event), with the defaults of a club night."""

    scoring: str = methods.DEFAULT
    lead_required: bool = False
    tricks_style: str = "absolute"
    confirm_pin_required: bool = False
    after_confirm: str = "nothing"
    show_ranking: bool = False
    player_numbers: str = "off"
    language: str | None = None
    scoring_profile: str = "dbf"
    auction_entry: str = "off"  # North keys the auction: off | optional | required
    play_entry: str = "off"  # North may key the play: off | optional
    deal_entry: bool = False  # hand-dealt boards: the tables key and check the deal


@dataclass(frozen=True)
class SectionPlan:
    letter: str
    movement: Movement
    #: The typed players of each pair ("7NS" or "7"): a name or a membership number each.
    names: Mapping[str, tuple[str, str]] = field(default_factory=dict)
    #: Teams movements: the typed team names by team number.
    teams: Mapping[int, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Created:
    event_id: int
    section_ids: tuple[int, ...]
    deals: int


def clean_name(text: str, where: str) -> str:
    """A player's name as typed, trimmed; refused with markup or control characters."""
    name = " ".join(text.split())
    if len(name) > MAX_NAME:
        raise InvalidError(
            "bad_name",
            "{where}: a name has at most {MAX_NAME} characters.",
            where=where,
            MAX_NAME=MAX_NAME,
        )
    if any(c in MARKUP or unicodedata.category(c)[0] == "C" for c in text.strip()):
        raise InvalidError(
            "bad_name",
            "{where}: a name may not hold markup (< >) or control characters.",
            where=where,
        )
    return name


@dataclass(frozen=True)
class HandRecords:
    """The deals of a hand-record file, and what of it was refused (place and reason)."""

    deals: dict[int, str]
    refused: tuple[str, ...] = ()


def read_hand_records(data: bytes | str, filename: str | None = None) -> HandRecords:
    """The deals of a hand-record file by board number: PBN or a dealing machine's file
    (Duplimate .dup/.dlm, BigDeal .bri/.dge), the format told from the content. In a PBN file
    a board whose deal cannot be read is refused with its line and reason and the others are
    kept; a dealing machine's file is read whole or refused with the board."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    refused: tuple[str, ...] = ()
    try:
        kind = dealing_machines.sniff(raw, filename)
        if kind == "pbn":
            event = read_pbn(text_of(raw))
            deals = {n: normalise_deal(b.deal) for n, b in event.boards.items() if b.deal}
            refused = tuple(str(r) for r in event.refused)
        else:
            deals = dealing_machines.read_machine_file(raw, kind)
    except (EventFileError, ValueError) as exc:
        raise InvalidError("bad_hand_records", "The hand-record file: {exc}", exc=exc) from exc
    if not deals:
        raise InvalidError("bad_hand_records", "The hand-record file holds no deals.")
    return HandRecords(deals, refused)


def read_deals(data: bytes | str, filename: str | None = None) -> dict[int, str]:
    """The deals of a hand-record file by board number (what was refused left out)."""
    return read_hand_records(data, filename).deals


def create(
    session: Session,
    *,
    name: str,
    settings: WizardSettings,
    sections: Sequence[SectionPlan],
    deals: Mapping[int, str] | None = None,
) -> Created:
    """Store the event with its sections, names and deals (one transaction: a refusal
    anywhere stores nothing, as the caller's session is rolled back)."""
    title = " ".join(name.split())
    if not title:
        raise InvalidError("bad_name", "The event needs a name.")
    clean_name(title, "Event")
    if len(sections) > 1 and any(p.movement.kind == "teams" for p in sections):
        raise InvalidError(
            "teams_one_section", "A teams event is set up as one section: choose 1 section."
        )
    event = setup.create_event(session, name=title, **vars(settings))
    known = {m.number: m for m in session.exec(select(Member))}
    by_name = {m.name.casefold(): m for m in known.values()}
    created: list[int] = []
    stored = 0
    for plan in sections:
        section = setup.create_section(
            session, event=event, letter=plan.letter, movement=plan.movement
        )
        pairs = {f"{p.number}{p.direction or ''}": p for p in setup.pairs_of(session, section)}
        for ref, typed in plan.names.items():
            pair = pairs.get(ref)
            where = f"Section {section.letter}, pair {ref}"
            if pair is None:
                label = ref
                raise InvalidError(
                    "unknown_pair",
                    "Section {letter} has no pair {label}.",
                    letter=section.letter,
                    label=label,
                )
            players = [_player(clean_name(t, where), known, by_name) for t in typed]
            if not any(n for n, _ in players):
                continue
            members.set_pair(
                session,
                section,
                pair,
                player1=players[0][0],
                player2=players[1][0],
                member1=players[0][1],
                member2=players[1][1],
            )
        if plan.movement.kind == "teams":
            _put_teams(session, event.id or 0, pairs.values(), plan.teams)
        stored += put_deals(session, section.id or 0, deals or {})
        created.append(section.id or 0)
    return Created(event.id or 0, tuple(created), stored)


def _player(
    typed: str, known: Mapping[str, Member], by_name: Mapping[str, Member]
) -> tuple[str, str | None]:
    """A name and membership number: a member by number or exact name, else a visitor."""
    member = known.get(typed) or by_name.get(typed.casefold())
    return (member.name, member.number) if member else (typed, None)


def _put_teams(
    session: Session, event_id: int, pairs: Iterable[Pair], names: Mapping[int, str]
) -> None:
    """The event's teams (one per pair number of the movement), each pair linked to its team."""
    by_number: dict[int, Team] = {}
    for pair in sorted(pairs, key=lambda p: p.number):
        team = by_number.get(pair.number)
        if team is None:
            name = clean_name(names.get(pair.number, ""), f"Team {pair.number}")
            team = Team(event_id=event_id, number=pair.number, name=name)
            session.add(team)
            session.flush()
            by_number[pair.number] = team
        pair.team_id = team.id
        session.add(pair)


def put_deals(session: Session, section_id: int, deals: Mapping[int, str]) -> int:
    """The TD's hand records (board -> PBN deal) onto the section's boards, each audited as
    "deal_set" with the deal it replaces (the Data Connector's hand-record queue reads those);
    how many were stored (a board already holding the same deal is left as it is)."""
    stored = 0
    for board in session.exec(select(Board).where(Board.section_id == section_id)):
        deal = deals.get(board.number)
        if deal is None or deal == board.deal:
            continue
        old = None if board.deal is None else {"board": board.number, "deal": board.deal}
        board.deal = deal
        session.add(board)
        stored += 1
        audit.record(
            session,
            actor="td",
            action="deal_set",
            section_id=section_id,
            old=old,
            new={"board": board.number, "deal": deal},
        )
    return stored
