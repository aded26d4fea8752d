"""The verifier: judges one player's feuille de route against a problem and a lexicon, and
writes the :class:`Report` (per move: status, French reasons, claimed and true score, cumul;
then warnings, penalties and the final score).

Procedure (RULES §5.2, formalised): the player's own grid is replayed move by move on a
*physical* board (what he built). Each move is materialised, its letters checked against
what the game makes available (stock, announced group, next letters of the row, pool),
its placement and every word it forms checked, and its true score computed. A move that
fails is worth 0 but stays on the physical board; the *effective* board leaves it out.
Afterwards the cascade: every later move that forms a word containing a tile of a zeroed or
annulled move, or that would not be legal on the effective board, is zeroed too, move by
move, so zeros propagate to any depth. Warnings (wrong or missing score, cumul, letters)
are counted one per billet and turned into penalties per RULES §5.3.

:func:`verify` never raises on a bad sheet: whatever it cannot read becomes a reason.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import datetime
from enum import StrEnum
from functools import cache
from typing import Any

from puzzles.feuille import Feuille, FeuilleMove
from puzzles.problem import GameType, Problem, first_group_size, romanian_group1_errors
from puzzles.rounds import RoundTimes
from puzzles.settings import Settings
from scoring.board import Board
from scoring.config import GameConfig, WordList
from scoring.errors import EngineError
from scoring.layout import SIZE
from scoring.move import Placement
from scoring.notation import Ref, format_ref, parse_ref
from scoring.score import FormedWord
from scoring.tiles import JOKER
from scoring.validate import Verdict, check_move, geometry_reasons


class MoveStatus(StrEnum):
    """How a move was judged."""

    VALID = "valide"
    WARNING = "avertissement"
    PENALTY = "pénalité"
    ZERO = "zéro"
    CASCADE_ZERO = "zéro en cascade"
    ANNULLED = "annulé"
    PASSED = "passe"
    DUPLICATE = "doublon"
    OUT = "hors jeu"
    # rangée (RULES §7.3): the move that breaks the row is ANNULLED; the moves after it are
    # not played at all
    NOT_PLAYED = "non joué"

    @property
    def counts(self) -> bool:
        """The move's score counts (possibly with a warning or a penalty)."""
        return self in (MoveStatus.VALID, MoveStatus.WARNING, MoveStatus.PENALTY)


@dataclass(frozen=True)
class MoveReport:
    """The verdict on one line of the sheet.

    ``letters``: the letters the move actually put on the grid (``?`` a joker);
    ``declared_letters``: what the sheet says. ``true_score``: what the move is worth on the
    grid (None when it could not be placed); ``score``: what it earns (0 unless it counts,
    minus any penalty). ``cumul``: the corrected running total. For Superscrabble entries
    ``score`` is 1 for a counted scrabble.
    """

    number: int
    line: int
    status: MoveStatus
    ref: str | None = None
    word: str | None = None
    group: int | None = None
    letters: str | None = None
    declared_letters: str | None = None
    claimed_score: int | None = None
    true_score: int | None = None
    score: int = 0
    claimed_cumul: int | None = None
    cumul: int = 0
    penalty: int = 0
    reasons: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    annul: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["status"] = self.status.value
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> MoveReport:
        data = dict(d)
        data["status"] = MoveStatus(data["status"])
        for key in ("reasons", "warnings", "words", "annul"):
            data[key] = tuple(data.get(key, ()))
        return cls(**data)


