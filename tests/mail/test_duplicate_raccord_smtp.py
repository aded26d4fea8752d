"""Issue 20 §3 and §4 over real SMTP on loopback: a Duplicate bulletin whose raccord letters
are copied where they stand (« Z@0,0 A@+1,0 ZAS 12 ») and one with the mark of a word
written downwards, received by the intake listener, stored, acknowledged through the relay
and corrected.

S1 4.3.1: « Une lettre de raccord est une lettre déjà placée sur la grille, reportée sur le
bulletin de jeu et qui doit : soit faire partie du mot joué ; … ».

The game of tests/web/za_game.py (word list {ZA, ZAS}): round 1's top is ZA at H7 (Z on H7,
A on the star H8); round 2 draws EIBCD + SE and its only move is ZAS at H7, Z 10 + A 1 + S 1
(H9, no premium) = 12. Z@0,0 and A@+1,0 are ZAS's own first two letters, on the grid; two
raccord letters are no fault when the first word had two letters (S1 5.2: « sauf si le mot
joué au premier coup ne comporte que deux lettres »), and the grid holds no third.
"""

from __future__ import annotations

import smtplib
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from sqlmodel import select

from puzzles.duplicate import DuplicateSettings
from tests.mail.conftest import ANA, BOGDAN, Relay, Seed, wait_for
from tests.mail.helpers import make_mail
from tests.web.za_game import full_bag, use_word_list

pytestmark = [pytest.mark.db, pytest.mark.mail]


def send(port: int, raw: bytes, *, frm: str, to: str) -> None:
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as c:
        assert dict(c.sendmail(frm, [to], raw)) == {}


def test_placed_raccord_letters_by_mail(
    app: Flask, seed: Seed, intake: Any, smtp_port: int, relay: Relay, tmp_path: Path
) -> None:
    from webapp.db import session_scope
    from webapp.models import Competition, DuplicateEntry, DuplicateRound
    from webapp.services import clock, duplicate, lifecycle

    use_word_list(app, tmp_path, "ZA\nZAS\n")
    # round 1 is 49 hours old: its 48-hour deadline has passed, round 2 opens now
    start = clock.now() - timedelta(hours=49)
    with app.app_context(), session_scope(app) as s:
        comp = s.get(Competition, seed.competition_id)
        assert comp is not None
        duplicate.create_game(
            session=s, competition=comp, title="Duplicate du lundi", code="D1",
            settings=DuplicateSettings(lang="fr", rounds=2),
            rhythm={"kind": "all_answered", "hours": 48}, starts_at=start,
            lexicon_name="za", bag_order=full_bag())
    with app.app_context():
        assert lifecycle.run_due(now=start + timedelta(minutes=1)) == ["draw:D1:1"]
        assert lifecycle.run_due(now=clock.now()) == [
            "close:D1:1", "correct:D1:1", "publish:D1:1", "draw:D1:2"]

    ana_to = f"feuilles+{ANA[2]}@arbitre.test"
    send(smtp_port, make_mail(frm=f"{ANA[0]} <{ANA[1]}>", to=ana_to, subject="D1 tour 2",
                              body="Z @ 0,0 A@+1, 0 ZAS 12\n\n-- \nAna"),
         frm=ANA[1], to=ana_to)
    bogdan_to = f"feuilles+{BOGDAN[2]}@arbitre.test"
    send(smtp_port, make_mail(frm=f"{BOGDAN[0]} <{BOGDAN[1]}>", to=bogdan_to, subject="D1",
                              body="(vertical) ZA ZAS 12\n"),
         frm=BOGDAN[1], to=bogdan_to)
    assert intake.wait_idle()

    with app.app_context(), session_scope(app) as s:
        entries = {e.player_id: e for e in s.exec(select(DuplicateEntry)).all()}
        ana, bogdan = entries[seed.ana_id], entries[seed.bogdan_id]
        assert (ana.channel, ana.parse_errors) == ("email", [])
        assert ana.bulletin == {"word": "ZAS", "ref": None, "raccord": None, "claimed": 12,
                                "raccord_at": [["Z", 0, 0], ["A", 1, 0]]}
        assert bogdan.bulletin == {"word": "ZAS", "ref": None, "raccord": "ZA",
                                   "claimed": 12, "vertical": True}

    # the receipts read the bulletins back in the notation
    def receipts() -> dict[str, str]:
        return {str(m["To"]).lower(): m.get_body(("plain",)).get_content()
                for m in relay.handler.messages() if m["Subject"].startswith("Bulletin reçu")}

    wait_for(lambda: len(receipts()) == 2)
    bodies = receipts()
    assert "Bulletin lu : Z@0,0 A@+1,0 ZAS 12" in bodies[ANA[1].lower()]
    assert "Bulletin lu : (vertical) ZA ZAS 12" in bodies[BOGDAN[1].lower()]

    # both have answered: round 2 closes, Ana's placed letters locate ZAS at H7
    with app.app_context():
        assert lifecycle.run_due(now=clock.now()) == [
            "close:D1:2", "correct:D1:2", "publish:D1:2", "finish:D1:2"]
    with app.app_context(), session_scope(app) as s:
        r2 = s.exec(select(DuplicateRound).where(DuplicateRound.number == 2)).one()
        ana_result = next(x for x in r2.results if x["name"] == ANA[0])
        assert (ana_result["score"], ana_result["kind"]) == (12, "valide")
