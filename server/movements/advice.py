"""Movement advice for the set-up wizard: the movements that fit a field and the time.

From the number of pairs in a section and the minutes available (at a pace per board, 7.5
minutes by default: a club's usual 24-27 boards in three to three and a half hours), every
movement kind of the catalogue is tried. Those that fit are proposed with their tables,
rounds, boards, playing time and comparison balance (`balance.py`); the others are listed
with the reason they do not fit, as a code and the figures behind it (the pages word it).

The boards per round are the TD's if given, else as many as the time allows (at most
`MAX_BOARDS_PER_ROUND`). Movements with a free number of rounds (the Mitchells, the web
Mitchell) may drop up to a third of their rounds to play more boards a round; Howells,
hesitation, appendix and individuals play their full cycle or do not fit.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from server.movements.appendix import appendix_mitchell
from server.movements.balance import comparison_balance, player_balance
from server.movements.edit import replace_pair
from server.movements.howell import (
    MAX_PAIRS,
    MIN_PAIRS,
    complete_rounds,
    three_quarter_howell,
    three_quarter_rounds,
)
from server.movements.howell import howell as complete_howell
from server.movements.individual import individual
from server.movements.individual_pairs import as_partnerships
from server.movements.mitchell import EvenCure, max_rounds, mitchell
from server.movements.mitchell_variants import add_rover, hesitation_mitchell
from server.movements.model import Movement, PairRef
from server.movements.teams import (
    MAX_TEAMS,
    round_robin_movement,
    swiss_movement,
    team_match,
)
from server.movements.validate import MovementError, validate
from server.movements.web_circuits import ebu_web_mitchell

DEFAULT_MINUTES = 210
DEFAULT_MINUTES_PER_BOARD = 7.5
#: Fewer boards a round than this is not offered unless the TD asks for it.
MIN_BOARDS_PER_ROUND = 2
MAX_BOARDS_PER_ROUND = 8
#: A shape with more rounds is preferred while it plays this share of the most boards.
NEAR_BEST = 0.85
#: Individual movements by number of players (the bundled patterns).
INDIVIDUAL_PLAYERS = (8, 12)

#: Every choice the wizard knows, in the order proposals are listed.
KEYS = (
    "mitchell",
    "mitchell-relay",
    "mitchell-arrow",
    "hesitation",
    "appendix-mitchell",
    "web-mitchell",
    "rover-mitchell",
    "howell",
    "three-quarter-howell",
    "individual",
    "team-match",
    "teams-round-robin",
    "teams-swiss",
)


@dataclass(frozen=True)
class Proposal:
    """A movement that fits: what the TD sees before choosing it."""

    key: str
    movement: Movement
    tables: int
    rounds: int
    boards_per_round: int
    #: Boards each pair plays, and the boards to deal (every set of the movement).
    played: int
    boards: int
    minutes: float
    #: Comparison balance (%) for one winner, and within each direction for two winners.
    balance: float
    field_balance: float | None
    #: Some pair sits out each round (a phantom or a rover's displaced pair).
    sit_outs: bool = False

    @property
    def winners(self) -> int:
        """Two winners (N/S and E/W) when the pairs keep their home direction."""
        return 1 if self.field_balance is None else 2


@dataclass(frozen=True)
class Unfit:
    """A movement that does not fit, with a reason code and its figures."""

    key: str
    reason: str
    figures: dict[str, int | float] = field(default_factory=dict)


@dataclass(frozen=True)
class Advice:
    pairs: int
    minutes: int
    minutes_per_board: float
    proposals: tuple[Proposal, ...]
    unfit: tuple[Unfit, ...]

    @property
    def recommended(self) -> str | None:
        """The usual club choice among the proposals: a Howell for up to four tables (one
        winner, every pair meets every pair), else the Mitchell."""
        keys = [p.key for p in self.proposals]
        order = ("howell", "mitchell") if self.pairs <= 8 else ("mitchell", "howell")
        return next((k for k in (*order, *keys) if k in keys), None)

    def proposal(self, key: str) -> Proposal | None:
        return next((p for p in self.proposals if p.key == key), None)


class NoFitError(Exception):
    """Raised inside a builder: the movement does not fit (reason code and figures)."""

    def __init__(self, reason: str, **figures: int | float) -> None:
        super().__init__(reason)
        self.reason = reason
        self.figures = figures


@dataclass(frozen=True)
class _Ask:
    pairs: int
    max_boards: int
    boards_per_round: int | None


def propose(
    pairs: int,
    *,
    minutes: int = DEFAULT_MINUTES,
    minutes_per_board: float = DEFAULT_MINUTES_PER_BOARD,
    boards_per_round: int | None = None,
) -> Advice:
    """Every movement tried for `pairs` pairs in `minutes`: the fitting ones and the rest."""
    ask = _ask(pairs, minutes, minutes_per_board, boards_per_round)
    tried = [_try(key, ask, minutes_per_board) for key in KEYS]
    return Advice(
        pairs,
        minutes,
        minutes_per_board,
        tuple(t for t in tried if isinstance(t, Proposal)),
        tuple(t for t in tried if isinstance(t, Unfit)),
    )


def proposal_for(
    key: str,
    pairs: int,
    *,
    minutes: int = DEFAULT_MINUTES,
    minutes_per_board: float = DEFAULT_MINUTES_PER_BOARD,
    boards_per_round: int | None = None,
) -> Proposal | None:
    """The one proposal `propose` makes under `key`, None if it does not fit (or no such key)."""
    if key not in _BUILDERS:
        return None
    tried = _try(key, _ask(pairs, minutes, minutes_per_board, boards_per_round), minutes_per_board)
    return tried if isinstance(tried, Proposal) else None


def _ask(pairs: int, minutes: int, minutes_per_board: float, boards_per_round: int | None) -> _Ask:
    if pairs < 2:
        raise ValueError("a section needs at least 2 pairs")
    if minutes_per_board <= 0 or minutes <= 0:
        raise ValueError("the time available and the minutes per board must be positive")
    return _Ask(pairs, int(minutes // minutes_per_board), boards_per_round)


def _try(key: str, ask: _Ask, minutes_per_board: float) -> Proposal | Unfit:
    try:
        movement = _BUILDERS[key](ask)
    except NoFitError as exc:
        return Unfit(key, exc.reason, exc.figures)
    except (MovementError, ValueError):
        return Unfit(key, "not_built")
    return _proposal(key, movement, ask.pairs, minutes_per_board)


def _proposal(key: str, m: Movement, pairs: int, minutes_per_board: float) -> Proposal:
    played = m.rounds * m.boards_per_round
    if m.kind == "individual":
        balance, field_balance = player_balance(m), None
    else:
        report = comparison_balance(m)
        balance, field_balance = report.balance, report.field_balance
    seats = 4 * m.tables if m.kind == "individual" else 2 * m.tables
    people = 2 * pairs if m.kind == "individual" else pairs
    return Proposal(
        key=key,
        movement=m,
        tables=m.tables,
        rounds=m.rounds,
        boards_per_round=m.boards_per_round,
        played=played,
        boards=len(m.boards()),
        minutes=played * minutes_per_board,
        balance=round(balance, 1),
        field_balance=None if field_balance is None else round(field_balance, 1),
        sit_outs=people < seats or key == "rover-mitchell" or people > seats,
    )


def _shape(ask: _Ask, most: int, *, free_rounds: bool, odd_rounds: bool = False) -> tuple[int, int]:
    """Rounds and boards per round that fit the time: the most rounds among the shapes that
    play at least `NEAR_BEST` of the most boards (27 boards in 9 rounds beat 28 in 7)."""
    fewest = max(1, math.ceil(most * 2 / 3)) if free_rounds else most
    shapes: list[tuple[int, int]] = []
    for rounds in range(most, fewest - 1, -1):
        if odd_rounds and rounds % 2 == 0:
            continue
        if ask.boards_per_round is not None:
            bpr = ask.boards_per_round
        else:
            bpr = min(MAX_BOARDS_PER_ROUND, ask.max_boards // rounds)
            if bpr < MIN_BOARDS_PER_ROUND:
                continue
        if rounds * bpr <= ask.max_boards:
            shapes.append((rounds, bpr))
    if not shapes:
        bpr = ask.boards_per_round or MIN_BOARDS_PER_ROUND
        raise NoFitError("too_long", rounds=fewest, boards=fewest * bpr, fit=ask.max_boards)
    most_boards = max(r * b for r, b in shapes)
    return max(
        (s for s in shapes if s[0] * s[1] >= NEAR_BEST * most_boards),
        key=lambda s: (s[0], s[0] * s[1]),
    )


def _tables(ask: _Ask) -> int:
    return math.ceil(ask.pairs / 2)


def _with_phantom(m: Movement, pairs: int) -> Movement:
    """An odd field in a Mitchell: the last E/W pair is a phantom, its opponents sit out."""
    if pairs % 2 == 0:
        return m
    phantom = PairRef(m.tables, "EW")
    moved = replace_pair(m, phantom, None)
    return replace(moved, name=f"{m.name}, {phantom} sits out")


def _mitchell(ask: _Ask, even: EvenCure = "skip") -> Movement:
    tables = _tables(ask)
    if tables < 2:
        raise NoFitError("too_few_pairs", least=3)
    if even == "relay" and tables % 2:
        raise NoFitError("odd_tables_no_relay", tables=tables)
    rounds, bpr = _shape(ask, max_rounds(tables, even), free_rounds=True)
    return _with_phantom(
        mitchell(tables, rounds=rounds, boards_per_round=bpr, even=even), ask.pairs
    )


def _arrow_switch(ask: _Ask) -> Movement:
    """A Mitchell for one winner: as many arrow-switched last rounds as raise the balance
    (it climbs to a peak at one or two rounds for club sizes, then falls)."""
    tables = _tables(ask)
    if tables < 3:
        raise NoFitError("too_few_pairs", least=5)
    rounds, bpr = _shape(ask, max_rounds(tables), free_rounds=True)
    best: tuple[float, Movement] | None = None
    for switched in range(1, rounds // 2 + 1):
        m = _with_phantom(
            mitchell(tables, rounds=rounds, boards_per_round=bpr, arrow_switch_rounds=switched),
            ask.pairs,
        )
        balance = comparison_balance(m).balance
        if best is not None and balance <= best[0]:
            break
        best = (balance, m)
    assert best is not None
    return best[1]


def _hesitation(ask: _Ask) -> Movement:
    if ask.pairs % 2:
        raise NoFitError("even_pairs_only")
    tables = ask.pairs // 2
    if tables < 3:
        raise NoFitError("too_few_pairs", least=6)
    _rounds, bpr = _shape(ask, tables + 1, free_rounds=False)
    return hesitation_mitchell(tables, boards_per_round=bpr)


def _appendix(ask: _Ask) -> Movement:
    if ask.pairs % 2 == 0:
        raise NoFitError("odd_pairs_only")
    if ask.pairs < 9:
        raise NoFitError("too_few_pairs", least=9)
    tables = ask.pairs // 2
    probe = appendix_mitchell(tables, boards_per_round=1)
    _rounds, bpr = _shape(ask, probe.rounds, free_rounds=False)
    return appendix_mitchell(tables, boards_per_round=bpr)


def _web(ask: _Ask) -> Movement:
    tables = _tables(ask)
    if ask.pairs % 2 or tables % 2 or tables < 6:
        raise NoFitError("web_tables", least=12)
    most = ebu_web_mitchell(tables, boards_per_round=1).rounds
    rounds, bpr = _shape(ask, most, free_rounds=True, odd_rounds=True)
    return ebu_web_mitchell(tables, sets=rounds, boards_per_round=bpr)


def _rover(ask: _Ask) -> Movement:
    if ask.pairs % 2 == 0:
        raise NoFitError("odd_pairs_only")
    tables = ask.pairs // 2
    if tables < 3:
        raise NoFitError("too_few_pairs", least=7)
    rounds, bpr = _shape(ask, max_rounds(tables), free_rounds=True)
    return add_rover(mitchell(tables, rounds=rounds, boards_per_round=bpr))


def _howell_size(ask: _Ask) -> None:
    if not MIN_PAIRS <= ask.pairs <= MAX_PAIRS:
        raise NoFitError("howell_size", least=MIN_PAIRS, most=MAX_PAIRS)


def _howell(ask: _Ask) -> Movement:
    _howell_size(ask)
    _rounds, bpr = _shape(ask, complete_rounds(ask.pairs), free_rounds=False)
    return complete_howell(ask.pairs, boards_per_round=bpr)


def _three_quarter(ask: _Ask) -> Movement:
    _howell_size(ask)
    if ask.pairs < 7:
        raise NoFitError("too_few_pairs", least=7)
    _rounds, bpr = _shape(ask, three_quarter_rounds(ask.pairs), free_rounds=False)
    return three_quarter_howell(ask.pairs, boards_per_round=bpr)


def _individual(ask: _Ask) -> Movement:
    players = 2 * ask.pairs
    if players not in INDIVIDUAL_PLAYERS:
        raise NoFitError("individual_size", players=players)
    probe = individual(players, boards_per_round=1)
    _rounds, bpr = _shape(ask, probe.rounds, free_rounds=False)
    return as_partnerships(individual(players, boards_per_round=bpr))


def _team_match(ask: _Ask) -> Movement:
    if ask.pairs != 4:
        raise NoFitError("two_teams", pairs=4)
    stanzas, bpr = _best_stanzas(ask)
    match = team_match(1, 2, boards=range(1, bpr * stanzas + 1), rounds=stanzas)
    validate(match)
    return match


def _best_stanzas(ask: _Ask) -> tuple[int, int]:
    """Stanzas of a match: the boards that fit, in as few stanzas as the board limit allows."""
    boards = ask.max_boards
    if ask.boards_per_round is not None:
        stanzas = boards // ask.boards_per_round
        if stanzas < 1:
            raise NoFitError("too_long", rounds=1, boards=ask.boards_per_round, fit=boards)
        return stanzas, ask.boards_per_round
    stanzas = max(1, math.ceil(boards / MAX_BOARDS_PER_ROUND))
    bpr = boards // stanzas
    if bpr < MIN_BOARDS_PER_ROUND:
        raise NoFitError("too_long", rounds=1, boards=MIN_BOARDS_PER_ROUND, fit=boards)
    return stanzas, bpr


def _round_robin(ask: _Ask) -> Movement:
    """Every team meets every other once, one match a round (circle method,
    `teams.round_robin_movement`); two pairs a team, so an even number of pairs, 3 teams or
    more (two teams are a team match). The whole cycle is played or it does not fit."""
    if ask.pairs % 2:
        raise NoFitError("even_pairs_only")
    teams = ask.pairs // 2
    if not 3 <= teams <= MAX_TEAMS:
        raise NoFitError("round_robin_size", least=6, most=2 * MAX_TEAMS)
    rounds = teams - 1 + teams % 2
    if ask.boards_per_round is not None:
        per_match = ask.boards_per_round
    else:
        per_match = min(MAX_BOARDS_PER_ROUND, ask.max_boards // rounds)
    if per_match < MIN_BOARDS_PER_ROUND or rounds * per_match > ask.max_boards:
        least = per_match if ask.boards_per_round is not None else MIN_BOARDS_PER_ROUND
        raise NoFitError("too_long", rounds=rounds, boards=rounds * least, fit=ask.max_boards)
    movement = round_robin_movement(teams, boards_per_match=per_match)
    validate(movement)
    return movement


#: A Swiss match's usual length when the TD gives no boards a round.
SWISS_BOARDS = 7
#: Fewer Swiss rounds than this is not worth the pairing: play a round robin or a match.
MIN_SWISS_ROUNDS = 3


def _swiss(ask: _Ask) -> Movement:
    """Swiss teams: as many rounds of `SWISS_BOARDS`-board matches (or the TD's boards a
    round) as the time allows, fewer than a round robin's; round 1 by team number, each later
    round paired from the VP standings after the round before (`services.results.team_matches`)."""
    if ask.pairs % 2:
        raise NoFitError("even_pairs_only")
    teams = ask.pairs // 2
    full = teams - 1 + teams % 2
    if not 4 <= teams <= MAX_TEAMS:
        raise NoFitError("swiss_size", least=8, most=2 * MAX_TEAMS)
    per_match = ask.boards_per_round or min(SWISS_BOARDS, MAX_BOARDS_PER_ROUND)
    rounds = min(full, ask.max_boards // per_match)
    if rounds < MIN_SWISS_ROUNDS:
        raise NoFitError(
            "too_long",
            rounds=MIN_SWISS_ROUNDS,
            boards=MIN_SWISS_ROUNDS * per_match,
            fit=ask.max_boards,
        )
    movement = swiss_movement(teams, rounds=rounds, boards_per_match=per_match)
    validate(movement)
    return movement


_BUILDERS: dict[str, Callable[[_Ask], Movement]] = {
    "mitchell": _mitchell,
    "mitchell-relay": lambda ask: _mitchell(ask, "relay"),
    "mitchell-arrow": _arrow_switch,
    "hesitation": _hesitation,
    "appendix-mitchell": _appendix,
    "web-mitchell": _web,
    "rover-mitchell": _rover,
    "howell": _howell,
    "three-quarter-howell": _three_quarter,
    "individual": _individual,
    "team-match": _team_match,
    "teams-round-robin": _round_robin,
    "teams-swiss": _swiss,
}
