"""Duplicate by correspondence: the « as soon as every player has answered » rhythm, a round
closed early, and migration 0006 upgrading a database that already holds rows.

Same game as tests/web/test_duplicate.py: word list {ZA, ZAS}, round 1 draws ZAEIBCD and its
top is ZA at H7, (10 + 1) × 2 = 22 (Z on H7, A on the double-word star H8).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from flask import Flask
from sqlmodel import Session, select

from tests.web.za_game import START, za_game
from webapp.db import alembic_config
from webapp.models import (
    Channel,
    Competition,
    DuplicateGame,
    DuplicateRound,
    OutboxMessage,
    Player,
)
from webapp.services import clock, duplicate, lifecycle

pytestmark = pytest.mark.db


@pytest.fixture
def game(
    app: Flask, db_session: Session, competition: Competition, tmp_path: Path
) -> DuplicateGame:
    return za_game(app, db_session, competition, tmp_path)


def test_round_closes_when_every_player_has_answered(
    ctx: Flask, db_session: Session, game: DuplicateGame, make_player: Callable[..., Player],
    frozen_clock: Any,
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:EX1:1"]
    rnd = db_session.exec(select(DuplicateRound)).one()
    assert rnd.closes_at == START + timedelta(hours=48)  # the deadline anyway

    frozen_clock.move_to(START + timedelta(hours=1))
    duplicate.submit_bulletin(session=db_session, player=ana, game=game, text="H7 ZA 22",
                              channel=Channel.WEB, received_at=clock.now())
    db_session.commit()
    assert lifecycle.run_due(now=clock.now()) == []  # Bob has not answered yet

    # an unreadable bulletin is no answer (issue 22 §4: the round closed 14 s after Bob was
    # told « renvoyez-le corrigé avant la clôture »): the round stays open for him
    frozen_clock.move_to(START + timedelta(hours=2))
    duplicate.submit_bulletin(session=db_session, player=bob, game=game, text="H8 ZA 22 23",
                              channel=Channel.EMAIL, received_at=clock.now())
    db_session.commit()
    assert lifecycle.run_due(now=clock.now()) == []
    assert not duplicate.all_answered(db_session, game, rnd)

    answered = START + timedelta(hours=3)
    frozen_clock.move_to(answered)
    duplicate.submit_bulletin(session=db_session, player=bob, game=game, text="H8 ZA 22",
                              channel=Channel.EMAIL, received_at=clock.now())
    db_session.commit()
    assert lifecycle.run_due(now=clock.now()) == [
        "close:EX1:1", "correct:EX1:1", "publish:EX1:1", "draw:EX1:2"]
    db_session.expire_all()
    r1 = db_session.exec(select(DuplicateRound).where(DuplicateRound.number == 1)).one()
    # closed at the last answer: a bulletin after it is late
    assert (r1.closed_at, r1.closes_at) == (answered, answered)
    assert [(x["name"], x["score"]) for x in r1.results] == [("Ana", 22), ("Bob", 22)]
    r2 = db_session.exec(select(DuplicateRound).where(DuplicateRound.number == 2)).one()
    assert (r2.opens_at, r2.closes_at) == (answered, answered + timedelta(hours=48))


def test_migration_0006_keeps_every_existing_row(empty_engine: sa.Engine) -> None:
    cfg = alembic_config(empty_engine)
    command.upgrade(cfg, "0005")
    now = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
    with empty_engine.begin() as conn:
        conn.execute(sa.text(
            "INSERT INTO competition (slug, name, description, ranking_rule, lang, created_at, "
            "open_registration) VALUES ('c', 'C', '', 'sum_scores', 'fr', :t, false)"), {"t": now})
        conn.execute(sa.text(
            "INSERT INTO player (name, club, email, token, bounce_count, active, created_at, "
            "session_epoch) VALUES ('Ana', '', 'ana@example.ro', 'tok', 0, true, :t, 0)"),
            {"t": now})
    command.upgrade(cfg, "head")
    tables = set(sa.inspect(empty_engine).get_table_names())
    assert {"duplicate_game", "duplicate_round", "duplicate_entry"} <= tables
    with empty_engine.connect() as conn:
        assert conn.execute(sa.text("SELECT slug FROM competition")).scalars().all() == ["c"]
        assert conn.execute(sa.text("SELECT email FROM player")).scalars().all() == [
            "ana@example.ro"]
    command.downgrade(cfg, "0005")
    assert "duplicate_game" not in sa.inspect(empty_engine).get_table_names()
    with empty_engine.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM player")).scalar() == 1


def _round_one_drawn(db_session: Session, game: DuplicateGame,
                     make_player: Callable[..., Player], frozen_clock: Any) -> Player:
    """Ana and Bob registered, the game's review 30 minutes (the correction is the last step
    at the close), round 1 drawn at START; Ana."""
    ana = make_player("Ana", "ana@example.ro")
    make_player("Bob", "bob@example.fr")
    game.review_minutes = 30
    db_session.add(game)
    db_session.commit()
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:EX1:1"]
    return ana


def test_an_on_time_bulletin_stored_after_the_close_still_counts(
    ctx: Flask, db_session: Session, game: DuplicateGame, make_player: Callable[..., Player],
    frozen_clock: Any,
) -> None:
    """A web request received one second before the deadline whose transaction ends after
    the close: judged by its receive time, it is on time, and the round is corrected again."""
    ana = _round_one_drawn(db_session, game, make_player, frozen_clock)
    deadline = START + timedelta(hours=48)
    frozen_clock.move_to(deadline)
    assert lifecycle.run_due(now=clock.now()) == ["close:EX1:1", "correct:EX1:1"]
    db_session.expire_all()
    rnd = db_session.exec(select(DuplicateRound)).one()
    assert [(x["name"], x["score"], x["kind"]) for x in rnd.results] == [
        ("Ana", 0, "absent"), ("Bob", 0, "absent")]

    outcome = duplicate.submit_bulletin(
        session=db_session, player=ana, game=game, text="H7 ZA 22", channel=Channel.WEB,
        received_at=deadline - timedelta(seconds=1))
    db_session.commit()
    assert not outcome.late
    db_session.expire_all()
    rnd = db_session.exec(select(DuplicateRound)).one()
    assert [(x["name"], x["score"], x["kind"]) for x in rnd.results] == [
        ("Ana", 22, "valide"), ("Bob", 0, "absent")]


def test_a_solo_in_a_field_of_seven(
    ctx: Flask, db_session: Session, game: DuplicateGame, make_player: Callable[..., Player],
    frozen_clock: Any,
) -> None:
    """« Tout joueur réalisant seul, sur un coup quelconque, un score supérieur à celui de
    tous les autres joueurs, [...] Cette bonification est de 10 points si le nombre de joueurs
    est au moins de seize. » (FISF 3.5); below sixteen, RULES §4.8's default n − 6: seven
    players, 7 − 6 = 1 point. Ana alone plays ZA (22): 22 + 1 = 23."""
    players = [make_player(f"J{i}", f"j{i}@example.fr") for i in range(7)]
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:EX1:1"]
    duplicate.submit_bulletin(session=db_session, player=players[0], game=game,
                              text="H7 ZA 22", channel=Channel.WEB, received_at=clock.now())
    db_session.commit()
    frozen_clock.move_to(START + timedelta(hours=48))
    assert lifecycle.run_due(now=clock.now())[:3] == [
        "close:EX1:1", "correct:EX1:1", "publish:EX1:1"]
    db_session.expire_all()
    r1 = db_session.exec(select(DuplicateRound).where(DuplicateRound.number == 1)).one()
    assert [(x["name"], x["score"], x["solo"]) for x in r1.results][:2] == [
        ("J0", 22, 1), ("J1", 0, 0)]
    rows = duplicate.standings(db_session, game)
    assert (rows[0]["name"], rows[0]["total"], rows[0]["solos"]) == ("J0", 23, 1)
    mail = next(m for m in db_session.exec(select(OutboxMessage).where(
        OutboxMessage.kind == duplicate.KIND_RESULTS)).all() if m.to_addr == "j0@example.fr")
    assert "Votre score : 22 + 1 (solo)" in mail.body_text


def test_mail_goes_to_the_duplicate_only_when_it_is_meant_for_it(
    app: Flask, ctx: Flask, db_session: Session, game: DuplicateGame,
    make_player: Callable[..., Player], make_problem: Callable[..., Any], frozen_clock: Any,
) -> None:
    """Without the game's code in the subject, a one-line bulletin goes to the player's only
    running Duplicate; a subject naming an open problem keeps the message for the problem."""
    ana = make_player("Ana", "ana@example.ro")
    make_problem(code="I3")
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:EX1:1"]
    db_session.expire_all()  # the game is running now
    claim = dict(session=db_session, player=ana, received_at=clock.now(),
                 inbound_message_id=None, in_reply_to=None)
    assert duplicate.claim_mail(subject="I3", text="H7 ZA 22", **claim) is None
    assert duplicate.claim_mail(subject="coup", text="1 ACEFHIR h8 FICHERA 82 82",
                                **claim) is None
    outcome = duplicate.claim_mail(subject="mon coup", text="H7 ZA 22\n-- \nAna", **claim)
    assert outcome is not None and outcome.round.number == 1
    assert outcome.entry.bulletin == {"word": "ZA", "ref": "H7", "raccord": None,
                                      "claimed": 22}


def test_the_correction_waits_for_a_bulletin_mailed_in_time_and_not_yet_processed(
    app: Flask, ctx: Flask, db_session: Session, game: DuplicateGame,
    make_player: Callable[..., Player], frozen_clock: Any,
) -> None:
    """A bulletin the SMTP intake accepted before the round's close but had not processed yet
    (a backlog at a deadline rush) is received in time: the round closes at its time, the
    correction waits until the message is processed (``webapp.services.backlog``), and
    counts it — the round's results, mailed at the correction, are right the first time."""
    from email.message import EmailMessage

    from mailer import pipeline
    from tests.waiting import steps_in_thread, wait_for
    from webapp.models import InboundChannel, RoundStatus

    ana = _round_one_drawn(db_session, game, make_player, frozen_clock)
    deadline = START + timedelta(hours=48)
    msg = EmailMessage()
    msg["From"] = "Ana <ana@example.ro>"
    msg["To"] = f"feuilles+{ana.token}@arbitre.test"
    msg["Subject"] = "EX1"
    msg["Message-ID"] = "<bulletin-in-queue@example.ro>"
    msg.set_content("H7 ZA 22")
    stored = pipeline.store_raw(app, msg.as_bytes(), channel=InboundChannel.SMTP,
                                envelope_from="ana@example.ro",
                                envelope_to=[f"feuilles+{ana.token}@arbitre.test"],
                                received_at=deadline - timedelta(seconds=2))
    frozen_clock.move_to(deadline)
    worker, done = steps_in_thread(app, lambda: lifecycle.run_due(now=clock.now()))

    def status() -> RoundStatus:
        db_session.expire_all()
        return db_session.exec(select(DuplicateRound)).one().status

    assert wait_for(lambda: status() == RoundStatus.CLOSED)
    assert worker.is_alive()  # waiting for the message accepted before the close
    pipeline.process(app, stored.id)
    worker.join(60)
    assert not worker.is_alive()
    assert done == ["close:EX1:1", "correct:EX1:1"]
    db_session.expire_all()
    rnd = db_session.exec(select(DuplicateRound)).one()
    assert [(x["name"], x["score"], x["kind"]) for x in rnd.results] == [
        ("Ana", 22, "valide"), ("Bob", 0, "absent")]
