"""The word lists of the server: the one a problem, a Duplicate game or a correspondence game
was published with (``LEXICONS[name]``, a path, from the configuration, else the engine's
default list), loaded once per process and checked against the identity recorded at
publication. Imports no other service: verification, the reference solution, the Duplicate
and the correspondence games all build on it."""

from __future__ import annotations

import threading
from typing import Protocol

from flask import current_app, has_app_context

from scoring.lexicon import Lexicon, default_lexicon


class LexiconMismatch(Exception):
    """The list loaded is not the one recorded at publication (French message for the
    arbitre: configure ``LEXICONS`` to find it again)."""


class LexiconOwner(Protocol):
    """What names a word list: a problem, a Duplicate game, a correspondence game."""

    @property
    def code(self) -> str: ...

    @property
    def lexicon_name(self) -> str: ...

    @property
    def lexicon_sha256(self) -> str | None: ...


_lexicons: dict[tuple[str, ...], Lexicon] = {}
_lex_lock = threading.Lock()


def base_lexicon(owner: LexiconOwner) -> Lexicon:
    """The word list of ``owner``: ``LEXICONS[name]`` (a path) from the configuration, else
    the engine's default list. Its identity must match the one recorded at publication
    (:class:`LexiconMismatch` otherwise)."""
    paths: dict[str, str] = {}
    if has_app_context():
        paths = dict(current_app.config.get("LEXICONS") or {})
    key = ("base", owner.lexicon_name, paths.get(owner.lexicon_name, ""))
    with _lex_lock:
        lex = _lexicons.get(key)
        if lex is None:
            path = paths.get(owner.lexicon_name)
            lex = Lexicon.load(path, owner.lexicon_name) if path else default_lexicon()
            _lexicons[key] = lex
    if owner.lexicon_sha256 and lex.identity.sha256 != owner.lexicon_sha256:
        raise LexiconMismatch(
            f"La liste de mots « {lex.identity.name} » chargée (sha256 "
            f"{lex.identity.sha256[:12]}…) n'est pas celle du problème {owner.code} "
            f"(« {owner.lexicon_name} », sha256 {owner.lexicon_sha256[:12]}…). "
            "Configurez LEXICONS pour la retrouver."
        )
    return lex
