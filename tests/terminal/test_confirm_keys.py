"""East's keys on the terminal are the grammar's (protocol/keys.md): Enter confirms, Backspace
rejects, after taking back any PIN digits; the keys North keyed are kept for the correction."""

from __future__ import annotations

from protocol.messages import ConfirmResult, RejectResult
from terminal.screens.board_entry import BoardEntryScreen
from terminal.screens.confirm import ConfirmScreen
from terminal.testing.server import FakeServer
from tests.support.terminal import make_app, screen_text, seated, settle

SIZE = (80, 24)


async def test_backspace_takes_back_pin_digits_then_rejects() -> None:
    server = FakeServer(pin="2468")
    app, client = make_app(server)
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press("4", "4", "3", "1", "0", "enter")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("2", "4", "backspace")
        assert app.screen.pin == "2"
        await pilot.press("backspace")
        assert isinstance(app.screen, ConfirmScreen)  # the PIN was taken back, nothing more
        await pilot.press("backspace")
        await settle(pilot, client)
        assert isinstance(app.screen, BoardEntryScreen)
        assert server.results[(1, 1, 1)].state == "rejected"
        assert [c for c in server.received if isinstance(c, ConfirmResult)] == []
        assert len([c for c in server.received if isinstance(c, RejectResult)]) == 1
        # North's keys are kept: one Backspace and a 1 make it eleven tricks.
        assert app.screen.input.draft.keys == ("4", "4", "3", "1", "0")
        await pilot.press("backspace", "1")
        assert "4♠ by South, made with one overtrick, N/S +450" in screen_text(app)
        await pilot.press("enter", "2", "4", "6", "8", "enter")
        await settle(pilot, client)
        assert server.results[(1, 1, 1)].state == "confirmed"
        assert server.results[(1, 1, 1)].tricks == 11


async def test_the_confirmation_says_which_key_rejects() -> None:
    app, client = make_app(FakeServer())
    async with app.run_test(size=SIZE) as pilot:
        await seated(pilot, client)
        await pilot.press("4", "4", "3", "1", "0", "enter")
        assert "Backspace = REJECT (back to North)" in screen_text(app)
