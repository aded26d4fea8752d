"""Verifying the batch: every player's latest on-time (or accepted-late) sheet of a problem,
with the problem's lexicon and the arbitre's rulings, through ``puzzles.verify``.

One :class:`~webapp.models.Verification` per submission and lexicon: the batch is
idempotent. A re-run (after a ruling, an appeal) first shows a preview of the ranking
changes; applying it supersedes the current reports with new ones carrying the reason.

A preview runs in the arbitre's web request, so its verifier work is bounded by a time
budget (``RERUN_PREVIEW_SECONDS``, default :data:`PREVIEW_SECONDS`): when the budget runs out
the preview is *partial* (it says how many sheets it re-verified) and asking again goes on
from there, because each sheet's result is kept in this process (:data:`RESULT_CACHE_SIZE`
results, keyed by sheet, word list and rulings, problem settings and round times). Applying
needs a complete preview and reuses those results instead of verifying everything again.
Rulings are inputs: accepted/rejected words change the word list the verifier is given,
excluded sheets are verified but not ranked. Scores are never edited by hand.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Any

from flask import current_app, has_app_context
from sqlmodel import Session, col, select

from puzzles.problem import LexiconRef
from puzzles.verify import MoveStatus, verify
from scoring.lexicon import Lexicon, LexiconIdentity
from scoring.notation import parse_word
from webapp.models import (
    Player,
    Problem,
    Ruling,
    RulingKind,
    Submission,
    Verification,
)
from webapp.services import audit, clock, rankings, rounds
from webapp.services.lexicons import LexiconMismatch, base_lexicon
from webapp.services.stored import feuille_of, puzzle_of, rule_settings_of
from webapp.services.versions import eligible_submissions


class VerificationError(Exception):
    """The batch cannot be verified as configured (French message for the arbitre)."""


# --- lexicons ------------------------------------------------------------------------------


def word_rulings(session: Session, problem: Problem) -> tuple[frozenset[str], frozenset[str]]:
    rows = session.exec(
        select(Ruling).where(
            Ruling.problem_id == problem.id, col(Ruling.revoked_at).is_(None),
            col(Ruling.kind).in_((RulingKind.ACCEPT_WORD, RulingKind.REJECT_WORD)),
        )
    ).all()
    accept = frozenset((r.word or "").upper() for r in rows if r.kind == RulingKind.ACCEPT_WORD)
    reject = frozenset((r.word or "").upper() for r in rows if r.kind == RulingKind.REJECT_WORD)
    return accept, reject


class RuledLexicon:
    """The base list with the arbitre's word rulings on top: ``accept`` words are in,
    ``reject`` words are out. Its identity differs from the base list's, so every report
    says which list (and which rulings) judged it."""

    def __init__(self, base: Lexicon, accept: frozenset[str], reject: frozenset[str]) -> None:
        self.base, self.accept, self.reject = base, accept - reject, reject
        h = hashlib.sha256(base.identity.sha256.encode())
        for w in sorted(self.accept):
            h.update(f"\n+{w}".encode())
        for w in sorted(reject):
            h.update(f"\n-{w}".encode())
        count = (base.identity.word_count
                 + sum(1 for w in self.accept if w not in base)
                 - sum(1 for w in reject if w in base))
        self.identity = LexiconIdentity(f"{base.identity.name}+décisions", h.hexdigest(), count)

    def __contains__(self, word: object) -> bool:
        if word in self.accept:
            return True
        return word not in self.reject and word in self.base


def ruled_lexicon(session: Session, problem: Problem) -> Any:
    """The problem's list with the arbitre's word rulings applied."""
    try:
        base = base_lexicon(problem)
    except LexiconMismatch as exc:  # the batch stops, as any unusable configuration
        raise VerificationError(str(exc)) from None
    accept, reject = word_rulings(session, problem)
    if not accept and not reject:
        return base
    return RuledLexicon(base, accept, reject)


def add_ruling(
    *, session: Session, problem: Problem, kind: RulingKind | str, actor: str,
    arbitre_id: int | None = None, word: str | None = None,
    submission: Submission | None = None, comment: str = "",
) -> Ruling:
    """Record a ruling; ``kind`` may be the console form's string (French ``ValueError``
    when it names no :class:`RulingKind`)."""
    try:
        kind = RulingKind(kind)
    except ValueError:
        raise ValueError(f"Type de décision inconnu : {kind}") from None
    if kind in (RulingKind.ACCEPT_WORD, RulingKind.REJECT_WORD):
        if not word:
            raise ValueError("Une décision sur un mot doit nommer le mot.")
        word = parse_word(word).upper()
    elif submission is None:
        raise ValueError("Une décision sur une feuille doit désigner la feuille.")
    if not comment.strip():
        raise ValueError("Motivez la décision (elle figure dans les rapports).")
    assert problem.id is not None
    ruling = Ruling(
        problem_id=problem.id, kind=kind, word=word, comment=comment.strip(),
        submission_id=submission.id if submission else None, arbitre_id=arbitre_id,
        created_at=clock.now(),
    )
    session.add(ruling)
    session.flush()
    audit.record(session=session, actor=actor, action="ruling.add", target=problem.code,
                 kind=kind, word=word, submission=ruling.submission_id, comment=ruling.comment)
    return ruling


def current_verification(session: Session, submission: Submission) -> Verification | None:
    return session.exec(
        select(Verification)
        .where(Verification.submission_id == submission.id)
        .where(col(Verification.superseded_at).is_(None))
        .order_by(col(Verification.run).desc())
    ).first()


# --- running the verifier ------------------------------------------------------------------


@dataclass
class VerifierResult:
    valid: bool
    final_score: int
    report: dict[str, Any]
    text: str


def run_verifier(
    problem: Problem, submission: Submission, lexicon: Any, *, round_times: Any = None
) -> VerifierResult:
    """``puzzles.verify.verify`` on one stored sheet (it never raises; neither does this).
    ``round_times``: the sheet's :class:`puzzles.rounds.RoundTimes` when the groups of an
    Anticipation were announced move by move (:func:`webapp.services.rounds.round_times_for`)."""
    feuille = feuille_of(submission)
    if feuille is None:
        return VerifierResult(
            False, 0, {"error": "feuille illisible"},
            "La feuille n'a pas pu être lue ; aucun coup n'est retenu.",
        )

    puzzle = puzzle_of(problem)
    if isinstance(lexicon, RuledLexicon):
        # the published list was checked in base_lexicon(); the rulings make a new identity
        i = lexicon.identity
        puzzle = replace(puzzle, lexicon=LexiconRef(i.name, i.sha256, i.word_count))
    report = verify(puzzle, feuille, lexicon, rule_settings_of(problem),
                    round_times=round_times)
    return VerifierResult(
        valid=sheet_is_valid(report), final_score=int(report.final_score),
        report=report.to_dict(), text=report.to_text(),
    )


def sheet_is_valid(report: Any) -> bool:
    """No sheet-level error and no move judged zero (warnings and penalties allowed)."""
    ok = {MoveStatus.VALID, MoveStatus.WARNING, MoveStatus.PENALTY, MoveStatus.PASSED,
          MoveStatus.ANNULLED, MoveStatus.NOT_PLAYED}
    return not report.errors and all(m.status in ok for m in report.moves)


def verify_problem(*, session: Session, problem: Problem, actor: str) -> list[Verification]:
    """Verify every eligible sheet that has no current report yet (idempotent)."""
    lexicon = ruled_lexicon(session, problem)
    ident = lexicon.identity
    created = []
    subs = eligible_submissions(session, problem)
    done = set(session.exec(
        select(Verification.submission_id)
        .where(col(Verification.submission_id).in_([s.id for s in subs]))
        .where(col(Verification.superseded_at).is_(None))
    ).all())
    times = rounds.round_times_for(session, problem, [s for s in subs if s.id not in done])
    for sub in subs:
        if sub.id in done:
            continue
        res = run_verifier(problem, sub, lexicon, round_times=times.get(sub.id or 0))
        assert sub.id is not None
        v = Verification(
            submission_id=sub.id, lexicon_name=ident.name, lexicon_sha256=ident.sha256,
            run=1, valid=res.valid, report=res.report | {"text": res.text},
            final_score=res.final_score, created_at=clock.now(), reason="vérification initiale",
        )
        session.add(v)
        created.append(v)
    session.flush()
    audit.record(session=session, actor=actor, action="verification.batch", target=problem.code,
                 created=len(created), lexicon=ident.name, lexicon_sha256=ident.sha256)
    return created


# --- re-runs -------------------------------------------------------------------------------


@dataclass
class RowChange:
    player_id: int
    name: str
    old_rank: int | None
    new_rank: int | None
    old_score: int | None
    new_score: int | None

    @property
    def rank_changed(self) -> bool:
        """The place differs (a player entering or leaving the ranking changes place too)."""
        return self.old_rank != self.new_rank


@dataclass
class RerunPreview:
    reason: str
    lexicon_name: str
    lexicon_sha256: str
    results: dict[int, VerifierResult]  # by submission id
    changes: list[RowChange] = field(default_factory=list)
    new_rows: list[dict[str, Any]] = field(default_factory=list)
    sheets: int = 0  # eligible sheets; ``len(results)`` of them were re-verified
    budget_seconds: float | None = None

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    @property
    def rank_changes(self) -> list[RowChange]:
        """The players whose place moves (or who enter or leave the ranking): what the
        console counts as « changements de classement »."""
        return [c for c in self.changes if c.rank_changed]

    @property
    def score_only_changes(self) -> list[RowChange]:
        """The players whose score changes but whose place stays the same."""
        return [c for c in self.changes if not c.rank_changed]

    @property
    def complete(self) -> bool:
        return len(self.results) >= self.sheets


#: Seconds of verifier work a preview may spend in one web request (the arbitre's page), when
#: the configuration sets no ``RERUN_PREVIEW_SECONDS``.
PREVIEW_SECONDS = 20.0
#: Verifier results kept in the process for the previews (oldest dropped first).
RESULT_CACHE_SIZE = 5000

_results: OrderedDict[tuple[Any, ...], VerifierResult] = OrderedDict()
_results_lock = threading.Lock()


def _result_key(problem: Problem, sub: Submission, lexicon: Any, times: Any) -> tuple[Any, ...]:
    params = hashlib.sha256(
        json.dumps(problem.params, sort_keys=True, default=str).encode()
    ).hexdigest()
    feuille = hashlib.sha256(
        json.dumps(sub.feuille, sort_keys=True, default=str).encode()
    ).hexdigest()
    return (sub.id, feuille, lexicon.identity.sha256, params, repr(times))


def _cached_verifier(problem: Problem, sub: Submission, lexicon: Any, times: Any,
                     deadline: float | None) -> VerifierResult | None:
    """The sheet's result, from the process's cache or computed; None when it is not in the
    cache and ``deadline`` (``time.monotonic()``) has passed."""
    key = _result_key(problem, sub, lexicon, times)
    with _results_lock:
        hit = _results.get(key)
        if hit is not None:
            _results.move_to_end(key)
            return hit
    if deadline is not None and time.monotonic() >= deadline:
        return None
    res = run_verifier(problem, sub, lexicon, round_times=times)
    with _results_lock:
        _results[key] = res
        while len(_results) > RESULT_CACHE_SIZE:
            _results.popitem(last=False)
    return res


def preview_seconds() -> float:
    if has_app_context():
        return float(current_app.config.get("RERUN_PREVIEW_SECONDS", PREVIEW_SECONDS))
    return PREVIEW_SECONDS


def preview_rerun(*, session: Session, problem: Problem, reason: str,
                  budget_seconds: float | None = None) -> RerunPreview:
    """What a re-run would change, without writing anything. ``budget_seconds``: verifier
    work allowed (None: no bound); sheets not reached keep their current report in the
    preview, which is then partial (``RerunPreview.complete`` is False)."""
    if not reason.strip():
        raise ValueError("Indiquez le motif de la nouvelle vérification.")
    lexicon = ruled_lexicon(session, problem)
    subs = eligible_submissions(session, problem)
    times = rounds.round_times_for(session, problem, subs)
    deadline = time.monotonic() + budget_seconds if budget_seconds is not None else None
    results: dict[int, VerifierResult] = {}
    for sub in subs:
        if sub.id is None:
            continue
        res = _cached_verifier(problem, sub, lexicon, times.get(sub.id), deadline)
        if res is not None:
            results[sub.id] = res
    old_rows = rankings.compute_rows(session=session, problem=problem)
    new_rows = rankings.compute_rows(
        session=session, problem=problem,
        override={sid: (r.final_score, r.valid, r.report) for sid, r in results.items()},
    )
    old = {r["player_id"]: r for r in old_rows}
    new = {r["player_id"]: r for r in new_rows}
    names = {p.id: p.name for p in session.exec(select(Player)).all()}
    changes = []
    for pid in sorted(set(old) | set(new)):
        o, n = old.get(pid), new.get(pid)
        before = (o["rank"], o["score"]) if o else (None, None)
        after = (n["rank"], n["score"]) if n else (None, None)
        if before != after:
            changes.append(RowChange(pid, names.get(pid, "?"), before[0], after[0],
                                     before[1], after[1]))
    ident = lexicon.identity
    return RerunPreview(reason.strip(), ident.name, ident.sha256, results, changes, new_rows,
                        sheets=sum(1 for sub in subs if sub.id is not None),
                        budget_seconds=budget_seconds)


def apply_rerun(
    *, session: Session, problem: Problem, preview: RerunPreview, actor: str
) -> list[Verification]:
    """Write the re-run shown in ``preview``: new reports (run n+1), old ones superseded,
    and a new ranking of the same kind as the current one. The preview must be complete."""
    if not preview.complete:
        raise ValueError(
            f"Aperçu partiel ({len(preview.results)} feuilles revérifiées sur "
            f"{preview.sheets}) : terminez l'aperçu avant d'appliquer."
        )

    now = clock.now()
    created = []
    for sub_id, res in preview.results.items():
        sub = session.get(Submission, sub_id)
        assert sub is not None
        cur = current_verification(session, sub)
        last_run = session.exec(
            select(Verification.run)
            .where(Verification.submission_id == sub_id,
                   Verification.lexicon_sha256 == preview.lexicon_sha256)
            .order_by(col(Verification.run).desc())
        ).first()
        if cur is not None:
            cur.superseded_at = now
            session.add(cur)
        v = Verification(
            submission_id=sub_id, lexicon_name=preview.lexicon_name,
            lexicon_sha256=preview.lexicon_sha256, run=(last_run or 0) + 1, valid=res.valid,
            report=res.report | {"text": res.text}, final_score=res.final_score,
            created_at=now, reason=preview.reason,
        )
        session.add(v)
        created.append(v)
    session.flush()
    audit.record(
        session=session, actor=actor, action="verification.rerun", target=problem.code,
        reason=preview.reason, changes=[c.__dict__ for c in preview.changes],
    )
    rankings.republish_after_rerun(session=session, problem=problem, actor=actor,
                                   comment=preview.reason)
    return created
