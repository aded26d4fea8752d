"""Type stub of the compiled move generator (scoring/_movegen.c); the interface is the one of
:func:`scoring.movegen.py_generate` and :func:`scoring.movegen_py.py_followups`."""

from array import array
from collections.abc import Iterator, Sequence
from typing import Any, overload

from scoring.move import Placement

class MoveBase:
    """The fields of scoring.movegen.GeneratedMove, made by generate() with MOVE_OBJECTS."""

    @property
    def score(self) -> int: ...
    @property
    def horizontal(self) -> bool: ...
    @property
    def start(self) -> int: ...
    @property
    def word(self) -> str: ...
    @property
    def new_mask(self) -> int: ...
    _placement: Placement | None
    def __init__(self, score: int, horizontal: bool, start: int, word: str,
                 new_mask: int) -> None: ...

class MoveList(Sequence[MoveBase]):
    """generate()'s answer with MODE_ALL | MOVE_OBJECTS | MOVE_LIST: the moves packed, each
    item made (an instance of the set_move_class class) when read."""

    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, index: int) -> MoveBase: ...
    @overload
    def __getitem__(self, index: slice) -> list[MoveBase]: ...
    def __iter__(self) -> Iterator[MoveBase]: ...

def set_move_class(cls: type[MoveBase], /) -> None: ...

def generate(
    edges: array[int],
    cells: bytes | list[str],
    rack: bytes,
    values: bytes,
    letter_mult: bytes,
    word_mult: bytes,
    center: int,
    first_min_tiles: int,
    first_horizontal: bool,
    max_tiles: int,
    bingo_tiles: int,
    bingo_bonus: int,
    mode: int,
    n: int,
    /,
) -> (
    list[tuple[int, bool, int, str, int]]
    | MoveList
    | tuple[int, int, int]
    | tuple[int, int, int, list[tuple[int, bool, int, str, int]]]
): ...
    # (with MOVE_OBJECTS in the mode, the moves are instances of the set_move_class class;
    # with MOVE_LIST too, MODE_ALL answers a MoveList of them)

def contains(edges: array[int], word: object, /) -> bool: ...

def gaddag(edges: array[int], /) -> bytes:
    """The GADDAG of a DAWG, remembered for it (generation runs on it)."""

def attach(edges: array[int], gaddag: bytes, /) -> None:
    """Use a GADDAG made by gaddag() (read from the lexicon cache) for that DAWG."""

def followups(
    edges: array[int],
    cells: bytes,
    rack: bytes,
    values: bytes,
    letter_mult: bytes,
    word_mult: bytes,
    center: int,
    first_min_tiles: int,
    first_horizontal: bool,
    max_tiles: int,
    bingo_tiles: int,
    bingo_bonus: int,
    firsts: list[tuple[int, bool, int, str, int]],
    first_rack: bytes,
    floor: int,
    /,
) -> tuple[list[tuple[int, int]], tuple[int, int, int, int, int]]: ...

def check(
    cells: list[str],
    square: int,
    horizontal: bool,
    word: str,
    empty: bool,
    tables: bytes,
    center: int,
    first_min_tiles: int,
    first_horizontal: bool,
    bingo_tiles: int,
    bingo_bonus: int,
    edges: array[int] | None,
    detail: bool,
    /,
) -> (
    tuple[
        int, int, bytes, str, str, tuple[tuple[int, bool, str, int, bool], ...] | None, bytes,
        tuple[str, ...], str,
    ]
    | None
): ...

def sheet(
    cells: list[str],
    moves: list[Any],
    start: int,
    tiles: int,
    refs: dict[str, tuple[Any, str, int, bool]],
    stock: dict[str, int],
    owner: dict[int, int] | None,
    done: list[Any],
    # the constant arguments of check(), edges required
    tables: bytes, center: int, first_min_tiles: int, first_horizontal: bool,
    bingo_tiles: int, bingo_bonus: int, edges: array[int],
    /,
) -> tuple[int, int]: ...
