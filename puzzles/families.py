"""The game types of the FRSc originals and their facts, as one table.

:class:`GameType` names every one-sheet game (RULES §6–§7); :data:`FAMILIES` holds one frozen
:class:`GameFamily` per game type: where the letters come from (:class:`Supply`), whether
groups are announced and how (Anticipation, consonants only, blind), the unit and penalty of
the result and how it ranks, the bound on a sheet's move lines, the statement fields, the
solver and generator that handle it, its French label and its command-line alias. Problem
checks, the generator, the verifier, the solver, the limits, the ranking and the pages ask
:func:`family` instead of testing game types one by one.

This module imports nothing but the standard library, so every part of :mod:`puzzles` can read
the table without a cycle.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Literal


class GameType(StrEnum):
    """Every game type a problem can be (RULES §6–§7)."""

    INTEGRAL = "integral"
    INTEGRAL_PARTIEL = "integral_partiel"
    RANGEE = "rangee"
    ANTICIPATION = "anticipation"
    ANTICIPATION_AVOCALIQUE = "anticipation_avocalique"
    EXCLUSIF_RESISTANCE = "exclusif_resistance"
    EXCLUSIF_FOND = "exclusif_fond"
    ANTICIPATION_AVEUGLE = "anticipation_aveugle"
    SERIE_MAXIMAUX = "serie_maximaux"
    SERIE_MAXIMAUX_CONSONNES = "serie_maximaux_consonnes"
    SUPERSCRABBLE = "superscrabble"
    SUPERSCRABBLE_INCOMPLET = "superscrabble_incomplet"
    N_SCRABBLE = "n_scrabble"
    N_SCRABBLE_CONSONNES = "n_scrabble_consonnes"

    @property
    def family(self) -> GameFamily:
        """This game type's row of :data:`FAMILIES`."""
        return FAMILIES[self]

    @property
    def label(self) -> str:
        """The French name players know."""
        return FAMILIES[self].label

    @property
    def is_anticipation(self) -> bool:
        return FAMILIES[self].anticipation

    @property
    def is_consonant_variant(self) -> bool:
        """Only the consonants are announced; players complete from a pool (RULES §6.2)."""
        return FAMILIES[self].consonants_announced

    @property
    def ranking_points(self) -> bool:
        """Scores are ranking points, and warnings convert by RULES §5.3's second row."""
        return FAMILIES[self].ranking_points

    @property
    def uses_groups(self) -> bool:
        return FAMILIES[self].supply is Supply.GROUPS


class Supply(StrEnum):
    """Where the letters a player places come from."""

    STOCK = "stock"  # a construction stock (Intégral family, Superscrabble incomplet)
    ROW = "row"  # the next letters of a row (rangée)
    GROUPS = "groups"  # announced groups (Anticipation family, Série de maximaux, N-Scrabble)
    BOARD = "board"  # a given grid and rack: only the answers are written (Superscrabble)


class Unit(StrEnum):
    """What a result counts (``Report.unit``)."""

    POINTS = "points"
    SCRABBLES = "scrabbles"


class RankBy(StrEnum):
    """What orders two sheets (:func:`puzzles.ranking.performance_key`)."""

    SCORE = "score"  # the final score
    SCORE_VECTOR = "score_vector"  # move by move, the penalty only breaks ties (G18)
    CONSTRUCTION = "construction"  # the score, then fewer construction letters
    ELIMINATION = "elimination"  # the score, then the later elimination


class MoveBound(StrEnum):
    """What bounds the move lines of a real solution (:mod:`puzzles.limits`)."""

    STOCK = "stock"  # one letter of the stock kept back at least
    ROW = "row"  # one move per letter of the row but one
    ORDER = "order"  # one move per drawn group, plus the first move's second word
    GROUPS = "groups"  # one word per group
    ANSWERS = "answers"  # the answers of a Superscrabble
    STOCK_AND_ANSWERS = "stock_and_answers"  # construction, then the answers


class SolverKind(StrEnum):
    """Which search of :mod:`puzzles.solver` finds the reference solution."""

    STOCK = "stock"
    ROW = "row"
    ANTICIPATION = "anticipation"
    SERIE = "serie"
    N_SCRABBLE = "n_scrabble"
    SUPERSCRABBLE = "superscrabble"
    INCOMPLET = "incomplet"
    NONE = "none"  # each player composes his own groups: no single problem to solve


