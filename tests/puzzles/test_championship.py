"""Championship standings (puzzles.championship): each rule on hand-computed numbers, the
FRSc table as published (RULES §10 [E18]), ex-aequo sharing, missing problems, best N of M,
tie-breaks and determinism."""

from __future__ import annotations

import random
from decimal import Decimal

import pytest

from puzzles.championship import (
    FRSC_PLACE_POINTS,
    ChampionshipSettings,
    ProblemRanking,
    ProblemResult,
    describe,
    format_value,
    frsc_place_points,
    problem_values,
    standings,
)

ANA, BOB, CID, DAN = 1, 2, 3, 4
R = ProblemResult

# P1: Ana 166 (100 %), Cid 150 (150/166 = 90.36 %), Bob 82 (82/166 = 49.40 %)
P1 = ProblemRanking("P1", (R(ANA, 1, 166, 100.0), R(CID, 2, 150, 90.36), R(BOB, 3, 82, 49.4)))
# P2: Bob 120 (100 %), Ana 100 (100/120 = 83.33 %); Cid did not play
P2 = ProblemRanking("P2", (R(BOB, 1, 120, 100.0), R(ANA, 2, 100, 83.33)))


def table(rows):  # type: ignore[no-untyped-def]
    return [(r.place, r.player_id, r.total) for r in rows]


def test_frsc_points_are_the_published_table() -> None:
    assert [frsc_place_points(p) for p in range(1, 11)] == [
        1000, 859, 801, 757, 720, 688, 659, 632, 608, 585]
    assert FRSC_PLACE_POINTS == (1000, 859, 801, 757, 720, 688, 659, 632, 608, 585)


def test_frsc_places_beyond_ten() -> None:
    assert frsc_place_points(11) == 0 and frsc_place_points(500) == 0
    last = ChampionshipSettings(frsc_beyond_table="last_step")
    # the table's last step is 608 - 585 = 23: 585 - 23 = 562, 562 - 23 = 539, ...
    assert [frsc_place_points(p, last) for p in (10, 11, 12, 13)] == [585, 562, 539, 516]
    # place 35: 585 - 25 × 23 = 10; place 36: 585 - 26 × 23 = -13, floored at 0
    assert frsc_place_points(35, last) == 10 and frsc_place_points(36, last) == 0
    with pytest.raises(ValueError, match="commence à 1"):
        frsc_place_points(0)


@pytest.mark.parametrize(
    ("rule", "expected"),
    [
        # Ana 166 + 100 = 266; Bob 82 + 120 = 202; Cid 150 + 0 = 150
        ("sum_scores", [(1, ANA, Decimal(266)), (2, BOB, Decimal(202)),
                        (3, CID, Decimal(150))]),
        # Ana 100 + 83.33 = 183.33; Bob 49.40 + 100 = 149.40; Cid 90.36 + 0 = 90.36
        ("sum_percent", [(1, ANA, Decimal("183.33")), (2, BOB, Decimal("149.40")),
                         (3, CID, Decimal("90.36"))]),
        # Ana 1st then 2nd: 1000 + 859 = 1859; Bob 3rd then 1st: 801 + 1000 = 1801;
        # Cid 2nd then absent: 859 + 0 = 859
        ("frsc_points", [(1, ANA, Decimal(1859)), (2, BOB, Decimal(1801)),
                         (3, CID, Decimal(859))]),
    ],
)
def test_each_rule(rule, expected) -> None:  # type: ignore[no-untyped-def]
    rows = standings([P1, P2], rule)
    assert table(rows) == expected
    assert [r.played for r in rows] == [2, 2, 1]
    cid = rows[2]
    assert [(c.key, c.played, c.counted, c.place) for c in cid.contributions] == [
        ("P1", True, True, 2), ("P2", False, True, None)]
    assert cid.contributions[1].value == 0


def test_frsc_event_value_scales_the_points() -> None:
    # value 50: 1000 × 0.5 = 500, 859 × 0.5 = 429.50, 801 × 0.5 = 400.50
    half = ProblemRanking("P1", P1.results, event_value=50)
    assert problem_values(half, "frsc_points") == {
        ANA: Decimal(500), CID: Decimal("429.50"), BOB: Decimal("400.50")}
    # value 200 doubles: 2000, 1718
    double = ProblemRanking("P2", P2.results, event_value=200)
    assert problem_values(double, "frsc_points") == {BOB: Decimal(2000), ANA: Decimal(1718)}


def test_frsc_ex_aequo_share_the_mean_of_their_places() -> None:
    # Bob and Cid tie Ana on play (ex_aequo: only the receive time separated them)
    tied = ProblemRanking("P1", (
        R(ANA, 1, 100), R(BOB, 2, 100, ex_aequo=True), R(CID, 3, 100, ex_aequo=True),
        R(DAN, 4, 90),
    ))
    # places 1-3 shared: (1000 + 859 + 801) / 3 = 2660 / 3 = 886.666... -> 886.67; Dan 757
    assert problem_values(tied, "frsc_points") == {
        ANA: Decimal("886.67"), BOB: Decimal("886.67"), CID: Decimal("886.67"),
        DAN: Decimal(757)}
    # value 50: 886.666... × 0.5 = 443.333... -> 443.33; 757 × 0.5 = 378.50
    assert problem_values(ProblemRanking("P1", tied.results, event_value=50),
                          "frsc_points") == {
        ANA: Decimal("443.33"), BOB: Decimal("443.33"), CID: Decimal("443.33"),
        DAN: Decimal("378.50")}
    by_place = ChampionshipSettings(frsc_ex_aequo="by_place")
    assert problem_values(tied, "frsc_points", by_place) == {
        ANA: Decimal(1000), BOB: Decimal(859), CID: Decimal(801), DAN: Decimal(757)}
    # the same tie written with shared place numbers (1, 1, 3)
    shared = ProblemRanking("P1", (R(ANA, 1, 100), R(BOB, 1, 100), R(CID, 3, 90)))
    # (1000 + 859) / 2 = 929.50; Cid 801
    assert problem_values(shared, "frsc_points") == {
        ANA: Decimal("929.50"), BOB: Decimal("929.50"), CID: Decimal(801)}


