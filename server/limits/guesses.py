"""Wrong guesses a table's terminal makes at a secret (E/W's PIN, the TD's code), counted on
the terminal's token row, not in a server process's memory: every worker, the keypad gateway
in a process of its own and a restarted server count the same guesses, so more workers never
give a table more tries. At most ``limit`` wrong guesses in any ``window`` seconds; then the
terminal waits until the oldest of them is ``window`` seconds old.

The row keeps, by secret, the times (seconds since the epoch, UTC) of the wrong guesses still
inside the window, as JSON: ``{"pin": [1764925000.5, ...], "td_code": [...]}``. These are pure
functions of that text and the time: the table desk reads and writes the row."""

from __future__ import annotations

import json
from dataclasses import dataclass

#: The stored text of a token that has guessed nothing wrong.
NONE = "{}"


@dataclass(frozen=True)
class GuessLimit:
    """The limit on one secret's wrong guesses (``secret``: its key in the stored text)."""

    secret: str
    limit: int
    window: float

    def misses(self, stored: str | None, now: float) -> list[float]:
        """The wrong guesses still inside the window at ``now``, oldest first (a text that is
        not the row's JSON counts as none: the row is only ever written from here)."""
        found = _kept(stored).get(self.secret)
        if not isinstance(found, list):
            return []
        times = sorted(t for t in found if isinstance(t, int | float))
        return [t for t in times if now - t < self.window]

    def wait(self, stored: str | None, now: float) -> float:
        """Seconds until the terminal may guess again; 0 when it may now."""
        misses = self.misses(stored, now)
        if len(misses) < self.limit:
            return 0.0
        return max(0.0, misses[-self.limit] + self.window - now)

    def missed(self, stored: str | None, now: float) -> str:
        """The stored text with one more wrong guess at ``now`` (the other secrets' kept)."""
        return self._with(stored, [*self.misses(stored, now), now][-self.limit :])

    def cleared(self, stored: str | None) -> str:
        """The stored text without this secret's wrong guesses (a right guess forgives)."""
        return self._with(stored, [])

    def _with(self, stored: str | None, misses: list[float]) -> str:
        kept = _kept(stored)
        if misses:
            kept[self.secret] = misses
        else:
            kept.pop(self.secret, None)
        return json.dumps(kept, sort_keys=True, separators=(",", ":"))


def _kept(stored: str | None) -> dict[str, object]:
    """The stored text read: every secret's guesses ({} for a text that is not an object)."""
    try:
        kept = json.loads(stored or NONE)
    except ValueError:
        return {}
    return kept if isinstance(kept, dict) else {}


#: Wrong E/W PINs: five in five minutes, then the table calls the TD. A right PIN does not
#: forgive them (four guesses and then E/W's own PIN must not start the count again).
PIN = GuessLimit("pin", 5, 300.0)
#: Wrong TD codes ("not played" keyed at the table): five in ten minutes; the right code
#: forgives them (it is the TD at the table).
TD_CODE = GuessLimit("td_code", 5, 600.0)
