"""The game configuration: tile set, board layout, rack size, lexicon and scoring settings.

Settings that the rules leave open are named here with their defaults (see docs/RULES.md):
``first_move_horizontal`` (G11: off outside FISF Duplicate) and the 50-point bonus for a move
placing ``bingo_tiles`` tiles.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from scoring.layout import STANDARD_LAYOUT, BoardLayout
from scoring.tiles import TileSet, french, tileset

if TYPE_CHECKING:
    from scoring.lexicon import Lexicon


class WordList(Protocol):
    """Anything that answers ``"MOT" in words`` for canonical uppercase A–Z words."""

    def __contains__(self, word: object, /) -> bool: ...


@dataclass(frozen=True)
class GameConfig:
    """Everything the engine needs to judge and score a move."""

    tileset: TileSet = field(default_factory=french)
    layout: BoardLayout = STANDARD_LAYOUT
    lexicon: WordList | None = None
    rack_size: int = 7
    bingo_tiles: int = 7
    bingo_bonus: int = 50
    first_move_horizontal: bool = False
    first_move_min_tiles: int = 2

    @classmethod
    def default(cls, lang: str = "fr", lexicon: Lexicon | WordList | None = None) -> GameConfig:
        """French (or Romanian) tiles, the standard board; the bundled French list when no
        lexicon is given and ``lang`` is ``fr``."""
        if lexicon is None and lang == "fr":
            from scoring.lexicon import default_lexicon

            lexicon = default_lexicon()
        return cls(tileset=tileset(lang), lexicon=lexicon)
