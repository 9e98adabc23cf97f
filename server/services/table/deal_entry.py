"""Hand-record entry at the table: a hand-dealt board's deal keyed and checked.

The first table to play a board without a hand record keys its four hands (EnterDeal: 13 cards
each, 52 in all, protocol.bridge.deal.check_deal). A later table checks one hand (CheckDeal,
protocol.bridge.deal.confirm_hand), or keys the whole deal again. Agreeing, the deal is
confirmed and becomes the board's hand record (its double dummy solved as for an uploaded one);
differing, it is a conflict for the TD, and nothing stored is overwritten.

Fair play (protocol/fair_play.py): the keyed deal is never sent to a table. Before everyone
seated has played the board and confirmed its result, a check is answered "agrees" or "differs"
and nothing more; the cards that differ go to the TD's Deals page. Once played, a table is told
which cards of the hand it checked the keyed deal puts elsewhere. A table has DEAL_CHECKS checks
of a board in a round, each audited; its second differing check calls the TD as a possible probe.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, cast

from sqlmodel import Session, col, select

from protocol import fair_play as rule
from protocol.bridge.deal import (
    Hand,
    InvalidDeal,
    check_deal,
    confirm_hand,
    format_deal,
    format_hand,
    parse_deal,
    parse_hand,
)
from protocol.bridge.enums import Seat
from protocol.bridge.errors import BridgeError
from protocol.messages import CheckDeal, DealAck, EnterDeal
from server.core.errors import ConflictError, InvalidError, NotFoundError
from server.core.models import Board, KeyedDeal, TDCall, utcnow
from server.services import audit, hands
from server.services.keyed_deals import checks_of, keyed_deal, keyed_here
from server.services.outcomes import Outcome, refused_with_writes
from server.services.table import fair_play

if TYPE_CHECKING:
    from server.services.table.table_context import TableContext

DealState = Literal["keyed", "confirmed", "conflict"]

#: How the TD settles a conflict: keep the deal first keyed, take a checking table's whole
#: deal, or key the deal.
RESOLUTIONS = ("keyed", "check", "deal")


def conflict_call_reason(board: int) -> str:
    """The reason of the TD call a conflicting deal raises (the TD's resolution closes it)."""
    return f"board {board}: the deal keyed at two tables differs: check the hand record"


def probe_call_reason(board: int, table: int) -> str:
    """The reason of the TD call a table's second differing check of a board raises."""
    return (
        f"board {board}: table {table} checked the deal twice and both differ: "
        "a possible probe of the cards before play"
    )


#: The audit action of a check refused after the table's checks of the board ran out.
DEAL_CHECK_REFUSED = "deal_check_refused"
#: The audit action of a table's second differing check of a board (a possible probe).
DEAL_PROBE = "deal_probe_flagged"


# ---------------------------------------------------------------- the table's commands


def handle(cmds: TableContext, command: EnterDeal | CheckDeal) -> Outcome:
    """EnterDeal or CheckDeal from a table, idempotent by its entry id; answered by DealAck, or
    refused (committed and audited) once the table has had its checks of the board."""
    seen = cmds.seen(command.entry_id, command)
    if seen is not None:
        return Outcome(_replayed(cmds, command))
    if not cmds.event.deal_entry:
        raise ConflictError("deal_entry_off", "This event does not take deals keyed at the table.")
    cmds.check_board(command.board)
    board = _board(cmds, command.board)
    if board.deal is not None:
        raise ConflictError(
            "deal_known",
            "Board {board} has a hand record already: nothing to key.",
            board=command.board,
        )
    if isinstance(command, EnterDeal):
        outcome = _enter(cmds, board, command)
    else:
        outcome = _check(cmds, board, command)
    if outcome.refusal is None:
        cmds.remember(command.entry_id, command, None)
    return outcome


def _board(cmds: TableContext, board: int) -> Board:
    row = cmds.s.exec(
        select(Board).where(Board.section_id == cmds.section.id, Board.number == board)
    ).first()
    if row is None:
        raise NotFoundError(
            "unknown_board", "Board {board} is not played in this session.", board=board
        )
    return row


def _replayed(cmds: TableContext, command: EnterDeal | CheckDeal) -> DealAck:
    """The answer a resent command had (its check as recorded), or the deal's state now."""
    row = keyed_deal(cmds.s, cmds.section.id or 0, command.board)
    if row is None:
        return DealAck(board=command.board, state="keyed")
    for check in checks_of(row):
        if check.get("entry_id") == command.entry_id and check.get("table") == cmds.table.number:
            return DealAck(
                board=command.board,
                state=cast(DealState, check.get("answer", row.state)),
                differences=list(check.get("shown", [])),
            )
    return DealAck(board=command.board, state=cast(DealState, row.state))


def read_hand(board: int, text: str, seat: Seat) -> Hand:
    """One keyed hand (S.H.D.C), refused in words that name the seat and what is wrong."""
    letter = seat.value
    try:
        return parse_hand(text, seat)
    except InvalidDeal as exc:
        if exc.code == "card_twice":
            raise InvalidError(
                "card_twice",
                "Board {board}, {letter}: a card is keyed twice in the hand.",
                board=board,
                letter=letter,
            ) from exc
        raise InvalidError(
            "invalid_hand",
            "Board {board}, {letter}: {text} is not a hand: key four suits, "
            "spades.hearts.diamonds.clubs (ranks AKQJT98765432).",
            board=board,
            letter=letter,
            text=text,
        ) from exc


def read_deal(board: int, text: str) -> dict[Seat, Hand]:
    """A keyed deal: four hands of 13 cards, 52 in all, each card once (check_deal), refused
    with the seat, the card or the count that is wrong."""
    raw = text.strip()
    start = Seat.N
    if len(raw) > 1 and raw[1] == ":":
        try:
            start = Seat.parse(raw[0])
        except BridgeError as exc:
            raise _unreadable(board) from exc
        raw = raw[2:]
    parts = raw.split()
    if len(parts) != 4:
        raise _unreadable(board)
    deal: dict[Seat, Hand] = {}
    held: dict[str, Seat] = {}
    seat = start
    for part in parts:
        hand = read_hand(board, part, seat)
        for card in sorted(hand):
            if card in held:
                first, second = held[card].value, seat.value
                raise InvalidError(
                    "card_twice",
                    "Board {board}: {card} is in two hands, {first} and {second}.",
                    board=board,
                    card=card,
                    first=first,
                    second=second,
                )
            held[card] = seat
        deal[seat] = hand
        seat = seat.lho
    for seat in (Seat.N, Seat.E, Seat.S, Seat.W):
        if len(deal[seat]) != 13:
            raise hand_size_refusal(board, seat.value, len(deal[seat]))
    check_deal(deal)  # the protocol's rule agrees (52 distinct cards in four hands of 13)
    return deal


def hand_size_refusal(board: int, letter: str, count: int) -> InvalidError:
    """A hand of 12 or 14 cards (or any but 13)."""
    return InvalidError(
        "hand_size",
        "Board {board}: {letter} has {count} cards; a hand has 13.",
        board=board,
        letter=letter,
        count=count,
    )


def _unreadable(board: int) -> InvalidError:
    return InvalidError(
        "invalid_deal",
        "Board {board}: the deal cannot be read. Key four hands, each as "
        "spades.hearts.diamonds.clubs.",
        board=board,
    )


def _enter(cmds: TableContext, board: Board, cmd: EnterDeal) -> Outcome:
    text = format_deal(read_deal(cmd.board, cmd.deal))
    section_id = cmds.section.id or 0
    row = keyed_deal(cmds.s, section_id, cmd.board)
    if row is None:
        row = KeyedDeal(
            section_id=section_id,
            board=cmd.board,
            deal=text,
            table_number=cmds.table.number,
            round=cmds.table.round,
            entry_id=cmd.entry_id,
        )
        cmds.s.add(row)
        cmds.s.flush()
        _audit(cmds, "deal_keyed", row, {"deal": text})
        return Outcome(DealAck(board=cmd.board, state="keyed"))
    refused = _checks_used(cmds, row, cmd.entry_id)
    if refused is not None:
        return refused
    check = {"kind": "deal", "deal": text, "agrees": text == row.deal, "differences": []}
    return Outcome(_checked(cmds, board, row, cmd.entry_id, check))


def _check(cmds: TableContext, board: Board, cmd: CheckDeal) -> Outcome:
    seat = Seat.parse(cmd.seat)
    hand = read_hand(cmd.board, cmd.hand, seat)
    if len(hand) != 13:
        raise hand_size_refusal(cmd.board, seat.value, len(hand))
    row = keyed_deal(cmds.s, cmds.section.id or 0, cmd.board)
    if row is None:
        raise ConflictError(
            "deal_not_keyed",
            "Board {board} has no deal keyed yet: key its four hands.",
            board=cmd.board,
        )
    refused = _checks_used(cmds, row, cmd.entry_id)
    if refused is not None:
        return refused
    differences = confirm_hand(parse_deal(row.deal), seat, hand)
    check = {
        "kind": "hand",
        "seat": seat.value,
        "hand": format_hand(hand),
        "agrees": not differences,
        "differences": differences,  # all of them, for the TD
    }
    return Outcome(_checked(cmds, board, row, cmd.entry_id, check))


def _checks_here(cmds: TableContext, row: KeyedDeal) -> list[dict[str, Any]]:
    """The checks of this keyed deal made by the table in its round, oldest first."""
    here = (cmds.table.number, cmds.table.round)
    return [c for c in checks_of(row) if (c.get("table"), c.get("round")) == here]


def _checks_used(cmds: TableContext, row: KeyedDeal, entry_id: str) -> Outcome | None:
    """Refused before anything is compared: the table keyed this deal itself, or it has had its
    checks of the board in this round (protocol.fair_play.DEAL_CHECKS). A refusal for the cap
    is audited and committed, as a refused lead is, and tells nothing of the cards."""
    if keyed_here(row, cmds.table.number, cmds.table.round):
        raise ConflictError(
            "deal_keyed_here",
            "Board {board}: this table has keyed its deal already; a table that plays it "
            "later checks it.",
            board=row.board,
        )
    if rule.deal_checked(len(_checks_here(cmds, row))):
        return None
    _audit(cmds, DEAL_CHECK_REFUSED, row, {"entry_id": entry_id})
    board, checks = row.board, rule.DEAL_CHECKS
    error = ConflictError(
        "deal_checks_used",
        "Board {board}: this table has checked the deal {checks} times; the TD settles it.",
        board=board,
        checks=checks,
    )
    return refused_with_writes(error, entry_id, cmds.event.language)


def _checked(
    cmds: TableContext, board: Board, row: KeyedDeal, entry_id: str, check: dict[str, Any]
) -> DealAck:
    """A later table's check recorded: agreeing, the deal is confirmed (unless the TD already
    has a conflict to settle); differing, a conflict and a TD call, and the table's second
    differing check of the board a call of its own (a possible probe). Audited. The table is
    told the cards that differ only once everyone seated has played the board."""
    differing_before = sum(1 for c in _checks_here(cmds, row) if not c.get("agrees"))
    played = fair_play.disclosure(cmds, row.board).played
    check["shown"] = rule.deal_differences_shown(played, check["differences"])
    old_state = row.state
    if row.state == "keyed":
        row.state = "confirmed" if check["agrees"] else "conflict"
    answer = cast(
        DealState, row.state if check["agrees"] or row.state == "conflict" else "conflict"
    )
    check.update(
        table=cmds.table.number,
        round=cmds.table.round,
        entry_id=entry_id,
        at=utcnow().isoformat(),
        answer=answer,
    )
    row.checks = json.dumps([*checks_of(row), check])
    row.updated_at = utcnow()
    cmds.s.add(row)
    _audit(cmds, "deal_checked", row, {"check": check, "state": row.state}, {"state": old_state})
    if row.state == "confirmed" and old_state != "confirmed":
        set_board_deal(cmds.s, board, row.deal, actor=cmds.label)
    if not check["agrees"]:
        _call_td(cmds, conflict_call_reason(row.board))
    if rule.deal_probe(differing_before, not check["agrees"]):
        _audit(cmds, DEAL_PROBE, row, {"entry_id": entry_id, "differing": differing_before + 1})
        _call_td(cmds, probe_call_reason(row.board, cmds.table.number))
    return DealAck(board=row.board, state=answer, differences=list(check["shown"]))


def _audit(
    cmds: TableContext,
    action: str,
    row: KeyedDeal,
    new: dict[str, Any],
    old: dict[str, Any] | None = None,
) -> None:
    audit.record(
        cmds.s,
        actor=cmds.label,
        action=action,
        section_id=cmds.section.id,
        old=old,
        new={"board": row.board, "table": cmds.table.number, "round": cmds.table.round, **new},
    )


def _call_td(cmds: TableContext, reason: str) -> None:
    """A TD call from the table, unless the same call is still open."""
    already = cmds.s.exec(
        select(TDCall.id).where(
            TDCall.section_id == cmds.section.id,
            TDCall.reason == reason,
            TDCall.acknowledged_at == None,  # noqa: E711
        )
    ).first()
    if already is None:
        cmds.call_td(reason)


def set_board_deal(session: Session, board: Board, deal: str, *, actor: str) -> None:
    """The board's hand record set from a keyed deal (audited as an uploaded one is), its
    double dummy solved in the background as for an uploaded hand record."""
    board.deal = deal
    session.add(board)
    audit.record(
        session,
        actor=actor,
        action="deal_set",
        section_id=board.section_id,
        new={"board": board.number, "deal": deal, "from": "keyed at the table"},
    )
    hands.warm([deal])


# ---------------------------------------------------------------- the TD


@dataclass(frozen=True)
class DealConflict:
    """A keyed deal as the TD sees it: who keyed it, the checks, and what the TD may take."""

    board: int
    state: str
    deal: str
    table: int
    round: int
    checks: list[dict[str, Any]]

    @property
    def deals_to_take(self) -> list[dict[str, Any]]:
        """The checks that keyed a whole deal that differs (the TD may take one of them)."""
        return [c for c in self.checks if c.get("kind") == "deal" and not c.get("agrees")]


def keyed_deals(session: Session, section_id: int) -> list[DealConflict]:
    """Every keyed deal of the section, conflicts first, then by board."""
    rows = session.exec(
        select(KeyedDeal).where(KeyedDeal.section_id == section_id).order_by(col(KeyedDeal.board))
    ).all()
    out = [
        DealConflict(row.board, row.state, row.deal, row.table_number, row.round, checks_of(row))
        for row in rows
    ]
    return sorted(out, key=lambda d: (d.state != "conflict", d.board))


def resolve(
    session: Session,
    section_id: int,
    board: int,
    *,
    choice: str,
    reason: str,
    entry_id: str = "",
    deal: str = "",
    actor: str = "td",
) -> str:
    """The TD settles a keyed deal's conflict: keep the deal first keyed (``keyed``), take a
    checking table's whole deal (``check`` with its ``entry_id``), or key it (``deal``). The
    board's hand record is set, the conflict's TD calls closed, all audited. The deal set."""
    if not reason.strip():
        raise InvalidError(
            "reason_required", "Give a reason for the change; it goes into the audit trail."
        )
    row = keyed_deal(session, section_id, board)
    if row is None or row.state != "conflict":
        raise ConflictError(
            "no_deal_conflict", "Board {board} has no conflicting deal to settle.", board=board
        )
    if choice == "keyed":
        chosen = row.deal
    elif choice == "check":
        found = [c for c in checks_of(row) if c.get("entry_id") == entry_id and c.get("deal")]
        if not found:
            raise InvalidError(
                "no_such_check",
                "Board {board}: no table keyed a whole deal with that entry.",
                board=board,
            )
        chosen = str(found[0]["deal"])
    elif choice == "deal":
        chosen = format_deal(read_deal(board, deal))
    else:
        raise InvalidError("bad_choice", "Choose the deal keyed, a table's deal, or key one.")
    found_board = session.exec(
        select(Board).where(Board.section_id == section_id, Board.number == board)
    ).first()
    if found_board is None:
        raise NotFoundError(
            "unknown_board", "Board {board} is not played in this session.", board=board
        )
    old = {"state": row.state, "deal": row.deal}
    row.deal = chosen
    row.state = "confirmed"
    row.updated_at = utcnow()
    session.add(row)
    audit.record(
        session,
        actor=actor,
        action="deal_resolved",
        section_id=section_id,
        old=old,
        new={"board": board, "state": row.state, "deal": chosen, "choice": choice},
        reason=reason,
    )
    set_board_deal(session, found_board, chosen, actor=actor)
    calls = session.exec(
        select(TDCall).where(
            TDCall.section_id == section_id,
            TDCall.reason == conflict_call_reason(board),
            TDCall.acknowledged_at == None,  # noqa: E711
        )
    ).all()
    for call in calls:
        call.acknowledged_at = utcnow()
        session.add(call)
    return chosen
