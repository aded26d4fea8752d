"""The reports of ``arbitre duplicate replay`` (docs/DUPLICATE.md, docs/VARIANTS.md): the
plain Duplicate's :class:`ReplayResult` (its rounds, ranking and final state) and the
variants' :class:`VariantReplay` (:class:`VariantRound` per round; the Duplicate, Top or
Superscrabble ranking, with their rows :class:`SheetVerdict`, :class:`TopStandingRow`,
:class:`SuperscrabbleRow`), each as text and JSON, and :func:`warnings_note`, the one form of a
ranking line's warnings. Built by each round game from the one replay loop's rounds
(:mod:`puzzles.duplicate.loop`); the texts are pinned byte for byte by
tests/data/snapshots/replay/."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from puzzles.duplicate.correction import Verdict
from puzzles.duplicate.ranking import RoundResult, StandingRow
from puzzles.duplicate.settings import DuplicateSettings
from puzzles.duplicate.state import GameState


# --- the rows of the variants' own corrections and rankings -----------------------------
@dataclass(frozen=True)
class SheetVerdict:
    """A Superscrabble sheet corrected (``correct_scrabble_sheet``): valid, invalid and
    repeated scrabbles, the warning of a wrong or missing count, the French reason."""

    player: str
    valid: int
    invalid: int
    duplicates: int
    warnings: int
    reason_fr: str


@dataclass(frozen=True)
class TopStandingRow:
    """A Duplicate Top ranking row (``rank_duplicate_top``)."""

    player: str
    points: int
    """Ranking points: the rounds topped, less the warning conversion."""
    tops: int
    companions: int
    topped_total: int
    warnings: int
    penalty: int
    rank: int = 0


@dataclass(frozen=True)
class SuperscrabbleRow:
    """A Partie de Superscrabble ranking row (``rank_superscrabble``)."""

    player: str
    points: int
    valid: int
    warnings: int
    penalty: int
    rank: int = 0


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
    #: the game's French name, the report's first line
    label: str = ""

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
        lines = [self.label]
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
