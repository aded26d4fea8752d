"""The one table of game-type facts (``puzzles.families``, issue 10's registry seam).

Every :class:`GameType` has exactly one complete :class:`GameFamily`; the facts the call sites
used to spell out as ``if game is ...`` chains are pinned here game by game, so moving them
into the table changed no behaviour.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from dataclasses import fields

from puzzles.cli import ALIASES
from puzzles.families import (
    FAMILIES,
    GameFamily,
    GameType,
    GeneratorKind,
    MoveBound,
    RankBy,
    SolverKind,
    Supply,
    Unit,
    family,
)
from puzzles.problem import ANTICIPATION_FAMILY, GAME_LABELS
from puzzles.solver import UNSUPPORTED

G = GameType


def test_every_game_type_has_exactly_one_complete_entry() -> None:
    assert list(FAMILIES) == list(GameType)  # 14 game types, 14 rows, same order
    assert len(FAMILIES) == 14
    for game in GameType:
        fam = FAMILIES[game]
        assert isinstance(fam, GameFamily)
        assert fam.game is game and family(game.value) is fam and game.family is fam
        assert fam.label and fam.label == game.label == GAME_LABELS[game]
        assert isinstance(fam.supply, Supply) and isinstance(fam.unit, Unit)
        assert isinstance(fam.rank_by, RankBy) and isinstance(fam.move_bound, MoveBound)
        assert isinstance(fam.solver, SolverKind) and isinstance(fam.generator, GeneratorKind)
        assert fam.statement_fields, game
        # the supply's own field is one of the statement's
        own = {Supply.STOCK: {"stock", "rack"}, Supply.ROW: {"row"},
               Supply.GROUPS: {"groups"}, Supply.BOARD: {"board"}}[fam.supply]
        assert own & set(fam.statement_fields), game
    labels = [f.label for f in FAMILIES.values()]
    assert len(set(labels)) == 14  # no two game types share a name
    aliases = [f.cli_alias for f in FAMILIES.values() if f.cli_alias]
    assert len(set(aliases)) == len(aliases) == 12  # the two consonant variants have none
    assert {f.name for f in fields(GameFamily)} >= {
        "supply", "anticipation", "groups_announced", "consonants_announced", "exclusif",
        "unit", "ranking_penalty", "rank_by", "move_bound", "statement_fields", "solver",
        "generator", "generator_needs_lexicon", "letters_range", "cli_alias", "label",
    }


def test_the_table_holds_the_facts_the_call_sites_used_to_test() -> None:
    """The sets the former ``if game is ...`` chains named, written out once more."""
    def where(pred: Callable[[GameFamily], bool]) -> set[GameType]:
        return {g for g, f in FAMILIES.items() if pred(f)}

    anticipation = {G.ANTICIPATION, G.ANTICIPATION_AVOCALIQUE, G.EXCLUSIF_RESISTANCE,
                    G.EXCLUSIF_FOND, G.ANTICIPATION_AVEUGLE}
    assert where(lambda f: f.anticipation) == anticipation == set(ANTICIPATION_FAMILY)
    assert where(lambda f: f.consonants_announced) == {
        G.ANTICIPATION_AVOCALIQUE, G.SERIE_MAXIMAUX_CONSONNES, G.N_SCRABBLE_CONSONNES}
    assert where(lambda f: f.ranking_points) == {
        G.SUPERSCRABBLE, G.SUPERSCRABBLE_INCOMPLET, G.EXCLUSIF_RESISTANCE}
    # the Série de maximaux converts warnings to ranking points only to break ties (G18)
    assert where(lambda f: f.ranking_penalty) == {
        G.SUPERSCRABBLE, G.SUPERSCRABBLE_INCOMPLET, G.EXCLUSIF_RESISTANCE,
        G.SERIE_MAXIMAUX, G.SERIE_MAXIMAUX_CONSONNES}
    assert where(lambda f: f.supply is Supply.GROUPS) == anticipation | {
        G.SERIE_MAXIMAUX, G.SERIE_MAXIMAUX_CONSONNES, G.N_SCRABBLE, G.N_SCRABBLE_CONSONNES}
    assert where(lambda f: f.supply is Supply.STOCK) == {
        G.INTEGRAL, G.INTEGRAL_PARTIEL, G.SUPERSCRABBLE_INCOMPLET}
    assert where(lambda f: f.supply is Supply.ROW) == {G.RANGEE}
    assert where(lambda f: f.supply is Supply.BOARD) == {G.SUPERSCRABBLE}
    assert where(lambda f: f.blind) == {G.ANTICIPATION_AVEUGLE} == set(UNSUPPORTED)
    assert where(lambda f: f.unit is Unit.SCRABBLES) == {
        G.SUPERSCRABBLE, G.SUPERSCRABBLE_INCOMPLET, G.EXCLUSIF_RESISTANCE}
    assert where(lambda f: f.group1_word_first) == {
        G.ANTICIPATION, G.ANTICIPATION_AVOCALIQUE, G.ANTICIPATION_AVEUGLE}
    assert where(lambda f: f.exclusif == "resistance") == {G.EXCLUSIF_RESISTANCE}
    assert where(lambda f: f.exclusif == "fond") == {G.EXCLUSIF_FOND}
    assert where(lambda f: f.rank_by is RankBy.SCORE_VECTOR) == {
        G.SERIE_MAXIMAUX, G.SERIE_MAXIMAUX_CONSONNES}
    assert where(lambda f: f.rank_by is RankBy.CONSTRUCTION) == {G.SUPERSCRABBLE_INCOMPLET}
    # S2: « la succession des mots placés pour construire cette grille » — no scores asked
    assert where(lambda f: f.words_only_moves) == {G.SUPERSCRABBLE_INCOMPLET}
    assert where(lambda f: f.rank_by is RankBy.ELIMINATION) == {G.EXCLUSIF_RESISTANCE}
    assert where(lambda f: f.generator_needs_lexicon) == {
        G.RANGEE, G.EXCLUSIF_FOND, G.EXCLUSIF_RESISTANCE, G.SUPERSCRABBLE}
    assert FAMILIES[G.INTEGRAL_PARTIEL].letters_range == (21, 35)  # RULES §7.2
    assert FAMILIES[G.RANGEE].letters_range == (31, 45)  # RULES §7.3
    assert ALIASES == {
        "integral": G.INTEGRAL, "partiel": G.INTEGRAL_PARTIEL, "rangee": G.RANGEE,
        "anticipation": G.ANTICIPATION, "avocalique": G.ANTICIPATION_AVOCALIQUE,
        "resistance": G.EXCLUSIF_RESISTANCE, "fond": G.EXCLUSIF_FOND,
        "aveugle": G.ANTICIPATION_AVEUGLE, "serie": G.SERIE_MAXIMAUX,
        "superscrabble": G.SUPERSCRABBLE, "incomplet": G.SUPERSCRABBLE_INCOMPLET,
        "nscrabble": G.N_SCRABBLE,
    }


def test_statement_fields_per_game_type() -> None:
    """What the statement pages show (as the former ``puzzles.games`` computed it before the
    table)."""
    want = {
        G.INTEGRAL: ("stock",), G.INTEGRAL_PARTIEL: ("stock",), G.RANGEE: ("row",),
        G.ANTICIPATION: ("groups", "order"),
        G.ANTICIPATION_AVOCALIQUE: ("groups", "group_sizes", "pool", "order"),
        G.EXCLUSIF_RESISTANCE: ("groups", "order"), G.EXCLUSIF_FOND: ("groups", "order"),
        G.ANTICIPATION_AVEUGLE: ("groups", "order"),
        G.SERIE_MAXIMAUX: ("groups",),
        G.SERIE_MAXIMAUX_CONSONNES: ("groups", "group_sizes", "pool"),
        G.SUPERSCRABBLE: ("board", "rack"), G.SUPERSCRABBLE_INCOMPLET: ("rack",),
        G.N_SCRABBLE: ("groups", "order"),
        G.N_SCRABBLE_CONSONNES: ("groups", "group_sizes", "pool", "order"),
    }
    assert set(want) == set(GameType)
    for game, fields_ in want.items():
        assert FAMILIES[game].statement_fields == fields_, game
        assert FAMILIES[game].label == game.label


def test_the_table_imports_no_heavy_module() -> None:
    """``puzzles.families`` loads without the engine or any other part of ``puzzles``, so
    the generator, verifier and solver can all read it without a cycle."""
    code = (
        "import sys, puzzles.families; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('puzzles', 'scoring', 'webapp', 'mailer')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "['puzzles', 'puzzles.families']"
