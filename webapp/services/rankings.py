"""Rankings of a problem: computed from the current verifications with
``puzzles.ranking.rank`` (ties by the earlier receive time), stored as provisional or final
rows, and announced to the players through the outbox (personal report + ranking)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from flask_babel import lazy_gettext as _l  # type: ignore[import-untyped]
from sqlalchemy.orm import defer
from sqlmodel import Session, col, select

from puzzles.families import RankBy, Unit, family_or_none
from puzzles.ranking import RankEntry, rank
from webapp.models import (
    Competition,
    Player,
    Problem,
    ProblemStatus,
    Ranking,
    RankingKind,
    Registration,
    Submission,
    Verification,
)
from webapp.services import audit, clock, notify
from webapp.services.stored import puzzle_of, report_from
from webapp.services.versions import (
    counting_versions,
    excluded_submissions,
    latest_versions,
    standing_since,
)

#: what :func:`compute_rows` accepts instead of the stored report of a submission
Override = Mapping[int, tuple[int, bool, dict[str, Any]]]


def compute_rows(
    *, session: Session, problem: Problem, override: Override | None = None
) -> list[dict[str, Any]]:
    """The ranking rows as they stand (or as they would with ``override``)."""
    excluded = excluded_submissions(session, problem)
    entrants = entrant_ids(session, problem)
    versions = counting_versions(session, problem)
    subs = [s for s in latest_versions(versions)
            if s.id is not None and s.id not in excluded
            and (entrants is None or s.player_id in entrants)]
    # two queries for the whole batch rather than two per sheet
    current: dict[int, Verification] = {}
    for v in session.exec(
        select(Verification)
        .where(col(Verification.submission_id).in_([s.id for s in subs]))
        .where(col(Verification.superseded_at).is_(None))
        .order_by(col(Verification.run))
    ).all():
        current[v.submission_id] = v
    people = {p.id: p for p in session.exec(
        select(Player).where(col(Player.id).in_([s.player_id for s in subs]))).all()}
    since = standing_since(versions)  # an identical copy keeps the first's time
    entries: list[dict[str, Any]] = []
    for sub in subs:
        assert sub.id is not None
        if override is not None and sub.id in override:
            score, valid, report = override[sub.id]
            verification_id = None
        else:
            cur = current.get(sub.id)
            if cur is None:
                continue
            score, valid, report, verification_id = (
                cur.final_score, cur.valid, cur.report, cur.id
            )
        player = people[sub.player_id]
        entries.append({
            "player_id": player.id, "name": player.name, "club": player.club,
            "submission_id": sub.id, "verification_id": verification_id,
            "received_at": since.get(sub.id, sub.received_at), "score": score, "valid": valid,
            "report": report,
        })
    return rank_entries(problem, entries)


def entrant_ids(session: Session, problem: Problem) -> set[int] | None:
    """The players who may be ranked in ``problem``: those registered in its competition;
    ``None`` (everyone) when the arbitre opened the competition to all."""
    comp = session.get(Competition, problem.competition_id)
    if comp is not None and comp.open_registration:
        return None
    return set(session.exec(select(Registration.player_id)
                            .where(Registration.competition_id == problem.competition_id)))


def rank_entries(problem: Problem, entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Order ``entries`` with ``puzzles.ranking.rank`` (ties: earlier receive time) and
    return JSON-ready rows. Percentages are of the problem's reference score when the arbitre
    set one, else of the best score (the winner has 100 %)."""
    rank_input = []
    for e in entries:
        try:
            report = report_from(e["report"])
        except (KeyError, ValueError, TypeError):
            continue  # an unreadable sheet has no report to rank
        rank_input.append(RankEntry(entry_id=str(e["submission_id"]), report=report,
                                    submitted_at=e["received_at"]))
    best = max((r.report.final_score for r in rank_input), default=None)
    reference = problem.reference_score or best
    ranked = rank(puzzle_of(problem), rank_input, reference=reference)
    by_key = {str(e["submission_id"]): e for e in entries}
    rows = []
    for r in ranked:
        e = by_key[r.entry_id]
        rows.append({
            "rank": r.rank, "player_id": e["player_id"], "name": e["name"], "club": e["club"],
            "score": r.final_score, "unit": r.unit, "percent": r.percent,
            "ex_aequo": r.ex_aequo, "warnings": r.report.warnings, "penalty": r.report.penalty,
            "submission_id": e["submission_id"], "verification_id": e["verification_id"],
            "received_at": _iso(e["received_at"]),
        })
    return rows


