"""The IMAP poller against a real Dovecot on loopback (started by the session fixture)."""

from __future__ import annotations

import imaplib
import threading
import uuid
from typing import Any

import pytest
from flask import Flask

from tests.mail.conftest import ANA, Seed, eml, wait_for
from tests.mail.helpers import make_mail, rows

pytestmark = [pytest.mark.db, pytest.mark.mail]


@pytest.fixture
def mailbox_user(dovecot: Any) -> str:
    # One folder tree per test: the Dovecot server is shared by the session.
    return dovecot.user


@pytest.fixture
def imap_app(app: Flask, dovecot: Any) -> Flask:
    folder = f"t{uuid.uuid4().hex[:8]}"
    app.config.update(IMAP_HOST="127.0.0.1", IMAP_PORT=dovecot.port,
                      IMAP_USERNAME=dovecot.user, IMAP_PASSWORD=dovecot.password,
                      IMAP_FOLDER=folder, IMAP_DONE_FOLDER=f"{folder}-traites",
                      IMAP_IDLE_SECONDS=30)
    c = imaplib.IMAP4("127.0.0.1", dovecot.port)
    c.login(dovecot.user, dovecot.password)
    c.create(folder)
    c.logout()
    return app


def _append(app: Flask, raw: bytes) -> None:
    c = imaplib.IMAP4("127.0.0.1", app.config["IMAP_PORT"])
    c.login(app.config["IMAP_USERNAME"], app.config["IMAP_PASSWORD"])
    typ, _ = c.append(app.config["IMAP_FOLDER"], None, None, raw)
    assert typ == "OK"
    c.logout()


def _count(app: Flask, folder: str) -> int:
    c = imaplib.IMAP4("127.0.0.1", app.config["IMAP_PORT"])
    c.login(app.config["IMAP_USERNAME"], app.config["IMAP_PASSWORD"])
    typ, data = c.select(folder, readonly=True)
    c.logout()
    return int(data[0]) if typ == "OK" else -1  # -1: folder not created yet


def test_poll_once_stores_submits_and_moves(imap_app: Flask, seed: Seed) -> None:
    from mailer.imap import poll_once
    from webapp.models import InboundMessage, OutboxMessage, Submission

    app = imap_app
    sheet = make_mail(frm=f"Ana <{ANA[1].lower()}>", to=f"feuilles+{ANA[2]}@arbitre.test",
                      subject="I3", body="1 ACEFHIR h8 FICHERA 82 82\n",
                      message_id="<imap-1@example.org>")
    _append(app, sheet)
    _append(app, eml("stranger.eml"))
    assert poll_once(app) == 2

    inbound = rows(app, InboundMessage)
    assert [(r.channel, r.status) for r in inbound] == [("imap", "processed"), ("imap", "ignored")]
    assert inbound[0].envelope_to == [f"feuilles+{ANA[2]}@arbitre.test"]
    (sub,) = rows(app, Submission)
    assert [m["word"] for m in sub.feuille["moves"]] == ["FICHERA"]
    assert sorted(o.kind for o in rows(app, OutboxMessage)) == ["instructions", "receipt"]
    assert _count(app, app.config["IMAP_FOLDER"]) == 0
    assert _count(app, app.config["IMAP_DONE_FOLDER"]) == 2
    # A second pass finds nothing new: nothing is submitted twice.
    assert poll_once(app) == 0
    assert len(rows(app, Submission)) == 1


def test_idle_wakes_on_new_mail(imap_app: Flask, seed: Seed) -> None:
    from mailer.imap import poll_forever
    from webapp.models import Submission

    app = imap_app
    stop = threading.Event()
    thread = threading.Thread(target=poll_forever, args=(app, stop), daemon=True)
    thread.start()
    try:
        wait_for(lambda: _count(app, app.config["IMAP_DONE_FOLDER"]) == 0)
        _append(app, make_mail(frm=ANA[1], to=f"feuilles+{ANA[2]}@arbitre.test",
                               subject="I3", body="1 ACEFHIR h8 FICHERA 82 82\n",
                               message_id="<imap-idle@example.org>"))
        # IMAP_IDLE_SECONDS is 30: arriving within 10 s means IDLE woke the poller.
        wait_for(lambda: len(rows(app, Submission)) == 1)
    finally:
        stop.set()
        thread.join(15)
    assert not thread.is_alive()
