"""The Duplicate top (RULES §4.5), a whole game replayed from a fixed bag (§4.2–4.10), and
``arbitre duplicate replay``."""

from __future__ import annotations

import io
import json
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest

from puzzles.duplicate import (
    Bulletin,
    DuplicateError,
    DuplicateSettings,
    GameState,
    apply_top,
    correct,
    draw_round,
    find_top,
    parse_bulletin,
    parse_bulletins_file,
    rank_moves,
    replay,
)
from puzzles.duplicate_cli import main as cli_main
from scoring import movegen
from scoring.board import Board
from scoring.config import GameConfig
from scoring.lexicon import Lexicon
from scoring.movegen import GeneratedMove
from scoring.notation import format_ref
from scoring.tiles import french
from scoring.validate import check_move

FR = DuplicateSettings()
EMPTY = Board()

#: the bag of every game test: the French set, seed 7 (written out so a change of the
#: shuffling cannot change the test silently)
BAG7 = (
    "FEZTSWEUT?E?NRELEISSJALHCKAEDVOPINUYOUNEETFNECOAMTINNEUIGOQSILGIRETHDARVXRSUEDRUMPTE"
    "ALMBAEOARIBOAASLEI"
)


@pytest.fixture(scope="module")
def cfg(french: Lexicon) -> GameConfig:
    return GameConfig.default("fr", french)


# --- the top ------------------------------------------------------------------------------
def test_round_one_top_is_horizontal(cfg: GameConfig) -> None:
    """S1 3.4: « au premier coup, le mot est impérativement placé horizontalement ».
    FICHERA: the H4 placement puts F on the DL: (4×2 + 1 + 3 + 4 + 1 + 1 + 1) × 2 + 50 = 88;
    vertically 4H is the same 88, and the top must not be it."""
    state = GameState(EMPTY.to_cgp(), ())
    top = find_top(state, "FICHERA", cfg, round_no=1)
    assert top is not None
    assert (top.ref, top.word, top.score) == ("H4", "FICHERA", 88)
    assert all(m.horizontal for m in (top.move, *top.ties))
    # the three 88s: H4 FICHERA, H4 FRAICHE, H7 FRAICHE; same openness (16 empty squares
    # around a 7-letter word on row H) → the smaller reference (H4), then the smaller word
    assert sorted((format_ref(m.ref), m.word) for m in top.ties) == [("H4", "FRAICHE"),
                                                                     ("H7", "FRAICHE")]
    assert "le plus petit mot" in top.reason_fr
    free = movegen.best(EMPTY, "FICHERA", cfg, n=200)
    assert any(not m.horizontal and m.score == 88 for m in free)  # vertical exists when free


def gm(score: int, horizontal: bool, start: int, word: str, mask: int) -> GeneratedMove:
    return GeneratedMove(score, horizontal, start, word, mask)


