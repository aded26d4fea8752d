"""Duplicate bulletins as the FISF text writes them (issue 20 §1, §2, §4, §5, §7): a word
written only as its extension, a reference that lays the word across a non-word, the
direction the word is written in, the first word of two letters, a penalty never below 0,
the §5.3.2 ambiguity setting and one order for equal tops. Each test quotes the seed
(S1 = /work/shared/seeds/000_…, « Règlement du Scrabble® Duplicate de compétition »,
janvier 2016) and pins the verdict and the credited score, computed by hand from the grid
and the letter values (E 1, X 10, O 1, G 2, A 1, M 2, S 1, P 3, R 1, N 1, I 1, D 2, U 1, Y 10;
a joker 0).

Grids (rows A–O top to bottom, columns 1–15; the premiums of row H: H1 and H15 TW, H4 and
H12 DL, H8 DW; of row G: G3, G7, G9, G13 DL; of row F: F2, F6, F10, F14 TL):

- EXOGAME at H2 (H2–H8), the game's first word: EXOGAMES (S on H9, no premium) scores
  1 + 10 + 1 + 2 + 1 + 2 + 1 + 1 = 19; with the joker as the S, 18.
- MENERAI at H4 (H4–H10): PROMENERAI at H1 (P on the TW H1) scores
  (3 + 1 + 1 + 2 + 1 + 1 + 1 + 1 + 1 + 1) × 3 = 39 (the E15 example « PRO + MENERAI »).
- E17 after two moves (RULES §12): C(H)ACUNE at H4, MOLLIES at G8 (as
  tests/puzzles/test_duplicate_correct.py); CRIERAIS scores 72 at 4H, 62 at 7H.
"""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest

from puzzles.duplicate import (
    Bulletin,
    Draw,
    DuplicateError,
    DuplicateSettings,
    GameState,
    Verdict,
    apply_top,
    correct,
    find_top,
    parse_bulletin,
    parse_bulletins_file,
    prepare_round,
    replay,
)
from puzzles.duplicate_cli import main as cli_main
from scoring.board import Board
from scoring.config import GameConfig
from scoring.lexicon import Lexicon

EXOGAME = "15/15/15/15/15/15/15/1EXOGAME7/15/15/15/15/15/15/15"
MENERAI = "15/15/15/15/15/15/15/3MENERAI5/15/15/15/15/15/15/15"
E17 = "15/15/15/15/15/15/7MOLLIES1/3ChACUNE5/15/15/15/15/15/15/15"


@pytest.fixture(scope="module")
def cfg(french: Lexicon) -> GameConfig:
    return GameConfig.default("fr", french)


def judge(cfg: GameConfig, text: str, rack: str, grid: str, *, first_word: str,
          vertical: bool = False, settings: DuplicateSettings | None = None,
          round_no: int = 2) -> Verdict:
    """The verdict of the bulletin line ``text`` on ``grid`` (``vertical``: the word written
    downwards; ``first_word``: the game's first top as the state keeps it)."""
    b = parse_bulletin(text, player="p")
    assert isinstance(b, Bulletin), b
    state = GameState(grid, (), first_word=first_word)
    ctx = prepare_round(state, rack, cfg, round_no=round_no, top_score=100, settings=settings)
    return correct(state, rack, replace(b, vertical=vertical), cfg, round_no=round_no,
                   top_score=100, context=ctx)


def summary(v: Verdict) -> tuple[int, str, int, str | None, str | None]:
    return (v.score, v.kind, v.warnings, v.ref, v.word)


def exo(cfg: GameConfig, text: str, rack: str = "SDEILNU") -> Verdict:
    return judge(cfg, text, rack, EXOGAME, first_word="EXOGAME")


def e17(cfg: GameConfig, text: str, *, vertical: bool = False,
        settings: DuplicateSettings | None = None) -> Verdict:
    return judge(cfg, text, "RIERAIS", E17, first_word="ChACUNE", round_no=3,
                 vertical=vertical, settings=settings)


