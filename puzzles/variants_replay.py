"""``arbitre duplicate replay`` for the Duplicate variants (docs/VARIANTS.md): a whole game of
Tactique, Duplicate Top, Complétif, Superjoker, Métagramme, Elliptique or Partie de
Superscrabble replayed from a GAME.json with a ``variant`` key, the players' bulletins of
each round corrected, then the ranking. Pure; built on :mod:`puzzles.variants` and
:mod:`puzzles.duplicate`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from typing import Any, cast

from puzzles.duplicate import (
    DRAWS_USED_UP,
    Draw,
    DuplicateError,
    GameState,
    RoundContext,
    RoundResult,
    StandingRow,
    TopChoice,
    Verdict,
    apply_solos,
    game_players,
    initial_state,
    listed_draws_over,
    next_draw,
    no_move_end,
    rank_game,
    read_object,
    replay,
    warnings_note,
)
from puzzles.variants import (
    VARIANTS,
    ScrabbleSheet,
    SheetVerdict,
    SuperscrabbleRow,
    TactiqueBillet,
    TactiqueDraw,
    TactiqueState,
    TopStandingRow,
    VariantSettings,
    apply_tactique_top,
    apply_variant_top,
    choose_scrabble,
    correct_free_round,
    correct_scrabble_sheet,
    correct_tactique,
    draw_tactique,
    draw_tactique_listed,
    draw_variant,
    list_scrabbles,
    parse_scrabble_sheet,
    parse_tactique_billet,
    rank_duplicate_top,
    rank_superscrabble,
    tactique_top,
    variant_top,
)
from scoring.board import Board
from scoring.config import GameConfig
from scoring.errors import EngineError
from scoring.move import Placement
from scoring.notation import format_ref

SUPERSCRABBLE = "superscrabble"
ALL_VARIANTS = (*VARIANTS, SUPERSCRABBLE)


@dataclass(frozen=True)
class VariantRound:
    round_no: int
    draw: str
    """The draw as announced (``AB+CDEFG``; Tactique: both groups ``…/…``)."""
    top: str
    """The top as placed (``H4 MOT 30``; Tactique ``H4 MOT 30 + 8C MOTS 25 = 55``)."""
    top_score: int
    reason_fr: str
    grid: str
    verdicts: tuple[Verdict, ...] = ()
    sheets: tuple[SheetVerdict, ...] = ()
    scrabbles: tuple[str, ...] = ()


@dataclass(frozen=True)
class VariantReplay:
    variant: str
    rounds: tuple[VariantRound, ...]
    end_reason: str
    tops_total: int
    standings: tuple[StandingRow, ...] = ()
    top_standings: tuple[TopStandingRow, ...] = ()
    scrabble_standings: tuple[SuperscrabbleRow, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "variant": self.variant,
            "rounds": [
                {
                    "round": r.round_no,
                    "draw": r.draw,
                    "top": r.top,
                    "top_score": r.top_score,
                    "reason": r.reason_fr,
                    "grid": r.grid,
                    "verdicts": [asdict(v) for v in r.verdicts],
                    "sheets": [asdict(s) for s in r.sheets],
                    "scrabbles": list(r.scrabbles),
                }
                for r in self.rounds
            ],
            "tops_total": self.tops_total,
            "end_reason": self.end_reason,
            "standings": [asdict(s) for s in self.standings],
            # warning_deduction: the Duplicate's key (``standings``) for what the warnings
            # cost, beside the rows' own ``penalty``
            "top_standings": [{**asdict(s), "warning_deduction": s.penalty}
                              for s in self.top_standings],
            "scrabble_standings": [{**asdict(s), "warning_deduction": s.penalty}
                                   for s in self.scrabble_standings],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2)

    def to_text(self) -> str:
        label = VARIANTS.get(self.variant, "Partie de Superscrabble")
        lines = [label]
        for r in self.rounds:
            lines.append(f"Coup {r.round_no} — tirage {r.draw}")
            lines.append(f"  top : {r.top} — {r.reason_fr}")
            if r.scrabbles:
                lines.append(f"  scrabbles ({len(r.scrabbles)}) : {', '.join(r.scrabbles)}")
            lines.append(f"  grille : {r.grid}")
            lines.extend(v.to_text() for v in r.verdicts)
            for s in r.sheets:
                lines.append(f"  {s.player} : {s.valid} — {s.reason_fr}")
        lines.append(f"Fin : {self.end_reason}")
        lines.append(f"Total des tops : {self.tops_total}")
        if self.standings:
            lines.append("Classement")
            for row in self.standings:
                extra = warnings_note(row.warnings, row.warning_deduction)
                lines.append(
                    f"  {row.rank}. {row.player} {row.total} ({row.percent_of_tops:.2f} %){extra}"
                )
        if self.top_standings:
            lines.append("Classement (points de classement : tops en salle)")
            for t in self.top_standings:
                lines.append(
                    f"  {t.rank}. {t.player} {t.points} (tops {t.tops}, compagnons "
                    f"{t.companions}, cumul des tops {t.topped_total})"
                    + warnings_note(t.warnings, t.penalty)
                )
        if self.scrabble_standings:
            lines.append("Classement (scrabbles valables)")
            for q in self.scrabble_standings:
                lines.append(f"  {q.rank}. {q.player} {q.points} (scrabbles valables "
                             f"{q.valid})" + warnings_note(q.warnings, q.penalty))
        return "\n".join(lines) + "\n"


def _load(game_json: str | Mapping[str, Any]) -> dict[str, Any]:
    data = read_object(game_json, "Partie", with_line=True)
    variant = data.get("variant")
    if variant not in ALL_VARIANTS:
        raise DuplicateError(
            f"Partie : variante « {variant} » inconnue (connues : {', '.join(ALL_VARIANTS)})."
        )
    return data


def _initial(settings: VariantSettings, data: Mapping[str, Any]) -> tuple[GameState,
                                                                         list[str] | None]:
    """The initial state and the listed draws (None when the bag order is given): exactly
    one of ``bag`` (a string), ``seed``, ``draws`` (not empty). With ``draws`` the bag is
    the whole set (its order does not matter: every draw names its tiles; the stock of a
    letter-choice variant is the set less the grid and the drawn letters)."""
    return initial_state(
        settings.duplicate, data,
        draws_example="« RU+ZXTEU » ; Tactique « BC+DEFGH / MN+AEIRS »",
        bag_as_list=False, empty_draws=False,
    )


def replay_variant(
    game_json: str | Mapping[str, Any],
    bulletins_by_round: Mapping[int, Mapping[str, str]] | None = None,
    *,
    config: GameConfig | None = None,
) -> VariantReplay:
    """Replay a variant game (docs/VARIANTS.md) and correct its bulletins."""
    data = _load(game_json)
    variant = str(data["variant"])
    bulletins = bulletins_by_round or {}
    players = game_players(data, bulletins)
    if variant == SUPERSCRABBLE:
        return _replay_superscrabble(data, bulletins, players, config)
    known = {"variant", "settings", "bag", "seed", "draws", "players", "n_players", "lexicon",
             "title"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise DuplicateError(f"Partie : clés inconnues {', '.join(unknown)}.")
    raw = cast(Mapping[str, Any], data.get("settings") or {})
    settings = VariantSettings.from_json({**raw, "variant": variant})
    cfg = config or GameConfig.default(settings.duplicate.lang)
    n_players = int(data.get("n_players") or len(players))
    if variant == "top":
        plain = {k: v for k, v in data.items() if k != "variant"}
        plain["settings"] = json.loads(settings.duplicate.to_json())
        result = replay(plain, bulletins, config=cfg)
        rounds = tuple(
            VariantRound(
                r.round_no, r.draw.notation, f"{r.top.ref} {r.top.word} {r.top.score}",
                r.top.score, r.top.reason_fr, r.board_cgp,
                tuple(replace(v, solo=0) for v in r.verdicts),
            )
            for r in result.rounds
        )
        ranking = rank_duplicate_top([r.verdicts for r in rounds], settings) if players else []
        return VariantReplay(
            variant, rounds, result.final_state.end_reason, result.final_state.tops_total,
            top_standings=tuple(ranking),
        )
    state, draws = _initial(settings, data)
    if variant == "tactique":
        return _replay_tactique(settings, state, bulletins, players, n_players, cfg, draws)
    out: list[VariantRound] = []
    results: list[RoundResult] = []
    while True:
        draw, state = next_draw(state, settings.duplicate, draws,
                                lambda s: draw_variant(s, settings), rack_size=settings.drawn)
        if draw is None:
            break
        top = variant_top(state, draw.rack, cfg, settings)
        if top is None:
            state = no_move_end(state, draw.rack)
            break
        round_b = bulletins.get(state.round_no, {})
        verdicts = correct_free_round(
            state, draw.rack, {p: round_b.get(p) for p in players}, cfg,
            top_score=top.score, settings=settings, n_players=n_players,
        )
        after = apply_variant_top(state, draw.rack, top, settings)
        choice = ""
        if top.choice.chosen:
            choice += f" +{top.choice.chosen}"
        if top.choice.swapped:
            choice += f" -{top.choice.swapped}"
        out.append(
            VariantRound(
                state.round_no, draw.notation, f"{top.ref} {top.word} {top.score}{choice}",
                top.score, top.reason_fr, after.board_cgp, tuple(verdicts),
            )
        )
        tc = TopChoice(top.move, top.ref, top.word, top.score)
        results.append(RoundResult(state.round_no, draw, tc, after.board_cgp, tuple(verdicts)))
        state = after
    standings = rank_game(results, settings.duplicate) if players else []
    return VariantReplay(
        variant, tuple(out), state.end_reason, state.tops_total, tuple(standings)
    )


def _replay_tactique(
    settings: VariantSettings,
    initial: GameState,
    bulletins: Mapping[int, Mapping[str, str]],
    players: list[str],
    n_players: int,
    cfg: GameConfig,
    draws: list[str] | None = None,
) -> VariantReplay:
    ts = TactiqueState(initial)
    out: list[VariantRound] = []
    results: list[RoundResult] = []
    while True:
        draw: TactiqueDraw | None
        if draws is None:
            draw, ts = draw_tactique(ts, settings)
        elif listed_draws_over(ts.game, settings.duplicate, draws):
            draw, ts = None, replace(ts, game=replace(ts.game, finished=True,
                                                      end_reason=DRAWS_USED_UP))
        else:
            draw, ts = draw_tactique_listed(ts, settings, draws[ts.game.round_no - 1])
        if draw is None:
            break
        g = ts.game
        top = tactique_top(g.board, draw.racks, cfg, settings)
        if top is None or (top.first is None and top.second is None):
            ts = replace(ts, game=replace(g, finished=True, end_reason="Aucun mot ne peut être "
                                          f"joué avec les groupes {draw.notation}."))
            break
        round_b = bulletins.get(g.round_no, {})
        verdicts: list[Verdict] = []
        contexts: dict[tuple[str, str, int], RoundContext] = {}
        for p in players:
            text = round_b.get(p)
            billet: TactiqueBillet | list[str] | None = (
                parse_tactique_billet(text, player=p) if text is not None else None
            )
            if isinstance(billet, list):
                verdicts.append(Verdict(p, 0, "nul", reason_fr="Nul : billet illisible — "
                                        + " ".join(billet)))
                continue
            verdicts.append(
                correct_tactique(ts, billet, cfg, top_score=top.score, settings=settings,
                                 player=p, contexts=contexts)
            )
        verdicts = apply_solos(verdicts, n_players, settings.duplicate)
        after = apply_tactique_top(ts, top)
        move = top.first if top.first is not None else top.second
        assert move is not None
        tc = TopChoice(move, format_ref(move.ref), move.word, top.score)
        d0 = draw.groups[0]
        results.append(RoundResult(g.round_no, d0, tc, after.game.board_cgp, tuple(verdicts)))
        out.append(
            VariantRound(
                g.round_no, draw.notation, f"groupe {top.first_group} d'abord : {top.notation}",
                top.score, top.reason_fr, after.game.board_cgp, tuple(verdicts),
            )
        )
        ts = after
    standings = rank_game(results, settings.duplicate) if players else []
    return VariantReplay(
        "tactique", tuple(out), ts.game.end_reason, ts.game.tops_total, tuple(standings)
    )


def _replay_superscrabble(
    data: Mapping[str, Any],
    bulletins: Mapping[int, Mapping[str, str]],
    players: list[str],
    config: GameConfig | None,
) -> VariantReplay:
    """GAME.json: ``start`` (the arbitre's 2-letter word, ``H7 LA``), ``racks`` (one 7-letter
    draw per round), optional ``choices`` (the scrabble the arbitre places each round,
    ``H4 RESTAIT``; missing or null: the engine chooses)."""
    known = {"variant", "settings", "start", "racks", "draws", "choices", "players", "lexicon",
             "title"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise DuplicateError(f"Partie : clés inconnues {', '.join(unknown)}.")
    if "racks" in data and "draws" in data:
        raise DuplicateError("Partie de Superscrabble : racks ou draws (le même : les tirages "
                             "de l'arbitre), pas les deux.")
    raw = cast(Mapping[str, Any], data.get("settings") or {})
    settings = VariantSettings.from_json({**raw, "variant": "top"})
    cfg = config or GameConfig.default(settings.duplicate.lang)
    racks = data.get("racks", data.get("draws"))
    if not isinstance(racks, list) or not all(isinstance(r, str) for r in racks) or not racks:
        raise DuplicateError("Partie de Superscrabble : racks est une liste de tirages de 7 "
                             "lettres.")
    choices = data.get("choices") or []
    if not isinstance(choices, list):
        raise DuplicateError("Partie de Superscrabble : choices est une liste.")
    start = data.get("start")
    if not isinstance(start, str) or len(start.split()) != 2:
        raise DuplicateError("Partie de Superscrabble : start est le mot de 2 lettres placé "
                             "par l'arbitre (ex. « H7 LA »).")
    board = Board()
    ref, word = start.split()
    try:
        pl = Placement.from_notation(board, ref, word)
    except EngineError as exc:
        raise DuplicateError(f"Partie de Superscrabble : mot de départ — {exc}") from None
    if len(word) != 2 or cfg.layout.center not in pl.squares:
        raise DuplicateError("Partie de Superscrabble : le mot de départ a 2 lettres et "
                             "couvre la case centrale.")
    pl.apply(board)
    out: list[VariantRound] = []
    all_sheets: list[list[SheetVerdict]] = []
    for i, rack in enumerate(racks, 1):
        rack = rack.replace(" ", "").upper()
        if len(rack) != 7:
            raise DuplicateError(f"Partie de Superscrabble, coup {i} : {len(rack)} lettres "
                                 "au lieu de 7.")
        answers = list_scrabbles(board, rack, cfg)
        round_b = bulletins.get(i, {})
        sheets: list[SheetVerdict] = []
        for p in players:
            text = round_b.get(p)
            sheet: ScrabbleSheet | list[str] | None = (
                parse_scrabble_sheet(text, player=p) if text is not None else None
            )
            if isinstance(sheet, list):
                sheets.append(SheetVerdict(p, 0, 0, 0, 0, "Feuille illisible — " +
                                           " ".join(sheet)))
                continue
            sheets.append(correct_scrabble_sheet(sheet, answers, p))
        all_sheets.append(sheets)
        chosen_text = choices[i - 1] if i - 1 < len(choices) else None
        placed = None
        if chosen_text:
            parts = str(chosen_text).split()
            wanted = (parts[0].upper(), parts[-1].upper()) if len(parts) == 2 else None
            placed = next(
                (m for m in answers if wanted and (format_ref(m.ref).upper(), m.word.upper())
                 == wanted),
                None,
            )
            if placed is None:
                raise DuplicateError(f"Partie de Superscrabble, coup {i} : « {chosen_text} » "
                                     "n'est pas un scrabble de ce tirage.")
            reason = "Scrabble choisi par l'arbitre."
        else:
            placed = choose_scrabble(board, answers, cfg)
            reason = "Scrabble choisi par le moteur : le meilleur score, puis l'ordre FISF."
        if placed is not None:
            placed.placement.apply(board)
            top = f"{format_ref(placed.ref)} {placed.word} {placed.score}"
            score = placed.score
        else:
            top, score, reason = "—", 0, "Aucun scrabble : la grille ne change pas."
        out.append(
            VariantRound(i, rack, top, score, reason, board.to_cgp(), (), tuple(sheets),
                         tuple(f"{format_ref(m.ref)} {m.word}" for m in answers))
        )
    ranking = rank_superscrabble(all_sheets, settings) if players else []
    return VariantReplay(
        SUPERSCRABBLE, tuple(out), f"Les {len(racks)} coups annoncés ont été joués.",
        sum(r.top_score for r in out), scrabble_standings=tuple(ranking),
    )


__all__ = ["ALL_VARIANTS", "VariantReplay", "VariantRound", "replay_variant", "Draw"]
