"""What the arbitre and the players type, checked where it enters: a public code (a slug:
it goes into URLs, mail subjects, file names) and a one-line text (a name, a title: it goes
into calendar lines, mail headers, CSV cells). French ``ValueError`` messages; the console
forms, the CSV import and the services that store a code or a name all use these, so a value
refused by a form is refused by the service under it too.

Values already stored keep working: pages look a code up as it is, and :func:`one_line`
makes any stored text safe for a one-line output (the calendar feeds)."""

from __future__ import annotations

import re
import unicodedata
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

#: a public code (problem, Duplicate game, correspondence game) or a competition's
#: identifier: in URLs, mail subjects and addresses, file names
CODE_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")
CODE_MAX = 32

CODE_RULE = ("de 1 à 32 lettres sans accent, chiffres, - et _, commençant par une lettre ou "
             "un chiffre")


def check_code(code: str, label: str = "Code public") -> str:
    """``code`` when it is a slug (:data:`CODE_RE`); otherwise a French ``ValueError``
    « Code public « P 1 » refusé : de 1 à 32 lettres … »."""
    if not CODE_RE.fullmatch(code):
        raise ValueError(f"{label} « {shown(code)} » refusé : {CODE_RULE}.")
    return code


#: no IANA time zone name is longer (the longest today has 32 characters)
ZONE_MAX = 64


def zone_of(name: str) -> ZoneInfo:
    """The IANA time zone ``name``; for anything else (a path such as ``../../etc/passwd``,
    a name too long for the file system, a NUL) a French ``ValueError``."""
    try:
        if len(name) > ZONE_MAX:
            raise ValueError(name)
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        raise ValueError(f"Fuseau horaire inconnu : « {shown(name)} ».") from None


def _breaks_a_line(ch: str) -> bool:
    # Cc: the C0 and C1 controls (CR, LF, TAB, NUL, ESC…); Zl, Zp: U+2028, U+2029
    return unicodedata.category(ch) in ("Cc", "Zl", "Zp")


def line_problem(value: str) -> str | None:
    """Why ``value`` cannot be a one-line text (a name, a title), or ``None``."""
    for ch in value:
        if ch in "\r\n\u2028\u2029":
            return "un retour à la ligne n'y est pas admis"
        if _breaks_a_line(ch):
            return f"le caractère de contrôle U+{ord(ch):04X} n'y est pas admis"
    return None


def check_line(value: str, label: str, *, limit: int = 200, required: bool = False) -> str:
    """``value`` stripped, when it is one line of at most ``limit`` characters without
    control characters; otherwise a French ``ValueError`` naming ``label``."""
    value = value.strip()
    if required and not value:
        raise ValueError(f"{label} : valeur obligatoire.")
    if len(value) > limit:
        raise ValueError(f"{label} : {len(value)} caractères, {limit} au plus.")
    problem = line_problem(value)
    if problem is not None:
        raise ValueError(f"{label} : {problem}.")
    return value


def check_text(value: str, label: str, *, limit: int) -> str:
    """A text of several lines (a description, instructions): at most ``limit``
    characters, line breaks and tabs allowed, no other control character."""
    value = value.strip()
    if len(value) > limit:
        raise ValueError(f"{label} : {len(value)} caractères, {limit} au plus.")
    for ch in value:
        if ch not in "\r\n\t" and _breaks_a_line(ch):
            raise ValueError(f"{label} : le caractère de contrôle U+{ord(ch):04X} n'y est pas "
                             "admis.")
    return value


def one_line(value: str) -> str:
    """Any stored text as one line: each run of control characters and line breaks becomes
    one space (none next to a space, or at either end): a value stored before the checks
    above, shown where a line break would break the output."""
    out: list[str] = []
    gap = False
    for ch in value:
        if _breaks_a_line(ch):
            gap = True
            continue
        if gap and out and not out[-1].isspace() and not ch.isspace():
            out.append(" ")
        gap = False
        out.append(ch)
    return "".join(out)


def shown(value: str, most: int = 40) -> str:
    """A refused value quoted in a message: at most ``most`` characters, one line."""
    return one_line(value[:most])
