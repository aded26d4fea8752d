"""``arbitre correspondance replay FICHE.txt``: the correspondence game rebuilt from its score
sheet (RULES §8.1; docs/VARIANTS.md). The game of tests/puzzles/test_correspondence.py
« going out »: row ZAEEEEE / LS, word list {ZA, ZAS, LA, AS}; RED H7 ZA (10 + 1) × 2 = 22,
recorded 10 (round I cap); BLUE H7 ZAS 10 + 1 + 1 = 12; RED passes; BLUE 8G LA 1 + 1 = 2
empties his rack with the row exhausted: RED's EEEEE (5) subtracted from RED and added to
BLUE: RED 10 − 5 = 5, BLUE 12 + 2 + 5 = 19; BLUE wins, 0 – 1."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from arbitre_cli import main as arbitre
from puzzles.correspondence import SheetHeader, new_game, play, sheet_text
from puzzles.correspondence_cli import main
from tests.puzzles.test_correspondence import CFG


def _files(tmp_path: Path) -> tuple[Path, Path]:
    st = new_game("ZAEEEEE" + "LS")
    for ref, word in (("H7", "ZA"), ("H7", "ZAS"), (None, None), ("8G", "LA")):
        st = play(st, ref, word, CFG)
    sheet = tmp_path / "fisa.txt"
    sheet.write_text(sheet_text(st, SheetHeader("Série 1", "Ana", "Bob", "M. Popescu"),
                                times=("1h00", "2h30", "0h10", "5h00")), "utf-8")
    words = tmp_path / "mots.txt"
    words.write_text("ZA\nZAS\nLA\nAS\n", "utf-8")
    return sheet, words


def test_replay_text_and_json(tmp_path: Path) -> None:
    sheet, words = _files(tmp_path)
    out = io.StringIO()
    assert main(["replay", str(sheet), "--lexicon", str(words)], out=out) == 0
    text = out.getvalue()
    assert text.splitlines()[:7] == [
        "Partie par correspondance : Série 1", "ROUGE Ana – BLEU Bob",
        "Rangée : ZAEEEEELS",
        "Tour 1 rouge : H7 ZA — 22 points (inscrit 10)",
        "Tour 1 bleu : H7 ZAS — 12 points",
        "Tour 2 rouge : passe — 0 points",
        "Tour 2 bleu : 8G LA — 2 points"]
    assert "Lettres restantes : ROUGE -5, BLEU 5" in text
    assert "Total : ROUGE 5, BLEU 19" in text and "Résultat : ROUGE 0 – BLEU 1" in text
    out = io.StringIO()
    assert main(["replay", str(sheet), "--lexicon", str(words), "--json"], out=out) == 0
    data = json.loads(out.getvalue())
    assert (data["totals"], data["leftover"], data["result"]) == ([5, 19], [-5, 5], [0, 1])
    assert [(m["word"], m["score"], m["recorded"]) for m in data["moves"]] == [
        ("ZA", 22, 10), ("ZAS", 12, 12), (None, 0, 0), ("LA", 2, 2)]


def test_through_the_arbitre_command_and_french_errors(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sheet, words = _files(tmp_path)
    assert arbitre(["correspondance", "replay", str(sheet), "--lexicon", str(words)]) == 0
    bad = tmp_path / "faux.txt"
    bad.write_text(sheet.read_text("utf-8").replace("1 rouge H7 ZA 22 10",
                                                    "1 rouge H7 ZA 24 10"), "utf-8")
    assert main(["replay", str(bad), "--lexicon", str(words)]) == 2
    assert main(["replay", str(tmp_path / "absent.txt")]) == 2
    assert main(["replay", str(sheet), "--lang", "ro"]) == 2
    err = capsys.readouterr().err
    assert "Erreur : Fiche : ZA en H7 vaut 22, pas 24." in err
    assert "Erreur : fichier illisible" in err
    assert "Partie en roumain : donnez la liste de mots (--lexicon)." in err


def test_a_missing_word_list_is_a_french_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--lexicon naming no file: « Erreur : Liste de mots … illisible … » and exit 2 (was a
    LexiconError traceback), for both game sub-commands."""
    from puzzles.duplicate_cli import main as duplicate_main

    sheet, _ = _files(tmp_path)
    missing = tmp_path / "absente.txt"
    assert main(["replay", str(sheet), "--lexicon", str(missing)]) == 2
    game = tmp_path / "partie.json"
    game.write_text('{"bag": "ZAEEEEELS", "lexicon": "absente.txt"}', encoding="utf-8")
    assert duplicate_main(["replay", str(game)], io.StringIO()) == 2
    assert duplicate_main(["replay", str(game), "--lexicon", str(missing)], io.StringIO()) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [f"Erreur : Liste de mots {missing} illisible : No such file or directory."] * 3
