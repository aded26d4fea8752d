"""The schedule with a frozen clock: publication, J-3/J-1 reminders, closing, and jobs that
are safe to run twice."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from sqlmodel import Session, col, select

from tests.waiting import wait_for
from webapp.models import Channel, OutboxMessage, Problem, ProblemStatus
from webapp.scheduler import get_scheduler
from webapp.services import audit, clock, lifecycle
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


def test_an_instant_falling_due_during_a_run_is_not_skipped(
    app, ctx, db_session: Session, make_problem, frozen_clock, frozen_start, monkeypatch
) -> None:
    """The scheduler's start runs what is due, then plans what is upcoming. On a busy machine
    the clock moves between the two: an instant falling due in that gap was neither run nor
    planned, and waited for the next tick (here an hour; in service a minute — a live move
    announced a minute late). Planning now starts from the instant the run looked at."""
    app.config.update(SCHEDULER_TICK_SECONDS=3600, SCHEDULER_POLL_SECONDS=3600)
    prob = make_problem(code="P1", publish=timedelta(seconds=1), deadline=timedelta(days=5),
                        status=ProblemStatus.SCHEDULED)
    real_run_due = lifecycle.run_due
    runs: list[object] = []

    def slow_run_due(*, now):  # type: ignore[no-untyped-def]
        done = real_run_due(now=now)
        if not runs:
            frozen_clock.shift(timedelta(seconds=2))  # the first run took 2 s
        runs.append(now)
        return done

    monkeypatch.setattr(lifecycle, "run_due", slow_run_due)
    sched = get_scheduler(app)
    sched.start()
    try:
        assert sched.is_leader
        assert runs[0] == frozen_start  # the start's run: nothing due yet
        wait_for(lambda: _reload(db_session, prob.id).status == ProblemStatus.OPEN)
        assert _reload(db_session, prob.id).published_at == frozen_start + timedelta(seconds=2)
    finally:
        sched.shutdown()


def _reload(session: Session, problem_id: int | None) -> Problem:
    session.expire_all()
    prob = session.get(Problem, problem_id)
    assert prob is not None
    return prob


def _lateness(planned, done) -> float:  # type: ignore[no-untyped-def]
    assert done is not None
    return (done - planned).total_seconds()


@pytest.mark.slow
def test_the_deadline_job_fires_on_the_real_clock(
    app, ctx, db_session: Session, make_player, make_problem
) -> None:
    """No tick for an hour: only the job planned at the deadline can close it on time."""
    from webapp.services.submissions import submit_sheet as submit

    app.config.update(SCHEDULER_TICK_SECONDS=3600, SCHEDULER_POLL_SECONDS=3600)
    ana = make_player("Ana", "ana@example.ro")
    sched = get_scheduler(app)
    sched.start()
    try:
        assert sched.is_leader
        prob = make_problem(code="P1", start=clock.now(), publish=timedelta(hours=-1),
                            deadline=timedelta(seconds=5))
        submit(session=db_session, player=ana, problem=prob, text=SHEET, channel=Channel.WEB,
               received_at=clock.now())
        db_session.commit()
        wait_for(lambda: _reload(db_session, prob.id).status == ProblemStatus.PROVISIONAL)
        prob = _reload(db_session, prob.id)
        # closed by the job planned at deadline_at, within 2 s of it (server's own record)
        assert 0 <= _lateness(prob.deadline_at, prob.closed_at) < 2
    finally:
        sched.shutdown()


@pytest.mark.slow
def test_wake_runs_what_is_due_without_waiting_for_the_tick(
    app, ctx, db_session: Session, make_player, make_problem
) -> None:
    from webapp.scheduler import wake

    app.config.update(SCHEDULER_TICK_SECONDS=3600, SCHEDULER_POLL_SECONDS=3600)
    make_player("Ana", "ana@example.ro")
    sched = get_scheduler(app)
    assert wake(app) is False  # not started here
    sched.start()
    try:
        prob = make_problem(code="P1", start=clock.now(), publish=timedelta(seconds=-1),
                            deadline=timedelta(days=10), status=ProblemStatus.SCHEDULED)
        assert wake(app) is True
        wait_for(lambda: _reload(db_session, prob.id).status == ProblemStatus.OPEN)
    finally:
        sched.shutdown()


@pytest.mark.slow
def test_a_problem_created_or_rescheduled_is_published_at_its_time(
    app, ctx, db_session: Session, make_player, make_problem
) -> None:
    """docs/OPERATIONS.md: published at ``publish_at``. No tick and no poll for an hour: the
    commit that creates (or reschedules) the problem wakes this process's scheduler, which
    plans the publication job at once."""
    from webapp.services import problems

    app.config.update(SCHEDULER_TICK_SECONDS=3600, SCHEDULER_POLL_SECONDS=3600)
    make_player("Ana", "ana@example.ro")
    later = make_problem(code="P2", start=clock.now(), publish=timedelta(days=1),
                         deadline=timedelta(days=10), status=ProblemStatus.SCHEDULED)
    sched = get_scheduler(app)
    sched.start()
    try:
        assert sched.is_leader
        created = make_problem(code="P1", start=clock.now(), publish=timedelta(seconds=5),
                               deadline=timedelta(days=10), status=ProblemStatus.SCHEDULED)
        wait_for(lambda: _reload(db_session, created.id).status == ProblemStatus.OPEN)
        created = _reload(db_session, created.id)
        assert 0 <= _lateness(created.publish_at, created.published_at) < 2

        later = _reload(db_session, later.id)
        problems.reschedule(session=db_session, problem=later,
                            publish_at=clock.now() + timedelta(seconds=5),
                            deadline_at=later.deadline_at, actor="arbitre", reason="avancé")
        db_session.commit()
        wait_for(lambda: _reload(db_session, later.id).status == ProblemStatus.OPEN)
        later = _reload(db_session, later.id)
        assert 0 <= _lateness(later.publish_at, later.published_at) < 2
    finally:
        sched.shutdown()


LEADER_CHILD = """
import sys, time
from webapp import create_app
from webapp.scheduler import get_scheduler

