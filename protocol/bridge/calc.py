"""The text printed by `traveller calc`: a result checked, scored and described."""

from __future__ import annotations

from .board import dealer, vulnerability
from .contract import Contract, TableResult
from .describe import describe
from .enums import Vulnerability
from .score import result_ns_score

_VULNERABILITY_TEXT = {
    Vulnerability.NONE: "none vulnerable",
    Vulnerability.NS: "N/S vulnerable",
    Vulnerability.EW: "E/W vulnerable",
    Vulnerability.BOTH: "both vulnerable",
}


def calc_report(
    contract: str,
    declarer: str,
    tricks: str,
    board: int | None,
    *,
    vulnerable: bool | None = None,
) -> str:
    """Check and score one result; the board (if any) gives the vulnerability.

    Without a board the declaring side is taken as not vulnerable unless ``vulnerable`` says
    otherwise, and the report says which was assumed. Raises BridgeError on bad input. For a
    passed-out contract the declarer and tricks are ignored.
    """
    parsed = Contract.parse(contract)
    if parsed.is_pass:
        result = TableResult(parsed, None, 0)
    else:
        result = TableResult.make(parsed, declarer, tricks)
    board_vul = vulnerability(board) if board is not None else None
    lines: list[str] = []
    if result.declarer is None:
        lines.append("Contract:  PASS (passed out)")
    else:
        lines.append(
            f"Contract:  {parsed} by {result.declarer.name_en} "
            f"(needs {parsed.tricks_needed} tricks)"
        )
        lines.append(f"Result:    {result.result} ({result.tricks} tricks taken)")
    if board is not None and board_vul is not None:
        lines.append(
            f"Board:     {board}, dealer {dealer(board).name_en}, {_VULNERABILITY_TEXT[board_vul]}"
        )
        vul = board_vul
    else:
        assumed = bool(vulnerable)
        state = "vulnerable" if assumed else "not vulnerable"
        lines.append(f"Board:     none given; declarer taken as {state}")
        vul = Vulnerability.NONE
        if assumed and result.declarer is not None:
            vul = Vulnerability(result.declarer.side.value)
    if result.declarer is None:
        lines.append("Score:     0")
    else:
        side = result.declarer.side
        ns = result_ns_score(result, vul)
        declarer_points = ns if side.value == "NS" else -ns
        state = "vulnerable" if vul.is_vulnerable(side) else "not vulnerable"
        lines.append(f"Declarer:  {side.label}, {state}")
        lines.append(f"Score:     N/S {ns:+d}, {side.label} (declaring side) {declarer_points:+d}")
    lines.append(describe(board, result, vulnerable))
    return "\n".join(lines)
