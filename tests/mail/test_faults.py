"""Faults with real parts: database unavailable during intake, relay down, the intake process
killed between the commit and the receipt, messages over the size limit, duplicates."""

from __future__ import annotations

import asyncio
import os
import signal
import smtplib
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session
from flask import Flask

from tests.mail.conftest import ANA, Relay, Seed, free_port, wait_for
from tests.mail.helpers import make_mail, rows

pytestmark = [pytest.mark.db, pytest.mark.mail]

ROOT = Path(__file__).resolve().parents[2]
TO = f"feuilles+{ANA[2]}@arbitre.test"
FROM = "ana.ionescu@example.org"


def sheet(message_id: str = "<f1@example.org>") -> bytes:
    return make_mail(frm=f"Ana <{FROM}>", to=TO, subject="Problème : I3",
                     body="1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 166\n",
                     message_id=message_id)


def test_database_down_answers_451_then_retry_submits_once(
    app: Flask, seed: Seed, intake: Any, smtp_port: int, relay: Relay
) -> None:
    from webapp.db import make_engine
    from webapp.models import InboundMessage, OutboxMessage, Submission

    real_engine = app.extensions["arbitre.engine"]
    # A real driver failing for real: nothing listens on port 1.
    dead = make_engine("postgresql+psycopg://postgres@127.0.0.1:1/arbitre?connect_timeout=2")
    app.extensions["arbitre.engine"] = dead
    try:
        with smtplib.SMTP("127.0.0.1", smtp_port, timeout=30) as c, \
                pytest.raises(smtplib.SMTPDataError) as err:
            c.sendmail(FROM, [TO], sheet())
        assert err.value.smtp_code == 451
    finally:
        app.extensions["arbitre.engine"] = real_engine
        dead.dispose()
    assert rows(app, InboundMessage) == []

    # The sending server retries the same bytes; and once more, as if our 250 got lost.
    for _ in range(2):
        with smtplib.SMTP("127.0.0.1", smtp_port, timeout=30) as c:
            assert c.sendmail(FROM, [TO], sheet()) == {}
    assert intake.wait_idle()
    assert [r.status for r in rows(app, InboundMessage)] == ["processed", "duplicate"]
    assert len(rows(app, Submission)) == 1
    wait_for(lambda: len(relay.handler.accepted) == 1)
    assert [o.kind for o in rows(app, OutboxMessage)] == ["receipt"]


def test_relay_down_retries_with_backoff_then_delivers(
    app: Flask, seed: Seed, smtp_port: int, relay: Relay
) -> None:
    from mailer.intake import start_embedded
    from webapp.models import OutboxMessage

    relay.controller.stop()  # relay down: connection refused
    handle = start_embedded(app)
    try:
        with smtplib.SMTP("127.0.0.1", smtp_port, timeout=30) as c:
            c.sendmail(FROM, [TO], sheet())
        wait_for(lambda: [o for o in rows(app, OutboxMessage) if o.attempts >= 2])
        (row,) = rows(app, OutboxMessage)
        assert row.status in ("pending", "sending")
        assert row.sent_at is None
        assert row.last_error
        # Back up on the same port, with one more temporary refusal (451) for good measure.
        relay.handler.fail_next = 1
        relay.controller = Controller(relay.handler, hostname="127.0.0.1", port=relay.port)
        relay.controller.start()  # the fixture stops this one
        wait_for(lambda: rows(app, OutboxMessage)[0].status == "sent")
    finally:
        handle.stop()
    (row,) = rows(app, OutboxMessage)
    assert relay.handler.refused == 1
    assert len(relay.handler.accepted) == 1
    assert relay.handler.messages()[0]["Message-ID"] == row.message_id
    assert row.attempts >= 3


@dataclass
class HangingRelay:
    """Accepts the DATA but never answers while ``hang`` is set (the sender gets killed)."""

    hang: bool = True
    seen: list[bytes] = field(default_factory=list)
    accepted: list[bytes] = field(default_factory=list)

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        self.seen.append(envelope.original_content or b"")
        while self.hang:
            await asyncio.sleep(0.05)
            if server.transport is None or server.transport.is_closing():
                return "451 4.3.0 client gone"
        self.accepted.append(envelope.original_content or b"")
        return "250 OK"


