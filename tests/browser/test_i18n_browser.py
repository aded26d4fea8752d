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

from tests.browser.test_duplicate_board import running_game  # noqa: F401 (a fixture)
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


def test_a_players_switch_changes_his_pages_and_his_mails(
    app: Flask, live_server: Any, page: Any, running_game: None,  # noqa: F811
) -> None:
    """Issue 22 §5: next to the switch, a signed-in player reads that it also sets his
    mails' language; after « Română » the Duplicate page is Romanian (state, rhythm in its
    plural form) and the receipt of the bulletin he then sends is a Romanian mail."""
    from playwright.sync_api import expect
    from sqlmodel import col, select

    from tests.browser.test_player_flow import sign_in_by_link
    from webapp.models import OutboxMessage, Player

    base = live_server.url
    sign_in_by_link(page, app, base, "ana@example.ro")
    page.goto(base + "/duplicate/D1")
    note = page.locator(".lang-switch #lang-note")
    expect(note).to_have_text("(aussi la langue de vos courriels)")
    expect(note).to_be_visible()
    expect(page.locator("main")).to_contain_text("Partie en cours.")
    page.get_by_role("button", name="Română").click()
    page.wait_for_url(re.compile(r"/duplicate/D1$"))
    assert page.get_attribute("html", "lang") == "ro"
    expect(note).to_have_text("(și limba e-mailurilor dumneavoastră)")
    expect(page.locator("main")).to_contain_text("Partida în desfășurare.")
    expect(page.locator("main")).to_contain_text("o tură la fiecare 24 de ore")
    with app.app_context(), Session(get_engine(app)) as s:
        ana = s.exec(select(Player)).one()
        assert ana.locale == "ro"
    page.fill("#bulletin", "H7 ZA 22")
    page.click(".bulletin-form button[type=submit]")
    expect(page.locator(".flash.success")).to_contain_text("Buletin primit.")
    with app.app_context(), Session(get_engine(app)) as s:
        receipt = s.exec(select(OutboxMessage).where(OutboxMessage.kind == "receipt")
                         .order_by(col(OutboxMessage.id).desc())).first()
    assert receipt is not None
    assert receipt.subject == "Buletin primit — Duplicate du lundi (D1), runda 1"
    assert re.search(r"prin formularul online, la \d\d/\d\d/\d{4}, ora \d\d:\d\d:\d\d \(",
                     receipt.body_text)
    assert "Referința trimiterii: nr. " in receipt.body_text
    assert page.js_errors == []
