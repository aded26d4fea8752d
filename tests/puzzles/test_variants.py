"""The Duplicate variants (puzzles.variants, RULES §9, §7.7, §6.1): hand-computed tops on tiny
word lists, the tops checked against exhaustive searches on the French list, bulletin
correction, the Duplicate Top ranking, the live Anticipation schedule and the Partie de
Superscrabble answer key.

Premium squares of row H used below (RULES §1.3): DL at H4 and H12, DW at H8 (the centre).
French values (RULES §2.1): A E I L N O R S T U = 1, K W X Y Z = 10."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import datetime

import pytest

from puzzles.duplicate import (
    DuplicateError,
    DuplicateSettings,
    GameState,
    Verdict,
    apply_top,
    draw_round,
    find_top,
    shuffled_bag,
)
from puzzles.duplicate.games.free import FreeLetters, letters_of
from puzzles.variants import (
    FreeBulletin,
    TactiqueState,
    VariantSettings,
    anticipation_minutes,
    anticipation_schedule,
    apply_tactique_top,
    apply_variant_top,
    brute_force_free_top,
    choose_scrabble,
    correct_free,
    correct_scrabble_sheet,
    correct_tactique,
    draw_tactique,
    draw_variant,
    free_letter_moves,
    list_scrabbles,
    parse_free_bulletin,
    parse_scrabble_sheet,
    parse_tactique_billet,
    rank_duplicate_top,
    rank_superscrabble,
    ranking_point_penalty,
    tactique_top,
    variant_top,
)
from scoring import movegen
from scoring.board import Board
from scoring.config import GameConfig
from scoring.lexicon import Lexicon
from scoring.notation import Ref, format_ref
from scoring.score import score_placement
from scoring.tiles import french
from scoring.validate import check_move
from tests.puzzles.conftest import lex


def cfg_of(*words: str) -> GameConfig:
    return GameConfig(tileset=french(), lexicon=lex(*words))


def in_play(drawn: str, bag: str, board: Board | None = None, round_no: int = 1) -> GameState:
    return GameState((board or Board()).to_cgp(), tuple(bag), drawn, round_no)


# --- Complétif, Superjoker, Métagramme, Elliptique: hand-computed tops ----------------------
def test_completif_top_takes_the_best_stock_letter() -> None:
    """« A chaque coup, l'arbitre tire 6 lettres et les joueurs complèteront les tirages par
    une lettre du stock. » ZA on the centre: (Z 10 + A 1) × 2 (DW) = 22; the stock gives Z.
    H7 and H8 tie at 22 with the same openness (6): the smaller column, H7."""
    cfg = cfg_of("ZA", "LA")
    vs = VariantSettings(variant="completif")
    state = in_play("AEIOUL", "ZBC")
    top = variant_top(state, "AEIOUL", cfg, vs)
    assert top is not None
    assert (top.ref, top.word, top.score) == ("H7", "ZA", (10 + 1) * 2)
    assert top.choice.chosen == "Z" and top.ties == 1
    assert brute_force_free_top(state.board, "AEIOUL", 1, "ZBC", cfg) == 22
    assert max(m.score for m in free_letter_moves(state.board, "AEIOUL", 1, "ZBC", cfg)) == 22
    after = apply_variant_top(state, "AEIOUL", top)
    # Z leaves the stock; the reliquat is the drawn letters less A
    assert after.bag == ("B", "C") and after.reliquat == "EIOUL"
    assert after.tops_total == 22 and after.round_no == 2


def test_completif_unused_choice_stays_in_the_stock() -> None:
    """G15: a chosen letter the top does not use returns to the stock. Without Z in the
    stock, LA = (1 + 1) × 2 = 4 and no letter is taken."""
    cfg = cfg_of("ZA", "LA")
    vs = VariantSettings(variant="completif")
    state = in_play("AEIOUL", "BC")
    top = variant_top(state, "AEIOUL", cfg, vs)
    assert top is not None and (top.ref, top.word, top.score) == ("H7", "LA", 4)
    assert top.choice.chosen == ""
    after = apply_variant_top(state, "AEIOUL", top)
    assert after.bag == ("B", "C") and after.reliquat == "EIOU"


def test_superjoker_top_takes_two_letters() -> None:
    """« l'arbitre tire 5 lettres et les joueurs complèteront les tirages par 2 lettres du
    stock. » ZOUK covering H8: (10 + 1 + 1 + 10) × 2 = 44 at H5, H6, H7, H8 (no DL reached:
    H4 and H12 are out of reach); openness 10 each, so H5."""
    cfg = cfg_of("ZOUK")
    vs = VariantSettings(variant="superjoker")
    state = in_play("OUAAE", "ZKB")
    top = variant_top(state, "OUAAE", cfg, vs)
    assert top is not None
    assert (top.ref, top.word, top.score, top.ties) == ("H5", "ZOUK", 44, 3)
    assert top.choice.chosen == "KZ"
    assert brute_force_free_top(state.board, "OUAAE", 2, "ZKB", cfg) == 44
    assert max(m.score for m in free_letter_moves(state.board, "OUAAE", 2, "ZKB", cfg)) == 44
    after = apply_variant_top(state, "OUAAE", top)
    assert after.bag == ("B",) and after.reliquat == "AAE"


def test_metagramme_swaps_one_letter() -> None:
    """« Les joueurs ont le droit de rejeter une de ces lettres et de la remplacer par une
    autre lettre du stock. » Without a swap LA = 4; swapping E (or L) for Z gives ZA = 22;
    E < L decides. The E goes back to the end of the bag."""
    cfg = cfg_of("ZA", "LA")
    vs = VariantSettings(variant="metagramme")
    state = in_play("AEEEEEL", "ZB")
    top = variant_top(state, "AEEEEEL", cfg, vs)
    assert top is not None and (top.ref, top.word, top.score) == ("H7", "ZA", 22)
    assert (top.choice.chosen, top.choice.swapped) == ("Z", "E")
    after = apply_variant_top(state, "AEEEEEL", top)
    # AEEEEEL − E + Z = AEEEELZ, less Z and A → EEEEL
    assert after.bag == ("B", "E") and after.reliquat == "EEEEL"


def test_elliptique_uses_seven_of_eight() -> None:
    """« l'arbitre tire 8 lettres, dont les joueurs peuvent utiliser 7 au maximum. » The
    8-letter AERIENTS is out; ENTRAIS covering H8 and one DL: (7 + 1) × 2 + 50 = 66 at H2,
    H3, H4 (DL H4) and H6, H7, H8 (DL H12); openness 16 each, so H2; E stays."""
    cfg = cfg_of("AERIENTS", "ENTRAIS")
    vs = VariantSettings(variant="elliptique")
    state = in_play("AEEINRST", "BCD")
    top = variant_top(state, "AEEINRST", cfg, vs)
    assert top is not None
    assert (top.ref, top.word, top.score, top.ties) == ("H2", "ENTRAIS", (7 + 1) * 2 + 50, 5)
    assert top.move.tiles == 7
    after = apply_variant_top(state, "AEEINRST", top)
    assert after.reliquat == "E"
    # a bulletin placing the 8 is a zero that says why; ENTRAIS at H2 is the top's 66
    eight = parse_free_bulletin("H1 AERIENTS 74", player="ann")
    assert isinstance(eight, FreeBulletin)
    v = correct_free(state, "AEEINRST", eight, cfg, top_score=66, settings=vs)
    assert (v.score, v.kind) == (0, "nul")
    assert v.reason_fr == (
        "Nul : en Elliptique, un coup pose au plus 7 lettres (AERIENTS en pose 8).")
    seven = parse_free_bulletin("H2 ENTRAIS 66", player="ann")
    assert isinstance(seven, FreeBulletin)
    v = correct_free(state, "AEEINRST", seven, cfg, top_score=66, settings=vs)
    assert (v.score, v.kind) == (66, "valide")


def test_variant_draw_sizes() -> None:
    """Complétif draws 6, Superjoker 5, Elliptique 8 (the minimum read on those letters)."""
    bag = shuffled_bag("fr", 3)
    for variant, n in (("completif", 6), ("superjoker", 5), ("elliptique", 8), ("top", 7)):
        vs = VariantSettings(variant=variant)  # type: ignore[arg-type]
        draw, state = draw_variant(GameState.initial(vs.duplicate, bag), vs)
        assert draw is not None and len(draw.rack) == n
        assert state.reliquat == draw.rack and len(state.bag) == 102 - n


# --- the tops against exhaustive searches on the French list ----------------------------
def _midgame(french: Lexicon, rounds: int, seed: int = 7) -> tuple[GameState, GameConfig]:
    cfg = GameConfig.default("fr", french)
    s = DuplicateSettings()
    st = GameState.initial(s, shuffled_bag("fr", seed))
    for _ in range(rounds):
        d, st = draw_round(st, s, config=cfg)
        assert d is not None
        top = find_top(st, d.rack, cfg, round_no=st.round_no, settings=s)
        assert top is not None
        st = apply_top(st, d, top)
    return st, cfg


@pytest.mark.parametrize("variant", ["completif", "superjoker", "metagramme", "elliptique"])
def test_free_tops_match_brute_force(french: Lexicon, variant: str) -> None:
    """The top over every choice equals one exhaustive move generation per possible rack
    (every stock letter, every pair, every swap, every 7 of 8), on three mid-game grids."""
    vs = VariantSettings(variant=variant)  # type: ignore[arg-type]
    for rounds in (4, 7, 10):
        st, cfg = _midgame(french, rounds)
        st = replace(st, bag=tuple(st.reliquat) + st.bag, reliquat="")
        draw, st = draw_variant(st, vs)
        assert draw is not None
        drawn, stock = draw.rack, "".join(st.bag)
        top = variant_top(st, drawn, cfg, vs)
        assert top is not None
        board = st.board
        racks: list[str] = []
        if variant in ("completif", "superjoker"):
            expected = brute_force_free_top(board, drawn, letters_of(vs).free, stock, cfg)
        else:
            if variant == "metagramme":
                racks = [drawn] + [
                    drawn.replace(x, "", 1) + y for x in set(drawn) for y in set(stock)
                ]
            else:
                racks = [drawn.replace(x, "", 1) for x in set(drawn)]
            scores = [max((m.score for m in movegen.generate(board, r, cfg)), default=-1)
                      for r in racks]
            expected = max(scores)
        assert top.score == expected, (rounds, drawn, top)
        # the top is a legal move of the rack it names, with the score announced
        v = check_move(board, top.ref, top.word, cfg)
        assert v.ok and v.score == top.score


def test_constrained_joker_rescoring_is_exact(french: Lexicon) -> None:
    """free_letter_moves re-scores each free joker as its letter (value × lm × (wm of the
    word + wm of the square when it also makes a cross word)); the scoring engine agrees on
    every move of a mid-game Superjoker rack, and the best equals the brute force."""
    st, cfg = _midgame(french, 6)
    board, stock = st.board, "".join(st.bag)
    moves = free_letter_moves(board, "AERT", 2, stock, cfg)
    with_choice = [m for m in moves if m.chosen]
    assert len(with_choice) > 1000
    for fm in with_choice[::7]:
        assert score_placement(board, fm.move.placement, cfg) == fm.score
        assert Counter(fm.chosen) <= Counter(stock)
    assert max(m.score for m in moves) == brute_force_free_top(board, "AERT", 2, stock, cfg)
    # with a drawn joker too: the free jokers and the drawn one are told apart
    moves = free_letter_moves(board, "AER?T", 2, stock, cfg)
    for fm in moves[::23]:
        assert score_placement(board, fm.move.placement, cfg) == fm.score
    assert max(m.score for m in moves) == brute_force_free_top(board, "AER?T", 2, stock, cfg)


# --- free-letter bulletins --------------------------------------------------------------------
def test_completif_bulletin_names_its_letter() -> None:
    """The bulletin names the chosen letter (« +Z »); a letter no longer in the stock is a
    zero. Under the Romanian online rules (RULES §9.3, E12) a letter not in the stock, not
    marked, while a joker remains is « deemed the joker and the letter's value is deducted »:
    ZA with the Z a joker on the centre, (0 + 1) × 2 = 2, i.e. 22 − 2 = 20 deducted (the Z's
    10 doubled by the DW). The player may write 22 (the arbitre deducts) or 2; 12 is wrong."""
    cfg = cfg_of("ZA", "LA")
    vs = VariantSettings(variant="completif")
    state = in_play("AEIOUL", "ZB?")
    fb = parse_free_bulletin("ZA 22 +Z", player="ann")
    assert isinstance(fb, FreeBulletin) and fb.chosen == "Z"
    v = correct_free(state, "AEIOUL", fb, cfg, top_score=22, settings=vs)
    assert (v.score, v.kind) == (22, "valide")
    no_z = in_play("AEIOUL", "B?")
    v = correct_free(no_z, "AEIOUL", fb, cfg, top_score=22, settings=vs)
    assert (v.score, v.kind) == (0, "nul") and "plus dans le stock" in v.reason_fr
    ro = replace(vs, free_joker_rule="ro_online")
    for written, kind in (("H7 ZA 22 +Z", "valide"), ("H7 ZA 2 +Z", "valide"),
                          ("ZA 22 +Z", "valide"), ("H7 ZA 12 +Z", "avertissement")):
        fbz = parse_free_bulletin(written, player="ann")
        assert isinstance(fbz, FreeBulletin)
        v = correct_free(no_z, "AEIOUL", fbz, cfg, top_score=22, settings=ro)
        assert (v.score, v.kind, v.word) == ((0 + 1) * 2, kind, "zA"), written
        assert v.reason_fr.endswith("Valeur de la lettre hors stock déduite : −20."), written
    # marked as a joker while one remains: a joker, (0 + 1) × 2 = 2, nothing deducted
    fbj = parse_free_bulletin("zA 2 +Z", player="ann")
    assert isinstance(fbj, FreeBulletin)
    v = correct_free(no_z, "AEIOUL", fbj, cfg, top_score=22, settings=ro)
    assert (v.score, v.kind, v.reason_fr) == (2, "valide", "Valide.")
    # marked as a joker when none remains (the Z still in the stock): the letter's value
    # deducted all the same, 2
    v = correct_free(in_play("AEIOUL", "ZB"), "AEIOUL", fbj, cfg, top_score=22, settings=ro)
    assert (v.score, v.kind) == (2, "valide")
    # no joker left and the letter gone: the move is void
    fb12 = parse_free_bulletin("ZA 22 +Z", player="ann")
    assert isinstance(fb12, FreeBulletin)
    v = correct_free(in_play("AEIOUL", "B"), "AEIOUL", fb12, cfg, top_score=22, settings=ro)
    assert v.kind == "nul"


def test_ro_online_deemed_joker_never_beats_the_top() -> None:
    """The letter « deemed the joker » is scored as the joker, so the player cannot beat the
    room's top by leaving it unmarked. Word list {KAKI, KA}; drawn KAEIBC (the only K
    among them, so no K in the stock; the stock's 2 jokers remain). The top takes a stock
    joker: KAKI over the star, one K a joker, H5 (K H5 … I H8, no DL reached):
    (10 + 1 + 0 + 1) × 2 = 24 — KAkI, not kAKI: equal tops put a joker after the same
    letter as a tile (docs/DUPLICATE.md, the top's step 7). « H5 KAKI 44 +K » (the
    second K outside the stock, written as a letter: 44 = (10 + 1 + 10 + 1) × 2) is the
    least advantageous joker K: 24, the
    value 10 × 2 = 20 deducted; before, 44 − 10 = 34 beat the top by 10."""
    cfg = cfg_of("KAKI", "KA")
    ro = VariantSettings(variant="completif", free_joker_rule="ro_online")
    stock = "".join(sorted((french().bag() - Counter("KAEIBC")).elements()))
    state = in_play("KAEIBC", stock)
    top = variant_top(state, "KAEIBC", cfg, ro)
    assert top is not None and (top.ref, top.word, top.score, top.choice.chosen) == (
        "H5", "KAkI", 24, "?")
    # the stock's letters alone (no joker) give no second K: KA, (10 + 1) × 2 = 22
    assert brute_force_free_top(state.board, "KAEIBC", 1, stock, cfg) == 22
    for written in ("H5 KAKI 44 +K", "H5 KAKI 24 +K", "H5 KAkI 24 +?"):
        fb = parse_free_bulletin(written, player="x")
        assert isinstance(fb, FreeBulletin)
        v = correct_free(state, "KAEIBC", fb, cfg, top_score=24, settings=ro)
        assert (v.score, v.kind) == (24, "valide"), (written, v)


def test_metagramme_bulletin_swap() -> None:
    cfg = cfg_of("ZA", "LA")
    vs = VariantSettings(variant="metagramme")
    state = in_play("AEEEEEL", "ZB")
    fb = parse_free_bulletin("ZA 22 -E +Z")
    assert isinstance(fb, FreeBulletin)
    v = correct_free(state, "AEEEEEL", fb, cfg, top_score=22, settings=vs, player="bob")
    assert (v.player, v.score, v.kind) == ("bob", 22, "valide")
    half = parse_free_bulletin("ZA 22 +Z")
    assert isinstance(half, FreeBulletin)
    v = correct_free(state, "AEEEEEL", half, cfg, top_score=22, settings=vs)
    assert v.kind == "nul"


# --- Tactique ----------------------------------------------------------------------------------
TACTIQUE_GROUPS = ("ZABCDFG", "SBCDFGH")


def test_tactique_top_two_words() -> None:
    """« l'arbitre annoncera la suite de mots dont le cumul des scores est le plus élevé. »
    Group 1 first: ZA on the centre (10 + 1) × 2 = 22, then S makes ZAS = 10 + 1 + 1 = 12 (no
    premium on H9 or H10): 34, at H7 or H8 → H7. Group 2 first cannot be placed (S alone)."""
    cfg = cfg_of("ZA", "ZAS")
    vs = VariantSettings(variant="tactique")
    top = tactique_top(Board(), TACTIQUE_GROUPS, cfg, vs)
    assert top is not None and top.first is not None and top.second is not None
    assert (top.first_group, top.score, top.ties) == (1, 22 + 12, 1)
    assert (format_ref(top.first.ref), top.first.word, top.first_score) == ("H7", "ZA", 22)
    assert (format_ref(top.second.ref), top.second.word, top.second_score) == ("H7", "ZAS", 12)
    assert top.notation == "H7 ZA 22 + H7 ZAS 12 = 34"
    second_first = replace(vs, tactique_order="group2_first")
    imposed = tactique_top(Board(), TACTIQUE_GROUPS, cfg, second_first)
    # the S group cannot open the game: the Z group is played alone, 22
    assert imposed is not None and imposed.score == 22 and imposed.second is None
    st = TactiqueState(GameState(Board().to_cgp(), ()), TACTIQUE_GROUPS)
    after = apply_tactique_top(st, top)
    assert after.reliquats == ("BCDFG", "BCDFGH")
    assert after.game.tops_total == 34 and after.game.board.at(7, 8) == "S"


def test_tactique_top_matches_exhaustive_pairs(french: Lexicon) -> None:
    """On a mid-game French grid, the top equals the best sum over every first move (both
    orders) of its score plus the best second move listed by full generation."""
    st, cfg = _midgame(french, 6)
    vs = VariantSettings(variant="tactique")
    board = st.board
    groups = ("AEST", "RNIO")
    top = tactique_top(board, groups, cfg, vs)
    assert top is not None and top.first is not None and top.second is not None
    best = -1
    for a, b in ((0, 1), (1, 0)):
        for m1 in movegen.generate(board, groups[a], cfg):
            after = board.copy()
            m1.placement.apply(after)
            second = max((m.score for m in movegen.generate(after, groups[b], cfg)), default=0)
            best = max(best, m1.score + second)
    assert top.score == best
    # replayed with the independent checker: both words are legal in turn and sum up
    v1 = check_move(board, format_ref(top.first.ref), top.first.word, cfg)
    assert v1.ok and v1.placement is not None
    b2 = board.copy()
    v1.placement.apply(b2)
    v2 = check_move(b2, format_ref(top.second.ref), top.second.word, cfg)
    assert v2.ok and v1.score + v2.score == top.score


def test_tactique_draw_redraws_only_the_failing_group() -> None:
    """« Chacun des 2 groupes doit contenir au moins une voyelle et une consonne. » Group 2's
    DFGHJKL has no vowel: it goes back to the end of the bag and the next seven are drawn
    (G14); group 1 stays."""
    vs = VariantSettings(variant="tactique")
    bag = "AEIOUBC" + "DFGHJKL" + "EMNPRST" + "AEIRSTU"
    draw, st = draw_tactique(TactiqueState(GameState.initial(vs.duplicate, bag)), vs)
    assert draw is not None
    assert draw.racks == ("AEIOUBC", "EMNPRST")
    assert draw.groups[1].rejected == ("DFGHJKL",) and draw.groups[0].rejected == ()
    assert st.game.bag == tuple("AEIRSTU" + "DFGHJKL")
    assert st.reliquats == draw.racks


def test_tactique_end_of_game() -> None:
    """« Si les deux groupes ne contiennent que des voyelles ou que des consonnes, la partie
    est terminée. Si l'un des 2 groupes ne contient que des voyelles et l'autre ne contient
    que des consonnes, la partie continue. »"""
    vs = VariantSettings(variant="tactique")
    vowels = TactiqueState(GameState(Board().to_cgp(), (), round_no=9), ("AEI", "OU"))
    draw, st = draw_tactique(vowels, vs)
    assert draw is None and st.game.finished
    assert "que des voyelles ou que des consonnes" in st.game.end_reason
    mixed = TactiqueState(GameState(Board().to_cgp(), ("I", "O"), round_no=9), ("AE", "BC"))
    draw, st = draw_tactique(mixed, vs)
    # the stock cannot give each group a vowel and a consonant: completed in order
    assert draw is not None and draw.racks == ("AEIO", "BC") and not st.game.finished


def test_tactique_end_of_game_consonants_and_one_group_alone() -> None:
    """The other two sentences of « En fin de partie » (S2, DUPLICATE TACTIQUE): « Si les
    deux groupes ne contiennent que des voyelles ou que des consonnes, la partie est
    terminée » — reliquats BCD and FG, empty bag: consonants only, the game ends; « s'il n'y
    a plus de voyelles ou de consonnes dans le stock, cette condition peut être remplie par
    un seul groupe » — reliquats AE and IO (vowels only), the stock B C (2 tiles, fewer than
    the 2 + 2 both groups would need): group 1 takes both, AE + BC = AEBC (a vowel and a
    consonant), group 2 stays IO (vowels only); one group meets the condition: play goes on."""
    vs = VariantSettings(variant="tactique")
    consonants = TactiqueState(GameState(Board().to_cgp(), (), round_no=9), ("BCD", "FG"))
    draw, st = draw_tactique(consonants, vs)
    assert draw is None and st.game.finished
    assert "que des voyelles ou que des consonnes" in st.game.end_reason
    alone = TactiqueState(GameState(Board().to_cgp(), ("B", "C"), round_no=9), ("AE", "IO"))
    draw, st = draw_tactique(alone, vs)
    assert draw is not None and draw.racks == ("AEBC", "IO")
    assert not st.game.finished and st.game.bag == ()


def test_tactique_billet_correction() -> None:
    """« Est punie d'un avertissement technique toute erreur ou omission de score ou de
    cumul. » 22 + 12 = 34."""
    cfg = cfg_of("ZA", "ZAS")
    vs = VariantSettings(variant="tactique")
    st = TactiqueState(GameState(Board().to_cgp(), ()), TACTIQUE_GROUPS)
    cases = {
        "ZA 22 + H7 ZAS 12 = 34": ("valide", 0),
        "ZA 22 + H7 ZAS 12 = 35": ("avertissement", 1),
        "ZA 22 + H7 ZAS 12": ("avertissement", 1),
        "ZA 22 + H7 ZAS 10 = 32": ("avertissement", 1),
        # « omission de score »: the first score left out, the second, both (and the sum):
        # the true scores 22 and 12 are credited, one warning for the billet (S1 5.5)
        "ZA + H7 ZAS 12 = 34": ("avertissement", 1),
        "ZA 22 + H7 ZAS = 34": ("avertissement", 1),
        "ZA + H7 ZAS": ("avertissement", 1),
    }
    for text, (kind, warnings) in cases.items():
        billet = parse_tactique_billet(text, player="ann")
        assert not isinstance(billet, list), billet
        v = correct_tactique(st, billet, cfg, top_score=34, settings=vs)
        assert (v.score, v.kind, v.warnings) == (34, kind, warnings), (text, v)
    assert isinstance(parse_tactique_billet("ZA 22 + ZAS 12 + ZA 3"), list)
    nul = parse_tactique_billet("ZO 22 + H7 ZAS 12 = 34")
    assert not isinstance(nul, list)
    v = correct_tactique(st, nul, cfg, top_score=34, settings=vs)
    # ZO is not admitted (0); ZAS then has no ZA to extend (0)
    assert (v.score, v.kind) == (0, "nul")


# --- Duplicate Top ---------------------------------------------------------------------------
def _v(player: str, score: int, warnings: int = 0) -> Verdict:
    if score == 0:
        return Verdict(player, 0, "nul")
    return Verdict(player, score, "avertissement" if warnings else "valide", warnings)


def test_duplicate_top_ranking() -> None:
    """« les joueurs ayant réalisé le plus grand score (le top en salle) recevront 1 point de
    classement » ; « Sera mieux classé celui qui aura réalisé des tops en compagnie de moins
    de joueurs » ; « le score total des tops réalisés ».
    Round 1: a, b top (50). Round 2: a, c (40). Round 3: b, c, d (60). Round 4: all zero, no
    top. a: 2 tops, companions 1 + 1 = 2; b: 2, 1 + 2 = 3, tops total 50 + 60 = 110;
    c: 2, 1 + 2 = 3, 40 + 60 = 100; d: 1 top."""
    rounds = [
        [_v("a", 50), _v("b", 50, warnings=1), _v("c", 30), _v("d", 0)],
        [_v("a", 40), _v("b", 20, warnings=1), _v("c", 40), _v("d", 10)],
        [_v("a", 0), _v("b", 60), _v("c", 60), _v("d", 60)],
        [_v("a", 0), _v("b", 0), _v("c", 0), _v("d", 0)],
    ]
    rows = rank_duplicate_top(rounds, VariantSettings(variant="top"))
    got = [(r.rank, r.player, r.points, r.companions, r.topped_total, r.warnings) for r in rows]
    # b's round-2 warning is not counted: b did not top round 2
    assert got == [
        (1, "a", 2, 2, 90, 0),
        (2, "b", 2, 3, 110, 1),
        (3, "c", 2, 3, 100, 0),
        (4, "d", 1, 2, 60, 0),
    ]
    distinct = rank_duplicate_top(rounds, VariantSettings(variant="top", top_companions="distinct"))
    assert {r.player: r.companions for r in distinct} == {"a": 2, "b": 3, "c": 3, "d": 2}


def test_duplicate_top_warning_conversion() -> None:
    """« pour 4 avertissements techniques le joueur perd un point de classement (un top);
    pour 7 avertissements techniques il perd 2 tops; pour 10 avertissements il perd 3 tops »."""
    assert [ranking_point_penalty(w) for w in (0, 3, 4, 6, 7, 9, 10, 13)] == [
        0, 0, 1, 1, 2, 2, 3, 4,
    ]
    rounds = [[_v("x", 30, warnings=1), _v("y", 20)] for _ in range(4)]
    rounds.append([_v("x", 10), _v("y", 20)])
    rows = rank_duplicate_top(rounds, VariantSettings(variant="top"))
    # x: 4 tops − 1 (4 warnings) = 3; y: 1
    assert [(r.player, r.points, r.tops, r.penalty) for r in rows] == [
        ("x", 3, 4, 1), ("y", 1, 1, 0)
    ]


# --- Anticipation live -----------------------------------------------------------------------
def test_anticipation_live_schedule() -> None:
    """RULES §6.1: 60 min of reflection, then 10 min for moves 1–4, 8 for 5–8, 6 for 9–12,
    4 for 13–14: 60 + 40 + 32 + 24 + 8 = 164 min."""
    start = datetime(2026, 12, 1, 14, 0)
    slots = anticipation_schedule(start)
    assert [anticipation_minutes(k) for k in range(1, 15)] == [10] * 4 + [8] * 4 + [6] * 4 + [4] * 2
    assert slots[0].deadline == datetime(2026, 12, 1, 15, 0)
    assert (slots[1].start, slots[1].deadline) == (
        datetime(2026, 12, 1, 15, 0), datetime(2026, 12, 1, 15, 10)
    )
    assert slots[5].start == datetime(2026, 12, 1, 15, 40)  # 60 + 4 × 10
    assert slots[14].deadline == datetime(2026, 12, 1, 16, 44)  # 14:00 + 164 min
    assert slots[14].one_minute == datetime(2026, 12, 1, 16, 43)
    assert len(slots) == 15


# --- Partie de Superscrabble -----------------------------------------------------------------
SS_WORDS = ("LA", "LAS", "RETAINS", "ENTRAILS", "NASTIER", "RETAINSA")


def test_superscrabble_answer_key_is_exhaustive() -> None:
    """« L'arbitre place sur le tableau un mot de 2 lettres ». Every scrabble of RETAINS on
    the grid with LA at H7, checked against trying every word of the list at every square
    in both directions with the move checker."""
    cfg = cfg_of(*SS_WORDS)
    board = Board()
    check = check_move(board, "H7", "LA", cfg)
    assert check.ok and check.placement is not None
    check.placement.apply(board)
    got = {(format_ref(m.ref), m.word.upper()) for m in list_scrabbles(board, "RETAINS", cfg)}
    want: set[tuple[str, str]] = set()
    for word in SS_WORDS:
        for sq in range(225):
            for horizontal in (True, False):
                ref = format_ref(Ref.at(sq, horizontal))
                v = check_move(board, ref, word, cfg)
                if v.ok and v.placement is not None and sorted(v.placement.letters) == sorted(
                    "RETAINS"
                ):
                    want.add((ref, word))
    assert got == want and len(got) > 3
    best = choose_scrabble(board, list_scrabbles(board, "RETAINS", cfg), cfg)
    assert best is not None
    assert best.score == max(m.score for m in list_scrabbles(board, "RETAINS", cfg))


def test_superscrabble_sheets_and_ranking() -> None:
    """One point per distinct valid scrabble; a wrong or missing count is a technical warning;
    « Au 4-ème avertissement technique, un joueur est puni d'un point de classement »."""
    cfg = cfg_of(*SS_WORDS)
    board = Board()
    pl = check_move(board, "H7", "LA", cfg).placement
    assert pl is not None
    pl.apply(board)
    answers = list_scrabbles(board, "RETAINS", cfg)
    good = [f"{format_ref(m.ref)} {m.word}" for m in answers[:2]]
    text = f"{good[0]}, {good[1]}, {good[0]}, A1 RETAINS ; 4"
    sheet = parse_scrabble_sheet(text, player="ann")
    assert not isinstance(sheet, list)
    v = correct_scrabble_sheet(sheet, answers)
    assert (v.valid, v.invalid, v.duplicates, v.warnings) == (2, 1, 1, 0)
    short = parse_scrabble_sheet(f"{good[0]} ; 2", player="bob")
    assert not isinstance(short, list)
    w = correct_scrabble_sheet(short, answers)
    assert (w.valid, w.warnings) == (1, 1)
    rows = rank_superscrabble([[v, w], [v, w], [v, w], [v, w]])
    # ann 4 × 2 = 8; bob 4 × 1 = 4 less 1 (4 warnings) = 3
    assert [(r.player, r.points, r.penalty) for r in rows] == [("ann", 8, 0), ("bob", 3, 1)]


