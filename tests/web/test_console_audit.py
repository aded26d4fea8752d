"""The audit log page in plain French (issue 13, point 6).

« The audit log, mailbox and re-run pages show people's names, French kinds and local times
(no ``submission.received``, ``player:1``, ``receipt/reminder``). »
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import event
from sqlmodel import Session, select

from webapp.auth import create_arbitre
from webapp.models import AuditLog
from webapp.services import audit, players

ROOT = Path(__file__).resolve().parents[2]

#: the actions recorded with a computed name: the step names the code returns
COMPUTED = {
    # webapp/services/lifecycle.py (publish, close, verify, publish_provisional, finalise)
    "problem.": ["publish", "close", "verify", "provisional", "finalise"],
    # webapp/services/rankings.py: RankingKind
    "ranking.": ["provisional", "final"],
    # webapp/services/duplicate.py: draw_next/_draw_*, close_round, correct_round,
    # publish_round, finish
    "duplicate.": ["draw", "close", "correct", "publish", "finish"],
}


def _recorded_actions() -> set[str]:
    """Every literal ``action="…"`` passed to ``audit.record`` (or ``audit.record_now``, or
    ``audit.entry_values``, whose entries ``audit.record_many`` writes) in webapp/ and
    mailer/."""
    found: set[str] = set()
    for py in [*ROOT.joinpath("webapp").rglob("*.py"), *ROOT.joinpath("mailer").rglob("*.py")]:
        text = py.read_text(encoding="utf-8")
        # the action is one of the first keyword arguments of each call
        for call in re.finditer(r"audit\.(?:record(?:_now)?|entry_values)\(", text):
            m = re.search(r'action\s*=\s*(f?)"([a-z_.]+)', text[call.end():call.end() + 200])
            if m and not m.group(1):
                found.add(m.group(2))
    return found


def test_every_recorded_action_has_a_french_label() -> None:
    literal = _recorded_actions()
    # a scan that finds nothing would pass vacuously: these are known calls
    assert {"submission.received", "mail.replay", "demo.seed", "player.profile"} <= literal
    # and the f-string calls are the ones COMPUTED lists (no other is left out)
    computed = set()
    for py in [*ROOT.joinpath("webapp").rglob("*.py"), *ROOT.joinpath("mailer").rglob("*.py")]:
        computed |= set(re.findall(r'action\s*=\s*f"([a-z_]+\.)\{', py.read_text("utf-8")))
    assert computed == set(COMPUTED)
    every = literal | {p + n for p, names in COMPUTED.items() for n in names}
    missing = sorted(a for a in every if a not in audit.ACTIONS)
    assert missing == []
    # no label left over for an action nobody records
    assert sorted(set(audit.ACTIONS) - every) == []


@pytest.fixture
def arbitre_client(client: FlaskClient, db_session: Session) -> FlaskClient:
    a = create_arbitre(session=db_session, username="juge", password="motdepasse1",
                       name="Juge Arbitre")
    db_session.commit()
    with client.session_transaction() as sess:
        sess.clear()
        sess["arbitre_id"] = a.id
    return client


@pytest.mark.db
def test_log_shows_names_french_actions_and_local_time(
    frozen_clock: Any, db_session: Session, arbitre_client: FlaskClient
) -> None:
    ana = players.create_player(session=db_session, name="Ana Popescu", email="ana@example.ro")
    db_session.flush()
    audit.record(session=db_session, actor=f"player:{ana.id}", action="submission.received",
                 target="P1")
    audit.record(session=db_session, actor="juge", action="player.profile",
                 target=str(ana.id))
    audit.record(session=db_session, actor=audit.SYSTEM, action="problem.close", target="P1")
    db_session.commit()
    text = html.unescape(arbitre_client.get("/console/journal").get_data(as_text=True))
    rows = re.findall(r'<tr><td>(.*?)</td><td>(.*?)</td><td><span title="[a-z_.]+">(.*?)'
                      r"</span></td><td>(.*?)</td>", text)
    # FROZEN_START 10:00 UTC on 10/05/2026 = 13:00 in Bucharest (summer time, UTC+3)
    when = "10/05/2026 à 13:00:00 (Europe/Bucharest, UTC+03:00)"
    # newest first: the same instant, so by id descending
    assert rows == [
        (when, "le serveur", "Problème clos", "P1"),
        (when, "Juge Arbitre (juge)", "Fiche de joueur modifiée", "Ana Popescu"),
        (when, "Ana Popescu", "Feuille reçue", "P1"),
        # the fixture's arbitre, created by the server (arbitre.create, target: username)
        (when, "le serveur", "Compte d'arbitre créé", "Juge Arbitre (juge)"),
    ]
    assert f"player:{ana.id}" not in text


@pytest.mark.db
def test_names_are_resolved_in_one_query_per_kind(
    app: Flask, db_session: Session, frozen_clock: Any
) -> None:
    """Twenty players acting: two queries (players, arbitres), not one per row."""
    made = [players.create_player(session=db_session, name=f"Joueur {i}",
                                  email=f"j{i}@example.ro") for i in range(20)]
    create_arbitre(session=db_session, username="juge", password="motdepasse1", name="Juge")
    db_session.flush()
    for p in made:
        audit.record(session=db_session, actor=f"player:{p.id}", action="player.login")
        audit.record(session=db_session, actor="juge", action="player.profile",
                     target=str(p.id))
    db_session.commit()
    entries = list(db_session.exec(select(AuditLog)).all())
    assert len(entries) == 41  # 20 logins + 20 profile edits + the arbitre's creation
    statements: list[str] = []

    def count(*args: Any) -> None:
        statements.append(args[2])

    engine = db_session.get_bind()
    event.listen(engine, "before_cursor_execute", count)
    try:
        names = audit.people(db_session, entries)
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert len(statements) == 2
    for p in made:
        assert names[f"player:{p.id}"] == p.name
        assert names[str(p.id)] == p.name
    assert names["juge"] == "Juge (juge)"


# --- the outbox's kinds ------------------------------------------------------------------------


def _outbox_kinds() -> set[str]:
    """Every kind the code gives a mail: OutboxKind, the ``KIND_*`` constants of the
    services, the intake's replies (``d.reply("…"``) and its ``kind="…"`` enqueue."""
    from webapp.models import OutboxKind

    kinds = {v for k, v in vars(OutboxKind).items() if k.isupper()}
    for py in [*ROOT.joinpath("webapp").rglob("*.py"), *ROOT.joinpath("mailer").rglob("*.py")]:
        text = py.read_text("utf-8")
        for line in re.findall(r"^KIND_\w+(?:, KIND_\w+)* = (.+)$", text, re.M):
            kinds |= set(re.findall(r'"([a-z_]+)"', line))
        kinds |= set(re.findall(r'\.reply\(\s*"([a-z_]+)"', text))
        kinds |= set(re.findall(r'enqueue\(session=\w+, kind="([a-z_]+)"', text))
    return kinds


