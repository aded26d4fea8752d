"""``arbitre duplicate replay`` on variant games (puzzles.variants_replay, docs/VARIANTS.md):
whole games with hand-computed tops and verdicts, the Duplicate Top ranking on the French
list, the Partie de Superscrabble, and French errors."""

from __future__ import annotations

import io
import json
from collections import Counter
from pathlib import Path

import pytest

from puzzles.duplicate import DuplicateError, replay
from puzzles.duplicate_cli import main as cli_main
from puzzles.variants_replay import VariantReplay, replay_variant
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


def test_the_round_registry_has_every_variant_and_checks_its_settings() -> None:
    """The round games' registry (``puzzles.duplicate.registry``, which replaced
    ``puzzles.games``' round entries): every variant, its label, its settings read by
    ``GameSettings`` with French refusals."""
    from puzzles.duplicate.protocol import GameSettings
    from puzzles.duplicate.registry import round_game

    tact = round_game("tactique")
    assert (tact.label, tact.two_words) == ("Duplicate Tactique", True)
    assert GameSettings.from_stored("tactique", {"tactique_order": "group1_first",
                                                 "rounds": 10}).rules.tactique_order == \
        "group1_first"
    with pytest.raises(DuplicateError, match="^Réglage tactique_order"):
        GameSettings.from_stored("tactique", {"tactique_order": "x"})
    assert GameSettings.from_stored("completif", {"free_joker_rule": "ro_online"}).rules \
        .free_joker_rule == "ro_online"
    assert round_game("superscrabble").label == "Partie de Superscrabble"


# --- games given by their listed draws (GAME.json « draws ») ------------------------------------
# Premiums used (RULES §1.3): H8 DW (centre), H4 DL, I7 and I9 DL; I6 and H9 none.
def _listed(game: dict[str, object], bulletins: dict[int, dict[str, str]],
            *words: str) -> object:
    return replay_variant(json.dumps(game), bulletins, config=cfg_of(*words))


def test_completif_listed_draws() -> None:
    """Round 1 AEIOUL: ZA with Z from the stock, (10 + 1) × 2 = 22 (H7 and H8 tie; H7).
    Round 2 EIOUL+A (the reliquat EIOUL, then A): LA at I6 under the grid's Z A — L 1 +
    A on I7 (DL) 2 = 3, and the A makes ZA down column 7: 10 + 2 = 12; 3 + 12 = 15 — the
    best over every stock letter (exhaustive search below). 22 + 15 = 37. ann's round 1
    bulletin is the top, she is absent in round 2: 22."""
    from puzzles.variants import brute_force_free_top
    from scoring.board import Board

    game = {"variant": "completif", "draws": ["AEIOUL", "EIOUL+A"], "players": ["ann"]}
    res = _listed(game, {1: {"ann": "ZA 22 +Z"}}, "ZA", "LA")
    assert isinstance(res, VariantReplay)
    assert [(r.draw, r.top, r.top_score) for r in res.rounds] == [
        ("AEIOUL", "H7 ZA 22 +Z", 22), ("EIOUL+A", "I6 LA 15", 3 + 12)]
    assert res.tops_total == 22 + 15 and res.end_reason == "Fin des tirages donnés."
    assert [(s.player, s.total) for s in res.standings] == [("ann", 22)]
    # exhaustive: every stock letter added, every move counted (French set less Z and the
    # six drawn letters)
    board = Board.from_cgp(res.rounds[0].grid)
    stock = "".join(sorted((french().bag() - Counter("ZEIOULA")).elements()))
    assert brute_force_free_top(board, "EIOULA", 1, stock, cfg_of("ZA", "LA")) == 15


def test_superjoker_listed_draws() -> None:
    """Round 1 OUAAE + K Z from the stock: ZOUK on the centre (10 + 1 + 1 + 10) × 2 = 44.
    Round 2 AAE+LT: S from the stock makes ZOUKS at H5, 10 + 1 + 1 + 10 + 1 = 23 (H9 plain).
    44 + 23 = 67."""
    game = {"variant": "superjoker", "draws": ["OUAAE", "AAE+LT"]}
    res = _listed(game, {}, "ZOUK", "ZOUKS")
    assert isinstance(res, VariantReplay)
    assert [(r.draw, r.top) for r in res.rounds] == [
        ("OUAAE", "H5 ZOUK 44 +KZ"), ("AAE+LT", "H5 ZOUKS 23 +S")]
    assert res.tops_total == 44 + 23


