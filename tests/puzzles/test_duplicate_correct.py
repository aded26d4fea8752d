"""Duplicate bulletin correction (RULES §4.6–4.7), solos (§4.8), warning conversion (§4.7.7)
and the final ranking (§4.10), with the arithmetic of each credited score.

The grid is the E17 record after two moves (RULES §12): ``C(H)ACUNE`` at H4 (76), then
``MOLLIES`` at G8 (68); the third draw is ``RIERAIS`` and ``CRIERAIS`` at 4H scores
« 11 ×2 + 50 = 72 » (the C on H4; L4 is a DW; the S on O4 a DL).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles.duplicate import (
    Bulletin,
    Draw,
    DuplicateSettings,
    GameState,
    RoundResult,
    TopChoice,
    Verdict,
    apply_solos,
    correct,
    parse_bulletin,
    prepare_round,
    rank_game,
    solo_bonus,
    warning_deduction,
)
from scoring.board import Board
from scoring.config import GameConfig
from scoring.lexicon import Lexicon
from scoring.movegen import GeneratedMove

E17 = "15/15/15/15/15/15/7MOLLIES1/3ChACUNE5/15/15/15/15/15/15/15"
FR = DuplicateSettings()


@pytest.fixture(scope="module")
def cfg(french: Lexicon) -> GameConfig:
    return GameConfig.default("fr", french)


def judge(cfg: GameConfig, text: str, rack: str = "RIERAIS", *, grid: str = E17,
          round_no: int = 3, vertical: bool = False, first_word: str = "") -> Verdict:
    """The verdict of the bulletin line ``text`` (``vertical``: the word written downwards;
    ``first_word``: the game's first top, as the state keeps it)."""
    b = parse_bulletin(text, player="p")
    assert isinstance(b, Bulletin), b
    b = replace(b, vertical=vertical or b.vertical)  # the kwarg, or the line's own mark
    state = GameState(grid, (), first_word=first_word)
    return correct(state, rack, b, cfg, round_no=round_no, top_score=72)


def summary(v: Verdict) -> tuple[int, str, int, str | None, str | None]:
    return (v.score, v.kind, v.warnings, v.ref, v.word)


# --- parsing ------------------------------------------------------------------------------
def test_parse_bulletin_forms() -> None:
    assert parse_bulletin("H4 RESTAIt 70", player="a") == Bulletin("a", "RESTAIt", "H4", None, 70)
    assert parse_bulletin("4h RESTAI(T) 70") == Bulletin("", "RESTAIt", "4H", None, 70)
    assert parse_bulletin("MEN PROMENERAI 72") == Bulletin("", "PROMENERAI", None, "MEN", 72)
    assert parse_bulletin("RESTAIT0") == Bulletin("", "RESTAIt", None, None, None)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", "Bulletin vide"),
        ("H4 H5 MOT 3", "Deux références"),
        ("H4 MOT 3 4", "Deux scores"),
        ("X+Y 3", "ni une référence"),
        ("A B C D", "Trop de mots"),
        ("M MOT 3", "trois lettres de raccord"),
    ],
)
def test_parse_bulletin_errors_are_french(text: str, error: str) -> None:
    errors = parse_bulletin(text)
    assert isinstance(errors, list) and error in errors[0]


# --- valid and warnings -------------------------------------------------------------------
def test_valid_alphanumeric_reference(cfg: GameConfig) -> None:
    assert summary(judge(cfg, "4H CRIERAIS 72")) == (72, "valide", 0, "4H", "CRIERAIS")


def test_warning_wrong_or_missing_score_gets_the_correct_score(cfg: GameConfig) -> None:
    """S1 5.2: « Absence de score ou erreur de calcul des points du mot joué mais dont la
    référence ... est correctement indiquée » → warning, 72 credited."""
    assert summary(judge(cfg, "4H CRIERAIS 70")) == (72, "avertissement", 1, "4H", "CRIERAIS")
    v = judge(cfg, "4H CRIERAIS")
    assert summary(v) == (72, "avertissement", 1, "4H", "CRIERAIS")
    assert "score absent" in v.reason_fr


