"""Every round game driven through the one protocol (:class:`puzzles.duplicate.protocol
.RoundGame`, issue 21) over a whole small game, pinned on the server's golden snapshots
(``tests/data/snapshots/server/<game>.json``, recorded by tests/web/test_round_snapshots.py
before the protocol existed): the pure protocol alone — no server, no database — gives the
same stored draw, master state, grid and top of every round, the same parsed bulletins and
parse errors, the same results of every player, the arbitre's same other top, the same
final state and the same ranking. The games, word lists and bags are those of that file."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

import pytest

from puzzles.duplicate.codecs import AnyBulletinJSON, ResultJSON
from puzzles.duplicate.protocol import (
    DrawnRound,
    Finished,
    GameSettings,
    PlayerBulletin,
    RoundRecord,
    SuperscrabbleSpec,
)
from puzzles.duplicate.registry import ROUND_GAMES, round_game
from puzzles.duplicate.settings import DuplicateError
from scoring.config import GameConfig
from scoring.lexicon import Lexicon
from scoring.tiles import tileset
from tests.snapshots import SNAPSHOTS

SERVER = SNAPSHOTS / "server"
FIRST, SECOND_NEW = "ZAEIBCD", "SE"  # tests/web/za_game.py


def _bag(first: str) -> str:
    rest = tileset("fr").bag() - Counter(first)
    return first + "".join(sorted(rest.elements()))


@dataclass(frozen=True)
class Game:
    variant: str
    words: tuple[str, ...]
    bag: str
    #: round → (ref, word) of the arbitre's other top (actor « arbitre »)
    overrides: dict[int, tuple[str, str]]


_SS = ("LA", "ENTRAILS", "ANTISERA", "STAINERS")
GAMES: dict[str, Game] = {
    "duplicate": Game("", ("ZA", "ZAS"), _bag(FIRST + SECOND_NEW), {}),
    "top": Game("top", ("ZA", "ZAS", "BE"), _bag("ZAEIBCDSEAS"), {}),
    "completif": Game("completif", ("ZA", "ZAS", "SAC"), _bag("ZEIBCDSSEC"), {}),
    "superjoker": Game("superjoker", ("ZA", "ZAS"), _bag("ZEIBC"), {}),
    "metagramme": Game("metagramme", ("ZA", "ZAS"), _bag("ZEIBCDS"), {}),
    "elliptique": Game("elliptique", ("ENTRAILS", "ENTRAIS", "ZA"), _bag("ENTRAILSZAEIBCD"),
                       {}),
    "tactique": Game("tactique", ("ZA", "ZAS", "AS"), _bag("ZAEIBCDSEOUFGHAAA"), {}),
    "superscrabble": Game("superscrabble", _SS, _bag(""), {}),
    "duplicate_override": Game("", ("ZA", "ZAS"), _bag(FIRST + SECOND_NEW), {1: ("H8", "ZA")}),
    "metagramme_override": Game("metagramme", ("ZA", "ZAS"), _bag("ZEIBCDS"),
                                {1: ("H7", "ZAS -E +A")}),
    "tactique_override": Game("tactique", ("ZA", "ZAS", "AS"), _bag("ZAEIBCDSEOUFGHAAA"),
                              {1: ("H8 + H8", "ZA + ZAS")}),
    "superscrabble_override": Game("superscrabble", _SS[:3], _bag(""), {1: ("7B", "ENTRAILS")}),
}
PLAYERS = ("Ana", "Bob", "Cid", "Dan")  # player ids 1 to 4


def _first_line(text: str) -> str:
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "")


def _counting(entries: list[dict[str, Any]], number: int) -> dict[str, dict[str, Any]]:
    """Per player name, the last version received on time of round ``number``."""
    out: dict[str, dict[str, Any]] = {}
    for e in sorted((e for e in entries if e["round"] == number),
                    key=lambda e: (e["player"], e["version"])):
        if not e["late"]:
            out[e["player"]] = e
    return out


def _server_result(r: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in r.items() if k not in ("player_id", "name", "entry_id")}


def _server_row(r: dict[str, Any]) -> dict[str, Any]:
    row = {k: v for k, v in r.items() if k not in ("player_id", "name", "club", "tied")}
    return {"player": str(r["player_id"]), **row}


def _play(name: str) -> None:
    spec = GAMES[name]
    snap = json.loads((SERVER / f"{name}.json").read_text("utf-8"))
    game = round_game(spec.variant)
    config = GameConfig(tileset=tileset("fr"), lexicon=Lexicon.from_words(spec.words))
    settings = GameSettings.from_stored(spec.variant, snap["settings"])
    # the settings the server stores are what the game prepares from the console's
    built = GameSettings.build(spec.variant, settings.variant or settings.duplicate,
                               settings.superscrabble)
    assert game.prepare(built, config).to_stored() == snap["settings"]
    state = game.initial(settings, spec.bag, config)
    records: list[RoundRecord] = []
    for stored in snap["rounds"]:
        number = stored["number"]
        drawn = game.draw(state, settings, config, number)
        assert isinstance(drawn, DrawnRound)
        assert drawn.draw == stored["draw"]
        assert drawn.state_before == stored["state_before"]
        assert drawn.grid_before == stored["grid_before"]
        record = RoundRecord(number, drawn.draw, drawn.state_before, drawn.grid_before,
                             drawn.top)
        if number in spec.overrides:
            assert stored["top_overridden_by"] == "arbitre"
            ref, word = spec.overrides[number]
            top = game.other_top(record, ref, word, settings, config, actor="arbitre",
                                 reason="choix de l'arbitre")
            assert top == stored["top"]
            record = RoundRecord(number, drawn.draw, drawn.state_before, drawn.grid_before,
                                 top)
        else:
            assert drawn.top == stored["top"]
        # every version parsed as the server parsed it
        for e in snap["entries"]:
            if e["round"] != number:
                continue
            parsed = game.parse(_first_line(e["raw_text"]))
            if e["bulletin"] is None:
                assert parsed == e["parse_errors"]
            else:
                assert parsed == e["bulletin"] and e["parse_errors"] == []
        counting = _counting(snap["entries"], number)
        bulletins = []
        for pid, who in enumerate(PLAYERS, 1):
            e = counting.get(who)
            bulletins.append(PlayerBulletin(str(pid)) if e is None else PlayerBulletin(
                str(pid), cast(AnyBulletinJSON | None, e["bulletin"]),
                _first_line(e["raw_text"]), tuple(e["parse_errors"]),
                datetime.fromisoformat(e["received_at"])))
        results = game.correct(record, bulletins, settings, config, len(PLAYERS))
        assert results == [_server_result(r) for r in stored["results"]]
        state, grid = game.apply(record, settings, config)
        assert grid == stored["grid_after"]
        records.append(RoundRecord(number, record.draw, record.state_before,
                                   record.grid_before, record.top, grid,
                                   {str(r["player_id"]): cast(ResultJSON, _server_result(r))
                                    for r in stored["results"]}))
    end = game.draw(state, settings, config, len(records) + 1)
    assert isinstance(end, Finished) and end.state_text == snap["state_text"]
    rows = game.rank(records, settings)
    expected = sorted((_server_row(r) for r in snap["standings"]),
                      key=lambda r: (r["rank"], r["player"]))
    assert [dict(r) for r in rows] == expected


@pytest.mark.parametrize("name", list(GAMES))
def test_protocol_replays_the_server_game(name: str) -> None:
    _play(name)


def test_every_server_variant_has_a_game_and_a_snapshot() -> None:
    assert set(ROUND_GAMES) == {"", "top", "completif", "superjoker", "metagramme",
                                "elliptique", "tactique", "superscrabble"}
    assert {g.variant for g in GAMES.values()} == set(ROUND_GAMES)


def test_facts_the_pages_branch_on() -> None:
    """The facts as the pages, notices and console branch on them today (services/duplicate,
    templates/duplicate/*.html): the stock shown for the three games whose players choose
    from it (the Elliptique stores it but its players take nothing from it), 6 live minutes
    for the Tactique only, solos shown but for the Top and the Superscrabble."""
    shows = {k for k, g in ROUND_GAMES.items() if g.shows_stock}
    assert shows == {"completif", "superjoker", "metagramme"}
    assert {k for k, g in ROUND_GAMES.items() if g.names_letters} == {
        "completif", "superjoker", "metagramme", "elliptique"}
    assert {k: g.live_minutes for k, g in ROUND_GAMES.items() if g.live_minutes != 3} == {
        "tactique": 6}
    assert {k for k, g in ROUND_GAMES.items() if not g.has_solos} == {"top", "superscrabble"}
    assert [k for k, g in ROUND_GAMES.items() if g.ranked_by_tops] == ["top"]
    assert {k: g.label for k, g in ROUND_GAMES.items()} == {
        "": "Duplicate", "top": "Duplicate Top", "completif": "Duplicate Complétif",
        "superjoker": "Duplicate Superjoker", "metagramme": "Duplicate Métagramme",
        "elliptique": "Duplicate Elliptique", "tactique": "Duplicate Tactique",
        "superscrabble": "Partie de Superscrabble"}
    assert ROUND_GAMES["superscrabble"].bulletin_example == "H4 RESTAIT, 8C RESTAIT ; 2"
    assert ROUND_GAMES["elliptique"].bulletin_example == "H4 RESTAIt 70"
    assert ROUND_GAMES[""].rules_fr is None


def test_unknown_game_is_refused_in_french() -> None:
    with pytest.raises(DuplicateError, match="Variante « scrabblette » inconnue"):
        round_game("scrabblette")


def test_superscrabble_start_refused_in_french() -> None:
    game = round_game("superscrabble")
    config = GameConfig(tileset=tileset("fr"), lexicon=Lexicon.from_words(_SS))
    settings = GameSettings.build("superscrabble", GameSettings("").duplicate,
                                  SuperscrabbleSpec("H1 LA", ("RETAINS",)))
    with pytest.raises(DuplicateError, match="couvre la case centrale"):
        game.prepare(settings, config)


def test_the_letter_choice_games_are_one_class_with_their_letters() -> None:
    """Complétif, Superjoker, Métagramme and Elliptique are one game class, parameterised
    (the Elliptique's « 7 among 8 » is ``max_tiles``); a settings' letters are its game's
    (``letters_of``), the Top's and the Tactique's the seven drawn alone."""
    from puzzles.duplicate.games.free import FREE_GAMES, FreeGame, FreeLetters, letters_of
    from puzzles.duplicate.settings import VariantSettings

    assert {k: g.letters for k, g in FREE_GAMES.items()} == {
        "completif": FreeLetters(drawn=6, free=1), "superjoker": FreeLetters(drawn=5, free=2),
        "metagramme": FreeLetters(drawn=7, swap=True),
        "elliptique": FreeLetters(drawn=8, max_tiles=7)}
    for key, game in FREE_GAMES.items():
        assert type(game) is FreeGame and ROUND_GAMES[key] is game
        assert letters_of(VariantSettings(variant=key)) is game.letters
    for key in ("top", "tactique"):
        assert letters_of(VariantSettings(variant=key)) == FreeLetters(drawn=7)
    assert FREE_GAMES["elliptique"].letters.too_many(8)
    assert not FREE_GAMES["elliptique"].letters.too_many(7)


def test_one_verdict_vocabulary() -> None:
    """The sheet verifier's and the round games' verdicts are one type, each side keeping
    the word it stores and prints (« zéro » / « nul »)."""
    from typing import get_args

    from puzzles.verdicts import MoveStatus, VerdictKind, scores_nothing

    codes = {s: s.round_code for s in MoveStatus if s.round_code}
    assert {str(s): c for s, c in codes.items()} == {
        "valide": "valide", "avertissement": "avertissement", "pénalité": "penalite5",
        "zéro": "nul", "non joué": "absent"}
    assert set(codes.values()) == set(get_args(VerdictKind))
    assert all(MoveStatus.of_round(c) is s for s, c in codes.items())
    assert [c for c in codes.values() if scores_nothing(c)] == ["nul", "absent"]


def test_the_registry_gathers_every_game_module_in_its_listed_place() -> None:
    """A new round game is its module of puzzles/duplicate/games alone (docs/VARIANTS.md's
    recipe): the registry finds each module's ``GAMES`` and lists them by ``LISTED``, in
    the order the replay's refusal has always named them."""
    import importlib
    import pkgutil

    from puzzles.duplicate import games

    modules = [importlib.import_module(f"puzzles.duplicate.games.{m.name}")
               for m in pkgutil.iter_modules(games.__path__)]
    declared = [g.key for m in sorted((m for m in modules if hasattr(m, "GAMES")),
                                      key=lambda m: m.LISTED) for g in m.GAMES]
    assert declared == list(ROUND_GAMES) == [
        "", "tactique", "top", "completif", "superjoker", "metagramme", "elliptique",
        "superscrabble"]
    assert sorted(m.LISTED for m in modules if hasattr(m, "GAMES")) == [1, 2, 3, 4, 5]
