"""The FRSc correspondence game (puzzles.correspondence, RULES §8.1): caps of rounds I and II,
refills from the row, end of game and leftovers, the score sheet round trip, pairings and the
series table. Scores by hand: row H has DW at H8; row G has DL at G7 and G9 (RULES §1.3);
Z = 10, A E L S = 1, B C = 3."""

from __future__ import annotations

import pytest

from puzzles.correspondence import (
    BLUE,
    RED,
    CorrespondenceError,
    CorrespondenceSettings,
    GameRecord,
    SheetHeader,
    expected_score,
    new_game,
    parse_sheet,
    play,
    result,
    round_robin,
    series_table,
    sheet_text,
)
from scoring.config import GameConfig
from scoring.tiles import french
from tests.puzzles.conftest import lex

CFG = GameConfig(tileset=french(), lexicon=lex("ZA", "ZAS", "LA", "AS"))


def test_caps_refills_and_passes() -> None:
    """« Any score may be played, but the sheet records at most: I — RED 10, BLUE 20; II —
    RED 30, BLUE 40. » Row ZAEEEEE / LSEEEEE / ABC.
    I RED H7 ZA (10 + 1) × 2 = 22 → 10 recorded, draws AB. I BLUE H7 ZAS 10 + 1 + 1 = 12
    (under 20), draws C. II RED 9G AS: A on G9 (DL) 2 + S 1 = 3. II BLUE G8 LA: LA 2 + the
    cross word LA down (L G8, A H8) 2 = 4. Then four passes end the game; each loses his
    leftover: EEEEEB = 5 + 3 = 8, EEEEEC = 8. RED 10 + 3 − 8 = 5, BLUE 12 + 4 − 8 = 8."""
    st = new_game("ZAEEEEE" + "LSEEEEE" + "ABC")
    assert st.racks == ("ZAEEEEE", "LSEEEEE") and st.turn == RED
    with pytest.raises(CorrespondenceError, match="absentes du chevalet ZAEEEEE"):
        play(st, "H7", "LA", CFG)  # RED has no L
    st = play(st, "H7", "ZA", CFG)
    assert (st.moves[-1].score, st.moves[-1].recorded) == (22, 10)
    assert st.racks[RED] == "EEEEEAB" and st.turn == BLUE
    st = play(st, "H7", "ZAS", CFG)
    assert (st.moves[-1].score, st.moves[-1].recorded) == (12, 12)
    assert st.racks[BLUE] == "LEEEEEC" and st.pos == 17
    st = play(st, "9G", "AS", CFG)
    assert (st.moves[-1].round_no, st.moves[-1].score) == (2, 3)
    st = play(st, "G8", "LA", CFG)
    assert st.moves[-1].score == 4
    for _ in range(4):
        st = play(st, None, None, CFG)
    assert st.finished and "4 passes" in st.end_reason
    assert st.leftover == (-8, -8)
    assert st.totals == (10 + 3 - 8, 12 + 4 - 8)
    assert result(st) == (0.0, 1.0)


def test_going_out_takes_the_opponents_leftover() -> None:
    """RED ZA 22 → 10; BLUE ZAS 12; RED passes; BLUE 8G LA (L on G8 above the A) 1 + 1 = 2
    empties his rack with the row exhausted: RED's EEEEE (5) is subtracted from RED and added
    to BLUE (E20): RED 10 − 5 = 5, BLUE 12 + 2 + 5 = 19."""
    st = new_game("ZAEEEEE" + "LS")
    st = play(st, "H7", "ZA", CFG)
    st = play(st, "H7", "ZAS", CFG)
    st = play(st, None, None, CFG)
    st = play(st, "8G", "LA", CFG)
    assert st.finished and st.end_reason == "Bleu a posé toutes ses lettres."
    assert st.leftover == (-5, 5) and st.totals == (5, 19)
    only = CorrespondenceSettings(leftover_rule="subtract_only")
    st2 = new_game("ZAEEEEE" + "LS")
    for ref, word in (("H7", "ZA"), ("H7", "ZAS"), (None, None), ("8G", "LA")):
        st2 = play(st2, ref, word, CFG, only)
    assert st2.totals == (5, 14)


