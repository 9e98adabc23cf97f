"""Domain errors: a machine-readable code, a plain-words message and the HTTP status they map to."""

from __future__ import annotations


class TravellerError(Exception):
    """A refused request. Route handlers turn it into a 4xx with ``code`` and ``message``.

    ``message`` is English; the handlers translate it for the person (server/i18n/error_words.py).
    ``language`` is the event's language when a table's command was refused (a table client
    that sends no Accept-Language gets the club's language)."""

    status = 400
    language: str | None = None

    def __init__(self, code: str, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        if status is not None:
            self.status = status


class NotFoundError(TravellerError):
    status = 404


class UnauthorizedError(TravellerError):
    status = 401


class ForbiddenError(TravellerError):
    status = 403


class ConflictError(TravellerError):
    status = 409


class InvalidError(TravellerError):
    status = 422


class UnavailableError(TravellerError):
    """The server cannot store anything right now (e.g. its disk is full): try again later."""

    status = 503
