"""How long a feuille de route may be, per game type.

A sheet is a short text: the longest real solution of each game type is known from its
letters (every move places at least one tile; the first at least two), so a sheet far longer
than that is a mistake (a whole file pasted) or an attack, and verifying or showing it costs
the server for nothing (a 10,000-line sheet took 64 s of verifier CPU). The server refuses
such a sheet before storing it, with a French message saying the bound; nothing else
changes (the version that counts stays).

The bound of a problem is :func:`longest_solution` (the most moves a real solution can
have, per game type, below) plus :data:`SHEET_MARGIN` lines:

==============================  ==========================================================
game type                        most moves of a real solution
==============================  ==========================================================
Intégral, Intégral partiel       tiles of the stock − 1 (move 1 places at least 2 tiles)
Rangée                           letters of the row − 1
Anticipation (every variant)     moves drawn (14) + 1 (move 1 may be two words)
Série de maximaux, N-Scrabble    groups (one word per group)
Superscrabble                    :data:`SUPERSCRABBLE_ANSWERS` answers
Superscrabble incomplet          construction: bag − rack − 1 tiles, then the answers
==============================  ==========================================================

What is counted: every move line read, every Superscrabble answer, and every line that
could not be read (:func:`sheet_entries`).
"""

from __future__ import annotations

from puzzles.families import MoveBound
from puzzles.feuille import ParsedFeuille
from puzzles.problem import Problem

#: Lines a sheet may hold beyond the longest real solution: a line written twice, passes
#: written as lines of their own, a note the parser cannot read.
SHEET_MARGIN = 10

#: Superscrabble answers a sheet may list. The richest of 20 generated French problems
#: (seeds 1–20) allows 246 distinct scrabbles; a rack with two jokers on an open grid allows
#: more. 1,000 answers are verified in well under a second.
SUPERSCRABBLE_ANSWERS = 1000

#: Moves of an Anticipation when the problem does not say (RULES §6.1: 14 moves).
ANTICIPATION_MOVES = 14


def longest_solution(problem: Problem) -> int:
    """The most move lines (and answers) a real solution of ``problem`` can have."""
    bound = problem.game.family.move_bound
    if bound is MoveBound.STOCK:
        return max(1, sum(problem.construction_stock().values()) - 1)
    if bound is MoveBound.ROW:
        return max(1, len(problem.row) - 1)
    if bound is MoveBound.ORDER:
        return (len(problem.order) or ANTICIPATION_MOVES) + 1
    if bound is MoveBound.GROUPS:  # Série de maximaux, N-Scrabble: one word per group
        return max(1, len(problem.groups))
    if bound is MoveBound.ANSWERS:
        return SUPERSCRABBLE_ANSWERS
    # Superscrabble incomplet: the construction, then the answers
    return max(1, sum(problem.construction_stock().values()) - 1) + SUPERSCRABBLE_ANSWERS


def max_sheet_entries(problem: Problem, margin: int = SHEET_MARGIN) -> int:
    """The most move lines, answers and unreadable lines a sheet of ``problem`` may hold."""
    return longest_solution(problem) + margin


def sheet_entries(parsed: ParsedFeuille) -> int:
    """Lines holding a move or an answer, or that could not be read, each counted once
    (moves of the JSON form, which have no line, count one each)."""
    lines = {e.line for e in parsed.errors if e.line > 0}
    unnumbered = 0
    for m in parsed.feuille.moves + parsed.feuille.scrabbles:
        if m.line > 0:
            lines.add(m.line)
        else:
            unnumbered += 1
    return len(lines) + unnumbered


def too_long(problem: Problem, parsed: ParsedFeuille, margin: int = SHEET_MARGIN) -> str | None:
    """A French message when the sheet holds more lines than any solution needs, else None."""
    limit = max_sheet_entries(problem, margin)
    found = sheet_entries(parsed)
    if found <= limit:
        return None
    return (
        f"Cette feuille compte {found} coups ou lignes, alors qu'une solution de ce problème "
        f"({problem.game.label}) en a au plus {longest_solution(problem)} : au-delà de "
        f"{limit} lignes, la feuille n'est pas enregistrée. Vérifiez que vous avez envoyé "
        "la bonne feuille ; votre version précédente, s'il y en a une, reste celle qui compte."
    )
