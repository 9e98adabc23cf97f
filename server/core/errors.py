"""Domain errors: a machine-readable code, a sentence with its parameters and the HTTP status
they map to."""

from __future__ import annotations


class TravellerError(Exception):
    """A refused request. Route handlers turn it into a 4xx with ``code`` and ``message``.

    ``template`` is an English sentence with ``{name}`` fields and ``params`` their values:
    ``NotFoundError("unknown_board", "Board {board} is not played in this session.",
    board=7)``. ``message`` is the English sentence filled in; the handlers put the template,
    with ``code`` as its gettext context, into the person's language (server/i18n/error_words.py).
    ``language`` is the event's language when a table's command was refused (a table client
    that sends no Accept-Language gets the club's language)."""

    status = 400
    language: str | None = None

    def __init__(
        self, code: str, template: str, /, *, status: int | None = None, **params: object
    ) -> None:
        message = template.format(**params)
        super().__init__(message)
        self.code = code
        self.template = template
        self.params = params
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


def verbatim(text: str) -> str:
    """A sentence worded elsewhere (the movement engine's, the bridge rules', a file reader's)
    as a template without fields: the refusal shows it as it is, in English."""
    return text.replace("{", "{{").replace("}", "}}")