# --- §1 incomplete words: the extension written alone (S1 4.3.2, 4.2.2) ----------------------
def test_the_extension_written_alone_is_the_whole_word(cfg: GameConfig) -> None:
    """S1 4.3.2: « Les deux seuls cas où le mot joué peut ne pas être écrit en entier sont :
    … (les) prolongation(s) doit (doivent) être écrite(s), la lettre du mot joué attenante à
    la prolongation ou à chaque prolongation doit être écrite » — « AME S »: raccord AME
    (H6–H8, the E next to the S), the extension S; EXOGAMES at H2, 19, valid. The reference
    H2 is right, a wrong one (H5) does not count (S1 4.2.2 « il n'est donc pas tenu compte,
    dans ce cas, de l'indication alphanumérique »)."""
    expected = (19, "valide", 0, "H2", "EXOGAMES")
    for text in ("AME S 19", "H2 AME S 19", "H5 AME S 19", "GAME S 19"):
        assert summary(exo(cfg, text)) == expected, text
    # a wrong score: the correct one with a warning (S1 5.2)
    v = exo(cfg, "AME S 18")
    assert summary(v) == (19, "avertissement", 1, "H2", "EXOGAMES")
    assert v.reason_fr == "Avertissement : score 18 faux, score exact 19."


def test_the_extension_with_a_joker(cfg: GameConfig) -> None:
    """S1 4.3.2 with the joker as the S (« AME s »): EXOGAMEs, 19 − 1 = 18. With S and a
    joker on the rack, the uncircled S is the tile (19) and the circled one the joker (18);
    without an S on the rack, an uncircled S is the joker badly marked (S1 5.2: warning)."""
    assert summary(exo(cfg, "AME s 18", "S?DEILN")) == (18, "valide", 0, "H2", "EXOGAMEs")
    assert summary(exo(cfg, "AME S 19", "S?DEILN")) == (19, "valide", 0, "H2", "EXOGAMES")
    v = exo(cfg, "AME S 18", "?DEILNU")
    assert summary(v) == (18, "avertissement", 1, "H2", "EXOGAMEs")
    assert v.reason_fr == "Avertissement : joker mal entouré ou non entouré."


def test_a_prefix_extension(cfg: GameConfig) -> None:
    """S1 4.3.2, E15's example « PRO + MENERAI → raccord MEN »: « MEN PRO 39 » is
    PROMENERAI at H1, (3 + 1 + 1 + 2 + 1 + 1 + 1 + 1 + 1 + 1) × 3 = 39. « MENERAI PRO 39 »
    reads both as PRO across the R of MENERAI (8G, 5 points) and as the extension: the
    score decides (S1 4.3.3 « le score indiqué »)."""
    for text in ("MEN PRO 39", "H1 MEN PRO 39", "H7 MEN PRO 39", "MENERAI PRO 39",
                 "MEN PROMENERAI 39"):
        v = judge(cfg, text, "PROSTUV", MENERAI, first_word="MENERAI")
        assert summary(v) == (39, "valide", 0, "H1", "PROMENERAI"), text


def test_the_extension_needs_the_letter_next_to_it(cfg: GameConfig) -> None:
    """S1 4.3.2 « la lettre du mot joué attenante à la prolongation … doit être écrite »:
    EXO (H2–H4) is not next to the S on H9, so « EXO S » is the word S, which is not
    admitted: zero (S1 5.4)."""
    v = exo(cfg, "EXO S 19")
    assert summary(v) == (0, "nul", 0, None, None)
    assert v.reason_fr == "Nul : le mot S n'est pas admis."


def test_the_extension_with_a_two_letter_raccord_is_a_warning(cfg: GameConfig) -> None:
    """S1 5.2 « À partir du deuxième coup (sauf si le mot joué au premier coup ne comporte
    que deux lettres), raccord de deux lettres au lieu de trois »: EXOGAME had seven."""
    v = exo(cfg, "ME S 19")
    assert summary(v) == (19, "avertissement", 1, "H2", "EXOGAMES")
    assert v.reason_fr == "Avertissement : raccord de deux lettres (ME) au lieu de trois."


def test_whole_word_with_a_wrong_reference_follows_the_raccord(cfg: GameConfig) -> None:
    """S1 4.2.2: when the word extends a grid word, « il n'est donc pas tenu compte, dans ce
    cas, de l'indication alphanumérique » — « H5 AME EXOGAMES 19 » (H5 is the O) is
    EXOGAMES at H2, valid, no warning; « H9 AME EXOGAMES » neither (laid at H9 it would
    read EXOGAMEEXOGAMES: the reference does not count at all)."""
    for text in ("H5 AME EXOGAMES 19", "H9 AME EXOGAMES 19", "AME EXOGAMES 19"):
        assert summary(exo(cfg, text)) == (19, "valide", 0, "H2", "EXOGAMES"), text
    # a word through a single grid letter extends no word: the wrong reference is a warning
    # (S1 4.4 « si seul un mode de référence est incorrect, il reçoit un avertissement »)
    v = e17(cfg, "4G CHA CRIERAIS 72")
    assert summary(v) == (72, "avertissement", 1, "4H", "CRIERAIS")