def test_every_outbox_kind_has_a_french_name() -> None:
    from mailer import mailroom

    kinds = _outbox_kinds()
    # the scan found the known kinds of each source (not vacuous)
    assert {"receipt", "duplicate_corrected", "corr_turn", "parse_errors",
            "refused_too_large"} <= kinds
    assert sorted(kinds - set(mailroom.OUTBOX_KIND_FR)) == []
    assert sorted(set(mailroom.OUTBOX_KIND_FR) - kinds) == []


@pytest.mark.db
def test_outbox_page_names_the_kind_in_french(
    frozen_clock: Any, db_session: Session, arbitre_client: FlaskClient
) -> None:
    from webapp.services import notify

    ana = players.create_player(session=db_session, name="Ana Popescu", email="ana@example.ro")
    db_session.flush()
    notify.enqueue(session=db_session, kind="receipt", to_addr=ana.email,
                   template="login", context={"name": ana.name, "url": "http://x/", "link": "http://x/"},
                   player_id=ana.id)
    db_session.commit()
    text = html.unescape(arbitre_client.get("/console/courrier/sortant").get_data(as_text=True))
    assert "<td>accusé de réception</td>" in text
    assert "<td>receipt</td>" not in text
    # created and due at the frozen instant, 10:00 UTC = 13:00 in Bucharest (UTC+3): the
    # next attempt in the server's zone, the zone named
    start = text.find('id="outbox"')
    row = text[start:text.find("</table>", start)]
    assert row.count("10/05/2026 à 13:00 (Europe/Bucharest, UTC+03:00)") == 2


def test_entry_values_are_the_columns_of_the_model_object() -> None:
    """``audit.entry_values`` writes its dict directly: the same values, in the table's
    column order, as the ``AuditLog`` object ``audit.record`` builds."""
    from datetime import UTC, datetime

    import time_machine

    with time_machine.travel(datetime(2026, 5, 10, 10, 0, tzinfo=UTC), tick=False):
        for kwargs in ({"actor": "player:3", "action": "submission.received",
                        "target": "submission:9", "version": 2, "late": False},
                       {"actor": "system", "action": "mail.replay"}):
            got = audit.entry_values(**kwargs)  # type: ignore[arg-type]
            details = {k: v for k, v in kwargs.items() if k not in ("actor", "action",
                                                                    "target")}
            entry = AuditLog(at=datetime.now(UTC), actor=kwargs["actor"],
                             action=kwargs["action"], target=kwargs.get("target", ""),
                             details=details)
            table = AuditLog.__table__  # type: ignore[attr-defined]
            want = {c.key: getattr(entry, c.key) for c in table.columns if c.key != "id"}
            assert list(got) == list(want)
            assert got == want
