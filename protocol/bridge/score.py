"""Law 77 board scores and the Law 78B IMP scale, driven by tables."""

from __future__ import annotations

from bisect import bisect_right

from .board import vulnerability
from .contract import Contract, TableResult, _check_tricks
from .enums import Doubling, Seat, Side, Strain, Vulnerability

# Trick points per odd trick undoubled; notrump earns 10 more for the first.
_TRICK_VALUE = {Strain.C: 20, Strain.D: 20, Strain.H: 30, Strain.S: 30, Strain.NT: 30}
_NOTRUMP_FIRST_TRICK_EXTRA = 10
_GAME_TRICK_POINTS = 100
_PARTSCORE_BONUS = 50
# Indexed by vulnerable (False, True).
_GAME_BONUS = (300, 500)
_SLAM_BONUS = {6: (500, 750), 7: (1000, 1500)}
_INSULT = {Doubling.NONE: 0, Doubling.X: 50, Doubling.XX: 100}
_DOUBLED_OVERTRICK = (100, 200)  # redoubled is twice this
_UNDOUBLED_UNDERTRICK = (50, 100)
# Doubled penalty for 0..3 down; each further trick down costs 300 more. Redoubled is twice this.
_DOUBLED_PENALTY = ((0, 100, 300, 500), (0, 200, 500, 800))
_DOUBLED_PENALTY_EACH_FURTHER = 300

# Law 78B: a difference of at least each of these many points is worth one more IMP.
_IMP_BOUNDARIES = (
    20, 50, 90, 130, 170, 220, 270, 320, 370, 430, 500, 600,
    750, 900, 1100, 1300, 1500, 1750, 2000, 2250, 2500, 3000, 3500, 4000,
)  # fmt: skip


def contract_score(contract: str | Contract, tricks: int, vulnerable: bool) -> int:
    """The declaring side's score for a contract and the tricks taken (Law 77); a pass scores 0."""
    parsed = Contract.parse(contract)
    _check_tricks(tricks)
    if parsed.strain is None:
        return 0
    vul = int(bool(vulnerable))
    doubling = parsed.doubling
    needed = parsed.tricks_needed
    if tricks < needed:
        down = needed - tricks
        if doubling is Doubling.NONE:
            return -_UNDOUBLED_UNDERTRICK[vul] * down
        table = _DOUBLED_PENALTY[vul]
        penalty = table[min(down, 3)] + _DOUBLED_PENALTY_EACH_FURTHER * max(down - 3, 0)
        return -penalty * (doubling // Doubling.X)
    value = _TRICK_VALUE[parsed.strain]
    extra = _NOTRUMP_FIRST_TRICK_EXTRA if parsed.strain is Strain.NT else 0
    trick_points = (value * parsed.level + extra) * doubling
    game_or_part = _GAME_BONUS[vul] if trick_points >= _GAME_TRICK_POINTS else _PARTSCORE_BONUS
    slam = _SLAM_BONUS[parsed.level][vul] if parsed.level in _SLAM_BONUS else 0
    overtricks = tricks - needed
    if doubling is Doubling.NONE:
        overtrick_points = value * overtricks
    else:
        overtrick_points = _DOUBLED_OVERTRICK[vul] * (doubling // Doubling.X) * overtricks
    return trick_points + game_or_part + slam + _INSULT[doubling] + overtrick_points


def result_ns_score(result: TableResult, vul: Vulnerability = Vulnerability.NONE) -> int:
    """The N/S-signed score of a table result on a board of the given vulnerability."""
    if result.declarer is None:
        return 0
    side = result.declarer.side
    score = contract_score(result.contract, result.tricks, vul.is_vulnerable(side))
    return score if side is Side.NS else -score


def ns_score(board: int, contract: str | Contract, declarer: str | Seat | None, tricks: int) -> int:
    """The N/S-signed score of a result on a board, with the board's vulnerability (Law 2)."""
    vul = vulnerability(board)
    return result_ns_score(TableResult.make(contract, declarer, tricks), vul)


def imps(points: int) -> int:
    """IMPs for a point difference on the Law 78B scale, keeping its sign (imps(-500) == -11)."""
    if isinstance(points, bool) or not isinstance(points, int):
        raise TypeError(f"imps() takes a whole number of points, not {points!r}")
    magnitude = bisect_right(_IMP_BOUNDARIES, abs(points))
    return magnitude if points >= 0 else -magnitude