def test_raccord_locates_the_word(cfg: GameConfig) -> None:
    """S1 4.3.1: a raccord letter « fait partie du mot joué » or « adjacente par un de ses
    côtés » — CHA (H4 H5 H6): C is CRIERAIS's first letter."""
    assert summary(judge(cfg, "CHA CRIERAIS 72")) == (72, "valide", 0, "4H", "CRIERAIS")
    # ACU (H6–H8) touches only the 7H placement: C(3) R(1×2) I E R A(1×2) I S = 12, +50 = 62
    assert summary(judge(cfg, "ACU CRIERAIS 62")) == (62, "valide", 0, "7H", "CRIERAIS")


def test_several_places_the_score_decides_else_the_minimum(cfg: GameConfig) -> None:
    """S1 4.3.3: « Si le score indiqué ne correspond à aucune place correcte bien
    déterminée, le score minimum est appliqué » — CHA fits 4H (72) and 7H (62)."""
    assert summary(judge(cfg, "HAC CRIERAIS 72")) == (72, "valide", 0, "4H", "CRIERAIS")
    v = judge(cfg, "CHA CRIERAIS 70")
    assert summary(v) == (62, "avertissement", 1, "7H", "CRIERAIS")  # min(72, 62)


def test_warning_two_letter_raccord(cfg: GameConfig) -> None:
    """S1 5.2: « raccord de deux lettres au lieu de trois »."""
    assert summary(judge(cfg, "CH CRIERAIS 72")) == (72, "avertissement", 1, "4H", "CRIERAIS")


def test_two_letter_raccord_is_no_fault_after_a_two_letter_first_word() -> None:
    """S1 5.2: « À partir du deuxième coup (sauf si le mot joué au premier coup ne comporte
    que deux lettres), raccord de deux lettres au lieu de trois ». After ZA at H7, the grid
    holds two letters: the raccord ZA is all there is to quote. ZAS at H7: Z 10 + A 1 + S 1
    (H9, no premium) = 12, valid, no warning."""
    small = GameConfig.default("fr", Lexicon.from_words(["ZA", "ZAS"], "zazas"))
    grid = "15/15/15/15/15/15/15/6ZA7/15/15/15/15/15/15/15"
    v = judge(small, "ZA ZAS 12", "SEIBCDE", grid=grid, round_no=2)
    assert summary(v) == (12, "valide", 0, "H7", "ZAS")


def test_altered_raccord_letter_is_a_warning(cfg: GameConfig) -> None:
    """S1 5.2: an altered raccord letter is a warning, « le raccord correct doit cependant
    être composé de trois lettres consécutives ou plus »: CHAG (the grid reads CHAC at
    H4–H7) still holds CHA, which locates CRIERAIS at 4H (72) or 7H (62); the score 72
    decides 4H → 72 with a warning (not the 72 − 5 = 67 of a wrong reference). With fewer
    than three right consecutive letters (CXAG) nothing locates the word: written downwards,
    72 − 5 = 67 (S1 5.3.1); on one line, no horizontal place scores 72: zero."""
    v = judge(cfg, "CHAG CRIERAIS 72")
    assert summary(v) == (72, "avertissement", 1, "4H", "CRIERAIS")
    assert "lettre de raccord altérée (CHAG)" in v.reason_fr
    assert summary(judge(cfg, "CXAG CRIERAIS 72", vertical=True))[:2] == (67, "penalite5")
    assert summary(judge(cfg, "CXAG CRIERAIS 72"))[:2] == (0, "nul")


def test_both_modes_one_wrong_is_a_warning(cfg: GameConfig) -> None:
    """S1 4.4: « si seul un mode de référence est incorrect, il reçoit un avertissement »."""
    assert summary(judge(cfg, "4H CHU CRIERAIS 72")) == (72, "avertissement", 1, "4H", "CRIERAIS")


def test_inverted_reference_is_a_warning(cfg: GameConfig) -> None:
    """S1 5.2: the reference's direction inverted (H4 for the vertical word at 4H)."""
    v = judge(cfg, "H4 CRIERAIS 72")
    assert summary(v) == (72, "avertissement", 1, "4H", "CRIERAIS")
    assert "inversé" in v.reason_fr


def test_warnings_do_not_add_up_on_one_bulletin(cfg: GameConfig) -> None:
    """S1 5.5: « Les avertissements ne sont pas cumulables » — a two-letter raccord and a
    wrong score: one warning."""
    v = judge(cfg, "CH CRIERAIS 71")
    assert (v.score, v.kind, v.warnings) == (72, "avertissement", 1)


