"""The arbitre's console: competitions and their calendars, problems (drawn by
``puzzles.generate.new_problem`` or entered as JSON), player import, the submissions as they
arrive, verification and re-verification (with a reason and a preview of the ranking
changes), rulings, appeals, finalisation, the audit log and the local mailbox.

Every route is arbitre-only. Each action calls one service function in one transaction;
nothing here computes a score, a rank or a status by itself.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.typing import ResponseReturnValue
from sqlmodel import Session, col, func, select

from mailer import mailroom
from puzzles.championship import ChampionshipSettings
from puzzles.feuille import parse_feuille
from puzzles.generate import new_problem
from puzzles.problem import Problem as Puzzle
from puzzles.problem import ProblemError
from puzzles.solver import SolverError, solve
from puzzles.verify import verify
from scoring.lexicon import Lexicon, default_lexicon
from webapp.auth import arbitre_required, current_arbitre
from webapp.board_svg import board_svg
from webapp.db import get_engine, session_scope
from webapp.models import (
    DEFAULT_TIMEZONE,
    Appeal,
    AppealStatus,
    Arbitre,
    AuditLog,
    Competition,
    Player,
    Problem,
    ProblemStatus,
    Ranking,
    Registration,
    Ruling,
    RulingKind,
    Stage,
    Submission,
    Verification,
)
from webapp.services import (
    appeals,
    audit,
    clock,
    lifecycle,
    players,
    problems,
    rankings,
    rounds,
    standings,
    submissions,
    verification,
)
from webapp.services.problems import readable_puzzle
from webapp.views.helpers import get_or_404, letters_view

bp = Blueprint("console", __name__, url_prefix="/console")

GAME_CHOICES = [
    ("integral", "Scrabble intégral"),
    ("integral_partiel", "Intégral partiel"),
    ("rangee", "Intégral sur rangée de lettres"),
    ("anticipation", "Anticipation"),
    ("anticipation_avocalique", "Anticipation avocalique"),
    ("exclusif_resistance", "Scrabble exclusif – résistance"),
    ("exclusif_fond", "Scrabble exclusif – fond"),
    ("anticipation_aveugle", "Anticipation aveugle"),
    ("serie_maximaux", "Série de maximaux"),
    ("serie_maximaux_consonnes", "Série de maximaux (consonnes annoncées)"),
    ("superscrabble", "Superscrabble"),
    ("superscrabble_incomplet", "Superscrabble incomplet"),
    ("n_scrabble", "N-Scrabble"),
    ("n_scrabble_consonnes", "N-Scrabble (consonnes annoncées)"),
]
RANKING_RULES = [
    ("sum_percent", "somme des pourcentages de la référence"),
    ("sum_scores", "somme des scores"),
    ("frsc_points", "points FRSc par place"),
]
PER_PAGE = 50
#: a problem's public code: in URLs, mail subjects and addresses
CODE_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,31}")
MIN_YEAR, MAX_YEAR = 2000, 2100  # dates a competition can have
MAX_TEXT = {"name": 200, "title": 200, "description": 5000, "instructions": 5000}
#: the largest id a row can have (PostgreSQL ``integer``)
MAX_ID = 2**31 - 1
LANGS = ("fr", "ro")


def int_field(form: Any, name: str, label: str, *, lo: int, hi: int,
              default: int | None = None) -> int:
    """An integer form field within ``lo..hi``, or a French ``ValueError`` naming it."""
    raw = (form.get(name) or "").strip()
    if not raw:
        if default is None:
            raise ValueError(f"{label} : valeur obligatoire.")
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ValueError(f"{label} : « {raw[:40]} » n'est pas un nombre entier.") from None
    if not lo <= value <= hi:
        raise ValueError(f"{label} : {value} est hors des limites (de {lo} à {hi}).")
    return value


def float_field(form: Any, name: str, label: str, *, lo: float, hi: float,
                default: float) -> float:
    """A decimal form field (comma or point) within ``lo..hi``; ``inf`` and ``NaN`` are
    refused like any other non-number."""
    raw = (form.get(name) or "").strip().replace(",", ".")
    if not raw:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise ValueError(f"{label} : « {raw[:40]} » n'est pas un nombre.")
    if not lo <= value <= hi:
        raise ValueError(f"{label} : {raw} est hors des limites (de {lo:g} à {hi:g}).")
    return value


def text_field(form: Any, name: str, label: str, *, required: bool = False) -> str:
    value = (form.get(name) or "").strip()
    if required and not value:
        raise ValueError(f"{label} : valeur obligatoire.")
    limit = MAX_TEXT.get(name, 200)
    if len(value) > limit:
        raise ValueError(f"{label} : {len(value)} caractères, {limit} au plus.")
    return value


def id_arg(value: int | None) -> int | None:
    """An id from a form, or ``None`` when it cannot name a row."""
    return value if value is not None and 0 < value <= MAX_ID else None


def page_arg() -> int:
    """``?page=``: 1 when absent or unreadable, at most 1,000,000 (no huge SQL offset)."""
    return min(1_000_000, max(1, request.args.get("page", 1, type=int) or 1))


@bp.before_request
@arbitre_required
def _only_arbitres() -> None:
    """Every console page needs a signed-in arbitre (the decorator redirects otherwise)."""
    return None


def _actor() -> str:
    a = current_arbitre()
    if a is None:
        abort(403)
    return a.username


def _session() -> Session:
    return Session(get_engine(), expire_on_commit=False)


def parse_local(value: str, tz: str) -> datetime:
    """A ``datetime-local`` field read in ``tz`` (the competition's zone), as UTC."""
    try:
        zone = ZoneInfo(tz)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"Fuseau horaire inconnu : « {tz} ».") from None
    try:
        naive = datetime.fromisoformat(value.strip())
    except ValueError:
        raise ValueError(f"Date illisible : « {value[:40]} » (attendu AAAA-MM-JJTHH:MM).") \
            from None
    if not MIN_YEAR <= naive.year <= MAX_YEAR:
        raise ValueError(f"Date hors des limites : « {value[:40]} » (l'année doit être comprise "
                         f"entre {MIN_YEAR} et {MAX_YEAR}).")
    if naive.tzinfo is not None:
        return naive.astimezone(UTC)
    return naive.replace(tzinfo=zone).astimezone(UTC)