def test_tie_break_order() -> None:
    """RULES §4.5 / G1: score, then fewer jokers (S1 3.6 « la prescription relative à la
    conservation du joker reste à observer »), then the move ending the game (« Si une des
    éventuelles solutions équivalentes en points met fin à la partie, elle doit être
    retenue »), then openness, horizontal, row, column, word."""
    ts = french()
    board = Board()
    board.put(112, "A")  # H8
    board.put(113, "S")  # H9
    rack = "ESTA?"
    # all on the empty-ish board; masks: every letter new except those on H8/H9
    joker = gm(20, True, 114, "Es", 0b11)  # H10, uses the joker
    plain_far = gm(20, True, 100, "ET", 0b11)  # G11
    plain_ends = gm(20, False, 7, "EST", 0b111)  # 8A vertical, uses E S T
    better = gm(21, False, 200, "TE", 0b11)
    ranked, reason = rank_moves([joker, plain_far, plain_ends, better], board, rack, "", ts, FR)
    assert ranked[0] is better and reason == "Seul coup à 21 points."
    ranked, reason = rank_moves([joker, plain_far], board, rack, "ABC", ts, FR)
    assert ranked == [plain_far, joker] and "le moins de jokers" in reason
    # bag empty, rack ESTA?: EST leaves A? (jokers aside, only a vowel: S1 3.6, the game
    # ends), ET leaves SA? (a vowel and a consonant: it goes on)
    ranked, reason = rank_moves([plain_far, plain_ends], board, rack, "", ts, FR)
    assert ranked[0] is plain_ends and "termine la partie" in reason
    # same score, no joker, nothing ends the game: openness decides (ET at G11 has
    # neighbours G10, G13, F11, F12, H11 free, H12 free = 6; the lone-row word at O1
    # (row O, cols 1–2) has only O3, N1, N2 = 3)
    corner = gm(20, True, 210, "ET", 0b11)
    ranked, reason = rank_moves([corner, plain_far], board, "ETAB", "ABCDEFGH", ts, FR)
    assert ranked[0] is plain_far and "le plus ouvert" in reason
    # openness off: then horizontal, row, column, word
    off = DuplicateSettings(top_openness="none")
    v = gm(20, False, 0, "ET", 0b11)
    h1 = gm(20, True, 30, "TE", 0b11)
    h2 = gm(20, True, 30, "ET", 0b11)
    h3 = gm(20, True, 16, "ZE", 0b11)
    ranked, _ = rank_moves([v, h1, h2, h3], board, "ETZ", "ABCDEFGH", ts, off)
    assert ranked == [h3, h2, h1, v]


def test_top_is_the_maximum_of_every_generated_move(cfg: GameConfig) -> None:
    """Exhaustive check on the first 12 positions of a game: the top's score is the maximum
    over :func:`scoring.movegen.generate`, and top + ties are exactly the moves of that
    score."""
    state = GameState.initial(FR, BAG7)
    for _ in range(12):
        draw, state = draw_round(state, FR, config=cfg)
        assert draw is not None
        top = find_top(state, draw.rack, cfg, round_no=state.round_no)
        assert top is not None
        board = state.board
        all_moves = movegen.generate(board, draw.rack, GameConfig(
            tileset=cfg.tileset, lexicon=cfg.lexicon,
            first_move_horizontal=state.round_no == 1))
        best = max(m.score for m in all_moves)
        assert top.score == best
        assert {top.move, *top.ties} == {m for m in all_moves if m.score == best}
        state = apply_top(state, draw, top)


# --- a whole game ------------------------------------------------------------------------
def test_whole_game_from_a_fixed_bag(cfg: GameConfig) -> None:
    """Seed-7 bag, played to the end: every tile is accounted for, the tops add up, the
    reliquat of each round is the rack minus the top's tiles, and each later draw starts
    with it (S1 3.1)."""
    result = replay({"bag": BAG7}, config=cfg)
    rounds = result.rounds
    final = result.final_state
    assert final.finished
    assert final.tops_total == sum(r.top.score for r in rounds)
    board = final.board
    on_board = Counter("?" if c.islower() else c for c in board.cells if c)
    assert on_board + Counter(final.remaining) == french().bag()
    for prev, cur in zip(rounds, rounds[1:], strict=False):
        assert cur.draw.rack.startswith(cur.draw.reliquat)
        if not cur.draw.rejected:
            left = Counter(prev.draw.rack) - Counter(prev.top.move.letters)
            assert Counter(cur.draw.reliquat) == left
    for r in rounds:
        if r.round_no <= 15 and r.draw.minimum:
            assert r.draw.minimum == 2
        assert r.draw.minimum in (0, 1, 2)
    # the first round's top is horizontal
    assert rounds[0].top.move.horizontal


