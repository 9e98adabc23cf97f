"""The terminal's extras beyond § 262 entry: settings, board reports, ranking, players, TD code.

Each function takes the table's open :class:`TableContext` (its session, table, section and
event, inside the command's transaction).
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Literal, cast

from sqlmodel import select

from protocol import fair_play as rule
from protocol.messages import (
    AGREED_STATES,
    BoardReport,
    EntryChecked,
    MemberFound,
    RankingGroupView,
    RankingLineView,
    RankingReport,
    ResultAck,
    RoundChanged,
    TableSettings,
    TravellerLineView,
)
from server.core.errors import ConflictError, ForbiddenError, NotFoundError
from server.core.models import Pair, Result
from server.limits import guesses
from server.movements.model import parse_seats
from server.services import hands
from server.services.entries import CheckedValues, checked_entry
from server.services.event import event_settings, members, setup
from server.services.outcomes import Outcome, Push, refused_with_writes
from server.services.results import individual_standings, standings
from server.services.table import fair_play
from server.services.table.table_context import TableContext
from server.services.td import actions as td
from server.services.views import missing_boards, result_view, results_at

if TYPE_CHECKING:
    from protocol.messages import CheckEntry, MarkNotPlayed, SetPlayers

SeatLetter = Literal["N", "E", "S", "W"]


def settings(cmds: TableContext) -> TableSettings:
    """The event's table settings."""
    return event_settings.table_settings(cmds.s, cmds.event, cmds.section)


# ---------------------------------------------------------------- hand records


@dataclass(frozen=True)
class LeadCheck:
    """The lead check of an actual entry: refused (the reply, committed so that the refusal
    stays audited and counted), or taken with the lead flagged for the TD."""

    refusal: Outcome | None = None
    flagged: bool = False


def check_lead(cmds: TableContext, entry_id: str, board: int, values: CheckedValues) -> LeadCheck:
    """Refuse a lead not in the opening leader's hand, at most ``LEAD_REFUSALS`` times per
    table and board, each refusal audited; after that the entry is taken and flagged (docs/rules.md
    § 11). Only an actual entry is checked: a query would tell a table the cards."""
    if values.lead is None or values.declarer is None or not fair_play.lead_checked(cmds):
        return LeadCheck()  # nothing to check against the hand (and no need to read the deal)
    deal = cmds.deal(board)
    if hands.lead_in_hand(board, deal, values.declarer, values.lead) is not False:
        return LeadCheck()
    refused = fair_play.lead_refusals(cmds, board)
    if entry_id not in refused:  # a resend of a refused entry is refused again, not counted
        if not rule.lead_checked(len(refused)):
            return LeadCheck(flagged=True)
        fair_play.record_lead(cmds, fair_play.LEAD_REFUSED, board, entry_id, _lead_of(values))
    error = hands.lead_refusal(board, values.declarer, values.lead)
    return LeadCheck(refusal=refused_with_writes(error, entry_id, cmds.event.language))


def _lead_of(values: CheckedValues) -> dict[str, object]:
    return {"lead": values.lead, "declarer": values.declarer, "contract": values.contract}


def flag_lead(cmds: TableContext, board: int, entry_id: str, values: CheckedValues) -> None:
    """A wrong lead taken as keyed once the refusals ran out: audited, and a call for the TD."""
    assert values.lead is not None
    assert values.declarer is not None
    fair_play.record_lead(cmds, fair_play.LEAD_FLAGGED, board, entry_id, _lead_of(values))
    leader = rule.SEAT_NAMES[rule.LEADER[values.declarer]]
    cmds.call_td(
        f"board {board}: the lead {hands.card_text(values.lead)} is not in "
        f"{leader}'s hand (taken after {rule.LEAD_REFUSALS} refusals): check the lead"
    )


def first_entry_warning(cmds: TableContext, board: int, values: CheckedValues) -> str | None:
    """The double-dummy "are you sure?" for a board's first entry at the table (the only one
    that gets it, so keying the tricks over and over reveals nothing)."""
    deals = warm_round(cmds)
    if values.declarer is None:
        return None
    deal = deals.get(board)
    return hands.dd_warning(board, deal, values.contract, values.declarer, values.tricks)


def warm_round(cmds: TableContext) -> dict[int, str | None]:
    """The deals of the table's round, their double dummy solved in the background (before
    their first entries, which never wait for the solver)."""
    row = cmds.assignment()
    boards = row.board_numbers() if row is not None else []
    if not boards:
        return {}
    deals = cmds.deals(boards)
    hands.warm(deals.values())
    return deals


