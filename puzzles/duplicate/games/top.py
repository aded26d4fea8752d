"""Duplicate Top (RULES §9.2) as a round game: the plain Duplicate's rounds with no solo,
ranked by the rounds topped (:func:`rank_duplicate_top`: ranking points less the §5.3
conversion, then fewer companions, then the cumul of the topped rounds)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from puzzles.duplicate.correction import Verdict
from puzzles.duplicate.games.classic import VariantGame
from puzzles.duplicate.protocol import (
    Finished,
    GameSettings,
    PlayerBulletin,
    ReplayReport,
    RoundRecord,
    StandingJSON,
)
from puzzles.duplicate.records import verdict_of
from puzzles.duplicate.report import TopStandingRow, VariantReplay
from puzzles.duplicate.settings import VariantSettings, ranking_point_penalty
from puzzles.ties import shared_ranks
from puzzles.verdicts import scores_nothing
from scoring.config import GameConfig


# --- Duplicate Top ranking -------------------------------------------------------------------
@dataclass
class _Tops:
    """One player's rounds topped so far."""

    tops: int = 0
    companions: int = 0
    topped_with: set[str] = field(default_factory=set)
    topped_total: int = 0
    warnings: int = 0


def rank_duplicate_top(
    rounds: Sequence[Sequence[Verdict]], settings: VariantSettings
) -> list[TopStandingRow]:
    """Duplicate Top (RULES §9.2): each round, every player whose credited score equals the
    room top (the highest, at least ``top_min_score``) earns 1 point; warnings count only
    for that round's toppers and cost 1 top at 4, 2 at 7, 3 at 10 … (§5.3). Ties: fewer
    companions (G13: Σ (toppers − 1), or distinct co-toppers), then the higher total of the
    topped rounds' scores; then shared rank (listed by name)."""
    players: dict[str, _Tops] = {}
    for verdicts in rounds:
        for v in verdicts:
            players.setdefault(v.player, _Tops())
        scored = [v for v in verdicts if not scores_nothing(v.kind)]
        if not scored:
            continue
        high = max(v.score for v in scored)
        if high < settings.top_min_score:
            continue
        toppers = [v for v in scored if v.score == high]
        names = {v.player for v in toppers}
        for v in toppers:
            p = players[v.player]
            p.tops += 1
            p.companions += len(toppers) - 1
            p.topped_with |= names - {v.player}
            p.topped_total += v.score
            p.warnings += v.warnings
    rows: list[TopStandingRow] = []
    for name, p in players.items():
        pen = ranking_point_penalty(p.warnings, settings)
        comp = p.companions if settings.top_companions == "sum" else len(p.topped_with)
        rows.append(TopStandingRow(name, p.tops - pen, p.tops, comp, p.topped_total,
                                   p.warnings, pen))
    rows.sort(key=lambda r: (-r.points, r.companions, -r.topped_total, r.player))
    ranks = shared_ranks([(r.points, r.companions, r.topped_total) for r in rows])
    return [replace(r, rank=k) for r, k in zip(rows, ranks, strict=True)]



class TopGame(VariantGame):
    """Duplicate Top: each round the room's best score earns a ranking point."""

    key = "top"
    label = "Duplicate Top"
    rules_page = "duplicate_top"
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

    def report(self, settings: GameSettings, rounds: Sequence[RoundRecord], end: Finished,
               players: Sequence[str]) -> ReplayReport:
        reason, tops = self.end_totals(end)
        ranking = rank_duplicate_top([self.verdicts_of(r) for r in rounds],
                                     settings.rules) if players else []
        return VariantReplay(self.key, tuple(self.variant_round(r) for r in rounds), reason,
                             tops, top_standings=tuple(ranking), label=self.label)


#: this module's round games, found by :mod:`puzzles.duplicate.registry`, and their place
#: in its lists (a new module takes the next number)
LISTED = 3
GAMES = (TopGame(),)
