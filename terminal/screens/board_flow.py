"""The steps beyond the result on the board screen, as the event takes them: the
deal of a hand-dealt board (DealEntryScreen), the auction (AuctionScreen) and the play
(PlayScreen). North keys the result and the auction after it, or the auction first (the
contract and declarer then follow from it, and the play gives the lead and the tricks).

The board screen calls :meth:`BoardFlow.next_step` on Enter; each step's screen comes back
here and the flow goes on, until the entry is ready to send."""

from __future__ import annotations

from typing import Any, Literal, Protocol

from textual.app import App

from protocol.bridge import BridgeError, TableResult
from protocol.bridge.auction import Auction
from protocol.bridge.deal import parse_deal
from protocol.bridge.play import parse_play
from protocol.keys import keys_for
from protocol.messages import (
    AlertExplanation,
    BoardResultView,
    BoardStatus,
    EntryValues,
    ResultState,
)
from terminal import i18n
from terminal.client import TableClient
from terminal.i18n import _
from terminal.widgets.contract_input import ContractInput

from .auction import AuctionScreen
from .deal_entry import DealEntryScreen
from .play import PlayScreen

#: What Enter does next on the board screen (:meth:`BoardFlow.enter_step`).
EnterStep = Literal["deal", "first", "auction", "play", "send"]


class BoardSteps(Protocol):
    """The board screen as the flow sees it (``BoardEntryScreen``, which holds the flow)."""

    board: int

    @property
    def app(self) -> App[object]:
        """The app, to open a step's dialog."""
        ...

    @property
    def client(self) -> TableClient:
        """The server client."""
        ...

    @property
    def status(self) -> BoardStatus | None:
        """The board as the client shows it."""
        ...

    @property
    def input(self) -> ContractInput:
        """The result being keyed."""
        ...

    def say(self, text: str) -> None:
        """A message in plain words above the key hints."""

    def load_keys(self, keys: tuple[str, ...]) -> None:
        """Key the result again from ``keys``."""

    def refresh_body(self) -> None:
        """Redraw the board."""

    def flow_step(self) -> None:
        """The next step of the board, or send the entry."""


