"""Loop safety: which incoming messages may be answered, and which are bounces.

Owns the decisions, not the effects (the pipeline applies them): RFC 3834 auto-replies,
vacation and list traffic, empty envelope senders, delivery status notifications
(``multipart/report``), and the per-address reply rate limit arithmetic.

Policy (see docs/MAIL.md):

* ``auto``  — ``Auto-Submitted`` other than ``no``, ``X-Autoreply``, ``X-Autorespond``,
  ``Precedence: bulk|junk|auto_reply``, Microsoft ``X-MS-Exchange-Inbox-Rules-Loop`` /
  ``X-Auto-Response-Suppress`` on an automatic reply, vacation subjects, or an empty ``<>``
  envelope sender: never submitted, never answered (status ``ignored``).
* ``bounce`` — a DSN (``multipart/report; report-type=delivery-status``): the failed
  recipients are recorded against the players' addresses; never answered.
* ``list`` — ``Precedence: list`` or a ``List-Id``: processed (a player may post through a
  list), but nothing is ever sent back except the receipt, which goes to the player's
  registered address, never to the list.
* ``normal`` — everything else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import Message
from typing import Literal

from mailer.parse import address, header

_VACATION_SUBJECT = re.compile(
    r"^\s*(r[ée]ponse automatique|absence|absent|auto(matic)?[ -]?reply|out of (the )?office"
    r"|abwesenheit|r[ăa]spuns automat|autoreply|vacation)\b",
    re.I,
)


#: what an incoming message is: a player's mail, a mailing list's, an automatic answer, a bounce
MailKind = Literal["normal", "list", "auto", "bounce"]


@dataclass(frozen=True)
class Classification:
    kind: MailKind
    reason: str = ""

    @property
    def may_submit(self) -> bool:
        return self.kind in ("normal", "list")

    @property
    def may_reply(self) -> bool:
        """Whether instructions / ambiguity / error replies may be sent at all."""
        return self.kind == "normal"


def is_empty_sender(envelope_from: str | None) -> bool:
    """The null reverse-path ``<>`` (bounces, auto-replies). ``""``/``None`` mean *unknown*
    (a message fetched by IMAP without ``Return-Path``), which is not the same thing."""
    return envelope_from is not None and envelope_from.strip() == "<>"


def is_bounce(msg: Message) -> bool:
    if msg.get_content_type() == "multipart/report":
        return (msg.get_param("report-type") or "").__str__().lower() == "delivery-status"
    return False


def classify(msg: Message, envelope_from: str | None) -> Classification:
    """Sort a message into ``normal``, ``list``, ``auto`` or ``bounce`` (see module doc)."""
    if is_bounce(msg):
        return Classification("bounce", "avis de non-remise (DSN)")
    auto_submitted = header(msg, "Auto-Submitted").lower()
    if auto_submitted and auto_submitted.split(";")[0].strip() != "no":
        return Classification("auto", f"Auto-Submitted: {auto_submitted}")
    for name in ("X-Autoreply", "X-Autorespond", "X-Autoresponder"):
        if header(msg, name):
            return Classification("auto", f"en-tête {name}")
    precedence = header(msg, "Precedence").lower()
    if precedence in ("bulk", "junk", "auto_reply"):
        return Classification("auto", f"Precedence: {precedence}")
    if header(msg, "X-Auto-Response-Suppress") and _VACATION_SUBJECT.search(
        header(msg, "Subject")
    ):
        return Classification("auto", "réponse automatique (Exchange)")
    if _VACATION_SUBJECT.search(header(msg, "Subject")):
        return Classification("auto", "objet de réponse automatique")
    from_addr = address(header(msg, "From"))[1].lower()
    if from_addr.startswith(("mailer-daemon@", "postmaster@")):
        return Classification("auto", "expéditeur MAILER-DAEMON")
    if is_empty_sender(envelope_from):
        return Classification("auto", "expéditeur d'enveloppe vide (<>)")
    if precedence == "list" or header(msg, "List-Id"):
        return Classification("list", "message de liste de diffusion")
    return Classification("normal")


def bounced_recipients(msg: Message) -> list[str]:
    """Addresses a DSN reports as failed (``Action: failed``), lower-cased."""
    failed: list[str] = []
    for part in msg.walk():
        if part.get_content_type() != "message/delivery-status":
            continue
        payload = part.get_payload()
        blocks: list[Message] = []
        if isinstance(payload, list):
            blocks = [p for p in payload if isinstance(p, Message)]
        elif isinstance(payload, str):
            # Some parsers leave the status fields as text: parse "Name: value" groups.
            blocks = []
            for chunk in re.split(r"\n\s*\n", payload.replace("\r\n", "\n")):
                m = Message()
                for line in chunk.splitlines():
                    if ":" in line:
                        k, v = line.split(":", 1)
                        m[k.strip()] = v.strip()
                blocks.append(m)
        for block in blocks:
            action = str(block.get("Action", "")).strip().lower()
            recipient = str(block.get("Final-Recipient") or block.get("Original-Recipient") or "")
            if action.startswith("failed") and recipient:
                addr = recipient.split(";", 1)[-1].strip().strip("<>").lower()
                if addr and addr not in failed:
                    failed.append(addr)
    return failed


def rate_limit_exceeded(sent_times: list[datetime], now: datetime, *, per_hour: int) -> bool:
    """True when ``per_hour`` replies already went to this address in the last hour."""
    if per_hour <= 0:
        return False
    window_start = now - timedelta(hours=1)
    return sum(1 for t in sent_times if t > window_start) >= per_hour
