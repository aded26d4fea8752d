"""The verifier: judges one player's feuille de route against a problem and a lexicon, and
writes the :class:`Report` (per move: status, French reasons, claimed and true score, cumul;
then warnings, penalties and the final score).

Procedure (RULES §5.2, formalised): the player's own grid is replayed move by move on a
*physical* board (what he built). Each move is materialised, its letters checked against
what the game makes available (stock, announced group, next letters of the row, pool),
its placement and every word it forms checked, and its true score computed. A move that
fails is worth 0 but stays on the physical board; the *effective* board leaves it out.
Afterwards the cascade: every later move that forms a word containing a tile of a zeroed or
annulled move, or that would not be legal on the effective board, is zeroed too, move by
move, so zeros propagate to any depth. Warnings (wrong or missing score, cumul, letters)
are counted one per billet and turned into penalties per RULES §5.3.

:func:`verify` never raises on a bad sheet: whatever it cannot read becomes a reason.

The package is split by concern: :mod:`puzzles.verify.report` (report types, JSON and text
forms), :mod:`puzzles.verify.replay` (the replay and cascade core),
:mod:`puzzles.verify.supply` (letter-supply rules per game family) and
:mod:`puzzles.verify.entry` (the working state of a sheet line). This module owns the entry
points :func:`verify` and :func:`verify_text` and re-exports the report types.
"""

from __future__ import annotations

from dataclasses import replace

from puzzles.feuille import Feuille, parse_feuille
from puzzles.problem import Problem
from puzzles.rounds import RoundTimes
from puzzles.settings import Settings
from puzzles.verify.replay import DEFAULT_SETTINGS, Verifier
from puzzles.verify.report import MoveReport, MoveStatus, Report
from scoring.config import WordList

__all__ = ["MoveReport", "MoveStatus", "Report", "verify", "verify_text"]


def verify_text(
    problem: Problem,
    text: str,
    lexicon: WordList,
    settings: Settings | None = None,
    *,
    round_times: RoundTimes | None = None,
) -> Report:
    """Parse a sheet and verify it; the parser's line errors open the report's errors."""
    parsed = parse_feuille(text, superscrabble=problem.game.family.answers_only)
    report = verify(problem, parsed.feuille, lexicon, settings, round_times=round_times)
    if not parsed.errors:
        return report
    return replace(report, errors=tuple(str(e) for e in parsed.errors) + report.errors)


def verify(
    problem: Problem,
    feuille: Feuille,
    lexicon: WordList,
    settings: Settings | None = None,
    *,
    round_times: RoundTimes | None = None,
) -> Report:
    """Judge ``feuille`` against ``problem`` with ``lexicon`` (never raises on a bad sheet).

    ``round_times`` (Anticipation family played by correspondence, :mod:`puzzles.rounds`):
    a billet sent after its round closed scores zero, a late annulment is ignored. None (the
    whole order published at once, composition games, the CLI): no timing is judged."""
    return Verifier(problem, feuille, lexicon, settings or DEFAULT_SETTINGS, round_times).run()

