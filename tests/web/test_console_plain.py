"""A console in plain French (issue 13, point 6): the services behind it.

- « changements de classement » counts rank changes only, not score-only changes;
- no reminder goes out in the same minute as the publication of a problem closing soon;
- an empty ranking is not published (no ranking row, no results mail), and why is said;
- the arbitre closes a problem now, edits a player, previews a final ranking.

Scores are the worked example of RULES §12 [E5]: FICHERA H8 = 82, then WUS 15F = 84
(cumul 166).
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import Session, select

from tests.web.season import FIRST, FULL, submit_web
from webapp.models import OutboxMessage, ProblemStatus, RulingKind
from webapp.services import clock, lifecycle, verification

pytestmark = pytest.mark.db

def _keys(session: Session, kind: str) -> list[str]:
    session.expire_all()
    return sorted(m.dedupe_key or "" for m in session.exec(
        select(OutboxMessage).where(OutboxMessage.kind == kind)).all())


# --- b. rank changes, not score-only changes -------------------------------------------------


def test_rerun_preview_counts_rank_changes_apart_from_score_only_changes(
    ctx, db_session: Session, make_player, make_problem, frozen_start
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    cid = make_player("Cid", "cid@example.es")
    prob = make_problem(code="P1", deadline=timedelta(days=1))
    # received in this order: Ana, Bob, Cid (ties go to the earlier sheet)
    submit_web(db_session, ana, prob, FULL, frozen_start)
    submit_web(db_session, bob, prob, FIRST, frozen_start + timedelta(minutes=1))
    submit_web(db_session, cid, prob, FULL, frozen_start + timedelta(minutes=2))
    db_session.commit()
    verification.verify_problem(session=db_session, problem=prob, actor="system")
    db_session.commit()
    # before: Ana 166 (1st), Cid 166 (2nd, later), Bob 82 (3rd)
    # WUS refused: the second move is zero, every sheet is 82 (FICHERA alone); by receive
    # time Ana 1st, Bob 2nd, Cid 3rd
    verification.add_ruling(session=db_session, problem=prob, kind=RulingKind.REJECT_WORD,
                            word="WUS", actor="juge", comment="mot refusé pour ce problème")
    db_session.commit()
    preview = verification.preview_rerun(session=db_session, problem=prob,
                                         reason="WUS refusé")
    seen = {(c.name, c.old_rank, c.new_rank, c.old_score, c.new_score)
            for c in preview.changes}
    assert seen == {("Ana", 1, 1, 166, 82), ("Bob", 3, 2, 82, 82), ("Cid", 2, 3, 166, 82)}
    # Ana keeps her place: a score change, not a change of the ranking
    assert [c.name for c in preview.rank_changes] == ["Bob", "Cid"]
    assert [c.name for c in preview.score_only_changes] == ["Ana"]


# --- h. no reminder in the minute of the publication ------------------------------------------


def test_no_reminder_with_the_publication_of_a_problem_closing_within_the_hour(
    ctx, db_session: Session, make_player, make_problem, frozen_clock
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    # published in one minute, closing 40 minutes later: J-3 and J-1 are both already due
    make_problem(code="P1", publish=timedelta(minutes=1), deadline=timedelta(minutes=41),
                 status=ProblemStatus.SCHEDULED)
    frozen_clock.shift(timedelta(minutes=1))
    assert lifecycle.run_due(now=clock.now()) == ["publish:P1"]
    assert _keys(db_session, "publication") == [f"publication:P1:{ana.id}"]
    assert _keys(db_session, "reminder") == []
    # nor a minute later, nor just before the deadline: the publication said the deadline
    frozen_clock.shift(timedelta(minutes=1))
    assert lifecycle.run_due(now=clock.now()) == []
    frozen_clock.shift(timedelta(minutes=38, seconds=59))
    assert lifecycle.run_due(now=clock.now()) == []
    assert _keys(db_session, "reminder") == []


def test_a_reminder_whose_time_comes_after_the_publication_is_sent(
    ctx, db_session: Session, make_player, make_problem, frozen_clock
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    # published in one minute, closing 2 days later: J-3 was due before the publication
    # (skipped), J-1 falls 1 day after it (sent then)
    make_problem(code="P1", publish=timedelta(minutes=1),
                 deadline=timedelta(days=2, minutes=1), status=ProblemStatus.SCHEDULED)
    frozen_clock.shift(timedelta(minutes=1))
    assert lifecycle.run_due(now=clock.now()) == ["publish:P1"]
    assert _keys(db_session, "reminder") == []
    frozen_clock.shift(timedelta(days=1) - timedelta(seconds=1))
    assert lifecycle.run_due(now=clock.now()) == []
    frozen_clock.shift(timedelta(seconds=1))  # deadline - 1 day
    assert lifecycle.run_due(now=clock.now()) == ["remind:P1"]
    assert _keys(db_session, "reminder") == [f"reminder:J-1:P1:{ana.id}"]


# --- i. an empty ranking is not published --------------------------------------------------


def test_a_problem_without_sheets_publishes_no_ranking_and_says_why(
    ctx, app, db_session: Session, make_player, make_problem, frozen_clock
) -> None:
    from webapp.models import AuditLog, Ranking
    from webapp.services import rankings

    make_player("Ana", "ana@example.ro")
    prob = make_problem(code="P1", deadline=timedelta(hours=1))
    frozen_clock.shift(timedelta(hours=1))
    # closed, verified (nothing to verify), « provisional » without a ranking
    assert lifecycle.run_due(now=clock.now()) == ["close:P1", "verify:P1", "provisional:P1"]
    db_session.expire_all()
    assert db_session.exec(select(Ranking)).all() == []
    assert _keys(db_session, "results") == []
    withheld = db_session.exec(
        select(AuditLog).where(AuditLog.action == "ranking.withheld")).one()
    assert (withheld.target, withheld.details["kind"], withheld.details["sheets"]) == (
        "P1", "provisional", 0)
    prob = db_session.get(type(prob), prob.id)
    assert prob is not None and prob.status == ProblemStatus.PROVISIONAL
    assert rankings.withheld_reason(db_session, prob) == (
        "Aucune feuille n'a été reçue : il n'y a pas de classement à publier.")
    steps = [(st.label, st.detail) for st in lifecycle.steps_done(session=db_session,
                                                                  problem=prob)]
    assert ("Classement vide non publié",
            "Aucune feuille n'a été reçue : il n'y a pas de classement à publier.") in steps
    # the public pages offer no ranking
    client = app.test_client()
    assert client.get("/problemes/P1/classement").status_code == 404
    assert "Voir le classement" not in client.get("/problemes/P1").get_data(as_text=True)
    archive = client.get("/archives").get_data(as_text=True)
    assert "/problemes/P1/classement" not in archive and "aucune feuille classée" in archive
    assert "/problemes/P1/classement" not in client.get(
        "/competitions/cn2026").get_data(as_text=True)
    # the appeal window ends: the final step publishes nothing either
    assert prob.appeals_until is not None
    frozen_clock.move_to(prob.appeals_until)
    assert lifecycle.run_due(now=clock.now()) == ["finalise:P1"]
    db_session.expire_all()
    assert db_session.exec(select(Ranking)).all() == []
    assert _keys(db_session, "results") == []


def test_only_late_sheets_publish_no_ranking(
    ctx, db_session: Session, make_player, make_problem, frozen_clock
) -> None:
    from webapp.models import Ranking
    from webapp.services import rankings

    ana = make_player("Ana", "ana@example.ro")
    prob = make_problem(code="P1", deadline=timedelta(hours=1))
    frozen_clock.shift(timedelta(hours=1, seconds=1))
    submit_web(db_session, ana, prob, FULL, clock.now())  # one second late
    db_session.commit()
    assert lifecycle.run_due(now=clock.now()) == ["close:P1", "verify:P1", "provisional:P1"]
    db_session.expire_all()
    assert db_session.exec(select(Ranking)).all() == []
    assert _keys(db_session, "results") == []
    prob = db_session.get(type(prob), prob.id)
    assert rankings.withheld_reason(db_session, prob) == (
        "Aucune des feuilles reçues (1 joueur(s)) n'est classée — arrivées après la clôture, "
        "écartées par une décision, illisibles ou d'un joueur non inscrit : il n'y a pas de "
        "classement à publier.")


def test_a_rerun_that_empties_the_ranking_withdraws_it(
    ctx, db_session: Session, make_player, make_problem, frozen_clock
) -> None:
    from webapp.models import Ranking, Submission
    from webapp.services import rankings

    ana = make_player("Ana", "ana@example.ro")
    prob = make_problem(code="P1", deadline=timedelta(hours=1))
    sub = submit_web(db_session, ana, prob, FULL, clock.now())
    db_session.commit()
    frozen_clock.shift(timedelta(hours=1))
    lifecycle.run_due(now=clock.now())
    db_session.expire_all()
    (published,) = db_session.exec(select(Ranking)).all()
    assert [(r["name"], r["score"]) for r in published.rows] == [("Ana", 166)]
    # the only sheet is set aside: the re-run leaves nobody to rank
    verification.add_ruling(session=db_session, problem=prob, kind=RulingKind.EXCLUDE_SHEET,
                            submission=db_session.get(Submission, sub.id), actor="juge",
                            comment="feuille copiée")
    preview = verification.preview_rerun(session=db_session, problem=prob,
                                         reason="feuille écartée")
    verification.apply_rerun(session=db_session, problem=prob, preview=preview, actor="juge")
    db_session.commit()
    db_session.expire_all()
    assert rankings.current_ranking(db_session, prob) is None
    assert rankings.published_ranking(db_session, prob) is None
    assert db_session.get(Ranking, published.id).superseded_at == clock.now()  # type: ignore[union-attr]


# --- d. « Clore maintenant » ------------------------------------------------------------------


def test_close_now_moves_the_deadline_and_is_audited(
    ctx, db_session: Session, make_player, make_problem, frozen_clock
) -> None:
    from webapp.models import AuditLog

    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    prob = make_problem(code="P1", deadline=timedelta(days=5))
    submit_web(db_session, ana, prob, FULL, clock.now())
    db_session.commit()
    frozen_clock.shift(timedelta(hours=2))
    before = lifecycle.close_now_preview(session=db_session, problem=prob)
    # 2 registered, Ana sent a sheet: Bob is the one who can no longer send his
    assert (before.registered, before.senders, before.without) == (2, 1, 1)
    assert before.deadline == prob.deadline_at
    with pytest.raises(ValueError, match="Indiquez le motif"):
        lifecycle.close_now(session=db_session, problem=prob, actor="juge", reason=" ",
                            now=clock.now())
    announced = prob.deadline_at
    lifecycle.close_now(session=db_session, problem=prob, actor="juge",
                        reason="énoncé divulgué sur un forum", now=clock.now())
    db_session.commit()
    db_session.expire_all()
    prob = db_session.get(type(prob), prob.id)
    assert prob is not None
    assert (prob.status, prob.closed_at, prob.deadline_at) == (
        ProblemStatus.CLOSED, clock.now(), clock.now())
    entry = db_session.exec(select(AuditLog).where(
        AuditLog.action == "problem.close_early")).one()
    assert (entry.actor, entry.target, entry.details["reason"]) == (
        "juge", "P1", "énoncé divulgué sur un forum")
    assert entry.details["deadline_announced"] == announced.isoformat()
    steps = [(st.label, st.by, st.detail)
             for st in lifecycle.steps_done(session=db_session, problem=prob)]
    assert ("Clos avant l'échéance", "arbitre juge", "motif : énoncé divulgué sur un forum") \
        in steps
    # Bob's sheet now arrives after the (new) deadline: it is late
    bob_sheet = submit_web(db_session, bob, prob, FULL, clock.now() + timedelta(seconds=1))
    assert bob_sheet.late is True
    db_session.commit()
    # and the scheduler goes on from there (verification, provisional ranking)
    assert lifecycle.run_due(now=clock.now()) == ["verify:P1", "provisional:P1"]
    with pytest.raises(ValueError, match="Seul un problème ouvert"):
        lifecycle.close_now(session=db_session, problem=prob, actor="juge", reason="encore",
                            now=clock.now())


# --- e. editing a player ------------------------------------------------------------------


def test_the_arbitre_edits_a_player_and_sees_his_competitions_and_address(
    ctx, db_session: Session, competition, make_player, make_problem, frozen_clock
) -> None:
    from webapp.models import AuditLog
    from webapp.services import players, problems

    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    other = problems.create_competition(session=db_session, slug="open26", name="Open 2026")
    other.open_registration = True
    db_session.commit()
    prob = make_problem(code="P1")
    submit_web(db_session, ana, prob, FULL, clock.now())
    db_session.commit()

    values = {"name": "  Ana   Popescu ", "email": "Ana.Popescu@Example.RO", "club": "Iași",
              "licence": "RO-123", "category": "A", "country": "Roumanie", "locale": "ro"}
    with pytest.raises(players.PlayerRefused) as refused:
        players.update_player(session=db_session, player=ana, actor="juge",
                              values={**values, "email": "bob@example.fr", "name": "",
                                      "locale": "de"})
    assert refused.value.errors == [
        "Le nom est obligatoire.",
        "Langue inconnue : « de » (français fr ou roumain ro).",
        "L'adresse « bob@example.fr » est déjà celle de Bob.",
    ]
    changed = players.update_player(session=db_session, player=ana, values=values,
                                    actor="juge")
    db_session.commit()
    assert changed == {"name": ("Ana", "Ana Popescu"),
                       "email": ("ana@example.ro", "ana.popescu@example.ro"),
                       "club": ("", "Iași"), "licence": ("", "RO-123"), "category": ("", "A"),
                       "country": ("", "Roumanie"), "locale": ("", "ro")}
    entry = db_session.exec(select(AuditLog).where(AuditLog.action == "player.profile")).one()
    assert (entry.target, entry.details["before"]["name"], entry.details["after"]["locale"]) \
        == (str(ana.id), "Ana", "ro")
    # the same values again change nothing and write no audit entry
    assert players.update_player(session=db_session, player=ana, values=values,
                                 actor="juge") == {}
    assert len(db_session.exec(select(AuditLog).where(
        AuditLog.action == "player.profile")).all()) == 1

    view = players.player_console(db_session, ana)
    # the token-based address does not change with the e-mail
    assert view.submission_address == f"feuilles+{ana.token}@arbitre.test"
    assert [(c.competition.name, c.registered, c.problems_sent) for c in view.competitions] \
        == [("Championnat par correspondance 2026", True, 1)]
    assert [c.competition.slug for c in players.player_console(db_session, bob).competitions] \
        == ["cn2026"]


# --- f. the final ranking previewed --------------------------------------------------------


def test_final_preview_warns_while_appeals_are_open(
    ctx, db_session: Session, make_player, make_problem, frozen_clock
) -> None:
    from sqlmodel import col

    from webapp.models import Submission, Verification
    from webapp.services import appeals, rankings

    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    prob = make_problem(code="P1", deadline=timedelta(hours=1), appeal_days=7)
    submit_web(db_session, ana, prob, FULL, clock.now())
    submit_web(db_session, bob, prob, FIRST, clock.now() + timedelta(minutes=1))
    db_session.commit()
    frozen_clock.shift(timedelta(hours=1))
    lifecycle.run_due(now=clock.now())  # closed, verified, provisional: appeals for 7 days
    db_session.expire_all()
    prob = db_session.get(type(prob), prob.id)
    assert prob is not None and prob.status == ProblemStatus.PROVISIONAL
    bob_v = db_session.exec(select(Verification).join(
        Submission, col(Submission.id) == col(Verification.submission_id)).where(
        Submission.player_id == bob.id)).one()
    appeals.file_appeal(session=db_session, player=bob, verification=bob_v,
                        text="Mon second coup manque.")
    db_session.commit()
    preview = rankings.final_preview(db_session, prob, now=clock.now(),
                                     open_appeals=lifecycle.open_appeals(db_session, prob))
    # the rows as they would be published: Ana 166 then Bob 82, nothing changed since the
    # provisional ranking
    assert [(r["rank"], r["name"], r["score"]) for r in preview.rows] == [
        (1, "Ana", 166), (2, "Bob", 82)]
    assert preview.changes == []
    assert (preview.open_appeals, preview.window_open, preview.warning) == (1, True, True)
    assert preview.appeals_until == clock.now() + timedelta(days=7)
    assert preview.digest == rankings.rows_digest(preview.rows)
    # a ruling excluding Bob's sheet, re-run: the preview shows Bob leaving the ranking
    verification.add_ruling(session=db_session, problem=prob, kind=RulingKind.EXCLUDE_SHEET,
                            submission=db_session.get(Submission, bob_v.submission_id),
                            actor="juge", comment="copie")
    db_session.commit()
    moved = rankings.final_preview(db_session, prob, now=clock.now(), open_appeals=0)
    assert moved.changes == [{"name": "Bob", "old_rank": 2, "new_rank": None,
                              "old_score": 82, "new_score": None}]
    assert moved.digest != preview.digest
    # once the window is over and no appeal waits, no warning
    frozen_clock.shift(timedelta(days=7))
    calm = rankings.final_preview(db_session, prob, now=clock.now(), open_appeals=0)
    assert (calm.window_open, calm.warning) == (False, False)


# --- c. the ranking rule in words ----------------------------------------------------------


def test_the_ranking_rule_in_words(ctx, make_problem) -> None:
    from webapp.services import rankings

    prob = make_problem(code="P1")
    assert rankings.rule_sentences(prob) == [
        "Classement par total corrigé ; à égalité, la feuille reçue la première passe devant.",
        "Les pourcentages se calculent sur le meilleur résultat reçu.",
    ]
    prob.reference_score = 1450
    serie = make_problem(code="P2", game="serie_maximaux")
    assert rankings.rule_sentences(prob)[1] == (
        "Les pourcentages se calculent sur la solution de référence (1450).")
    assert rankings.rule_sentences(serie)[0] == (
        "Classement par les scores corrigés coup par coup, comparés dans l'ordre (le premier "
        "coup d'abord, puis le deuxième…) ; à égalité, le moins de points de pénalité, puis la "
        "feuille reçue la première passe devant.")