# --- §2 a reference that lays the word across a non-word (S1 4.4, 5.4) ----------------------
def test_a_reference_across_a_non_word_is_a_zero(cfg: GameConfig) -> None:
    """S1 4.4: « … le mot joué ajoute une lettre du tirage à un mot déjà placé pour former
    un mot non admis, il reçoit un zéro. » ES at G4 (E over the C of H4, S over its h)
    forms EC; the claimed 5 is ES at G5 (E over h: 1 + 0; S over A: 1 + 1; ES 2 → 5), but
    the written reference decides: zero, with or without a raccord — never 5 − 5. At G6 the
    word forms ESMOLLIES: zero too."""
    for text, bad in (("G4 ES 5", "EC"), ("G4 MOL ES 5", "EC"), ("G6 ES 9", "ESMOLLIES")):
        v = e17(cfg, text)
        assert summary(v) == (0, "nul", 0, None, None), text
        assert v.reason_fr == f"Nul : en {text.split()[0]}, le mot forme le mot non admis {bad}."
    assert summary(e17(cfg, "G5 ES 5")) == (5, "valide", 0, "G5", "ES")
    # S1 5.4 reached through the reference alone (no raccord): 3H lays CRIERAIS with its C
    # next to the C of H4, CCHACUNE — zero, where the score 62 (7H) gave 62 − 5 before
    v = e17(cfg, "3H CRIERAIS 62")
    assert (v.score, v.kind) == (0, "nul") and "CCHACUNE" in v.reason_fr


def test_a_wrong_reference_that_lays_nothing_falls_back_with_minus_5(cfg: GameConfig) -> None:
    """S1 5.3.1: « tout bulletin de jeu pour lequel le référencement est erroné, illisible
    ou absent, à condition que le mot joué soit écrit en entier et que le score corresponde
    à un emplacement valable » — on E17, ES cannot be laid at A1 (it touches nothing): that
    reference is wrong, and the claimed 9 is ES at F8 (E over the M of G8 and the U of H8:
    EMU 1 + 2 + 1 = 4; S: SON 3; ES 2; 9) → 9 − 5 = 4. On the EXOGAME grid, DE at H9
    can be laid but makes EXOGAMEDE: zero (S1 4.4), although DE scores 7 at G8 (D over the
    E of H8: 2 + 1 = 3; DE with the E on the DL G9: 2 + 1 × 2 = 4)."""
    v = exo(cfg, "H9 DE 7")
    assert (v.score, v.kind, v.reason_fr) == (
        0, "nul", "Nul : en H9, le mot forme le mot non admis EXOGAMEDE.")
    v = e17(cfg, "A1 ES 9")
    assert summary(v) == (4, "penalite5", 0, "F8", "ES")


# --- §4 the direction written, the first word, the floor at 0 ---------------------------------
def test_without_reference_the_direction_written_restricts_the_places(cfg: GameConfig) -> None:
    """S1 5.3.1: the score must match « un emplacement valable du mot joué, et ce dans le
    même sens que celui où il est écrit sur le bulletin ». ES scores 9 at F8 (horizontal)
    and 4 at 14F (vertical: E on the TL F14, 3, + the S of MOLLIES on G14, 1). « ES 9 » on
    one line: 9 − 5 = 4; « ES 4 » on one line: no horizontal place scores 4, zero; written
    downwards: 14F, 4 − 5 floored at 0."""
    assert summary(e17(cfg, "ES 9")) == (4, "penalite5", 0, "F8", "ES")
    v = e17(cfg, "ES 4")
    assert summary(v) == (0, "nul", 0, None, None)
    assert "aucun emplacement du mot écrit horizontalement" in v.reason_fr
    assert summary(e17(cfg, "ES 9", vertical=True))[:2] == (0, "nul")
    v = e17(cfg, "ES 4", vertical=True)
    assert summary(v) == (0, "penalite5", 0, "14F", "ES")


