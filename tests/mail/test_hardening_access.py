"""Access rules of the submission service, by e-mail over real SMTP on loopback: a player
not registered in the competition is refused with a French answer (nothing stored) unless
the arbitre opened the competition to all; the per-player rate limit answers the same way;
NUL characters in a mailed sheet are removed, the sheet is kept."""

from __future__ import annotations

import smtplib
from typing import Any

import pytest
from flask import Flask

from tests.mail.conftest import BOGDAN, Relay, Seed, wait_for
from tests.mail.helpers import make_mail, rows

pytestmark = [pytest.mark.db, pytest.mark.mail]

SHEET = "Problème : I3\n1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 166\n"
TO = f"feuilles+{BOGDAN[2]}@arbitre.test"


def send(port: int, raw: bytes) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as c:
        assert c.sendmail(BOGDAN[1], [TO], raw) == {}


def unregister_bogdan(app: Flask, seed: Seed) -> None:
    from sqlmodel import select

    from webapp.db import session_scope
    from webapp.models import Registration

    with app.app_context(), session_scope(app) as s:
        reg = s.exec(select(Registration).where(Registration.player_id == seed.bogdan_id)).one()
        s.delete(reg)


def test_unregistered_player_is_refused_by_mail_until_the_competition_is_open(
    app: Flask, seed: Seed, intake: Any, smtp_port: int, relay: Relay
) -> None:
    from webapp.db import session_scope
    from webapp.models import Competition, InboundMessage, Submission

    unregister_bogdan(app, seed)
    send(smtp_port, make_mail(frm=f"{BOGDAN[0]} <{BOGDAN[1]}>", to=TO, subject="I3",
                              body=SHEET, message_id="<r1@example.net>"))
    assert intake.wait_idle()
    (inbound,) = rows(app, InboundMessage)
    assert inbound.status == "ignored"
    assert inbound.error.startswith("feuille refusée : Vous n'êtes pas inscrit")
    assert rows(app, Submission) == []
    wait_for(lambda: len(relay.handler.accepted) == 1, timeout=60)
    (msg,) = relay.handler.messages()
    assert msg["To"] == BOGDAN[1]
    assert msg["In-Reply-To"] == "<r1@example.net>"
    assert msg["Subject"].startswith("Feuille non enregistrée : Intégral n° 3")
    body = msg.get_body(("plain",)).get_content()
    assert ("Vous n'êtes pas inscrit à la compétition « Championnat par correspondance "
            "2026 »") in body
    assert "Demandez votre inscription à l'arbitre." in body

    # the arbitre opens the competition to all: the same player's next mail is taken
    with app.app_context(), session_scope(app) as s:
        comp = s.get(Competition, seed.competition_id)
        assert comp is not None
        comp.open_registration = True
    send(smtp_port, make_mail(frm=f"{BOGDAN[0]} <{BOGDAN[1]}>", to=TO, subject="I3",
                              body=SHEET, message_id="<r2@example.net>"))
    assert intake.wait_idle()
    (sub,) = wait_for(lambda: rows(app, Submission), timeout=60)
    assert sub.player_id == seed.bogdan_id and sub.channel == "email"
    wait_for(lambda: len(relay.handler.accepted) == 2, timeout=60)
    assert relay.handler.messages()[1]["Subject"].startswith("Accusé de réception")


@pytest.fixture
def app_config(app_config: dict[str, Any]) -> dict[str, Any]:
    app_config["SUBMISSIONS_PER_WINDOW"] = 3  # the per-player limit, small for this test
    app_config["SUBMISSION_WINDOW_SECONDS"] = 3600
    return app_config


def test_per_player_limit_by_mail_and_nul_characters(
    app: Flask, seed: Seed, intake: Any, smtp_port: int, relay: Relay
) -> None:
    """Three sheets an hour (set above): the fourth is answered with the French limit
    message and not stored. The first carries NUL characters: kept without them."""
    from webapp.models import InboundMessage, Submission

    with_nul = SHEET.replace("FICHERA", "FICH\x00ERA")
    for i in range(4):
        send(smtp_port, make_mail(frm=f"{BOGDAN[0]} <{BOGDAN[1]}>", to=TO, subject="I3",
                                  body=with_nul if i == 0 else SHEET,
                                  message_id=f"<n{i}@example.net>"))
        assert intake.wait_idle()
    subs = sorted(rows(app, Submission), key=lambda s: s.version)
    assert [s.version for s in subs] == [1, 2, 3]
    assert "\x00" not in subs[0].raw_text
    assert [m["word"] for m in subs[0].feuille["moves"]] == ["FICHERA", "WUS"]
    last = max(rows(app, InboundMessage), key=lambda r: r.id)
    assert last.status == "ignored"
    assert last.error == ("feuille refusée : Trop de feuilles envoyées en peu de temps : au "
                          "plus 3 par heure. Votre feuille n'a pas été enregistrée ; "
                          "renvoyez-la dans un moment.")
    wait_for(lambda: len(relay.handler.accepted) == 4, timeout=60)
    refused = [m for m in relay.handler.messages()
               if m["Subject"].startswith("Feuille non enregistrée")]
    assert len(refused) == 1
    assert "au plus 3 par heure" in refused[0].get_body(("plain",)).get_content()
