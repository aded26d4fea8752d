"""The verifier's compiled fast path against its pure-Python reference: the same sheet judged
with ``scoring.validate.quick_check`` (C) and with it turned off (every move through
``check_move``, the path used when the extension is absent or ``ARBITRE_PURE_PYTHON=1``)
gives the same report, field for field.

Sheets: the hypothesis sheets of test_verify_fuzz against every game type (mostly broken
moves), and legal Intégral games played by a greedy player over the French list, clean and
with faults put in (a misspelt word, a wrong score or cumul, a word moved, a line dropped or
swapped) so that zeros, warnings and cascades run on boards the fast path built."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from hypothesis import HealthCheck, given, settings

import puzzles.verify.replay as replay
import scoring.validate as validate
from puzzles.feuille import Feuille, FeuilleMove
from puzzles.problem import GameType, Problem
from puzzles.settings import Settings
from puzzles.verify import Report, verify
from scoring import movegen
from scoring.board import Board
from scoring.config import GameConfig
from scoring.lexicon import default_lexicon
from scoring.notation import format_ref
from scoring.tiles import french
from tests.puzzles.test_verify_fuzz import WORDS, problem_for, sheet

pytestmark = pytest.mark.skipif(
    not validate.quick_available(), reason="compiled core not built or turned off"
)


@contextmanager
def pure_python() -> Iterator[None]:
    saved = validate._c_check
    validate._c_check = None
    try:
        yield
    finally:
        validate._c_check = saved


def both(problem: Problem, f: Feuille, lexicon: object, s: Settings | None = None) -> Report:
    fast = verify(problem, f, lexicon, s)  # type: ignore[arg-type]
    with pure_python():
        reference = verify(problem, f, lexicon, s)  # type: ignore[arg-type]
    assert fast == reference
    assert fast.to_json() == reference.to_json()
    return fast


@pytest.mark.parametrize("game", list(GameType))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(f=sheet)
def test_fuzz_sheets_same_report(game: GameType, f: Feuille) -> None:
    both(problem_for(game), f, WORDS)


def greedy(seed: int) -> tuple[Problem, Feuille]:
    """An Intégral game of 12–18 legal moves: the top of 7 random letters of the stock."""
    rng = random.Random(seed)
    config = GameConfig(tileset=french(), lexicon=default_lexicon())
    stock, board, cumul = french().bag(), Board(), 0
    lines: list[FeuilleMove] = []
    for _ in range(60):
        if len(lines) >= rng.randint(12, 18):
            break
        letters = sorted(stock.elements())
        rng.shuffle(letters)
        top = movegen.best(board, "".join(letters[:7]), config)
        if not top:
            continue
        m = top[0]
        m.placement.apply(board)
        stock -= Counter(m.letters)
        cumul += m.score
        lines.append(FeuilleMove(len(lines) + 1, format_ref(m.ref), m.word, m.letters,
                                 m.score, cumul))
    problem = Problem(id=f"greedy-{seed}", game=GameType.INTEGRAL)
    return problem, Feuille(moves=tuple(lines), problem_id=problem.id)


def faulty(f: Feuille, rng: random.Random) -> Feuille:
    moves = list(f.moves)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(moves))
        m = moves[i]
        kind = rng.randrange(7)
        if kind == 0 and m.word:
            j = rng.randrange(len(m.word))
            m = dataclasses.replace(m, word=m.word[:j] + rng.choice("KWXZQ") + m.word[j + 1:])
        elif kind == 1:
            m = dataclasses.replace(m, score=(m.score or 0) + 1, cumul=(m.cumul or 0) + 2)
        elif kind == 2 and m.ref:
            m = dataclasses.replace(m, ref=m.ref[1:] + m.ref[0] if m.ref[0].isalpha()
                                    else m.ref[-1] + m.ref[:-1])
        elif kind == 3 and m.word:
            m = dataclasses.replace(m, word=m.word.lower(), letters="AEIOU")
        elif kind == 4:
            del moves[i]
            continue
        elif kind == 5 and i + 1 < len(moves):
            moves[i], moves[i + 1] = moves[i + 1], moves[i]
            continue
        moves[i] = m
    return dataclasses.replace(f, moves=tuple(moves))


def test_greedy_games_same_report(monkeypatch: pytest.MonkeyPatch) -> None:
    answered = 0

    def counting(config: GameConfig, *, detail: bool = True) -> validate.QuickChecker:
        check = validate.quick_checker(config, detail=detail)

        def counted(*args: object) -> validate.QuickResult | None:
            nonlocal answered
            res = check(*args)  # type: ignore[arg-type]
            answered += res is not None
            return res

        return counted

    monkeypatch.setattr(replay, "quick_checker", counting)
    lexicon = default_lexicon()
    rng = random.Random(2326)
    zeros = cascades = legal_moves = 0
    for seed in range(25):
        problem, f = greedy(seed)
        clean = both(problem, f, lexicon)
        assert not clean.warnings and all(m.status.counts for m in clean.moves)
        legal_moves += len(f.moves)
        for s in (Settings(), Settings(cumul_warning=True, ref_mismatch_relocate=True)):
            r = both(problem, faulty(f, rng), lexicon, s)
            zeros += sum(1 for m in r.moves if m.status.value == "zéro")
            cascades += sum(1 for m in r.moves if m.status.value == "zéro en cascade")
    # the fast path judged every legal move of the clean sheets (half the verify calls)
    assert answered >= legal_moves
    assert zeros >= 25 and cascades >= 5


def test_fast_move_report_is_the_constructor() -> None:
    """The verifier's MoveReport builder (report.new_move_report) is the fast one and makes
    the same value as the dataclass constructor, hash and repr included."""
    from puzzles.verify.report import MoveReport, MoveStatus, _new_move_report, new_move_report

    assert new_move_report is _new_move_report
    values = (3, 7, MoveStatus.WARNING, "H4", "ZEBRe", None, "BERZ?", "BERZE", 40, 38, 38, 90,
              88, 0, ("r",), ("score écrit 40, score exact 38.",), ("ZEBRe 38",), (1, 2))
    fast, plain = new_move_report(*values), MoveReport(*values)
    assert fast == plain and hash(fast) == hash(plain) and repr(fast) == repr(plain)
    assert fast.to_dict() == plain.to_dict() and vars(fast) == vars(plain)
