"""Duplicate variants by correspondence, the games tests/web/test_duplicate_variants.py does
not play end to end (issue 12 audit, /tmp/team/issue12-audit.md): the Elliptique, and the
Complétif under the Romanian online joker rules (RULES §9.3, E12) — created on the console,
bulletins by the web form and by e-mail (the real mail pipeline, ``mailer.pipeline.receive``),
rounds closed, corrected and published by ``lifecycle.run_due``, results and the final
ranking.

French values (RULES §2.1): A E I L N R S T = 1, B C = 3, D = 2, Z = 10. Row H: DL at H4
and H12, DW at H8 (RULES §1.3)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from puzzles.duplicate import GameState
from scoring.tiles import tileset
from tests.web.test_duplicate import DAY, START, _mail, _outbox, _round, console_post
from tests.web.test_pages import login_arbitre, login_player
from webapp.models import Competition, DuplicateGame, DuplicateStatus, Player
from webapp.services import clock, duplicate, lifecycle

pytestmark = pytest.mark.db

HOUR = timedelta(hours=1)


def _bag(first: str) -> str:
    rest = tileset("fr").bag() - Counter(first)
    return first + "".join(sorted(rest.elements()))


def _create(client: FlaskClient, db_session: Session, competition: Competition, code: str,
            variant: str, rounds: int, bag: str, **extra: str) -> DuplicateGame:
    """The game created on the console's form, then its bag given whole (a recorded game)."""
    login_arbitre(client, db_session)
    form = {"title": f"{variant} {code}", "code": code, "competition_id": str(competition.id),
            "lang": "fr", "rounds": str(rounds), "rhythm": "hours", "hours": "24",
            "starts_at": "2026-05-10T13:00", "timezone": "Europe/Bucharest",
            "solo_rule": "auto", "solo_points": "10", "warning_conversion_from": "4",
            "review_minutes": "0", "seed": "", "lexicon": "w", "variant": variant, **extra}
    resp = client.post("/console/duplicate", data=form)
    assert resp.status_code == 302, resp.get_data(as_text=True)[:2000]
    db_session.expire_all()
    game = db_session.exec(select(DuplicateGame).where(DuplicateGame.code == code)).one()
    assert game.variant == variant and game.starts_at == START  # 13:00 UTC+3
    game.bag_order = bag
    game.state_text = GameState.initial(
        duplicate.duplicate_settings_of(game), game.bag_order).to_text()
    db_session.add(game)
    db_session.commit()
    with client.session_transaction() as sess:
        sess.clear()
    return game


