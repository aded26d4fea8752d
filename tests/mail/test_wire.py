"""The outgoing bytes written directly (``mailer.wire.message_bytes``) are the ``email``
package's bytes for the same row (issue 23 §4).

For generated rows — French and Romanian subjects and names, long subjects and lines,
ASCII and not, stray encoded-word markers, lines starting with ``From `` or ``.``, CR and
CRLF line ends, with and without HTML — each built both ways:

* byte for byte, ``message_bytes`` equals ``aiosmtplib``'s flattening (for a relay, no
  SMTPUTF8) of ``mailer.outbox.build_message`` for the row, given the same multipart
  boundary; a row ``email`` refuses is refused (or left to ``email``) by both;
* read back by the ``email`` parser, the direct bytes give the row: Subject, From, To,
  Date, Message-ID, every stored header, and each part's decoded text, type and charset;
* what ``message_bytes`` leaves to ``email`` (a Bcc, a header named twice, an address with
  a display name, a body holding the boundary) answers ``None``, and ``_build`` then
  builds with ``email``.
"""

from __future__ import annotations

import email
import email.policy
import email.utils
import re
from datetime import UTC, datetime
from email.message import EmailMessage
from typing import Any

import aiosmtplib
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mailer import wire
from mailer.outbox import Built, _build, build_message, row_headers
from webapp.models import OutboxKind, OutboxMessage

ROMANIAN = "ăâîșțĂÂÎȘȚ"
FRENCH = "éèêëàâçôûùïÉÈÀÇŒœ«»—’°"
ALPHABET = st.sampled_from(
    list("abcdefghijklmnopqrstuvwxyz ABCXYZ0123456789 .,;:!?()[]<>\"'=-_/@#*+%&")
    + list(ROMANIAN + FRENCH) + ["=?", "?=", "=?utf-8?q?x?=", "\t", "  ", "😀", "\u00a0"])
WORDS = st.lists(ALPHABET, max_size=60).map("".join)
LONG = st.builds(lambda w, n: (w + " ") * n, WORDS, st.integers(1, 6))
#: any text a title or a name can hold (no control characters, which email's Subject
#: encoder takes for line ends)
PRINTABLE = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp")),
                    max_size=150)
SUBJECTS = st.one_of(
    WORDS, LONG, PRINTABLE,
    st.sampled_from([
        "Résultats : RUSH", "Rezultate: RUSH — ați jucat 12 lovituri",
        "Ana Ionescu – Bogdan Pop (CO1) — rappel : à vous de jouer avant le 27/12/2099 à 20:00 "
        "(Europe/Bucharest, UTC+02:00)", "Ș" * 120, "plain ASCII " * 9, "x" * 72, "x" * 69,
        "x" * 70, "a" * 100, "",
    ]))
ATOM = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789!#$%&'*+/=?^_`{|}~-",
               min_size=1, max_size=30)
ADDRESSES = st.builds(lambda a, b, d: f"{a}.{b}@{d}.example.org" if b else f"{a}@{d}.ro",
                      ATOM, st.one_of(st.just(""), ATOM),
                      st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789-", min_size=1,
                              max_size=50))
LINE = st.one_of(
    WORDS, st.text(max_size=200), st.sampled_from([
        "From here", ".", "..", "trailing space ", "tab\t", "= sign", "x" * 78, "x" * 79,
        "é" * 90, "--===============0000000000000000000==", "",
    ]))
BODIES = st.builds(lambda lines, end: end.join(lines), st.lists(LINE, max_size=25),
                   st.sampled_from(["\n", "\r\n", "\r"]))
MESSAGE_IDS = st.one_of(
    st.builds(lambda n, m: f"<{n}.{m}.1234@arbitre.test>", st.integers(0, 2**63),
              st.integers(0, 99999)),  # as make_msgid writes them
    st.builds(lambda a, d: f"<{a}@{d}>", ATOM, ATOM),
    st.sampled_from(["<a b@c>", "not-an-id", "<" + "x" * 90 + "@arbitre.test>"]))
#: the stored headers' values are ASCII (ids, language codes, Auto-Submitted); a long
#: non-ASCII one would lose the spaces where email's folder cuts it (CPython gh-144156,
#: which FoldedSubject works around for the Subject), on both paths alike
ASCII_WORDS = st.lists(ALPHABET.filter(str.isascii), max_size=60).map("".join)
HEADER_VALUES = st.one_of(ASCII_WORDS,
                          st.builds(lambda w, n: (w + " ") * n, ASCII_WORDS, st.integers(1, 6)),
                          st.sampled_from(["auto-replied", "ro", "fr", "<a@b>"]),
                          st.lists(st.builds(lambda a: f"<{a}@mail.example.org>", ATOM),
                                   min_size=1, max_size=6).map(" ".join))
HEADERS = st.dictionaries(
    st.sampled_from(["In-Reply-To", "References", "Content-Language", "Auto-Submitted",
                     "X-Arbitre-Round", "X-Auto-Response-Suppress", "List-Id",
                     "Keywords"]),
    HEADER_VALUES, max_size=5)
