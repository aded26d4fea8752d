"""The batch's fast paths write what the unit of work writes: a batch of varied messages
through ``process_batch`` (the rows' outcomes set as loaded state and written by one
``UPDATE``, the sheets and receipts written from their values at the batch's end) leaves
the same rows as the same messages processed each in its savepoint, the reference path
(every row set on its model object and flushed)."""

from __future__ import annotations

import itertools
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from flask import Flask

from tests.mail.conftest import ANA, BOGDAN, Seed, add_problem, eml, seed_database
from tests.mail.helpers import make_mail

pytestmark = [pytest.mark.db, pytest.mark.mail]

TO = f"feuilles+{ANA[2]}@arbitre.test"
FROM = "ana.ionescu@example.org"


def _messages() -> list[tuple[bytes, str, str]]:
    """(raw, envelope sender, envelope recipient): sheets, versions, a copy, refusals,
    strangers, an automatic answer, a bounce, an ambiguous and an empty sheet."""
    def sheet(i: int, body: str, *, frm: str = FROM, to: str = TO,
              subject: str = "I3") -> tuple[bytes, str, str]:
        return make_mail(frm=frm, to=to, subject=subject, body=body,
                         message_id=f"<r{i}@example.org>"), frm, to

    first = sheet(0, "1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 166")
    bogdan_to = f"feuilles+{BOGDAN[2]}@arbitre.test"
    return [
        first,
        first,  # the same bytes: a duplicate
        sheet(2, "1 ACEFHIR h8 FICHERA 82 82\n2 ZZ?? 99 n'importe quoi"),  # errors
        sheet(3, "1 ACEFHIR h8 FICHERA 82 82", frm=BOGDAN[1], to=bogdan_to),  # not registered
        sheet(4, "1 ACEFHIR h8 FICHERA 82 82", frm="inconnu@example.com",
              to="feuilles@arbitre.test"),  # no token: the instructions
        sheet(5, "1 ACEFHIR h8 FICHERA 82 82", to=bogdan_to),  # another's token
        sheet(6, "   "),  # no sheet in it
        sheet(7, "1 ACEFHIR h8 FICHERA 82 82", subject=""),  # two problems open: which?
        (eml("auto_reply.eml"), "robot@example.org", TO),
        (eml("bounce_dsn.eml"), "", "bounces@arbitre.test"),
        sheet(10, "1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 166", subject="I4"),
        sheet(11, "1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 167"),  # replaces n° 2
    ]


def _rows(app: Flask) -> dict[str, list[dict[str, Any]]]:
    """Every row the processing writes, by table (the outbox and audit rows without their
    ids: the batch writes its receipts and audit entries at its end, after the answers
    written on the way)."""
    from webapp.db import get_engine
    from webapp.models import AuditLog, InboundMessage, OutboxMessage, Submission

    out: dict[str, list[dict[str, Any]]] = {}
    with get_engine(app).connect() as conn:
        for model, drop in ((InboundMessage, ()), (Submission, ()),
                            (OutboxMessage, ("id",)), (AuditLog, ("id",))):
            table = model.__table__  # type: ignore[attr-defined]
            found = [{k: v for k, v in r._asdict().items() if k not in drop}
                     for r in conn.execute(sa.select(table).order_by(table.c.id))]
            out[table.name] = sorted(found, key=repr) if drop else found
    return out


def _run(app: Flask, monkeypatch: pytest.MonkeyPatch, reference: bool) -> tuple[Any, Any]:
    """A fresh database, the messages stored, then processed as one batch (or, reference,
    each in its savepoint); the statuses and the rows."""
    from sqlmodel import SQLModel

    import webapp.services.notify as notify
    from mailer import pipeline
    from mailer.settings import MailSettings
    from mailer.txn import write_scope
    from webapp.db import get_engine, session_scope
    from webapp.models import Registration

    engine = get_engine(app)
    SQLModel.metadata.drop_all(engine)
    SQLModel.metadata.create_all(engine)
    seed = seed_database(app)
    add_problem(app, seed, "I4", "Intégral n° 4")
    with app.app_context(), session_scope(app) as s:
        s.execute(sa.delete(Registration).where(Registration.player_id == seed.bogdan_id))
    counter = itertools.count()
    monkeypatch.setattr(notify, "make_msgid", lambda domain: f"<m{next(counter)}@{domain}>")
    ids = pipeline.store_many(app, [
        pipeline.Incoming(raw, "smtp", frm, [to], datetime(2026, 5, 10, 9, tzinfo=UTC))
        for raw, frm, to in _messages()])
    if reference:
        result: dict[int, Any] = {}
        with app.app_context(), write_scope(app) as session:
            pipeline._take_write_lock(session, ids)
            pipeline._process_loaded(session, MailSettings.from_config(app.config), ids,
                                     result, savepoints=True)
    else:
        result = pipeline.process_batch(app, ids)
    return result, _rows(app)


