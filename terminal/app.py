"""TravellerTerminal: the table terminal app; it routes client events to the screens and
builds the screen for each place a screen asks to go to (terminal/screens/navigation.py)."""

from __future__ import annotations

from textual.app import App
from textual.screen import Screen

from protocol.languages import next_language, normalise
from protocol.messages import COMPLETE_STATES

from . import i18n
from .client import TableClient
from .events import (
    ClientEvent,
    CommandRefused,
    ConflictReported,
    RoundUpdated,
    SettingsUpdated,
    StatusChanged,
    Unpaired,
)
from .messages import ClientNotice
from .screens.base import TableScreen
from .screens.board_entry import BoardEntryScreen
from .screens.confirm import ConfirmScreen
from .screens.navigation import (
    Place,
    ShowBoard,
    ShowPairing,
    ShowPlayers,
    ShowRanking,
    ShowReport,
    ShowSeatCheck,
    ShowSummary,
    TableTerminal,
)
from .screens.notice import NoticeScreen
from .screens.pairing import PairingScreen
from .screens.players import PlayersScreen
from .screens.ranking import RankingScreen
from .screens.report import BoardReportScreen
from .screens.seat_check import SeatCheckScreen
from .screens.summary import SummaryScreen


class TravellerTerminal(App[None]):
    """The table terminal: pairing, seat check, board entry, East's confirmation, round gate."""

    CSS_PATH = "app.tcss"
    TITLE = "Traveller"
    ENABLE_COMMAND_PALETTE = False

    def __init__(
        self, client: TableClient, *, confirm_guard: float = 0.5, device: str = "terminal"
    ) -> None:
        super().__init__()
        self.client = client
        self.confirm_guard = confirm_guard
        self.device = device
        self.seated_round: int | None = None
        i18n.set_language(self.chosen_language())

    def chosen_language(self) -> str | None:
        """The players' choice at this table (this event), else the event's (None: neither is
        known yet, and the screens show English)."""
        info = self.client.round
        return self.client.config.chosen_language() or normalise(info.language if info else None)

    async def switch_language(self) -> None:
        """The players' key: the next language, remembered for this table, screens redrawn."""
        language = next_language(i18n.language())
        self.client.remember_language(language)
        await self.show_language(language)

    async def show_language(self, language: str) -> None:
        """Redraw every full screen in ``language`` (when it is not the one shown)."""
        shown = i18n.language()
        i18n.set_language(language)
        if language == shown:
            return
        for screen in self.screen_stack:
            if isinstance(screen, TableScreen):
                await screen.relabel()

    def on_mount(self) -> None:
        """Start the client and show the first screen."""
        i18n.set_language(self.chosen_language())
        self.client.start(self._client_event)
        info = self.client.round
        if not self.client.config.paired:
            self.push_screen(screen_for(ShowPairing()))
        elif info is not None and self.client.seated_round == info.round:
            # A restart (even after kill -9) mid-round: the seats were confirmed already, so
            # back to the board in hand, East's confirmation open if it waits for East.
            self.seated_round = info.round
            self.goto_next_board(ask_east=True)
        else:
            self.push_screen(screen_for(ShowSeatCheck()))

    def _client_event(self, event: ClientEvent) -> None:
        self.post_message(ClientNotice(event))

    # ------------------------------------------------------------------ navigation

    def show(self, place: Place) -> None:
        """Go to the screen of ``place`` (closing any dialog on top of the current one)."""
        self.goto(screen_for(place))

    def goto(self, screen: Screen[None]) -> None:
        """Replace the current full screen (closing any dialog on top of it)."""
        while len(self.screen_stack) > 2:
            self.pop_screen()
        if len(self.screen_stack) < 2:
            self.push_screen(screen)
        else:
            self.switch_screen(screen)

    def seats_confirmed(self) -> None:
        """Players confirmed their seats: go to the first board still to do."""
        info = self.client.round
        if info is None:
            return
        self.seated_round = info.round
        self.client.remember_seated(info.round)
        self.goto_next_board()

    def goto_next_board(self, after: int | None = None, *, ask_east: bool = False) -> None:
        """The next board that is not finished (after ``after``), or the round summary;
        ``ask_east``: open East's confirmation there if the board awaits it."""
        info = self.client.round
        if info is None:
            return
        numbers = [b.board for b in info.boards]
        if after in numbers:
            start = numbers.index(after) + 1
            numbers = numbers[start:] + numbers[:start]
        todo = [n for n in numbers if self._unfinished(n)]
        if todo:
            self.show(ShowBoard(todo[0], ask_east=ask_east))
        else:
            self.show(ShowSummary())

    def _unfinished(self, board: int) -> bool:
        status = self.client.board(board)
        return status is not None and status.state not in COMPLETE_STATES

    def show_notice(self, title: str, text: str) -> None:
        """A message in large text that stays until a key is pressed."""
        if isinstance(self.screen, NoticeScreen):
            self.pop_screen()
        self.push_screen(NoticeScreen(title, text))

    def _close_confirmation(self, board: int) -> None:
        """A board in conflict is the TD's to decide: East's dialog for it closes, unanswered,
        instead of staying under the notice and inviting East to confirm it after."""
        for screen in reversed(self.screen_stack):
            if isinstance(screen, ConfirmScreen) and screen.status.board == board:
                screen.pop_until_active()
                screen.dismiss(None)
                return

    # ------------------------------------------------------------------ client events

    def on_client_notice(self, notice: ClientNotice) -> None:
        """Route one client event."""
        event = notice.event
        if isinstance(event, Unpaired):
            self.seated_round = None
            self.show(ShowPairing(event.message))
            return
        if isinstance(event, RoundUpdated):
            language = self.chosen_language()
            if language is not None and (language, True) != (i18n.language(), i18n.settled()):
                self.run_worker(self.show_language(language), group="language")
            if self.seated_round is not None and event.round.round != self.seated_round:
                self.seated_round = None
                self.show(ShowSeatCheck())
        elif isinstance(event, ConflictReported):
            self._close_confirmation(event.board)
            title = i18n._("Board {board}: two different results").format(board=event.board)
            self.show_notice(title, event.message)
        elif isinstance(event, CommandRefused) and event.code != "conflict":
            where = i18n._("Board {board}: ").format(board=event.board) if event.board else ""
            self.notify(
                where + event.message,
                title=i18n._("Not stored"),
                severity="warning",
                timeout=12,
                markup=False,
            )
        elif not isinstance(event, StatusChanged | SettingsUpdated):
            return
        for screen in self.screen_stack:
            if isinstance(screen, TableScreen):
                screen.client_changed()


def screen_for(place: Place) -> TableScreen:
    """The full screen that shows ``place``."""
    match place:
        case ShowPairing(reason):
            return PairingScreen(reason)
        case ShowSeatCheck(message):
            return SeatCheckScreen(message)
        case ShowPlayers():
            return PlayersScreen()
        case ShowBoard(board, ask_east):
            return BoardEntryScreen(board, ask_east=ask_east)
        case ShowReport(board, after_confirm):
            return BoardReportScreen(board, after_confirm=after_confirm)
        case ShowSummary():
            return SummaryScreen()
        case ShowRanking():
            return RankingScreen()


#: mypy checks here that the app gives the screens all they may ask of it.
_SCREENS_ASK: type[TableTerminal] = TravellerTerminal