@dataclass(frozen=True)
class Report:
    """The verification of one sheet. ``final_score`` is what the ranking uses: points, or
    in the ranking-point games (Superscrabble family, Exclusif résistance) a count."""

    problem_id: str
    game: GameType
    player: str | None
    submitted_at: datetime | None
    moves: tuple[MoveReport, ...]
    scrabbles: tuple[MoveReport, ...]
    total: int
    warnings: int
    penalty: int
    final_score: int
    unit: str
    lexicon_name: str | None = None
    lexicon_sha256: str | None = None
    lexicon_word_count: int | None = None
    errors: tuple[str, ...] = ()
    score_vector: tuple[int, ...] = ()
    construction_letters: int | None = None
    eliminated_at: int | None = None
    settings_changed: tuple[str, ...] = ()

    @property
    def valid_scrabbles(self) -> int:
        return sum(1 for s in self.scrabbles if s.status.counts)

    @property
    def zeroed(self) -> tuple[int, ...]:
        """Numbers of the moves (and Superscrabble answers) the verifier zeroed: zero, zero in
        cascade, not played after a broken rangée, the move that broke it, a repeated
        answer, out of the game. A player's own annulment and a pass are not faults."""
        faults = {MoveStatus.ZERO, MoveStatus.CASCADE_ZERO, MoveStatus.NOT_PLAYED,
                  MoveStatus.DUPLICATE, MoveStatus.OUT}
        if self.game is GameType.RANGEE:
            faults.add(MoveStatus.ANNULLED)
        return tuple(m.number for m in self.moves + self.scrabbles if m.status in faults)

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "format": "arbitre-rapport",
            "version": 1,
            "problem_id": self.problem_id,
            "game": self.game.value,
            "player": self.player,
            "submitted_at": self.submitted_at.isoformat() if self.submitted_at else None,
            "moves": [m.to_dict() for m in self.moves],
            "scrabbles": [m.to_dict() for m in self.scrabbles],
            "total": self.total,
            "warnings": self.warnings,
            "penalty": self.penalty,
            "final_score": self.final_score,
            "unit": self.unit,
            "lexicon": {
                "name": self.lexicon_name,
                "sha256": self.lexicon_sha256,
                "word_count": self.lexicon_word_count,
            },
            "errors": list(self.errors),
            "score_vector": list(self.score_vector),
            "construction_letters": self.construction_letters,
            "eliminated_at": self.eliminated_at,
            "settings_changed": list(self.settings_changed),
        }
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2) + "\n"

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Report:
        lex = d.get("lexicon") or {}
        sub = d.get("submitted_at")
        return cls(
            problem_id=d["problem_id"],
            game=GameType(d["game"]),
            player=d.get("player"),
            submitted_at=datetime.fromisoformat(sub) if sub else None,
            moves=tuple(MoveReport.from_dict(m) for m in d.get("moves", ())),
            scrabbles=tuple(MoveReport.from_dict(m) for m in d.get("scrabbles", ())),
            total=int(d["total"]),
            warnings=int(d["warnings"]),
            penalty=int(d["penalty"]),
            final_score=int(d["final_score"]),
            unit=str(d["unit"]),
            lexicon_name=lex.get("name"),
            lexicon_sha256=lex.get("sha256"),
            lexicon_word_count=lex.get("word_count"),
            errors=tuple(d.get("errors", ())),
            score_vector=tuple(d.get("score_vector", ())),
            construction_letters=d.get("construction_letters"),
            eliminated_at=d.get("eliminated_at"),
            settings_changed=tuple(d.get("settings_changed", ())),
        )

    @classmethod
    def from_json(cls, text: str) -> Report:
        return cls.from_dict(json.loads(text))

    def to_text(self) -> str:
        """The report in French, as sent to the player."""
        out = [f"Problème {self.problem_id} — {self.game.label}"]
        if self.player:
            out.append(f"Joueur : {self.player}")
        if self.submitted_at:
            out.append(f"Envoyé : {self.submitted_at.isoformat()}")
        if self.lexicon_name:
            out.append(
                f"Lexique : {self.lexicon_name} ({self.lexicon_word_count} mots, "
                f"sha256 {self.lexicon_sha256})"
            )
        if self.settings_changed:
            out.append("Réglages modifiés : " + ", ".join(self.settings_changed))
        for e in self.errors:
            out.append(f"! {e}")
        if self.moves:
            out.append("")
            out.append(
                "Coup  Réf.  Mot              Annoncé  Exact  Compté  Cumul  Écrit  Verdict"
            )
            for m in self.moves:
                out.extend(_move_lines(m))
        if self.scrabbles:
            out.append("")
            out.append("Scrabbles :")
            for m in self.scrabbles:
                out.extend(_move_lines(m))
        out.append("")
        out.append(f"Total : {self.total} {self.unit}")
        out.append(f"Avertissements : {self.warnings}")
        out.append(f"Pénalité : {self.penalty} {self.unit}")
        if self.score_vector:
            out.append("Scores par coup : " + ", ".join(map(str, self.score_vector)))
        if self.construction_letters is not None:
            out.append(f"Lettres de construction : {self.construction_letters}")
        if self.eliminated_at is not None:
            out.append(f"Éliminé au coup {self.eliminated_at}")
        out.append(f"Score final : {self.final_score} {self.unit}")
        return "\n".join(out) + "\n"


def _move_lines(m: MoveReport) -> list[str]:
    def num(v: int | None) -> str:
        return "—" if v is None else str(v)

    word = m.word or ("Passe" if m.status is MoveStatus.PASSED else "—")
    head = (
        f"{m.number:>4}  {(m.ref or '—'):<5} {word:<16} "
        f"{num(m.claimed_score):>7}  {num(m.true_score):>5}  {m.score:>6}  {m.cumul:>5}  "
        f"{num(m.claimed_cumul):>5}  {m.status.value}"
    )
    lines = [head]
    if m.annul:
        lines.append(f"      annule les coups {', '.join(map(str, m.annul))}")
    lines.extend(f"      - {r}" for r in m.reasons)
    lines.extend(f"      - avertissement : {w}" for w in m.warnings)
    return lines


# --- the replay ---------------------------------------------------------------------------


@dataclass
class _Entry:
    """Working state of one sheet line during the replay."""

    idx: int
    move: FeuilleMove
    group: int | None = None
    placement: Placement | None = None
    ref: Ref | None = None
    word: str | None = None
    words: tuple[FormedWord, ...] = ()
    true_score: int | None = None
    status: MoveStatus = MoveStatus.VALID
    reasons: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    deps: set[int] = field(default_factory=set)
    board_before: Board | None = None
    owner_before: dict[int, int] = field(default_factory=dict)
    penalty: int = 0
    relocated: bool = False
    annul_done: tuple[int, ...] = ()

    @property
    def absent(self) -> bool:
        return self.status in (
            MoveStatus.ZERO, MoveStatus.CASCADE_ZERO, MoveStatus.ANNULLED, MoveStatus.OUT,
            MoveStatus.DUPLICATE, MoveStatus.NOT_PLAYED,
        )

    def zero(self, reason: str, status: MoveStatus = MoveStatus.ZERO) -> None:
        if not self.absent:
            self.status = status
        self.reasons.append(reason)


def _letters_of(p: Placement) -> str:
    return "".join(sorted(p.letters, key=lambda c: (c == JOKER, c)))


def _word_squares(w: FormedWord) -> list[int]:
    return w.ref.squares(len(w.text))


def _sentence(why: str) -> str:
    """``why`` continued after a colon: a capitalised first word is lowered (not a word
    written in capitals, such as RATS)."""
    if len(why) > 1 and why[0].isupper() and why[1].islower():
        return why[0].lower() + why[1:]
    return why


def _placement_error(why: str) -> str:
    return "Erreur de placement : " + _sentence(why)


def _fit_reasons(v: Verdict) -> list[str]:
    """Why a word that fits at its reference is zero, as S2 names the faults: « erreur de
    mot (principal ou de raccord) ou de placement »."""
    main = v.main_word
    invalid = set(v.invalid_words)
    out: list[str] = []
    for w in v.words:
        if w.text not in invalid:
            continue
        if w.main:
            out.append(f"Erreur de mot : {w.text.upper()} n'est pas admis.")
        else:
            formed = f" (formé par {main.text.upper()} en {format_ref(main.ref)})" if main else ""
            out.append(
                f"Erreur de mot de raccord : {w.text.upper()}{formed} n'est pas admis."
            )
    word_reasons = _word_reasons(v)
    out.extend(_placement_error(r) for r in v.reasons if r not in word_reasons)
    return out


