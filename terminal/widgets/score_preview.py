"""The live score: the N/S score in large type and the result in words, as soon as it is known."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from terminal import i18n
from terminal.scoring import ScoredEntry


def score_words(scored: ScoredEntry) -> str:
    """The score for both sides: "N/S +420   E/W -420" (or "0" when passed out)."""
    return i18n.score_line(scored.ns_score)


class ScorePreview(Vertical):
    """The computed score and sentence for the entry being keyed (blank until it is complete)."""

    def compose(self) -> ComposeResult:
        """A score line and a sentence line."""
        yield Static("", id="preview-score")
        yield Static("", id="preview-words")

    def show(self, scored: ScoredEntry | None, waiting_text: str = "") -> None:
        """Show a scored entry, or the text saying what is still needed."""
        score = self.query_one("#preview-score", Static)
        words = self.query_one("#preview-words", Static)
        if scored is None:
            score.update("")
            words.update(waiting_text)
        else:
            score.update(score_words(scored))
            words.update(
                i18n.result_words(
                    scored.contract,
                    scored.declarer,
                    scored.tricks,
                    scored.ns_score,
                    english=scored.description,
                )
            )
        self.set_class(scored is not None, "scored")
