"""The bridge domain: seats, contracts, results, Law 77 scores and IMPs (standard library only)."""

from .board import dealer, vulnerability
from .calc import calc_report
from .card import parse_card
from .contract import Contract, TableResult, all_contracts, format_result, parse_tricks
from .describe import describe, describe_outcome
from .enums import Doubling, Seat, Side, Strain, Vulnerability
from .errors import (
    BridgeError,
    InvalidBoard,
    InvalidCard,
    InvalidContract,
    InvalidDoubling,
    InvalidLevel,
    InvalidResult,
    InvalidSeat,
    InvalidStrain,
    InvalidTricks,
)
from .score import contract_score, imps, ns_score, result_ns_score

__all__ = [
    "BridgeError",
    "Contract",
    "Doubling",
    "InvalidBoard",
    "InvalidCard",
    "InvalidContract",
    "InvalidDoubling",
    "InvalidLevel",
    "InvalidResult",
    "InvalidSeat",
    "InvalidStrain",
    "InvalidTricks",
    "Seat",
    "Side",
    "Strain",
    "TableResult",
    "Vulnerability",
    "all_contracts",
    "calc_report",
    "contract_score",
    "dealer",
    "describe",
    "describe_outcome",
    "format_result",
    "imps",
    "ns_score",
    "parse_card",
    "parse_tricks",
    "result_ns_score",
    "vulnerability",
]
