"""How strong the server's own secrets must be: the TD password and the Data Connector's club id
and licence key. Pure rules; ``server.core.config.check`` refuses to start a server that breaks
them.
"""

from __future__ import annotations

import string

MIN_TD_PASSWORD = 8
MIN_DC_LICENCE = 12
MIN_DISTINCT = 4

#: Passwords (lower case, letters and digits only, trailing digits dropped) that a guesser tries
#: first: the usual ones, the deploy example's placeholder and the words of the game and the app.
WEAK = frozenset(
    {
        "",
        "password",
        "passwort",
        "passord",
        "qwerty",
        "qwertyuiop",
        "azerty",
        "asdfgh",
        "letmein",
        "welcome",
        "admin",
        "administrator",
        "changeme",
        "changemeplease",
        "secret",
        "iloveyou",
        "abc",
        "abcdef",
        "abcdefgh",
        "traveller",
        "traveler",
        "bridge",
        "bridgemate",
        "bridgeclub",
        "director",
        "tournament",
        "duplicate",
        "club",
        "td",
    }
)

SEQUENCES = (string.digits + string.digits, string.ascii_lowercase, "qwertyuiopasdfghjklzxcvbnm")


def td_password_problem(password: str) -> str | None:
    """Why ``password`` is too weak for the TD (who can change every score), or None."""
    if not password.strip():
        return "the TD password is blank"
    if password != password.strip():
        return "the TD password starts or ends with a space (a quoting slip in the settings?)"
    if len(password) < MIN_TD_PASSWORD:
        return f"the TD password must have at least {MIN_TD_PASSWORD} characters"
    if password.isdigit():
        return "the TD password is only digits: use letters too"
    return _weak("the TD password", password)


def dc_credentials_problem(club_id: str | None, licence: str | None) -> str | None:
    """Why the Data Connector's credentials cannot be used (only one set, a short or guessable
    licence key), or None (both set and strong, or both unset: the connector is off)."""
    if not club_id and not licence:
        return None
    if not club_id or not licence:
        return (
            "set both TRAVELLER_DC_CLUB_ID and TRAVELLER_DC_LICENSE for the Data Connector, "
            "or neither"
        )
    if not club_id.strip() or club_id != club_id.strip():
        return "the Data Connector club id is blank or starts or ends with a space"
    if licence != licence.strip() or len(licence) < MIN_DC_LICENCE:
        return (
            f"the Data Connector licence key must have at least {MIN_DC_LICENCE} characters "
            "and no spaces around it"
        )
    return _weak("the Data Connector licence key", licence)


def _weak(what: str, secret: str) -> str | None:
    """A secret of few distinct characters, a run (``12345678``, ``abcdefgh``) or a common
    password (with digits after it, ``Password2026!``)."""
    if len(set(secret.lower())) < MIN_DISTINCT:
        return f"{what} repeats too few characters"
    plain = "".join(c for c in secret.lower() if c.isalnum())
    if any(plain in run or plain in run[::-1] for run in SEQUENCES):
        return f"{what} is a run of keys"
    if plain.rstrip(string.digits) in WEAK:
        return f"{what} is a common password"
    return None
