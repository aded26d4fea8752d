"""Duplicate Top (RULES §9.2) as a round game: the plain Duplicate's rounds with no solo, ranked
by the rounds topped (:func:`puzzles.variants.rank_duplicate_top`: ranking points, then fewer
companions, then the cumul of the topped rounds)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from puzzles.duplicate.codecs import verdict_of
from puzzles.duplicate.correction import Verdict
from puzzles.duplicate.games.classic import ClassicGame
from puzzles.duplicate.protocol import GameSettings, PlayerBulletin, RoundRecord, StandingJSON
from puzzles.variants import rank_duplicate_top
from scoring.config import GameConfig


class TopGame(ClassicGame):
    """Duplicate Top: each round the room's best score earns a ranking point."""

    key = "top"
    label = "Duplicate Top"
    rules_fr = ("Duplicate Top : chaque tour, le ou les joueurs qui réalisent la meilleure "
                "marque de la salle gagnent un point de classement.")
    ranked_by_tops = True
    has_solos = False
    total_label = "Vos points de classement (tours topés)"
    result_unit = "points de classement"

    def verdicts(self, round: RoundRecord, bulletins: Sequence[PlayerBulletin],
                 settings: GameSettings, config: GameConfig,
                 n_players: int) -> list[Verdict]:
        # ranked by tops, no solo (RULES §9.2)
        return [replace(v, solo=0)
                for v in super().verdicts(round, bulletins, settings, config, n_players)]

    def rank(self, rounds: Sequence[RoundRecord], settings: GameSettings) -> list[StandingJSON]:
        ranked = rank_duplicate_top(
            [[verdict_of(x, p) for p, x in r.results.items()] for r in rounds], settings.rules)
        rows: list[StandingJSON] = []
        for row in ranked:
            rows.append({
                "player": row.player, "rank": row.rank, "total": row.points, "percent": None,
                "tops": row.tops, "companions": row.companions,
                "topped_total": row.topped_total, "warnings": row.warnings,
                "warning_deduction": row.penalty, "solos": 0,
                "scores": [int(r.results[row.player]["score"]) if row.player in r.results
                           else 0 for r in rounds],
            })
        return rows
