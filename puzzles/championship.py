"""Championship standings: the season ranking aggregated from the rankings of its problems.

Three rules (``Competition.ranking_rule``):

- ``sum_scores``: the sum of the corrected scores;
- ``sum_percent``: the sum of the percentages of each problem's reference score;
- ``frsc_points``: FRSc place points (RULES §10 [E18]) summed across problems — for an event
  of value 100, places 1–10 earn 1000, 859, 801, 757, 720, 688, 659, 632, 608, 585, scaled
  by the problem's event value (``value / 100``).

A player who did not play a problem gets 0 for it. Every value is a :class:`Decimal` with at
most two decimals, rounded half up *per problem*, so that the totals shown are exactly the
sums of the cells shown. What the sources leave open is in :class:`ChampionshipSettings`
(docs/PUZZLES.md §10).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, fields
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Literal

from puzzles.ties import shared_ranks

Rule = Literal["sum_scores", "sum_percent", "frsc_points"]
RULES: tuple[Rule, ...] = ("sum_scores", "sum_percent", "frsc_points")

#: FRSc ranking points of places 1–10 for an event of value 100 (RULES §10 [E18]).
FRSC_PLACE_POINTS: tuple[int, ...] = (1000, 859, 801, 757, 720, 688, 659, 632, 608, 585)
#: the event value the published table is for
FRSC_BASE_VALUE = 100

_CENT = Decimal("0.01")


@dataclass(frozen=True)
class ChampionshipSettings:
    """The aggregation rules the sources leave open (all INFERRED, defaults documented)."""

    # INFERRED: only the best N results of each player count (missing problems are 0 and are
    # the first dropped); None counts every problem.
    best_of: int | None = None
    # INFERRED (RULES §10 lists places 1–10 only): "zero" — places beyond 10 earn nothing;
    # "last_step" — the decrease goes on by the table's last step (608 − 585 = 23 points at
    # value 100) down to 0: 562, 539, ...
    frsc_beyond_table: Literal["zero", "last_step"] = "zero"
    # INFERRED: players tied on a problem (``ex_aequo``: only the receive time separated them)
    # share the mean of the points of the places they occupy ("share"); "by_place" gives each
    # the points of his published place (the earlier sheet first).
    frsc_ex_aequo: Literal["share", "by_place"] = "share"
    # INFERRED: equal totals are separated by more problems played, then the better results
    # compared best first (best result, second best, ...); players equal on all of these
    # share the place. "shared": equal totals share the place. The listing order within a
    # shared place is the player id.
    tie_break: Literal["played_then_best", "shared"] = "played_then_best"

    def __post_init__(self) -> None:
        if self.best_of is not None and self.best_of < 1:
            raise ValueError("« best_of » : au moins 1 résultat doit compter (ou aucun "
                             "réglage pour tous les compter).")
        if self.frsc_beyond_table not in ("zero", "last_step"):
            raise ValueError(f"« frsc_beyond_table » : « {self.frsc_beyond_table} » inconnu "
                             "(zero ou last_step).")
        if self.frsc_ex_aequo not in ("share", "by_place"):
            raise ValueError(f"« frsc_ex_aequo » : « {self.frsc_ex_aequo} » inconnu "
                             "(share ou by_place).")
        if self.tie_break not in ("played_then_best", "shared"):
            raise ValueError(f"« tie_break » : « {self.tie_break} » inconnu "
                             "(played_then_best ou shared).")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> ChampionshipSettings:
        """Read settings (None: the defaults); an unknown key is refused."""
        data = data or {}
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"Réglage(s) de classement général inconnu(s) : "
                             f"{', '.join(unknown)}.")
        return cls(**data)


@dataclass(frozen=True)
class ProblemResult:
    """One player's line in one problem's ranking. ``place`` is the published (positional)
    rank; ``ex_aequo`` says the line tied the one above on play (only the receive time or
    the id separated them, ``puzzles.ranking.RankRow.ex_aequo``). A line whose place equals
    the previous line's is a tie too."""

    player_id: int
    place: int
    score: int
    percent: float | None = None
    ex_aequo: bool = False


