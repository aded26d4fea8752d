"""A Duplicate Tactique played live: « Temps de réflexion: 6 minutes par coup » (seed 002,
Duplicate Tactique; RULES §9.1). The rhythm ``{"kind": "live", "minutes": 6}``: each round
closes 6 min after its draw, and the results and the next draw follow at once — in the same
scheduled run, not at a later tick or poll.

Same game as tests/web/test_duplicate_variants.py::test_tactique_end_to_end: group 1 draws
ZAEIBCD, group 2 SEOUFGH; word list {ZA, ZAS, AS}; top « H7 ZA 22 + H7 ZAS 12 = 34 ».
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, col, select

from puzzles.duplicate import DuplicateSettings
from scoring.tiles import tileset
from webapp.models import (
    Channel,
    Competition,
    DuplicateGame,
    DuplicateRound,
    DuplicateStatus,
    OutboxMessage,
    Player,
)
from webapp.scheduler import get_scheduler
from webapp.services import clock, duplicate, lifecycle

pytestmark = pytest.mark.db

START = datetime(2026, 5, 10, 10, 0, tzinfo=UTC)  # = tests.conftest.FROZEN_START
MIN = timedelta(minutes=1)
SEC = timedelta(seconds=1)


def _bag() -> str:
    first = "ZAEIBCDSEOUFGH"
    rest = tileset("fr").bag() - Counter(first)
    return first + "".join(sorted(rest.elements()))


def _game(app: Flask, session: Session, competition: Competition, tmp_path: Path,
          starts_at: datetime, rounds: int = 2) -> DuplicateGame:
    words = tmp_path / "za.txt"
    words.write_text("ZA\nZAS\nAS\n", "utf-8")
    app.config["LEXICONS"] = {"za": str(words)}
    g = duplicate.create_game(
        session=session, competition=competition, title="Tactique", code="TL1",
        settings=DuplicateSettings(lang="fr", rounds=rounds),
        rhythm={"kind": "live", "minutes": duplicate.live_minutes("tactique")},
        starts_at=starts_at, lexicon_name="za", bag_order=_bag(), variant="tactique")
    session.commit()
    return g


def _rounds(session: Session) -> list[DuplicateRound]:
    session.expire_all()
    return list(session.exec(select(DuplicateRound).order_by(col(DuplicateRound.number))).all())


def _kinds(session: Session) -> list[str]:
    session.expire_all()
    return [m.kind for m in session.exec(select(OutboxMessage)).all()]


def test_live_tactique_rounds_last_six_minutes_and_follow_each_other(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    assert duplicate.live_minutes("tactique") == 6 and duplicate.live_minutes("") == 3
    ana = make_player("Ana", "ana@example.ro")
    g = _game(app, db_session, competition, tmp_path, START)
    assert g.rhythm == {"kind": "live", "minutes": 6, "mails": False}
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:TL1:1"]
    [r1] = _rounds(db_session)
    assert (r1.opens_at, r1.closes_at) == (START, START + 6 * MIN)  # 10:00 → 10:06
    assert lifecycle.upcoming_instants(now=clock.now()) == [START + 6 * MIN]
    page = client.get("/duplicate/TL1").get_data(as_text=True)
    assert ("Duplicate Tactique en direct · TL1 · en direct : 6 min par tour, le tirage "
            "suivant dès les résultats") in page
    # the round's countdown reloads the page when it ends; « Une minute ! » in its last one
    assert 'data-countdown="2026-05-10T10:06:00Z" data-reload="3000"' in page
    assert 'data-one-minute="2026-05-10T10:06:00Z" hidden>Une minute !' in page

    # Ana's billet 10 s before the close counts
    duplicate.submit_bulletin(session=db_session, player=ana, game=g,
                              text="H7 ZA 22 + H7 ZAS 12 = 34", channel=Channel.WEB,
                              received_at=START + 6 * MIN - 10 * SEC)
    db_session.commit()
    frozen_clock.move_to(START + 6 * MIN - SEC)
    assert lifecycle.run_due(now=clock.now()) == []
    # 10:06: close, correct, results and the next draw in one run (review delay 0)
    frozen_clock.move_to(START + 6 * MIN)
    assert lifecycle.run_due(now=clock.now()) == [
        "close:TL1:1", "correct:TL1:1", "publish:TL1:1", "draw:TL1:2"]
    r1, r2 = _rounds(db_session)
    assert [(x["name"], x["score"]) for x in r1.results] == [("Ana", 34)]
    assert r1.published_at == START + 6 * MIN
    assert (r2.opens_at, r2.closes_at) == (START + 6 * MIN, START + 12 * MIN)  # 10:06 → 10:12
    # a round every 6 minutes mails neither its draw nor its results; the receipt goes out
    assert sorted(set(_kinds(db_session))) == ["receipt"]
    frozen_clock.move_to(START + 12 * MIN)
    assert lifecycle.run_due(now=clock.now())[:3] == ["close:TL1:2", "correct:TL1:2",
                                                      "publish:TL1:2"]
    db_session.expire_all()
    g = db_session.exec(select(DuplicateGame)).one()
    assert g.status == DuplicateStatus.FINISHED  # rounds=2: the final ranking
    assert duplicate.KIND_FINAL in _kinds(db_session)


def test_live_rhythm_is_checked(
    app: Flask, ctx: Flask, db_session: Session, competition: Competition, tmp_path: Path,
) -> None:
    with pytest.raises(duplicate.DuplicateError, match="nombre de minutes entre 1 et 180"):
        duplicate.check_rhythm({"kind": "live", "minutes": 0}, "Europe/Bucharest")
    with pytest.raises(duplicate.DuplicateError, match="délai de revue du top doit être 0"):
        duplicate.create_game(
            session=db_session, competition=competition, title="T", code="TL9",
            settings=DuplicateSettings(lang="fr", rounds=2),
            rhythm={"kind": "live", "minutes": 6}, starts_at=START, review_minutes=5,
            variant="tactique")


@pytest.mark.slow
def test_the_next_live_round_is_drawn_by_the_close_job_itself(
    app: Flask, ctx: Flask, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], tmp_path: Path,
) -> None:
    """No tick and no change-counter poll for an hour: only the job planned at round 1's
    close can close it, publish its results and draw round 2 — within 2 s of the close, by
    the server's own record — and round 2's close is planned at once."""
    app.config.update(SCHEDULER_TICK_SECONDS=3600, SCHEDULER_POLL_SECONDS=3600)
    make_player("Ana", "ana@example.ro")
    now = clock.now()
    # round 1 drawn 6 min minus 4 s ago: it closes in 4 s
    g = _game(app, db_session, competition, tmp_path, now - 6 * MIN + 4 * SEC)
    assert g.id is not None
    assert duplicate.advance(g.id, now=now - 6 * MIN + 4 * SEC) == ["draw:TL1:1"]
    sched = get_scheduler(app)
    sched.start()
    try:
        assert sched.is_leader
        limit = time.monotonic() + 60
        while len(_rounds(db_session)) < 2:
            assert time.monotonic() < limit, "round 2 was not drawn within 60 s"
            time.sleep(0.05)
        r1, r2 = _rounds(db_session)
        assert r1.published_at is not None
        assert 0 <= (r1.published_at - r1.closes_at).total_seconds() < 2
        assert r2.opens_at == r1.published_at  # the same run
        assert r2.closes_at == r2.opens_at + 6 * MIN
        limit = time.monotonic() + 30
        while r2.closes_at not in sched.planned():
            assert time.monotonic() < limit, "round 2's close was not planned"
            time.sleep(0.05)
    finally:
        sched.shutdown()


def test_console_creates_a_live_tactique(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    tmp_path: Path,
) -> None:
    """« en direct » on the console: empty minutes take the Tactique's 6 (RULES §9.1)."""
    from tests.web.test_pages import login_arbitre

    words = tmp_path / "za.txt"
    words.write_text("ZA\nZAS\n", "utf-8")
    app.config["LEXICONS"] = {"za": str(words)}
    login_arbitre(client, db_session)
    page = client.get("/console/duplicate").get_data(as_text=True)
    assert "en direct : un tour toutes les" in page
    assert "courriels du tirage et des résultats à chaque tour" in page
    form = {"title": "Tactique en direct", "code": "TD1", "competition_id": str(competition.id),
            "lang": "fr", "rounds": "3", "rhythm": "live", "live_minutes": "",
            "starts_at": "2026-05-10T13:00", "timezone": "Europe/Bucharest",
            "solo_rule": "auto", "solo_points": "10", "warning_conversion_from": "4",
            "review_minutes": "0", "seed": "5", "lexicon": "za", "variant": "tactique",
            "tactique_order": "free"}
    bad = client.post("/console/duplicate", data={**form, "review_minutes": "10"})
    assert bad.status_code == 400
    assert "le délai de revue du top doit être 0" in bad.get_data(as_text=True)
    assert client.post("/console/duplicate", data=form).status_code == 302
    db_session.expire_all()
    g = db_session.exec(select(DuplicateGame).where(DuplicateGame.code == "TD1")).one()
    assert g.rhythm == {"kind": "live", "minutes": 6, "mails": False}
    assert client.post("/console/duplicate", data={
        **form, "code": "TD2", "live_minutes": "4", "live_mails": "1"}).status_code == 302
    db_session.expire_all()
    g = db_session.exec(select(DuplicateGame).where(DuplicateGame.code == "TD2")).one()
    assert g.rhythm == {"kind": "live", "minutes": 4, "mails": True}
