"""The .eml corpus through the pipeline (store -> process), one expectation per fixture."""

from __future__ import annotations

import pytest
from flask import Flask

from tests.mail.conftest import ANA, BOGDAN, Seed, eml
from tests.mail.helpers import rows

pytestmark = [pytest.mark.db, pytest.mark.mail]

ANA_TO = [f"feuilles+{ANA[2]}@arbitre.test"]
WORDS = ["FICHERA", "WUS"]

# file, envelope sender, status, submitted words (None: no submission), outbox kinds+recipient
CASES: list[tuple[str, str, str, list[str] | None, list[tuple[str, str]]]] = [
    ("windows1252.eml", "ana.ionescu@example.org", "processed", WORDS, [("receipt", ANA[1])]),
    ("no_message_id.eml", "ana.ionescu@example.org", "processed", ["FICHERA"],
     [("receipt", ANA[1])]),
    ("list_rewritten.eml", "bounces@listes.example.com", "processed", WORDS,
     [("receipt", ANA[1])]),
    ("html_only.eml", "ana.ionescu@example.org", "processed", WORDS, [("receipt", ANA[1])]),
    ("attachment_only.eml", "ana.ionescu@example.org", "processed", WORDS,
     [("receipt", ANA[1])]),
    ("reply_quoting_receipt.eml", "ana.ionescu@example.org", "processed", WORDS,
     [("receipt", ANA[1])]),
    ("auto_reply.eml", "ana.ionescu@example.org", "ignored", None, []),
    ("bounce_dsn.eml", "<>", "processed", None, []),
    ("stranger.eml", "mallory@evil.example", "ignored", None,
     [("instructions", "mallory@evil.example")]),
    ("spoofed_token.eml", "mallory@evil.example", "ignored", None,
     [("instructions", "mallory@evil.example")]),
]


@pytest.mark.parametrize(("name", "env_from", "status", "words", "replies"), CASES)
def test_corpus(app: Flask, seed: Seed, name: str, env_from: str, status: str,
                words: list[str] | None, replies: list[tuple[str, str]]) -> None:
    from mailer.pipeline import receive
    from webapp.models import InboundMessage, OutboxMessage, Submission

    inbound_id, got = receive(app, eml(name), channel="smtp", envelope_from=env_from,
                              envelope_to=ANA_TO)
    (row,) = rows(app, InboundMessage)
    assert (got, row.status) == (status, status), row.error
    subs = rows(app, Submission)
    if words is None:
        assert subs == []
    else:
        assert len(subs) == 1
        assert [m["word"] for m in subs[0].feuille["moves"]] == words
        assert subs[0].parse_errors == []
        assert row.submission_id == subs[0].id
    assert [(o.kind, o.to_addr) for o in rows(app, OutboxMessage)] == replies


def test_windows1252_text_is_decoded(app: Flask, seed: Seed) -> None:
    from mailer.parse import decode_bytes, extract_sheet, parse_message

    got = extract_sheet(parse_message(eml("windows1252.eml")))
    assert got.source == "text/plain"
    part = next(p for p in parse_message(eml("windows1252.eml")).walk())
    body = decode_bytes(part.get_payload(decode=True), part.get_content_charset())
    assert "problème I3 – merci d’avance, cœur." in body
    assert got.text == "1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 166"
    assert "Club de Bucarest" not in got.text  # signature cut


def test_bounce_is_recorded_against_the_player(app: Flask, seed: Seed) -> None:
    from mailer.pipeline import receive
    from webapp.models import Player

    receive(app, eml("bounce_dsn.eml"), channel="smtp", envelope_from="<>", envelope_to=ANA_TO)
    (bogdan,) = rows(app, Player, email=BOGDAN[1])
    assert bogdan.bounce_count == 1
    assert bogdan.last_bounce_at is not None


def test_spoof_records_auth_results(app: Flask, seed: Seed) -> None:
    from mailer.pipeline import receive
    from webapp.models import InboundMessage

    receive(app, eml("spoofed_token.eml"), channel="smtp", envelope_from="mallory@evil.example",
            envelope_to=ANA_TO)
    (row,) = rows(app, InboundMessage)
    assert row.auth_results["dmarc"] == "fail"
    assert row.auth_results["spf"] == "fail"
    assert row.auth_results["dkim"] == "none"
    assert "ne correspond pas" in (row.error or "")


def test_malformed_mime_is_kept_and_answered(app: Flask, seed: Seed) -> None:
    """Broken base64 and an unclosed boundary: the message is stored whole and processed;
    whatever could be decoded is submitted with line-numbered errors."""
    from mailer.pipeline import receive
    from webapp.models import InboundMessage, OutboxMessage, Submission

    raw = eml("malformed_mime.eml")
    _, status = receive(app, raw, channel="smtp", envelope_from="ana.ionescu@example.org",
                        envelope_to=ANA_TO)
    (row,) = rows(app, InboundMessage)
    assert row.raw == raw
    assert status == "processed"
    (sub,) = rows(app, Submission)
    assert sub.raw_text == "1 ACEFHIR h8 FICHERA 82 82"
    assert [m["word"] for m in sub.feuille["moves"]] == ["FICHERA"]
    assert [o.kind for o in rows(app, OutboxMessage)] == ["receipt"]
