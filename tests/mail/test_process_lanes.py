"""Several processing lanes (``MAIL_PROCESS_THREADS``, issue 23 §3).

On PostgreSQL the stored messages are processed by several threads, so that their database
round trips overlap. What must hold: every message processed once (one sheet, one receipt),
and one player's messages in the order they arrived (his versions numbered in that order),
whichever lane runs them. Real parts: the ``Processor`` of ``mailer.intake`` on the test
database (SQLite and PostgreSQL, ``-m db``), messages stored as the listener stores them.
"""

from __future__ import annotations

from collections import Counter

import pytest
from flask import Flask

from tests.mail.conftest import ANA, BOGDAN, Seed
from tests.mail.helpers import make_mail, rows

pytestmark = [pytest.mark.db, pytest.mark.mail]


def test_lanes_process_every_message_once_and_each_players_in_order(
        app: Flask, seed: Seed) -> None:
    from mailer import pipeline
    from mailer.intake import Processor
    from webapp.models import InboundChannel, InboundMessage, OutboxMessage, Submission
    from webapp.services import clock

    items = []
    for i in range(24):
        name, addr, token = (ANA, BOGDAN)[i % 2]
        raw = make_mail(frm=f"{name} <{addr}>", to=f"feuilles+{token}@arbitre.test",
                        subject="Problème : I3", message_id=f"<lane-{i}@example.org>",
                        body=f"1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 {160 + i}\n")
        items.append(pipeline.Incoming(raw, InboundChannel.SMTP, addr,
                                       [f"feuilles+{token}@arbitre.test"], clock.now()))
    ids = pipeline.store_many(app, items)
    processor = Processor(app, threads=4, max_batch=4)
    # the two players' addresses go to two different lanes (CRC-32 modulo 4: 0 and 2)
    lanes = {processor.lane(item.envelope_from) for item in items}
    assert len(lanes) == 2
    try:
        for inbound_id, item in zip(ids, items, strict=True):
            processor.submit(inbound_id, item.envelope_from)
        assert processor.wait_idle(120)
    finally:
        processor.stop()

    inbound = rows(app, InboundMessage)
    assert Counter(r.status for r in inbound) == {"processed": 24}
    subs = rows(app, Submission)
    assert sorted(s.inbound_message_id for s in subs) == sorted(ids)
    for player_id in (seed.ana_id, seed.bogdan_id):
        mine = sorted((s for s in subs if s.player_id == player_id),
                      key=lambda s: s.inbound_message_id)
        # the n-th message a player sent is his version n
        assert [s.version for s in mine] == list(range(1, 13))
    receipts = rows(app, OutboxMessage, kind="receipt")
    assert sorted(r.dedupe_key for r in receipts) == sorted(f"receipt:{s.id}" for s in subs)
