"""The fake server's side of the auction, play and deal entry, as thin as the real server's rules
allow: the auction and the play of an entry checked by the bridge domain
(protocol/bridge/auction.py, play.py), and a hand-dealt board's deal keyed and checked
(protocol/bridge/deal.py). Like the real server (server/services/entries.py,
table/deal_entry.py): the event's settings decide what is taken, a play whose tricks differ from
the result keyed is stored and the TD called, and a deal that differs from the one stored goes
to the TD as a conflict, never overwritten. What a board asks of a table (key its deal, check
it) is the event's (event.py, ``deal_ask``)."""

from __future__ import annotations

from protocol import fair_play
from protocol.bridge import BridgeError, TableResult
from protocol.bridge.auction import Auction, Call
from protocol.bridge.deal import Hand, InvalidDeal, confirm_hand, parse_deal, parse_hand
from protocol.bridge.enums import Seat
from protocol.bridge.play import parse_play
from protocol.messages import BoardStatus, CheckDeal, DealAck, EnterDeal, EntryValues
from terminal.rules import RuleRefusedError

from .event import FakeEvent, FakeKeyedDeal
from .extras import disclosure


def check_values(server: FakeEvent, status: BoardStatus, values: EntryValues) -> int | None:
    """The auction and the play of an entry checked as the event takes them (RuleRefusedError
    with the reason); the tricks the play gives declarer, or None without a play."""
    auction = values.auction.strip() if values.auction else ""
    if auction:
        if server.auction_entry == "off":
            raise RuleRefusedError("auction_not_taken", "This event does not take the auction.")
        _check_auction(status, values, auction)
    elif server.auction_entry == "required":
        raise RuleRefusedError(
            "auction_required",
            f"This event asks for the auction: key the calls of board {status.board}.",
        )
    if not values.play or not values.play.strip():
        return None
    if server.play_entry == "off":
        raise RuleRefusedError("play_not_taken", "This event does not take the play: leave it out.")
    return _check_play(server, status, values)


def _contract(status: BoardStatus, values: EntryValues) -> TableResult:
    contract, declarer = values.contract, values.declarer
    if not contract and values.auction:
        outcome = Auction(status.dealer, values.auction.split()).outcome()
        contract = str(outcome.contract)
        declarer = outcome.declarer.value if outcome.declarer else None
    try:
        return TableResult.make(contract, declarer, values.tricks)
    except BridgeError as error:
        raise RuleRefusedError(error.code, error.message) from None


def _check_auction(status: BoardStatus, values: EntryValues, text: str) -> None:
    auction = Auction(status.dealer)
    for number, word in enumerate(text.split(), start=1):
        try:
            auction.add(Call.parse(word))
        except BridgeError as error:
            raise RuleRefusedError(
                error.code, f"Board {status.board}, call {number} ({word}): {error.message}."
            ) from None
    if not auction.ended:
        raise RuleRefusedError("auction_open", f"Board {status.board}: the auction has not ended.")
    if values.contract:
        outcome = auction.outcome()
        keyed = _contract(status, values)
        seat = outcome.declarer.value if outcome.declarer else None
        given = keyed.declarer.value if keyed.declarer else None
        if keyed.contract != outcome.contract or (values.declarer and given != seat):
            raise RuleRefusedError(
                "auction_disagrees",
                f"Board {status.board}: the auction ends in {outcome.contract} {seat or ''}, "
                "not as keyed. Check the contract or the auction.",
            )


def hands_of(server: FakeEvent, board: int) -> dict[Seat, Hand] | None:
    """The board's deal as the server holds it: its hand record, else a deal keyed at a table."""
    text = server.deals.get(board)
    if text:
        try:
            return parse_deal(text)
        except InvalidDeal:
            return None
    keyed = server.keyed_deals.get(board)
    return keyed.hands if keyed is not None else None


def _check_play(server: FakeEvent, status: BoardStatus, values: EntryValues) -> int:
    result = _contract(status, values)
    if result.contract.is_pass or result.declarer is None or result.contract.strain is None:
        raise RuleRefusedError("play_passed_out", f"Board {status.board} was passed out: no play.")
    try:
        play = parse_play(
            values.play or "",
            result.contract.strain,
            result.declarer,
            hands_of(server, status.board),
        )
    except BridgeError as error:
        raise RuleRefusedError(
            error.code, f"Board {status.board}, the play: {error.message}."
        ) from None
    if not play.ended:
        raise RuleRefusedError(
            "play_open", f"Board {status.board}: the play has not ended: key 13 tricks or a claim."
        )
    return play.declarer_tricks()


def play_differs(status: BoardStatus, values: EntryValues, played: int | None) -> bool:
    """Whether the tricks keyed differ from the tricks played (the TD is then called)."""
    return played is not None and played != _contract(status, values).tricks


# ---------------------------------------------------------------- the deal


def deal_command(server: FakeEvent, table: int, command: EnterDeal | CheckDeal) -> DealAck:
    """EnterDeal or CheckDeal from a table (RuleRefusedError when refused)."""
    if not server.deal_entry:
        raise RuleRefusedError(
            "deal_entry_off", "This event does not take deals keyed at the table."
        )
    round_no = server.table_round.get(table, 0)
    server.board_status(table, command.board)  # board_not_in_round
    if server.deals.get(command.board):
        raise RuleRefusedError("deal_known", f"Board {command.board} has a hand record already.")
    keyed = server.keyed_deals.get(command.board)
    try:
        if isinstance(command, EnterDeal):
            hands = parse_deal(command.deal)
        else:
            hands = {Seat(command.seat): parse_hand(command.hand, Seat(command.seat))}
    except InvalidDeal as error:
        raise RuleRefusedError(error.code, f"Board {command.board}: {error.message}.") from None
    if keyed is None:
        if isinstance(command, CheckDeal):
            raise RuleRefusedError("deal_not_keyed", f"Board {command.board}: no deal keyed yet.")
        server.keyed_deals[command.board] = FakeKeyedDeal(table, round_no, hands)
        return DealAck(board=command.board, state="keyed")
    if (keyed.table, keyed.round) == (table, round_no):
        raise RuleRefusedError(
            "deal_keyed_here", f"Board {command.board}: this table keyed the deal."
        )
    here = keyed.checks.setdefault((table, round_no), [])
    if not fair_play.deal_checked(len(here)):
        raise RuleRefusedError(
            "deal_checks_used",
            f"Board {command.board}: this table has checked the deal {fair_play.DEAL_CHECKS} "
            "times; the TD settles it.",
        )
    differences = [
        text for seat, hand in hands.items() for text in confirm_hand(keyed.hands, seat, hand)
    ]
    if differences:
        if keyed.state != "conflict":
            server.td_calls.append((table, f"conflicting deals for board {command.board}"))
        keyed.state = "conflict"
    elif keyed.state == "keyed":
        keyed.state = "confirmed"
    played = disclosure(server, table, command.board).played
    own = differences if isinstance(command, CheckDeal) else []  # a hand checked, not a deal
    ack = DealAck(
        board=command.board,
        state=keyed.state,
        differences=fair_play.deal_differences_shown(played, own),
    )
    here.append(ack)
    return ack