def test_frsc_ties_across_the_tenth_place() -> None:
    rows = [R(100 + p, p, 200 - p) for p in range(1, 10)]
    rows += [R(110, 10, 150), R(111, 11, 150, ex_aequo=True)]
    # places 10 and 11 shared: (585 + 0) / 2 = 292.50; with last_step (585 + 562) / 2 = 573.50
    assert problem_values(ProblemRanking("P", tuple(rows)), "frsc_points")[111] == \
        Decimal("292.50")
    last = ChampionshipSettings(frsc_beyond_table="last_step")
    assert problem_values(ProblemRanking("P", tuple(rows)), "frsc_points", last)[110] == \
        Decimal("573.50")


def test_sum_percent_without_reference_counts_zero() -> None:
    nothing = ProblemRanking("P3", (R(ANA, 1, 0, None), R(BOB, 2, 0, None)))
    assert problem_values(nothing, "sum_percent") == {ANA: Decimal(0), BOB: Decimal(0)}


def test_best_n_of_m() -> None:
    p = [
        ProblemRanking("P1", (R(ANA, 1, 100), R(BOB, 2, 70))),
        ProblemRanking("P2", (R(BOB, 1, 70), R(ANA, 2, 50))),
        ProblemRanking("P3", (R(BOB, 1, 70),)),  # Ana absent
    ]
    # all: Bob 70 + 70 + 70 = 210, Ana 100 + 50 + 0 = 150
    assert table(standings(p, "sum_scores")) == [(1, BOB, 210), (2, ANA, 150)]
    best2 = ChampionshipSettings(best_of=2)
    rows = standings(p, "sum_scores", best2)
    # best 2: Ana 100 + 50 = 150 (the missing P3 dropped), Bob 70 + 70 = 140
    assert table(rows) == [(1, ANA, 150), (2, BOB, 140)]
    assert [c.counted for c in rows[0].contributions] == [True, True, False]
    # Bob's three 70s are equal: the earlier problems are kept
    assert [c.counted for c in rows[1].contributions] == [True, True, False]
    assert rows[1].played == 3
    # best 5 of 3: everything counts
    assert table(standings(p, "sum_scores", ChampionshipSettings(best_of=5))) == [
        (1, BOB, 210), (2, ANA, 150)]


def test_tie_break_played_then_best_then_shared_place() -> None:
    p = [
        ProblemRanking("P1", (R(BOB, 1, 150), R(DAN, 2, 120), R(ANA, 3, 100))),
        ProblemRanking("P2", (R(CID, 1, 150), R(ANA, 2, 50), R(DAN, 3, 30))),
    ]
    # every total is 150: Ana 100 + 50, Bob 150 + 0, Cid 0 + 150, Dan 120 + 30.
    # Two played first (Ana, Dan), Dan's best 120 beats Ana's 100; Bob and Cid played one
    # each with the same best (150): they share 3rd place, listed by player id.
    rows = standings(p, "sum_scores")
    assert [(r.place, r.player_id, r.ex_aequo) for r in rows] == [
        (1, DAN, False), (2, ANA, False), (3, BOB, False), (3, CID, True)]
    shared = standings(p, "sum_scores", ChampionshipSettings(tie_break="shared"))
    assert [(r.place, r.player_id) for r in shared] == [(1, ANA), (1, BOB), (1, CID), (1, DAN)]


def test_deterministic_whatever_the_input_order() -> None:
    rng = random.Random(7)
    players = list(range(1, 41))
    cols = []
    for k in range(4):
        order = players[:]
        rng.shuffle(order)
        cols.append(ProblemRanking(f"P{k}", tuple(
            R(pid, place, rng.randrange(5) * 10, None)
            for place, pid in enumerate(order[: 30], start=1))))
    expected = standings(cols, "sum_scores")
    assert len(expected) == len({pid for c in cols for pid in (r.player_id for r in c.results)})
    for _ in range(5):
        shuffled = [ProblemRanking(c.key, tuple(rng.sample(c.results, len(c.results))))
                    for c in cols]
        assert standings(shuffled, "sum_scores") == expected
    # places never go backwards and a shared place repeats the place above
    for above, row in zip(expected, expected[1:], strict=False):
        assert row.total <= above.total
        assert (row.place == above.place) == row.ex_aequo


def test_bad_input_is_refused_in_french() -> None:
    with pytest.raises(ValueError, match="Règle de classement général inconnue"):
        standings([P1], "points")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="inconnu"):
        ChampionshipSettings.from_dict({"best_off": 3})
    with pytest.raises(ValueError, match="au moins 1"):
        ChampionshipSettings(best_of=0)
    with pytest.raises(ValueError, match="même nom"):
        standings([P1, P1], "sum_scores")
    assert ChampionshipSettings.from_dict(None) == ChampionshipSettings()
    assert ChampionshipSettings.from_dict({"best_of": 3}).best_of == 3


def test_format_and_description() -> None:
    assert format_value(Decimal("183.33")) == "183,33"
    assert format_value(Decimal(1859)) == "1859"
    assert format_value(Decimal(100), decimals=True) == "100,00"
    text = " ".join(describe("frsc_points", ChampionshipSettings(best_of=3)))
    assert "1er 1000, 2e 859, 3e 801" in text and "10e 585" in text
    assert "Seuls les 3 meilleurs résultats" in text
