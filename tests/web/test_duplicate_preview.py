"""The arbitre console previews a Duplicate round's other top or re-correction before
storing it (issue 10): per player the old and new verdict and solo, the ranking changes;
the confirmation stores exactly what was shown (the preview's digest), a stale preview is
refused in French and nothing is stored.

The game is tests/web/test_duplicate.py's: word list {ZA, ZAS}, round 1 draws ZAEIBCD on
the empty grid. ZA at H7 (Z on H7, A on the star H8) = (10 + 1) × 2 = 22; ZA at H8 (Z on
the star, A on H9) = (10 + 1) × 2 = 22: equal tops, the engine retains H7 (the smaller
reference).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, col, select

from tests.web.test_duplicate import START, _outbox, _round, game  # noqa: F401 (fixture)
from tests.web.test_pages import login_arbitre
from webapp.models import AuditLog, Channel, DuplicateGame, Player
from webapp.services import clock, duplicate, lifecycle

pytestmark = pytest.mark.db

DAY = timedelta(days=1)


def _digest(page: str) -> str:
    m = re.search(r'name="digest" value="([0-9a-f]{64})"', page)
    assert m is not None, page
    return m.group(1)


def _rows(page: str) -> dict[str, list[str]]:
    """Player name → the preview's cells (old kind, score, solo, reason, new kind, score,
    solo, reason)."""
    out = {}
    for row in re.findall(r'<tr class="preview-row[^"]*"[^>]*>(.*?)</tr>', page, re.S):
        cells = [re.sub(r"<[^>]+>", "", c).strip()
                 for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
        out[cells[0]] = cells[1:]
    return out


def _audits(session: Session, action: str) -> list[AuditLog]:
    session.expire_all()
    return list(session.exec(select(AuditLog).where(AuditLog.action == action)
                             .order_by(col(AuditLog.id))).all())


def test_override_top_is_previewed_then_applied(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session,
    game: DuplicateGame,  # noqa: F811
    make_player: Callable[..., Player], frozen_clock: Any,
) -> None:
    """Ana plays H8 ZA, Bob H7 ZA, Cid nothing. The round corrected (review hour), the
    arbitre retains H8 ZA instead of H7 ZA. A move's score is its own, not the top's: Ana
    (10 + 1) × 2 = 22 → 22, Bob 22 → 22, Cid absent 0 → 0; « La prime de solo est de 10
    points si 16 joueurs ou plus ; en dessous, n − 6 » (RULES §4.8): max(0, 3 − 6) = 0, solo
    0 → 0. The round is not published, so it is in no ranking yet: no rank changes."""
    ana = make_player("Ana", "ana@example.ro")
    bob = make_player("Bob", "bob@example.fr")
    make_player("Cid", "cid@example.fr")
    game.review_minutes = 60
    db_session.add(game)
    db_session.commit()
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:D1:1"]
    for p, text in ((ana, "H8 ZA 22"), (bob, "H7 ZA 22")):
        duplicate.submit_bulletin(session=db_session, player=p, game=game, text=text,
                                  channel=Channel.WEB, received_at=clock.now())
    db_session.commit()
    frozen_clock.move_to(START + DAY)
    assert lifecycle.run_due(now=clock.now()) == ["close:D1:1", "correct:D1:1"]
    login_arbitre(client, db_session)
    before = _round(db_session, 1)
    old_top, old_results = dict(before.top or {}), [dict(r) for r in before.results]

    resp = client.post("/console/duplicate/D1/tours/1/top",
                       data={"ref": "H8", "word": "ZA", "reason": "choix de l'arbitre"})
    assert resp.status_code == 200
    page = resp.get_data(as_text=True)
    assert "Rien n’est encore enregistré" in page
    assert re.search(r"H7 ZA \(22\)</span> → <strong class=\"mono\">H8 ZA \(22\)", page)
    rows = _rows(page)
    assert [(k, v[0], v[1], v[2], v[4], v[5], v[6]) for k, v in sorted(rows.items())] == [
        ("Ana", "valide", "22", "0", "valide", "22", "0"),
        ("Bob", "valide", "22", "0", "valide", "22", "0"),
        ("Cid", "absent", "0", "0", "absent", "0", "0"),
    ]
    assert "Aucun rang ne change." in page
    # nothing stored by the preview
    r1 = _round(db_session, 1)
    assert (r1.top, r1.results, r1.top_overridden_by) == (old_top, old_results, None)
    assert _audits(db_session, "duplicate.override_top") == []

    resp = client.post("/console/duplicate/D1/tours/1/top",
                       data={"ref": "H8", "word": "ZA", "reason": "choix de l'arbitre",
                             "digest": _digest(page)})
    assert resp.status_code == 302
    r1 = _round(db_session, 1)
    assert ((r1.top or {})["ref"], (r1.top or {})["score"], r1.top_overridden_by) == (
        "H8", 22, "juge")
    assert [(x["name"], x["kind"], x["score"], x["solo"]) for x in r1.results] == [
        ("Ana", "valide", 22, 0), ("Bob", "valide", 22, 0), ("Cid", "absent", 0, 0)]
    [override] = _audits(db_session, "duplicate.override_top")
    assert (override.actor, override.details["old"]["ref"], override.details["new"]["ref"]) == (
        "juge", "H7", "H8")
    [applied] = _audits(db_session, "duplicate.change_applied")
    assert (applied.details["change"], applied.details["digest"], applied.details["changed"]) == (
        "top", _digest(page), {})


def test_stale_recorrection_preview_is_refused(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session,
    game: DuplicateGame,  # noqa: F811
    make_player: Callable[..., Player], frozen_clock: Any,
) -> None:
    """Six players, only Ana answers (H7 ZA = (10 + 1) × 2 = 22); the solo is
    max(0, 6 − 6) = 0 (RULES §4.8 « en dessous, n − 6 »). Round 1 is published. The
    arbitre previews a re-correction: nothing changes. Then Gus registers: a re-correction
    now counts 7 players, solo 7 − 6 = 1 for Ana, the only one above zero: the old preview
    is refused in French and nothing is stored. A new preview shows Ana 22 + solo 0 → 22 +
    solo 1 (total 22 → 23, still first: no rank changes) and Gus (new, absent 0); applied,
    Ana (and Gus, whose result appears) get the corrected-results mail."""
    names = ["Ana", "Bob", "Cid", "Dan", "Eva", "Fil"]
    players = [make_player(n, f"{n.lower()}@example.fr") for n in names]
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:D1:1"]
    duplicate.submit_bulletin(session=db_session, player=players[0], game=game,
                              text="H7 ZA 22", channel=Channel.WEB, received_at=clock.now())
    db_session.commit()
    frozen_clock.move_to(START + DAY)
    assert lifecycle.run_due(now=clock.now())[:3] == ["close:D1:1", "correct:D1:1",
                                                     "publish:D1:1"]
    login_arbitre(client, db_session)
    r1 = _round(db_session, 1)
    assert [(x["name"], x["score"], x["solo"]) for x in r1.results][:2] == [
        ("Ana", 22, 0), ("Bob", 0, 0)]

    page = client.post("/console/duplicate/D1/tours/1/recorriger",
                       data={"reason": "contrôle"}).get_data(as_text=True)
    stale = _digest(page)
    assert _rows(page)["Ana"][1:3] == ["22", "0"] and _rows(page)["Ana"][5:7] == ["22", "0"]

    make_player("Gus", "gus@example.fr")  # registered after the preview
    resp = client.post("/console/duplicate/D1/tours/1/recorriger",
                       data={"reason": "contrôle", "digest": stale}, follow_redirects=True)
    assert "Le tour a changé depuis l&#39;aperçu" in resp.get_data(as_text=True)
    r1 = _round(db_session, 1)
    assert len(r1.results) == 6 and r1.results[0]["solo"] == 0
    assert _audits(db_session, "duplicate.recorrect") == []
    assert _outbox(db_session, duplicate.KIND_CORRECTED) == []

    page = client.post("/console/duplicate/D1/tours/1/recorriger",
                       data={"reason": "inscription tardive"}).get_data(as_text=True)
    rows = _rows(page)
    assert rows["Ana"][:3] == ["valide", "22", "0"] and rows["Ana"][4:7] == ["valide", "22",
                                                                              "1"]
    assert rows["Gus"][:3] == ["—", "—", "—"] and rows["Gus"][4:7] == ["absent", "0", "0"]
    assert rows["Bob"][1:3] == ["0", "0"] and rows["Bob"][5:7] == ["0", "0"]
    assert "Aucun rang ne change." in page
    fresh = _digest(page)
    assert fresh != stale
    resp = client.post("/console/duplicate/D1/tours/1/recorriger",
                       data={"reason": "inscription tardive", "digest": fresh})
    assert resp.status_code == 302
    r1 = _round(db_session, 1)
    assert [(x["name"], x["score"], x["solo"]) for x in r1.results
            if x["name"] in ("Ana", "Gus")] == [("Ana", 22, 1), ("Gus", 0, 0)]
    [rec] = _audits(db_session, "duplicate.recorrect")
    assert rec.details["reason"] == "inscription tardive"
    [applied] = _audits(db_session, "duplicate.change_applied")
    assert applied.details["digest"] == fresh and applied.details["change"] == "recorriger"
    mails = _outbox(db_session, duplicate.KIND_CORRECTED)
    assert sorted(m.to_addr for m in mails) == ["ana@example.fr", "gus@example.fr"]


def test_recorrection_preview_shows_the_rank_changes(
    app: Flask, ctx: Flask, client: FlaskClient, db_session: Session,
    game: DuplicateGame,  # noqa: F811
    make_player: Callable[..., Player], frozen_clock: Any,
) -> None:
    """Round 1 published with Ana's H7 ZA = (10 + 1) × 2 = 22; Bob, Cid, Dan absent (0).
    Ranking: Ana 1st (22), the three others 2nd (0). Dan's mail, sent 5 minutes before the
    deadline, reaches the server after the results (a slow relay): the re-correction
    counts it, H8 ZA = (10 + 1) × 2 = 22. Solo: max(0, 4 − 6) = 0 (RULES §4.8). New
    ranking: Ana and Dan 1st (22), Bob and Cid 3rd (0): the preview lists Dan 2 → 1, Bob
    2 → 3, Cid 2 → 3 (Ana keeps her rank: not listed)."""
    ana, _bob, _cid, dan = (make_player(n, f"{n.lower()}@example.fr")
                          for n in ("Ana", "Bob", "Cid", "Dan"))
    frozen_clock.move_to(START)
    assert lifecycle.run_due(now=clock.now()) == ["draw:D1:1"]
    duplicate.submit_bulletin(session=db_session, player=ana, game=game, text="H7 ZA 22",
                              channel=Channel.WEB, received_at=clock.now())
    db_session.commit()
    frozen_clock.move_to(START + DAY)
    assert lifecycle.run_due(now=clock.now())[:3] == ["close:D1:1", "correct:D1:1",
                                                     "publish:D1:1"]
    frozen_clock.move_to(START + DAY + timedelta(minutes=30))
    duplicate.submit_bulletin(session=db_session, player=dan, game=game, text="H8 ZA 22",
                              channel=Channel.EMAIL,
                              received_at=START + DAY - timedelta(minutes=5))
    db_session.commit()
    login_arbitre(client, db_session)
    before = [dict(r) for r in _round(db_session, 1).results]

    page = client.post("/console/duplicate/D1/tours/1/recorriger",
                       data={"reason": "courriel de Dan retardé"}).get_data(as_text=True)
    rows = _rows(page)
    assert (rows["Dan"][:3], rows["Dan"][4:7]) == (["absent", "0", "0"],
                                                   ["valide", "22", "0"])
    assert (rows["Ana"][1], rows["Ana"][5]) == ("22", "22")
    changes = re.findall(r'<li data-player="\d+">(.*?)</li>', page)
    assert changes == ["Dan : rang 2 → 1 (total 0 → 22)", "Bob : rang 2 → 3 (total 0 → 0)",
                       "Cid : rang 2 → 3 (total 0 → 0)"]
    assert [dict(r) for r in _round(db_session, 1).results] == before  # nothing stored

    resp = client.post("/console/duplicate/D1/tours/1/recorriger",
                       data={"reason": "courriel de Dan retardé", "digest": _digest(page)})
    assert resp.status_code == 302
    assert [(x["name"], x["kind"], x["score"]) for x in _round(db_session, 1).results] == [
        ("Ana", "valide", 22), ("Bob", "absent", 0), ("Cid", "absent", 0),
        ("Dan", "valide", 22)]
    assert [m.to_addr for m in _outbox(db_session, duplicate.KIND_CORRECTED)] == [
        "dan@example.fr"]
