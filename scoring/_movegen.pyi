"""Type stub of the compiled move generator (scoring/_movegen.c); the interface is the one of
:func:`scoring.movegen.py_generate` and :func:`scoring.movegen_py.py_followups`."""

from array import array

def generate(
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
    mode: int,
    n: int,
    /,
) -> (
    list[tuple[int, bool, int, str, int]]
    | tuple[int, int, int]
    | tuple[int, int, int, list[tuple[int, bool, int, str, int]]]
): ...

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