SENDERS = st.sampled_from([
    "Arbitre <arbitre@localhost>", "arbitre@arbitre.test",
    "Fédération Română de Scrabble <arbitre@frs.ro>", "« Arbitre » <a@b.fr>",
    "Arbitre, concours <arbitre@arbitre.test>",
    "Un nom d'expéditeur vraiment très long pour une fédération de Scrabble <a@b.fr>",
    '"Fédération Română de Scrabble, section Bucarest (concours par correspondance)" '
    "<a@b.ro>",
])
DATES = st.one_of(
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2099, 12, 31),
                 timezones=st.just(UTC)),
    st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2099, 12, 31)))


@st.composite
def outbox_rows(draw: Any) -> OutboxMessage:
    message_id = draw(MESSAGE_IDS)
    html = draw(st.one_of(st.none(), st.just(""), BODIES.map(lambda b: f"<p>{b}</p>")))
    return OutboxMessage(
        created_at=draw(DATES), kind=draw(st.sampled_from(list(OutboxKind))),
        to_addr=draw(ADDRESSES), subject=draw(SUBJECTS), body_text=draw(BODIES),
        body_html=html, headers=draw(HEADERS), message_id=message_id, dedupe_key="k",
        status="pending", attempts=0, next_attempt_at=datetime(2026, 5, 11, tzinfo=UTC))


def direct(row: OutboxMessage, mail_from: str) -> bytes | None:
    return wire.message_bytes(
        mail_from=mail_from, to_addr=row.to_addr, subject=row.subject, date=row.created_at,
        message_id=row.message_id, headers=row_headers(row), text=row.body_text,
        html=row.body_html)


def by_email(row: OutboxMessage, mail_from: str) -> bytes:
    """``build_message`` flattened as ``aiosmtplib`` sends it, with the boundary
    ``message_bytes`` uses (``email`` draws a random one)."""
    msg = build_message(row, mail_from)
    if row.body_html:
        msg.set_boundary(wire.boundary_for(row.message_id))
    return aiosmtplib.email.flatten_message(msg, utf8=False, cte_type="8bit")


WELL_FORMED_ID = re.compile(r"<[^<>@\s]+@[^<>@\s]+>\Z")


def words(value: str) -> str:
    """A header value's words, single-spaced (blanks and line ends as the folding sees them)."""
    return re.sub(r"[ \t\r\n]+", " ", value).strip()


def unix(text: str) -> str:
    """A decoded part as a mail program shows it: the parser keeps a 7bit part's CRLFs."""
    return text.replace("\r\n", "\n")


def lines_of(text: str) -> str:
    """A stored text as a part decodes to: its lines ended by ``\\n``, one at the end."""
    return b"\n".join(text.encode("utf-8").splitlines()).decode("utf-8") + "\n"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(row=outbox_rows(), mail_from=SENDERS)
def test_the_direct_bytes_are_the_email_packages_and_read_back_as_the_row(
        row: OutboxMessage, mail_from: str) -> None:
    try:
        reference: bytes | None = by_email(row, mail_from)
    except Exception:  # noqa: BLE001 (whatever email refuses, the direct writer refuses)
        reference = None
    try:
        ours = direct(row, mail_from)
    except Exception:  # noqa: BLE001
        assert reference is None, "email built a message the direct writer refused"
        return
    # nothing generated here is for email alone (those cases: the tests below)
    assert ours is not None, "left to email"
    assert reference is not None, "the direct writer built a message email refuses"
    assert ours == reference
    assert ours.isascii()
    assert max(len(x) for x in ours.split(b"\r\n")) <= 998
    assert b"\n" not in ours.replace(b"\r\n", b"")  # every line ended by CRLF

    # Read back. Where email itself does not give back exactly what it was given (a value
    # of blanks, runs of blanks, a long word folded onto a line of its own, a folded long
    # display name: the same bytes either way), the comparison is of the words; a malformed
    # Message-ID, or a value that holds an encoded word (email writes it as it is: it
    # decodes), is compared as bytes only.
    parsed = email.message_from_bytes(ours, policy=email.policy.default)
    assert isinstance(parsed, EmailMessage)
    assert not parsed.defects
    if "=?" not in row.subject:
        assert words(str(parsed["Subject"])) == words(row.subject)
    assert str(parsed["To"]) == row.to_addr
    sent_from = email.message_from_string(f"From: {mail_from}\n\n",
                                          policy=email.policy.default)["From"]
    assert [(words(a.display_name), a.addr_spec) for a in parsed["From"].addresses] == [
        (words(a.display_name), a.addr_spec) for a in sent_from.addresses]
    assert parsed["Date"].datetime == email.utils.parsedate_to_datetime(
        email.utils.format_datetime(row.created_at))
    if WELL_FORMED_ID.match(row.message_id):
        assert str(parsed["Message-ID"]) == row.message_id
    for name, value in row_headers(row):
        if "=?" not in value:
            assert words(str(parsed[name])) == words(value)
    assert parsed["MIME-Version"] == "1.0"
    plain = parsed.get_body(("plain",))
    assert plain is not None and unix(plain.get_content()) == lines_of(row.body_text)
    assert plain.get_param("charset") == "utf-8"
    html = parsed.get_body(("html",))
    if row.body_html:
        assert parsed.get_content_type() == "multipart/alternative"
        assert html is not None and unix(html.get_content()) == lines_of(row.body_html)
        assert html.get_param("charset") == "utf-8"
    else:
        assert html is None and parsed.get_content_type() == "text/plain"


