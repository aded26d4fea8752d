"""A player's whole journey in Chromium against the real server: sign in by the e-mailed
link, build the feuille on the interactive board (its scores computed in the page), send it,
read the receipt; then, after the deadline (the schedule's own ``run_due`` at a later
instant), read the provisional ranking and the report replayed move by move.

Screenshots go to /tmp/arbitre-*.png for a human look.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from playwright.sync_api import expect
from sqlmodel import Session, select

from webapp.db import get_engine
from webapp.models import OutboxMessage, Ranking, Submission
from webapp.services import clock, lifecycle, problems
from webapp.services.players import create_player

pytestmark = [pytest.mark.browser, pytest.mark.db]

EXPECTED_SHEET = "Problème: P1\n1 ACEFHIR H8 FICHERA 82 82\n2 SUW 15F WUS 84 166\n"
# printf 'Problème: P1\r\n1 ACEFHIR H8 FICHERA 82 82\r\n2 SUW 15F WUS 84 166\r\n' | sha256sum
SENT_SHA256 = "609311a5da51b04788c2d1592470748ed8d1b4d3dda939c9c4a0e4208721e01d"


@pytest.fixture
def open_problem(app: Flask) -> dict[str, Any]:
    from puzzles.generate import new_problem

    with app.app_context(), Session(get_engine(app), expire_on_commit=False) as s:
        comp = problems.create_competition(session=s, slug="cn2026",
                                           name="Championnat par correspondance 2026")
        ana = create_player(session=s, name="Ana Popescu", email="ana@example.ro",
                            club="CS București")
        problems.register(session=s, competition=comp, player=ana)
        now = clock.now()
        prob = problems.create_problem(
            session=s, competition=comp, puzzle=new_problem("integral", seed=1),
            publish_at=now - timedelta(hours=1), deadline_at=now + timedelta(hours=2),
            code="P1", status="open",
        )
        s.commit()
        return {"problem_id": prob.id, "deadline": prob.deadline_at, "player_id": ana.id}


def sign_in_by_link(page: Any, app: Flask, base: str, email: str) -> None:
    page.goto(base + "/connexion")
    page.fill("#email", email)
    page.click("button[type=submit]")
    # wait for the answer page (content() read mid-navigation is empty on a busy machine)
    expect(page.locator("body")).to_contain_text("un lien de connexion vient de lui être envoyé")
    with app.app_context(), Session(get_engine(app)) as s:
        mail = s.exec(select(OutboxMessage).where(OutboxMessage.kind == "login")).one()
    link = re.search(r"http://[^/\s]+(/connexion/lien/[A-Za-z0-9_-]+)", mail.body_text).group(1)
    page.goto(base + link)
    page.click("button[type=submit]")


def place(page: Any, square: int, word: str, *, vertical: bool = False) -> str:
    page.click(f'.ib-sq[data-sq="{square}"]')
    page.check('input[name=ib-dir][value="v"]' if vertical else 'input[name=ib-dir][value="h"]')
    page.fill("#ib-word", word)
    preview: str = page.inner_text("#ib-preview")
    page.click("#ib-add")
    return preview


def test_submit_on_the_board_then_see_the_ranking(
    app: Flask, live_server: Any, page: Any, open_problem: dict[str, Any]
) -> None:
    base = live_server.url
    sign_in_by_link(page, app, base, "ana@example.ro")
    page.goto(base + "/problemes/P1")
    page.click("text=Envoyer ma feuille")
    assert page.url.endswith("/joueur/problemes/P1/envoyer")
    page.wait_for_selector("#interactive-board:not([hidden])")

    # move 1: FICHERA across from H8 (centre square 112)
    preview = place(page, 112, "FICHERA")
    assert "H8 FICHERA : 32" in preview
    assert "Prime de 7 lettres : 50" in preview
    assert "Ce coup : 82 points — lettres ACEFHIR" in preview
    # move 2: WUS down from F15 (square 89), extending FICHERA to FICHERAS — chosen with the
    # keyboard: focus F14, arrow right, Enter
    page.focus('.ib-sq[data-sq="88"]')
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Enter")
    assert page.inner_text("#ib-ref") == "F15"
    page.check('input[name=ib-dir][value="v"]')
    assert page.inner_text("#ib-ref") == "15F"
    page.fill("#ib-word", "WUS")
    preview = page.inner_text("#ib-preview")
    assert "15F WUS : 36" in preview and "H8 FICHERAS : 48" in preview
    assert "Ce coup : 84 points" in preview
    board_text = page.inner_text("#interactive-board").lower()
    assert "valide" not in board_text and "invalide" not in board_text
    page.click("#ib-add")
    page.screenshot(path="/tmp/arbitre-board.png", full_page=True)

    assert page.input_value("#feuille") == EXPECTED_SHEET
    rows = page.locator("#ib-moves tr")
    assert rows.count() == 2
    assert rows.nth(1).inner_text().split() == ["2", "SUW", "15F", "WUS", "84", "166"]

    page.click("text=Envoyer la feuille")
    page.wait_for_url(re.compile(r".*/joueur/feuilles/\d+$"))
    with app.app_context(), Session(get_engine(app)) as s:
        sub = s.exec(select(Submission)).one()
    # an HTML form sends a text area's line breaks as CRLF; the raw text is kept as sent
    assert sub.raw_text == EXPECTED_SHEET.replace("\n", "\r\n")
    assert sub.parse_errors == []
    receipt = page.inner_text("main")
    assert page.inner_text("#sheet-number") == str(sub.version) == "1"
    assert page.inner_text("#sha256") == sub.sha256 == SENT_SHA256
    assert "Europe/Bucharest" in receipt and "UTC" in receipt
    assert "FICHERA" in receipt and "dans le délai" in receipt
    page.screenshot(path="/tmp/arbitre-receipt.png", full_page=True)

    # the deadline passes: the schedule closes, verifies and publishes the provisional ranking
    with app.app_context():
        done = lifecycle.run_due(now=open_problem["deadline"] + timedelta(minutes=1))
    assert done == ["close:P1", "verify:P1", "provisional:P1"]
    with app.app_context(), Session(get_engine(app)) as s:
        assert s.exec(select(Ranking)).one().kind == "provisional"

    page.goto(base + "/problemes/P1")
    page.click("text=Voir le classement")
    assert page.inner_text("h1") == "Classement provisoire"
    row = page.locator("#classement tbody tr")
    assert row.count() == 1
    cells = row.nth(0).locator("td").all_inner_texts()
    assert cells[:4] == ["1", "Ana Popescu", "CS București", "166"]
    assert "me" in (row.nth(0).get_attribute("class") or "")
    page.screenshot(path="/tmp/arbitre-ranking.png", full_page=True)

    # the report, replayed move by move with the stepper
    page.click("#classement >> text=voir")
    assert page.inner_text("#final-score") == "166"
    assert page.inner_text(".replay-pos") == "Coup 1 / 2"
    assert page.locator(".replay-step.current h3").inner_text().startswith("Coup 1 : FICHERA")
    page.click(".replay-next")
    # move 2's grid is fetched on demand (the page draws one move at a time)
    expect(page.locator(".replay-pos")).to_have_text("Coup 2 / 2", timeout=30_000)
    assert page.locator(".replay-step.current h3").inner_text().startswith("Coup 2 : WUS")
    current = page.locator(".replay-step.current")
    assert current.locator("g.tile").count() == 10
    assert current.locator("g.tile.new").count() == 3
    page.screenshot(path="/tmp/arbitre-report.png", full_page=True)
    # the slider goes back to move 1; the arrow link is disabled there
    page.locator(".replay-slider").fill("1")
    expect(page.locator(".replay-pos")).to_have_text("Coup 1 / 2", timeout=30_000)
    assert page.locator(".replay-step.current g.tile").count() == 7
    assert page.get_attribute(".replay-prev", "aria-disabled") == "true"


def test_local_time_and_countdown_are_filled_in_by_the_browser(
    live_server: Any, page: Any, open_problem: dict[str, Any]
) -> None:
    page.goto(live_server.url + "/problemes/P1")
    local = page.locator("[data-local-time]").first
    local.wait_for(state="visible")
    # the context runs in Montréal time: the page says so, with the zone
    assert local.inner_text().startswith("Chez vous : ")
    assert "America/" in local.inner_text()
    # the deadline is two hours away, ticking by the second
    countdown = page.locator("[data-countdown]").first.inner_text()
    assert re.fullmatch(r"Il reste (01 h 59 min \d\d|02 h 00 min 00) s", countdown), countdown


def test_groups_on_a_phone(app: Flask, live_server: Any, browser: Any) -> None:
    """Anticipation on a phone-sized screen: the board fits, the group picked is written
    as ``G<n>`` after the move number, and the server's parser reads it back as the group."""
    from puzzles.generate import new_problem
    from scoring.tiles import french

    with app.app_context(), Session(get_engine(app), expire_on_commit=False) as s:
        comp = problems.create_competition(session=s, slug="ant", name="Anticipation 2026")
        ana = create_player(session=s, name="Ana Popescu", email="ana@example.ro")
        problems.register(session=s, competition=comp, player=ana)
        now = clock.now()
        puzzle = new_problem("anticipation", seed=7)
        problems.create_problem(
            session=s, competition=comp, puzzle=puzzle, publish_at=now - timedelta(hours=1),
            deadline_at=now + timedelta(hours=2), code="A1", status="open",
        )
        s.commit()
    group3 = puzzle.groups[2]
    word = group3[:2].replace("?", "E")
    expected_score = 2 * sum(french().points[c] for c in word)  # H8 doubles the word

    context = browser.new_context(locale="fr-FR", viewport={"width": 390, "height": 844},
                                  device_scale_factor=2, is_mobile=True, has_touch=True)
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        sign_in_by_link(page, app, live_server.url, "ana@example.ro")
        page.goto(live_server.url + "/joueur/problemes/A1/envoyer")
        page.wait_for_selector("#interactive-board:not([hidden])")
        # the board's box fits the screen; the grid, 34 px squares to tap, scrolls inside it
        # (tests/browser/test_phones.py checks every phone page)
        box = page.locator("#ib-grid-wrap").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390
        square = page.locator('.ib-sq[data-sq="112"]').bounding_box()
        assert square is not None and square["width"] >= 32
        page.select_option("#ib-group", "3")
        preview = place(page, 112, word)
        assert f"Ce coup : {expected_score} points" in preview
        line = page.input_value("#feuille").splitlines()[-1]
        assert line == f"1 G3 {''.join(sorted(word))} H8 {word} {expected_score} {expected_score}"
        page.screenshot(path="/tmp/arbitre-phone.png", full_page=True)
        page.click("text=Envoyer la feuille")
        page.wait_for_url(re.compile(r".*/joueur/feuilles/\d+$"))
    finally:
        context.close()
    assert errors == []
    with app.app_context(), Session(get_engine(app)) as s:
        sub = s.exec(select(Submission)).one()
    assert sub.parse_errors == []
    assert sub.feuille["moves"][0]["group"] == 3
    assert sub.feuille["moves"][0]["word"] == word
