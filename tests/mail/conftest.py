"""Mail fixtures: real servers on loopback.

* ``relay``: an aiosmtpd server standing for the outgoing relay; it records what it accepts
  and can be told to refuse (``relay.fail_next = n``: answer 451 n times) or be stopped.
* ``intake``: ``mailer.intake.start_embedded(app)`` listening on a free port, sending
  through ``relay``.
* ``seed``: one competition, one open problem (``I3``), two players.
* ``dovecot`` (session): a throwaway Dovecot IMAP server (see ``tests/mail/dovecot.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session
from flask import Flask

from tests.ports import free_port
from tests.waiting import wait_for  # noqa: F401 (the mail tests import it from here)

EML_DIR = Path(__file__).with_name("eml")
DEADLINE = datetime(2099, 12, 31, 18, 0, tzinfo=UTC)


def eml(name: str) -> bytes:
    return (EML_DIR / name).read_bytes()


@dataclass
class RecordingRelay:
    """Handler of the test relay: what it accepted, and scripted temporary failures."""

    accepted: list[Envelope] = field(default_factory=list)
    fail_next: int = 0
    refused: int = 0

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        if self.fail_next > 0:
            self.fail_next -= 1
            self.refused += 1
            return "451 4.3.0 relais indisponible (test)"
        self.accepted.append(envelope)
        return "250 OK"

    def messages(self) -> list[Any]:
        import email
        import email.policy

        return [email.message_from_bytes(e.original_content or b"", policy=email.policy.default)
                for e in self.accepted]


@dataclass
class Relay:
    handler: RecordingRelay
    controller: Controller
    port: int


@pytest.fixture
def relay() -> Iterator[Relay]:
    handler = RecordingRelay()
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    r = Relay(handler, controller, port)
    yield r
    r.controller.stop()


@pytest.fixture
def smtp_port() -> int:
    return free_port()


@pytest.fixture
def app_config(app_config: dict[str, Any], smtp_port: int, relay: Relay) -> dict[str, Any]:
    app_config.update(
        MAIL_SMTP_LISTEN=f"127.0.0.1:{smtp_port}",
        SMTP_RELAY=f"127.0.0.1:{relay.port}",
        OUTBOX_POLL_SECONDS=0.2,
        OUTBOX_BACKOFF_SECONDS=0.2,
        SUBMIT_DOMAIN="arbitre.test",
        MAIL_FROM="Arbitre <arbitre@arbitre.test>",
        # these tests send dozens of sheets per player within seconds; the per-player limit
        # has its own tests (tests/web/test_hardening_submissions.py), which set it
        SUBMISSIONS_PER_WINDOW=0,
    )
    return app_config


@dataclass
class Seed:
    problem_id: int
    ana_id: int
    bogdan_id: int
    competition_id: int


ANA = ("Ana Ionescu", "Ana.Ionescu@Example.org", "tokAna1234")
BOGDAN = ("Bogdan Pop", "bogdan@example.net", "tokBogdan99")


@pytest.fixture
def seed(app: Flask) -> Seed:
    return seed_database(app)


def seed_database(app: Flask) -> Seed:
    """What the ``seed`` fixture writes (its tables created)."""
    from webapp.db import session_scope
    from webapp.models import Competition, Player, Problem, ProblemStatus, Registration

    with app.app_context(), session_scope(app) as s:
        comp = Competition(slug="cn2026", name="Championnat par correspondance 2026")
        s.add(comp)
        s.flush()
        problem = Problem(code="I3", competition_id=comp.id, title="Intégral n° 3",
                          game="integral", status=ProblemStatus.OPEN,
                          publish_at=datetime(2026, 1, 1, tzinfo=UTC), deadline_at=DEADLINE)
        ana = Player(name=ANA[0], email=ANA[1], token=ANA[2])
        bogdan = Player(name=BOGDAN[0], email=BOGDAN[1], token=BOGDAN[2])
        s.add_all([problem, ana, bogdan])
        s.flush()
        assert problem.id and ana.id and bogdan.id and comp.id
        # both registered: only registered players may submit (submissions.submit_sheet)
        s.add_all([Registration(competition_id=comp.id, player_id=ana.id),
                   Registration(competition_id=comp.id, player_id=bogdan.id)])
        return Seed(problem.id, ana.id, bogdan.id, comp.id)


def add_problem(app: Flask, seed: Seed, code: str, title: str) -> int:
    from webapp.db import session_scope
    from webapp.models import Problem, ProblemStatus

    with app.app_context(), session_scope(app) as s:
        p = Problem(code=code, competition_id=seed.competition_id, title=title,
                    game="integral", status=ProblemStatus.OPEN,
                    publish_at=datetime(2026, 1, 1, tzinfo=UTC), deadline_at=DEADLINE)
        s.add(p)
        s.flush()
        assert p.id is not None
        return p.id


@pytest.fixture
def intake(app: Flask, seed: Seed) -> Iterator[Any]:
    from mailer.intake import start_embedded

    handle = start_embedded(app)
    yield handle
    handle.stop()


@pytest.fixture(scope="session")
def dovecot() -> Iterator[Any]:
    import shutil
    import tempfile

    from tests.mail.dovecot import start

    # Not under pytest's tmp dir: that one is 0700, and Dovecot's own users must read here.
    root = Path(tempfile.mkdtemp(prefix="arbitre-dovecot-"))
    server = start(root)
    yield server
    server.stop()
    shutil.rmtree(root, ignore_errors=True)