def test_superjoker_with_one_letter_left_in_the_stock() -> None:
    """Near the end the stock may hold fewer letters than the player may take: with only Z
    left, ZA = 22 is still found (Superjoker: 2 letters at most)."""
    cfg = cfg_of("ZA", "LA")
    vs = VariantSettings(variant="superjoker")
    state = in_play("AEIOU", "Z")
    top = variant_top(state, "AEIOU", cfg, vs)
    assert top is not None and (top.word, top.score, top.choice.chosen) == ("ZA", 22, "Z")


def test_variant_settings_json_round_trip() -> None:
    vs = VariantSettings(
        variant="tactique", duplicate=DuplicateSettings(rounds=12, solo_rule="none"),
        tactique_order="group2_first", top_companions="distinct",
    )
    assert VariantSettings.from_json(vs.to_json()) == vs
    flat = VariantSettings.from_json({"variant": "superjoker", "rounds": 5, "lang": "fr"})
    assert flat.duplicate.rounds == 5 and letters_of(flat) == FreeLetters(drawn=5, free=2)
    with pytest.raises(DuplicateError, match="Réglages inconnus : couleur"):
        VariantSettings.from_json({"couleur": "bleu"})
    with pytest.raises(DuplicateError, match="free_joker_rule"):
        VariantSettings.from_json({"free_joker_rule": "always"})


