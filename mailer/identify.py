"""Who sent a message and which problem it is for.

Owns the pure part of identification (the pipeline does the database look-ups):

* the player's secret **token**, from the personal submission address
  ``feuilles+TOKEN@domain`` (any recipient of the envelope or of ``To``/``Cc``/``Delivered-To``)
  or from the subject (``jeton: TOKEN`` / ``code: TOKEN``);
* the **sender address** to compare with the registered one (case-insensitive), including the
  mailing-list case: a list that rewrites ``From`` for DMARC (``"X via Liste" <liste@...>``)
  keeps the author in ``X-Original-From`` or ``Reply-To``; we take that address, but only when
  the ``From`` display name says ``via`` or the message carries ``List-Id`` — and the token is
  still required, so a rewritten sender never identifies anyone on its own;
* the **problem** reference, from the subject (``[CODE]``, ``Problème : CODE``, or a bare open
  problem code/title) or from a ``Problème : ...`` header line of the sheet (left in place:
  it is a header field of the feuille format);
* ``Authentication-Results`` (DKIM/DMARC/SPF) as recorded signals.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from email.message import Message
from email.utils import getaddresses

from mailer.parse import address as parse_address
from mailer.parse import header

_TOKEN_CHARS = r"[A-Za-z0-9_-]{6,64}"
_SUBJECT_TOKEN = re.compile(rf"\b(?:jeton|code personnel|token)\s*[:=#]?\s*({_TOKEN_CHARS})\b",
                            re.I)
_PROBLEM_LINE = re.compile(r"^\s*(?:probl[èe]me|problem[ae]?|pb)\s*(?:n[°o]\s*)?[:=]\s*(.+?)\s*$",
                           re.I)
_BRACKET = re.compile(r"\[([^\]]{1,60})\]")
_AUTH_METHOD = re.compile(r"\b(dkim|dmarc|spf|arc)\s*=\s*([a-z]+)", re.I)


@dataclass(frozen=True)
class Sender:
    """The address that must match the player's registered one."""

    address: str  # lower-cased
    from_header: str  # lower-cased address of the From header itself
    rewritten: bool  # From rewritten by a list; address taken from X-Original-From/Reply-To


@dataclass(frozen=True)
class ProblemRef:
    id: int
    code: str
    title: str


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(text.lower().split())


def token_from_address(address: str, localpart: str) -> str | None:
    """``feuilles+TOKEN@domain`` -> ``TOKEN`` (local part compared case-insensitively)."""
    addr = parse_address(address)[1] or address
    local = addr.rsplit("@", 1)[0]
    base, sep, tag = local.partition("+")
    if sep and base.lower() == localpart.lower() and re.fullmatch(_TOKEN_CHARS, tag):
        return tag
    return None


def find_token(recipients: Iterable[str], msg: Message, localpart: str) -> str | None:
    """The token from the envelope recipients, then address headers, then the subject."""
    for address in recipients:
        token = token_from_address(address, localpart)
        if token:
            return token  # the usual case: the headers below need not be parsed
    for name in ("Delivered-To", "X-Original-To", "To", "Cc"):
        for _, address in getaddresses([header(msg, name)]):
            token = token_from_address(address, localpart) if address else None
            if token:
                return token
    m = _SUBJECT_TOKEN.search(header(msg, "Subject"))
    return m.group(1) if m else None


def sender_of(msg: Message) -> Sender:
    """The author's address (see the module doc for the mailing-list rule)."""
    from_name, from_addr = parse_address(header(msg, "From"))
    from_addr = from_addr.lower()
    listy = bool(header(msg, "List-Id")) or re.search(r"\bvia\b", from_name, re.I) is not None
    if listy:
        for name in ("X-Original-From", "Reply-To"):
            original = parse_address(header(msg, name))[1].lower()
            if original and original != from_addr:
                return Sender(original, from_addr, True)
    return Sender(from_addr, from_addr, False)


_REPLY_PREFIX = re.compile(r"^\s*((re|tr|fwd?|aw|ref|réf)\s*(\[\d+\])?\s*:\s*)+", re.I)


@dataclass(frozen=True)
class ProblemHints:
    """What the message says about the problem, strongest first."""

    explicit: tuple[str, ...]  # « Problème : X » in the subject or the sheet: must match
    soft: tuple[str, ...]  # [X] in the subject, then the whole subject: may match


def problem_refs(subject: str, sheet_text: str) -> tuple[ProblemHints, str]:
    """Problem references in the subject and the sheet's first lines.

    Returns the hints and the sheet text, unchanged: the ``Problème : ...`` line is a header
    field of the feuille format, which ``puzzles.feuille`` reads too.
    """
    subject = _REPLY_PREFIX.sub("", subject)
    explicit: list[str] = []
    m = _PROBLEM_LINE.match(subject)
    if m:
        explicit.append(m.group(1))
    lines = sheet_text.split("\n")
    for line in lines[:12]:
        pm = _PROBLEM_LINE.match(line)
        if pm:
            explicit.append(pm.group(1))
            break
    soft = [b.strip() for b in _BRACKET.findall(subject)] + [subject]
    return (ProblemHints(tuple(r for r in explicit if r.strip()),
                         tuple(r for r in soft if r.strip())), "\n".join(lines))


def _match_one(ref: str, problems: Sequence[ProblemRef]) -> list[ProblemRef]:
    folded = _fold(ref)
    exact = [p for p in problems if _fold(p.code) == folded]
    if exact:
        return exact
    words = set(re.findall(r"[\w-]+", folded))
    by_word = [p for p in problems if _fold(p.code) in words]
    if by_word:
        return by_word
    by_title = [p for p in problems if p.title and (_fold(p.title) in folded
                                                     or folded == _fold(p.title))]
    return by_title


def match_problem(hints: ProblemHints, problems: Sequence[ProblemRef],
                  fallback: Sequence[ProblemRef] | None = None) -> ProblemRef | None:
    """The one problem the hints designate, or ``None`` (nothing, or several, match).

    Each reference is tried as an exact code, a code among its words, then a title it
    contains. An explicit « Problème : » reference that matches nothing is not overridden by
    the subject; with no usable reference at all and a single candidate of ``fallback``
    (default: ``problems``), that candidate.
    """
    for ref in hints.explicit:
        found = _match_one(ref, problems)
        return found[0] if len(found) == 1 else None
    for ref in hints.soft:
        found = _match_one(ref, problems)
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            return None
    candidates = problems if fallback is None else fallback
    if len(candidates) == 1:
        return candidates[0]
    return None


def auth_results(msg: Message) -> dict[str, object]:
    """``Authentication-Results`` verdicts (signals only, never a decision on their own)."""
    values: list[str] = []
    try:
        values = [" ".join(str(v).split()) for v in (msg.get_all("Authentication-Results") or [])]
    except Exception:
        values = []
    verdicts: dict[str, str] = {}
    for value in values:
        for method, result in _AUTH_METHOD.findall(value):
            verdicts.setdefault(method.lower(), result.lower())
    out: dict[str, object] = dict(verdicts)
    if values:
        out["raw"] = values
    return out
