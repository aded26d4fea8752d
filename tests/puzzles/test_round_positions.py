"""From any position (issue 21): every round game replays one round alone from the position
it was drawn from — :func:`puzzles.duplicate.loop.replay_round` on a stored round (the
console's « rejouer ce tour »), and a GAME.json ``start`` (docs/DUPLICATE.md « Partir d'une
position ») — and gets the same draw, top and verdicts as the whole replay from the empty
grid. The games are replay snapshots of every variant (tests/data/snapshots/replay/), each
with its own bulletins and two more players who write every top, one exactly and one with
a wrong score (so every round has a valid and a warned verdict to compare)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

from puzzles.duplicate.gamefile import game_players
from puzzles.duplicate.loop import game_of, play, player_bulletin, replay_game, replay_round
from puzzles.duplicate.protocol import RoundRecord
from puzzles.duplicate.replay import parse_bulletins_file
from puzzles.duplicate.settings import DuplicateError
from scoring.config import GameConfig
from scoring.lexicon import Lexicon
from tests.snapshots import SNAPSHOTS

CASES = {
    "": "duplicate_seed7_five_rounds_bulletins",
    "top": "top_warnings",
    "completif": "completif_warnings",
    "superjoker": "superjoker_seed7_french",
    "metagramme": "metagramme_seed7_french",
    "elliptique": "elliptique_seed7_french",
    "tactique": "tactique_docs_seed7",
    "superscrabble": "superscrabble_warnings",
}


def _config(case: Path, tmp_path: Path) -> GameConfig:
    if (case / "words.txt").exists():
        words = tmp_path / "words.txt"  # the compiled cache lands beside the copy
        words.write_bytes((case / "words.txt").read_bytes())
        return GameConfig.default("fr", Lexicon.load(words))
    return GameConfig.default("fr")


def _written(top: dict[str, Any], wrong: bool) -> str:
    """The round's top as a player of that game writes it (``wrong``: one point off)."""
    off = 1 if wrong else 0
    if "scrabbles" in top:  # a sheet: every scrabble, and their count
        listed = ", ".join(f"{m['ref']} {m['word']}" for m in top["scrabbles"])
        return f"{listed} ; {len(top['scrabbles']) + off}"
    if "first_group" in top:  # a billet: both words in placement order, then the sum
        words = [m for m in (top["first"], top["second"]) if m]
        line = " + ".join(f"{m['ref']} {m['word']} {m['score']}" for m in words)
        return f"{line} = {top['score'] + off}"
    letters = (f" -{top['swapped']}" if top.get("swapped") else "") + (
        f" +{top['chosen']}" if top.get("chosen") else "")
    return f"{top['ref']} {top['word']} {top['score'] + off}{letters}"


def _whole(case: Path, tmp_path: Path) -> tuple[Any, Any, GameConfig, dict[int, dict[str, str]],
                                                list[str], list[RoundRecord]]:
    data = json.loads((case / "game.json").read_text("utf-8"))
    text = (case / "bulletins.txt").read_text("utf-8") if (case / "bulletins.txt").exists() \
        else ""
    bulletins = parse_bulletins_file(text) if text else {}
    config = _config(case, tmp_path)
    game = game_of(data)
    loaded = game.load(data, config)
    first, _ = play(game, loaded, config, bulletins, game_players(data, bulletins))
    for r in first:  # two more players: the top exactly, and with a wrong score
        per = bulletins.setdefault(r.number, {})
        per["sam"] = _written(cast(dict[str, Any], r.top), wrong=False)
        per["eve"] = _written(cast(dict[str, Any], r.top), wrong=True)
    players = game_players(data, bulletins)
    records, _ = play(game, loaded, config, bulletins, players)
    assert [r.top for r in records] == [r.top for r in first]
    return data, loaded, config, bulletins, players, records


def _draw(d: Any) -> dict[str, Any]:
    """A draw without its rejected racks, which a draw taken again as listed does not show
    (« -BNISRAA »: a rejection, its racks unknown); whether there was one, kept."""
    out = {k: v for k, v in dict(d).items() if k != "rejected"}
    out["rejected"] = bool(d.get("rejected"))
    if "groups" in out:
        out["groups"] = [_draw(g) for g in d["groups"]]
    return out


@pytest.mark.parametrize("variant", list(CASES))
def test_a_stored_round_replays_alone_from_its_position(variant: str, tmp_path: Path) -> None:
    case = SNAPSHOTS / "replay" / CASES[variant]
    data, loaded, config, bulletins, players, records = _whole(case, tmp_path)
    assert len(records) >= 3 and game_of(data).key == variant
    game = game_of(data)
    record = records[len(records) // 2]
    assert record.number >= 2
    sheets = [player_bulletin(game, p, bulletins.get(record.number, {}).get(p))
              for p in players]
    again = replay_round(game, loaded.settings, config, record, sheets,
                         loaded.n_players or len(players))
    assert again.number == record.number
    assert _draw(again.draw) == _draw(record.draw)
    assert again.top == record.top
    assert again.results == record.results
    kinds = {r["kind"] for r in again.results.values()}
    assert {"valide", "avertissement"} <= kinds, kinds
    assert again.grid_before == record.grid_before and again.grid_after == record.grid_after


@pytest.mark.parametrize("variant", list(CASES))
def test_a_game_json_starts_from_a_position(variant: str, tmp_path: Path) -> None:
    """The whole replay's rounds from round k on, replayed from the position of round k
    (its draws listed from there, or the Superscrabble's racks)."""
    case = SNAPSHOTS / "replay" / CASES[variant]
    data, _, config, bulletins, _, records = _whole(case, tmp_path)
    game = game_of(data)
    k = len(records) // 2
    start = game.position_of(records[k]).to_dict()
    later = {key: v for key, v in data.items() if key not in ("bag", "seed", "draws")}
    later["start"] = start
    if not game.scrabble_sheet:
        later["draws"] = [r.draw["notation"] for r in records[k:]]
    whole = json.loads(replay_game(data, bulletins, config=config).to_json())
    part = json.loads(replay_game(later, bulletins, config=config).to_json())
    for mine, theirs in zip(part["rounds"], whole["rounds"][k:], strict=True):
        if "rejected" in theirs:  # the plain report lists the rejected racks
            assert bool(mine.pop("rejected")) == bool(theirs.pop("rejected"))
        assert mine == theirs


def test_a_start_position_is_checked_in_french() -> None:
    base = {"settings": {"rounds": 2}, "players": ["ana"]}
    with pytest.raises(DuplicateError, match="ni bag ni seed"):
        replay_game({**base, "seed": 7, "start": {"bag": "AB"}}, config=GameConfig.default("fr"))
    with pytest.raises(DuplicateError, match="clés inconnues dans start : sac"):
        replay_game({**base, "start": {"sac": "AB"}}, config=GameConfig.default("fr"))
    with pytest.raises(DuplicateError, match="start.round est un entier"):
        replay_game({**base, "start": {"bag": "AB", "round": 0}},
                    config=GameConfig.default("fr"))
    # the grid's tiles, the letters kept and the bag are one tile set: a 10th Z is refused
    with pytest.raises(DuplicateError, match="« Z »"):
        replay_game({**base, "start": {"bag": "ZZ", "grid": "15/15/15/15/15/15/15/7Z7/"
                                                           "15/15/15/15/15/15/15"}},
                    config=GameConfig.default("fr"))
