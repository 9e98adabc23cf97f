"""The terminal's extras beyond § 262 entry: settings, board reports, ranking, players, TD code.

Each function takes the table's open :class:`TableCommands` (its session, table, section and
event, inside the command's transaction).
"""

from __future__ import annotations

import hmac
import threading
import time
from decimal import Decimal
from typing import TYPE_CHECKING, Literal, cast

from sqlmodel import select

from protocol.messages import (
    AfterConfirm,
    BoardReport,
    EntryChecked,
    MemberFound,
    RankingGroupView,
    RankingReport,
    RankingRow,
    ResultAck,
    RoundChanged,
    TableSettings,
    TravellerRow,
)
from server.errors import ConflictError, ForbiddenError, NotFoundError
from server.models import Pair, Result
from server.movements.model import parse_seats
from server.services import (
    event_settings,
    hands,
    individual_standings,
    members,
    setup,
    standings,
    td,
)
from server.services.views import missing_boards, result_view, results_at

if TYPE_CHECKING:
    from protocol.messages import CheckEntry, MarkNotPlayed, SetPlayers
    from server.services.table_commands import Outcome, TableCommands

#: States in which the table has played the board and agreed its result.
PLAYED = frozenset({"confirmed", "td_pending"})
#: Wrong TD codes a terminal may key in LOCKOUT_SECONDS before it must wait.
MAX_WRONG_CODES = 5
LOCKOUT_SECONDS = 600.0

_wrong_codes: dict[str, list[float]] = {}
_wrong_lock = threading.Lock()

SeatLetter = Literal["N", "E", "S", "W"]


def settings(cmds: TableCommands) -> TableSettings:
    """The event's table settings."""
    return event_settings.table_settings(cmds.s, cmds.event, cmds.section)


# ---------------------------------------------------------------- hand records


def check_lead(cmds: TableCommands, board: int, declarer: str | None, lead: str | None) -> None:
    """Refuse a lead that is not in the opening leader's hand (when the board has a deal)."""
    hands.check_lead(board, hands.deal_of(cmds.s, cmds.section.id or 0, board), declarer, lead)


def check_entry(cmds: TableCommands, cmd: CheckEntry) -> EntryChecked:
    """The lead check and the double-dummy "are you sure?" for an entry about to be sent."""
    from server.services.table_commands import check_values

    cmds._check_board(cmd.board)
    values = check_values(cmd.board, cmd.values, cmds.event.lead_required)
    deal = hands.deal_of(cmds.s, cmds.section.id or 0, cmd.board)
    hands.check_lead(cmd.board, deal, values.declarer, values.lead)
    _, warning = hands.dd_warning(cmd.board, deal, values.contract, values.declarer, values.tricks)
    return EntryChecked(board=cmd.board, warning=warning)


# ---------------------------------------------------------------- after confirmation


def played_here(cmds: TableCommands, board: int) -> Result:
    """This table's agreed result on the board, or a refusal (no traveller of an unplayed board)."""
    found = cmds.s.exec(
        select(Result).where(
            Result.section_id == cmds.section.id,
            Result.table_number == cmds.table.number,
            Result.board == board,
            Result.round <= cmds.table.round,
        )
    ).all()
    agreed = [r for r in found if r.state in PLAYED]
    if not agreed:
        raise ConflictError(
            "board_not_played_here",
            f"Board {board} has not been played and confirmed at table {cmds.table.number}: "
            "nothing about it is shown here.",
        )
    return agreed[-1]


def _float(value: Decimal | None) -> float | None:
    return None if value is None else float(value)


def _text(value: Decimal | None) -> str | None:
    return None if value is None else f"{value:f}"


def board_report(cmds: TableCommands, board: int) -> BoardReport:
    """The table's score or the traveller (as the event says), and the deal once played."""
    own = played_here(cmds, board)
    show = cast(AfterConfirm, cmds.event.after_confirm)
    deal = hands.deal_of(cmds.s, cmds.section.id or 0, board)
    report = BoardReport(board=board, show=show, deal=deal, dd_tricks=hands.dd_tricks(deal))
    if show == "nothing":
        return report
    travelled = standings.travel(standings.load(cmds.s, cmds.section), board, public=False)
    rows = [
        TravellerRow(
            table=line.table,
            ns=line.ns.label if line.ns else None,
            ew=line.ew.label if line.ew else None,
            contract=line.contract,
            declarer=cast(SeatLetter | None, line.declarer),
            lead=line.lead,
            result=line.result,
            ns_score=line.ns_score,
            ew_score=line.ew_score,
            ns_percent=_float(line.ns_percent),
            ew_percent=_float(line.ew_percent),
            ours=(line.table, line.round) == (own.table_number, own.round),
        )
        for line in travelled.lines
    ]
    ours = next(
        (
            line
            for line in travelled.lines
            if (line.table, line.round) == (own.table_number, own.round)
        ),
        None,
    )
    return report.model_copy(
        update={
            "unit": travelled.unit,
            "results": len(rows),
            "ns_percent": _float(ours.ns_percent) if ours else None,
            "ew_percent": _float(ours.ew_percent) if ours else None,
            "ns_value": _text(ours.ns_value) if ours else None,
            "ew_value": _text(ours.ew_value) if ours else None,
            "rows": rows if show == "traveller" else [],
        }
    )


