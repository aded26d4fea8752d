"""The Partie de Superscrabble (RULES §7.7) as a round game: the arbitre's 2-letter word
through the centre (:func:`check_start`), one 7-letter rack of his per round; every scrabble
of the round listed (:func:`list_scrabbles`); the players list them (« H4 RESTAIT, 8C RESTAIT
; 2 », :func:`parse_scrabble_sheet`), one point each (:func:`correct_scrabble_sheet`); the
scrabble placed is the engine's choice (:func:`choose_scrabble`) or the arbitre's; ranked by
valid scrabbles less the §5.3 conversion (:func:`rank_superscrabble`). The master state is
the grid (CGP)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, cast

from puzzles.duplicate.bulletins import is_number, parse_bulletin, score_error
from puzzles.duplicate.games.classic import VariantGame
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
    SuperscrabbleSpec,
)
from puzzles.duplicate.records import (
    AnyBulletinJSON,
    DrawJSON,
    ResultJSON,
    RoundTopJSON,
    ScoredJSON,
    ScrabbleTopJSON,
    SheetJSON,
    move_dict,
    move_of,
)
from puzzles.duplicate.report import SheetVerdict, SuperscrabbleRow, VariantReplay, VariantRound
from puzzles.duplicate.settings import (
    DuplicateError,
    DuplicateSettings,
    VariantSettings,
    ranking_point_penalty,
)
from puzzles.duplicate.state import GameState
from puzzles.duplicate.top import rank_moves
from puzzles.ties import shared_ranks
from scoring.board import Board
from scoring.config import GameConfig
from scoring.errors import EngineError
from scoring.move import Placement
from scoring.movegen import GeneratedMove
from scoring.notation import format_ref


# --- Partie de Superscrabble -----------------------------------------------------------------
@dataclass(frozen=True)
class ScrabbleSheet:
    """One player's sheet of a round: the scrabbles written (reference, word) and the count
    written (None: omitted)."""

    player: str
    entries: tuple[tuple[str, str], ...]
    count: int | None


def parse_scrabble_sheet(text: str, *, player: str = "") -> ScrabbleSheet | list[str]:
    """``H4 RESTAIT, 8C RESTAIT ; 2`` — the scrabbles (reference and word) separated by
    commas, then ``;`` and the count. French errors as a list."""
    head, sep, tail = text.partition(";")
    count: int | None = None
    errors: list[str] = []
    if "/" in head:
        errors.append("Feuille de Superscrabble : écrivez chaque scrabble une fois, séparés "
                      "par des virgules ; « / » n'y a pas de sens (ex. « H4 RESTAIT, "
                      "8C RESTAIT ; 2 »).")
        head = head.replace("/", ",")
    t = tail.strip()
    if sep and t:
        if is_number(t) and not score_error(t):
            count = int(t)
        else:
            shown = t if len(t) <= 12 else f"{t[:12]}…"
            errors.append(f"Nombre de scrabbles « {shown} » illisible.")
    entries: list[tuple[str, str]] = []
    for part in head.split(","):
        if not part.strip():
            continue
        b = parse_bulletin(part, player=player)
        if isinstance(b, list):
            errors.extend(b)
            continue
        if b.ref is None:
            errors.append(f"Scrabble « {part.strip()} » sans référence.")
            continue
        entries.append((b.ref, b.word))
    if errors:
        return errors
    return ScrabbleSheet(player, tuple(entries), count)


def list_scrabbles(board: Board, rack: str, config: GameConfig) -> list[GeneratedMove]:
    """Every distinct scrabble of a round (RULES §7.5 identity: start square, direction,
    word with the joker's letter resolved) — :func:`puzzles.solver.superscrabble_moves`."""
    from puzzles.solver import superscrabble_moves

    return superscrabble_moves(board, rack, config)


def correct_scrabble_sheet(
    sheet: ScrabbleSheet | None, answers: Sequence[GeneratedMove], player: str = ""
) -> SheetVerdict:
    """One point per distinct valid scrabble; invalid or repeated entries score 0; a count
    missing or different from the number of entries written → one technical warning
    (INFERRED)."""
    who = sheet.player if sheet is not None and sheet.player else player
    if sheet is None:
        return SheetVerdict(who, 0, 0, 0, 0, "Pas de feuille : zéro.")
    valid_ids = {(format_ref(m.ref), m.word.upper()) for m in answers}
    seen: set[tuple[str, str]] = set()
    valid = invalid = dup = 0
    for ref, word in sheet.entries:
        ident = (ref, word.upper())
        if ident in seen:
            dup += 1
        elif ident in valid_ids:
            valid += 1
            seen.add(ident)
        else:
            invalid += 1
            seen.add(ident)
    notes = [f"{valid} scrabble(s) valable(s)"]
    if invalid:
        notes.append(f"{invalid} non valable(s)")
    if dup:
        notes.append(f"{dup} répété(s)")
    warn = 0
    if sheet.count is None:
        warn = 1
        notes.append("avertissement : nombre de scrabbles absent")
    elif sheet.count != len(sheet.entries):
        warn = 1
        notes.append(
            f"avertissement : nombre écrit {sheet.count}, {len(sheet.entries)} scrabbles listés"
        )
    return SheetVerdict(who, valid, invalid, dup, warn, " ; ".join(notes) + ".")


def choose_scrabble(
    board: Board, answers: Sequence[GeneratedMove], config: GameConfig
) -> GeneratedMove | None:
    """The scrabble the engine places when the arbitre asks it to choose (INFERRED): the
    best score, then the FISF top order (:func:`puzzles.duplicate.rank_moves`)."""
    if not answers:
        return None
    ranked, _ = rank_moves(answers, board, "", "", config.tileset, DuplicateSettings())
    return ranked[0]


def rank_superscrabble(
    rounds: Sequence[Sequence[SheetVerdict]], settings: VariantSettings | None = None
) -> list[SuperscrabbleRow]:
    """Total of valid scrabbles over the rounds, less the ranking-point conversion of the
    warnings (RULES §7.7, §5.3); equal totals share a rank."""
    s = settings or VariantSettings()
    acc: dict[str, list[int]] = {}
    for verdicts in rounds:
        for v in verdicts:
            a = acc.setdefault(v.player, [0, 0])
            a[0] += v.valid
            a[1] += v.warnings
    rows = []
    for name, (valid, w) in acc.items():
        pen = ranking_point_penalty(w, s)
        rows.append(SuperscrabbleRow(name, valid - pen, valid, w, pen))
    rows.sort(key=lambda r: (-r.points, r.player))
    ranks = shared_ranks([r.points for r in rows])
    return [replace(r, rank=k) for r, k in zip(rows, ranks, strict=True)]



# --- the stored forms -----------------------------------------------------------------------
def scrabble_top_dict(chosen: GeneratedMove | None, answers: Sequence[GeneratedMove],
                      reason: str) -> ScrabbleTopJSON:
    listed: list[ScoredJSON] = [{"ref": m["ref"], "word": m["word"], "score": m["score"]}
                                for m in (move_dict(a) for a in answers)]
    if chosen is None:
        return {"ref": "—", "word": "", "score": 0, "move": None, "ties": [],
                "scrabbles": listed, "reason": "Aucun scrabble : la grille ne change pas."}
    m = move_dict(chosen)
    return {"ref": m["ref"], "word": m["word"], "score": m["score"], "move": m["move"],
            "ties": [], "scrabbles": listed, "reason": reason}


def sheet_dict(sheet: ScrabbleSheet) -> SheetJSON:
    return {"entries": [list(e) for e in sheet.entries], "count": sheet.count}


def sheet_of(d: SheetJSON, player: str) -> ScrabbleSheet:
    return ScrabbleSheet(player, tuple((r, w) for r, w in d["entries"]), d.get("count"))


def sheet_line(b: SheetJSON) -> str:
    listed = ", ".join(f"{r} {w}" for r, w in b["entries"])
    return listed + (f" ; {b['count']}" if b.get("count") is not None else "")


def sheet_result(sv: SheetVerdict, kind: str) -> ResultJSON:
    return {"score": int(sv.valid), "kind": kind, "warnings": int(sv.warnings), "solo": 0,
            "reason": sv.reason_fr, "ref": None, "word": None, "invalid": int(sv.invalid),
            "duplicates": int(sv.duplicates)}


def sheet_verdict_of(r: ResultJSON, player: str) -> SheetVerdict:
    return SheetVerdict(player, int(r["score"]), int(r.get("invalid", 0)),
                        int(r.get("duplicates", 0)), int(r["warnings"]), r["reason"])



# --- the round game ---------------------------------------------------------------------------
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
    return SuperscrabbleSpec(start, tuple(racks)), _placed_start(start, config)


def _start_grid(start: object, config: GameConfig) -> str:
    """The grid of a replayed Partie de Superscrabble: the arbitre's 2-letter word
    (``H7 LA``) through the centre; French :class:`DuplicateError` (the replay's texts)."""
    if not isinstance(start, str) or len(start.split()) != 2:
        raise DuplicateError("Partie de Superscrabble : start est le mot de 2 lettres placé "
                             "par l'arbitre (ex. « H7 LA »).")
    return _placed_start(start, config)


def _placed_start(start: str, config: GameConfig) -> str:
    """The grid with the arbitre's 2-letter word ``REF WORD`` placed through the centre (the
    console's and the replay's, once their own form is checked); French
    :class:`DuplicateError`."""
    board = Board()
    ref, word = start.split()
    try:
        pl = Placement.from_notation(board, ref, word)
    except Exception as exc:  # a reference or word the engine refuses, whatever its error
        raise DuplicateError(f"Partie de Superscrabble : mot de départ — {exc}") from None
    if len(word) != 2 or config.layout.center not in pl.squares:
        raise DuplicateError("Partie de Superscrabble : le mot de départ a 2 lettres et couvre "
                             "la case centrale.")
    pl.apply(board)
    return str(board.to_cgp())


def _spec(settings: GameSettings) -> SuperscrabbleSpec:
    if settings.superscrabble is None:
        raise DuplicateError("Partie de Superscrabble : le mot de départ et les tirages "
                             "manquent.")
    return settings.superscrabble


class SuperscrabbleGame(VariantGame):
    """The Partie de Superscrabble."""

    key = "superscrabble"
    label = "Partie de Superscrabble"
    rules_page = "partie_superscrabble"
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
             round_no: int, *, listed: str | None = None) -> DrawnRound | Finished:
        """The arbitre's rack of this round on the grid as it stands; every scrabble listed,
        the engine's choice retained until the arbitre picks another."""
        racks = _spec(settings).racks
        if round_no > len(racks):
            return Finished(state_text, f"Les {len(racks)} coups annoncés ont été joués.")
        rack = racks[round_no - 1].replace(" ", "").upper()
        if len(rack) != 7:
            raise DuplicateError(f"Partie de Superscrabble, coup {round_no} : {len(rack)} "
                                 "lettres au lieu de 7.")
        board = Board.from_cgp(state_text)
        answers = list_scrabbles(board, rack, config)
        chosen = choose_scrabble(board, answers, config)
        draw: DrawJSON = {"reliquat": "", "new": rack, "rack": rack, "rejected": [],
                          "minimum": 0, "notation": rack}
        return DrawnRound(draw, state_text, state_text,
                          scrabble_top_dict(chosen, answers, ENGINE_CHOICE))

    def finish(self, state_text: str, reason: str) -> str:
        return state_text  # the grid: nothing in it says the game is over

    def choose(self, round: RoundRecord, text: str, settings: GameSettings,
               config: GameConfig) -> RoundTopJSON:
        """A GAME.json's ``choices``: the scrabble the arbitre places (« H4 RESTAIT »)."""
        answers = self.scrabbles(round, config)
        parts = text.split()
        wanted = (parts[0].upper(), parts[-1].upper()) if len(parts) == 2 else None
        placed = next((m for m in answers if wanted and (format_ref(m.ref).upper(),
                                                          m.word.upper()) == wanted), None)
        if placed is None:
            raise DuplicateError(f"Partie de Superscrabble, coup {round.number} : « {text} » "
                                 "n'est pas un scrabble de ce tirage.")
        return scrabble_top_dict(placed, answers, "Scrabble choisi par l'arbitre.")

    # --- the replay ------------------------------------------------------------------------
    game_keys = frozenset({"variant", "settings", "start", "racks", "draws", "choices",
                           "players", "lexicon", "title"})

    @property
    def settings_variant(self) -> str:
        return "top"  # the Partie de Superscrabble is played on the Duplicate Top's rules

    def load(self, data: Mapping[str, object], config: GameConfig | None) -> Loaded:
        """GAME.json: ``start`` (the arbitre's 2-letter word, ``H7 LA``; or a position
        object, docs/DUPLICATE.md « Partir d'une position »), ``racks`` (one 7-letter draw
        per round, ``draws`` the same), optional ``choices`` (the scrabble the arbitre
        places each round, ``H4 RESTAIT``; missing or null: the engine chooses)."""
        unknown = sorted(set(data) - self.game_keys)
        if unknown:
            raise DuplicateError(f"Partie : clés inconnues {', '.join(unknown)}.")
        if "racks" in data and "draws" in data:
            raise DuplicateError("Partie de Superscrabble : racks ou draws (le même : les "
                                 "tirages de l'arbitre), pas les deux.")
        settings = self.read_settings(cast(Mapping[str, Any], data.get("settings") or {}))
        cfg = config or GameConfig.default(settings.duplicate.lang)
        racks = data.get("racks", data.get("draws"))
        if not isinstance(racks, list) or not all(isinstance(r, str) for r in racks) \
                or not racks:
            raise DuplicateError("Partie de Superscrabble : racks est une liste de tirages de "
                                 "7 lettres.")
        choices = data.get("choices") or []
        if not isinstance(choices, list):
            raise DuplicateError("Partie de Superscrabble : choices est une liste.")
        start = data.get("start")
        first_round = 1
        if isinstance(start, Mapping):
            position = StartPosition.from_dict(start)
            grid, first_round, start = self.position(position, settings), position.round, ""
        else:
            grid = _start_grid(start, cfg)
        spec = SuperscrabbleSpec(str(start), tuple(str(r) for r in racks))
        return Loaded(settings.with_superscrabble(spec), grid, None, None, tuple(choices),
                      first_round)

    def position(self, start: StartPosition, settings: GameSettings) -> str:
        """A Superscrabble position is its grid (the racks are the game's, by round)."""
        try:
            return str(Board.from_cgp(start.grid).to_cgp())
        except EngineError as exc:
            raise DuplicateError(f"Partie : start.grid — {exc}") from None

    def position_of(self, round: RoundRecord) -> StartPosition:
        return StartPosition(round.grid_before, round=round.number)

    def listed_draw(self, round: RoundRecord) -> str | None:
        return None

    def report(self, settings: GameSettings, rounds: Sequence[RoundRecord], end: Finished,
               players: Sequence[str]) -> ReplayReport:
        out: list[VariantRound] = []
        all_sheets: list[list[SheetVerdict]] = []
        for r in rounds:
            top = cast(ScrabbleTopJSON, r.top)
            sheets = [sheet_verdict_of(x, p) for p, x in r.results.items()]
            all_sheets.append(sheets)
            line = f"{top['ref']} {top['word']} {top['score']}" if top.get("move") else "—"
            out.append(VariantRound(r.number, r.draw["notation"], line, int(top["score"]),
                                    top["reason"], r.grid_after, (), tuple(sheets),
                                    tuple(f"{m['ref']} {m['word']}" for m in top["scrabbles"])))
        ranking = rank_superscrabble(all_sheets, settings.rules) if players else []
        return VariantReplay(self.key, tuple(out), end.end_reason,
                             sum(r.top_score for r in out),
                             scrabble_standings=tuple(ranking), label=self.label)

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


#: this module's round games, found by :mod:`puzzles.duplicate.registry`, and their place
#: in its lists (a new module takes the next number)
LISTED = 5
GAMES = (SuperscrabbleGame(),)
