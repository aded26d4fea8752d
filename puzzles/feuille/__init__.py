"""The feuille de route: a player's sheet (header fields and ordered moves), its tolerant
text format, its JSON form for programs, and the parser that never loses what it can read.

Text format (docs/PUZZLES.md has the full description)::

    Problème: frsc-2000-05
    Joueur: Ion Popescu
    Envoyé: 2000-05-12T18:55:00+03:00
    Coup | Lettres | Réf. | Mot | Score | Cumul
    1 ACEFHIR h8 FICHERA 82 82
    2 SUW 15f WUS 84 166

Fields may be separated by spaces, ``|``, ``;`` or tabs. A move line is: move number,
optional group (``G5``), letters used (``?`` for a joker), reference, word (joker as
lowercase, ``(X)`` or ``X0``), score, cumul — any of them may be missing; a reference may
also follow the word. ``Passe`` plays nothing; ``Annuler coup(s) 3, 5`` cancels earlier moves
before the next move's word. A sheet written with Romanian words reads the same:
``Mutarea`` for ``Coup`` in the column titles, ``Pas`` for ``Passe``, ``Anulez mutarea 3`` /
``Anulez mutările 3 și 5`` for ``Annuler coup(s)``. After a ``Scrabbles:`` line, lines are
Superscrabble answers.

:func:`parse_feuille` returns a :class:`ParsedFeuille` (everything readable plus
line-numbered French errors); :func:`format_feuille` writes the canonical text, which parses
back to the same :class:`Feuille`.

The package is split by concern: :mod:`puzzles.feuille.model` (types, JSON form of the
types, canonical text), :mod:`puzzles.feuille.text` (the text parser) and
:mod:`puzzles.feuille.json_form` (the JSON parser); this module chooses between the two
parsers and re-exports the public names.
"""

from __future__ import annotations

import json

from puzzles.feuille.json_form import parse_feuille_json
from puzzles.feuille.model import (
    FORMAT_NAME,
    FORMAT_VERSION,
    Feuille,
    FeuilleMove,
    LineError,
    ParsedFeuille,
    format_feuille,
)
from puzzles.feuille.text import parse_feuille_text

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "Feuille",
    "FeuilleMove",
    "LineError",
    "ParsedFeuille",
    "format_feuille",
    "parse_feuille",
    "parse_feuille_json",
    "parse_feuille_text",
]


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (RecursionError, ValueError):
        return False
    return True


def parse_feuille(text: str, *, superscrabble: bool = False) -> ParsedFeuille:
    """Read a sheet (text, or the JSON form when it starts with ``{``). Never raises.

    ``superscrabble``: every line is an answer of the Scrabbles list (a Superscrabble
    sheet is nothing else), so lines need no number."""
    head = text.lstrip()[:1]
    if head == "{" or (head == "[" and _is_json(text)):
        return parse_feuille_json(text)
    return parse_feuille_text(text, superscrabble=superscrabble)
