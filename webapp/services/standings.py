"""Championship standings of a competition: each problem whose results are published
contributes its ranking in force (final, else provisional — flagged), and each finished
Duplicate game of the competition its final ranking as one event (issue 22 §1: the rank,
the total and the percentage of the tops of ``duplicate.standings``, among the players who
sent it a bulletin), and each finished correspondence game of the competition one event
of its two players (:func:`_correspondence_event`: the winner placed 1st, the loser 2nd, a
draw shared; the score his final total; the percentage the points of his result), aggregated
by ``puzzles.championship`` under the competition's ``ranking_rule`` and
``standings_settings``. Reads only; never commits."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlmodel import Session, col, select

from puzzles.championship import (
    FRSC_BASE_VALUE,
    ChampionshipSettings,
    ProblemRanking,
    ProblemResult,
    Rule,
    StandingRow,
    describe,
    standings,
)
from webapp.models import (
    Competition,
    CorrespondenceGame,
    CorrespondenceStatus,
    DuplicateEntry,
    DuplicateGame,
    DuplicateRound,
    DuplicateStatus,
    Player,
    Problem,
    ProblemStatus,
    RankingKind,
    RankingRule,
    Stage,
)
from webapp.services import audit, correspondence, duplicate
from webapp.services.rankings import current_ranking
from webapp.services.stored import standings_settings_of

#: statuses whose ranking is public, hence counted
COUNTED_STATUSES = (ProblemStatus.PROVISIONAL, ProblemStatus.FINAL)


@dataclass(frozen=True)
class StandingsColumn:
    """A problem counted in the standings, with the kind of ranking it was counted with."""

    problem_id: int
    code: str
    title: str
    stage: str
    kind: str  # RankingKind
    event_value: int
    # "problem", "duplicate" (a finished Duplicate game) or "correspondence" (a finished
    # correspondence game)
    game: str = "problem"

    @property
    def provisional(self) -> bool:
        return self.kind != RankingKind.FINAL


@dataclass(frozen=True)
class StandingsLine:
    row: StandingRow
    name: str
    club: str


@dataclass(frozen=True)
class Standings:
    competition: Competition
    rule: Rule
    settings: ChampionshipSettings
    columns: tuple[StandingsColumn, ...]
    lines: tuple[StandingsLine, ...]

    @property
    def provisional(self) -> bool:
        """True while any counted problem has only its provisional ranking."""
        return any(c.provisional for c in self.columns)

    @property
    def description(self) -> list[str]:
        return describe(self.rule, self.settings)


#: the column's rule as ``puzzles.championship`` names it
_RULE: dict[RankingRule, Rule] = {
    RankingRule.SUM_PERCENT: "sum_percent",
    RankingRule.SUM_SCORES: "sum_scores",
    RankingRule.FRSC_POINTS: "frsc_points",
}


def competition_rule(competition: Competition) -> Rule:
    return _RULE[competition.ranking_rule]


def championship_standings(
    session: Session, competition: Competition, *, final_only: bool = False
) -> Standings:
    """The standings as they stand. ``final_only`` counts only problems whose final ranking
    is published; otherwise a problem with a provisional ranking counts with it."""
    rule = competition_rule(competition)
    settings = standings_settings_of(competition)
    problems = session.exec(
        select(Problem)
        .where(Problem.competition_id == competition.id)
        .where(col(Problem.status).in_(COUNTED_STATUSES))
        .order_by(col(Problem.deadline_at), col(Problem.id))
    ).all()
    stages = {s.id: s.name for s in session.exec(
        select(Stage).where(Stage.competition_id == competition.id)).all()}
    columns: list[StandingsColumn] = []
    inputs: list[ProblemRanking] = []
    names: dict[int, tuple[str, str]] = {}
    for prob in problems:
        assert prob.id is not None
        ranking = current_ranking(session, prob, RankingKind.FINAL)
        if ranking is None and not final_only:
            ranking = current_ranking(session, prob, RankingKind.PROVISIONAL)
        if ranking is None:
            continue
        rows = sorted(ranking.rows, key=lambda r: int(r["rank"]))
        results = []
        for r in rows:
            results.append(ProblemResult(
                player_id=int(r["player_id"]), place=int(r["rank"]), score=int(r["score"]),
                percent=r.get("percent"), ex_aequo=bool(r.get("ex_aequo", False)),
            ))
            names.setdefault(int(r["player_id"]), (str(r.get("name") or ""),
                                                   str(r.get("club") or "")))
        columns.append(StandingsColumn(
            problem_id=prob.id, code=prob.code, title=prob.title,
            stage=stages.get(prob.stage_id, "") if prob.stage_id is not None else "",
            kind=ranking.kind, event_value=prob.event_value,
        ))
        inputs.append(ProblemRanking(key=prob.code, results=tuple(results),
                                     event_value=prob.event_value,
                                     provisional=ranking.kind != RankingKind.FINAL))
    for game in session.exec(
        select(DuplicateGame).where(DuplicateGame.competition_id == competition.id)
        .where(DuplicateGame.status == DuplicateStatus.FINISHED)
        .order_by(col(DuplicateGame.finished_at), col(DuplicateGame.id))
    ).all():
        played = set(session.exec(
            select(DuplicateEntry.player_id)
            .join(DuplicateRound, col(DuplicateRound.id) == col(DuplicateEntry.round_id))
            .where(DuplicateRound.game_id == game.id)).all())
        game_rows = [r for r in duplicate.standings(session, game)
                     if r.get("player_id") in played]
        if not game_rows:
            continue
        key = game.code if game.code not in {c.key for c in inputs} \
            else f"{game.code} (Duplicate)"
        for drow in game_rows:
            names.setdefault(int(drow["player_id"]), (str(drow.get("name") or ""),
                                                      str(drow.get("club") or "")))
        columns.append(StandingsColumn(
            problem_id=0, code=game.code, title=game.title, stage="",
            kind=RankingKind.FINAL, event_value=FRSC_BASE_VALUE, game="duplicate"))
        inputs.append(ProblemRanking(key=key, results=tuple(
            ProblemResult(player_id=int(r["player_id"]), place=int(r["rank"]),
                          score=int(r["total"]), percent=r.get("percent"))
            for r in sorted(game_rows, key=lambda r: int(r["rank"])))))
    for corr in session.exec(
        select(CorrespondenceGame).where(CorrespondenceGame.competition_id == competition.id)
        .where(CorrespondenceGame.status == CorrespondenceStatus.FINISHED)
        .order_by(col(CorrespondenceGame.finished_at), col(CorrespondenceGame.id))
    ).all():
        taken = {c.key for c in inputs}
        key = corr.code if corr.code not in taken else f"{corr.code} (correspondance)"
        columns.append(StandingsColumn(
            problem_id=0, code=corr.code, title=corr.title, stage="",
            kind=RankingKind.FINAL, event_value=FRSC_BASE_VALUE, game="correspondence"))
        inputs.append(ProblemRanking(key=key, results=_correspondence_event(corr)))
    rows_out = standings(inputs, rule, settings)
    # the names as they are now (a player may have corrected his), else as ranked
    people = {p.id: p for p in session.exec(
        select(Player).where(col(Player.id).in_([r.player_id for r in rows_out]))).all()}
    lines = []
    for row in rows_out:
        player = people.get(row.player_id)
        name, club = (player.name, player.club) if player is not None else names[row.player_id]
        lines.append(StandingsLine(row=row, name=name, club=club))
    return Standings(competition=competition, rule=rule, settings=settings,
                     columns=tuple(columns), lines=tuple(lines))


def _correspondence_event(game: CorrespondenceGame) -> tuple[ProblemResult, ...]:
    """A finished correspondence game as an event of the standings (INFERRED, docs/WEB.md
    « Classement général »): its result places its players — the winner 1st, the loser 2nd
    (a game lost on time too: the result decides whatever the scores, as in the series
    table), a draw both 1st ex æquo —; ``score`` is each player's final total as his sheet
    records it (the capped scores of rounds I and II, the leftovers deducted or added);
    ``percent`` the points of his result out of the game's one point (100, 50, 0): a game
    has no reference score to be a percentage of, its result is what the series counts."""
    totals = correspondence.state_of(game).totals
    red = (game.red_id, float(game.result_red or 0), int(totals[0]))
    blue = (game.blue_id, float(game.result_blue or 0), int(totals[1]))
    first, second = (red, blue) if red[1] >= blue[1] else (blue, red)
    draw = first[1] == second[1]
    return (
        ProblemResult(player_id=first[0], place=1, score=first[2], percent=first[1] * 100),
        ProblemResult(player_id=second[0], place=1 if draw else 2, score=second[2],
                      percent=second[1] * 100, ex_aequo=draw),
    )


def _whole(value: str, label: str, *, minimum: int, maximum: int = 100_000) -> int:
    try:
        n = int(value.strip())
    except ValueError:
        raise ValueError(f"{label} : « {value[:40]} » n'est pas un nombre entier.") from None
    if n < minimum:
        raise ValueError(f"{label} : au moins {minimum}.")
    if n > maximum:  # an integer column holds at most 2^31 - 1
        raise ValueError(f"{label} : au plus {maximum}.")
    return n


def update_settings(
    *, session: Session, competition: Competition, form: Mapping[str, str], actor: str
) -> None:
    """Set the competition's rule, its standings settings and its problems' event values from
    the console form (``ranking_rule``, ``best_of`` — empty for all —, ``frsc_beyond_table``,
    ``frsc_ex_aequo``, ``tie_break``, ``event_value_<problem id>``). Everything is checked
    before anything changes; a bad value raises ValueError with a French message."""
    raw_rule = form.get("ranking_rule", competition.ranking_rule)
    try:
        rule = RankingRule(raw_rule)
    except ValueError:
        raise ValueError(f"Règle de classement général inconnue : « {raw_rule} ».") from None
    best = form.get("best_of", "").strip()
    defaults = ChampionshipSettings()
    settings = ChampionshipSettings(
        best_of=_whole(best, "Meilleurs résultats retenus", minimum=1) if best else None,
        frsc_beyond_table=form.get("frsc_beyond_table",
                                   defaults.frsc_beyond_table),  # type: ignore[arg-type]
        frsc_ex_aequo=form.get("frsc_ex_aequo", defaults.frsc_ex_aequo),  # type: ignore[arg-type]
        tie_break=form.get("tie_break", defaults.tie_break),  # type: ignore[arg-type]
    )
    problems = session.exec(
        select(Problem).where(Problem.competition_id == competition.id)).all()
    values: dict[int, int] = {}
    for prob in problems:
        assert prob.id is not None
        raw = form.get(f"event_value_{prob.id}")
        if raw is not None:
            values[prob.id] = _whole(raw, f"Valeur de l'épreuve {prob.code}", minimum=1)
    changed = {k: v for k, v in settings.to_dict().items() if v != getattr(defaults, k)}
    competition.ranking_rule = rule
    competition.standings_settings = changed or None
    session.add(competition)
    for prob in problems:
        if prob.id in values and prob.event_value != values[prob.id]:
            prob.event_value = values[prob.id]
            session.add(prob)
    audit.record(session=session, actor=actor, action="competition.standings",
                 target=competition.slug, rule=rule, settings=changed,
                 event_values={str(k): v for k, v in sorted(values.items())})
