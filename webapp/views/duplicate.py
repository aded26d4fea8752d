"""Pages of the Duplicate by correspondence (``webapp.services.duplicate``).

Public: ``/duplicate/<code>`` — the master grid (SVG) as it stands, the current draw with its
countdown, the history of draws and tops, each round's scores and the running ranking; a
signed-in registered player gets the bulletin form there (``POST .../bulletin``).
Console (arbitre only): ``/console/duplicate`` (the games, a new game),
``/console/duplicate/<code>`` (the round in progress, bulletins received, the computed top and
its ties, override of the top before the results, every correction with its reason,
re-correction).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from sqlmodel import Session, col, select

from scoring.board import Board
from scoring.layout import STANDARD_LAYOUT
from scoring.tiles import tileset
from webapp.auth import arbitre_required, current_arbitre, current_player, player_required
from webapp.board_svg import board_svg
from webapp.db import get_engine, read_engine, session_scope
from webapp.models import (
    DEFAULT_TIMEZONE,
    Channel,
    Competition,
    DuplicateEntry,
    DuplicateGame,
    DuplicateRound,
    DuplicateStatus,
    Player,
    Registration,
    RoundStatus,
)
from webapp.services import clock, duplicate

bp = Blueprint("duplicate", __name__)

ROUND_STATUS_FR = {
    RoundStatus.OPEN: "en cours",
    RoundStatus.CLOSED: "clos",
    RoundStatus.CORRECTED: "corrigé",
    RoundStatus.PUBLISHED: "résultats publiés",
}
GAME_STATUS_FR = {
    DuplicateStatus.SCHEDULED: "programmée",
    DuplicateStatus.RUNNING: "en cours",
    DuplicateStatus.FINISHED: "terminée",
}


def _read() -> Session:
    return Session(read_engine(), expire_on_commit=False)


def _game(s: Session, code: str) -> DuplicateGame:
    game = s.exec(select(DuplicateGame).where(DuplicateGame.code == code)).first()
    if game is None:
        abort(404)
    return game


def _svg(game: DuplicateGame, cgp: str, title: str) -> str:
    return board_svg(Board.from_cgp(cgp), tileset=tileset(game.lang), title=title)


def _page_data(s: Session, game: DuplicateGame, shown: int | None = None) -> dict[str, Any]:
    """What the game's pages show; ``shown``: the published round whose grid is drawn (the
    grid after its top), else the grid as it stands."""
    rounds = duplicate.rounds_of(s, game)
    current = rounds[-1] if rounds else None
    published = [r for r in rounds if r.status == RoundStatus.PUBLISHED]
    chosen = next((r for r in published if r.number == shown), None)
    if chosen is not None:
        grid = chosen.grid_after or chosen.grid_before
        grid_title = f"Grille après le tour {chosen.number}"
    elif current is not None and current.status != RoundStatus.PUBLISHED:
        grid, grid_title = current.grid_before, f"Grille avant le tour {current.number}"
    elif published:
        grid = published[-1].grid_after or published[-1].grid_before
        grid_title = f"Grille après le tour {published[-1].number}"
    else:
        grid, grid_title = None, ""
    return {
        "game": game, "rounds": rounds, "current": current, "published": published,
        "grid_svg": _svg(game, grid, grid_title) if grid else None, "grid_title": grid_title,
        "standings": duplicate.standings(s, game) if published else [],
        "rhythm": duplicate.describe_rhythm(game.rhythm),
        "variant_label": duplicate.variant_label(game),
        "variant_rule": duplicate.VARIANT_RULES_FR.get(game.variant),
        "bulletin_example": duplicate.BULLETIN_EXAMPLES.get(game.variant, "H4 RESTAIt 70"),
        "top_letters": duplicate.top_letters,
        "round_status": ROUND_STATUS_FR, "game_status": GAME_STATUS_FR,
    }


# --- public page and the bulletin form -------------------------------------------------------


@bp.route("/duplicate")
def games() -> str:
    """Every Duplicate under way or finished, the round in progress and its deadline."""
    with _read() as s:
        rows = list(s.exec(select(DuplicateGame).where(
            col(DuplicateGame.status).in_((DuplicateStatus.RUNNING, DuplicateStatus.FINISHED)))
            .order_by(col(DuplicateGame.status).desc(), col(DuplicateGame.starts_at).desc())
        ).all())
        current = {g.id: duplicate.current_round(s, g) for g in rows}
    return render_template("duplicate/index.html", games=rows, current=current,
                           game_status=GAME_STATUS_FR)


@bp.route("/duplicate/<code>")
def game_page(code: str) -> str:
    me = current_player()
    with _read() as s:
        game = _game(s, code)
        if game.status == DuplicateStatus.SCHEDULED and current_arbitre() is None:
            abort(404)
        data = _page_data(s, game, request.args.get("tour", type=int))
        registered = me is not None and s.exec(select(Registration.id).where(
            Registration.competition_id == game.competition_id,
            Registration.player_id == me.id)).first() is not None
        mine: list[DuplicateEntry] = []
        if me is not None and data["current"] is not None:
            mine = list(s.exec(select(DuplicateEntry).where(
                DuplicateEntry.round_id == data["current"].id,
                DuplicateEntry.player_id == me.id).order_by(col(DuplicateEntry.version))).all())
    my_results = [(r, x) for r in data["published"] for x in r.results
                  if me is not None and x["player_id"] == me.id]
    cur = data["current"]
    board = None
    if registered and cur is not None and cur.status == RoundStatus.OPEN:
        board = _board_data(game, cur)
    return render_template("duplicate/game.html", registered=registered, mine=mine,
                           my_results=my_results, text="", error=None, board_data=board,
                           **data)


def _board_data(game: DuplicateGame, rnd: DuplicateRound) -> dict[str, Any]:
    """What static/js/duplicate.js needs to score a bulletin on the master grid."""
    return {
        "cgp": rnd.grid_before, "rack": rnd.draw["rack"].replace("/", ""),
        "layout": {"letter_mult": list(STANDARD_LAYOUT.letter_mult),
                   "word_mult": list(STANDARD_LAYOUT.word_mult),
                   "center": STANDARD_LAYOUT.center},
        "values": dict(tileset(game.lang).points), "bingo_tiles": 7, "bingo_bonus": 50,
    }


@bp.route("/duplicate/<code>/bulletin", methods=["POST"])
@player_required
def bulletin(code: str) -> ResponseReturnValue:
    received_at = clock.now()  # the receive time, before anything else can delay it
    me = current_player()
    assert me is not None
    text = request.form.get("bulletin", "")
    error = None
    if not text.strip():
        error = "Le bulletin est vide : écrivez par exemple « H4 RESTAIt 70 »."
    else:
        try:
            with session_scope() as s:
                game = _game(s, code)
                player = s.merge(me, load=False)
                outcome = duplicate.submit_bulletin(
                    session=s, player=player, game=game, text=text, channel=Channel.WEB,
                    received_at=received_at)
                late, errors = outcome.late, outcome.errors
        except duplicate.DuplicateError as exc:
            error = str(exc)
        else:
            if late:
                flash("Bulletin reçu après la clôture du tour : il est conservé et marqué "
                      "hors délai ; il ne compte pas.", "warning")
            elif errors:
                flash("Bulletin reçu mais illisible : " + " ; ".join(errors)
                      + " Renvoyez-le corrigé avant la clôture.", "warning")
            else:
                flash("Bulletin reçu. Un accusé de réception vous est aussi envoyé par "
                      "courriel.", "success")
            return redirect(url_for("duplicate.game_page", code=code))
    with _read() as s:
        game = _game(s, code)
        data = _page_data(s, game)
    cur = data["current"]
    board = _board_data(game, cur) if cur and cur.status == RoundStatus.OPEN else None
    return render_template("duplicate/game.html", registered=True, mine=[], my_results=[],
                           text=text, error=error, board_data=board, **data), 400


# --- console ---------------------------------------------------------------------------------


def _actor() -> str:
    a = current_arbitre()
    if a is None:
        abort(403)
    return a.username


def _parse_start(value: str, tz: str) -> datetime:
    try:
        naive = datetime.fromisoformat(value.strip())
    except ValueError:
        raise duplicate.DuplicateError(
            f"Date illisible : « {value} » (attendu AAAA-MM-JJTHH:MM).") from None
    if naive.tzinfo is not None:
        return naive.astimezone(UTC)
    return naive.replace(tzinfo=ZoneInfo(tz)).astimezone(UTC)


def _settings_from_form(form: Any) -> Any:
    eng = duplicate.engine()
    rounds_text = form.get("rounds", "").strip()
    try:
        rounds = int(rounds_text) if rounds_text else None
        solo_points = int(form.get("solo_points", "10") or 10)
        conversion = int(form.get("warning_conversion_from", "4") or 4)
    except ValueError:
        raise duplicate.DuplicateError("Le nombre de tours, la prime de solo et l'avertissement "
                                       "converti doivent être des nombres entiers.") from None
    if rounds is not None and rounds < 1:
        raise duplicate.DuplicateError("Le nombre de tours doit être au moins 1 (laissez vide "
                                       "pour jouer jusqu'à la fin du sac).")
    if conversion not in (4, 6):
        raise duplicate.DuplicateError("La conversion des avertissements se fait au 4e ou au "
                                       "6e.")
    lang = form.get("lang", "fr")
    if lang not in ("fr", "ro"):
        raise duplicate.DuplicateError("Jeu de lettres inconnu : français (102) ou roumain "
                                       "(100).")
    solo_rule = form.get("solo_rule", "auto")
    if solo_rule not in ("auto", "n_minus_6", "none"):
        raise duplicate.DuplicateError("Règle du solo inconnue.")
    return eng.DuplicateSettings(lang=lang, rounds=rounds, solo_rule=solo_rule,
                                 solo_points=solo_points, warning_conversion_from=conversion)


def _variant_settings(form: Any, dup: Any) -> Any:
    """A variant's own rules from the form (Tactique: the order of the groups, free or
    imposed, RULES §9.1; Complétif/Superjoker: the Romanian joker rules, §9.3); the plain
    Duplicate settings otherwise."""
    variant = form.get("variant", "").strip()
    if variant not in ("tactique", "completif", "superjoker"):
        return dup
    data = {"tactique_order": form.get("tactique_order", "free") or "free",
            "free_joker_rule": form.get("free_joker_rule", "none") or "none"}
    try:
        return duplicate.variants().VariantSettings.from_json(
            {**data, "variant": variant, "duplicate": json.loads(dup.to_json())})
    except ValueError as exc:
        raise duplicate.DuplicateError(str(exc)) from None


def _rhythm_from_form(form: Any) -> dict[str, Any]:
    kind = form.get("rhythm", "hours")
    if kind == "weekdays":
        return {"kind": kind, "days": form.getlist("days"), "time": form.get("time", "20:00")}
    return {"kind": kind, "hours": form.get("hours", "")}


@bp.route("/console/duplicate", methods=["GET", "POST"])
@arbitre_required
def console_index() -> ResponseReturnValue:
    form = request.form
    error = None
    with Session(get_engine(), expire_on_commit=False) as s:
        comps = list(s.exec(select(Competition).order_by(col(Competition.id))).all())
        games = list(s.exec(select(DuplicateGame).order_by(col(DuplicateGame.id).desc())).all())
    if request.method == "POST":
        tz = form.get("timezone", DEFAULT_TIMEZONE).strip() or DEFAULT_TIMEZONE
        try:
            with session_scope() as s:
                comp = s.get(Competition, int(form.get("competition_id", "0") or 0))
                if comp is None:
                    raise duplicate.DuplicateError("Choisissez la compétition dont les "
                                                   "inscrits joueront la partie.")
                seed_text = form.get("seed", "").strip()
                game = duplicate.create_game(
                    session=s, competition=comp, title=form.get("title", ""),
                    settings=_variant_settings(form, _settings_from_form(form)),
                    rhythm=_rhythm_from_form(form),
                    starts_at=_parse_start(form.get("starts_at", ""), tz),
                    code=form.get("code", "").strip() or None,
                    lexicon_name=form.get("lexicon", "default").strip() or "default",
                    timezone=tz, seed=int(seed_text) if seed_text.isdigit() else None,
                    review_minutes=int(form.get("review_minutes", "0") or 0),
                    actor=_actor(), variant=form.get("variant", "").strip(),
                    superscrabble={"start": form.get("superscrabble_start", ""),
                                   "racks": form.get("superscrabble_racks", "").split()})
                code = game.code
        except (duplicate.DuplicateError, ValueError) as exc:
            error = str(exc)
        else:
            flash(f"Partie Duplicate {code} créée.", "success")
            return redirect(url_for("duplicate.console_game", code=code))
    return render_template("duplicate/console_index.html", competitions=comps, games=games,
                           variants=[(v, duplicate.label_of(v))
                                     for v in duplicate.SERVER_VARIANTS],
                           form=form, error=error, game_status=GAME_STATUS_FR,
                           weekdays=duplicate.WEEKDAYS_FR,
                           default_timezone=DEFAULT_TIMEZONE), (400 if error else 200)


@bp.route("/console/duplicate/<code>")
@arbitre_required
def console_game(code: str) -> str:
    with Session(get_engine(), expire_on_commit=False) as s:
        game = _game(s, code)
        data = _page_data(s, game)
        players = {p.id: p for p in s.exec(select(Player)).all()}
        entries: dict[int, list[DuplicateEntry]] = {}
        for r in data["rounds"]:
            entries[r.id or 0] = duplicate.entries_of(s, r)
    counting = {rid: {e.id for e in duplicate.counting_entries(es).values()}
                for rid, es in entries.items()}
    return render_template("duplicate/console_game.html", entries=entries, counting=counting,
                           players=players, **data)


def _round(s: Session, game: DuplicateGame, number: int) -> DuplicateRound:
    rnd = s.exec(select(DuplicateRound).where(DuplicateRound.game_id == game.id,
                                              DuplicateRound.number == number)).first()
    if rnd is None:
        abort(404)
    return rnd


def _preview_or_apply(code: str, number: int, action: str) -> ResponseReturnValue:
    """Without ``digest``: the preview page (what the change would do; nothing stored).
    With the preview's ``digest``: the change stored, if it is still exactly the one shown."""
    form = request.form
    ref, word, reason = form.get("ref", ""), form.get("word", ""), form.get("reason", "")
    digest = form.get("digest", "")
    try:
        with session_scope() as s:
            game = s.exec(select(DuplicateGame).where(DuplicateGame.code == code)
                          .with_for_update()).first()
            if game is None:
                abort(404)
            rnd = _round(s, game, number)
            if not digest:
                preview = duplicate.preview_change(
                    session=s, game=game, rnd=rnd, action=action, ref=ref, word=word,
                    reason=reason, actor=_actor())
                return render_template(
                    "duplicate/console_preview.html", game=game, number=number,
                    preview=preview, top_letters=duplicate.top_letters,
                    published=rnd.status == RoundStatus.PUBLISHED)
            done = duplicate.apply_change(session=s, game=game, rnd=rnd, action=action,
                                          ref=ref, word=word, reason=reason, actor=_actor(),
                                          digest=digest)
    except duplicate.DuplicateError as exc:
        flash(str(exc), "error")
        return redirect(url_for("duplicate.console_game", code=code))
    top = done.new_top or {}
    if action == "top":
        flash(f"Top du tour {number} : {top.get('ref')} {top.get('word')} "
              f"({top.get('score')}).", "success")
    else:
        flash(f"Tour {number} corrigé à nouveau.", "success")
    return redirect(url_for("duplicate.console_game", code=code))


@bp.route("/console/duplicate/<code>/tours/<int:number>/top", methods=["POST"])
@arbitre_required
def override_top(code: str, number: int) -> ResponseReturnValue:
    return _preview_or_apply(code, number, "top")


@bp.route("/console/duplicate/<code>/tours/<int:number>/recorriger", methods=["POST"])
@arbitre_required
def recorrect(code: str, number: int) -> ResponseReturnValue:
    return _preview_or_apply(code, number, "recorriger")
