"""The contract input: one board's fields, filled key by key with the table's key grammar."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Static

from terminal import i18n
from terminal.i18n import N_, _
from terminal.keypad import (
    DraftKeyRefusedError,
    ScoredDraft,
    backspace,
    describe_draft,
    press,
    replay,
)

FIELDS = (
    ("contract", N_("Contract")),
    ("declarer", N_("Declarer")),
    ("lead", N_("Lead")),
    ("tricks", N_("Tricks")),
)
STEP_FIELD = {"level": "contract", "strain": "contract", "declarer": "declarer"}
STEP_HELP = {
    "level": N_("Level\n\n 1 2 3 4 5 6 7\n\n 0 = passed out"),
    "strain": N_("Suit\n\n 1 ♣   2 ♦   3 ♥\n 4 ♠   5 {nt}\n\n * = doubled"),
    "declarer": N_("Declarer\n\n 1 {n}   2 {e}\n 3 {s}   4 {w}\n\n * = doubled"),
    "lead": N_(
        "Lead: suit, then card\n\n 1 ♣  2 ♦  3 ♥  4 ♠\n 2-9   0 = 10\n 11 J  12 Q  13 K  14 A"
    ),
    "done": N_("Enter = send\n\n Backspace = change"),
}
TRICKS_HELP = {
    "absolute": N_("Tricks taken\nby declarer\n\n 0 to 13\n\n (or = made, +n, -n)"),
    "relative": N_("Result\n\n 0 = made\n + n = overtricks\n - n = down"),
}


def step_help(step: str, tricks_style: str) -> str:
    """The keys of the field being keyed, in the language in use (local seat letters)."""
    text = _(TRICKS_HELP[tricks_style]) if step == "tricks" else _(STEP_HELP[step])
    return text.format(
        nt=i18n.strain("NT"),
        n=i18n.seat("N"),
        e=i18n.seat("E"),
        s=i18n.seat("S"),
        w=i18n.seat("W"),
    )


class ContractInput(Horizontal):
    """The fields of a board being keyed, the field to key highlighted, and its keys beside it."""

    @dataclass
    class Changed(Message):
        """The draft changed (a key was taken or taken back)."""

        contract_input: ContractInput
        draft: ScoredDraft

    @dataclass
    class Refused(Message):
        """A key did not fit; ``reason`` says what would."""

        contract_input: ContractInput
        reason: str

    def __init__(self, draft: ScoredDraft, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.draft = draft
        self.locked = False

    def compose(self) -> ComposeResult:
        """The fields on the left, the keys for the current field on the right."""
        yield Static(id="fields")
        yield Static(id="step-help")

    def on_mount(self) -> None:
        """Draw the draft."""
        self._render_draft()

    def press(self, key: str) -> bool:
        """Feed one key; False (and a Refused message) when it does not fit."""
        try:
            self.draft = press(self.draft, key)
        except DraftKeyRefusedError as refusal:
            if refusal.draft is not None:  # the refusal took more back ("14": its "1" too)
                self.draft = refusal.draft
                self._changed()
            self.post_message(self.Refused(self, str(refusal)))
            return False
        self._changed()
        return True

    def backspace(self) -> bool:
        """Take back the last key; False when nothing is keyed."""
        if not self.draft.keys:
            return False
        self.draft = backspace(self.draft)
        self._changed()
        return True

    def load(self, draft: ScoredDraft, keys: tuple[str, ...] = ()) -> None:
        """Start again from ``draft`` with ``keys`` pressed (for a correction or a re-entry)."""
        self.draft = replay(draft, keys)
        self._changed()

    def _changed(self) -> None:
        self._render_draft()
        self.post_message(self.Changed(self, self.draft))

    def _render_draft(self) -> None:
        draft = self.draft
        shown = describe_draft(draft)
        step = draft.step
        current = STEP_FIELD.get(step, step)
        text = Text()
        width = max(10, *(len(_(label)) + 1 for _name, label in FIELDS))
        for name, label in FIELDS:
            if name == "lead" and not draft.lead_required:
                continue
            active = name == current and not self.locked
            line = Text(
                f"{'▶' if active else ' '} {_(label):<{width}}", style="bold" if active else ""
            )
            line.append(f" {shown[name]} ", style="reverse bold" if active else "bold")
            if text:
                text.append("\n\n")
            text.append_text(line)
        self.query_one("#fields", Static).update(text)
        help_text = step_help(step, draft.tricks_style)
        self.query_one("#step-help", Static).update("" if self.locked else help_text)
