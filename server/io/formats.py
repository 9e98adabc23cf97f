"""Which reader reads a file: by its extension, else by its first bytes (PBN, USEBIO XML, CSV,
an ACBL Live results record or a BCS .bws database)."""

from __future__ import annotations

from pathlib import Path

from . import acbl_live
from .bws import read_bws
from .csv_io import read_travellers_csv
from .errors import EventFileError
from .limits import check_size
from .model import EventFile
from .pbn import read_pbn
from .usebio import read_usebio


def load(path: str | Path) -> EventFile:
    """Read an event file, choosing the reader by extension (or by content for .xml/.txt)."""
    file = Path(path)
    suffix = file.suffix.lower()
    try:
        check_size(file.stat().st_size)
        if suffix == ".bws" or suffix == ".mdb":
            return read_bws(file)
        data = file.read_bytes()
    except OSError as exc:
        raise EventFileError(
            f"cannot read the file: {exc.strerror or exc}", path=str(file)
        ) from None
    except EventFileError as exc:
        raise exc.located(str(file)) from None
    try:
        return parse_bytes(data, suffix)
    except EventFileError as exc:
        raise exc.located(str(file)) from None


def parse_bytes(data: bytes, suffix: str = "") -> EventFile:
    """Parse file contents, by suffix or by sniffing: PBN, USEBIO XML, CSV or an ACBL Live
    results record."""
    check_size(len(data))
    head = data[:2048].lstrip(b"\xef\xbb\xbf \t\r\n")
    if suffix == ".json" or acbl_live.looks_like(data):
        return acbl_live.read_acbl_live(data)
    if suffix == ".xml" or head.startswith(b"<"):
        return read_usebio(data)
    if suffix == ".csv":
        return read_travellers_csv(_text(data))
    if suffix == ".pbn" or head.startswith((b"%", b"[")):
        return read_pbn(_text(data))
    raise EventFileError("not a PBN, USEBIO or CSV file (cannot tell from its name or start)")


def _text(data: bytes) -> str:
    """Decode UTF-8 (with or without BOM), falling back to Latin-1 as older producers write."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")
