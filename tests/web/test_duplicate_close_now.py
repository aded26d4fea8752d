"""Issue 22 §4: « The console can close a Duplicate round now (with confirmation and reason,
audited), as it can a problem. » The two-round ZA game of tests/web/za_game.py, round 1 drawn
at START (10:00 UTC, 13:00 in Bucharest) and closing 24 hours later; two players, Ana sends
H7 ZA 22 (the top, 22), Bob nothing. The arbitre closes round 1 at 12:30 UTC: the close
becomes 12:30 (15:30 in Bucharest), Bob's bulletin a second later is late, and the scheduler
corrects and publishes the round (review 0 minutes) and draws round 2 at once."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, col, select

from tests.web.test_pages import login_arbitre
from tests.web.za_game import START, za_game
from webapp.models import (
    AuditLog,
    Channel,
    Competition,
    DuplicateEntry,
    DuplicateRound,
    Player,
    RoundStatus,
)
from webapp.services import clock, duplicate, duplicate_pages, lifecycle

pytestmark = pytest.mark.db

URL = "/console/duplicate/D1/clore"


def _text(resp: Any) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", resp.get_data(as_text=True))).split())


def _round(s: Session, n: int) -> DuplicateRound:
    s.expire_all()
    return s.exec(select(DuplicateRound).where(DuplicateRound.number == n)).one()


def test_the_console_closes_the_open_round_now(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    za_game(app, db_session, competition, tmp_path, code="D1", title="Duplicate du lundi",
            rhythm={"kind": "hours", "hours": 24}, timezone="Europe/Bucharest")
    login_arbitre(client, db_session)
    # no round yet: nothing to close
    resp = client.get(URL, follow_redirects=True)
    assert "Aucun tour n&#39;est ouvert : il n&#39;y a rien à clore." in resp.get_data(
        as_text=True)
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:D1:1"]
    game = duplicate_pages.game_by_code(db_session, "D1")
    assert game is not None
    duplicate.submit_bulletin(session=db_session, player=ana, game=game, text="H7 ZA 22",
                              channel=Channel.WEB, received_at=clock.now())
    db_session.commit()

    page = client.get("/console/duplicate/D1").get_data(as_text=True)
    assert f'href="{URL}"' in page and "Clore le tour maintenant…" in page
    frozen_clock.move_to(START + timedelta(hours=2, minutes=30))
    confirm = _text(client.get(URL))
    assert ("La clôture du tour annoncée aux joueurs est le 11/05/2026 à 13:00 "
            "(Europe/Bucharest, UTC+03:00).") in confirm
    assert "2 joueur(s) inscrit(s)" in confirm
    assert "1 joueur(s) ont envoyé un bulletin lisible" in confirm
    assert "1 joueur(s) n'ont pas encore envoyé de bulletin lisible" in confirm
    # no reason: refused in French, the round still open
    resp = client.post(URL, data={"confirm": "1", "reason": "  "})
    assert resp.status_code == 400
    assert ("Indiquez le motif de la clôture anticipée (il figure au journal)."
            in _text(resp))
    assert _round(db_session, 1).status == RoundStatus.OPEN
    # the GET alone (the confirmation page) changes nothing either
    assert _round(db_session, 1).closes_at == START + timedelta(hours=24)

    resp = client.post(URL, data={"confirm": "1", "reason": "Panne du serveur de Bob"},
                       follow_redirects=True)
    assert ("Tour 1 clos maintenant : les bulletins reçus désormais sont hors délai ; la "
            "correction suit.") in _text(resp)
    now = datetime(2026, 5, 10, 12, 30, tzinfo=UTC)
    rnd = _round(db_session, 1)
    assert (rnd.status, rnd.closes_at, rnd.closed_at) == (RoundStatus.CLOSED, now, now)
    [entry] = db_session.exec(select(AuditLog).where(
        AuditLog.action == "duplicate.close_early")).all()
    assert entry.actor == "juge" and entry.target == "D1"
    assert entry.details == {"round": 1, "reason": "Panne du serveur de Bob",
                             "deadline_announced": "2026-05-11T10:00:00+00:00",
                             "at": "2026-05-10T12:30:00+00:00"}
    # Bob's bulletin a second later is late; the close again is refused
    frozen_clock.shift(timedelta(seconds=1))
    late = duplicate.submit_bulletin(session=db_session, player=bob, game=game,
                                     text="H8 ZA 22", channel=Channel.WEB,
                                     received_at=clock.now())
    db_session.commit()
    assert late.late is True
    resp = client.post(URL, data={"confirm": "1", "reason": "encore"}, follow_redirects=True)
    assert "Aucun tour n&#39;est ouvert : il n&#39;y a rien à clore." in resp.get_data(
        as_text=True)
    # the scheduler goes on as after any close: corrected, published, round 2 drawn
    assert lifecycle.run_due(now=clock.now()) == ["correct:D1:1", "publish:D1:1",
                                                  "draw:D1:2"]
    results = {x["name"]: (x["score"], x["entry_id"]) for x in _round(db_session, 1).results}
    ana_entry = db_session.exec(select(DuplicateEntry).where(
        DuplicateEntry.player_id == ana.id).order_by(col(DuplicateEntry.id))).one()
    assert results == {"Ana": (22, ana_entry.id), "Bob": (0, None)}
    # the audit page names the step
    assert "Tour clos avant l&#39;échéance" in client.get(
        "/console/journal").get_data(as_text=True)