# --- joker marking (§4.7.2, §4.7.6) -------------------------------------------------------
def test_joker_marking(cfg: GameConfig) -> None:
    """ARRETAI at F5 with TRIERA?: the joker as the first A scores
    a(0) R(1×3) R E T A(1×3) I = 10, + EMU 4 + TON 3 + ALE 5 + IL 2 = 24, + 50 = 74;
    as the second A: A R(3) R E T a(0) I = 8, + EMU 4 + TON 3 + aLE 2 + IL 2 = 19, + 50 = 69."""
    rack = "TRIERA?"
    assert summary(judge(cfg, "F5 aRRETAI 74", rack)) == (74, "valide", 0, "F5", "aRRETAI")
    # circle missing, the score settles it: warning, 74
    assert summary(judge(cfg, "F5 ARRETAI 74", rack)) == (74, "avertissement", 1, "F5", "aRRETAI")
    # S1 5.6: « ne permet pas d'identifier clairement l'emplacement » and the score does not
    # settle it → the minimum, 69
    assert summary(judge(cfg, "F5 ARRETAI 70", rack)) == (69, "avertissement", 1, "F5", "ARRETaI")
    # right circle, wrong score: the circled position counts (69), warning
    assert summary(judge(cfg, "F5 ARRETaI 74", rack)) == (69, "avertissement", 1, "F5", "ARRETaI")


def test_first_move_scores_the_best_horizontal_placement(cfg: GameConfig) -> None:
    """S1 5.2: « Au premier coup, le joueur obtient le score qui correspond au placement le
    plus avantageux » (E15: FEDAYIN always 110). FICHERA at H8 is 82 (RULES §12, E5) but at
    H4 the F is on the DL: (4×2 + 1 + 3 + 4 + 1 + 1 + 1) = 19, ×2 + 50 = 88."""
    empty = Board().to_cgp()
    v = judge(cfg, "H8 FICHERA 82", "FICHERA", grid=empty, round_no=1)
    assert summary(v) == (88, "avertissement", 1, "H4", "FICHERA")
    v = judge(cfg, "FICHERA 88", "FICHERA", grid=empty, round_no=1)
    assert summary(v) == (88, "valide", 0, "H4", "FICHERA")  # no reference needed on move 1


def test_first_move_tied_placements_keep_the_written_reference() -> None:
    """S1 5.2: « le placement le plus avantageux »: ZA scores (10 + 1) × 2 = 22 at H7 (A on
    the star) and at H8 (Z on the star); both are the most advantageous, so the player's own
    reference stands (a Tactique's second word is judged on the grid this word leaves).
    Without a reference, the smaller one (H7)."""
    small = GameConfig.default("fr", Lexicon.from_words(["ZA", "ZAS"], "zazas"))
    empty = Board().to_cgp()
    assert summary(judge(small, "H8 ZA 22", "ZAEIBCD", grid=empty, round_no=1)) == (
        22, "valide", 0, "H8", "ZA")
    assert summary(judge(small, "H7 ZA 22", "ZAEIBCD", grid=empty, round_no=1)) == (
        22, "valide", 0, "H7", "ZA")
    assert summary(judge(small, "ZA 22", "ZAEIBCD", grid=empty, round_no=1)) == (
        22, "valide", 0, "H7", "ZA")


def test_first_move_joker_not_circled(cfg: GameConfig) -> None:
    """E17 move 1: C(H)ACUNE at H4 = 76; written without a circle it is still the only
    joker position → warning, 76."""
    empty = Board().to_cgp()
    v = judge(cfg, "ChACUNE 76", "C?ACUNE", grid=empty, round_no=1)
    assert summary(v) == (76, "valide", 0, "H4", "ChACUNE")
    v = judge(cfg, "CHACUNE 76", "C?ACUNE", grid=empty, round_no=1)
    assert summary(v) == (76, "avertissement", 1, "H4", "ChACUNE")


