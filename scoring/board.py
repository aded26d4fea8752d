"""The grid of tiles: a mutable 15×15 board, its CGP text form and a readable ASCII form.

A cell holds ``""`` (empty), an uppercase letter (a tile) or a lowercase letter (a joker
standing for that letter). CGP board strings list rows A→O separated by ``/``; digits count
empty squares (``15/15/.../7FICHERA1/...``), as in Macondo, MAGPIE and wolges.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from scoring.errors import CGPError, OverlapError
from scoring.layout import SIZE
from scoring.notation import ROWS, square_name

_CGP_ROW = re.compile(r"(\d+|[A-Za-z])")


class Board:
    """A position: 225 cells indexed ``row * 15 + col``."""

    __slots__ = ("cells", "_count")

    def __init__(self, cells: Iterable[str] | None = None) -> None:
        if cells is None:  # the empty grid (no count to take)
            self.cells: list[str] = [""] * (SIZE * SIZE)
            self._count = 0
            return
        self.cells = list(cells)
        if len(self.cells) != SIZE * SIZE:
            raise CGPError(f"Une grille a 225 cases, pas {len(self.cells)}.")
        self._count = sum(1 for c in self.cells if c)

    # --- access -------------------------------------------------------------------------
    def __getitem__(self, square: int) -> str:
        return self.cells[square]

    def at(self, row: int, col: int) -> str:
        return self.cells[row * SIZE + col]

    def is_empty(self) -> bool:
        return self._count == 0

    @property
    def tile_count(self) -> int:
        return self._count

    def occupied(self) -> Iterator[int]:
        return (i for i, c in enumerate(self.cells) if c)

    def copy(self) -> Board:
        b = Board.__new__(Board)
        b.cells = self.cells.copy()
        b._count = self._count
        return b

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Board) and self.cells == other.cells

    def __hash__(self) -> int:
        return hash(tuple(self.cells))

    # --- changes ------------------------------------------------------------------------
    def put(self, square: int, letter: str) -> None:
        """Put one tile (uppercase letter, or lowercase for a joker) on an empty square."""
        current = self.cells[square]
        if current:
            raise OverlapError(
                f"La case {square_name(square)} est déjà occupée par {current.upper()}."
            )
        self.cells[square] = letter
        self._count += 1

    def put_all(self, squares: Iterable[int], letters: Iterable[str]) -> None:
        """:meth:`put` each letter on its square, in order (raises as :meth:`put`)."""
        cells = self.cells
        for square, letter in zip(squares, letters, strict=True):
            if cells[square]:
                self.put(square, letter)  # raises OverlapError
            cells[square] = letter
            self._count += 1

    def added(self, n: int) -> None:
        """``n`` tiles were written into :attr:`cells` directly, on empty squares (the
        verifier's compiled sheet loop, :func:`scoring.validate.quick_checker`): the count
        follows."""
        self._count += n

    def remove(self, square: int) -> str:
        """Take a tile off the board (used by annulments); returns what was there."""
        current = self.cells[square]
        if current:
            self.cells[square] = ""
            self._count -= 1
        return current

    def transpose(self) -> Board:
        """The mirror image across the main diagonal (rows become columns)."""
        return Board(self.cells[c * SIZE + r] for r in range(SIZE) for c in range(SIZE))

    # --- text forms ---------------------------------------------------------------------
    @classmethod
    def from_cgp(cls, text: str) -> Board:
        """Read a CGP board (only the first space-separated field is used)."""
        field = text.strip().split()[0] if text.strip() else ""
        rows = field.split("/")
        if len(rows) != SIZE:
            raise CGPError(f"CGP : {len(rows)} rangées au lieu de 15 dans « {text[:60]} ».")
        cells: list[str] = []
        for r, row in enumerate(rows):
            consumed = "".join(_CGP_ROW.findall(row))
            if consumed != row:
                raise CGPError(f"CGP : caractère inattendu dans la rangée {ROWS[r]} « {row} ».")
            n = 0
            for tok in _CGP_ROW.findall(row):
                if tok.isdigit():
                    cells.extend([""] * int(tok))
                    n += int(tok)
                else:
                    cells.append(tok)
                    n += 1
            if n != SIZE:
                raise CGPError(f"CGP : la rangée {ROWS[r]} « {row} » fait {n} cases au lieu de 15.")
        return cls(cells)

    def to_cgp(self) -> str:
        out: list[str] = []
        for r in range(SIZE):
            row: list[str] = []
            empty = 0
            for c in range(SIZE):
                cell = self.cells[r * SIZE + c]
                if cell:
                    if empty:
                        row.append(str(empty))
                        empty = 0
                    row.append(cell)
                else:
                    empty += 1
            if empty:
                row.append(str(empty))
            out.append("".join(row))
        return "/".join(out)

    def to_ascii(self) -> str:
        """Readable grid: column numbers on top, row letters on the left, ``.`` for empty."""
        lines = ["   " + "".join(f"{c + 1:>3}" for c in range(SIZE))]
        for r in range(SIZE):
            cells = "".join(f"{(self.cells[r * SIZE + c] or '.'):>3}" for c in range(SIZE))
            lines.append(f"{ROWS[r]:>3}{cells}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_ascii()

    def __repr__(self) -> str:
        return f"Board.from_cgp({self.to_cgp()!r})"
