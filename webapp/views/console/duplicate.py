"""The Duplicate by correspondence in the console (``webapp.services.duplicate``):
``/console/duplicate`` (the games, a new game), ``/console/duplicate/<code>`` (the round in
progress, bulletins received, the computed top and its ties, override of the top before the
results, every correction with its reason, re-correction, each previewed first),
``/console/duplicate/<code>/clore`` (« Clore le tour maintenant »: confirmed, with a
reason, audited)."""

from __future__ import annotations

import json
import re

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from werkzeug.datastructures import MultiDict

from puzzles.duplicate import AmbiguousReference, DuplicateSettings, SoloRule
from puzzles.duplicate.registry import round_game
from puzzles.variants import VariantSettings
from scoring.tiles import tileset
from webapp.db import session_scope
from webapp.models import (
    DEFAULT_TIMEZONE,
    DuplicateVariant,
    RoundStatus,
)
from webapp.services import clock, duplicate, duplicate_pages, inputs, rows
from webapp.views.console.common import (
    LANGS,
    MAX_ID,
    Form,
    _actor,
    _session,
    choice_field,
    code_field,
    id_arg,
    int_field,
    parse_local,
    text_field,
    timezone_field,
)
from webapp.views.duplicate import GAME_STATUS_FR, game_or_404, in_language, page_data

bp = Blueprint("duplicate", __name__)


#: the bounds of the new game's numbers (French errors from ``common.int_field``)
MAX_ROUNDS = 200  # no bag lasts longer: a round takes at least one tile
MAX_SOLO_POINTS = 1000
MAX_REVIEW_MINUTES = 7 * 24 * 60  # a week
#: the Duplicate settings' choices on the form, with the message for anything else
CONVERSIONS = ("4", "6")
SOLO_RULES: tuple[SoloRule, ...] = ("auto", "n_minus_6", "none")
#: DuplicateSettings.ambiguous_reference (S1 5.3.2)
AMBIGUOUS: tuple[AmbiguousReference, ...] = ("penalty", "warning")
#: the variants' own settings on the form: field, its label, its default (the engine's
#: ``VariantSettings.from_json`` refuses any other value in French)
VARIANT_FIELDS = (
    ("tactique_order", "Tactique : ordre des groupes", "free"),
    ("free_joker_rule", "Complétif, Superjoker : jokers", "none"),
    ("tactique_refill", "Tactique : complément des groupes", "per_group"),
    ("tactique_rejection", "Tactique : tirage refusé", "group"),
    ("free_unused", "Complétif, Superjoker : lettre choisie non posée", "stock"),
)
#: the round actions' text fields and their longest length
ACTION_FIELDS = {"ref": ("Référence", 100), "word": ("Mot", 100),
                 "digest": ("Empreinte de l'aperçu", 128)}
MAX_REASON = 2000


def _settings_from_form(form: Form) -> DuplicateSettings:
    rounds_text = (form.get("rounds") or "").strip()
    rounds = int_field(form, "rounds", "Nombre de tours", lo=1, hi=MAX_ROUNDS) \
        if rounds_text else None
    solo_points = int_field(form, "solo_points", "Prime de solo", lo=0, hi=MAX_SOLO_POINTS,
                            default=10)
    conversion = int(choice_field(form, "warning_conversion_from", CONVERSIONS,
                                  "La conversion des avertissements se fait au 4e ou au 6e.",
                                  "4"))
    lang = choice_field(form, "lang", LANGS, "Jeu de lettres inconnu : français (102) ou "
                        "roumain (100).", "fr")
    solo_rule = choice_field(form, "solo_rule", SOLO_RULES, "Règle du solo inconnue.", "auto")
    ambiguous = choice_field(form, "ambiguous_reference", AMBIGUOUS,
                             "Référence ambiguë : pénalité de 5 points ou avertissement.",
                             "penalty")
    return DuplicateSettings(lang=lang, rounds=rounds, solo_rule=solo_rule,
                             solo_points=solo_points, warning_conversion_from=conversion,
                             ambiguous_reference=ambiguous)


def _variant_settings(form: Form,
                      dup: DuplicateSettings) -> DuplicateSettings | VariantSettings:
    """A variant's own rules from the form when the game takes them (``form_settings``:
    Tactique: the order of the groups, free or imposed, RULES §9.1, the groups' refill and
    rejection, G14; Complétif/Superjoker: the Romanian joker rules, §9.3, the unused chosen
    letters, G15); the Duplicate settings otherwise (a variant plays its defaults)."""
    variant = _variant(form)
    if not round_game(variant).form_settings:
        return dup
    data = {name: text_field(form, name, label, limit=40) or default
            for name, label, default in VARIANT_FIELDS}
    try:
        return VariantSettings.from_json(
            {**data, "variant": variant, "duplicate": json.loads(dup.to_json())})
    except ValueError as exc:
        raise duplicate.DuplicateError(str(exc)) from None


