"""Raccord letters copied where they stand on the grid (issue 20 §3, S1 4.3.1) and the mark of
a word written downwards (§4, S1 5.3.1 a): the notation ``LETTER@dx,dy`` and ``(vertical)``,
parse → text → parse, and the correction locating the word by the letters' places.

S1 4.3.1: « Une lettre de raccord est une lettre déjà placée sur la grille, reportée sur le
bulletin de jeu et qui doit : soit faire partie du mot joué ; soit être adjacente par un de
ses côtés à une des lettres du mot formé ; soit être adjacente par un de ses côtés à une
lettre elle-même lettre de raccord. Trois lettres de raccord au minimum doivent figurer sur
le bulletin de jeu. »

Grids: E17 of tests/puzzles/test_duplicate_correct.py (C(H)ACUNE at H4, MOLLIES at G8, the
draw RIERAIS: CRIERAIS at 4H 72, at 7H 62); and a small grid for KRUMPS, the issue's
example (its R and M on row H, an O below the R).
"""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puzzles.duplicate import (
    VERTICAL_MARK,
    Bulletin,
    GameState,
    RaccordLetter,
    correct,
    parse_bulletin,
    placed_runs,
)
from puzzles.duplicate_cli import main as cli_main
from scoring.config import GameConfig
from scoring.lexicon import Lexicon
from scoring.notation import Ref, format_ref
from tests.puzzles.test_duplicate_correct import E17, judge, summary


@pytest.fixture(scope="module")
def cfg(french: Lexicon) -> GameConfig:
    return GameConfig.default("fr", french)


# --- the notation -----------------------------------------------------------------------
def test_placed_raccord_letters_are_read() -> None:
    """KRUMPS with its R one square right of the K, its M three squares right, and the O
    under the R: « R@+1,0 M@+3,0 O@+1,+1 »; the sign of a positive offset and the spaces a
    mail puts around « @ » and the comma are optional."""
    want = Bulletin(
        "", "KRUMPS", claimed=56,
        raccord_at=(RaccordLetter("R", 1, 0), RaccordLetter("M", 3, 0), RaccordLetter("O", 1, 1)),
    )
    assert parse_bulletin("R@+1,0 M@+3,0 O@+1,+1 KRUMPS 56") == want
    assert parse_bulletin("KRUMPS r@1,0 M @ 3 , 0 O@1;1 56") == want
    assert want.to_text() == "R@+1,0 M@+3,0 O@+1,+1 KRUMPS 56"
    # letters left of or above the word's first letter: negative offsets
    b = parse_bulletin("4H A@-1,0 C@0,0 M@+1,-1 CRIERAIS 62")
    assert isinstance(b, Bulletin)
    assert (b.ref, b.raccord, b.raccord_at) == (
        "4H", None,
        (RaccordLetter("A", -1, 0), RaccordLetter("C", 0, 0), RaccordLetter("M", 1, -1)),
    )
    assert b.to_text() == "4H A@-1,0 C@0,0 M@+1,-1 CRIERAIS 62"


def test_the_straight_run_form_is_unchanged() -> None:
    assert parse_bulletin("MEN PROMENERAI 72") == Bulletin("", "PROMENERAI", None, "MEN", 72)
    assert parse_bulletin("H4 MEN PROMENERAI 72") == Bulletin(
        "", "PROMENERAI", "H4", "MEN", 72)


