"""The verifier never raises: random plausible sheets (hypothesis) against every game type,
and every report still adds up (cumul = running sum, total = sum of counted scores)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from puzzles.feuille import Feuille, FeuilleMove
from puzzles.generate import new_problem
from puzzles.problem import GameType, Problem
from puzzles.verify import verify
from scoring.lexicon import default_lexicon
from tests.puzzles.conftest import lex

WORDS = lex("RAT", "RATS", "TA", "AS", "ZA", "OZA", "ON", "EN", "TE", "SE", "OR", "LEVERAI",
            "ET", "TES", "SET", "ARE", "ERE", "TRES", "SERA", "RASE", "AERA")
ROWS = "ABCDEFGHIJKLMNO"

move = st.builds(
    lambda n, r, c, h, w, letters, score, cumul, group, annul, passed: FeuilleMove(
        n, ref=(f"{ROWS[r]}{c + 1}" if h else f"{c + 1}{ROWS[r]}"), word=w, letters=letters,
        score=score, cumul=cumul, group=group, annul=annul, passed=passed,
    ),
    st.integers(0, 16), st.integers(5, 9), st.integers(5, 9), st.booleans(),
    st.sampled_from(["RAT", "RATS", "TA", "AS", "ZA", "OZA", "ON", "EN", "TE", "Ta", "rAT",
                     "XX", "LEVERAI", "SET", "TES", "ERE"]),
    st.one_of(st.none(), st.text(alphabet="ARTSZOEN?", min_size=1, max_size=8)),
    st.one_of(st.none(), st.integers(0, 100)), st.one_of(st.none(), st.integers(0, 300)),
    st.one_of(st.none(), st.integers(0, 16)),
    st.lists(st.integers(0, 16), max_size=2).map(tuple), st.booleans(),
)
sheet = st.builds(
    lambda moves, scrabbles, groups: Feuille(moves=tuple(moves), scrabbles=tuple(scrabbles),
                                             groups=tuple(groups)),
    st.lists(move, max_size=10), st.lists(move, max_size=4),
    st.lists(st.text(alphabet="ARTSEO?", min_size=1, max_size=7), max_size=15),
)


_PROBLEMS: dict[GameType, Problem] = {}


def problem_for(game: GameType) -> Problem:
    if game not in _PROBLEMS:
        needs_list = game in (GameType.EXCLUSIF_FOND, GameType.EXCLUSIF_RESISTANCE,
                              GameType.SUPERSCRABBLE)
        _PROBLEMS[game] = new_problem(
            game, seed=1, lexicon=default_lexicon() if needs_list else WORDS,
            opening_predicate=lambda row: True,
        )
    return _PROBLEMS[game]


@pytest.mark.parametrize("game", list(GameType))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(f=sheet)
def test_verify_never_raises_and_adds_up(game: GameType, f: Feuille) -> None:
    problem = problem_for(game)
    r = verify(problem, f, WORDS)
    running = 0
    for m in r.moves:
        running += m.score
        assert m.cumul == running
        assert m.score == 0 or m.status.counts
    assert r.total == sum(m.score for m in (r.scrabbles if game in (
        GameType.SUPERSCRABBLE, GameType.SUPERSCRABBLE_INCOMPLET) else r.moves))
    assert r.to_text()


MALFORMED = [
    dict(groups=("AB",), order=(15, 3)),
    dict(),
    dict(groups=("",) * 15, order=tuple(range(2, 16)), group_sizes=(4,) + (7,) * 14,
         board="15/" * 14 + "15"),
    dict(groups=("AB",) * 20, order=(0, -1, 99), group_sizes=(1,)),
]
ODD_SHEETS = [
    "1 G1 ART H7 RAT 6 6\n1 G2 ART H8 RAT\n2 A H7 RAT 3\nScrabbles:\nH7 RAT\n",
    "1 G9 Passe\n2 Annuler coups 1, 2, 99\n3 Annuler coup 0\n",
    "Groupes: AB\n1 G1 A H8 AB\n2 G2 B 8H AB\n",
]


@pytest.mark.parametrize("game", list(GameType))
def test_verify_survives_malformed_problems(game: GameType) -> None:
    from puzzles.verify import verify_text

    for fields in MALFORMED:
        problem = Problem(id="bad", game=game, **fields)
        for text in ODD_SHEETS:
            r = verify_text(problem, text, WORDS)
            assert r.final_score <= sum(max(m.score, 0) for m in r.moves + r.scrabbles)
