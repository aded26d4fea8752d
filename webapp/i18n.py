"""The interface's languages: French (the source language), Romanian.

Flask-Babel with the message catalogues of ``webapp/translations/`` (the msgids are the French
texts themselves, so French needs no catalogue; ``ro/LC_MESSAGES/messages.po`` is compiled to
the committed ``messages.mo`` by ``make translations``). The same catalogues translate the
e-mails (:mod:`mailer.compose` loads them with Babel alone).

The language of a page, in order: the signed-in player's stored choice (``Player.locale``),
the visitor's choice kept in the session (the switch of the base layout, ``POST /langue``),
the browser's ``Accept-Language``, French.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from flask import Blueprint, Flask, g, has_request_context, redirect, request, session
from flask.typing import ResponseReturnValue
from flask_babel import Babel, get_locale, gettext  # type: ignore[import-untyped]

from webapp.services import phrasebook

#: language code -> its own name, as the switch shows it (French first: the default)
LANGUAGES: dict[str, str] = {"fr": "Français", "ro": "Română"}
DEFAULT_LANGUAGE = "fr"
TRANSLATIONS_DIR = Path(__file__).with_name("translations")

bp = Blueprint("i18n", __name__)


def normalise(code: object) -> str | None:
    """``"ro"``, ``"RO"``, ``"ro_RO"`` -> ``"ro"``; anything not offered -> ``None``."""
    if not isinstance(code, str):
        return None
    base = code.strip().replace("-", "_").split("_")[0].lower()
    return base if base in LANGUAGES else None


def select_locale() -> str:
    """The language of this request (see the module docstring)."""
    from webapp.auth import current_player

    if not has_request_context():  # a mail or a page rendered by the scheduler: French
        return DEFAULT_LANGUAGE
    player = current_player()
    stored = normalise(getattr(player, "locale", None)) if player is not None else None
    if stored:
        return stored
    chosen = normalise(session.get("lang"))
    if chosen:
        return chosen
    return request.accept_languages.best_match(list(LANGUAGES)) or DEFAULT_LANGUAGE


def current_language() -> str:
    """The language code of the current request (``fr`` outside a request)."""
    try:
        return normalise(str(get_locale())) or DEFAULT_LANGUAGE
    except Exception:  # outside an app context
        return DEFAULT_LANGUAGE


@bp.post("/langue")
def choose_language() -> ResponseReturnValue:
    """The switch of every page: remember the choice (session; the player's row when one is
    signed in) and go back to the page it was made on."""
    from sqlmodel import col, update

    from webapp.auth import current_player
    from webapp.db import session_scope
    from webapp.models import Player

    lang = normalise(request.form.get("lang"))
    if lang is not None:
        session["lang"] = lang
        player = current_player()
        if player is not None and player.locale != lang:
            with session_scope() as s:
                s.exec(update(Player).where(col(Player.id) == player.id)
                       .values(locale=lang))
            player.locale = lang
    back = request.form.get("next") or "/"
    parts = urlsplit(back)
    if parts.scheme or parts.netloc or not back.startswith("/") or back.startswith("//"):
        back = "/"  # only a path of this site: no open redirect
    return redirect(back, code=303)


def translate_filters(app: Flask) -> None:
    """Once the blueprints have registered their filters: the game names (``game_label``),
    the statuses (``status_fr``) and the countdown (``remaining``), French written in Python,
    go through the catalogue too, and the dates (``heure_locale``, ``heure_utc``) take the
    language's « à » (call after ``register_blueprints``)."""
    for name in ("game_label", "status_fr", "remaining"):
        french = app.jinja_env.filters.get(name)
        if french is not None:
            app.jinja_env.filters[name] = (
                lambda value, _french=french: phrasebook.translate(_french(value), gettext))
    # the dates of webapp.services.timefmt: « 12/05/2026 à 19:00 » -> « 12/05/2026, ora 19:00 »
    for name in ("heure_locale", "heure_utc"):
        french = app.jinja_env.filters.get(name)
        if french is not None:
            app.jinja_env.filters[name] = (
                lambda *args, _french=french, **kwargs: phrasebook.dates(
                    _french(*args, **kwargs), gettext))


#: the verdict kinds of puzzles.duplicate whose code is not their French name
VERDICT_KINDS = {"penalite5": "pénalité"}


def lexicon_label(name: object) -> str:
    """A word list's name for the pages: the server's built-in list (``default``) in words
    (« la liste intégrée »), a list with the arbitre's decisions on words (``name+…``) said
    so; any other name as configured (``fr-comprehensive``)."""
    text = "" if name is None else str(name)
    base, _plus, decisions = text.partition("+")
    label = gettext("la liste intégrée") if base == "default" else base
    if decisions:
        label += " " + gettext("(avec les décisions de l'arbitre sur les mots)")
    return str(label)


def init_app(app: Flask) -> None:
    app.config.setdefault("BABEL_DEFAULT_LOCALE", DEFAULT_LANGUAGE)
    app.config.setdefault("BABEL_TRANSLATION_DIRECTORIES", str(TRANSLATIONS_DIR))
    Babel(app, locale_selector=select_locale)
    # {% trans %} blocks are written over several lines: their whitespace is collapsed (the
    # extraction of babel.cfg does the same)
    app.jinja_env.policies["ext.i18n.trimmed"] = True
    app.register_blueprint(bp)

    @app.before_request
    def _fresh_locale() -> None:
        """Flask-Babel keeps the chosen locale on ``g``, which lives as long as the app
        context: a request that reuses one (the tests, a CLI command that serves several
        requests) must choose again."""
        g.pop("_flask_babel", None)

    # the French messages of puzzles/ and scoring/ (sheet errors, verdict reasons) in the
    # page's language: {{ reason|tr_msg }}
    app.jinja_env.filters["tr_msg"] = lambda text: phrasebook.translate(text, gettext)
    # the text report of a verification (puzzles.verify), line by line: {{ text|tr_report }}
    app.jinja_env.filters["tr_report"] = lambda text: phrasebook.report_text(text, gettext)
    # a word list's name as the pages show it: {{ name|lexicon_label }}
    app.jinja_env.filters["lexicon_label"] = lexicon_label
    # a Duplicate verdict's kind (« valide », « penalite5 »…) in words: {{ kind|verdict_kind }}
    app.jinja_env.filters["verdict_kind"] = lambda kind: phrasebook.translate(
        VERDICT_KINDS.get(kind, kind), gettext)

    @app.context_processor
    def _languages() -> dict[str, object]:
        return {"languages": LANGUAGES, "current_language": current_language()}
