"""The warning conversion of RULES §5.3 on the server, for the two games ranked in points
rather than in scores: « pour 4 avertissements techniques le joueur perd un point de
classement (un top) ; pour 7 … 2 ; pour 10 … 3 » — Duplicate Top (§9.2: the warnings of the
players who topped the round only) and the partie de Superscrabble (§7.7: « avertissements
comme au §5.3 »). Whole games with the frozen clock: created, drawn, closed, corrected and
published by ``lifecycle.run_due``, bulletins by web and by e-mail; the published standings,
the game's page (results) and the final mail checked with the arithmetic written here.

The engine's side of the conversion (4 → 1, 7 → 2, 10 → 3) is
tests/puzzles/test_variants.py::test_duplicate_top_warning_conversion.
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
from sqlmodel import Session

from puzzles.duplicate import DuplicateSettings
from puzzles.variants import VariantSettings
from scoring.tiles import tileset
from tests.web.test_duplicate import START, _mail, _outbox, _round
from tests.web.test_pages import login_player
from tests.web.za_game import use_word_list
from webapp.models import Competition, DuplicateGame, DuplicateStatus, Player
from webapp.services import clock, duplicate, lifecycle

pytestmark = pytest.mark.db

DAY = timedelta(days=1)
HOUR = timedelta(hours=1)


def _bag(first: str) -> str:
    rest = tileset("fr").bag() - Counter(first)
    return first + "".join(sorted(rest.elements()))


def _ranking_cell(page: str, name: str) -> str:
    """The « Points » / « Total » cell of ``name``'s row in the game page's ranking."""
    # (the name links to the player's page)
    m = re.search(rf"<td><a [^>]*>{name}</a></td>\s*<td>(.*?)</td>", page, re.S)
    assert m, f"no ranking row for {name}"
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", m.group(1))).strip()


def _final(db_session: Session, addr: str, *, html: bool = False) -> str:
    [mail] = [m for m in _outbox(db_session, duplicate.KIND_FINAL) if m.to_addr == addr]
    return (mail.body_html or "") if html else mail.body_text


def test_duplicate_top_four_warnings_cost_a_top_on_the_server(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    """Duplicate Top, four rounds, word list {ZA, ZAS, BE}, the bag ZAEIBCD | SE | A | S …
    (French values: Z 10, A 1, S 1, B 3, E 1).

    The tops (one move each, the arithmetic of tests/web/test_duplicate.py for rounds 1–2):
    - round 1, ZAEIBCD: H7 ZA, Z on H7, A on the star H8: (10 + 1) × 2 = 22 (H8 ZA the tie);
      H8 BE, B on the star: (3 + 1) × 2 = 8 is not a top;
    - round 2, EIBCD + SE: H7 ZAS, the S on H9: 10 + 1 + 1 = 12;
    - round 3, EIBCDE + A: 7H ZA down from the Z, the A on I7 (double letter): 10 + 1 × 2 = 12;
    - round 4, EIBCDE + S: 7H ZAS, the S on J7 (no premium): 10 + 1 + 1 = 12.

    Bulletins (a wrong or missing score: the true score credited with one warning, RULES §4.7):
    - Ana (web) the four tops, every score right → 4 tops, 0 warning;
    - Bob (e-mail) the four tops, every score wrong → 4 tops, 4 warnings → 1 + (4 − 4) // 3 =
      1 top lost: 4 − 1 = 3 points;
    - Dan (web) round 1 « H8 BE 10 » (8, a warning — not a topper: his warning does not
      count, §9.2), rounds 2–4 the tops with a wrong or missing score → 3 tops, 3 counted
      warnings (4 in all) → nothing lost: 3 points.
    Companions Σ (toppers − 1): round 1 Ana + Bob → 1 each; rounds 2–4 Ana + Bob + Dan → 2
    each. Ana 1 + 2 + 2 + 2 = 7, Bob 7, Dan 2 + 2 + 2 = 6. Topped totals: Ana and Bob
    22 + 12 + 12 + 12 = 58, Dan 12 × 3 = 36.
    Ranking: Ana 4; then Bob and Dan 3 points each — fewer companions first: Dan (6) 2nd, Bob
    (7) 3rd. Without the conversion Bob would share the 1st place with Ana (4 points,
    companions 7, topped 58 each); after round 3 he does (3 tops, 3 warnings: nothing lost;
    companions 1 + 2 + 2 = 5 and topped 22 + 12 + 12 = 46 like Ana). The mails and the page
    show the lost top: « 3 (−1 avert.) ».
    """
    use_word_list(app, tmp_path, "ZA\nZAS\nBE\n")
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    dan = make_player("Dan", "dan@example.fr")
    game = duplicate.create_game(
        session=db_session, competition=competition, title="Top", code="TW1",
        settings=VariantSettings(variant="top",
                                 duplicate=DuplicateSettings(lang="fr", rounds=4)),
        rhythm={"kind": "hours", "hours": 24}, starts_at=START, lexicon_name="za",
        bag_order=_bag("ZAEIBCDSEAS"), variant="top")
    db_session.commit()
    plays = [  # (Ana by the web, Bob by mail, Dan by the web)
        ("H7 ZA 22", "H8 ZA 20", "H8 BE 10"),
        ("H7 ZAS 12", "H7 ZAS 10", "H7 ZAS 11"),
        ("7H ZA 12", "7H ZA 21", "7H ZA 13"),
        ("7H ZAS 12", "7H ZAS 2", "7H ZAS"),
    ]
    tops = [("H7", "ZA", 22), ("H7", "ZAS", 12), ("7H", "ZA", 12), ("7H", "ZAS", 12)]
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:TW1:1"]
    for n, (a, b, d) in enumerate(plays, 1):
        rnd = _round(db_session, n)
        top = rnd.top or {}
        assert (top["ref"], top["word"], top["score"]) == tops[n - 1]
        frozen_clock.move_to(START + (n - 1) * DAY + HOUR)
        login_player(client, ana)
        assert client.post("/duplicate/TW1/bulletin", data={"bulletin": a}).status_code == 302
        assert _mail(app, bob, "TW1", b)[1] == "processed"
        login_player(client, dan)
        assert client.post("/duplicate/TW1/bulletin", data={"bulletin": d}).status_code == 302
        frozen_clock.move_to(START + n * DAY)
        steps = lifecycle.run_due(now=clock.now())
        assert steps[:3] == [f"close:TW1:{n}", f"correct:TW1:{n}", f"publish:TW1:{n}"]
        assert steps[3:] == ([f"draw:TW1:{n + 1}"] if n < 4 else ["finish:TW1:4"])

    r1 = _round(db_session, 1)
    assert [(x["name"], x["score"], x["warnings"]) for x in r1.results] == [
        ("Ana", 22, 0), ("Bob", 22, 1), ("Dan", 8, 1)]
    for n in (2, 3, 4):
        assert [(x["name"], x["score"], x["warnings"]) for x in _round(db_session, n).results
                ] == [("Ana", 12, 0), ("Bob", 12, 1), ("Dan", 12, 1)]
    db_session.expire_all()
    g = db_session.get(DuplicateGame, game.id)
    assert g is not None and g.status == DuplicateStatus.FINISHED
    rows = duplicate.standings(db_session, g)
    # (rank, name, points, tops, companions, topped total, counted warnings, tops lost)
    assert [(r["rank"], r["name"], r["total"], r["tops"], r["companions"], r["topped_total"],
             r["warnings"], r["warning_deduction"]) for r in rows] == [
        (1, "Ana", 4, 4, 7, 58, 0, 0),
        (2, "Dan", 3, 3, 6, 36, 3, 0),   # 3 counted warnings < 4: nothing lost
        (3, "Bob", 3, 4, 7, 58, 4, 1),   # 4 − 1 = 3
    ]
    # the game's page: the final ranking (the game is over) shows Bob's lost top
    page = client.get("/duplicate/TW1").get_data(as_text=True)
    assert "Classement final" in page and "Classement après le tour" not in page
    assert _ranking_cell(page, "Ana") == "4"
    assert _ranking_cell(page, "Dan") == "3"
    assert _ranking_cell(page, "Bob") == "3 (−1 avert.)"
    # round 4's results and the final ranking by mail
    res_bob = [m for m in _outbox(db_session, duplicate.KIND_RESULTS)
               if m.to_addr == "bob@example.fr"]
    assert len(res_bob) == 4
    # round 3's: Bob 3 tops, 3 warnings — nothing lost yet; round 4's: the 4th costs a top
    # (Ana 3 too: the first place shared)
    assert "Vos points de classement (tours topés) : 3 — 1er ex æquo sur 3." in res_bob[2].body_text
    assert ("Vos points de classement (tours topés) : 3 (−1 avert.) — 3e sur 3."
            in res_bob[3].body_text)
    final_bob = _final(db_session, "bob@example.fr")
    assert "Vos points de classement (tours topés) : 3 (−1 avert.) — 3e." in final_bob
    assert "<td>3 (−1 avert.)</td>" in _final(db_session, "bob@example.fr", html=True)
    assert re.search(r"1\. Ana — 4\n+\s+2\. Dan — 3\n+\s+3\. Bob — 3 \(−1 avert\.\)\n",
                     final_bob), final_bob
    assert "Vos points de classement (tours topés) : 3 — 2e." in _final(
        db_session, "dan@example.fr")
    assert "Vos points de classement (tours topés) : 4 — 1er." in _final(
        db_session, "ana@example.ro")


def test_superscrabble_four_warnings_cost_a_point_on_the_server(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    make_player: Callable[..., Player], frozen_clock: Any, tmp_path: Path,
) -> None:
    """Partie de Superscrabble, four rounds of RETAINS on LA (H7), word list {LA, ENTRAILS,
    ANTISERA, STAINERS}; the engine places its choice each round (no review time): the best
    score, then the FISF order.
    - round 1: 8A ANTISERA down column 8, ending on the A of LA (H8): 1 × 8 letters + the
      double letter D8 (I) = 9, × 3 (A8) = 27, + 50 = 77;
    - round 2: A1 ANTISERA along row A, ending on the A of A8 (no premium for a tile
      already there): 8 + 1 (the I on A4, a double letter) = 9, × 3 (A1) = 27, + 50 = 77;
    - round 3: 1A ANTISERA down column 1 from the A of A1: 9 (the I on D1, a double
      letter) × 3 (H1) = 27, + 50 = 77;
    - round 4: E8 STAINERS along row E from the S of column 8 (E8), the 7 tiles on E9–E15:
      8 × 2 (the I on E11, a double word) = 16, + 50 = 66.
    One point per valid scrabble; a sheet's count missing or not the number of scrabbles
    written → one warning (RULES §7.7, INFERRED); warnings converted as §5.3.
    - Ana (web) each round the placed scrabble « ; 1 » → 4 points, 0 warning;
    - Bob (e-mail) each round the placed scrabble, no count → 4 valid, 4 warnings →
      1 + (4 − 4) // 3 = 1 point lost: 4 − 1 = 3;
    - Cid (e-mail) rounds 1–3 the placed scrabble « ; 2 » (2 written for 1 listed), no sheet
      in round 4 → 3 valid, 3 warnings → nothing lost: 3.
    Ranking: Ana 4; Bob and Cid 3 each, the shared 2nd place (listed by name).
    """
    use_word_list(app, tmp_path, "LA\nENTRAILS\nANTISERA\nSTAINERS\n", name="ss")
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    cid = make_player("Cid", "cid@example.fr")
    game = duplicate.create_game(
        session=db_session, competition=competition, title="Superscrabble", code="SW1",
        settings=DuplicateSettings(lang="fr"), rhythm={"kind": "hours", "hours": 24},
        starts_at=START, lexicon_name="ss", variant="superscrabble",
        superscrabble={"start": "H7 LA", "racks": ["RETAINS"] * 4})
    db_session.commit()
    placed = ["8A ANTISERA", "A1 ANTISERA", "1A ANTISERA", "E8 STAINERS"]
    scores = [77, 77, 77, 66]
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:SW1:1"]
    for n, scrabble in enumerate(placed, 1):
        top = _round(db_session, n).top or {}
        assert (f"{top['ref']} {top['word']}", top["score"]) == (scrabble, scores[n - 1])
        frozen_clock.move_to(START + (n - 1) * DAY + HOUR)
        login_player(client, ana)
        assert client.post("/duplicate/SW1/bulletin",
                           data={"bulletin": f"{scrabble} ; 1"}).status_code == 302
        assert _mail(app, bob, "SW1", scrabble)[1] == "processed"
        if n < 4:
            assert _mail(app, cid, "SW1", f"{scrabble} ; 2")[1] == "processed"
        frozen_clock.move_to(START + n * DAY)
        steps = lifecycle.run_due(now=clock.now())
        assert steps[:3] == [f"close:SW1:{n}", f"correct:SW1:{n}", f"publish:SW1:{n}"]
        assert steps[3:] == ([f"draw:SW1:{n + 1}"] if n < 4 else ["finish:SW1:4"])

    for n in (1, 2, 3):
        assert [(x["name"], x["score"], x["warnings"]) for x in _round(db_session, n).results
                ] == [("Ana", 1, 0), ("Bob", 1, 1), ("Cid", 1, 1)]
    assert [(x["name"], x["score"], x["warnings"]) for x in _round(db_session, 4).results
            ] == [("Ana", 1, 0), ("Bob", 1, 1), ("Cid", 0, 0)]
    db_session.expire_all()
    g = db_session.get(DuplicateGame, game.id)
    assert g is not None and g.status == DuplicateStatus.FINISHED
    rows = duplicate.standings(db_session, g)
    # (rank, name, points, warnings, points lost, per-round valid scrabbles)
    assert [(r["rank"], r["name"], r["total"], r["warnings"], r["warning_deduction"],
             r["scores"]) for r in rows] == [
        (1, "Ana", 4, 0, 0, [1, 1, 1, 1]),
        (2, "Bob", 3, 4, 1, [1, 1, 1, 1]),   # 1 + 1 + 1 + 1 − 1 = 3
        (2, "Cid", 3, 3, 0, [1, 1, 1, 0]),   # 3 warnings < 4: nothing lost
    ]
    page = client.get("/duplicate/SW1").get_data(as_text=True)
    assert "Classement final" in page and "Classement après le tour" not in page
    assert _ranking_cell(page, "Ana") == "4"
    assert _ranking_cell(page, "Bob") == "3 (−1 avert.)"
    assert _ranking_cell(page, "Cid") == "3"
    final_bob = _final(db_session, "bob@example.fr")
    # Bob and Cid share the second place: « ex æquo » in the rank and the ranking's rows
    assert "Vos scrabbles valables (total) : 3 (−1 avert.) — 2e ex æquo." in final_bob
    assert re.search(r"1\. Ana — 4\n+\s+2\. ex æquo Bob — 3 \(−1 avert\.\)\n+"
                     r"\s+2\. ex æquo Cid — 3\n", final_bob), final_bob
    assert "Vos scrabbles valables (total) : 3 — 2e ex æquo." in _final(db_session,
                                                                       "cid@example.fr")
    assert "Vos scrabbles valables (total) : 4 — 1er." in _final(db_session, "ana@example.ro")
