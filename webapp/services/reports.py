"""Verification reports as the pages show them: who may see a report, the player's grid
replayed move by move from the stored report, and the rest of the report page (its runs,
the rulings in force, the player's appeals).

The replay only redraws what the report says: tiles of moves the verifier zeroed stay on
the player's grid, tinted (RULES §5.2); annulled moves leave the grid; Superscrabble answers
are each put on the given grid. No score is recomputed here.

A step carries its grid as a :class:`Grid` value (the board, the squares to highlight and
to tint), only for the steps asked for: the page draws two grids, the final one and the
move being looked at, and the stepper fetches the others one at a time, so a long sheet
does not make a page of one grid per move (1,000 grids were 44 MB). Drawing a grid as SVG
is the pages' job (``webapp.views.helpers.grid_svg``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session, col, select

from puzzles.problem import Problem as PuzzleProblem
from scoring.board import Board
from scoring.errors import EngineError
from scoring.move import Placement
from scoring.tiles import TileSet
from webapp.models import Appeal, Player, Problem, Ruling, Submission, Verification
from webapp.services.rankings import RESULTS_STATUSES
from webapp.services.stored import readable_puzzle, reference_data_of

STATUS_CLASS = {
    "valide": "ok",
    "avertissement": "warn",
    "pénalité": "warn",
    "zéro": "zero",
    "zéro en cascade": "zero",
    "annulé": "",
    "non joué": "",
    "passe": "",
    "doublon": "zero",
    "hors jeu": "zero",
}
ZERO_STATUSES = {"zéro", "zéro en cascade", "doublon", "hors jeu"}


@dataclass(frozen=True)
class Grid:
    """A grid to draw: the board (a copy, never changed afterwards), its tiles, the squares
    of the move just played (``highlight``) and of zeroed moves (``zeroed``); ``number``:
    the move after which it stands (None: the starting or final grid, untitled)."""

    board: Board
    tileset: TileSet
    highlight: tuple[int, ...] = ()
    zeroed: frozenset[int] = frozenset()
    number: Any = None


@dataclass
class Step:
    """One move of the replay; ``grid``: the grid after it, when it was asked for."""

    move: dict[str, Any]
    grid: Grid | None
    status_class: str
    is_zero: bool
    placed: bool
    annulled_now: list[int] = field(default_factory=list)


def replay(pz: PuzzleProblem | None, moves: list[dict[str, Any]], *,
           accumulate: bool = True, base: Board | None = None,
           draw: set[int] | None = None) -> tuple[list[Step], Board | None]:
    """One :class:`Step` per reported move, each with the grid after that move, and the
    grid at the end. ``accumulate=False`` puts each move on ``base`` (default: the problem's
    starting grid) alone, as Superscrabble answers are. ``draw``: the steps (0-based) whose
    grid is kept (``grid``); None keeps every step's."""
    if pz is None:
        return [Step(m, None, STATUS_CLASS.get(m.get("status", ""), ""),
                     m.get("status") in ZERO_STATUSES, False) for m in moves], None
    ts = pz.tileset
    start = base.copy() if base is not None else pz.initial_board()
    board = start.copy()
    tiles_of: dict[int, list[int]] = {}
    zeroed: set[int] = set()
    steps: list[Step] = []
    for m in moves:
        status = str(m.get("status", ""))
        is_zero = status in ZERO_STATUSES
        grid = board if accumulate else start.copy()
        removed: list[int] = []
        for n in m.get("annul") or ():
            for sq in tiles_of.pop(int(n), []):
                grid.remove(sq)
                zeroed.discard(sq)
            removed.append(int(n))
        new: list[int] = []
        placed = False
        if m.get("ref") and m.get("word") and m.get("true_score") is not None:
            try:
                placement = Placement.from_notation(grid, m["ref"], m["word"])
                placement.apply(grid)
            except EngineError:
                placement = None
            if placement is not None:
                placed = True
                new = list(placement.squares)
                if accumulate:
                    tiles_of.setdefault(int(m.get("number", 0)), []).extend(new)
                if is_zero:
                    zeroed.update(new)
        shown = None
        if draw is None or len(steps) in draw:
            tinted = zeroed if accumulate else set(new) if is_zero else set()
            shown = Grid(grid.copy(), ts, tuple(new), frozenset(tinted),
                         m.get("number", "?"))
        steps.append(Step(m, shown, STATUS_CLASS.get(status, ""), is_zero, placed, removed))
    return steps, board


def _answers_only(problem: Problem) -> bool:
    """Superscrabble: every answer on the given grid."""
    return problem.game.family.answers_only


def can_see_report(problem: Problem, submission: Submission, *, viewer_id: int | None,
                   arbitre: bool) -> bool:
    """Before results are published a report is its player's (and the arbitre's) only."""
    if arbitre or problem.status in RESULTS_STATUSES:
        return True
    return viewer_id is not None and viewer_id == submission.player_id


class ReportHidden(Exception):
    """The report exists but is not the viewer's to see (yet)."""