def test_elliptique_by_web_and_mail(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    """Elliptique: « A chaque coup l'arbitre tire 8 lettres, dont les joueurs peuvent utiliser
    7 au maximum » (S2, DUPLICATE ELLIPTIQUE; RULES §9.6). Word list {ENTRAILS, ENTRAIS, ZA}.

    - Round 1 draws ENTRAILS (8 letters: E A I vowels, N T R L S consonants). ENTRAILS
      itself would use the 8: not allowed. ENTRAIS (7 tiles, the L left) over the star:
      every letter 1, at H2 (E H2 … S H8) the DL H4 doubles the T: 7 + 1 = 8, × 2 (DW H8) =
      16, + 50 (7 tiles) = 66. Top « H2 ENTRAIS 66 » (H3, H4, H6, H7, H8 tie at 66; H2 is
      the smallest reference; H5 reaches neither DL: 7 × 2 + 50 = 64).
    - Round 2: the 8 letters less the 7 the top used = L, completed to 8 with ZAEIBCD:
      LZAEIBCD. Nothing but ZA fits: Z on G6 above the grid's A (H6), no premium on G6:
      10 + 1 = 11, top « 6G ZA 11 ».
    - Ana (web): H2 ENTRAIS 66 → 66; round 2 by mail 6G ZA 11 → 11. Bob (mail): H1
      ENTRAILS 70 → zero (8 letters). Cid (mail): H8 ENTRAIS 66 → 66.
    Tops 66 + 11 = 77; Ana 77 (100 %), Cid 66 (66 / 77 = 85.71 %), Bob 0. Three players: no
    solo (max(0, 3 − 6) = 0, RULES §4.8)."""
    words = tmp_path / "w.txt"
    words.write_text("ENTRAILS\nENTRAIS\nZA\n", "utf-8")
    app.config["LEXICONS"] = {"w": str(words)}
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    cid = make_player("Cid", "cid@example.fr")
    game = _create(client, db_session, competition, "EL1", "elliptique", 2,
                   _bag("ENTRAILS" + "ZAEIBCD"))
    assert game.settings["variant"] == "elliptique"

    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:EL1:1"]
    r1 = _round(db_session, 1)
    assert r1.draw["rack"] == "ENTRAILS"
    top = r1.top or {}
    assert (top["ref"], top["word"], top["score"]) == ("H2", "ENTRAIS", (7 + 1) * 2 + 50)
    [draw_bob] = [m for m in _outbox(db_session, duplicate.KIND_DRAW)
                  if m.to_addr == "bob@example.fr"]
    assert "(Duplicate Elliptique)" in draw_bob.body_text
    assert "ENTRAILS" in draw_bob.body_text

    login_player(client, ana)
    page = client.get("/duplicate/EL1").get_data(as_text=True)
    assert "Duplicate Elliptique par correspondance" in page
    assert client.post("/duplicate/EL1/bulletin",
                       data={"bulletin": "H2 ENTRAIS 66"}).status_code == 302
    assert _mail(app, bob, "EL1", "H1 ENTRAILS 70\n\n-- \nBob")[1] == "processed"
    assert _mail(app, cid, "EL1", "H8 ENTRAIS 66")[1] == "processed"

    frozen_clock.move_to(START + DAY)
    assert lifecycle.run_due(now=clock.now()) == [
        "close:EL1:1", "correct:EL1:1", "publish:EL1:1", "draw:EL1:2"]
    r1 = _round(db_session, 1)
    assert [(x["name"], x["score"], x["kind"]) for x in r1.results] == [
        ("Ana", 66, "valide"), ("Bob", 0, "nul"), ("Cid", 66, "valide")]
    assert r1.results[1]["reason"] == (
        "Nul : en Elliptique, un coup pose au plus 7 lettres (ENTRAILS en pose 8).")
    r2 = _round(db_session, 2)
    assert (r2.draw["reliquat"], r2.draw["new"], r2.draw["rack"]) == (
        "L", "ZAEIBCD", "LZAEIBCD")
    top2 = r2.top or {}
    assert (top2["ref"], top2["word"], top2["score"]) == ("6G", "ZA", 10 + 1)
    [res_cid] = [m for m in _outbox(db_session, duplicate.KIND_RESULTS)
                 if m.to_addr == "cid@example.fr"]
    assert "Top : H2 ENTRAIS — 66 points." in res_cid.body_text

    assert _mail(app, ana, "EL1", "6G ZA 11")[1] == "processed"
    frozen_clock.move_to(START + 2 * DAY)
    assert lifecycle.run_due(now=clock.now()) == [
        "close:EL1:2", "correct:EL1:2", "publish:EL1:2", "finish:EL1:2"]
    db_session.expire_all()
    g = db_session.get(DuplicateGame, game.id)
    assert g is not None and g.status == DuplicateStatus.FINISHED
    rows = duplicate.standings(db_session, g)
    assert [(r["rank"], r["name"], r["total"], r["percent"]) for r in rows] == [
        (1, "Ana", 66 + 11, 100.0), (2, "Cid", 66, 85.71), (3, "Bob", 0, 0.0)]
    assert len(_outbox(db_session, duplicate.KIND_FINAL)) == 3


def test_completif_romanian_joker_rules_by_web_and_mail(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    """Complétif with the console's « règles roumaines en ligne (joker du stock) »
    (``free_joker_rule="ro_online"``, RULES §9.3, E12). Word list {KAKI, KA}; the draw
    KAEIBC holds the only K (K = 10), so no K is in the stock; its 2 jokers are.
    - The top takes a stock joker: KAKI over the star, H5 (K H5, A H6, K H7, I on the star
      H8; no DL reached), one K a joker: (10 + 1 + 0 + 1) × 2 = 24, « H5 KAkI 24 +? » (equal
      tops put a joker after the same letter as a tile: KAkI before kAKI, docs/DUPLICATE.md).
    - Ana (web): « H5 KAkI 24 +? » → 24.
    - Bob (mail): « H5 KAKI 44 +K » — a K outside the stock, not marked, jokers remain: deemed
      the joker, the letter's value deducted: 44 = (10 + 1 + 10 + 1) × 2 as written, less
      10 × 2 = 20 → 24, no warning (the arbitre deducts).
    - Cid (mail): « H8 KA 22 » (no letter chosen): (10 + 1) × 2 = 22.
    Three players: no solo. One round: the results are the final ranking, 24, 24, 22."""
    words = tmp_path / "w.txt"
    words.write_text("KAKI\nKA\n", "utf-8")
    app.config["LEXICONS"] = {"w": str(words)}
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    cid = make_player("Cid", "cid@example.fr")
    game = _create(client, db_session, competition, "RO1", "completif", 1, _bag("KAEIBC"),
                   free_joker_rule="ro_online")
    assert duplicate.variant_settings_of(game).free_joker_rule == "ro_online"

    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:RO1:1"]
    r1 = _round(db_session, 1)
    assert r1.draw["rack"] == "KAEIBC" and "K" not in r1.draw["stock"]
    assert r1.draw["stock"].count("?") == 2
    top = r1.top or {}
    assert (top["ref"], top["word"], top["score"], top["chosen"]) == ("H5", "KAkI", 24, "?")

    login_player(client, ana)
    assert client.post("/duplicate/RO1/bulletin",
                       data={"bulletin": "H5 KAkI 24 +?"}).status_code == 302
    assert _mail(app, bob, "RO1", "H5 KAKI 44 +K")[1] == "processed"
    assert _mail(app, cid, "RO1", "H8 KA 22")[1] == "processed"

    frozen_clock.move_to(START + DAY)
    assert lifecycle.run_due(now=clock.now()) == [
        "close:RO1:1", "correct:RO1:1", "publish:RO1:1", "finish:RO1:1"]
    r1 = _round(db_session, 1)
    assert [(x["name"], x["score"], x["kind"]) for x in r1.results] == [
        ("Ana", 24, "valide"), ("Bob", 24, "valide"), ("Cid", 22, "valide")]
    assert "Valeur de la lettre hors stock déduite : −20." in r1.results[1]["reason"]
    [res_bob] = [m for m in _outbox(db_session, duplicate.KIND_RESULTS)
                 if m.to_addr == "bob@example.fr"]
    assert "Top : H5 KAkI +? — 24 points." in res_bob.body_text
    db_session.expire_all()
    g = db_session.get(DuplicateGame, game.id)
    assert g is not None and g.status == DuplicateStatus.FINISHED
    rows = duplicate.standings(db_session, g)
    assert [(r["rank"], r["name"], r["total"]) for r in rows] == [
        (1, "Ana", 24), (1, "Bob", 24), (3, "Cid", 22)]


def test_superscrabble_the_engine_chooses_on_request(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    """Partie de Superscrabble (RULES §7.7): « l'arbitre (ou le moteur, sur demande) choisit le
    scrabble que tous placent ». Word list {LA, ENTRAILS, ANTISERA}, LA at H7, rack RETAINS
    (every letter 1): 7B ENTRAILS 11 + 50 = 61; 8A ANTISERA and 8H ANTISERA 9 × 3 + 50 = 77
    (the arithmetic of test_duplicate_variants.py::test_partie_de_superscrabble_end_to_end).
    The arbitre first retains 7B ENTRAILS, then asks the engine (« moteur »): the best score,
    then the FISF order → 8A ANTISERA 77 again, audited twice; the published grid carries
    ANTISERA down column 8 from A8. Sheets: Ana by mail « 8A ANTISERA ; 1 » → 1; Bob by the
    web « 7B ENTRAILS, 8H ANTISERA ; 2 » → 2."""
    from scoring.board import Board
    from webapp.models import AuditLog

    words = tmp_path / "ss.txt"
    words.write_text("LA\nENTRAILS\nANTISERA\n", "utf-8")
    app.config["LEXICONS"] = {"w": str(words)}
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    login_arbitre(client, db_session)
    form = {"title": "Superscrabble", "code": "SM1", "competition_id": str(competition.id),
            "lang": "fr", "rounds": "", "rhythm": "hours", "hours": "24",
            "starts_at": "2026-05-10T13:00", "timezone": "Europe/Bucharest",
            "solo_rule": "auto", "solo_points": "10", "warning_conversion_from": "4",
            "review_minutes": "120", "seed": "", "lexicon": "w", "variant": "superscrabble",
            "superscrabble_start": "H7 LA", "superscrabble_racks": "RETAINS"}
    assert client.post("/console/duplicate", data=form).status_code == 302
    with client.session_transaction() as sess:
        arbitre_id = sess["arbitre_id"]
        sess.clear()

    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:SM1:1"]
    assert _mail(app, ana, "SM1", "8A ANTISERA ; 1")[1] == "processed"
    login_player(client, bob)
    assert client.post("/duplicate/SM1/bulletin",
                       data={"bulletin": "7B ENTRAILS, 8H ANTISERA ; 2"}).status_code == 302
    frozen_clock.move_to(START + DAY)
    assert lifecycle.run_due(now=clock.now()) == ["close:SM1:1", "correct:SM1:1"]

    with client.session_transaction() as sess:
        sess.clear()
        sess["arbitre_id"] = arbitre_id
    url = "/console/duplicate/SM1/tours/1/top"
    assert console_post(client, url, data={"ref": "7B", "word": "ENTRAILS",
                                           "reason": "essai"}).status_code == 302
    top = _round(db_session, 1).top or {}
    assert (top["ref"], top["word"], top["score"]) == ("7B", "ENTRAILS", 61)
    assert console_post(client, url, data={"ref": "moteur", "word": "",
                                           "reason": "le choix du moteur"}).status_code == 302
    top = _round(db_session, 1).top or {}
    assert (top["ref"], top["word"], top["score"]) == ("8A", "ANTISERA", 77)
    audits = db_session.exec(select(AuditLog).where(
        AuditLog.action == "duplicate.override_top", AuditLog.target == "SM1")).all()
    assert [a.details["reason"] for a in audits] == ["essai", "le choix du moteur"]

    frozen_clock.move_to(START + DAY + 2 * HOUR)
    assert lifecycle.run_due(now=clock.now()) == ["publish:SM1:1", "finish:SM1:1"]
    r1 = _round(db_session, 1)
    assert [(x["name"], x["score"]) for x in r1.results] == [("Ana", 1), ("Bob", 2)]
    board = Board.from_cgp(r1.grid_after or "")
    assert "".join(board.cells[r * 15 + 7] for r in range(8)) == "ANTISERA"
    [res_ana] = [m for m in _outbox(db_session, duplicate.KIND_RESULTS)
                 if m.to_addr == "ana@example.ro"]
    assert "Scrabble posé : 8A ANTISERA — 77 points." in res_ana.body_text
