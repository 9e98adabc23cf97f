"""Law 77 scores for MicroPython, read from the table kp_tables.SCORES (generated from
protocol/bridge/score.py for every contract and trick count), and whether an entry can be."""

import kp_tables as T

_SCORES = T.SCORES


def declarer_score(level, strain, doubling, vulnerable, tricks):
    """The declaring side's score (Law 77)."""
    index = (
        ((((level - 1) * 3 + T.SCORE_STRAINS[strain]) * 3 + T.SCORE_DOUBLINGS[doubling]) * 2)
        + (1 if vulnerable else 0)
    ) * 14 + tricks
    value = _SCORES[2 * index] << 8 | _SCORES[2 * index + 1]
    return value - 0x10000 if value & 0x8000 else value


def split_contract(contract):
    """ "4SX" -> (4, "S", "X")."""
    body = contract[1:]
    doubling = body[len(body.rstrip("X")) :]
    return int(contract[0]), body[: len(body) - len(doubling)], doubling


def ns_score(contract, declarer, tricks, vulnerability):
    """The N/S-signed score of a result on a board of ``vulnerability`` (NONE NS EW BOTH)."""
    if contract == "PASS" or declarer is None:
        return 0
    side = "NS" if declarer in ("N", "S") else "EW"
    level, strain, doubling = split_contract(contract)
    vulnerable = vulnerability in ("BOTH", side)
    score = declarer_score(level, strain, doubling, vulnerable, tricks)
    return score if side == "NS" else -score


def impossible(values):
    """Why an entry cannot be (a word), or None when it can: tricks out of 0-13."""
    contract = values["contract"]
    tricks = values["tricks"]
    if contract == "PASS":
        return None if tricks in (0, "=", "") else "pass_result"
    if values.get("declarer") not in ("N", "E", "S", "W"):
        return "declarer"
    needed = int(contract[0]) + 6
    if isinstance(tricks, int):
        taken = tricks
    elif tricks == "=":
        taken = needed
    elif tricks[:1] in ("+", "-") and tricks[1:].isdigit():
        taken = needed + int(tricks)
    else:
        return "tricks"
    return None if 0 <= taken <= 13 else "tricks"


def result_text(contract, tricks):
    """The result relative to the contract: "=", "+1", "-2" ("" for a pass)."""
    if contract == "PASS":
        return ""
    diff = tricks - (int(contract[0]) + 6)
    return "=" if diff == 0 else "%+d" % diff
