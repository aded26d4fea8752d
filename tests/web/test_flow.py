"""The whole life of a problem with a frozen clock: publication, sheets (one of them a second
late), a server restart across the deadline (the missed jobs run on start), verification,
provisional ranking, a late sheet accepted with a re-run preview, an appeal, the final
ranking. Scores: RULES §12 [E5] — FICHERA H8 = 82, WUS 15F = 84, cumul 166."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from sqlmodel import Session, col, select

from webapp import create_app
from webapp.db import get_engine
from webapp.models import (
    Arbitre,
    Channel,
    OutboxMessage,
    Problem,
    ProblemStatus,
    Ranking,
    Submission,
    Verification,
)
from webapp.scheduler import get_scheduler
from webapp.services import appeals, clock, lifecycle, rankings, verification
from webapp.services.submissions import accept_late, submit_sheet

pytestmark = pytest.mark.db

FULL = "Problème: P1\n1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 166\n"
FIRST_ONLY = "Problème: P1\n1 ACEFHIR h8 FICHERA 82 82\n"


def _rows(ranking: Ranking) -> list[tuple[int, str, int]]:
    return [(r["rank"], r["name"], r["score"]) for r in ranking.rows]


def _outbox(session: Session, kind: str) -> list[str]:
    session.expire_all()
    return sorted(m.dedupe_key or "" for m in session.exec(
        select(OutboxMessage).where(OutboxMessage.kind == kind)))


def test_submission_to_final_ranking_across_a_restart(
    app: Flask, app_config: dict[str, Any], db_session: Session, make_player, make_problem,
    frozen_clock, frozen_start,
) -> None:
    with app.app_context():
        ana = make_player("Ana Popescu", "ana@example.ro")
        bob = make_player("Bob Martin", "bob@example.fr")
        cid = make_player("Cid Campeador", "cid@example.es")
        dan = make_player("Dan Ionescu", "dan@example.ro")
        prob = make_problem(code="P1", publish=timedelta(hours=1), deadline=timedelta(days=3),
                            status=ProblemStatus.SCHEDULED)
        juge = Arbitre(username="juge", password_hash="x")
        db_session.add(juge)
        db_session.commit()

    sched = get_scheduler(app)
    sched.start()
    assert sched.is_leader
    frozen_clock.shift(timedelta(hours=1))
    sched.tick()  # what the date job planned for publish_at does
    db_session.refresh(prob)
    assert prob.status == ProblemStatus.OPEN

    with app.app_context():
        def send(player, text, at):  # type: ignore[no-untyped-def]
            out = submit_sheet(session=db_session, player=player, problem=prob, text=text,
                               channel=Channel.EMAIL, received_at=at)
            db_session.commit()
            return out

        send(ana, FULL, frozen_start + timedelta(hours=2))
        send(bob, FIRST_ONLY, frozen_start + timedelta(hours=3))
        send(cid, FULL, frozen_start + timedelta(hours=5))  # same score as Ana, later
        late = send(dan, FULL, prob.deadline_at + timedelta(seconds=1))
        assert late.late is True

    # the server stops two days in, and comes back an hour after the deadline
    frozen_clock.shift(timedelta(days=2))
    sched.shutdown()
    assert sched.running is False
    frozen_clock.move_to(prob.deadline_at + timedelta(hours=1))
    app2 = create_app(app_config)
    sched2 = get_scheduler(app2)
    sched2.start()  # catches up at once: close, verify, provisional ranking
    try:
        assert sched2.is_leader
        db_session.expire_all()
        prob = db_session.get(Problem, prob.id)
        assert prob is not None
        assert prob.status == ProblemStatus.PROVISIONAL
        assert prob.closed_at == prob.deadline_at + timedelta(hours=1)
        assert prob.appeals_until == clock.now() + timedelta(days=7)
        assert sched2.planned() == [prob.appeals_until]

        with app2.app_context():
            verified = {
                db_session.get(Submission, v.submission_id).player_id: v.final_score  # type: ignore[union-attr]
                for v in db_session.exec(select(Verification)).all()
            }
            assert verified == {ana.id: 166, bob.id: 82, cid.id: 166}  # Dan's late sheet: no
            provisional = rankings.current_ranking(db_session, prob, "provisional")
            assert provisional is not None
            assert _rows(provisional) == [
                (1, "Ana Popescu", 166), (2, "Cid Campeador", 166), (3, "Bob Martin", 82)
            ]
            # no reference score set: percentages of the best sheet; 82 / 166 = 49.397 %
            assert [r["percent"] for r in provisional.rows] == [100.0, 100.0, 49.4]
            assert [r["ex_aequo"] for r in provisional.rows] == [False, True, False]
            assert _outbox(db_session, "results") == sorted(
                f"results:provisional:P1:{p.id}" for p in (ana, bob, cid, dan)
            )
            dan_mail = db_session.exec(select(OutboxMessage).where(
                OutboxMessage.dedupe_key == f"results:provisional:P1:{dan.id}")).one()
            assert "après la clôture" in dan_mail.body_text
            ana_mail = db_session.exec(select(OutboxMessage).where(
                OutboxMessage.dedupe_key == f"results:provisional:P1:{ana.id}")).one()
            assert "Score final : 166 points" in ana_mail.body_text  # her report
            assert "Votre score retenu : 166 — 1er sur 3." in ana_mail.body_text

            # running everything again changes nothing
            outbox_before = len(db_session.exec(select(OutboxMessage)).all())
            assert lifecycle.run_due(now=clock.now()) == []
            assert len(db_session.exec(select(OutboxMessage)).all()) == outbox_before

            # the arbitre accepts Dan's late sheet: preview first, then apply
            dan_sub = db_session.get(Submission, late.submission.id)
            accept_late(session=db_session, submission=dan_sub, actor="juge",
                        reason="serveur de courriel du joueur en panne (justificatif reçu)")
            db_session.commit()
            preview = verification.preview_rerun(session=db_session, problem=prob,
                                                 reason="feuille de Dan acceptée hors délai")
            changes = {(c.name, c.old_rank, c.new_rank, c.old_score, c.new_score)
                       for c in preview.changes}
            assert changes == {("Dan Ionescu", None, 3, None, 166),
                               ("Bob Martin", 3, 4, 82, 82)}
            # a preview writes nothing
            assert len(db_session.exec(select(Verification)).all()) == 3
            verification.apply_rerun(session=db_session, problem=prob, preview=preview,
                                     actor="juge")
            db_session.commit()
            current = rankings.current_ranking(db_session, prob, "provisional")
            assert current is not None and current.id != provisional.id
            assert _rows(current) == [(1, "Ana Popescu", 166), (2, "Cid Campeador", 166),
                                      (3, "Dan Ionescu", 166), (4, "Bob Martin", 82)]
            assert current.comment == "feuille de Dan acceptée hors délai"
            superseded = db_session.exec(select(Verification).where(
                col(Verification.superseded_at).is_not(None))).all()
            assert len(superseded) == 3
            assert f"results:provisional:P1:{bob.id}:r{current.id}" in _outbox(
                db_session, "results")

            # Bob appeals; the window closes but the open appeal holds the final ranking
            bob_v = db_session.exec(
                select(Verification)
                .join(Submission, col(Submission.id) == col(Verification.submission_id))
                .where(Submission.player_id == bob.id,
                       col(Verification.superseded_at).is_(None))).one()
            appeal = appeals.file_appeal(session=db_session, player=bob, verification=bob_v,
                                         text="J'ai oublié de recopier mon deuxième coup.")
            db_session.commit()
        frozen_clock.move_to(prob.appeals_until + timedelta(seconds=1))
        sched2.tick()
        db_session.expire_all()
        assert db_session.get(Problem, prob.id).status == ProblemStatus.PROVISIONAL  # type: ignore[union-attr]

        with app2.app_context():
            with pytest.raises(appeals.AppealRefused, match="délai d'appel"):
                appeals.file_appeal(session=db_session, player=bob, verification=bob_v,
                                    text="un second appel, trop tard")
            appeals.answer_appeal(session=db_session, appeal=appeal, arbitre=juge,
                                  accepted=False, answer="La feuille reçue fait foi.")
            db_session.commit()
        sched2.tick()
        db_session.expire_all()
        prob = db_session.get(Problem, prob.id)
        assert prob is not None and prob.status == ProblemStatus.FINAL
        with app2.app_context():
            final = rankings.current_ranking(db_session, prob, "final")
            assert final is not None
            assert _rows(final) == [(1, "Ana Popescu", 166), (2, "Cid Campeador", 166),
                                    (3, "Dan Ionescu", 166), (4, "Bob Martin", 82)]
            assert f"results:final:P1:{dan.id}" in _outbox(db_session, "results")
            assert lifecycle.run_due(now=clock.now()) == []
    finally:
        sched2.shutdown()
        get_engine(app2).dispose()
