"""Tile sets: letters, counts, points and vowels for a language (French 102 tiles,
Romanian 100 tiles), loaded from the data files in ``scoring/data``.

The joker is written ``?`` in a set or a rack. Y (French) and jokers are *ambiguous*: when a
draw is checked against vowel/consonant minimums each may count as either (RULES §2.1).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cache, cached_property
from importlib import resources

from scoring.errors import UnknownLetterError

JOKER = "?"


@dataclass(frozen=True)
class TileSet:
    """A language's tiles: ``counts[letter]``, ``points[letter]``, vowels, ambiguous letters."""

    name: str
    counts: dict[str, int]
    points: dict[str, int]
    vowels: frozenset[str]
    ambiguous: frozenset[str] = field(default_factory=frozenset)

    @property
    def total(self) -> int:
        """Number of tiles in the bag, jokers included."""
        return sum(self.counts.values())

    @property
    def letters(self) -> str:
        """The letters of the set (no joker), in alphabetical order."""
        return "".join(sorted(k for k in self.counts if k != JOKER))

    @property
    def jokers(self) -> int:
        return self.counts.get(JOKER, 0)

    @cached_property
    def value_table(self) -> dict[str, int]:
        """Points by board cell: uppercase letters at face value, lowercase (jokers) 0."""
        table = dict(self.points)
        table.update({k.lower(): 0 for k in self.points})
        table[JOKER] = 0
        return table

    @cached_property
    def engine_values(self) -> bytes:
        """The points the raw move generators take: index 0 (joker) 0, 1–26 A–Z (0 for a
        letter not in the set)."""
        return bytes([0] + [self.points.get(chr(64 + i), 0) for i in range(1, 27)])

    @cached_property
    def engine_rack_table(self) -> bytes:
        """A ``bytes.translate`` table from a rack's ASCII characters to the raw generators'
        codes: ``?`` 0, a letter of the set (either case) 1–26, anything else 255."""
        table = bytearray([255] * 256)
        table[ord(JOKER)] = 0
        for i in range(1, 27):
            if chr(64 + i) in self.points:
                table[64 + i] = table[96 + i] = i
        return bytes(table)

    def value(self, letter: str) -> int:
        """Points of a tile; a lowercase letter (a joker standing for it) is worth 0."""
        if letter == JOKER or letter.islower():
            return 0
        try:
            return self.points[letter]
        except KeyError:
            raise UnknownLetterError(f"Lettre inconnue : « {letter} ».") from None

    def is_vowel(self, letter: str) -> bool:
        return letter.upper() in self.vowels

    def bag(self) -> Counter[str]:
        """A full bag as a multiset (``?`` for jokers)."""
        return Counter(self.counts)

    def check_letters(self, letters: str) -> None:
        """Raise :class:`UnknownLetterError` if a letter (or ``?``) is not in this set."""
        for ch in letters:
            if ch != JOKER and ch.upper() not in self.points:
                raise UnknownLetterError(
                    f"La lettre « {ch} » n'existe pas dans le jeu {self.name}."
                )

    def kinds(self, letters: str) -> tuple[int, int, int]:
        """(vowels, consonants, ambiguous) among ``letters``: a joker or an ambiguous letter
        (Y) counts as either, at will (RULES §2.1)."""
        vowels = consonants = free = 0
        for ch in letters:
            if ch == JOKER or ch.upper() in self.ambiguous:
                free += 1
            elif self.is_vowel(ch):
                vowels += 1
            else:
                consonants += 1
        return vowels, consonants, free

    def draw_meets_minimum(self, letters: str, minimum: int, *, slots: int = 0) -> bool:
        """True iff some assignment of each ambiguous tile (Y, joker) to vowel or consonant
        gives at least ``minimum`` vowels and ``minimum`` consonants (RULES §2.1, INFERRED);
        ``slots`` tiles still to come count as either."""
        vowels, consonants, free = self.kinds(letters)
        need = max(0, minimum - vowels) + max(0, minimum - consonants)
        return need <= free + slots


def _load(name: str, filename: str, ambiguous: str) -> TileSet:
    counts: dict[str, int] = {}
    points: dict[str, int] = {}
    vowels: set[str] = set()
    text = resources.files("scoring").joinpath("data", filename).read_text("utf-8")
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        letter, count, pts, vowel = line.split()
        counts[letter] = int(count)
        if letter != JOKER:
            points[letter] = int(pts)
            if vowel == "1":
                vowels.add(letter)
    return TileSet(name, counts, points, frozenset(vowels), frozenset(ambiguous))


@cache
def french() -> TileSet:
    """The French (FISF) set: 100 letters and 2 jokers."""
    return _load("français", "tiles_fr.txt", "Y")


@cache
def romanian() -> TileSet:
    """The Romanian (FRSc) set: 98 letters and 2 jokers; no K, Q, W, Y tiles."""
    return _load("roumain", "tiles_ro.txt", "")


def tileset(lang: str) -> TileSet:
    """``"fr"`` or ``"ro"``."""
    if lang == "fr":
        return french()
    if lang == "ro":
        return romanian()
    raise ValueError(f"Jeu de lettres inconnu : {lang!r} (attendu fr ou ro).")
