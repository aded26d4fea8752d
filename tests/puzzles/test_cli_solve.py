"""``arbitre solve``: the options of the issue (``--seconds``), a reproducible node budget, and
a sheet whose column titles match its lines."""

from __future__ import annotations

import io
from pathlib import Path

from puzzles.cli import main
from puzzles.feuille import parse_feuille
from puzzles.generate import new_problem
from puzzles.problem import dump_problem
from puzzles.verify import verify_text
from scoring.lexicon import default_lexicon


def test_solve_rangee_with_seconds_and_nodes(tmp_path: Path) -> None:
    lex = default_lexicon()
    problem = new_problem("rangee", seed=7, lexicon=lex)
    path = tmp_path / "rangee.json"
    dump_problem(problem, path)
    runs = []
    for _ in range(2):
        out = io.StringIO()
        assert main(["solve", str(path), "--seconds", "60", "--nodes", "40"], out=out) == 0
        runs.append(out.getvalue())
    assert runs[0] == runs[1]  # a node budget makes the answer reproducible
    text = runs[0]
    lines = text.splitlines()
    assert lines[:3] == [
        "Problème: rangee-fr-7",
        f"Rangée: {problem.row}",
        "Coup | Lettres | Réf. | Mot | Score | Cumul",
    ]
    parsed = parse_feuille(text)
    assert parsed.errors == ()
    assert all(len(line.split(" | ")) in (5, 6) for line in lines[3:])
    report = verify_text(problem, text, lex)
    assert report.warnings == 0 and report.final_score == parsed.feuille.moves[-1].cumul
