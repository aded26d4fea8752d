"""The stored JSON of the round games in one place (issue 21): the ``TypedDict`` forms and the
generic writers and readers of :mod:`puzzles.duplicate.records` (draw, move, top, one-word
bulletin, result), and each game's own — the letter-choice bulletin and top
(:mod:`~puzzles.duplicate.games.free`), the Tactique billet, top and master state
(:mod:`~puzzles.duplicate.games.tactique`), the Superscrabble sheet, top and result
(:mod:`~puzzles.duplicate.games.superscrabble`). The same keys as the server has always
stored: no migration. A re-export module: each form is written where its game lives."""

from __future__ import annotations

from puzzles.duplicate.games.free import (
    free_dict,
    free_of,
    variant_top_dict,
    variant_top_of,
)
from puzzles.duplicate.games.superscrabble import (
    scrabble_top_dict,
    sheet_dict,
    sheet_line,
    sheet_of,
    sheet_result,
    sheet_verdict_of,
)
from puzzles.duplicate.games.tactique import (
    billet_dict,
    billet_line,
    billet_of,
    tactique_of,
    tactique_text,
    tactique_top_dict,
    tactique_top_of,
)
from puzzles.duplicate.records import *  # noqa: F403  (every generic form, its __all__)
from puzzles.duplicate.records import __all__ as _generic

__all__ = [*_generic,
           "billet_dict",
           "billet_line",
           "billet_of",
           "free_dict",
           "free_of",
           "scrabble_top_dict",
           "sheet_dict",
           "sheet_line",
           "sheet_of",
           "sheet_result",
           "sheet_verdict_of",
           "tactique_of",
           "tactique_text",
           "tactique_top_dict",
           "tactique_top_of",
           "variant_top_dict",
           "variant_top_of",
           ]
