"""The FISF Duplicate (2016) played by correspondence: draws, the top, bulletin correction,
solos and the final ranking (docs/RULES.md §4, §10, §11; docs/DUPLICATE.md).

Pure and deterministic: the bag order is given (draws take from the front, rejected tiles go
back to the end), every rule the sources leave open is a named field of
:class:`DuplicateSettings`. The server drives a game round by round:

1. :func:`draw_round` (or :func:`draw_listed`) → the :class:`Draw` and the state *in play*
   (its ``reliquat`` holds the whole rack until the top is placed);
2. :func:`find_top` on that state; :func:`prepare_round` once, then :func:`correct` per
   bulletin; :func:`apply_solos`;
3. :func:`apply_top` → the state of the next round; at the end :func:`rank_game`.

:func:`replay` runs a whole game that way for ``arbitre duplicate replay`` (the one loop,
:mod:`puzzles.duplicate.loop`).

A package, one module per concern, each importing only those before it: ``settings`` (the
vocabulary, :class:`DuplicateError`, :class:`DuplicateSettings`) → ``state`` (the game state,
the bag and the draws) → ``top`` (the top order) → ``bulletins`` (the bulletin and its
parser) → ``correction`` (one bulletin corrected) → ``ranking`` (solos, a whole round, the
ranking) → ``replay`` (GAME.json, the BULLETINS file, :func:`replay`). This ``__init__``
re-exports their public names, so callers write ``from puzzles.duplicate import X`` as
before the split.

Every round game — this Duplicate and each variant — is one
:class:`~puzzles.duplicate.protocol.RoundGame` (``protocol``), one module of ``games``
(``classic``, ``top``, ``free``, ``tactique``, ``superscrabble``), listed by ``registry``
(:func:`~puzzles.duplicate.registry.round_game`), over the typed stored JSON of ``records`` /
``codecs``; ``loop`` is the one round loop (the replay of every game, a round replayed from
its position), ``report`` the replay's reports, ``gamefile`` a GAME.json's common parts; the
variants' settings (``VariantSettings``) are in ``settings``.
"""

from __future__ import annotations

from puzzles.duplicate.bulletins import (
    MAX_SCORE_DIGITS,
    PLUS_SEPARATOR_RE,
    VERTICAL_MARK,
    Bulletin,
    RaccordLetter,
    close_placed_spaces,
    is_number,
    parse_bulletin,
    score_error,
)
from puzzles.duplicate.correction import (
    RoundContext,
    Verdict,
    added_letters,
    correct,
    extension_span,
    marks_match,
    placed_raccord_fits,
    placed_runs,
    prepare_round,
    raccord_fits,
    raccord_holds,
    raccord_minimum,
    raccord_minimum_on,
    retain_solution,
    two_letter_first_word,
    written_horizontal,
)
from puzzles.duplicate.ranking import (
    RoundResult,
    StandingRow,
    apply_solos,
    correct_all,
    interrupted_game_stands,
    rank_game,
    solo_bonus,
    warning_deduction,
)
from puzzles.duplicate.replay import (
    DRAWS_USED_UP,
    ReplayResult,
    game_players,
    initial_state,
    listed_draws_over,
    load_game,
    next_draw,
    no_move_end,
    parse_bulletins_file,
    replay,
    warnings_note,
)
from puzzles.duplicate.settings import (
    RACK_SIZE,
    STATE_HEADER,
    AmbiguousReference,
    DuplicateError,
    DuplicateSettings,
    Lang,
    Openness,
    RejectionReturns,
    SoloRule,
    VerdictKind,
    check_choice,
    read_object,
)
from puzzles.duplicate.state import (
    Draw,
    GameState,
    check_tiles,
    draw_listed,
    draw_round,
    minus_tiles,
    no_valid_draw,
    round_config,
    round_minimum,
    secret_bag,
    shuffled_bag,
)
from puzzles.duplicate.top import (
    TopChoice,
    apply_top,
    ends_game,
    find_top,
    openness,
    rank_moves,
    top_key,
    word_squares,
)
from puzzles.seeds import SECRET_SEED_BITS, new_secret_seed

__all__ = [
    "AmbiguousReference",
    "Bulletin",
    "DRAWS_USED_UP",
    "Draw",
    "DuplicateError",
    "DuplicateSettings",
    "GameState",
    "Lang",
    "MAX_SCORE_DIGITS",
    "Openness",
    "PLUS_SEPARATOR_RE",
    "RACK_SIZE",
    "RaccordLetter",
    "RejectionReturns",
    "ReplayResult",
    "RoundContext",
    "RoundResult",
    "SECRET_SEED_BITS",
    "STATE_HEADER",
    "SoloRule",
    "StandingRow",
    "TopChoice",
    "VERTICAL_MARK",
    "Verdict",
    "VerdictKind",
    "added_letters",
    "apply_solos",
    "apply_top",
    "check_choice",
    "check_tiles",
    "close_placed_spaces",
    "correct",
    "correct_all",
    "draw_listed",
    "draw_round",
    "ends_game",
    "extension_span",
    "find_top",
    "game_players",
    "initial_state",
    "interrupted_game_stands",
    "is_number",
    "listed_draws_over",
    "load_game",
    "marks_match",
    "minus_tiles",
    "new_secret_seed",
    "next_draw",
    "no_move_end",
    "no_valid_draw",
    "openness",
    "parse_bulletin",
    "parse_bulletins_file",
    "placed_raccord_fits",
    "placed_runs",
    "prepare_round",
    "raccord_fits",
    "raccord_holds",
    "raccord_minimum",
    "raccord_minimum_on",
    "rank_game",
    "rank_moves",
    "read_object",
    "replay",
    "retain_solution",
    "round_config",
    "round_minimum",
    "score_error",
    "secret_bag",
    "shuffled_bag",
    "solo_bonus",
    "top_key",
    "two_letter_first_word",
    "warning_deduction",
    "warnings_note",
    "word_squares",
    "written_horizontal",
]
