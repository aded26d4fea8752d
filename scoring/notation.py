"""French move notation: references and written words.

A reference names the square of a word's first letter. ``H4`` (letter first) is a horizontal
word starting at row H, column 4; ``4H`` (number first) is a vertical word starting at column
4, row H (RULES §1.2). Accepted spellings: ``h4``, ``H 4``, ``H-4``, ``15f``, ``4-H``,
``H7:``.

A written word marks a joker in one of three ways: lowercase (``RESTAIt``), parentheses
(``RESTAI(T)``) or the Romanian trailing zero (``RESTAIT0``). Accents are folded (É → E,
Œ → OE). :func:`parse_word` returns the canonical form: uppercase letters, jokers lowercase.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from scoring.errors import NotationError, OffBoardError
from scoring.layout import SIZE

ROWS = "ABCDEFGHIJKLMNO"

_H_RE = re.compile(r"^([A-Oa-o])\s*[-.]?\s*(\d{1,2})\s*:?$")
_V_RE = re.compile(r"^(\d{1,2})\s*[-.]?\s*([A-Oa-o])\s*:?$")


@dataclass(frozen=True, order=True)
class Ref:
    """A word's start square and direction. ``row`` and ``col`` are 0-based."""

    row: int
    col: int
    horizontal: bool

    def __post_init__(self) -> None:
        if not (0 <= self.row < SIZE and 0 <= self.col < SIZE):
            raise OffBoardError(f"La case ({self.row}, {self.col}) est hors de la grille.")

    @property
    def square(self) -> int:
        return self.row * SIZE + self.col

    @property
    def step(self) -> int:
        """Square-index increment along the word."""
        return 1 if self.horizontal else SIZE

    def squares(self, length: int) -> list[int]:
        """The squares of a word of ``length`` letters from here; raises when off the board."""
        end = (self.col if self.horizontal else self.row) + length - 1
        if end >= SIZE:
            raise OffBoardError(
                f"Un mot de {length} lettres en {format_ref(self)} sort de la grille."
            )
        return [self.square + i * self.step for i in range(length)]

    @classmethod
    def at(cls, square: int, horizontal: bool) -> Ref:
        return cls(square // SIZE, square % SIZE, horizontal)

    def __str__(self) -> str:
        return format_ref(self)

    def __repr__(self) -> str:
        return f"parse_ref({format_ref(self)!r})"


def parse_ref(text: str) -> Ref:
    """Read a reference. Raises :class:`NotationError` or :class:`OffBoardError`."""
    s = text.strip()
    m = _H_RE.match(s)
    if m:
        row, col, horizontal = ROWS.index(m.group(1).upper()), int(m.group(2)), True
    else:
        m = _V_RE.match(s)
        if not m:
            raise NotationError(
                f"Référence illisible : « {text} » (attendu par exemple H4 ou 4H)."
            )
        row, col, horizontal = ROWS.index(m.group(2).upper()), int(m.group(1)), False
    if not 1 <= col <= SIZE:
        raise OffBoardError(f"Référence « {text} » : la colonne {col} n'existe pas (1 à 15).")
    return Ref(row, col - 1, horizontal)


@lru_cache(maxsize=4096)
def is_ref(text: str) -> bool:
    """True when :func:`parse_ref` reads ``text`` (a sheet cell that is a reference).
    Remembered for the last cells asked (a function of the text alone; a sheet asks it of
    each of its cells several times, and a failed reading costs an exception)."""
    try:
        parse_ref(text)
    except (NotationError, OffBoardError):
        return False
    return True


def format_ref(ref: Ref) -> str:
    """``H4`` for a horizontal word, ``4H`` for a vertical one."""
    row, col = ROWS[ref.row], str(ref.col + 1)
    return row + col if ref.horizontal else col + row


def square_name(square: int) -> str:
    """``H8`` for the centre square."""
    return f"{ROWS[square // SIZE]}{square % SIZE + 1}"


_LIGATURES = {"Œ": "OE", "œ": "oe", "Æ": "AE", "æ": "ae", "ß": "ss"}


def fold_letter(ch: str) -> str:
    """Strip accents and ligatures: ``é`` → ``e``, ``Œ`` → ``OE``. Case is kept. ASCII
    text comes back as it is (no ligature, and NFD leaves it unchanged, without combining
    marks)."""
    if ch.isascii():
        return ch
    if ch in _LIGATURES:
        return _LIGATURES[ch]
    decomposed = unicodedata.normalize("NFD", ch)
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def parse_word(text: str) -> str:
    """Canonical word: uppercase letters, jokers in lowercase.

    ``RESTAIt``, ``RESTAI(T)``, ``RESTAI(t)`` and ``RESTAIT0`` all give ``RESTAIt``.
    Raises :class:`NotationError` for anything else (digits, ``?``, punctuation, empty).
    """
    if text.isascii() and text.isalpha():
        return text  # already canonical: the verifier parses every move's word this way
    src = "".join(fold_letter(c) for c in text.strip())
    out: list[str] = []
    i = 0
    n = len(src)
    while i < n:
        ch = src[i]
        if ch == "(":
            close = src.find(")", i)
            inner = src[i + 1 : close] if close > 0 else ""
            if close < 0 or not inner.isascii() or not inner.isalpha():
                raise NotationError(
                    f"Mot « {text} » : un joker s'écrit entre parenthèses, par exemple RESTAI(T)."
                )
            out.extend(c.lower() for c in inner)
            i = close + 1
            continue
        if ch.isascii() and ch.isalpha():
            if i + 1 < n and src[i + 1] == "0":
                out.append(ch.lower())
                i += 2
                continue
            out.append(ch)
            i += 1
            continue
        raise NotationError(f"Mot « {text} » : caractère inattendu « {ch} ».")
    if not out:
        raise NotationError("Mot vide.")
    return "".join(out)


def format_word(word: str, style: str = "lower") -> str:
    """Write a canonical word with jokers as ``lower`` (RESTAIt), ``paren`` (RESTAI(T)) or
    ``zero`` (RESTAIT0)."""
    if style == "lower":
        return word
    parts: list[str] = []
    for ch in word:
        if ch.islower():
            parts.append(f"({ch.upper()})" if style == "paren" else f"{ch.upper()}0")
        else:
            parts.append(ch)
    if style not in ("paren", "zero"):
        raise ValueError(f"unknown joker style {style!r}")
    return "".join(parts)
