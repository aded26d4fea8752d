"""Factories for the web tests: a championship with registered players and a problem whose
schedule is given relative to the frozen clock; an empty database for the migration tests."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from flask import Flask
from sqlmodel import Session

from webapp.db import make_engine
from webapp.models import Competition, Player, Problem, ProblemStatus
from webapp.services import players, problems

#: a sheet for an Intégral (whole bag): FICHERA then WUS, the worked example of RULES §12
SHEET = "Problème: {code}\n1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 166\n"


@pytest.fixture
def competition(db_session: Session) -> Competition:
    comp = problems.create_competition(
        session=db_session, slug="cn2026", name="Championnat par correspondance 2026"
    )
    db_session.commit()
    return comp


@pytest.fixture
def make_player(db_session: Session, competition: Competition) -> Callable[..., Player]:
    def make(name: str, email: str, club: str = "") -> Player:
        p = players.create_player(session=db_session, name=name, email=email, club=club)
        problems.register(session=db_session, competition=competition, player=p)
        db_session.commit()
        return p

    return make


@pytest.fixture
def make_problem(
    db_session: Session, competition: Competition, frozen_start: datetime
) -> Callable[..., Problem]:
    def make(
        *, game: str = "integral", seed: int = 1, publish: timedelta = timedelta(hours=-1),
        deadline: timedelta = timedelta(days=5), status: str = ProblemStatus.OPEN,
        code: str | None = None, start: datetime | None = None,
        appeal_days: int | None = None, **kw: Any,
    ) -> Problem:
        from puzzles.generate import new_problem

        start = start or frozen_start
        prob = problems.create_problem(
            session=db_session, competition=competition,
            puzzle=new_problem(game, seed=seed, **kw),
            publish_at=start + publish, deadline_at=start + deadline, code=code,
            status=status, appeal_days=appeal_days,
        )
        db_session.commit()
        return prob

    return make


@pytest.fixture
def ctx(app: Flask):  # type: ignore[no-untyped-def]
    with app.app_context():
        yield app


@pytest.fixture
def empty_engine(database_url: str, pg_schema: str | None) -> Iterator[sa.Engine]:
    """An engine on an empty database for migration tests: on PostgreSQL a schema of its own
    (the app fixture's tables must not be seen here), dropped afterwards."""
    schema = f"{pg_schema}_mig_{uuid.uuid4().hex[:6]}" if pg_schema else None
    engine = make_engine(database_url, schema=schema)
    yield engine
    if schema:
        with engine.begin() as conn:
            conn.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    engine.dispose()