def test_the_vertical_mark() -> None:
    """S1 5.3.1 a: the score must match « un emplacement valable du mot joué, et ce dans le
    même sens que celui où il est écrit sur le bulletin »: « (vertical) » (or « ↓ ») says the
    word is written downwards; without it a one-line bulletin is horizontal."""
    want = Bulletin("", "PROMENERAI", None, None, 72, vertical=True)
    assert parse_bulletin("(vertical) PROMENERAI 72") == want
    assert parse_bulletin("PROMENERAI (VERTICAL) 72") == want
    assert parse_bulletin("↓ PROMENERAI 72") == want
    assert want.to_text() == f"{VERTICAL_MARK} PROMENERAI 72" == "(vertical) PROMENERAI 72"
    assert parse_bulletin("PROMENERAI 72") == Bulletin("", "PROMENERAI", None, None, 72)
    # VERTICAL is a word like another
    assert parse_bulletin("H4 VERTICAL 20") == Bulletin("", "VERTICAL", "H4", None, 20)
    b = parse_bulletin("(vertical) C@0,0 U@+1,0 M@+1,-1 CRIERAIS 62")
    assert isinstance(b, Bulletin) and b.vertical and len(b.raccord_at) == 3


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("R@+1 KRUMPS 56",
         "« R@+1 » : une lettre de raccord à sa place s'écrit LETTRE@colonnes,lignes comptées "
         "depuis la première lettre du mot (ex. « O@+1,+1 » : une case à droite, une case plus "
         "bas)."),
        ("?@1,0 M@3,0 KRUMPS 56", "« ?@1,0 » : une lettre de raccord à sa place s'écrit"),
        ("R@+15,0 M@3,0 KRUMPS 56", "« R@+15,0 » : la lettre de raccord tombe hors de la grille."),
        ("R@1,0 M@1,0 KRUMPS 56",
         "« M@1,0 » : la case +1,0 porte déjà la lettre de raccord R."),
        ("RU M@3,0 O@1,1 KRUMPS 56",
         "Raccord écrit de deux façons (RU et M@+3,0) : écrivez soit les lettres suivies avant "
         "le mot, soit chaque lettre à sa place."),
        ("R@+1,0 KRUMPS 56", "Raccord « R@+1,0 » : trois lettres de raccord au minimum."),
        ("S@0,0 R@1,0 KRUMPS 56",
         "« S@0,0 » : la case 0,0 est celle de la première lettre du mot (K), pas S."),
    ],
)
def test_placed_raccord_errors_are_french(text: str, error: str) -> None:
    errors = parse_bulletin(text)
    assert isinstance(errors, list)
    assert errors[0].startswith(error), errors


_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@st.composite
def bulletins(draw: st.DrawFn, claimed: int | None = None) -> Bulletin:
    word = draw(st.text(alphabet=_LETTERS + "ez", min_size=2, max_size=15))
    ref = draw(st.none() | st.builds(
        lambda r, c, h: format_ref(Ref(r, c, h)),
        st.integers(0, 14), st.integers(0, 14), st.booleans()))
    form = draw(st.sampled_from(["none", "run", "placed"]))
    raccord = draw(st.text(alphabet=_LETTERS, min_size=2, max_size=7)) if form == "run" else None
    placed: tuple[RaccordLetter, ...] = ()
    if form == "placed":
        squares = draw(st.lists(
            st.tuples(st.integers(-14, 14), st.integers(-14, 14)), min_size=2, max_size=6,
            unique=True))
        placed = tuple(
            RaccordLetter(word[0].upper() if (dx, dy) == (0, 0) else draw(
                st.sampled_from(_LETTERS)), dx, dy)
            for dx, dy in squares)
    score = draw(st.none() | st.integers(0, 999)) if claimed is None else claimed
    return Bulletin("", word, ref, raccord, score, raccord_at=placed,
                    vertical=draw(st.booleans()))


@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_parse_text_parse_round_trips(data: st.DataObject) -> None:
    """parse → text → parse: every bulletin the notation can say reads back the same, with
    the straight run, the placed letters, the vertical mark and several solutions (one score
    written for all of them)."""
    first = data.draw(bulletins())
    alternatives = tuple(data.draw(st.lists(bulletins(first.claimed or 0), max_size=2)))
    b = replace(first, alternatives=tuple(replace(a, claimed=first.claimed)
                                          for a in alternatives))
    text = b.to_text()
    parsed = parse_bulletin(text)
    assert parsed == b, text
    assert isinstance(parsed, Bulletin) and parsed.to_text() == text