class GeneratorKind(StrEnum):
    """How :func:`puzzles.generate.new_problem` draws a problem."""

    BAG = "bag"  # the whole bag as the stock
    PARTIEL = "partiel"  # 21 to 35 letters of the bag
    ROW = "row"  # 31 to 45 letters with a playable opening
    ANTICIPATION = "anticipation"  # 15 groups and the order of groups 2 to 15
    GROUPS = "groups"  # groups of 7 (Série: 7 of them; N-Scrabble: n, maybe ordered)
    INCOMPLET = "incomplet"  # a rack with a vowel and a consonant
    SUPERSCRABBLE = "superscrabble"  # a grid and a rack that has a scrabble on it


@dataclass(frozen=True)
class GameFamily:
    """The facts of one game type (RULES §6–§7)."""

    game: GameType
    label: str
    supply: Supply
    #: groups announced move by move, one billet per move (the Anticipation family)
    anticipation: bool = False
    #: the groups are announced (False in the Anticipation aveugle: players compose them)
    groups_announced: bool = False
    #: only consonants are announced, players complete from a pool (RULES §6.2)
    consonants_announced: bool = False
    #: the Scrabble exclusif: every move but the first places 7 letters
    exclusif: Literal["fond", "resistance"] | None = None
    unit: Unit = Unit.POINTS
    #: warnings convert to ranking points (RULES §5.3's second row) rather than points
    ranking_penalty: bool = False
    rank_by: RankBy = RankBy.SCORE
    move_bound: MoveBound = MoveBound.STOCK
    statement_fields: tuple[str, ...] = ()
    solver: SolverKind = SolverKind.NONE
    generator: GeneratorKind = GeneratorKind.BAG
    #: drawing a problem needs a word list (the rangée's only for its opening check)
    generator_needs_lexicon: bool = False
    #: how many letters the stock or row holds, when the game draws a part of the bag
    letters_range: tuple[int, int] | None = None
    #: the short name of ``python -m puzzles problem --type``, if any
    cli_alias: str | None = None
    #: the sheet's move lines are the words placed, nothing else is asked (the Superscrabble
    #: incomplet, S2: « la succession des mots placés pour construire cette grille »): a
    #: score, cumul or letters column left blank is no fault; one written wrong still is
    words_only_moves: bool = False

    @property
    def ranking_points(self) -> bool:
        """Scores are ranking points: the penalty converts to ranking points and the result
        is not a move-by-move vector (the Série de maximaux only breaks ties with them)."""
        return self.ranking_penalty and self.rank_by is not RankBy.SCORE_VECTOR

    @property
    def blind(self) -> bool:
        """Players compose their own groups (Anticipation aveugle)."""
        return self.supply is Supply.GROUPS and not self.groups_announced

    @property
    def answers_only(self) -> bool:
        """The sheet is a list of answers on a given grid (Superscrabble)."""
        return self.supply is Supply.BOARD

    @property
    def has_answers(self) -> bool:
        """The sheet lists scrabbles (answers) after its moves or instead of them."""
        return self.move_bound in (MoveBound.ANSWERS, MoveBound.STOCK_AND_ANSWERS)

    @property
    def construction_then_answers(self) -> bool:
        """The player builds a grid from a stock, then lists the answers on it (Superscrabble
        incomplet)."""
        return self.move_bound is MoveBound.STOCK_AND_ANSWERS

    @property
    def group1_word_first(self) -> bool:
        """Move 1 is two words, group 1's placed first, both numbered 1 (RULES §6.1); not in
        the Scrabble exclusif, whose moves are scrabbles."""
        return self.anticipation and self.exclusif is None

    @property
    def ordered_groups(self) -> bool:
        """A problem may impose the order of its groups."""
        return "order" in self.statement_fields


_G = GameType


def _anticipation(
    game: GameType, label: str, cli_alias: str, *, consonants: bool = False,
    exclusif: Literal["fond", "resistance"] | None = None, blind: bool = False,
) -> GameFamily:
    """A game of the Anticipation family (RULES §6): 15 groups, drawn in an order."""
    resistance = exclusif == "resistance"
    fields = ("groups", "group_sizes", "pool", "order") if consonants else ("groups", "order")
    return GameFamily(
        game, label, Supply.GROUPS, anticipation=True, groups_announced=not blind,
        consonants_announced=consonants, exclusif=exclusif,
        unit=Unit.SCRABBLES if resistance else Unit.POINTS, ranking_penalty=resistance,
        rank_by=RankBy.ELIMINATION if resistance else RankBy.SCORE,
        move_bound=MoveBound.ORDER, statement_fields=fields,
        solver=SolverKind.NONE if blind else SolverKind.ANTICIPATION,
        generator=GeneratorKind.ANTICIPATION, generator_needs_lexicon=exclusif is not None,
        cli_alias=cli_alias,
    )


