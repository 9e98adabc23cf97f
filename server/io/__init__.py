"""Event files in and out: PBN, USEBIO, CSV, Bridgemate BWS, hand records and offline scoring."""

from .errors import EventFileError
from .model import BoardRecord, EventFile, Line, PairEntry, PairKey

__all__ = ["BoardRecord", "EventFile", "EventFileError", "Line", "PairEntry", "PairKey"]