def test_score_sheet_rebuilds_the_game() -> None:
    st = new_game("ZAEEEEE" + "LS")
    for ref, word in (("H7", "ZA"), ("H7", "ZAS"), (None, None), ("8G", "LA")):
        st = play(st, ref, word, CFG)
    header = SheetHeader("Série 1", "ana", "ion", "M. Popescu", 1512.5, 3)
    text = sheet_text(st, header)
    assert "1 rouge H7 ZA 22 10" in text and "2 rouge passe 0 0" in text
    assert "résultat: 5 19" in text
    header2, st2 = parse_sheet(text, CFG)
    assert header2 == header
    assert st2.moves == st.moves and st2.totals == st.totals and st2.board_cgp == st.board_cgp
    # the back of the sheet with each move's thinking time: read past when rebuilding
    timed = sheet_text(st, header, times=("26h05", "0h40", "71h59", "3h00"))
    assert "1 rouge H7 ZA 22 10 26h05" in timed and "2 rouge passe 0 0 71h59" in timed
    assert parse_sheet(timed, CFG)[1].moves == st.moves
    bad = text.replace("1 rouge H7 ZA 22 10", "1 rouge H7 ZA 24 10")
    with pytest.raises(CorrespondenceError, match="vaut 22, pas 24"):
        parse_sheet(bad, CFG)
    with pytest.raises(CorrespondenceError, match="au tour de"):
        parse_sheet(text.replace("1 bleu H7 ZAS", "1 rouge H7 ZAS"), CFG)


def test_round_robin_pairings() -> None:
    for players in (["a", "b", "c", "d"], ["a", "b", "c", "d", "e"]):
        rounds = round_robin(players)
        n = len(players)
        assert len(rounds) == (n if n % 2 else n - 1)
        met = [frozenset(p) for r in rounds for p in r]
        assert len(met) == len(set(met)) == n * (n - 1) // 2
        for r in rounds:  # nobody plays twice in a round
            names = [x for p in r for x in p]
            assert len(names) == len(set(names))


def test_round_robin_colours_balanced() -> None:
    """Every player RED in half of his games (± 1 when he plays an odd number).

    Four players a, b, c, d: m = 3 (a, b, c rotate), d is last. a–b: (1 − 0) mod 3 = 1 →
    a RED; b–c: 1 → b RED; c–a: (0 − 2) mod 3 = 1 → c RED; d is RED against b (odd place)
    and BLUE against a and c. So a RED 2 / BLUE 1 (vs b, d / vs c), b 1 / 2, c 2 / 1, d 1 / 2.
    Three players: each RED once and BLUE once."""
    assert round_robin(["a", "b", "c", "d"]) == [
        [("a", "d"), ("b", "c")], [("c", "a"), ("d", "b")], [("a", "b"), ("c", "d")]]
    assert round_robin(["a", "b", "c"]) == [[("b", "c")], [("c", "a")], [("a", "b")]]
    for n in range(2, 17):
        players = [f"p{i}" for i in range(n)]
        red = {p: 0 for p in players}
        blue = {p: 0 for p in players}
        met = set()
        for rnd in round_robin(players):
            for r, b in rnd:
                red[r] += 1
                blue[b] += 1
                met.add(frozenset((r, b)))
        assert len(met) == n * (n - 1) // 2
        # n − 1 games each: odd n → exactly (n − 1) / 2 of each colour; even n → off by one
        assert {abs(red[p] - blue[p]) for p in players} == ({0} if n % 2 else {1})


def test_series_table_with_elo_coefficient() -> None:
    """Game 1: a (1500) beats b (1500): E = 0.5, 20 × 0.5 = 10 → a 1510, b 1490.
    Game 2: b (1490) draws c (1500): E_b = 1 / (1 + 10^(10/400)) = 0.48561, 20 × 0.01439 =
    0.288 → b 1490.3, c 1499.7. Points a 1, c ½ (spread 0), b ½ (spread −50)."""
    assert expected_score(1490, 1500) == pytest.approx(0.48561, abs=1e-5)
    rows = series_table([GameRecord("a", "b", 300, 250), GameRecord("b", "c", 200, 200)])
    got = [(r.rank, r.player, r.points, r.spread, r.coefficient) for r in rows]
    assert got == [
        (1, "a", 1.0, 50, 1510.0),
        (2, "c", 0.5, 0, 1499.7),
        (3, "b", 0.5, -50, 1490.3),
    ]


