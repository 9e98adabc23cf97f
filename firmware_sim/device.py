"""The keypad firmware as a pure state machine: keys and messages in, 2x16 LCD and commands out.

The § 262 flow: pairing code, seat check (§ 262A), board entry by North (§ 262B2) with a score
preview, East's confirmation (§ 262B3), then the round summary that gates the next round
(§ 262C). Commands that carry an entry id are kept in the battery-backed store until the server
answers them, and resent after a restart. No I/O and no clock: a runner feeds keys and messages.

A result is keyed with the table's one key grammar (``protocol/keys.py``, spec in
``protocol/keys.md``), the same keys as the terminal: a digit on a board that needs its result
starts the entry (level, suit, ``*`` doubled, declarer 1 N 2 E 3 S 4 W, tricks), ``ENT`` sends
it once it is complete (the LCD shows the score), ``BACK`` takes back one key. East confirms with
``ENT`` and rejects with ``BACK``; a reject brings North back to the same keys.

The keypad's other keys: ``*`` outside an entry calls the TD, ``#`` is the round summary and
nothing else, from the boards, an entry or East's screen (``ENT`` there goes on: the next round,
or the first board still open; before the boards ``#`` does nothing), ``UP`` and ``DOWN`` step
through the boards, and in a relative-tricks event key "over" and "down" (the terminal's ``+``
and ``-``). Before the boards (pairing code, waiting for round 1, seat check) ``UP``/``DOWN``
switch the language (en, da, nb, de, ru), kept with the pairing; otherwise the screens follow the
event's language (``RoundInfo.language``).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Final

from protocol import board_rules, languages
from protocol import keys as grammar
from protocol.bridge import Vulnerability, result_ns_score
from protocol.bridge.auction import Auction
from protocol.keypad_codec import KeypadCommand, KeypadReply
from protocol.keys import Draft
from protocol.messages import (
    COMPLETE_STATES,
    Ack,
    BoardResultView,
    BoardStatus,
    CallTD,
    CheckDeal,
    ConfirmResult,
    ConflictRaised,
    DealAck,
    EnterDeal,
    EnterResult,
    EntryValues,
    Error,
    GetRound,
    GetTableSettings,
    Hello,
    NextPosition,
    NextRound,
    Paired,
    PairTerminal,
    RejectResult,
    ResultAck,
    ResultChanged,
    RoundChanged,
    RoundInfo,
    TableSettings,
)

from . import i18n
from .lcd import WIDTH, fit, lcd, pair_label, result_line, signed
from .store import KeypadStore, StoredCommand
from .table_entry import AUCTION_KEYS, AuctionDraft, DealDraft

#: Error codes meaning "the gateway does not know this keypad's token": pair again, keep entries.
AUTH_ERRORS: Final = frozenset({"not_paired", "invalid_token", "token_expired", "unauthorized"})


class Key(StrEnum):
    """The keys of the keypad."""

    D0 = "0"
    D1 = "1"
    D2 = "2"
    D3 = "3"
    D4 = "4"
    D5 = "5"
    D6 = "6"
    D7 = "7"
    D8 = "8"
    D9 = "9"
    STAR = "*"
    HASH = "#"
    ENTER = "ENT"
    BACK = "BACK"
    UP = "UP"
    DOWN = "DOWN"

    @classmethod
    def parse(cls, token: str) -> Key:
        """Read a key name: a digit, ``*``, ``#``, ENT/ENTER, BACK/BK/CLEAR/CLR, UP, DOWN/DN."""
        name = _KEY_NAMES.get(token.strip().upper())
        if name is None:
            raise ValueError(f"{token!r} is not a key")
        return name


_KEY_NAMES: dict[str, Key] = {k.value: k for k in Key} | {
    "ENTER": Key.ENTER,
    "E": Key.ENTER,
    "BK": Key.BACK,
    "CLEAR": Key.BACK,
    "CLR": Key.BACK,
    "C": Key.BACK,
    "DN": Key.DOWN,
    "U": Key.UP,
    "D": Key.DOWN,
}


class Screen(StrEnum):
    """Where the keypad is in the flow."""

    PAIR = "pair"
    PAIRING = "pairing"
    LOADING = "loading"
    WAIT_ROUND = "wait_round"
    SEATS = "seats"
    BOARD = "board"
    ENTRY = "entry"
    SENDING = "sending"
    EW_CONFIRM = "ew_confirm"
    CONFIRMING = "confirming"
    SUMMARY = "summary"
    NEXT_WAIT = "next_wait"
    CALL_TD = "call_td"
    TD_WAIT = "td_wait"
    MESSAGE = "message"
    AUCTION = "auction"
    DEAL = "deal"
    DEAL_WAIT = "deal_wait"