def test_tactique_top_with_jokers_matches_exhaustive_pairs(french: Lexicon) -> None:
    """The branch and bound of the Tactique search (first moves best first, the second group
    searched only where it could still reach the best sum — scoring.movegen.sequences)
    keeps the exact top and its tie order: on mid-game French grids with a joker in a group,
    the sum, the pair retained and the number of equal pairs are those of the full search of
    every pair in both orders (every first move, every second move listed on the grid it
    leaves), ordered by the documented key (fewer jokers, group 1 first, references)."""
    from puzzles.variants import _pair_key

    vs = VariantSettings(variant="tactique")
    for rounds, groups in ((5, ("E?S", "RAIN")), (8, ("LOTE", "?UES")), (3, ("ZA?", "SIT")),
                           (10, ("?R", "?A"))):
        st, cfg = _midgame(french, rounds)
        board = st.board
        top = tactique_top(board, groups, cfg, vs)
        assert top is not None
        best = -1
        keys: list[tuple[object, ...]] = []
        for a, b in ((0, 1), (1, 0)):
            for m1 in movegen.generate(board, groups[a], cfg):
                after = board.copy()
                m1.placement.apply(after)
                seconds = movegen.generate(after, groups[b], cfg)
                s2 = max((m.score for m in seconds), default=0)
                pair_keys = [_pair_key(a, m1, m) for m in seconds if m.score == s2] or [
                    _pair_key(a, m1, None)
                ]
                if m1.score + s2 > best:
                    best, keys = m1.score + s2, pair_keys
                elif m1.score + s2 == best:
                    keys.extend(pair_keys)
        assert top.score == best
        assert top.ties == len(keys) - 1
        assert _pair_key(top.first_group - 1, top.first, top.second) == min(keys)


