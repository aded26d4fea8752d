"""The answer to an appeal goes to the player by e-mail (issue 13, point 6: « an e-mail to
the player when his appeal is answered »), through the outbox, in his language, delivered
to the real relay on loopback."""

from __future__ import annotations

import email.header
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from flask import Flask
from sqlmodel import col, select

from tests.mail.conftest import Relay, wait_for
from tests.mail.helpers import rows

pytestmark = [pytest.mark.db, pytest.mark.mail]

SHEET = "1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 166\n"
#: the appeals are filed at 10:00 UTC on 10 May 2026 (mails give times in UTC)
FILED = datetime(2026, 5, 10, 10, 0, tzinfo=UTC)
ANSWERED = FILED + timedelta(hours=2)


def _appeals(app: Flask) -> dict[str, int]:
    """A problem with its provisional ranking published and one appeal per player: Ana
    reads French, Bogdan Romanian. Returns the appeal ids by first name."""
    from puzzles.generate import new_problem
    from webapp.db import session_scope
    from webapp.models import Channel, ProblemStatus, Submission, Verification
    from webapp.services import appeals, lifecycle, players, problems
    from webapp.services.submissions import submit_sheet

    out: dict[str, int] = {}
    with app.app_context(), session_scope(app) as s:
        comp = problems.create_competition(session=s, slug="cn2026", name="Championnat 2026")
        ana = players.create_player(session=s, name="Ana Ionescu", email="ana@example.org")
        bogdan = players.create_player(session=s, name="Bogdan Pop", email="bogdan@example.net")
        bogdan.locale = "ro"
        for p in (ana, bogdan):
            problems.register(session=s, competition=comp, player=p)
        prob = problems.create_problem(
            session=s, competition=comp, puzzle=new_problem("integral", seed=1),
            publish_at=FILED - timedelta(days=3), deadline_at=FILED - timedelta(days=1),
            code="I3", title="Intégral n° 3", status=ProblemStatus.OPEN,
        )
        for p in (ana, bogdan):
            submit_sheet(session=s, player=p, problem=prob, text=SHEET, channel=Channel.WEB,
                         received_at=FILED - timedelta(days=2))
        at = FILED - timedelta(hours=1)
        lifecycle.close(s, prob, at)
        lifecycle.verify(s, prob, at)
        lifecycle.publish_provisional(s, prob, at)
        s.flush()
        for p in (ana, bogdan):
            v = s.exec(select(Verification)
                       .join(Submission, col(Submission.id) == col(Verification.submission_id))
                       .where(Submission.player_id == p.id)).one()
            a = appeals.file_appeal(session=s, player=p, verification=v,
                                    text="WUS est dans mon dictionnaire.\nMerci.")
            assert a.id is not None
            out[p.name.split()[0]] = a.id
    return out


def _answer(app: Flask, appeal_id: int, *, accepted: bool, answer: str) -> None:
    from webapp.auth import create_arbitre
    from webapp.db import session_scope
    from webapp.models import Appeal, Arbitre
    from webapp.services import appeals

    with app.app_context(), session_scope(app) as s:
        judge = s.exec(select(Arbitre).where(Arbitre.username == "juge")).first() or \
            create_arbitre(session=s, username="juge", password="motdepasse1", name="Juge")
        appeal = s.get(Appeal, appeal_id)
        assert appeal is not None
        appeals.answer_appeal(session=s, appeal=appeal, arbitre=judge, accepted=accepted,
                              answer=answer)


def _subject(msg: object) -> str:
    return str(email.header.make_header(email.header.decode_header(msg["Subject"])))  # type: ignore[index]


def test_the_answer_to_an_appeal_is_mailed_in_the_players_language(
    app: Flask, relay: Relay
) -> None:
    from mailer.outbox import send_pending
    from webapp.models import OutboxMessage

    with time_machine.travel(FILED, tick=False):
        ids = _appeals(app)
    with time_machine.travel(ANSWERED, tick=False):
        _answer(app, ids["Ana"], accepted=False,
                answer="WUS n'est pas dans la liste du problème : le coup reste nul.")
        _answer(app, ids["Bogdan"], accepted=True, answer="Le mot est admis.")
        # answering twice is refused, and writes no second mail
        with pytest.raises(ValueError, match="déjà reçu une réponse"):
            _answer(app, ids["Ana"], accepted=True, answer="?")
    out = rows(app, OutboxMessage, kind="appeal_answer")
    assert sorted((o.dedupe_key, o.to_addr) for o in out) == [
        (f"appeal:{ids['Ana']}", "ana@example.org"),
        (f"appeal:{ids['Bogdan']}", "bogdan@example.net"),
    ]

    from webapp.models import Appeal

    ana_report = rows(app, Appeal, id=ids["Ana"])[0].verification_id
    send_pending(app)  # the receipts, the results of the provisional ranking and these two
    wait_for(lambda: [o.status for o in rows(app, OutboxMessage, kind="appeal_answer")]
             == ["sent", "sent"])
    got = {m["To"]: m for m in relay.handler.messages()
           if m["X-Arbitre-Kind"] == "appeal_answer"}
    assert len(got) == 2
    ana = got["ana@example.org"]
    assert _subject(ana) == "Réponse à votre appel — Intégral n° 3 (I3)"
    text = ana.get_body(("plain",)).get_content().replace("\r\n", "\n")
    assert text.startswith(
        "Bonjour Ana Ionescu,\n\n"
        "L'arbitre a répondu à votre appel du 10/05/2026 à 10:00 UTC sur le "
        "problème « Intégral n° 3 (I3) ».\n\n"
        "Décision : appel rejeté.\n\n"
        "Réponse de l'arbitre :\n"
        "WUS n'est pas dans la liste du problème : le coup reste nul.\n\n"
        "Votre résultat reste celui du classement publié.\n\n"
        "Votre appel :\n> WUS est dans mon dictionnaire.\n> Merci.\n\n"
        f"Votre rapport de vérification : http://arbitre.test/rapports/{ana_report}\n"), text
    assert ana["X-Arbitre-Kind"] == "appeal_answer"

    bogdan = got["bogdan@example.net"]
    assert _subject(bogdan) == "Răspuns la contestația dumneavoastră — Intégral n° 3 (I3)"
    ro = bogdan.get_body(("plain",)).get_content().replace("\r\n", "\n")
    assert "Decizie: contestație admisă.\n" in ro
    assert "Răspunsul arbitrului:\nLe mot est admis.\n" in ro
    assert ("Dacă această decizie vă schimbă rezultatul, arbitrul reia verificarea și veți "
            "primi clasamentul revizuit.") in ro
    assert "din 10/05/2026 ora 10:00 UTC privind problema" in ro
    assert "Décision" not in ro
