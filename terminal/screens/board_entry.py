"""One board (§ 262B): North keys the result, sees the score at once, and hands over to East."""

from __future__ import annotations

import asyncio
import contextlib

from textual.app import ComposeResult
from textual.widgets import Static

from protocol.messages import (
    AGREED_STATES,
    COMPLETE_STATES,
    BoardResultView,
    BoardStatus,
    EntryValues,
)
from terminal import i18n
from terminal.i18n import N_, _
from terminal.keypad import ScoredDraft, keys_for
from terminal.rules import CORRECTABLE
from terminal.widgets.contract_input import ContractInput
from terminal.widgets.score_preview import ScorePreview

from .base import TableScreen
from .board_flow import BoardFlow
from .confirm import ConfirmScreen, EastAnswer, board_line, view_words
from .deal_entry import DealEntryScreen
from .navigation import ShowReport, ShowSummary
from .notice import HelpScreen, MenuScreen
from .questions import QuestionScreen, TdCodeScreen

#: Seconds to wait for the server's word on an entry (the lead, the tricks) before East is
#: asked all the same; a later refusal still comes back as a notice.
CHECK_WAIT = 3.0
#: States of a board the table has played and agreed.
PLAYED = AGREED_STATES

EDIT_HINTS = N_("Enter = send   Backspace = undo   ←→ board   / summary   . menu")
#: While a field is still to key, Enter sends nothing: the hints do not offer it.
KEYING_HINTS = N_("Backspace = undo   ←→ board   / summary   . menu")
STEP_HINTS = N_("Enter = {step}   Backspace = undo   ←→ board   / summary   . menu")
#: What Enter opens next (BoardFlow.enter_step), for STEP_HINTS.
STEP_WORDS = {
    "deal": N_("key the deal"),
    "first": N_("key the auction"),
    "auction": N_("key the auction"),
    "play": N_("key the play"),
}
VIEW_HINTS = N_("Enter = {enter}   Backspace = correct   ←→ board   / summary   . menu")
#: The same with * for the board's score, traveller or deal: tighter, to fit 80 columns.
MORE_HINTS = N_("Enter = {enter}  Backspace = correct  ←→  / summary  . menu  * {more}")
STEP_NAMES = {
    "level": N_("the level"),
    "strain": N_("the suit"),
    "declarer": N_("the declarer"),
    "lead": N_("the opening lead"),
    "tricks": N_("the tricks"),
}
STATE_TEXT = {
    "missing": N_("North: key the result."),
    "entered": N_("Sent. Waiting for East to confirm."),
    "rejected": N_("East rejected the result. North: enter it again."),
    "confirmed": N_("Confirmed ✓"),
    "td_pending": N_("Confirmed ✓  A TD ruling is pending."),
    "not_played": N_("Not played at this table (TD)."),
    "adjusted": N_("Adjusted score from the TD."),
    "conflict": N_("Two different results: the TD has been called and decides."),
}


