"""Several processing lanes (``MAIL_PROCESS_THREADS``, issue 23 §3).

On PostgreSQL the stored messages are processed by several threads, so that their database
round trips overlap. What must hold: every message processed once (one sheet, one receipt),
and one player's messages in the order they arrived (his versions numbered in that order),
whichever lane runs them. Real parts: the ``Processor`` of ``mailer.intake`` on the test
database (SQLite and PostgreSQL, ``-m db``), messages stored as the listener stores them.
"""

from __future__ import annotations

import pytest
from flask import Flask

from tests.mail.conftest import Seed
from tests.mail.two_senders import alternating_sheets, assert_each_once_in_order

pytestmark = [pytest.mark.db, pytest.mark.mail]


def test_lanes_process_every_message_once_and_each_players_in_order(
        app: Flask, seed: Seed) -> None:
    from mailer import pipeline
    from mailer.intake import Processor

    items = alternating_sheets(24, "lane")
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

    assert_each_once_in_order(app, seed, ids)
