"""A sign-in link is used once, even by several browsers at the same instant (issue 24 §5).

Six browsers posting one fresh link at once opened 2, 4, 1 and 5 sessions: the link was read
(« not used yet »), then marked used, and every request that had read it before the first
mark opened a session. Now the mark is one conditional ``UPDATE … WHERE used_at IS NULL``
whose row count decides: exactly one poster gets the session, every other one the 410 page.

Real concurrency: the app served by werkzeug's threaded server on loopback (the browser
tests' live server), ``POSTERS`` client threads, each with its own connection already open,
released together by a barrier; on SQLite and on PostgreSQL (``-m db`` with
``ARBITRE_TEST_DATABASE_URL``). Several fresh links per test, each must open one session.
"""

from __future__ import annotations

import http.client
import threading
from typing import Any
from urllib.parse import urlsplit

import pytest
from flask import Flask
from sqlmodel import Session, select

from tests.browser.conftest import LiveServer
from webapp.auth import create_arbitre, issue_arbitre_link, issue_login_link
from webapp.db import get_engine
from webapp.models import AuditLog, Player

pytestmark = pytest.mark.db

POSTERS = 6
LINKS = 5


def _signed_in(app: Flask, cookies: list[str]) -> bool:
    """Whether a ``Set-Cookie`` header gives this browser a signed-in session (a player's or
    an arbitre's id in the signed cookie; a 410 page may set a session holding only its CSRF
    token)."""
    serializer = app.session_interface.get_signing_serializer(app)  # type: ignore[attr-defined]
    for cookie in cookies:
        name, _, rest = cookie.partition("=")
        if name != app.config["SESSION_COOKIE_NAME"]:
            continue
        data = serializer.loads(rest.split(";", 1)[0])
        if "player_id" in data or "arbitre_id" in data:
            return True
    return False


def _post_at_once(server: LiveServer, path: str) -> list[tuple[int, str, bool]]:
    """``POSTERS`` POSTs of ``path`` released at the same instant; for each, the status, the
    Location header and whether the answer signed that browser in."""
    barrier = threading.Barrier(POSTERS)
    answers: list[tuple[int, str, bool]] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def post() -> None:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
            conn.connect()
            barrier.wait(timeout=120)
            conn.request("POST", path, body=b"",
                         headers={"Content-Type": "application/x-www-form-urlencoded"})
            resp = conn.getresponse()
            resp.read()
            cookies = resp.msg.get_all("Set-Cookie") or []
            opened = _signed_in(server.app, cookies)
            with lock:
                answers.append((resp.status, resp.getheader("Location") or "", opened))
            conn.close()
        except BaseException as exc:  # reported by the test thread below
            with lock:
                errors.append(exc)

    threads = [threading.Thread(target=post) for _ in range(POSTERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=180)
    assert not any(t.is_alive() for t in threads), "a poster still waits after 180 s"
    assert errors == []
    assert len(answers) == POSTERS
    return answers


def _audit_count(app: Flask, action: str) -> int:
    with Session(get_engine(app)) as s:
        return len(s.exec(select(AuditLog.id).where(AuditLog.action == action)).all())


def _check_one_session(answers: list[tuple[int, str, bool]], home: str) -> None:
    statuses = sorted(status for status, _, _ in answers)
    assert statuses == [302] + [410] * (POSTERS - 1), answers
    winners = [a for a in answers if a[0] == 302]
    assert urlsplit(winners[0][1]).path == home, answers
    assert [opened for _, _, opened in answers].count(True) == 1, answers


def test_a_player_link_posted_at_once_opens_one_session(app: Flask,
                                                        live_server: LiveServer) -> None:
    with app.test_request_context(), Session(get_engine(app), expire_on_commit=False) as s:
        player = Player(name="Ana Pop", email="ana@example.ro", token="tok-ana-race")
        s.add(player)
        s.commit()
        tokens = [issue_login_link(session=s, player=player) for _ in range(LINKS)]
        s.commit()
    for n, token in enumerate(tokens, start=1):
        answers = _post_at_once(live_server, f"/connexion/lien/{token}")
        _check_one_session(answers, "/joueur/")
        assert _audit_count(app, "player.login_link") == n
    # and afterwards the link stays refused
    answers = _post_at_once(live_server, f"/connexion/lien/{tokens[0]}")
    assert [status for status, _, _ in answers] == [410] * POSTERS


def test_an_arbitre_link_posted_at_once_opens_one_session(app: Flask,
                                                          live_server: LiveServer) -> None:
    with app.test_request_context(), Session(get_engine(app), expire_on_commit=False) as s:
        arbitre = create_arbitre(session=s, username="juge", password="correct horse",
                                 email="juge@example.org")
        s.commit()
        links: list[Any] = [issue_arbitre_link(session=s, arbitre=arbitre, mail=False)
                            for _ in range(LINKS)]
        s.commit()
    for n, link in enumerate(links, start=1):
        answers = _post_at_once(live_server, urlsplit(link).path)
        _check_one_session(answers, "/console/")
        assert _audit_count(app, "arbitre.login_link") == n
