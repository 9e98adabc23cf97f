"""What can go wrong between the terminal and the server, in words for the players."""

from __future__ import annotations

from .i18n import N_, _

OFFLINE_TEXT = N_("The server cannot be reached right now. Results are kept and sent later.")


class ClientError(Exception):
    """A request the server (or the link) refused; ``message`` is a sentence for players."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class LinkDownError(Exception):
    """The server cannot be reached, or the connection dropped."""


def offline_error() -> ClientError:
    """The refusal when the server cannot be reached, in the language in use."""
    return ClientError("offline", _(OFFLINE_TEXT))
