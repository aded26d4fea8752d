"""An Anticipation played live in a real Chromium (RULES §6.1): the problem page's « En
direct » box says « Une minute ! » during the last minute of the reflection (seed 002:
« Une minute avant l'écoulement du temps de réflexion, l'arbitre annonce "Une minute!" »),
and reloads itself when the reflection is over, showing move 1 (group 1 and the drawn
group 2) with its 10 minutes."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from sqlmodel import Session

from tests.puzzles.conftest import anticipation_problem
from webapp.db import get_engine
from webapp.models import Problem
from webapp.services import clock, lifecycle, problems, rounds

pytestmark = [pytest.mark.browser, pytest.mark.db]


@pytest.fixture
def reflection_ending(app: Flask) -> None:
    """Published 59 min 40 s ago: the reflection (60 min) ends 20 s from now."""
    with app.app_context(), Session(get_engine(app), expire_on_commit=False) as s:
        comp = problems.create_competition(session=s, slug="direct", name="Anticipation directe")
        start = clock.now() - timedelta(minutes=60) + timedelta(seconds=20)
        prob = problems.create_problem(
            session=s, competition=comp, puzzle=anticipation_problem({2: "RATBCDE"}),
            publish_at=start, deadline_at=rounds.live_deadline_after(start), code="LIVB",
            live=True,
        )
        s.commit()
        p = s.get(Problem, prob.id)
        assert p is not None
        lifecycle.publish(s, p, clock.now())  # late: the timetable stays the planned one
        s.commit()
        assert rounds.schedule(p)[0] == start + timedelta(minutes=60)


def test_one_minute_then_move_one_after_the_reload(
    live_server: Any, page: Any, reflection_ending: None
) -> None:
    from playwright.sync_api import expect

    page.goto(live_server.url + "/problemes/LIVB")
    box = page.locator("#en-direct")
    expect(box.locator("#live-phase")).to_contain_text("Réflexion (60 min)")
    expect(box.get_by_text("Une minute !")).to_be_visible()
    # the countdown reaches zero, the page reloads itself: move 1 is on
    expect(box.locator("#live-phase")).to_contain_text("Coup 1 en cours (10 min) :")
    expect(box.locator("#live-phase")).to_contain_text("RATBCDE")
    expect(box.get_by_text("Une minute !")).to_be_hidden()