def check_entry(cmds: TableContext, cmd: CheckEntry) -> EntryChecked:
    """Whether an entry about to be sent is well formed; it never reads the hand record."""
    cmds.check_board(cmd.board)
    checked_entry(
        cmds.s,
        cmds.event,
        cmds.section.id or 0,
        cmd.board,
        cmd.values,
        lead_required=cmds.event.lead_required,
        with_deal=False,  # a query never reads the hand record (the play is checked without it)
    )
    return EntryChecked(board=cmd.board)


# ---------------------------------------------------------------- after confirmation


def _own(cmds: TableContext, board: int, seated: set[int]) -> Result | None:
    """The result the table's report calls its own: this table's in its round, else the
    latest agreed one of a pair seated here now (who may have played it at another table)."""
    found = cmds.s.exec(
        select(Result).where(Result.section_id == cmds.section.id, Result.board == board)
    ).all()
    agreed = [r for r in found if r.state in AGREED_STATES]
    now = (cmds.table.number, cmds.table.round)
    here = [r for r in agreed if (r.table_number, r.round) == now]
    theirs = sorted(
        (r for r in agreed if {r.ns_pair_id, r.ew_pair_id} & seated), key=lambda r: r.round
    )
    mine = here or theirs
    return mine[-1] if mine else None


def _float(value: Decimal | None) -> float | None:
    return None if value is None else float(value)


def _text(value: Decimal | None) -> str | None:
    return None if value is None else f"{value:f}"


def board_report(cmds: TableContext, board: int) -> BoardReport:
    """The table's score or the traveller, and the deal, as the fair-play rule allows: only
    once everyone at the table now has played the board, and only what the event shows."""
    shown = fair_play.require_played(cmds, board)
    report = BoardReport(board=board, show=cmds.event.after_confirm)
    if not shown.anything:
        return report
    if shown.deal:
        deal = hands.deal_of(cmds.s, cmds.section.id or 0, board)
        report = report.model_copy(update={"deal": deal, "dd_tricks": hands.dd_tricks(deal)})
    row = cmds.round_row()
    own = _own(cmds, board, {p for p in (row.ns_pair_id, row.ew_pair_id) if p is not None})
    at = (own.table_number, own.round) if own else None
    travelled = standings.travel(standings.load(cmds.s, cmds.section), board, public=False)
    rows = [
        TravellerLineView(
            table=line.table,
            ns=line.ns.label if line.ns else None,
            ew=line.ew.label if line.ew else None,
            contract=line.contract,
            declarer=cast("SeatLetter | None", line.declarer),
            lead=line.lead,
            result=line.result,
            ns_score=line.ns_score,
            ew_score=line.ew_score,
            ns_percent=_float(line.ns_percent),
            ew_percent=_float(line.ew_percent),
            ours=(line.table, line.round) == at,
        )
        for line in travelled.lines
    ]
    ours = next((line for line in travelled.lines if (line.table, line.round) == at), None)
    return report.model_copy(
        update={
            "unit": travelled.unit,
            "results": len(rows),
            "ns_percent": _float(ours.ns_percent) if ours else None,
            "ew_percent": _float(ours.ew_percent) if ours else None,
            "ns_value": _text(ours.ns_value) if ours else None,
            "ew_value": _text(ours.ew_value) if ours else None,
            "rows": rows if shown.traveller else [],
        }
    )


# ---------------------------------------------------------------- session end


def ranking(cmds: TableContext) -> RankingReport:
    """The ranking on the boards every table has finished, once this table's session is over."""
    if not cmds.event.show_ranking:
        raise ForbiddenError(
            "ranking_not_shown", "This event does not show the ranking at the tables."
        )
    table, section = cmds.table, cmds.section
    row = cmds.round_row()
    done = not missing_boards(
        row.board_numbers(), results_at(cmds.s, section, table.number, table.round)
    )
    if table.round < section.rounds or not done:
        raise ConflictError(
            "session_not_over", "The ranking is shown when your last round is finished."
        )
    placed = standings.ranking(cmds.s, section, public=True)
    report = RankingReport(
        event=placed.event,
        section=placed.letter,
        unit=placed.unit,
        boards_shown=len(placed.boards_shown),
        boards_total=placed.boards_total,
        final=len(placed.boards_shown) >= placed.boards_total,
        groups=[],
    )
    if section.movement_kind == "individual":
        return _players_ranking(cmds, report, row.seats)
    ours = {row.ns_pair_id, row.ew_pair_id} - {None}
    groups = [
        RankingGroupView(
            title=group.title,
            rows=[
                RankingLineView(
                    place=line.place,
                    pair=line.pair.label,
                    names=line.pair.names,
                    total=f"{line.total:f}",
                    percent=_float(line.percent),
                    ours=line.pair.id in ours,
                )
                for line in group.lines
            ],
        )
        for group in placed.groups
    ]
    return report.model_copy(update={"groups": groups})


