"""The puzzles' command line, run in-process through ``arbitre_cli.main`` with real files
and the bundled French list."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from arbitre_cli import main
from puzzles.problem import GameType, load_problem

MOVES = "1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 "
SHEET_A = "Joueur: Ana\nEnvoyé: 2000-05-12T18:55:00+03:00\n" + MOVES + "166\n"
SHEET_B = "Joueur: Bogdan\nEnvoyé: 2000-05-12T18:50:00+03:00\n" + MOVES + "160\n"
SHEET_C = "Joueur: Cora\n1 ACEFHIR h8 FICHERA 82 82\n"


@pytest.fixture
def files(tmp_path: Path) -> Path:
    assert main(["problem", "new", "integral", "--seed", "3", "-o", str(tmp_path / "p.json")]) == 0
    for name, text in (("a.txt", SHEET_A), ("b.txt", SHEET_B), ("c.txt", SHEET_C)):
        (tmp_path / name).write_text(text, "utf-8")
    return tmp_path


def test_problem_new_writes_a_loadable_file(files: Path) -> None:
    p = load_problem(files / "p.json")
    assert p.game is GameType.INTEGRAL and p.id == "integral-fr-3"


def test_problem_new_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["problem", "new", "partiel", "--seed", "8", "--lang", "ro"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["type"] == "integral_partiel" and data["lang"] == "ro"
    assert 21 <= len(data["stock"]) <= 35


def test_verify_text_and_json(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["verify", str(files / "p.json"), str(files / "b.txt")]) == 0
    out = capsys.readouterr().out
    assert "cumul écrit 160, attendu 166" in out
    assert "Score final : 166 points" in out
    assert main(["verify", str(files / "p.json"), str(files / "a.txt"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["final_score"], data["warnings"]) == (166, 0)
    assert [m["true_score"] for m in data["moves"]] == [82, 84]


def test_rank_text_csv_json(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sheets = [str(files / n) for n in ("a.txt", "c.txt", "b.txt")]
    assert main(["rank", str(files / "p.json"), *sheets, "--csv", "--reference", "200"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    # B and A both 166: B sent five minutes earlier ranks first; C has 82.
    assert [r[:4] for r in rows[1:]] == [
        ["1", "b.txt", "Bogdan", "166"], ["2", "a.txt", "Ana", "166"], ["3", "c.txt", "Cora", "82"],
    ]
    assert [r[6] for r in rows[1:]] == ["83.00", "83.00", "41.00"]
    assert main(["rank", str(files / "p.json"), *sheets, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["player"] for d in data] == ["Bogdan", "Ana", "Cora"]
    assert main(["rank", str(files / "p.json"), *sheets]) == 0
    text = capsys.readouterr()
    assert "1. Bogdan" in text.out
    assert text.err == ""  # no progress output when stderr is not a terminal


def test_errors_are_french_and_exit_non_zero(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["verify", str(files / "nope.json"), str(files / "a.txt")]) == 2
    assert "Impossible de lire" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["problem", "new", "belote"])
    assert exc.value.code == 2
    assert "type de partie inconnu" in capsys.readouterr().err


def test_romanian_draws_that_need_a_word_list_ask_for_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ARBITRE_LEXICON", raising=False)
    monkeypatch.setenv("ARBITRE_CACHE_DIR", str(tmp_path / "cache"))
    assert main(["problem", "new", "rangee", "--lang", "ro"]) == 2
    assert "liste de mots roumaine" in capsys.readouterr().err
    words = tmp_path / "ro.txt"
    words.write_text("CASA\nAS\nSTIRE\nAI\nST\nMARE\nRAMA\n", "utf-8")
    assert main(["problem", "new", "rangee", "--lang", "ro", "--lexicon", str(words)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["lexicon"]["name"] == "ro" and data["lexicon"]["word_count"] == 7