# --- G14 / G15 as settings, the arbitre's Tactique sequence -------------------------------------
def test_g14_defaults_and_alternatives_in_settings() -> None:
    """RULES §11: G14 « per group; redraw only the failing group », G15 « return to the
    stock » are the defaults; the alternatives round-trip through JSON, bad values refused."""
    vs = VariantSettings()
    assert (vs.tactique_refill, vs.tactique_rejection, vs.free_unused) == (
        "per_group", "group", "stock")
    alt = VariantSettings(variant="tactique", tactique_refill="pooled",
                          tactique_rejection="both", free_unused="reliquat")
    assert VariantSettings.from_json(alt.to_json()) == alt
    for key in ("tactique_refill", "tactique_rejection", "free_unused"):
        with pytest.raises(DuplicateError, match=key):
            VariantSettings.from_json({key: "autre"})


def test_g14_rejection_both_groups_redrawn() -> None:
    """G14 alternative ``tactique_rejection="both"``: group 2's DFGHJKL has no vowel, so
    both groups (AEIOUBC and DFGHJKL, 14 tiles, ``rejection_returns="all"``) go to the end
    of the bag; the next 14 are EMNPRST (E; M N P R S T) and AEIRSTU (A E I U; R S T).
    The default redraws group 2 alone: AEIOUBC stays (test above)."""
    vs = VariantSettings(variant="tactique", tactique_rejection="both")
    bag = "AEIOUBC" + "DFGHJKL" + "EMNPRST" + "AEIRSTU"
    draw, st = draw_tactique(TactiqueState(GameState.initial(vs.duplicate, bag)), vs)
    assert draw is not None
    assert draw.racks == ("EMNPRST", "AEIRSTU")
    assert draw.groups[0].rejected == ("AEIOUBC",)
    assert draw.groups[1].rejected == ("DFGHJKL",)
    assert st.game.bag == tuple("AEIOUBC" + "DFGHJKL")
    default = VariantSettings(variant="tactique")
    draw_d, _ = draw_tactique(TactiqueState(GameState.initial(default.duplicate, bag)),
                              default)
    assert draw_d is not None and draw_d.racks == ("AEIOUBC", "EMNPRST")


