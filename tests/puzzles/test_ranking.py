"""Rankings: corrected totals, ties by earlier submission then id, Série de maximaux by the
score vector, Superscrabble incomplet by fewer construction letters, percentages."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from puzzles.feuille import parse_feuille
from puzzles.problem import GameType, Problem, parse_deadline
from puzzles.ranking import RankEntry, percent_of, rank
from puzzles.verify import Report, verify
from tests.puzzles.conftest import lex

WORDS = lex("RAT", "RATS", "RATE", "AS", "TE", "SE", "OR", "LEVERAI")
INTEGRAL = Problem(id="i", game=GameType.INTEGRAL)


def report(problem: Problem, text: str) -> Report:
    return verify(problem, parse_feuille(text).feuille, WORDS)


def test_total_then_earlier_submission_then_id() -> None:
    # A: RAT + RATS = 10 sent 18:55+03:00 (15:55 UTC); B: the same 10 sent 16:00 UTC;
    # C: RAT only = 6 sent first; D: same as B, same time, id "d" > "b".
    a = report(INTEGRAL, "Envoyé: 2000-05-12T18:55:00+03:00\n1 ART H7 RAT 6 6\n2 S H7 RATS 4 10\n")
    b = report(INTEGRAL, "Envoyé: 2000-05-12T16:00:00Z\n1 ART H7 RAT 6 6\n2 S H7 RATS 4 10\n")
    c = report(INTEGRAL, "Envoyé: 2000-05-12T10:00:00Z\n1 ART H7 RAT 6 6\n")
    d = report(INTEGRAL, "Envoyé: 2000-05-12T16:00:00Z\n1 ART H7 RAT 6 6\n2 S H7 RATS 4 10\n")
    rows = rank(INTEGRAL, [RankEntry("d", d), RankEntry("c", c), RankEntry("b", b),
                           RankEntry("a", a)], reference=40)
    assert [(r.rank, r.entry_id, r.final_score) for r in rows] == [
        (1, "a", 10), (2, "b", 10), (3, "d", 10), (4, "c", 6)
    ]
    assert [r.ex_aequo for r in rows] == [False, True, True, False]
    assert [r.percent for r in rows] == [25.0, 25.0, 25.0, 15.0]


def test_penalties_lower_the_total_used_for_ranking() -> None:
    # Five warnings, each a score or letters fault (see test_verify): true scores
    # 6 + 4 + 2 + 6 + 3 = 21, 5 × (5 − 3) = 10 points off: 11 ranks below a clean 12.
    warned = report(
        INTEGRAL,
        "1 ART H7 RAT - 6\n2 S H7 RATS 5 11\n3 S 8H AS 3\n4 E 9H TE 7 20\n5 OS 7G OR 3 23\n",
    )
    clean = report(INTEGRAL, "1 ART H7 RAT 6 6\n2 E H7 RATE 4 10\n3 S 8H AS 2 12\n")
    rows = rank(INTEGRAL, [RankEntry("w", warned), RankEntry("c", clean)])
    assert [(r.entry_id, r.final_score) for r in rows] == [("c", 12), ("w", 11)]


def test_naive_times_are_read_in_the_deadline_zone() -> None:
    problem = Problem(
        id="i", game=GameType.INTEGRAL,
        deadline=parse_deadline("2000-05-12T19:00:00+03:00[Europe/Bucharest]"),
    )
    text = "1 ART H7 RAT 6 6\n"
    naive = report(problem, "Envoyé: 2000-05-12T18:30\n" + text)  # 15:30 UTC in Bucharest
    utc = report(problem, "Envoyé: 2000-05-12T15:45:00Z\n" + text)
    untimed = report(problem, text)
    rows = rank(problem, [RankEntry("u", untimed), RankEntry("z", utc), RankEntry("n", naive)])
    assert [r.entry_id for r in rows] == ["n", "z", "u"]


def test_serie_ranks_by_the_score_vector() -> None:
    # A plays RAT (6) then RATS (4): (6, 4, 0, ...), total 10.
    # B plays RATE (R A T E on H7-H10: 4 ×2 = 8): (8, 0, ...), total 8 — B is first.
    serie = Problem(
        id="s", game=GameType.SERIE_MAXIMAUX,
        groups=("RATEBCD", "SLLMMNN", "OOPPUUI", "GGHHFFJ", "KQWXYZA", "AAAEEEI", "IIIOOOU"),
    )
    a = report(serie, "1 ART H7 RAT 6 6\n2 S H7 RATS 4 10\n")
    b = report(serie, "1 AERT H7 RATE 8 8\n")
    assert (a.final_score, b.final_score) == (10, 8)
    rows = rank(serie, [RankEntry("a", a), RankEntry("b", b)])
    assert [r.entry_id for r in rows] == ["b", "a"]


def test_incomplet_ties_go_to_fewer_construction_letters() -> None:
    # Both find 1 scrabble. X built with RAT (3 letters); Y with RAT then AS (4 letters) and
    # sent earlier. Fewer construction letters wins before the submission time.
    problem = Problem(id="si", game=GameType.SUPERSCRABBLE_INCOMPLET, rack="AEELRV?")
    words = lex("RAT", "RATE", "AS", "LEVERAI")
    x = verify(problem, parse_feuille(
        "Envoyé: 2000-05-12T18:00:00Z\n1 ART H7 RAT 6 6\nScrabbles:\n10G LEVERAi\n"
    ).feuille, words)
    y = verify(problem, parse_feuille(
        "Envoyé: 2000-05-12T10:00:00Z\n1 ART H7 RAT 6 6\n2 S 8H AS 2 8\nScrabbles:\n10G LEVERAi\n"
    ).feuille, words)
    assert (x.final_score, x.construction_letters) == (1, 3)
    assert (y.final_score, y.construction_letters) == (1, 4)
    rows = rank(problem, [RankEntry("y", y), RankEntry("x", x)])
    assert [r.entry_id for r in rows] == ["x", "y"]


def test_ranking_is_deterministic_whatever_the_input_order() -> None:
    reports = [
        RankEntry(str(i), report(INTEGRAL, "1 ART H7 RAT 6 6\n"),
                  datetime(2000, 1, 1, tzinfo=UTC) + timedelta(minutes=i % 3))
        for i in range(6)
    ]
    one = [r.entry_id for r in rank(INTEGRAL, reports)]
    two = [r.entry_id for r in rank(INTEGRAL, list(reversed(reports)))]
    assert one == two == ["0", "3", "1", "4", "2", "5"]


def test_percent_of() -> None:
    assert percent_of(166, 200) == 83.0
    assert percent_of(1, 3) == 33.33
    assert percent_of(10, None) is None
    assert percent_of(10, 0) is None
