"""E-mail addresses: the one validator, used wherever an address enters the system.

An address is accepted only if the outbox can put it in a ``To`` header and hand it to an
SMTP relay: a plain ``local@domain`` (RFC 5321 ``Mailbox`` without quoted local parts),
ASCII, the local part a dot-atom of RFC 5322 ``atext``, the domain at least two
letter/digit/hyphen labels, at most 254 characters. Anything else (display names, groups
such as ``g:a,b;c@d.ef``, quoted strings, comments, spaces, non-ASCII) is refused with a
French reason, so it can be reported where it was typed (CSV import, console, player form)
and never reaches the outbox. Used by ``webapp.services.players``, the console and the mail
intake (``mailer.pipeline``: an unusable ``From`` is never answered).
"""

from __future__ import annotations

import re

#: RFC 5322 atext, without the characters that are special in headers or to shells.
_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_LOCAL = re.compile(rf"{_ATEXT}+(?:\.{_ATEXT}+)*")
_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
MAX_LENGTH = 254
MAX_LOCAL = 64


class InvalidAddress(ValueError):
    """The address cannot be used; ``str(exc)`` is a French sentence for the user."""


def address_problem(address: str) -> str | None:
    """Why ``address`` is unusable (French), or ``None`` when it is a valid address."""
    if not address:
        return "adresse vide"
    if len(address) > MAX_LENGTH:
        return f"adresse trop longue ({len(address)} caractères, au plus {MAX_LENGTH})"
    if not address.isascii():
        return "caractères non ASCII, accents par exemple, non acceptés dans une adresse"
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in address):
        return "espace ou caractère de contrôle dans l'adresse"
    if address.count("@") != 1:
        return "une adresse contient exactement un « @ »"
    local, domain = address.split("@")
    if not local:
        return "rien avant le « @ »"
    if len(local) > MAX_LOCAL:
        return f"partie avant le « @ » trop longue (au plus {MAX_LOCAL} caractères)"
    if not _LOCAL.fullmatch(local):
        bad = sorted({c for c in local if not re.fullmatch(_ATEXT, c) and c != "."})
        if bad:
            return ("caractère(s) non permis avant le « @ » : "
                    + " ".join(f"« {c} »" for c in bad))
        return "point en début, en fin ou doublé avant le « @ »"
    if not domain:
        return "rien après le « @ »"
    labels = domain.split(".")
    if len(labels) < 2:
        return "le domaine après le « @ » doit contenir un point, p. ex. exemple.fr"
    if not all(_LABEL.fullmatch(label) for label in labels):
        return "domaine invalide après le « @ » : lettres, chiffres, tirets et points seulement"
    if labels[-1].isdigit():
        return "domaine invalide après le « @ » : il se termine par un nombre"
    return None


def is_valid(address: str) -> bool:
    return address_problem(address) is None


def normalise(address: str) -> str:
    """Strip and lower-case (addresses are compared case-insensitively in this project)."""
    return address.strip().lower()


def validate(address: str) -> str:
    """The normalised address, or :class:`InvalidAddress` with a French message."""
    value = normalise(address)
    problem = address_problem(value)
    if problem is not None:
        raise InvalidAddress(f"Adresse électronique invalide : « {address.strip()} » ({problem}).")
    return value
