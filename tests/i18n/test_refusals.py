"""The API's refusals in the person's language (Accept-Language, else the event's for a table);
the CLI's messages in the environment's language. ``code`` never changes."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from string import Formatter

import pytest
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po
from fastapi.testclient import TestClient

from protocol import fair_play
from server import i18n
from server.app import create_app
from server.core.config import Settings
from server.core.db import make_engine
from server.core.errors import ConflictError, InvalidError, NotFoundError, TravellerError, verbatim
from server.i18n import error_words
from server.i18n.cli_words import cli_language
from server.movements import MovementError, PairRef
from server.services import hands
from tests.i18n.test_catalogues import TRANSLATED, source_ids
from tests.support.api import Club, new_id, open_club
from tests.support.env import TD_PASSWORD

ROOT = Path(__file__).resolve().parents[2]
MOVEMENT_ADMIN = "server/services/event/movement_admin.py"


def _keywords() -> frozenset[str]:
    """The error classes Babel extracts refusals from (``babel.cfg``'s keywords)."""
    with (ROOT / "server/locales/babel.cfg").open() as handle:
        _methods, options = parse_mapping_cfg(handle)
    return frozenset(name for name, spec in options["server/**.py"]["keywords"].items() if spec)


ERROR_CLASSES = _keywords() - {"refusal", "said"}


@pytest.fixture
def club(db_url: str) -> Iterator[Club]:
    engine = make_engine(db_url)
    app = create_app(Settings(td_password=TD_PASSWORD, database_url="unused://"), engine=engine)
    with TestClient(app) as client:
        yield open_club(client, engine, tables=3, bpr=2, event={"language": "da"})
    engine.dispose()


def test_a_german_refusal_by_accept_language(club: Club) -> None:
    table = club.pair(1)
    club.start_round(1)
    command = {
        "type": "enter_result",
        "entry_id": new_id(),
        "board": 5,
        "values": {"contract": "4S", "declarer": "S", "tricks": 10},
    }
    german = {**table.headers, "Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}
    r = club.client.post("/api/v1/table/commands", json=command, headers=german)
    assert r.status_code == 409
    body = r.json()
    assert body["code"] == "board_not_in_round"
    assert body["message"] == (
        "Board 5 wird an Tisch 1 in Runde 1 nicht gespielt (Boards dieser Runde: 1, 2)."
    )
    r = club.client.post("/api/v1/table/commands", json=command, headers=table.headers)
    assert r.json()["code"] == "board_not_in_round"
    assert r.json()["message"].startswith("Spil 5 spilles ikke ved bord 1 i runde 1"), (
        "no Accept-Language at a table: the event's language (Danish)"
    )
    english = {**table.headers, "Accept-Language": "en"}
    r = club.client.post("/api/v1/table/commands", json=command, headers=english)
    assert r.json()["message"].startswith("Board 5 is not played at table 1 in round 1")


def test_a_td_refusal_follows_accept_language_only(club: Club) -> None:
    r = club.client.get(
        "/api/v1/events/999999", headers={**club.td_headers, "Accept-Language": "ru"}
    )
    assert r.status_code == 404
    assert r.json()["code"] == "unknown_event"
    assert r.json()["message"] == "Турнира 999999 нет."
    r = club.client.get("/api/v1/events/999999", headers=club.td_headers)
    assert r.json()["message"] == "There is no event 999999."


def test_a_refusal_over_the_websocket_is_in_the_events_language(club: Club) -> None:
    table = club.pair(2)
    club.start_round(1)
    with club.client.websocket_connect("/api/v1/table/ws") as ws:
        ws.send_json({"type": "hello", "token": table.token})
        assert ws.receive_json()["type"] == "round_info"
        ws.send_json({"type": "confirm_result", "entry_id": new_id(), "board": 3, "version": 1})
        reply = ws.receive_json()
    assert reply["code"] == "not_entered"
    assert reply["message"] == "Spil 3 har intet resultat endnu: indtast det først."


def test_a_td_refusal_with_parameters_in_danish(club: Club) -> None:
    r = club.client.post(
        f"/api/v1/sections/{club.section_id}/rounds/3/start",
        headers={**club.td_headers, "Accept-Language": "da"},
    )
    assert r.status_code == 409
    assert r.json()["code"] == "round_order"
    assert r.json()["message"] == "Række A er i runde 0: næste runde at starte er 1."
    r = club.client.get(
        "/api/v1/sections/999999", headers={**club.td_headers, "Accept-Language": "da"}
    )
    assert (r.status_code, r.json()["code"]) == (404, "unknown_section")
    assert "999999" in r.json()["message"]
    assert not r.json()["message"].startswith("There is no section")


def test_a_refusal_is_translated_by_its_code_and_template() -> None:
    error = ConflictError(
        "board_not_in_round",
        "Board {board} is not played at table {number} in round {round} "
        "(this round's boards: {boards}).",
        board=9,
        number=3,
        round=2,
        boards="4, 5, 6",
    )
    assert (
        error.message
        == str(error)
        == ("Board 9 is not played at table 3 in round 2 (this round's boards: 4, 5, 6).")
    )
    assert error_words.translate("nb", error) == (
        "Spill 9 spilles ikke ved bord 3 i runde 2 (rundens spill: 4, 5, 6)."
    )
    assert error_words.translate(None, error) == error.message
    assert error_words.translate("en", error) == error.message
    elsewhere = ConflictError("unknown_board", error.template, **error.params)
    assert error_words.translate("nb", elsewhere) == error.message, "the code is the context"


def test_a_reworded_template_is_missing_from_the_catalogue(tmp_path: Path) -> None:
    """A raise site whose sentence was reworded extracts a template no catalogue holds, so the
    catalogue test (tests/i18n/test_catalogues.py) fails, and the refusal is not matched
    against the old sentence."""
    (tmp_path / "server").mkdir()
    (tmp_path / "server" / "reworded.py").write_text(
        "def find(board: int) -> None:\n"
        '    raise NotFoundError("unknown_board", "Board {board} is not played in this '
        'meeting.", board=board)\n'
    )
    found = source_ids("server", tmp_path)
    reworded = ("unknown_board", "Board {board} is not played in this meeting.")
    assert found == {reworded}
    for lang in TRANSLATED:
        with i18n.po_path(lang).open("rb") as handle:
            ids = {(m.context, m.id) for m in read_po(handle, locale=lang) if m.id}
        assert ("unknown_board", "Board {board} is not played in this session.") in ids
        assert not found <= ids, lang
    error = NotFoundError("unknown_board", reworded[1], board=7)
    assert error_words.translate("da", error) == "Board 7 is not played in this meeting."


@cache
def _translated(lang: str) -> frozenset[tuple[str | None, str]]:
    """(context, message id) of each message a language's catalogue translates."""
    with i18n.po_path(lang).open("rb") as handle:
        catalogue = read_po(handle, locale=lang)
    return frozenset(
        (m.context, m.id) for m in catalogue if isinstance(m.id, str) and m.string and not m.fuzzy
    )


def _raise_sites() -> Iterator[tuple[str, ast.Call]]:
    """Every call of an error class in the server's code: (file:line, the call)."""
    for path in sorted((ROOT / "server").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and _called(node.func) in ERROR_CLASSES:
                yield f"{path.relative_to(ROOT)}:{node.lineno}", node


def _called(func: ast.expr) -> str:
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def test_babel_takes_every_refusal_class_as_a_keyword() -> None:
    raised = {
        cls.__name__
        for cls in _subclasses(TravellerError)
        if cls.__init__ is TravellerError.__init__  # NotPairedError words its own
    }
    assert {"TravellerError", "NotFoundError", "RateLimitedError"} <= raised
    assert raised <= ERROR_CLASSES


def _subclasses(cls: type) -> Iterator[type]:
    yield cls
    for sub in cls.__subclasses__():
        yield from _subclasses(sub)


def test_every_raise_site_gives_a_code_a_template_and_its_parameters() -> None:
    """Each refusal is raised with a literal code and a literal template whose fields are its
    keyword arguments, and is in every shipped catalogue, translated. A sentence worded
    elsewhere (``verbatim``) is listed here, so that it is a decision, not an accident."""
    extracted = source_ids("server")
    worded_elsewhere = []
    sites = 0
    for where, call in _raise_sites():
        sites += 1
        assert len(call.args) == 2, where
        code, template = call.args
        if isinstance(template, ast.Call) and _called(template.func) == "verbatim":
            worded_elsewhere.append((where.split(":")[0], ast.unparse(code)))
            continue
        if where.startswith("server/i18n/error_words.py:"):
            assert ast.unparse(template) == "template", where  # MOVEMENT_REFUSALS's, below
            continue
        assert isinstance(code, ast.Constant), where
        assert isinstance(code.value, str), where
        assert isinstance(template, ast.Constant), where
        assert isinstance(template.value, str), where
        fields = {name for _t, name, _s, _c in Formatter().parse(template.value) if name}
        given = {k.arg for k in call.keywords if k.arg != "status"}
        assert fields == given, where
        assert (code.value, template.value) in extracted, where
        for lang in TRANSLATED:
            assert (code.value, template.value) in _translated(lang), (where, lang)
    assert sites > 180
    assert sorted(worded_elsewhere) == [
        ("server/api/movements.py", "'invalid_movement'"),  # the engine's (MOVEMENT_REFUSALS)
        ("server/services/entries.py", "exc.code"),  # the bridge rules', English
        ("server/services/entries.py", "exc.code"),
        ("server/services/event/movement_admin.py", "'invalid_movement'"),
        ("server/services/event/setup.py", "'invalid_movement'"),
        ("server/services/results/adjusted.py", "exc.code"),
        ("server/services/results/team_matches.py", "'swiss_no_pairing'"),  # the Swiss pairing's
    ]


def test_every_movement_fault_has_the_tds_words() -> None:
    """Each ``kind`` the movement engine (and the changes made with it) gives a fault has a
    refusal of its own, and each refusal a fault that gives it."""
    kinds = set()
    for path in [*(ROOT / "server/movements").rglob("*.py"), ROOT / MOVEMENT_ADMIN]:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and _called(node.func) == "MovementError":
                kinds |= {
                    k.value.value
                    for k in node.keywords
                    if k.arg == "kind" and isinstance(k.value, ast.Constant)
                }
    assert kinds == set(error_words.MOVEMENT_REFUSALS)
    extracted = source_ids("server")
    for code, template in error_words.MOVEMENT_REFUSALS.values():
        assert (code, template) in extracted
        for lang in TRANSLATED:
            assert (code, template) in _translated(lang), (code, lang)


def test_a_movement_fault_becomes_the_tds_refusal_with_its_values() -> None:
    fault = MovementError(
        "plays board 5 again (already in round 1 at table 2)",
        kind="board_played_again",
        board=5,
        before=1,
        other=2,
        round=3,
        table=4,
        pair=PairRef(6, "NS"),
    )
    try:
        raise InvalidError("invalid_movement", verbatim(str(fault))) from fault
    except InvalidError as exc:
        refused = error_words.movement_refusal(exc)
    assert refused.code == "board_played_again"
    assert refused.message == (
        "Round 3, table 4: pair 6NS would play board 5 a second time "
        "(it played it in round 1 at table 2)."
    )
    assert error_words.translate("da", refused).startswith("Runde 3, bord 4: ")
    plain = InvalidError("invalid_movement", verbatim("round {x}"))
    assert plain.message == "round {x}"
    assert error_words.movement_refusal(plain) is plain


def test_a_lead_refusal_in_the_servers_words_and_in_danish() -> None:
    """The server's template says what the table's protocol says (the terminal shows
    ``fair_play.lead_refusal_text``), its seat names and card filled in."""
    refused = hands.lead_refusal(4, "S", "HT")
    assert refused.message == fair_play.lead_refusal_text(4, "S", hands.card_text("HT"))
    assert error_words.translate("da", refused) == (
        f"{hands.card_text('HT')} er ikke på Wests hånd i spil 4: West spiller ud mod South. "
        "Tjek udspillet og spilføreren."
    )


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"LANG": "ru_RU.UTF-8"}, "ru"),
        ({"LANG": "de_DE.UTF-8", "LC_ALL": "da_DK.UTF-8"}, "da"),
        ({"LANG": "nb_NO.UTF-8", "LANGUAGE": "fr:de"}, "de"),
        ({"LC_ALL": "C", "LANGUAGE": "ru"}, "en"),
        ({"LANG": "fr_FR.UTF-8"}, "en"),
        ({}, "en"),
    ],
)
def test_the_cli_language_from_the_environment(environ: dict[str, str], expected: str) -> None:
    assert cli_language(environ) == expected


def test_a_russian_cli_message() -> None:
    env = {"LANG": "ru_RU.UTF-8", "PATH": "/usr/bin:/bin", "HOME": str(ROOT)}
    result = subprocess.run(
        [sys.executable, "-m", "server.ops.cli", "calc", "9S", "N", "="],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.startswith("ошибка: "), result.stderr
    english = subprocess.run(
        [sys.executable, "-m", "server.ops.cli", "calc", "9S", "N", "="],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**env, "LANG": "C.UTF-8"},
        timeout=60,
    )
    assert english.stderr.startswith("error: "), english.stderr


def test_a_web_page_refusal_in_the_browsers_language(club: Club) -> None:
    r = club.client.get("/results/999999", headers={"Accept-Language": "de"})
    assert r.status_code == 404
    assert "Es gibt keine Gruppe 999999." in r.text
    r = club.client.get("/results/999999?lang=ru")
    assert "Секции 999999 нет." in r.text