def _word_reasons(v: Verdict) -> set[str]:
    """The engine's reasons that are word errors (scoring.validate), not placement ones."""
    return {f"Le mot {t.upper()} n'est pas admis." for t in v.invalid_words} | {
        f"Le mot secondaire {t.upper()} n'est pas admis." for t in v.invalid_words
    }


class _Verifier:
    def __init__(
        self,
        problem: Problem,
        feuille: Feuille,
        lexicon: WordList,
        settings: Settings,
        round_times: RoundTimes | None = None,
    ) -> None:
        self.problem = problem
        # correspondence Anticipation: each billet must have been sent within its round
        timed = problem.game.is_anticipation and settings.anticipation_round_timing
        self.rounds = round_times if timed else None
        self.feuille = feuille
        self.lexicon = lexicon
        self.settings = settings
        self.game = problem.game
        self.ts = problem.tileset
        self.config = GameConfig(
            tileset=self.ts, lexicon=lexicon, first_move_horizontal=settings.first_move_horizontal
        )
        self.errors: list[str] = []
        self.board = problem.initial_board() if self.game is GameType.SUPERSCRABBLE else Board()
        self.owner: dict[int, int] = {}
        self.entries: list[_Entry] = []
        # supplies
        self.stock: Counter[str] = Counter()
        self.pool: Counter[str] = Counter(problem.pool)
        self.row_pos = 0
        self.broken = False
        self.broken_at: int | None = None
        self.used_groups: set[int] = set()
        self.groups: tuple[str, ...] = problem.groups
        self.eliminated_at: int | None = None
        self.warned_billets: set[int] = set()

    # -- entry points -------------------------------------------------------------------
    def run(self) -> Report:
        g = self.game
        self._check_header()
        if g in (GameType.INTEGRAL, GameType.INTEGRAL_PARTIEL, GameType.SUPERSCRABBLE_INCOMPLET):
            self.stock = self.problem.construction_stock()
            if g is GameType.SUPERSCRABBLE_INCOMPLET and (
                self.settings.incomplet_construction_stock == "bag"
            ):
                self.stock = self.ts.bag()
        if g is GameType.ANTICIPATION_AVEUGLE:
            self._check_blind_groups()
        if g is GameType.SUPERSCRABBLE:
            lines = self.feuille.moves + self.feuille.scrabbles
            return self._report((), self._scrabbles(lines, self.problem.initial_board(), ()))
        moves = list(self.feuille.moves)
        if g.is_anticipation:
            moves.sort(key=lambda m: m.number)
        self._replay(moves)
        self._cascade()
        move_reports = self._finish_moves()
        scrabbles: tuple[MoveReport, ...] = ()
        if g is GameType.SUPERSCRABBLE_INCOMPLET:
            scrabbles = self._scrabbles(self.feuille.scrabbles, self.board, tuple(self.entries))
        elif self.feuille.scrabbles:
            self.errors.append(
                "La liste « Scrabbles » ne sert que dans les Superscrabble ; ignorée."
            )
        return self._report(move_reports, scrabbles)

    def _check_header(self) -> None:
        f, p = self.feuille, self.problem
        if f.problem_id and f.problem_id.strip().lower() != p.id.lower():
            self.errors.append(
                f"La feuille annonce le problème « {f.problem_id} », vérifiée contre « {p.id} »."
            )
        identity = getattr(self.lexicon, "identity", None)
        if p.lexicon is not None and p.lexicon.sha256 and identity is not None and (
            identity.sha256 != p.lexicon.sha256
        ):
            self.errors.append(
                f"Le lexique utilisé ({identity.name}, {identity.word_count} mots) n'est pas "
                f"celui du problème ({p.lexicon.name}, {p.lexicon.word_count} mots)."
            )
        if self.game is GameType.RANGEE and f.row is not None and f.row != p.row:
            self.errors.append(
                "La rangée recopiée sur la feuille diffère de la rangée affichée ; "
                "la rangée affichée fait foi."
            )

    def _check_blind_groups(self) -> None:
        groups = self.feuille.groups
        small = first_group_size(self.problem.lang)
        want = [small] + [7] * 14
        problems: list[str] = []
        if [len(x) for x in groups] != want:
            problems.append(
                f"{len(groups)} groupe(s) de tailles {[len(x) for x in groups]} "
                f"(attendu un groupe de {small} puis 14 groupes de 7)"
            )
        elif Counter("".join(groups)) != self.ts.bag():
            diff_plus = Counter("".join(groups)) - self.ts.bag()
            diff_minus = self.ts.bag() - Counter("".join(groups))
            problems.append(
                "les groupes ne forment pas le sac entier (en trop : "
                f"{''.join(sorted(diff_plus.elements())) or 'rien'} ; manquant : "
                f"{''.join(sorted(diff_minus.elements())) or 'rien'})"
            )
        elif self.problem.lang == "ro":
            problems.extend(
                why.rstrip(".") for why in romanian_group1_errors(self.ts, groups[0], False)
            )
        if problems:
            self.errors.append(
                "Groupes de l'anticipation aveugle invalides : " + "; ".join(problems) + "."
            )
            self.groups = ()
        else:
            self.groups = groups

    # -- replay -------------------------------------------------------------------------
    def _replay(self, moves: list[FeuilleMove]) -> None:
        g = self.game
        lines_per_billet = Counter(m.number for m in moves if not self._annul_only(m))
        seen_in_billet: Counter[int] = Counter()
        for i, mv in enumerate(moves):
            e = _Entry(i, mv)
            self.entries.append(e)
            annul_later = bool(mv.annul) and not (
                self.settings.annulment_before_move or self._annul_only(mv)
            )
            late_annul = self.rounds.annulment_late(mv.number) if (
                self.rounds and mv.annul) else None
            if late_annul:
                e.reasons.append(late_annul)
                annul_later = False
            elif mv.annul and not annul_later:
                self._annul(e)
            if self._annul_only(mv):
                e.status = MoveStatus.PASSED
                continue
            k = seen_in_billet[mv.number]
            seen_in_billet[mv.number] += 1
            if self.broken:
                e.zero(
                    f"Coup non joué : la rangée a été rompue au coup {self.broken_at}.",
                    MoveStatus.NOT_PLAYED,
                )
                continue
            if g.is_anticipation:
                if not self._anticipation_group(e, k, lines_per_billet[mv.number]):
                    continue
            elif g.uses_groups and not self._choose_group(e):
                continue
            if mv.passed:
                if g.is_anticipation and not self.settings.anticipation_pass_allowed:
                    e.zero("Passer n'est pas permis dans cette partie.")
                else:
                    e.status = MoveStatus.PASSED
                if g is GameType.EXCLUSIF_RESISTANCE:
                    e.zero("Pas de scrabble à ce coup : le joueur sort du jeu.", MoveStatus.OUT)
                continue
            late = self.rounds.move_late(mv.number) if self.rounds else None
            if late:
                # zero, but still on the player's grid: later moves resting on it cascade
                e.zero(late)
            self._play(e)
            if annul_later:
                self._annul(e)

    @staticmethod
    def _annul_only(m: FeuilleMove) -> bool:
        return m.word is None and not m.passed and m.ref is None and bool(m.annul)

    def _annul(self, e: _Entry) -> None:
        if not self.game.is_anticipation:
            e.reasons.append(
                "« Annuler coup(s) » n'existe qu'en Anticipation : l'annulation est ignorée."
            )
            return
        done: list[int] = []
        for number in e.move.annul:
            targets = [x for x in self.entries[:-1] if x.move.number == number]
            if not targets or number >= e.move.number:
                e.reasons.append(f"Le coup {number} ne peut pas être annulé (pas encore joué).")
                continue
            for t in targets:
                if t.status is MoveStatus.ANNULLED:
                    continue
                if t.placement is not None and t.board_before is not None:
                    for tile in t.placement.tiles:
                        if self.owner.get(tile.square) == t.idx:
                            self.board.remove(tile.square)
                            del self.owner[tile.square]
                t.status = MoveStatus.ANNULLED
                t.reasons.append(f"Annulé par le joueur au coup {e.move.number}.")
            done.append(number)
        e.annul_done = tuple(done)

    def _anticipation_group(self, e: _Entry, k: int, n_lines: int) -> bool:
        b = e.move.number
        if not 1 <= b <= 14:
            e.zero(f"Coup {b} : une Anticipation se joue en 14 coups.")
            return False
        announced = self.problem.order[b - 1] if len(self.problem.order) >= b else None
        if announced is None or not 1 <= announced <= len(self.groups):
            e.zero("Aucun groupe disponible pour ce coup.")
            return False
        if b == 1 and n_lines >= 2:
            expected = 1 if k == 0 else announced
            if k > 1:
                e.zero("Au premier coup, deux mots au plus (groupe 1 puis le groupe tiré).")
                return False
        else:
            expected = announced
            if k > 0:
                e.zero(f"Coup {b} : un seul mot par coup.")
                return False
            if b == 1 and e.move.group == 1:
                e.zero(
                    "Au premier coup, un mot seul se joue avec le groupe de 7 lettres "
                    f"(groupe {announced})."
                )
                return False
        if e.move.group is not None and e.move.group != expected:
            e.warnings.append(
                f"numéro de groupe {e.move.group} écrit, le groupe joué à ce coup est le "
                f"{expected}."
            )
        e.group = expected
        return True

    def _choose_group(self, e: _Entry) -> bool:
        """Série de maximaux and N-Scrabble: one group per word, each group once."""
        n = len(self.groups)
        index = sum(1 for x in self.entries[:-1] if not self._annul_only(x.move))
        if self.problem.order:
            if index >= len(self.problem.order):
                e.zero("Plus de coups que de groupes.")
                return False
            expected = self.problem.order[index]
            if not 1 <= expected <= n:
                e.zero(f"L'ordre imposé désigne le groupe {expected}, qui n'existe pas.")
                return False
            if e.move.group is not None and e.move.group != expected:
                e.warnings.append(f"groupe {e.move.group} écrit, l'ordre imposé est le {expected}.")
            e.group = expected
        elif e.move.group is not None:
            if not 1 <= e.move.group <= n:
                e.zero(f"Le groupe {e.move.group} n'existe pas (1 à {n}).")
                return False
            e.group = e.move.group
        else:
            e.group = None  # found from the letters once the move is materialised
        if e.group is not None and e.group in self.used_groups:
            e.zero(f"Le groupe {e.group} a déjà été joué.")
            return False
        return True

    def _materialise(self, e: _Entry) -> bool:
        """Put the word where its reference says (RULES §5.2 steps 1, 3 and 6).

        S2: « Est punie d'un zéro toute erreur de mot (principal ou de raccord) ou de
        placement ». A word that is not where its reference puts it is a placement error
        (zero); one that fits there but forms a word the list refuses is a word error (zero).
        Only with ``ref_mismatch_relocate`` is a word that does not fit at its reference
        looked for elsewhere (G17); a word that fits is never moved."""
        mv = e.move
        if mv.word is None:
            e.zero("Mot manquant ou illisible.")
            return False
        ref: Ref | None = None
        if mv.ref is not None:
            try:
                ref = parse_ref(mv.ref)
            except EngineError as exc:
                e.reasons.append(str(exc))
        verdict: Verdict | None = None
        if ref is not None:
            verdict = check_move(self.board, ref, mv.word, self.config)
        if verdict is not None and verdict.ok and verdict.placement is not None:
            e.ref, e.word, e.placement = ref, mv.word, verdict.placement
            self._record_verdict(e, verdict)
            return True
        # "fits": the word as written lies legally at its reference; only a word it forms
        # may be invalid (a word error, never moved)
        fits = verdict is not None and verdict.placement is not None and verdict.geometry_ok \
            and set(verdict.reasons) <= _word_reasons(verdict)
        if not fits and self.settings.ref_mismatch_relocate and mv.score is not None:
            found = self._relocate(mv.word, mv.score, ref.horizontal if ref else None)
            if found is not None:
                r, v = found
                e.ref, e.word, e.placement = r, mv.word, v.placement
                e.relocated = True
                where = f"en {mv.ref}" if mv.ref else "sans référence"
                msg = (
                    f"{mv.word.upper()} écrit {where} ne s'y place pas ; le mot et son score "
                    f"désignent une seule place, {format_ref(r)} (réglage "
                    "ref_mismatch_relocate)."
                )
                if self.game.ranking_points:
                    e.warnings.append(msg)
                else:
                    e.penalty = self.settings.ref_mismatch_penalty
                    e.reasons.append(msg + f" Pénalité de {e.penalty} points.")
                self._record_verdict(e, v)
                return True
        if verdict is None:
            e.zero(
                f"Erreur de placement : {mv.word.upper()} n'a pas de référence lisible, "
                "sa place sur la grille n'est pas indiquée."
            )
            return False
        if verdict.placement is None or not verdict.geometry_ok:
            # could not be put on the grid, or illegal geometry (left on the grid if placed)
            for why in verdict.reasons:
                e.zero(_placement_error(why))
            p = verdict.placement
            if p is not None and ref is not None and self._can_put(p):
                e.ref, e.word, e.placement = ref, mv.word, verdict.placement
                self._record_verdict(e, verdict)
                return True
            return False
        e.ref, e.word, e.placement = ref, mv.word, verdict.placement
        self._record_verdict(e, verdict)
        for why in _fit_reasons(verdict):
            e.zero(why)
        return True

    def _can_put(self, p: Placement) -> bool:
        return bool(p.tiles) and all(not self.board[t.square] for t in p.tiles) and len(
            {t.square for t in p.tiles}
        ) == len(p.tiles)

    def _record_verdict(self, e: _Entry, v: Verdict) -> None:
        e.words = v.words
        e.true_score = v.score if v.geometry_ok else None

    def _relocate(
        self, word: str, score: int, horizontal: bool | None
    ) -> tuple[Ref, Verdict] | None:
        """The one legal placement of ``word`` worth ``score`` in the written direction
        (either direction without a reference), as in FISF 5.3 (a); None if none or several."""
        found: list[tuple[Ref, Verdict]] = []
        directions = (True, False) if horizontal is None else (horizontal,)
        for sq in range(SIZE * SIZE):
            for h in directions:
                r = Ref.at(sq, h)
                v = check_move(self.board, r, word, self.config)
                if v.ok and v.score == score and v.placement is not None:
                    found.append((r, v))
                    if len(found) > 1:
                        return None
        return found[0] if found else None

    def _play(self, e: _Entry) -> None:
        placed = self._materialise(e)
        p = e.placement
        if not placed or p is None:
            self._consume_unplaced(e)
            return
        letters = Counter(p.letters)
        e.board_before = self.board.copy()
        e.owner_before = dict(self.owner)
        if len(p) > 7:
            e.zero(f"{len(p)} lettres posées : 7 au plus par coup.")
        self._check_supply(e, letters)
        if self.broken and e.status is MoveStatus.ANNULLED:
            return
        # put the tiles on the physical board
        for t in p.tiles:
            self.board.put(t.square, t.cell)
            self.owner[t.square] = e.idx
        for w in e.words:
            for sq in _word_squares(w):
                o = self.owner.get(sq)
                if o is not None and o != e.idx:
                    e.deps.add(o)
        self._check_declared_letters(e)

    def _consume_unplaced(self, e: _Entry) -> None:
        """A move that could not be put on the grid still uses its letters in a rangée
        (G10) when the written letters are the next ones of the row."""
        if self.game is not GameType.RANGEE:
            return
        declared = e.move.letters
        if declared and not self.settings.rangee_word_error_breaks_sequence:
            nxt = self.problem.row[self.row_pos : self.row_pos + len(declared)]
            if Counter(declared) == Counter(nxt):
                self.row_pos += len(declared)
                return
        self._break(
            e,
            "Le coup n'a pas pu être placé et ses lettres écrites ne sont pas les suivantes "
            "de la rangée.",
        )

    def _break(self, e: _Entry, reason: str) -> None:
        e.zero(reason + " Le coup et toute la suite de la solution sont annulés.",
               MoveStatus.ANNULLED)
        e.status = MoveStatus.ANNULLED  # even after a word error: it is the move that broke
        self.broken = True
        self.broken_at = e.move.number

    def _check_supply(self, e: _Entry, letters: Counter[str]) -> None:
        g = self.game
        shown = "".join(sorted(letters.elements()))
        if g in (GameType.INTEGRAL, GameType.INTEGRAL_PARTIEL, GameType.SUPERSCRABBLE_INCOMPLET):
            missing = letters - self.stock
            if missing:
                e.zero(
                    "Lettres indisponibles dans le stock : "
                    f"{''.join(sorted(missing.elements()))}."
                )
            self.stock -= letters
            return
        if g is GameType.RANGEE:
            k = sum(letters.values())
            want = Counter(self.problem.row[self.row_pos : self.row_pos + k])
            first = self.row_pos == 0
            if letters != want or k > 7 or (first and k < 2):
                expected = self.problem.row[self.row_pos : self.row_pos + min(k, 7)]
                self._break(
                    e,
                    f"Lettres posées {shown} : ce ne sont pas les {k} premières lettres de la "
                    f"rangée restante ({expected}).",
                )
                return
            if e.absent and self.settings.rangee_word_error_breaks_sequence:
                self._break(
                    e,
                    "Erreur de mot ou de placement dans la rangée "
                    "(réglage rangee_word_error_breaks_sequence).",
                )
                return
            self.row_pos += k
            return
        if e.group is None and g.uses_groups:
            e.group = self._find_group(letters)
            if e.group is None:
                e.zero(f"Les lettres {shown} ne viennent d'aucun groupe encore disponible.")
                return
        if e.group is None:
            return
        if g.uses_groups and not g.is_anticipation:
            self.used_groups.add(e.group)
        group_text = self.groups[e.group - 1]
        size = self.problem.group_size(e.group) if g.is_consonant_variant else len(group_text)
        group = Counter(self.groups[e.group - 1])
        if g.is_consonant_variant:
            mine = Counter({c: n for c, n in letters.items() if self._announced_kind(c)})
            other = letters - mine
            reasons = []
            if mine - group:
                reasons.append(
                    f"consonne(s) {''.join(sorted((mine - group).elements()))} non annoncée(s) "
                    f"dans le groupe {e.group}"
                )
            if other - self.pool:
                reasons.append(
                    f"{''.join(sorted((other - self.pool).elements()))} plus disponible(s) dans "
                    "la réserve"
                )
            room = self._pool_room(e.group)
            if sum(other.values()) > room:
                reasons.append(
                    f"{sum(other.values())} lettre(s) de la réserve "
                    f"({''.join(sorted(other.elements()))}) : le groupe {e.group} annonce "
                    f"{len(group_text)} consonne(s) et se complète à {size} lettres, soit "
                    f"{room} lettre(s) de la réserve au plus"
                )
            self.pool -= other
            if reasons:
                e.zero(f"Lettres {shown} indisponibles : " + " ; ".join(reasons) + ".")
        else:
            missing = letters - group
            if missing:
                e.zero(
                    f"Lettres {''.join(sorted(missing.elements()))} absentes du groupe {e.group} "
                    f"({self.groups[e.group - 1]})."
                )
        exclusif = g in (GameType.EXCLUSIF_FOND, GameType.EXCLUSIF_RESISTANCE)
        if exclusif and e.group != 1 and sum(letters.values()) != 7:
            status = MoveStatus.OUT if g is GameType.EXCLUSIF_RESISTANCE else MoveStatus.ZERO
            e.zero(
                "Scrabble exclusif : les 7 lettres doivent être posées "
                f"({sum(letters.values())} posées).",
                status,
            )

    def _pool_room(self, group: int) -> int:
        """Pool letters a move with ``group`` may use (RULES §6.2): S2 completes the groups
        « jusqu'à la concurrence de 7 lettres (respectivement, 4 lettres pour le premier
        groupe) », so the group is all c announced consonants plus 7 − c (4 − c) pool
        letters, whatever number of consonants the move actually places."""
        return max(0, self.problem.group_size(group) - len(self.groups[group - 1]))

    def _announced_kind(self, c: str) -> bool:
        """A tile that must come from the announced consonants (not the pool)."""
        return c != JOKER and not self.ts.is_vowel(c) and c not in self.ts.ambiguous

    def _find_group(self, letters: Counter[str]) -> int | None:
        for n in range(1, len(self.groups) + 1):
            if n in self.used_groups:
                continue
            group = Counter(self.groups[n - 1])
            if self.game.is_consonant_variant:
                mine = Counter({c: k for c, k in letters.items() if self._announced_kind(c)})
                other = letters - mine
                if not (mine - group) and not (other - self.pool) and (
                    sum(other.values()) <= self._pool_room(n)
                ):
                    return n
            elif not (letters - group):
                return n
        return None

    def _check_declared_letters(self, e: _Entry) -> None:
        p = e.placement
        if p is None:
            return
        declared = e.move.letters
        if declared is None:
            if self.settings.missing_letters_warning:
                e.warnings.append("lettres utilisées non indiquées.")
            return
        if sorted(declared) != sorted(p.letters) and self.settings.letters_mismatch_warning:
            e.warnings.append(
                f"lettres écrites {declared}, lettres posées sur la grille {_letters_of(p)}."
            )

    # -- cascade ------------------------------------------------------------------------
    def _cascade(self) -> None:
        for e in self.entries:
            if e.absent or e.placement is None or e.board_before is None:
                continue
            gone = {x.idx for x in self.entries[: e.idx] if x.absent}
            hit = sorted(e.deps & gone)
            if hit:
                numbers = sorted({self.entries[i].move.number for i in hit})
                e.zero(
                    "Zéro en cascade : le coup s'appuie sur le coup "
                    + ", ".join(map(str, numbers))
                    + " qui ne compte pas.",
                    MoveStatus.CASCADE_ZERO,
                )
                continue
            if not gone:
                continue  # the effective grid is the physical one: legality already checked
            effective = e.board_before.copy()
            for sq, owner in e.owner_before.items():
                if owner in gone:
                    effective.remove(sq)
            reasons = geometry_reasons(effective, e.placement, self.config)
            if reasons:
                e.zero(
                    "Zéro en cascade : sans les coups qui ne comptent pas, ce coup n'aurait pas "
                    "pu être placé (" + " ".join(reasons) + ")",
                    MoveStatus.CASCADE_ZERO,
                )

    # -- scores, warnings, cumul -------------------------------------------------------
    def _finish_moves(self) -> tuple[MoveReport, ...]:
        s = self.settings
        resistance = self.game is GameType.EXCLUSIF_RESISTANCE
        if resistance:
            self._eliminate()
        prev_claimed = 0  # the player's previous written cumul (or what it should have been)
        running = 0
        claimed_by_number: Counter[int] = Counter()
        last_line_of = {e.move.number: e.idx for e in self.entries}
        # Anticipation move 1 with two words: S2, « il inscrira sur le billet les deux scores
        # obtenus, dans l'ordre des mots placés, ainsi que le cumul de ces deux scores ».
        first_billet = [
            e for e in self.entries
            if e.move.number == 1 and not self._annul_only(e.move) and not e.move.passed
        ]
        two_words = self.game.is_anticipation and len(first_billet) == 2
        reports: list[MoveReport] = []
        for e in self.entries:
            mv = e.move
            annul_only = self._annul_only(mv)
            if e.status.counts and e.true_score is not None and not resistance:
                if mv.score is None:
                    e.warnings.append("score non indiqué.")
                elif mv.score != e.true_score:
                    e.warnings.append(f"score écrit {mv.score}, score exact {e.true_score}.")
            counted = 0
            if e.status.counts and e.true_score is not None:
                counted = max(0, e.true_score - e.penalty)  # INFERRED: never below zero
                if resistance:
                    counted = 0 if e.group == 1 else 1
            if not annul_only and not resistance:
                claimed = mv.score or 0
                claimed_by_number[mv.number] += claimed
                expected = prev_claimed + claimed
                cancelled = sum(claimed_by_number[k] for k in e.annul_done)
                if s.cumul_warning and last_line_of[mv.number] == e.idx:
                    if mv.cumul is None:
                        if not mv.passed:
                            e.warnings.append("cumul non indiqué.")
                    elif s.cumul_check == "arithmetic":
                        # with the score left blank the arithmetic cannot be checked
                        if mv.score is not None and mv.cumul not in (
                            expected, expected - cancelled
                        ):
                            e.warnings.append(
                                f"cumul écrit {mv.cumul}, attendu {expected} (cumul précédent "
                                f"{prev_claimed} + score écrit {claimed})."
                            )
                    elif mv.cumul != running + counted:
                        e.warnings.append(
                            f"cumul écrit {mv.cumul}, cumul exact {running + counted}."
                        )
                prev_claimed = mv.cumul if mv.cumul is not None else expected
            if two_words and not s.cumul_warning and e is first_billet[1]:
                self._check_first_sum(e, first_billet[0])
            running += counted
            if e.absent or (e.penalty and e.status.counts):
                e.warnings.clear()  # RULES §4.7.5: a warning adds to neither a zero nor a penalty
            if e.warnings:
                # one billet is one move number in Anticipation, one line elsewhere
                self.warned_billets.add(mv.number if self.game.is_anticipation else -1 - e.idx)
            if e.status is MoveStatus.VALID and e.penalty:
                e.status = MoveStatus.PENALTY
            elif e.status is MoveStatus.VALID and e.warnings:
                e.status = MoveStatus.WARNING
            reports.append(
                MoveReport(
                    number=mv.number,
                    line=mv.line,
                    status=e.status,
                    ref=format_ref(e.ref) if e.ref is not None else mv.ref,
                    word=e.word if e.word is not None else mv.word,
                    group=e.group,
                    letters=_letters_of(e.placement) if e.placement is not None else None,
                    declared_letters=mv.letters,
                    claimed_score=mv.score,
                    true_score=e.true_score,
                    score=counted,
                    claimed_cumul=mv.cumul,
                    cumul=running,
                    penalty=e.penalty if e.status.counts else 0,
                    reasons=tuple(e.reasons),
                    warnings=tuple(e.warnings),
                    words=tuple(f"{w.text} {w.points}" for w in e.words),
                    annul=mv.annul,
                )
            )
        return tuple(reports)

    @staticmethod
    def _check_first_sum(e: _Entry, first: _Entry) -> None:
        """The sum of the two scores on the billet of Anticipation move 1, written in the
        cumul column of its second line: an error or an absence is a score error of the
        billet (S2: « Est punie d'un avertissement technique toute erreur ou absence de
        score sur les billets »)."""
        a, b = first.move.score, e.move.score
        if e.move.cumul is None:
            e.warnings.append("somme des deux scores du coup 1 non indiquée.")
        elif a is not None and b is not None and e.move.cumul != a + b:
            e.warnings.append(
                f"somme des deux scores du coup 1 écrite {e.move.cumul}, attendu {a + b} "
                f"({a} + {b})."
            )

    def _eliminate(self) -> None:
        """Exclusif résistance: the first 7-letter group without a valid scrabble puts the
        player out (RULES §6.3); what he wrote afterwards does not count."""
        out_at: int | None = None
        for e in self.entries:
            if self._annul_only(e.move) or e.group == 1:
                continue
            if out_at is not None:
                e.status = MoveStatus.OUT
                e.reasons.append(f"Le joueur est sorti du jeu au coup {out_at}.")
                continue
            if not e.status.counts:
                out_at = e.move.number
                if e.status is not MoveStatus.OUT:
                    e.status = MoveStatus.OUT
                    e.reasons.append("Pas de scrabble valable : le joueur sort du jeu.")
        if out_at is None:
            # a move the sheet does not play at all also puts the player out
            played = {e.move.number for e in self.entries if e.status.counts and e.group != 1}
            out_at = next((b for b in range(1, 15) if b not in played), None)
        self.eliminated_at = out_at

    # -- Superscrabble ------------------------------------------------------------------
    def _scrabbles(
        self, lines: tuple[FeuilleMove, ...], board: Board, construction: tuple[_Entry, ...]
    ) -> tuple[MoveReport, ...]:
        rack = Counter(self.problem.rack)
        gone = {e.idx for e in construction if e.absent}
        owner = dict(self.owner)
        effective = board.copy()
        for sq, o in owner.items():
            if o in gone:
                effective.remove(sq)
        seen: dict[tuple[int, bool, str], int] = {}
        out: list[MoveReport] = []
        for i, mv in enumerate(lines, start=1):
            reasons: list[str] = []
            warnings: list[str] = []
            status = MoveStatus.VALID
            ref_text = mv.ref
            words: tuple[str, ...] = ()
            letters: str | None = None
            if mv.word is None or mv.ref is None:
                reasons.append("Référence ou mot manquant.")
                status = MoveStatus.ZERO
            else:
                v = check_move(board, mv.ref, mv.word, self.config)
                if v.placement is not None:
                    letters = _letters_of(v.placement)
                words = tuple(f"{w.text} {w.points}" for w in v.words)
                if not v.ok or v.placement is None:
                    reasons.extend(v.reasons or ("Placement impossible.",))
                    status = MoveStatus.ZERO
                elif Counter(v.placement.letters) != rack:
                    reasons.append(
                        f"Le scrabble doit poser les 7 lettres {self.problem.rack} (posées : "
                        f"{letters})."
                    )
                    status = MoveStatus.ZERO
                else:
                    main = v.main_word
                    assert main is not None
                    deps = {
                        owner[sq] for w in v.words for sq in _word_squares(w) if sq in owner
                    }
                    strict = self.settings.incomplet_scrabble_needs_valid_construction
                    if strict and (deps & gone):
                        reasons.append(
                            "Le scrabble s'appuie sur un mot de construction qui ne compte pas."
                        )
                        status = MoveStatus.CASCADE_ZERO
                    elif strict and geometry_reasons(effective, v.placement, self.config):
                        reasons.append(
                            "Sans les mots de construction qui ne comptent pas, ce scrabble "
                            "n'aurait pas pu être placé."
                        )
                        status = MoveStatus.CASCADE_ZERO
                    else:
                        key = (main.ref.square, main.ref.horizontal, main.text.upper())
                        if key in seen:
                            reasons.append(
                                f"Même scrabble que la ligne {seen[key]} ({format_ref(main.ref)} "
                                f"{main.text.upper()}) : compté une seule fois."
                            )
                            status = MoveStatus.DUPLICATE
                        else:
                            seen[key] = mv.line or i
                            ref_text = format_ref(main.ref)
            if not status.counts and self.settings.superscrabble_invalid_entry_warning:
                warnings.append("scrabble non valable.")
            counted = 1 if status.counts else 0
            out.append(
                MoveReport(
                    number=mv.number,
                    line=mv.line,
                    status=status,
                    ref=ref_text,
                    word=mv.word,
                    letters=letters,
                    declared_letters=mv.letters,
                    claimed_score=mv.score,
                    score=counted,
                    cumul=sum(x.score for x in out) + counted,
                    reasons=tuple(reasons),
                    warnings=tuple(warnings),
                    words=words,
                )
            )
        return tuple(out)

    # -- totals -------------------------------------------------------------------------
    def _report(
        self, moves: tuple[MoveReport, ...], scrabbles: tuple[MoveReport, ...]
    ) -> Report:
        g, s = self.game, self.settings
        if s.one_warning_per_move:
            warnings = len(self.warned_billets) + sum(1 for m in scrabbles if m.warnings)
        else:
            warnings = sum(len(m.warnings) for m in moves + scrabbles)
        score_vector: tuple[int, ...] = ()
        eliminated: int | None = None
        construction: int | None = None
        if g in (GameType.SUPERSCRABBLE, GameType.SUPERSCRABBLE_INCOMPLET):
            total = sum(m.score for m in scrabbles)
            unit = "scrabbles"
            if g is GameType.SUPERSCRABBLE_INCOMPLET:
                construction = len(self.owner)
        elif g is GameType.EXCLUSIF_RESISTANCE:
            total = sum(m.score for m in moves)
            eliminated = self.eliminated_at
            unit = "scrabbles"
        else:
            total = sum(m.score for m in moves)
            unit = "points"
        if g.ranking_points:
            penalty = s.ranking_penalty(warnings)
        elif g in (GameType.SERIE_MAXIMAUX, GameType.SERIE_MAXIMAUX_CONSONNES):
            penalty = s.ranking_penalty(warnings)
            unit = "points"
        else:
            penalty = s.points_penalty(warnings, self.problem.warning_penalty_from)
        if g in (GameType.SERIE_MAXIMAUX, GameType.SERIE_MAXIMAUX_CONSONNES):
            per_move = [m.score for m in moves if m.status is not MoveStatus.PASSED]
            n = len(self.problem.groups)
            # a move not played counts 0, or (setting off) below any played move, even a zero
            pad = 0 if s.serie_missing_moves_zero else -1
            score_vector = tuple(per_move[:n]) + (pad,) * max(0, n - len(per_move))
            final = total  # G18: the penalty only demotes among equal score vectors
        else:
            final = total - penalty
        identity = getattr(self.lexicon, "identity", None)
        return Report(
            problem_id=self.problem.id,
            game=g,
            player=self.feuille.player,
            submitted_at=self.feuille.submitted_at,
            moves=moves,
            scrabbles=scrabbles,
            total=total,
            warnings=warnings,
            penalty=penalty,
            final_score=final,
            unit=unit,
            lexicon_name=identity.name if identity else None,
            lexicon_sha256=identity.sha256 if identity else None,
            lexicon_word_count=identity.word_count if identity else None,
            errors=tuple(self.errors),
            score_vector=score_vector,
            construction_letters=construction,
            eliminated_at=eliminated,
            settings_changed=_changed_settings(s),
        )