def test_replay_with_bulletins_and_ranking(cfg: GameConfig) -> None:
    """Three players over 5 rounds of the seed-7 game: ann always writes the top, bob the top
    with no reference from move 2, in its direction (5-point penalty each time, S1 5.3.1 « et
    ce dans le même sens que celui où il est écrit »), cid is absent on move 3 and writes a
    wrong score (a warning) elsewhere. 3 players: no solo (3 − 6 < 0)."""
    base = replay({"bag": BAG7, "settings": {"rounds": 5}}, config=cfg)
    tops = [(r.top.ref, r.top.word, r.top.score) for r in base.rounds]
    assert len(tops) == 5
    bulletins: dict[int, dict[str, str | Bulletin]] = {}
    for n, (ref, word, score) in enumerate(tops, 1):
        downwards = ref[0].isdigit()
        bulletins[n] = {
            "ann": f"{ref} {word} {score}",
            "bob": f"{ref} {word} {score}" if n == 1
            else Bulletin("bob", word, None, None, score, vertical=downwards),
        }
        if n != 3:
            bulletins[n]["cid"] = f"{ref} {word} {score + 1}"
    result = replay({"bag": BAG7, "settings": {"rounds": 5}}, bulletins, config=cfg)
    total = sum(t[2] for t in tops)
    by = {s.player: s for s in result.standings}
    assert by["ann"].total == total and by["ann"].percent_of_tops == 100.0
    # bob: the same tops, minus 5 on moves 2–5 (unless a move is ambiguous by score alone,
    # which the verdicts would say): the verdicts are all penalties here
    bob_kinds = [v.kind for r in result.rounds for v in r.verdicts if v.player == "bob"]
    assert bob_kinds == ["valide"] + ["penalite5"] * 4
    assert by["bob"].total == total - 4 * 5
    # cid: 4 warnings (rounds 1, 2, 4, 5) → 5 × (4 − 3) = 5 deducted, round 3 absent
    third = tops[2][2]
    assert by["cid"].warnings == 4 and by["cid"].warning_deduction == 5
    assert by["cid"].total == total - third - 5
    expected = sorted(
        [("ann", total), ("bob", total - 20), ("cid", total - third - 5)],
        key=lambda pt: (-pt[1], pt[0]),
    )
    assert [(s.player, s.total) for s in result.standings] == expected
    assert all(v.solo == 0 for r in result.rounds for v in r.verdicts)


def test_replay_listed_draws(cfg: GameConfig) -> None:
    """The draws as a record lists them give the same game as the bag order."""
    base = replay({"bag": BAG7, "settings": {"rounds": 6}}, config=cfg)
    listed = replay({"draws": [r.draw.notation for r in base.rounds]}, config=cfg)
    assert [(r.top.ref, r.top.word, r.top.score) for r in listed.rounds] == [
        (r.top.ref, r.top.word, r.top.score) for r in base.rounds
    ]


def test_bulletins_file_formats() -> None:
    text = "# coup 1\n1 ann : H4 FICHERA 88\n1 bob: FICHERA 88\n2 ann : CHA CRIERAIS 72\n"
    assert parse_bulletins_file(text) == {
        1: {"ann": "H4 FICHERA 88", "bob": "FICHERA 88"},
        2: {"ann": "CHA CRIERAIS 72"},
    }
    assert parse_bulletins_file('{"1": {"ann": "H4 FICHERA 88"}}') == {1: {"ann": "H4 FICHERA 88"}}
    with pytest.raises(DuplicateError, match="ligne 1"):
        parse_bulletins_file("ann H4 FICHERA 88")
    with pytest.raises(DuplicateError, match="deux bulletins de ann"):
        parse_bulletins_file("1 ann: A\n1 ann: B")


def test_cli_replay_text_and_json(tmp_path: Path, cfg: GameConfig) -> None:
    game = tmp_path / "partie.json"
    game.write_text(json.dumps({"bag": BAG7, "settings": {"rounds": 2}}), encoding="utf-8")
    base = replay(game.read_text(encoding="utf-8"), config=cfg)
    t1 = base.rounds[0].top
    bulletins = tmp_path / "bulletins.txt"
    bulletins.write_text(f"1 ann : {t1.ref} {t1.word} {t1.score}\n", encoding="utf-8")
    out = io.StringIO()
    assert cli_main(["replay", str(game), str(bulletins)], out) == 0
    text = out.getvalue()
    assert f"top : {t1.ref} {t1.word} {t1.score}" in text
    assert f"ann : {t1.score} [valide]" in text
    assert "ann : 0 [absent]" in text  # round 2, no bulletin
    assert f"1. ann {t1.score}" in text
    out = io.StringIO()
    assert cli_main(["replay", str(game), str(bulletins), "--json"], out) == 0
    data = json.loads(out.getvalue())
    assert [r["top"]["score"] for r in data["rounds"]] == [r.top.score for r in base.rounds]
    assert data["standings"][0]["player"] == "ann"