# --- dashboard -------------------------------------------------------------------------------


@bp.route("/")
def index() -> str:
    with _session() as s:
        comps = s.exec(select(Competition).order_by(col(Competition.created_at).desc())).all()
        probs = s.exec(
            select(Problem)
            .where(col(Problem.status) != ProblemStatus.FINAL)
            .order_by(col(Problem.deadline_at))
        ).all()
        counts = dict(s.exec(
            select(Submission.problem_id, func.count(func.distinct(Submission.player_id)))
            .group_by(col(Submission.problem_id))
        ).all())
        open_appeals = s.exec(
            select(func.count()).select_from(Appeal).where(Appeal.status == AppealStatus.OPEN)
        ).one()
        recent = s.exec(
            select(Submission, Player, Problem)
            .join(Player, col(Player.id) == col(Submission.player_id))
            .join(Problem, col(Problem.id) == col(Submission.problem_id))
            .order_by(col(Submission.received_at).desc())
            .limit(15)
        ).all()
    return render_template(
        "console/index.html", competitions=comps, problems=probs, counts=counts,
        open_appeals=open_appeals, recent=recent,
    )


# --- competitions ----------------------------------------------------------------------------


@bp.route("/competitions/nouvelle", methods=["GET", "POST"])
def competition_new() -> ResponseReturnValue:
    form = request.form
    error = None
    if request.method == "POST":
        slug = form.get("slug", "").strip().lower()
        name = form.get("name", "").strip()
        if not slug or not name:
            error = "L'identifiant et le nom sont obligatoires."
        elif not CODE_RE.fullmatch(slug):
            error = ("L'identifiant ne contient que des lettres sans accent, chiffres, - et _ "
                     "(32 caractères au plus, commençant par une lettre ou un chiffre).")
        elif len(name) > MAX_TEXT["name"]:
            error = f"Le nom compte {len(name)} caractères, {MAX_TEXT['name']} au plus."
        elif form.get("ranking_rule", "sum_percent") not in dict(RANKING_RULES):
            error = "Règle de classement inconnue."
        elif form.get("lang", "fr") not in LANGS:
            error = "Langue inconnue : français (fr) ou roumain (ro)."
        elif len(form.get("description", "")) > MAX_TEXT["description"]:
            error = f"La description dépasse {MAX_TEXT['description']} caractères."
        else:
            try:
                with session_scope() as s:
                    if s.exec(select(Competition).where(Competition.slug == slug)).first():
                        raise ValueError(f"Une compétition a déjà l'identifiant « {slug} ».")
                    problems.create_competition(
                        session=s, slug=slug, name=name,
                        ranking_rule=form.get("ranking_rule", "sum_percent"),
                        lang=form.get("lang", "fr"), description=form.get("description", ""),
                        actor=_actor(),
                    )
            except ValueError as exc:
                error = str(exc)
            else:
                flash(f"Compétition « {name} » créée.", "success")
                return redirect(url_for("console.competition", slug=slug))
    return render_template(
        "console/competition_new.html", form=form, error=error, ranking_rules=RANKING_RULES,
    ), (400 if error else 200)


