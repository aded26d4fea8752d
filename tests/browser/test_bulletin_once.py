"""Issue 22 §4: the bulletin form sends once on a double click (today two identical versions
and two receipts). pages.js disables the form of ``data-send-once`` on its first submit; the
server's own guard (an identical bulletin re-posted within ``BULLETIN_REPOST_SECONDS``) is
switched off here, so only the page can keep the second click from becoming a version.

The first post is held at the server until the second click has been made (a slow network),
so that the second click lands on the page still showing the form, as a player's does; the
second test shows the same double click without the guard stores two versions.

Game of tests/browser/test_duplicate_board.py: round 1 draws ZAEIBCD; ZA at H7 = 22.
"""

from __future__ import annotations

import threading
from typing import Any

import pytest
from flask import Flask, request
from playwright.sync_api import expect
from sqlmodel import Session, col, select

from tests.browser.test_duplicate_board import running_game  # noqa: F401 (fixture)
from tests.browser.test_player_flow import sign_in_by_link
from tests.waiting import wait_for
from webapp.db import get_engine
from webapp.models import DuplicateEntry, OutboxKind, OutboxMessage

pytestmark = [pytest.mark.browser, pytest.mark.db]

SUBMIT = ".bulletin-form button[type=submit]"


def _hold_first_post(app: Flask) -> tuple[threading.Event, threading.Event]:
    """``(arrived, release)``: the first bulletin post waits at the server for ``release``."""
    arrived, release = threading.Event(), threading.Event()

    @app.before_request
    def hold() -> None:
        if request.method == "POST" and request.path.endswith("/bulletin") \
                and not arrived.is_set():
            arrived.set()
            release.wait(30)

    return arrived, release


def _double_click(page: Any) -> bool:
    """Two clicks on « Envoyer », 50 ms apart, in the page (Playwright's own calls wait for
    the navigation the first click starts); whether the button was disabled at the second."""
    return bool(page.evaluate(f"""() => new Promise((done) => {{
        const b = document.querySelector({SUBMIT!r});
        b.click();
        setTimeout(() => {{ const off = b.disabled; b.click(); done(off); }}, 50);
    }})"""))


def _entries(app: Flask) -> list[str]:
    with app.app_context(), Session(get_engine(app)) as s:
        return [e.raw_text for e in s.exec(select(DuplicateEntry)
                                           .order_by(col(DuplicateEntry.version))).all()]


def test_a_double_click_sends_the_bulletin_once(
    app: Flask, live_server: Any, page: Any, running_game: None  # noqa: F811
) -> None:
    app.config["BULLETIN_REPOST_SECONDS"] = 0  # the page alone must hold the second click
    arrived, release = _hold_first_post(app)
    base = live_server.url
    sign_in_by_link(page, app, base, "ana@example.ro")
    page.goto(base + "/duplicate/D1")
    page.fill("#bulletin", "H7 ZA 22")
    # the double click, the second 50 ms after the first (the first post held at the server
    # meanwhile): whether the button was disabled when the second came
    assert _double_click(page) is True
    assert arrived.wait(30)
    release.set()
    expect(page.locator(".flash.success")).to_contain_text("Bulletin reçu.")
    assert _entries(app) == ["H7 ZA 22"]
    with app.app_context(), Session(get_engine(app)) as s:
        receipts = s.exec(select(OutboxMessage).where(
            OutboxMessage.kind == OutboxKind.RECEIPT)).all()
        assert len(receipts) == 1
    # back on the page the form works again: a corrected bulletin is a second version
    page.fill("#bulletin", "H8 ZA 22")
    page.click(SUBMIT)
    expect(page.locator(".flash.success")).to_contain_text("Bulletin reçu.")
    assert _entries(app) == ["H7 ZA 22", "H8 ZA 22"]
    assert page.js_errors == []


def test_without_the_guard_a_double_click_is_two_versions(
    app: Flask, live_server: Any, page: Any, running_game: None  # noqa: F811
) -> None:
    """The same double click on a form without ``data-send-once`` (and without the server's
    guard) stores two versions: what the test above prevents is real."""
    app.config["BULLETIN_REPOST_SECONDS"] = 0
    arrived, release = _hold_first_post(app)
    base = live_server.url
    sign_in_by_link(page, app, base, "ana@example.ro")
    page.goto(base + "/duplicate/D1")
    page.evaluate("document.querySelector('.bulletin-form').removeAttribute('data-send-once')")
    page.fill("#bulletin", "H7 ZA 22")
    assert _double_click(page) is False
    assert arrived.wait(30)
    release.set()
    expect(page.locator(".flash.success")).to_contain_text("Bulletin reçu.")
    # the flash the page shows is the second post's (not held): the first, released above,
    # may still be storing its version when it appears — wait for it, then pin both
    wait_for(lambda: len(_entries(app)) >= 2)
    assert _entries(app) == ["H7 ZA 22", "H7 ZA 22"]


def test_a_refused_submit_leaves_the_form_usable(
    app: Flask, live_server: Any, page: Any, running_game: None  # noqa: F811
) -> None:
    """duplicate.js refuses a bulletin whose letters the draw lacks (preventDefault): the
    button stays enabled, and the corrected bulletin goes."""
    base = live_server.url
    sign_in_by_link(page, app, base, "ana@example.ro")
    page.goto(base + "/duplicate/D1")
    page.fill("#bulletin", "H7 ZAX 42")
    page.click(SUBMIT)
    expect(page.locator("#bulletin-refused")).to_be_visible()
    expect(page.locator(SUBMIT)).to_be_enabled()
    page.fill("#bulletin", "H7 ZA 22")
    page.click(SUBMIT)
    expect(page.locator(".flash.success")).to_contain_text("Bulletin reçu.")
    assert _entries(app) == ["H7 ZA 22"]
    assert page.js_errors == []
