"""Statuses, kinds, channels, game types and Duplicate variants are enum members in the
tables (webapp.db.StrEnumType over the VARCHAR columns the migrations always wrote): rows
load as members, a string assigned becomes its member, and an unknown value, stored or
assigned, fails loudly (UnknownEnumValue) instead of travelling on as a stray string."""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa
from sqlmodel import Session, SQLModel, select

from puzzles.families import GameType
from webapp.db import StrEnumType, UnknownEnumValue, get_engine
from webapp.models import (
    AppealStatus,
    Channel,
    CorrespondenceStatus,
    DuplicateStatus,
    DuplicateVariant,
    InboundChannel,
    InboundMessage,
    InboundStatus,
    OutboxKind,
    OutboxMessage,
    OutboxStatus,
    Problem,
    ProblemStatus,
    RankingKind,
    RankingRule,
    RoundStatus,
    RulingKind,
    SeedSource,
    Submission,
)
from webapp.services.submissions import submit_sheet

pytestmark = pytest.mark.db

SHEET = "Problème: E1\n1 ACEFHIR h8 FICHERA 82 82\n"


def _fresh(app) -> Session:  # type: ignore[no-untyped-def]
    """A new session: what it returns was read from the database, not from an identity map."""
    return Session(get_engine(app))


def test_every_status_kind_channel_game_and_variant_column_is_an_enum_column() -> None:
    typed = {
        f"{t.name}.{c.name}": c.type.enum_class  # type: ignore[attr-defined]
        for t in SQLModel.metadata.tables.values() for c in t.columns
        if isinstance(c.type, StrEnumType)
    }
    assert typed == {
        "competition.ranking_rule": RankingRule,
        "problem.game": GameType,
        "problem.status": ProblemStatus,
        "submission.channel": Channel,
        "ranking.kind": RankingKind,
        "ruling.kind": RulingKind,
        "appeal.status": AppealStatus,
        "inbound_message.channel": InboundChannel,
        "inbound_message.status": InboundStatus,
        "outbox_message.kind": OutboxKind,
        "outbox_message.status": OutboxStatus,
        "duplicate_game.variant": DuplicateVariant,
        "duplicate_game.status": DuplicateStatus,
        "duplicate_game.seed_source": SeedSource,
        "duplicate_round.status": RoundStatus,
        "duplicate_entry.channel": Channel,
        "correspondence_game.status": CorrespondenceStatus,
    }
    # still the plain VARCHAR of the migrations (tests/web/test_migrations.py compares too)
    assert all(
        c.type.impl_instance.__class__.__name__ == "AutoString"  # type: ignore[attr-defined]
        for t in SQLModel.metadata.tables.values() for c in t.columns
        if isinstance(c.type, StrEnumType)
    )


def test_rows_load_as_enum_members(
    ctx, db_session: Session, make_player, make_problem, frozen_start
) -> None:
    ana = make_player("Ana Popescu", "ana@example.ro")
    prob = make_problem(code="E1", game="integral")
    submit_sheet(session=db_session, player=ana, problem=prob, text=SHEET,
                 channel=Channel.WEB, received_at=frozen_start + timedelta(minutes=1))
    db_session.commit()

    with _fresh(ctx) as s:
        p = s.exec(select(Problem)).one()
        assert type(p.status) is ProblemStatus and p.status is ProblemStatus.OPEN
        assert type(p.game) is GameType and p.game is GameType.INTEGRAL
        assert p.game.label == "Scrabble intégral"  # no GameType(p.game) needed
        sub = s.exec(select(Submission)).one()
        assert sub.channel is Channel.WEB
        receipt = s.exec(select(OutboxMessage)).one()
        assert (receipt.kind, receipt.status) == (OutboxKind.RECEIPT, OutboxStatus.PENDING)
        assert type(receipt.kind) is OutboxKind and type(receipt.status) is OutboxStatus
        # a column selected alone comes back as a member too
        assert s.exec(select(Problem.status)).one() is ProblemStatus.OPEN
        # members are strings: comparisons with literals, formatting and JSON keep working
        assert p.status == "open" and f"{p.status}" == "open" and str(p.game) == "integral"
        # a plain string in a query is bound through the enum
        assert s.exec(select(Problem.id).where(Problem.status == "open")).one() == p.id


def test_a_string_assigned_becomes_its_member_and_an_unknown_one_is_refused(ctx) -> None:
    row = InboundMessage(channel="smtp", raw=b"x", sha256="0" * 64, size=1,  # type: ignore[arg-type]
                         status="stored")  # type: ignore[arg-type]
    assert row.channel is InboundChannel.SMTP and row.status is InboundStatus.STORED
    row.status = "quarantined"  # type: ignore[assignment]
    assert row.status is InboundStatus.QUARANTINED
    with pytest.raises(UnknownEnumValue, match=r"'archived' is not a InboundStatus"):
        row.status = "archived"  # type: ignore[assignment]
    assert row.status is InboundStatus.QUARANTINED  # unchanged
    with pytest.raises(UnknownEnumValue, match=r"'fax' is not a InboundChannel \(known: "
                                               r"'smtp', 'lmtp', 'imap'\)"):
        InboundMessage(channel="fax", raw=b"x", sha256="0" * 64, size=1)  # type: ignore[arg-type]


@pytest.mark.parametrize(("column", "stored"), [("status", "archived"), ("game", "scrabble")])
def test_an_unknown_stored_value_fails_loudly_when_the_row_is_loaded(
    ctx, db_session: Session, make_problem, column: str, stored: str
) -> None:
    prob = make_problem(code="E2")
    # a damaged row, or one written by a newer release: raw SQL, past the model
    with get_engine(ctx).begin() as conn:
        conn.execute(sa.text(f"UPDATE problem SET {column} = :v WHERE id = :id"),
                     {"v": stored, "id": prob.id})
    expected = {"status": "ProblemStatus", "game": "GameType"}[column]
    with _fresh(ctx) as s, pytest.raises(UnknownEnumValue,
                                         match=rf"'{stored}' is not a {expected}"):
        s.exec(select(Problem).where(Problem.id == prob.id)).one()
    # what was stored is kept as it was: nothing rewrote it
    with get_engine(ctx).connect() as conn:
        assert conn.execute(sa.text(f"SELECT {column} FROM problem")).scalar_one() == stored


def test_every_outbox_kind_has_its_french_name_on_the_console() -> None:
    from mailer.mailroom import OUTBOX_KIND_FR

    # a new kind cannot reach the outbox without its console name: 4 problem mails (receipt,
    # reminder, publication, results) + 5 answers to a mail (instructions, ambiguity,
    # parse_errors, refused, refused_too_large) + login + announcement + 4 Duplicate + 3
    # correspondence + appeal_answer = 19
    assert len(OutboxKind) == 4 + 5 + 1 + 1 + 4 + 3 + 1 == 19
    assert set(OUTBOX_KIND_FR) == {k.value for k in OutboxKind}