@bp.route("/competitions/<slug>", methods=["GET", "POST"])
def competition(slug: str) -> ResponseReturnValue:
    with _session() as s:
        comp = s.exec(select(Competition).where(Competition.slug == slug)).first()
        if comp is None:
            abort(404)
    if request.method == "POST" and request.form.get("action") == "stage":
        name = request.form.get("stage_name", "").strip()
        if not name:
            flash("Donnez un nom à l'étape.", "error")
        elif len(name) > MAX_TEXT["name"]:
            flash(f"Le nom de l'étape dépasse {MAX_TEXT['name']} caractères.", "error")
        else:
            with session_scope() as s:
                c = s.get(Competition, comp.id)
                assert c is not None
                problems.add_stage(session=s, competition=c, name=name)
                audit.record(session=s, actor=_actor(), action="stage.create", target=slug,
                             name=name)
            flash(f"Étape « {name} » ajoutée.", "success")
        return redirect(url_for("console.competition", slug=slug))
    if request.method == "POST" and request.form.get("action") == "registration":
        open_to_all = request.form.get("open_registration") == "1"
        with session_scope() as s:
            c = s.get(Competition, comp.id)
            assert c is not None
            c.open_registration = open_to_all
            s.add(c)
            audit.record(session=s, actor=_actor(), action="competition.registration",
                         target=slug, open_registration=open_to_all)
        flash("Compétition ouverte à tous les joueurs : chacun peut envoyer ses feuilles et "
              "être classé." if open_to_all else "Compétition réservée aux joueurs inscrits.",
              "success")
        return redirect(url_for("console.competition", slug=slug))
    if request.method == "POST" and request.form.get("action") == "standings":
        try:
            with session_scope() as s:
                c = s.get(Competition, comp.id)
                assert c is not None
                standings.update_settings(session=s, competition=c, form=request.form,
                                          actor=_actor())
        except ValueError as exc:
            flash(f"Rien n'a été changé : {exc}", "error")
        else:
            flash("Règles du classement général enregistrées.", "success")
        return redirect(url_for("console.competition", slug=slug))
    with _session() as s:
        stages = s.exec(
            select(Stage).where(Stage.competition_id == comp.id).order_by(col(Stage.position))
        ).all()
        probs = s.exec(
            select(Problem).where(Problem.competition_id == comp.id)
            .order_by(col(Problem.publish_at))
        ).all()
        n_players = s.exec(
            select(func.count()).select_from(Registration)
            .where(Registration.competition_id == comp.id)
        ).one()
    return render_template(
        "console/competition.html", competition=comp, stages=stages, problems=probs,
        n_players=n_players, ranking_rules=RANKING_RULES,
        standings_settings=_standings_settings(comp),
    )


def _standings_settings(comp: Competition) -> Any:
    try:
        return ChampionshipSettings.from_dict(comp.standings_settings)
    except (TypeError, ValueError):
        return ChampionshipSettings()


# --- players ---------------------------------------------------------------------------------


