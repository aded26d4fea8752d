"""Anticipation by correspondence, end to end with the frozen clock: the groups announced
move by move (page, notices), sheets sent at chosen instants through ``submit_sheet``, the
deadline batch judging each move against the announcement times, and the ranking.

Schedule: published 10/05/2026 11:00 UTC (14:00 in Bucharest), one move a day, so the group
of move k is announced on day 10 + (k-1) at 11:00 UTC; the deadline is 24/05 11:00 UTC.
Groups: 2 RATBCDE, 3 ZLLMMNN, 4 OOPPUUI, drawn in the order 2, 3, 4, ... Word list: RAT,
RATS, ZA, OZA. Scores (worked out in tests/puzzles/test_verify.py): RAT at H7 = 6, ZA at
8G = 11, OZA at 8F = 12.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, col, select

from puzzles.problem import LexiconRef
from puzzles.problem import Problem as ProblemData
from tests.puzzles.conftest import anticipation_problem
from tests.web.za_game import use_word_list
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
from webapp.services import clock, lifecycle, problems
from webapp.services.submissions import submit_sheet

pytestmark = pytest.mark.db

PUBLISH = datetime(2026, 5, 10, 11, 0, tzinfo=UTC)
DAY = timedelta(days=1)
L1 = "1 G2 ART H7 RAT 6 6\n"
L2 = "2 G3 Z 8G ZA 11 17\n"
L3 = "3 G4 O 8F OZA 12 29\n"


def mini_anticipation(app: Flask, tmp_path: Path) -> ProblemData:
    """The Anticipation of the round tests (groups 2 RATBCDE, 3 ZLLMMNN, 4 OOPPUUI) on the
    word list « mini » {RAT, RATS, ZA, OZA}, registered as the server's only list."""
    use_word_list(app, tmp_path, "RAT\nRATS\nZA\nOZA\n", name="mini")
    puzzle = anticipation_problem({2: "RATBCDE", 3: "ZLLMMNN", 4: "OOPPUUI"})
    return puzzle.__class__(**{**puzzle.__dict__, "lexicon": LexiconRef("mini")})


@pytest.fixture
def anticipation(
    app: Flask, db_session: Session, competition: Competition, tmp_path: Path
) -> Problem:
    puzzle = mini_anticipation(app, tmp_path)
    prob = problems.create_problem(
        session=db_session, competition=competition, puzzle=puzzle, code="ANT1",
        publish_at=PUBLISH, deadline_at=PUBLISH + 14 * DAY, round_interval_minutes=24 * 60,
    )
    db_session.commit()
    return prob


def _section(client: FlaskClient) -> str:
    body = client.get("/problemes/ANT1").get_data(as_text=True)
    m = re.search(r'id="tirages-annonces".*?</section>', body, re.S)
    assert m is not None
    return m.group(0)


def _outbox(session: Session, kind: str) -> list[OutboxMessage]:
    session.expire_all()
    return list(session.exec(
        select(OutboxMessage).where(OutboxMessage.kind == kind)
        .order_by(col(OutboxMessage.id))
    ).all())


def _submit(session: Session, player: Player, prob: Problem, text: str, at: datetime) -> None:
    submit_sheet(session=session, player=player, problem=prob, text="Problème: ANT1\n" + text,
                 channel=Channel.EMAIL, received_at=at)
    session.commit()


