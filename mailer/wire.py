"""The bytes of an outgoing message, written directly (issue 23 §4).

Owns the wire form of the outbox's messages: the header lines, the text part and its HTML
alternative, flattened as ``aiosmtplib`` sends a message to a relay (``CRLF``, no SMTPUTF8).
:func:`message_bytes` writes the very bytes the ``email`` package writes for the message
``mailer.outbox.build_message`` builds from the same row (same header lines in the same
order, same parts, same encodings), without its header objects, policy and generator: a
results mail costs ≈ 1.2 ms of CPU to build and flatten with them, ≈ 80 µs here
(docs/MAIL.md, *Sender worker*).

How each header line is written:

* a value ``email`` would write unchanged on one line — printable ASCII words separated by
  single spaces, no encoded word, the line at most 78 characters, and a header ``email``
  reads as plain text (or the bare address, Message-ID and date of the fixed headers) — is
  written as ``Name: value``;
* any other value (non-ASCII, long, an address with a display name, a structured header)
  is folded by ``email`` itself, once per distinct (name, value) (:func:`folded`: the same
  From, Subject and defaults recur in every mail of a fan-out), the Subject as
  :class:`FoldedSubject` folds it.

Whatever this module does not write itself in exactly the ``email`` package's way
(duplicate header names, a Bcc, a body that contains the boundary, an address that is not a
bare ``local@domain``) makes :func:`message_bytes` answer ``None``: the caller builds the
message with ``email`` as before. ``tests/mail/test_wire.py`` compares the two, byte for byte
and through the ``email`` parser, on generated rows.
"""

from __future__ import annotations

import binascii
import email.policy
import functools
import hashlib
import re
from email.header import Header
from email.headerregistry import BaseHeader, HeaderRegistry
from email.utils import format_datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from datetime import datetime

#: the longest header line ``email`` leaves unfolded (``policy.max_line_length``)
MAX_LINE = 78


class FoldedSubject(str):
    """A non-ASCII Subject folded by :mod:`email.header`'s encoder, whose encoded words
    carry the spaces themselves. Python 3.11's default header folder cuts a long subject
    into encoded words and loses the space at a cut (CPython gh-144156): « rappel : à vous
    de jouer » reached players as « rappel :à vous de jouer ». ``EmailPolicy.fold`` asks a
    header value that has a ``name`` to fold itself; everything else reads it as the text."""

    name = "Subject"

    def fold(self, *, policy: email.policy.Policy) -> str:
        linesep = policy.linesep
        folded = Header(str(self), "utf-8", header_name=self.name).encode(linesep=linesep)
        return f"{self.name}: {folded}{linesep}"


def subject_header(subject: str) -> str:
    """The Subject as set on a message: as is when ASCII, else a :class:`FoldedSubject`."""
    return subject if subject.isascii() else FoldedSubject(subject)


class _HeaderClasses(HeaderRegistry):
    """``email``'s header registry, with each header class built once: the stock
    ``HeaderRegistry.__getitem__`` creates a new class (``type(...)``) every time a header
    is set or read — 0.2 ms each, some twenty times per message built. Same classes'
    behaviour, same bytes on the wire."""

    @functools.lru_cache(maxsize=256)  # noqa: B019 (one registry for the process's life)
    def __getitem__(self, name: str) -> type[BaseHeader]:
        return super().__getitem__(name)


#: the policy of the messages ``mailer.outbox.build_message`` builds: ``email.policy.default``
#: with :class:`_HeaderClasses`
POLICY = email.policy.default.clone(header_factory=_HeaderClasses())

#: the policy ``aiosmtplib`` flattens a message with for a relay without SMTPUTF8
_SMTP = email.policy.SMTP

#: headers ``email`` parses as structured values (its header registry's own map): their
#: lines are always folded by ``email`` itself
_STRUCTURED = frozenset({
    "subject", "date", "resent-date", "orig-date", "sender", "resent-sender", "to",
    "resent-to", "cc", "resent-cc", "bcc", "resent-bcc", "from", "resent-from", "reply-to",
    "mime-version", "content-type", "content-disposition", "content-transfer-encoding",
    "message-id",
})
#: header names whose presence sends the message back to ``email``: ``aiosmtplib`` drops
#: the Bcc lines, and the MIME headers are the body's
_NOT_HERE = frozenset({"bcc", "resent-bcc", "mime-version", "content-type",
                       "content-transfer-encoding"})

_NAME = re.compile(r"[\x21-\x39\x3b-\x7e]+\Z")
_WORDS = re.compile(r"[\x21-\x7e]+(?: [\x21-\x7e]+)*\Z")
_ATOM = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+"
_ADDRESS = re.compile(rf"{_ATOM}(?:\.{_ATOM})*@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+\Z")
_MESSAGE_ID = re.compile(rf"<{_ATOM}(?:\.{_ATOM})*@{_ATOM}(?:\.{_ATOM})*>\Z")


def _plain(name: str, value: str) -> bool:
    """Whether ``email`` writes ``name: value`` unchanged on one line for plain text."""
    return (len(name) + 2 + len(value) <= MAX_LINE and _WORDS.match(value) is not None
            and "=?" not in value)


