"""Verification report types and their two written forms.

Owns :class:`MoveStatus` (how a move was judged), :class:`MoveReport` (the verdict on one
sheet line), :class:`Report` (the verdict on a whole sheet), the JSON form
(``to_json``/``from_json``, format ``arbitre-rapport`` version 1) and the French text form
sent to players (``to_text``). No judging happens here: :mod:`puzzles.verify.replay` builds
the reports.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from datetime import datetime
from typing import Any

from puzzles.families import Supply
from puzzles.problem import GameType
from puzzles.verdicts import MoveStatus as MoveStatus


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


def _new_move_report(
    number: int, line: int, status: MoveStatus, ref: str | None, word: str | None,
    group: int | None, letters: str | None, declared_letters: str | None,
    claimed_score: int | None, true_score: int | None, score: int,
    claimed_cumul: int | None, cumul: int, penalty: int, reasons: tuple[str, ...],
    warnings: tuple[str, ...], words: tuple[str, ...], annul: tuple[int, ...],
) -> MoveReport:
    report = object.__new__(MoveReport)
    object.__setattr__(report, "__dict__", {
        "number": number, "line": line, "status": status, "ref": ref, "word": word,
        "group": group, "letters": letters, "declared_letters": declared_letters,
        "claimed_score": claimed_score, "true_score": true_score, "score": score,
        "claimed_cumul": claimed_cumul, "cumul": cumul, "penalty": penalty,
        "reasons": reasons, "warnings": warnings, "words": words, "annul": annul,
    })
    return report


#: ``MoveReport(*fields)`` with every field given in order: the verifier builds one per line
#: of every sheet, and a frozen dataclass's ``__init__`` pays one ``object.__setattr__`` per
#: field; this fills the instance's ``__dict__`` at once (the same value: ``==``, hash,
#: repr). Should MoveReport's fields change, the plain constructor is used instead
#: (tests/puzzles/test_verify_fast.py checks that the fast one is in use and equal).
new_move_report: Callable[..., MoveReport] = (
    _new_move_report
    if [f.name for f in fields(MoveReport)]
    == list(inspect.signature(_new_move_report).parameters)
    else MoveReport
)


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
        if self.game.family.supply is Supply.ROW:  # a rangée's annulled move is a fault
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