#: Screens on which the keypad waits for the server; a script holds its keys meanwhile.
WAITING: Final = frozenset(
    {
        Screen.PAIRING,
        Screen.LOADING,
        Screen.WAIT_ROUND,
        Screen.SENDING,
        Screen.CONFIRMING,
        Screen.NEXT_WAIT,
        Screen.TD_WAIT,
        Screen.DEAL_WAIT,
    }
)
#: A DealAck in the LCD's words.
DEAL_ACK_TEXTS: Final = {
    "keyed": "Deal stored",
    "confirmed": "Deal confirmed",
    "conflict": "Deal differs: TD",
}
#: The keypad's keys for the grammar's keys while a result is keyed (digits are themselves).
ENTRY_KEYS: Final = {"*": grammar.DOUBLE, "UP": grammar.OVER, "DOWN": grammar.UNDER}
#: Refusals the LCD names (the step's hint on line 2 already says what the others want).
REFUSAL_TEXTS: Final = {"impossible": "Not possible", "too_many_tricks": "{tricks} not possible"}


class Device:
    """The keypad: ``press`` keys, ``receive`` messages, read ``display`` and ``outgoing``."""

    def __init__(
        self, table: int, store: KeypadStore, *, name: str | None = None, language: str = "en"
    ) -> None:
        self.table = table
        #: The keypad's own setting, used until the event (or the players) say otherwise.
        self.default_language = language if language in i18n.LANGUAGES else i18n.SOURCE
        self.store = store
        self.name = name or f"keypad-t{table}"
        self.screen = Screen.PAIR
        self.round: RoundInfo | None = None
        self.link_up = False
        self.stored_count = 0  # results the server has confirmed storing (for tests, benchmarks)
        self._out: list[KeypadCommand] = []
        self._buffer = ""
        self._note = ""
        self._index = 0  # the selected board in the round
        self._summary_index = -1
        self._draft: Draft | None = None
        self._awaiting: str | None = None  # entry id of the command the screen waits for
        self._pending_view: BoardResultView | None = None  # result shown to East
        self._message: tuple[str, str] = ("", "")
        self._after_message = Screen.BOARD
        self._before_td = Screen.BOARD
        self._resend_after_round = False
        #: The event's table settings (GetTableSettings): whether North keys the auction.
        self.settings = TableSettings()
        self._auction: AuctionDraft | None = None  # the auction being keyed
        self._entry_auction: str | None = None  # the auction of the entry ("" = none keyed)
        self._auction_calls = ""  # calls keyed that disagreed with the contract
        self._auction_first = False
        self._deal: DealDraft | None = None
        #: What a key does on each screen; a screen missing here waits and ignores keys.
        self._key_handlers: Final[dict[Screen, Callable[[Key], None]]] = {
            Screen.PAIR: self._key_pair,
            Screen.SEATS: self._key_seats,
            Screen.WAIT_ROUND: self._key_wait_round,
            Screen.BOARD: self._key_board,
            Screen.ENTRY: self._key_entry,
            Screen.AUCTION: self._key_auction,
            Screen.DEAL: self._key_deal,
            Screen.SENDING: self._key_sending,
            Screen.EW_CONFIRM: self._key_ew_confirm,
            Screen.SUMMARY: self._key_summary,
            Screen.CALL_TD: self._key_call_td,
            Screen.MESSAGE: self._key_message,
        }
        #: The two LCD lines of each screen (every screen has them).
        self._screen_lines: Final[dict[Screen, Callable[[], tuple[str, str]]]] = {
            Screen.PAIR: self._show_pair,
            Screen.PAIRING: self._show_pairing,
            Screen.LOADING: self._show_loading,
            Screen.WAIT_ROUND: self._show_wait_round,
            Screen.SEATS: self._show_seats,
            Screen.BOARD: self._show_board,
            Screen.ENTRY: self._show_entry,
            Screen.SENDING: self._show_sending,
            Screen.EW_CONFIRM: self._show_ew_confirm,
            Screen.CONFIRMING: self._show_confirming,
            Screen.SUMMARY: self._show_summary,
            Screen.NEXT_WAIT: self._show_next_wait,
            Screen.CALL_TD: self._show_call_td,
            Screen.TD_WAIT: self._show_td_wait,
            Screen.MESSAGE: self._show_message,
            Screen.AUCTION: self._show_auction,
            Screen.DEAL: self._show_deal,
            Screen.DEAL_WAIT: self._show_deal_wait,
        }

    @property
    def language(self) -> str:
        """The players' choice at this table, else the event's language, else the keypad's."""
        event = self.round.language if self.round is not None else None
        for language in (self.store.language, event):
            if language in i18n.LANGUAGES:
                return str(language)
        return self.default_language

    def switch_language(self, step: int = 1) -> None:
        """The players' keys (UP/DOWN before the boards): the next or previous language, kept with
        the pairing."""
        codes = list(languages.LANGUAGES)
        index = codes.index(self.language) if self.language in codes else 0
        self.store.save_language(codes[(index + step) % len(codes)])

    def _language_key(self, key: Key) -> bool:
        if key in (Key.UP, Key.DOWN):
            self.switch_language(1 if key is Key.DOWN else -1)
            return True
        return False

    # ------------------------------------------------------------------ inputs and outputs

    def boot(self) -> None:
        """Power on: resume with the stored pairing and resend unanswered commands."""
        if self.store.token:
            self._go(Screen.LOADING)
            self._hello()
            self._resend_pending()
            self._send(GetRound())
            self._send(GetTableSettings())
        else:
            self._go(Screen.PAIR)

    def outgoing(self) -> list[KeypadCommand]:
        """Take the commands to send, oldest first."""
        out, self._out = self._out, []
        return out

    @property
    def draft(self) -> Draft | None:
        """The result being keyed (on the ENTRY screen)."""
        return self._draft if self.screen is Screen.ENTRY else None

    @property
    def busy(self) -> bool:
        """Whether the keypad is waiting for the server (keys are ignored or held meanwhile)."""
        return self.screen in WAITING

    @property
    def display(self) -> tuple[str, str]:
        """The two LCD lines, each exactly 16 characters."""
        top, bottom = self._render()
        return lcd(top), lcd(bottom)

    def link_status(self, up: bool) -> None:
        """The link to the gateway came up or went down."""
        self.link_up = up

    def peer_restarted(self) -> None:
        """The gateway restarted: introduce ourselves again and resend what is unanswered."""
        if self.store.token:
            self._hello()
            self._resend_pending()

    # ------------------------------------------------------------------------------ helpers

    def _send(self, command: KeypadCommand) -> None:
        if isinstance(command, EnterResult | ConfirmResult | RejectResult | CallTD):
            self.store.add(command)
        self._out.append(command)

    def _hello(self) -> None:
        """Introduce ourselves with the stored token; this firmware reads an individual's
        players' next positions (protocol/keypad_codec.without_player_positions)."""
        self._send(Hello(token=self.store.token, player_positions=True))

    def _resend_pending(self) -> None:
        self._out.extend(self.store.pending())

    def _go(self, screen: Screen) -> None:
        self.screen = screen
        self._buffer = ""

    def _show(self, title: str, text: str, then: Screen) -> None:
        self._message = (title, text)
        self._after_message = then
        self._go(Screen.MESSAGE)

    @property
    def _boards(self) -> list[BoardStatus]:
        return self.round.boards if self.round else []

    def _status(self, board: int) -> BoardStatus | None:
        return next((b for b in self._boards if b.board == board), None)

    @property
    def selected(self) -> BoardStatus | None:
        """The board the BOARD screen shows."""
        boards = self._boards
        return boards[self._index % len(boards)] if boards else None

    def saved_boards(self) -> set[int]:
        """Boards with an entry in the store that the server has not answered yet."""
        return {c.board for c in self.store.pending() if isinstance(c, EnterResult)}

    def _first_open(self) -> int | None:
        saved = self.saved_boards()
        for i, status in enumerate(self._boards):
            if status.state not in COMPLETE_STATES and status.board not in saved:
                return i
        return None

    def _continue(self) -> None:
        """To the next board that still needs work, or the round summary when none does."""
        index = self._first_open()
        if index is None:
            self._summary_index = -1
            self._go(Screen.SUMMARY)
        else:
            self._index = index
            self._go(Screen.BOARD)

    def _update(self, view: BoardResultView) -> None:
        if self.round is not None:
            self.round = board_rules.fold(self.round, view)

    # --------------------------------------------------------------------------------- keys

    def press(self, key: Key | str) -> None:
        """One key press (ignored while waiting for the server)."""
        key = key if isinstance(key, Key) else Key.parse(key)
        self._note = ""
        handler = self._key_handlers.get(self.screen)
        if handler is not None:
            handler(key)

    def _key_pair(self, key: Key) -> None:
        if self._language_key(key):
            return
        if key.isdigit() and len(self._buffer) < 12:
            self._buffer += key
        elif key is Key.BACK:
            self._buffer = self._buffer[:-1]
        elif key is Key.ENTER and len(self._buffer) >= 4:
            code = self._buffer
            self._send(PairTerminal(code=code, device=self.name, player_positions=True))
            self._go(Screen.PAIRING)
            self._buffer = code

    def _key_seats(self, key: Key) -> None:
        if key is Key.ENTER and self.round is not None:
            self.store.save_pairing(self.store.token, self.round.round)
            self._continue()
        elif key is Key.STAR:
            self._ask_td(Screen.SEATS)
        else:
            self._language_key(key)

    def _key_wait_round(self, key: Key) -> None:
        self._language_key(key)

    def _key_board(self, key: Key) -> None:
        status = self.selected
        if status is None:
            return
        if key in (Key.UP, Key.DOWN):
            self._index = (self._index + (1 if key is Key.DOWN else -1)) % len(self._boards)
        elif key is Key.HASH:
            self._summary()
        elif key is Key.STAR:
            self._ask_td(Screen.BOARD)
        elif status.board in self.saved_boards():
            return
        elif key is Key.ENTER and status.deal is not None and status.state == "missing":
            self._deal = DealDraft(status.board, status.deal)
            self._go(Screen.DEAL)
        elif status.state in ("missing", "rejected") and (key is Key.ENTER or key.isdigit()):
            keys: tuple[str, ...] = ()
            if status.state == "rejected" and status.result is not None and key is Key.ENTER:
                keys = self._keys_of(status.result)  # the rejected result's keys, to correct
            self._start_entry(status.board, keys)
            if key.isdigit():
                self._key_entry(key)  # the first digit is the level: no key to open the entry
        elif key is Key.ENTER and status.state == "entered" and status.result is not None:
            self._ask_east(status.result)

    def _start_entry(self, board: int, keys: tuple[str, ...] = ()) -> None:
        info = self.round
        fresh = Draft(board)
        if info is not None:
            fresh = Draft(board, info.tricks_style, info.lead_required)
        self._draft = grammar.replay(fresh, keys)
        self._entry_auction, self._auction_calls, self._auction_first = None, "", False
        self._go(Screen.ENTRY)

    def _keys_of(self, view: BoardResultView) -> tuple[str, ...]:
        info = self.round
        if info is None:
            return grammar.keys_for(view)
        return grammar.keys_for(view, info.tricks_style, info.lead_required)

    def _key_entry(self, key: Key) -> None:
        """The grammar's keys; ENT sends a complete result, BACK takes back one key."""
        draft = self._draft
        assert draft is not None
        if key is Key.BACK:
            if draft.keys:
                self._draft = grammar.backspace(draft)
            else:
                self._go(Screen.BOARD)
        elif key is Key.ENTER:
            if not draft.keys and self._wants_auction():
                self._start_auction(draft.board, first=True)
            elif draft.complete and self._wants_auction_after():
                self._start_auction(draft.board, first=False)
            elif draft.complete:
                self._send_entry(draft)
        elif key is Key.HASH:
            self._summary()  # as / on the terminal: the draft is dropped
        elif key.isdigit() or key.value in ENTRY_KEYS:
            try:
                self._draft = grammar.press(draft, ENTRY_KEYS.get(key.value, key.value))
            except grammar.KeyRefusedError as refusal:
                self._draft = refusal.kept(draft)
                text = REFUSAL_TEXTS.get(refusal.code)
                if text is not None:
                    self._note = self._t(text, tricks=refusal.tricks)

    def _wants_auction(self) -> bool:
        """The event takes the auction and none has been keyed (or skipped) for this entry."""
        return self.settings.auction_entry != "off" and self._entry_auction is None

    def _wants_auction_after(self) -> bool:
        """After a complete result only a required auction is asked for: an optional one is
        keyed first (ENT on an empty entry) or not at all, so a result costs no key more."""
        return self.settings.auction_entry == "required" and self._entry_auction is None

    def _relative(self) -> bool:
        return self.round is not None and self.round.tricks_style == "relative"

    def _start_auction(self, board: int, *, first: bool) -> None:
        status = self._status(board)
        dealer = status.dealer if status is not None else "N"
        optional = self.settings.auction_entry == "optional"
        calls = self._auction_calls.split()
        self._auction = AuctionDraft(board, Auction(dealer, calls), optional, first)
        self._go(Screen.AUCTION)

    def _key_auction(self, key: Key) -> None:
        """The grammar's call keys (UP alerts); the auction ends by itself after the passes."""
        auction = self._auction
        assert auction is not None
        if key is Key.BACK:
            if not auction.back():
                self._go(Screen.ENTRY)
        elif key is Key.ENTER:
            if auction.optional and not auction.auction.calls and not auction.keys:
                self._entry_auction = ""
                draft = self._draft
                if not auction.first and draft is not None and draft.complete:
                    self._send_entry(draft)
                else:
                    self._go(Screen.ENTRY)
        elif key.isdigit() or key.value in AUCTION_KEYS:
            refused = auction.press(AUCTION_KEYS.get(key.value, key.value))
            if refused is not None:
                self._note = self._t(refused)
            elif auction.auction.ended:
                self._auction_done(auction)

    def _auction_done(self, auction: AuctionDraft) -> None:
        """The auction has ended: it gives the contract (keyed first), or must agree with it."""
        text = str(auction.auction)
        outcome = auction.auction.outcome()
        contract = str(outcome.contract) if outcome.declarer is not None else "PASS"
        declarer = outcome.declarer.value if outcome.declarer is not None else None
        draft = self._draft
        assert draft is not None
        if auction.first:
            view = BoardResultView(
                board=draft.board,
                round=0,
                table=0,
                state="entered",
                version=0,
                contract=contract,
                declarer=declarer,
            )
            fresh = replace_keys(draft, ())
            self._draft = grammar.replay(fresh, self._keys_of(view))
            self._entry_auction, self._auction_first = text, True
            self._go(Screen.ENTRY)
            return
        if draft.contract != contract or (declarer is not None and draft.declarer != declarer):
            self._auction_calls = text  # kept: ENT opens it again, BACK takes back a call
            self._go(Screen.ENTRY)
            self._note = self._t("Auction differs")
            return
        self._entry_auction, self._auction_calls = text, ""
        self._send_entry(draft)

    def _entry_values(self, draft: Draft) -> EntryValues:
        """The draft's values, with the auction keyed; the contract left to the server when it
        came from the auction alone (as on the terminal)."""
        values = draft.values()
        assert values is not None
        auction = self._entry_auction
        if not auction:
            return values
        update: dict[str, object] = {"auction": auction}
        if self._auction_first:
            outcome = Auction(self._dealer(draft.board), auction.split()).outcome()
            seat = outcome.declarer.value if outcome.declarer is not None else None
            contract = str(outcome.contract) if seat is not None else "PASS"
            if (values.contract, values.declarer) == (contract, seat):
                update |= {"contract": "", "declarer": None}
        return values.model_copy(update=update)

    def _dealer(self, board: int) -> str:
        status = self._status(board)
        return status.dealer if status is not None else "N"

    def _key_deal(self, key: Key) -> None:
        """Ranks suit by suit, ENT after each suit; the deal is sent once it is all keyed."""
        deal = self._deal
        assert deal is not None
        if key is Key.BACK:
            if not deal.back():
                self._go(Screen.BOARD)
        elif key is Key.ENTER:
            refused, done = deal.next_suit()
            if refused is not None:
                self._note = self._t(refused)
            elif done:
                self._send_deal(deal)
        elif key.isdigit():
            refused = deal.press(key.value)
            if refused is not None:
                self._note = self._t(refused)

    def _send_deal(self, deal: DealDraft) -> None:
        entry_id = self.store.new_entry_id()
        command: EnterDeal | CheckDeal
        if deal.mode == "enter":
            command = EnterDeal(entry_id=entry_id, board=deal.board, deal=deal.text())
        else:
            command = CheckDeal(entry_id=entry_id, board=deal.board, seat="N", hand=deal.text())
        self._awaiting = entry_id
        self._send(command)
        self._go(Screen.DEAL_WAIT)

    def _on_deal_ack(self, ack: DealAck) -> None:
        if self.screen is not Screen.DEAL_WAIT:
            return
        self._awaiting = None
        if self.round is not None:  # asked no more (the server's round says so too)
            boards = [
                b.model_copy(update={"deal": None}) if b.board == ack.board else b
                for b in self.round.boards
            ]
            self.round = self.round.model_copy(update={"boards": boards})
        detail = " ".join(ack.differences) if ack.differences else self._t("ENT=continue")
        self._show(self._t(DEAL_ACK_TEXTS[ack.state]), detail, Screen.BOARD)

    def _send_entry(self, draft: Draft) -> None:
        values = self._entry_values(draft)
        entry = EnterResult(entry_id=self.store.new_entry_id(), board=draft.board, values=values)
        self._awaiting = entry.entry_id
        self._send(entry)
        self._go(Screen.SENDING)

    def _key_sending(self, key: Key) -> None:
        if key is Key.BACK:
            # Carry on offline: the entry stays in the store and is resent until answered.
            self._awaiting = None
            self._go(Screen.BOARD)

    @property
    def _pin_required(self) -> bool:
        return self.round is not None and self.round.confirm_pin_required

    def _ask_east(self, view: BoardResultView) -> None:
        self._pending_view = view
        self._go(Screen.EW_CONFIRM)

    def _key_ew_confirm(self, key: Key) -> None:
        """East: ENT confirms (after the PIN, when the event asks one), BACK rejects (after
        taking back any PIN digits); the arrows and # leave the board unanswered."""
        view = self._pending_view
        assert view is not None
        if key is Key.ENTER:
            if not self._pin_required:
                self._confirm(None)
            elif self._buffer:
                self._confirm(self._buffer)
        elif key is Key.BACK and self._buffer:
            self._buffer = self._buffer[:-1]
        elif key is Key.BACK:
            reject = RejectResult(
                entry_id=self.store.new_entry_id(), board=view.board, version=view.version
            )
            self._awaiting = reject.entry_id
            self._send(reject)
            self._go(Screen.CONFIRMING)
        elif key.isdigit() and self._pin_required and len(self._buffer) < 8:
            self._buffer += key
        elif key is Key.HASH:
            self._summary()
        elif key in (Key.UP, Key.DOWN):
            self._go(Screen.BOARD)

    def _confirm(self, pin: str | None) -> None:
        view = self._pending_view
        assert view is not None
        confirm = ConfirmResult(
            entry_id=self.store.new_entry_id(), board=view.board, version=view.version, pin=pin
        )
        self._awaiting = confirm.entry_id
        self._send(confirm)
        self._go(Screen.CONFIRMING)

    def _summary(self) -> None:
        self._summary_index = -1
        self._go(Screen.SUMMARY)

    @property
    def _last_round(self) -> bool:
        return self.round is not None and self.round.round >= self.round.rounds

    def _key_summary(self, key: Key) -> None:
        """ENT goes on (as Enter on the terminal's summary): the next round once every board is
        done (§ 262C), else the first open board; BACK goes back to the boards; # the top."""
        n = len(self._boards)
        info = self.round
        if key in (Key.UP, Key.DOWN) and n:
            step = 1 if key is Key.DOWN else -1
            self._summary_index = (self._summary_index + 1 + step) % (n + 1) - 1
        elif key is Key.HASH:
            self._summary()
        elif key is Key.ENTER and info is not None and info.complete:
            if not self._last_round:
                self._send(NextRound())
                self._go(Screen.NEXT_WAIT)
        elif key is Key.ENTER:
            self._continue()
        elif key is Key.BACK:
            self._go(Screen.BOARD)
        elif key is Key.STAR:
            self._ask_td(Screen.SUMMARY)

    def _ask_td(self, back: Screen) -> None:
        self._before_td = back
        self._go(Screen.CALL_TD)

    def _key_call_td(self, key: Key) -> None:
        if key is Key.ENTER:
            call = CallTD(entry_id=self.store.new_entry_id())
            self._awaiting = call.entry_id
            self._send(call)
            self._go(Screen.TD_WAIT)
        elif key is Key.BACK:
            self._go(self._before_td)

    def _key_message(self, key: Key) -> None:
        if key in (Key.ENTER, Key.BACK):
            self._go(self._after_message)

    # ------------------------------------------------------------------------ server input

    def receive(self, message: KeypadReply) -> None:
        """A message from the server (through the gateway)."""
        if isinstance(message, Paired):
            self._on_paired(message)
        elif isinstance(message, RoundInfo):
            self._on_round(message)
        elif isinstance(message, RoundChanged):
            self._on_round(message.round)
        elif isinstance(message, ResultAck):
            self._on_result_ack(message)
        elif isinstance(message, ResultChanged):
            self._update(message.result)
        elif isinstance(message, ConflictRaised):
            self._update(message.result)
            if self.screen not in WAITING:
                self._show(
                    self._t("B{board} conflict", board=message.result.board),
                    self._t("TD is called"),
                    Screen.BOARD,
                )
        elif isinstance(message, Ack):
            self._on_ack(message)
        elif isinstance(message, Error):
            self._on_error(message)
        elif isinstance(message, TableSettings):
            self.settings = message
        elif isinstance(message, DealAck):
            self._on_deal_ack(message)

    def _on_paired(self, message: Paired) -> None:
        self.store.save_pairing(message.token, None)
        self.store.save_language(None)  # a new pairing, a new session: the event's language
        self._send(GetRound())
        self._send(GetTableSettings())
        self._go(Screen.LOADING)

    def _on_round(self, info: RoundInfo) -> None:
        previous = self.round
        self.round = info
        if self._resend_after_round:
            self._resend_after_round = False
            self._resend_pending()
        new_round = previous is None or previous.round != info.round
        if info.round == 0:
            self._go(Screen.WAIT_ROUND)
        elif self.screen in (Screen.LOADING, Screen.WAIT_ROUND, Screen.NEXT_WAIT) or (
            new_round and self.screen not in WAITING
        ):
            if self.screen is Screen.NEXT_WAIT and not new_round:
                return  # still this round: wait for the TD to release the next one
            if info.round != self.store.seated_round:
                self._go(Screen.SEATS)
            else:
                self._continue()

    def _on_result_ack(self, ack: ResultAck) -> None:
        self.store.remove(ack.entry_id)
        self._update(ack.result)
        if ack.entry_id != self._awaiting:
            return  # a resent command answered again, or an earlier one: the state is updated
        self._awaiting = None
        view = ack.result
        if self.screen is Screen.SENDING:
            self.stored_count += 1
            if view.state == "entered":
                self._ask_east(view)
            elif view.state == "conflict":
                self._show(
                    self._t("B{board} conflict", board=view.board),
                    self._t("TD is called"),
                    Screen.BOARD,
                )
            else:
                self._continue()
        elif self.screen is Screen.CONFIRMING:
            if view.state == "rejected":
                self._start_entry(view.board, self._keys_of(view))  # North keeps the keys
                self._note = self._t("EW rejected")
            else:
                self._continue()

    def _on_ack(self, ack: Ack) -> None:
        if ack.entry_id is not None:
            self.store.remove(ack.entry_id)
        if self.screen is Screen.TD_WAIT and ack.entry_id == self._awaiting:
            self._awaiting = None
            self._show(self._t("TD is called"), self._t("ENT=continue"), self._before_td)
        elif self.screen is Screen.NEXT_WAIT:
            self._send(GetRound())

    def _on_error(self, error: Error) -> None:
        if error.code == "not_paired" and self.store.token and self.screen is not Screen.PAIRING:
            # The gateway forgot us (it restarted): introduce ourselves again, then resend.
            self._hello()
            self._resend_after_round = True
            return
        if error.code in AUTH_ERRORS:
            # No token, or the token was refused (expired, revoked): pair again, keep entries.
            self.store.save_pairing(None, None)
            self._awaiting = None
            self._show(self._t("Pair again"), error.message, Screen.PAIR)
            return
        if error.entry_id is not None:
            self.store.remove(error.entry_id)
        if self.screen is Screen.PAIRING:
            self._show(self._t("Pairing refused"), error.message, Screen.PAIR)
        elif error.entry_id is not None and error.entry_id == self._awaiting:
            self._awaiting = None
            refused = fit(self._t("Refused: {code}", code=error.code), self._t("Refused"))
            self._show(refused, error.message, Screen.BOARD)
        elif self.screen is Screen.NEXT_WAIT:
            self._show(self._t("Round not done"), error.message, Screen.SUMMARY)

    # ------------------------------------------------------------------------------ display

    def _render(self) -> tuple[str, str]:
        line1, line2 = self._screen_lines[self.screen]()
        if self._note:
            line2 = self._note
        return line1, line2

    def _header(self, board: int | None) -> str:
        info = self.round
        t = self._t("T{table}", table=self.table)
        if info is None:
            return t
        r, ns_word = self._t("R{round}", round=info.round), self._t("N/S")
        ns, ew = pair_label(info.ns), pair_label(info.ew)
        if board is None:
            return fit(f"{t} {r} {ns_word} {ns}-{ew}", f"{t} {r} {ns}-{ew}")
        b = self._t("B{board}", board=board)
        return fit(
            f"{t} {r} {b} {ns_word} {ns}-{ew}",
            f"{t} {r} {b} {ns}-{ew}",
            f"{t}{r}{b} {ns}-{ew}",
            f"{t} {r} {b}",
        )

    def _show_pair(self) -> tuple[str, str]:
        return self._t("T{table} Pair code:", table=self.table), self._buffer + "_"

    def _show_pairing(self) -> tuple[str, str]:
        return self._t("T{table} Pairing...", table=self.table), self._buffer

    def _show_loading(self) -> tuple[str, str]:
        line2 = self._t("Connecting...") if self.link_up else self._t("No link yet")
        return self._t("T{table}", table=self.table) + " Traveller", line2

    def _show_wait_round(self) -> tuple[str, str]:
        return self._t("T{table}", table=self.table) + " Traveller", self._t("Wait for round 1")

    def _show_seats(self) -> tuple[str, str]:
        info = self.round
        assert info is not None
        t, r = self._t("T{table}", table=self.table), self._t("R{round}", round=info.round)
        ns = self._t("NS") + pair_label(info.ns)
        ew = self._t("EW") + pair_label(info.ew)
        return fit(f"{t} {r} {ns} {ew}", f"{r} {ns} {ew}"), self._t("ENT=OK *=TD")

    def _show_board(self) -> tuple[str, str]:
        status = self.selected
        if status is None:
            return self._header(None), self._t("No boards")
        state = status.state
        if status.board in self.saved_boards():
            hint = self._t("Saved, sending")
        elif state == "missing" and status.deal is not None:
            hint = self._t("ENT=deal 0-7=res")
        elif state in ("missing", "rejected"):
            hint = self._t("0-7=enter *=TD" if state == "missing" else "Rejected ENT=fix")
        elif state == "entered":
            hint = self._t("ENT=EW confirm")
        elif state == "conflict":
            hint = self._t("Conflict: TD")
        elif status.result is not None and status.result.contract is not None:
            hint = result_line(status.result, self.language)
        else:
            hint = self._t(state.replace("_", " "))
        return self._header(status.board), hint

    def _draft_text(self) -> str:
        """The contract keyed so far: "B5 4SX S"."""
        draft = self._draft
        assert draft is not None
        text = self._t("B{board}", board=draft.board)
        if draft.level:
            text += f" {draft.level}{draft.strain or ''}{draft.doubling}"
        if draft.declarer is not None:
            text += f" {i18n.seat(self.language, draft.declarer)}"
        if draft.lead_suit is not None:
            text += f" {draft.lead_suit}{draft.lead_rank or ('1' if draft.lead_high else '')}"
        return text

    def _show_entry(self) -> tuple[str, str]:
        """Line 1 what is keyed, line 2 the keys of the field that is next (or the score)."""
        draft = self._draft
        assert draft is not None
        step = draft.step
        if step == "done":
            enter = "ENT=auction" if self._wants_auction_after() else "ENT=send BK=edit"
            return self._preview_line("?"), self._t(enter)
        text = self._draft_text()
        if step == "level":
            contract = self._t("B{board} contract", board=draft.board)
            if not draft.keys and self._wants_auction():  # ENT keys the auction first
                auction = self._t("B{board} ENT=auction", board=draft.board)
                return fit(auction, contract), self._t("Level 1-7 0=pass")
            return contract, self._t("Level 1-7 0=pass")
        if step == "strain":
            return text, "1C 2D 3H 4S 5NT"
        if step == "declarer":
            return fit(f"{text} *=X", text), self._t("Decl 1N 2E 3S 4W")
        if step == "lead":
            wanted = "Lead 1C 2D 3H 4S" if draft.lead_suit is None else "Card 2-9 0 11-14"
            return text, self._t(wanted)
        if self._relative():
            return fit(f"{text} 0 ^+ v-", text), self._t("Result: {entry}_", entry=draft.tricks)
        return text, self._t("Tricks 0-13: {entry}_", entry=draft.tricks)

    def _preview_line(self, mark: str = "") -> str:
        """The result keyed and its N/S score: "4SX S -2 -500" (``mark``: "?" before sending)."""
        draft = self._draft
        assert draft is not None
        result = draft.table_result()
        if result is None or result.declarer is None:
            return "PASS 0" + mark
        status = self._status(draft.board)
        vul = Vulnerability(status.vulnerability) if status else Vulnerability.NONE
        score = signed(result_ns_score(result, vul))
        c, d = str(result.contract), i18n.seat(self.language, result.declarer.value)
        res = result.result
        return fit(
            f"{c} {d} {res} {score}{mark}",
            f"{c} {d}{res} {score}{mark}",
            f"{c}{d}{res} {score}{mark}",
        )

    def _show_sending(self) -> tuple[str, str]:
        return self._preview_line(), self._sending()

    def _show_ew_confirm(self) -> tuple[str, str]:
        """The result for East, and which key confirms and which rejects."""
        assert self._pending_view is not None
        line1 = result_line(self._pending_view, self.language)
        if not self._pin_required:
            return line1, self._t("EW:ENT=OK BK=no")
        if not self._buffer:
            return line1, self._t("EW PIN, then ENT")
        return line1, "*" * len(self._buffer) + "_"

    def _show_confirming(self) -> tuple[str, str]:
        assert self._pending_view is not None
        return result_line(self._pending_view, self.language), self._sending()

    def _show_summary(self) -> tuple[str, str]:
        info = self.round
        assert info is not None
        boards = info.boards
        done = sum(b.state in COMPLETE_STATES for b in boards)
        if self._summary_index < 0 or not boards:
            line1 = fit(
                self._t(
                    "R{round} done {done}/{total}", round=info.round, done=done, total=len(boards)
                )
            )
            if not info.complete:
                return line1, self._t("ENT=boards ^v")
            return line1, self._t("Last round ^v" if self._last_round else "ENT=next round")
        status = boards[self._summary_index % len(boards)]
        if status.result is not None and status.result.contract is not None:
            line2 = result_line(status.result, self.language)
        else:
            line2 = self._t(status.state.replace("_", " "))
        board = self._t("B{board}", board=status.board)
        return fit(f"{board} {self._t(status.state.replace('_', ' '))}"), line2

    def _show_next_wait(self) -> tuple[str, str]:
        """Where each pair of the table goes next, a line a pair and named by its number (as
        the terminal says "Pair 3: table 3 North-South"): "Pair 5>T4 EW" is pair 5 to table 4
        as E/W, whichever seat it has now. In an individual, two players a line (N and E, then
        S and W): "3>T2E 7 out" is player 3 to table 2 as East, and player 7 sits out. Without
        the movement's word: wait for the TD."""
        info = self.round
        assert info is not None
        done = fit(self._t("R{round} done, wait", round=info.round))
        if any(p.player for p in info.next):
            moves = [self._move(p) for p in info.next[:4]]
            return fit(" ".join(moves[:2])), fit(" ".join(moves[2:]))
        moves = [self._move(p) for p in info.next[:2]]
        if not moves:
            return done, self._t("for the TD")
        return (moves[0], moves[1]) if len(moves) == 2 else (done, moves[0])

    def _move(self, position: NextPosition) -> str:
        if position.player:
            player = position.pair
            if position.table is None or position.seat is None:
                return self._t("{player} out", player=player)
            seat = i18n.seat(self.language, position.seat)
            return self._t(
                "{player}>T{table}{seat}", player=player, table=position.table, seat=seat
            )
        pair = position.pair.replace(" ", "")  # "3 NS" -> "3NS", as the seat screen shows pairs
        if position.table is None or position.seat is None:
            return fit(self._t("Pair {pair} out", pair=pair))
        side = "".join(i18n.seat(self.language, letter) for letter in position.seat)
        return fit(
            self._t("Pair {pair}>T{table} {side}", pair=pair, table=position.table, side=side)
        )

    def _show_call_td(self) -> tuple[str, str]:
        return self._t("Call the TD?"), self._t("ENT=yes BACK=no")

    def _show_td_wait(self) -> tuple[str, str]:
        return self._t("Calling the TD"), self._sending()

    def _show_message(self) -> tuple[str, str]:
        return self._message

    def _show_auction(self) -> tuple[str, str]:
        assert self._auction is not None
        return self._auction.lines(self.language)

    def _show_deal(self) -> tuple[str, str]:
        assert self._deal is not None
        return self._deal.lines(self.language)

    def _show_deal_wait(self) -> tuple[str, str]:
        assert self._deal is not None
        return self._t("B{board} deal", board=self._deal.board), self._sending()

    def _sending(self) -> str:
        return self._t("Sending...") if self.link_up else self._t("Saved, no link")

    def _t(self, message: str, **fields: object) -> str:
        """A text in the keypad's language."""
        return i18n.text(self.language, message, **fields)


def replace_keys(draft: Draft, keys: tuple[str, ...]) -> Draft:
    """A fresh draft of the same board and event settings, with ``keys`` pressed."""
    fresh = Draft(draft.board, draft.tricks_style, draft.lead_required)
    return grammar.replay(fresh, keys)


__all__ = [
    "WIDTH",
    "Device",
    "Draft",
    "Key",
    "Screen",
    "StoredCommand",
    "fit",
    "lcd",
    "result_line",
]
