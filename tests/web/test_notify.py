"""Outbox writes: idempotent by dedupe key, and results mails of a constant size."""

from __future__ import annotations

import pytest
from sqlmodel import Session, select

from webapp.models import OutboxMessage
from webapp.services import notify
from webapp.services.notify import ranking_excerpt

ROWS = [{"rank": i, "name": f"J{i}", "score": 1000 - i, "percent": None} for i in range(1, 101)]


def _ranks(rows):  # type: ignore[no-untyped-def]
    return [r["rank"] for r in rows]


def test_excerpt_is_the_top_then_the_players_place() -> None:
    assert ranking_excerpt(ROWS[:10], 7, top=30) == ROWS[:10]
    assert _ranks(ranking_excerpt(ROWS, 3, top=5)) == [1, 2, 3, 4, 5, "…"]
    assert _ranks(ranking_excerpt(ROWS, 50, top=5)) == [1, 2, 3, 4, 5, "…", 48, 49, 50, 51,
                                                       52, "…"]
    assert _ranks(ranking_excerpt(ROWS, 100, top=5)) == [1, 2, 3, 4, 5, "…", 98, 99, 100]
    assert _ranks(ranking_excerpt(ROWS, 7, top=5)) == [1, 2, 3, 4, 5, 6, 7, 8, 9, "…"]
    assert ranking_excerpt(ROWS, 3, top=5)[-1]["name"] == "(et 95 autres)"


def test_excerpt_with_positions_is_the_excerpt_searched_row_by_row() -> None:
    # ties (two rows of rank 4, three of rank 40) and a rank not in the ranking
    tied = [{"rank": r, "name": f"J{i}", "score": 0, "percent": None}
            for i, r in enumerate([1, 2, 3, 4, 4, 6, *range(7, 40), 40, 40, 40, *range(43, 90)])]
    positions = notify.rank_positions(tied)
    assert positions[4] == 3 and positions[40] == 39
    for rank in [*range(0, 92), None]:
        assert ranking_excerpt(tied, rank, top=5, positions=positions) == \
            ranking_excerpt(tied, rank, top=5)


@pytest.mark.db
def test_enqueue_is_idempotent_by_dedupe_key(ctx, db_session: Session) -> None:
    first = notify.enqueue(session=db_session, kind="login", to_addr="ana@example.ro",
                           template="login", context={"link": "http://x/1"},
                           dedupe_key="login:test")
    again = notify.enqueue(session=db_session, kind="login", to_addr="ana@example.ro",
                           template="login", context={"link": "http://x/2"},
                           dedupe_key="login:test")
    db_session.commit()
    assert again.id == first.id
    rows = db_session.exec(select(OutboxMessage)).all()
    assert len(rows) == 1 and "http://x/1" in rows[0].body_text
    assert rows[0].message_id.startswith("<") and rows[0].message_id.endswith("@arbitre.test>")
    assert rows[0].status == "pending" and rows[0].attempts == 0


@pytest.mark.db
def test_racing_enqueues_of_one_key_write_one_message(app, ctx, db_session: Session) -> None:
    import threading

    from webapp.db import session_scope

    barrier = threading.Barrier(4)
    ids: list[int | None] = []
    errors: list[BaseException] = []

    def go() -> None:
        try:
            with app.app_context():
                barrier.wait()
                with session_scope(app) as s:
                    msg = notify.enqueue(session=s, kind="login", to_addr="ana@example.ro",
                                         template="login", context={"link": "http://x/"},
                                         dedupe_key="reminder:J-3:P1:1")
                    s.flush()
                    ids.append(msg.id)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=go) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert errors == []
    assert len(db_session.exec(select(OutboxMessage)).all()) == 1
    assert len(set(ids)) == 1


@pytest.mark.db
def test_key_already_written_leaves_the_callers_transaction_alive(ctx, db_session: Session
                                                                  ) -> None:
    # fresh_key skips the lookup, so the insert itself meets the existing key: the row in
    # place is returned and what the caller wrote before and after still commits.
    first = notify.enqueue(session=db_session, kind="login", to_addr="ana@example.ro",
                           template="login", context={"link": "http://x/1"},
                           dedupe_key="receipt:7")
    db_session.commit()
    db_session.add(OutboxMessage(kind="login", to_addr="b@example.ro", subject="avant",
                                 body_text="t", headers={}, message_id="<avant@x>",
                                 created_at=first.created_at,
                                 next_attempt_at=first.created_at))
    again = notify.enqueue(session=db_session, kind="login", to_addr="ana@example.ro",
                           template="login", context={"link": "http://x/2"},
                           dedupe_key="receipt:7", fresh_key=True)
    other = notify.enqueue(session=db_session, kind="login", to_addr="c@example.ro",
                           template="login", context={"link": "http://x/3"},
                           dedupe_key="receipt:8", fresh_key=True)
    db_session.commit()
    assert again.id == first.id and other.id not in (None, first.id)
    rows = {r.dedupe_key: r for r in db_session.exec(select(OutboxMessage)).all()}
    assert set(rows) == {None, "receipt:7", "receipt:8"}
    assert "http://x/1" in rows["receipt:7"].body_text
    assert "http://x/3" in rows["receipt:8"].body_text and rows["receipt:8"].id == other.id
    assert rows[None].subject == "avant"
