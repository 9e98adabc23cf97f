"""`traveller score` and the reader contract (issue 16): the summary of lines read and refused
and the reader's notes on stderr, refusals in the JSON, and the exit code: 0 with refusals,
1 with --strict, 2 when nothing usable is left."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from typer.testing import CliRunner

from server.io.cli import score

runner = CliRunner()
REAL = Path(__file__).resolve().parents[1] / "data" / "published"
FFB = REAL / "ffb_open2_dn1_finale_2022_seance1.pbn"


def _traveller() -> typer.Typer:
    app = typer.Typer()
    app.command("score")(score)

    @app.command("calc")
    def calc() -> None:
        """Placeholder."""

    return app


def _typo(tmp_path: Path) -> Path:
    """The real FFB file with one contract mistyped (line 62, board 1)."""
    lines = FFB.read_text(encoding="utf-8").splitlines()
    lines[61] = lines[61].replace(" 4S  S 10", " 4Q  S 10")
    path = tmp_path / "typo.pbn"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


#: What `traveller score` says of the FFB file's program (server/scoring/profiles.py).
SUGGESTION = (
    'note: "Magic Contest France 4.13.3.4 (www.brenning.se), for the Federation Francaise de '
    'Bridge" wrote this file; to reproduce its figures use --profile ffb (FFB / Magic Contest)'
)


def test_a_clean_real_file_says_every_line_was_read() -> None:
    result = runner.invoke(_traveller(), ["score", str(FFB)])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [SUGGESTION, "660 lines read, 0 refused"]
    quiet = runner.invoke(_traveller(), ["score", str(FFB), "-f", "json"])
    assert quiet.stderr.splitlines() == [SUGGESTION]  # the JSON carries the counts
    chosen = runner.invoke(_traveller(), ["score", str(FFB), "-f", "json", "--profile", "ffb"])
    assert chosen.stderr == ""  # the suggested profile is the one used
    assert json.loads(quiet.stdout)["lines_read"] == 660


def test_a_refused_line_is_named_and_the_rest_scored(tmp_path: Path) -> None:
    result = runner.invoke(_traveller(), ["score", str(_typo(tmp_path)), "-f", "json"])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines()[:2] == [SUGGESTION, "659 lines read, 1 refused:"]
    assert result.stderr.splitlines()[2].startswith("  line 62, board 1: ")
    data = json.loads(result.stdout)
    assert data["lines_read"] == 659
    [refused] = data["refused"]
    assert (refused["line"], refused["board"]) == (62, 1)
    assert data["program"].startswith("Magic Contest")
    assert len(data["pairs"]) == 44


def test_strict_refuses_a_file_with_a_refused_line(tmp_path: Path) -> None:
    result = runner.invoke(_traveller(), ["score", str(_typo(tmp_path)), "--strict"])
    assert result.exit_code == 1
    assert result.stdout == ""
    assert "line 62, board 1" in result.stderr
    assert "--strict" in result.stderr
    clean = runner.invoke(_traveller(), ["score", str(FFB), "--strict"])
    assert clean.exit_code == 0, clean.output


def test_nothing_usable_left_exits_2_naming_the_place(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("board,ns,ew,contract,declarer,tricks\n1,1,2,9NT,N,9\n2,1,2,3NT,Q,9\n")
    result = runner.invoke(_traveller(), ["score", str(path)])
    assert result.exit_code == 2
    assert "line 2, board 1" in result.stderr
    assert "nothing usable left" in result.stderr


def test_notes_are_shown(tmp_path: Path) -> None:
    path = tmp_path / "e.xml"
    path.write_bytes(
        b'<USEBIO Version="1.2"><EVENT EVENT_TYPE="MP_PAIRS">'
        b"<BOARD_SCORING_METHOD>IMPS</BOARD_SCORING_METHOD><BOARD><BOARD_NUMBER>1</BOARD_NUMBER>"
        b"<TRAVELLER_LINE><NS_PAIR_NUMBER>1</NS_PAIR_NUMBER><EW_PAIR_NUMBER>2</EW_PAIR_NUMBER>"
        b"<SCORE>420</SCORE></TRAVELLER_LINE></BOARD></EVENT></USEBIO>"
    )
    result = runner.invoke(_traveller(), ["score", str(path), "-f", "json"])
    assert result.exit_code == 0, result.output
    assert any(
        line.startswith("note: the file's scoring methods disagree")
        for line in result.stderr.splitlines()
    )
    assert json.loads(result.stdout)["notes"]


def test_a_file_with_deals_but_every_result_refused_exits_2(tmp_path: Path) -> None:
    hands = "AKQJT98765432... .AKQJT98765432.. ..AKQJT98765432. ...AKQJT98765432"
    path = tmp_path / "e.pbn"
    path.write_text(
        f'[Board "1"]\n[Deal "N:{hands}"]\n'
        '[ScoreTable "PairId_NS;PairId_EW;Contract;Declarer;Result"]\n1 2 9S N 9\n'
    )
    result = runner.invoke(_traveller(), ["score", str(path)])
    assert result.exit_code == 2
    assert "0 lines read, 1 refused:" in result.stderr
    assert "line 4, board 1" in result.stderr
    assert "no result to score" in result.stderr