def test_moves_accepted_match_an_exhaustive_search() -> None:
    """The answer key of a turn, checked exhaustively on a small case: every word of the
    list written at every reference of the grid (225 squares × 2 directions) is offered to
    ``play``; the moves it accepts, with their scores, are exactly the moves the move
    generator lists for the player's rack, and the score recorded is the score capped by
    the round's cap (RULES §8.1: I — RED 10, BLUE 20; II — RED 30, BLUE 40).
    Row ZAEEEEE / LSAEEEE / AS: RED opens H7 ZA, (10 + 1) × 2 = 22, recorded 10, and draws
    A S; then BLUE (LSAEEEE, round I) and, after BLUE's H7 ZAS 12, RED (EEEEEAS, round
    II)."""
    from scoring import movegen
    from scoring.notation import Ref, format_ref

    words = ("ZA", "ZAS", "LA", "AS")
    st = play(new_game("ZAEEEEE" + "LSAEEEE" + "AS"), "H7", "ZA", CFG)
    assert st.racks[RED] == "EEEEEAS"
    for turn in range(2):
        rack = st.racks[st.turn]
        cap = {(1, RED): 10, (1, BLUE): 20, (2, RED): 30, (2, BLUE): 40}[
            (st.round_no, st.turn)]
        accepted: set[tuple[str, str, int]] = set()
        for word in words:
            for sq in range(225):
                for horizontal in (True, False):
                    ref = format_ref(Ref.at(sq, horizontal))
                    try:
                        after = play(st, ref, word, CFG)
                    except CorrespondenceError:
                        continue
                    m = after.moves[-1]
                    assert m.recorded == min(m.score, cap), (ref, word)
                    accepted.add((ref, word, m.score))
        generated = {(format_ref(m.ref), m.word, m.score)
                     for m in movegen.generate(st.board, rack, CFG)}
        assert accepted == generated and accepted, (turn, rack)
        if turn == 0:
            assert ("H7", "ZAS", 10 + 1 + 1) in accepted
            st = play(st, "H7", "ZAS", CFG)


def test_caps_bind_in_round_one_for_blue_and_round_two_for_red() -> None:
    """The caps when they bind (« I: RED 10, BLUE 20; II: RED 30, BLUE 40 »). Row WAXYEEE /
    ZOUKAEE / IIII; word list {ZOUK, KA, AXE}. French values Z K W X Y = 10.
    - I RED passes; I BLUE H5 ZOUK over the star: (10 + 1 + 1 + 10) × 2 = 44 → 20 recorded.
    - II RED I8 AXE: A on I8 under the K makes KA (10 + 1 = 11), X on I9 (DL) 20, E 1:
      AXE 1 + 20 + 1 = 22, + KA 11 = 33 → 30 recorded."""
    cfg = GameConfig(tileset=french(), lexicon=lex("ZOUK", "KA", "AXE"))
    st = play(new_game("WAXYEEE" + "ZOUKAEE" + "IIII"), None, None, cfg)
    st = play(st, "H5", "ZOUK", cfg)
    assert (st.moves[-1].round_no, st.moves[-1].score, st.moves[-1].recorded) == (1, 44, 20)
    st = play(st, "I8", "AXE", cfg)
    assert (st.moves[-1].round_no, st.moves[-1].score, st.moves[-1].recorded) == (2, 33, 30)
    assert st.recorded == (0 + 30, 20)


def test_a_row_drawn_from_a_seed_is_the_whole_bag_in_that_seeds_order() -> None:
    """The arbitre's row drawn instead of typed (issue 22 §3): every tile of the set once —
    French 102 with 2 jokers, Romanian 100 (FISF / FRSc sets) — the same row for the same
    seed, another for another seed, the seed bounded to 128 bits; the first 14 letters
    (RED's and BLUE's racks) for seed 12345 pinned against the Duplicate's secret bag."""
    from collections import Counter

    from puzzles.correspondence import new_game, row_from_seed
    from puzzles.duplicate import secret_bag
    from scoring.tiles import tileset

    for lang, size in (("fr", 102), ("ro", 100)):
        row = row_from_seed(lang, 12345)  # type: ignore[arg-type]
        assert len(row) == size and Counter(row) == Counter(tileset(lang).counts)
        assert row == row_from_seed(lang, 12345)  # type: ignore[arg-type]
        assert row != row_from_seed(lang, 12346)  # type: ignore[arg-type]
        assert row == "".join(secret_bag(lang, 12345))  # type: ignore[arg-type]
    assert Counter(row_from_seed("fr", 2**128 - 1))["?"] == 2
    state = new_game(row_from_seed("fr", 12345))
    assert state.racks == ("UITQMBE", "HC?NEXS")
    with pytest.raises(CorrespondenceError):
        row_from_seed("fr", 2**128)
