"""Browser fixtures: the real app served on a free loopback port by werkzeug in a thread, and
Debian's Chromium driven by Playwright (no browser download).

The server uses the same database choice as the other tests: a SQLite file per test, or the
PostgreSQL of ``ARBITRE_TEST_DATABASE_URL`` in its own schema.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest
from flask import Flask
from werkzeug.serving import ThreadedWSGIServer

if TYPE_CHECKING:
    from _typeshed.wsgi import WSGIApplication

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


def _closing_first(app: WSGIApplication) -> WSGIApplication:
    """Read the whole response and call its ``close()`` before the server touches the socket.

    werkzeug's ``run_wsgi`` (3.1) drains the client's socket in a ``finally`` *before* it calls
    ``close()`` on the response; when a browser context closes mid-request, that drain raises
    ``ConnectionResetError`` and the file opened by ``send_file`` (a static file, even for a 304)
    is left to the garbage collector, which pytest reports as an error in some later test.
    The app serves no streamed response, so buffering changes nothing the pages can see.
    ``tests/browser/test_live_server.py`` reproduces the drop."""

    def wrapped(environ: Any, start_response: Any) -> list[bytes]:
        body = app(environ, start_response)
        try:
            return [b"".join(body)]
        finally:
            close = getattr(body, "close", None)
            if close is not None:
                close()

    return wrapped


class _Server(ThreadedWSGIServer):
    """werkzeug's threaded server, keeping the request threads it starts so that the live
    server can wait for the ones still in flight (werkzeug closes every connection after one
    response, so a request thread ends with its request)."""

    def __init__(self, app: WSGIApplication) -> None:
        super().__init__("127.0.0.1", 0, _closing_first(app))
        self.request_threads: list[threading.Thread] = []
        self._lock = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        thread = threading.Thread(target=self.process_request_thread,
                                  args=(request, client_address), daemon=True)
        with self._lock:
            self.request_threads = [t for t in self.request_threads if t.is_alive()]
            self.request_threads.append(thread)
        thread.start()

    def in_flight(self) -> list[threading.Thread]:
        with self._lock:
            return [t for t in self.request_threads if t.is_alive()]


class LiveServer:
    def __init__(self, app: Flask) -> None:
        self.app = app
        self.server = _Server(app)
        self.port = self.server.server_port
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.stopping = False

    def start(self) -> None:
        self.thread.start()

    def in_flight(self) -> int:
        return len(self.server.in_flight())

    def stop(self) -> None:
        """Stop accepting, then wait for the requests still being answered: one left running
        would touch the next test's database (or a dropped PostgreSQL schema)."""
        self.stopping = True
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=60)
        for request_thread in self.server.in_flight():
            request_thread.join(timeout=60)
            if request_thread.is_alive():
                raise AssertionError("a request of the live server still runs after 60 s")


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
