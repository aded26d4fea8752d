"""The interactive board's scoring (webapp/static/js/scoring.js) against the Python engine,
in Chromium, on the same moves:

- the 29 published scores of ``tests/data/scoring_vectors.json`` (FISF records, FRSc
  examples, the Romanian 27× move) — JS, Python and the published figure must agree;
- the top moves of the 120 public move-generation positions (independent engine);
- every legal placement the engine generates on a dozen public positions (jokers, one-tile
  moves, cross-words, premium squares), a few thousand moves.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scoring.board import Board
from scoring.config import GameConfig
from scoring.layout import STANDARD_LAYOUT
from scoring.move import Placement
from scoring.notation import format_ref
from scoring.score import formed_words
from scoring.tiles import tileset

pytestmark = [pytest.mark.browser]

DATA = Path(__file__).resolve().parents[1] / "data"


def js_config(lang: str) -> dict[str, Any]:
    return {
        "layout": {"letter_mult": list(STANDARD_LAYOUT.letter_mult),
                   "word_mult": list(STANDARD_LAYOUT.word_mult)},
        "values": dict(tileset(lang).points),
        "bingo_tiles": 7,
        "bingo_bonus": 50,
    }


def python_score(cgp: str, ref: str, word: str, lang: str) -> int:
    board = Board.from_cgp(cgp)
    config = GameConfig(tileset=tileset(lang))
    return formed_words(board, Placement.from_notation(board, ref, word), config).total


def js_scores(page: Any, cases: list[dict[str, str]]) -> list[Any]:
    return page.evaluate(
        """([cases, configs]) => cases.map(c => {
            try {
              const cells = ArbitreScoring.cellsFromCgp(c.cgp);
              return ArbitreScoring.scoreMove(cells, c.ref, c.word, configs[c.lang]).total;
            } catch (e) { return 'error: ' + e.message; }
        })""",
        [cases, {"fr": js_config("fr"), "ro": js_config("ro")}],
    )


@pytest.fixture
def scoring_page(page: Any, live_server: Any) -> Any:
    page.goto(live_server.url + "/")
    page.add_script_tag(url=live_server.url + "/static/js/scoring.js")
    return page


def test_published_scores(scoring_page: Any) -> None:
    vectors = json.loads((DATA / "scoring_vectors.json").read_text("utf-8"))
    cases = [{"cgp": v["board_before"], "ref": v["ref"], "word": v["word"],
              "lang": v["tileset"]} for v in vectors]
    got = js_scores(scoring_page, cases)
    expected = [v["expected_score"] for v in vectors]
    python = [python_score(c["cgp"], c["ref"], c["word"], c["lang"]) for c in cases]
    assert len(cases) == 29
    assert python == expected
    assert got == expected
    # the pinned figures of RULES §12, by name
    by_id = dict(zip([v["id"] for v in vectors], got, strict=True))
    assert (by_id["fr-e5-01"], by_id["fr-e5-02"]) == (82, 84)
    assert by_id["ro-e14-14"] == 1559


def test_public_top_moves(scoring_page: Any) -> None:
    cases, expected = [], []
    for line in (DATA / "movegen_public.jsonl").read_text("utf-8").splitlines():
        pos = json.loads(line)
        for ref, word, score in pos["top_moves"]:
            cases.append({"cgp": pos["board"], "ref": ref, "word": word, "lang": "fr"})
            expected.append(score)
    got = js_scores(scoring_page, cases)
    assert len(cases) >= 120
    assert got == expected


def test_every_generated_placement(scoring_page: Any) -> None:
    from scoring.movegen import generate

    config = GameConfig.default("fr")
    positions = [json.loads(x) for x in
                 (DATA / "movegen_public.jsonl").read_text("utf-8").splitlines()][:12]
    cases, python = [], []
    for pos in positions:
        board = Board.from_cgp(pos["board"])
        for m in generate(board, pos["rack"], config):
            cases.append({"cgp": pos["board"], "ref": format_ref(m.ref), "word": m.word,
                          "lang": "fr"})
            python.append(m.score)
    got = js_scores(scoring_page, cases)
    assert len(cases) == sum(p["placements"] for p in positions)
    mismatches = [(c, g, p) for c, g, p in zip(cases, got, python, strict=True) if g != p]
    assert mismatches == []
