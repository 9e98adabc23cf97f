"""The fake server's answers beyond § 262 entry, following the real server's rules: settings,
member look-up, players, the lead and double-dummy checks on entries, board reports under the
fair-play rule (protocol/fair_play.py), ranking, TD code."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from protocol import board_rules, fair_play
from protocol.bridge import BridgeError
from protocol.messages import (
    AGREED_STATES,
    BoardReport,
    BoardResultView,
    CheckEntry,
    EntryChecked,
    EntryValues,
    GetBoardReport,
    GetRanking,
    GetTableSettings,
    LookupMember,
    MarkNotPlayed,
    MemberFound,
    Message,
    RankingGroupView,
    RankingLineView,
    RankingReport,
    RoundInfo,
    ServerMessage,
    SetPlayers,
    TableSettings,
    TravellerLineView,
)
from terminal.hands import LEADER, SYMBOLS, holds
from terminal.rules import RuleRefusedError
from terminal.scoring import ScoredEntry, score_entry

from .event import FakeEvent

FakeQuery = GetTableSettings | LookupMember | CheckEntry | GetBoardReport | GetRanking


def query(server: FakeEvent, table: int, command: FakeQuery) -> ServerMessage:
    """Answer a question that changes nothing (RuleRefusedError when refused)."""
    return ANSWERS[type(command)](server, table, command)


def settings(server: FakeEvent) -> TableSettings:
    """The fake event's table settings."""
    return TableSettings(
        after_confirm=server.after_confirm,
        show_ranking=server.show_ranking,
        player_numbers=server.player_numbers,
        hand_records=bool(server.deals),
        auction_entry=server.auction_entry,
        play_entry=server.play_entry,
        deal_entry=server.deal_entry,
    )


# ---------------------------------------------------------------- players


def _players_allowed(server: FakeEvent, table: int) -> None:
    if server.player_numbers == "off":
        raise RuleRefusedError(
            "player_numbers_off", "This event does not take membership numbers at the table."
        )
    if server.player_numbers == "first_round" and server.table_round.get(table) != 1:
        raise RuleRefusedError(
            "player_numbers_round_one",
            "Membership numbers are keyed in round 1 only: ask the TD to change a name.",
        )


def lookup(server: FakeEvent, table: int, number: str) -> MemberFound:
    """The member's name, or RuleRefusedError unknown_member."""
    _players_allowed(server, table)
    name = server.members.get(number.strip())
    if name is None:
        raise RuleRefusedError(
            "unknown_member",
            f"No member has the number {number.strip()}. Key it again, or key a visitor's name.",
        )
    return MemberFound(number=number.strip(), name=name)


def set_players(server: FakeEvent, table: int, command: SetPlayers) -> RoundInfo:
    """Rename the pair at a seat; the round with the new names."""
    _players_allowed(server, table)
    seat = server.seating(table, server.table_round[table])
    number = seat.ns if command.seat == "NS" else seat.ew
    names = list(server.names_of(number))
    for index, player in enumerate(command.players):
        if player.member and player.member.strip():
            names[index] = lookup(server, table, player.member).name
        elif player.name and player.name.strip():
            names[index] = player.name.strip()
    server.names[number] = (names[0], names[1])
    return server.round_info(table)


# ---------------------------------------------------------------- hand records


def check_lead(
    server: FakeEvent, table: int, entry_id: str, board: int, values: EntryValues
) -> None:
    """The lead of an actual entry, as the real server checks it (protocol/fair_play.py): a
    lead not in the opening leader's hand is refused (RuleRefusedError ``lead_not_in_hand``) at most
    ``LEAD_REFUSALS`` times per table and board, then taken and flagged for the TD."""
    if not values.declarer or not values.lead:
        return
    lead = values.lead.upper().replace("10", "T")
    if holds(server.deals.get(board), LEADER[values.declarer], lead) is not False:
        return
    card = SYMBOLS.get(lead[0], lead[0]) + ("10" if lead[1] == "T" else lead[1])
    refused = server.lead_refusals.setdefault((table, server.table_round[table], board), set())
    if entry_id not in refused:  # a resend of a refused entry is refused again, not counted
        if not fair_play.lead_checked(len(refused)):
            server.td_calls.append((table, f"board {board}: the lead {card} is not in hand"))
            return
        refused.add(entry_id)
    raise RuleRefusedError(
        "lead_not_in_hand", fair_play.lead_refusal_text(board, values.declarer, card)
    )