def _players_ranking(cmds: TableContext, report: RankingReport, seats: str | None) -> RankingReport:
    """An individual's ranking at the table: one group of players, this table's four marked."""
    ranked = individual_standings.player_ranking(cmds.s, cmds.section, public=True)
    ours = set(parse_seats(seats)) - {None} if seats else set()
    rows = [
        RankingLineView(
            place=line.place,
            pair=str(line.number),
            names=line.name,
            total=f"{line.total:f}",
            percent=_float(line.percent),
            ours=line.number in ours,
        )
        for line in ranked.lines
    ]
    group = RankingGroupView(title="All players", rows=rows)
    return report.model_copy(update={"groups": [group], "kind": "individual"})


# ---------------------------------------------------------------- player numbers


def _players_allowed(cmds: TableContext) -> None:
    mode = cmds.event.player_numbers
    if mode == "off":
        raise ForbiddenError(
            "player_numbers_off", "This event does not take membership numbers at the table."
        )
    if mode == "first_round" and cmds.table.round != 1:
        raise ConflictError(
            "player_numbers_round_one",
            "Membership numbers are keyed in round 1 only: ask the TD to change a name.",
        )


def lookup_member(cmds: TableContext, number: str) -> MemberFound:
    """The member's name for a membership number keyed at the table."""
    _players_allowed(cmds)
    name = members.name_of(cmds.s, number, cmds.section)
    if name is None:
        raise NotFoundError(
            "unknown_member",
            "No member has the number {value}. Key it again, or key a visitor's name.",
            value=number.strip(),
        )
    return MemberFound(number=number.strip(), name=name)


def set_players(cmds: TableContext, cmd: SetPlayers) -> Outcome:
    """Name the pair sitting N/S or E/W from membership numbers or visitors' names (audited)."""
    _players_allowed(cmds)
    row = cmds.round_row()
    pair_id = row.ns_pair_id if cmd.seat == "NS" else row.ew_pair_id
    pair = cmds.s.get(Pair, pair_id) if pair_id else None
    if pair is None:
        raise ConflictError(
            "no_pair", "Nobody sits {seat} at this table this round.", seat=cmd.seat
        )
    names = [pair.player1, pair.player2]
    numbers = [pair.member1, pair.member2]
    for index, player in enumerate(cmd.players):
        if player.member and player.member.strip():
            names[index] = lookup_member(cmds, player.member).name
            numbers[index] = player.member.strip()
        elif player.name and player.name.strip():
            names[index], numbers[index] = player.name.strip(), None
    setup.set_pair_names(
        cmds.s,
        section=cmds.section,
        number=pair.number,
        direction=pair.direction,
        names=setup.PairNames(names[0], names[1], numbers[0], numbers[1]),
        actor=f"{cmds.label} {cmd.seat[0]}/{cmd.seat[1]}",
    )
    cmds.remember(cmd.entry_id, cmd, None)
    info = cmds.round_info()
    return Outcome(info, [Push(cmds.section.id or 0, cmds.table.number, RoundChanged(round=info))])


# ---------------------------------------------------------------- "not played" with the TD code


def _check_code(cmds: TableContext, cmd: MarkNotPlayed) -> Outcome | None:
    """None when the TD's code is right; else the refusal, the wrong code counted on the
    token (committed with it: every worker and transport counts the same guesses)."""
    if cmds.guess_wait(guesses.TD_CODE):
        raise ForbiddenError(
            "td_code_locked",
            "Too many wrong codes: the TD must mark the board from the TD's screen.",
        )
    expected = cmds.section.td_code
    if expected and hmac.compare_digest(cmd.td_code.strip().encode(), expected.encode()):
        cmds.note_guess(guesses.TD_CODE, right=True)
        return None
    cmds.note_guess(guesses.TD_CODE, right=False)
    error = ForbiddenError("td_code_wrong", "That is not the TD's code. Only the TD may do this.")
    return refused_with_writes(error, cmd.entry_id, cmds.event.language)


def mark_not_played(cmds: TableContext, cmd: MarkNotPlayed) -> Outcome:
    """The TD keyed the section's code at the table: the board is not played here (audited)."""
    cmds.check_board(cmd.board)
    refused = _check_code(cmds, cmd)
    if refused is not None:
        return refused
    result = td.board_result(cmds.s, cmds.section, cmds.table.number, cmds.table.round, cmd.board)
    reason = cmd.reason.strip() or "marked at the table with the TD code"
    pushes = td.mark_not_played(cmds.s, result=result, reason=reason, actor=f"TD at {cmds.label}")
    cmds.remember(cmd.entry_id, cmd, result)
    return Outcome(ResultAck(entry_id=cmd.entry_id, result=result_view(result)), pushes)
