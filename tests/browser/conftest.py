"""Browser fixtures: the real app served on a free loopback port by werkzeug in a thread, and
Debian's Chromium driven by Playwright (no browser download).

The server uses the same database choice as the other tests: a SQLite file per test, or the
PostgreSQL of ``ARBITRE_TEST_DATABASE_URL`` in its own schema.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from werkzeug.serving import BaseWSGIServer, make_server

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if shutil.which(CHROMIUM) is None:
        skip = pytest.mark.skip(reason="Chromium absent: run scripts/system-deps.sh as root")
        for item in items:
            if item.get_closest_marker("browser"):
                item.add_marker(skip)


class LiveServer:
    def __init__(self, app: Flask) -> None:
        self.app = app
        self.server: BaseWSGIServer = make_server("127.0.0.1", 0, app, threaded=True)
        self.port = self.server.server_port
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=10)


@pytest.fixture
def live_server(app: Flask) -> Iterator[LiveServer]:
    server = LiveServer(app)
    server.start()
    try:
        yield server
    finally:
        server.stop()


# Module scope: Playwright's sync API keeps an event loop running in this thread while it is
# open, and later tests (the mail pipeline) call asyncio.run() on the same thread.
@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(locale="fr-FR", timezone_id="America/Montreal",
                                  viewport={"width": 1280, "height": 1000})
    pg = context.new_page()
    # generous bounds for a busy machine: every wait is on a condition, never on time
    pg.set_default_timeout(60_000)
    pg.set_default_navigation_timeout(60_000)
    from playwright.sync_api import expect

    expect.set_options(timeout=60_000)
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.js_errors = errors
    try:
        yield pg
    finally:
        context.close()
    assert errors == [], f"JavaScript errors: {errors}"