class BoardEntryScreen(TableScreen):
    """Key a board's result with the keypad grammar, or look at (and correct) a stored one."""

    HINTS = EDIT_HINTS

    def __init__(self, board: int, *, ask_east: bool = False) -> None:
        super().__init__()
        self.board = board
        self.ask_east = ask_east  # open East's confirmation at once if the board awaits it
        self.editing = False
        self.correcting: BoardResultView | None = None
        self.ruling_pending = False
        self.checking = False
        self.flow = BoardFlow(self)

    def compose_body(self) -> ComposeResult:
        """Board line, state line, the contract input and the live score."""
        yield Static("", id="board-title", classes="title")
        yield Static("", id="board-state")
        yield ContractInput(self._fresh_draft(), id="contract")
        yield ScorePreview(id="preview")

    def on_mount(self) -> None:
        """Show the board (and, when asked, East's confirmation of the result it awaits)."""
        self.load_board(self.board)
        status = self.status
        if self.ask_east and status and status.state == "entered" and status.result:
            self._ask_east(status, status.result)

    async def relabel(self) -> None:
        """The language changed while keying: the same keys, shown again in new words."""
        keys = self.input.draft.keys
        await self.recompose()
        self.input.locked = not self.editing
        self.input.load(self._fresh_draft(), keys)
        self.refresh_body()

    # ------------------------------------------------------------------ state

    @property
    def status(self) -> BoardStatus | None:
        """The board as the client shows it."""
        return self.client.board(self.board)

    @property
    def input(self) -> ContractInput:
        """The contract input widget."""
        return self.query_one("#contract", ContractInput)

    def _fresh_draft(self) -> ScoredDraft:
        info = self.client.round
        if info is None:
            return ScoredDraft(self.board)
        return ScoredDraft(self.board, info.tricks_style, info.lead_required)

    def _stored_keys(self, view: BoardResultView) -> tuple[str, ...]:
        draft = self._fresh_draft()
        return keys_for(view, draft.tricks_style, draft.lead_required)

    def load_board(self, board: int) -> None:
        """Show ``board``: ready to key when it has no result, else its result."""
        self.board = board
        self.correcting = None
        self.ruling_pending = False
        self.flow.reset()
        status = self.status
        state = status.state if status else "missing"
        self.editing = state in ("missing", "rejected")
        keys: tuple[str, ...] = ()
        if status is not None and status.result is not None and status.result.contract:
            keys = self._stored_keys(status.result)
            if self.editing:  # rejected: the auction and play keyed go again unless changed
                self.flow.keep(status.result)
        self.input.locked = not self.editing
        self.input.load(self._fresh_draft(), keys)
        self.say("")
        self.refresh_body()

    def load_keys(self, keys: tuple[str, ...]) -> None:
        """Key the draft again from ``keys`` (the contract from the auction, the lead and the
        tricks from the play)."""
        self.input.load(self._fresh_draft(), keys)
        self.refresh_body()

    def refresh_body(self) -> None:
        """Redraw the board line, the state and the preview."""
        info = self.client.round
        status = self.status
        if info is None or status is None:
            self.query_one("#board-title", Static).update(
                _("Board {board}").format(board=self.board)
            )
            self.query_one("#board-state", Static).update(_("This board is not in this round."))
            return
        numbers = [b.board for b in info.boards]
        position = _("board {number} of {count}").format(
            number=numbers.index(self.board) + 1, count=len(numbers)
        )
        self.query_one("#board-title", Static).update(f"{board_line(status)}   ·   {position}")
        self.query_one("#board-state", Static).update(self._state_text(status))
        self._show_preview()
        if self.editing:
            self.set_hints(self._edit_hints())
        else:
            enter = _("East confirms") if status.state == "entered" else _("next board")
            if self._has_more(status):
                self.set_hints(_(MORE_HINTS).format(enter=enter, more=self._more_word()))
            else:
                self.set_hints(_(VIEW_HINTS).format(enter=enter))

    def _edit_hints(self) -> str:
        """The keys while North keys the result, Enter as it acts now (BoardFlow.enter_step)."""
        step = self.flow.enter_step()
        if step == "send":
            return _(EDIT_HINTS)
        if step is None:
            return _(KEYING_HINTS)
        return _(STEP_HINTS).format(step=_(STEP_WORDS[step]))

    def _has_more(self, status: BoardStatus) -> bool:
        """A confirmed board may show its score or traveller, and the deal (as the event
        allows: "nothing" after a board shows nothing, not the deal either)."""
        if status.state not in PLAYED:
            return False
        return self.client.settings.after_confirm != "nothing"

    def _more_word(self) -> str:
        after = self.client.settings.after_confirm
        return {"score": _("score"), "traveller": _("traveller")}.get(after, _("deal"))

    def _state_text(self, status: BoardStatus) -> str:
        if self.correcting is not None:
            text = _("Correcting: key the result again. East must confirm it again.")
        elif self.editing and status.state == "entered":
            text = _(STATE_TEXT["missing"])
        else:
            text = _(STATE_TEXT[status.state])
            if status.state == "adjusted" and status.result and status.result.adjusted:
                text += f" ({status.result.adjusted})"
        if self.ruling_pending:
            text += "   " + _("(TD ruling pending)")
        if self.editing and not self.input.draft.keys and self.flow.wants_auction():
            text += "\n" + _("Enter = key the auction first (the contract follows from it).")
        if status.deal == "enter":
            text += "\n" + _("Hand-dealt board: key its deal (Enter, or . menu 7).")
        elif status.deal == "check":
            text += "\n" + _("Hand-dealt board: check its deal with North's hand (. menu 7).")
        if self.flow.auction:
            text += "\n" + _("Auction keyed ✓")
            if self.flow.play:
                text += "   " + _("Play keyed ✓")
        if self.board in self.client.waiting_boards():
            text += "   " + _("(not yet at the server)") if not self.client.online else ""
        return text

    def _show_preview(self) -> None:
        preview = self.query_one("#preview", ScorePreview)
        draft = self.input.draft
        if self.editing:
            step = draft.step
            needed = "" if step == "done" else _("Still to key: {field}.")
            preview.show(draft.scored(), needed.format(field=_(STEP_NAMES.get(step, ""))))
            return
        status = self.status
        view = status.result if status else None
        if view is not None and view.description:
            preview.query_one("#preview-score", Static).update(i18n.score_line(view.ns_score))
            preview.query_one("#preview-words", Static).update(view_words(view))
            preview.set_class(True, "scored")
        else:
            preview.show(None, "")

    # ------------------------------------------------------------------ keys

    def on_contract_input_changed(self, message: ContractInput.Changed) -> None:
        """A key was taken: clear the message, update the live score and what Enter does."""
        self.say("")
        self._show_preview()
        if self.editing:
            self.set_hints(self._edit_hints())

    def on_contract_input_refused(self, message: ContractInput.Refused) -> None:
        """A key did not fit: say what would."""
        self.say(message.reason)

    def take_key(self, key: str) -> bool:
        """The entry keys; see terminal/keypad.py for the grammar."""
        if self.checking:
            self.say(_("Checking the entry with the server…"))
            return True
        if key in ("left", "up", "right", "down"):
            self._step_board(-1 if key in ("left", "up") else 1)
        elif key == "/":
            self.terminal.show(ShowSummary())
        elif key == ".":
            status = self.status
            deal = bool(status is not None and status.deal)
            self.app.push_screen(MenuScreen(deal=deal), self._menu_chosen)
        elif key == "enter":
            self._enter()
        elif key == "backspace":
            self._backspace()
        elif key == "escape":
            return False
        elif self.editing:
            self.input.press(key)
        elif key == "*" and self.status is not None and self._has_more(self.status):
            self.terminal.show(ShowReport(self.board, after_confirm=False))
        else:
            self.say(
                _("Board {board} has a result. Backspace = correct it.").format(board=self.board)
            )
        return True

    def _step_board(self, step: int) -> None:
        info = self.client.round
        if info is None or not info.boards:
            return
        numbers = [b.board for b in info.boards]
        index = numbers.index(self.board) if self.board in numbers else 0
        self.load_board(numbers[(index + step) % len(numbers)])

    def _backspace(self) -> None:
        if self.editing:
            if self.input.backspace():
                return
            if self.flow.auction or self.flow.play:  # the draft is empty: take them back too
                self.flow.reset()
                self.say(_("The auction and the play are taken back."))
            elif self.correcting is not None:
                self.load_board(self.board)
            return
        status = self.status
        info = self.client.round
        if status is None or status.result is None or status.state not in CORRECTABLE:
            self.say(_("This board cannot be changed at the table. Call the TD (. menu)."))
            return
        if info is not None and not info.round_open:
            self.say(_("The round is closed. Only the TD can change this board now."))
            return
        self._correct(status.result, self._stored_keys(status.result))

    def _correct(self, view: BoardResultView, keys: tuple[str, ...]) -> None:
        """North keys the stored result again, starting from ``keys``."""
        self.editing = True
        self.correcting = view
        self.flow.keep(view)
        self.ruling_pending = view.ruling_pending
        self.input.locked = False
        self.input.load(self._fresh_draft(), keys)
        self.refresh_body()

    def _enter(self) -> None:
        status = self.status
        if status is None:
            return
        if not self.editing:
            if status.state == "entered" and status.result is not None:
                self._ask_east(status, status.result)
            else:
                self.terminal.goto_next_board(after=self.board)
            return
        self.flow_step()

    def flow_step(self) -> None:
        """The next step of the board (the deal, the auction, the play), or send the entry."""
        if self.flow.next_step():
            return
        draft = self.input.draft
        keyed = draft.values()
        if keyed is None or draft.scored() is None:
            step = draft.step
            field = _(STEP_NAMES.get(step, STEP_NAMES["tricks"]))
            self.say(_("Still to key: {field}.").format(field=field))
            return
        values = self.flow.values(keyed)
        if self.client.settings.hand_records and self.client.online:
            self.checking = True
            self.say(_("Checking the entry with the server…"))
            self.run_worker(self._send_then_check(values), exclusive=True)
            return
        self._send(values)

    async def _send_then_check(self, values: EntryValues) -> None:
        """Send the entry and wait for the server's word: it checks the lead against the hand
        record and the tricks against double dummy only on the entry itself (a question before
        it would tell the cards, docs/rules.md § 11). A refusal brings the keys back to North; a
        warning asks "are you sure?" before East confirms."""
        self._queue(values)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(CHECK_WAIT):
                # TableClient offers no event to await for a board's delivery: poll it.
                while self.board in self.client.waiting_boards() and self.client.online:  # noqa: ASYNC110
                    await asyncio.sleep(0.05)
        self.checking = False
        self.say("")
        note = self.client.entry_note(self.board)
        if note is not None and note.refused:  # North still has the keys: change and resend
            self.flow.refused()
            self.refresh_body()
            self.say(note.text)
            return
        status = self.status
        if status is None or status.state != "entered" or status.result is None:
            self.load_board(self.board)
            return
        view = status.result
        if note is None:
            self.load_board(self.board)
            self._ask_east(status, view)
            return

        def answered(sure: bool | None) -> None:
            if sure:
                self.load_board(self.board)
                self._ask_east(status, view)
            else:  # stored: North corrects it, from the keys as they are
                self.correcting = view
                self.ruling_pending = view.ruling_pending
                self.refresh_body()
                self.say(_("Change the result, then Enter sends it."))

        question = QuestionScreen(
            _("Are you sure?"), note.text, _("yes, it is right: send it"), _("no, change it")
        )
        self.app.push_screen(question, answered)

    def _queue(self, values: EntryValues) -> None:
        """Queue the entry (or the correction): sent at once, or when the link is back."""
        if self.correcting is not None:
            self.client.correct(
                self.board, self.correcting.version, values, ruling_pending=self.ruling_pending
            )
        else:
            self.client.enter(self.board, values, ruling_pending=self.ruling_pending)

    def _send(self, values: EntryValues) -> None:
        """Queue the entry (or the correction) and hand over to East."""
        self._queue(values)
        self.load_board(self.board)
        status = self.status
        if status is not None and status.state == "entered" and status.result is not None:
            self._ask_east(status, status.result)

    def _ask_east(self, status: BoardStatus, view: BoardResultView) -> None:
        info = self.client.round
        pin = info.confirm_pin_required if info else False
        screen = ConfirmScreen(status, view, pin_required=pin, guard=self.terminal.confirm_guard)

        def answered(answer: EastAnswer | None) -> None:
            self._east_answered(view, answer)

        self.app.push_screen(screen, answered)

    def _east_answered(self, view: BoardResultView, answer: EastAnswer | None) -> None:
        if answer is None:
            self.refresh_body()
            return
        if answer.decision == "reject":
            self.client.reject(view)
            self.load_board(self.board)
            return
        self.client.confirm(view, answer.pin)
        status = self.status
        if status is not None and status.deal and not self.flow.deal_offered:
            self.flow.deal_offered = True
            screen = DealEntryScreen(self.board, status.deal)
            self.app.push_screen(screen, lambda _hands: self._after_east())
            return
        self._after_east()

    def _after_east(self) -> None:
        status = self.status
        if status is not None and status.state in COMPLETE_STATES:
            if self.client.settings.after_confirm != "nothing" and self.client.online:
                self.terminal.show(ShowReport(self.board, after_confirm=True))
            else:
                self.terminal.goto_next_board(after=self.board)
        else:
            self.load_board(self.board)

    def _menu_chosen(self, choice: str | None) -> None:
        if choice == "summary":
            self.terminal.show(ShowSummary())
        elif choice == "call_td":
            self.client.call_td(f"Called from the table at board {self.board}.")
            self.terminal.show_notice(
                _("The TD has been called"), _("Please stay at the table. The TD will come.")
            )
        elif choice == "ruling":
            if self.editing:
                self.ruling_pending = not self.ruling_pending
                self.refresh_body()
            else:
                self.say(_("Mark a ruling while keying the result (Backspace = correct)."))
        elif choice == "help":
            self.app.push_screen(HelpScreen())
        elif choice == "not_played":
            if not self.client.online:
                self.say(_("Marking a board not played needs the server. Call the TD."))
                return

            def marked(done: bool | None) -> None:
                if done:
                    self.terminal.goto_next_board(after=self.board)

            self.app.push_screen(TdCodeScreen(self.client, self.board), marked)
        elif choice == "deal":
            status = self.status
            if status is None or status.deal is None:
                self.say(_("This board's deal is not asked of this table."))
            else:
                self.flow.open_deal()
        elif choice == "language":
            self.run_worker(self.terminal.switch_language(), group="language")
