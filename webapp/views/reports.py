"""A verification report as a page: the player's grid replayed move by move, each move's
status with the verifier's reasons, and the summary (total, warnings, penalty, final score,
word list).

The page draws two grids only, the final one and the move being looked at (``?coup=k``);
the stepper fetches the others one at a time (``/rapports/<id>/coups/<k>``), so a long
sheet does not make a page of one grid per move (1,000 grids were 44 MB).

The replay only redraws what the report says: tiles of moves the verifier zeroed stay on
the player's grid, tinted (RULES §5.2); annulled moves leave the grid; Superscrabble answers
are each shown on the given grid. No score is recomputed here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flask_babel import gettext  # type: ignore[import-untyped]
from sqlmodel import Session, col, select

from puzzles.families import family_or_none
from puzzles.problem import Problem as PuzzleProblem
from scoring.board import Board
from scoring.errors import EngineError
from scoring.move import Placement
from webapp.board_svg import board_svg
from webapp.models import Appeal, Problem, Ruling, Submission, Verification
from webapp.services.problems import readable_puzzle

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


@dataclass
class Step:
    """One move of the replay."""

    move: dict[str, Any]
    svg: str | None
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
    grid is drawn (``svg``); None draws every step."""
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
        svg = None
        if draw is None or len(steps) in draw:
            title = gettext("Grille après le coup %(number)s", number=m.get("number", "?"))
            svg = board_svg(grid, tileset=ts, highlight=new,
                            zeroed=(zeroed if accumulate else set(new) if is_zero else set()),
                            title=title)
        steps.append(Step(m, svg, STATUS_CLASS.get(status, ""), is_zero, placed, removed))
    return steps, board


def replay_step(problem: Problem, verification: Verification, index: int) -> Step | None:
    """Step ``index`` (1-based) of the report's replay, with its grid; None out of range."""
    moves = list((verification.report or {}).get("moves") or [])
    if not 1 <= index <= len(moves):
        return None
    fam = family_or_none(problem.game)
    superscrabble = fam is not None and fam.answers_only
    steps, _ = replay(readable_puzzle(problem), moves[:index], accumulate=not superscrabble,
                      draw={index - 1})
    return steps[-1]


def report_context(s: Session, problem: Problem, submission: Submission,
                   verification: Verification, step: int = 1) -> dict[str, Any]:
    """Everything the report page shows; ``step``: the move (1-based) whose grid is drawn
    in the replay (clamped to the moves there are)."""
    report = dict(verification.report or {})
    pz = readable_puzzle(problem)
    moves = list(report.get("moves") or [])
    scrabbles = list(report.get("scrabbles") or [])
    fam = family_or_none(problem.game)
    superscrabble = fam is not None and fam.answers_only  # answers on the given grid
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
    history = s.exec(
        select(Verification)
        .where(Verification.submission_id == submission.id)
        .order_by(col(Verification.run))
    ).all()
    rulings = s.exec(
        select(Ruling).where(Ruling.problem_id == problem.id, col(Ruling.revoked_at).is_(None))
        .order_by(col(Ruling.created_at))
    ).all()
    appeals = s.exec(
        select(Appeal).where(Appeal.verification_id == verification.id)
        .order_by(col(Appeal.created_at))
    ).all()
    zero_count = sum(1 for st in steps + scrabble_steps if st.is_zero)
    return {
        "report": report,
        "steps": steps,
        "step": step,
        "current": steps[step - 1] if steps else None,
        "scrabble_steps": scrabble_steps,
        "zero_count": zero_count,
        "history": history,
        "rulings": rulings,
        "appeals": appeals,
        "final_board": steps[-1].svg if steps else (
            board_svg(pz.initial_board(), tileset=pz.tileset) if pz else None
        ),
    }
