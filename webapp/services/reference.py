"""A problem's reference solution: computed by ``puzzles.solver`` or entered by the arbitre as
a feuille, scored by the verifier with the problem's word list; its score becomes the
problem's ``reference_score`` (the 100 % of the ranking) and the solution is published with
the results.

:func:`compute` works without the database (the solver may run for a minute: no
transaction is held open meanwhile); :func:`store` writes it with its audit entry.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlmodel import Session

from puzzles.feuille import parse_feuille
from puzzles.solver import SolverError, solve
from puzzles.verify import verify
from webapp.models import Problem
from webapp.services import audit, clock, lexicons
from webapp.services.stored import readable_puzzle, rule_settings_of

#: the longest the console lets the solver run
MAX_SOLVER_SECONDS = 60


class ReferenceRefused(ValueError):
    """No reference solution (French message; ``errors``: the unreadable lines of an entered
    feuille, each in French)."""

    def __init__(self, message: str, errors: list[str] | None = None) -> None:
        super().__init__(message)
        self.errors = errors or []


@dataclass(frozen=True)
class Reference:
    """A verified reference solution, as stored in ``Problem.params["reference"]``."""

    source: str
    total: int
    unit: str
    data: dict[str, Any]


def compute(problem: Problem, *, solve_seconds: int | None = None,
            text: str | None = None) -> Reference:
    """Solve (``solve_seconds``, bounded to 1..:data:`MAX_SOLVER_SECONDS`) or read the
    arbitre's ``text``; then verify. Raises :class:`ReferenceRefused`."""
    pz = readable_puzzle(problem)
    if pz is None:
        raise ReferenceRefused("Énoncé illisible : pas de solution de référence possible.")
    try:
        lexicon = lexicons.base_lexicon(problem)
        settings = rule_settings_of(problem)
        if solve_seconds is not None:
            seconds = min(MAX_SOLVER_SECONDS, max(1, solve_seconds))
            solution = solve(pz, lexicon, seconds=seconds, settings=settings)
            feuille, source = solution.feuille, f"solveur ({seconds} s" + (
                ", optimum prouvé)" if solution.exact else ")")
        else:
            parsed = parse_feuille(text or "")
            if parsed.errors:
                raise ReferenceRefused(
                    "Solution de référence illisible.",
                    [f"Solution de référence — {e}" for e in parsed.errors])
            feuille, source = parsed.feuille, "arbitre"
    except (SolverError, lexicons.LexiconMismatch) as exc:
        raise ReferenceRefused(str(exc)) from None
    except ReferenceRefused:
        raise
    except ValueError as exc:
        raise ReferenceRefused(str(exc)) from None
    report = verify(pz, feuille, lexicon, settings)
    data = {
        "source": source,
        "total": report.final_score,
        "unit": report.unit,
        "moves": [m.to_dict() for m in report.moves],
        "scrabbles": [m.to_dict() for m in report.scrabbles],
        "computed_at": clock.now().isoformat(),
    }
    return Reference(source, report.final_score, report.unit, data)


def store(*, session: Session, problem: Problem, reference: Reference, actor: str) -> None:
    """The reference into the problem's row (and its score as ``reference_score``), audited."""
    # a new dict: the JSON column only notices a reassignment
    problem.params = {**problem.params, "reference": reference.data}
    problem.reference_score = reference.total or None
    session.add(problem)
    audit.record(session=session, actor=actor, action="problem.reference", target=problem.code,
                 source=reference.source, total=reference.total)
