"""Every page renders (status, key French text), user text is escaped, permissions hold, the
ranking CSV is exact, and a forged post is refused when CSRF protection is on.

The pages run against the real app and database (SQLite here, PostgreSQL in CI) through the
root ``app``/``client`` fixtures; problems are drawn by ``puzzles.generate`` and sheets go in
through the real ``submit_sheet`` service.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from webapp.auth import create_arbitre
from webapp.models import Channel, Player, Problem, ProblemStatus, Submission
from webapp.services.submissions import submit_sheet

pytestmark = pytest.mark.db

SHEET = "1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 166\n"


def login_player(client: FlaskClient, player: Player) -> None:
    with client.session_transaction() as sess:
        sess.clear()
        sess["player_id"] = player.id


def login_arbitre(client: FlaskClient, db_session: Session) -> None:
    a = create_arbitre(session=db_session, username="juge", password="motdepasse1",
                       name="Juge Arbitre")
    db_session.commit()
    with client.session_transaction() as sess:
        sess.clear()
        sess["arbitre_id"] = a.id


def text_of(resp: Any) -> str:
    return resp.get_data(as_text=True)


def test_index_lists_open_problems(
    client: FlaskClient, make_problem: Callable[..., Problem], frozen_clock: Any
) -> None:
    prob = make_problem(code="P1")
    resp = client.get("/")
    assert resp.status_code == 200
    html = text_of(resp)
    assert "Problèmes ouverts" in html
    assert f'href="/problemes/{prob.code}"' in html
    assert "Championnat par correspondance 2026" in html
