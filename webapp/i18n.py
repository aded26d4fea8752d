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

import threading
from collections.abc import Callable, Iterable, MutableMapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Flask, g, has_request_context, redirect, request, session
from flask.templating import Environment as FlaskEnvironment
from flask.typing import ResponseReturnValue
from flask_babel import (  # type: ignore[import-untyped]
    Babel,
    get_locale,
    get_translations,
    gettext,
)
from jinja2 import Template, nodes
from jinja2.utils import LRUCache

from mailer.translate import TranslatedCalls
from webapp.services import phrasebook

#: language code -> its own name, as the switch shows it (French first: the default)
LANGUAGES: dict[str, str] = {"fr": "Français", "ro": "Română"}
DEFAULT_LANGUAGE = "fr"
TRANSLATIONS_DIR = Path(__file__).with_name("translations")

bp = Blueprint("i18n", __name__)


class PageEnvironment(FlaskEnvironment):
    """The pages' Jinja environment: each template compiled once per language, its
    ``_('texte')`` calls translated then (:class:`mailer.translate.TranslatedCalls`, as the
    mails' templates are) instead of at every render, through Flask-Babel, about a hundred
    times a page.

    The app's environment itself compiles nothing it serves: :meth:`get_template` and
    :meth:`select_template` hand the request to the environment of the request's language,
    an :meth:`overlay` made at its first page (the same loader, filters, globals and
    policies, a cache of its own; its ``auto_reload`` and loader follow the app's
    environment's) whose :meth:`_parse` writes the language's texts into each template's
    tree. A template's ``{% extends %}``, ``{% include %}`` and
    ``{% import %}`` go to the environment that compiled it, so a page is in one language
    throughout. Texts built at render time (``_(name)`` of a variable, ``ngettext``, the
    filters of :func:`init_app`) are translated at render time, as before; so are the
    templates of :meth:`from_string` (``render_template_string``). ``TEMPLATES_TRANSLATED =
    False`` turns it off (every ``_()`` through Flask-Babel, the reference the tests compare
    the pages with)."""

    #: the language's ``gettext`` on a language's environment; ``None`` on the app's
    page_gettext: Callable[[str], str] | None = None

    def __init__(self, app: Any, **options: Any) -> None:
        super().__init__(app, **options)
        self._languages: dict[str, PageEnvironment] = {}
        self._languages_lock = threading.Lock()

    def _language_environment(self) -> PageEnvironment | None:
        """The environment of the current request's language (``None``: translate at
        render time, on this environment)."""
        if self.page_gettext is not None or not self.app.config.get("TEMPLATES_TRANSLATED",
                                                                    True):
            return None
        locale = get_locale()
        key = "" if locale is None else str(locale)
        env = self._languages.get(key)
        if env is None:
            with self._languages_lock:
                env = self._languages.get(key)
                if env is None:
                    env = self._new_language(get_translations().ugettext)
                    self._languages[key] = env
        # what the app may set after the first page (``auto_reload``: ``app.debug = True``;
        # a loader of its own): the overlay copied them when made
        if env.auto_reload is not self.auto_reload:
            env.auto_reload = self.auto_reload
        if env.loader is not self.loader:
            env.loader = self.loader
        return env

    def _new_language(self, translate: Callable[[str], str]) -> PageEnvironment:
        env = self.overlay()
        assert isinstance(env, PageEnvironment)
        # a cache of its own, empty: not a copy of this one's
        cache = self.cache
        if isinstance(cache, LRUCache):
            env.cache = LRUCache(cache.capacity)
        elif cache is not None:
            env.cache = {}
        env.page_gettext = translate
        return env

    def get_template(self, name: str | Template, parent: str | None = None,
                     globals: MutableMapping[str, Any] | None = None  # noqa: A002
                     ) -> Template:
        env = None if isinstance(name, Template) else self._language_environment()
        if env is not None:
            return env.get_template(name, parent, globals)
        return super().get_template(name, parent, globals)

    def select_template(self, names: Iterable[str | Template], parent: str | None = None,
                        globals: MutableMapping[str, Any] | None = None  # noqa: A002
                        ) -> Template:
        env = self._language_environment()
        if env is not None:
            return env.select_template(names, parent, globals)
        return super().select_template(names, parent, globals)

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        tree = super()._parse(source, name, filename)
        if self.page_gettext is not None:
            autoescape = self.autoescape(name) if callable(self.autoescape) else self.autoescape
            tree = TranslatedCalls(self.page_gettext, bool(autoescape)).visit(tree)
            tree.set_environment(self)
        return tree


def prepare(app: Flask) -> None:
    """Before anything touches ``app.jinja_env``: the pages' environment is a
    :class:`PageEnvironment`."""
    app.jinja_environment = PageEnvironment


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