class BoardFlow:
    """What the board screen keeps of the auction and the play keyed for its board."""

    def __init__(self, screen: BoardSteps) -> None:
        self.screen = screen
        self.reset()

    def reset(self) -> None:
        """A new board: nothing keyed beyond the result."""
        self.auction: str | None = None  # "" when North went on without one
        self.auction_calls = ""  # calls keyed that did not agree with the contract
        self.explanations: dict[int, str] = {}  # alerted calls explained: number -> text
        self.auction_first = False
        self.play: str | None = None  # "" when North went on without it
        self.play_checked = False  # the tricks played were compared with the tricks keyed
        self.deal_offered = False
        self.refused_play = ""  # a play the server refused: Enter opens it again to change it

    # ------------------------------------------------------------------ where we are

    @property
    def settings(self) -> Any:
        """The event's table settings."""
        return self.screen.client.settings

    def wants_deal(self) -> bool:
        """The server asks this table for the board's deal, and it has not been offered yet."""
        status = self.screen.status
        return bool(status and status.deal and not self.deal_offered)

    def wants_auction(self) -> bool:
        """The event takes the auction and none has been keyed (or skipped)."""
        return self.settings.auction_entry != "off" and self.auction is None

    def wants_play(self, contract: str | None) -> bool:
        """The event takes the play, there is a contract to play, and none has been keyed.
        The play is optional: it is keyed in place of the lead and tricks (Enter at the lead or
        the tricks) or not at all, so a complete result is sent on Enter and costs no key more."""
        return (
            self.settings.play_entry != "off"
            and self.play is None
            and bool(contract)
            and contract != "PASS"
        )

    def wants_auction_after(self) -> bool:
        """The auction is asked for after a complete result only when the event requires it:
        an optional one is keyed first (Enter on an empty result) or not at all, so that a
        result takes no key more than without the auction."""
        return self.settings.auction_entry == "required" and self.auction is None

    def enter_step(self) -> EnterStep | None:
        """What Enter does next on the board: key the deal, the auction (``first``: before the
        contract) or the play, send the entry, or nothing (None: a field is still to key)."""
        draft = self.screen.input.draft
        if not draft.keys and self.wants_deal():
            return "deal"
        if not draft.keys and self.wants_auction():
            return "first"
        if draft.values() is None:
            at_lead = draft.step in ("lead", "tricks") and not draft.lead_suit
            if at_lead and self.wants_play(draft.contract):  # the play gives lead and tricks
                return "play"
            return None  # the board screen says what is still to key
        if self.wants_auction_after():
            return "auction"
        if self.refused_play and self.wants_play(draft.contract):
            return "play"  # the play the server refused, to change it
        return "send"

    def next_step(self) -> bool:
        """Open the next step's screen; False when the entry is ready to send."""
        draft = self.screen.input.draft
        step = self.enter_step()
        if step == "deal":
            self.open_deal()
            return True
        if step in ("first", "auction"):
            self.open_auction(first=step == "first")
            return True
        if step == "play":
            self.open_play(draft.contract or "", draft.declarer or "")
            return True
        if step is None:
            return False
        if self.play and not self.play_checked:
            self.play_checked = True
            warning = self.tricks_warning(draft.values())
            if warning:
                self.screen.say(warning)
                return True
        return False

    def keep(self, view: BoardResultView) -> None:
        """A stored result keyed again (rejected, or corrected): its auction and play go with
        it unless North takes them back (Backspace on an empty result)."""
        if view.auction:
            self.auction, self.auction_first = view.auction, False
            self.explanations = {note.call: note.text for note in view.alerts or ()}
        if view.play:
            self.play, self.play_checked = view.play, True

    def refused(self) -> None:
        """The server refused the entry: a play keyed is opened again on Enter (with its
        cards, Backspace takes them back), the auction is kept."""
        if self.play:
            self.refused_play, self.play, self.play_checked = self.play, None, False

    # ------------------------------------------------------------------ the deal

    def open_deal(self) -> None:
        """Key the four hands, or check one (as the server asks)."""
        status = self.screen.status
        if status is None or status.deal is None:
            return
        self.deal_offered = True
        screen = DealEntryScreen(self.screen.board, status.deal)
        self.screen.app.push_screen(screen, lambda _hands: self.go_on())

    # ------------------------------------------------------------------ the auction

    def open_auction(self, *, first: bool) -> None:
        """Key the calls; ``first``: before the contract (which then follows from them)."""
        status = self.screen.status
        if status is None:
            return
        optional = self.settings.auction_entry == "optional"
        screen = AuctionScreen(
            self.screen.board,
            status.dealer,
            optional=optional,
            calls=self.auction_calls,
            explanations=self.explanations,
        )

        def keyed(text: str | None) -> None:
            self.auction_keyed(text, first, screen.explanations)

        self.screen.app.push_screen(screen, keyed)

    def auction_keyed(
        self, text: str | None, first: bool, explanations: dict[int, str] | None = None
    ) -> None:
        """The auction screen came back (with the explanations typed): go on, or say why not."""
        if text is None:
            return
        self.explanations = dict(explanations or {}) if text else {}
        if not text:
            self.auction = ""
            if not first:
                self.go_on()
            return
        status = self.screen.status
        assert status is not None
        outcome = Auction(status.dealer, text.split()).outcome()
        contract = str(outcome.contract) if outcome.declarer is not None else "PASS"
        declarer = outcome.declarer.value if outcome.declarer is not None else None
        draft = self.screen.input.draft
        if first:
            self.auction, self.auction_first = text, True
            self.screen.load_keys(self.keys_of(contract, declarer))
            self.go_on()
            return
        if draft.contract != contract or (declarer is not None and draft.declarer != declarer):
            self.auction_calls = text
            said = i18n.contract(contract)
            if declarer:
                said += " " + _("by {declarer}").format(declarer=i18n.seat_name(declarer))
            self.screen.say(
                _(
                    "The auction ends in {contract}, not as keyed: check the contract or the "
                    "auction (Enter = the auction again)."
                ).format(contract=said)
            )
            return
        self.auction, self.auction_calls = text, ""
        self.go_on()

    # ------------------------------------------------------------------ the play

    def open_play(self, contract: str, declarer: str) -> None:
        """Key the cards of the contract played."""
        strain = contract[1:].rstrip("X")
        deal = self.screen.client.keyed_deals.get(self.screen.board)
        hands = parse_deal(deal) if deal else None
        screen = PlayScreen(self.screen.board, strain, declarer, hands, text=self.refused_play)
        self.screen.app.push_screen(screen, self.play_keyed)

    def play_keyed(self, text: str | None) -> None:
        """The play screen came back: the lead and tricks follow when still to key."""
        if text is None:
            return
        self.play, self.refused_play = text, ""
        draft = self.screen.input.draft
        if text and draft.step in ("lead", "tricks"):
            self.play_checked = True
            self.screen.load_keys(self.keys_with_play(draft.contract or "", draft.declarer, text))
        self.go_on()

    def tricks_warning(self, values: EntryValues | None) -> str | None:
        """The tricks played differ from the tricks keyed: say so once (Enter sends all the
        same, and the server calls the TD)."""
        if values is None or not self.play:
            return None
        played = self._played_tricks(values.contract, values.declarer, self.play)
        try:
            keyed = TableResult.make(values.contract, values.declarer, values.tricks).tricks
        except BridgeError:
            return None
        if played is None or played == keyed:
            return None
        return _(
            "The play gives declarer {played} tricks, the result {keyed}. Check the result; "
            "Enter sends it as it is and the TD is called."
        ).format(played=played, keyed=keyed)

    @staticmethod
    def _played_tricks(contract: str, declarer: str | None, text: str) -> int | None:
        try:
            play = parse_play(text, contract[1:].rstrip("X"), declarer or "")
        except BridgeError:
            return None
        return play.declarer_tricks() if play.ended else None

    # ------------------------------------------------------------------ keys and values

    def keys_of(
        self,
        contract: str,
        declarer: str | None,
        tricks: int | None = None,
        lead: str | None = None,
    ) -> tuple[str, ...]:
        """The draft's keys for a contract (and declarer, lead, tricks) from the auction/play."""
        draft = self.screen.input.draft
        result = None
        if tricks is not None and contract != "PASS":
            result = TableResult.make(contract, declarer, tricks).result
        view = BoardResultView(
            board=self.screen.board,
            round=0,
            table=0,
            state=ResultState.ENTERED,
            version=0,
            contract=contract,
            declarer=declarer,
            tricks=tricks,
            result=result or None,
            lead=lead,
        )
        return keys_for(view, draft.tricks_style, draft.lead_required)

    def keys_with_play(self, contract: str, declarer: str | None, text: str) -> tuple[str, ...]:
        """The draft's keys when the play has given the lead and the tricks."""
        tricks = self._played_tricks(contract, declarer, text)
        lead = text.split()[0] if text and not text.startswith("=") else None
        return self.keys_of(contract, declarer, tricks, lead)

    def values(self, values: EntryValues) -> EntryValues:
        """The entry with the auction and play keyed; the contract and declarer left to the
        server ("" and None) when they came from the auction alone."""
        update: dict[str, Any] = {}
        if self.auction:
            update["auction"] = self.auction
            if self.explanations:
                update["alerts"] = [
                    AlertExplanation(call=call, text=text)
                    for call, text in sorted(self.explanations.items())
                ]
            if self.auction_first and self._agrees(values):
                update["contract"], update["declarer"] = "", None
        if self.play:
            update["play"] = self.play
            if values.lead is None and not self.play.startswith("="):
                update["lead"] = self.play.split()[0]
        return values.model_copy(update=update) if update else values

    def _agrees(self, values: EntryValues) -> bool:
        status = self.screen.status
        if status is None or not self.auction:
            return False
        outcome = Auction(status.dealer, self.auction.split()).outcome()
        declarer = outcome.declarer.value if outcome.declarer is not None else None
        contract = str(outcome.contract) if declarer is not None else "PASS"
        return values.contract == contract and values.declarer == declarer

    def go_on(self) -> None:
        """After a step: the next one, or send the entry."""
        self.screen.refresh_body()
        self.screen.flow_step()
