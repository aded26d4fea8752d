"""Move generation against the 120 public positions (two independent engines), the C engine
against the Python one, every placement through the validation path, and the FISF top."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scoring import movegen
from scoring.board import Board
from scoring.config import GameConfig
from scoring.errors import LexiconError, UnknownLetterError
from scoring.layout import BoardLayout
from scoring.lexicon import Lexicon, default_lexicon
from scoring.move import Placement
from scoring.movegen import (
    GeneratedMove,
    MoveCount,
    analyse,
    best,
    count,
    generate,
    py_generate,
    tops,
)
from scoring.notation import format_ref, parse_ref
from scoring.tiles import TileSet, french, tileset
from scoring.validate import check_move, validate_placement

DATA = Path(__file__).resolve().parents[1] / "data"
POSITIONS: list[dict[str, Any]] = [
    json.loads(line) for line in (DATA / "movegen_public.jsonl").read_text("utf-8").splitlines()
]
VECTORS: list[dict[str, Any]] = json.loads((DATA / "scoring_vectors.json").read_text("utf-8"))
C_ENGINE = movegen._c_generate


@pytest.fixture(scope="module")
def fr() -> GameConfig:
    return GameConfig.default("fr")


def _raw(m: GeneratedMove) -> tuple[bool, int, str, int, int]:
    return (m.horizontal, m.start, m.word, m.new_mask, m.score)


def _top_list(moves: list[GeneratedMove]) -> list[list[object]]:
    return [[format_ref(m.ref), m.word, m.score] for m in moves]


def test_the_c_engine_is_built() -> None:
    # `pip install -e .` (make test) compiles it; the Python fallback is tested separately
    assert movegen.c_available(), "scoring._movegen absent: run .venv/bin/pip install -e ."


@pytest.mark.parametrize("pos", POSITIONS, ids=lambda p: f"pos{p['id']}")
def test_public_position_c(pos: dict[str, Any], fr: GameConfig) -> None:
    board = Board.from_cgp(pos["board"])
    assert count(board, pos["rack"], fr, engine=C_ENGINE) == MoveCount(
        pos["placements"], pos["scrabbles"], pos["top"]
    )
    assert _top_list(tops(board, pos["rack"], fr, engine=C_ENGINE)) == pos["top_moves"]
    moves = generate(board, pos["rack"], fr, engine=C_ENGINE)
    assert len(moves) == pos["placements"]
    assert len({m.placement for m in moves}) == pos["placements"]
    assert sum(1 for m in moves if m.tiles == 7) == pos["scrabbles"]


@pytest.mark.parametrize("pos", POSITIONS[::6], ids=lambda p: f"pos{p['id']}")
def test_public_position_python(pos: dict[str, Any], fr: GameConfig) -> None:
    board = Board.from_cgp(pos["board"])
    assert count(board, pos["rack"], fr, engine=py_generate) == MoveCount(
        pos["placements"], pos["scrabbles"], pos["top"]
    )
    assert _top_list(tops(board, pos["rack"], fr, engine=py_generate)) == pos["top_moves"]


@pytest.mark.parametrize("pos", POSITIONS[1::12], ids=lambda p: f"pos{p['id']}")
def test_c_and_python_list_the_same_moves(pos: dict[str, Any], fr: GameConfig) -> None:
    board = Board.from_cgp(pos["board"])
    c_moves = generate(board, pos["rack"], fr, engine=C_ENGINE)
    py_moves = generate(board, pos["rack"], fr, engine=py_generate)
    assert sorted(_raw(m) for m in c_moves) == sorted(_raw(m) for m in py_moves)
    for n in (1, 3, 10):
        assert best(board, pos["rack"], fr, n=n, engine=C_ENGINE) == best(
            board, pos["rack"], fr, n=n, engine=py_generate
        )


@pytest.mark.parametrize("pos", POSITIONS, ids=lambda p: f"pos{p['id']}")
def test_one_pass_analysis_gives_the_counts_tops_and_best(pos: dict[str, Any],
                                                          fr: GameConfig) -> None:
    # what the CLI asks in one search: the public counts and tops, and the n best as best()
    board = Board.from_cgp(pos["board"])
    bag_empty = pos["id"] % 2 == 0
    for n in (None, 1, 4):
        found = analyse(board, pos["rack"], fr, n=n, bag_empty=bag_empty, engine=C_ENGINE)
        assert found.counts == MoveCount(pos["placements"], pos["scrabbles"], pos["top"])
        assert _top_list(found.tops) == pos["top_moves"]
        if n is None:
            assert found.best is None
        else:
            assert found.best == best(board, pos["rack"], fr, n=n, bag_empty=bag_empty,
                                      engine=C_ENGINE)
    if pos["id"] % 6 == 0:
        ref = analyse(board, pos["rack"], fr, n=3, engine=py_generate)
        assert ref == analyse(board, pos["rack"], fr, n=3, engine=C_ENGINE)


@pytest.mark.parametrize("bag_empty", [False, True])
def test_pruned_top_equals_the_exhaustive_ranking(bag_empty: bool, fr: GameConfig) -> None:
    """The shadow-pruned top N is the head of the full list sorted by FISF order."""
    for pos in POSITIONS:
        board = Board.from_cgp(pos["board"])
        rack = pos["rack"]
        everything = sorted(
            generate(board, rack, fr),
            key=lambda m: movegen.fisf_key(m, len(rack), bag_empty),  # noqa: B023
        )
        for n in (1, 4, 25):
            assert best(board, rack, fr, n=n, bag_empty=bag_empty) == everything[:n], pos["id"]


def test_public_totals(fr: GameConfig) -> None:
    placements = scrabbles = top_moves = 0
    for pos in POSITIONS:
        board = Board.from_cgp(pos["board"])
        c = count(board, pos["rack"], fr, engine=C_ENGINE)
        placements += c.placements
        scrabbles += c.scrabbles
        top_moves += len(tops(board, pos["rack"], fr, engine=C_ENGINE))
    assert (len(POSITIONS), placements, scrabbles, top_moves) == (120, 86_861, 208, 198)


@pytest.mark.parametrize("pos", POSITIONS, ids=lambda p: f"pos{p['id']}")
def test_every_placement_validates_and_scores_the_same(pos: dict[str, Any],
                                                       fr: GameConfig) -> None:
    board = Board.from_cgp(pos["board"])
    rack = pos["rack"]
    for m in generate(board, rack, fr):
        verdict = validate_placement(board, m.placement, fr, horizontal=m.horizontal)
        assert verdict.ok, (m, verdict.reasons)
        assert verdict.score == m.score, m
        assert (verdict.ref, verdict.word) == (m.ref, m.word)
        assert m.placement.notation(board) == (m.ref, m.word)
        written = check_move(board, format_ref(m.ref), m.word, fr)
        assert written.ok and written.score == m.score, (m, written.reasons)
        used = list(rack)
        for letter in m.letters:
            used.remove(letter)  # the move only uses rack tiles


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(POSITIONS[::7]),
    st.lists(st.sampled_from("AAEEIIOUNRSTLDMGBCPFHVJQKWXYZ??"), min_size=1, max_size=7),
)
def test_random_racks_c_equals_python(pos: dict[str, Any], letters: list[str]) -> None:
    fr = GameConfig.default("fr")
    board = Board.from_cgp(pos["board"])
    rack = "".join(letters)
    c = generate(board, rack, fr, engine=C_ENGINE)
    p = generate(board, rack, fr, engine=py_generate)
    assert sorted(_raw(m) for m in c) == sorted(_raw(m) for m in p)
    assert best(board, rack, fr, engine=C_ENGINE) == best(board, rack, fr, engine=py_generate)
    top = max((m.score for m in c), default=None)
    assert count(board, rack, fr, engine=C_ENGINE).top == top
    assert {_raw(m) for m in tops(board, rack, fr)} == {_raw(m) for m in c if m.score == top}


def test_single_tile_forming_two_words_is_one_horizontal_placement() -> None:
    # A on H8, B on I9: an S on H9 or on I8 makes AS one way and SB the other
    lex = Lexicon.from_words(["AS", "SB"], "t")
    cfg = GameConfig(lexicon=lex)
    board = Board.from_cgp("15/15/15/15/15/15/15/7A7/8B6/15/15/15/15/15/15")
    moves = generate(board, "S", cfg)
    # AS = 1 + 1, SB = 1 + 3; no premium on H9 or I8
    assert sorted((m.notation, m.score) for m in moves) == [("H8 AS", 6), ("I8 SB", 6)]
    for m in moves:
        v = validate_placement(board, m.placement, cfg)
        assert v.ok and v.score == 6 and (v.ref, v.word) == (m.ref, m.word)
    assert generate(board, "S", cfg, engine=py_generate) == moves


# --- the FISF top: ties -----------------------------------------------------------------
def _flat_config(words: list[str]) -> GameConfig:
    """French tiles where E is worth 0, so that different moves tie on the empty board."""
    base = french()
    points = dict(base.points)
    points["E"] = 0
    ts = TileSet("essai", base.counts, points, base.vowels, base.ambiguous)
    return GameConfig(tileset=ts, lexicon=Lexicon.from_words(words, "t"))


def test_tie_breaks_horizontal_then_reference_then_word() -> None:
    cfg = _flat_config(["AN", "NAE"])
    empty = Board()
    ranked = [m.notation for m in best(empty, "AEN", cfg, n=20)]
    assert ranked == [
        "H6 NAE", "H7 AN", "H7 NAE", "H8 AN", "H8 NAE",
        "8F NAE", "8G AN", "8G NAE", "8H AN", "8H NAE",
    ]
    assert {m.score for m in best(empty, "AEN", cfg, n=20)} == {4}


def test_tie_breaks_a_move_ending_the_game_when_the_bag_is_empty() -> None:
    cfg = _flat_config(["AN", "NAE"])
    ranked = [m.notation for m in best(Board(), "AEN", cfg, n=20, bag_empty=True)]
    assert ranked == [
        "H6 NAE", "H7 NAE", "H8 NAE", "8F NAE", "8G NAE", "8H NAE",
        "H7 AN", "H8 AN", "8G AN", "8H AN",
    ]


def test_keeping_the_joker_beats_ending_the_game() -> None:
    # NAn (joker for the last N) ties AN at 4 points and uses the whole rack
    cfg = _flat_config(["AN", "NAN"])
    top = best(Board(), "AN?", cfg, bag_empty=True)
    assert [m.notation for m in top] == ["H7 AN"]
    every = tops(Board(), "AN?", cfg)
    assert {m.score for m in every} == {4}
    assert "H6 NAn" in {m.notation for m in every} and "H6 nAN" in {m.notation for m in every}


def test_best_n_and_counts_honour_the_first_move_setting(fr: GameConfig) -> None:
    board = Board()
    rack = "BEEIILT"
    full = count(board, rack, fr)
    horizontal_only = replace(fr, first_move_horizontal=True)
    across = count(board, rack, horizontal_only)
    # the layout is symmetric about the diagonal: as many moves down as across
    assert across.placements * 2 == full.placements > 0
    assert across.scrabbles * 2 == full.scrabbles
    assert across.top == full.top
    assert across == count(board, rack, horizontal_only, engine=py_generate)
    assert all(m.horizontal for m in generate(board, rack, horizontal_only))
    everything = generate(board, rack, fr)
    assert all(m.tiles >= 2 and 112 in m.placement.squares for m in everything)
    five = best(board, rack, fr, n=5)
    assert [m.score for m in five] == sorted((m.score for m in everything), reverse=True)[:5]
    assert five[0].horizontal  # a horizontal twin of equal score exists and comes first


def test_bingo_bonus_setting(fr: GameConfig) -> None:
    pos = next(p for p in POSITIONS if p["scrabbles"] and p["top_moves"][0][2] > 50)
    board = Board.from_cgp(pos["board"])
    no_bonus_cfg = replace(fr, bingo_bonus=0)
    normal = {_raw(m)[:4]: m.score for m in generate(board, pos["rack"], fr)}
    no_bonus = {_raw(m)[:4]: m.score for m in generate(board, pos["rack"], no_bonus_cfg)}
    assert normal.keys() == no_bonus.keys()
    assert any(key[3].bit_count() == 7 for key in normal)
    for key, score in normal.items():
        assert score - no_bonus[key] == (50 if key[3].bit_count() == 7 else 0)


@pytest.mark.parametrize("vec", VECTORS, ids=lambda v: v["id"])
def test_published_scores_come_out_of_the_generator(vec: dict[str, Any]) -> None:
    """Each published move (French and Romanian tiles) is among the generated placements of
    its own letters, with the published score, given a list holding the words it forms."""
    board = Board.from_cgp(vec["board_before"])
    ref = parse_ref(vec["ref"])
    placement = Placement.from_notation(board, ref, vec["word"])
    words = [w.upper() for w, _ in vec["computed_words"]]
    cfg = GameConfig(tileset=tileset(vec["tileset"]), lexicon=Lexicon.from_words(words, "v"))
    for engine in (C_ENGINE, py_generate):
        found = [
            m for m in generate(board, placement.letters, cfg, engine=engine)
            if m.placement == placement
        ]
        assert len(found) == 1
        assert found[0].score == vec["expected_score"]
        if len(placement) > 1:
            assert found[0].ref == ref


def test_romanian_rack_rules() -> None:
    cfg = GameConfig(tileset=tileset("ro"), lexicon=Lexicon.from_words(["KA", "AK"], "ro"))
    with pytest.raises(UnknownLetterError, match="n'existe pas dans le jeu roumain"):
        generate(Board(), "KA", cfg)
    moves = generate(Board(), "A?", cfg)
    assert sorted(m.notation for m in moves) == sorted(
        f"{ref} {word}" for ref in ("H7", "H8", "8G", "8H") for word in ("Ak", "kA")
    )
    assert all(m.score == 2 for m in moves)  # A is 1 point, doubled by the star


def test_bad_input_is_reported_in_french(fr: GameConfig) -> None:
    with pytest.raises(UnknownLetterError, match="Tirage vide"):
        generate(Board(), "  ", fr)
    with pytest.raises(UnknownLetterError, match="caractère « 1 » inattendu"):
        generate(Board(), "AB1", fr)
    with pytest.raises(LexiconError, match="liste de mots compilée"):
        generate(Board(), "AB", GameConfig())
    assert [m.word for m in best(Board(), "ÉTÉ", fr, n=1)] == ["ETE"]


def test_no_legal_move() -> None:
    cfg = GameConfig(lexicon=Lexicon.from_words(["ZZ"], "t"))
    assert count(Board(), "AB", cfg) == MoveCount(0, 0, None)
    assert best(Board(), "AB", cfg) == [] and tops(Board(), "AB", cfg) == []


def test_default_lexicon_is_the_one_used_by_default_config(fr: GameConfig) -> None:
    assert fr.lexicon is default_lexicon()


def test_custom_layout_centre_and_eight_tile_bonus(fr: GameConfig) -> None:
    """Another layout (no premiums, start square A1) and an 8-tile bonus rule are honoured,
    and the validation path agrees on every move."""
    flat = BoardLayout("plat", (1,) * 225, (1,) * 225, center=0)
    cfg = replace(fr, layout=flat, rack_size=8, bingo_tiles=8, bingo_bonus=30)
    board = Board()
    moves = generate(board, "AEINRST?", cfg)
    assert moves and all(0 in m.placement.squares for m in moves)
    assert any(m.tiles == 8 for m in moves)
    for m in moves[::7]:
        v = validate_placement(board, m.placement, cfg, horizontal=m.horizontal)
        assert v.ok and v.score == m.score
        letters = sum(cfg.tileset.value(ch) for ch in m.word)
        assert m.score == letters + (30 if m.tiles == 8 else 0)
    assert count(board, "AEINRST?", cfg) == count(board, "AEINRST?", cfg, engine=py_generate)


# --- two-move sequences (movegen.sequences: branch and bound in C, py_followups reference) --
def _every_pair(
    board: Board, first: str, second: str, fr: GameConfig
) -> tuple[int, set[tuple[bool, int, str, int, int]]]:
    """Independent brute force: every first move, then every second move listed by full
    generation on the grid it leaves; the best sum and the first moves giving it."""
    best_sum, found = -1, set()
    for m1 in generate(board, first, fr):
        after = board.copy()
        m1.placement.apply(after)
        total = m1.score + max((m.score for m in generate(after, second, fr)), default=0)
        if total > best_sum:
            best_sum, found = total, {_raw(m1)}
        elif total == best_sum:
            found.add(_raw(m1))
    return best_sum, found


SEQUENCE_CASES = [  # (public position, first rack, second rack)
    (0, "BEIL", "ETIS"),
    (4, "AD?", "EILLX"),
    (8, "VIVE", "AE?"),
    (24, "?ES", "RNIT"),
    (60, "QI", "ZEST"),
    (96, "?A", "TEN"),
]


@pytest.mark.parametrize("case", SEQUENCE_CASES, ids=lambda c: f"pos{c[0]}-{c[1]}-{c[2]}")
def test_sequences_equal_every_pair(case: tuple[int, str, str], fr: GameConfig) -> None:
    """The branch and bound of the C engine (first moves best first; a second move that puts
    no tile just beyond the runs through the first move's tiles counts as a move of the
    original grid; only the others are searched, against the score still needed) finds the
    same best sum and the same first moves as the brute force over every pair, and as the
    pure-Python reference that searches every second move in full."""
    pos = next(p for p in POSITIONS if p["id"] == case[0])
    board = Board.from_cgp(pos["board"])
    first, second = case[1], case[2]
    expected_sum, expected = _every_pair(board, first, second, fr)
    c_sum, c_found, c_stats = movegen.sequences(board, first, second, fr)
    py_sum, py_found, py_stats = movegen.sequences(board, first, second, fr,
                                                   engine=movegen.py_followups)
    assert c_sum == py_sum == expected_sum
    assert {_raw(m) for m, _ in c_found} == {_raw(m) for m, _ in py_found} == expected
    assert [(_raw(m), s) for m, s in c_found] == [(_raw(m), s) for m, s in py_found]
    for m, s in c_found:
        assert m.score + s == expected_sum
    # the reference searches once per first move that is not dominated
    assert py_stats.searched == py_stats.full == c_stats.firsts - c_stats.dominated
    assert c_stats.dominated == py_stats.dominated
    assert c_stats.bounded + c_stats.searched == c_stats.firsts - c_stats.dominated


def test_sequences_cuts_are_exercised_and_floor(fr: GameConfig) -> None:
    """Over the cases above every kind of step happens (cut by a bound alone, a restricted
    search, a whole-grid search when the first move may block the original top), and a
    floor above the best sum gives nothing, a floor equal to it the same moves."""
    bounded = searched = full = 0
    for pid, first, second in SEQUENCE_CASES:
        board = Board.from_cgp(next(p for p in POSITIONS if p["id"] == pid)["board"])
        total, found, stats = movegen.sequences(board, first, second, fr)
        bounded, searched, full = (bounded + stats.bounded, searched + stats.searched,
                                   full + stats.full)
        assert total is not None
        assert movegen.sequences(board, first, second, fr, floor=total + 1)[:2] == (None, [])
        again = movegen.sequences(board, first, second, fr, floor=total)
        assert again[0] == total and again[1] == found
    assert bounded > 0 and searched > 0 and full > 0


def test_sequences_on_the_empty_grid(fr: GameConfig) -> None:
    """On an empty grid every second move goes through the first one (no move of the
    original grid exists): same result as every pair."""
    board = Board()
    expected_sum, expected = _every_pair(board, "AMI", "SET", fr)
    total, found, _ = movegen.sequences(board, "AMI", "SET", fr)
    assert total == expected_sum and {_raw(m) for m, _ in found} == expected
    # MAI through the centre (2 + 1 + 1) × 2 = 8 either way, then SET's best: 11
    assert [(m.word, m.score, second) for m, second in found] == [("MAI", 8, 11)] * 2


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(POSITIONS[::9]),
    st.lists(st.sampled_from("AEEIOUNRSTLDMGBCPFHVJQKWXYZ?"), min_size=1, max_size=3),
    st.lists(st.sampled_from("AEEIOUNRSTLDMGBCPFHVJQKWXYZ?"), min_size=1, max_size=4),
)
def test_random_sequences_equal_every_pair(pos: dict[str, Any], first: list[str],
                                           second: list[str]) -> None:
    fr = GameConfig.default("fr")
    board = Board.from_cgp(pos["board"])
    expected_sum, expected = _every_pair(board, "".join(first), "".join(second), fr)
    total, found, _ = movegen.sequences(board, "".join(first), "".join(second), fr)
    if expected_sum < 0:
        assert (total, found) == (None, [])
    else:
        assert total == expected_sum and {_raw(m) for m, _ in found} == expected