def test_g14_refill_per_group_or_pooled() -> None:
    """Reliquats ZE (group 1) and KLM (group 2), bag ABCDEFGHIJKLMNO.
    Per group (default): ZE + ABCDE = ZEABCDE, KLM + FGHI = KLMFGHI; JKLMNO left.
    Pooled: ZEKLM + AB = ZEKLMAB (7 for group 1), then CDEFGHI; JKLMNO left."""
    start = TactiqueState(GameState(Board().to_cgp(), tuple("ABCDEFGHIJKLMNO"), round_no=2),
                          ("ZE", "KLM"))
    per = VariantSettings(variant="tactique")
    draw, st = draw_tactique(start, per)
    assert draw is not None and draw.racks == ("ZEABCDE", "KLMFGHI")
    assert st.game.bag == tuple("JKLMNO")
    pooled = VariantSettings(variant="tactique", tactique_refill="pooled")
    draw, st = draw_tactique(start, pooled)
    assert draw is not None and draw.racks == ("ZEKLMAB", "CDEFGHI")
    assert draw.groups[0].reliquat == "ZEKLM" and draw.groups[1].reliquat == ""
    assert st.game.bag == tuple("JKLMNO") and st.reliquats == draw.racks


def test_g15_unused_chosen_letter_stock_or_reliquat() -> None:
    """A Complétif top that names a chosen letter it does not place (the arbitre retains LA
    « +B »: LA = (1 + 1) × 2 = 4 on the centre). G15 default ``stock``: B stays in the stock
    (Z B C), the reliquat is AEIOUL less L, A = EIOU. Alternative ``reliquat``: B leaves the
    stock (Z C) and stays on the rack: EIOU + B."""
    from puzzles.variants import FreeMove

    cfg = cfg_of("ZA", "LA")
    state = in_play("AEIOUL", "ZBC")
    la = next(m for m in movegen.generate(state.board, "AEIOUL", cfg)
              if (format_ref(m.ref), m.word) == ("H7", "LA"))
    assert la.score == 4
    top = variant_top(state, "AEIOUL", cfg, VariantSettings(variant="completif"))
    assert top is not None
    named = replace(top, choice=FreeMove(la, "B"), ref="H7", word="LA", score=4)
    stock = apply_variant_top(state, "AEIOUL", named, VariantSettings(variant="completif"))
    assert stock.bag == ("Z", "B", "C") and stock.reliquat == "EIOU"
    kept = apply_variant_top(state, "AEIOUL", named,
                             VariantSettings(variant="completif", free_unused="reliquat"))
    assert kept.bag == ("Z", "C") and kept.reliquat == "EIOUB"
    assert stock.tops_total == kept.tops_total == 4
    # Superjoker: ZA (10 + 1) × 2 = 22 takes Z; the top names Z and B (« ZA +ZB »):
    # stock → B back (K B), reliquat OUAAE less A = OUAE; reliquat → K left, OUAE + B
    sj = in_play("OUAAE", "ZKB")
    za = next(m for m in movegen.generate(sj.board, "OUAAEZ", cfg)
              if (format_ref(m.ref), m.word) == ("H7", "ZA"))
    assert za.score == 22
    both = replace(named, choice=FreeMove(za, "ZB"), word="ZA", score=22)
    s1 = apply_variant_top(sj, "OUAAE", both, VariantSettings(variant="superjoker"))
    assert s1.bag == ("K", "B") and s1.reliquat == "OUAE"
    s2 = apply_variant_top(sj, "OUAAE", both,
                           VariantSettings(variant="superjoker", free_unused="reliquat"))
    assert s2.bag == ("K",) and s2.reliquat == "OUAEB"


