"""The fake server's event: what it holds (the settings, a short Mitchell-like movement, the
results, the deals keyed at tables, the TD's calls) and what it tells a table of its round.

The extras (extras.py) and the table entry (table_entry.py) read and change it; the server
(server.py) adds the links and answers the tables' commands over it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from protocol import board_rules
from protocol.bridge import dealer, vulnerability
from protocol.bridge.deal import Hand
from protocol.bridge.enums import Seat
from protocol.messages import (
    AfterConfirm,
    AuctionEntry,
    BoardResultView,
    BoardStatus,
    DealAck,
    DealAsk,
    NextPosition,
    PairInfo,
    PlayEntry,
    PlayerNumbers,
    RoundInfo,
)
from terminal.rules import RuleRefusedError

NAMES = [
    ("Anna Berg", "Carl Dahl"),
    ("Eva Fisk", "Gustav Holm"),
    ("Ida Jensen", "Karl Lund"),
    ("Mia Nord", "Ole Pedersen"),
]


@dataclass(frozen=True)
class FakeSeating:
    """Who plays which boards at a table in one round."""

    ns: int
    ew: int
    boards: tuple[int, ...]


@dataclass
class FakeKeyedDeal:
    """A deal keyed at a table: by whom, its state, and the tables that checked it."""

    table: int
    round: int
    hands: dict[Seat, Hand]
    state: Literal["keyed", "confirmed", "conflict"] = "keyed"
    checks: dict[tuple[int, int], list[DealAck]] = field(default_factory=dict)


@dataclass
class FakeEvent:
    """The event's settings, movement and results, as the fake server holds them."""

    tables: int = 2
    rounds: int = 2
    boards_per_round: int = 2
    lead_required: bool = False
    tricks_style: Literal["absolute", "relative"] = "absolute"
    pin: str | None = None
    after_confirm: AfterConfirm = "nothing"
    show_ranking: bool = False
    player_numbers: PlayerNumbers = "off"
    td_code: str = "4321"
    language: str | None = None
    members: dict[str, str] = field(default_factory=dict)
    deals: dict[int, str] = field(default_factory=dict)
    dd: dict[int, dict[str, dict[str, int]]] = field(default_factory=dict)
    auction_entry: AuctionEntry = "off"
    play_entry: PlayEntry = "off"
    deal_entry: bool = False  # boards without a hand record are keyed at the tables
    keyed_deals: dict[int, FakeKeyedDeal] = field(default_factory=dict)
    names: dict[int, tuple[str, str]] = field(default_factory=dict)
    started_round: int | None = None  # None: the TD has started every round
    results: dict[tuple[int, int, int], BoardResultView] = field(default_factory=dict)
    table_round: dict[int, int] = field(default_factory=dict)
    td_calls: list[tuple[int, str]] = field(default_factory=list)
    lead_refusals: dict[tuple[int, int, int], set[str]] = field(default_factory=dict)

    # ------------------------------------------------------------------ the movement

    def seating(self, table: int, round_no: int) -> FakeSeating:
        """A Mitchell: N/S pairs stay, E/W pairs move up a table, boards move down."""
        ew = (table - 1 + round_no - 1) % self.tables + 1
        group = (table - 1 - (round_no - 1)) % self.tables
        first = group * self.boards_per_round + 1
        boards = tuple(range(first, first + self.boards_per_round))
        return FakeSeating(ns=table, ew=self.tables + ew, boards=boards)

    def pairing_code(self, table: int) -> str:
        """The code the TD would show for a table."""
        return f"{table:02d}{table:02d}"

    def token(self, table: int) -> str:
        """The token a paired table receives."""
        return f"token-table-{table}"

    def names_of(self, number: int) -> tuple[str, str]:
        """The players of a pair (as keyed at a table, else the demo's names)."""
        return self.names.get(number) or NAMES[(number - 1) % len(NAMES)]

    def _pair_info(self, number: int, direction: Literal["NS", "EW"]) -> PairInfo:
        names = [n for n in self.names_of(number) if n]
        return PairInfo(number=number, direction=direction, names=names, label=str(number))

    @property
    def started(self) -> int:
        """The last round the TD has started."""
        return self.rounds if self.started_round is None else self.started_round

    # ------------------------------------------------------------------ a table's round

    def round_info(self, table: int) -> RoundInfo:
        """The table's current round as the server would send it."""
        round_no = self.table_round.setdefault(table, min(1, self.started))
        if round_no == 0:
            return RoundInfo(
                event="Club night",
                section="A",
                table=table,
                round=0,
                rounds=self.rounds,
                ns=None,
                ew=None,
                boards=[],
                complete=False,
                round_open=False,
                next_round_released=False,
                language=self.language,
            )
        seat = self.seating(table, round_no)
        boards = [self._status(table, round_no, b) for b in seat.boards]
        complete = board_rules.complete(b.state for b in boards)
        nxt = []
        if round_no < self.rounds and complete:  # as the server: only once the round is done
            for pair, direction in ((seat.ns, "NS"), (seat.ew, "EW")):
                for t in range(1, self.tables + 1):
                    later = self.seating(t, round_no + 1)
                    if pair in (later.ns, later.ew):
                        nxt.append(
                            NextPosition(
                                pair=str(pair),
                                table=t,
                                seat="NS" if direction == "NS" else "EW",
                                boards=list(later.boards),
                            )
                        )
        return RoundInfo(
            event="Club night",
            section="A",
            table=table,
            round=round_no,
            rounds=self.rounds,
            ns=self._pair_info(seat.ns, "NS"),
            ew=self._pair_info(seat.ew, "EW"),
            boards=boards,
            complete=complete,
            round_open=True,
            next_round_released=self.started > round_no,
            next=nxt,
            lead_required=self.lead_required,
            tricks_style=self.tricks_style,
            confirm_pin_required=self.pin is not None,
            language=self.language,
        )

    def _status(self, table: int, round_no: int, board: int) -> BoardStatus:
        result = self.results.get((table, round_no, board))
        return BoardStatus(
            board=board,
            dealer=dealer(board).value,
            vulnerability=vulnerability(board).value,
            state=result.state if result else "missing",
            result=result,
            deal=self.deal_ask(table, round_no, board),
        )

    def board_status(self, table: int, board: int) -> BoardStatus:
        """A board of the table's current round, or RuleRefusedError board_not_in_round."""
        round_no = self.table_round.get(table, 0)
        info = self.round_info(table)
        status = next((b for b in info.boards if b.board == board), None)
        if status is None:
            raise RuleRefusedError(
                "board_not_in_round",
                f"Board {board} is not played at table {table} in round {round_no}.",
            )
        return status

    def deal_ask(self, table: int, round_no: int, board: int) -> DealAsk | None:
        """What a board asks of the table: key the four hands, check one, or nothing."""
        if not self.deal_entry or self.deals.get(board):
            return None
        keyed = self.keyed_deals.get(board)
        if keyed is None:
            return "enter"
        here = (table, round_no)
        if keyed.state != "keyed" or (keyed.table, keyed.round) == here or here in keyed.checks:
            return None
        return "check"
