"""The browser tests' live server itself: a client that drops its connection must not leave a
served file open, and stopping the server waits for the requests still in flight.

Found by the issue-14 proof runs: a browser context closed while Chromium's conditional request
for ``/static/favicon.svg`` was being answered left that file to the garbage collector, and
pytest turned the « unclosed file » ResourceWarning into an error at the teardown of whichever
browser test came next. werkzeug's ``run_wsgi`` drains the socket in a ``finally`` before it
calls ``close()`` on the response (PEP 3333 asks for that call in every case); when the drain
raises ``ConnectionResetError``, ``close()`` is skipped and the file of ``send_file`` stays open.
"""

from __future__ import annotations

import gc
import socket
import struct
import threading
import warnings
from urllib.request import urlopen

import pytest
from flask import Flask

from tests.browser.conftest import LiveServer
from tests.waiting import wait_for


def _head_of(sock: socket.socket) -> bytes:
    """Read up to the end of the response headers (the server closes after them for a 304)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data


def _drop_after_a_304(server: LiveServer, etag: str) -> bytes:
    """A conditional request for the favicon, one stray byte after it so that the server's drain
    blocks reading, then a reset (SO_LINGER 0) once the 304 head has arrived."""
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=60)
    try:
        sock.sendall(
            b"GET /static/favicon.svg HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            + b"If-None-Match: " + etag.encode() + b"\r\n\r\nx"
        )
        head = _head_of(sock)
    finally:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()
    return head


@pytest.mark.db
def test_a_client_that_drops_after_a_304_leaves_no_file_open(app: Flask) -> None:
    server = LiveServer(app)
    server.start()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with urlopen(f"{server.url}/static/favicon.svg", timeout=60) as response:
                etag = response.headers["ETag"]
                assert response.status == 200
            assert etag
            head = _drop_after_a_304(server, etag)
            assert head.startswith(b"HTTP/1.1 304 "), head[:80]
            # the handler has seen the reset and finished
            wait_for(lambda: server.in_flight() == 0)
        finally:
            server.stop()
        gc.collect()
    leaks = [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
    assert leaks == []


@pytest.mark.db
def test_stopping_waits_for_a_request_in_flight(app: Flask) -> None:
    """A request still being answered when the test ends is finished before ``stop()`` returns,
    so it never runs into the next test (or into a dropped PostgreSQL schema)."""
    entered = threading.Event()
    release = threading.Event()
    finished: list[str] = []

    @app.get("/_slow")
    def slow() -> str:
        entered.set()
        release.wait(60)
        finished.append("done")
        return "ok"

    server = LiveServer(app)
    server.start()
    client = threading.Thread(target=lambda: urlopen(f"{server.url}/_slow", timeout=60).read())
    client.start()
    assert entered.wait(60)
    stopper = threading.Thread(target=server.stop)
    stopper.start()
    # stop() is blocked on the request: it has not returned while the view is held
    wait_for(lambda: server.stopping)
    assert stopper.is_alive() and finished == []
    release.set()
    stopper.join(60)
    client.join(60)
    assert not stopper.is_alive()
    assert finished == ["done"]
    assert server.in_flight() == 0