def test_metagramme_listed_draws() -> None:
    """Round 1 AEEEEEL: E given back for Z, ZA = 22. The reliquat is AEEEEEL less the
    given-back E and the A: EEEEL; round 2 EEEEL+AR: I6 LA = 3 + ZA 12 = 15 (no swap helps:
    the only Z is on the grid). 22 + 15 = 37."""
    game = {"variant": "metagramme", "draws": ["AEEEEEL", "EEEEL+AR"]}
    res = _listed(game, {}, "ZA", "LA")
    assert isinstance(res, VariantReplay)
    assert [(r.draw, r.top) for r in res.rounds] == [
        ("AEEEEEL", "H7 ZA 22 +Z -E"), ("EEEEL+AR", "I6 LA 15")]
    assert res.tops_total == 37


def test_elliptique_listed_draws() -> None:
    """8 letters AEEINRST: ENTRAIS with the DL H4, (7 + 1) × 2 + 50 = 66 (7 tiles, the
    bonus); the E left and BCDFGHJ (8 letters again) form no word: the game ends. A
    9-letter draw is refused."""
    game = {"variant": "elliptique", "draws": ["AEEINRST", "E+BCDFGHJ"]}
    res = _listed(game, {}, "AERIENTS", "ENTRAIS")
    assert isinstance(res, VariantReplay)
    assert [(r.draw, r.top) for r in res.rounds] == [("AEEINRST", "H2 ENTRAIS 66")]
    assert res.tops_total == (7 + 1) * 2 + 50
    assert res.end_reason == "Aucun mot ne peut être joué avec le tirage EBCDFGHJ."
    with pytest.raises(DuplicateError, match="9 lettres \\(8 au plus\\)"):
        _listed({"variant": "elliptique", "draws": ["AEEINRSTU"]}, {}, "ZA")


def test_tactique_listed_draws() -> None:
    """Round 1 ZABCDFG / SECDFGH: ZA 22 + ZAS 12 = 34. Round 2 (each group's reliquat,
    then its new letters) BCDFG+IO / ECDFGH+U: only SO down from the S, 9H: S 1 + O on I9
    (DL) 2 = 3; group 2 places nothing — one sequence (counted once). 34 + 3 = 37; ann's
    billets: 34 and 3 (one word, its sum right)."""
    game = {"variant": "tactique", "draws": ["ZABCDFG / SECDFGH", "BCDFG+IO / ECDFGH+U"],
            "players": ["ann"]}
    bulletins = {1: {"ann": "ZA 22 + H7 ZAS 12 = 34"}, 2: {"ann": "9H SO 3 = 3"}}
    res = _listed(game, bulletins, "ZA", "ZAS", "SO")
    assert isinstance(res, VariantReplay)
    assert [(r.draw, r.top, r.reason_fr) for r in res.rounds] == [
        ("ZABCDFG / SECDFGH", "groupe 1 d'abord : H7 ZA 22 + H7 ZAS 12 = 34",
         "2 suites à 34 points ; retenue : le moins de jokers, le groupe 1 d'abord, puis "
         "l'ordre des références et des mots."),
        ("BCDFG+IO / ECDFGH+U", "groupe 1 d'abord : 9H SO 3 = 3", "Seule suite à 3 points."),
    ]
    assert [[(v.score, v.kind) for v in r.verdicts] for r in res.rounds] == [
        [(34, "valide")], [(3, "valide")]]
    assert res.tops_total == 37 and [(s.player, s.total) for s in res.standings] == [
        ("ann", 37)]
    with pytest.raises(DuplicateError, match="deux groupes séparés par « / »"):
        _listed({"variant": "tactique", "draws": ["ZABCDFG"]}, {}, "ZA")
    with pytest.raises(DuplicateError, match="pas toutes dans le sac"):
        _listed({"variant": "tactique", "draws": ["ZABCDFG / ZECDFGH"]}, {}, "ZA")


def test_duplicate_top_listed_draws() -> None:
    """Duplicate Top on AEEEELZ (ZA 22) then EEEEL+AR (I6 LA 15): ann tops both rounds
    (2 ranking points, 1 companion: bob in round 2), bob round 2 only (1 point); topped
    totals 22 + 15 = 37 and 15."""
    game = {"variant": "top", "draws": ["AEEEELZ", "EEEEL+AR"]}
    bulletins = {1: {"ann": "ZA 22", "bob": "LA 4"}, 2: {"ann": "I6 LA 15", "bob": "I6 LA 15"}}
    res = _listed(game, bulletins, "ZA", "LA")
    assert isinstance(res, VariantReplay)
    assert [r.top for r in res.rounds] == ["H7 ZA 22", "I6 LA 15"]
    got = [(t.rank, t.player, t.points, t.companions, t.topped_total)
           for t in res.top_standings]
    assert got == [(1, "ann", 2, 1, 37), (2, "bob", 1, 1, 15)]


