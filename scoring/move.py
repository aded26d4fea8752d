"""Placements: the tiles a move puts down, and their conversion to and from French notation.

A :class:`Placement` is the identity of a move: the set of (square, letter, is-joker) tiles.
Two moves with a joker standing for different letters, or on different squares, are
different placements. Notation (``H4 MOT``) converts to a placement against a board, since
letters already on the grid are part of the written word but not of the placement.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.board import Board
from scoring.errors import NotationError, OverlapError
from scoring.layout import SIZE
from scoring.notation import Ref, format_ref, parse_ref, parse_word, square_name


@dataclass(frozen=True, order=True)
class Tile:
    """One tile put down: ``letter`` is uppercase; ``joker`` tells whether it is a joker."""

    square: int
    letter: str
    joker: bool = False

    @property
    def cell(self) -> str:
        """How the tile is written on a board: lowercase for a joker."""
        return self.letter.lower() if self.joker else self.letter


@dataclass(frozen=True)
class Placement:
    """The tiles of one move, sorted by square."""

    tiles: tuple[Tile, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "tiles", tuple(sorted(self.tiles)))
        # Cached: the verifier's cascade asks every earlier move for its squares.
        object.__setattr__(self, "_squares", tuple(t.square for t in self.tiles))

    def __len__(self) -> int:
        return len(self.tiles)

    @property
    def squares(self) -> tuple[int, ...]:
        squares: tuple[int, ...] = self.__dict__["_squares"]
        return squares

    @property
    def jokers(self) -> int:
        return sum(1 for t in self.tiles if t.joker)

    @property
    def letters(self) -> str:
        """Letters taken from the rack, jokers as ``?``, in placement order."""
        return "".join("?" if t.joker else t.letter for t in self.tiles)

    @classmethod
    def from_notation(cls, board: Board, ref: Ref | str, word: str) -> Placement:
        """The new tiles of ``word`` written at ``ref`` on ``board``.

        Squares already holding the same letter are kept (not part of the placement); a
        different letter raises :class:`OverlapError`; running off the grid raises
        :class:`OffBoardError`. A joker on the board may be written either way (``e`` or
        ``E``); a letter the word marks as a joker where the board has a real tile is
        accepted as that tile.
        """
        r = parse_ref(ref) if isinstance(ref, str) else ref
        w = parse_word(word)
        tiles: list[Tile] = []
        for sq, ch in zip(r.squares(len(w)), w, strict=True):
            cur = board[sq]
            if cur:
                if cur.upper() != ch.upper():
                    raise OverlapError(
                        f"{w.upper()} en {format_ref(r)} : la case {square_name(sq)} porte déjà "
                        f"{cur.upper()}, pas {ch.upper()}."
                    )
                continue
            tiles.append(Tile(sq, ch.upper(), ch.islower()))
        return cls(tuple(tiles))

    def apply(self, board: Board) -> None:
        """Put the tiles on ``board`` (in place)."""
        for t in self.tiles:
            board.put(t.square, t.cell)

    def direction(self, board: Board) -> bool:
        """True when the main word is horizontal (single tile: horizontal if it forms a
        horizontal word of 2+ letters, else vertical)."""
        if len(self.tiles) > 1:
            return self.tiles[0].square // SIZE == self.tiles[-1].square // SIZE
        sq = self.tiles[0].square
        c = sq % SIZE
        left = c > 0 and bool(board[sq - 1])
        right = c < SIZE - 1 and bool(board[sq + 1])
        return left or right

    def notation(self, board: Board, horizontal: bool | None = None) -> tuple[Ref, str]:
        """Reference and whole main word (jokers lowercase) for this placement on ``board``
        (the board *before* the move). ``horizontal`` forces the direction of a one-tile
        move."""
        if not self.tiles:
            raise NotationError("Aucune lettre posée.")
        h = self.direction(board) if horizontal is None or len(self.tiles) > 1 else horizontal
        step = 1 if h else SIZE
        new = {t.square: t.cell for t in self.tiles}

        def filled(sq: int) -> bool:
            return bool(board[sq]) or sq in new

        def in_line(a: int, b: int) -> bool:
            return (a // SIZE == b // SIZE) if h else (0 <= b < SIZE * SIZE)

        start = self.tiles[0].square
        while in_line(start, start - step) and start - step >= 0 and filled(start - step):
            start -= step
        letters: list[str] = []
        sq = start
        while 0 <= sq < SIZE * SIZE and in_line(start, sq) and filled(sq):
            letters.append(new.get(sq) or board[sq])
            sq += step
        return Ref.at(start, h), "".join(letters)

    def to_text(self, board: Board) -> str:
        ref, word = self.notation(board)
        return f"{format_ref(ref)} {word}"
