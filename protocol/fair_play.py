"""What a table may learn about a board, and when (docs/rules.md § 11, Law 16).

Information about a board from any source but the legal auction and play at the table is
unauthorised (Law 16). So a table learns about a board (its deal, the double dummy, other
tables' results, the traveller) only once **everyone sitting at the table now** (each pair; in
an individual, each player) has played the board and its result is confirmed, wherever they
played it. The table number and round say nothing about that: the next pair at a table number
may still have the board to play. The event's "after a board" setting narrows it further.

One pure rule, no I/O: the server (server/services/table/fair_play.py) and the terminal's fake
server load the facts their own way and ask :func:`disclosure`; the public pages ask
:func:`released` which boards every table playing them has finished. Also the lead check and the
double-dummy warning, which must not become an oracle for a board not yet played.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Literal

from protocol.messages import AGREED_STATES

#: States in which a board has been played at a table and its result agreed.
PLAYED_STATES = AGREED_STATES

#: Lead refusals a table gets on one board before its entry is taken anyway, the lead kept as
#: keyed and flagged for the TD: each refusal tells one card is not in a hand, so a cap keeps a
#: table from rebuilding the deal card by card (52 leads x 4 declarers).
LEAD_REFUSALS = 2

#: Checks of a hand-dealt board's keyed deal a table has on one board in one round (a hand
#: keyed, or the four hands keyed again). Each answers "agrees" or "differs": one bit about
#: the cards, so a cap keeps a table from pinning a hand by guesses before it plays the board.
DEAL_CHECKS = 2

#: Tricks this far from the double-dummy result get the "are you sure?" warning.
DD_WARNING_GAP = 4

#: The opening leader sits on declarer's left.
LEADER = {"N": "E", "E": "S", "S": "W", "W": "N"}
SEAT_NAMES = {"N": "North", "E": "East", "S": "South", "W": "West"}

AfterConfirm = Literal["nothing", "score", "traveller"]
Who = int  # a pair's id, or in an individual a player's number


@dataclass(frozen=True)
class Disclosure:
    """What a table may be told about one board now."""

    board: int
    played: bool  # everyone seated has played the board and its result is confirmed
    score: bool  # the table's own score on the board and how many results are in
    deal: bool  # the deal and its double-dummy table
    traveller: bool  # the other tables' results

    @property
    def anything(self) -> bool:
        return self.score or self.deal or self.traveller


def everyone_played(seated: Iterable[Who | None], played_by: Iterable[Who | None]) -> bool:
    """Whether everyone at the table now has played the board (and agreed its result).

    ``seated``: the pairs (or players) at the table now; ``played_by``: those with a confirmed
    result on the board, at any table, in any round. An empty table has played nothing."""
    now = {who for who in seated if who is not None}
    return bool(now) and now <= {who for who in played_by if who is not None}


def plays_here(ns: Who | None, ew: Who | None) -> bool:
    """Whether a table plays its boards this round: only with a pair (in an individual, a
    partnership) on each side. A table with no pair on one side plays nothing (a sit-out, the
    phantom's opponents, a bye stand, a pair that left), so nobody ever finishes a board there."""
    return ns is not None and ew is not None


Where = tuple[int, int]  # (table, round)


def released(
    plays: Mapping[int, Iterable[Where]], finished: Collection[tuple[int, int, int]]
) -> set[int]:
    """The boards the public may see before the results are published: those finished
    (``(board, table, round)`` in ``finished``) at every table and round that plays them.

    ``plays`` holds, per board, only the tables that play it (:func:`plays_here`): a sit-out
    row is never finished, so counting it would hold the board back all session."""
    return {
        board
        for board, where in plays.items()
        if all((board, table, round_) in finished for table, round_ in where)
    }


def disclosure(
    board: int,
    seated: Iterable[Who | None],
    played_by: Iterable[Who | None],
    after_confirm: str,
) -> Disclosure:
    """What the table may learn about ``board``: nothing before everyone seated has played it;
    after that, what the event's setting shows (nothing; the score and the deal; or those and
    the traveller)."""
    played = everyone_played(seated, played_by)
    shows = after_confirm if played else "nothing"
    return Disclosure(
        board=board,
        played=played,
        score=shows in ("score", "traveller"),
        deal=shows in ("score", "traveller"),
        traveller=shows == "traveller",
    )


def lead_checked(refusals_so_far: int) -> bool:
    """Whether a wrong lead in an actual entry is refused (True) or, the table having had its
    :data:`LEAD_REFUSALS` refusals on the board, taken as keyed and flagged for the TD."""
    return refusals_so_far < LEAD_REFUSALS


def deal_checked(checks_so_far: int) -> bool:
    """Whether a table's check of a keyed deal is compared with it (True) or, the table having
    had its :data:`DEAL_CHECKS` checks of the board in this round, refused unanswered."""
    return checks_so_far < DEAL_CHECKS


def deal_probe(differing_so_far: int, differs: bool) -> bool:
    """Whether a differing check is flagged to the TD as a possible probe of the cards: the
    second differing check of a board from one table (a keying slip happens once)."""
    return differs and differing_so_far >= 1


def deal_differences_shown(played: bool, differences: Iterable[str]) -> list[str]:
    """What a table that checked a hand is told of its differences from the keyed deal.

    Before everyone seated has played the board and confirmed its result: nothing (the answer
    is only "agrees" or "differs"), since "SK extra" tells a table that the stored deal puts
    the king elsewhere, and a few guessed hands pin another hand's cards. Once played: the
    cards of the hand it keyed that the stored deal puts elsewhere ("HK extra"), never a card
    the stored deal puts in that hand instead (another hand's card, keyed at another table)."""
    if not played:
        return []
    return [d for d in differences if d.endswith(" extra")]


def tricks_far(expected: int, tricks: int) -> bool:
    """Whether the tricks are far enough from double dummy for the "are you sure?" warning.

    Asked once per table and board, on its first entry only: the warning never says the number,
    and it is given at most once, so keying tricks over and over reveals nothing."""
    return abs(expected - tricks) >= DD_WARNING_GAP


def warning_text(board: int, declarer: str, tricks: int) -> str:
    """The "are you sure?" question, without the double-dummy number (a player could key a
    result before playing the board to learn it)."""
    return (
        f"Board {board}: {tricks} tricks for {SEAT_NAMES[declarer]} is far from what the cards "
        "allow (double dummy). Check the declarer and the tricks."
    )


def lead_refusal_text(board: int, declarer: str, card: str) -> str:
    """The refusal of a lead (shown as ``card``, e.g. "♥10") not in the opening leader's hand."""
    leader = SEAT_NAMES[LEADER[declarer]]
    return (
        f"{card} is not in {leader}'s hand on board {board}: {leader} leads against "
        f"{SEAT_NAMES[declarer]}. Check the lead and the declarer."
    )