app = create_app({
    "TESTING": True, "SECRET_KEY": "x", "DATABASE_URL": sys.argv[1],
    "DATABASE_SCHEMA": sys.argv[2] or None, "INSTANCE_PATH": sys.argv[3],
    "MAIL_INTAKE_ENABLED": False, "BASE_URL": "http://arbitre.test",
    "SCHEDULER_TICK_SECONDS": 3600,
})
sched = get_scheduler(app)
sched.start()
while not sched.is_leader:
    time.sleep(0.05)
print("leader", flush=True)
sys.stdin.read()  # until the test closes our stdin
sched.shutdown()
"""


@pytest.mark.slow
def test_the_leader_in_another_process_publishes_at_its_time(
    app, ctx, db_session: Session, make_player, make_problem, tmp_path
) -> None:
    """The problem is created here; the scheduler runs in another process (no tick for an
    hour). It learns of the problem from the change counter and publishes it on time."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    from webapp.models import AuditLog

    make_player("Ana", "ana@example.ro")
    script = tmp_path / "leader.py"
    script.write_text(LEADER_CHILD)
    child = subprocess.Popen(
        [sys.executable, str(script), app.config["DATABASE_URL"],
         app.config.get("DATABASE_SCHEMA") or "", str(tmp_path / "child")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        cwd=Path(__file__).resolve().parents[2],
        env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2])),
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "leader\n"
        prob = make_problem(code="P1", start=clock.now(), publish=timedelta(seconds=5),
                            deadline=timedelta(days=10), status=ProblemStatus.SCHEDULED)
        wait_for(lambda: _reload(db_session, prob.id).status == ProblemStatus.OPEN)
        prob = _reload(db_session, prob.id)
        assert 0 <= _lateness(prob.publish_at, prob.published_at) < 2
        entry = db_session.exec(select(AuditLog).where(AuditLog.action == "problem.publish")
                                ).one()
        assert entry.details["process"].split(":")[1] == str(child.pid)
    finally:
        out, err = child.communicate(input="", timeout=60)
    assert child.returncode == 0, err