def _intake_process(
    app: Flask, smtp_port: int, relay_port: int, log: Path
) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    env.update({
        "ARBITRE_TESTING": "true",
        "ARBITRE_DATABASE_URL": app.config["DATABASE_URL"],
        "ARBITRE_MAIL_SMTP_LISTEN": f"127.0.0.1:{smtp_port}",
        "ARBITRE_SMTP_RELAY": f"127.0.0.1:{relay_port}",
        "ARBITRE_SCHEDULER_ENABLED": "false",
        "ARBITRE_SUBMIT_DOMAIN": "arbitre.test",
        "ARBITRE_OUTBOX_POLL_SECONDS": "0.2",
        # the default lease: a restarted intake must not wait for it (issue 24 §6)
        "ARBITRE_OUTBOX_LEASE_SECONDS": "300",
        "ARBITRE_OUTBOX_BACKOFF_SECONDS": "0.2",
        "ARBITRE_SECRET_KEY": "test-secret",
    })
    if app.config.get("DATABASE_SCHEMA"):
        env["ARBITRE_DATABASE_SCHEMA"] = app.config["DATABASE_SCHEMA"]
    code = "import sys, arbitre_cli; sys.exit(arbitre_cli.main(['mail', 'intake']))"
    with open(log, "ab") as out:
        proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env,
                                stdout=out, stderr=subprocess.STDOUT)
    wait_for(lambda: "écoute sur" in log.read_text() or proc.poll() is not None)
    assert proc.poll() is None, log.read_text()
    return proc


def test_killed_after_commit_before_receipt_sends_exactly_one_receipt(
    app: Flask, seed: Seed, tmp_path: Path
) -> None:
    from webapp.models import OutboxMessage, Submission

    hanging = HangingRelay()
    relay_port, smtp_port = free_port(), free_port()
    relay = Controller(hanging, hostname="127.0.0.1", port=relay_port)
    relay.start()
    log = tmp_path / "intake.log"
    proc = _intake_process(app, smtp_port, relay_port, log)
    try:
        with smtplib.SMTP("127.0.0.1", smtp_port, timeout=30) as c:
            assert c.sendmail(FROM, [TO], sheet("<kill-1@example.org>")) == {}
        # The worker has claimed the receipt and is in the middle of sending it: kill -9.
        wait_for(lambda: len(hanging.seen) == 1)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        (row,) = rows(app, OutboxMessage)
        assert (row.kind, row.status, row.attempts) == ("receipt", "sending", 1)
        assert len(rows(app, Submission)) == 1

        hanging.hang = False
        proc = _intake_process(app, smtp_port, relay_port, log)
        # The restarted process sees that the row's holder (the killed process) is gone and
        # claims it again at once, not after the 300 s lease; delivered once.
        wait_for(lambda: rows(app, OutboxMessage)[0].status == "sent", timeout=120)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.wait(20)
        relay.stop()
    (row,) = rows(app, OutboxMessage)
    assert row.attempts == 2
    assert len(hanging.accepted) == 1
    assert f"Message-ID: {row.message_id}".encode() in hanging.accepted[0]
    assert len(rows(app, Submission)) == 1


def test_twenty_megabytes_refused_with_552_and_a_notice(
    app: Flask, seed: Seed, intake: Any, smtp_port: int, relay: Relay
) -> None:
    from webapp.models import InboundMessage, OutboxMessage

    filler = ("x" * 76 + "\n") * (20 * 1024 * 1024 // 77)
    big = make_mail(frm=f"Ana <{FROM}>", to=TO, subject="Grosse pièce jointe",
                    body="1 ACEFHIR h8 FICHERA 82 82\n" + filler, message_id="<big@example.org>")
    assert len(big) > 20 * 1000 * 1000
    # smtplib announces SIZE=...: refused at MAIL FROM.
    with smtplib.SMTP("127.0.0.1", smtp_port, timeout=60) as c, \
            pytest.raises(smtplib.SMTPSenderRefused) as refused:
        c.sendmail(FROM, [TO], big)
    assert refused.value.smtp_code == 552
    # A client that does not announce the size: refused after DATA.
    with smtplib.SMTP("127.0.0.1", smtp_port, timeout=60) as c:
        c.ehlo()
        assert c.mail(FROM)[0] == 250
        assert c.rcpt(TO)[0] == 250
        code, text = c.data(big)
    assert code == 552
    assert "trop volumineux" in text.decode()
    assert rows(app, InboundMessage) == []
    notices = rows(app, OutboxMessage)
    assert [(o.kind, o.to_addr) for o in notices] == [("refused_too_large", ANA[1])] * 2
    assert "dépasse la taille maximale acceptée (10,0 Mo)" in notices[1].body_text
    assert "Grosse pièce jointe" in notices[1].body_text
    wait_for(lambda: len(relay.handler.accepted) == 2)


def test_oversize_from_a_stranger_gets_no_notice(
    app: Flask, seed: Seed, intake: Any, smtp_port: int
) -> None:
    from webapp.models import OutboxMessage

    with smtplib.SMTP("127.0.0.1", smtp_port, timeout=60) as c:
        c.ehlo()
        c.mail("someone@elsewhere.example")
        c.rcpt(TO)
        code, _ = c.data(b"Subject: x\r\n\r\n" + (b"y" * 76 + b"\r\n") * (11 * 1024 * 1024 // 78))
    assert code == 552
    assert rows(app, OutboxMessage) == []
