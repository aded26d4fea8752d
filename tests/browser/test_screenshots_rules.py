"""The screenshots of the rules pages in docs/WEB.md: the index (one-sheet problems, then
the round games) and the Duplicate Tactique page in Romanian (issue 13.1, 13.4). Skipped
unless asked, as tests/browser/test_screenshots.py: ``ARBITRE_UPDATE_SCREENSHOTS=1``."""

from __future__ import annotations

from typing import Any

from playwright.sync_api import expect

from tests.browser.test_screenshots import new_page, pytestmark, shoot  # noqa: F401


def test_screenshots_of_the_rules_pages(live_server: Any, browser: Any) -> None:
    base = live_server.url
    page = new_page(browser, phone=False)
    page.goto(base + "/regles")
    expect(page.locator("#regles-tours")).to_be_visible()
    shoot(page, "regles-index-tours", at="#regles-tours")
    page.context.close()
    page = new_page(browser, phone=False, lang="ro")
    page.goto(base + "/regles/duplicate_tactique")
    expect(page.locator("html")).to_have_attribute("lang", "ro")
    expect(page.locator("h1")).to_have_text("Duplicat Tactic")
    shoot(page, "regles-tactique-ro")
    page.context.close()
