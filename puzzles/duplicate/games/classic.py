"""The plain FISF Duplicate as a :class:`~puzzles.duplicate.protocol.RoundGame`
(:class:`ClassicGame`): a 7-letter draw (:func:`~puzzles.duplicate.draw_round`), the FISF top
(:func:`~puzzles.duplicate.find_top`), the Duplicate bulletin and correction with solos
(:func:`~puzzles.duplicate.correct_all`), the top placed (:func:`~puzzles.duplicate.apply_top`),
the ranking by total (:func:`~puzzles.duplicate.rank_game`). The other one-word games
(:mod:`.top`, :mod:`.free`) subclass it and change what differs."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any, TypeVar, cast

from puzzles.duplicate.bulletins import Bulletin, parse_bulletin
from puzzles.duplicate.correction import Verdict
from puzzles.duplicate.gamefile import initial_state
from puzzles.duplicate.protocol import (
    DrawnRound,
    Finished,
    GameSettings,
    Loaded,
    PlayerBulletin,
    ReplayReport,
    RoundRecord,
    StandingJSON,
    StartPosition,
)
from puzzles.duplicate.ranking import RoundResult, correct_all, rank_game
from puzzles.duplicate.records import (
    AnyBulletinJSON,
    BulletinJSON,
    DrawJSON,
    ResultJSON,
    RoundDrawJSON,
    RoundTopJSON,
    TopJSON,
    bulletin_dict,
    bulletin_line,
    bulletin_of,
    draw_dict,
    draw_of,
    move_dict,
    result_dict,
    solutions_of,
    top_dict,
    top_of,
    verdict_of,
)
from puzzles.duplicate.report import ReplayResult, VariantReplay, VariantRound
from puzzles.duplicate.settings import RACK_SIZE, DuplicateError, DuplicateSettings, VariantSettings
from puzzles.duplicate.state import Draw, GameState, check_tiles, draw_listed, draw_round
from puzzles.duplicate.top import TopChoice, apply_top, find_top
from scoring.board import Board
from scoring.config import GameConfig
from scoring.errors import EngineError
from scoring.movegen import GeneratedMove, generate
from scoring.notation import parse_ref
from scoring.tiles import tileset


def legal_move(state: GameState, rack: str, config: GameConfig, ref: str,
               word: str) -> GeneratedMove:
    """The legal move of this round written ``ref word`` (a joker in lower case); French
    :class:`DuplicateError` when there is none."""
    try:
        wanted = parse_ref(ref.strip())
    except Exception:
        raise DuplicateError(f"Référence illisible : « {ref} ».") from None
    word = word.strip()
    moves = [m for m in generate(state.board, rack, config) if m.ref == wanted]
    exact = [m for m in moves if m.word == word]
    folded = [m for m in moves if m.word.upper() == word.upper()]
    found = exact or (folded if len(folded) == 1 else [])
    if not found:
        raise DuplicateError(f"« {ref.strip()} {word} » n'est pas un coup jouable avec le "
                             f"tirage {rack} sur cette grille.")
    return found[0]


T = TypeVar("T")


def stored_or_line(pb: PlayerBulletin,
                   read: Callable[[BulletinJSON, str, datetime | None], T]) -> T | str | None:
    """What a one-word game's correction reads of a player's bulletin: the stored bulletin
    (``read``), the line received (read again for its errors), or None (absent)."""
    if pb.absent:
        return None
    if pb.bulletin is None:
        return pb.text or ""
    return read(cast(BulletinJSON, pb.bulletin), pb.player, pb.received_at)


def arbitre_top(move: GeneratedMove, actor: str, reason: str,
                letters: tuple[str, str] | None = None) -> TopJSON:
    """The arbitre's top as stored: the move, its letters (chosen, swapped) in a
    letter-choice game, the reason naming him."""
    m = move_dict(move)
    why = f"Top choisi par l'arbitre ({actor}) : {reason.strip()}"
    if letters is None:
        return {"ref": m["ref"], "word": m["word"], "score": m["score"], "move": m["move"],
                "ties": [], "reason": why}
    return {"ref": m["ref"], "word": m["word"], "score": m["score"], "move": m["move"],
            "ties": [], "chosen": letters[0], "swapped": letters[1], "reason": why}


class ClassicGame:
    """The plain FISF Duplicate (docs/DUPLICATE.md)."""

    key = ""
    label = "Duplicate"
    rules_page = "duplicate"
    rules_fr: str | None = None
    bulletin_example = "H4 RESTAIt 70"
    live_minutes = 3
    shows_stock = False
    free_letters = False
    names_letters = False
    ranked_by_tops = False
    has_solos = True
    total_label = "Votre total"
    result_unit = "points"
    scrabble_sheet = False
    two_words = False
    other_top_recorrects = True
    form_settings = False

    # --- setting up ----------------------------------------------------------------------
    def prepare(self, settings: GameSettings, config: GameConfig) -> GameSettings:
        return settings

    def initial(self, settings: GameSettings, bag: str, config: GameConfig) -> str:
        return GameState.initial(settings.duplicate, bag).to_text()

    # --- a round ---------------------------------------------------------------------------
    def draw_from(self, state: GameState, settings: GameSettings,
                  config: GameConfig) -> tuple[Draw | None, GameState]:
        """The arbitre's draw from the master state (the state in play after it)."""
        return draw_round(state, settings.duplicate, config=config)

    def top_of_round(self, state: GameState, draw: Draw, settings: GameSettings,
                     config: GameConfig, round_no: int) -> TopJSON | None:
        """The round's top as stored, None when nothing can be played."""
        top = find_top(state, draw.rack, config, round_no=round_no, settings=settings.duplicate)
        return None if top is None else top_dict(top)

    def draw_json(self, draw: Draw, state: GameState) -> DrawJSON:
        return draw_dict(draw)

    def draw_given(self, state: GameState, settings: GameSettings,
                   notation: str) -> tuple[Draw, GameState]:
        """A draw listed as a game record writes it (:func:`~puzzles.duplicate.draw_listed`)."""
        return draw_listed(state, settings.duplicate, notation, rack_size=self.rack_size)

    def draw(self, state_text: str, settings: GameSettings, config: GameConfig,
             round_no: int, *, listed: str | None = None) -> DrawnRound | Finished:
        state = GameState.from_text(state_text)
        drawn: Draw | None
        if listed is None:
            drawn, state = self.draw_from(state, settings, config)
        else:
            drawn, state = self.draw_given(state, settings, listed)
        if drawn is None:
            return Finished(state.to_text(), state.end_reason)
        top = self.top_of_round(state, drawn, settings, config, round_no)
        if top is None:  # the server keeps the drawn state; the replay says why it ends
            return Finished(state.to_text(),
                            f"Aucun mot ne peut être joué avec le tirage {drawn.rack}.")
        return DrawnRound(self.draw_json(drawn, state), state.to_text(), state.board_cgp, top)

    def finish(self, state_text: str, reason: str) -> str:
        state = GameState.from_text(state_text)
        return replace(state, finished=True, end_reason=reason).to_text()

    def parse(self, text: str, *, player: str = "") -> AnyBulletinJSON | list[str]:
        parsed = parse_bulletin(text, player=player)
        return parsed if isinstance(parsed, list) else bulletin_dict(parsed)

    def sheet_of(self, pb: PlayerBulletin) -> Bulletin | str | None:
        return stored_or_line(pb, bulletin_of)

    def verdicts(self, round: RoundRecord, bulletins: Sequence[PlayerBulletin],
                 settings: GameSettings, config: GameConfig,
                 n_players: int) -> list[Verdict]:
        state = GameState.from_text(round.state_before)
        sheets = {pb.player: self.sheet_of(pb) for pb in bulletins}
        return correct_all(state, round.draw["rack"], sheets, config, round_no=round.number,
                           top_score=int(round.top["score"]), settings=settings.duplicate,
                           n_players=n_players)

    def correct(self, round: RoundRecord, bulletins: Sequence[PlayerBulletin],
                settings: GameSettings, config: GameConfig,
                n_players: int) -> list[ResultJSON]:
        by_player = {v.player: v for v in self.verdicts(round, bulletins, settings, config,
                                                         n_players)}
        return [result_dict(by_player[pb.player]) for pb in bulletins]

    def other_top(self, round: RoundRecord, ref: str, word: str, settings: GameSettings,
                  config: GameConfig, *, actor: str, reason: str) -> RoundTopJSON:
        if not reason.strip():
            raise DuplicateError("Indiquez le motif du changement de top.")
        state = GameState.from_text(round.state_before)
        return arbitre_top(legal_move(state, round.draw["rack"], config, ref, word), actor,
                           reason)

    def apply(self, round: RoundRecord, settings: GameSettings,
              config: GameConfig) -> tuple[str, str]:
        state = apply_top(GameState.from_text(round.state_before),
                          draw_of(cast(DrawJSON, round.draw)),
                          top_of(cast(TopJSON, round.top)))
        return state.to_text(), state.board_cgp

    def rank(self, rounds: Sequence[RoundRecord], settings: GameSettings) -> list[StandingJSON]:
        results = [RoundResult(round_no=r.number, draw=self.round_draw(r),
                               top=self.round_top(r), board_cgp=r.grid_after,
                               verdicts=tuple(verdict_of(x, p) for p, x in r.results.items()))
                   for r in rounds]
        rows: list[StandingJSON] = []
        for row in rank_game(results, settings.duplicate):
            rows.append({
                "player": row.player, "rank": row.rank, "total": row.total,
                "percent": round(row.percent_of_tops, 2), "warnings": row.warnings,
                "warning_deduction": row.warning_deduction, "solos": row.solos,
                "scores": [_score(r.results.get(row.player), solo=True) for r in rounds],
            })
        return rows

    def round_draw(self, r: RoundRecord) -> Draw:
        return draw_of(cast(DrawJSON, r.draw))

    def round_top(self, r: RoundRecord) -> TopChoice:
        return top_of(cast(TopJSON, r.top))

    def choose(self, round: RoundRecord, text: str, settings: GameSettings,
               config: GameConfig) -> RoundTopJSON:
        raise DuplicateError(f"{self.label} : la partie ne nomme pas de choix de l'arbitre.")

    # --- the replay: GAME.json, positions, report -------------------------------------------
    #: the keys of this game's GAME.json (docs/DUPLICATE.md)
    game_keys = frozenset({"settings", "bag", "seed", "draws", "players", "n_players",
                           "lexicon", "title", "start"})
    #: the most tiles one draw holds (the letter-choice games draw more or fewer)
    rack_size = RACK_SIZE
    #: ``draws``' example in its French refusal
    draws_example = "« RU+ZXTEU »"
    #: a ``bag`` may be a list of tiles, ``draws`` may be empty (the plain Duplicate's
    #: GAME.json, since its first version)
    lenient_bag = True

    def read_settings(self, raw: Mapping[str, Any]) -> GameSettings:
        """The GAME.json's ``settings``."""
        return GameSettings(self.key, DuplicateSettings.from_json(raw))

    def load(self, data: Mapping[str, object], config: GameConfig | None) -> Loaded:
        unknown = sorted(set(data) - self.game_keys)
        if unknown:
            raise DuplicateError(f"Partie : clés inconnues {', '.join(unknown)}.")
        settings = self.read_settings(cast(Mapping[str, Any], data.get("settings") or {}))
        n = data.get("n_players")
        if "start" in data:
            return self.load_start(data, settings, n)
        state, draws = initial_state(settings.duplicate, cast(Mapping[str, Any], data),
                                     draws_example=self.draws_example,
                                     bag_as_list=self.lenient_bag,
                                     empty_draws=self.lenient_bag)
        return Loaded(settings, self.start_text(state), None if draws is None else tuple(draws),
                      int(cast(int, n)) if n else None)

    def load_start(self, data: Mapping[str, object], settings: GameSettings,
                   n: object) -> Loaded:
        """A GAME.json that starts from a position (``start``, docs/DUPLICATE.md « Partir
        d'une position »): its ``draws`` (optional) are those from that round on."""
        if "bag" in data or "seed" in data:
            raise DuplicateError("Partie : avec start, les lettres à tirer sont celles de "
                                 "start.bag (ni bag ni seed).")
        start = StartPosition.from_dict(data["start"])
        raw = data.get("draws")
        if raw is not None and (not isinstance(raw, list)
                                or not all(isinstance(d, str) for d in raw)):
            raise DuplicateError(f"Partie : draws est une liste de tirages "
                                 f"({self.draws_example}).")
        return Loaded(settings, self.position(start, settings),
                      None if raw is None else tuple(str(d) for d in raw),
                      int(cast(int, n)) if n else None, (), start.round)

    def start_text(self, state: GameState) -> str:
        """The master state of a game starting from the Duplicate state ``state``."""
        return state.to_text()

    def position(self, start: StartPosition, settings: GameSettings) -> str:
        return self.start_text(position_state(start, settings.duplicate))

    def position_of(self, round: RoundRecord) -> StartPosition:
        state = GameState.from_text(round.state_before)
        d = cast(DrawJSON, round.draw)
        return StartPosition(round.grid_before, "".join(state.bag) + d["new"], d["reliquat"],
                             round.number, state.tops_total, state.first_word)

    def listed_draw(self, round: RoundRecord) -> str | None:
        return round.draw["notation"]

    def report(self, settings: GameSettings, rounds: Sequence[RoundRecord], end: Finished,
               players: Sequence[str]) -> ReplayReport:
        results = self.round_results(rounds)
        standings = rank_game(results, settings.duplicate) if players else []
        return ReplayResult(settings.duplicate, tuple(results), tuple(standings),
                            self.final_state(end))

    def round_results(self, rounds: Sequence[RoundRecord]) -> list[RoundResult]:
        return [RoundResult(r.number, self.round_draw(r), self.round_top(r), r.grid_after,
                            self.verdicts_of(r)) for r in rounds]

    def verdicts_of(self, r: RoundRecord) -> tuple[Verdict, ...]:
        return tuple(verdict_of(x, p) for p, x in r.results.items())

    def final_state(self, end: Finished) -> GameState:
        """The Duplicate state the game ended in, with the reason the replay gives."""
        state = GameState.from_text(end.state_text)
        if state.finished:
            return state
        return replace(state, finished=True, end_reason=end.end_reason)

    # --- texts ---------------------------------------------------------------------------
    def rack_letters(self, draw: RoundDrawJSON) -> str:
        return cast(DrawJSON, draw)["rack"]

    def bulletin_line(self, bulletin: AnyBulletinJSON | None) -> str | None:
        return bulletin_line(cast(BulletinJSON | None, bulletin))

    def solution_count(self, bulletin: AnyBulletinJSON | None) -> int:
        return solutions_of(cast(BulletinJSON | None, bulletin))

    def top_words(self, top: RoundTopJSON) -> tuple[str, str]:
        return top["ref"], top["word"]


