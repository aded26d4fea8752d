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


def test_verify_text_and_json(
    files: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """« Est punie d'un avertissement technique toute erreur ou absence de score sur les
    billets. » (S2) — B's wrong cumul (82 + 84 = 166, written 160) is corrected, no warning."""
    assert main(["verify", str(files / "p.json"), str(files / "b.txt")]) == 0
    captured = capsys.readouterr()
    assert "   166    160  valide" in captured.out  # corrected cumul, then the written one
    assert "Avertissements : 0" in captured.out
    assert "Score final : 166 points" in captured.out
    assert captured.err == ""
    assert main(["verify", str(files / "p.json"), str(files / "a.txt"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["final_score"], data["warnings"]) == (166, 0)
    assert [m["true_score"] for m in data["moves"]] == [82, 84]
    # the former reading, as a settings file
    (tmp_path / "r.json").write_text('{"cumul_warning": true}', "utf-8")
    assert main(["verify", str(files / "p.json"), str(files / "b.txt"),
                 "--reglages", str(tmp_path / "r.json")]) == 0
    assert "cumul écrit 160, attendu 166" in capsys.readouterr().out


def test_verify_exit_status_for_unreadable_lines_and_zeroed_moves(
    files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Exit 1, report on stdout, a French summary on stderr. FICHERA 82 counts; line 3 is
    # unreadable; WUS written at 15A does not fit there (placement error, zero); total 82.
    (files / "d.txt").write_text(
        "1 ACEFHIR h8 FICHERA 82\nMerci.\n2 SUW 15a WUS 84\n", "utf-8")
    assert main(["verify", str(files / "p.json"), str(files / "d.txt")]) == 1
    captured = capsys.readouterr()
    assert "Score final : 82 points" in captured.out
    assert captured.err == (
        "Feuille vérifiée avec réserves : 1 erreur(s) de lecture de la feuille ; coup(s) à "
        "zéro : 2 (détail dans le rapport).\n"
    )
    # a JSON sheet of the wrong shape: French errors, exit 1, no traceback
    (files / "e.json").write_text('{"moves": [[1, 2], {"number": "x"}]}', "utf-8")
    assert main(["verify", str(files / "p.json"), str(files / "e.json"), "--json"]) == 1
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["errors"][0].startswith("Ligne 1 : moves[1] : un coup est un objet JSON")
    assert "Traceback" not in captured.err


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
    assert capsys.readouterr().err == (
        f"Problème invalide : Impossible de lire {files / 'nope.json'} : fichier introuvable.\n"
    )
    assert main(["verify", str(files / "p.json"), str(files / "nope.txt")]) == 2
    assert capsys.readouterr().err == (
        f"Erreur : Impossible de lire {files / 'nope.txt'} : fichier introuvable.\n"
    )
    (files / "bad.json").write_text('{"type": "integral", "id": "x",\n "order": "12"}', "utf-8")
    assert main(["verify", str(files / "bad.json"), str(files / "a.txt")]) == 2
    assert capsys.readouterr().err == (
        "Problème invalide : Problème mal formé : « order » : liste attendue, reçu '12'.\n"
    )
    (files / "r.json").write_text('{"cumul_warning": "oui",}', "utf-8")
    assert main(["verify", str(files / "p.json"), str(files / "a.txt"),
                 "--reglages", str(files / "r.json")]) == 2
    assert capsys.readouterr().err == (
        f"Erreur : Réglages {files / 'r.json'}, ligne 1 : JSON illisible (nom de champ entre "
        "guillemets attendu).\n"
    )
    (files / "r.json").write_text('{"cumul_warning": "oui"}', "utf-8")
    assert main(["verify", str(files / "p.json"), str(files / "a.txt"),
                 "--reglages", str(files / "r.json")]) == 2
    assert capsys.readouterr().err == (
        f"Erreur : Réglages {files / 'r.json'} : Réglage(s) invalide(s) : cumul_warning : "
        "vrai ou faux, reçu 'oui'.\n"
    )
    with pytest.raises(SystemExit) as exc:
        main(["problem", "new", "belote"])
    assert exc.value.code == 2
    assert "type de partie inconnu" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["verify", str(files / "p.json")])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("utilisation : arbitre verify")
    assert err.endswith("arbitre : erreur : arguments obligatoires manquants : sheet\n")
    with pytest.raises(SystemExit):
        main(["solve", str(files / "p.json"), "--secondes", "vite"])
    assert capsys.readouterr().err.endswith(
        "arbitre : erreur : argument --seconds/--secondes : nombre attendu, reçu 'vite'\n"
    )


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