def typical(**changes: Any) -> OutboxMessage:
    """A results mail as the fan-out stores it."""
    values: dict[str, Any] = dict(
        created_at=datetime(2026, 12, 2, 17, 0, 3, tzinfo=UTC), kind=OutboxKind.RESULTS,
        to_addr="ana.ionescu@example.ro", subject="Résultats provisoires : RUSH",
        body_text="Bonjour Ana,\n\nVotre score : 1 234 points (3e sur 10 000).\n" + "é" * 100,
        body_html="<p>Bonjour Ana,</p>\n<table><tr><td>1</td><td>Ștefan</td></tr></table>",
        headers={"Auto-Submitted": "auto-generated", "Content-Language": "ro"},
        message_id="<176.1.2@arbitre.test>", dedupe_key="results:1:1", status="pending",
        attempts=0, next_attempt_at=datetime(2026, 12, 2, tzinfo=UTC))
    values.update(changes)
    return OutboxMessage(**values)


def test_a_results_mail_is_written_directly_and_says_its_language() -> None:
    """The common case takes the direct path; the Content-Language stored with the row
    reaches the wire on both paths (setting the body used to clear it)."""
    built = _build(typical(), "Arbitre <arbitre@arbitre.test>")
    assert isinstance(built, Built) and built.msg is None and built.wire is not None
    assert built.recipients == ("ana.ionescu@example.ro",)
    for raw in (built.wire, by_email(typical(), "Arbitre <arbitre@arbitre.test>")):
        parsed = email.message_from_bytes(raw, policy=email.policy.default)
        assert parsed["Content-Language"] == "ro"
        assert parsed["X-Arbitre-Kind"] == "results"
        assert parsed["Auto-Submitted"] == "auto-generated"
    text_only = _build(typical(body_html=None), "arbitre@arbitre.test")
    assert isinstance(text_only, Built) and text_only.msg is None and text_only.wire
    parsed = email.message_from_bytes(text_only.wire, policy=email.policy.default)
    assert parsed["Content-Language"] == "ro" and parsed.get_content_type() == "text/plain"


@pytest.mark.parametrize("changes", [
    {"headers": {"Bcc": "x@example.org"}},
    {"headers": {"auto-submitted": "auto-replied"}},  # beside the default Auto-Submitted
    {"headers": {"MIME-Version": "1.0"}},
    {"to_addr": "Ana Ionescu <ana@example.ro>"},
    {"body_text": "--" + wire.boundary_for("<176.1.2@arbitre.test>") + "\n"},
])
def test_what_the_direct_writer_leaves_to_email(changes: dict[str, Any]) -> None:
    row = typical(**changes)
    assert direct(row, "Arbitre <arbitre@arbitre.test>") is None
    if "to_addr" not in changes:  # _build refuses a display name (address_problem)
        built = _build(row, "Arbitre <arbitre@arbitre.test>")
        assert isinstance(built, Built) and built.msg is not None and built.wire


def test_a_line_break_in_a_value_injects_no_header_on_either_path() -> None:
    """A line break in an ASCII value: email refuses it, and so does the direct path (the
    row fails alone); in a non-ASCII Subject it is encoded, inside an encoded word."""
    for row in (typical(subject="Results\nBcc: x@example.org"),
                typical(headers={"In-Reply-To": "<a@b>\r\nBcc: x@example.org"})):
        with pytest.raises(ValueError):
            direct(row, "Arbitre <arbitre@arbitre.test>")
        built = _build(row, "Arbitre <arbitre@arbitre.test>")
        assert isinstance(built, str) and "impossible à construire" in built
    row = typical(subject="Résultats\nBcc: x@example.org")
    ours = direct(row, "Arbitre <arbitre@arbitre.test>")
    assert ours is not None and ours == by_email(row, "Arbitre <arbitre@arbitre.test>")
    parsed = email.message_from_bytes(ours, policy=email.policy.default)
    assert parsed["Bcc"] is None and b"\r\nBcc:" not in ours


def test_a_non_ascii_envelope_sender_is_left_to_email() -> None:
    built = _build(typical(), "Arbitre <arbitre@fédération.ro>")
    assert isinstance(built, Built) and built.msg is not None


def test_the_boundary_is_emails_form_and_the_messages_own() -> None:
    marks = {wire.boundary_for(f"<{i}@arbitre.test>") for i in range(1000)}
    assert len(marks) == 1000
    assert all(len(m) == 36 and m.startswith("=" * 15) and m.endswith("==")
               and m[15:-2].isdigit() for m in marks)
    assert wire.boundary_for("<1@a>") == wire.boundary_for("<1@a>")
