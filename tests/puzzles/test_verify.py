"""The verifier on hand-built sheets. Every expected number is worked out by hand from the
rules and the premium layout (RULES §1.3, §3.2) in the comment next to it.

Letter values used below (French set): A E I L N O R S T U = 1, D G M = 2, B C P = 3,
F H V = 4, K W X Y Z = 10. Premiums met here: H8 DW; G7 G9 I7 I9 DL; F10 TL; H12 DL.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from puzzles.feuille import parse_feuille
from puzzles.problem import GameType, LexiconRef, Problem
from puzzles.settings import Settings
from puzzles.verify import MoveStatus, Report, verify, verify_text
from scoring.lexicon import Lexicon
from tests.puzzles.conftest import anticipation_problem, lex

V, Z, C, A, P = (
    MoveStatus.VALID, MoveStatus.ZERO, MoveStatus.CASCADE_ZERO, MoveStatus.ANNULLED,
    MoveStatus.PENALTY,
)
W = MoveStatus.WARNING

INTEGRAL = Problem(id="t-integral", game=GameType.INTEGRAL)


def run(problem: Problem, text: str, words: Lexicon, settings: Settings | None = None) -> Report:
    parsed = parse_feuille(text)
    assert parsed.errors == (), parsed.errors
    return verify(problem, parsed.feuille, words, settings)


def statuses(report: Report) -> list[MoveStatus]:
    return [m.status for m in report.moves]


def scores(report: Report) -> list[int]:
    return [m.score for m in report.moves]


# --- the historical example (RULES §12, E5) with the bundled French list -----------------


def test_fichera_wus_with_the_bundled_list(french: Lexicon) -> None:
    # FICHERA at H8: F4 I1 C3 H4 E1·2 (H12 DL) R1 A1 = 16, ×2 (H8) = 32, +50 = 82.
    # WUS at 15F: W10 U1 S1 on F15 G15 H15 (H15 TW) = 12 ×3 = 36; the S makes FICHERAS:
    # F4 I1 C3 H4 E1 R1 A1 (premiums already used) = 15, + S1 = 16, ×3 (H15) = 48.
    # 36 + 48 = 84; cumul 82 + 84 = 166.
    text = (
        "Coup | Lettres | Réf. | Mot | Score | Cumul\n"
        "1 ACEFHIR h8 FICHERA 82 82\n"
        "2 SUW 15f WUS 84 166\n"
    )
    r = run(INTEGRAL, text, french)
    assert statuses(r) == [V, V]
    assert [m.true_score for m in r.moves] == [82, 84]
    assert [m.cumul for m in r.moves] == [82, 166]
    assert (r.total, r.warnings, r.penalty, r.final_score) == (166, 0, 0, 166)
    assert r.moves[1].words == ("WUS 36", "FICHERAS 48")
    assert r.lexicon_name == french.identity.name
    assert r.lexicon_sha256 == french.identity.sha256


# --- zero and cascade -------------------------------------------------------------------

CASCADE_WORDS = lex("RAT", "RATS", "OZA", "ON", "EN")  # ZA is not admitted


def test_cascade_three_levels_deep_and_a_move_that_must_not_cascade() -> None:
    # 1 RAT H7: R1 A1(H8 DW) T1 = 3 ×2 = 6.
    # 2 ZA 8G: Z on G8 (no premium) 10 + A 1 = 11, but ZA is not admitted -> zero.
    # 3 OZA 8F: O on F8 + Z + A = 12; contains move 2's Z -> cascade (level 1).
    # 4 ON F8: N on F9, O1 + N1 = 2; contains move 3's O -> cascade (level 2).
    # 5 EN 9E: E on E9, E1 + N1 = 2; contains move 4's N -> cascade (level 3).
    # 6 RATS H7: S on H10, 4 letters × 1 = 4; touches only move 1's tiles -> valid.
    # Total 6 + 4 = 10; the cumuls are the player's own arithmetic (no warning).
    text = (
        "1 ART H7 RAT 6 6\n"
        "2 Z 8G ZA 11 17\n"
        "3 O 8F OZA 12 29\n"
        "4 N F8 ON 2 31\n"
        "5 E 9E EN 2 33\n"
        "6 S H7 RATS 4 37\n"
    )
    r = run(INTEGRAL, text, CASCADE_WORDS)
    assert statuses(r) == [V, Z, C, C, C, V]
    assert [m.true_score for m in r.moves] == [6, 11, 12, 2, 2, 4]
    assert scores(r) == [6, 0, 0, 0, 0, 4]
    assert [m.cumul for m in r.moves] == [6, 6, 6, 6, 6, 10]
    assert (r.total, r.warnings, r.final_score) == (10, 0, 10)
    assert "ZA" in r.moves[1].reasons[0]
    assert "coup 2" in r.moves[2].reasons[0]
    assert "coup 3" in r.moves[3].reasons[0]
    assert "coup 4" in r.moves[4].reasons[0]


def test_two_level_cascade_stops_when_the_base_is_valid() -> None:
    # Same grid with ZA admitted: nothing is zero, 6 + 11 + 12 + 2 + 2 + 4 = 37.
    words = lex("RAT", "RATS", "OZA", "ON", "EN", "ZA")
    text = (
        "1 ART H7 RAT 6 6\n2 Z 8G ZA 11 17\n3 O 8F OZA 12 29\n4 N F8 ON 2 31\n"
        "5 E 9E EN 2 33\n6 S H7 RATS 4 37\n"
    )
    r = run(INTEGRAL, text, words)
    assert statuses(r) == [V] * 6
    assert r.final_score == 37


def test_cascade_two_levels_deep_from_an_invalid_cross_word() -> None:
    # ON is not admitted: 4 (ON, 2) zero; 5 (EN uses move 4's N) cascade; the chain is
    # 2 levels: 6 + 11 + 12 + 0 + 0 + 4 = 33.
    words = lex("RAT", "RATS", "OZA", "EN", "ZA")
    text = (
        "1 ART H7 RAT 6 6\n2 Z 8G ZA 11 17\n3 O 8F OZA 12 29\n4 N F8 ON 2 31\n"
        "5 E 9E EN 2 33\n6 S H7 RATS 4 37\n"
    )
    r = run(INTEGRAL, text, words)
    assert statuses(r) == [V, V, V, Z, C, V]
    assert r.final_score == 33


def test_first_move_zero_makes_every_dependent_move_zero() -> None:
    # RAT not admitted: move 1 zero; RATS (main word contains RAT's tiles) cascades.
    words = lex("RATS")
    r = run(INTEGRAL, "1 ART H7 RAT 6 6\n2 S H7 RATS 4 10\n", words)
    assert statuses(r) == [Z, C]
    assert r.final_score == 0


def test_unavailable_letters_in_an_integral_partiel() -> None:
    # The stock has one T: RAT uses it; TA (8G) needs another T -> zero, not placed twice.
    problem = Problem(id="p", game=GameType.INTEGRAL_PARTIEL, stock="AAERST" + "B" * 15)
    r = run(problem, "1 ART H7 RAT 6 6\n2 T 8G TA 2 8\n", lex("RAT", "TA"))
    assert statuses(r) == [V, Z]
    assert "T" in r.moves[1].reasons[0]
    assert r.final_score == 6


# --- rangée ------------------------------------------------------------------------------

ROW = "ARTSNOE" + "LLMMPPBBCCDDGGUUIIOOEEAA"  # 31 letters


def test_rangee_skip_in_the_middle_annuls_the_rest() -> None:
    """« Tout mot placé qui contrevient à cette règle sera annulé (puni d'un zero et
    considéré comme non existant sur la grille présentée par le joueur respectif - ce qui
    entraînera l'annulation du reste de sa solution). » (S2, rangée): the move that breaks
    the row is annulled, the later ones are not played at all — two distinct statuses.

    1 RAT uses A R T (row 1-3): 6.  2 RATS uses S (row 4): 4.
    3 TO (9H) puts O, but the next letter of the row is N: the row is broken at move 3,
    move 4 is not played.  Total 6 + 4 = 10."""
    problem = Problem(id="r", game=GameType.RANGEE, row=ROW)
    text = (
        f"Rangée: {ROW}\n"
        "1 ART H7 RAT 6 6\n2 S H7 RATS 4 10\n3 O 9H TO 3 13\n4 N 8G NA 2 15\n"
    )
    r = run(problem, text, lex("RAT", "RATS", "TO", "NA"))
    assert statuses(r) == [V, V, A, MoveStatus.NOT_PLAYED]
    assert scores(r) == [6, 4, 0, 0]
    assert r.final_score == 10
    assert "rangée" in r.moves[2].reasons[0]
    assert r.moves[3].reasons == ("Coup non joué : la rangée a été rompue au coup 3.",)
    data = r.to_dict()
    assert [m["status"] for m in data["moves"]] == ["valide", "valide", "annulé", "non joué"]
    assert Report.from_json(r.to_json()) == r
    assert "non joué" in r.to_text()


@pytest.mark.parametrize(
    ("breaks", "expected", "status3"), [(False, 10, V), (True, 6, MoveStatus.NOT_PLAYED)]
)
def test_rangee_word_error_consumes_letters_g10(
    breaks: bool, expected: int, status3: MoveStatus
) -> None:
    # 2 AS (8H) uses S, the next row letter, but AS is not admitted: zero. By default (G10)
    # S is consumed, so 3 NOT (9F) with N O (row 5-6) is in sequence:
    # N1 (F9) + O1×2 (G9 DL) + T1 = 4 -> 6 + 4 = 10. With the setting on, move 2 breaks the
    # row (annulled, though it is also a word error) and move 3 is not played: 6.
    problem = Problem(id="r", game=GameType.RANGEE, row=ROW)
    text = "1 ART H7 RAT 6 6\n2 S 8H AS 2 8\n3 NO 9F NOT 4 12\n"
    settings = Settings(rangee_word_error_breaks_sequence=breaks)
    r = run(problem, text, lex("RAT", "NOT"), settings)
    assert r.moves[1].status is (A if breaks else Z)
    assert r.moves[2].status is status3
    assert r.final_score == expected


def test_rangee_first_letters_must_be_the_first_of_the_row() -> None:
    problem = Problem(id="r", game=GameType.RANGEE, row=ROW)
    r = run(problem, "1 RTS H7 RTS 6 6\n", lex("RTS"))
    assert statuses(r) == [A]
    assert r.final_score == 0


# --- Anticipation: annulments -----------------------------------------------------------


def test_annulment_frees_squares_reused_later() -> None:
    # Order: move 1 -> group 2, move 2 -> group 3, move 3 -> group 4.
    # 1 RAT (group 2) = 6.  2 ZA (group 3): not admitted -> zero, Z stays on G8.
    # 3 "Annuler coup 2": Z leaves G8; TA (group 4) puts T on G8: T1 + A1 = 2.
    # Total 6 + 0 + 2 = 8. The written cumul 8 = 17 + 2 - 11 (annulled score taken off).
    problem = anticipation_problem({2: "RATBCDE", 3: "ZLLMMNN", 4: "TOOPPUU"})
    assert problem.check() == []
    text = (
        "1 G2 ART H7 RAT 6 6\n"
        "2 G3 Z 8G ZA 11 17\n"
        "3 Annuler coup 2\n"
        "3 G4 T 8G TA 2 8\n"
    )
    r = run(problem, text, lex("RAT", "TA"))
    assert statuses(r) == [V, A, V]
    assert scores(r) == [6, 0, 2]
    assert r.moves[2].annul == (2,)
    assert (r.final_score, r.warnings) == (8, 0)


def test_annulment_after_the_word_keeps_the_squares_taken() -> None:
    # Setting off: the billet's word is placed before the annulment, while Z still holds G8,
    # so TA at 8G cannot be put there (and no other place makes 2 points): zero. Total 6.
    problem = anticipation_problem({2: "RATBCDE", 3: "ZLLMMNN", 4: "TOOPPUU"})
    text = "1 G2 ART H7 RAT 6 6\n2 G3 Z 8G ZA 11 17\n3 Annuler coup 2\n3 G4 T 8G TA 2 8\n"
    r = run(problem, text, lex("RAT", "TA"), Settings(annulment_before_move=False))
    assert statuses(r) == [V, A, Z]
    assert r.final_score == 6


def test_annulment_cascades_back_to_moves_that_relied_on_it() -> None:
    # 1 RAT 6.  2 ZA 11 (valid).  3 OZA 12 (relies on Z).  4 annuls move 2, then RATS = 4.
    # Move 3 relied on the annulled move: zero. Total 6 + 0 + 0 + 4 = 10.
    problem = anticipation_problem(
        {2: "RATBCDE", 3: "ZLLMMNN", 4: "OOPPUUI", 5: "SGGHHFF"}
    )
    text = (
        "1 G2 ART H7 RAT 6 6\n2 G3 Z 8G ZA 11 17\n3 G4 O 8F OZA 12 29\n"
        "4 Annuler coup 2\n4 G5 S H7 RATS 4 22\n"
    )
    r = run(problem, text, lex("RAT", "RATS", "ZA", "OZA"))
    assert statuses(r) == [V, A, C, V]
    assert r.final_score == 10
    assert r.warnings == 0


def test_anticipation_letters_must_come_from_the_announced_group() -> None:
    # Move 2 is group 3 (ZLLMMNN): TA needs a T -> zero.
    problem = anticipation_problem({2: "RATBCDE", 3: "ZLLMMNN"})
    r = run(problem, "1 ART H7 RAT 6 6\n2 T 8G TA 2 8\n", lex("RAT", "TA"))
    assert statuses(r) == [V, Z]
    assert "groupe 3" in r.moves[1].reasons[0]


def test_anticipation_first_move_with_two_words() -> None:
    # Move 1 may place a group-1 word, then a word of the drawn group (group 2).
    # TAS at H8 (group 1 AEST): T (H8 DW) 1 + A 1 + S 1 = 3 ×2 = 6.
    # LES down 10F (group 2), S already on H10: L (F10 TL) 1×3 + E 1 + S 1 = 5.
    # One billet: 6 + 5, cumul 11 (the first line needs no cumul).
    problem = anticipation_problem({1: "AEST", 2: "RSBCDEL"})
    text = "1 G1 AST H8 TAS 6\n1 G2 LE 10F LES 5 11\n"
    r = run(problem, text, lex("TAS", "LES"))
    assert statuses(r) == [V, V]
    assert [m.group for m in r.moves] == [1, 2]
    assert (r.final_score, r.warnings) == (11, 0)


@pytest.mark.parametrize(
    ("second_line", "warning"),
    [
        ("1 G2 LE 10F LES 5 12", "somme des deux scores du coup 1 écrite 12, attendu 11 (6 + 5)."),
        ("1 G2 LE 10F LES 5", "somme des deux scores du coup 1 non indiquée."),
    ],
)
def test_anticipation_first_move_sum_is_a_score_of_the_billet(
    second_line: str, warning: str
) -> None:
    """« Si un joueur a placé 2 mots, il inscrira sur le billet les deux scores obtenus, dans
    l'ordre des mots placés, ainsi que le cumul de ces deux scores. » and « Est punie d'un
    avertissement technique toute erreur ou absence de score sur les billets. » (S2)

    TAS 6 + LES 5 = 11 (see above). A sum of 12, or none, is one warning on billet 1; below
    the 4th warning no points are lost: final 11."""
    problem = anticipation_problem({1: "AEST", 2: "RSBCDEL"})
    r = run(problem, f"1 G1 AST H8 TAS 6\n{second_line}\n", lex("TAS", "LES"))
    assert statuses(r) == [V, W]
    assert r.moves[1].warnings == (warning,)
    assert (r.total, r.warnings, r.penalty, r.final_score) == (11, 1, 0, 11)


def test_anticipation_later_cumuls_are_not_faulted() -> None:
    """Only move 1's two-word sum is a score of the billet; S2 faults « toute erreur ou
    absence de score », so the running cumul of later moves is corrected silently.

    1 RAT (group 2) = 6, cumul written 6. 2 RATS (group 3 brings S): 4, cumul written 99
    (true 10): no warning. Final 10."""
    problem = anticipation_problem({2: "RATBCDE", 3: "SLLMMNN"})
    r = run(problem, "1 G2 ART H7 RAT 6 6\n2 G3 S H7 RATS 4 99\n", lex("RAT", "RATS"))
    assert statuses(r) == [V, V]
    assert (r.moves[1].claimed_cumul, r.moves[1].cumul) == (99, 10)
    assert (r.warnings, r.final_score) == (0, 10)


def test_anticipation_pass_scores_zero() -> None:
    problem = anticipation_problem({2: "RATBCDE"})
    r = run(problem, "1 G2 ART H7 RAT 6 6\n2 G3 Passe\n", lex("RAT"))
    assert statuses(r) == [V, MoveStatus.PASSED]
    assert r.final_score == 6


# --- jokers, declared letters, warnings, penalties --------------------------------------


@pytest.mark.parametrize("written", ["RAt", "RA(T)", "RAT0", "RA(t)"])
def test_a_joker_written_each_way(written: str) -> None:
    # R1 + A1 (H8 DW) + joker 0 = 2, ×2 = 4.
    r = run(INTEGRAL, f"1 AR? H7 {written} 4 4\n", lex("RAT"))
    assert statuses(r) == [V]
    assert r.moves[0].word == "RAt"
    assert r.moves[0].letters == "AR?"
    assert r.final_score == 4


def test_declared_letters_that_disagree_with_the_grid_are_a_warning() -> None:
    r = run(INTEGRAL, "1 ARS H7 RAT 6 6\n", lex("RAT"))
    assert statuses(r) == [W]
    assert r.moves[0].score == 6
    assert "ARS" in r.moves[0].warnings[0]
    assert (r.warnings, r.penalty, r.final_score) == (1, 0, 6)


FIVE_WARNINGS = (
    "1 ART H7 RAT - 6\n"       # score missing               (true 6)
    "2 S H7 RATS 5 11\n"       # score wrong, 5 for 4         (true 4)
    "3 S 8H AS 3 14\n"         # score wrong, 3 for 2         (true 2)
    "4 E 9H TE 7 21\n"         # score wrong, 7 for 6         (true 6)
    "5 OS 7G OR 3 24\n"        # letters: only O is placed    (true 3)
)
FIVE_WORDS = lex("RAT", "RATS", "AS", "TE", "SE", "OR")


def test_five_warnings_cost_ten_points() -> None:
    """« Est punie d'un avertissement technique toute erreur ou absence de score sur les
    billets. » (S2)

    True scores: RAT 6; RATS 4; AS (S on I8) 2; TE: E on I9 (DL) 2 + T 1 = 3, and the
    cross-word SE = S1 + E2 = 3, so 6; OR: O on G7 (DL) 2 + R 1 = 3.
    Total 6 + 4 + 2 + 6 + 3 = 21; 5 warnings -> 5 × (5 - 3) = 10 points; final 11."""
    r = run(INTEGRAL, FIVE_WARNINGS, FIVE_WORDS)
    assert statuses(r) == [W] * 5
    assert [m.true_score for m in r.moves] == [6, 4, 2, 6, 3]
    assert (r.total, r.warnings, r.penalty, r.final_score) == (21, 5, 10, 11)
    assert r.moves[0].warnings == ("score non indiqué.",)
    assert r.moves[1].warnings == ("score écrit 5, score exact 4.",)
    assert r.moves[2].warnings == ("score écrit 3, score exact 2.",)
    assert r.moves[3].warnings == ("score écrit 7, score exact 6.",)


CUMUL_FAULTS = (
    "1 ART H7 RAT 6 6\n"       # right
    "2 S H7 RATS 4\n"          # cumul missing                (true 4)
    "3 S 8H AS 2 13\n"         # cumul wrong: 10 + 2 = 12     (true 2)
    "4 E 9H TE 6 99\n"         # cumul wrong: 13 + 6 = 19     (true 6)
)


def test_a_missing_or_wrong_cumul_is_not_a_fault() -> None:
    """S2 faults « toute erreur ou absence de score sur les billets », and asks for « leurs
    scores et le cumul présumé »: the presumed cumul is the player's help, not a score.

    True scores 6 + 4 + 2 + 6 = 18; the written cumuls (6, none, 13, 99) are corrected to
    6, 10, 12, 18 without a warning. Final 18."""
    r = run(INTEGRAL, CUMUL_FAULTS, FIVE_WORDS)
    assert statuses(r) == [V] * 4
    assert [m.claimed_cumul for m in r.moves] == [6, None, 13, 99]
    assert [m.cumul for m in r.moves] == [6, 10, 12, 18]
    assert (r.total, r.warnings, r.penalty, r.final_score) == (18, 0, 0, 18)
    # the written cumul stays shown next to the corrected one (historical FRSc sheets)
    assert "    18     99  valide" in r.to_text()


def test_scores_and_a_final_total_only_draw_no_warning() -> None:
    """« Les solutions seront inscrites sur des feuilles de route décrivant: ... leurs scores
    et le cumul présumé. » (S2) — per-move scores and one presumed total.

    6 + 4 + 2 = 12, the total line « Total 12 » is kept as a summary; no cumul column."""
    text = "1 ART H7 RAT 6\n2 S H7 RATS 4\n3 S 8H AS 2\nTotal 12\n"
    r = run(INTEGRAL, text, FIVE_WORDS)
    assert statuses(r) == [V, V, V]
    assert (r.final_score, r.warnings) == (12, 0)


@pytest.mark.parametrize(
    "game", [GameType.INTEGRAL_PARTIEL, GameType.RANGEE, GameType.SERIE_MAXIMAUX,
             GameType.N_SCRABBLE, GameType.SUPERSCRABBLE_INCOMPLET]
)
def test_no_cumul_warning_in_any_own_grid_game(game: GameType) -> None:
    """« Est punie d'un avertissement technique toute erreur ou absence de score » (S2): in
    every own-grid game a sheet with scores and no cumul is clean. RAT 6 + RATS 4 = 10."""
    problem = Problem(
        id="g", game=game, stock="ARTS" + "E" * 17, row="ARTS" + "E" * 27,
        groups=("ARTEEEE", "SEEEEEE", "EEEEEEE"), rack="EEEEEEE",
    )
    r = run(problem, "1 ART H7 RAT 6\n2 S H7 RATS 4\n", lex("RAT", "RATS"))
    assert statuses(r) == [V, V]
    assert ([m.cumul for m in r.moves], r.warnings) == ([6, 10], 0)


def test_cumul_setting_restores_the_cumul_warnings() -> None:
    # Setting cumul_warning=True: 2 missing, 3 wrong (10 + 2 = 12, not 13), 4 wrong
    # (13 + 6 = 19, not 99): 3 warnings, 5 × (3 − 3) = 0 points. Final 18.
    r = run(INTEGRAL, CUMUL_FAULTS, FIVE_WORDS, Settings(cumul_warning=True))
    assert statuses(r) == [V, W, W, W]
    assert r.moves[1].warnings == ("cumul non indiqué.",)
    assert "attendu 12" in r.moves[2].warnings[0]
    assert "attendu 19" in r.moves[3].warnings[0]
    assert (r.warnings, r.penalty, r.final_score) == (3, 0, 18)


def test_warnings_from_the_sixth_in_original_games() -> None:
    """FISF 5.7: « Au quatrième (sixième en blitz et partie originale), il se voit retirer
    cinq points de pénalité. » G6 alternative: 5 × max(0, 5 - 5) = 0."""
    r = run(INTEGRAL, FIVE_WARNINGS, FIVE_WORDS, Settings(warning_penalty_from=6))
    assert (r.penalty, r.final_score) == (0, 21)
    assert r.settings_changed == ("warning_penalty_from=6",)
    assert "Réglages modifiés : warning_penalty_from=6" in r.to_text()
    assert Report.from_json(r.to_json()) == r


def test_warning_conversion_is_a_per_problem_setting() -> None:
    """FISF 5.7: « Au quatrième (sixième en blitz et partie originale) ». A problem the
    arbitre treats as a partie originale says so in its file.

    Five warnings, true total 21: from the 6th, 5 × max(0, 5 − 5) = 0 -> 21; the same sheet
    on the default problem (from the 4th) loses 10 -> 11; a Settings value overrides the
    problem: from the 4th again -> 11."""
    original = replace(INTEGRAL, warning_penalty_from=6)
    assert Problem.from_json(original.to_json()) == original
    assert '"warning_penalty_from": 6' in original.to_json()
    assert "warning_penalty_from" not in INTEGRAL.to_json()
    r = run(original, FIVE_WARNINGS, FIVE_WORDS)
    assert (r.warnings, r.penalty, r.final_score, r.settings_changed) == (5, 0, 21, ())
    assert run(INTEGRAL, FIVE_WARNINGS, FIVE_WORDS).final_score == 11
    forced = run(original, FIVE_WARNINGS, FIVE_WORDS, Settings(warning_penalty_from=4))
    assert (forced.penalty, forced.final_score) == (10, 11)
    assert original.warning_rule() == (
        "5 points de pénalité par avertissement technique à partir du 6e (partie originale)."
    )
    assert INTEGRAL.warning_rule() == (
        "5 points de pénalité par avertissement technique à partir du 4e."
    )
    superscrabble = Problem(id="s", game=GameType.SUPERSCRABBLE)
    assert superscrabble.warning_rule().startswith("Un point de classement au 4e")
    assert replace(INTEGRAL, warning_penalty_from=0).check() == [
        "Conversion des avertissements : à partir du 0e (attendu 1 ou plus, 4 par défaut, 6 "
        "en partie originale)."
    ]


def test_several_faults_on_one_move_are_one_warning() -> None:
    # Score wrong and letters wrong on the same line: one warning (RULES §4.7.5).
    r = run(INTEGRAL, "1 ARS H7 RAT 7 7\n", lex("RAT"))
    assert len(r.moves[0].warnings) == 2
    assert r.warnings == 1


def test_warnings_do_not_add_to_a_zero() -> None:
    r = run(INTEGRAL, "1 ART H7 RAT 99 99\n", lex("TAR"))
    assert statuses(r) == [Z]
    assert r.moves[0].warnings == ()
    assert r.warnings == 0


# --- G17: reference and word that do not match ------------------------------------------

RELOCATE = Settings(ref_mismatch_relocate=True)


def test_a_word_not_at_its_reference_is_a_placement_zero() -> None:
    """« Est punie d'un zéro toute erreur de mot (principal ou de raccord) ou de placement. »
    (S2) — a word that is not where its reference puts it is a placement error.

    RATS written at 9G cannot go there (H9 holds T, not A): zero, total 6. 9F would be legal
    (6 points) but the player did not write it there."""
    r = run(INTEGRAL, "1 ART H7 RAT 6 6\n2 ARS 9G RATS 6 12\n", lex("RAT", "RATS"))
    assert statuses(r) == [V, Z]
    assert r.moves[1].ref == "9G"
    assert r.moves[1].reasons == (
        "Erreur de placement : RATS en 9G : la case H9 porte déjà T, pas A.",
    )
    assert (r.moves[1].score, r.final_score, r.warnings) == (0, 6, 0)


def test_a_placement_zero_cascades() -> None:
    """« Si un mot joué a été puni d'un zéro, tout mot placé ultérieurement qui s'y appuie
    ... sera aussi puni d'un zéro. » (S2)

    2 ES written across at A1 touches nothing on the grid: a placement error, zero; its
    tiles stay on the player's grid (E A1, S A2). 3 T at A3 makes EST on them: it relies
    on the zeroed move, zero en cascade. Total 6 + 0 + 0 = 6."""
    text = "1 ART H7 RAT 6 6\n2 ES A1 ES 2 8\n3 T A1 EST 3 11\n"
    r = run(INTEGRAL, text, lex("RAT", "ES", "EST"))
    assert statuses(r) == [V, Z, C]
    assert r.moves[1].reasons == (
        "Erreur de placement : le mot ne touche aucune lettre déjà sur la grille.",
    )
    assert r.final_score == 6


def test_wrong_reference_relocated_with_a_five_point_penalty_under_its_setting() -> None:
    # Setting ref_mismatch_relocate (not the default). RATS written at 9G cannot go there
    # (H9 holds T, not A). With 6 points claimed the only legal placement is 9F:
    # R F9 1 + A G9 (DL) 2 + T 1 + S I9 (DL) 2 = 6. Penalty 5: 1. Total 6 + 1 = 7.
    r = run(INTEGRAL, "1 ART H7 RAT 6 6\n2 ARS 9G RATS 6 12\n", lex("RAT", "RATS"), RELOCATE)
    assert statuses(r) == [V, P]
    assert r.moves[1].ref == "9F"
    assert (r.moves[1].true_score, r.moves[1].score, r.moves[1].penalty) == (6, 1, 5)
    assert r.final_score == 7
    assert r.settings_changed == ("ref_mismatch_relocate=True",)


def test_relocation_keeps_the_written_direction() -> None:
    # Setting on. RATS written H9 (across) cannot go there; across, only H7 (S on H10) makes
    # 4 points (the 4-point 8G placement is down, so it is not a candidate): played at H7;
    # 4 - 5 is floored at 0. By default: a placement zero, total 6 either way.
    text = "1 ART H7 RAT 6 6\n2 S H9 RATS 4 10\n"
    r = run(INTEGRAL, text, lex("RAT", "RATS"), RELOCATE)
    assert statuses(r) == [V, P]
    assert (r.moves[1].ref, r.moves[1].score) == ("H7", 0)
    assert r.final_score == 6
    assert statuses(run(INTEGRAL, text, lex("RAT", "RATS"))) == [V, Z]


@pytest.mark.parametrize("settings", [Settings(), RELOCATE])
def test_a_word_that_fits_but_forms_an_invalid_cross_word_is_never_moved(
    settings: Settings,
) -> None:
    """« Est punie d'un zéro toute erreur de mot (principal ou de raccord) » (S2): a raccord
    error is a word error, not a placement to repair.

    ES written down at 10H fits: E on H10, S on I10, but E extends RAT into RATE, which the
    list refuses. Claimed 6 = ES 2 + RATE 4. The only legal 6-point ES is 10G (ES 2 + RATS
    4); the former G17 default moved it there with a 5-point penalty (6 + 1 = 7). Now it
    is a word error whatever the setting: zero, total 6."""
    text = "1 ART H7 RAT 6 6\n2 ES 10H ES 6 12\n"
    r = run(INTEGRAL, text, lex("RAT", "RATS", "ES"), settings)
    assert statuses(r) == [V, Z]
    assert r.moves[1].ref == "10H"
    assert r.moves[1].reasons == (
        "Erreur de mot de raccord : RATE (formé par ES en 10H) n'est pas admis.",
    )
    assert (r.moves[1].penalty, r.final_score) == (0, 6)


def test_an_incomplete_written_word_is_a_placement_error() -> None:
    """« Est punie d'un zéro toute erreur de mot (principal ou de raccord) ou de placement. »
    (S2) — TA written down at 8F (T F8, A G8) runs into the A of H8: the grid shows TAA.
    Both faults are named. With relocation on, the word as written does not lie at its
    reference, so it may be moved: the only 3-point TA is 9H (T of H9, A on I9 DL: 1 + 2 =
    3), minus 5 floored at 0. Total 6 either way."""
    text = "1 ART H7 RAT 6 6\n2 A 8F TA 3 9\n"
    r = run(INTEGRAL, text, lex("RAT", "TA"))
    assert statuses(r) == [V, Z]
    assert r.moves[1].reasons == (
        "Erreur de mot : TAA n'est pas admis.",
        "Erreur de placement : le mot écrit TA en 8F n'est pas complet : la case H8 porte "
        "déjà A.",
    )
    moved = run(INTEGRAL, text, lex("RAT", "TA"), RELOCATE)
    assert statuses(moved) == [V, P]
    assert (moved.moves[1].ref, moved.moves[1].true_score, moved.moves[1].score) == ("9H", 3, 0)
    assert r.final_score == moved.final_score == 6


def test_a_main_word_error_says_so() -> None:
    # RTA at H7 fits the grid but is not in the list: « erreur de mot », zero.
    r = run(INTEGRAL, "1 ART H7 RTA 6 6\n", lex("RAT"))
    assert statuses(r) == [Z]
    assert r.moves[0].reasons == ("Erreur de mot : RTA n'est pas admis.",)


def test_ambiguous_missing_reference_is_zero() -> None:
    # No reference: a placement error by default. With relocation on, RATS for 4 points fits
    # two places, H7 (S on H10) and 8G (R G8, T I8, S J8: 1 + 1 + 1 + 1) -> zero too.
    for settings in (Settings(), RELOCATE):
        r = verify_text(INTEGRAL, "1 ART H7 RAT 6 6\n2 S RATS 4 10\n", lex("RAT", "RATS"),
                        settings)
        assert statuses(r) == [V, Z]
        assert r.final_score == 6
        assert r.errors[0].startswith("Ligne 2 : référence manquante")
        assert r.moves[1].reasons[-1].startswith("Erreur de placement : RATS n'a pas de "
                                                 "référence lisible")


# --- Superscrabble ----------------------------------------------------------------------

RAT_BOARD = "15/15/15/15/15/15/15/6RAT6/15/15/15/15/15/15/15"


def test_superscrabble_identity_rules() -> None:
    # 10G: L G10, E H10 (RATE across), V I10, E J10, R K10, A L10, joker M10.
    # LEVERAi and LEVERA(S) are two scrabbles (different letters for the joker); LEVERAI0
    # repeats the first; LEVERAx is not a word; 10E LEVERAi (E on H10 is its 4th letter) is
    # the same word elsewhere and counts. 3 scrabbles.
    problem = Problem(id="s", game=GameType.SUPERSCRABBLE, board=RAT_BOARD, rack="AEELRV?")
    assert problem.check() == []
    text = (
        "Scrabbles:\n10G LEVERAi\n10G LEVERA(S)\n10G LEVERAI0\n10G LEVERAx\n10E LEVERAi\n"
    )
    r = run(problem, text, lex("RAT", "RATE", "LEVERAI", "LEVERAS"))
    assert [s.status for s in r.scrabbles] == [V, V, MoveStatus.DUPLICATE, Z, V]
    assert (r.total, r.final_score, r.unit) == (3, 3, "scrabbles")


def test_superscrabble_joker_for_the_same_letter_counts_once() -> None:
    # ReLEVER / RELeVER / RELEVeR at 10G: one identity (G10, down, RELEVER).
    problem = Problem(id="s", game=GameType.SUPERSCRABBLE, board=RAT_BOARD, rack="EELRRV?")
    text = "1 10G ReLEVER\n2 10G RELeVER\n3 10G RELEVeR\n"
    r = run(problem, text, lex("RAT", "RATE", "RELEVER"))
    dup = MoveStatus.DUPLICATE
    assert [s.status for s in r.scrabbles] == [V, dup, dup]
    assert r.final_score == 1


def test_superscrabble_must_use_the_seven_letters() -> None:
    problem = Problem(id="s", game=GameType.SUPERSCRABBLE, board=RAT_BOARD, rack="AEELRV?")
    r = run(problem, "1 10G LEVERAI\n", lex("RAT", "RATE", "LEVERAI"))
    assert [s.status for s in r.scrabbles] == [Z]  # a real I, not in the rack
    assert r.final_score == 0


@pytest.mark.parametrize(("words", "expected"), [
    (("RAT", "RATE", "LEVERAI"), [V]),
    (("RATE", "LEVERAI"), [C]),  # RAT is not a word: the construction is zero
])
def test_superscrabble_incomplet(words: tuple[str, ...], expected: list[MoveStatus]) -> None:
    problem = Problem(id="si", game=GameType.SUPERSCRABBLE_INCOMPLET, rack="AEELRV?")
    text = "1 ART H7 RAT 6 6\nScrabbles:\n10G LEVERAi\n"
    r = run(problem, text, lex(*words))
    assert [s.status for s in r.scrabbles] == expected
    assert r.construction_letters == 3
    assert r.final_score == (1 if expected == [V] else 0)


# S2, Superscrabble incomplet: « Les joueurs présenteront une grille reflétant la
# construction réalisée, la succession des mots placés pour construire cette grille et la
# solution proprement-dite » — the words, no scores; « Les erreurs de construction de la
# grille seront traitées comme au Scrabble intégral. »
# RAT H7: R1 A1·(H8 DW) T1 = 3 x 2 = 6. ETA 8F: E1 T1 + A1 on the grid = 3. AIME F5: A1,
# I1 x 3 (F6 TL), M2, E1 on the grid = 7. BRA 5D: B3 R1 (E5 DW) A1 on the grid = 5 x 2 = 10.
# LEVERAi 10G puts the 7 letters down (RATE across on H10): 1 scrabble.
INCOMPLET_WORDS = ("RAT", "RATE", "ETA", "AIME", "BRA", "LEVERAI")


def test_incomplet_construction_lines_need_no_score() -> None:
    problem = Problem(id="si", game=GameType.SUPERSCRABBLE_INCOMPLET, rack="AEELRV?")
    text = "1 ART H7 RAT\n2 ET 8F ETA\n3 AIM F5 AIME\n4 BR 5D BRA\nScrabbles:\n10G LEVERAi\n"
    r = run(problem, text, lex(*INCOMPLET_WORDS))
    assert statuses(r) == [V, V, V, V]
    assert [m.true_score for m in r.moves] == [6, 3, 7, 10]
    assert all(m.warnings == () for m in r.moves)
    assert (r.total, r.warnings, r.penalty, r.final_score) == (1, 0, 0, 1)
    # the same blank columns with the letters and the cumul checked: still no fault
    strict = Settings(missing_letters_warning=True, cumul_warning=True)
    r = run(problem, "1 H7 RAT\n2 8F ETA\n3 F5 AIME\n4 5D BRA\nScrabbles:\n10G LEVERAi\n",
            lex(*INCOMPLET_WORDS), strict)
    assert (r.warnings, r.penalty, r.final_score) == (0, 0, 1)


def test_incomplet_written_wrong_score_still_warns() -> None:
    # as in the Intégral: ETA written 5 for 3 is a warning; the blank ones are not
    problem = Problem(id="si", game=GameType.SUPERSCRABBLE_INCOMPLET, rack="AEELRV?")
    text = "1 ART H7 RAT 6\n2 ET 8F ETA 5\n3 AIM F5 AIME\n4 BR 5D BRA\nScrabbles:\n10G LEVERAi\n"
    r = run(problem, text, lex(*INCOMPLET_WORDS))
    assert statuses(r) == [V, W, V, V]
    assert r.moves[1].warnings == ("score écrit 5, score exact 3.",)
    assert (r.total, r.warnings, r.penalty, r.final_score) == (1, 1, 0, 1)


def test_integral_missing_scores_still_warn() -> None:
    # the Intégral asks for the scores (« leurs scores et le cumul présumé », S2): four lines
    # without one are four warned lines
    text = "1 ART H7 RAT\n2 ET 8F ETA\n3 AIM F5 AIME\n4 BR 5D BRA\n"
    r = run(INTEGRAL, text, lex(*INCOMPLET_WORDS))
    assert statuses(r) == [W, W, W, W]
    assert r.warnings == 4


def test_superscrabble_warnings_convert_to_ranking_points() -> None:
    # RULES §5.3: 4 warnings -> 1 point, 7 -> 2. Each invalid entry warns with the setting on.
    problem = Problem(id="s", game=GameType.SUPERSCRABBLE, board=RAT_BOARD, rack="AEELRV?")
    lines = "".join(f"{n} 10G LEVERAx\n" for n in range(1, 5)) + "5 10G LEVERAi\n"
    r = run(problem, lines, lex("RAT", "RATE", "LEVERAI"),
            Settings(superscrabble_invalid_entry_warning=True))
    assert (r.total, r.warnings, r.penalty, r.final_score) == (1, 4, 1, 0)


# --- Série de maximaux, N-Scrabble, exclusif, avocalique, aveugle -----------------------

SERIE = Problem(
    id="serie", game=GameType.SERIE_MAXIMAUX,
    groups=("RATEBCD", "SLLMMNN", "OOPPUUI", "GGHHFFJ", "KQWXYZA", "AAAEEEI", "IIIOOOU"),
)


def test_serie_score_vector_with_groups_found_from_the_letters() -> None:
    # 1 RAT from group 1 (found from the letters) = 6; 2 RATS with group 2 = 4.
    r = run(SERIE, "1 ART H7 RAT 6 6\n2 G2 S H7 RATS 4 10\n", lex("RAT", "RATS"))
    assert [m.group for m in r.moves] == [1, 2]
    assert r.score_vector == (6, 4, 0, 0, 0, 0, 0)


def test_serie_missing_moves_setting() -> None:
    r = run(SERIE, "1 ART H7 RAT 6 6\n", lex("RAT"), Settings(serie_missing_moves_zero=False))
    assert r.score_vector == (6, -1, -1, -1, -1, -1, -1)


def test_serie_group_used_twice_is_zero() -> None:
    r = run(SERIE, "1 G1 ART H7 RAT 6 6\n2 G1 E H7 RATE 4 10\n", lex("RAT", "RATE"))
    assert statuses(r) == [V, Z]


def test_n_scrabble_imposed_order() -> None:
    # Order 2, 1: move 1 must use group 2 (SLLMMNN), RAT does not -> zero.
    problem = replace(SERIE, game=GameType.N_SCRABBLE, groups=SERIE.groups[:2], order=(2, 1))
    r = run(problem, "1 ART H7 RAT 6 6\n", lex("RAT"))
    assert statuses(r) == [Z]


def test_exclusif_resistance_sudden_death() -> None:
    # 1 LEVERAI (group 2, 7 letters) = 1 point; 2 a 3-letter word is not a scrabble: out;
    # 3 does not count any more.
    problem = anticipation_problem(
        {2: "AEILRVE", 3: "TSBCDFG", 4: "UNOPQHJ"}, game=GameType.EXCLUSIF_RESISTANCE
    )
    text = "1 G2 AEEILRV H8 LEVERAI 72 72\n2 G3 ST 9H TEST\n3 G4 NU I8 UN\n"
    r = run(problem, text, lex("LEVERAI", "TEST", "UN", "EU"))
    assert [m.status for m in r.moves] == [V, MoveStatus.OUT, MoveStatus.OUT]
    assert (r.final_score, r.eliminated_at, r.unit) == (1, 2, "scrabbles")
    # A sheet that stops after move 1 is out at move 2 too.
    short = run(problem, "1 G2 AEEILRV H8 LEVERAI 72 72\n", lex("LEVERAI"))
    assert (short.final_score, short.eliminated_at) == (1, 2)


def test_exclusif_fond_scores_scrabbles_and_passes() -> None:
    # LEVERAI at H8: L H8 1 + E 1 + V 4 + E 1 + R H12 (DL) 2 + A 1 + I 1 = 11 ×2 = 22 + 50.
    problem = anticipation_problem({2: "AEILRVE"}, game=GameType.EXCLUSIF_FOND)
    r = run(problem, "1 G2 AEEILRV H8 LEVERAI 72 72\n2 G3 Passe\n", lex("LEVERAI"))
    assert [m.status for m in r.moves] == [V, MoveStatus.PASSED]
    assert r.final_score == 72


@pytest.mark.parametrize(("pool", "second", "total"), [("A", Z, 6), ("AA", V, 9)])
def test_avocalique_vowels_come_from_the_pool(pool: str, second: MoveStatus, total: int) -> None:
    # Group 2 announces R T, group 3 announces T; the vowels come from the pool.
    # 1 RAT takes one A from the pool: 6. 2 AT down 9G puts a new A on G9 (DL): 2 + T 1 = 3.
    # With a one-A pool move 2 has no A left: zero (6); with two A it counts (6 + 3 = 9).
    problem = Problem(
        id="avo", game=GameType.ANTICIPATION_AVOCALIQUE, groups=("BC", "RT", "T") + ("",) * 12,
        group_sizes=(4,) + (7,) * 14, pool=pool, order=tuple(range(2, 16)),
    )
    r = run(problem, "1 ART H7 RAT 6 6\n2 A 9G AT 3 9\n", lex("RAT", "AT"))
    assert statuses(r) == [V, second]
    assert r.final_score == total
    if second is Z:
        assert "réserve" in r.moves[1].reasons[0]


def _consonant_problem(game: GameType, group2: str) -> Problem:
    if game is GameType.ANTICIPATION_AVOCALIQUE:
        return Problem(
            id="c7", game=game, groups=("BC", group2) + ("",) * 13,
            group_sizes=(4,) + (7,) * 14, pool="AAEEU", order=tuple(range(2, 16)),
        )
    return Problem(id="c7", game=game, groups=("BC", group2) + ("",) * 5,
                   group_sizes=(7,) * 7, pool="AAEEU")


CONSONANT_GAMES = [GameType.ANTICIPATION_AVOCALIQUE, GameType.SERIE_MAXIMAUX_CONSONNES,
                   GameType.N_SCRABBLE_CONSONNES]


@pytest.mark.parametrize("game", CONSONANT_GAMES)
@pytest.mark.parametrize(
    ("word", "letters", "score", "status"),
    [
        # RATE at H7: 4 letters of 1, H8 DW: 4 × 2 = 8; R T announced, A E = 2 pool letters
        ("RATE", "AERT", 8, V),
        # RATEA at H7: 5 × 2 = 10, but A E A = 3 pool letters: the group is 5 consonants
        # + 7 − 5 = 2 vowels, so a third one is not in it -> zero
        ("RATEA", "AAERT", 10, Z),
    ],
)
def test_consonant_group_completes_to_seven_with_the_announced_consonants(
    game: GameType, word: str, letters: str, score: int, status: MoveStatus
) -> None:
    """« ... pour compléter les groupes jusqu'à la concurrence de 7 lettres (respectivement,
    4 lettres pour le premier groupe) » (S2, avocalique): the completed group is all c
    announced consonants plus 7 − c pool letters, whatever the move places.

    Group 2 announces R T B C D (c = 5): 7 − 5 = 2 pool letters at most, even though RATEA
    places only 5 tiles (the former reading allowed up to 7 − 2 placed consonants = 5)."""
    problem = _consonant_problem(game, "RTBCD")
    r = run(problem, f"1 G2 {letters} H7 {word} {score}\n", lex("RATE", "RATEA"))
    assert statuses(r) == [status]
    assert r.final_score == (score if status is V else 0)
    if status is Z:
        assert r.moves[0].reasons == (
            "Lettres AAERT indisponibles : 3 lettre(s) de la réserve (AAE) : le groupe 2 "
            "annonce 5 consonne(s) et se complète à 7 lettres, soit 2 lettre(s) de la réserve "
            "au plus.",
        )


@pytest.mark.parametrize("game", CONSONANT_GAMES)
def test_a_group_of_seven_consonants_takes_no_vowel(game: GameType) -> None:
    """« jusqu'à la concurrence de 7 lettres » (S2): 7 announced consonants complete the
    group; 7 − 7 = 0 pool letters. RAT (R T announced, A from the pool) is zero."""
    problem = _consonant_problem(game, "RTBCDLM")
    r = run(problem, "1 G2 ART H7 RAT 6\n", lex("RAT"))
    assert statuses(r) == [Z]
    assert "soit 0 lettre(s) de la réserve au plus" in r.moves[0].reasons[0]


def test_a_group_found_from_the_letters_respects_the_completion() -> None:
    """Série without group numbers: the group is found from the letters, and only a group
    whose 7 − c room holds the pool letters can be it (same S2 sentence). RATE (2 pool
    letters) is group 2 (room 2): 8; RATEA (3) fits no group: zero."""
    problem = _consonant_problem(GameType.SERIE_MAXIMAUX_CONSONNES, "RTBCD")
    ok = run(problem, "1 AERT H7 RATE 8\n", lex("RATE"))
    assert ([m.group for m in ok.moves], ok.final_score) == ([2], 8)
    bad = run(problem, "1 AAERT H7 RATEA 10\n", lex("RATEA"))
    assert statuses(bad) == [Z]
    assert "aucun groupe" in bad.moves[0].reasons[0]


def test_aveugle_uses_the_players_own_groups() -> None:
    problem = anticipation_problem({}, game=GameType.ANTICIPATION_AVEUGLE)
    groups = list(anticipation_problem({2: "RATBCDE"}).groups)
    header = "Groupes: " + " ".join(f"{i}={g}" for i, g in enumerate(groups, 1)) + "\n"
    ok = run(replace(problem, groups=()), header + "1 ART H7 RAT 6 6\n", lex("RAT"))
    assert (statuses(ok), ok.errors) == ([V], ())
    bad_header = header.replace("2=RATBCDE", "2=RATBCDZ")
    bad = run(replace(problem, groups=()), bad_header + "1 ART H7 RAT 6 6\n", lex("RAT"))
    assert statuses(bad) == [Z]
    assert "aveugle" in bad.errors[0]


# --- the report ---------------------------------------------------------------------------


def test_report_round_trips_and_reads_in_french() -> None:
    r = run(INTEGRAL, FIVE_WARNINGS, FIVE_WORDS)
    assert Report.from_json(r.to_json()) == r
    text = r.to_text()
    assert "Avertissements : 5" in text
    assert "Pénalité : 10 points" in text
    assert "Score final : 11 points" in text


def test_verify_text_keeps_parser_errors_and_never_raises() -> None:
    r = verify_text(INTEGRAL, "1 ART H7 RAT 6 6\nn'importe quoi ici\n2 XYZ\n", lex("RAT"))
    assert r.final_score == 6
    assert any(e.startswith("Ligne 2") for e in r.errors)


def test_superscrabble_sheet_lines_need_no_number() -> None:
    problem = Problem(id="s", game=GameType.SUPERSCRABBLE, board=RAT_BOARD, rack="AEELRV?")
    r = verify_text(problem, "10G LEVERAi\n10E LEVERAs\n", lex("RAT", "RATE", "LEVERAI", "LEVERAS"))
    assert (r.errors, r.final_score) == ((), 2)


def test_a_warning_does_not_add_to_a_penalty() -> None:
    # The relocated move (G17 setting, see above) also has a wrong cumul and, with the
    # cumul setting, that would be a warning: only the penalty applies. 6 + (6 − 5) = 7.
    settings = Settings(ref_mismatch_relocate=True, cumul_warning=True)
    r = run(INTEGRAL, "1 ART H7 RAT 6 6\n2 ARS 9G RATS 6 99\n", lex("RAT", "RATS"), settings)
    assert statuses(r) == [V, P]
    assert (r.moves[1].warnings, r.warnings, r.final_score) == ((), 0, 7)


def test_in_composition_each_line_is_its_own_billet() -> None:
    # Two lines both numbered 2, each with a wrong score: two warnings (a billet is a line).
    text = "1 ART H7 RAT 6 6\n2 S H7 RATS 5 11\n2 S 8H AS 3 14\n"
    r = run(INTEGRAL, text, lex("RAT", "RATS", "AS"))
    assert r.warnings == 2


@pytest.mark.parametrize("game", [GameType.SERIE_MAXIMAUX_CONSONNES,
                                  GameType.N_SCRABBLE_CONSONNES])
def test_consonant_variants_complete_groups_from_the_stock(game: GameType) -> None:
    # Announced: group 1 R T, group 2 S, groups 3-7 nothing. The stock (pool) holds A E.
    # 1 RAT: R T from group 1, A from the stock = 6.  2 RATS: S from group 2 = 4.
    # 3 TE (9H): E from the stock on I9 (DL) 2 + T 1 = 3, with group 3 (first unused).
    # 4 ES (10G) needs a second E: the stock has none left -> zero. Total 13.
    problem = Problem(
        id="c", game=game, groups=("RT", "S", "", "", "", "", ""), group_sizes=(7,) * 7,
        pool="AE",
    )
    text = "1 ART H7 RAT 6 6\n2 S H7 RATS 4 10\n3 E 9H TE 3 13\n4 E 10G ES 2 15\n"
    r = run(problem, text, lex("RAT", "RATS", "TE", "ES"))
    assert [m.group for m in r.moves][:3] == [1, 2, 3]
    assert statuses(r) == [V, V, V, Z]
    assert r.final_score == 13


@pytest.mark.parametrize(("written", "expected"), [("STIRE", 13), ("ST0IRE", 9)])
def test_romanian_values_and_the_zero_joker(written: str, expected: int) -> None:
    # RULES §12 (E8), Romanian values (all 1 here): CASA H7 = C A(H8 DW) S A = 4 ×2 = 8.
    # STIRE I8: S 1 + T (I9 DL) 2 + I + R + E = 6; cross-words AS 2, ST 1 + 2 = 3, AI 2 -> 13.
    # With T a joker (T0): STIRE 1 + 0 + 3 = 4, ST 1 + 0 = 1, AS 2, AI 2 -> 9.
    problem = Problem(id="ro", game=GameType.INTEGRAL, lang="ro")
    letters = "EIRST" if expected == 13 else "?EIRS"
    text = f"1 AACS H7 CASA 8 8\n2 {letters} I8 {written} {expected} {8 + expected}\n"
    r = run(problem, text, lex("CASA", "STIRE", "AS", "ST", "AI"))
    assert statuses(r) == [V, V]
    assert [m.true_score for m in r.moves] == [8, expected]


def test_sheet_level_notes_problem_id_and_lexicon_identity() -> None:
    words = lex("RAT")
    problem = Problem(id="p-1", game=GameType.INTEGRAL,
                      lexicon=LexiconRef("ods", "0" * 64, 400000))
    r = run(problem, "Problème: p-2\n1 ART H7 RAT 6 6\n", words)
    assert r.final_score == 6
    assert "p-2" in r.errors[0] and "p-1" in r.errors[0]
    assert "n'est pas celui du problème" in r.errors[1]
    assert (r.lexicon_name, r.lexicon_word_count) == ("mini", 1)
    same = replace(problem, lexicon=LexiconRef("mini", words.identity.sha256, 1))
    assert run(same, "Problème: P-1\n1 ART H7 RAT 6 6\n", words).errors == ()


def test_incomplet_setting_lets_scrabbles_rely_on_a_zeroed_construction() -> None:
    problem = Problem(id="si", game=GameType.SUPERSCRABBLE_INCOMPLET, rack="AEELRV?")
    text = "1 ART H7 RAT 6 6\nScrabbles:\n10G LEVERAi\n"
    loose = Settings(incomplet_scrabble_needs_valid_construction=False)
    r = run(problem, text, lex("RATE", "LEVERAI"), loose)
    assert [s.status for s in r.scrabbles] == [V]


@pytest.mark.parametrize(
    ("settings", "warnings"),
    [
        # default: move 2's score 5 for 4 is the one warning; the cumul is not judged
        (Settings(), 1),
        # the cumul as the player's arithmetic: 6 + 5 = 11 is right -> still 1
        (Settings(cumul_warning=True), 1),
        # the true cumul: 6 + 4 = 10, so 11 is wrong too -> still one billet warned
        (Settings(cumul_warning=True, cumul_check="true"), 1),
        # move 1 has no letters column: a second warned billet
        (Settings(missing_letters_warning=True), 2),
        # every fault counts: move 2 has a wrong score only -> 1; with the true cumul, 2
        (Settings(one_warning_per_move=False), 1),
        (Settings(one_warning_per_move=False, cumul_warning=True, cumul_check="true"), 2),
    ],
)
def test_warning_settings(settings: Settings, warnings: int) -> None:
    r = run(INTEGRAL, "1 H7 RAT 6 6\n2 S H7 RATS 5 11\n", lex("RAT", "RATS"), settings)
    assert r.warnings == warnings