def test_a_batch_writes_the_rows_the_unit_of_work_writes(
    app: Flask, monkeypatch: pytest.MonkeyPatch, frozen_clock: Any
) -> None:
    app.config["SUBMISSIONS_PER_WINDOW"] = 10
    fast, fast_rows = _run(app, monkeypatch, reference=False)
    slow, slow_rows = _run(app, monkeypatch, reference=True)
    assert fast == slow
    assert sorted(set(fast.values())) == ["duplicate", "ignored", "processed"]
    assert len(fast_rows["submission"]) == 4 and len(fast_rows["outbox_message"]) >= 8
    assert fast_rows == slow_rows


def test_the_flushes_of_a_batch_of_sheets_have_nothing_to_write(app: Flask, seed: Seed) -> None:
    """Each message's flush finds the session clean: its row's outcome, its sheet and its
    receipt are the batch's to write at the end, so no flush walks a row (a flush of a
    clean session returns before its ``before_flush``)."""
    from sqlmodel import Session

    from mailer import pipeline

    ids = pipeline.store_many(app, [
        pipeline.Incoming(make_mail(frm=FROM, to=TO, subject="I3",
                                    body=f"1 ACEFHIR h8 FICHERA 82 {82 + i}"),
                          "smtp", FROM, [TO], datetime.now(UTC)) for i in range(5)])
    flushes: list[int] = []

    def count(session: Any, context: Any, instances: Any) -> None:
        flushes.append(len(session.dirty) + len(session.new))

    sa.event.listen(Session, "before_flush", count)
    try:
        assert set(pipeline.process_batch(app, ids).values()) == {"processed"}
    finally:
        sa.event.remove(Session, "before_flush", count)
    assert flushes == []


def test_sheet_values_are_the_model_objects() -> None:
    """``_sheet_values`` gives what ``Submission(**fields)`` holds, column by column, in the
    table's order, with the same types; a deferred sheet has every column."""
    import dataclasses

    from webapp.models import Channel, Submission
    from webapp.services import submissions

    table = Submission.__table__  # type: ignore[attr-defined]
    rng = random.Random(23)
    for _ in range(200):
        fields: dict[str, Any] = {
            "problem_id": rng.randint(1, 9), "player_id": rng.randint(1, 9),
            "version": rng.randint(1, 5), "previous_id": rng.choice([None, 3, 7]),
            "channel": rng.choice([*Channel, *(c.value for c in Channel)]),
            "received_at": datetime(2026, 5, 10, tzinfo=UTC)
            + timedelta(seconds=rng.randint(0, 10**6)),
            "raw_text": rng.choice(["", "1 ACEFHIR h8 FICHERA 82", "é\n\t"]),
            "sha256": f"{rng.getrandbits(256):064x}", "late": rng.random() < 0.5,
            "inbound_message_id": rng.choice([None, 1, 42]),
            "parse_errors": rng.choice([[], [{"line": 2, "message": "m", "text": "t"}]]),
            "feuille": rng.choice([None, {"moves": []}, {"moves": [{"number": 1}]}]),
        }
        model = Submission(**fields)
        reference = {c.key: getattr(model, c.key) for c in table.columns if c.key != "id"}
        values = submissions._sheet_values(fields)
        assert list(values.items()) == list(reference.items())
        assert [type(v) for v in values.values()] == [type(v) for v in reference.values()]
    assert [f.name for f in dataclasses.fields(submissions.DeferredSheet)] == [
        c.key for c in table.columns]


