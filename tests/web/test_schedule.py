"""The schedule with a frozen clock: publication, J-3/J-1 reminders, closing, and jobs that
are safe to run twice."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlmodel import Session, col, select

from webapp.models import Channel, OutboxMessage, Problem, ProblemStatus
from webapp.scheduler import get_scheduler
from webapp.services import clock, lifecycle
from webapp.services.submissions import submit_sheet

pytestmark = pytest.mark.db

SHEET = "1 ACEFHIR h8 FICHERA 82 82\n"


def _keys(session: Session, kind: str) -> list[str]:
    session.expire_all()
    return sorted(
        m.dedupe_key or ""
        for m in session.exec(select(OutboxMessage).where(OutboxMessage.kind == kind)).all()
    )


def test_problem_is_published_at_its_time_once(
    ctx, db_session: Session, make_player, make_problem, frozen_clock
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    prob = make_problem(code="P1", publish=timedelta(hours=1), deadline=timedelta(days=10),
                        status=ProblemStatus.SCHEDULED)
    assert lifecycle.run_due(now=clock.now()) == []
    frozen_clock.shift(timedelta(minutes=59, seconds=59))
    assert lifecycle.run_due(now=clock.now()) == []
    frozen_clock.shift(timedelta(seconds=1))
    assert lifecycle.run_due(now=clock.now()) == ["publish:P1"]
    assert lifecycle.run_due(now=clock.now()) == []  # second run: nothing more
    db_session.refresh(prob)
    assert prob.status == ProblemStatus.OPEN and prob.published_at == clock.now()
    assert _keys(db_session, "publication") == [
        f"publication:P1:{ana.id}", f"publication:P1:{bob.id}"
    ]
    notice = db_session.exec(
        select(OutboxMessage).where(OutboxMessage.to_addr == "ana@example.ro")
    ).one()
    assert f"feuilles+{ana.token}@arbitre.test" in notice.body_text
    assert notice.headers["Auto-Submitted"] == "auto-generated"


def test_reminders_at_J3_and_J1_only_to_players_without_a_sheet(
    ctx, db_session: Session, make_player, make_problem, frozen_clock
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    cid = make_player("Cid", "cid@example.es")
    prob = make_problem(code="P1", deadline=timedelta(days=5))
    submit_sheet(session=db_session, player=ana, problem=prob, text=SHEET,
                 channel=Channel.WEB, received_at=clock.now())
    db_session.commit()

    frozen_clock.shift(timedelta(days=2) - timedelta(seconds=1))  # J-3 minus one second
    assert lifecycle.run_due(now=clock.now()) == []
    frozen_clock.shift(timedelta(seconds=1))  # exactly J-3
    assert lifecycle.run_due(now=clock.now()) == ["remind:P1"]
    assert lifecycle.run_due(now=clock.now()) == []
    assert _keys(db_session, "reminder") == [f"reminder:J-3:P1:{bob.id}",
                                             f"reminder:J-3:P1:{cid.id}"]

    # Bob sends his sheet before J-1: only Cid is reminded again
    submit_sheet(session=db_session, player=bob, problem=prob, text=SHEET,
                 channel=Channel.EMAIL, received_at=clock.now())
    db_session.commit()
    frozen_clock.shift(timedelta(days=2))
    assert lifecycle.run_due(now=clock.now()) == ["remind:P1"]
    assert _keys(db_session, "reminder") == [f"reminder:J-1:P1:{cid.id}",
                                             f"reminder:J-3:P1:{bob.id}",
                                             f"reminder:J-3:P1:{cid.id}"]
    j1 = db_session.exec(
        select(OutboxMessage).where(OutboxMessage.dedupe_key == f"reminder:J-1:P1:{cid.id}")
    ).one()
    assert "sera clos demain" in j1.body_text
    assert ana.id not in {m.player_id for m in db_session.exec(
        select(OutboxMessage).where(OutboxMessage.kind == "reminder"))}


def test_a_server_down_over_J3_and_J1_sends_one_reminder(
    ctx, db_session: Session, make_player, make_problem, frozen_clock
) -> None:
    bob = make_player("Bob", "bob@example.fr")
    make_problem(code="P1", deadline=timedelta(days=5))
    frozen_clock.shift(timedelta(days=4, hours=12))  # back up 12 h before the deadline
    assert lifecycle.run_due(now=clock.now()) == ["remind:P1"]
    assert _keys(db_session, "reminder") == [f"reminder:J-1:P1:{bob.id}"]


def test_bouncing_addresses_get_no_automatic_mail(
    ctx, db_session: Session, make_player, make_problem, frozen_clock
) -> None:
    bob = make_player("Bob", "bob@example.fr")
    ana = make_player("Ana", "ana@example.ro")
    bob.bounce_count = 3
    db_session.add(bob)
    db_session.commit()
    make_problem(code="P1", publish=timedelta(minutes=1), status=ProblemStatus.SCHEDULED)
    frozen_clock.shift(timedelta(minutes=1))
    lifecycle.run_due(now=clock.now())
    assert _keys(db_session, "publication") == [f"publication:P1:{ana.id}"]


def test_upcoming_instants_are_the_schedule(
    ctx, make_player, make_problem, frozen_start
) -> None:
    make_problem(code="P1", publish=timedelta(hours=2), deadline=timedelta(days=5),
                 status=ProblemStatus.SCHEDULED)
    assert lifecycle.upcoming_instants(now=frozen_start) == [
        frozen_start + timedelta(hours=2),
        frozen_start + timedelta(days=2),
        frozen_start + timedelta(days=4),
        frozen_start + timedelta(days=5),
    ]


def test_started_scheduler_plans_one_job_per_instant(
    app, ctx, db_session: Session, make_problem, frozen_clock, frozen_start
) -> None:
    make_problem(code="P1", publish=timedelta(hours=2), deadline=timedelta(days=5),
                 status=ProblemStatus.SCHEDULED)
    sched = get_scheduler(app)
    sched.start()
    try:
        assert sched.is_leader
        assert sched.planned() == [
            frozen_start + timedelta(hours=2), frozen_start + timedelta(days=2),
            frozen_start + timedelta(days=4), frozen_start + timedelta(days=5),
        ]
    finally:
        sched.shutdown()
    still_scheduled = db_session.exec(
        select(Problem).where(col(Problem.status) == ProblemStatus.SCHEDULED)
    ).all()
    assert len(still_scheduled) == 1


@pytest.mark.slow
def test_the_deadline_job_fires_on_the_real_clock(
    app, ctx, db_session: Session, make_player, make_problem
) -> None:
    import time

    from webapp.services.submissions import submit_sheet as submit

    ana = make_player("Ana", "ana@example.ro")
    prob = make_problem(code="P1", start=clock.now(), publish=timedelta(hours=-1),
                        deadline=timedelta(seconds=2))
    submit(session=db_session, player=ana, problem=prob, text=SHEET, channel=Channel.WEB,
           received_at=clock.now())
    db_session.commit()
    sched = get_scheduler(app)
    sched.start()
    try:
        assert sched.planned() == [prob.deadline_at]
        limit = time.monotonic() + 20
        while time.monotonic() < limit:
            db_session.expire_all()
            if db_session.get(Problem, prob.id).status == ProblemStatus.PROVISIONAL:  # type: ignore[union-attr]
                break
            time.sleep(0.2)
        db_session.expire_all()
        prob = db_session.get(Problem, prob.id)
        assert prob is not None and prob.status == ProblemStatus.PROVISIONAL
        assert prob.closed_at is not None and prob.closed_at >= prob.deadline_at
    finally:
        sched.shutdown()


@pytest.mark.slow
def test_wake_runs_what_is_due_without_waiting_for_the_tick(
    app, ctx, db_session: Session, make_player, make_problem
) -> None:
    import time

    from webapp.scheduler import wake

    make_player("Ana", "ana@example.ro")
    sched = get_scheduler(app)
    assert wake(app) is False  # not started here
    sched.start()
    try:
        prob = make_problem(code="P1", start=clock.now(), publish=timedelta(seconds=-1),
                            deadline=timedelta(days=10), status=ProblemStatus.SCHEDULED)
        assert wake(app) is True
        limit = time.monotonic() + 10
        while time.monotonic() < limit:
            db_session.expire_all()
            if db_session.get(Problem, prob.id).status == ProblemStatus.OPEN:  # type: ignore[union-attr]
                break
            time.sleep(0.1)
        db_session.expire_all()
        assert db_session.get(Problem, prob.id).status == ProblemStatus.OPEN  # type: ignore[union-attr]
    finally:
        sched.shutdown()


def test_appeal_window_defaults_to_the_setting(app, ctx, make_problem) -> None:
    app.config["APPEAL_DAYS"] = 10
    assert make_problem(code="P1").appeal_days == 10
    assert make_problem(code="P2", appeal_days=3).appeal_days == 3
