"""Move validation verdicts (geometry, words, lexicon, score) and the transposition
property of scoring."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from scoring import Board, GameConfig, Placement, Tile, check_move, validate_placement
from scoring.lexicon import Lexicon
from scoring.score import formed_words

WORDS = Lexicon.from_words(
    ["FICHERA", "FICHERAS", "WUS", "SU", "US", "AS", "SA", "CHA", "HA", "AH", "FA", "ET"],
    "test",
)
CONFIG = GameConfig(lexicon=WORDS)
FICHERA = Board.from_cgp("15/15/15/15/15/15/15/7FICHERA1/15/15/15/15/15/15/15")


def test_first_move_must_cover_centre() -> None:
    v = check_move(Board(), "H9", "FICHERA", CONFIG)
    assert not v.ok and not v.geometry_ok
    assert v.reasons == ("Le premier mot doit couvrir la case centrale H8.",)


def test_first_move_two_tiles_and_horizontal_option() -> None:
    v = check_move(Board(), "8H", "FICHERA", CONFIG)
    assert v.ok and v.score == 82
    strict = GameConfig(lexicon=WORDS, first_move_horizontal=True)
    v = check_move(Board(), "8H", "FICHERA", strict)
    assert v.reasons == ("Le premier mot doit être horizontal.",)


def test_valid_second_move() -> None:
    v = check_move(FICHERA, "15f", "WUS", CONFIG)
    assert v.ok
    assert v.score == 84
    assert [(w.text, w.points) for w in v.words] == [("WUS", 36), ("FICHERAS", 48)]


def test_invalid_cross_word_named() -> None:
    board = FICHERA.copy()
    # X under the A of FICHERA forms AX: not in the list.
    v = check_move(board, "14H", "AX", CONFIG)
    assert not v.ok and v.geometry_ok
    assert v.invalid_words == ("AX",)
    assert v.reasons == ("Le mot AX n'est pas admis.",)
    # The score is still computed: A (on the board, 1) + X on I14 (plain square, 10) = 11.
    assert v.score == 1 + 10


def test_disconnected_and_gap() -> None:
    v = check_move(FICHERA, "A1", "ET", CONFIG)
    assert v.reasons == ("Le mot ne touche aucune lettre déjà sur la grille.",)
    p = Placement((Tile(0, "E"), Tile(2, "T")))
    v2 = validate_placement(FICHERA, p, CONFIG)
    assert v2.reasons == ("Le mot a un trou en A2.",)
    p3 = Placement((Tile(0, "E"), Tile(16, "T")))
    assert validate_placement(FICHERA, p3, CONFIG).reasons == (
        "Les lettres posées ne sont pas sur une même ligne ou colonne.",
    )


def test_incomplete_written_word() -> None:
    # "FICHERA" extended by S at H15, but written as "S" alone at H15.
    v = check_move(FICHERA, "H15", "S", CONFIG)
    assert not v.ok
    assert any("n'est pas complet" in r and "H14" in r for r in v.reasons)


def test_bad_input_becomes_verdict() -> None:
    v = check_move(FICHERA, "H8", "XYZ", CONFIG)
    assert not v.ok and v.placement is None
    assert "H8" in v.reasons[0]
    v = check_move(FICHERA, "Z9", "AS", CONFIG)
    assert v.reasons and v.reasons[0].startswith("Référence illisible")


def test_joker_scores_zero() -> None:
    a = check_move(Board(), "H8", "FIChERA", CONFIG)
    b = check_move(Board(), "H8", "FICHERA", CONFIG)
    # H (4 points) on H11: plain square; the word is doubled by H8 -> 2 * 4 less.
    assert b.score - a.score == 8
    assert a.ok


letters = st.sampled_from("ABCDEFGHIJKLMNOPQRSTUVWXYZ")


@st.composite
def board_and_move(draw: st.DrawFn) -> tuple[Board, Placement]:
    cells = draw(st.lists(st.sampled_from(["", "", "", "", "E", "a", "Z", "K"]), min_size=225,
                          max_size=225))
    board = Board(cells)
    horizontal = draw(st.booleans())
    line = draw(st.integers(0, 14))
    start = draw(st.integers(0, 14))
    length = draw(st.integers(1, 7))
    tiles: list[Tile] = []
    pos = start
    while len(tiles) < length and pos < 15:
        sq = line * 15 + pos if horizontal else pos * 15 + line
        if not board[sq]:
            tiles.append(Tile(sq, draw(letters), draw(st.booleans())))
        pos += 1
    assume(tiles)
    return board, Placement(tuple(tiles))


def transpose_placement(p: Placement) -> Placement:
    return Placement(tuple(Tile((t.square % 15) * 15 + t.square // 15, t.letter, t.joker)
                           for t in p.tiles))


@settings(max_examples=300)
@given(board_and_move())
def test_transpose_scores_same(data: tuple[Board, Placement]) -> None:
    """A move and its transpose on the transposed board form the same words, same score."""
    board, p = data
    config = GameConfig()
    a = formed_words(board, p, config)
    b = formed_words(board.transpose(), transpose_placement(p), config)
    assert a.total == b.total
    assert sorted(w.text for w in a.words) == sorted(w.text for w in b.words)
    va = validate_placement(board, p, config)
    vb = validate_placement(board.transpose(), transpose_placement(p), config)
    assert va.geometry_ok == vb.geometry_ok
    assert va.score == vb.score
