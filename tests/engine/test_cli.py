"""``arbitre engine moves|score``: outputs checked against the public positions and the
published scores, French errors and exit statuses."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from scoring.cli import main

DATA = Path(__file__).resolve().parents[1] / "data"
POSITIONS: list[dict[str, Any]] = [
    json.loads(line) for line in (DATA / "movegen_public.jsonl").read_text("utf-8").splitlines()
]
ARBITRE = Path(sys.executable).with_name("arbitre")
BOARD0 = "15/15/15/15/15/15/15/6IN7/15/15/15/15/15/15/15"


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), stdout=out)
    return code, out.getvalue()


def test_moves_text() -> None:
    code, out = run("moves", "--board", BOARD0, "--rack", "BEEIILT")
    assert code == 0
    assert out.splitlines() == [
        "Tirage BEEIILT : 200 placements, dont 0 scrabbles (7 lettres posées).",
        "Top : 19 points (1 coup).",
        "  6F   BILIEE            19",
    ]


def test_moves_json_matches_the_reference() -> None:
    pos = next(p for p in POSITIONS if len(p["top_moves"]) > 1 and p["scrabbles"])
    code, out = run("moves", "--board", pos["board"], "--rack", pos["rack"], "--json")
    assert code == 0
    assert json.loads(out) == {k: pos[k] for k in ("placements", "scrabbles", "top", "top_moves")}


def test_moves_top_n_in_fisf_order() -> None:
    pos = POSITIONS[4]  # [["O1","ROSE",40],["O1","RUSE",40]]
    code, out = run("moves", "--board", pos["board"], "--rack", pos["rack"], "--top", "3",
                    "--json")
    assert code == 0
    ranked = json.loads(out)["best"]
    assert ranked[:2] == [["O1", "ROSE", 40], ["O1", "RUSE", 40]]
    assert ranked[2][2] < 40


def test_positions_file_in_a_real_process(tmp_path: Path) -> None:
    src = tmp_path / "positions.jsonl"
    src.write_text(
        "\n".join(json.dumps({"id": p["id"], "board": p["board"], "rack": p["rack"]})
                  for p in POSITIONS) + "\n",
        encoding="utf-8",
    )
    proc = subprocess.run(
        [str(ARBITRE), "engine", "moves", "--positions", str(src), "--json"],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode == 0, proc.stderr
    results = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(results) == 120
    for got, pos in zip(results, POSITIONS, strict=True):
        assert got == {k: pos[k] for k in ("id", "placements", "scrabbles", "top", "top_moves")}


def test_positions_file_reports_bad_lines_and_keeps_going(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = {"board": BOARD0, "rack": "BEEIILT"}
    src = tmp_path / "p.jsonl"
    src.write_text(
        json.dumps(good) + "\n"
        + json.dumps({"board": "15/15", "rack": "AB"}) + "\n"
        + "{pas du json\n"
        + json.dumps({"board": BOARD0, "rack": "A1"}) + "\n"
        + json.dumps({"rack": "AB"}) + "\n"
        + json.dumps(good) + "\n",
        encoding="utf-8",
    )
    code, out = run("moves", "--positions", str(src), "--json")
    assert code == 1
    lines = [json.loads(x) for x in out.splitlines()]
    assert len(lines) == 6
    assert lines[0]["top"] == 19 and lines[5]["top"] == 19
    assert [x.get("line") for x in lines[1:5]] == [2, 3, 4, 5]
    assert lines[1]["error"].endswith("ligne 2 : CGP : 2 rangées au lieu de 15 dans « 15/15 ».")
    assert "ligne 3 : JSON illisible" in lines[2]["error"]
    assert "ligne 4 : Tirage « A1 » : caractère « 1 » inattendu" in lines[3]["error"]
    assert 'ligne 5 : objet {"board": ..., "rack": ...} attendu' in lines[4]["error"]
    assert capsys.readouterr().err.count("arbitre engine : ") == 4


def test_score_valid_move() -> None:
    code, out = run("score", "--board", BOARD0, "6F BILIEE")
    assert code == 0
    assert out.splitlines() == [
        "6F BILIEE : coup valide, 19 points.",
        "  6F   BILIEE            16  (mot principal)",
        "  H6   LIN                3  (mot secondaire)",
    ]
    code2, out2 = run("score", "--board", BOARD0, "6F", "BILIEE")
    assert (code2, out2) == (code, out)


def test_score_refused_move_json() -> None:
    code, out = run("score", "--board", BOARD0, "6F BILIEX", "--json")
    assert code == 1
    assert json.loads(out) == {
        "ok": False, "ref": "6F", "word": "BILIEX", "score": 28, "bonus": 0,
        "words": [["6F", "BILIEX", 25], ["H6", "LIN", 3]],
        "invalid_words": ["BILIEX"], "reasons": ["Le mot BILIEX n'est pas admis."],
    }


def test_score_romanian_published_examples() -> None:
    # FRSc examples (RULES §3.2, E8): C0OMANDA 71 and CAPRARUL 86 with Romanian values
    board = "15/15/15/15/15/15/15/6CASA5/7STIRE3/15/15/15/15/15/15"
    code, out = run("score", "--board", board, "--lang", "ro", "6E C0OMANDA", "--json")
    assert code == 0
    got = json.loads(out)
    assert (got["word"], got["score"], got["bonus"]) == ("cOMANDA", 71, 50)
    code, out = run("score", "--board", board, "--lang", "ro", "6E", "C0OMANDA")
    assert code == 0
    assert out.splitlines()[0] == "6E cOMANDA : coup valide, 71 points."
    assert out.splitlines()[-1] == "  (mots non vérifiés : aucune liste de mots)"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["score", "--board", BOARD0, "Z9 MOT"], "Référence illisible : « Z9 »"),
        (["score", "--board", BOARD0, "H4"], "attendu une référence et un mot"),
        (["score", "--board", "15/15", "H4 MOT"], "CGP : 2 rangées au lieu de 15"),
        (["score", "--board", BOARD0, "H7 ZN"], "la case H7 porte déjà I, pas Z"),
        (["moves", "--board", BOARD0, "--rack", "A1"], "caractère « 1 » inattendu"),
        (["moves", "--board", BOARD0], "indiquez le tirage"),
        (["moves", "--board", BOARD0, "--rack", "AB", "--lang", "ro"], "indiquez --lexicon"),
        (["moves", "--board", BOARD0, "--rack", "AB", "--top", "0"], "au moins 1"),
        (["moves", "--board", BOARD0, "--rack", "AB", "--lexicon", "/nulle/part.txt"],
         "illisible"),
    ],
)
def test_bad_input_exits_2_with_a_french_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = run(*argv)
    assert code == 2
    assert out == ""
    err = capsys.readouterr().err
    assert err.startswith("arbitre engine : ")
    assert message in err


def test_lexicon_option(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARBITRE_CACHE_DIR", str(tmp_path / "cache"))
    words = tmp_path / "mini.txt"
    words.write_text("BILIEE\nLIN\n", encoding="utf-8")
    code, out = run("moves", "--board", BOARD0, "--rack", "BEEIILT", "--lexicon", str(words),
                    "--json")
    assert code == 0
    # 6F BILIEE, 7E BILIEE, 7G BILIEE (through the I of H7), 8F LIN, H6 LIN
    assert json.loads(out) == {"placements": 5, "scrabbles": 0, "top": 19,
                               "top_moves": [["6F", "BILIEE", 19]]}


def test_through_the_arbitre_command() -> None:
    proc = subprocess.run(
        [str(ARBITRE), "engine", "score", "--board", BOARD0, "6F BILIEX"],
        capture_output=True, text=True, timeout=60, check=False,
    )
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[:2] == ["6F BILIEX : coup refusé.",
                                           "  - Le mot BILIEX n'est pas admis."]


def test_pure_python_fallback_in_a_real_process() -> None:
    """ARBITRE_PURE_PYTHON=1 runs without the C extension (generator and membership)."""
    pos = POSITIONS[8]
    code = (
        "import json, sys\n"
        "from scoring import lexicon, movegen\n"
        "from scoring.cli import main\n"
        "assert lexicon._c_contains is None and movegen._default_engine() is movegen.py_generate\n"
        f"sys.exit(main(['moves', '--board', {pos['board']!r}, '--rack', {pos['rack']!r},"
        " '--json']))\n"
    )
    env = {**os.environ, "ARBITRE_PURE_PYTHON": "1"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=False, env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {
        k: pos[k] for k in ("placements", "scrabbles", "top", "top_moves")
    }
