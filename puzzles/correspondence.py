"""The FRSc correspondence game (*partida de Scrabble prin corespondență*, docs/RULES.md §8.1,
docs/VARIANTS.md): a two-player free game on a letter row fixed at the start and shared by a
series of games — RED starts, BLUE answers, racks refilled from the row in order, no
exchanges, the RED/BLUE caps on the recorded scores of rounds I and II, the end of game and
the leftover letters, the result; the score sheet (*fișa de concurs*) as text that rebuilds
the game; round-robin pairings and the table of a series with a rating coefficient.

Pure and deterministic; every INFERRED rule (G16) is a field of :class:`CorrespondenceSettings`;
every refusal is a :class:`CorrespondenceError` (French message), its own, not the Duplicate's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from puzzles.duplicate import DuplicateError, Lang, minus_tiles, secret_bag
from puzzles.ties import shared_ranks
from scoring.board import Board
from scoring.config import GameConfig
from scoring.notation import format_ref
from scoring.tiles import JOKER, tileset
from scoring.validate import check_move


class CorrespondenceError(ValueError):
    """A row, a move or a score sheet of the correspondence game that cannot be used (French
    message); the game is unchanged."""


RED, BLUE = 0, 1
COLOURS = ("ROUGE", "BLEU")
SHEET_HEADER = "arbitre-fisa-de-concurs 1"


@dataclass(frozen=True)
class CorrespondenceSettings:
    """The §8.1 rules and their INFERRED parts (G16)."""

    lang: str = "fr"
    #: caps on the recorded score: {round: (RED max, BLUE max)} (« I: 10 / 20, II: 30 / 40 »)
    caps: tuple[tuple[int, int, int], ...] = ((1, 10, 20), (2, 30, 40))
    #: the game also ends after this many consecutive passes (INFERRED: 2 each)
    passes_to_end: int = 4
    #: leftover letters: their value is subtracted from their holder and, when a player has
    #: emptied his rack, added to him (``subtract_and_add``, E20) or only subtracted
    leftover_rule: str = "subtract_and_add"
    #: the first word need not be horizontal outside the FISF Duplicate (G11)
    first_move_horizontal: bool = False
    #: rating: Elo-style coefficient, start value and K factor (docs/VARIANTS.md)
    rating_start: float = 1500.0
    rating_k: float = 20.0

    def cap(self, round_no: int, colour: int) -> int | None:
        for rnd, red, blue in self.caps:
            if rnd == round_no:
                return red if colour == RED else blue
        return None


@dataclass(frozen=True)
class CorrMove:
    """One turn: ``ref``/``word`` (None for a pass), the score made and the score recorded
    (capped in rounds I and II)."""

    colour: int
    round_no: int
    ref: str | None
    word: str | None
    score: int
    recorded: int
    drawn: str = ""


@dataclass(frozen=True)
class CorrState:
    row: str
    board_cgp: str
    pos: int
    racks: tuple[str, str]
    recorded: tuple[int, int] = (0, 0)
    moves: tuple[CorrMove, ...] = ()
    passes: int = 0
    finished: bool = False
    end_reason: str = ""
    leftover: tuple[int, int] = (0, 0)

    @property
    def board(self) -> Board:
        return Board.from_cgp(self.board_cgp)

    @property
    def turn(self) -> int:
        return len(self.moves) % 2

    @property
    def round_no(self) -> int:
        return len(self.moves) // 2 + 1

    @property
    def totals(self) -> tuple[int, int]:
        """Final (or running) totals: recorded scores, then the leftover adjustment."""
        return (self.recorded[0] + self.leftover[0], self.recorded[1] + self.leftover[1])


def new_game(row: str, settings: CorrespondenceSettings | None = None) -> CorrState:
    """RED takes letters 1–7 of the row, BLUE 8–14 (INFERRED, G16). The row must be a part
    of the tile set (``?`` for a joker)."""
    s = settings or CorrespondenceSettings()
    letters = row.replace(" ", "").upper()
    ts = tileset(s.lang)
    counts = Counter(letters)
    for ch, n in sorted(counts.items()):
        have = ts.counts.get(ch, 0)
        if have == 0:
            raise CorrespondenceError(f"Rangée : la lettre « {ch} » n'existe pas dans le jeu.")
        if n > have:
            raise CorrespondenceError(f"Rangée : {n} fois « {ch} », le jeu n'en compte que {have}.")
    return CorrState(letters, Board().to_cgp(), min(14, len(letters)),
                     (letters[:7], letters[7:14]))


def row_from_seed(lang: Lang, seed: int) -> str:
    """The whole tile set of ``lang`` as one letter row (``?`` a joker), in the order
    ``seed`` (0 to 2**128 − 1) gives: the Duplicate's unbiased shuffle of the bag
    (:func:`puzzles.duplicate.secret_bag`), so the arbitre draws the row instead of typing
    about a hundred letters, and anyone given the seed can draw it again and check it; a seed
    out of range is a :class:`CorrespondenceError`."""
    try:
        return "".join(secret_bag(lang, seed))
    except DuplicateError as exc:
        raise CorrespondenceError(str(exc)) from None


def _config(config: GameConfig, board: Board, s: CorrespondenceSettings) -> GameConfig:
    if board.is_empty() and s.first_move_horizontal:
        return replace(config, first_move_horizontal=True)
    return config


def play(
    state: CorrState,
    ref: str | None,
    word: str | None,
    config: GameConfig,
    settings: CorrespondenceSettings | None = None,
) -> CorrState:
    """The player to move plays ``word`` at ``ref`` (both None: he passes). French errors
    (illegal move, letters not in his rack, game over) raise
    :class:`~puzzles.duplicate.CorrespondenceError`; the state is unchanged then."""
    s = settings or CorrespondenceSettings()
    if state.finished:
        raise CorrespondenceError("La partie est terminée.")
    colour, rnd = state.turn, state.round_no
    racks = list(state.racks)
    if ref is None and word is None:
        move = CorrMove(colour, rnd, None, None, 0, 0)
        after = replace(state, moves=(*state.moves, move), passes=state.passes + 1)
        if after.passes >= s.passes_to_end:
            return _end(after, f"{s.passes_to_end} passes consécutives.", None, s, config)
        return after
    if ref is None or word is None:
        raise CorrespondenceError("Coup incomplet : la référence et le mot, ou « passe ».")
    board = state.board
    v = check_move(board, ref, word, _config(config, board, s))
    if not v.ok or v.placement is None:
        why = v.reasons[0] if v.reasons else (
            f"mot non admis : {v.invalid_words[0].upper()}" if v.invalid_words else "coup illégal"
        )
        raise CorrespondenceError(
            f"{COLOURS[colour].capitalize()} : {word} en {ref} refusé — {why}")
    used = "".join(JOKER if t.joker else t.letter for t in v.placement.tiles)
    left = minus_tiles(racks[colour], used)
    if left is None:
        raise CorrespondenceError(
            f"{COLOURS[colour].capitalize()} : {word} en {ref} demande des lettres absentes "
            f"du chevalet {racks[colour]}."
        )
    need = 7 - len(left)
    drawn = state.row[state.pos : state.pos + need]
    racks[colour] = left + drawn
    v.placement.apply(board)
    cap = s.cap(rnd, colour)
    recorded = v.score if cap is None else min(v.score, cap)
    rec = list(state.recorded)
    rec[colour] += recorded
    move = CorrMove(colour, rnd, format_ref(v.ref) if v.ref else ref, v.word or word, v.score,
                    recorded, drawn)
    after = replace(
        state,
        board_cgp=board.to_cgp(),
        pos=state.pos + len(drawn),
        racks=(racks[0], racks[1]),
        recorded=(rec[0], rec[1]),
        moves=(*state.moves, move),
        passes=0,
    )
    if not racks[colour] and after.pos >= len(after.row):
        return _end(after, f"{COLOURS[colour].capitalize()} a posé toutes ses lettres.", colour,
                    s, config)
    return after


def _end(
    state: CorrState, reason: str, out: int | None, s: CorrespondenceSettings,
    config: GameConfig,
) -> CorrState:
    ts = config.tileset
    values = [sum(ts.value(ch) if ch != JOKER else 0 for ch in r) for r in state.racks]
    adj = [-values[0], -values[1]]
    if out is not None and s.leftover_rule == "subtract_and_add":
        adj[out] += values[1 - out]
    return replace(state, finished=True, end_reason=reason, leftover=(adj[0], adj[1]))


def result(state: CorrState) -> tuple[float, float]:
    """(RED, BLUE) result points: 1 win, ½ draw, 0 loss."""
    red, blue = state.totals
    if red == blue:
        return (0.5, 0.5)
    return (1.0, 0.0) if red > blue else (0.0, 1.0)


# --- the score sheet (fișa de concurs) ------------------------------------------------------
@dataclass(frozen=True)
class SheetHeader:
    event: str
    red: str
    blue: str
    arbiters: str = ""
    red_coefficient: float | None = None
    red_rank: int | None = None


def sheet_text(state: CorrState, header: SheetHeader, times: Sequence[str] = ()) -> str:
    """The fișa de concurs: front (event, players, arbiters, RED's previous coefficient and
    rank, the row, the grid) and back (the moves with the scores made and recorded, the
    thinking time of each move when ``times`` gives it — one token per move, ``26h05`` — and
    the final results); :func:`parse_sheet` rebuilds the game from it (the times are read
    past)."""
    lines = [
        SHEET_HEADER,
        f"épreuve: {header.event}",
        f"rouge: {header.red}",
        f"bleu: {header.blue}",
        f"arbitres: {header.arbiters}",
        "coefficient rouge: "
        + ("" if header.red_coefficient is None else f"{header.red_coefficient:.1f}"),
        f"rang rouge: {'' if header.red_rank is None else header.red_rank}",
        f"rangée: {state.row}",
        f"grille: {state.board_cgp}",
        "coups:",
    ]
    for i, m in enumerate(state.moves):
        what = f"{m.ref} {m.word}" if m.ref else "passe"
        spent = f" {times[i]}" if i < len(times) and times[i] else ""
        lines.append(
            f"{m.round_no} {COLOURS[m.colour].lower()} {what} {m.score} {m.recorded}{spent}"
        )
    if state.finished:
        red, blue = state.totals
        lines.append(f"fin: {state.end_reason}")
        lines.append(f"restes: {state.leftover[0]} {state.leftover[1]}")
        lines.append(f"résultat: {red} {blue}")
    return "\n".join(lines) + "\n"


def parse_sheet(
    text: str, config: GameConfig, settings: CorrespondenceSettings | None = None
) -> tuple[SheetHeader, CorrState]:
    """Rebuild a game from its sheet: the moves are replayed on the row (the scores written
    are checked against the engine's; a difference is a French error)."""
    lines = [ln for ln in text.split("\n") if ln.strip()]
    if not lines or lines[0].strip() != SHEET_HEADER:
        raise CorrespondenceError(f"Fiche : la première ligne doit être « {SHEET_HEADER} ».")
    values: dict[str, str] = {}
    i = 1
    while i < len(lines) and lines[i].strip() != "coups:":
        key, sep, value = lines[i].partition(":")
        if not sep:
            raise CorrespondenceError(f"Fiche : ligne illisible « {lines[i][:60]} ».")
        values[key.strip()] = value.strip()
        i += 1
    for need in ("épreuve", "rouge", "bleu", "rangée"):
        if need not in values:
            raise CorrespondenceError(f"Fiche : il manque « {need} ».")
    coef = values.get("coefficient rouge") or ""
    rank = values.get("rang rouge") or ""
    try:
        header = SheetHeader(
            values["épreuve"], values["rouge"], values["bleu"], values.get("arbitres", ""),
            float(coef) if coef else None, int(rank) if rank else None,
        )
    except ValueError:
        raise CorrespondenceError("Fiche : coefficient ou rang illisible.") from None
    state = new_game(values["rangée"], settings)
    for line in lines[i + 1 :]:
        if line.startswith(("fin:", "restes:", "résultat:")):
            continue
        parts = line.split()
        colour = {"rouge": RED, "bleu": BLUE}.get(parts[1] if len(parts) > 1 else "")
        if colour is None or not parts[0].isdigit():
            raise CorrespondenceError(f"Fiche : coup illisible « {line[:60]} ».")
        if colour != state.turn or int(parts[0]) != state.round_no:
            raise CorrespondenceError(
                f"Fiche : « {line[:60]} » — c'est au tour de {COLOURS[state.turn].lower()}, "
                f"tour {state.round_no}."
            )
        if parts[2] == "passe":
            state = play(state, None, None, config, settings)
            continue
        if len(parts) < 4:
            raise CorrespondenceError(f"Fiche : coup illisible « {line[:60]} ».")
        state = play(state, parts[2], parts[3], config, settings)
        last = state.moves[-1]
        written = [int(x) for x in parts[4:6] if x.lstrip("-").isdigit()]
        if written and written[0] != last.score:
            raise CorrespondenceError(
                f"Fiche : {parts[3]} en {parts[2]} vaut {last.score}, pas {written[0]}."
            )
    return header, state


# --- series: pairings and table --------------------------------------------------------------
def round_robin(players: Sequence[str]) -> list[list[tuple[str, str]]]:
    """Round-robin pairings within a group: one list of (RED, BLUE) pairs per round (circle
    method); with an odd number one player rests each round.

    Colours are balanced: every player is RED in half of his games (one more or one fewer
    when he plays an odd number). The circle method decides who meets whom in which round;
    the colours follow the rotational rule on the players' places in ``players``: among
    ``m`` players (``m`` odd: all of them; ``m`` even: all but the last), ``i`` is RED
    against ``j`` when ``(j − i) mod m`` is 1 … (m − 1) / 2, so each has as many REDs as
    BLUEs; with an even number, the last player is RED against the players of odd place and
    BLUE against the others (each of them one game more of one colour, the last one RED
    n/2 − 1 times and BLUE n/2 times)."""
    names = list(players)
    place = {name: i for i, name in enumerate(names)}
    total = len(names)
    m = total if total % 2 else total - 1

    def red_first(a: str, b: str) -> bool:
        i, j = place[a], place[b]
        if total % 2 == 0 and (i == total - 1 or j == total - 1):
            other = j if i == total - 1 else i
            return (i == total - 1) == (other % 2 == 1)
        return 1 <= (j - i) % m <= (m - 1) // 2

    if len(names) % 2:
        names.append("")
    n = len(names)
    rounds: list[list[tuple[str, str]]] = []
    for _ in range(n - 1):
        pairs: list[tuple[str, str]] = []
        for k in range(n // 2):
            a, b = names[k], names[n - 1 - k]
            if not a or not b:
                continue
            pairs.append((a, b) if red_first(a, b) else (b, a))
        rounds.append(pairs)
        names = [names[0], names[-1], *names[1:-1]]
    return rounds


@dataclass(frozen=True)
class GameRecord:
    red: str
    blue: str
    red_total: int
    blue_total: int


@dataclass(frozen=True)
class SeriesRow:
    player: str
    games: int
    wins: int
    draws: int
    losses: int
    points: float
    spread: int
    coefficient: float
    rank: int = 0


def expected_score(rating: float, opponent: float) -> float:
    """Elo expectation: 1 / (1 + 10^((R_opp − R) / 400))."""
    return 1.0 / (1.0 + 10 ** ((opponent - rating) / 400.0))


def series_table(
    games: Sequence[GameRecord],
    settings: CorrespondenceSettings | None = None,
    previous: Mapping[str, float] | None = None,
) -> list[SeriesRow]:
    """The table of a series: games, W/D/L, points (1, ½, 0), spread, and the rating
    coefficient — Elo-style: each game moves R by K × (S − E), E = expected_score, starting
    from ``previous`` (else ``rating_start``), games taken in order. Ranked by points, then
    spread, then coefficient; equal on all three share a rank."""
    s = settings or CorrespondenceSettings()
    rating: dict[str, float] = {}
    acc: dict[str, list[int]] = {}
    for g in games:
        for name in (g.red, g.blue):
            rating.setdefault(name, (previous or {}).get(name, s.rating_start))
            acc.setdefault(name, [0, 0, 0, 0, 0])  # games, W, D, L, spread
        sr = 1.0 if g.red_total > g.blue_total else 0.5 if g.red_total == g.blue_total else 0.0
        er = expected_score(rating[g.red], rating[g.blue])
        delta = s.rating_k * (sr - er)
        rating[g.red] += delta
        rating[g.blue] -= delta
        for name, score, mine, theirs in (
            (g.red, sr, g.red_total, g.blue_total), (g.blue, 1 - sr, g.blue_total, g.red_total)
        ):
            a = acc[name]
            a[0] += 1
            a[1 if score == 1 else 2 if score == 0.5 else 3] += 1
            a[4] += mine - theirs
    rows = [
        SeriesRow(name, a[0], a[1], a[2], a[3], a[1] + a[2] / 2, a[4], round(rating[name], 1))
        for name, a in acc.items()
    ]
    rows.sort(key=lambda r: (-r.points, -r.spread, -r.coefficient, r.player))
    ranks = shared_ranks([(r.points, r.spread, r.coefficient) for r in rows])
    return [replace(r, rank=k) for r, k in zip(rows, ranks, strict=True)]


__all__ = [
    "BLUE", "RED", "CorrMove", "CorrState", "CorrespondenceSettings", "GameRecord",
    "SeriesRow", "SheetHeader", "expected_score", "new_game", "parse_sheet", "play", "result",
    "round_robin", "series_table", "sheet_text",
]