def test_superscrabble_listed_draws_same_as_racks() -> None:
    """The Partie de Superscrabble's draws are the arbitre's racks: « draws » reads as
    « racks » (both at once refused)."""
    words = ("LA", "LAS", "RETAINS", "ENTRAILS", "NASTIER")
    base = {"variant": "superscrabble", "start": "H7 LA", "players": ["ann"]}
    a = _listed({**base, "racks": ["RETAINS"]}, {}, *words)
    b = _listed({**base, "draws": ["RETAINS"]}, {}, *words)
    assert isinstance(a, VariantReplay) and isinstance(b, VariantReplay)
    assert a.to_dict() == b.to_dict() and len(b.rounds[0].scrabbles) >= 2
    with pytest.raises(DuplicateError, match="pas les deux"):
        _listed({**base, "racks": ["RETAINS"], "draws": ["RETAINS"]}, {}, *words)


# --- the warnings in the ranking: one form for every game (« , avertissements W (−n) ») ----
def _cli(tmp_path: Path, game: dict[str, object], bulletins: str, words: tuple[str, ...],
         *flags: str) -> str:
    (tmp_path / "mots.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    (tmp_path / "partie.json").write_text(json.dumps(game), encoding="utf-8")
    (tmp_path / "b.txt").write_text(bulletins, encoding="utf-8")
    out = io.StringIO()
    rc = cli_main(["replay", str(tmp_path / "partie.json"), str(tmp_path / "b.txt"),
                   "--lexicon", str(tmp_path / "mots.txt"), *flags], out)
    assert rc == 0
    return out.getvalue()


def _full_bag(first: str) -> str:
    rest = french().bag() - Counter(first)
    return first + "".join(sorted(rest.elements()))


def test_warning_deduction_in_the_duplicate_and_the_completif_reports(tmp_path: Path) -> None:
    """The Duplicate's conversion (RULES §4.7.7: 5 points each warning from the 4th) printed
    alike by the plain Duplicate's and a variant's report.
    - Duplicate, word list {ZA, ZAS, BE}, bag ZAEIBCD | SE | A | S: tops H7 ZA (10 + 1) × 2 =
      22, H7 ZAS 10 + 1 + 1 = 12, 7H ZA 10 + 1 × 2 (I7) = 12, 7H ZAS 10 + 1 + 1 = 12: 58.
    - Complétif, word list {ZA, ZAS, SAC}, bag ZEIBCD | S | SE | C: H7 ZA +A 22; 9H SAC +A
      (ZAS 12 + S 1, A on I9 2, C 3 = 18); 7H ZAS +A (10 + A on I7 2 + S 1 = 13); J7 SAC +A
      (the S of J7, A on J8, the C of J9: 1 + 1 + 3 = 5): 22 + 18 + 13 + 5 = 58.
    In both ann plays the tops, bob the tops with four wrong scores (four warnings): 58 −
    5 × (4 − 3) = 53, 53 / 58 = 91.38 %."""
    plain_game = {"bag": _full_bag("ZAEIBCDSEAS"), "settings": {"rounds": 4},
                  "players": ["ann", "bob"]}
    tops = ["H7 ZA 22", "H7 ZAS 12", "7H ZA 12", "7H ZAS 12"]
    wrong = ["H8 ZA 20", "H7 ZAS 10", "7H ZA 21", "7H ZAS 2"]
    plain = _cli(tmp_path, plain_game, "".join(
        f"{n} ann : {t}\n{n} bob : {w}\n" for n, (t, w) in enumerate(zip(tops, wrong,
                                                                       strict=True), 1)),
        ("ZA", "ZAS", "BE"))
    assert "Total des tops : 58\n" in plain
    assert plain.endswith("Classement\n  1. ann 58 (100.00 %)\n"
                          "  2. bob 53 (91.38 %), avertissements 4 (−5)\n")
    game = {"variant": "completif", "bag": _full_bag("ZEIBCDSSEC"), "settings": {"rounds": 4},
            "players": ["ann", "bob"]}
    tops = ["H7 ZA 22 +A", "9H SAC 18 +A", "7H ZAS 13 +A", "J7 SAC 5 +A"]
    wrong = ["H7 ZA 20 +A", "9H SAC 17 +A", "7H ZAS 14 +A", "J7 SAC 6 +A"]
    bulletins = "".join(f"{n} ann : {t}\n{n} bob : {w}\n"
                        for n, (t, w) in enumerate(zip(tops, wrong, strict=True), 1))
    text = _cli(tmp_path, game, bulletins, ("ZA", "ZAS", "SAC"))
    assert [line.split(" — ")[0] for line in text.splitlines() if "top :" in line] == [
        f"  top : {t}" for t in tops]
    assert "Total des tops : 58\n" in text
    assert text.endswith("Classement\n  1. ann 58 (100.00 %)\n"
                         "  2. bob 53 (91.38 %), avertissements 4 (−5)\n")
    data = json.loads(_cli(tmp_path, game, bulletins, ("ZA", "ZAS", "SAC"), "--json"))
    assert [(s["player"], s["total"], s["warnings"], s["warning_deduction"])
            for s in data["standings"]] == [("ann", 58, 0, 0), ("bob", 53, 4, 5)]


def test_warning_deduction_in_the_duplicate_top_report(tmp_path: Path) -> None:
    """The four rounds of tests/web/test_duplicate_variants_warnings.py (word list {ZA, ZAS,
    BE}): tops H7 ZA 22, H7 ZAS 12, 7H ZA 12, 7H ZAS 12. ann the tops, scores right; bob the
    tops, scores wrong (4 warnings in topped rounds: 1 + (4 − 4) // 3 = 1 top lost, 4 − 1 =
    3); dan « H8 BE 10 » (8: not a topper, the warning does not count) then the tops with
    3 wrong or missing scores (3 counted: nothing lost, 3). Companions 1 + 2 + 2 + 2 = 7 (ann,
    bob), 6 (dan); topped totals 22 + 12 × 3 = 58, 36. dan (6 companions) before bob (7)."""
    game = {"variant": "top", "bag": _full_bag("ZAEIBCDSEAS"), "settings": {"rounds": 4},
            "players": ["ann", "bob", "dan"]}
    plays = [("H7 ZA 22", "H8 ZA 20", "H8 BE 10"), ("H7 ZAS 12", "H7 ZAS 10", "H7 ZAS 11"),
             ("7H ZA 12", "7H ZA 21", "7H ZA 13"), ("7H ZAS 12", "7H ZAS 2", "7H ZAS")]
    bulletins = "".join(f"{n} {who} : {text}\n" for n, row in enumerate(plays, 1)
                        for who, text in zip(("ann", "bob", "dan"), row, strict=True))
    words = ("ZA", "ZAS", "BE")
    text = _cli(tmp_path, game, bulletins, words)
    assert [line.split(" — ")[0] for line in text.splitlines() if "top :" in line] == [
        "  top : H7 ZA 22", "  top : H7 ZAS 12", "  top : 7H ZA 12", "  top : 7H ZAS 12"]
    assert text.endswith(
        "Classement (points de classement : tops en salle)\n"
        "  1. ann 4 (tops 4, compagnons 7, cumul des tops 58)\n"
        "  2. dan 3 (tops 3, compagnons 6, cumul des tops 36), avertissements 3\n"
        "  3. bob 3 (tops 4, compagnons 7, cumul des tops 58), avertissements 4 (−1)\n")
    data = json.loads(_cli(tmp_path, game, bulletins, words, "--json"))
    assert [(t["player"], t["points"], t["tops"], t["warnings"], t["warning_deduction"])
            for t in data["top_standings"]] == [
        ("ann", 4, 4, 0, 0), ("dan", 3, 3, 3, 0), ("bob", 3, 4, 4, 1)]


def test_warning_deduction_in_the_superscrabble_report(tmp_path: Path) -> None:
    """The four RETAINS rounds of tests/web/test_duplicate_variants_warnings.py: the engine
    places 8A ANTISERA, A1 ANTISERA, 1A ANTISERA (77 each), E8 STAINERS (66). ann the placed
    scrabble « ; 1 » each round: 4; bob no count: 4 valid, 4 warnings, 4 − 1 = 3; cid « ; 2 »
    in rounds 1–3: 3 valid, 3 warnings, nothing lost: 3."""
    placed = ["8A ANTISERA", "A1 ANTISERA", "1A ANTISERA", "E8 STAINERS"]
    game = {"variant": "superscrabble", "start": "H7 LA", "racks": ["RETAINS"] * 4,
            "players": ["ann", "bob", "cid"]}
    bulletins = "".join(f"{n} ann : {s} ; 1\n{n} bob : {s}\n" + (f"{n} cid : {s} ; 2\n"
                                                                 if n < 4 else "")
                        for n, s in enumerate(placed, 1))
    words = ("LA", "ENTRAILS", "ANTISERA", "STAINERS")
    text = _cli(tmp_path, game, bulletins, words)
    assert [line.split(" — ")[0] for line in text.splitlines() if "top :" in line] == [
        f"  top : {s} {score}" for s, score in zip(placed, [77, 77, 77, 66], strict=True)]
    assert text.endswith(
        "Classement (scrabbles valables)\n"
        "  1. ann 4 (scrabbles valables 4)\n"
        "  2. bob 3 (scrabbles valables 4), avertissements 4 (−1)\n"
        "  2. cid 3 (scrabbles valables 3), avertissements 3\n")
    data = json.loads(_cli(tmp_path, game, bulletins, words, "--json"))
    assert [(q["player"], q["points"], q["valid"], q["warnings"], q["warning_deduction"])
            for q in data["scrabble_standings"]] == [
        ("ann", 4, 4, 0, 0), ("bob", 3, 4, 4, 1), ("cid", 3, 3, 3, 0)]