# ---------------------------------------------------------------- session end


def ranking(cmds: TableCommands) -> RankingReport:
    """The ranking on the boards every table has finished, once this table's session is over."""
    if not cmds.event.show_ranking:
        raise ForbiddenError(
            "ranking_not_shown", "This event does not show the ranking at the tables."
        )
    table, section = cmds.table, cmds.section
    row = cmds._round_row()
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
                RankingRow(
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


def _players_ranking(
    cmds: TableCommands, report: RankingReport, seats: str | None
) -> RankingReport:
    """An individual's ranking at the table: one group of players, this table's four marked."""
    ranked = individual_standings.player_ranking(cmds.s, cmds.section, public=True)
    ours = set(parse_seats(seats)) - {None} if seats else set()
    rows = [
        RankingRow(
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


def _players_allowed(cmds: TableCommands) -> None:
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


def lookup_member(cmds: TableCommands, number: str) -> MemberFound:
    """The member's name for a membership number keyed at the table."""
    _players_allowed(cmds)
    name = members.name_of(cmds.s, number)
    if name is None:
        raise NotFoundError(
            "unknown_member",
            f"No member has the number {number.strip()}. Key it again, or key a visitor's name.",
        )
    return MemberFound(number=number.strip(), name=name)


def set_players(cmds: TableCommands, cmd: SetPlayers) -> Outcome:
    """Name the pair sitting N/S or E/W from membership numbers or visitors' names (audited)."""
    from server.services.table_commands import Outcome, Push

    _players_allowed(cmds)
    row = cmds._round_row()
    pair_id = row.ns_pair_id if cmd.seat == "NS" else row.ew_pair_id
    pair = cmds.s.get(Pair, pair_id) if pair_id else None
    if pair is None:
        raise ConflictError("no_pair", f"Nobody sits {cmd.seat} at this table this round.")
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
    cmds._remember(cmd.entry_id, cmd, None)
    info = cmds.round_info()
    return Outcome(info, [Push(cmds.section.id or 0, cmds.table.number, RoundChanged(round=info))])


# ---------------------------------------------------------------- "not played" with the TD code


def _check_code(cmds: TableCommands, code: str) -> None:
    key = cmds.ident.token.token_hash
    now = time.monotonic()
    with _wrong_lock:
        recent = [t for t in _wrong_codes.get(key, []) if now - t < LOCKOUT_SECONDS]
        _wrong_codes[key] = recent
        if len(recent) >= MAX_WRONG_CODES:
            raise ForbiddenError(
                "td_code_locked",
                "Too many wrong codes: the TD must mark the board from the TD's screen.",
            )
        expected = cmds.section.td_code
        if expected and hmac.compare_digest(code.strip().encode(), expected.encode()):
            _wrong_codes.pop(key, None)
            return
        recent.append(now)
    raise ForbiddenError("td_code_wrong", "That is not the TD's code. Only the TD may do this.")


def mark_not_played(cmds: TableCommands, cmd: MarkNotPlayed) -> Outcome:
    """The TD keyed the section's code at the table: the board is not played here (audited)."""
    from server.services.table_commands import Outcome

    cmds._check_board(cmd.board)
    _check_code(cmds, cmd.td_code)
    result = td.board_result(cmds.s, cmds.section, cmds.table.number, cmds.table.round, cmd.board)
    reason = cmd.reason.strip() or "marked at the table with the TD code"
    pushes = td.mark_not_played(cmds.s, result=result, reason=reason, actor=f"TD at {cmds.label}")
    cmds._remember(cmd.entry_id, cmd, result)
    return Outcome(ResultAck(entry_id=cmd.entry_id, result=result_view(result)), pushes)