# --- the correction ---------------------------------------------------------------------
def test_placed_letters_locate_the_word(cfg: GameConfig) -> None:
    """CRIERAIS at 7H puts its C on H7's C; the U of H8 touches it, the M of G8 touches the U
    (« adjacente … à une lettre elle-même lettre de raccord »): C@0,0 U@+1,0 M@+1,-1 is three
    raccord letters that are no straight run, and only 7H has them there (at 4H the square
    right of the C is the joker h). 7H: C 3 + R 1 ×2 (I7 DL) + I E R + A 1 ×2 (M7 DL) + I S
    = 12, + 50 = 62."""
    assert summary(judge(cfg, "C@0,0 U@+1,0 M@+1,-1 CRIERAIS 62")) == (
        62, "valide", 0, "7H", "CRIERAIS")
    # the same letters as a straight run are no run on the grid: nothing locates; written
    # downwards, 62 matches 7H: 62 − 5; on one line, no horizontal place scores 62: zero
    # (S1 5.3.1 a « dans le même sens que celui où il est écrit sur le bulletin »)
    assert summary(judge(cfg, "(vertical) CUM CRIERAIS 62")) == (
        57, "penalite5", 0, "7H", "CRIERAIS")
    assert summary(judge(cfg, "CUM CRIERAIS 62"))[:2] == (0, "nul")
    # A C U N E on row H, the U touching the word, the N the U, the E the N
    assert summary(judge(cfg, "A@-1,0 C@0,0 U@+1,0 N@+2,0 E@+3,0 CRIERAIS 62")) == (
        62, "valide", 0, "7H", "CRIERAIS")


def test_a_letter_touching_no_raccord_letter_is_no_raccord(cfg: GameConfig) -> None:
    """The E of H10 is at +3,0 of H7, but touches neither CRIERAIS (column 7) nor a written
    raccord letter (the N between is not written): the raccord is wrong, nothing locates the
    word, and the claimed 62 matches 7H, in the direction written: 62 − 5 = 57 (S1 5.3.1)."""
    v = judge(cfg, "(vertical) C@0,0 U@+1,0 E@+3,0 CRIERAIS 62")
    assert summary(v) == (57, "penalite5", 0, "7H", "CRIERAIS")
    assert "référence erronée" in v.reason_fr
    # a letter that is not where the bulletin says: the same
    assert summary(judge(cfg, "(vertical) C@0,0 U@+1,0 M@+1,+1 CRIERAIS 62"))[:2] == (
        57, "penalite5")


def test_two_placed_letters_are_a_warning(cfg: GameConfig) -> None:
    """S1 5.2: « raccord de deux lettres au lieu de trois »."""
    v = judge(cfg, "C@0,0 U@+1,0 CRIERAIS 62")
    assert summary(v) == (62, "avertissement", 1, "7H", "CRIERAIS")
    assert v.reason_fr == (
        "Avertissement : raccord de deux lettres (C@0,0 U@+1,0) au lieu de trois.")


def test_placed_letters_at_several_places_the_score_decides_else_the_minimum(
    cfg: GameConfig,
) -> None:
    """S1 4.3.3: « Si le score indiqué ne correspond à aucune place correcte bien déterminée,
    le score minimum est appliqué ». With the draw RIERAIS, AE fits F13 and 13F, and the I E S
    of G12–G14 stand at -1,+1 0,+1 +1,+1 of F13 for both. F13: A 1 + E 1 ×3 (F14 TL) = 4,
    with AE down column 13 (A 1 + E 1 = 2) and ES down column 14 (E 1 ×3 + S 1 = 4): 10.
    13F: A 1 on F13 above MOLLIES's E = 2."""
    assert summary(judge(cfg, "I@-1,+1 E@0,+1 S@+1,+1 AE 10")) == (10, "valide", 0, "F13", "AE")
    assert summary(judge(cfg, "I@-1,+1 E@0,+1 S@+1,+1 AE 2")) == (2, "valide", 0, "13F", "AE")
    v = judge(cfg, "I@-1,+1 E@0,+1 S@+1,+1 AE 7")
    assert summary(v) == (2, "avertissement", 1, "13F", "AE")
    assert "score minimum 2 attribué" in v.reason_fr


