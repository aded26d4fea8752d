"""Sheets from two players in turn, and what must hold once they are processed, whatever
processes them (``Processor`` lanes or ``ProcessWorkers``): every message once, one
player's messages in the order they arrived, one receipt each."""

from __future__ import annotations

from collections import Counter
from typing import Any

from flask import Flask

from tests.mail.conftest import ANA, BOGDAN, Seed
from tests.mail.helpers import make_mail, rows


def alternating_sheets(count: int, tag: str) -> list[Any]:
    """``count`` sheets for I3 by SMTP, Ana and Bogdan in turn (Message-IDs
    ``<{tag}-{i}@example.org>``), as the listener hands them to ``pipeline.store_many``."""
    from mailer import pipeline
    from webapp.models import InboundChannel
    from webapp.services import clock

    items = []
    for i in range(count):
        name, addr, token = (ANA, BOGDAN)[i % 2]
        raw = make_mail(frm=f"{name} <{addr}>", to=f"feuilles+{token}@arbitre.test",
                        subject="Problème : I3", message_id=f"<{tag}-{i}@example.org>",
                        body=f"1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 {160 + i}\n")
        items.append(pipeline.Incoming(raw, InboundChannel.SMTP, addr,
                                       [f"feuilles+{token}@arbitre.test"], clock.now()))
    return items


def assert_each_once_in_order(app: Flask, seed: Seed, ids: list[int]) -> None:
    """The 24 messages ``ids`` (12 a player) processed once each: one sheet, one receipt,
    and the n-th message a player sent is his version n."""
    from webapp.models import InboundMessage, OutboxMessage, Submission

    inbound = rows(app, InboundMessage)
    assert Counter(r.status for r in inbound) == {"processed": 24}
    subs = rows(app, Submission)
    assert sorted(s.inbound_message_id for s in subs) == sorted(ids)
    for player_id in (seed.ana_id, seed.bogdan_id):
        mine = sorted((s for s in subs if s.player_id == player_id),
                      key=lambda s: s.inbound_message_id)
        assert [s.version for s in mine] == list(range(1, 13))
    receipts = rows(app, OutboxMessage, kind="receipt")
    assert sorted(r.dedupe_key for r in receipts) == sorted(f"receipt:{s.id}" for s in subs)