@dataclass
class ReportRows:
    """A report's rows: the verification, its sheet, problem and player."""

    verification: Verification
    submission: Submission
    problem: Problem
    player: Player


def _report_rows(session: Session, verification_id: int, *, viewer_id: int | None,
                 arbitre: bool) -> ReportRows | None:
    """The rows of a report; None when any is missing; :class:`ReportHidden` when the viewer
    may not see it."""
    ver = session.get(Verification, verification_id)
    sub = session.get(Submission, ver.submission_id) if ver is not None else None
    prob = session.get(Problem, sub.problem_id) if sub is not None else None
    if ver is None or sub is None or prob is None:
        return None
    if not can_see_report(prob, sub, viewer_id=viewer_id, arbitre=arbitre):
        raise ReportHidden
    player = session.get(Player, sub.player_id)
    if player is None:
        return None
    return ReportRows(ver, sub, prob, player)


@dataclass
class ReportPage:
    """Everything the report page shows. ``step``: the move (1-based) whose grid is drawn
    (0 when there are no moves); ``current``: that step."""

    rows: ReportRows
    report: dict[str, Any]
    steps: list[Step]
    step: int
    current: Step | None
    scrabble_steps: list[Step]
    zero_count: int
    history: list[Verification]
    rulings: list[Ruling]
    appeals: list[Appeal]
    final_board: Grid | None


def report_page(session: Session, verification_id: int, *, viewer_id: int | None,
                arbitre: bool, step: int = 1) -> ReportPage | None:
    """The report page of a verification (None: no such report; :class:`ReportHidden`: not
    the viewer's); ``step`` is clamped to the moves there are."""
    rows = _report_rows(session, verification_id, viewer_id=viewer_id, arbitre=arbitre)
    if rows is None:
        return None
    problem, verification = rows.problem, rows.verification
    report = dict(verification.report or {})
    pz = readable_puzzle(problem)
    moves = list(report.get("moves") or [])
    scrabbles = list(report.get("scrabbles") or [])
    superscrabble = _answers_only(problem)  # answers on the given grid
    step = min(max(step, 1), len(moves)) if moves else 0
    steps, built = replay(pz, moves, accumulate=not superscrabble,
                          draw={step - 1, len(moves) - 1})
    # Superscrabble incomplet: the answers go on the player's own construction. Answers
    # are listed, not drawn.
    scrabble_steps, _ = (
        replay(pz, scrabbles, accumulate=False, base=None if superscrabble else built,
               draw=set())
        if scrabbles else ([], None)
    )
    history = list(session.exec(
        select(Verification)
        .where(Verification.submission_id == rows.submission.id)
        .order_by(col(Verification.run))
    ).all())
    rulings = list(session.exec(
        select(Ruling).where(Ruling.problem_id == problem.id, col(Ruling.revoked_at).is_(None))
        .order_by(col(Ruling.created_at))
    ).all())
    appeals = list(session.exec(
        select(Appeal).where(Appeal.verification_id == verification.id)
        .order_by(col(Appeal.created_at))
    ).all())
    final_board = steps[-1].grid if steps else (
        Grid(pz.initial_board(), pz.tileset) if pz else None)
    return ReportPage(
        rows=rows, report=report, steps=steps, step=step,
        current=steps[step - 1] if steps else None, scrabble_steps=scrabble_steps,
        zero_count=sum(1 for st in steps + scrabble_steps if st.is_zero),
        history=history, rulings=rulings, appeals=appeals, final_board=final_board,
    )


def report_step(session: Session, verification_id: int, index: int, *,
                viewer_id: int | None, arbitre: bool) -> Step | None:
    """Step ``index`` (1-based) of a report's replay, with its grid (the stepper fetches
    it); None when there is no such report or step; :class:`ReportHidden` as
    :func:`report_page`."""
    rows = _report_rows(session, verification_id, viewer_id=viewer_id, arbitre=arbitre)
    if rows is None:
        return None
    moves = list((rows.verification.report or {}).get("moves") or [])
    if not 1 <= index <= len(moves):
        return None
    steps, _ = replay(readable_puzzle(rows.problem), moves[:index],
                      accumulate=not _answers_only(rows.problem), draw={index - 1})
    return steps[-1]


def reference_solution(problem: Problem, *, arbitre: bool) -> dict[str, Any] | None:
    """The reference solution stored with the problem, shown once results are public (to
    the arbitre always)."""
    if problem.status not in RESULTS_STATUSES and not arbitre:
        return None
    return reference_data_of(problem)


def reference_grid(pz: PuzzleProblem | None, reference: dict[str, Any] | None) -> Grid | None:
    """The final grid of the reference solution's moves (None without moves)."""
    if reference is None or pz is None or not reference.get("moves"):
        return None
    ref_moves = list(reference["moves"])
    steps, _ = replay(pz, ref_moves, accumulate=not pz.game.family.answers_only,
                      draw={len(ref_moves) - 1})  # only the final grid is shown
    return steps[-1].grid if steps else None
