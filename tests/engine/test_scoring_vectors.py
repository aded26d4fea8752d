"""Published real-game scores (tests/data/scoring_vectors.json, copied from the shared
conformance data): every word formed and every total must come out exactly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scoring import Board, GameConfig, Placement, formed_words, parse_ref
from scoring.tiles import tileset

VECTORS: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent.parent / "data" / "scoring_vectors.json").read_text("utf-8")
)


def test_vector_count() -> None:
    assert len(VECTORS) == 29


@pytest.mark.parametrize("vec", VECTORS, ids=[v["id"] for v in VECTORS])
def test_published_score(vec: dict[str, Any]) -> None:
    config = GameConfig(tileset=tileset(vec["tileset"]))
    board = Board.from_cgp(vec["board_before"])
    ref = parse_ref(vec["ref"])
    placement = Placement.from_notation(board, ref, vec["word"])
    breakdown = formed_words(board, placement, config, ref.horizontal)
    assert breakdown.total == vec["expected_score"]
    assert breakdown.bonus == vec["bonus"]
    assert [[w.text, w.points] for w in breakdown.words] == vec["computed_words"]
    # The placement reads back to the published reference and word.
    back_ref, back_word = placement.notation(board, ref.horizontal)
    assert (back_ref, back_word) == (ref, vec["word"])


def test_feuille_e5_cumul() -> None:
    """FRSc e-mail composition example: FICHERA 82 then WUS 84, cumul 166."""
    config = GameConfig()
    board = Board()
    total = 0
    for ref, word, expected in (("h8", "FICHERA", 82), ("15f", "WUS", 84)):
        p = Placement.from_notation(board, ref, word)
        score = formed_words(board, p, config).total
        assert score == expected
        total += score
        p.apply(board)
    assert total == 166


def test_cube_27x() -> None:
    """MAGHIARIZATULUI down column 15: 54 x 27 + 50 = 1508 for the word (E14)."""
    vec = next(v for v in VECTORS if v["id"] == "ro-e14-14")
    config = GameConfig(tileset=tileset("ro"))
    board = Board.from_cgp(vec["board_before"])
    p = Placement.from_notation(board, vec["ref"], vec["word"])
    words = formed_words(board, p, config)
    assert words.words[0].points + words.bonus == 54 * 27 + 50 == 1508
    assert words.total == 1559