def _iso(dt: datetime) -> str:
    return dt.isoformat()


#: the statuses in which a problem's ranking and results are public
RESULTS_STATUSES = (ProblemStatus.PROVISIONAL, ProblemStatus.FINAL)


def published_ranking(session: Session, problem: Problem, *,
                      with_rows: bool = True) -> Ranking | None:
    """The ranking in force once results are public (:data:`RESULTS_STATUSES`), else None.
    Without ``with_rows`` the (large) rows column is not loaded."""
    if problem.status not in RESULTS_STATUSES:
        return None
    return current_ranking(session, problem, with_rows=with_rows)


def current_ranking(session: Session, problem: Problem, kind: RankingKind | None = None, *,
                    with_rows: bool = True) -> Ranking | None:
    """The ranking in force (of ``kind`` when given): the newest not superseded."""
    q = select(Ranking).where(Ranking.problem_id == problem.id)
    if not with_rows:
        q = q.options(defer(Ranking.rows))  # type: ignore[arg-type]
    q = q.where(col(Ranking.superseded_at).is_(None))
    if kind is not None:
        q = q.where(Ranking.kind == kind)
    return session.exec(q.order_by(col(Ranking.created_at).desc(), col(Ranking.id).desc())).first()


def publish_ranking(
    *, session: Session, problem: Problem, kind: RankingKind, actor: str, comment: str = "",
    defer_mails: bool = False,
) -> Ranking | None:
    """Store a ranking of ``kind`` (superseding the previous one of that kind) and enqueue
    the results mails. Publishing the same kind twice without change re-sends nothing.

    ``defer_mails`` (the scheduler): the results mails are not composed in this transaction;
    the ranking is stored without ``mailed_at`` and ``lifecycle.announce_pending`` composes
    them after its commit, a chunk per transaction (:func:`results_personal`,
    :func:`announce`), so a deadline's ranking is published without waiting for one mail
    per player.

    An empty ranking (no sheet ranked) is not published: no ranking row, no results mail,
    and a ranking in force is withdrawn; the audit log says why (``ranking.withheld``, shown
    by :func:`withheld_reason`). Returns None then."""
    rows = compute_rows(session=session, problem=problem)
    previous = current_ranking(session, problem, kind)
    if not rows:
        _withhold(session, problem, kind, actor)
        return None
    if previous is not None and previous.rows == rows:
        return previous
    now = clock.now()
    if previous is not None:
        previous.superseded_at = now
        session.add(previous)
    assert problem.id is not None
    ranking = Ranking(problem_id=problem.id, kind=kind, comment=comment, rows=rows,
                      created_at=now)
    session.add(ranking)
    session.flush()
    audit.record(session=session, actor=actor, action=f"ranking.{kind}", target=problem.code,
                 ranking=ranking.id, comment=comment, entries=len(rows))
    if not defer_mails:
        _announce(session, problem, ranking, revision=previous is not None)
        ranking.mailed_at = now
        session.add(ranking)
    return ranking


def _withhold(session: Session, problem: Problem, kind: RankingKind, actor: str) -> None:
    now = clock.now()
    withdrawn = []
    for cur in session.exec(select(Ranking).where(
            Ranking.problem_id == problem.id, col(Ranking.superseded_at).is_(None))).all():
        cur.superseded_at = now
        session.add(cur)
        withdrawn.append(cur.id)
    audit.record(session=session, actor=actor, action="ranking.withheld", target=problem.code,
                 kind=kind, sheets=sheets_received(session, problem), withdrawn=withdrawn)


def sheets_received(session: Session, problem: Problem) -> int:
    """How many players sent at least one sheet for ``problem`` (on time or not)."""
    return len(set(session.exec(
        select(Submission.player_id).where(Submission.problem_id == problem.id)).all()))


