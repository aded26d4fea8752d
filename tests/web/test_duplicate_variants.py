"""Duplicate variants by correspondence (docs/VARIANTS.md, server side): Complétif and
Duplicate Top played end to end with the frozen clock — created on the console, rounds drawn,
closed, corrected and published by ``lifecycle.run_due``, bulletins by web and by e-mail, the
results after each round, the final ranking; a re-correction after the results sends a
corrected-results mail to the players whose score changed.

Word list {ZA, ZAS}, French tiles, two rounds, a round every 24 hours, the bag given whole.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from puzzles.duplicate import DuplicateSettings, GameState
from puzzles.duplicate.codecs import tactique_of
from puzzles.variants import VariantSettings
from scoring.tiles import tileset
from tests.web.test_duplicate import START, _mail, _outbox, _round, console_post, draw_cell
from tests.web.test_pages import login_arbitre, login_player
from webapp.models import Competition, DuplicateGame, DuplicateStatus, Player, RoundStatus
from webapp.services import clock, duplicate, lifecycle

pytestmark = pytest.mark.db

DAY = timedelta(days=1)


def _bag(first: str) -> str:
    rest = tileset("fr").bag() - Counter(first)
    return first + "".join(sorted(rest.elements()))


def _words(app: Flask, tmp_path: Path) -> None:
    words = tmp_path / "za.txt"
    words.write_text("ZA\nZAS\n", "utf-8")
    app.config["LEXICONS"] = {"za": str(words)}


def test_completif_end_to_end(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    """Complétif: « le tirage de 6 lettres est complété par une lettre choisie par le joueur
    parmi celles qui restent » (RULES §9.3).

    - Round 1 draws ZEIBCD (6 letters: E I vowels, Z B C D consonants). No word of the list
      is playable with them alone; choosing an A from the stock gives ZA: at H7, Z on H7 and
      A on the star H8, (10 + 1) × 2 = 22; at H8 also 22; equal tops: H7 (column 7 first).
      The top takes the A: « H7 ZA 22 +A ».
    - Round 2: reliquat EIBCD (the chosen A left the stock) + S drawn = EIBCDS. The S hooks ZA
      into ZAS at H7: 10 + 1 + 1 = 12 with no letter to choose; but choosing another A plays
      ZAS down from the Z (7H): Z 10 + A on I7, a double letter, 2 × 1 + S 1 = 13, the top
      « 7H ZAS 13 +A ».
    - Three players: no solo (max(0, 3 − 6) = 0, RULES §4.8).
    """
    _words(app, tmp_path)
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    cid = make_player("Cid", "cid@example.fr")
    # created on the console, the variant chosen in the form
    login_arbitre(client, db_session)
    form = {"title": "Complétif du jeudi", "code": "C1", "competition_id": str(competition.id),
            "lang": "fr", "rounds": "2", "rhythm": "hours", "hours": "24",
            "starts_at": "2026-05-10T13:00", "timezone": "Europe/Bucharest",
            "solo_rule": "auto", "solo_points": "10", "warning_conversion_from": "4",
            "review_minutes": "0", "seed": "", "lexicon": "za", "variant": "completif"}
    bad = client.post("/console/duplicate", data={**form, "variant": "anticipation"})
    assert bad.status_code == 400
    assert "Variante « anticipation » inconnue de ce serveur" in bad.get_data(as_text=True)
    assert client.post("/console/duplicate", data=form).status_code == 302
    db_session.expire_all()
    game = db_session.exec(select(DuplicateGame).where(DuplicateGame.code == "C1")).one()
    assert game.variant == "completif" and game.starts_at == START  # 13:00 UTC+3
    assert game.settings["variant"] == "completif"
    assert game.settings["duplicate"]["rounds"] == 2
    # the bag given whole (a recorded game), so the draws are known
    game.bag_order = _bag("ZEIBCDS")
    game.state_text = GameState.initial(
        duplicate.duplicate_settings_of(game), game.bag_order).to_text()
    db_session.add(game)
    db_session.commit()
    with client.session_transaction() as sess:
        sess.clear()

    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:C1:1"]
    r1 = _round(db_session, 1)
    assert r1.draw["rack"] == "ZEIBCD"
    # the stock: the 102 tiles less the 6 drawn = 96, the 9 A among them
    assert len(r1.draw["stock"]) == 102 - 6 and r1.draw["stock"].count("A") == 9
    top = r1.top or {}
    assert (top["ref"], top["word"], top["score"], top["chosen"], top["swapped"]) == (
        "H7", "ZA", 22, "A", "")
    [draw_ana] = [m for m in _outbox(db_session, duplicate.KIND_DRAW)
                  if m.to_addr == "ana@example.ro"]
    assert "(Duplicate Complétif)" in draw_ana.body_text
    assert f"Stock (les lettres que vous pouvez choisir) : {r1.draw['stock']}" in (
        draw_ana.body_text)
    assert "H4 RESTAIT 70 +T" in draw_ana.body_text

    # Ana by the web form; the page shows the draw and the stock
    login_player(client, ana)
    page = client.get("/duplicate/C1").get_data(as_text=True)
    assert "Duplicate Complétif par correspondance" in page
    # the stock as valued tiles, as the draw (issue 22 §2): its 96 letters in its order, the
    # 9 A worth 1 each, K 10, the jokers 0; no Z (the only one is in the draw)
    stock = page[page.index('<div class="small" id="stock">'):]
    stock = stock[:stock.index("</div></div>") + 12]
    assert "<p>Stock (96 lettres) :</p>" in stock
    tiles = re.findall(r'<span class="letter(?: joker)?" aria-label="([^"]+)">([A-Z?])<sub>'
                       r'(\d+)</sub></span>', stock)
    assert "".join(t[1] for t in tiles) == r1.draw["stock"]
    assert tiles.count(("A", "A", "1")) == 9 and ("K", "K", "10") in tiles
    assert tiles.count(("joker", "?", "0")) == 2 and not [t for t in tiles if t[1] == "Z"]
    assert client.post("/duplicate/C1/bulletin",
                       data={"bulletin": "H7 ZA 22 +A"}).status_code == 302
    # Bob by e-mail: the chosen letter named after the score
    assert _mail(app, bob, "C1", "H8 ZA 22 +A\n\n-- \nBob")[1] == "processed"
    [receipt] = [m for m in _outbox(db_session, "receipt") if m.to_addr == "bob@example.fr"]
    assert "Bulletin lu : H8 ZA 22 +A" in receipt.body_text
    # Cid chooses the Z, which is not in the stock (the only Z was drawn); then an unreadable
    # choice, replaced by a readable one: the last version counts
    assert _mail(app, cid, "C1", "H7 ZA 22 +1")[1] == "processed"
    unreadable = [m for m in _outbox(db_session, "receipt") if m.to_addr == "cid@example.fr"]
    assert "Lettres choisies « +1 » illisibles." in unreadable[-1].body_text
    assert _mail(app, cid, "C1", "H7 ZA 22 +Z")[1] == "processed"

    frozen_clock.move_to(START + DAY)
    assert lifecycle.run_due(now=clock.now()) == [
        "close:C1:1", "correct:C1:1", "publish:C1:1", "draw:C1:2"]
    r1 = _round(db_session, 1)
    assert [(x["name"], x["score"], x["kind"]) for x in r1.results] == [
        ("Ana", 22, "valide"), ("Bob", 22, "valide"), ("Cid", 0, "nul")]
    assert "la lettre choisie Z n'est plus dans le stock" in r1.results[2]["reason"]
    r2 = _round(db_session, 2)
    # reliquat EIBCD (the top used Z and the chosen A) + S
    assert (r2.draw["reliquat"], r2.draw["new"], r2.draw["rack"]) == ("EIBCD", "S", "EIBCDS")
    # the stock lost the 6 drawn of round 1 but Z, the chosen A, and the S: 102 − 7 − 1 = 94
    assert len(r2.draw["stock"]) == 94 and r2.draw["stock"].count("A") == 8
    top2 = r2.top or {}
    assert (top2["ref"], top2["word"], top2["score"], top2["chosen"]) == ("7H", "ZAS", 13, "A")
    [res_ana] = [m for m in _outbox(db_session, duplicate.KIND_RESULTS)
                 if m.to_addr == "ana@example.ro"]
    assert "Top : H7 ZA +A — 22 points." in res_ana.body_text
    # Ana and Bob share the first place (issue 22 §2: « 1er sur 3 » for both before)
    assert "Votre total : 22 — 1er ex æquo sur 3." in res_ana.body_text

    frozen_clock.move_to(START + DAY + timedelta(hours=1))
    client.post("/duplicate/C1/bulletin", data={"bulletin": "H7 ZAS 12"})
    assert _mail(app, bob, "C1", "7H ZAS 13 +A")[1] == "processed"
    frozen_clock.move_to(START + 2 * DAY)
    assert lifecycle.run_due(now=clock.now()) == [
        "close:C1:2", "correct:C1:2", "publish:C1:2", "finish:C1:2"]
    r2 = _round(db_session, 2)
    assert [(x["name"], x["score"], x["kind"]) for x in r2.results] == [
        ("Ana", 12, "valide"), ("Bob", 13, "valide"), ("Cid", 0, "absent")]
    db_session.expire_all()
    g = db_session.get(DuplicateGame, game.id)
    assert g is not None and g.status == DuplicateStatus.FINISHED
    # tops 22 + 13 = 35: Bob 22 + 13 = 35 (100 %), Ana 22 + 12 = 34 (34 / 35 = 97.14 %), Cid 0
    rows = duplicate.standings(db_session, g)
    assert [(r["rank"], r["name"], r["total"], r["percent"]) for r in rows] == [
        (1, "Bob", 35, 100.0), (2, "Ana", 34, 97.14), (3, "Cid", 0, 0.0)]
    page = client.get("/duplicate/C1").get_data(as_text=True)
    # the draw ZEIBCD as valued tiles: Z 10, E 1, I 1, B 3, C 3, D 2
    assert re.search(draw_cell("ZEIBCD", [10, 1, 1, 3, 3, 2])
                     + r"<td class=\"mono\"[^>]*>ZA \+A</td>"
                     r"<td class=\"mono\"[^>]*>H7</td><td[^>]*>22</td><td[^>]*>22</td>",
                     page)
    assert len(_outbox(db_session, duplicate.KIND_FINAL)) == 3


def test_completif_console_override_with_a_chosen_letter(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    """The arbitre retains « H8 ZA +A » (22, the tie) instead of H7; a letter outside the
    stock or a move without its letter is refused in French."""
    _words(app, tmp_path)
    make_player("Ana", "ana@example.ro")
    duplicate.create_game(
        session=db_session, competition=competition, title="C", code="C2",
        settings=DuplicateSettings(lang="fr", rounds=1), rhythm={"kind": "hours", "hours": 24},
        starts_at=START, lexicon_name="za", bag_order=_bag("ZEIBCDS"), variant="completif")
    db_session.commit()
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:C2:1"]
    login_arbitre(client, db_session)
    url = "/console/duplicate/C2/tours/1/top"
    resp = console_post(client, url, data={"ref": "H8", "word": "ZA +Z", "reason": "essai"},
                       follow_redirects=True)
    assert "Lettre(s) choisie(s) « Z » absente(s) du stock." in resp.get_data(as_text=True)
    resp = console_post(client, url, data={"ref": "H8", "word": "ZA", "reason": "essai"},
                       follow_redirects=True)
    assert "« H8 ZA » n&#39;est pas un coup jouable avec le tirage ZEIBCD" in resp.get_data(
        as_text=True)
    assert console_post(client, url, data={"ref": "H8", "word": "ZA +A", "reason": "tirage au sort"}
                       ).status_code == 302
    top = _round(db_session, 1).top or {}
    assert (top["ref"], top["word"], top["score"], top["chosen"]) == ("H8", "ZA", 22, "A")
    frozen_clock.move_to(START + DAY)
    assert lifecycle.run_due(now=clock.now()) == [
        "close:C2:1", "correct:C2:1", "publish:C2:1", "finish:C2:1"]
    from scoring.board import Board

    board = Board.from_cgp(_round(db_session, 1).grid_after or "")
    assert (board.cells[7 * 15 + 7], board.cells[7 * 15 + 8]) == ("Z", "A")  # H8, H9


def test_duplicate_top_ranking_and_corrected_results_mail(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    """Duplicate Top: « à chaque coup, le ou les joueurs ayant réalisé le top de la salle
    marquent un point » (RULES §9.2); ties: fewer companions, then the higher total of the
    topped rounds.

    Round 1 draws ZAEIBCD: top ZA 22 (H7 or H8). Round 2: EIBCD + SE, top H7 ZAS 12.
    - Round 1: Ana H7 ZA 22, Bob H8 ZA 22, Cid H7 ZA 20 (score error: credited 22 with a
      warning), Dan nothing → toppers Ana, Bob, Cid: 1 point each, companions 3 − 1 = 2.
    - Dan's round-1 bulletin « H8 ZA 22 », sent on time, reaches the server only after the
      results (a slow relay); the arbitre re-corrects round 1: Dan 0 → 22, a corrected-results
      mail to Dan alone (nobody else's result changed); toppers now Ana, Bob, Cid, Dan,
      companions 4 − 1 = 3 each.
    - Round 2: Ana H7 ZAS 12, the others absent → topper Ana alone (companions + 0).
    Final: Ana 2 points (companions 3, topped 22 + 12 = 34); Bob, Cid, Dan 1 point
    (companions 3, topped 22; Cid's 1 warning costs nothing under 4) → shared 2nd.
    Four players: no solo in any case (Duplicate Top has none).
    """
    _words(app, tmp_path)
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    cid = make_player("Cid", "cid@example.fr")
    dan = make_player("Dan", "dan@example.fr")
    game = duplicate.create_game(
        session=db_session, competition=competition, title="Top", code="T1",
        settings=VariantSettings(variant="top",
                                 duplicate=DuplicateSettings(lang="fr", rounds=2)),
        rhythm={"kind": "hours", "hours": 24}, starts_at=START, lexicon_name="za",
        bag_order=_bag("ZAEIBCDSE"), variant="top")
    db_session.commit()
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:T1:1"]
    login_player(client, ana)
    client.post("/duplicate/T1/bulletin", data={"bulletin": "H7 ZA 22"})
    assert _mail(app, bob, "T1", "H8 ZA 22")[1] == "processed"
    assert _mail(app, cid, "T1", "H7 ZA 20")[1] == "processed"
    frozen_clock.move_to(START + DAY)
    assert lifecycle.run_due(now=clock.now()) == [
        "close:T1:1", "correct:T1:1", "publish:T1:1", "draw:T1:2"]
    r1 = _round(db_session, 1)
    assert [(x["name"], x["score"], x["warnings"], x["solo"]) for x in r1.results] == [
        ("Ana", 22, 0, 0), ("Bob", 22, 0, 0), ("Cid", 22, 1, 0), ("Dan", 0, 0, 0)]
    [res_bob] = [m for m in _outbox(db_session, duplicate.KIND_RESULTS)
                 if m.to_addr == "bob@example.fr"]
    assert "Vos points de classement (tours topés) : 1 — 1er ex æquo sur 4." in res_bob.body_text

    # Dan's bulletin received on time, stored after the results; the arbitre re-corrects
    frozen_clock.move_to(START + DAY + timedelta(minutes=30))
    duplicate.submit_bulletin(session=db_session, player=dan, game=game, text="H8 ZA 22",
                              channel="email", received_at=START + DAY - timedelta(minutes=5))
    db_session.commit()
    login_arbitre(client, db_session)
    resp = console_post(client, "/console/duplicate/T1/tours/1/recorriger",
                       data={"reason": "courriel de Dan arrivé en retard par le relais"})
    assert resp.status_code == 302
    corrected = _outbox(db_session, duplicate.KIND_CORRECTED)
    assert [m.to_addr for m in corrected] == ["dan@example.fr"]
    assert corrected[0].subject == "Top (T1) — résultat corrigé du tour 1 : 22 sur 22"
    assert "Votre score : 22 (au lieu de 0)" in corrected[0].body_text
    # Dan now shares the round-1 top: 1 point, like Ana, Bob and Cid
    assert "Vos points de classement (tours topés) : 1 — 1er ex æquo sur 4." in corrected[0].body_text
    # the same re-correction again changes nothing: no new mail
    console_post(client, "/console/duplicate/T1/tours/1/recorriger", data={"reason": "contrôle"})
    assert len(_outbox(db_session, duplicate.KIND_CORRECTED)) == 1

    login_player(client, ana)
    frozen_clock.move_to(START + DAY + timedelta(hours=1))
    client.post("/duplicate/T1/bulletin", data={"bulletin": "H7 ZAS 12"})
    frozen_clock.move_to(START + 2 * DAY)
    assert lifecycle.run_due(now=clock.now()) == [
        "close:T1:2", "correct:T1:2", "publish:T1:2", "finish:T1:2"]
    db_session.expire_all()
    g = db_session.get(DuplicateGame, game.id)
    assert g is not None and g.status == DuplicateStatus.FINISHED
    rows = duplicate.standings(db_session, g)
    assert [(r["rank"], r["name"], r["total"], r["companions"], r["topped_total"],
             r["warnings"]) for r in rows] == [
        (1, "Ana", 2, 3, 34, 0), (2, "Bob", 1, 3, 22, 0), (2, "Cid", 1, 3, 22, 1),
        (2, "Dan", 1, 3, 22, 0)]
    page = client.get("/duplicate/T1").get_data(as_text=True)
    assert "Points (tours topés)" in page and "Compagnons" in page
    [final_ana] = [m for m in _outbox(db_session, duplicate.KIND_FINAL)
                   if m.to_addr == "ana@example.ro"]
    assert "Vos points de classement (tours topés) : 2 — 1er." in final_ana.body_text
    assert _round(db_session, 2).status == RoundStatus.PUBLISHED


def test_last_bulletin_and_override_move_the_schedule_counter(
    app: Flask, ctx: Flask, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    """« dès que tous ont répondu »: the bulletin that completes the round moves the
    scheduler's change counter in its own transaction (the leader replans and closes the
    round at once); an earlier bulletin does not; the console override of the top does."""
    from webapp.services import changes

    _words(app, tmp_path)
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    game = duplicate.create_game(
        session=db_session, competition=competition, title="Express", code="E1",
        settings=DuplicateSettings(lang="fr", rounds=1),
        rhythm={"kind": "all_answered", "hours": 48}, starts_at=START, lexicon_name="za",
        bag_order=_bag("ZAEIBCD"), variant="top", review_minutes=60)
    db_session.commit()
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:E1:1"]

    def counter() -> int:
        db_session.commit()
        return changes.current(db_session.connection())

    before = counter()
    duplicate.submit_bulletin(session=db_session, player=ana, game=game, text="H7 ZA 22",
                              channel="web", received_at=clock.now())
    assert counter() == before  # Bob has not answered: nothing to replan
    duplicate.submit_bulletin(session=db_session, player=bob, game=game, text="H8 ZA 22",
                              channel="web", received_at=clock.now())
    assert counter() == before + 1
    frozen_clock.move_to(START + timedelta(minutes=1))
    assert lifecycle.run_due(now=clock.now()) == ["close:E1:1", "correct:E1:1"]
    rnd = _round(db_session, 1)
    after_steps = counter()  # each step changed a round's status: counted by the hooks
    duplicate.override_top(session=db_session, game=game, rnd=rnd, ref="H8", word="ZA",
                           actor="juge", reason="ex æquo")
    assert counter() == after_steps + 1


def test_tactique_end_to_end(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    """Tactique: « le joueur dispose de deux groupes de lettres … la suite de mots dont le
    cumul des scores est le plus élevé » (RULES §9.1); the billet names both words, in the
    order they are placed, each with its score, then the sum.

    Group 1 draws ZAEIBCD, group 2 SEOUFGH (each a vowel and a consonant). Group 2 alone
    makes no word of {ZA, ZAS}; group 1 first: ZA at H7 (Z on H7, A on the star H8) =
    (10 + 1) × 2 = 22, then group 2's S hooks ZAS at H7 (S on H9, no premium) = 10 + 1 + 1
    = 12: sum 34. The same from H8 (ZA 22, S on H10: ZAS 12) ties at 34; the smaller
    reference wins: « H7 ZA 22 + H7 ZAS 12 = 34 ».
    - Ana by the web: « H7 ZA 22 + H7 ZAS 12 = 34 » → 34.
    - Bob by mail: « H7 ZA 22 + H7 ZAS 12 = 30 » → 22 + 12 = 34, the sum written wrong: one
      warning (« toute erreur ou omission de score ou de cumul »).
    - Cid by mail: « H7 ZA 22 » alone, no sum → 22 + 0 and a warning for the missing sum.
    Three players: no solo. One round: the game ends with its results.
    """
    _words(app, tmp_path)
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    cid = make_player("Cid", "cid@example.fr")
    duplicate.create_game(
        session=db_session, competition=competition, title="Tactique", code="TA1",
        settings=DuplicateSettings(lang="fr", rounds=1), rhythm={"kind": "hours", "hours": 24},
        starts_at=START, lexicon_name="za", bag_order=_bag("ZAEIBCDSEOUFGH"),
        variant="tactique")
    db_session.commit()
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:TA1:1"]
    r1 = _round(db_session, 1)
    assert [g["rack"] for g in r1.draw["groups"]] == ["ZAEIBCD", "SEOUFGH"]
    top = r1.top or {}
    assert (top["first_group"], top["notation"], top["score"]) == (
        1, "H7 ZA 22 + H7 ZAS 12 = 34", 34)
    [draw_ana] = [m for m in _outbox(db_session, duplicate.KIND_DRAW)
                  if m.to_addr == "ana@example.ro"]
    assert draw_ana.subject == "Tactique (TA1) — tour 1 : ZAEIBCD/SEOUFGH"
    assert "H4 RESTAIT 70 + 8C MOTS 25 = 95" in draw_ana.body_text

    login_player(client, ana)
    page = client.get("/duplicate/TA1").get_data(as_text=True)
    assert "Duplicate Tactique par correspondance" in page and "Groupe 2" in page
    client.post("/duplicate/TA1/bulletin", data={"bulletin": "H7 ZA 22 + H7 ZAS 12 = 34"})
    assert _mail(app, bob, "TA1", "H7 ZA 22 + H7 ZAS 12 = 30")[1] == "processed"
    [receipt] = [m for m in _outbox(db_session, "receipt") if m.to_addr == "bob@example.fr"]
    assert "Bulletin lu : H7 ZA 22 + H7 ZAS 12 = 30" in receipt.body_text
    assert _mail(app, cid, "TA1", "H7 ZA 22")[1] == "processed"

    frozen_clock.move_to(START + DAY)
    assert lifecycle.run_due(now=clock.now()) == [
        "close:TA1:1", "correct:TA1:1", "publish:TA1:1", "finish:TA1:1"]
    r1 = _round(db_session, 1)
    assert [(x["name"], x["score"], x["kind"], x["warnings"]) for x in r1.results] == [
        ("Ana", 34, "valide", 0), ("Bob", 34, "avertissement", 1),
        ("Cid", 22, "avertissement", 1)]
    assert "cumul 30 faux (34 d'après les scores écrits)" in r1.results[1]["reason"]
    # the master grid: Z A S on H7 H8 H9
    from scoring.board import Board

    board = Board.from_cgp(r1.grid_after or "")
    assert [board.cells[7 * 15 + c] for c in (6, 7, 8)] == ["Z", "A", "S"]
    [res_cid] = [m for m in _outbox(db_session, duplicate.KIND_RESULTS)
                 if m.to_addr == "cid@example.fr"]
    assert "Top : H7 ZA 22 + H7 ZAS 12 — 34 points." in res_cid.body_text
    # ranking: Ana and Bob 34 = the top (100 %), Cid 22 / 34 = 64.71 %
    db_session.expire_all()
    g = db_session.exec(select(DuplicateGame).where(DuplicateGame.code == "TA1")).one()
    assert g.status == DuplicateStatus.FINISHED
    rows = duplicate.standings(db_session, g)
    assert [(r["rank"], r["name"], r["total"], r["percent"]) for r in rows] == [
        (1, "Ana", 34, 100.0), (1, "Bob", 34, 100.0), (3, "Cid", 22, 64.71)]
    # the stored state keeps each group's reliquat: EIBCD and EOUFGH
    assert tactique_of(g.state_text).reliquats == ("EIBCD", "EOUFGH")
    login_arbitre(client, db_session)
    console = client.get("/console/duplicate/TA1").get_data(as_text=True)
    assert "groupe 1 d'abord : H7 ZA 22 + H7 ZAS 12 = 34" in console
    assert "Duplicate Tactique · partie terminée" in console


def test_partie_de_superscrabble_end_to_end(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    """Partie de Superscrabble (RULES §7.7): « l'arbitre place un mot de 2 lettres … chaque
    feuille porte la liste des scrabbles avec leurs références, et leur nombre … l'arbitre
    choisit le scrabble que tous placent ».

    Word list {LA, ENTRAILS, ANTISERA}; LA at H7 (L on H7, A on the star H8); rack RETAINS
    (French values: every letter 1). The scrabbles:
    - 7B ENTRAILS down column 7 through the L (H7): N on C7, I on G7, S on I7 are double
      letters: 1 + 2 + 1 + 1 + 1 + 2 + 1 (the L) + 2 = 11, + 50 = 61;
    - 8A ANTISERA down column 8 ending on the A (H8): A on A8 (triple word), I on D8
      (double letter): 1 + 1 + 1 + 2 + 1 + 1 + 1 + 1 = 9, × 3 = 27, + 50 = 77;
    - 8H ANTISERA down from the A (H8): S on L8 (double letter), A on O8 (triple word):
      9 × 3 = 27, + 50 = 77.
    Sheets: Ana lists the three, count 3 → 3 points. Bob lists 8H ANTISERA twice and H2
    ENTRAILS (not a scrabble of the round), count 2 for 3 listed → 1 point, a warning.
    Cid sends nothing → 0. The arbitre places 7B ENTRAILS rather than the engine's choice.
    """
    words = tmp_path / "ss.txt"
    words.write_text("LA\nENTRAILS\nANTISERA\n", "utf-8")
    app.config["LEXICONS"] = {"ss": str(words)}
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    make_player("Cid", "cid@example.fr")
    login_arbitre(client, db_session)
    form = {"title": "Superscrabble", "code": "SS1", "competition_id": str(competition.id),
            "lang": "fr", "rounds": "", "rhythm": "hours", "hours": "24",
            "starts_at": "2026-05-10T13:00", "timezone": "Europe/Bucharest",
            "solo_rule": "auto", "solo_points": "10", "warning_conversion_from": "4",
            "review_minutes": "120", "seed": "", "lexicon": "ss", "variant": "superscrabble",
            "superscrabble_start": "H7 LA", "superscrabble_racks": "RETAINS"}
    bad = client.post("/console/duplicate", data={**form, "superscrabble_racks": "RETAIN"})
    assert bad.status_code == 400
    assert "coup 1 : « RETAIN » n&#39;est pas un tirage de 7 lettres" in bad.get_data(
        as_text=True)
    assert client.post("/console/duplicate", data=form).status_code == 302
    with client.session_transaction() as sess:
        arbitre_id = sess["arbitre_id"]
        sess.clear()

    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:SS1:1"]
    r1 = _round(db_session, 1)
    top = r1.top or {}
    assert sorted((x["ref"], x["word"], x["score"]) for x in top["scrabbles"]) == [
        ("7B", "ENTRAILS", 61), ("8A", "ANTISERA", 77), ("8H", "ANTISERA", 77)]
    # the engine's choice: the best score, then the FISF order (8A before 8H)
    assert (top["ref"], top["word"], top["score"]) == ("8A", "ANTISERA", 77)

    login_player(client, ana)
    client.post("/duplicate/SS1/bulletin",
                data={"bulletin": "8A ANTISERA, 8H ANTISERA, 7B ENTRAILS ; 3"})
    assert _mail(app, bob, "SS1", "8H ANTISERA, 8H ANTISERA, H2 ENTRAILS ; 2")[1] == (
        "processed")
    [receipt] = [m for m in _outbox(db_session, "receipt") if m.to_addr == "bob@example.fr"]
    assert "Bulletin lu : 8H ANTISERA, 8H ANTISERA, H2 ENTRAILS ; 2" in receipt.body_text

    frozen_clock.move_to(START + DAY)
    assert lifecycle.run_due(now=clock.now()) == ["close:SS1:1", "correct:SS1:1"]
    with client.session_transaction() as sess:
        sess.clear()
        sess["arbitre_id"] = arbitre_id
    console = client.get("/console/duplicate/SS1").get_data(as_text=True)
    assert "Les 3 scrabbles du tour" in console and "7B ENTRAILS (61)" in console
    url = "/console/duplicate/SS1/tours/1/top"
    resp = console_post(client, url, data={"ref": "H2", "word": "ENTRAILS", "reason": "essai"},
                       follow_redirects=True)
    assert "« H2 ENTRAILS » n&#39;est pas un scrabble du tirage RETAINS" in resp.get_data(
        as_text=True)
    assert console_post(client, url, data={"ref": "7B", "word": "ENTRAILS",
                                  "reason": "le plus joli"}).status_code == 302
    frozen_clock.move_to(START + DAY + timedelta(hours=2))
    assert lifecycle.run_due(now=clock.now()) == ["publish:SS1:1", "finish:SS1:1"]
    r1 = _round(db_session, 1)
    assert [(x["name"], x["score"], x["kind"], x["warnings"]) for x in r1.results] == [
        ("Ana", 3, "valide", 0), ("Bob", 1, "avertissement", 1), ("Cid", 0, "absent", 0)]
    assert r1.results[1]["reason"] == ("1 scrabble(s) valable(s) ; 1 non valable(s) ; "
                                       "1 répété(s) ; avertissement : nombre écrit 2, "
                                       "3 scrabbles listés.")
    from scoring.board import Board

    board = Board.from_cgp(r1.grid_after or "")
    assert "".join(board.cells[r * 15 + 6] for r in range(1, 9)) == "ENTRAILS"
    [res_bob] = [m for m in _outbox(db_session, duplicate.KIND_RESULTS)
                 if m.to_addr == "bob@example.fr"]
    assert res_bob.subject == "Superscrabble (SS1) — résultats du tour 1 : 1 sur 3"
    assert "Scrabble posé : 7B ENTRAILS — 61 points." in res_bob.body_text
    db_session.expire_all()
    g = db_session.exec(select(DuplicateGame).where(DuplicateGame.code == "SS1")).one()
    rows = duplicate.standings(db_session, g)
    assert [(r["rank"], r["name"], r["total"], r["warnings"]) for r in rows] == [
        (1, "Ana", 3, 0), (2, "Bob", 1, 1), (3, "Cid", 0, 0)]


def test_metagramme_swap_by_web_and_mail(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    """Métagramme: « le joueur peut échanger une lettre du tirage contre une lettre du
    stock » (RULES §9.3). The draw ZEIBCDS holds no A: with one letter given back for an A
    of the stock, ZAS covers the star: H6 (Z H6, A H7, S on the star H8), (10 + 1 + 1) × 2 =
    24; H7 and H8 score 24 too, the smaller reference wins.
    - Ana by the web: « H7 ZAS 24 -E +A » → 24.
    - Bob by mail: « H7 ZAS 24 +A » without the letter given back → zero.
    - Cid by mail: « H8 ZAS 24 -Z +A » gives back the Z his word needs → zero.
    """
    _words(app, tmp_path)
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    cid = make_player("Cid", "cid@example.fr")
    duplicate.create_game(
        session=db_session, competition=competition, title="Méta", code="M1",
        settings=DuplicateSettings(lang="fr", rounds=1), rhythm={"kind": "hours", "hours": 24},
        starts_at=START, lexicon_name="za", bag_order=_bag("ZEIBCDS"), variant="metagramme",
        review_minutes=60)
    db_session.commit()
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:M1:1"]
    r1 = _round(db_session, 1)
    top = r1.top or {}
    assert r1.draw["rack"] == "ZEIBCDS" and len(r1.draw["stock"]) == 102 - 7
    assert (top["ref"], top["word"], top["score"], top["chosen"]) == ("H6", "ZAS", 24, "A")
    swapped = top["swapped"]
    # B, C, D, E or I may go back for the same move: the last tie-break of the variant top
    # order is the given-back letter, alphabetically (docs/VARIANTS.md), so B
    assert swapped == "B"
    login_player(client, ana)
    client.post("/duplicate/M1/bulletin", data={"bulletin": "H7 ZAS 24 -E +A"})
    assert _mail(app, bob, "M1", "H7 ZAS 24 +A")[1] == "processed"
    assert _mail(app, cid, "M1", "H8 ZAS 24 -Z +A")[1] == "processed"
    frozen_clock.move_to(START + DAY)
    assert lifecycle.run_due(now=clock.now()) == ["close:M1:1", "correct:M1:1"]
    r1 = _round(db_session, 1)
    assert [(x["name"], x["score"], x["kind"]) for x in r1.results] == [
        ("Ana", 24, "valide"), ("Bob", 0, "nul"), ("Cid", 0, "nul")]
    assert r1.results[1]["reason"] == "Nul : 1 lettre(s) choisie(s), 0 au plus."
    # the arbitre retains Ana's move, with her letters: the E goes back to the bag
    login_arbitre(client, db_session)
    resp = console_post(client, "/console/duplicate/M1/tours/1/top",
                       data={"ref": "H7", "word": "ZAS +A", "reason": "essai"},
                       follow_redirects=True)
    assert "la lettre rendue et la lettre choisie vont ensemble" in resp.get_data(
        as_text=True)
    assert console_post(client, "/console/duplicate/M1/tours/1/top",
                       data={"ref": "H7", "word": "ZAS -E +A", "reason": "comme Ana"}
                       ).status_code == 302
    top = _round(db_session, 1).top or {}
    assert (top["ref"], top["score"], top["chosen"], top["swapped"]) == ("H7", 24, "A", "E")
    frozen_clock.move_to(START + DAY + timedelta(hours=1))
    assert lifecycle.run_due(now=clock.now()) == ["publish:M1:1", "finish:M1:1"]
    db_session.expire_all()
    g = db_session.exec(select(DuplicateGame).where(DuplicateGame.code == "M1")).one()
    state = GameState.from_text(g.state_text)
    # the reliquat: ZEIBCDS less the E given back, less Z and S played = IBCD; the E is
    # back at the end of the bag, the A taken from it
    assert state.reliquat == "IBCD" and state.bag[-1] == "E"
    assert list(state.bag).count("A") == 9 - 1


def test_console_variant_rules(
    app: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    tmp_path: Path,
) -> None:
    """The console sets Tactique's order of the groups (« au choix des joueurs ou … imposé »,
    RULES §9.1); a value outside the list is refused in French."""
    _words(app, tmp_path)
    login_arbitre(client, db_session)
    form = {"title": "Tactique imposée", "code": "TI1", "competition_id": str(competition.id),
            "lang": "fr", "rounds": "3", "rhythm": "hours", "hours": "24",
            "starts_at": "2026-05-10T13:00", "timezone": "Europe/Bucharest",
            "solo_rule": "auto", "solo_points": "10", "warning_conversion_from": "4",
            "review_minutes": "0", "seed": "5", "lexicon": "za", "variant": "tactique",
            "tactique_order": "group2_first"}
    bad = client.post("/console/duplicate", data={**form, "tactique_order": "hasard"})
    assert bad.status_code == 400
    assert "Réglage tactique_order : valeur &#39;hasard&#39; refusée" in bad.get_data(
        as_text=True)
    assert client.post("/console/duplicate", data=form).status_code == 302
    with app.app_context():
        db_session.expire_all()
        g = db_session.exec(select(DuplicateGame).where(DuplicateGame.code == "TI1")).one()
        assert (g.variant, g.settings["tactique_order"]) == ("tactique", "group2_first")
        assert g.settings["duplicate"]["rounds"] == 3
        assert duplicate.variant_settings_of(g).tactique_order == "group2_first"


def test_superjoker_two_chosen_letters(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    """Superjoker: « le tirage de 5 lettres est complété par 2 lettres choisies par le
    joueur » (RULES §9.3). The draw ZEIBC (E I vowels, Z B C consonants) holds neither A nor
    S; choosing both plays ZAS over the star: H6 (Z H6, A H7, S on H8), (10 + 1 + 1) × 2 =
    24, tied with H7 and H8; the smaller reference wins: « H6 ZAS 24 +AS ».
    - Ana: « H6 ZAS 24 +AS » → 24. Bob: « H7 ZAS 24 +A » (the S is not his) → zero.
    - Cid: « H8 ZA 22 +AS » (the S chosen and left unused) → ZA on the star: 22.
    """
    _words(app, tmp_path)
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    cid = make_player("Cid", "cid@example.fr")
    duplicate.create_game(
        session=db_session, competition=competition, title="SJ", code="SJ1",
        settings=DuplicateSettings(lang="fr", rounds=1), rhythm={"kind": "hours", "hours": 24},
        starts_at=START, lexicon_name="za", bag_order=_bag("ZEIBC"), variant="superjoker")
    db_session.commit()
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:SJ1:1"]
    r1 = _round(db_session, 1)
    top = r1.top or {}
    assert r1.draw["rack"] == "ZEIBC" and len(r1.draw["stock"]) == 102 - 5
    assert (top["ref"], top["word"], top["score"], top["chosen"]) == ("H6", "ZAS", 24, "AS")
    login_player(client, ana)
    client.post("/duplicate/SJ1/bulletin", data={"bulletin": "H6 ZAS 24 +AS"})
    assert _mail(app, bob, "SJ1", "H7 ZAS 24 +A")[1] == "processed"
    assert _mail(app, cid, "SJ1", "H8 ZA 22 +AS")[1] == "processed"
    frozen_clock.move_to(START + DAY)
    assert lifecycle.run_due(now=clock.now()) == [
        "close:SJ1:1", "correct:SJ1:1", "publish:SJ1:1", "finish:SJ1:1"]
    r1 = _round(db_session, 1)
    assert [(x["name"], x["score"]) for x in r1.results] == [
        ("Ana", 24), ("Bob", 0), ("Cid", 22)]
    assert r1.results[1]["kind"] == "nul"
    [res] = [m for m in _outbox(db_session, duplicate.KIND_RESULTS)
             if m.to_addr == "cid@example.fr"]
    assert "Top : H6 ZAS +AS — 24 points." in res.body_text


def test_tactique_console_retains_another_sequence(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    """The arbitre retains his own Tactique sequence (like the Duplicate's « any legal move »
    as top): a preview first, audited, then the game goes on from that grid.

    Word list {ZA, ZAS, AS}. Round 1 groups ZAEIBCD / SEOUFGH: the engine's top is H7 ZA 22
    + H7 ZAS 12 = 34 (Z A S on H7 H8 H9). The arbitre retains « H8 ZA + H8 ZAS »: ZA on the
    star H8 and H9, (10 + 1) × 2 = 22, then S on H10 (no premium): 10 + 1 + 1 = 12, 34 too.
    Ana's billet (the engine's sequence) is worth 34 against either top. Refused in French:
    a word its group cannot form, a lone word while the other group can still play, no
    reason.

    Round 2 is drawn on the arbitre's grid (Z A S on H8 H9 H10): groups EIBCD+AA and
    EOUFGH+A (each group's reliquat, then the bag's next letters, three A's). AS down onto
    the S (column 10): A on G10 (no premium) + S = 1 + 1 = 2; ZA down from the Z (column
    8): A on I8 (no premium), 10 + 1 = 11; sum 13, group 1 first (AS), group 2 (ZA) after.
    On the engine's grid (Z A S on H7 H8 H9) the same words would have put the A's on G9
    and I7, double letters: AS 2 + 1 = 3, ZA 10 + 2 = 12, sum 15. Tops 34 + 13 = 47."""
    words = tmp_path / "zas.txt"
    words.write_text("ZA\nZAS\nAS\n", "utf-8")
    app.config["LEXICONS"] = {"zas": str(words)}
    ana = make_player("Ana", "ana@example.ro")
    game = duplicate.create_game(
        session=db_session, competition=competition, title="Tactique", code="TA2",
        settings=DuplicateSettings(lang="fr", rounds=2), rhythm={"kind": "hours", "hours": 24},
        starts_at=START, lexicon_name="zas", bag_order=_bag("ZAEIBCDSEOUFGH" + "AAA"),
        variant="tactique", review_minutes=60)
    db_session.commit()
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:TA2:1"]
    assert (_round(db_session, 1).top or {})["notation"] == "H7 ZA 22 + H7 ZAS 12 = 34"
    duplicate.submit_bulletin(session=db_session, player=ana, game=game,
                              text="H7 ZA 22 + H7 ZAS 12 = 34", channel="web",
                              received_at=clock.now())
    db_session.commit()
    frozen_clock.move_to(START + DAY)
    assert lifecycle.run_due(now=clock.now()) == ["close:TA2:1", "correct:TA2:1"]

    login_arbitre(client, db_session)
    url = "/console/duplicate/TA2/tours/1/top"
    console = client.get("/console/duplicate/TA2").get_data(as_text=True)
    assert "Autre suite de deux mots" in console
    for data, message in (
        ({"ref": "H8 + H8", "word": "ZAS + ZA", "reason": "essai"},
         "n&#39;est pas jouable avec le groupe 1 (ZAEIBCD)"),
        ({"ref": "H7", "word": "ZA", "reason": "essai"}, "il faut deux mots"),
        ({"ref": "H8 + H8", "word": "ZA + ZAS", "reason": " "}, "Indiquez le motif"),
    ):
        resp = client.post(url, data=data, follow_redirects=True)
        assert message in resp.get_data(as_text=True), data
    preview = client.post(url, data={"ref": "H8 + H8", "word": "ZA + ZAS",
                                     "reason": "choix de l'arbitre"}).get_data(as_text=True)
    assert "H7 + H7 ZA + ZAS (34)" in preview and "H8 + H8 ZA + ZAS (34)" in preview
    assert _round(db_session, 1).top_overridden_by is None  # a preview stores nothing
    assert console_post(client, url, data={"ref": "H8 + H8", "word": "ZA + ZAS",
                                           "reason": "choix de l'arbitre"}).status_code == 302
    r1 = _round(db_session, 1)
    top = r1.top or {}
    assert (top["first_group"], top["notation"], top["score"]) == (
        1, "H8 ZA 22 + H8 ZAS 12 = 34", 22 + 12)
    assert r1.top_overridden_by is not None
    assert [(x["name"], x["score"]) for x in r1.results] == [("Ana", 34)]
    from webapp.models import AuditLog

    assert db_session.exec(select(AuditLog).where(
        AuditLog.action == "duplicate.override_top")).first() is not None

    frozen_clock.move_to(START + DAY + timedelta(hours=1))
    assert lifecycle.run_due(now=clock.now()) == ["publish:TA2:1", "draw:TA2:2"]
    from scoring.board import Board

    r1 = _round(db_session, 1)
    board = Board.from_cgp(r1.grid_after or "")
    assert [board.cells[7 * 15 + c] for c in (6, 7, 8, 9)] == ["", "Z", "A", "S"]
    r2 = _round(db_session, 2)
    assert r2.grid_before == r1.grid_after
    assert [g["rack"] for g in r2.draw["groups"]] == ["EIBCDAA", "EOUFGHA"]
    top2 = r2.top or {}
    assert (top2["notation"], top2["score"]) == ("10G AS 2 + 8H ZA 11 = 13", 2 + 11)
    frozen_clock.move_to(START + 2 * DAY + timedelta(hours=1))
    assert lifecycle.run_due(now=clock.now()) == ["close:TA2:2", "correct:TA2:2"]
    frozen_clock.move_to(START + 2 * DAY + timedelta(hours=2))  # the 60 min review
    assert lifecycle.run_due(now=clock.now()) == ["publish:TA2:2", "finish:TA2:2"]
    db_session.expire_all()
    g = db_session.exec(select(DuplicateGame).where(DuplicateGame.code == "TA2")).one()
    assert tactique_of(g.state_text).game.tops_total == 34 + 13


def test_g14_g15_settings_on_the_console_form(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    tmp_path: Path,
) -> None:
    """G14 (Tactique refill and rejection) and G15 (Complétif/Superjoker unused chosen
    letters) are chosen on the creation form: the defaults of RULES §11 when left alone, the
    alternatives when chosen, a value outside the list refused in French."""
    _words(app, tmp_path)
    login_arbitre(client, db_session)
    page = client.get("/console/duplicate").get_data(as_text=True)
    for name in ("tactique_refill", "tactique_rejection", "free_unused"):
        assert f'name="{name}"' in page
    base = {"title": "G", "competition_id": str(competition.id), "lang": "fr", "rounds": "3",
            "rhythm": "hours", "hours": "24", "starts_at": "2026-05-10T13:00",
            "timezone": "Europe/Bucharest", "solo_rule": "auto", "solo_points": "10",
            "warning_conversion_from": "4", "review_minutes": "0", "seed": "5",
            "lexicon": "za"}
    created = {
        "GD": {**base, "variant": "tactique"},
        "GT": {**base, "variant": "tactique", "tactique_refill": "pooled",
               "tactique_rejection": "both"},
        "GC": {**base, "variant": "completif"},
        "GS": {**base, "variant": "superjoker", "free_unused": "reliquat"},
    }
    for code, form in created.items():
        assert client.post("/console/duplicate", data={**form, "code": code}).status_code == 302
    bad = client.post("/console/duplicate", data={**base, "code": "GX", "variant": "superjoker",
                                                  "free_unused": "poubelle"})
    assert bad.status_code == 400
    assert "Réglage free_unused : valeur &#39;poubelle&#39; refusée" in bad.get_data(
        as_text=True)
    db_session.expire_all()
    got = {}
    for code in created:
        g = db_session.exec(select(DuplicateGame).where(DuplicateGame.code == code)).one()
        vs = duplicate.variant_settings_of(g)
        got[code] = (vs.tactique_refill, vs.tactique_rejection, vs.free_unused)
    assert got == {"GD": ("per_group", "group", "stock"), "GT": ("pooled", "both", "stock"),
                   "GC": ("per_group", "group", "stock"),
                   "GS": ("per_group", "group", "reliquat")}


@pytest.mark.parametrize("free_unused", ["stock", "reliquat"])
def test_superjoker_override_names_an_unused_letter(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path, free_unused: str,
) -> None:
    """G15 on the server: the arbitre retains « H7 ZA +AD » in a Superjoker (draw ZEIBC, 5
    letters): ZA = (10 + 1) × 2 = 22 places the chosen A, not the D. Default (``stock``):
    the D is no choice, it stays in the stock; round 2's reliquat is ZEIBC less Z = EIBC,
    completed with one A (the bag's next letter) to 5: EIBCA. ``reliquat``: the D leaves the
    stock and stays on the rack: EIBC + D = 5 letters, nothing new drawn."""
    _words(app, tmp_path)
    make_player("Ana", "ana@example.ro")
    game = duplicate.create_game(
        session=db_session, competition=competition, title="SJ", code="SJ9",
        settings=VariantSettings(variant="superjoker", free_unused=free_unused,  # type: ignore[arg-type]
                                 duplicate=DuplicateSettings(lang="fr", rounds=2)),
        rhythm={"kind": "hours", "hours": 24}, starts_at=START, lexicon_name="za",
        bag_order=_bag("ZEIBC" + "AAA"), variant="superjoker", review_minutes=60)
    db_session.commit()
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:SJ9:1"]
    rnd = _round(db_session, 1)
    assert rnd.draw["rack"] == "ZEIBC"
    top = duplicate.override_top(session=db_session, game=game, rnd=rnd, ref="H7",
                                 word="ZA +AD", actor="juge", reason="essai G15")
    db_session.commit()
    assert (top["word"], top["score"], top["chosen"]) == (
        "ZA", 22, "AD" if free_unused == "reliquat" else "A")
    frozen_clock.move_to(START + DAY + timedelta(hours=1))
    assert lifecycle.run_due(now=clock.now()) == [
        "close:SJ9:1", "correct:SJ9:1", "publish:SJ9:1", "draw:SJ9:2"]
    r2 = _round(db_session, 2)
    d_left = r2.draw["stock"].count("D")
    if free_unused == "reliquat":
        assert (r2.draw["reliquat"], r2.draw["new"], r2.draw["rack"]) == ("EIBCD", "", "EIBCD")
        assert d_left == 3 - 1  # French set: 3 D, one kept on the rack
    else:
        assert (r2.draw["reliquat"], r2.draw["new"], r2.draw["rack"]) == ("EIBC", "A", "EIBCA")
        assert d_left == 3