def test_a_penalty_never_credits_a_negative_score(cfg: GameConfig) -> None:
    """S1 5.3 « pénalité de 5 points » on a claimed 4: 4 − 5 is credited as 0, never −1
    (the wrong reference 1A, vertical, touches nothing; 14F scores 4)."""
    v = e17(cfg, "1A ES 4")
    assert summary(v) == (0, "penalite5", 0, "14F", "ES")
    assert v.reason_fr == ("Pénalité de 5 points : référence erronée, le score 4 correspond à "
                           "un emplacement valable ; 4 − 5 ramené à 0.")


def test_two_letter_raccord_exception_follows_the_first_word(cfg: GameConfig) -> None:
    """S1 5.2: « À partir du deuxième coup (sauf si le mot joué au premier coup ne comporte
    que deux lettres), raccord de deux lettres au lieu de trois ». ZA at H7 was the first
    word, then AS at 8H (the S on I8): three letters on the grid. ZAS at H7 (S on H9):
    10 + 1 + 1 = 12 with the raccord ZA — no fault, the first word had two letters. A state
    stored before it knew its first word cannot tell, with three letters on the grid: the
    warning, as before. On E17 the first word C(H)ACUNE had seven letters: the warning."""
    small = GameConfig.default("fr", Lexicon.from_words(["ZA", "ZAS", "AS"], "zazas"))
    grid = "15/15/15/15/15/15/15/6ZA7/7S7/15/15/15/15/15/15"
    v = judge(small, "ZA ZAS 12", "SEIBCDE", grid, first_word="ZA", round_no=3)
    assert summary(v) == (12, "valide", 0, "H7", "ZAS")
    v = judge(small, "ZA ZAS 12", "SEIBCDE", grid, first_word="", round_no=3)
    assert summary(v) == (12, "avertissement", 1, "H7", "ZAS")
    v = e17(cfg, "CH CRIERAIS 72")
    assert summary(v) == (72, "avertissement", 1, "4H", "CRIERAIS")
    assert v.reason_fr == "Avertissement : raccord de deux lettres (CH) au lieu de trois."


def test_the_state_keeps_the_first_word(cfg: GameConfig) -> None:
    """apply_top keeps the first top's word in the state and its text (« premier: »), and
    the next tops do not replace it; a state text stored without that line reads as before
    (first word unknown)."""
    state = GameState(Board().to_cgp(), tuple("SDEILNU"), "EXOGAME")
    top = find_top(state, "EXOGAME", cfg, round_no=1)
    assert top is not None and (top.ref, top.word, top.score) == ("H3", "EXOGAME", 106)
    after = apply_top(state, Draw("", "EXOGAME", "EXOGAME"), top)
    assert after.first_word == "EXOGAME"
    assert after.to_text().endswith("premier: EXOGAME\n")
    assert GameState.from_text(after.to_text()) == after
    old = after.to_text().replace("premier: EXOGAME\n", "")
    assert GameState.from_text(old) == replace(after, first_word="")
    with pytest.raises(DuplicateError, match="premier mot illisible"):
        GameState.from_text(after.to_text().replace("premier: EXOGAME", "premier: EX0"))
    in_play = replace(after, bag=(), reliquat="SDEILNU")
    second = find_top(in_play, "SDEILNU", cfg, round_no=2)
    assert second is not None
    assert apply_top(in_play, Draw("", "SDEILNU", "SDEILNU"), second).first_word == "EXOGAME"


# --- §5 the ambiguity of S1 5.3.2, a setting ------------------------------------------------
def test_ambiguous_reference_setting(cfg: GameConfig) -> None:
    """S1 5.3.2 « Cas avec ambiguïté … Référence portée sur le bulletin erronée, mais
    correspondant à un placement techniquement possible »: « 7H CRIERAIS 72 » — 7H is a
    legal place (62), the claimed 72 is that of 4H. ``penalty`` (the default, RULES
    §4.7.3): 72 − 5 = 67 at 4H; ``warning``: 62 at 7H with a warning (S1 5.2). A raccord
    that confirms 7H (ACU) leaves no ambiguity: 62, warning."""
    v = e17(cfg, "7H CRIERAIS 72")
    assert summary(v) == (67, "penalite5", 0, "4H", "CRIERAIS")
    assert v.reason_fr == ("Pénalité de 5 points : référence 7H ambiguë (le mot s'y place pour "
                           "62 points), le score 72 correspond à un emplacement valable.")
    warn = replace(DuplicateSettings(), ambiguous_reference="warning")
    v = e17(cfg, "7H CRIERAIS 72", settings=warn)
    assert summary(v) == (62, "avertissement", 1, "7H", "CRIERAIS")
    assert summary(e17(cfg, "7H ACU CRIERAIS 72")) == (62, "avertissement", 1, "7H", "CRIERAIS")
    # a wrong score matching no other place: the score at the reference (S1 5.2)
    assert summary(e17(cfg, "7H CRIERAIS 70")) == (62, "avertissement", 1, "7H", "CRIERAIS")