def empty_reason(received: int) -> str:
    """Why a ranking is empty, in the reader's language: ``received`` players sent a sheet."""
    if received == 0:
        return str(_l("Aucune feuille n'a été reçue : il n'y a pas de classement à publier."))
    return str(_l("Aucune des feuilles reçues (%(n)s joueur(s)) n'est classée — arrivées "
                  "après la clôture, écartées par une décision, illisibles ou d'un joueur "
                  "non inscrit : il n'y a pas de classement à publier.", n=received))


def withheld_reason(session: Session, problem: Problem) -> str | None:
    """Why ``problem`` has no ranking although its results are due (the console's
    explanation: :func:`publish_ranking` withheld an empty one), or None when a ranking is
    in force or it is too early for one."""
    if problem.status not in RESULTS_STATUSES:
        return None
    if current_ranking(session, problem, with_rows=False) is not None:
        return None
    return empty_reason(sheets_received(session, problem))


def ranked_problem_ids(session: Session, problem_ids: list[int]) -> set[int]:
    """Those of ``problem_ids`` with a ranking in force (an empty one is never stored): the
    pages link to « classement » for these only."""
    if not problem_ids:
        return set()
    return set(session.exec(select(Ranking.problem_id).where(
        col(Ranking.problem_id).in_(problem_ids), col(Ranking.superseded_at).is_(None))).all())


def rule_sentences(problem: Problem) -> list[str]:
    """How ``problem`` is ranked, in words (the console shows them; the reader's language):
    what orders the sheets (``puzzles.ranking.performance_key`` of its family), the
    tie-break, and what the percentages are of."""
    fam = family_or_none(problem.game)
    rank_by = fam.rank_by if fam is not None else RankBy.SCORE
    if rank_by is RankBy.SCORE_VECTOR:
        first = _l("Classement par les scores corrigés coup par coup, comparés dans l'ordre "
                   "(le premier coup d'abord, puis le deuxième…) ; à égalité, le moins de "
                   "points de pénalité, puis la feuille reçue la première passe devant.")
    elif rank_by is RankBy.CONSTRUCTION:
        first = _l("Classement par nombre de scrabbles valides, moins la pénalité ; à "
                   "égalité, le moins de lettres posées pour la construction, puis la feuille "
                   "reçue la première passe devant.")
    elif rank_by is RankBy.ELIMINATION:
        first = _l("Classement par nombre de scrabbles ; à égalité, le joueur éliminé le plus "
                   "tard, puis la feuille reçue la première passe devant.")
    elif fam is not None and fam.unit is Unit.SCRABBLES:
        first = _l("Classement par nombre de scrabbles valides, moins la pénalité ; à "
                   "égalité, la feuille reçue la première passe devant.")
    else:
        first = _l("Classement par total corrigé ; à égalité, la feuille reçue la première "
                   "passe devant.")
    if problem.reference_score:
        second = _l("Les pourcentages se calculent sur la solution de référence "
                    "(%(score)s).", score=problem.reference_score)
    else:
        second = _l("Les pourcentages se calculent sur le meilleur résultat reçu.")
    return [str(first), str(second)]


@dataclass(frozen=True)
class FinalPreview:
    """The final ranking as it would be published now, before the arbitre confirms."""

    rows: list[dict[str, Any]]
    changes: list[dict[str, Any]]  # players whose rank or score differs from the provisional
    open_appeals: int  # appeals without an answer (they hold the final ranking back)
    appeals_until: datetime | None
    window_open: bool  # the appeal window has not ended: players may still appeal
    digest: str  # what the confirmation must carry (the rows did not change in between)

    @property
    def warning(self) -> bool:
        return self.window_open or self.open_appeals > 0


def rows_digest(rows: list[dict[str, Any]]) -> str:
    blob = json.dumps([(r["player_id"], r["rank"], r["score"]) for r in rows])
    return hashlib.sha256(blob.encode()).hexdigest()


