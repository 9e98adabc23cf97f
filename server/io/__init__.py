"""Event files in and out: PBN, USEBIO, CSV, Bridgemate BWS, hand records and offline scoring.

Importing the package loads only the error type (standard library), so the CLI module can be
mounted without pulling in the readers; import the submodules for the rest.
"""

from .errors import EventFileError

__all__ = ["EventFileError"]
