"""The API's refusals in the person's language: ``code`` stays English, ``message`` is translated.

A refusal is raised with its code, an English template and the template's parameters
(``NotFoundError("unknown_board", "Board {board} is not played in this session.",
board=board)``, server/core/errors.py). Babel's Python extractor takes the templates from the
raise sites, the code as the gettext context (the keywords in ``babel.cfg``):

    msgctxt "unknown_board"
    msgid "Board {board} is not played in this session."

:func:`translate` looks the template up with ``pgettext(code, template)`` in the person's
language and fills in the parameters. A template the catalogue lacks stays English; the tests
require every template in every catalogue (tests/i18n/test_refusals.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from server import i18n
from server.core.errors import InvalidError, TravellerError
from server.movements.validate import MovementError


def translated(
    lang: str | None, code: str, template: str, params: Mapping[str, object]
) -> str | None:
    """``template`` (raised with ``code``) in ``lang`` with ``params`` filled in; None when
    ``lang`` is English or its catalogue has no translation of the template."""
    lang = i18n.normalise(lang)
    if lang is None or lang == i18n.SOURCE:
        return None
    words = i18n.translations(lang).pgettext(code, template)
    if words == template:
        return None
    try:
        return words.format(**params)
    except (KeyError, IndexError, ValueError, AttributeError):
        return None


def translate(lang: str | None, error: TravellerError) -> str:
    """A refusal's message in ``lang``; English when there is no translation."""
    return translated(lang, error.code, error.template, error.params) or error.message


def for_request(error: TravellerError, accept_language: str | None) -> str:
    """A refusal's message for the person who asked: the Accept-Language's language, else the
    event's (for a table), else English."""
    lang = i18n.from_accept_language(accept_language) or error.language
    return translate(lang, error)


def refusal(code: str, template: str) -> tuple[str, str]:
    """Mark a refusal's template that is raised with ``code`` elsewhere than where it is written,
    for extraction with ``code`` as its context (``babel.cfg``); returns the two as they are."""
    return code, template


#: The movement engine's refusals of a mid-session change (``MovementError.kind``), raised as
#: ``invalid_movement`` with the engine's sentence (``server/movements``): each with a code of
#: its own and a sentence for the TD, whose fields are the engine's round, table, pair and
#: values.
MOVEMENT_REFUSALS: dict[str, tuple[str, str]] = {
    "board_played_again": refusal(
        "board_played_again",
        "Round {round}, table {table}: pair {pair} would play board {board} a second time "
        "(it played it in round {before} at table {other}).",
    ),
    "pair_seated_twice": refusal(
        "pair_seated_twice",
        "Round {round}: pair {pair} would sit at two tables ({first} and {second}).",
    ),
    "board_in_play_twice": refusal(
        "board_in_play_twice",
        "Round {round}: board {board} would be in play at tables {other} and {table}, "
        "which do not share boards.",
    ),
    "pair_already_seated": refusal(
        "pair_already_seated",
        "Pair {pair} is already in the movement: give the late pair a number not in use.",
    ),
    "pair_not_in_movement": refusal("pair_not_in_movement", "Pair {pair} is not in the movement."),
    "several_empty_seats": refusal(
        "several_empty_seats",
        "Round {round} has more than one empty seat: seat the late pair at a new table "
        "sharing boards.",
    ),
    "no_table_to_share": refusal(
        "no_table_to_share", "There is no table {share_with} to share boards with."
    ),
    "late_pair_too_late": refusal(
        "no_round_left", "No round is left to play: the late pair cannot join now."
    ),
    "nothing_to_swap": refusal(
        "no_round_left", "No round is left to play: there is nothing to swap."
    ),
    "no_opponent_for_late_pair": refusal(
        "no_opponent_for_late_pair",
        "Round {round}: nobody sits out to play the late pair; name its opponents.",
    ),
    "share_with_needed": refusal(
        "share_with_needed",
        "Round {round}: the opponents have no table; say whose boards the new table shares.",
    ),
    "share_table_unused": refusal(
        "share_table_unused",
        "Round {round}: table {table} is not in use, so its boards cannot be shared.",
    ),
    "rounds_out_of_range": refusal(
        "rounds_out_of_range", "The number of rounds must be between 1 and {most}."
    ),
    "boards_per_round_too_small": refusal(
        "boards_per_round_too_small", "Boards per round must be at least 1."
    ),
    "no_empty_seat": refusal(
        "no_empty_seat",
        "No seat is empty for pair {late_pair}: seat it at a new table sharing boards.",
    ),
    "same_pair_twice": refusal(
        "same_pair_twice", "Pick two different pairs to swap, not {chosen} twice."
    ),
}


def movement_refusal(error: TravellerError) -> TravellerError:
    """A refused mid-session change with a code of its own and a sentence for the TD (which
    :func:`translate` puts into the TD's language) instead of the engine's words; any other
    refusal as it is."""
    cause = error.__cause__
    if error.code != "invalid_movement" or not isinstance(cause, MovementError):
        return error
    worded = MOVEMENT_REFUSALS.get(cause.kind or "")
    if worded is None:
        return error
    code, template = worded
    fields: dict[str, Any] = cause.fields()
    return InvalidError(code, template, **fields)
