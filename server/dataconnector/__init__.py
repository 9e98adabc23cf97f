"""Bridgemate Data Connector compatibility: scoring programs drive Traveller unchanged.

Include ``router`` in the main app: it serves the Data Connector under ``/dc`` and, when the
club id and licence key are configured, on its own port (5079 by default) as well.
"""

from server.dataconnector.router import router

__all__ = ["router"]
