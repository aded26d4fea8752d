"""Competitions and problems: creating them from a ``puzzles`` problem, and the few queries
every part needs (registered players, the puzzle value of a stored problem)."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from flask import current_app, has_app_context
from sqlmodel import Session, col, func, select

from puzzles.families import FAMILIES
from puzzles.generate import new_problem
from puzzles.problem import Problem as Puzzle
from scoring.lexicon import Lexicon, default_lexicon
from webapp.models import (
    DEFAULT_TIMEZONE,
    Appeal,
    Competition,
    Player,
    Problem,
    ProblemStatus,
    Ranking,
    RankingRule,
    Registration,
    Ruling,
    Stage,
    Submission,
    Verification,
)
from webapp.services import audit, inputs, rounds
from webapp.services.stored import puzzle_of as puzzle_of  # the one reader, re-exported
from webapp.services.stored import readable_puzzle as readable_puzzle
from webapp.services.stored import store_deadline


def create_competition(
    *, session: Session, slug: str, name: str,
    ranking_rule: RankingRule | str = RankingRule.SUM_PERCENT,
    lang: str = "fr", description: str = "", actor: str = audit.SYSTEM,
) -> Competition:
    """A new competition; French ``ValueError`` when the slug is taken (``ranking_rule``
    may be the console form's string: an unknown one raises ``UnknownEnumValue``)."""
    inputs.check_code(slug, "Identifiant de la compétition")
    name = inputs.check_line(name, "Nom de la compétition", required=True)
    description = inputs.check_text(description, "Description", limit=5000)
    if competition_by_slug(session, slug) is not None:
        raise ValueError(f"Une compétition a déjà l'identifiant « {slug} ».")
    comp = Competition(
        slug=slug, name=name, ranking_rule=RankingRule(ranking_rule), lang=lang,
        description=description,
    )
    session.add(comp)
    session.flush()
    audit.record(session=session, actor=actor, action="competition.create", target=slug)
    return comp


def add_stage(*, session: Session, competition: Competition, name: str) -> Stage:
    assert competition.id is not None
    name = inputs.check_line(name, "Nom de l'étape", required=True)
    last = session.exec(
        select(Stage).where(Stage.competition_id == competition.id)
        .order_by(col(Stage.position).desc())
    ).first()
    stage = Stage(
        competition_id=competition.id, name=name, position=(last.position + 1) if last else 1
    )
    session.add(stage)
    session.flush()
    return stage


def create_stage(*, session: Session, competition: Competition, name: str,
                 actor: str) -> Stage:
    """The console's new stage (:func:`add_stage`), audited as ``stage.create``."""
    stage = add_stage(session=session, competition=competition, name=name)
    audit.record(session=session, actor=actor, action="stage.create", target=competition.slug,
                 name=name)
    return stage


def set_open_registration(*, session: Session, competition: Competition, open_to_all: bool,
                          actor: str) -> None:
    """Open the competition to every player (``True``: anyone may send sheets and be ranked)
    or keep it to the registered ones; audited as ``competition.registration``."""
    competition.open_registration = open_to_all
    session.add(competition)
    audit.record(session=session, actor=actor, action="competition.registration",
                 target=competition.slug, open_registration=open_to_all)


def register(*, session: Session, competition: Competition, player: Player) -> Registration:
    assert competition.id is not None and player.id is not None
    existing = session.exec(
        select(Registration).where(
            Registration.competition_id == competition.id, Registration.player_id == player.id
        )
    ).first()
    if existing is not None:
        return existing
    reg = Registration(competition_id=competition.id, player_id=player.id)
    session.add(reg)
    session.flush()
    return reg


def registered_players(*, session: Session, problem: Problem) -> list[Player]:
    return list(
        session.exec(
            select(Player)
            .join(Registration, col(Registration.player_id) == col(Player.id))
            .where(Registration.competition_id == problem.competition_id)
            .where(col(Player.active).is_(True))
            .order_by(col(Player.id))
        ).all()
    )


#: the game types the console offers, with their French names (puzzles.families)
GAME_CHOICES = [(game.value, fam.label) for game, fam in FAMILIES.items()]


def _draw_lexicon(lang: str) -> Lexicon | None:
    """The word list a draw may need (rangée, exclusif, Superscrabble): the configured
    ``LEXICONS`` entry of the language, else the bundled French list."""
    path = ((current_app.config.get("LEXICONS") or {}) if has_app_context() else {}).get(lang)
    if path:
        return Lexicon.load(path, lang)
    if lang == "fr":
        return default_lexicon()
    return None


def puzzle_from_json(text: str) -> Puzzle:
    """A problem the arbitre entered as JSON (:meth:`puzzles.problem.Problem.from_json`),
    refused (``ValueError``, the checker's messages) unless it is complete."""
    puzzle = Puzzle.from_json(text)
    errs = puzzle.check()
    if errs:
        raise ValueError(" ".join(errs))
    return puzzle


def draw_puzzle(game: str, *, seed: int, lang: str, n_groups: int) -> Puzzle:
    """A new problem drawn by :func:`puzzles.generate.new_problem` from ``seed``, with the
    language's word list when the game needs one; an unknown ``game`` is a ``ValueError``."""
    if game not in dict(GAME_CHOICES):
        raise ValueError("Type de jeu inconnu.")
    return new_problem(game, seed=seed, lang=lang, lexicon=_draw_lexicon(lang),
                       n_groups=n_groups)


def create_problem(
    *,
    session: Session,
    competition: Competition,
    puzzle: Any,
    publish_at: datetime,
    deadline_at: datetime,
    timezone: str = DEFAULT_TIMEZONE,
    title: str | None = None,
    code: str | None = None,
    stage: Stage | None = None,
    appeal_days: int | None = None,
    status: ProblemStatus = ProblemStatus.SCHEDULED,
    actor: str = audit.SYSTEM,
    round_interval_minutes: int = 0,
    live: bool = False,
    instructions: str = "",
) -> Problem:
    """Store ``puzzle`` (a :class:`puzzles.problem.Problem`) with its schedule. The appeal
    window defaults to the ``APPEAL_DAYS`` setting (7 days). ``round_interval_minutes``
    (Anticipation family): the groups are announced move by move at that interval
    (:mod:`webapp.services.rounds`); 0 publishes the whole draw order at once. ``live``
    (Anticipation): played live with the rules' times (the setting ``anticipation_live``);
    the deadline must then be the end of move 14, ``rounds.live_deadline_after(publish_at)``.
    ``stage`` must belong to ``competition``; ``instructions``: the arbitre's words shown with
    the statement."""
    if publish_at.tzinfo is None or deadline_at.tzinfo is None:
        raise ValueError("publish_at and deadline_at must be timezone-aware")
    if deadline_at <= publish_at:
        raise ValueError("La clôture doit suivre la publication.")
    if stage is not None and stage.competition_id != competition.id:
        raise ValueError("Cette étape n'appartient pas à la compétition choisie.")
    if code:
        inputs.check_code(code, "Code public")
    title = inputs.check_line(title or "", "Titre") or None
    instructions = inputs.check_text(instructions, "Consignes", limit=5000)
    if code and session.exec(select(Problem.id).where(Problem.code == code)).first():
        raise ValueError(f"Le code public « {code} » est déjà celui d'un autre "
                         "problème : choisissez-en un autre.")
    inputs.zone_of(timezone)

    rounds.check_schedule(game=puzzle.game, publish_at=publish_at,
                          deadline_at=deadline_at, interval_minutes=round_interval_minutes,
                          timezone=timezone, live=live)
    if appeal_days is None:
        appeal_days = int(current_app.config["APPEAL_DAYS"]) if has_app_context() else 7
    assert competition.id is not None
    code = code or f"{competition.slug}-{secrets.token_hex(3)}"
    # players write the problem's code on their sheets: it is the puzzle's id
    puzzle = replace(puzzle, id=code).with_deadline(deadline_at.astimezone(ZoneInfo(timezone)))
    lex = puzzle.lexicon
    prob = Problem(
        code=code,
        competition_id=competition.id,
        stage_id=stage.id if stage else None,
        title=title or inputs.one_line(puzzle.title or "")[:200] or puzzle.game.label,
        game=puzzle.game,
        lang=puzzle.lang,
        params=({**puzzle.to_dict(), "settings": {"anticipation_live": True}} if live
                else puzzle.to_dict()),
        tileset=puzzle.lang,
        lexicon_name=lex.name if lex else "default",
        lexicon_sha256=lex.sha256 if lex else None,
        lexicon_word_count=lex.word_count if lex else None,
        publish_at=publish_at,
        deadline_at=deadline_at,
        timezone=timezone,
        appeal_days=appeal_days,
        round_interval_minutes=round_interval_minutes,
        status=status,
    )
    if instructions:
        prob.instructions = instructions
    session.add(prob)
    session.flush()
    audit.record(
        session=session, actor=actor, action="problem.create", target=prob.code,
        game=prob.game, publish_at=publish_at.isoformat(), deadline_at=deadline_at.isoformat(),
        round_interval_minutes=round_interval_minutes, live=live,
    )
    return prob


def reschedule(
    *, session: Session, problem: Problem, publish_at: datetime, deadline_at: datetime,
    actor: str, reason: str,
) -> list[int]:
    """Move a problem's publication or deadline (before it closes). Lateness is judged again
    against the new deadline; returns the ids of sheets whose late flag changed."""
    if publish_at.tzinfo is None or deadline_at.tzinfo is None:
        raise ValueError("publish_at and deadline_at must be timezone-aware")
    if problem.status not in (ProblemStatus.DRAFT, ProblemStatus.SCHEDULED, ProblemStatus.OPEN):
        raise ValueError("Ce problème est clos : ses dates ne peuvent plus changer.")
    if deadline_at <= publish_at:
        raise ValueError("La clôture doit suivre la publication.")
    if problem.status == ProblemStatus.OPEN and publish_at != problem.publish_at:
        raise ValueError("Ce problème est déjà publié : seule la clôture peut changer.")
    if not reason.strip():
        raise ValueError("Indiquez le motif du changement de dates.")

    rounds.check_schedule(game=problem.game, publish_at=publish_at, deadline_at=deadline_at,
                          interval_minutes=problem.round_interval_minutes,
                          timezone=problem.timezone, live=rounds.is_live(problem))

    old = (problem.publish_at, problem.deadline_at)
    problem.publish_at = publish_at
    store_deadline(problem, deadline_at)
    session.add(problem)
    changed = []
    for sub in session.exec(select(Submission).where(Submission.problem_id == problem.id)):
        late = sub.received_at > deadline_at
        if late != sub.late:
            sub.late = late
            session.add(sub)
            assert sub.id is not None
            changed.append(sub.id)
    audit.record(
        session=session, actor=actor, action="problem.reschedule", target=problem.code,
        reason=reason.strip(), publish_at=[old[0].isoformat(), publish_at.isoformat()],
        deadline_at=[old[1].isoformat(), deadline_at.isoformat()], late_changed=changed,
    )
    return changed


def competitions(session: Session, *, newest_first: bool = False) -> list[Competition]:
    """Every competition, by name (or newest first)."""
    order = (col(Competition.created_at).desc() if newest_first else col(Competition.name))
    return list(session.exec(select(Competition).order_by(order)).all())


def competition_by_slug(session: Session, slug: str) -> Competition | None:
    return session.exec(select(Competition).where(Competition.slug == slug)).first()


@dataclass
class CompetitionOverview:
    """The console's competition page: its stages, problems (by publication) and how many
    players are registered."""

    stages: list[Stage]
    problems: list[Problem]
    n_players: int


def stages_of(session: Session, competition: Competition) -> list[Stage]:
    """A competition's stages, in order."""
    return list(session.exec(
        select(Stage).where(Stage.competition_id == competition.id)
        .order_by(col(Stage.position))
    ).all())


def competition_overview(session: Session, competition: Competition) -> CompetitionOverview:
    stages = stages_of(session, competition)
    probs = list(session.exec(
        select(Problem).where(Problem.competition_id == competition.id)
        .order_by(col(Problem.publish_at))
    ).all())
    n_players = int(session.exec(
        select(func.count()).select_from(Registration)
        .where(Registration.competition_id == competition.id)
    ).one())
    return CompetitionOverview(stages, probs, n_players)


def all_stages(session: Session) -> list[Stage]:
    """Every stage, by competition and position (the new problem form)."""
    return list(session.exec(
        select(Stage).order_by(col(Stage.competition_id), col(Stage.position))).all())


@dataclass
class ProblemOverview:
    """The console's problem page: rulings, rankings (newest first) and appeals with their
    player."""

    rulings: list[Ruling]
    rankings: list[Ranking]
    appeals: list[Any]  # (Appeal, Player), oldest first


def problem_overview(session: Session, problem: Problem) -> ProblemOverview:
    rulings = list(session.exec(
        select(Ruling).where(Ruling.problem_id == problem.id).order_by(col(Ruling.created_at))
    ).all())
    rankings = list(session.exec(
        select(Ranking).where(Ranking.problem_id == problem.id)
        .order_by(col(Ranking.created_at).desc())
    ).all())
    appeals = list(session.exec(
        select(Appeal, Player)
        .join(Player, col(Player.id) == col(Appeal.player_id))
        .join(Verification, col(Verification.id) == col(Appeal.verification_id))
        .join(Submission, col(Submission.id) == col(Verification.submission_id))
        .where(Submission.problem_id == problem.id)
        .order_by(col(Appeal.created_at))
    ).all())
    return ProblemOverview(rulings, rankings, appeals)


@dataclass
class FrontPage:
    """The public home page: competitions (newest first), open problems (by deadline), the
    next ten scheduled (by publication)."""

    competitions: list[Competition]
    open_problems: list[Problem]
    upcoming: list[Problem]


def front_page(session: Session, *, upcoming: int = 10) -> FrontPage:
    return FrontPage(
        competitions(session, newest_first=True),
        list(session.exec(select(Problem).where(Problem.status == ProblemStatus.OPEN)
                          .order_by(col(Problem.deadline_at))).all()),
        list(session.exec(select(Problem).where(Problem.status == ProblemStatus.SCHEDULED)
                          .order_by(col(Problem.publish_at)).limit(upcoming)).all()),
    )


def public_problems(session: Session, competition: Competition) -> list[Problem]:
    """A competition's problems but the drafts, by publication."""
    return list(session.exec(
        select(Problem)
        .where(Problem.competition_id == competition.id)
        .where(col(Problem.status) != ProblemStatus.DRAFT)
        .order_by(col(Problem.publish_at))
    ).all())


def archive_page(session: Session, statuses: tuple[str, ...], *, page: int = 1,
                 per_page: int = 30) -> tuple[list[Problem], int]:
    """One page of the problems in ``statuses`` (latest deadline first), and their number."""
    where = col(Problem.status).in_(statuses)
    total = int(session.exec(select(func.count()).select_from(Problem).where(where)).one())
    rows = list(session.exec(
        select(Problem).where(where).order_by(col(Problem.deadline_at).desc())
        .offset((page - 1) * per_page).limit(per_page)
    ).all())
    return rows, total