def first_entry_warning(server: FakeEvent, board: int, values: EntryValues) -> str | None:
    """The double-dummy "are you sure?" of a board's first entry at a table (never the number)."""
    dd = server.dd.get(board)
    scored = _scored(board, values)
    if dd is None or scored.declarer is None:
        return None
    expected = dd[scored.declarer][scored.contract[1:].rstrip("X")]
    if not fair_play.tricks_far(expected, scored.tricks):
        return None
    return fair_play.warning_text(board, scored.declarer, scored.tricks)


def check_entry(server: FakeEvent, table: int, board: int, values: EntryValues) -> EntryChecked:
    """Whether the entry is well formed; like the real server, never a word about the cards."""
    server.board_status(table, board)
    _scored(board, values)
    return EntryChecked(board=board)


def _scored(board: int, values: EntryValues) -> ScoredEntry:
    try:
        return score_entry(board, values)
    except BridgeError as error:
        raise RuleRefusedError(error.code, error.message) from None


# ---------------------------------------------------------------- after confirmation


def _percent(mine: int, others: list[int]) -> float:
    """Matchpoint percentage of one N/S score against the others (50 when alone)."""
    if not others:
        return 50.0
    points = sum(2 if mine > o else 1 if mine == o else 0 for o in others)
    return round(100 * points / (2 * len(others)))


def _agreed(server: FakeEvent, board: int) -> list[BoardResultView]:
    found = [
        r for (_, _, b), r in server.results.items() if b == board and r.state in AGREED_STATES
    ]
    return sorted(found, key=lambda r: (r.round, r.table))


def _pairs(server: FakeEvent, table: int, round_no: int) -> set[int]:
    seat = server.seating(table, round_no)
    return {seat.ns, seat.ew}


def disclosure(server: FakeEvent, table: int, board: int) -> fair_play.Disclosure:
    """What the table may learn about ``board`` now (the fair-play rule on the fake's facts)."""
    return _disclosed(server, table, board)[0]


def _disclosed(
    server: FakeEvent, table: int, board: int
) -> tuple[fair_play.Disclosure, set[int], list[BoardResultView]]:
    """The disclosure, who sits at the table now, and the board's agreed results."""
    current = server.table_round.get(table, 0)
    seated = _pairs(server, table, current) if current else set()
    agreed = _agreed(server, board)
    played_by = {p for r in agreed for p in _pairs(server, r.table, r.round)}
    return fair_play.disclosure(board, seated, played_by, server.after_confirm), seated, agreed


def board_report(server: FakeEvent, table: int, board: int) -> BoardReport:
    """The score or traveller, and the deal, as the fair-play rule allows: only once both pairs
    at the table now have played the board, and only what the event shows."""
    shown, seated, agreed = _disclosed(server, table, board)
    current = server.table_round.get(table, 0)
    if not shown.played:
        raise RuleRefusedError(
            "board_not_played_here",
            f"Board {board} has not been played and confirmed at table {table}: "
            "nothing about it is shown here.",
        )
    report = BoardReport(board=board, show=server.after_confirm)
    if not shown.anything:
        return report
    if shown.deal:
        update = {"deal": server.deals.get(board), "dd_tricks": server.dd.get(board)}
        report = report.model_copy(update=update)
    here = [r for r in agreed if (r.table, r.round) == (table, current)]
    own = (here or [r for r in agreed if _pairs(server, r.table, r.round) & seated])[-1]
    scores = [r.ns_score or 0 for r in agreed]
    rows = []
    for index, result in enumerate(agreed):
        others = scores[:index] + scores[index + 1 :]
        ns = _percent(result.ns_score or 0, others)
        seat = server.seating(result.table, result.round)
        score = result.ns_score or 0
        rows.append(
            TravellerLineView(
                table=result.table,
                ns=str(seat.ns),
                ew=str(seat.ew),
                contract=result.contract,
                declarer=result.declarer,
                lead=result.lead,
                result=result.result,
                ns_score=str(score) if score > 0 else "",
                ew_score=str(-score) if score < 0 else "",
                ns_percent=ns,
                ew_percent=100 - ns,
                ours=(result.table, result.round) == (own.table, own.round),
            )
        )
    mine = next(row for row in rows if row.ours)
    return report.model_copy(
        update={
            "results": len(rows),
            "ns_percent": mine.ns_percent,
            "ew_percent": mine.ew_percent,
            "rows": rows if shown.traveller else [],
        }
    )


