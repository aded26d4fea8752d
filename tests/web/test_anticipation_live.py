"""Anticipation played live (RULES §6.1), end to end with the frozen clock: the problem is
published, 60 min of reflection follow, then each move's group is announced when the
previous move's time is over — 10 min for moves 1–4, 8 for 5–8, 6 for 9–12, 4 for 13–14.

Seed (002, « Temps de réflexion »): « Un premier temps de réflexion de 60 minutes est
accordé aux joueurs » ; « Coups nos. 1, 2, 3, 4 : 10 min. ; 5, 6, 7, 8 : 8 min. ; 9, 10, 11,
12 : 6 min. ; 13, 14 : 4 min. » ; « Une minute avant l'écoulement du temps de réflexion,
l'arbitre annonce "Une minute!", pour prévenir les joueurs qu'il est temps d'écrire leurs
billets. » ; « Apres le ramassage, l'arbitre passe au 2-e coup. »

Timetable, published 10/05/2026 10:00 UTC (13:00 in Bucharest, UTC+03:00):
reflection 10:00 → 11:00 (60 min); move 1 11:00 → 11:10, 2 → 11:20, 3 → 11:30, 4 → 11:40
(4 × 10 min); 5 → 11:48, 6 → 11:56, 7 → 12:04, 8 → 12:12 (4 × 8); 9 → 12:18, 10 → 12:24,
11 → 12:30, 12 → 12:36 (4 × 6); 13 → 12:40, 14 → 12:44 (2 × 4): 60 + 40 + 32 + 24 + 8 =
164 min, the deadline is 10:00 + 2 h 44 = 12:44.

Groups as in tests/web/test_anticipation_rounds.py: 2 RATBCDE, 3 ZLLMMNN, 4 OOPPUUI, drawn
in the order 2, 3, 4, ...; word list RAT, RATS, ZA, OZA; RAT at H7 = 6, ZA at 8G = 11.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, col, select

from tests.puzzles.conftest import anticipation_problem
from tests.web.test_anticipation_rounds import L1, L2, mini_anticipation
from webapp.models import (
    AnticipationRound,
    Channel,
    Competition,
    OutboxMessage,
    Player,
    Problem,
    ProblemStatus,
    Ranking,
    Submission,
    Verification,
)
from webapp.scheduler import get_scheduler
from webapp.services import clock, lifecycle, problems, rounds
from webapp.services.submissions import submit_sheet

pytestmark = pytest.mark.db

PUBLISH = datetime(2026, 5, 10, 10, 0, tzinfo=UTC)
MIN = timedelta(minutes=1)
SEC = timedelta(seconds=1)
DEADLINE = PUBLISH + 164 * MIN  # 60 + 4×10 + 4×8 + 4×6 + 2×4 = 164 min → 12:44 UTC

#: when each move's group is announced, move 1 to 14 (UTC), by the arithmetic above
ANNOUNCED = [
    datetime(2026, 5, 10, h, m, tzinfo=UTC)
    for h, m in ((11, 0), (11, 10), (11, 20), (11, 30),   # reflection 60, then 10 min each
                 (11, 40), (11, 48), (11, 56), (12, 4),   # 11:40 + 8 min each
                 (12, 12), (12, 18), (12, 24), (12, 30),  # 12:12 + 6 min each
                 (12, 36), (12, 40))                      # 12:36 + 4 min
]


@pytest.fixture
def live(app: Flask, db_session: Session, competition: Competition, tmp_path: Path) -> Problem:
    puzzle = mini_anticipation(app, tmp_path)
    prob = problems.create_problem(
        session=db_session, competition=competition, puzzle=puzzle, code="LIV1",
        publish_at=PUBLISH, deadline_at=rounds.live_deadline_after(PUBLISH), live=True,
    )
    db_session.commit()
    return prob


def _outbox(session: Session, kind: str | None = None) -> list[OutboxMessage]:
    session.expire_all()
    query = select(OutboxMessage).order_by(col(OutboxMessage.id))
    if kind is not None:
        query = query.where(OutboxMessage.kind == kind)
    return list(session.exec(query).all())


def _live_box(client: FlaskClient) -> str:
    body = client.get("/problemes/LIV1").get_data(as_text=True)
    m = re.search(r'id="en-direct".*?</section>', body, re.S)
    assert m is not None, "no live box on the page"
    return m.group(0)


def _submit(session: Session, player: Player, prob: Problem, text: str, at: datetime) -> None:
    submit_sheet(session=session, player=player, problem=prob, text="Problème: LIV1\n" + text,
                 channel=Channel.EMAIL, received_at=at)
    session.commit()


def test_live_windows_are_the_rules_times(
    ctx: Flask, db_session: Session, live: Problem, make_player: Callable[..., Player],
    frozen_clock: Any,
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    assert live.deadline_at == datetime(2026, 5, 10, 12, 44, tzinfo=UTC)
    assert rounds.is_live(live) and rounds.progressive(live)
    frozen_clock.move_to(PUBLISH)
    assert lifecycle.run_due(now=clock.now()) == ["publish:LIV1"]
    db_session.expire_all()
    rows = db_session.exec(select(AnticipationRound).where(
        AnticipationRound.problem_id == live.id).order_by(col(AnticipationRound.number))).all()
    assert [r.announced_at for r in rows] == ANNOUNCED
    # live, move 1 is announced at the end of the reflection, not with the publication
    assert [r.notified_at for r in rows] == [None] * 14
    prob = db_session.get(Problem, live.id)
    assert prob is not None
    # each window closes when the next move is announced; move 14's at the deadline
    assert rounds.round_close(prob, 1) == (datetime(2026, 5, 10, 11, 10, tzinfo=UTC),
                                           "l'annonce du coup 2")
    assert rounds.round_close(prob, 4)[0] == datetime(2026, 5, 10, 11, 40, tzinfo=UTC)
    assert rounds.round_close(prob, 8)[0] == datetime(2026, 5, 10, 12, 12, tzinfo=UTC)
    assert rounds.round_close(prob, 12)[0] == datetime(2026, 5, 10, 12, 36, tzinfo=UTC)
    assert rounds.round_close(prob, 14) == (DEADLINE, "la clôture")

    # the publication mail gives the timetable, not move 1's group
    [pub] = _outbox(db_session, "publication")
    assert ("En direct : 60 min de réflexion ; le coup 1 (groupe 1 et un groupe tiré au sort) "
            "sera annoncé le 10/05/2026 à 14:00 (Europe/Bucharest, UTC+03:00)") in pub.body_text
    assert "Coup 1 : groupe 1 et groupe 2" not in pub.body_text
    assert "Ordre des groupes" not in pub.body_text and "ZLLMMNN" in pub.body_text

    # nothing during the reflection; move 1 at 11:00 (group 1 and the drawn group 2)
    frozen_clock.move_to(ANNOUNCED[0] - SEC)
    assert lifecycle.run_due(now=clock.now()) == []
    frozen_clock.move_to(ANNOUNCED[0])
    assert lifecycle.run_due(now=clock.now()) == ["announce:LIV1"]
    assert lifecycle.run_due(now=clock.now()) == []  # idempotent
    [notice] = _outbox(db_session, "announcement")
    assert notice.dedupe_key == f"announcement:LIV1:1:{ana.id}"
    assert "  Groupe 2 : RATBCDE" in notice.body_text
    assert ("avant l'annonce du coup 2, le 10/05/2026 à 14:10 (Europe/Bucharest, UTC+03:00)"
            in notice.body_text)
    # move 2 at 11:10, not a second before
    frozen_clock.move_to(ANNOUNCED[1] - SEC)
    assert lifecycle.run_due(now=clock.now()) == []
    frozen_clock.move_to(ANNOUNCED[1])
    assert lifecycle.run_due(now=clock.now()) == ["announce:LIV1"]
    # no J-3 / J-1 reminder in a 164-minute game: only the publication and the notices
    assert {m.kind for m in _outbox(db_session)} == {"publication", "announcement"}


def test_the_page_shows_the_window_in_progress_with_its_countdown(
    ctx: Flask, client: FlaskClient, db_session: Session, live: Problem,
    make_player: Callable[..., Player], frozen_clock: Any,
) -> None:
    frozen_clock.move_to(PUBLISH)
    assert lifecycle.run_due(now=clock.now()) == ["publish:LIV1"]
    frozen_clock.move_to(PUBLISH + 30 * MIN)
    box = _live_box(client)
    assert "En direct" in box
    assert "Réflexion (60 min) : étudiez les groupes ; le coup 1 sera annoncé à la fin." in box
    assert "Fin de la réflexion :" in box
    assert 'data-countdown="2026-05-10T11:00:00Z" data-reload' in box
    assert "Il reste 00 h 30 min" in box  # 11:00 − 10:30
    assert 'data-one-minute="2026-05-10T11:00:00Z" hidden>Une minute !' in box
    assert "RATBCDE" not in box

    # 11:41: move 5 (11:40 → 11:48, 8 min) with group 6, the 5th of the order 2, 3, ...
    frozen_clock.move_to(ANNOUNCED[4] + MIN)
    box = _live_box(client)
    assert "Coup 5 en cours (8 min) :" in box
    assert '<span class="group-no">groupe 6</span>' in box
    assert 'data-countdown="2026-05-10T11:48:00Z"' in box
    assert "Il reste 00 h 07 min" in box  # 11:48 − 11:41
    assert "10/05/2026 à 14:48" in box  # local time of the end (UTC+03:00)
    # the sending form shows the same box
    from tests.web.test_pages import login_player

    login_player(client, make_player("Ana", "ana@example.ro"))
    form = client.get("/joueur/problemes/LIV1/envoyer").get_data(as_text=True)
    assert "Coup 5 en cours (8 min) :" in form and 'data-countdown="2026-05-10T11:48:00Z"' in form
    # move 14 (12:40 → 12:44, 4 min), then nothing once the deadline is past
    frozen_clock.move_to(ANNOUNCED[13])
    box = _live_box(client)
    assert "Coup 14 en cours (4 min) :" in box
    assert 'data-countdown="2026-05-10T12:44:00Z"' in box
    frozen_clock.move_to(DEADLINE)
    assert lifecycle.run_due(now=clock.now())[0] == "close:LIV1"
    assert 'id="en-direct"' not in client.get("/problemes/LIV1").get_data(as_text=True)


def test_a_line_one_second_late_does_not_count(
    ctx: Flask, client: FlaskClient, db_session: Session, live: Problem,
    make_player: Callable[..., Player], frozen_clock: Any,
) -> None:
    """« Une minute avant l'écoulement du temps de réflexion, l'arbitre annonce "Une
    minute!", pour prévenir les joueurs qu'il est temps d'écrire leurs billets » and « Apres
    le ramassage, l'arbitre passe au 2-e coup » (seed 002): a billet is collected when its
    time is over. Live, the server's receive time decides: move 1 closes at 11:10:00 UTC."""
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    frozen_clock.move_to(PUBLISH)
    assert lifecycle.run_due(now=clock.now()) == ["publish:LIV1"]
    db_session.expire_all()
    prob = db_session.get(Problem, live.id)
    assert prob is not None
    # Ana: move 1 a second before its close, move 2 a second before its close (11:20)
    _submit(db_session, ana, prob, L1, ANNOUNCED[1] - SEC)
    _submit(db_session, ana, prob, L1 + L2, ANNOUNCED[2] - SEC)
    # Bob: move 1 one second after its close (11:10:01), move 2 in time
    _submit(db_session, bob, prob, L1, ANNOUNCED[1] + SEC)
    _submit(db_session, bob, prob, L1 + L2, ANNOUNCED[1] + 5 * MIN)
    receipt = _outbox(db_session, "receipt")[-2]
    assert receipt.to_addr == "bob@example.fr"
    assert ("  - Coup 1 : tel qu'il est écrit, envoyé le 10/05/2026 à 14:10:01 (Europe/Bucharest "
            "; 11:10:01 UTC), après l'annonce du coup 2 (10/05/2026 à 14:10:00 (Europe/"
            "Bucharest ; 11:10:00 UTC)) : il ne comptera pas.\n") in receipt.body_text

    frozen_clock.move_to(DEADLINE)
    assert lifecycle.run_due(now=clock.now())[:3] == [
        "close:LIV1", "verify:LIV1", "provisional:LIV1"]
    db_session.expire_all()
    reports = {}
    for v in db_session.exec(select(Verification)).all():
        sub = db_session.get(Submission, v.submission_id)
        assert sub is not None
        reports[sub.player_id] = v.report
    a, b = reports[ana.id], reports[bob.id]
    assert [m["score"] for m in a["moves"]] == [6, 11] and a["final_score"] == 17  # 6 + 11
    # RAT scores zero, and ZA at 8G, whose A is RAT's at H8, zero in cascade (RULES §5.2)
    assert [m["status"] for m in b["moves"]] == ["zéro", "zéro en cascade"]
    assert b["final_score"] == 0
    assert b["moves"][0]["reasons"] == [
        "Coup 1 envoyé le 10/05/2026 à 14:10:01 (Europe/Bucharest ; 11:10:01 UTC), après "
        "l'annonce du coup 2 (10/05/2026 à 14:10:00 (Europe/Bucharest ; 11:10:00 UTC)) : "
        "il ne compte pas."
    ]
    ranking = db_session.exec(select(Ranking)).one()
    assert [(r["name"], r["score"]) for r in ranking.rows] == [("Ana", 17), ("Bob", 0)]