def test_an_altered_placed_letter_is_a_warning(cfg: GameConfig) -> None:
    """S1 5.2: « le raccord correct doit cependant être composé de trois lettres consécutives
    ou plus »: A C U N X on row H — the grid has E at H10 — still holds A C U N in a row,
    which locates 7H (62) alone: a warning, 62. With two right letters in a row (C U) and the
    rest altered nothing locates the word: written downwards, 62 − 5 (S1 5.3.1 a)."""
    v = judge(cfg, "A@-1,0 C@0,0 U@+1,0 N@+2,0 X@+3,0 CRIERAIS 62")
    assert summary(v) == (62, "avertissement", 1, "7H", "CRIERAIS")
    assert "lettre de raccord altérée (A@-1,0 C@0,0 U@+1,0 N@+2,0 X@+3,0)" in v.reason_fr
    assert summary(judge(cfg, "(vertical) C@0,0 U@+1,0 X@+2,0 Y@+3,0 CRIERAIS 62"))[:2] == (
        57, "penalite5")


def test_placed_runs() -> None:
    r = [RaccordLetter(ch, dx, 0) for ch, dx in zip("ACUNX", range(-1, 4), strict=True)]
    runs = {"".join(x.letter for x in run) for run in placed_runs(r)}
    assert runs == {"ACU", "ACUN", "CUN", "CUNX", "UNX"}
    # a corner is no run
    assert placed_runs([RaccordLetter("C", 0, 0), RaccordLetter("U", 1, 0),
                        RaccordLetter("M", 1, -1)]) == []


def test_both_modes_with_placed_letters(cfg: GameConfig) -> None:
    """S1 4.4: « si seul un mode de référence est incorrect, il reçoit un avertissement »."""
    assert summary(judge(cfg, "7H C@0,0 U@+1,0 M@+1,-1 CRIERAIS 62")) == (
        62, "valide", 0, "7H", "CRIERAIS")
    v = judge(cfg, "7H C@0,0 U@+1,0 M@+1,+1 CRIERAIS 62")  # M misplaced, reference right
    assert summary(v) == (62, "avertissement", 1, "7H", "CRIERAIS")
    assert "raccord C@0,0 U@+1,0 M@+1,+1 incorrect (la référence 7H est juste)" in v.reason_fr
    v = judge(cfg, "9H C@0,0 U@+1,0 M@+1,-1 CRIERAIS 62")  # reference wrong, raccord right
    assert summary(v) == (62, "avertissement", 1, "7H", "CRIERAIS")
    assert "référence 9H erronée (le raccord C@0,0 U@+1,0 M@+1,-1 est juste)" in v.reason_fr
    # docs/DUPLICATE.md's example: at 4H the square right of the C is the joker h of C(H)ACUNE,
    # a grid letter written uppercase (lowercase reads the same)
    assert summary(judge(cfg, "4H C@0,0 H@+1,0 A@+2,0 CRIERAIS 72")) == (
        72, "valide", 0, "4H", "CRIERAIS")
    assert summary(judge(cfg, "C@0,0 h@+1,0 A@+2,0 CRIERAIS 72")) == (
        72, "valide", 0, "4H", "CRIERAIS")


KRUMPS_GRID = "15/15/15/15/15/15/6A8/4R1M8/4O1I8/4I10/15/15/15/15/15"


def test_krumps_from_the_issue() -> None:
    """ROI down column 5 from H5, AMI down column 7 from G7; the draw KUPSEEE. KRUMPS at H4
    takes the R of H5 and the M of H7; the O of I5 is under the R. The straight-run form can
    only quote RO (two letters: a warning); the placed letters quote three. KRUMPS at H4:
    (K 10 ×2 (H4 DL) + R 1 + U 1 + M 2 + P 3 + S 1) ×2 (the P on H8) = 56."""
    words = Lexicon.from_words(["ROI", "AMI", "KRUMPS"], "krumps")
    small = GameConfig.default("fr", words)
    assert summary(judge(small, "R@+1,0 M@+3,0 O@+1,+1 KRUMPS 56", "KUPSEEE",
                         grid=KRUMPS_GRID)) == (56, "valide", 0, "H4", "KRUMPS")
    assert summary(judge(small, "RO KRUMPS 56", "KUPSEEE", grid=KRUMPS_GRID)) == (
        56, "avertissement", 1, "H4", "KRUMPS")


