"""A whole Duplicate replayed (``arbitre duplicate replay``, docs/DUPLICATE.md): the GAME.json
read (:func:`load_game`, :func:`initial_state`, :func:`game_players`), the round loop
(:func:`next_draw`, :func:`listed_draws_over`, :func:`no_move_end`, :func:`replay`), its
:class:`ReplayResult` (text and JSON reports, :func:`warnings_note`) and the BULLETINS file
(:func:`parse_bulletins_file`). Imports the settings, state, top, bulletins and ranking
modules."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any, cast

from puzzles.duplicate.bulletins import Bulletin
from puzzles.duplicate.ranking import RoundResult, StandingRow, correct_all, rank_game
from puzzles.duplicate.settings import RACK_SIZE, DuplicateError, DuplicateSettings, read_object
from puzzles.duplicate.state import Draw, GameState, draw_listed, draw_round, shuffled_bag
from puzzles.duplicate.top import apply_top, find_top
from scoring.config import GameConfig
from scoring.tiles import tileset


@dataclass(frozen=True)
class ReplayResult:
    settings: DuplicateSettings
    rounds: tuple[RoundResult, ...]
    standings: tuple[StandingRow, ...]
    final_state: GameState

    def to_dict(self) -> dict[str, Any]:
        return {
            "settings": asdict(self.settings),
            "rounds": [
                {
                    "round": r.round_no,
                    "draw": r.draw.notation,
                    "rack": r.draw.rack,
                    "rejected": list(r.draw.rejected),
                    "minimum": r.draw.minimum,
                    "top": {
                        "ref": r.top.ref,
                        "word": r.top.word,
                        "score": r.top.score,
                        "ties": len(r.top.ties),
                        "reason": r.top.reason_fr,
                    },
                    "grid": r.board_cgp,
                    "verdicts": [asdict(v) for v in r.verdicts],
                }
                for r in self.rounds
            ],
            "tops_total": self.final_state.tops_total,
            "end_reason": self.final_state.end_reason,
            "standings": [asdict(s) for s in self.standings],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2)

    def to_text(self) -> str:
        lines: list[str] = []
        for r in self.rounds:
            minimum = (
                f"minimum {r.draw.minimum} voyelle(s) et {r.draw.minimum} consonne(s)"
                if r.draw.minimum
                else "dernières lettres"
            )
            lines.append(f"Coup {r.round_no} — tirage {r.draw.notation} ({minimum})")
            for rack in r.draw.rejected:
                if rack:
                    lines.append(f"  rejeté : {rack}")
            lines.append(f"  top : {r.top.ref} {r.top.word} {r.top.score} — {r.top.reason_fr}")
            lines.append(f"  grille : {r.board_cgp}")
            lines.extend(v.to_text() for v in r.verdicts)
        lines.append(f"Fin : {self.final_state.end_reason}")
        lines.append(f"Total des tops : {self.final_state.tops_total}")
        if self.standings:
            lines.append("Classement")
            for s in self.standings:
                extra = warnings_note(s.warnings, s.warning_deduction)
                lines.append(f"  {s.rank}. {s.player} {s.total} ({s.percent_of_tops:.2f} %){extra}")
        return "\n".join(lines) + "\n"


def warnings_note(warnings: int, deduction: int) -> str:
    """The warnings of a replay report's ranking line: « , avertissements 4 (−5) » (what the
    conversion took off: points of the total in the Duplicate, ranking points in Duplicate
    Top and the Partie de Superscrabble, RULES §4.7.7 / §5.3); "" without warnings. One
    form for ``arbitre duplicate replay`` on every game."""
    if not warnings:
        return ""
    return f", avertissements {warnings}" + (f" (−{deduction})" if deduction else "")


def game_players(
    data: Mapping[str, Any], bulletins: Mapping[int, Mapping[str, object]]
) -> list[str]:
    """The players of a replayed game: ``players`` of the GAME.json, then anyone who sent a
    bulletin, in round order."""
    players = [str(p) for p in data.get("players") or []]
    for rnd in sorted(bulletins):
        for name in bulletins[rnd]:
            if name not in players:
                players.append(name)
    return players


def initial_state(
    settings: DuplicateSettings, data: Mapping[str, Any], *, draws_example: str,
    bag_as_list: bool = True, empty_draws: bool = True,
) -> tuple[GameState, list[str] | None]:
    """The initial state of a GAME.json and its listed draws (None when the bag order is
    given): exactly one of ``bag``, ``seed``, ``draws``. With ``draws`` the bag is the whole
    set (every draw names its tiles). ``draws_example`` ends the error on a bad ``draws``;
    ``bag_as_list``: a ``bag`` may be a list of tiles; ``empty_draws``: ``draws`` may be
    empty (the game ends before its first round)."""
    given = [k for k in ("bag", "seed", "draws") if k in data]
    if len(given) != 1:
        raise DuplicateError("Partie : donnez exactement une des clés bag, seed ou draws.")
    if "bag" in data:
        bag = data["bag"]
        if bag_as_list and isinstance(bag, list):
            bag = "".join(str(x) for x in bag)
        if not isinstance(bag, str):
            raise DuplicateError("Partie : bag est une chaîne de lettres (? pour un joker).")
        return GameState.initial(settings, bag.replace(" ", "")), None
    if "seed" in data:
        if not isinstance(data["seed"], int):
            raise DuplicateError("Partie : seed est un entier.")
        return GameState.initial(settings, shuffled_bag(settings.lang, data["seed"])), None
    raw = data["draws"]
    if not isinstance(raw, list) or not all(isinstance(d, str) for d in raw) or not (
        raw or empty_draws
    ):
        raise DuplicateError(f"Partie : draws est une liste de tirages ({draws_example}).")
    full = sorted(tileset(settings.lang).bag().elements())
    return GameState.initial(settings, full), list(raw)


def load_game(
    game_json: str | Mapping[str, Any],
) -> tuple[DuplicateSettings, GameState, list[str] | None, dict[str, Any]]:
    """Read a GAME.json (docs/DUPLICATE.md): settings, the initial state, the listed draws
    (None when the bag order is given), the raw mapping."""
    data = read_object(game_json, "Partie", with_line=True)
    known = {"settings", "bag", "seed", "draws", "players", "n_players", "lexicon", "title"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise DuplicateError(f"Partie : clés inconnues {', '.join(unknown)}.")
    settings = DuplicateSettings.from_json(cast(Mapping[str, Any], data.get("settings") or {}))
    state, draws = initial_state(settings, data, draws_example="« RU+ZXTEU »")
    return settings, state, draws, data


DRAWS_USED_UP = "Fin des tirages donnés."


def listed_draws_over(state: GameState, settings: DuplicateSettings, draws: Sequence[str]) -> bool:
    """With listed draws: the list is used up, or ``settings.rounds`` rounds are played."""
    return state.round_no > len(draws) or (
        settings.rounds is not None and state.round_no > settings.rounds
    )


def next_draw(
    state: GameState,
    settings: DuplicateSettings,
    draws: Sequence[str] | None,
    draw_from_bag: Callable[[GameState], tuple[Draw | None, GameState]],
    *,
    rack_size: int = RACK_SIZE,
) -> tuple[Draw | None, GameState]:
    """A replayed round's draw: ``draw_from_bag`` when no draws are listed, else the next
    listed one (:func:`draw_listed`); None and the finished state at the end."""
    if draws is None:
        return draw_from_bag(state)
    if listed_draws_over(state, settings, draws):
        return None, replace(state, finished=True, end_reason=DRAWS_USED_UP)
    return draw_listed(state, settings, draws[state.round_no - 1], rack_size=rack_size)


def no_move_end(state: GameState, rack: str) -> GameState:
    """The finished state when no word can be played with ``rack``."""
    return replace(
        state, finished=True, end_reason=f"Aucun mot ne peut être joué avec le tirage {rack}."
    )


def replay(
    game_json: str | Mapping[str, Any],
    bulletins_by_round: Mapping[int, Mapping[str, str | Bulletin]] | None = None,
    *,
    config: GameConfig | None = None,
) -> ReplayResult:
    """Play a whole game from a GAME.json (docs/DUPLICATE.md) and correct the bulletins:
    per round the draw, the top, every player's verdict (a player of ``players`` or of any
    round without a bulletin that round is absent), the solos; then the ranking."""
    settings, state, draws, data = load_game(game_json)
    cfg = config or GameConfig.default(settings.lang)
    bulletins = bulletins_by_round or {}
    players = game_players(data, bulletins)
    n_players = int(data.get("n_players") or len(players))
    results: list[RoundResult] = []
    while True:
        draw, state = next_draw(
            state, settings, draws, lambda s: draw_round(s, settings, config=cfg)
        )
        if draw is None:
            break
        top = find_top(state, draw.rack, cfg, round_no=state.round_no, settings=settings)
        if top is None:
            state = no_move_end(state, draw.rack)
            break
        round_bulletins = bulletins.get(state.round_no, {})
        sheet: dict[str, Bulletin | str | None] = {p: round_bulletins.get(p) for p in players}
        verdicts = correct_all(
            state,
            draw.rack,
            sheet,
            cfg,
            round_no=state.round_no,
            top_score=top.score,
            settings=settings,
            n_players=n_players,
        )
        after = apply_top(state, draw, top)
        results.append(RoundResult(state.round_no, draw, top, after.board_cgp, tuple(verdicts)))
        state = after
    standings = rank_game(results, settings) if players else []
    return ReplayResult(settings, tuple(results), tuple(standings), state)


def parse_bulletins_file(text: str) -> dict[int, dict[str, str]]:
    """The BULLETINS file of ``arbitre duplicate replay`` (docs/DUPLICATE.md): JSON
    ``{"1": {"alice": "H4 RESTAIt 70"}}`` or lines ``1 alice : H4 RESTAIt 70`` (``#``
    comments). French errors raise :class:`DuplicateError`."""
    stripped = text.strip()
    out: dict[int, dict[str, str]] = {}
    if stripped.startswith("{"):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise DuplicateError(f"Bulletins : JSON illisible ({exc.msg}).") from None
        if not isinstance(data, dict):
            raise DuplicateError("Bulletins : un objet JSON est attendu.")
        for key, per in data.items():
            if not str(key).isdigit() or not isinstance(per, dict):
                raise DuplicateError(f"Bulletins : coup « {key} » illisible.")
            out[int(key)] = {str(p): str(t) for p, t in per.items()}
        return out
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        head, sep, body = line.partition(":")
        parts = head.split()
        if not sep or len(parts) != 2 or not parts[0].isdigit():
            raise DuplicateError(
                f"Bulletins, ligne {n} : attendu « COUP JOUEUR : bulletin » "
                f"(ex. « 2 alice : H4 RESTAIt 70 »), lu « {raw.strip()[:60]} »."
            )
        rnd, who = int(parts[0]), parts[1]
        if who in out.setdefault(rnd, {}):
            raise DuplicateError(f"Bulletins, ligne {n} : deux bulletins de {who} au coup {rnd}.")
        out[rnd][who] = body.strip()
    return out
