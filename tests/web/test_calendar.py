"""Calendars (issue 13.3): the ``.ics`` feeds of a competition and of a player, read back
with the ``icalendar`` library: one event per publication, deadline and Duplicate round,
every instant in UTC, UIDs that stay the same from one download to the next (a calendar
that reloads the feed updates its events), CRLF line ends and lines folded at 75 octets
(RFC 5545 §3.1).

The frozen clock starts on 2026-05-10 at 10:00 UTC: a problem published an hour earlier
(09:00 UTC) closing a day later (2026-05-11 10:00 UTC), and a Duplicate whose round 1 opens
at 10:00 UTC with a 48-hour deadline (2026-05-12 10:00 UTC).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from icalendar import Calendar
from sqlmodel import Session

from tests.web.za_game import START, za_game
from webapp.models import Competition, Player, Problem
from webapp.services import clock, lifecycle

pytestmark = pytest.mark.db


@pytest.fixture
def calendar_data(
    app: Flask, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], make_problem: Callable[..., Problem],
    tmp_path: Path, frozen_clock: Any,
) -> dict[str, Any]:

    ana = make_player("Ana Popescu", "ana@example.ro")
    prob = make_problem(code="P1", deadline=timedelta(days=1))
    game = za_game(app, db_session, competition, tmp_path)
    with app.app_context():
        frozen_clock.move_to(START)
        # P1's reminder falls due at the same instant as the draw
        assert lifecycle.run_due(now=clock.now()) == ["remind:P1", "draw:EX1:1"]
    return {"ana": ana, "problem": prob, "game": game}


def events_of(raw: bytes) -> dict[str, Any]:
    cal = Calendar.from_ical(raw)
    return {str(ev["UID"]): ev for ev in cal.walk("VEVENT")}


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def test_competition_feed_has_problem_and_duplicate_events_in_utc(
    client: FlaskClient, calendar_data: dict[str, Any]
) -> None:
    resp = client.get("/competitions/cn2026/calendrier.ics")
    assert resp.status_code == 200
    assert resp.mimetype == "text/calendar"
    raw = resp.get_data()
    prob, game = calendar_data["problem"], calendar_data["game"]
    events = events_of(raw)
    # UIDs: thing-id-what@host of BASE_URL (http://arbitre.test)
    pub, close, start = (f"problem-{prob.id}-publication", f"problem-{prob.id}-cloture",
                         f"duplicate-{game.id}-debut")
    expected = {
        f"{pub}@arbitre.test": (utc(2026, 5, 10, 9), utc(2026, 5, 10, 9, 15)),
        f"{close}@arbitre.test": (utc(2026, 5, 11, 10), utc(2026, 5, 11, 10, 15)),
        f"{start}@arbitre.test": (utc(2026, 5, 10, 10), utc(2026, 5, 10, 10, 15)),
        # round 1: opened at the draw (10:00), deadline 48 hours later
        f"duplicate-{game.id}-coup-1@arbitre.test": (utc(2026, 5, 10, 10),
                                                     utc(2026, 5, 12, 10)),
    }
    assert sorted(events) == sorted(expected)
    for uid, (start, end) in expected.items():
        ev = events[uid]
        assert ev.decoded("DTSTART") == start and ev.decoded("DTEND") == end, uid
        assert ev.decoded("DTSTART").utcoffset() == timedelta(0)
        assert "DTSTAMP" in ev
    assert str(events[f"problem-{prob.id}-cloture@arbitre.test"]["SUMMARY"]) == (
        f"Clôture : {prob.title}")
    assert str(events[f"duplicate-{game.id}-coup-1@arbitre.test"]["URL"]) == (
        "http://arbitre.test/duplicate/EX1")
    # RFC 5545 on the wire: CRLF after every line, UTC instants written with Z, no line
    # longer than 75 octets
    text = raw.decode("utf-8")
    assert text.startswith("BEGIN:VCALENDAR\r\n") and text.endswith("END:VCALENDAR\r\n")
    assert "\n" not in text.replace("\r\n", "")
    assert "DTSTART:20260511T100000Z\r\n" in text
    assert all(len(line.encode("utf-8")) <= 75 for line in text.split("\r\n"))
    assert "VERSION:2.0\r\n" in text and "PRODID:" in text


def test_uids_are_stable_and_a_moved_deadline_keeps_its_uid(
    client: FlaskClient, db_session: Session, calendar_data: dict[str, Any]
) -> None:
    first = events_of(client.get("/competitions/cn2026/calendrier.ics").get_data())
    again = events_of(client.get("/competitions/cn2026/calendrier.ics").get_data())
    assert list(first) == list(again)
    prob = db_session.get(Problem, calendar_data["problem"].id)
    prob.deadline_at = prob.deadline_at + timedelta(days=1)
    db_session.add(prob)
    db_session.commit()
    moved = events_of(client.get("/competitions/cn2026/calendrier.ics").get_data())
    assert list(moved) == list(first)
    uid = f"problem-{prob.id}-cloture@arbitre.test"
    assert moved[uid].decoded("DTSTART") == utc(2026, 5, 12, 10)


def test_player_feed_covers_his_competitions(
    client: FlaskClient, calendar_data: dict[str, Any], make_player: Callable[..., Player],
    db_session: Session,
) -> None:
    ana = calendar_data["ana"]
    events = events_of(client.get(f"/joueurs/{ana.id}/calendrier.ics").get_data())
    assert len(events) == 4  # the same 4 as the competition: Ana is registered in it
    # a player registered nowhere and with no sheet has an empty (valid) calendar
    from webapp.services import players

    loner = players.create_player(session=db_session, name="Solo", email="solo@example.fr")
    db_session.commit()
    raw = client.get(f"/joueurs/{loner.id}/calendrier.ics").get_data()
    assert events_of(raw) == {}
    assert Calendar.from_ical(raw)["X-WR-CALNAME"] == "Arbitre — Solo"
    assert client.get("/competitions/inconnue/calendrier.ics").status_code == 404


def test_anticipation_announced_move_by_move_has_one_event_per_move(
    client: FlaskClient, make_problem: Callable[..., Problem], db_session: Session,
) -> None:
    # one move a day from 2026-05-10 09:00 UTC: move k announced at 09:00 on day k-1 after,
    # closing at the next announcement; move 14 closes at the deadline (day 15)
    prob = make_problem(game="anticipation", code="A1", deadline=timedelta(days=15))
    prob.round_interval_minutes = 24 * 60
    db_session.add(prob)
    db_session.commit()
    events = events_of(client.get("/competitions/cn2026/calendrier.ics").get_data())
    moves = {uid: ev for uid, ev in events.items() if "-coup-" in uid}
    assert len(moves) == 14
    first = moves[f"problem-{prob.id}-coup-1@arbitre.test"]
    assert (first.decoded("DTSTART"), first.decoded("DTEND")) == (
        utc(2026, 5, 10, 9), utc(2026, 5, 11, 9))
    last = moves[f"problem-{prob.id}-coup-14@arbitre.test"]
    # announced 13 days after the first; closes at the deadline 2026-05-10 10:00 + 15 days
    assert (last.decoded("DTSTART"), last.decoded("DTEND")) == (
        utc(2026, 5, 23, 9), utc(2026, 5, 25, 10))