def test_a_hand_built_bulletin_is_normalised(cfg: GameConfig) -> None:
    """The server rebuilds a Bulletin from its stored form: lowercase raccord letters are the
    grid's letters (a joker on the grid is written uppercase)."""
    b = Bulletin("p", "CRIERAIS", None, None, 62, raccord_at=(
        RaccordLetter("c", 0, 0), RaccordLetter("u", 1, 0), RaccordLetter("m", 1, -1)))
    v = correct(GameState(E17, ()), "RIERAIS", b, cfg, round_no=3, top_score=72)
    assert summary(v) == (62, "valide", 0, "7H", "CRIERAIS")


# --- arbitre duplicate replay -------------------------------------------------------------
def test_replay_reads_placed_letters_and_the_vertical_mark(tmp_path: Path) -> None:
    """The E17 record replayed from its draws (RULES §12: C(H)ACUNE at H4 76, MOLLIES at G8
    68, then the draw RIERAIS): round 3's BULLETINS lines with raccord letters at their
    places, the mark ↓ and the straight run all read and corrected as above."""
    game = tmp_path / "partie.json"
    game.write_text(json.dumps({"draws": ["C?ACUNE", "MOLLIES", "RIERAIS"]}), encoding="utf-8")
    bulletins = tmp_path / "bulletins.txt"
    bulletins.write_text(
        "3 ana : C@0,0 U@+1,0 M@+1,-1 CRIERAIS 62  # the O-under-the-R kind: no straight run\n"
        "3 bob : ↓ A@-1,0 C@0,0 U @ +1 , 0 CRIERAIS 62\n"
        "3 cid : CHA CRIERAIS 72\n"
        "3 dan : ↓ C@0,0 U@+1,0 E@+3,0 CRIERAIS 62\n",  # downwards: 62 − 5 at 7H
        encoding="utf-8")
    out = io.StringIO()
    assert cli_main(["replay", str(game), str(bulletins)], out) == 0
    text = out.getvalue()
    assert "  ana : 62 [valide] 7H CRIERAIS — Valide." in text
    assert "  bob : 62 [valide] 7H CRIERAIS — Valide." in text
    assert "  cid : 72 [valide] 4H CRIERAIS — Valide." in text
    assert "  dan : 57 [penalite5] 7H CRIERAIS — Pénalité de 5 points" in text


def test_the_variants_read_placed_letters() -> None:
    """The Tactique billet separates its two words with « + » — not the sign of an offset —
    and the Complétif family's « +T » is no offset either."""
    from puzzles.variants import parse_free_bulletin, parse_tactique_billet

    placed = (RaccordLetter("C", 0, 0), RaccordLetter("U", 1, 0), RaccordLetter("M", 1, -1))
    billet = parse_tactique_billet("C@0,0 U@+1,0 M@+1,-1 CRIERAIS 62 + 8C MOTS 25 = 87")
    assert not isinstance(billet, list)
    assert (billet.first.raccord_at, billet.first.word, billet.first.claimed) == (
        placed, "CRIERAIS", 62)
    assert billet.second is not None and (billet.second.ref, billet.second.word) == (
        "8C", "MOTS")
    assert billet.total == 87
    free = parse_free_bulletin("C @ 0,0 U@ +1 , 0 M@+1,-1 CRIERAIS 62 +T")
    assert not isinstance(free, list)
    assert (free.bulletin.raccord_at, free.chosen) == (placed, "T")


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet="ACHIMRSUEX@,;+-0129 ()↓vertical/", max_size=40))
def test_any_line_with_the_notation_gives_errors_or_a_verdict(
    french: Lexicon, text: str
) -> None:
    """Bad input gets French errors, never an exception, with the characters of the new
    notation too; a readable bulletin always gets a verdict."""
    cfg = GameConfig.default("fr", french)
    b = parse_bulletin(text, player="p")
    if isinstance(b, list):
        assert b and all(isinstance(e, str) and e for e in b)
        return
    v = correct(GameState(E17, ()), "RIERAIS", b, cfg, round_no=3, top_score=72)
    assert v.kind in ("valide", "avertissement", "penalite5", "nul")
    assert parse_bulletin(b.to_text(), player="p") == b  # and it reads back the same
