"""The browser's part of the Romanian pages (issue 13.1): the local time and the ticking
countdown that static/js/pages.js writes follow the page's language (<html lang>), and the
switch of the base layout changes the page's language in a real Chromium."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from sqlmodel import Session

from webapp.db import get_engine
from webapp.services import clock, problems

pytestmark = [pytest.mark.browser, pytest.mark.db]


@pytest.fixture
def open_problem(app: Flask) -> None:
    from puzzles.generate import new_problem

    with app.app_context(), Session(get_engine(app), expire_on_commit=False) as s:
        comp = problems.create_competition(session=s, slug="cn2026",
                                           name="Championnat par correspondance 2026")
        now = clock.now()
        problems.create_problem(
            session=s, competition=comp, puzzle=new_problem("integral", seed=1),
            publish_at=now - timedelta(hours=1), deadline_at=now + timedelta(hours=2),
            code="P1", status="open",
        )
        s.commit()


def test_the_switch_and_the_countdown_in_romanian(live_server: Any, page: Any,
                                                  open_problem: None) -> None:
    page.goto(live_server.url + "/problemes/P1")
    countdown = page.locator("[data-countdown]").first
    # French first (the browser asks for nothing else): the deadline is two hours away
    assert re.fullmatch(r"Il reste (01 h 59 min \d\d|02 h 00 min 00) s", countdown.inner_text())
    page.get_by_role("button", name="Română").click()
    page.wait_for_url(re.compile(r"/problemes/P1$"))
    assert page.get_attribute("html", "lang") == "ro"
    assert page.get_by_role("heading", name="Literele").count() == 1
    countdown = page.locator("[data-countdown]").first
    local = page.locator("[data-local-time]").first
    local.wait_for(state="visible")
    assert local.inner_text().startswith("La dumneavoastră: ")
    assert re.fullmatch(r"Mai sunt (01 h 59 min \d\d|02 h 00 min 00) s", countdown.inner_text())
    # and back
    page.get_by_role("button", name="Français").click()
    page.wait_for_url(re.compile(r"/problemes/P1$"))
    assert page.get_attribute("html", "lang") == "fr"
