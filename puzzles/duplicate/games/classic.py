"""The plain FISF Duplicate as a :class:`~puzzles.duplicate.protocol.RoundGame`
(:class:`ClassicGame`): a 7-letter draw (:func:`~puzzles.duplicate.draw_round`), the FISF top
(:func:`~puzzles.duplicate.find_top`), the Duplicate bulletin and correction with solos
(:func:`~puzzles.duplicate.correct_all`), the top placed (:func:`~puzzles.duplicate.apply_top`),
the ranking by total (:func:`~puzzles.duplicate.rank_game`). The other one-word games
(:mod:`.top`, :mod:`.free`) subclass it and change what differs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from puzzles.duplicate.bulletins import Bulletin, parse_bulletin
from puzzles.duplicate.codecs import (
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
from puzzles.duplicate.correction import Verdict
from puzzles.duplicate.protocol import (
    DrawnRound,
    Finished,
    GameSettings,
    PlayerBulletin,
    RoundRecord,
    StandingJSON,
)
from puzzles.duplicate.ranking import RoundResult, correct_all, rank_game
from puzzles.duplicate.settings import DuplicateError
from puzzles.duplicate.state import Draw, GameState, draw_round
from puzzles.duplicate.top import TopChoice, apply_top, find_top
from scoring.config import GameConfig
from scoring.movegen import GeneratedMove, generate
from scoring.notation import parse_ref


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

    def draw(self, state_text: str, settings: GameSettings, config: GameConfig,
             round_no: int) -> DrawnRound | Finished:
        state = GameState.from_text(state_text)
        drawn, state = self.draw_from(state, settings, config)
        top = None if drawn is None else self.top_of_round(state, drawn, settings, config,
                                                           round_no)
        if drawn is None or top is None:
            return Finished(state.to_text())
        return DrawnRound(self.draw_json(drawn, state), state.to_text(), state.board_cgp, top)

    def parse(self, text: str, *, player: str = "") -> AnyBulletinJSON | list[str]:
        parsed = parse_bulletin(text, player=player)
        return parsed if isinstance(parsed, list) else bulletin_dict(parsed)

    def sheet_of(self, pb: PlayerBulletin) -> Bulletin | str | None:
        """What the correction reads of a player's bulletin: the stored bulletin, the line
        received (read again for its errors), or None (absent)."""
        if pb.absent:
            return None
        if pb.bulletin is None:
            return pb.text or ""
        return bulletin_of(cast(BulletinJSON, pb.bulletin), pb.player, pb.received_at)

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

    # --- texts ---------------------------------------------------------------------------
    def rack_letters(self, draw: RoundDrawJSON) -> str:
        return cast(DrawJSON, draw)["rack"]

    def bulletin_line(self, bulletin: AnyBulletinJSON | None) -> str | None:
        return bulletin_line(cast(BulletinJSON | None, bulletin))

    def solution_count(self, bulletin: AnyBulletinJSON | None) -> int:
        return solutions_of(cast(BulletinJSON | None, bulletin))

    def top_words(self, top: RoundTopJSON) -> tuple[str, str]:
        return top["ref"], top["word"]


def _score(result: ResultJSON | None, *, solo: bool) -> int:
    """A round's points of a player's result (0 without one); ``solo``: with the bonus."""
    if result is None:
        return 0
    return int(result.get("score", 0)) + (int(result.get("solo", 0)) if solo else 0)