def test_tactique_sequence_chosen_by_the_arbitre() -> None:
    """The arbitre retains another legal sequence than the top (34 = ZA 22 + ZAS 12): ZA at
    H8 (10 + 1) × 2 = 22 (it covers H8, the DW), then ZAS at H8: Z A on the grid, S new at
    H10 = 10 + 1 + 1 = 12: 34 too, group 1 first. Or ZA at H7 alone … refused: group 2 can
    still play S. A word of the wrong group, a word not on the grid, an imposed order
    forbidding the group named: French refusals. The grid the game continues from carries
    both words and each group keeps its letters."""
    from puzzles.variants import tactique_sequence

    cfg = cfg_of("ZA", "ZAS")
    vs = VariantSettings(variant="tactique")
    top = tactique_sequence(Board(), TACTIQUE_GROUPS, "H8 ZA 22 + H8 ZAS 12 = 34", cfg, vs)
    assert top.first_group == 1 and top.first is not None and top.second is not None
    assert (format_ref(top.first.ref), top.first.word, top.first.score) == ("H8", "ZA", 22)
    assert (format_ref(top.second.ref), top.second.word, top.second.score) == ("H8", "ZAS", 12)
    assert top.score == 22 + 12 and top.notation == "H8 ZA 22 + H8 ZAS 12 = 34"
    after = apply_tactique_top(TactiqueState(GameState(Board().to_cgp(), ()), TACTIQUE_GROUPS),
                               top)
    assert after.reliquats == ("BCDFG", "BCDFGH") and after.game.tops_total == 34
    assert after.game.board.at(7, 9) == "S" and after.game.round_no == 2
    with pytest.raises(DuplicateError, match="il faut deux mots"):
        tactique_sequence(Board(), TACTIQUE_GROUPS, "H7 ZA", cfg, vs)
    with pytest.raises(DuplicateError, match="groupe 2"):
        tactique_sequence(Board(), TACTIQUE_GROUPS, "H8 ZAS + H7 ZA", cfg, vs)
    with pytest.raises(DuplicateError, match="n'est pas jouable"):
        tactique_sequence(Board(), TACTIQUE_GROUPS, "H8 ZA + A1 ZAS", cfg, vs)
    imposed = replace(vs, tactique_order="group2_first")
    with pytest.raises(DuplicateError, match="l'ordre est imposé"):
        tactique_sequence(Board(), TACTIQUE_GROUPS, "groupe 1 : H8 ZA + H8 ZAS", cfg, imposed)
    # group 2 first imposed: the first word must come from group 2; ZA is not in SBCDFGH
    with pytest.raises(DuplicateError, match="groupe 2 \\(SBCDFGH\\)"):
        tactique_sequence(Board(), TACTIQUE_GROUPS, "H8 ZA + H8 ZAS", cfg, imposed)
    # one word alone when the other group has no move after it: BCDFGHJ forms neither ZA
    # nor ZAS, so « H7 ZA » = 22 is a whole sequence
    alone = tactique_sequence(Board(), ("ZABCDFG", "BCDFGHJ"), "H7 ZA", cfg, vs)
    assert (alone.first_group, alone.score, alone.second) == (1, 22, None)


def test_tactique_sequence_names_the_group_played_first() -> None:
    """Both groups hold Z, A and S: « H8 ZA + H8 ZAS » is legal in either order, read group
    1 first; « groupe 2 : » makes group 2 play ZA and group 1 the S. Same grid, same 34
    (22 + 12), but each group keeps other letters: (SBCDF, ZABCDG) against (ZABCDF, SBCDG)."""
    from puzzles.variants import tactique_sequence

    cfg = cfg_of("ZA", "ZAS")
    vs = VariantSettings(variant="tactique")
    groups = ("ZASBCDF", "ZASBCDG")
    start = TactiqueState(GameState(Board().to_cgp(), ()), groups)
    one = tactique_sequence(Board(), groups, "H8 ZA + H8 ZAS", cfg, vs)
    two = tactique_sequence(Board(), groups, "groupe 2 : H8 ZA + H8 ZAS", cfg, vs)
    assert (one.first_group, one.score, two.first_group, two.score) == (1, 34, 2, 34)
    assert apply_tactique_top(start, one).reliquats == ("SBCDF", "ZABCDG")
    assert apply_tactique_top(start, two).reliquats == ("ZABCDF", "SBCDG")
