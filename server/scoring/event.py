"""A pairs event scored in full or one board at a time, with exact totals and standings."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from math import lcm

from .board import DIRECTIONS, BoardKey, BoardScore, ScoringOptions, score_board, sides_scored
from .exact import to_decimal
from .ledger import Ledger
from .models import BoardResult, Direction, PairId
from .ranking import places, tied_groups
from .reports import ScoredCardLine, ScoredLine, score_card, traveller
from .ties import PairBoard, break_pair_ties


@dataclass(frozen=True, slots=True)
class Standing:
    """A pair's line in the ranking."""

    pair: PairId
    place: str
    position: int
    total: Fraction
    """Matchpoints (or IMPs, points) after penalties."""
    penalty: Fraction
    top: Fraction | None
    """The most the pair could have scored on the boards it was scored on (matchpoints)."""
    boards: int

    @property
    def percent(self) -> Fraction | None:
        """The exact percentage of the possible (matchpoint methods), or None."""
        if self.top is None or self.top == 0:
            return None
        return 100 * self.total / self.top

    @property
    def percent_display(self) -> Decimal | None:
        """The percentage to two decimals (halves away from zero)."""
        percent = self.percent
        return None if percent is None else to_decimal(percent, 2)


class PairsScorer:
    """Scores a pairs event and keeps it scored as results arrive or change.

    Give it every result at once, then call `put_result` / `set_board` for each new or
    corrected result: only that board's comparisons are recomputed, and the pair totals are
    updated by integer additions. If the board changes the number of tables boards are scored
    over (field "max"), the other boards of its section are rescored too.
    """

    def __init__(
        self,
        results: Iterable[BoardResult] = (),
        options: ScoringOptions = ScoringOptions(),
        *,
        pairs: Iterable[PairId] = (),
    ) -> None:
        self.options = options
        self._results: dict[BoardKey, list[BoardResult]] = {}
        self._scores: dict[BoardKey, BoardScore] = {}
        self._own: dict[BoardKey, tuple[int, int]] = {}
        self._scope_fields: dict[Hashable, tuple[int, int]] = {}
        self._penalties: dict[PairId, Fraction] = {}
        self._ledger = Ledger()
        for pair in pairs:
            self._ledger.register(pair)
        for result in results:
            self._results.setdefault(self.key_of(result), []).append(result)
        self.rescore()

    # --- keys and fields ------------------------------------------------------------------

    def key_of(self, result: BoardResult) -> BoardKey:
        """The board a result is compared on: per section unless scored across sections."""
        return (None if self.options.across_sections else result.section, result.board)

    def _fields_for(self, key: BoardKey) -> tuple[int, int]:
        own = self._own[key]
        setting = self.options.field
        if setting == "board":
            return own
        if isinstance(setting, int):
            return (max(setting, own[0]), max(setting, own[1]))
        return self._scope_fields[key[0]]

    def _scope_max(self, scope: Hashable) -> tuple[int, int]:
        ns = ew = 0
        for key, own in self._own.items():
            if key[0] == scope:
                ns, ew = max(ns, own[0]), max(ew, own[1])
        return ns, ew

    # --- scoring --------------------------------------------------------------------------

    def rescore(self) -> None:
        """Score every board from scratch."""
        self._ledger = _fresh_ledger(self._ledger)
        self._widen_for_penalties()
        self._own = {
            key: (sides_scored(rs, Direction.NS), sides_scored(rs, Direction.EW))
            for key, rs in self._results.items()
        }
        self._scope_fields = {key[0]: self._scope_max(key[0]) for key in self._own}
        self._scores = {
            key: score_board(key, results, self.options, self._fields_for(key))
            for key, results in self._results.items()
        }
        self._ledger.load(self._scores.values())

    def set_board(
        self, board: int, results: Sequence[BoardResult], section: Hashable | None = None
    ) -> BoardScore:
        """Replace all results of one board and rescore only what that changes."""
        key: BoardKey = (None if self.options.across_sections else section, board)
        for result in results:
            if self.key_of(result) != key:
                raise ValueError(f"result {result} is not on board {key}")
        return self._set(key, list(results))

    def _set(self, key: BoardKey, results: list[BoardResult]) -> BoardScore:
        self._results[key] = results
        own = (sides_scored(results, Direction.NS), sides_scored(results, Direction.EW))
        self._own[key] = own
        scope = key[0]
        if self.options.field == "max":
            before = self._scope_fields.get(scope)
            after = self._scope_max(scope)
            self._scope_fields[scope] = after
            if before is not None and after != before:
                for other in [k for k in self._scores if k[0] == scope and k != key]:
                    self._replace(other)
        return self._replace(key)

    def put_result(self, result: BoardResult) -> BoardScore:
        """Add a result, or replace the one with the same pairs (or table) on that board."""
        key = self.key_of(result)
        kept = [r for r in self._results.get(key, []) if not _same_table(r, result)]
        kept.append(result)
        return self._set(key, kept)

    def remove_result(self, result: BoardResult) -> BoardScore:
        """Take a result (matched by pairs or table) off its board."""
        key = self.key_of(result)
        kept = [r for r in self._results.get(key, []) if not _same_table(r, result)]
        return self._set(key, kept)

    def _replace(self, key: BoardKey) -> BoardScore:
        score = score_board(key, self._results[key], self.options, self._fields_for(key))
        self._ledger.replace(self._scores.get(key), score)
        self._scores[key] = score
        return score

    # --- penalties ------------------------------------------------------------------------

    def set_penalties(self, penalties: Mapping[PairId, Fraction]) -> None:
        """Deductions per pair in the standings' unit (matchpoints, IMPs or points)."""
        self._penalties = {pair: Fraction(p) for pair, p in penalties.items() if p}
        for pair in self._penalties:
            self._ledger.register(pair)
        self._widen_for_penalties()

    def _widen_for_penalties(self) -> None:
        self._ledger.set_base(lcm(1, *(p.denominator for p in self._penalties.values())))

    # --- reading --------------------------------------------------------------------------

    @property
    def boards(self) -> Mapping[BoardKey, BoardScore]:
        return self._scores

    def board(self, board: int, section: Hashable | None = None) -> BoardScore:
        return self._scores[(None if self.options.across_sections else section, board)]

    def total(self, pair: PairId) -> Fraction:
        """A pair's exact total after penalties."""
        ledger = self._ledger
        return ledger.fraction(ledger.total(pair)) - self._penalties.get(pair, Fraction(0))

    def standings(self, pairs: Iterable[PairId] | None = None) -> list[Standing]:
        """The ranking of all pairs, or of some (e.g. one direction of a Mitchell).

        Matchpoint methods rank by percentage of the possible (sit-outs count nothing,
        § X78A5); IMP and points methods by total. Ties share a place unless the options ask
        for unique places, when § 223 breaks them.
        """
        ledger = self._ledger
        unit = ledger.unit
        chosen = ledger.pairs() if pairs is None else list(pairs)
        matchpoints = self.options.method.is_matchpoints
        deducted = {p: int(penalty * unit) for p, penalty in self._penalties.items()}
        net = {p: ledger.total(p) - deducted.get(p, 0) for p in chosen}
        tops = {p: ledger.top(p) for p in chosen}
        totals = {p: Fraction(net[p], unit) for p in chosen}
        key: dict[PairId, tuple[int, int | Fraction]]
        possible = {p: Fraction(tops[p], unit) for p in chosen}
        if matchpoints and self.options.sitout_factoring is not None:
            totals, possible = self._factored_totals(chosen, possible)
            key = {p: (1, totals[p] / possible[p]) if possible[p] else (0, 0) for p in chosen}
        elif matchpoints:
            common = 1
            for top in set(tops.values()):
                if top:
                    common = lcm(common, top)
            # Exact percentage order with integers only: net/top scaled to a common top.
            key = {p: (1, net[p] * (common // tops[p])) if tops[p] else (0, 0) for p in chosen}
        elif self.options.sitout_scaling:
            totals = self._scaled_totals(chosen)
            key = {p: (1, totals[p]) for p in chosen}
        else:
            key = {p: (1, net[p]) for p in chosen}
        ordered = sorted(chosen, key=key.__getitem__, reverse=True)
        groups = tied_groups(ordered, key.__getitem__)
        if self.options.unique_places and any(len(g) > 1 for g in groups):
            records = self.pair_records({p for g in groups if len(g) > 1 for p in g})
            groups = [sub for g in groups for sub in break_pair_ties(g, records)]
        out: list[Standing] = []
        for pair, position, label in places(groups, self.options.tie_style):
            out.append(
                Standing(
                    pair=pair,
                    place=label,
                    position=position,
                    total=totals[pair],
                    penalty=self._penalties.get(pair, Fraction(0)),
                    top=possible[pair] if matchpoints else None,
                    boards=ledger.boards(pair),
                )
            )
        return out

    def _scaled_totals(self, chosen: Sequence[PairId]) -> dict[PairId, Fraction]:
        """Totals before penalties scaled by B/b (B the most boards any of these pairs was
        scored on, b the pair's own), then the penalties deducted: the sit-out convention of
        some programs for IMP methods (ScoringOptions.sitout_scaling)."""
        ledger = self._ledger
        most = max((ledger.boards(p) for p in chosen), default=0)
        out: dict[PairId, Fraction] = {}
        for pair in chosen:
            played = ledger.boards(pair)
            raw = ledger.fraction(ledger.total(pair))
            scaled = raw * Fraction(most, played) if played else raw
            out[pair] = scaled - self._penalties.get(pair, Fraction(0))
        return out

    def _factored_totals(
        self, chosen: Sequence[PairId], tops: Mapping[PairId, Fraction]
    ) -> tuple[dict[PairId, Fraction], dict[PairId, Fraction]]:
        """Matchpoint totals before penalties factored by B/b (B the most boards any pair of
        the event was scored on - in a Mitchell whose N/S pairs all sat out once, the E/W
        pairs' - and b the pair's own) and rounded, then the penalties deducted; and each top
        factored the same way (ScoringOptions.sitout_factoring, ACBLscore's sit-out
        convention: the percentage is of the rounded total)."""
        rounding = self.options.sitout_factoring
        assert rounding is not None
        ledger = self._ledger
        most = max((ledger.boards(p) for p in ledger.pairs()), default=0)
        totals: dict[PairId, Fraction] = {}
        factored_tops: dict[PairId, Fraction] = {}
        for pair in chosen:
            played = ledger.boards(pair)
            raw = ledger.fraction(ledger.total(pair))
            factor = Fraction(most, played) if played else Fraction(1)
            totals[pair] = rounding(raw * factor) - self._penalties.get(pair, Fraction(0))
            factored_tops[pair] = tops[pair] * factor
        return totals, factored_tops

    def score_card(self, pair: PairId) -> list[ScoredCardLine]:
        """The pair's personal score card, board by board."""
        return score_card(self._scores.values(), pair)

    def traveller(self, board: int, section: Hashable | None = None) -> list[ScoredLine]:
        """The board's traveller: every table's result and both sides' scores."""
        return traveller(self.board(board, section))

    def pair_records(self, pairs: Iterable[PairId] | None = None) -> dict[PairId, list[PairBoard]]:
        """Each pair's scored boards (opponent, round, score, top), for ties and score cards."""
        wanted = None if pairs is None else set(pairs)
        records: dict[PairId, list[PairBoard]] = {}
        for key, score in sorted(self._scores.items(), key=lambda item: _sort_key(item[0])):
            for direction in DIRECTIONS:
                top = score.top(direction) or Fraction(0)
                for _, result, value in score.sides(direction):
                    pair = result.pair(direction)
                    if pair is None or (wanted is not None and pair not in wanted):
                        continue
                    records.setdefault(pair, []).append(
                        PairBoard(key, result.round, result.pair(direction.other), value, top)
                    )
        return records

    def running_totals(self) -> dict[int, dict[PairId, tuple[Fraction, Fraction | None]]]:
        """After each round: every pair's (total, top) on the boards of that round and before.

        The boards' current scores are used (a board's matchpoints depend on all its results).
        Results without a round number are left out; penalties are not included.
        """
        per_round: dict[int, dict[PairId, tuple[Fraction, Fraction]]] = {}
        for pair, boards in self.pair_records().items():
            for record in boards:
                if record.round is None:
                    continue
                row = per_round.setdefault(record.round, {})
                total, top = row.get(pair, (Fraction(0), Fraction(0)))
                row[pair] = (total + record.score, top + record.top)
        matchpoints = self.options.method.is_matchpoints
        running: dict[int, dict[PairId, tuple[Fraction, Fraction | None]]] = {}
        sums: dict[PairId, tuple[Fraction, Fraction]] = {}
        for round_number in sorted(per_round):
            for pair, (total, top) in per_round[round_number].items():
                before = sums.get(pair, (Fraction(0), Fraction(0)))
                sums[pair] = (before[0] + total, before[1] + top)
            running[round_number] = {
                pair: (total, top if matchpoints else None) for pair, (total, top) in sums.items()
            }
        return running


def _same_table(a: BoardResult, b: BoardResult) -> bool:
    if a.table is not None and b.table is not None:
        return a.table == b.table and a.section == b.section
    return a.ns_pair == b.ns_pair and a.ew_pair == b.ew_pair


def _sort_key(key: BoardKey) -> tuple[str, int]:
    return (str(key[0]), key[1])


def _fresh_ledger(old: Ledger) -> Ledger:
    ledger = Ledger()
    for pair in old.pairs():
        ledger.register(pair)
    return ledger


def score_pairs_event(
    results: Iterable[BoardResult], options: ScoringOptions = ScoringOptions()
) -> PairsScorer:
    """Score a whole pairs event from its results (see PairsScorer for the incremental API)."""
    return PairsScorer(results, options)