# --- 5-point penalty (§4.7.3) -------------------------------------------------------------
def test_penalty_reference_absent(cfg: GameConfig) -> None:
    """S1 5.3.1: « le référencement est erroné, illisible ou absent, à condition que le mot
    joué soit écrit en entier et que le score corresponde à un emplacement valable du mot
    joué, et ce dans le même sens que celui où il est écrit sur le bulletin » — written
    downwards, 72 − 5 = 67; 62 (the 7H place) − 5 = 57. Written on one line (horizontally),
    no horizontal CRIERAIS scores 72: zero."""
    assert summary(judge(cfg, "CRIERAIS 72", vertical=True)) == (
        67, "penalite5", 0, "4H", "CRIERAIS")
    assert summary(judge(cfg, "CRIERAIS 62", vertical=True)) == (
        57, "penalite5", 0, "7H", "CRIERAIS")
    v = judge(cfg, "CRIERAIS 72")
    assert summary(v) == (0, "nul", 0, None, None)
    assert v.reason_fr == (
        "Nul : référence absente ou illisible et le score 72 ne correspond à aucun emplacement "
        "du mot écrit horizontalement (il correspond à un emplacement vertical, mais le mot "
        "n'est pas écrit dans ce sens).")


def test_penalty_reference_wrong(cfg: GameConfig) -> None:
    assert summary(judge(cfg, "4G CRIERAIS 72")) == (67, "penalite5", 0, "4H", "CRIERAIS")


def test_penalty_amount_is_a_setting(cfg: GameConfig) -> None:
    state = GameState(E17, ())
    ctx = prepare_round(state, "RIERAIS", cfg, round_no=3, top_score=72,
                        settings=replace(FR, penalty_points=3))
    b = parse_bulletin("CRIERAIS 72")
    assert isinstance(b, Bulletin)
    v = correct(state, "RIERAIS", replace(b, vertical=True), cfg, round_no=3, top_score=72,
                context=ctx)
    assert v.score == 72 - 3


def test_penalty_last_letter_missing_or_altered(cfg: GameConfig) -> None:
    """S1 5.3.1: « absence ou modification sur le bulletin de la dernière lettre du mot joué
    si celle-ci est déjà sur la grille, à condition que le score corresponde au mot écrit en
    entier ». ARRISES at 14A ends on the S of MOLLIES (G14):
    (A R R I S E×3 S) = 1+1+1+1+1+3+1 = 9, ×2 (B14 DW) = 18; 18 − 5 = 13."""
    expected = (13, "penalite5", 0, "14A", "ARRISES")
    assert summary(judge(cfg, "14A ARRISE 18")) == expected
    assert summary(judge(cfg, "14A ARRISEZ 18")) == expected
    assert summary(judge(cfg, "ARRISE 18")) == expected


def test_no_penalty_on_move_one(cfg: GameConfig) -> None:
    """S1 5.3.1: « À partir du deuxième coup »."""
    v = judge(cfg, "FICHERA 88", "FICHERA", grid=Board().to_cgp(), round_no=1)
    assert v.kind == "valide"


# --- zero (§4.7.4) ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "reason"),
    [
        # « nombre de points ne correspond à aucune des solutions »
        ("CRIERAIS 70", "ne correspond à aucun emplacement"),
        ("4H CRIERAIX 72", "CRIERAIX n'est pas admis"),
        ("4H CRIERONS 72", "absentes du tirage"),
        ("14A ARRISE 17", "ne correspond à aucun emplacement"),
    ],
)
def test_zero_causes(cfg: GameConfig, text: str, reason: str) -> None:
    v = judge(cfg, text)
    assert (v.score, v.kind) == (0, "nul")
    assert reason in v.reason_fr


def test_zero_when_a_mode_makes_a_non_admitted_word(cfg: GameConfig) -> None:
    """S1 4.4: « le mot joué ajoute une lettre du tirage à un mot déjà placé pour former un
    mot non admis, il reçoit un zéro » — at 3H the C would make CCHACUNE, even though the
    raccord ACU is right (7H)."""
    v = judge(cfg, "3H ACU CRIERAIS 62")
    assert (v.score, v.kind) == (0, "nul") and "CCHACUNE" in v.reason_fr


def test_absent_bulletin(cfg: GameConfig) -> None:
    v = correct(GameState(E17, ()), "RIERAIS", None, cfg, round_no=3, top_score=72, player="x")
    assert (v.player, v.score, v.kind) == ("x", 0, "absent")


# --- solos (§4.8) -------------------------------------------------------------------------
def verdicts(*scores: int, kinds: dict[int, str] | None = None) -> list[Verdict]:
    kinds = kinds or {}
    return [Verdict(f"j{i}", s, kinds.get(i, "valide")) for i, s in enumerate(scores)]  # type: ignore[arg-type]