class VariantGame(ClassicGame):
    """The base of the variants (Top, the letter-choice games, Tactique, Superscrabble):
    their settings are a :class:`~puzzles.duplicate.settings.VariantSettings`, their GAME.json
    names them (``variant``), their replay report is a
    :class:`~puzzles.duplicate.report.VariantReplay`."""

    game_keys = ClassicGame.game_keys | {"variant"}

    @property
    def settings_variant(self) -> str:
        """The ``VariantSettings.variant`` this game plays on."""
        return self.key

    def read_settings(self, raw: Mapping[str, Any]) -> GameSettings:
        vs = VariantSettings.from_json({**raw, "variant": self.settings_variant})
        return GameSettings(self.key, vs.duplicate, vs)

    def top_line(self, top: RoundTopJSON) -> str:
        """The top as the replay report writes it (« H4 MOT 30 »)."""
        return f"{top['ref']} {top['word']} {top['score']}"

    def variant_round(self, r: RoundRecord) -> VariantRound:
        return VariantRound(r.number, r.draw["notation"], self.top_line(r.top),
                            int(r.top["score"]), r.top["reason"], r.grid_after,
                            self.verdicts_of(r))

    def end_totals(self, end: Finished) -> tuple[str, int]:
        """The replay's end reason and tops total."""
        state = self.final_state(end)
        return state.end_reason, state.tops_total

    def report(self, settings: GameSettings, rounds: Sequence[RoundRecord], end: Finished,
               players: Sequence[str]) -> ReplayReport:
        reason, tops = self.end_totals(end)
        standings = rank_game(self.round_results(rounds), settings.duplicate) if players else []
        return VariantReplay(self.key, tuple(self.variant_round(r) for r in rounds), reason,
                             tops, tuple(standings), label=self.label)


