"""Duplicate by correspondence, end to end with the frozen clock: a game created, its rounds
drawn, closed, corrected and published by ``lifecycle.run_due``, bulletins by web and by
e-mail, a bulletin one second late, a server down across a deadline, the pages.

The game: French tiles, word list {ZA, ZAS}, two rounds, a round every 24 hours, the bag
given whole so that round 1 draws ZAEIBCD and round 2 the reliquat EIBCD plus SE.

- Round 1 (empty grid, first word horizontal over H8, the double-word star): ZA at H7
  (Z on H7, A on H8) = (10 + 1) × 2 = 22; ZA at H8 (Z on the star, A on H9) = (10 + 1) × 2 =
  22 too. Equal tops: the smaller reference wins, H7 (column 7 before column 8).
- Round 2: the S hooks ZA into ZAS at H7: Z 10 + A 1 + S 1 on H9 (no premium) = 12, the only
  move.
- Three players: « La prime de solo est de 10 points si 16 joueurs ou plus ; en dessous,
  n − 6 » (RULES §4.8) gives max(0, 3 − 6) = 0: no solo.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, col, select

from puzzles.duplicate import DuplicateSettings
from scoring.tiles import tileset
from tests.web.test_pages import login_arbitre, login_player
from tests.web.za_game import (
    FIRST,
    START,
    full_bag,  # noqa: F401 (imported from here by the browser tests)
    za_game,
)
from webapp.models import (
    AuditLog,
    Channel,
    Competition,
    DuplicateEntry,
    DuplicateGame,
    DuplicateRound,
    DuplicateStatus,
    OutboxMessage,
    Player,
    RoundStatus,
)
from webapp.services import clock, duplicate, lifecycle

pytestmark = pytest.mark.db

DAY = timedelta(days=1)
SECOND = timedelta(seconds=1)


@pytest.fixture
def game(
    app: Flask, db_session: Session, competition: Competition, tmp_path: Path
) -> DuplicateGame:
    return za_game(app, db_session, competition, tmp_path, title="Duplicate <b>du lundi</b>",
                   code="D1", rhythm={"kind": "hours", "hours": 24},
                   timezone="Europe/Bucharest", actor="juge")


def _outbox(session: Session, kind: str) -> list[OutboxMessage]:
    session.expire_all()
    return list(session.exec(
        select(OutboxMessage).where(OutboxMessage.kind == kind).order_by(col(OutboxMessage.id))
    ).all())


def draw_cell(notation: str, values: list[int]) -> str:
    """The pattern of a history row's « Tirage » cell: the draw's notation as valued tiles
    (issue 22 §2), ``values`` the letters' values in order (the signs have none)."""
    worth = iter(values)
    tiles = "".join(
        f'<span class="draw-sign" aria-hidden="true">{re.escape(ch)}</span>' if ch in "+-/"
        else f'<span class="letter" aria-hidden="true">{ch}<sub>{next(worth)}</sub></span>'
        for ch in notation)
    assert next(worth, None) is None
    return (f'<td class="draw-cell"[^>]*><span class="letters compact draw-tiles" role="img" '
            f'aria-label="{re.escape(notation)}" title="[^"]+">{tiles}</span></td>')


def _round(session: Session, number: int) -> DuplicateRound:
    session.expire_all()
    return session.exec(select(DuplicateRound).where(DuplicateRound.number == number)).one()


def console_post(client: FlaskClient, url: str, data: dict[str, str], **kw: Any) -> Any:
    """An « Autre top » / « Corriger à nouveau » form confirmed: the preview page first
    (nothing stored), then its « Confirmer » with the preview's digest; a refusal (French
    flash, redirect) is returned as is."""
    preview = client.post(url, data=data)
    m = re.search(r'name="digest" value="([0-9a-f]{64})"', preview.get_data(as_text=True))
    if preview.status_code == 200 and m:
        return client.post(url, data={**data, "digest": m.group(1)}, **kw)
    return client.post(url, data=data, **kw)


def _mail(app: Flask, player: Player, subject: str, body: str) -> tuple[int, str]:
    from mailer.pipeline import receive
    from tests.mail.helpers import make_mail

    raw = make_mail(frm=player.email, to=f"feuilles+{player.token}@arbitre.test",
                    subject=subject, body=body)
    return receive(app, raw, channel="smtp", envelope_from=player.email,
                   envelope_to=[f"feuilles+{player.token}@arbitre.test"])