def test_ambiguous_reference_setting_json() -> None:
    """Stored settings without the key read as the default; a bad value is refused in
    French."""
    assert DuplicateSettings.from_json("{}").ambiguous_reference == "penalty"
    s = DuplicateSettings.from_json({"ambiguous_reference": "warning"})
    assert s.ambiguous_reference == "warning"
    assert json.loads(s.to_json())["ambiguous_reference"] == "warning"
    assert DuplicateSettings.from_json(s.to_json()) == s
    with pytest.raises(DuplicateError, match="Réglage ambiguous_reference : valeur 'zero'"):
        DuplicateSettings.from_json({"ambiguous_reference": "zero"})


# --- §7 one order for equal tops -----------------------------------------------------------
def test_equal_tops_put_the_joker_after_the_same_letter_as_a_tile(cfg: GameConfig) -> None:
    """docs/DUPLICATE.md, the top's last step: « smaller word (alphabetical; a joker after
    the same letter as a tile) » (neither S1 nor RULES fixes it). ?OMMETY on the empty
    grid: MYOTOME at H3 with either O a joker, M 2 + Y 10 × 2 (H4 DL) + O + T + O + M + E,
    one O 0: 27 × 2 (H8) + 50 = 104 both: MYOToME (the tile O first) over MYoTOME.
    ?PAPIER: APPAIRE at H2, A + P + P × 2 (H4) + A + I + R + E with one A 0: 13 × 2 + 50 =
    76 both: APPaIRE over aPPAIRE."""
    empty = GameState(Board().to_cgp(), ())
    for rack, ref, word, other in (("?OMMETY", "H3", "MYOToME", "MYoTOME"),
                                   ("?PAPIER", "H2", "APPaIRE", "aPPAIRE")):
        top = find_top(empty, rack, cfg, round_no=1)
        assert top is not None
        assert (top.ref, top.word, top.score) == (ref, word, 104 if rack == "?OMMETY" else 76)
        assert top.reason_fr.endswith("retenu : le plus petit mot.")
        assert any(m.word == other and m.score == top.score for m in top.ties)


# --- `arbitre duplicate replay` reads every form ----------------------------------------------
def test_replay_reads_the_new_bulletin_forms(cfg: GameConfig, tmp_path: Path) -> None:
    """A BULLETINS file with the extension alone (« H3 AME S 19 »), the whole word with a
    wrong reference and a right raccord (« H9 AME EXOGAMES 19 ») and a reference across a
    non-word (« H10 DE 10 »: EXOGAMEDE). The first top is EXOGAME at H3 (X on the DL H4:
    (1 + 20 + 1 + 2 + 1 + 2 + 1) × 2 + 50 = 106); EXOGAMES puts the S on H10: 19."""
    game = tmp_path / "partie.json"
    game.write_text(json.dumps({"draws": ["EXOGAME", "SDEILNU"]}), encoding="utf-8")
    text = ("1 ann : H3 EXOGAME 106\n"
            "2 ann : H3 AME S 19\n"
            "2 bob : GAME S 19   # the extension, no reference\n"
            "2 cid : H9 AME EXOGAMES 19\n"
            "2 dan : H10 DE 10\n")
    assert parse_bulletins_file(text)[2]["bob"] == "GAME S 19"
    path = tmp_path / "bulletins.txt"
    path.write_text(text, encoding="utf-8")
    out = io.StringIO()
    assert cli_main(["replay", str(game), str(path)], out) == 0
    lines = out.getvalue()
    assert "top : H3 EXOGAME 106" in lines
    for who in ("ann", "bob", "cid"):
        assert f"{who} : 19 [valide] H3 EXOGAMES — Valide." in lines
    assert "dan : 0 [nul] — Nul : en H10, le mot forme le mot non admis EXOGAMEDE." in lines
    result = replay(game.read_text(encoding="utf-8"), parse_bulletins_file(text), config=cfg)
    assert result.rounds[1].verdicts[0].score == 19