def final_preview(session: Session, problem: Problem, *, now: datetime,
                  open_appeals: int) -> FinalPreview:
    """The final ranking ``problem`` would get now, what differs from the provisional one
    in force, and whether appeals are still open (window or unanswered appeals)."""
    rows = compute_rows(session=session, problem=problem)
    provisional = current_ranking(session, problem, RankingKind.PROVISIONAL)
    before = {r["player_id"]: r for r in (provisional.rows if provisional else [])}
    after = {r["player_id"]: r for r in rows}
    changes = []
    for pid in sorted(set(before) | set(after)):
        o, n = before.get(pid), after.get(pid)
        if (o and (o["rank"], o["score"])) != (n and (n["rank"], n["score"])):
            changes.append({"name": (n or o or {}).get("name", "?"),
                            "old_rank": o["rank"] if o else None,
                            "new_rank": n["rank"] if n else None,
                            "old_score": o["score"] if o else None,
                            "new_score": n["score"] if n else None})
    until = problem.appeals_until
    if until is not None and until.tzinfo is None:
        until = until.replace(tzinfo=UTC)
    return FinalPreview(rows=rows, changes=changes, open_appeals=open_appeals,
                        appeals_until=until, window_open=until is not None and now < until,
                        digest=rows_digest(rows))


def republish_after_rerun(
    *, session: Session, problem: Problem, actor: str, comment: str
) -> Ranking | None:
    """After a re-run, replace the current published ranking (if any) by a new one."""
    cur = current_ranking(session, problem)
    if cur is None:
        return None
    return publish_ranking(session=session, problem=problem, kind=cur.kind, actor=actor,
                           comment=comment)


def _announce(session: Session, problem: Problem, ranking: Ranking, *, revision: bool) -> None:
    personal = results_personal(session, problem, ranking)
    announce(session, problem, ranking, personal, revision=revision)


def revises(session: Session, ranking: Ranking) -> bool:
    """``ranking`` replaced one of its kind when it was published (:func:`publish_ranking`
    supersedes the previous one at the instant the new one is created; a withheld ranking
    is superseded earlier): its results mails say « révisé » and have keys of their own."""
    return session.exec(select(Ranking.id).where(
        Ranking.problem_id == ranking.problem_id, Ranking.kind == ranking.kind,
        col(Ranking.id) != ranking.id,
        col(Ranking.superseded_at) == ranking.created_at).limit(1)).first() is not None


def announce(session: Session, problem: Problem, ranking: Ranking,
             personal: Mapping[int, Mapping[str, Any]], *, revision: bool) -> int:
    """The results mails of ``ranking`` to the players of ``personal`` (their part of
    :func:`results_personal`: all of them, or one chunk), idempotent by their dedupe keys:
    a chunk composed twice (a run interrupted after its commit) adds nothing. Returns how
    many mails are new."""
    players = {p.id: p for p in session.exec(select(Player).where(
        col(Player.id).in_(list(personal)))).all() if p.id is not None}
    return notify.results_notices(session=session, problem=problem, ranking=ranking,
                                  personal=personal, players=players,
                                  revision=ranking.id if revision else None)


def results_personal(session: Session, problem: Problem,
                     ranking: Ranking) -> dict[int, dict[str, Any]]:
    """Who gets a results mail of ``ranking`` and his part of it (score, rank, report): every
    ranked player, and the players whose only sheets were not ranked (late, not entered)."""
    personal: dict[int, dict[str, Any]] = {}
    # the reports, 500 a query into the session (then each ``get`` below finds its row
    # there), not one round trip per ranked player
    wanted = [row["verification_id"] for row in ranking.rows if row["verification_id"]]
    held: list[Verification] = []  # the session's identity map holds its rows weakly
    for i in range(0, len(wanted), 500):
        held += session.exec(select(Verification).where(
            col(Verification.id).in_(wanted[i:i + 500]))).all()
    for row in ranking.rows:
        v = session.get(Verification, row["verification_id"]) if row["verification_id"] else None
        personal[row["player_id"]] = {
            "final_score": row["score"],
            "rank": row["rank"],
            "report_text": (v.report.get("text") if v else None),
        }
    # players whose only sheets were late (not accepted) still hear about the results
    senders = set(
        session.exec(select(Submission.player_id).where(Submission.problem_id == problem.id))
    )
    entrants = entrant_ids(session, problem)
    for pid in senders - set(personal):
        if entrants is not None and pid not in entrants:
            personal[pid] = {"report_text": "Vous n'êtes pas inscrit à cette compétition : "
                             "votre feuille n'est pas classée."}
            continue
        personal[pid] = {"report_text": "Votre feuille est arrivée après la clôture : elle "
                         "n'est pas classée."}
    return personal


FINAL = RankingKind.FINAL
PROVISIONAL = RankingKind.PROVISIONAL