def test_seeded_bag_is_reproducible(ctx: Flask, db_session: Session,
                                    competition: Competition) -> None:
    settings = DuplicateSettings(lang="ro")
    a = duplicate.create_game(session=db_session, competition=competition, title="R",
                              code="R1", settings=settings, rhythm={"kind": "hours", "hours": 48},
                              starts_at=START, seed=42)
    b = duplicate.create_game(session=db_session, competition=competition, title="R",
                              code="R2", settings=settings, rhythm={"kind": "hours", "hours": 48},
                              starts_at=START, seed=42)
    assert a.bag_order == b.bag_order and a.seed == 42
    assert len(a.bag_order) == 100  # the Romanian set: 100 tiles
    assert Counter(a.bag_order) == tileset("ro").bag()
    with pytest.raises(duplicate.DuplicateError, match="Le code « R1 » est déjà pris."):
        duplicate.create_game(session=db_session, competition=competition, title="R",
                              code="R1", settings=settings,
                              rhythm={"kind": "hours", "hours": 48}, starts_at=START)
    with pytest.raises(duplicate.DuplicateError, match="au moins un jour de la semaine"):
        duplicate.create_game(session=db_session, competition=competition, title="R",
                              settings=settings, rhythm={"kind": "weekdays", "days": []},
                              starts_at=START)


def test_weekday_deadlines() -> None:
    rhythm = duplicate.check_rhythm({"kind": "weekdays", "days": ["0", "3"], "time": "20:00"},
                                    "Europe/Bucharest")
    assert rhythm == {"kind": "weekdays", "days": [0, 3], "time": "20:00"}
    # Sunday 10/05/2026 13:00 in Bucharest: next Monday 11/05 20:00 (UTC+3) = 17:00 UTC
    assert duplicate.deadline_after(rhythm, START, "Europe/Bucharest") == datetime(
        2026, 5, 11, 17, 0, tzinfo=UTC)
    # Monday 19:30 local: less than an hour before Monday's 20:00, so Thursday 14/05 20:00
    monday = datetime(2026, 5, 11, 16, 30, tzinfo=UTC)
    assert duplicate.deadline_after(rhythm, monday, "Europe/Bucharest") == datetime(
        2026, 5, 14, 17, 0, tzinfo=UTC)