def test_solo_with_16_players_is_10_points() -> None:
    """S1 3.5: « Cette bonification est de 10 points si le nombre de joueurs est au moins
    de seize »."""
    out = apply_solos(verdicts(80, *([60] * 15)), 16, FR)
    assert [v.solo for v in out] == [10] + [0] * 15
    assert solo_bonus(16, FR) == 10


def test_solo_with_9_players_is_n_minus_6() -> None:
    """G2 (RECALLED FFSc): 9 − 6 = 3; Eliot (``none``): no solo under 16."""
    out = apply_solos(verdicts(50, 20, 20, 20, 20, 20, 20, 20, 20), 9, FR)
    assert [v.solo for v in out] == [3] + [0] * 8
    assert solo_bonus(9, replace(FR, solo_rule="none")) == 0
    assert solo_bonus(6, FR) == 0  # 6 − 6


def test_no_solo_when_two_share_the_best_score_and_zeros_do_not_compete() -> None:
    assert [v.solo for v in apply_solos(verdicts(70, 70, 20), 16, FR)] == [0, 0, 0]
    # j1 is a zero (nul): it does not compete, and the lone 40 beats the 30
    out = apply_solos(verdicts(40, 0, 30, kinds={1: "nul"}), 16, FR)
    assert [v.solo for v in out] == [10, 0, 0]
    # a solo is given even below the top (S1 3.5 « reste inférieure à celle
    # effectivement retenue »): the verdicts alone decide


# --- warning conversion and ranking (§4.7.7, §4.10) ---------------------------------------
def test_warning_conversion() -> None:
    """S1 5.7: « Au quatrième (sixième en blitz et partie originale), il se voit retirer cinq
    points »: 5 warnings → 5 × (5 − 3) = 10; from the 6th: 5 × max(0, 5 − 5) = 0;
    7 warnings from the 6th: 5 × (7 − 5) = 10."""
    assert warning_deduction(3, FR) == 0
    assert warning_deduction(5, FR) == 10
    blitz = replace(FR, warning_conversion_from=6)
    assert warning_deduction(5, blitz) == 0
    assert warning_deduction(7, blitz) == 10


def _round(n: int, top: int, vs: list[Verdict]) -> RoundResult:
    move = GeneratedMove(top, True, 112, "AB", 3)
    return RoundResult(n, Draw("", "AB", "AB"), TopChoice(move, "H8", "AB", top), "", tuple(vs))


def test_rank_game_totals_solos_warnings_and_ties() -> None:
    """Final total = Σ scores + solos − warning conversion (RULES §4.10); tops 50 + 50 = 100.
    ann: 50 + 50 + solo 10 = 110 (110 %); bea: 45 + 45 = 90 with 2 + 2 = 4 warnings →
    90 − 5 × (4 − 3) = 85; cid: 40 + 45 (already net of its penalty) = 85, ex aequo with
    bea: both 2nd, the next is 4th; dan: absent (0) + 30 = 30."""
    r1 = [
        Verdict("ann", 50, "valide", solo=10),
        Verdict("bea", 45, "avertissement", 2),
        Verdict("cid", 40, "valide"),
        Verdict("dan", 0, "absent"),
    ]
    r2 = [
        Verdict("ann", 50, "valide"),
        Verdict("bea", 45, "avertissement", 2),
        Verdict("cid", 45, "penalite5"),
        Verdict("dan", 30, "valide"),
    ]
    rows = rank_game([_round(1, 50, r1), _round(2, 50, r2)], FR)
    got = [(r.player, r.total, r.rank, r.percent_of_tops, r.warnings, r.warning_deduction,
            r.penalties, r.solos, r.zeros) for r in rows]
    assert got == [
        ("ann", 110, 1, 110.0, 0, 0, 0, 1, 0),
        ("bea", 85, 2, 85.0, 4, 5, 0, 0, 0),
        ("cid", 85, 2, 85.0, 0, 0, 1, 0, 0),
        ("dan", 30, 4, 30.0, 0, 0, 0, 0, 1),
    ]


