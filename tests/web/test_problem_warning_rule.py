"""The problem page states how technical warnings are converted (RULES §5.3, G6): FISF 5.7
« Au quatrième (sixième en blitz et partie originale) » — 4th by default, 6th when the
problem file makes it a *partie originale*, whatever an arbitre's settings override."""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlmodel import Session

from puzzles.problem import Problem as Puzzle
from webapp.models import Problem

pytestmark = pytest.mark.db


def rule_on_page(client: FlaskClient, code: str) -> str:
    body = html.unescape(client.get(f"/problemes/{code}").get_data(as_text=True))
    start = body.index('<dd id="warning-rule">') + len('<dd id="warning-rule">')
    return body[start:body.index("</dd>", start)]


def test_problem_page_shows_the_warning_conversion(
    client: FlaskClient, make_problem: Callable[..., Problem], db_session: Session,
    frozen_clock: Any,
) -> None:
    default = make_problem(code="W4")
    assert rule_on_page(client, "W4") == (
        "5 points de pénalité par avertissement technique à partir du 4e."
    )
    # the problem file says 6 (partie originale): the page and the verifier follow it
    original = make_problem(code="W6", seed=2)
    original.params = replace(Puzzle.from_dict(original.params), warning_penalty_from=6).to_dict()
    db_session.add(original)
    db_session.commit()
    assert original.params["warning_penalty_from"] == 6
    assert rule_on_page(client, "W6") == (
        "5 points de pénalité par avertissement technique à partir du 6e (partie originale)."
    )
    # an arbitre's settings override (Settings.warning_penalty_from) is what is shown
    default.params = {**default.params, "settings": {"warning_penalty_from": 6}}
    db_session.add(default)
    db_session.commit()
    assert rule_on_page(client, "W4").endswith("à partir du 6e (partie originale).")
    make_problem(code="SS", game="superscrabble_incomplet", seed=3)
    assert rule_on_page(client, "SS") == (
        "Un point de classement au 4e avertissement technique, puis un de plus tous les 3 "
        "avertissements."
    )