@functools.lru_cache(maxsize=4096)
def folded(name: str, value: str) -> bytes:
    """The header line(s) of ``name: value`` as ``email`` writes them for a relay (folded
    at 78 characters, RFC 2047 encoded words for non-ASCII text, ``CRLF``); a non-ASCII
    Subject as :class:`FoldedSubject` folds it. Raises what ``email`` raises (a line break
    in a value, say)."""
    stored = subject_header(value) if name.lower() == "subject" else value
    _, header = POLICY.header_store_parse(name, stored)
    return _SMTP.fold_binary(name, header)


def _line(name: str, value: str, direct: bool) -> bytes:
    if direct and len(name) + 2 + len(value) <= MAX_LINE:
        return f"{name}: {value}\r\n".encode("ascii")
    return folded(name, value)


def encode_text(text: str) -> tuple[str, bytes]:
    """A text part's transfer encoding and its body, lines ended by ``\\n``: ``7bit`` when
    every line is ASCII and at most 78 characters, else quoted-printable by
    ``binascii.b2a_qp`` (C). The decoded text is the stored text with its lines ended
    alike (as ``email``'s ``raw_data_manager`` writes it)."""
    lines = text.encode("utf-8").splitlines()
    body = b"\n".join(lines) + b"\n"
    if body.isascii() and max((len(x) for x in lines), default=0) <= MAX_LINE:
        return "7bit", body
    return "quoted-printable", binascii.b2a_qp(body, istext=True)


def boundary_for(message_id: str) -> str:
    """The multipart boundary of a message: ``email``'s own form (15 ``=``, 19 digits,
    ``==``), the digits drawn from the Message-ID, so that a retried message is the same
    bytes."""
    digest = hashlib.blake2b(message_id.encode("utf-8", "surrogateescape"), digest_size=8)
    return "=" * 15 + f"{int.from_bytes(digest.digest(), 'big') % 10**19:019d}" + "=="


def _part(subtype: str, cte: str, *, mime_version: bool) -> bytes:
    """A text part's header lines as ``email`` writes them for ``build_message``: its
    ``MIME-Version`` is set after the body's headers (a message with the text alone; the
    HTML alternative, made as a message of its own, keeps it; the text part of a multipart
    message leaves it to the whole)."""
    head = (f'Content-Type: text/{subtype}; charset="utf-8"\r\n'
            f"Content-Transfer-Encoding: {cte}\r\n")
    return (head + ("MIME-Version: 1.0\r\n" if mime_version else "")).encode("ascii")


def message_bytes(*, mail_from: str, to_addr: str, subject: str, date: datetime,
                  message_id: str, headers: list[tuple[str, str]], text: str,
                  html: str | None, boundary: str | None = None) -> bytes | None:
    """The message as ``aiosmtplib`` would send ``mailer.outbox.build_message``'s message
    for the same row to a relay (8-bit clean or not: every byte is ASCII), or ``None`` when
    it must be built by ``email`` (see the module's docstring). ``headers``: the row's
    other headers in order (the defaults added, From/To/Subject/Date/Message-ID left out),
    the ``Content-*`` ones written after the MIME headers as ``build_message`` sets them.
    ``boundary``: the multipart boundary (by default :func:`boundary_for` the Message-ID)."""
    if _ADDRESS.match(to_addr) is None:
        return None
    if not all(isinstance(v, str) for _, v in headers):
        return None
    names = [n.lower() for n, _ in headers]
    if len(set(names)) != len(names) or not _NOT_HERE.isdisjoint(names):
        return None
    out = [folded("From", mail_from), _line("To", to_addr, True)]
    out.append(_line("Subject", subject, subject.isascii() and _plain("Subject", subject)))
    out.append(_line("Date", format_datetime(date), True))
    out.append(_line("Message-ID", message_id, _MESSAGE_ID.match(message_id) is not None))
    late: list[bytes] = []
    for (name, value), low in zip(headers, names, strict=True):
        direct = (low not in _STRUCTURED and _NAME.match(name) is not None
                  and _plain(name, value))
        (late if low.startswith("content-") else out).append(_line(name, value, direct))
    cte, body = encode_text(text)
    if not html:
        out += [_part("plain", cte, mime_version=True)]
        out += late
        out += [b"\r\n", body.replace(b"\n", b"\r\n")]
        return b"".join(out)
    html_cte, html_body = encode_text(html)
    mark = boundary or boundary_for(message_id)
    dashes = b"--" + mark.encode("ascii")
    if dashes in body or dashes in html_body:
        return None  # email would pick another boundary
    out.append(f'MIME-Version: 1.0\r\nContent-Type: multipart/alternative;\r\n'
               f' boundary="{mark}"\r\n'.encode("ascii"))
    out += late
    out += [b"\r\n", dashes, b"\r\n", _part("plain", cte, mime_version=False), b"\r\n",
            body.replace(b"\n", b"\r\n"), b"\r\n", dashes, b"\r\n",
            _part("html", html_cte, mime_version=True), b"\r\n",
            html_body.replace(b"\n", b"\r\n"), b"\r\n", dashes, b"--\r\n"]
    return b"".join(out)