def test_a_whole_game_by_web_and_mail(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, game: DuplicateGame,
    make_player: Callable[..., Player], frozen_clock: Any,
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    cid = make_player("Cid", "cid@example.fr")

    # before the start: nothing to do; a bulletin is refused in French
    frozen_clock.move_to(START - SECOND)
    assert lifecycle.run_due(now=clock.now()) == []
    with pytest.raises(duplicate.DuplicateError, match="n'a pas encore commencé"):
        duplicate.submit_bulletin(session=db_session, player=ana, game=game, text="H7 ZA 22",
                                  channel=Channel.WEB, received_at=clock.now())
    db_session.rollback()

    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:D1:1"]
    assert lifecycle.run_due(now=clock.now()) == []  # idempotent
    # the round's reminder (DUPLICATE_REMINDER_HOURS, 12, before its close), the deadline
    assert lifecycle.upcoming_instants(now=clock.now()) == [START + DAY / 2, START + DAY]
    r1 = _round(db_session, 1)
    assert (r1.draw["rack"], r1.opens_at, r1.closes_at) == (FIRST, START, START + DAY)
    assert ((r1.top or {})["ref"], (r1.top or {})["word"], (r1.top or {})["score"]) == (
        "H7", "ZA", 22)
    assert [(t["ref"], t["word"], t["score"]) for t in (r1.top or {})["ties"]] == [
        ("H8", "ZA", 22)]
    draws = _outbox(db_session, duplicate.KIND_DRAW)
    assert [m.to_addr for m in draws] == ["ana@example.ro", "bob@example.fr", "cid@example.fr"]
    assert draws[0].subject == "Duplicate <b>du lundi</b> (D1) — tour 1 : ZAEIBCD"
    assert "avant le 11/05/2026 à 13:00 (Europe/Bucharest, UTC+03:00)" in draws[0].body_text
    assert "http://arbitre.test/duplicate/D1" in draws[0].body_text

    # Ana by the web form (first a typo, then the right score: the last one counts)
    login_player(client, ana)
    resp = client.post("/duplicate/D1/bulletin", data={"bulletin": "H7 ZA 20"})
    assert resp.status_code == 302
    frozen_clock.move_to(START + timedelta(hours=2))
    client.post("/duplicate/D1/bulletin", data={"bulletin": "H7 ZA 22"})
    page = client.get("/duplicate/D1").get_data(as_text=True)
    assert "Duplicate &lt;b&gt;du lundi&lt;/b&gt;" in page and "<b>du lundi" not in page
    assert 'data-countdown="2026-05-11T10:00:00Z"' in page
    assert "version 2" in page and "H7 ZA 22" in page
    listing = client.get("/duplicate").get_data(as_text=True)
    assert listing.count('class="duplicate-game"') == 1
    assert "Duplicate &lt;b&gt;du lundi&lt;/b&gt;" in listing
    assert 'data-countdown="2026-05-11T10:00:00Z"' in listing

    # Bob by e-mail, subject naming the game; a signature under the line is ignored
    assert _mail(app, bob, "Re: D1", "H8 ZA 22\n\n-- \nBob")[1] == "processed"
    receipts = [m for m in _outbox(db_session, "receipt") if m.to_addr == "bob@example.fr"]
    assert len(receipts) == 1
    assert receipts[0].subject == "Bulletin reçu — Duplicate <b>du lundi</b> (D1), tour 1"
    assert "Bulletin lu : H8 ZA 22" in receipts[0].body_text
    # Cid sends nothing in round 1

    # the server is down across the deadline and comes back five hours later: the round is
    # closed, corrected, published and round 2 drawn (opening now, for a whole round)
    back = START + DAY + timedelta(hours=5)
    frozen_clock.move_to(back)
    assert lifecycle.run_due(now=clock.now()) == [
        "close:D1:1", "correct:D1:1", "publish:D1:1", "draw:D1:2"]
    assert lifecycle.run_due(now=clock.now()) == []
    r1 = _round(db_session, 1)
    assert r1.status == RoundStatus.PUBLISHED and r1.closed_at == START + DAY
    assert [(x["name"], x["score"], x["kind"]) for x in r1.results] == [
        ("Ana", 22, "valide"), ("Bob", 22, "valide"), ("Cid", 0, "absent")]
    r2 = _round(db_session, 2)
    assert (r2.draw["reliquat"], r2.draw["new"], r2.draw["rack"]) == ("EIBCD", "SE", "EIBCDSE")
    assert (r2.opens_at, r2.closes_at) == (back, back + DAY)
    assert ((r2.top or {})["ref"], (r2.top or {})["word"], (r2.top or {})["score"]) == (
        "H7", "ZAS", 12)
    [res_ana] = [m for m in _outbox(db_session, duplicate.KIND_RESULTS)
                 if m.to_addr == "ana@example.ro"]
    assert "Top : H7 ZA — 22 points." in res_ana.body_text
    assert "Votre score : 22" in res_ana.body_text
    # Ana and Bob share the first place (issue 22 §2: « 1er sur 3 » for both before)
    assert "Votre total : 22 — 1er ex æquo sur 3." in res_ana.body_text

    # round 2: Ana on time by the web, Cid an unreadable mail, Bob one second late
    frozen_clock.move_to(back + timedelta(hours=1))
    client.post("/duplicate/D1/bulletin", data={"bulletin": "H7 ZAS 12"})
    assert _mail(app, cid, "D1", "bonjour 12 13")[1] == "processed"
    frozen_clock.move_to(back + DAY + SECOND)
    assert _mail(app, bob, "D1", "H7 ZAS 12")[1] == "processed"
    db_session.expire_all()
    late = db_session.exec(select(DuplicateEntry).where(
        DuplicateEntry.player_id == bob.id, DuplicateEntry.round_id == r2.id)).one()
    assert late.late and late.received_at == back + DAY + SECOND
    late_receipt = _outbox(db_session, "receipt")[-1]
    assert late_receipt.subject.endswith("tour 2 (HORS DÉLAI)")

    assert lifecycle.run_due(now=clock.now()) == [
        "close:D1:2", "correct:D1:2", "publish:D1:2", "finish:D1:2"]
    assert lifecycle.run_due(now=clock.now()) == []
    r2 = _round(db_session, 2)
    assert [(x["name"], x["score"], x["kind"]) for x in r2.results] == [
        ("Ana", 12, "valide"), ("Bob", 0, "absent"), ("Cid", 0, "nul")]
    db_session.expire_all()
    g = db_session.get(DuplicateGame, game.id)
    assert g is not None and g.status == DuplicateStatus.FINISHED

    # ranking: Ana 22 + 12 = 34 = the tops (100 %), Bob 22 (22 / 34 = 64.71 %), Cid 0
    rows = duplicate.standings(db_session, g)
    assert [(r["rank"], r["name"], r["total"], r["percent"]) for r in rows] == [
        (1, "Ana", 34, 100.0), (2, "Bob", 22, 64.71), (3, "Cid", 0, 0.0)]
    finals = _outbox(db_session, duplicate.KIND_FINAL)
    assert len(finals) == 3
    bob_final = next(m for m in finals if m.to_addr == "bob@example.fr")
    assert "Votre total : 22 (64,71 % des tops) — 2e." in bob_final.body_text
    assert "après 2 tours (total des tops : 34)" in bob_final.body_text

    page = client.get("/duplicate/D1").get_data(as_text=True)
    assert page.count('class="round-row"') == 2
    # (the cells carry their column's name for phones: data-label="…")
    # the draw EIBCD+SE as valued tiles: E 1, I 1, B 3, C 3, D 2, then S 1, E 1
    assert re.search(r"<td[^>]*><a [^>]*>2</a></td>" + draw_cell("EIBCD+SE", [1, 1, 3, 3, 2, 1, 1])
                     + r"<td class=\"mono\"[^>]*>ZAS</td><td class=\"mono\"[^>]*>H7</td>"
                     r"<td[^>]*>12</td><td[^>]*>34</td>", page)
    assert "<svg" in page and "Grille après le tour 2" in page
    # Ana's own results, round by round, with the correction's reasons
    assert page.count('class="my-result"') == 2
    # the grid after round 1 only: ZA, not yet the S of round 2
    after1 = client.get("/duplicate/D1?tour=1").get_data(as_text=True)
    assert "Grille après le tour 1" in after1
    assert after1.count('class="tile') == page.count('class="tile') - 1

    # the console shows every bulletin escaped, the late one flagged
    login_arbitre(client, db_session)
    console = client.get("/console/duplicate/D1").get_data(as_text=True)
    assert "hors délai" in console and "bonjour 12 13" in console
    assert "Duplicate &lt;b&gt;du lundi&lt;/b&gt;" in console


def test_console_override_and_recorrection(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, game: DuplicateGame,
    make_player: Callable[..., Player], frozen_clock: Any,
) -> None:
    ana = make_player("Ana", "ana@example.ro")
    game.review_minutes = 60
    db_session.add(game)
    db_session.commit()
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:D1:1"]
    duplicate.submit_bulletin(session=db_session, player=ana, game=game, text="H8 ZA 22",
                              channel=Channel.WEB, received_at=clock.now())
    db_session.commit()
    login_arbitre(client, db_session)

    # an illegal move is refused in French, nothing changes
    resp = console_post(client, "/console/duplicate/D1/tours/1/top",
                       data={"ref": "H7", "word": "ZAS", "reason": "essai"},
                       follow_redirects=True)
    assert "« H7 ZAS » n&#39;est pas un coup jouable avec le tirage ZAEIBCD" in resp.get_data(
        as_text=True)
    assert (_round(db_session, 1).top or {})["ref"] == "H7"

    # the deadline passes; the review hour leaves time to retain H8 ZA instead (audited)
    frozen_clock.move_to(START + DAY)
    assert lifecycle.run_due(now=clock.now()) == ["close:D1:1", "correct:D1:1"]
    resp = console_post(client, "/console/duplicate/D1/tours/1/top",
                       data={"ref": "H8", "word": "ZA", "reason": "choix de l'arbitre"})
    assert resp.status_code == 302
    r1 = _round(db_session, 1)
    assert ((r1.top or {})["ref"], (r1.top or {})["score"], r1.top_overridden_by) == (
        "H8", 22, "juge")
    audit = db_session.exec(select(AuditLog).where(
        AuditLog.action == "duplicate.override_top")).one()
    assert audit.actor == "juge" and audit.details["new"]["ref"] == "H8"
    assert audit.details["old"]["ref"] == "H7" and audit.details["reason"] == "choix de l'arbitre"

    resp = console_post(client, "/console/duplicate/D1/tours/1/recorriger",
                        {"reason": "contrôle"})
    assert resp.status_code == 302
    page = client.get("/console/duplicate/D1").get_data(as_text=True)
    assert 'class="verdict"' in page and "Ana" in page and "compte" in page

    frozen_clock.move_to(START + DAY + timedelta(minutes=60))
    assert lifecycle.run_due(now=clock.now()) == ["publish:D1:1", "draw:D1:2"]
    # the master grid holds the retained top: Z on the star H8, A on H9
    r1 = _round(db_session, 1)
    assert r1.grid_after is not None
    from scoring.board import Board

    board = Board.from_cgp(r1.grid_after)
    assert (board.cells[7 * 15 + 7], board.cells[7 * 15 + 8]) == ("Z", "A")
    resp = console_post(client, "/console/duplicate/D1/tours/1/top",
                       data={"ref": "H7", "word": "ZA", "reason": "trop tard"},
                       follow_redirects=True)
    assert "résultats de ce tour sont publiés" in resp.get_data(as_text=True)


def test_console_offers_the_ambiguous_reference_setting(
    app: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    frozen_clock: Any,
) -> None:
    """S1 5.3.2 (docs/DUPLICATE.md, ``ambiguous_reference``): the new-game form offers the
    claimed score − 5 (default, RULES §4.7.3) or the reference's score with a warning; the
    game's stored settings say which; a value the form does not offer is refused in
    French and no game is created."""
    login_arbitre(client, db_session)
    page = client.get("/console/duplicate").get_data(as_text=True)
    assert '<select name="ambiguous_reference"><option value="penalty">' in page
    assert '<option value="warning">score de la référence et avertissement</option>' in page
    form = {"title": "Partie du jeudi", "competition_id": str(competition.id),
            "lang": "fr", "rounds": "", "rhythm": "all_answered", "hours": "48",
            "starts_at": "2026-05-14T20:00", "timezone": "Europe/Bucharest",
            "solo_rule": "auto", "solo_points": "10", "warning_conversion_from": "4",
            "review_minutes": "0", "seed": "7", "lexicon": "default"}
    bad = client.post("/console/duplicate",
                      data={**form, "code": "JEU0", "ambiguous_reference": "zero"})
    assert bad.status_code == 400
    assert ("Référence ambiguë : pénalité de 5 points ou avertissement."
            in html.unescape(bad.get_data(as_text=True)))
    for code, value, stored in (("JEU1", "warning", "warning"), ("JEU2", None, "penalty")):
        data = {**form, "code": code}
        if value is not None:
            data["ambiguous_reference"] = value
        assert client.post("/console/duplicate", data=data).status_code == 302
    with app.app_context():
        db_session.expire_all()
        got = {g.code: g.settings["ambiguous_reference"]
               for g in db_session.exec(select(DuplicateGame)).all()}
        assert got == {"JEU1": "warning", "JEU2": "penalty"}
        engine_settings = duplicate.duplicate_settings_of(
            db_session.exec(select(DuplicateGame).where(DuplicateGame.code == "JEU1")).one())
        assert engine_settings.ambiguous_reference == "warning"


def test_console_creates_a_game(
    app: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    frozen_clock: Any,
) -> None:
    login_arbitre(client, db_session)
    assert 'href="/console/duplicate"' in client.get("/console/").get_data(as_text=True)
    form = {"title": "Partie du mardi", "code": "MAR1", "competition_id": str(competition.id),
            "lang": "fr", "rounds": "", "rhythm": "all_answered", "hours": "48",
            "starts_at": "2026-05-12T20:00", "timezone": "Europe/Bucharest",
            "solo_rule": "auto", "solo_points": "10", "warning_conversion_from": "6",
            "review_minutes": "0", "seed": "7", "lexicon": "default"}
    bad = client.post("/console/duplicate", data={**form, "warning_conversion_from": "5"})
    assert bad.status_code == 400
    assert "au 4e ou au 6e" in bad.get_data(as_text=True)
    # a word list the server does not know is refused, not silently replaced by the default
    unknown = client.post("/console/duplicate", data={**form, "lexicon": "ods9"})
    assert unknown.status_code == 400
    assert ("Liste de mots « ods9 » inconnue de ce serveur (listes configurées : default)."
            in html.unescape(unknown.get_data(as_text=True)))
    resp = client.post("/console/duplicate", data=form)
    assert resp.status_code == 302
    with app.app_context():
        db_session.expire_all()
        g = db_session.exec(select(DuplicateGame).where(DuplicateGame.code == "MAR1")).one()
        # 20:00 in Bucharest (UTC+3) = 17:00 UTC
        assert g.starts_at == datetime(2026, 5, 12, 17, 0, tzinfo=UTC)
        assert g.rhythm == {"kind": "all_answered", "hours": 48}
        assert g.settings["warning_conversion_from"] == 6 and g.settings["rounds"] is None
        assert g.bag_order == duplicate.draw_bag_order("fr", 7) and g.seed == 7
    # a game to come shows itself and its first draw (issue 22 §1: a 404 before), to a
    # visitor too, and is listed among the games
    with client.session_transaction() as sess:
        sess.clear()
    page = html.unescape(client.get("/duplicate/MAR1").get_data(as_text=True))
    assert ("Partie programmée : premier tirage 12/05/2026 à 20:00 (Europe/Bucharest, "
            "UTC+03:00).") in page
    assert 'name="bulletin"' not in page
    listing = html.unescape(client.get("/duplicate").get_data(as_text=True))
    assert "Partie du mardi" in listing
    assert "premier tirage le 12/05/2026 à 20:00 (Europe/Bucharest, UTC+03:00)" in listing
