"""Issue 22 §1: « A competition's page and calendar list its Duplicate and correspondence
games (today its .ics holds the 7 Duplicate events and the page says « Aucun problème
programmé ») … the Archives hold finished round games. »

The Duplicate is the two-round ZA game of tests/web/za_game.py (every round closes when all
have answered); the correspondence game is tests/web/test_correspondence_game.py's row, RED
(Ana) to move first, 72 hours a move and 24 hours of grace: with no move by START + 96 h it
is lost on time and finished."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from icalendar import Calendar
from sqlmodel import Session

from tests.web.test_correspondence_game import _row
from tests.web.za_game import START, za_game
from webapp.models import Channel, Competition, Player
from webapp.services import clock, correspondence, duplicate, lifecycle

pytestmark = pytest.mark.db


def _rows(page: str, table: str) -> dict[str, str]:
    body = page.split(f'id="{table}"', 1)[1].split("</table>", 1)[0]
    return {code: " ".join(html.unescape(re.sub(r"<[^>]+>", " ", tr)).split())
            for code, tr in re.findall(r'<tr data-game="([^"]+)">(.*?)</tr>', body, re.S)}


def test_competition_page_calendar_and_archives_hold_the_round_games(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    game = za_game(app, db_session, competition, tmp_path, code="D1",
                   title="Duplicate du lundi", timezone="Europe/Bucharest")
    frozen_clock.move_to(START)
    correspondence.create_game(session=db_session, competition=competition, red=ana, blue=bob,
                               row=_row(), starts_at=START, code="CO1", title="Ana – Bob",
                               lexicon_name="za")
    db_session.commit()
    assert lifecycle.run_due(now=clock.now()) == ["draw:D1:1"]

    page = client.get("/competitions/cn2026").get_data(as_text=True)
    assert "Parties Duplicate et par correspondance" in page
    rows = _rows(page, "parties-table")
    assert rows == {
        "D1": "Duplicate du lundi Duplicate 10/05/2026 à 13:00 (Europe/Bucharest, UTC+03:00) "
              "en cours",
        # in the game's own zone (the site's: Europe/Bucharest), as the Duplicate's
        "CO1": "Ana – Bob Partie par correspondance Ana – Bob 10/05/2026 à 13:00 "
               "(Europe/Bucharest, UTC+03:00) en cours — coup 1 avant le 13/05/2026 à 13:00 "
               "(Europe/Bucharest, UTC+03:00)",
    }
    assert 'href="/duplicate/D1"' in page and 'href="/correspondance/CO1"' in page
    # the feed: the Duplicate's start and round 1, and the correspondence move awaited
    cal = Calendar.from_ical(client.get("/competitions/cn2026/calendrier.ics").data)
    events = {str(e["SUMMARY"]): (e.decoded("DTSTART"), e.decoded("DTEND"))
              for e in cal.walk("VEVENT")}
    assert events["Partie par correspondance : Ana – Bob — coup 1"] == (
        START, START + timedelta(hours=72))
    assert sorted(events) == ["Duplicate : Duplicate du lundi — coup 1",
                              "Duplicate : Duplicate du lundi — début",
                              "Partie par correspondance : Ana – Bob — coup 1"]
    # and the player's feed: Bob plays CO1 too
    cal = Calendar.from_ical(client.get(f"/joueurs/{bob.id}/calendrier.ics").data)
    assert "Partie par correspondance : Ana – Bob — coup 1" in {
        str(e["SUMMARY"]) for e in cal.walk("VEVENT")}
    # nothing finished yet: the archives hold no round game
    assert "parties-archivees" not in client.get("/archives").get_data(as_text=True)

    # the Duplicate played to its end: ZA at H7 (22), then ZAS at H7 (12), both players
    for n, text in ((1, "H7 ZA 22"), (2, "H7 ZAS 12")):
        frozen_clock.move_to(START + timedelta(hours=n))
        for p in (ana, bob):
            duplicate.submit_bulletin(session=db_session, player=p, game=game, text=text,
                                      channel=Channel.WEB, received_at=clock.now())
        db_session.commit()
        lifecycle.run_due(now=clock.now())
    # the correspondence game lost on time: no move by START + 72 h + 24 h of grace
    frozen_clock.move_to(START + timedelta(hours=96, seconds=1))
    lifecycle.run_due(now=clock.now())
    db_session.expire_all()

    page = client.get("/competitions/cn2026").get_data(as_text=True)
    rows = _rows(page, "parties-table")
    assert rows["D1"].endswith("terminée — Classement final")
    assert 'href="/duplicate/D1#classement"' in page
    assert rows["CO1"].endswith("terminée")
    cal = Calendar.from_ical(client.get("/competitions/cn2026/calendrier.ics").data)
    assert not any("correspondance" in str(e["SUMMARY"]) for e in cal.walk("VEVENT"))

    archives = client.get("/archives").get_data(as_text=True)
    rows = _rows(archives, "parties-archivees")
    assert rows["D1"] == ("Duplicate du lundi Championnat par correspondance 2026 Duplicate "
                          "10/05/2026 à 15:00 (Europe/Bucharest, UTC+03:00) Classement final")
    # lost on time by Ana (RED): 0 – 1
    assert rows["CO1"] == ("Ana – Bob Championnat par correspondance 2026 Partie par "
                           "correspondance 14/05/2026 à 13:00 (Europe/Bucharest, UTC+03:00) Ana 0 – 1 Bob")
    assert 'href="/correspondance/CO1"' in archives