@dataclass(frozen=True)
class ProblemRanking:
    """The ranking of one problem, its lines in place order. ``key`` names the column (the
    problem code); ``event_value`` scales the FRSc points (100 = the published table)."""

    key: str
    results: tuple[ProblemResult, ...]
    event_value: int = FRSC_BASE_VALUE
    provisional: bool = False


@dataclass(frozen=True)
class Contribution:
    """What one problem brings to a player: ``value`` (0 when not played), whether it
    ``counted`` (False when dropped by ``best_of``)."""

    key: str
    value: Decimal
    played: bool
    counted: bool
    place: int | None


@dataclass(frozen=True)
class StandingRow:
    """A place in the championship. ``ex_aequo``: shares its place with the row above."""

    place: int
    player_id: int
    total: Decimal
    contributions: tuple[Contribution, ...]
    played: int
    ex_aequo: bool


def frsc_place_points(place: int, settings: ChampionshipSettings | None = None) -> int:
    """Points of ``place`` for an event of value 100."""
    settings = settings or ChampionshipSettings()
    if place < 1:
        raise ValueError(f"Place {place} : une place commence à 1.")
    if place <= len(FRSC_PLACE_POINTS):
        return FRSC_PLACE_POINTS[place - 1]
    if settings.frsc_beyond_table == "zero":
        return 0
    step = FRSC_PLACE_POINTS[-2] - FRSC_PLACE_POINTS[-1]
    return max(0, FRSC_PLACE_POINTS[-1] - step * (place - len(FRSC_PLACE_POINTS)))


def _cents(value: Decimal) -> Decimal:
    return value.quantize(_CENT, rounding=ROUND_HALF_UP)


def _tidy(value: Decimal) -> Decimal:
    """A whole number without decimals, anything else in cents (for readable reprs)."""
    return value.quantize(Decimal(1) if value == value.to_integral_value() else _CENT)


def _tie_groups(results: Sequence[ProblemResult]) -> list[list[ProblemResult]]:
    groups: list[list[ProblemResult]] = []
    for r in results:
        if groups and (r.ex_aequo or r.place == groups[-1][-1].place):
            groups[-1].append(r)
        else:
            groups.append([r])
    return groups


def problem_values(
    ranking: ProblemRanking, rule: Rule, settings: ChampionshipSettings | None = None
) -> dict[int, Decimal]:
    """What each player of ``ranking`` earns under ``rule``."""
    settings = settings or ChampionshipSettings()
    out: dict[int, Decimal] = {}
    if rule == "sum_scores":
        for r in ranking.results:
            out[r.player_id] = Decimal(r.score)
    elif rule == "sum_percent":
        for r in ranking.results:
            # no reference (every sheet at 0): nothing to be a percentage of
            out[r.player_id] = _cents(Decimal(str(r.percent))) if r.percent is not None \
                else Decimal(0)
    elif rule == "frsc_points":
        scale = Decimal(ranking.event_value) / FRSC_BASE_VALUE
        for group in _tie_groups(ranking.results):
            if settings.frsc_ex_aequo == "share":
                first = group[0].place
                places = range(first, first + len(group))
                mean = Decimal(sum(frsc_place_points(p, settings) for p in places)) / len(group)
                for r in group:
                    out[r.player_id] = _cents(mean * scale)
            else:
                for r in group:
                    out[r.player_id] = _cents(frsc_place_points(r.place, settings) * scale)
    else:
        raise ValueError(f"Règle de classement général inconnue : « {rule} ».")
    return {pid: _tidy(v) for pid, v in out.items()}


