"""Reference solutions: the answer key of a problem, computed with the move generator
(:mod:`scoring.movegen`) — what the arbiter publishes next to the players' results.

:func:`solve` returns a :class:`Solution`: a legal :class:`~puzzles.feuille.Feuille` (moves
with letters used, reference, word, score and cumul, exactly what :mod:`puzzles.verify` reads)
plus its cumul and, for Superscrabble, the list of distinct scrabbles. What each game's
answer guarantees (docs/PUZZLES.md §9, "Reference solutions"):

- **Superscrabble** — *exact*: every placement of the 7 letters, counted once per RULES §7.5
  identity (start square, direction, word with the joker's letter resolved).
- **Série de maximaux** — *exact*: the lexicographically best vector of per-move scores
  (its ranking, RULES §7.4), every move a top of tops over the remaining groups; all tied
  tops are followed while at most :data:`SERIE_FRONTIER` positions are tied.
- **Intégral, Intégral partiel, rangée, Anticipation (classique, exclusif fond/résistance),
  N-Scrabble** — *heuristic*: a beam search over the move generator, widened 1, 2, 4, …
  while the budget lasts; the best finished sheet is kept. No optimality is claimed.
- **Superscrabble incomplet** — *heuristic*: construction words of at most
  :data:`CONSTRUCTION_MAX_TILES` tiles are added one at a time, each the candidate that most
  raises the exact scrabble count (candidates put down letters the rack can scrabble
  through); the scrabbles of the final grid are exact.

In the consonant variants (Anticipation avocalique, Série de maximaux and N-Scrabble with
the consonants announced) the completion from the pool is searched heuristically, so the
Série answer there is heuristic too. The Anticipation aveugle (each player composes his
own groups) raises :class:`SolverError`.

The budget is counted in *nodes* (one move-generator call each), so a given (problem, seed,
nodes) always gives the same sheet; ``seconds`` is a wall-clock cap that stops widening (the
greedy pass, width 1, always finishes) and ``Solution.complete`` says whether it cut in.

The package is split by family: :mod:`puzzles.solver.search` (result types, budget, beam
search), :mod:`puzzles.solver.rangee`, :mod:`puzzles.solver.stock` (Intégral family),
:mod:`puzzles.solver.groups` (Anticipation, Scrabble exclusif, N-Scrabble),
:mod:`puzzles.solver.serie` and :mod:`puzzles.solver.superscrabble`; this module owns
:func:`solve`, which picks the family's search, and re-exports the public names.
"""

from __future__ import annotations

from collections.abc import Callable

from puzzles.families import FAMILIES, SolverKind
from puzzles.feuille import Feuille
from puzzles.problem import Problem
from puzzles.settings import Settings
from puzzles.solver.groups import GroupsGame
from puzzles.solver.rangee import RangeeGame
from puzzles.solver.search import (
    Budget,
    Progress,
    Solution,
    SolverError,
    State,
    beam,
    consumed,
    move_key,
    widening,
)
from puzzles.solver.serie import SERIE_FRONTIER, SERIE_POOL_FRONTIER, serie_search
from puzzles.solver.stock import StockGame
from puzzles.solver.superscrabble import (
    CONSTRUCTION_MAX_TILES,
    incomplet_search,
    superscrabble_lines,
    superscrabble_moves,
)
from scoring.config import GameConfig
from scoring.lexicon import Lexicon

__all__ = [
    "CONSTRUCTION_MAX_TILES",
    "NODES_PER_SECOND",
    "POOL_NODES_PER_SECOND",
    "SERIE_FRONTIER",
    "SERIE_POOL_FRONTIER",
    "STOCK_NODES_PER_SECOND",
    "UNSUPPORTED",
    "Progress",
    "Solution",
    "SolverError",
    "game_config",
    "move_key",
    "solve",
    "superscrabble_moves",
]

#: Nodes (move-generator calls) granted per second of ``seconds`` when ``nodes`` is not
#: given. Measured on one core with the C generator, search overhead included: about 1 ms
#: per node for the rangée, 3 ms for a 7-letter group or an Intégral candidate rack, 130 ms
#: for a rack of a consonant variant (up to 11 letters with a joker); the rates leave room
#: for a loaded machine so that the node budget, not the clock, ends the search.
NODES_PER_SECOND = 150
STOCK_NODES_PER_SECOND = 150
POOL_NODES_PER_SECOND = 8


def game_config(problem: Problem, lexicon: Lexicon, settings: Settings | None = None) -> GameConfig:
    """The engine configuration a problem is solved with."""
    s = settings or Settings()
    return GameConfig(tileset=problem.tileset, lexicon=lexicon,
                      first_move_horizontal=s.first_move_horizontal)


