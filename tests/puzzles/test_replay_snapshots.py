"""Golden snapshots of ``arbitre duplicate replay`` (issue 21: « pin today's behaviour
first, then move code »): every GAME.json of the tests and docs, each variant included, is
replayed by the command line and its ``--json`` (and its text report) compared byte for byte
with ``tests/data/snapshots/replay/<case>/expected.json`` (``expected.txt``).

A case is a directory: ``game.json``, optionally ``bulletins.txt`` (the BULLETINS file) and
``words.txt`` (``--lexicon``; without it the bundled French list), and ``SOURCE`` (the test
or doc the GAME.json comes from). The refused games (``tests/data/snapshots/replay_errors/``,
the same layout) pin the French message on stderr (``expected.err``) and the exit status 2.
A deliberate change of the output is recorded with
``ARBITRE_UPDATE_SNAPSHOTS=1 pytest tests/puzzles/test_replay_snapshots.py`` (then review the
diff); without it a missing or different snapshot fails.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from puzzles.duplicate_cli import main as cli_main
from tests.snapshots import SNAPSHOTS, check_snapshot

CASES = SNAPSHOTS / "replay"
ERRORS = SNAPSHOTS / "replay_errors"


def _argv(case: Path, tmp_path: Path) -> list[str]:
    argv = ["replay", str(case / "game.json")]
    if (case / "bulletins.txt").exists():
        argv.append(str(case / "bulletins.txt"))
    if (case / "words.txt").exists():
        # a copy, so that the compiled cache never lands in the repository
        words = tmp_path / "words.txt"
        words.write_bytes((case / "words.txt").read_bytes())
        argv += ["--lexicon", str(words)]
    return argv


CASE_DIRS = sorted(p for p in CASES.iterdir() if (p / "game.json").exists())
ERROR_DIRS = sorted(p for p in ERRORS.iterdir() if (p / "game.json").exists())


def test_every_variant_has_a_case() -> None:
    variants = {json.loads((c / "game.json").read_text("utf-8")).get("variant", "")
                for c in CASE_DIRS}
    assert variants == {"", "tactique", "top", "completif", "superjoker", "metagramme",
                        "elliptique", "superscrabble"}


@pytest.mark.parametrize("case", CASE_DIRS, ids=[p.name for p in CASE_DIRS])
def test_replay_matches_its_snapshot(case: Path, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    argv = _argv(case, tmp_path)
    for flags, name in (([], "expected.txt"), (["--json"], "expected.json")):
        out = io.StringIO()
        rc = cli_main([*argv, *flags], out)
        assert rc == 0, capsys.readouterr().err
        check_snapshot(case / name, out.getvalue())


@pytest.mark.parametrize("case", ERROR_DIRS, ids=[p.name for p in ERROR_DIRS])
def test_refused_replay_matches_its_snapshot(case: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    for flags in ([], ["--json"]):
        out = io.StringIO()
        assert cli_main([*_argv(case, tmp_path), *flags], out) == 2
        assert out.getvalue() == ""
        check_snapshot(case / "expected.err", capsys.readouterr().err)
