"""The premium-square layout of the 15×15 board (RULES §1.3), read from
``scoring/data/board_standard.txt``. Squares are numbered ``row * 15 + col`` with row 0 = A
(top) and col 0 = column 1 (left)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources

SIZE = 15
CENTER = 7 * SIZE + 7  # H8

_CODES = {".": (1, 1), "l": (2, 1), "L": (3, 1), "w": (1, 2), "*": (1, 2), "W": (1, 3)}


@dataclass(frozen=True)
class BoardLayout:
    """Letter and word multipliers per square, and the start square."""

    name: str
    letter_mult: tuple[int, ...]
    word_mult: tuple[int, ...]
    center: int = CENTER

    @cached_property
    def engine_mults(self) -> tuple[bytes, bytes]:
        """The letter and word multipliers as the raw move generators take them."""
        return bytes(self.letter_mult), bytes(self.word_mult)

    @classmethod
    def parse(cls, name: str, text: str) -> BoardLayout:
        """Read the grid format of ``board_standard.txt`` (row label then 15 codes)."""
        lm: list[int] = []
        wm: list[int] = []
        center = CENTER
        for raw in text.splitlines():
            parts = raw.split("#", 1)[0].split()
            if len(parts) != SIZE + 1 or not parts[0].isalpha():
                continue
            for code in parts[1:]:
                if code == "*":
                    center = len(lm)
                letter, word = _CODES[code]
                lm.append(letter)
                wm.append(word)
        if len(lm) != SIZE * SIZE:
            raise ValueError(f"Plan de grille incomplet : {len(lm)} cases au lieu de 225.")
        return cls(name, tuple(lm), tuple(wm), center)


@cache
def standard_layout() -> BoardLayout:
    text = resources.files("scoring").joinpath("data", "board_standard.txt").read_text("utf-8")
    return BoardLayout.parse("standard", text)


STANDARD_LAYOUT = standard_layout()
