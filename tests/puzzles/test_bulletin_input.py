"""Issue 24 §2 and §4 in the pure parsers of the round games: several solutions on one
bulletin (« A / B », S1 5.6) kept with their own letters in the free-letter variants and per
word in the Tactique; numbers are ASCII digits with a bound; the Superscrabble sheet refuses
« / » in French."""

from __future__ import annotations

import pytest

from puzzles.duplicate import (
    MAX_SCORE_DIGITS,
    Bulletin,
    GameState,
    Verdict,
    parse_bulletin,
    retain_solution,
)
from puzzles.variants import (
    FreeBulletin,
    TactiqueState,
    VariantSettings,
    correct_free,
    correct_tactique,
    parse_free_bulletin,
    parse_scrabble_sheet,
    parse_tactique_billet,
)
from scoring.board import Board
from scoring.config import GameConfig
from scoring.tiles import french
from tests.puzzles.conftest import lex

PARSERS = (parse_bulletin, parse_free_bulletin, parse_tactique_billet, parse_scrabble_sheet)


def cfg_of(*words: str) -> GameConfig:
    return GameConfig(tileset=french(), lexicon=lex(*words))


@pytest.mark.parametrize("parse", PARSERS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("text", ["H8 ZA ²", "H8 ZA ٣", "٣H ZA 2", "H8 ZA 2²"])
def test_a_digit_is_an_ascii_digit(parse: object, text: str) -> None:
    """« ² ».isdigit() is True and int(« ² ») raises; « ٣ » (Arabic-Indic three) int() reads
    as 3: neither is a score nor a reference, each gets the parser's French reason."""
    got = parse(text)  # type: ignore[operator]
    assert isinstance(got, list), got
    odd = next(t for t in text.split() if not t.isascii())
    assert got == [f"« {odd} » n'est ni une référence (H4, 4H), ni un mot, ni un score."]


@pytest.mark.parametrize("parse", PARSERS, ids=lambda f: f.__name__)
def test_a_score_has_at_most_four_digits(parse: object) -> None:
    """A 5,000-digit score raised ValueError (int's 4,300-digit limit); any score longer than
    MAX_SCORE_DIGITS is a French reason, 9999 still reads."""
    assert MAX_SCORE_DIGITS == 4
    assert parse("H8 ZA " + "9" * 5000) == [  # type: ignore[operator]
        "Score « 999999999999… » : au plus 4 chiffres."]
    assert parse("H8 ZA 12345") == ["Score « 12345 » : au plus 4 chiffres."]  # type: ignore[operator]
    assert not isinstance(parse("H8 ZA 9999"), list)  # type: ignore[operator]


def test_tactique_total_and_superscrabble_count_are_ascii_and_bounded() -> None:
    assert parse_tactique_billet("ZA 22 + H7 ZAS 12 = ²") == ["Cumul « ² » illisible."]
    assert parse_tactique_billet("ZA 22 + H7 ZAS 12 = 12345") == [
        "Score « 12345 » : au plus 4 chiffres."]
    assert parse_tactique_billet("ZA 22 + H7 ZAS 12 = " + "3" * 5000) == [
        "Score « 333333333333… » : au plus 4 chiffres."]
    assert parse_scrabble_sheet("H4 RESTAIT ; ²") == ["Nombre de scrabbles « ² » illisible."]
    assert parse_scrabble_sheet("H4 RESTAIT ; " + "1" * 5000) == [
        "Nombre de scrabbles « 111111111111… » illisible."]


def test_superscrabble_sheet_refuses_a_slash() -> None:
    """A sheet lists every scrabble found, comma-separated: « / » (a Duplicate bulletin's
    second solution) has no meaning there and was silently dropped; now a French reason."""
    assert parse_scrabble_sheet("H4 RESTAIT / 8C RESTAIT ; 2") == [
        "Feuille de Superscrabble : écrivez chaque scrabble une fois, séparés par des "
        "virgules ; « / » n'y a pas de sens (ex. « H4 RESTAIT, 8C RESTAIT ; 2 »)."]


def test_free_bulletin_keeps_each_solutions_letters() -> None:
    """« H7 ZZZQX 99 +Z / H7 ZA 22 +Z »: two solutions, each taking Z. The letters used to be
    gathered on the first solution (chosen « ZZ »: two letters in Complétif, a zero) and the
    second solution lost."""
    fb = parse_free_bulletin("H7 ZZZQX 99 +Z / H7 ZA 22 +Z", player="ann")
    assert fb == FreeBulletin(
        Bulletin("ann", "ZZZQX", "H7", None, 99), "Z", "",
        (FreeBulletin(Bulletin("ann", "ZA", "H7", None, 22), "Z", ""),))
    # one score written for both: it counts for each (as parse_bulletin does)
    shared = parse_free_bulletin("H7 ZA +Z / H7 LA 22 +L")
    assert isinstance(shared, FreeBulletin)
    assert [shared.bulletin.claimed, shared.alternatives[0].bulletin.claimed] == [22, 22]
    assert parse_free_bulletin("H7 ZA 22 +Z / H7 LA 22 +1") == [
        "Solution n° 2 : Lettres choisies « +1 » illisibles."]


def test_free_correction_retains_the_solution_whose_score_is_right() -> None:
    """Complétif on the empty grid, drawn AEIOUL, stock Z B ?. ZZZQX is not admitted (0);
    ZA at H7 = (10 + 1) × 2 = 22 (the A on the star, a double word): S1 5.6 « la solution
    dont le score est exact » is kept — 22, not the old 0. With BA at H7 = (3 + 1) × 2 = 8
    written right and ZA written 99 (a wrong score, 22 with a warning), the exact one, BA 8,
    is retained."""
    cfg = cfg_of("ZA", "BA")
    vs = VariantSettings(variant="completif")
    state = GameState(Board().to_cgp(), tuple("ZB?"), "AEIOUL", 1)
    fb = parse_free_bulletin("H7 ZZZQX 99 +Z / H7 ZA 22 +Z", player="ann")
    assert isinstance(fb, FreeBulletin)
    v = correct_free(state, "AEIOUL", fb, cfg, top_score=22, settings=vs)
    assert (v.score, v.kind, v.ref, v.word) == (22, "valide", "H7", "ZA")
    assert v.reason_fr.startswith("2 solutions sur le bulletin ; retenue : H7 ZA. ")
    fb = parse_free_bulletin("H7 ZA 99 +Z / H7 BA 8 +B", player="ann")
    assert isinstance(fb, FreeBulletin)
    v = correct_free(state, "AEIOUL", fb, cfg, top_score=22, settings=vs)
    assert (v.score, v.kind, v.word) == (8, "valide", "BA")


def test_tactique_word_with_two_solutions() -> None:
    """The Tactique billet's words are Duplicate bulletins: « H8 ZZZQX 99 / ZA 22 » as its
    first word keeps both solutions and ZA 22 (exact) is retained; then ZAS at H7 = 10 + 1
    + 1 = 12 (no premium under Z A S at H7 H8 H9 once ZA lies there): 22 + 12 = 34, the top."""
    cfg = cfg_of("ZA", "ZAS")
    vs = VariantSettings(variant="tactique")
    st = TactiqueState(GameState(Board().to_cgp(), ()), ("ZA", "S"))
    billet = parse_tactique_billet("H8 ZZZQX 99 / ZA 22 + H7 ZAS 12 = 34", player="ann")
    assert not isinstance(billet, list), billet
    assert billet.first.alternatives == (Bulletin("ann", "ZA", None, None, 22),)
    v = correct_tactique(st, billet, cfg, top_score=34, settings=vs)
    assert (v.score, v.kind, v.warnings) == (34, "valide", 0), v


def test_retain_solution_is_s1_5_6() -> None:
    """The exact score first, else the lowest-scoring non-null solution, else the first."""
    a = Verdict("p", 30, "avertissement", 1, ref="H4", word="A", reason_fr="a")
    b = Verdict("p", 20, "valide", ref="H5", word="B", reason_fr="b")
    z = Verdict("p", 0, "nul", reason_fr="z")
    assert retain_solution([a, b], [31, 20]) == Verdict(
        "p", 20, "valide", ref="H5", word="B",
        reason_fr="2 solutions sur le bulletin ; retenue : H5 B. b")
    assert retain_solution([a, b], [31, 21]).score == 20  # none exact: the lowest non-null
    assert retain_solution([z, z], [1, 2]).reason_fr == (
        "2 solutions sur le bulletin, aucune n'est valable. z")
    assert retain_solution([a], [1]) is a
