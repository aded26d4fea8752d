"""Duplicate bulletins as the FISF text writes them (issue 20): one order for equal tops
(§7). The seed (S1) and RULES leave the arbitre's last choice among equal tops open;
docs/DUPLICATE.md fixes it, and these positions pin it."""

from __future__ import annotations

import pytest

from puzzles.duplicate import GameState, find_top
from scoring.board import Board
from scoring.config import GameConfig
from scoring.lexicon import Lexicon


@pytest.fixture(scope="module")
def cfg(french: Lexicon) -> GameConfig:
    return GameConfig.default("fr", french)


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