def test_groups_are_announced_move_by_move(
    ctx: Flask, client: FlaskClient, db_session: Session, anticipation: Problem,
    make_player: Callable[..., Player], frozen_clock: Any,
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    frozen_clock.move_to(PUBLISH)
    assert lifecycle.run_due(now=clock.now()) == ["publish:ANT1"]
    [pub] = _outbox(db_session, "publication")
    assert "Coup 1 : groupe 1 et groupe 2 ;" in pub.body_text
    assert "Ordre des groupes" not in pub.body_text and "ZLLMMNN" in pub.body_text  # groups
    # are public, only the draw order is not

    # at publication: move 1 only (group 1 and the drawn group 2), next one in 24 h
    section = _section(client)
    assert section.count('class="announced-move"') == 1
    assert ">2</span> <span class=\"mono\">RATBCDE</span>" in section
    assert "ZLLMMNN" not in section
    assert "Prochaine annonce (coup 2)" in section
    assert "11/05/2026 à 14:00 (Europe/Bucharest, UTC+03:00)" in section
    assert 'data-countdown="2026-05-11T11:00:00Z"' in section
    assert "Il reste 1 j 00 h 00 min" in section

    frozen_clock.move_to(PUBLISH + DAY - timedelta(seconds=1))
    assert lifecycle.run_due(now=clock.now()) == []
    assert _section(client).count('class="announced-move"') == 1
    frozen_clock.move_to(PUBLISH + DAY)
    assert lifecycle.run_due(now=clock.now()) == ["announce:ANT1"]
    assert lifecycle.run_due(now=clock.now()) == []  # idempotent
    section = _section(client)
    assert section.count('class="announced-move"') == 2
    assert ">3</span> <span class=\"mono\">ZLLMMNN</span>" in section
    assert "11/05/2026 à 10:00:00 UTC" not in section and "11/05/2026 à 11:00:00 UTC" in section
    [notice] = _outbox(db_session, "announcement")
    assert notice.dedupe_key == f"announcement:ANT1:2:{ana.id}"
    assert notice.subject == "Anticipation (ANT1) — coup 2 : groupe 3"
    assert "  Groupe 3 : ZLLMMNN" in notice.body_text
    assert "avant l'annonce du coup 3, le 12/05/2026 à 14:00 (Europe/Bucharest, UTC+03:00)" \
        in notice.body_text

    # a server down over moves 3 and 4 sends one notice, for move 4, listing every move
    frozen_clock.move_to(PUBLISH + 3 * DAY + timedelta(hours=2))
    assert lifecycle.run_due(now=clock.now()) == ["announce:ANT1"]
    keys = [m.dedupe_key for m in _outbox(db_session, "announcement")]
    assert keys == [f"announcement:ANT1:2:{ana.id}", f"announcement:ANT1:4:{ana.id}"]
    last = _outbox(db_session, "announcement")[-1]
    assert "  Coup 3 (12/05/2026 à 11:00 UTC) : groupe 4 OOPPUUI" in last.body_text
    assert _section(client).count('class="announced-move"') == 4


def test_moves_are_judged_against_the_announcement_times(
    ctx: Flask, client: FlaskClient, db_session: Session, anticipation: Problem,
    make_player: Callable[..., Player], frozen_clock: Any,
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    frozen_clock.move_to(PUBLISH)
    assert lifecycle.run_due(now=clock.now()) == ["publish:ANT1"]
    db_session.expire_all()
    prob = db_session.get(Problem, anticipation.id)
    assert prob is not None and prob.status == ProblemStatus.OPEN

    # Ana sends each move in its round (her first score is a typo, fixed two days later)
    _submit(db_session, ana, prob, "1 G2 ART H7 RAT 7 7\n", PUBLISH + timedelta(hours=1))
    _submit(db_session, ana, prob, L1 + L2, PUBLISH + DAY + timedelta(hours=1))
    _submit(db_session, ana, prob, L1 + L2 + L3, PUBLISH + 2 * DAY + timedelta(hours=1))
    # Bob sends move 1 in time, then moves 2 and 3 together, half an hour after the group
    # of move 3 was announced: move 2 is zero, OZA rests on its Z and cascades
    _submit(db_session, bob, prob, L1, PUBLISH + timedelta(hours=2))
    _submit(db_session, bob, prob, L1 + L2 + L3, PUBLISH + 2 * DAY + timedelta(minutes=30))

    # Bob's receipt says at once which moves will not count
    receipt = _outbox(db_session, "receipt")[-1]
    assert receipt.to_addr == "bob@example.fr"
    assert (
        "  - Coup 1 : dans les temps (tel qu'envoyé le 10/05/2026 à 16:00:00 (Europe/Bucharest "
        "; 13:00:00 UTC)).\n"
        "  - Coup 2 : tel qu'il est écrit, envoyé le 12/05/2026 à 14:30:00 (Europe/Bucharest ; "
        "11:30:00 UTC), après l'annonce du coup 3 (12/05/2026 à 14:00:00 (Europe/Bucharest ; "
        "11:00:00 UTC)) : il ne comptera pas.\n"
        "  - Coup 3 : reçu à temps ; modifiable jusqu'à l'annonce du coup 4 (13/05/2026 à "
        "14:00:00 (Europe/Bucharest ; 11:00:00 UTC)).\n"
    ) in receipt.body_text

    frozen_clock.move_to(PUBLISH + 14 * DAY)
    done = lifecycle.run_due(now=clock.now())
    assert done[:3] == ["close:ANT1", "verify:ANT1", "provisional:ANT1"]

    db_session.expire_all()
    reports = {}
    for v in db_session.exec(select(Verification)).all():
        sub = db_session.get(Submission, v.submission_id)
        assert sub is not None
        reports[sub.player_id] = v
    a, b = reports[ana.id].report, reports[bob.id].report
    assert [m["status"] for m in a["moves"]] == ["valide", "valide", "valide"]
    assert (a["final_score"], a["warnings"]) == (29, 0)
    assert [m["status"] for m in b["moves"]] == ["valide", "zéro", "zéro en cascade"]
    assert [m["score"] for m in b["moves"]] == [6, 0, 0]
    assert b["moves"][1]["reasons"] == [
        "Coup 2 envoyé le 12/05/2026 à 14:30:00 (Europe/Bucharest ; 11:30:00 UTC), après "
        "l'annonce du coup 3 (12/05/2026 à 14:00:00 (Europe/Bucharest ; 11:00:00 UTC)) : "
        "il ne compte pas."
    ]
    assert "après l'annonce du coup 3" in reports[bob.id].report["text"]
    assert b["final_score"] == 6

    ranking = db_session.exec(select(Ranking)).one()
    assert [(r["rank"], r["name"], r["score"]) for r in ranking.rows] == [
        (1, "Ana", 29), (2, "Bob", 6)
    ]


def test_interval_must_fit_the_deadline_and_zero_keeps_the_whole_order(
    ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    frozen_clock: Any,
) -> None:
    puzzle = anticipation_problem({2: "RATBCDE"})
    with pytest.raises(ValueError, match="La clôture doit suivre la 14e annonce"):
        problems.create_problem(
            session=db_session, competition=competition, puzzle=puzzle, code="ANT2",
            publish_at=PUBLISH, deadline_at=PUBLISH + 13 * DAY, round_interval_minutes=24 * 60,
        )
    db_session.rollback()
    prob = problems.create_problem(
        session=db_session, competition=competition, puzzle=puzzle, code="ANT3",
        publish_at=PUBLISH, deadline_at=PUBLISH + 3 * DAY, status=ProblemStatus.OPEN,
    )
    db_session.commit()
    assert prob.round_interval_minutes == 0
    frozen_clock.move_to(PUBLISH + timedelta(hours=1))
    body = client.get("/problemes/ANT3").get_data(as_text=True)
    section = re.search(r'id="tirages-annonces".*?</section>', body, re.S)
    assert section is not None
    assert section.group(0).count('class="announced-move"') == 14
    assert "L'ordre de tirage complet a été publié avec le problème" in section.group(0)
    assert "Prochaine annonce" not in body


def test_console_sets_the_interval_and_refuses_one_that_does_not_fit(
    client: FlaskClient, db_session: Session, competition: Competition, frozen_clock: Any
) -> None:
    from tests.web.test_pages import login_arbitre, visible_text

    login_arbitre(client, db_session)
    form = {
        "competition_id": competition.id, "source": "generate", "game": "anticipation",
        "lang": "fr", "seed": "7", "timezone": "Europe/Bucharest",
        "publish_at": "2026-06-01T09:00", "deadline_at": "2026-06-08T21:00", "code": "C1",
    }
    # the default (one move a day) needs a deadline after the 14th announcement (day 14)
    resp = client.post("/console/problemes/nouveau", data=form)
    assert resp.status_code == 400
    text = visible_text(resp)
    assert (
        "La clôture doit suivre la 14e annonce, le 14/06/2026 à 09:00 (Europe/Bucharest, "
        "UTC+03:00) : avec un intervalle de 1440 min, choisissez une clôture au plus tôt le "
        "15/06/2026 à 09:00 (Europe/Bucharest, UTC+03:00) (fin du 14e coup), ou un intervalle "
        "plus court."
    ) in text
    assert 'value="24"' in text
    resp = client.post("/console/problemes/nouveau",
                       data=form | {"round_interval_hours": "douze"})
    assert "Intervalle entre deux annonces illisible : « douze »" in visible_text(resp)
    resp = client.post("/console/problemes/nouveau", data=form | {"round_interval_hours": "12"})
    assert resp.status_code == 302
    resp = client.post("/console/problemes/nouveau",
                       data=form | {"code": "C2", "round_interval_hours": "0"})
    assert resp.status_code == 302
    got = {p.code: p.round_interval_minutes for p in db_session.exec(select(Problem)).all()}
    assert got == {"C1": 720, "C2": 0}
    c1 = db_session.exec(select(Problem).where(Problem.code == "C1")).one()
    page_ = visible_text(client.get(f"/console/problemes/{c1.id}"))
    assert "Annonces des groupes" in page_ and "une toutes les 12 h" in page_


def test_submit_page_shows_the_announced_groups(
    ctx: Flask, client: FlaskClient, db_session: Session, anticipation: Problem,
    make_player: Callable[..., Player], frozen_clock: Any,
) -> None:
    from tests.web.test_pages import login_player

    ana = make_player("Ana", "ana@example.ro")
    frozen_clock.move_to(PUBLISH + DAY + timedelta(hours=1))
    assert lifecycle.run_due(now=clock.now()) == ["publish:ANT1", "announce:ANT1"]
    login_player(client, ana)
    body = client.get("/joueur/problemes/ANT1/envoyer").get_data(as_text=True)
    m = re.search(r'id="tirages-annonces".*?</section>', body, re.S)
    assert m is not None
    assert m.group(0).count('class="announced-move"') == 2
    assert "ZLLMMNN" in m.group(0) and "OOPPUUI" not in m.group(0)
    assert "Prochaine annonce (coup 3)" in m.group(0)


def test_scheduler_plans_each_announcement_and_reschedule_keeps_the_rounds(
    ctx: Flask, db_session: Session, anticipation: Problem, frozen_clock: Any,
) -> None:
    frozen_clock.move_to(PUBLISH + DAY + timedelta(hours=1))
    instants = lifecycle.upcoming_instants(now=clock.now())
    # announcements of moves 3 to 14, then the J-3 and J-1 reminders and the deadline
    for k in range(3, 15):
        assert PUBLISH + (k - 1) * DAY in instants
    assert PUBLISH + DAY not in instants  # already past
    prob = db_session.get(Problem, anticipation.id)
    assert prob is not None
    with pytest.raises(ValueError, match="La clôture doit suivre la 14e annonce"):
        problems.reschedule(session=db_session, problem=prob, publish_at=PUBLISH,
                            deadline_at=PUBLISH + 13 * DAY, actor="juge", reason="essai")


def test_published_early_by_hand_the_rounds_start_at_the_publication(
    ctx: Flask, client: FlaskClient, db_session: Session, anticipation: Problem,
    frozen_clock: Any,
) -> None:
    from webapp.services import rounds

    early = PUBLISH - timedelta(hours=5)
    frozen_clock.move_to(early)
    prob = db_session.get(Problem, anticipation.id)
    assert prob is not None
    lifecycle.publish(db_session, prob, clock.now())  # what the console's button does
    db_session.commit()
    assert rounds.schedule(prob)[:2] == (early, early + DAY)
    assert "Prochaine annonce (coup 2)" in _section(client)
    assert 'data-countdown="2026-05-11T06:00:00Z"' in _section(client)


def _stored(session: Session, prob: Problem) -> list[tuple[int, datetime, datetime | None]]:
    session.expire_all()
    return [
        (r.number, r.announced_at, r.notified_at)
        for r in session.exec(
            select(AnticipationRound).where(AnticipationRound.problem_id == prob.id)
            .order_by(col(AnticipationRound.number))
        ).all()
    ]


def test_publication_stores_the_fourteen_announcements_as_rounds(
    ctx: Flask, db_session: Session, anticipation: Problem,
    make_player: Callable[..., Player], frozen_clock: Any,
) -> None:
    """Each round is a row: announced at 10/05 11:00 UTC + (k-1) days, marked when its
    notice goes out (move 1 with the publication; after a downtime the notice of move 4
    lists moves 3 and 4, so both are marked then)."""
    make_player("Ana", "ana@example.ro")
    assert _stored(db_session, anticipation) == []  # planned only, before publication
    frozen_clock.move_to(PUBLISH)
    assert lifecycle.run_due(now=clock.now()) == ["publish:ANT1"]
    rows = _stored(db_session, anticipation)
    assert [(n, at) for n, at, _ in rows] == [(k, PUBLISH + (k - 1) * DAY) for k in range(1, 15)]
    assert rows[-1][1] == datetime(2026, 5, 23, 11, 0, tzinfo=UTC)  # 10/05 + 13 days
    assert [sent for _, _, sent in rows] == [PUBLISH] + [None] * 13

    frozen_clock.move_to(PUBLISH + DAY)
    assert lifecycle.run_due(now=clock.now()) == ["announce:ANT1"]
    assert [sent for _, _, sent in _stored(db_session, anticipation)][:3] == [
        PUBLISH, PUBLISH + DAY, None]
    later = PUBLISH + 3 * DAY + timedelta(hours=2)
    frozen_clock.move_to(later)
    assert lifecycle.run_due(now=clock.now()) == ["announce:ANT1"]
    assert [sent for _, _, sent in _stored(db_session, anticipation)][:5] == [
        PUBLISH, PUBLISH + DAY, later, later, None]


def test_the_stored_rounds_are_the_schedule_once_published(
    ctx: Flask, client: FlaskClient, db_session: Session, anticipation: Problem,
    frozen_clock: Any,
) -> None:
    """After publication the rows, not the interval, say when each group is announced:
    the arbitre's row for move 3 moved from 12/05 11:00 to 12/05 18:00 UTC makes round 2
    close then, and the page count down to it."""
    from webapp.db import get_engine
    from webapp.services import changes, rounds

    frozen_clock.move_to(PUBLISH)
    assert lifecycle.run_due(now=clock.now()) == ["publish:ANT1"]
    db_session.expire_all()
    prob = db_session.get(Problem, anticipation.id)
    assert prob is not None
    prob.round_interval_minutes = 12 * 60  # no longer read once the rounds are stored
    db_session.add(prob)
    db_session.commit()

    def counter() -> int:
        with get_engine(ctx).connect() as conn:
            return changes.current(conn)

    before = counter()
    row = db_session.exec(select(AnticipationRound).where(
        AnticipationRound.problem_id == prob.id, AnticipationRound.number == 3)).one()
    moved = PUBLISH + 2 * DAY + timedelta(hours=7)  # 12/05 18:00 UTC
    row.announced_at = moved
    db_session.add(row)
    db_session.commit()
    assert counter() == before + 1  # a moved announcement replans the scheduler
    assert rounds.schedule(prob)[:4] == (PUBLISH, PUBLISH + DAY, moved, PUBLISH + 3 * DAY)
    assert rounds.round_close(prob, 2) == (moved, "l'annonce du coup 3")
    frozen_clock.move_to(PUBLISH + 2 * DAY + timedelta(hours=1))  # 12/05 12:00 UTC
    assert rounds.next_announcement(prob, clock.now()) == (3, moved)
    assert 'data-countdown="2026-05-12T18:00:00Z"' in _section(client)
