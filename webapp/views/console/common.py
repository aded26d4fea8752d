"""The console's shared pieces: the arbitre-only guard, form readers with French errors, the
session and the actor."""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TypeVar

from flask import (
    abort,
    request,
)
from sqlmodel import Session

from puzzles.duplicate import Lang
from webapp.auth import arbitre_required, current_arbitre
from webapp.db import get_engine
from webapp.models import DEFAULT_TIMEZONE
from webapp.services import inputs

PER_PAGE = 50
MIN_YEAR, MAX_YEAR = 2000, 2100  # dates a competition can have


#: a public code: in URLs, mail subjects and addresses (``webapp.services.inputs``)
CODE_RE = inputs.CODE_RE


MAX_TEXT = {"name": 200, "title": 200, "description": 5000, "instructions": 5000}
#: the fields of several lines (any other text field is one line: a name, a title)
MULTILINE = ("description", "instructions")


#: the largest id a row can have (PostgreSQL ``integer``)
MAX_ID = 2**31 - 1


LANGS: tuple[Lang, ...] = ("fr", "ro")
#: a posted form (``request.form``, read by name)
Form = Mapping[str, str]
#: what :func:`choice_field` gives back: one of its choices
Choice = TypeVar("Choice", bound=str)


def int_field(form: Form, name: str, label: str, *, lo: int, hi: int,
              default: int | None = None) -> int:
    """An integer form field within ``lo..hi``, or a French ``ValueError`` naming it."""
    raw = (form.get(name) or "").strip()
    if not raw:
        if default is None:
            raise ValueError(f"{label} : valeur obligatoire.")
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{label} : « {inputs.shown(raw)} » n'est pas un nombre entier.") \
            from None
    if not lo <= value <= hi:
        raise ValueError(f"{label} : {value} est hors des limites (de {lo} à {hi}).")
    return value


def float_field(form: Form, name: str, label: str, *, lo: float, hi: float,
                default: float) -> float:
    """A decimal form field (comma or point) within ``lo..hi``; ``inf`` and ``NaN`` are
    refused like any other non-number."""
    raw = (form.get(name) or "").strip().replace(",", ".")
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise ValueError(f"{label} : « {inputs.shown(raw)} » n'est pas un nombre.")
    if not lo <= value <= hi:
        raise ValueError(f"{label} : {raw} est hors des limites (de {lo:g} à {hi:g}).")
    return value


def text_field(form: Form, name: str, label: str, *, required: bool = False,
               limit: int | None = None) -> str:
    """A text form field, stripped, at most ``limit`` characters (:data:`MAX_TEXT`, 200 for
    other fields); one line without control characters unless it is one of
    :data:`MULTILINE` (``webapp.services.inputs``); a French ``ValueError`` naming it."""
    value = form.get(name) or ""
    most = limit if limit is not None else MAX_TEXT.get(name, 200)
    if name in MULTILINE:
        return inputs.check_text(value, label, limit=most)
    return inputs.check_line(value, label, limit=most, required=required)


def code_field(form: Form, name: str, label: str) -> str | None:
    """A public code (a slug, ``webapp.services.inputs.check_code``), ``None`` when empty."""
    code = (form.get(name) or "").strip()
    return inputs.check_code(code, label) if code else None


def choice_field(form: Form, name: str, choices: tuple[Choice, ...], message: str,
                 default: Choice) -> Choice:
    """One of ``choices`` (empty: ``default``), or the French ``message``; typed as the
    choices are (a ``Literal`` tuple gives that ``Literal``)."""
    value = (form.get(name) or "").strip() or default
    for choice in choices:
        if choice == value:
            return choice
    raise ValueError(message)


def timezone_field(form: Form, name: str = "timezone") -> str:
    """An IANA time zone name (empty: the server's default), or a French ``ValueError``."""
    tz = (form.get(name) or "").strip() or DEFAULT_TIMEZONE
    inputs.zone_of(tz)
    return tz


def id_arg(value: int | None) -> int | None:
    """An id from a form, or ``None`` when it cannot name a row."""
    return value if value is not None and 0 < value <= MAX_ID else None


def page_arg() -> int:
    """``?page=``: 1 when absent or unreadable, at most 1,000,000 (no huge SQL offset)."""
    return min(1_000_000, max(1, request.args.get("page", 1, type=int) or 1))


@arbitre_required
def _only_arbitres() -> None:
    """Every console page needs a signed-in arbitre (the decorator redirects otherwise)."""
    return None


def _actor() -> str:
    a = current_arbitre()
    if a is None:
        abort(403)
    return a.username


def _session() -> Session:
    return Session(get_engine(), expire_on_commit=False)


def parse_local(value: str, tz: str) -> datetime:
    """A ``datetime-local`` field read in ``tz`` (the competition's zone), as UTC."""
    zone = inputs.zone_of(tz)
    try:
        naive = datetime.fromisoformat(value.strip())
    except ValueError:
        raise ValueError(f"Date illisible : « {inputs.shown(value)} » (attendu "
                         "AAAA-MM-JJTHH:MM).") from None
    if not MIN_YEAR <= naive.year <= MAX_YEAR:
        raise ValueError(f"Date hors des limites : « {inputs.shown(value)} » (l'année doit "
                         f"être comprise entre {MIN_YEAR} et {MAX_YEAR}).")
    if naive.tzinfo is not None:
        return naive.astimezone(UTC)
    return naive.replace(tzinfo=zone).astimezone(UTC)