def standings(
    rankings: Iterable[ProblemRanking],
    rule: Rule,
    settings: ChampionshipSettings | None = None,
) -> list[StandingRow]:
    """The championship standings of every player who played at least one of ``rankings``
    (columns in the order given), deterministic (see :class:`ChampionshipSettings`)."""
    settings = settings or ChampionshipSettings()
    if rule not in RULES:
        raise ValueError(f"Règle de classement général inconnue : « {rule} ».")
    columns = list(rankings)
    keys = [c.key for c in columns]
    if len(set(keys)) != len(keys):
        raise ValueError("Deux problèmes portent le même nom de colonne.")
    values = [problem_values(c, rule, settings) for c in columns]
    places = [{r.player_id: r.place for r in c.results} for c in columns]
    players = sorted({pid for v in values for pid in v})

    rows: list[tuple[tuple[object, ...], int, Decimal, tuple[Contribution, ...], int]] = []
    for pid in players:
        raw = [(i, v.get(pid, Decimal(0)), pid in v) for i, v in enumerate(values)]
        counted = set(range(len(columns)))
        if settings.best_of is not None and settings.best_of < len(columns):
            # the best values first; among equal values the earlier problem is kept
            best = sorted(raw, key=lambda t: (-t[1], t[0]))[: settings.best_of]
            counted = {i for i, _, _ in best}
        contribs = tuple(
            Contribution(key=keys[i], value=value, played=played, counted=i in counted,
                         place=places[i].get(pid))
            for i, value, played in raw
        )
        total = sum((c.value for c in contribs if c.counted), Decimal(0))
        played_n = sum(1 for c in contribs if c.played)
        key: tuple[object, ...] = (-total,)
        if settings.tie_break == "played_then_best":
            key += (-played_n, tuple(sorted(-c.value for c in contribs)))
        rows.append((key, pid, total, contribs, played_n))

    rows.sort(key=lambda t: (t[0], t[1]))
    overall = shared_ranks([key for key, *_ in rows])
    # a shared place is below the row's position: the row ties the one above
    return [
        StandingRow(place=place, player_id=pid, total=total, contributions=contribs,
                    played=played_n, ex_aequo=place != position)
        for position, ((_, pid, total, contribs, played_n), place) in enumerate(
            zip(rows, overall, strict=True), start=1)
    ]


def format_value(value: Decimal, *, decimals: bool = False) -> str:
    """``183,33`` / ``1859`` — French decimal comma; ``decimals`` always writes two."""
    if decimals or value != value.to_integral_value():
        text = f"{_cents(value):.2f}"
    else:
        text = f"{value:.0f}"
    return text.replace(".", ",")


def describe(rule: Rule, settings: ChampionshipSettings | None = None) -> list[str]:
    """The rule and its settings in French, one sentence each, for the standings page."""
    settings = settings or ChampionshipSettings()
    if rule == "sum_scores":
        lines = ["Total des scores corrigés obtenus à chaque problème."]
    elif rule == "sum_percent":
        lines = ["Total des pourcentages obtenus à chaque problème, la référence du problème "
                 "(solution de l'arbitre, sinon la meilleure feuille) valant 100 %."]
    elif rule == "frsc_points":
        table = ", ".join(f"{p}{'er' if p == 1 else 'e'} {pts}"
                          for p, pts in enumerate(FRSC_PLACE_POINTS, start=1))
        lines = [f"Points FRSc par place, additionnés sur les problèmes ; pour une épreuve "
                 f"de valeur 100 : {table} (proportionnels à la valeur de l'épreuve)."]
        if settings.frsc_beyond_table == "zero":
            lines.append("Au-delà de la 10e place, aucun point.")
        else:
            step = FRSC_PLACE_POINTS[-2] - FRSC_PLACE_POINTS[-1]
            lines.append(f"Au-delà de la 10e place, {step} points de moins par place "
                         "(valeur 100), jusqu'à 0.")
        if settings.frsc_ex_aequo == "share":
            lines.append("Des joueurs ex aequo à un problème se partagent la moyenne des "
                         "points des places qu'ils occupent.")
        else:
            lines.append("Des joueurs ex aequo à un problème reçoivent les points de leur "
                         "place publiée (la feuille reçue la première devant).")
    else:
        raise ValueError(f"Règle de classement général inconnue : « {rule} ».")
    lines.append("Un problème non joué compte 0.")
    if settings.best_of is not None:
        lines.append(f"Seuls les {settings.best_of} meilleurs résultats de chaque joueur "
                     "comptent ; les autres sont entre parenthèses.")
    if settings.tie_break == "played_then_best":
        lines.append("À total égal, passe devant le joueur qui a joué le plus de problèmes, "
                     "puis celui qui a le meilleur résultat (puis le deuxième, etc.).")
    else:
        lines.append("À total égal, les joueurs partagent la place.")
    return lines