def position_state(start: StartPosition, settings: DuplicateSettings) -> GameState:
    """The Duplicate state of a position: its grid, the letters kept and still to draw
    (checked against the tile set with the grid's, a joker on the grid counting as ``?``),
    its round, tops and first word; French :class:`DuplicateError`."""
    try:
        board = Board.from_cgp(start.grid)
    except EngineError as exc:
        raise DuplicateError(f"Partie : start.grid — {exc}") from None
    bag = GameState.initial(settings, start.bag).bag
    kept = "".join(GameState.initial(settings, start.reliquat).bag)
    on_grid = "".join("?" if c.islower() else c for c in board.cells if c)
    check_tiles(on_grid + kept + "".join(bag), tileset(settings.lang))
    first = start.first_word or ""
    return GameState(board.to_cgp(), bag, kept, start.round, start.tops, False, "", first)


def _score(result: ResultJSON | None, *, solo: bool) -> int:
    """A round's points of a player's result (0 without one); ``solo``: with the bonus."""
    if result is None:
        return 0
    return int(result.get("score", 0)) + (int(result.get("solo", 0)) if solo else 0)


#: this module's round games, found by :mod:`puzzles.duplicate.registry`, and their place
#: in its lists (a new module takes the next number)
LISTED = 1
GAMES = (ClassicGame(),)
