"""Checks on a sheet before it is stored, shared by the web form and the mail intake.

- :func:`too_long`: a sheet with more lines than any solution of the problem can have
  (``puzzles.limits``) is refused before anything is stored, with a French message;
  :func:`webapp.services.submissions.submit_sheet` raises ``SubmissionRefused`` with it.
- :func:`unreadable_replacement`: the new text has lines the parser cannot read while the
  version that counts now reads whole. The web form shows those lines and asks the player to
  confirm before the new version replaces the readable one; by mail, where nobody can be
  asked, the sheet is stored and ``SubmissionOutcome.replaces_readable`` tells the receipt to
  say so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session

from puzzles.feuille import parse_feuille
from puzzles.limits import too_long as limit_message
from webapp.models import Problem, Submission
from webapp.services.stored import puzzle_of
from webapp.services.versions import latest_submission


def parse(problem: Problem, text: str) -> Any:
    """``puzzles.feuille.parse_feuille`` as ``submit_sheet`` reads (and stores) a sheet."""
    return parse_feuille(text)


def too_long(problem: Problem, text: str, *, parsed: Any = None) -> str | None:
    """French refusal when ``text`` holds more lines than the problem's bound; ``parsed``:
    :func:`parse` of ``text`` when the caller already has it (read once)."""
    try:
        puzzle = puzzle_of(problem)
    except (ValueError, KeyError, TypeError):
        return None  # a damaged problem row: the arbitre sees it; the sheet is still taken
    return limit_message(puzzle, parsed if parsed is not None else parse(problem, text))


@dataclass
class UnreadableReplacement:
    """The new text's unreadable lines, and the readable version it would replace."""

    current: Submission
    errors: list[dict[str, Any]] = field(default_factory=list)


def unreadable_replacement(
    *, session: Session, player_id: int, problem: Problem, text: str
) -> UnreadableReplacement | None:
    """Not None when ``text`` has unreadable lines and the player's latest version of this
    problem (the one that counts) has none."""
    parsed = parse(problem, text)
    if not parsed.errors:
        return None
    current = latest_submission(session=session, player_id=player_id,
                                problem_id=problem.id or 0)
    if current is None or current.parse_errors:
        return None
    return UnreadableReplacement(
        current, [{"line": e.line, "message": e.message, "text": e.text} for e in parsed.errors]
    )