@bp.route("/joueurs", methods=["GET", "POST"])
def players_page() -> ResponseReturnValue:
    report = None
    text = ""
    status = 200
    with _session() as s:
        comps = s.exec(select(Competition).order_by(col(Competition.name))).all()
    if request.method == "POST":
        f = request.files.get("fichier")
        if f is not None and f.filename:
            raw = f.read()
            try:
                text = raw.decode("utf-8-sig")
            except UnicodeDecodeError:
                text = raw.decode("cp1252", errors="replace")
        else:
            text = request.form.get("csv", "")
        comp_id = id_arg(request.form.get("competition_id", type=int))
        with session_scope() as s:
            comp = s.get(Competition, comp_id) if comp_id else None
            report = players.import_players_csv(
                session=s, text=text, competition=comp, actor=_actor()
            )
            if not report.ok:
                s.rollback()  # all or nothing: a file with errors imports nobody
        if report.ok:
            flash(
                f"Import terminé : {len(report.created)} créé(s), {len(report.updated)} mis à "
                f"jour, {len(report.unchanged)} inchangé(s).", "success",
            )
            return redirect(url_for("console.players_page"))
        status = 400
    page = page_arg()
    with _session() as s:
        total = s.exec(select(func.count()).select_from(Player)).one()
        plist = s.exec(
            select(Player).order_by(col(Player.name)).offset((page - 1) * PER_PAGE)
            .limit(PER_PAGE)
        ).all()
    return render_template(
        "console/players.html", players=plist, competitions=comps, report=report, text=text,
        page=page, pages=max(1, (total + PER_PAGE - 1) // PER_PAGE), total=total,
    ), status


# --- problems --------------------------------------------------------------------------------


def _lexicon_for(lang: str) -> Any:
    """The word list a draw may need (rangée, exclusif, Superscrabble): the configured
    ``LEXICONS`` entry of the language, else the bundled French list."""
    path = (current_app.config.get("LEXICONS") or {}).get(lang)
    if path:
        return Lexicon.load(path, lang)
    if lang == "fr":
        return default_lexicon()
    return None


def _round_interval(form: Any, game: Any) -> int:
    """Minutes between two Anticipation announcements (the form field is in hours; empty:
    one move a day; 0: the whole draw order at publication)."""
    if not game.is_anticipation:
        return 0
    raw = (form.get("round_interval_hours") or "").strip().replace(",", ".")
    if not raw:
        return rounds.DEFAULT_INTERVAL_MINUTES
    try:
        hours = float(raw)
    except ValueError:
        hours = math.nan
    if not math.isfinite(hours):  # "douze", but also "inf" and "nan"
        raise ValueError(
            f"Intervalle entre deux annonces illisible : « {raw[:40]} » (un nombre d'heures ; "
            "0 pour publier tout l'ordre de tirage d'emblée)."
        )
    if not 0 <= hours <= 24 * 31:
        raise ValueError(f"Intervalle entre deux annonces hors des limites : {raw} h (de 0 à "
                         f"{24 * 31} heures).")
    return round(hours * 60)


@bp.route("/problemes/nouveau", methods=["GET", "POST"])
def problem_new() -> ResponseReturnValue:
    form = request.form
    error = None
    with _session() as s:
        comps = s.exec(select(Competition).order_by(col(Competition.name))).all()
        stages = s.exec(
            select(Stage).order_by(col(Stage.competition_id), col(Stage.position))
        ).all()
    if request.method == "POST":
        try:
            comp_id = id_arg(form.get("competition_id", type=int))
            tz = form.get("timezone", DEFAULT_TIMEZONE).strip() or DEFAULT_TIMEZONE
            publish_at = parse_local(form.get("publish_at", ""), tz)
            deadline_at = parse_local(form.get("deadline_at", ""), tz)
            if deadline_at <= publish_at:
                raise ValueError("La clôture doit suivre la publication.")
            lang = form.get("lang", "fr")
            if lang not in LANGS:
                raise ValueError("Langue inconnue : français (fr) ou roumain (ro).")
            code = form.get("code", "").strip()
            if code and not CODE_RE.fullmatch(code):
                raise ValueError(
                    f"Code public « {code[:40]} » refusé : de 1 à 32 lettres sans accent, "
                    "chiffres, - et _, commençant par une lettre ou un chiffre."
                )
            title = text_field(form, "title", "Titre")
            instructions = text_field(form, "instructions", "Consignes")
            max_days = int(current_app.config.get("MAX_APPEAL_DAYS", 30))
            appeal_days = int_field(form, "appeal_days", "Délai d'appel (jours)", lo=1,
                                    hi=max_days) if (form.get("appeal_days") or "").strip() \
                else None  # empty: APPEAL_DAYS
            if form.get("source") == "json":
                puzzle = Puzzle.from_json(form.get("problem_json", ""))
                errs = puzzle.check()
                if errs:
                    raise ValueError(" ".join(errs))
            else:
                if not (form.get("seed") or "").strip():
                    raise ValueError("Donnez une graine (un nombre entier) pour le tirage.")
                seed = int_field(form, "seed", "Graine du tirage", lo=0, hi=2**63 - 1)
                game = form.get("game", "integral")
                if game not in dict(GAME_CHOICES):
                    raise ValueError("Type de jeu inconnu.")
                n_groups = int_field(form, "n_groups", "Nombre de groupes", lo=2, hi=15,
                                     default=4)
                lexicon = _lexicon_for(lang)
                puzzle = new_problem(game, seed=seed, lang=lang, lexicon=lexicon,
                                     n_groups=n_groups)
            status = ProblemStatus.DRAFT if form.get("draft") else ProblemStatus.SCHEDULED
            interval = _round_interval(form, puzzle.game)
            with session_scope() as s:
                comp = s.get(Competition, comp_id) if comp_id else None
                if comp is None:
                    raise ValueError("Choisissez la compétition.")
                stage_id = id_arg(form.get("stage_id", type=int))
                stage = s.get(Stage, stage_id) if stage_id else None
                if stage is not None and stage.competition_id != comp.id:
                    raise ValueError("Cette étape n'appartient pas à la compétition choisie.")
                if code and s.exec(select(Problem.id).where(Problem.code == code)).first():
                    raise ValueError(f"Le code public « {code} » est déjà celui d'un autre "
                                     "problème : choisissez-en un autre.")
                prob = problems.create_problem(
                    session=s, competition=comp, puzzle=puzzle, publish_at=publish_at,
                    deadline_at=deadline_at, timezone=tz,
                    title=title or None,
                    code=code or None, stage=stage,
                    appeal_days=appeal_days,
                    status=status, actor=_actor(), round_interval_minutes=interval,
                )
                if instructions:
                    prob.instructions = instructions
                    s.add(prob)
                pid = prob.id
        except (ValueError, ProblemError, RuntimeError) as exc:
            error = str(exc)
        else:
            flash("Problème enregistré.", "success")
            return redirect(url_for("console.problem", problem_id=pid))
    return render_template(
        "console/problem_new.html", form=form, error=error, competitions=comps, stages=stages,
        games=GAME_CHOICES, default_tz=DEFAULT_TIMEZONE,
    ), (400 if error else 200)


def _latest_per_player(s: Session, problem: Problem) -> list[dict[str, Any]]:
    subs = s.exec(
        select(Submission, Player)
        .join(Player, col(Player.id) == col(Submission.player_id))
        .where(Submission.problem_id == problem.id)
        .order_by(col(Submission.player_id), col(Submission.version).desc())
    ).all()
    rows: dict[int, dict[str, Any]] = {}
    for sub, player in subs:
        row = rows.setdefault(player.id or 0, {"player": player, "latest": sub, "versions": 0})
        row["versions"] += 1
    ver = {
        v.submission_id: v
        for v in s.exec(
            select(Verification)
            .join(Submission, col(Submission.id) == col(Verification.submission_id))
            .where(Submission.problem_id == problem.id)
            .where(col(Verification.superseded_at).is_(None))
        ).all()
    }
    out = sorted(rows.values(), key=lambda r: r["latest"].received_at, reverse=True)
    for r in out:
        r["verification"] = ver.get(r["latest"].id)
    return out


@bp.route("/problemes/<int:problem_id>")
def problem(problem_id: int) -> str:
    return problem_page(problem_id)


def problem_page(problem_id: int, *, errors: list[str] | None = None,
                 kept: dict[str, str] | None = None) -> str:
    """The problem's console page; after a refused form, with its errors and what the
    arbitre typed (``kept``), so nothing is lost."""
    with _session() as s:
        prob = get_or_404(s, Problem, problem_id)
        comp = s.get(Competition, prob.competition_id)
        rows = _latest_per_player(s, prob)
        rulings = s.exec(
            select(Ruling).where(Ruling.problem_id == prob.id).order_by(col(Ruling.created_at))
        ).all()
        rankings = s.exec(
            select(Ranking).where(Ranking.problem_id == prob.id)
            .order_by(col(Ranking.created_at).desc())
        ).all()
        prob_appeals = s.exec(
            select(Appeal, Player)
            .join(Player, col(Player.id) == col(Appeal.player_id))
            .join(Verification, col(Verification.id) == col(Appeal.verification_id))
            .join(Submission, col(Submission.id) == col(Verification.submission_id))
            .where(Submission.problem_id == prob.id)
            .order_by(col(Appeal.created_at))
        ).all()
        steps = lifecycle.steps_done(session=s, problem=prob)
    pz = readable_puzzle(prob)
    svg = board_svg(pz.initial_board(), tileset=pz.tileset) if pz else None
    return render_template(
        "console/problem.html", problem=prob, competition=comp, rows=rows, rulings=rulings,
        rankings=rankings, appeals=prob_appeals, puzzle=pz,
        letters=letters_view(pz) if pz else None, board=svg, auto=request.args.get("auto"),
        ruling_kinds=RulingKind, form_errors=errors or [], kept=kept or {}, now=clock.now(),
        steps=steps,
    )


@bp.route("/problemes/<int:problem_id>/etape", methods=["POST"])
def problem_step(problem_id: int) -> ResponseReturnValue:
    """Move a problem one step of its life by hand (the scheduler does the same when due)."""
    step = request.form.get("step", "")
    steps = {
        "publish": (lifecycle.publish, (ProblemStatus.SCHEDULED, ProblemStatus.DRAFT)),
        "close": (lifecycle.close, (ProblemStatus.OPEN,)),
        "verify": (lifecycle.verify, (ProblemStatus.CLOSED,)),
        "provisional": (lifecycle.publish_provisional, (ProblemStatus.VERIFIED,)),
    }
    if step not in steps:
        abort(400)
    fn, allowed = steps[step]
    try:
        with session_scope() as s:
            prob = get_or_404(s, Problem, problem_id)
            if prob.status not in allowed:
                raise ValueError("Cette étape n'est pas possible dans l'état actuel du problème.")
            if step == "close" and clock.now() < prob.deadline_at:
                raise ValueError("Le délai n'est pas écoulé : le problème ne peut pas être clos.")
            name = fn(s, prob, clock.now())
            audit.record(session=s, actor=_actor(), action=f"problem.{name}", target=prob.code,
                         manual=True)
    except ValueError as exc:
        flash(str(exc), "error")
    else:
        flash("C'est fait.", "success")
    return redirect(url_for("console.problem", problem_id=problem_id))


@bp.route("/problemes/<int:problem_id>/hors-delai/<int:submission_id>", methods=["POST"])
def accept_late(problem_id: int, submission_id: int) -> ResponseReturnValue:
    try:
        with session_scope() as s:
            sub = get_or_404(s, Submission, submission_id)
            if sub.problem_id != problem_id:
                abort(404)
            submissions.accept_late(session=s, submission=sub, actor=_actor(),
                                    reason=request.form.get("reason", ""))
            prob = s.get(Problem, problem_id)
            ranked = prob is not None and prob.status in (
                ProblemStatus.VERIFIED, ProblemStatus.PROVISIONAL, ProblemStatus.FINAL)
    except ValueError as exc:
        flash(str(exc), "error")
    else:
        if ranked:
            # The batch already ran: nothing verifies this sheet until a re-run.
            flash("Feuille hors délai acceptée. Les feuilles sont déjà vérifiées : elle "
                  "n'entrera au classement qu'après « Relancer la vérification… » (en haut "
                  "de cette page).", "success")
        else:
            flash("Feuille hors délai acceptée : elle sera vérifiée avec les autres à la "
                  "vérification du problème.", "success")
    return redirect(url_for("console.problem", problem_id=problem_id))


# --- reference solution ----------------------------------------------------------------------

MAX_SOLVER_SECONDS = 60


@bp.route("/problemes/<int:problem_id>/reference", methods=["POST"])
def reference(problem_id: int) -> ResponseReturnValue:
    """Store the problem's reference solution: computed by ``puzzles.solver`` or entered by
    the arbitre as a feuille. Either way the verifier scores it with the problem's word list;
    its score becomes the problem's ``reference_score`` (the 100 % of the ranking), and the
    solution is published with the results."""
    back = redirect(url_for("console.problem", problem_id=problem_id) + "#reference")
    with _session() as s:
        prob = get_or_404(s, Problem, problem_id)
    pz = readable_puzzle(prob)
    if pz is None:
        flash("Énoncé illisible : pas de solution de référence possible.", "error")
        return back
    try:
        lexicon = verification.base_lexicon(prob)
        if request.form.get("action") == "solve":
            seconds = min(MAX_SOLVER_SECONDS,
                          max(1, request.form.get("seconds", 10, type=int) or 10))
            solution = solve(pz, lexicon, seconds=seconds, settings=verification.settings_for(prob))
            feuille, source = solution.feuille, f"solveur ({seconds} s" + (
                ", optimum prouvé)" if solution.exact else ")")
        else:
            parsed = parse_feuille(request.form.get("feuille", ""))
            if parsed.errors:
                return problem_page(
                    problem_id,
                    errors=[f"Solution de référence — {e}" for e in parsed.errors],
                    kept={"ref_feuille": request.form.get("feuille", "")},
                ), 400
            feuille, source = parsed.feuille, "arbitre"
    except (SolverError, verification.VerificationError, ValueError) as exc:
        flash(str(exc), "error")
        return back
    report = verify(pz, feuille, lexicon, verification.settings_for(prob))
    data = {
        "source": source,
        "total": report.final_score,
        "unit": report.unit,
        "moves": [m.to_dict() for m in report.moves],
        "scrabbles": [m.to_dict() for m in report.scrabbles],
        "computed_at": clock.now().isoformat(),
    }
    with session_scope() as s:
        p = get_or_404(s, Problem, problem_id)
        # a new dict: the JSON column only notices a reassignment
        p.params = {**p.params, "reference": data}
        p.reference_score = report.final_score or None
        s.add(p)
        audit.record(session=s, actor=_actor(), action="problem.reference", target=p.code,
                     source=source, total=report.final_score)
    flash(f"Solution de référence enregistrée : {report.final_score} {report.unit}.", "success")
    return back


# --- verification, rulings, appeals, finalisation --------------------------------------------


def _preview_digest(preview: Any) -> str:
    """A fingerprint of what the arbitre saw: applying checks it has not changed since."""
    rows = [(r["player_id"], r["rank"], r["score"]) for r in preview.new_rows]
    blob = json.dumps([preview.lexicon_sha256, rows], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()


@bp.route("/problemes/<int:problem_id>/reverifier", methods=["GET", "POST"])
def rerun(problem_id: int) -> ResponseReturnValue:
    with _session() as s:
        prob = get_or_404(s, Problem, problem_id)
    reason = request.form.get("reason", "").strip()
    if request.method == "GET":
        return render_template("console/rerun.html", problem=prob, preview=None, reason="")
    try:
        with session_scope() as s:
            p = get_or_404(s, Problem, problem_id)
            # bounded: a partial preview goes on where it stopped when asked again
            preview = verification.preview_rerun(
                session=s, problem=p, reason=reason,
                budget_seconds=verification.preview_seconds(),
            )
            digest = _preview_digest(preview)
            if request.form.get("action") == "apply":
                if not preview.complete:
                    flash("L'aperçu n'est pas encore complet : rien n'a été appliqué. "
                          "Poursuivez l'aperçu, puis appliquez.", "warning")
                elif request.form.get("digest") != digest:
                    flash("Les résultats ont changé depuis l'aperçu (nouvelle décision ?) : "
                          "vérifiez le nouvel aperçu avant d'appliquer.", "warning")
                else:
                    verification.apply_rerun(session=s, problem=p, preview=preview,
                                             actor=_actor())
                    flash(f"Nouvelle vérification appliquée : {len(preview.changes)} "
                          "changement(s) de classement.", "success")
                    return redirect(url_for("console.problem", problem_id=problem_id))
            names = {pl.id: pl.name for pl in s.exec(select(Player)).all()}
    except verification.VerificationError as exc:
        flash(str(exc), "error")
        return redirect(url_for("console.problem", problem_id=problem_id))
    except ValueError as exc:
        return render_template("console/rerun.html", problem=prob, preview=None, reason=reason,
                               error=str(exc)), 400
    return render_template(
        "console/rerun.html", problem=prob, preview=preview, reason=reason, digest=digest,
        names=names,
    )


@bp.route("/problemes/<int:problem_id>/decisions", methods=["POST"])
def ruling_add(problem_id: int) -> ResponseReturnValue:
    arbitre = current_arbitre()
    try:
        with session_scope() as s:
            prob = get_or_404(s, Problem, problem_id)
            sub = None
            sub_id = request.form.get("submission_id", type=int)
            if sub_id is not None and id_arg(sub_id) is None:
                abort(404)
            if sub_id:
                sub = get_or_404(s, Submission, sub_id)
                if sub.problem_id != prob.id:
                    abort(404)
            verification.add_ruling(
                session=s, problem=prob, kind=request.form.get("kind", ""), actor=_actor(),
                arbitre_id=arbitre.id if arbitre else None,
                word=request.form.get("word", "").strip() or None, submission=sub,
                comment=request.form.get("comment", ""),
            )
    except ValueError as exc:  # the engine's NotationError is a ValueError too
        return problem_page(problem_id, errors=[str(exc)], kept={
            "kind": request.form.get("kind", ""), "word": request.form.get("word", ""),
            "submission_id": request.form.get("submission_id", ""),
            "comment": request.form.get("comment", ""),
        }), 400
    else:
        flash("Décision enregistrée. Relancez la vérification pour l'appliquer aux rapports.",
              "success")
    return redirect(url_for("console.problem", problem_id=problem_id) + "#decisions")


@bp.route("/appels")
def appeals_page() -> str:
    with _session() as s:
        rows = s.exec(
            select(Appeal, Player, Verification, Problem)
            .join(Player, col(Player.id) == col(Appeal.player_id))
            .join(Verification, col(Verification.id) == col(Appeal.verification_id))
            .join(Submission, col(Submission.id) == col(Verification.submission_id))
            .join(Problem, col(Problem.id) == col(Submission.problem_id))
            .order_by(col(Appeal.status) != AppealStatus.OPEN, col(Appeal.created_at))
        ).all()
    return render_template("console/appeals.html", rows=rows)


@bp.route("/appels/<int:appeal_id>", methods=["POST"])
def appeal_answer(appeal_id: int) -> ResponseReturnValue:
    decision = request.form.get("decision")
    try:
        with session_scope() as s:
            appeal = get_or_404(s, Appeal, appeal_id)
            arbitre = s.get(Arbitre, current_arbitre().id)  # type: ignore[union-attr]
            assert arbitre is not None
            appeals.answer_appeal(
                session=s, appeal=appeal, arbitre=arbitre, accepted=decision == "accept",
                answer=request.form.get("answer", ""),
            )
    except ValueError as exc:
        flash(str(exc), "error")
    else:
        flash("Réponse enregistrée." + (
            " Si l'appel change un résultat, enregistrez la décision puis relancez la "
            "vérification." if decision == "accept" else ""), "success")
    back = request.form.get("back", "")
    # only a path of this site: a form field must not become an open redirect
    if not back.startswith("/console/") or "//" in back or "\\" in back:
        back = url_for("console.appeals_page")
    return redirect(back)


@bp.route("/problemes/<int:problem_id>/finaliser", methods=["GET", "POST"])
def finalise(problem_id: int) -> ResponseReturnValue:
    with _session() as s:
        prob = get_or_404(s, Problem, problem_id)
        n_open = lifecycle.open_appeals(s, prob)
    if request.method == "POST":
        comment = request.form.get("comment", "").strip()
        try:
            if prob.status != ProblemStatus.PROVISIONAL:
                raise ValueError("Seul un classement provisoire peut être rendu définitif.")
            if n_open:
                raise ValueError(f"{n_open} appel(s) attendent encore une réponse.")
            if not comment:
                raise ValueError("Un commentaire accompagne le classement définitif.")
            with session_scope() as s:
                p = get_or_404(s, Problem, problem_id)
                # Publishing the final ranking with its comment first makes the lifecycle
                # step find it already there (same rows): it keeps it and only moves the status.
                rankings.publish_ranking(session=s, problem=p, kind=rankings.FINAL,
                                         actor=_actor(), comment=comment)
                lifecycle.finalise(s, p, clock.now())
                audit.record(session=s, actor=_actor(), action="problem.finalise",
                             target=p.code, comment=comment, manual=True)
        except ValueError as exc:
            flash(str(exc), "error")
        else:
            flash("Classement définitif publié.", "success")
            return redirect(url_for("console.problem", problem_id=problem_id))
    return render_template("console/finalise.html", problem=prob, open_appeals=n_open)


# --- audit log and mailbox -------------------------------------------------------------------


@bp.route("/journal")
def audit_log() -> str:
    page = page_arg()
    action = request.args.get("action", "").strip()
    target = request.args.get("cible", "").strip()
    with _session() as s:
        q = select(AuditLog)
        if action:
            q = q.where(col(AuditLog.action).startswith(action))
        if target:
            q = q.where(col(AuditLog.target).contains(target))
        total = s.exec(select(func.count()).select_from(q.subquery())).one()
        entries = s.exec(
            q.order_by(col(AuditLog.at).desc(), col(AuditLog.id).desc())
            .offset((page - 1) * PER_PAGE).limit(PER_PAGE)
        ).all()
    return render_template(
        "console/audit.html", entries=entries, page=page, action=action, target=target,
        pages=max(1, (total + PER_PAGE - 1) // PER_PAGE), total=total,
    )


@bp.route("/courrier")
def mailbox() -> str:
    with _session() as s:
        messages, outbox = mailroom.local_mailbox(
            current_app._get_current_object(), s)  # type: ignore[attr-defined]
    return render_template("console/mailbox.html", messages=messages, outbox=outbox)