def test_earlier_copies_give_what_the_whole_objects_gave(app: Flask, seed: Seed) -> None:
    """The batch's copies read as columns (``_earlier_copies``) against the reference, the
    query of whole objects: the same messages in the same order, the batch's own as its
    objects, the others with the same values, and the same decisions of the duplicate
    stage for every message of the batch."""
    from sqlmodel import select

    from mailer import pipeline
    from mailer.settings import MailSettings
    from mailer.txn import write_scope
    from webapp.models import InboundMessage, InboundStatus

    def item(i: int, message_id: str | None) -> pipeline.Incoming:
        raw = make_mail(frm=FROM, to=TO, subject="I3", message_id=message_id,
                        body=f"1 ACEFHIR h8 FICHERA 82 {82 + i}")
        return pipeline.Incoming(raw, "smtp", FROM, [TO], datetime.now(UTC))

    first = pipeline.store_many(app, [item(0, "<a@x>"), item(1, "<b@x>"), item(2, None),
                                      item(0, "<a@x>"), item(3, "<c@x>")])
    pipeline.process_batch(app, first[:4])  # the fourth a duplicate; the fifth stays stored
    with app.app_context(), write_scope(app) as s:
        s.execute(sa.update(InboundMessage).where(InboundMessage.id == first[1])
                  .values(status=InboundStatus.DISCARDED))
    later = pipeline.store_many(app, [item(0, "<a@x>"), item(1, "<b@x>"), item(2, None),
                                      item(3, "<c@x>"), item(1, "<b@x>"), item(4, "<d@x>")])
    batch = [first[4], *later]
    with app.app_context(), write_scope(app) as s:
        loaded = {r.id: r for r in s.exec(select(InboundMessage).where(
            InboundMessage.id.in_(batch))).all()}  # type: ignore[union-attr]
        todo = [loaded[i] for i in batch]
        fast = pipeline._earlier_copies(s, todo, loaded)
        last = max(batch)
        want: dict[str, list[Any]] = {}
        for other in s.exec(select(InboundMessage).where(
                InboundMessage.sha256.in_({r.sha256 for r in todo}),  # type: ignore[attr-defined]
                InboundMessage.id < last).order_by(InboundMessage.id)).all():  # type: ignore[arg-type,operator]
            want.setdefault(other.sha256, []).append(other)
        assert list(fast) == list(want)
        for sha, others in want.items():
            assert len(fast[sha]) == len(others)
            for got, ref in zip(fast[sha], others, strict=True):
                if ref.id in loaded:
                    assert got is ref
                else:
                    assert [getattr(got, c) for c in pipeline._COPY_COLUMNS] == [
                        getattr(ref, c) for c in pipeline._COPY_COLUMNS]
        settings = MailSettings.from_config(app.config)
        decided = []
        for copies in (fast, want):
            outcomes = []
            for row in todo:
                d = pipeline.Delivery(s, settings, row, shared={"earlier_copies": copies})
                outcomes.append((pipeline.deduplicate(d), d.row_values))
            decided.append(outcomes)
        assert decided[0] == decided[1]
        assert sum(1 for o, _ in decided[0] if o is not None) == 4


def test_a_batch_writes_its_entries_and_sheets_in_their_order(app: Flask, seed: Seed) -> None:
    """The batch's sheets and audit entries, one multi-row ``INSERT`` each: the entries'
    ids follow the sheets' order, as when written one by one."""
    from mailer import pipeline
    from tests.mail.helpers import rows
    from webapp.models import AuditLog, Submission

    ids = pipeline.store_many(app, [
        pipeline.Incoming(make_mail(frm=FROM, to=TO, subject="I3",
                                    body=f"1 ACEFHIR h8 FICHERA 82 {82 + i}"),
                          "smtp", FROM, [TO], datetime.now(UTC)) for i in range(7)])
    assert set(pipeline.process_batch(app, ids).values()) == {"processed"}
    subs = rows(app, Submission)
    assert [(s.version, s.inbound_message_id) for s in subs] == [
        (v, i) for v, i in enumerate(ids, start=1)]
    entries = rows(app, AuditLog)
    assert [(e.target, e.details["version"]) for e in entries] == [
        (f"submission:{s.id}", s.version) for s in subs]