def test_appeal_window_defaults_to_the_setting(app, ctx, make_problem) -> None:
    app.config["APPEAL_DAYS"] = 10
    assert make_problem(code="P1").appeal_days == 10
    assert make_problem(code="P2", appeal_days=3).appeal_days == 3


def test_console_shows_which_steps_ran_and_when(
    app, ctx, client, db_session: Session, make_player, make_problem, frozen_clock,
    frozen_start,
) -> None:
    """After a crash the arbitre must see what was done: each scheduled step, when (local
    time with its zone) and by which process, from the audit log; the results mails from the
    outbox."""
    from mailer.outbox import send_pending
    from tests.web.test_console_mail import login_arbitre, text_of

    ana = make_player("Ana", "ana@example.ro")
    make_player("Bob", "bob@example.fr")
    prob = make_problem(code="P1", publish=timedelta(hours=1), deadline=timedelta(days=5),
                        status=ProblemStatus.SCHEDULED)
    assert lifecycle.steps_done(session=db_session, problem=prob) == []
    frozen_clock.shift(timedelta(hours=1))  # T+1 h: published
    assert lifecycle.run_due(now=clock.now()) == ["publish:P1"]
    db_session.refresh(prob)
    submit_sheet(session=db_session, player=ana, problem=prob, text=SHEET,
                 channel=Channel.WEB, received_at=clock.now())
    db_session.commit()
    frozen_clock.move_to(frozen_start + timedelta(days=2))  # deadline (T+5 d) − 3 days
    assert lifecycle.run_due(now=clock.now()) == ["remind:P1"]  # Bob only: Ana has sent
    frozen_clock.move_to(frozen_start + timedelta(days=5))
    assert lifecycle.run_due(now=clock.now()) == [
        "close:P1", "verify:P1", "provisional:P1"]
    frozen_clock.shift(timedelta(minutes=1))
    assert send_pending(app) >= 1  # the receipt, the notices and Ana's results go out

    auto = f"automatique ({audit.PROCESS})"
    # T = 10/05/2026 10:00 UTC = 13:00 in Bucharest (UTC+03:00 in May)
    zone = "(Europe/Bucharest, UTC+03:00)"
    steps = lifecycle.steps_done(session=db_session, problem=prob)
    assert [(s.label, s.at, s.by, s.detail) for s in steps] == [
        ("Publié", frozen_start + timedelta(hours=1), auto, ""),
        ("Rappel envoyé", frozen_start + timedelta(days=2), auto, "J-3 : 1 courriel"),
        ("Clos", frozen_start + timedelta(days=5), auto, ""),
        ("Feuilles vérifiées", frozen_start + timedelta(days=5), auto, ""),
        ("Classement provisoire publié", frozen_start + timedelta(days=5), auto, ""),
        ("Résultats envoyés (classement provisoire)",
         frozen_start + timedelta(days=5, minutes=1), "courrier sortant",
         "1 sur 1 courriel (tous envoyés)"),
    ]

    login_arbitre(client, db_session)
    page = text_of(client.get(f"/console/problemes/{prob.id}"))
    section = page[page.index('id="etapes"'):page.index('id="feuilles"')]
    assert "Étapes effectuées" in section
    for label, local in (("Publié", "10/05/2026 à 14:00:00"),
                         ("Rappel envoyé", "12/05/2026 à 13:00:00"),
                         ("Clos", "15/05/2026 à 13:00:00"),
                         ("Résultats envoyés (classement provisoire)", "15/05/2026 à 13:01:00")):
        row = section[section.index(f"<td>{label}</td>"):]
        assert row.startswith(f"<td>{label}</td><td class=\"small\">{local} {zone}</td>"), row


