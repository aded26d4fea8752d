"""The Partie de Superscrabble (RULES §7.7) as a round game: the arbitre's 2-letter word
through the centre, one 7-letter rack of his per round; the players list every scrabble
(« H4 RESTAIT, 8C RESTAIT ; 2 »), one point each (:func:`puzzles.variants
.correct_scrabble_sheet`); the scrabble placed is the engine's choice
(:func:`puzzles.variants.choose_scrabble`) or the arbitre's; ranked by valid scrabbles less
the §5.3 conversion (:func:`puzzles.variants.rank_superscrabble`). The master state is the
grid (CGP)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

from puzzles.duplicate.codecs import (
    AnyBulletinJSON,
    DrawJSON,
    ResultJSON,
    RoundTopJSON,
    ScrabbleTopJSON,
    SheetJSON,
    move_of,
    scrabble_top_dict,
    sheet_dict,
    sheet_line,
    sheet_of,
    sheet_result,
    sheet_verdict_of,
)
from puzzles.duplicate.games.classic import ClassicGame
from puzzles.duplicate.protocol import (
    DrawnRound,
    Finished,
    GameSettings,
    PlayerBulletin,
    RoundRecord,
    StandingJSON,
    SuperscrabbleSpec,
)
from puzzles.duplicate.settings import DuplicateError
from puzzles.duplicate.state import GameState
from puzzles.variants import (
    SheetVerdict,
    choose_scrabble,
    correct_scrabble_sheet,
    list_scrabbles,
    parse_scrabble_sheet,
    rank_superscrabble,
)
from scoring.board import Board
from scoring.config import GameConfig
from scoring.move import Placement
from scoring.movegen import GeneratedMove
from scoring.notation import format_ref

ENGINE_CHOICE = "Scrabble choisi par le moteur : le meilleur score, puis l'ordre FISF."


def check_start(spec: Mapping[str, object], config: GameConfig) -> tuple[SuperscrabbleSpec, str]:
    """The arbitre's 2-letter word through the centre and the racks (7 letters each, one per
    round), checked as the console gives them; the grid (CGP) with the word placed. French
    :class:`DuplicateError`."""
    start = str(spec.get("start", "")).strip().upper()
    raw = spec.get("racks", [])
    racks = [str(r).replace(" ", "").upper() for r in cast(Sequence[object], raw)
             if str(r).strip()]
    if len(start.split()) != 2:
        raise DuplicateError("Partie de Superscrabble : écrivez le mot de 2 lettres placé par "
                             "l'arbitre avec sa référence (ex. « H7 LA »).")
    if not racks:
        raise DuplicateError("Partie de Superscrabble : donnez les tirages de 7 lettres, un "
                             "par coup.")
    for i, rack in enumerate(racks, 1):
        if len(rack) != 7 or not all(ch == "?" or "A" <= ch <= "Z" for ch in rack):
            raise DuplicateError(f"Partie de Superscrabble, coup {i} : « {rack} » n'est pas un "
                                 "tirage de 7 lettres.")
    ref, word = start.split()
    board = Board()
    try:
        pl = Placement.from_notation(board, ref, word)
    except Exception as exc:
        raise DuplicateError(f"Partie de Superscrabble : mot de départ — {exc}") from None
    if len(word) != 2 or config.layout.center not in pl.squares:
        raise DuplicateError("Partie de Superscrabble : le mot de départ a 2 lettres et couvre "
                             "la case centrale.")
    pl.apply(board)
    return SuperscrabbleSpec(start, tuple(racks)), str(board.to_cgp())


def _spec(settings: GameSettings) -> SuperscrabbleSpec:
    if settings.superscrabble is None:
        raise DuplicateError("Partie de Superscrabble : le mot de départ et les tirages "
                             "manquent.")
    return settings.superscrabble


class SuperscrabbleGame(ClassicGame):
    """The Partie de Superscrabble."""

    key = "superscrabble"
    label = "Partie de Superscrabble"
    rules_fr = ("Partie de Superscrabble : trouvez tous les scrabbles du tirage sur la "
                "grille ; écrivez-les avec leur référence, séparés par des virgules, puis "
                "« ; » et leur nombre. Un point par scrabble valable ; l'arbitre choisit "
                "ensuite le scrabble que tous placent.")
    bulletin_example = "H4 RESTAIT, 8C RESTAIT ; 2"
    has_solos = False
    total_label = "Vos scrabbles valables (total)"
    result_unit = "scrabbles"
    scrabble_sheet = True
    other_top_recorrects = False

    def prepare(self, settings: GameSettings, config: GameConfig) -> GameSettings:
        spec = settings.superscrabble
        raw = spec.to_dict() if spec is not None else {}
        checked, _ = check_start(raw, config)
        return settings.with_superscrabble(checked)

    def initial(self, settings: GameSettings, bag: str, config: GameConfig) -> str:
        GameState.initial(settings.duplicate, bag)  # the bag is checked all the same
        spec = _spec(settings)
        return check_start(spec.to_dict(), config)[1]

    def draw(self, state_text: str, settings: GameSettings, config: GameConfig,
             round_no: int) -> DrawnRound | Finished:
        """The arbitre's rack of this round on the grid as it stands; every scrabble listed,
        the engine's choice retained until the arbitre picks another."""
        racks = _spec(settings).racks
        if round_no > len(racks):
            return Finished(state_text)
        rack = racks[round_no - 1]
        board = Board.from_cgp(state_text)
        answers = list_scrabbles(board, rack, config)
        chosen = choose_scrabble(board, answers, config)
        draw: DrawJSON = {"reliquat": "", "new": rack, "rack": rack, "rejected": [],
                          "minimum": 0, "notation": rack}
        return DrawnRound(draw, state_text, state_text,
                          scrabble_top_dict(chosen, answers, ENGINE_CHOICE))

    def parse(self, text: str, *, player: str = "") -> AnyBulletinJSON | list[str]:
        parsed = parse_scrabble_sheet(text, player=player)
        return parsed if isinstance(parsed, list) else sheet_dict(parsed)

    def scrabbles(self, round: RoundRecord, config: GameConfig) -> list[GeneratedMove]:
        """Every distinct scrabble of the round (``list_scrabbles``)."""
        return list_scrabbles(Board.from_cgp(round.grid_before), round.draw["rack"], config)

    def correct(self, round: RoundRecord, bulletins: Sequence[PlayerBulletin],
                settings: GameSettings, config: GameConfig,
                n_players: int) -> list[ResultJSON]:
        """One point per distinct valid scrabble of each sheet; a count missing or wrong is
        a warning (``correct_scrabble_sheet``)."""
        answers = self.scrabbles(round, config)
        out: list[ResultJSON] = []
        for pb in bulletins:
            if not pb.absent and pb.bulletin is None:
                sv = SheetVerdict(pb.player, 0, 0, 0, 0, "Feuille illisible — "
                                  + " ".join(pb.parse_errors))
                out.append(sheet_result(sv, "nul"))
                continue
            sheet = None if pb.bulletin is None else sheet_of(cast(SheetJSON, pb.bulletin),
                                                              pb.player)
            sv = correct_scrabble_sheet(sheet, answers, pb.player)
            kind = "absent" if sheet is None else ("avertissement" if sv.warnings
                                                   else "valide")
            out.append(sheet_result(sv, kind))
        return out

    def other_top(self, round: RoundRecord, ref: str, word: str, settings: GameSettings,
                  config: GameConfig, *, actor: str, reason: str) -> RoundTopJSON:
        """RULES §7.7 « l'arbitre choisit le scrabble que tous placent »: one of the
        round's scrabbles (or the engine's choice again: ``ref`` « moteur »)."""
        if not reason.strip():
            raise DuplicateError("Indiquez le motif du choix du scrabble.")
        answers = self.scrabbles(round, config)
        if ref.strip().lower() == "moteur":
            chosen = choose_scrabble(Board.from_cgp(round.grid_before), answers, config)
        else:
            wanted = (ref.strip().upper(), word.strip().upper())
            chosen = next((m for m in answers
                           if (format_ref(m.ref).upper(), m.word.upper()) == wanted), None)
            if chosen is None:
                raise DuplicateError(f"« {ref.strip()} {word.strip()} » n'est pas un scrabble "
                                     f"du tirage {round.draw['rack']} sur cette grille.")
        return scrabble_top_dict(chosen, answers,
                                 f"Scrabble choisi par l'arbitre ({actor}) : {reason.strip()}")

    def apply(self, round: RoundRecord, settings: GameSettings,
              config: GameConfig) -> tuple[str, str]:
        board = Board.from_cgp(round.grid_before)
        top = cast(ScrabbleTopJSON, round.top)
        if top.get("move"):
            move_of(top).placement.apply(board)
        grid = str(board.to_cgp())
        return grid, grid

    def rank(self, rounds: Sequence[RoundRecord], settings: GameSettings) -> list[StandingJSON]:
        """``total``: the valid scrabbles less the warning conversion (RULES §5.3)."""
        ranked = rank_superscrabble(
            [[sheet_verdict_of(x, p) for p, x in r.results.items()] for r in rounds],
            settings.rules)
        rows: list[StandingJSON] = []
        for row in ranked:
            rows.append({
                "player": row.player, "rank": row.rank, "total": row.points, "percent": None,
                "warnings": row.warnings, "warning_deduction": row.penalty, "solos": 0,
                "scores": [int(r.results[row.player]["score"]) if row.player in r.results
                           else 0 for r in rounds],
            })
        return rows

    def bulletin_line(self, bulletin: AnyBulletinJSON | None) -> str | None:
        return sheet_line(cast(SheetJSON, bulletin)) if bulletin else None

    def solution_count(self, bulletin: AnyBulletinJSON | None) -> int:
        return 1 if bulletin else 0
