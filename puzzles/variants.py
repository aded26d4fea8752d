"""The Duplicate variants of the FRSc rule book (docs/RULES.md §9, §7.7, §6.1; docs/VARIANTS.md)
under their former address: a re-export module. Each game lives in its own module of
:mod:`puzzles.duplicate.games` — the letter-choice games (Complétif, Superjoker, Métagramme,
Elliptique) in :mod:`~puzzles.duplicate.games.free`, Tactique in
:mod:`~puzzles.duplicate.games.tactique`, Duplicate Top in :mod:`~puzzles.duplicate.games.top`,
the Partie de Superscrabble in :mod:`~puzzles.duplicate.games.superscrabble` — and the
variants' settings (:class:`VariantSettings`, the §5.3 conversion) in
:mod:`puzzles.duplicate.settings`; the live Anticipation timetable in :mod:`puzzles.rounds`.
:data:`VARIANTS`, the variants' French names, comes from the round games' registry
(:mod:`puzzles.duplicate.registry`)."""

from __future__ import annotations

from puzzles.duplicate.games.free import (
    COMPLETIF as COMPLETIF,
)
from puzzles.duplicate.games.free import (
    ELLIPTIQUE as ELLIPTIQUE,
)
from puzzles.duplicate.games.free import (
    FREE_GAMES as FREE_GAMES,
)
from puzzles.duplicate.games.free import (
    METAGRAMME as METAGRAMME,
)
from puzzles.duplicate.games.free import (
    SUPERJOKER as SUPERJOKER,
)
from puzzles.duplicate.games.free import (
    FreeBulletin as FreeBulletin,
)
from puzzles.duplicate.games.free import (
    FreeLetters as FreeLetters,
)
from puzzles.duplicate.games.free import (
    FreeMove as FreeMove,
)
from puzzles.duplicate.games.free import (
    VariantTop as VariantTop,
)
from puzzles.duplicate.games.free import (
    apply_variant_top as apply_variant_top,
)
from puzzles.duplicate.games.free import (
    brute_force_free_top as brute_force_free_top,
)
from puzzles.duplicate.games.free import (
    correct_free as correct_free,
)
from puzzles.duplicate.games.free import (
    correct_free_round as correct_free_round,
)
from puzzles.duplicate.games.free import (
    draw_variant as draw_variant,
)
from puzzles.duplicate.games.free import (
    free_letter_moves as free_letter_moves,
)
from puzzles.duplicate.games.free import (
    letters_of as letters_of,
)
from puzzles.duplicate.games.free import (
    parse_free_bulletin as parse_free_bulletin,
)
from puzzles.duplicate.games.free import (
    split_letters as split_letters,
)
from puzzles.duplicate.games.free import (
    stock_choices as stock_choices,
)
from puzzles.duplicate.games.free import (
    variant_top as variant_top,
)
from puzzles.duplicate.games.superscrabble import (
    ScrabbleSheet as ScrabbleSheet,
)
from puzzles.duplicate.games.superscrabble import (
    choose_scrabble as choose_scrabble,
)
from puzzles.duplicate.games.superscrabble import (
    correct_scrabble_sheet as correct_scrabble_sheet,
)
from puzzles.duplicate.games.superscrabble import (
    list_scrabbles as list_scrabbles,
)
from puzzles.duplicate.games.superscrabble import (
    parse_scrabble_sheet as parse_scrabble_sheet,
)
from puzzles.duplicate.games.superscrabble import (
    rank_superscrabble as rank_superscrabble,
)
from puzzles.duplicate.games.tactique import (
    TactiqueBillet as TactiqueBillet,
)
from puzzles.duplicate.games.tactique import (
    TactiqueDraw as TactiqueDraw,
)
from puzzles.duplicate.games.tactique import (
    TactiqueState as TactiqueState,
)
from puzzles.duplicate.games.tactique import (
    TactiqueStats as TactiqueStats,
)
from puzzles.duplicate.games.tactique import (
    TactiqueTop as TactiqueTop,
)
from puzzles.duplicate.games.tactique import (
    _pair_key as _pair_key,
)
from puzzles.duplicate.games.tactique import (
    apply_tactique_top as apply_tactique_top,
)
from puzzles.duplicate.games.tactique import (
    correct_tactique as correct_tactique,
)
from puzzles.duplicate.games.tactique import (
    draw_tactique as draw_tactique,
)
from puzzles.duplicate.games.tactique import (
    draw_tactique_listed as draw_tactique_listed,
)
from puzzles.duplicate.games.tactique import (
    parse_tactique_billet as parse_tactique_billet,
)
from puzzles.duplicate.games.tactique import (
    tactique_initial as tactique_initial,
)
from puzzles.duplicate.games.tactique import (
    tactique_sequence as tactique_sequence,
)
from puzzles.duplicate.games.tactique import (
    tactique_top as tactique_top,
)
from puzzles.duplicate.games.top import (
    rank_duplicate_top as rank_duplicate_top,
)
from puzzles.duplicate.registry import ROUND_GAMES
from puzzles.duplicate.report import SheetVerdict as SheetVerdict
from puzzles.duplicate.report import SuperscrabbleRow as SuperscrabbleRow
from puzzles.duplicate.report import TopStandingRow as TopStandingRow
from puzzles.duplicate.settings import (
    Companions as Companions,
)
from puzzles.duplicate.settings import (
    FreeJokerRule as FreeJokerRule,
)
from puzzles.duplicate.settings import (
    FreeUnused as FreeUnused,
)
from puzzles.duplicate.settings import (
    TactiqueOrder as TactiqueOrder,
)
from puzzles.duplicate.settings import (
    TactiqueRefill as TactiqueRefill,
)
from puzzles.duplicate.settings import (
    TactiqueRejection as TactiqueRejection,
)
from puzzles.duplicate.settings import (
    Variant as Variant,
)
from puzzles.duplicate.settings import (
    VariantSettings as VariantSettings,
)
from puzzles.duplicate.settings import (
    ranking_point_penalty as ranking_point_penalty,
)
from puzzles.duplicate.top import top_score as top_score
from puzzles.rounds import LiveSlot as LiveSlot
from puzzles.rounds import anticipation_minutes as anticipation_minutes
from puzzles.rounds import anticipation_schedule as anticipation_schedule

#: the variants' French names (the plain Duplicate and the Partie de Superscrabble aside),
#: from the round games
VARIANTS: dict[str, str] = {k: g.label for k, g in ROUND_GAMES.items()
                            if k and not g.scrabble_sheet}
