"""The demonstration championship: every stage present, and the engine-played sheets pass
the verifier untouched (the engine's scores and the verifier's agree on every move)."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from webapp.demo import seed_demo
from webapp.models import Arbitre, Problem, Ranking, Verification

pytestmark = pytest.mark.db


def test_demo_seed(app, db_session: Session, frozen_clock, frozen_start) -> None:
    info = seed_demo(app)
    assert info is not None and info.username == "arbitre" and len(info.password) >= 12
    statuses = {p.code: (p.status, p.deadline_at - frozen_start)
                for p in db_session.exec(select(Problem)).all()}
    assert {k: v[0] for k, v in statuses.items()} == {
        "demo-partiel": "final", "demo-rangee": "open", "demo-anticipation": "open"
    }
    assert statuses["demo-anticipation"][1].days == 1  # due tomorrow
    verifications = db_session.exec(select(Verification)).all()
    assert len(verifications) == 3 and all(v.valid for v in verifications)
    for v in verifications:
        assert all(m["status"] == "valide" for m in v.report["moves"])
        assert all(m["claimed_score"] == m["true_score"] for m in v.report["moves"])
    final = db_session.exec(select(Ranking).where(Ranking.kind == "final")).one()
    assert [(r["rank"], r["name"], r["score"]) for r in final.rows] == [
        (1, "Claire Dubois", 143), (2, "Ana Popescu", 142), (3, "Bernard Lefèvre", 141)
    ]
    assert db_session.exec(select(Arbitre.username)).all() == ["arbitre"]
    assert seed_demo(app) is None  # once only