def test_every_schedule_change_signals_the_scheduler_whatever_the_channel(
    app, ctx, client, db_session: Session, competition, make_player, frozen_clock,
) -> None:
    """The console's new problem and its « Publier maintenant », or a service called by a
    script, each bump the change counter once and poke this process's scheduler; a sheet
    does not, nor do the scheduler's own steps (it replans after them anyway)."""
    from tests.web.test_pages import login_arbitre
    from webapp.db import get_engine
    from webapp.services import changes, problems

    def counter() -> int:
        with get_engine(app).connect() as conn:
            return changes.current(conn)

    pokes: list[int] = []

    def poke() -> None:
        pokes.append(1)

    changes.add_listener(poke)
    try:
        ana = make_player("Ana", "ana@example.ro")
        login_arbitre(client, db_session)
        assert (counter(), len(pokes)) == (0, 0)
        form = {
            "competition_id": competition.id, "source": "generate", "game": "integral",
            "lang": "fr", "seed": "1", "timezone": "Europe/Bucharest",
            "publish_at": "2026-05-10T14:00", "deadline_at": "2026-05-20T21:00", "code": "K1",
        }
        assert client.post("/console/problemes/nouveau", data=form).status_code == 302
        assert (counter(), len(pokes)) == (1, 1)
        prob = db_session.exec(select(Problem).where(Problem.code == "K1")).one()
        resp = client.post(f"/console/problemes/{prob.id}/etape", data={"step": "publish"})
        assert resp.status_code == 302
        assert (counter(), len(pokes)) == (2, 2)

        db_session.refresh(prob)
        assert prob.status == ProblemStatus.OPEN
        submit_sheet(session=db_session, player=ana, problem=prob, text=SHEET,
                     channel=Channel.WEB, received_at=clock.now())
        db_session.commit()
        assert (counter(), len(pokes)) == (2, 2)

        problems.reschedule(session=db_session, problem=prob, publish_at=prob.publish_at,
                            deadline_at=prob.deadline_at - timedelta(days=1), actor="cli",
                            reason="clôture avancée d'un jour")
        db_session.commit()
        assert (counter(), len(pokes)) == (3, 3)

        frozen_clock.move_to(prob.deadline_at)  # the new deadline, 19/05 21:00
        assert get_scheduler(app).run_due(now=clock.now()) == [
            "close:K1", "verify:K1", "provisional:K1"]
        assert (counter(), len(pokes)) == (3, 3)
    finally:
        changes.remove_listener(poke)


def _run_due_in_thread(app, out: list) -> threading.Thread:  # type: ignore[no-untyped-def]
    def run() -> None:
        with app.app_context():
            out.extend(lifecycle.run_due(now=clock.now()))

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def test_a_sheet_being_stored_neither_holds_the_close_nor_misses_the_verification(
    app, ctx, db_session: Session, make_player, make_problem, frozen_clock
) -> None:
    """The deadline step locks the problem FOR NO KEY UPDATE: a sheet being stored (its
    transaction holds the foreign key's KEY SHARE lock on the problem row) does not hold the
    close back — under a stream of sheets FOR UPDATE waited for minutes. The verification
    then waits for that transaction, and ranks its sheet."""
    from webapp.db import get_engine
    from webapp.services import rankings

    if get_engine(app).dialect.name != "postgresql":
        pytest.skip("row locks: PostgreSQL (SQLite has one writer at a time)")
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    prob = make_problem(code="P1", deadline=timedelta(hours=1))
    submit_sheet(session=db_session, player=ana, problem=prob, text=SHEET,
                 channel=Channel.WEB, received_at=clock.now())
    db_session.commit()
    in_flight = Session(get_engine(app), expire_on_commit=False)
    submit_sheet(session=in_flight, player=in_flight.get(type(bob), bob.id),
                 problem=in_flight.get(Problem, prob.id), text=SHEET, channel=Channel.WEB,
                 received_at=clock.now() + timedelta(minutes=59))
    in_flight.flush()  # stored, not committed: the deadline passes meanwhile
    frozen_clock.shift(timedelta(hours=1, seconds=1))
    done: list[str] = []
    worker = _run_due_in_thread(app, done)
    try:
        assert wait_for(lambda: _reload(db_session, prob.id).status == ProblemStatus.CLOSED)
        assert worker.is_alive()  # the verification waits for the sheet being stored
    finally:
        in_flight.commit()
        in_flight.close()
    worker.join(60)
    assert done == ["close:P1", "verify:P1", "provisional:P1"]
    ranking = rankings.current_ranking(db_session, _reload(db_session, prob.id))
    assert ranking is not None
    assert sorted(r["name"] for r in ranking.rows) == ["Ana", "Bob"]