def test_cli_bad_game_file_is_a_french_error(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    game = tmp_path / "partie.json"
    game.write_text('{"bag": "ZZ"}', encoding="utf-8")
    assert cli_main(["replay", str(game)], io.StringIO()) == 2
    assert "n'en compte que 1" in capsys.readouterr().err
    game.write_text('{"bag": "AB", "seed": 3}', encoding="utf-8")
    assert cli_main(["replay", str(game)], io.StringIO()) == 2
    assert "exactement une des clés" in capsys.readouterr().err


# --- RULES §12 vectors through the game ------------------------------------------------------
def test_e17_record_replayed_from_its_draws(cfg: GameConfig) -> None:
    """RULES §12 (E17): C(H)ACUNE at H4 = 76, then MOLLIES at G8 = 60 + MU 3 + ON 3 + LE 2
    = 68, then CRIERAIS at 4H = 11 ×2 + 50 = 72. Replayed from the record's draws, the tops
    are those scores (76 + 68 + 72 = 216); at move 3 three words score 72 and the
    deterministic order (G1) retains CIRERAIS (smaller word than CRIERAIS at the same 4H),
    CRIERAIS being among the ties and valid for the player who wrote it."""
    game = {"draws": ["C?ACUNE", "MOLLIES", "RIERAIS"]}
    bulletins = {1: {"a": "ChACUNE 76"}, 2: {"a": "G8 MOLLIES 68"}, 3: {"a": "4H CRIERAIS 72"}}
    result = replay(game, bulletins, config=cfg)
    assert [(r.top.ref, r.top.word, r.top.score) for r in result.rounds] == [
        ("H4", "ChACUNE", 76), ("G8", "MOLLIES", 68), ("4H", "CIRERAIS", 72)]
    assert ("4H", "CRIERAIS") in {(format_ref(m.ref), m.word) for m in result.rounds[2].top.ties}
    assert result.final_state.tops_total == 216
    assert [v.score for r in result.rounds for v in r.verdicts] == [76, 68, 72]
    assert result.standings[0].total == 216 and result.standings[0].percent_of_tops == 100.0


def test_e5_vector_through_the_correction(cfg: GameConfig) -> None:
    """RULES §12 (E5): FICHERA at H8 = 82, then WUS at 15F (the S on H15 makes FICHERAS)
    = 36 + 48 = 84, the top with W, U, S. Without reference, written downwards as it is
    played: 84 − 5 = 79; on one line (horizontally) no place scores 84: zero (S1 5.3.1 « dans
    le même sens que celui où il est écrit sur le bulletin »)."""
    board = Board()
    verdict = check_move(board, "H8", "FICHERA", cfg)
    assert verdict.score == 82 and verdict.placement is not None
    verdict.placement.apply(board)
    state = GameState(board.to_cgp(), ())
    top = find_top(state, "WUS", cfg, round_no=2)
    assert top is not None and (top.ref, top.word, top.score) == ("15F", "WUS", 84)
    for text, vertical, expected in (("15F WUS 84", False, (84, "valide")),
                                     ("WUS 84", True, (79, "penalite5")),
                                     ("WUS 84", False, (0, "nul"))):
        b = parse_bulletin(text)
        assert not isinstance(b, list)
        v = correct(state, "WUS", replace(b, vertical=vertical), cfg, round_no=2, top_score=84)
        assert (v.score, v.kind) == expected