def _variant(form: Form) -> DuplicateVariant:
    """The form's variant ("": the plain Duplicate), one of the server's, or French."""
    text = (form.get("variant") or "").strip()
    try:
        return DuplicateVariant(text)
    except ValueError:
        labels = ", ".join(duplicate.label_of(v) for v in duplicate.SERVER_VARIANTS)
        raise duplicate.DuplicateError(f"Variante « {inputs.shown(text)} » inconnue de ce "
                                       f"serveur (jouables : {labels}).") from None


def _rhythm_from_form(form: MultiDict[str, str]) -> dict[str, object]:
    """The rhythm's fields (``duplicate.check_rhythm`` bounds them in French: 1–180 min
    live, 1–1440 h, the weekdays and a HH:MM time)."""
    kind = choice_field(form, "rhythm", duplicate.RHYTHM_KINDS,
                        "Rythme des tours inconnu : choisissez « toutes les N heures », « jours "
                        "fixes », « dès que tous ont répondu » ou « en direct ».", "hours")
    if kind == "live":
        # empty: the variant's time, 6 min for the Tactique (RULES §9.1), 3 otherwise
        minutes = int_field(form, "live_minutes", "Temps d'un tour en direct (minutes)",
                            lo=1, hi=180, default=duplicate.live_minutes(_variant(form)))
        return {"kind": kind, "minutes": minutes, "mails": form.get("live_mails") == "1"}
    if kind == "weekdays":
        days = form.getlist("days")
        if len(days) > 7 or not all(d in "0123456" and len(d) == 1 for d in days):
            raise duplicate.DuplicateError("Choisissez au moins un jour de la semaine pour la "
                                           "clôture des tours.")
        hhmm = (form.get("time") or "").strip() or "20:00"
        if not re.fullmatch(r"\d{1,2}:\d{2}", hhmm, re.ASCII):
            raise duplicate.DuplicateError(f"Heure de clôture illisible : "
                                           f"« {inputs.shown(hhmm)} » (attendu HH:MM).")
        return {"kind": kind, "days": days, "time": hhmm}
    return {"kind": kind, "hours": int_field(form, "hours", "Délai d'un tour (heures)", lo=1,
                                             hi=24 * 60)}


def _superscrabble(form: Form) -> dict[str, object]:
    """The Partie de Superscrabble's start word and racks (checked by the service)."""
    start = text_field(form, "superscrabble_start", "Partie de Superscrabble, mot de départ",
                       limit=20)
    racks = (form.get("superscrabble_racks") or "").split()
    if len(racks) > MAX_ROUNDS:
        raise duplicate.DuplicateError(f"Partie de Superscrabble : {len(racks)} tirages, "
                                       f"{MAX_ROUNDS} au plus.")
    return {"start": start, "racks": racks}


