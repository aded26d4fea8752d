"""The Duplicate by correspondence in the console (``webapp.services.duplicate``):
``/console/duplicate`` (the games, a new game), ``/console/duplicate/<code>`` (the round in
progress, bulletins received, the computed top and its ties, override of the top before the
results, every correction with its reason, re-correction, each previewed first)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from webapp.db import session_scope
from webapp.models import (
    DEFAULT_TIMEZONE,
    RoundStatus,
)
from webapp.services import duplicate, duplicate_pages, rows
from webapp.views.console.common import _actor, _session, int_field
from webapp.views.duplicate import GAME_STATUS_FR, game_or_404, page_data

bp = Blueprint("duplicate", __name__)


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
    ambiguous = form.get("ambiguous_reference", "penalty") or "penalty"
    if ambiguous not in ("penalty", "warning"):
        raise duplicate.DuplicateError("Référence ambiguë : pénalité de 5 points ou "
                                       "avertissement.")
    return eng.DuplicateSettings(lang=lang, rounds=rounds, solo_rule=solo_rule,
                                 solo_points=solo_points, warning_conversion_from=conversion,
                                 ambiguous_reference=ambiguous)


def _variant_settings(form: Any, dup: Any) -> Any:
    """A variant's own rules from the form (Tactique: the order of the groups, free or
    imposed, RULES §9.1, the groups' refill and rejection, G14; Complétif/Superjoker: the
    Romanian joker rules, §9.3, the unused chosen letters, G15); the plain Duplicate
    settings otherwise."""
    variant = form.get("variant", "").strip()
    if variant not in ("tactique", "completif", "superjoker"):
        return dup
    data = {"tactique_order": form.get("tactique_order", "free") or "free",
            "free_joker_rule": form.get("free_joker_rule", "none") or "none",
            "tactique_refill": form.get("tactique_refill", "per_group") or "per_group",
            "tactique_rejection": form.get("tactique_rejection", "group") or "group",
            "free_unused": form.get("free_unused", "stock") or "stock"}
    try:
        return duplicate.variants().VariantSettings.from_json(
            {**data, "variant": variant, "duplicate": json.loads(dup.to_json())})
    except ValueError as exc:
        raise duplicate.DuplicateError(str(exc)) from None


def _rhythm_from_form(form: Any) -> dict[str, Any]:
    kind = form.get("rhythm", "hours")
    if kind == "live":
        # empty: the variant's time, 6 min for the Tactique (RULES §9.1), 3 otherwise
        minutes = ((form.get("live_minutes") or "").strip()
                   or str(duplicate.live_minutes(form.get("variant", "").strip())))
        return {"kind": kind, "minutes": minutes, "mails": form.get("live_mails") == "1"}
    if kind == "weekdays":
        return {"kind": kind, "days": form.getlist("days"), "time": form.get("time", "20:00")}
    return {"kind": kind, "hours": form.get("hours", "")}


@bp.route("/duplicate", methods=["GET", "POST"])
def index() -> ResponseReturnValue:
    form = request.form
    error = None
    with _session() as s:
        listing = duplicate_pages.console_list(s)
    if request.method == "POST":
        tz = form.get("timezone", DEFAULT_TIMEZONE).strip() or DEFAULT_TIMEZONE
        try:
            with session_scope() as s:
                comp = rows.competition_or_none(s, int(form.get("competition_id", "0") or 0))
                if comp is None:
                    raise duplicate.DuplicateError("Choisissez la compétition dont les "
                                                   "inscrits joueront la partie.")
                # empty: a fresh secret seed; a given one is marked so on the game's page
                seed = (int_field(form, "seed", "Graine du sac", lo=0,
                                  hi=duplicate.MAX_GIVEN_SEED)
                        if (form.get("seed") or "").strip() else None)
                game = duplicate.create_game(
                    session=s, competition=comp, title=form.get("title", ""),
                    settings=_variant_settings(form, _settings_from_form(form)),
                    rhythm=_rhythm_from_form(form),
                    starts_at=_parse_start(form.get("starts_at", ""), tz),
                    code=form.get("code", "").strip() or None,
                    lexicon_name=form.get("lexicon", "default").strip() or "default",
                    timezone=tz, seed=seed,
                    review_minutes=int(form.get("review_minutes", "0") or 0),
                    actor=_actor(), variant=form.get("variant", "").strip(),
                    superscrabble={"start": form.get("superscrabble_start", ""),
                                   "racks": form.get("superscrabble_racks", "").split()})
                code = game.code
        except (duplicate.DuplicateError, ValueError) as exc:
            error = str(exc)
        else:
            flash(f"Partie Duplicate {code} créée.", "success")
            return redirect(url_for("console.duplicate.game", code=code))
    return render_template("duplicate/console_index.html", competitions=listing.competitions,
                           games=listing.games,
                           variants=[(v, duplicate.label_of(v))
                                     for v in duplicate.SERVER_VARIANTS],
                           form=form, error=error, game_status=GAME_STATUS_FR,
                           weekdays=duplicate.WEEKDAYS_FR,
                           default_timezone=DEFAULT_TIMEZONE), (400 if error else 200)


@bp.route("/duplicate/<code>")
def game(code: str) -> str:
    with _session() as s:
        page = duplicate_pages.console_game(s, game_or_404(s, code))
    return render_template("duplicate/console_game.html", entries=page.entries,
                           counting=page.counting, players=page.players,
                           **page_data(page.view))


def _preview_or_apply(code: str, number: int, action: str) -> ResponseReturnValue:
    """Without ``digest``: the preview page (what the change would do; nothing stored).
    With the preview's ``digest``: the change stored, if it is still exactly the one shown."""
    form = request.form
    ref, word, reason = form.get("ref", ""), form.get("word", ""), form.get("reason", "")
    digest = form.get("digest", "")
    try:
        with session_scope() as s:
            game = game_or_404(s, code, for_update=True)
            rnd = duplicate_pages.round_by_number(s, game, number)
            if rnd is None:
                abort(404)
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
        return redirect(url_for("console.duplicate.game", code=code))
    top = done.new_top or {}
    if action == "top":
        flash(f"Top du tour {number} : {top.get('ref')} {top.get('word')} "
              f"({top.get('score')}).", "success")
    else:
        flash(f"Tour {number} corrigé à nouveau.", "success")
    return redirect(url_for("console.duplicate.game", code=code))


@bp.route("/duplicate/<code>/tours/<int:number>/top", methods=["POST"])
def override_top(code: str, number: int) -> ResponseReturnValue:
    return _preview_or_apply(code, number, "top")


@bp.route("/duplicate/<code>/tours/<int:number>/recorriger", methods=["POST"])
def recorrect(code: str, number: int) -> ResponseReturnValue:
    return _preview_or_apply(code, number, "recorriger")