@cache
def _default_settings() -> dict[str, Any]:
    return Settings().to_dict()


def _changed_settings(s: Settings) -> tuple[str, ...]:
    """``name=value`` for every setting that differs from its default (recorded in reports).

    The defaults are computed once: this runs for every sheet of a batch."""
    if s == Settings():
        return ()
    defaults = _default_settings()
    return tuple(f"{k}={v}" for k, v in s.to_dict().items() if defaults[k] != v)


def verify_text(
    problem: Problem,
    text: str,
    lexicon: WordList,
    settings: Settings | None = None,
    *,
    round_times: RoundTimes | None = None,
) -> Report:
    """Parse a sheet and verify it; the parser's line errors open the report's errors."""
    from dataclasses import replace

    from puzzles.feuille import parse_feuille

    parsed = parse_feuille(text, superscrabble=problem.game is GameType.SUPERSCRABBLE)
    report = verify(problem, parsed.feuille, lexicon, settings, round_times=round_times)
    if not parsed.errors:
        return report
    return replace(report, errors=tuple(str(e) for e in parsed.errors) + report.errors)


def verify(
    problem: Problem,
    feuille: Feuille,
    lexicon: WordList,
    settings: Settings | None = None,
    *,
    round_times: RoundTimes | None = None,
) -> Report:
    """Judge ``feuille`` against ``problem`` with ``lexicon`` (never raises on a bad sheet).

    ``round_times`` (Anticipation family played by correspondence, :mod:`puzzles.rounds`):
    a billet sent after its round closed scores zero, a late annulment is ignored. None (the
    whole order published at once, composition games, the CLI): no timing is judged."""
    return _Verifier(problem, feuille, lexicon, settings or Settings(), round_times).run()