@bp.route("/duplicate", methods=["GET", "POST"])
def index() -> ResponseReturnValue:
    """A new game: every field bounded and checked in French (``common``'s readers, as the
    problem form), nothing stored when one is refused."""
    form = request.form
    error = None
    with _session() as s:
        listing = duplicate_pages.console_list(s)
    if request.method == "POST":
        try:
            tz = timezone_field(form)
            title = text_field(form, "title", "Titre")
            code = code_field(form, "code", "Code de la partie")
            lexicon = text_field(form, "lexicon", "Liste de mots", limit=100) or "default"
            starts_at = parse_local(form.get("starts_at", ""), tz)
            review = int_field(form, "review_minutes", "Revue du top après la clôture "
                               "(minutes)", lo=0, hi=MAX_REVIEW_MINUTES, default=0)
            settings = _variant_settings(form, _settings_from_form(form))
            rhythm = _rhythm_from_form(form)
            variant = _variant(form)
            superscrabble = _superscrabble(form)
            comp_id = id_arg(form.get("competition_id", type=int))
            with session_scope() as s:
                comp = rows.competition_or_none(s, comp_id)
                if comp is None:
                    raise duplicate.DuplicateError("Choisissez la compétition dont les "
                                                   "inscrits joueront la partie.")
                # empty: a fresh secret seed; a given one is marked so on the game's page
                seed = (int_field(form, "seed", "Graine du sac", lo=0,
                                  hi=duplicate.MAX_GIVEN_SEED)
                        if (form.get("seed") or "").strip() else None)
                game = duplicate.create_game(
                    session=s, competition=comp, title=title,
                    settings=settings,
                    rhythm=rhythm,
                    starts_at=starts_at,
                    code=code,
                    lexicon_name=lexicon,
                    timezone=tz, seed=seed,
                    review_minutes=review,
                    actor=_actor(), variant=variant,
                    superscrabble=superscrabble)
                code = game.code
        except (duplicate.DuplicateError, ValueError) as exc:
            error = str(exc)
        else:
            flash(f"Partie Duplicate {code} créée.", "success")
            return redirect(url_for("console.duplicate.game", code=code))
    return render_template("duplicate/console_index.html", competitions=listing.competitions,
                           games=listing.games,
                           game_labels={g.id: duplicate.label_of(g.variant)
                                        for g in listing.games},
                           variants=[(v, duplicate.label_of(v))
                                     for v in duplicate.SERVER_VARIANTS],
                           form=form, error=error, game_status=in_language(GAME_STATUS_FR),
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
    if not 0 < number <= MAX_ID:
        abort(404)  # no round has that number
    try:
        ref, word, digest = (text_field(form, name, label, limit=most)
                             for name, (label, most) in ACTION_FIELDS.items())
        reason = text_field(form, "reason", "Motif", limit=MAX_REASON)
    except ValueError as exc:
        flash(f"Rien n'a été changé : {exc}", "error")
        return redirect(url_for("console.duplicate.game", code=code))
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
    top = done.new_top
    if action == "top" and top is not None:  # a retained top always has one
        flash(f"Top du tour {number} : {top['ref']} {top['word']} ({top['score']}).", "success")
    else:
        flash(f"Tour {number} corrigé à nouveau.", "success")
    return redirect(url_for("console.duplicate.game", code=code))


@bp.route("/duplicate/<code>/tours/<int:number>/top", methods=["POST"])
def override_top(code: str, number: int) -> ResponseReturnValue:
    return _preview_or_apply(code, number, "top")


@bp.route("/duplicate/<code>/tours/<int:number>/recorriger", methods=["POST"])
def recorrect(code: str, number: int) -> ResponseReturnValue:
    return _preview_or_apply(code, number, "recorriger")


@bp.route("/duplicate/<code>/tours/<int:number>/rejouer", methods=["POST"])
def replay(code: str, number: int) -> ResponseReturnValue:
    """« Rejouer ce tour »: the round replayed and topped alone from its stored position,
    its bulletins corrected again, shown beside what is stored; nothing is changed but the
    audit log (``duplicate.replay_round``)."""
    try:
        with session_scope() as s:
            game = game_or_404(s, code)
            rnd = duplicate_pages.round_by_number(s, game, number)
            if rnd is None:
                abort(404)
            replayed = duplicate.replay_round(session=s, game=game, rnd=rnd, actor=_actor())
            return render_template("duplicate/console_replay.html", game=game,
                                   replayed=replayed, rules=duplicate.game_of(game),
                                   top_letters=duplicate.top_letters,
                                   tile_values=dict(tileset(game.lang).points))
    except duplicate.DuplicateError as exc:
        flash(str(exc), "error")
        return redirect(url_for("console.duplicate.game", code=code))


@bp.route("/duplicate/<code>/clore", methods=["GET", "POST"])
def close_now(code: str) -> ResponseReturnValue:
    """« Clore le tour maintenant »: a confirmation page (the announced close, who has not
    answered), then the early close with its reason (audited ``duplicate.close_early``); the
    scheduler corrects and publishes the round as after any close."""
    back = url_for("console.duplicate.game", code=code)
    error = None
    try:
        reason = text_field(request.form, "reason", "Motif", limit=MAX_REASON)
    except ValueError as exc:
        reason, error = "", str(exc)
    if request.method == "POST" and request.form.get("confirm") == "1" and error is None:
        try:
            with session_scope() as s:
                game = game_or_404(s, code, for_update=True)
                rnd = duplicate.close_round_now(session=s, game=game, actor=_actor(),
                                                reason=reason, now=clock.now())
                number = rnd.number
        except duplicate.DuplicateError as exc:
            error = str(exc)
        else:
            flash(f"Tour {number} clos maintenant : les bulletins reçus désormais sont hors "
                  "délai ; la correction suit.", "success")
            return redirect(back)
    with _session() as s:
        game = game_or_404(s, code)
        try:
            facts = duplicate.close_now_preview(s, game)
        except duplicate.DuplicateError as exc:
            flash(str(exc), "error")
            return redirect(back)
    return render_template("duplicate/console_close_now.html", game=game, facts=facts,
                           error=error, reason=reason), 400 if error else 200