def ranking(server: FakeEvent, table: int) -> RankingReport:
    """Average percentages per pair, once this table's last round is done."""
    if not server.show_ranking:
        raise RuleRefusedError(
            "ranking_not_shown", "This event does not show the ranking at the tables."
        )
    info = server.round_info(table)
    if info.round < server.rounds or not info.complete:
        raise RuleRefusedError(
            "session_not_over", "The ranking is shown when your last round is finished."
        )
    scores: dict[int, list[float]] = {}
    boards = {b for (_, _, b), r in server.results.items() if r.state in AGREED_STATES}
    for board in boards:
        agreed = _agreed(server, board)
        for index, result in enumerate(agreed):
            values = [r.ns_score or 0 for i, r in enumerate(agreed) if i != index]
            ns = _percent(result.ns_score or 0, values)
            seat = server.seating(result.table, result.round)
            scores.setdefault(seat.ns, []).append(ns)
            scores.setdefault(seat.ew, []).append(100 - ns)
    ours = {info.ns.number if info.ns else 0, info.ew.number if info.ew else 0}
    groups = []
    for title, numbers in (
        ("North–South", range(1, server.tables + 1)),
        ("East–West", range(server.tables + 1, 2 * server.tables + 1)),
    ):
        average = {n: sum(scores.get(n, [0])) / max(1, len(scores.get(n, []))) for n in numbers}
        ordered = sorted(numbers, key=lambda n: -average[n])
        rows = [
            RankingLineView(
                place=str(place),
                pair=str(n),
                names=" – ".join(server.names_of(n)),
                total=f"{sum(scores.get(n, [])) / 50:.1f}",
                percent=round(average[n], 2),
                ours=n in ours,
            )
            for place, n in enumerate(ordered, start=1)
        ]
        groups.append(RankingGroupView(title=title, rows=rows))
    total = server.tables * server.boards_per_round
    return RankingReport(
        event="Club night",
        section="A",
        unit="MP",
        boards_shown=len(boards),
        boards_total=total,
        final=len(boards) >= total,
        groups=groups,
    )


# ---------------------------------------------------------------- "not played" with the TD code


def mark_not_played(server: FakeEvent, table: int, command: MarkNotPlayed) -> BoardResultView:
    """The TD's code marks a board of the round not played."""
    status = server.board_status(table, command.board)
    if command.td_code.strip() != server.td_code:
        raise RuleRefusedError(
            "td_code_wrong", "That is not the TD's code. Only the TD may do this."
        )
    version = status.result.version if status.result else 0
    result = BoardResultView(
        board=command.board,
        round=server.table_round[table],
        table=table,
        state=board_rules.td_not_played().state,
        version=version + 1,
    )
    server.results[(table, result.round, command.board)] = result
    return result


#: The questions that change nothing, by type: each one's answer.
ANSWERS: dict[type[Message], Callable[[FakeEvent, int, Any], ServerMessage]] = {
    GetTableSettings: lambda server, table, c: settings(server),
    LookupMember: lambda server, table, c: lookup(server, table, c.number),
    CheckEntry: lambda server, table, c: check_entry(server, table, c.board, c.values),
    GetBoardReport: lambda server, table, c: board_report(server, table, c.board),
    GetRanking: lambda server, table, c: ranking(server, table),
}
