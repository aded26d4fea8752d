"""Problems: the JSON file form, deadlines with their IANA zone, consistency checks, and the
generator — every game type drawn legally, reproducibly, with the conditions that need a
lexicon (rangée opening G9, scrabble-sec groups, Superscrabble board) checked independently."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from puzzles.generate import AnagramIndex, new_problem, rangee_opening_predicate
from puzzles.problem import (
    GameType,
    LexiconRef,
    Problem,
    ProblemError,
    format_deadline,
    load_problem,
    parse_deadline,
)
from puzzles.settings import Settings
from scoring import movegen
from scoring.board import Board
from scoring.config import GameConfig
from scoring.lexicon import Lexicon
from scoring.tiles import tileset
from tests.puzzles.conftest import anticipation_problem, lex


def test_deadline_keeps_its_zone() -> None:
    d = parse_deadline("2000-05-12T19:00:00+03:00[Europe/Bucharest]")
    assert d == datetime(2000, 5, 12, 19, 0, tzinfo=ZoneInfo("Europe/Bucharest"))
    assert format_deadline(d) == "2000-05-12T19:00:00+03:00[Europe/Bucharest]"
    winter = parse_deadline("2000-01-12T19:00[Europe/Bucharest]")
    assert winter.isoformat() == "2000-01-12T19:00:00+02:00"
    with pytest.raises(ProblemError, match="décalage"):
        parse_deadline("2000-05-12T19:00:00+01:00[Europe/Bucharest]")
    with pytest.raises(ProblemError, match="Fuseau"):
        parse_deadline("2000-05-12T19:00:00[Mars/Olympus]")


def test_problem_file_round_trip(tmp_path: Path) -> None:
    p = Problem(
        id="frsc-2000-05", game=GameType.INTEGRAL_PARTIEL, lang="fr", title="Partiel",
        lexicon=LexiconRef("fr-comprehensive", "ab" * 32, 405840), time_limit_minutes=60,
        deadline=parse_deadline("2000-05-12T19:00:00+03:00[Europe/Bucharest]"),
        stock="AAEEIILNORSTU?BCDMP",
    )
    path = tmp_path / "p.json"
    path.write_text(p.to_json(), "utf-8")
    with pytest.raises(ProblemError, match="21 à 35"):
        load_problem(path)  # 19 letters: check() refuses it
    ok = Problem.from_json(p.to_json().replace("BCDMP", "BCDMPRST"))
    path.write_text(ok.to_json(), "utf-8")
    assert load_problem(path) == ok


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "Ligne 1"),
        ('{"id": "x"}', "type"),
        ('{"id": "x", "type": "belote"}', "inconnu"),
        ('{"type": "integral"}', "id"),
    ],
)
def test_bad_problem_files_say_why(text: str, message: str) -> None:
    with pytest.raises(ProblemError, match=message):
        Problem.from_json(text)


def test_check_finds_letters_outside_the_bag() -> None:
    p = Problem(id="x", game=GameType.INTEGRAL_PARTIEL, lang="ro", stock="K" + "A" * 22)
    assert any("K" in e for e in p.check())
    q = Problem(id="x", game=GameType.INTEGRAL_PARTIEL, stock="Z" * 2 + "A" * 20)
    assert any("Z×1" in e for e in q.check())


# --- the generator ------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["fr", "ro"])
@pytest.mark.parametrize("game", list(GameType))
def test_every_game_type_draws_a_consistent_problem(
    game: GameType, lang: str, french: Lexicon
) -> None:
    p = new_problem(game, seed=11, lang=lang, lexicon=french)
    assert p.check() == []
    assert Problem.from_json(p.to_json()) == p
    assert new_problem(game, seed=11, lang=lang, lexicon=french) == p
    assert p.lexicon == LexiconRef(french.identity.name, french.identity.sha256,
                                   french.identity.word_count)


def test_seeds_differ() -> None:
    a = new_problem(GameType.ANTICIPATION, seed=1)
    b = new_problem(GameType.ANTICIPATION, seed=2)
    assert a.groups != b.groups


@pytest.mark.parametrize("seed", range(20))
def test_partiel_and_rangee_sizes_and_times(seed: int) -> None:
    partiel = new_problem(GameType.INTEGRAL_PARTIEL, seed=seed)
    n = len(partiel.stock)
    assert 21 <= n <= 35
    assert partiel.time_limit_minutes == (60 if n <= 25 else 75 if n <= 30 else 90)
    rangee = new_problem(GameType.RANGEE, seed=seed, opening_predicate=lambda row: True)
    m = len(rangee.row)
    assert 31 <= m <= 45
    assert rangee.time_limit_minutes == (60 if m <= 35 else 75 if m <= 40 else 90)


def test_rangee_opening_condition_is_redrawn_until_it_holds() -> None:
    # A one-word list: the row must start with letters that rearrange into ET (or E?/?T/??).
    words = lex("ET")
    ok = rangee_opening_predicate(words)
    assert ok("TEXXXXX") and ok("?EXXXXX") and not ok("XT?")
    assert ok("TE") and ok("T?") and not ok("XX") and not ok("EXT")
    p = new_problem(GameType.RANGEE, seed=5, lexicon=words)
    first_two = Counter(p.row[:2])
    assert first_two in (Counter("ET"), Counter("E?"), Counter("T?"), Counter("??"))


def test_anagram_index_with_jokers() -> None:
    idx = AnagramIndex(["LEVERAI", "ET"])
    assert idx.has_anagram("AEILRVE")
    assert idx.has_anagram("AEI?RVE")
    assert idx.has_anagram("??")
    assert not idx.has_anagram("AEILRVS")


@pytest.mark.parametrize("lang", ["fr", "ro"])
@pytest.mark.parametrize("seed", range(5))
def test_anticipation_groups(lang: str, seed: int) -> None:
    p = new_problem(GameType.ANTICIPATION, seed=seed, lang=lang)
    ts = tileset(lang)
    assert Counter("".join(p.groups)) == ts.bag()
    assert len(p.groups[0]) == (2 if lang == "ro" else 4)
    assert sorted(p.order) == list(range(2, 16))
    first = p.groups[0]
    if lang == "ro":
        assert sum(ts.is_vowel(c) for c in first) == 1  # one vowel + one consonant
    else:
        assert ts.draw_meets_minimum(first, 1)  # G7


def test_avocalique_announces_consonants_and_pools_the_rest() -> None:
    p = new_problem(GameType.ANTICIPATION_AVOCALIQUE, seed=3)
    ts = tileset("fr")
    assert all(not ts.is_vowel(c) and c not in "Y?" for c in "".join(p.groups))
    assert Counter("".join(p.groups)) + Counter(p.pool) == ts.bag()
    assert len(p.groups[0]) == 2  # RULES §6.2: group 1 has two consonants
    assert p.group_sizes == (4,) + (7,) * 14
    ro = new_problem(GameType.ANTICIPATION_AVOCALIQUE, seed=3, lang="ro")
    assert len(ro.groups[0]) == 1 and ro.groups[0] not in ("G", "J")


def test_exclusif_groups_each_allow_a_scrabble_sec(french: Lexicon) -> None:
    p = new_problem(GameType.EXCLUSIF_FOND, seed=4, lexicon=french)
    idx = AnagramIndex(french)
    assert Counter("".join(p.groups)) == tileset("fr").bag()
    for g in p.groups[1:]:
        assert len(g) == 7 and idx.has_anagram(g), g


def test_superscrabble_board_is_legal_and_letters_fit_the_bag(french: Lexicon) -> None:
    p = new_problem(GameType.SUPERSCRABBLE, seed=9, lexicon=french)
    board = Board.from_cgp(p.board)
    assert board.tile_count >= 5 and board[112]  # built over the centre
    cfg = GameConfig(lexicon=french)
    # every run of 2+ letters, across and down, is a word of the list
    for b in (board, board.transpose()):
        for r in range(15):
            row = "".join(b.at(r, c) or " " for c in range(15))
            for w in row.split():
                if len(w) > 1:
                    assert w.upper() in cfg.lexicon, w  # type: ignore[operator]
    assert p.check() == []
    assert len(p.rack) == 7
    assert movegen.count(board, p.rack, cfg).scrabbles >= 1  # never an empty problem


def test_incomplet_construction_stock_is_the_bag_minus_the_rack() -> None:
    p = new_problem(GameType.SUPERSCRABBLE_INCOMPLET, seed=2)
    assert p.construction_stock() + Counter(p.rack) == tileset("fr").bag()  # G12


def test_n_scrabble_imposed_order_and_series() -> None:
    p = new_problem(GameType.N_SCRABBLE, seed=1, n_groups=5, imposed_order=True)
    assert len(p.groups) == 5 and sorted(p.order) == [1, 2, 3, 4, 5]
    free = new_problem(GameType.N_SCRABBLE, seed=1, n_groups=5)
    assert free.order == ()
    serie = new_problem(GameType.SERIE_MAXIMAUX_CONSONNES, seed=1)
    assert len(serie.groups) == 7
    assert Counter("".join(serie.groups)) + Counter(serie.pool) == tileset("fr").bag()


def test_generators_that_need_a_lexicon_say_so() -> None:
    with pytest.raises(ValueError, match="lexique"):
        new_problem(GameType.SUPERSCRABBLE, seed=1)


def test_settings_defaults_and_unknown_keys() -> None:
    s = Settings()
    assert (s.first_move_horizontal, s.anticipation_pass_allowed,
            s.rangee_word_error_breaks_sequence) == (False, True, False)
    assert [s.points_penalty(w) for w in range(3, 8)] == [0, 5, 10, 15, 20]
    assert [s.ranking_penalty(w) for w in (3, 4, 6, 7, 9, 10)] == [0, 1, 1, 2, 2, 3]
    assert Settings.from_dict(s.to_dict()) == s
    with pytest.raises(ValueError, match="inconnu"):
        Settings.from_dict({"premier_coup": True})
    # RULES §5.2 steps 5-6: no cumul warning, no relocation unless the arbitre asks
    assert (s.cumul_warning, s.ref_mismatch_relocate, s.warning_penalty_from) == (
        False, False, None
    )
    # G6: the problem's conversion unless a number overrides it
    assert (s.penalty_from(), s.penalty_from(6), Settings(warning_penalty_from=4).penalty_from(6)) \
        == (4, 6, 4)
    assert [s.points_penalty(w, 6) for w in (5, 6, 7)] == [0, 5, 10]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"cumul_warning": "oui"}, "cumul_warning : vrai ou faux, reçu 'oui'"),
        ({"warning_penalty_from": 0}, "warning_penalty_from : un entier ≥ 1 ou null, reçu 0"),
        ({"warning_penalty_points": "5"}, "warning_penalty_points : un nombre entier, reçu '5'"),
        ({"cumul_check": "vrai"}, "cumul_check : une des valeurs arithmetic, true, reçu 'vrai'"),
    ],
)
def test_settings_of_the_wrong_type_are_refused_in_french(
    data: dict[str, object], message: str
) -> None:
    with pytest.raises(ValueError) as exc:
        Settings.from_dict(data)
    assert str(exc.value) == f"Réglage(s) invalide(s) : {message}."


@pytest.mark.parametrize(
    ("game", "group1", "error"),
    [
        (GameType.ANTICIPATION, "AR", None),
        (GameType.ANTICIPATION, "AE", "Anticipation roumaine : le groupe 1 doit avoir une "
                                      "voyelle et une consonne (reçu « AE »)."),
        (GameType.ANTICIPATION, "RT", "Anticipation roumaine : le groupe 1 doit avoir une "
                                      "voyelle et une consonne (reçu « RT »)."),
        (GameType.ANTICIPATION, "A?", "Anticipation roumaine : le groupe 1 doit avoir une "
                                      "voyelle et une consonne (reçu « A? »)."),
        (GameType.EXCLUSIF_FOND, "UR", None),
        (GameType.ANTICIPATION_AVOCALIQUE, "R", None),
        (GameType.ANTICIPATION_AVOCALIQUE, "G", "Anticipation avocalique roumaine : la consonne "
                                               "du groupe 1 ne peut pas être G ni J (reçu « G »)."),
        (GameType.ANTICIPATION_AVOCALIQUE, "J", "Anticipation avocalique roumaine : la consonne "
                                               "du groupe 1 ne peut pas être G ni J (reçu « J »)."),
        (GameType.ANTICIPATION_AVOCALIQUE, "RT", "Anticipation avocalique roumaine : le groupe 1 "
                                                "annonce une seule consonne (reçu « RT »)."),
    ],
)
def test_romanian_group_one_is_checked_in_the_problem_file(
    tmp_path: Path, game: GameType, group1: str, error: str | None
) -> None:
    """RULES §6.1 [E7]: in Romanian « group 1 has 2 letters — one vowel and one consonant »;
    §6.2: in avocalique « a consonant other than G or J ». A problem file that breaks it is
    refused by load_problem, not only avoided by the generator."""
    if game is GameType.ANTICIPATION_AVOCALIQUE:
        bad = Problem(id="x", game=game, lang="ro", groups=(group1,) + ("",) * 14,
                      group_sizes=(2,) + (7,) * 14, pool="AEIOU", order=tuple(range(2, 16)))
    else:
        # the other 14 groups are the rest of the Romanian bag: only group 1 can be wrong
        bad = anticipation_problem({1: group1}, game=game, lang="ro")
    errors = [e for e in bad.check() if "groupe 1" in e]
    assert errors == ([error] if error else [])
    if error is None:
        assert bad.check() == []
    if error:
        path = tmp_path / "p.json"
        path.write_text(bad.to_json(), "utf-8")
        with pytest.raises(ProblemError, match="groupe 1"):
            load_problem(path)


def test_exclusif_with_a_list_too_small_fails_with_a_french_message() -> None:
    with pytest.raises(ValueError, match="lexique ne permet pas"):
        new_problem(GameType.EXCLUSIF_FOND, seed=1, lexicon=lex("ET", "LEVERAI"))