def test_the_scheduler_catches_up_after_a_downtime(
    ctx: Flask, client: FlaskClient, db_session: Session, live: Problem,
    make_player: Callable[..., Player], frozen_clock: Any,
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    # down from before the publication to 10:20: published late, the timetable stands
    # (move 1 still at 11:00; the reflection left is 40 min), deadline still 12:44
    frozen_clock.move_to(PUBLISH + 20 * MIN)
    assert lifecycle.run_due(now=clock.now()) == ["publish:LIV1"]
    db_session.expire_all()
    prob = db_session.get(Problem, live.id)
    assert prob is not None
    assert rounds.schedule(prob) == tuple(ANNOUNCED)
    assert prob.deadline_at == DEADLINE
    # down again 10:20 → 11:45: moves 1 to 5 were announced meanwhile (move 5 at 11:40);
    # one notice, move 5's, lists them all
    frozen_clock.move_to(datetime(2026, 5, 10, 11, 45, tzinfo=UTC))
    assert lifecycle.run_due(now=clock.now()) == ["announce:LIV1"]
    [notice] = _outbox(db_session, "announcement")
    assert notice.dedupe_key == f"announcement:LIV1:5:{ana.id}"
    for k in range(1, 6):
        assert f"  Coup {k} (" in notice.body_text
    assert "avant l'annonce du coup 6, le 10/05/2026 à 14:48" in notice.body_text  # 11:48 UTC
    # the scheduler plans each remaining window: moves 6 to 14 and the deadline, no reminder
    sched = get_scheduler(ctx)
    sched.start()
    try:
        assert sched.is_leader
        assert sched.planned() == ANNOUNCED[5:] + [DEADLINE]
    finally:
        sched.shutdown()
    # down over the end: closed, verified and ranked at once; no notice after the deadline
    frozen_clock.move_to(DEADLINE + 15 * MIN)
    assert lifecycle.run_due(now=clock.now())[:3] == [
        "close:LIV1", "verify:LIV1", "provisional:LIV1"]
    assert len(_outbox(db_session, "announcement")) == 1


def test_live_deadline_is_checked_and_early_publication_moves_it(
    ctx: Flask, db_session: Session, competition: Competition, live: Problem,
    frozen_clock: Any,
) -> None:
    puzzle = anticipation_problem({2: "RATBCDE"})
    with pytest.raises(ValueError, match=re.escape(
        "En direct, la clôture est la fin du 14e coup : le 10/05/2026 à 15:44 "
        "(Europe/Bucharest, UTC+03:00) (publication + 60 min de réflexion + 104 min de jeu).")):
        problems.create_problem(
            session=db_session, competition=competition, puzzle=puzzle, code="LIV2",
            publish_at=PUBLISH, deadline_at=PUBLISH + timedelta(days=1), live=True,
        )
    db_session.rollback()
    # published by hand at 09:30: the reflection starts then, move 1 at 10:30, the deadline
    # becomes 09:30 + 164 min = 12:14
    early = PUBLISH - 30 * MIN
    frozen_clock.move_to(early)
    prob = db_session.get(Problem, live.id)
    assert prob is not None
    lifecycle.publish(db_session, prob, clock.now())
    db_session.commit()
    db_session.expire_all()
    prob = db_session.get(Problem, live.id)
    assert prob is not None and prob.status == ProblemStatus.OPEN
    assert rounds.schedule(prob)[0] == datetime(2026, 5, 10, 10, 30, tzinfo=UTC)
    assert prob.deadline_at == datetime(2026, 5, 10, 12, 14, tzinfo=UTC)
    assert prob.params["deadline"].startswith("2026-05-10T15:14")  # the statement follows


def test_console_sets_the_live_rhythm(
    client: FlaskClient, db_session: Session, competition: Competition, frozen_clock: Any
) -> None:
    """« Rythme : en direct » (default: par correspondance). Published 01/06/2026 09:00 in
    Bucharest (06:00 UTC): the server sets the deadline to 06:00 + 164 min = 08:44 UTC
    (11:44 local); the form's Clôture is not needed."""
    from tests.web.test_pages import login_arbitre, visible_text

    login_arbitre(client, db_session)
    page = visible_text(client.get("/console/problemes/nouveau"))
    assert "Anticipation : rythme" in page
    assert "par correspondance (une annonce par intervalle)" in page
    assert "en direct (temps du règlement)" in page
    assert '<option value="correspondance" selected>' in client.get(
        "/console/problemes/nouveau").get_data(as_text=True)
    form = {
        "competition_id": competition.id, "source": "generate", "game": "anticipation",
        "lang": "fr", "seed": "7", "timezone": "Europe/Bucharest",
        "publish_at": "2026-06-01T09:00", "deadline_at": "", "code": "D1", "rhythm": "direct",
    }
    resp = client.post("/console/problemes/nouveau", data=form | {"game": "integral"})
    assert resp.status_code == 400
    assert "Le rythme « en direct » ne concerne que les Anticipations." in visible_text(resp)
    resp = client.post("/console/problemes/nouveau", data=form)
    assert resp.status_code == 302
    db_session.expire_all()
    prob = db_session.exec(select(Problem).where(Problem.code == "D1")).one()
    assert rounds.is_live(prob) and prob.round_interval_minutes == 0
    assert prob.deadline_at == datetime(2026, 6, 1, 8, 44, tzinfo=UTC)
    shown = visible_text(client.get(f"/console/problemes/{prob.id}"))
    assert "Rythme" in shown
    assert "en direct : 60 min de réflexion, puis 10, 8, 6 et 4 min par coup" in shown


def test_live_announcement_mails_can_be_switched_off(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, live: Problem,
    make_player: Callable[..., Player], frozen_clock: Any,
) -> None:
    """``LIVE_ANNOUNCEMENT_MAILS = False``: the page only; the publication mail still goes."""
    app.config["LIVE_ANNOUNCEMENT_MAILS"] = False
    make_player("Ana", "ana@example.ro")
    frozen_clock.move_to(PUBLISH)
    assert lifecycle.run_due(now=clock.now()) == ["publish:LIV1"]
    frozen_clock.move_to(ANNOUNCED[0])
    assert lifecycle.run_due(now=clock.now()) == []
    assert [m.kind for m in _outbox(db_session)] == ["publication"]
    assert "Coup 1 en cours (10 min) :" in _live_box(client)


@pytest.mark.slow
def test_the_job_planned_at_the_end_of_the_reflection_announces_move_one(
    app: Flask, ctx: Flask, db_session: Session, competition: Competition,
    make_player: Callable[..., Player],
) -> None:
    """Real clock, no tick and no change-counter poll for an hour: only the job planned at
    the row's instant can announce move 1 — within 2 s of it, by the outbox's own record."""
    app.config.update(SCHEDULER_TICK_SECONDS=3600, SCHEDULER_POLL_SECONDS=3600)
    ana = make_player("Ana", "ana@example.ro")
    start = clock.now() - 60 * MIN + 8 * SEC  # the reflection ends 8 s from now
    prob = problems.create_problem(
        session=db_session, competition=competition, puzzle=anticipation_problem({}),
        code="LIV3", publish_at=start, deadline_at=rounds.live_deadline_after(start), live=True,
    )
    db_session.commit()
    sched = get_scheduler(app)
    sched.start()
    try:
        assert sched.is_leader
        first = start + 60 * MIN
        limit = time.monotonic() + 60
        while not _outbox(db_session, "announcement"):
            assert time.monotonic() < limit, "move 1 was not announced within 60 s"
            time.sleep(0.05)
        [notice] = _outbox(db_session, "announcement")
        assert notice.dedupe_key == f"announcement:LIV3:1:{ana.id}"
        assert 0 <= (notice.created_at - first).total_seconds() < 2
        limit = time.monotonic() + 30
        while start + 70 * MIN not in sched.planned():  # move 2, 10 min later
            assert time.monotonic() < limit, "move 2 was not planned"
            time.sleep(0.05)
        assert prob.id is not None
    finally:
        sched.shutdown()