#: One row per game type; tests/puzzles/test_families.py checks it is complete.
FAMILIES: dict[GameType, GameFamily] = {
    f.game: f
    for f in (
        GameFamily(
            _G.INTEGRAL, "Scrabble intégral", Supply.STOCK, statement_fields=("stock",),
            solver=SolverKind.STOCK, generator=GeneratorKind.BAG, cli_alias="integral",
        ),
        GameFamily(
            _G.INTEGRAL_PARTIEL, "Intégral partiel", Supply.STOCK, statement_fields=("stock",),
            solver=SolverKind.STOCK, generator=GeneratorKind.PARTIEL, letters_range=(21, 35),
            cli_alias="partiel",
        ),
        GameFamily(
            _G.RANGEE, "Intégral sur rangée de lettres", Supply.ROW, move_bound=MoveBound.ROW,
            statement_fields=("row",), solver=SolverKind.ROW, generator=GeneratorKind.ROW,
            generator_needs_lexicon=True, letters_range=(31, 45), cli_alias="rangee",
        ),
        _anticipation(_G.ANTICIPATION, "Anticipation", "anticipation"),
        _anticipation(
            _G.ANTICIPATION_AVOCALIQUE, "Anticipation avocalique", "avocalique",
            consonants=True,
        ),
        _anticipation(
            _G.EXCLUSIF_RESISTANCE, "Scrabble exclusif – résistance", "resistance",
            exclusif="resistance",
        ),
        _anticipation(_G.EXCLUSIF_FOND, "Scrabble exclusif – fond", "fond", exclusif="fond"),
        _anticipation(_G.ANTICIPATION_AVEUGLE, "Anticipation aveugle", "aveugle", blind=True),
        GameFamily(
            _G.SERIE_MAXIMAUX, "Série de maximaux", Supply.GROUPS, groups_announced=True,
            ranking_penalty=True, rank_by=RankBy.SCORE_VECTOR, move_bound=MoveBound.GROUPS,
            statement_fields=("groups",), solver=SolverKind.SERIE, generator=GeneratorKind.GROUPS,
            cli_alias="serie",
        ),
        GameFamily(
            _G.SERIE_MAXIMAUX_CONSONNES, "Série de maximaux (consonnes annoncées)",
            Supply.GROUPS, groups_announced=True, consonants_announced=True,
            ranking_penalty=True, rank_by=RankBy.SCORE_VECTOR, move_bound=MoveBound.GROUPS,
            statement_fields=("groups", "group_sizes", "pool"), solver=SolverKind.SERIE,
            generator=GeneratorKind.GROUPS,
        ),
        GameFamily(
            _G.SUPERSCRABBLE, "Superscrabble", Supply.BOARD, unit=Unit.SCRABBLES,
            ranking_penalty=True, move_bound=MoveBound.ANSWERS,
            statement_fields=("board", "rack"), solver=SolverKind.SUPERSCRABBLE,
            generator=GeneratorKind.SUPERSCRABBLE, generator_needs_lexicon=True,
            cli_alias="superscrabble",
        ),
        GameFamily(
            _G.SUPERSCRABBLE_INCOMPLET, "Superscrabble incomplet", Supply.STOCK,
            unit=Unit.SCRABBLES, ranking_penalty=True, rank_by=RankBy.CONSTRUCTION,
            move_bound=MoveBound.STOCK_AND_ANSWERS, statement_fields=("rack",),
            solver=SolverKind.INCOMPLET, generator=GeneratorKind.INCOMPLET, cli_alias="incomplet",
            words_only_moves=True,
        ),
        GameFamily(
            _G.N_SCRABBLE, "N-Scrabble", Supply.GROUPS, groups_announced=True,
            move_bound=MoveBound.GROUPS, statement_fields=("groups", "order"),
            solver=SolverKind.N_SCRABBLE, generator=GeneratorKind.GROUPS, cli_alias="nscrabble",
        ),
        GameFamily(
            _G.N_SCRABBLE_CONSONNES, "N-Scrabble (consonnes annoncées)", Supply.GROUPS,
            groups_announced=True, consonants_announced=True, move_bound=MoveBound.GROUPS,
            statement_fields=("groups", "group_sizes", "pool", "order"),
            solver=SolverKind.N_SCRABBLE, generator=GeneratorKind.GROUPS,
        ),
    )
}


def family(game: GameType | str) -> GameFamily:
    """The row of ``game`` (a :class:`GameType` or its value); ``ValueError`` for any other
    key."""
    return FAMILIES[GameType(game)]


def family_or_none(key: str) -> GameFamily | None:
    """The row of a stored game key, None for the round-based games (Duplicate, its variants,
    the correspondence game), which have no problem sheet."""
    try:
        return FAMILIES[GameType(key)]
    except ValueError:
        return None
