"""End to end over real SMTP on loopback: intake listener -> pipeline -> outbox -> relay."""

from __future__ import annotations

import smtplib
from typing import Any

import pytest
from flask import Flask

from tests.mail.conftest import ANA, Relay, Seed, wait_for
from tests.mail.helpers import make_mail, rows

pytestmark = [pytest.mark.db, pytest.mark.mail]

SHEET = "Problème : I3\n1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 166\n"


def send(port: int, raw: bytes, *, frm: str, to: list[str]) -> dict[str, Any]:
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as c:
        return dict(c.sendmail(frm, to, raw))


def test_sheet_by_mail_is_stored_submitted_and_acknowledged(
    app: Flask, seed: Seed, intake: Any, smtp_port: int, relay: Relay
) -> None:
    from webapp.models import InboundMessage, OutboxMessage, Submission

    to = f"feuilles+{ANA[2]}@arbitre.test"
    raw = make_mail(frm=f"{ANA[0]} <ana.ionescu@example.org>", to=to, subject="Ma feuille",
                    body=SHEET, message_id="<s1@example.org>")
    assert send(smtp_port, raw, frm="ana.ionescu@example.org", to=[to]) == {}
    assert intake.wait_idle()

    inbound = rows(app, InboundMessage)
    assert len(inbound) == 1
    assert inbound[0].raw == raw
    assert inbound[0].status == "processed"
    assert inbound[0].channel == "smtp"
    assert inbound[0].envelope_to == [to]
    subs = rows(app, Submission)
    assert len(subs) == 1
    assert subs[0].channel == "email"
    assert subs[0].inbound_message_id == inbound[0].id
    assert [m["word"] for m in subs[0].feuille["moves"]] == ["FICHERA", "WUS"]
    assert subs[0].parse_errors == []

    wait_for(lambda: len(relay.handler.accepted) == 1)
    (msg,) = relay.handler.messages()
    assert msg["To"] == ANA[1]
    assert msg["Auto-Submitted"] == "auto-replied"
    assert msg["In-Reply-To"] == "<s1@example.org>"
    assert msg["Subject"].startswith("Accusé de réception — Intégral n° 3 (I3)")
    text = msg.get_body(("plain",)).get_content()
    assert "FICHERA" in text and "WUS" in text
    out = wait_for(lambda: [o for o in rows(app, OutboxMessage) if o.status == "sent"])
    assert out[0].message_id == msg["Message-ID"]


def test_a_listener_on_a_taken_port_fails_cleanly(app: Flask, smtp_port: int) -> None:
    """A port already taken ends ``start_embedded`` with the bind error and leaves nothing
    behind: aiosmtpd's thread had left its event loop (and the loop's socket pair) open, and
    the garbage collector's « unclosed event loop » warnings then failed whichever test ran
    next (seen in a full run under load, issue 14)."""
    import errno
    import gc
    import socket
    import sys

    from mailer.intake import start_embedded

    seen: list[Any] = []
    old_hook = sys.unraisablehook
    sys.unraisablehook = seen.append
    try:
        with socket.socket() as squatter:
            squatter.bind(("127.0.0.1", smtp_port))
            squatter.listen()
            with pytest.raises(OSError) as raised:
                start_embedded(app)
            assert raised.value.errno == errno.EADDRINUSE
        gc.collect()
    finally:
        sys.unraisablehook = old_hook
    assert [str(u.exc_value) for u in seen] == []
