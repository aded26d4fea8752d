"""``arbitre duplicate replay`` on variant games (puzzles.variants_replay, docs/VARIANTS.md):
whole games with hand-computed tops and verdicts, the Duplicate Top ranking on the French
list, the Partie de Superscrabble, and French errors."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from puzzles.duplicate import DuplicateError, replay
from puzzles.duplicate_cli import main as cli_main
from puzzles.variants_replay import replay_variant
from scoring.config import GameConfig
from scoring.lexicon import Lexicon
from scoring.tiles import french
from tests.puzzles.conftest import lex


def cfg_of(*words: str) -> GameConfig:
    return GameConfig(tileset=french(), lexicon=lex(*words))


def test_tactique_game_replay() -> None:
    """Round 1: groups ZABCDFG / SECDFGH; top ZA (10 + 1) × 2 = 22 then ZAS 10 + 1 + 1 = 12:
    34. Round 2 (BCDFGIO / ECDFGHU) has no word: the game ends. bob's sum is wrong: one
    warning, still 34."""
    game = {
        "variant": "tactique",
        "bag": "ZABCDFG" + "SECDFGH" + "IOU",
        "players": ["ann", "bob"],
    }
    bulletins = {1: {"ann": "ZA 22 + H7 ZAS 12 = 34", "bob": "ZA 22 + H7 ZAS 12 = 35"}}
    res = replay_variant(json.dumps(game), bulletins, config=cfg_of("ZA", "ZAS"))
    assert len(res.rounds) == 1
    r = res.rounds[0]
    assert r.draw == "ZABCDFG / SECDFGH"
    assert r.top == "groupe 1 d'abord : H7 ZA 22 + H7 ZAS 12 = 34" and r.top_score == 34
    assert [(v.player, v.score, v.kind) for v in r.verdicts] == [
        ("ann", 34, "valide"), ("bob", 34, "avertissement"),
    ]
    assert res.tops_total == 34
    assert "Aucun mot" in res.end_reason and "BCDFG+IO / ECDFGH+U" in res.end_reason
    assert [(s.rank, s.player, s.total) for s in res.standings] == [(1, "ann", 34), (1, "bob", 34)]


def test_completif_game_replay() -> None:
    """Draw AEIOLL (4 vowels, 2 consonants); ZA = 22 with Z from the stock. Round 2
    (EIOLL+B, stock C): LA down through the grid's A, 1 + 1 = 2. Round 3 (EIOLBC) has no
    word: 22 + 2 = 24."""
    game = {"variant": "completif", "bag": "AEIOLL" + "ZBC", "players": ["ann", "bob"]}
    bulletins = {1: {"ann": "ZA 22 +Z", "bob": "LA 4"}}
    res = replay_variant(json.dumps(game), bulletins, config=cfg_of("ZA", "LA"))
    r = res.rounds[0]
    assert (r.draw, r.top, r.top_score) == ("AEIOLL", "H7 ZA 22 +Z", 22)
    assert [(v.player, v.score, v.kind) for v in r.verdicts] == [
        ("ann", 22, "valide"), ("bob", 4, "valide"),
    ]
    assert (res.rounds[1].draw, res.rounds[1].top) == ("EIOLL+B", "8G LA 2")
    assert len(res.rounds) == 2 and res.tops_total == 22 + 2
    assert res.end_reason == "Aucun mot ne peut être joué avec le tirage EIOLBC."


def test_superscrabble_partie_replay_cli(tmp_path: Path) -> None:
    """« l'arbitre choisit et annonce le scrabble qui sera placé par tous les joueurs »: the
    engine places the best; ann lists two valid scrabbles and the right count (2 points),
    bob one and no count (1 point, a warning)."""
    words = ("LA", "LAS", "RETAINS", "ENTRAILS", "NASTIER")
    (tmp_path / "mots.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    cfg = GameConfig(tileset=french(), lexicon=Lexicon.load(tmp_path / "mots.txt",
                                                              cache_dir=tmp_path))
    game = {"variant": "superscrabble", "start": "H7 LA", "racks": ["RETAINS"],
            "players": ["ann", "bob"], "lexicon": "mots.txt"}
    first = replay_variant(json.dumps(game), {}, config=cfg)
    answers = first.rounds[0].scrabbles
    assert len(answers) >= 2
    (tmp_path / "partie.json").write_text(json.dumps(game), encoding="utf-8")
    (tmp_path / "b.txt").write_text(
        f"1 ann : {answers[0]}, {answers[1]} ; 2\n1 bob : {answers[0]}\n", encoding="utf-8"
    )
    out = io.StringIO()
    rc = cli_main(["replay", str(tmp_path / "partie.json"), str(tmp_path / "b.txt"),
                   "--lexicon", str(tmp_path / "mots.txt")], out)
    assert rc == 0
    text = out.getvalue()
    assert f"scrabbles ({len(answers)})" in text
    assert "1. ann 2" in text and "2. bob 1" in text
    out = io.StringIO()
    rc = cli_main(["replay", str(tmp_path / "partie.json"), str(tmp_path / "b.txt"),
                   "--json", "--lexicon", str(tmp_path / "mots.txt")], out)
    data = json.loads(out.getvalue())
    assert [(s["player"], s["points"], s["warnings"]) for s in data["scrabble_standings"]] == [
        ("ann", 2, 0), ("bob", 1, 1),
    ]


def test_duplicate_top_replay_on_the_french_list(french: object) -> None:
    """Duplicate Top over 2 rounds of the seed-7 game: ann plays both tops (2 points), bob
    the top of round 2 only (1 point, 1 companion)."""
    cfg = GameConfig.default("fr")
    plain = replay({"seed": 7, "settings": {"rounds": 2}}, config=cfg)
    t1, t2 = plain.rounds[0].top, plain.rounds[1].top
    bulletins = {
        1: {"ann": f"{t1.ref} {t1.word} {t1.score}"},
        2: {"ann": f"{t2.ref} {t2.word} {t2.score}", "bob": f"{t2.ref} {t2.word} {t2.score}"},
    }
    res = replay_variant({"variant": "top", "seed": 7, "settings": {"rounds": 2}}, bulletins,
                         config=cfg)
    assert [r.top_score for r in res.rounds] == [t1.score, t2.score]
    got = [(t.rank, t.player, t.points, t.companions, t.topped_total) for t in res.top_standings]
    assert got == [(1, "ann", 2, 1, t1.score + t2.score), (2, "bob", 1, 1, t2.score)]


def test_variant_game_errors_are_french(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(DuplicateError, match="variante « dodo » inconnue"):
        replay_variant({"variant": "dodo", "seed": 1})
    with pytest.raises(DuplicateError, match="tactique_order"):
        replay_variant({"variant": "tactique", "seed": 1,
                        "settings": {"tactique_order": "sometimes"}})
    game = tmp_path / "p.json"
    game.write_text('{"variant": "superscrabble", "start": "A1 LA", "racks": ["RETAINS"]}',
                    encoding="utf-8")
    assert cli_main(["replay", str(game)], io.StringIO()) == 2
    assert "case centrale" in capsys.readouterr().err


def test_registry_entries_of_the_variants() -> None:
    from puzzles.games import GameRules, rules_for

    tact = rules_for("duplicate_tactique")
    assert isinstance(tact, GameRules) and tact.round_based
    assert (tact.label, tact.statement_fields) == (
        "Duplicate Tactique", ("groups", "board", "round_no"))
    assert tact.check({"tactique_order": "group1_first", "rounds": 10}) == []
    assert tact.check('{"tactique_order": "x"}')[0].startswith("Réglage tactique_order")
    assert rules_for("duplicate_completif").check({"free_joker_rule": "ro_online"}) == []
    assert rules_for("partie_superscrabble").label == "Partie de Superscrabble"
    corr = rules_for("correspondance")
    assert corr.check("ZAEEEEELSEEEEE") == []
    assert corr.check("ZZ") == ["Rangée : 2 fois « Z », le jeu n'en compte que 1."]