def test_the_verification_waits_for_mail_received_in_time_and_not_yet_processed(
    app, ctx, db_session: Session, make_player, make_problem, frozen_clock
) -> None:
    """A message the SMTP intake accepted before the deadline but had not processed yet (a
    backlog at a deadline rush) is a sheet received in time: the verification waits until
    it is processed, and ranks it."""
    from email.message import EmailMessage

    from mailer import pipeline
    from webapp.models import InboundChannel
    from webapp.services import rankings

    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    prob = make_problem(code="P1", deadline=timedelta(hours=1))
    submit_sheet(session=db_session, player=ana, problem=prob, text=SHEET,
                 channel=Channel.WEB, received_at=clock.now())
    db_session.commit()
    msg = EmailMessage()
    msg["From"] = "Bob <bob@example.fr>"
    msg["To"] = f"feuilles+{bob.token}@arbitre.test"
    msg["Subject"] = "Problème : P1"
    msg["Message-ID"] = "<late-in-queue@example.fr>"
    msg.set_content(SHEET)
    stored = pipeline.store_raw(app, msg.as_bytes(), channel=InboundChannel.SMTP,
                                envelope_from="bob@example.fr",
                                envelope_to=[f"feuilles+{bob.token}@arbitre.test"],
                                received_at=clock.now() + timedelta(minutes=59))
    frozen_clock.shift(timedelta(hours=1, seconds=1))
    done: list[str] = []
    worker = _run_due_in_thread(app, done)
    assert wait_for(lambda: _reload(db_session, prob.id).status == ProblemStatus.CLOSED)
    assert worker.is_alive()  # waiting for the message accepted before the deadline
    pipeline.process(app, stored.id)
    worker.join(60)
    assert done == ["close:P1", "verify:P1", "provisional:P1"]
    ranking = rankings.current_ranking(db_session, _reload(db_session, prob.id))
    assert ranking is not None
    assert sorted(r["name"] for r in ranking.rows) == ["Ana", "Bob"]


def test_results_mails_are_composed_after_the_ranking_a_chunk_at_a_time_once(
    ctx, db_session: Session, make_player, make_problem, frozen_clock, monkeypatch
) -> None:
    """The deadline's ranking is committed without its results mails; they are composed
    after it, a chunk per transaction, each once: a run that stopped half-way (here: an
    error in the third chunk) leaves its committed chunks, and the next run adds the rest
    without doubling any."""
    from webapp.models import Ranking
    from webapp.services import rankings

    monkeypatch.setattr(lifecycle, "RESULTS_CHUNK", 2)
    players = [make_player(f"J{i}", f"j{i}@example.fr") for i in range(7)]
    prob = make_problem(code="R1", deadline=timedelta(hours=1))
    for p in players:
        submit_sheet(session=db_session, player=p, problem=prob, text=SHEET,
                     channel=Channel.WEB, received_at=clock.now())
    db_session.commit()

    real_announce = rankings.announce
    calls: list[int] = []

    def failing_third(session, problem, ranking, personal, *, revision):  # type: ignore[no-untyped-def]
        calls.append(len(personal))
        if len(calls) == 3:
            raise RuntimeError("interrupted")
        return real_announce(session, problem, ranking, personal, revision=revision)

    monkeypatch.setattr(rankings, "announce", failing_third)
    frozen_clock.shift(timedelta(hours=1))
    assert lifecycle.run_due(now=clock.now()) == ["close:R1", "verify:R1", "provisional:R1"]
    db_session.expire_all()
    ranking = db_session.exec(select(Ranking).where(Ranking.problem_id == prob.id)).one()
    assert ranking.mailed_at is None  # the ranking is in, its mails not all
    assert len(_keys(db_session, "results")) == 4  # the two chunks committed before the error

    monkeypatch.setattr(rankings, "announce", real_announce)
    assert lifecycle.run_due(now=clock.now()) == []
    assert _keys(db_session, "results") == sorted(
        f"results:provisional:R1:{p.id}" for p in players)
    db_session.expire_all()
    assert db_session.get(Ranking, ranking.id).mailed_at is not None
    assert lifecycle.announce_pending() == 0  # nothing left: no second mail
    assert len(_keys(db_session, "results")) == 7