# --- several solutions (§4.7.6) and robustness -------------------------------------------
def test_several_solutions_on_one_bulletin(cfg: GameConfig) -> None:
    """S1 5.6: « Si deux solutions ou plus sont portées sur le bulletin de jeu et que le
    score indiqué ne correspond » à aucune, the lowest-scoring non-null one is kept."""
    v = judge(cfg, "4H CRIERAIS / 7H CRIERAIS 62")  # the score is 7H's exactly
    assert summary(v) == (62, "valide", 0, "7H", "CRIERAIS")
    v = judge(cfg, "4H CRIERAIS / 7H CRIERAIS 70")  # neither: min(72, 62) = 62, warning
    assert summary(v) == (62, "avertissement", 1, "7H", "CRIERAIS")
    v = judge(cfg, "4H CRIERAIX / 7H CRIERAIS 62")  # the null one does not count
    assert summary(v) == (62, "valide", 0, "7H", "CRIERAIS")
    v = judge(cfg, "4H CRIERAIX / 4H CRIERONS 62")
    assert (v.score, v.kind) == (0, "nul") and "aucune n'est valable" in v.reason_fr


def test_bulletins_built_by_hand_are_normalised(cfg: GameConfig) -> None:
    """A Bulletin built without parse_bulletin (as the server does from its form) is read
    the same way: « criera(i)s » at « 4-h » is CRIERAIS at 4H with the joker circled on an I
    the rack has as a tile (warning); an unreadable reference counts as absent (penalty, the
    word written downwards)."""
    state = GameState(E17, ())
    b = Bulletin("p", "criera(i)s", "4-h", None, 72)
    v = correct(state, "RIERAIS", b, cfg, round_no=3, top_score=72)
    assert summary(v) == (72, "avertissement", 1, "4H", "CRIERAIS")
    v = correct(state, "RIERAIS", Bulletin("p", "CRIERAIS", "Z99", None, 72, vertical=True),
                cfg, round_no=3, top_score=72)
    assert summary(v) == (67, "penalite5", 0, "4H", "CRIERAIS")
    v = correct(state, "RIERAIS", Bulletin("p", "CRIE?RAIS", "4H", None, 72), cfg,
                round_no=3, top_score=72)
    assert (v.kind, v.reason_fr) == ("nul", "Nul : mot illisible « CRIE?RAIS ».")


@settings(max_examples=150, deadline=None)
@given(text=st.text(alphabet="ACEHIRSUXZ?()0123456789 /-:éÉ", max_size=30))
def test_any_line_gives_errors_or_a_verdict(french: Lexicon, text: str) -> None:
    """Bad input gets French errors, never an exception; a readable bulletin always gets a
    verdict whose score is 0 or a legal move's (minus the penalty)."""
    cfg = GameConfig.default("fr", french)
    b = parse_bulletin(text, player="p")
    if isinstance(b, list):
        assert b and all(isinstance(e, str) and e for e in b)
        return
    v = correct(GameState(E17, ()), "RIERAIS", b, cfg, round_no=3, top_score=72)
    assert v.kind in ("valide", "avertissement", "penalite5", "nul")
    assert v.warnings in (0, 1)
    if v.kind == "nul":
        assert v.score == 0


def test_interrupted_game_threshold() -> None:
    """G4 (S1 3.6 fragment « (moins de 10 coups pour les parties originales) »): 15 rounds by
    default, a setting for original games."""
    from puzzles.duplicate import interrupted_game_stands

    assert not interrupted_game_stands(14, FR) and interrupted_game_stands(15, FR)
    assert interrupted_game_stands(10, replace(FR, interruption_min_rounds=10))


def test_first_move_joker_not_circled_keeps_the_written_reference(cfg: GameConfig) -> None:
    """KAKI from KA?IEST on the empty grid: every horizontal placement through the star
    (H5 to H8) lies on no letter premium (the DL of row H are H4 and H12), so each scores
    (10 + 1 + 0 + 1) × 2 = 24 with the joker on either K. Written unmarked, the word is
    credited with a warning at the reference the player wrote — as a marked joker is — and
    without a reference at the leftmost placement, H5 (the unmarked word was put at H8
    whatever the bulletin said)."""
    empty = Board().to_cgp()
    assert summary(judge(cfg, "H5 kAKI 24", "KA?IEST", grid=empty, round_no=1)) == (
        24, "valide", 0, "H5", "kAKI")
    for text, ref in (("H5 KAKI 24", "H5"), ("H6 KAKI 24", "H6"), ("H8 KAKI 24", "H8"),
                      ("KAKI 24", "H5")):
        v = judge(cfg, text, "KA?IEST", grid=empty, round_no=1)
        assert (v.score, v.kind, v.warnings, v.ref) == (24, "avertissement", 1, ref), text
        assert v.reason_fr == "Avertissement : joker mal entouré ou non entouré."