#: Each player composes his own groups: there is no single problem to solve.
UNSUPPORTED = frozenset(g for g, f in FAMILIES.items() if f.solver is SolverKind.NONE)


def solve(
    problem: Problem,
    lexicon: Lexicon,
    *,
    seconds: float = 30.0,
    seed: int = 0,
    progress: Callable[[Progress], None] | None = None,
    nodes: int | None = None,
    settings: Settings | None = None,
) -> Solution:
    """The reference solution of ``problem`` judged with ``lexicon``.

    ``nodes`` (move-generator calls; default ``seconds * NODES_PER_SECOND``) is the budget
    that makes the result reproducible; ``seconds`` caps the wall-clock time. ``seed`` only
    matters to the Intégral family (the candidate racks).
    """
    game = problem.game
    fam = game.family
    kind = fam.solver
    if kind is SolverKind.NONE:
        raise SolverError(
            f"Pas de solution de référence pour « {game.label} » : chaque joueur y compose "
            "ses propres groupes."
        )
    settings = settings or Settings()
    config = game_config(problem, lexicon, settings)
    per_second = NODES_PER_SECOND
    if kind is SolverKind.STOCK:
        per_second = STOCK_NODES_PER_SECOND
    elif fam.consonants_announced:
        per_second = POOL_NODES_PER_SECOND
    budget = Budget(nodes if nodes is not None else int(seconds * per_second),
                     seconds, progress)
    feuille_row: str | None = None

    if kind in (SolverKind.SUPERSCRABBLE, SolverKind.INCOMPLET):
        if kind is SolverKind.SUPERSCRABBLE:
            built = State(problem.initial_board(), 0, (), (), ())
            budget.charge()
            found = superscrabble_moves(built.board, problem.rack, config)
        else:
            built, found = incomplet_search(problem, config, budget)
        lines = superscrabble_lines(found)
        return Solution(
            problem_id=problem.id, game=game,
            feuille=Feuille(moves=built.lines, scrabbles=lines, problem_id=problem.id),
            cumul=len(lines), scores=built.scores, exact=kind is SolverKind.SUPERSCRABBLE,
            scrabbles=lines, nodes=budget.nodes, elapsed=budget.elapsed,
            complete=not budget.time_cut,
        )

    width = 1
    exact = False
    pool = problem.pool if fam.consonants_announced else None
    sizes = problem.group_sizes
    if kind is SolverKind.SERIE:
        state, exact = serie_search(
            GroupsGame(problem.groups, None, config, first_group=False, bingo_only=False,
                    pass_allowed=False, pool=pool, sizes=sizes),
            budget,
        )
        exact = exact and not fam.consonants_announced
        budget.best = state.cumul
        budget.report()
    elif kind is SolverKind.ROW:
        feuille_row = problem.row
        greedy = beam(RangeeGame(problem.row, config, 0.0), 1, budget)
        rate = greedy.cumul / max(1, consumed(greedy))
        state, width = widening(RangeeGame(problem.row, config, rate), budget)
        if greedy.cumul > state.cumul:
            state, width = greedy, 1
    elif kind is SolverKind.STOCK:
        stock = problem.construction_stock()
        greedy = beam(StockGame(stock, config, seed, 0.0), 1, budget)
        used = sum(stock.values()) - len(str(greedy.res[0]))
        rate = greedy.cumul / max(1, used)
        state, width = widening(StockGame(stock, config, seed, rate), budget)
        if greedy.cumul > state.cumul:
            state, width = greedy, 1
    elif kind is SolverKind.ANTICIPATION:
        fond = fam.exclusif == "fond"
        resistance = fam.exclusif == "resistance"
        exclusif = fond or resistance
        state, width = widening(
            GroupsGame(problem.groups, problem.order, config, first_group=fam.group1_word_first,
                    bingo_only=exclusif, survival=resistance,
                    pass_allowed=fond or (not exclusif and settings.anticipation_pass_allowed),
                    pool=pool, sizes=sizes),
            budget,
        )
    elif kind is SolverKind.N_SCRABBLE:
        state, width = widening(
            GroupsGame(problem.groups, problem.order or None, config, first_group=False,
                    bingo_only=False, pass_allowed=False, pool=pool, sizes=sizes),
            budget,
        )
    else:  # pragma: no cover - every solver kind is handled above
        raise SolverError(f"Type de partie non pris en charge : {game}.")

    return Solution(
        problem_id=problem.id,
        game=game,
        feuille=Feuille(moves=state.lines, problem_id=problem.id, row=feuille_row),
        cumul=state.rank if fam.exclusif == "resistance" else state.cumul,
        scores=state.scores,
        exact=exact,
        nodes=budget.nodes,
        width=width,
        elapsed=budget.elapsed,
        complete=not budget.time_cut,
    )
