"""Issue 22 §4: « The bulletin form sends once on a double click (today two identical versions
and two receipts) ». Server side: the same bulletin (same text, same channel, same side of
the close) posted again within ``BULLETIN_REPOST_SECONDS`` (10) from the web form is the version
already stored — no new version, no second receipt, its receipt time kept — while a corrected
bulletin, or the same one sent again later, is a new version (the last received counts).
The page side (the button disabled on submit) is tests/browser/test_bulletin_once.py.

Game: the two-round ZA game of tests/web/za_game.py, round 1 drawn at START, 24 h a round.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, col, select

from tests.web.test_pages import login_player
from tests.web.za_game import START, za_game
from webapp.models import (
    AuditLog,
    Channel,
    Competition,
    DuplicateEntry,
    OutboxKind,
    OutboxMessage,
    Player,
)
from webapp.services import clock, duplicate, duplicate_pages, lifecycle

pytestmark = pytest.mark.db


def _versions(s: Session) -> list[tuple[int, str, str]]:
    s.expire_all()
    return [(e.version, e.raw_text, e.received_at.strftime("%H:%M:%S"))
            for e in s.exec(select(DuplicateEntry).order_by(col(DuplicateEntry.id))).all()]


def _receipts(s: Session) -> int:
    return len(s.exec(select(OutboxMessage).where(
        OutboxMessage.kind == OutboxKind.RECEIPT)).all())


@pytest.fixture
def ana(app: Flask, db_session: Session, competition: Competition,
        make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path) -> Player:
    ana = make_player("Ana", "ana@example.ro")
    make_player("Bob", "bob@example.fr")
    za_game(app, db_session, competition, tmp_path, code="D1",
            rhythm={"kind": "hours", "hours": 24})
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:D1:1"]
    return ana


def test_a_double_post_of_the_form_is_one_version_and_one_receipt(
    ctx: Flask, client: FlaskClient, db_session: Session, ana: Player, frozen_clock: Any,
) -> None:
    login_player(client, ana)
    first = client.post("/duplicate/D1/bulletin", data={"bulletin": "H7 ZA 22"},
                        follow_redirects=True)
    assert "Bulletin reçu." in first.get_data(as_text=True)
    frozen_clock.shift(timedelta(seconds=2))  # the second click's post
    again = client.post("/duplicate/D1/bulletin", data={"bulletin": "H7 ZA 22"},
                        follow_redirects=True)
    assert again.status_code == 200
    assert ("Ce bulletin venait d&#39;être reçu (envoyé deux fois) : il n&#39;est enregistré "
            "qu&#39;une fois, avec un seul accusé de réception.") in again.get_data(as_text=True)
    assert _versions(db_session) == [(1, "H7 ZA 22", "10:00:00")]
    assert _receipts(db_session) == 1
    noted = db_session.exec(select(AuditLog).where(
        AuditLog.action == "duplicate.bulletin_repeated")).all()
    assert [(a.details["version"], a.details["round"]) for a in noted] == [(1, 1)]


def test_what_is_a_new_version_all_the_same(
    ctx: Flask, db_session: Session, ana: Player, frozen_clock: Any,
) -> None:
    game = duplicate_pages.game_by_code(db_session, "D1")
    assert game is not None

    def send(text: str, channel: Channel = Channel.WEB) -> Any:
        out = duplicate.submit_bulletin(session=db_session, player=ana, game=game, text=text,
                                        channel=channel, received_at=clock.now())
        db_session.commit()
        return out

    assert send("H7 ZA 22").repeated is False
    frozen_clock.shift(timedelta(seconds=10))  # 10 s: still the same post
    assert send("H7 ZA 22").repeated is True
    frozen_clock.shift(timedelta(seconds=1))  # 11 s after version 1: a bulletin sent again
    assert send("H7 ZA 22").repeated is False
    frozen_clock.shift(timedelta(seconds=1))  # a corrected bulletin is always a version
    assert send("H8 ZA 22").repeated is False
    frozen_clock.shift(timedelta(seconds=1))  # back to H7 ZA: differs from the last version
    assert send("H7 ZA 22").repeated is False
    frozen_clock.shift(timedelta(seconds=1))  # the same text by mail: a message of its own
    assert send("H7 ZA 22", Channel.EMAIL).repeated is False
    frozen_clock.shift(timedelta(seconds=1))  # and again by mail: two mails, two versions
    assert send("H7 ZA 22", Channel.EMAIL).repeated is False
    assert _versions(db_session) == [
        (1, "H7 ZA 22", "10:00:00"), (2, "H7 ZA 22", "10:00:11"), (3, "H8 ZA 22", "10:00:12"),
        (4, "H7 ZA 22", "10:00:13"), (5, "H7 ZA 22", "10:00:14"), (6, "H7 ZA 22", "10:00:15")]
    assert _receipts(db_session) == 6
    # an unreadable bulletin posted twice is one version too (its errors told once)
    frozen_clock.shift(timedelta(seconds=1))
    bad = send("H7 ZA 22 33")
    frozen_clock.shift(timedelta(seconds=1))
    again = send("H7 ZA 22 33")
    assert (bad.repeated, again.repeated, again.entry.version) == (False, True, 7)
    assert again.errors == bad.errors and again.errors
    # 0 lifts the guard: every post is a version
    ctx.config["BULLETIN_REPOST_SECONDS"] = 0
    assert send("H7 ZA 22 33").repeated is False
    assert _versions(db_session)[-1][:2] == (8, "H7 ZA 22 33")
    assert _receipts(db_session) == 8


def test_a_late_repost_of_an_on_time_bulletin_is_stored_late(
    ctx: Flask, db_session: Session, ana: Player, frozen_clock: Any,
) -> None:
    """Either side of the close: the copy received after it is kept and flagged late (it
    does not replace the on-time version, which still counts)."""
    game = duplicate_pages.game_by_code(db_session, "D1")
    assert game is not None
    frozen_clock.move_to(START + timedelta(hours=24) - timedelta(seconds=1))
    duplicate.submit_bulletin(session=db_session, player=ana, game=game, text="H7 ZA 22",
                              channel=Channel.WEB, received_at=clock.now())
    frozen_clock.shift(timedelta(seconds=2))
    late = duplicate.submit_bulletin(session=db_session, player=ana, game=game,
                                     text="H7 ZA 22", channel=Channel.WEB,
                                     received_at=clock.now())
    db_session.commit()
    assert (late.repeated, late.late, late.entry.version) == (False, True, 2)
