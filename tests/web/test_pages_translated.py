"""The pages' templates compiled once per language (``webapp.i18n.PageEnvironment``): every
page of the two worlds of the language tests (a problem's pages, a player's, the console's;
the round games' pages — ``tests.web.test_i18n``, ``tests.web.test_i18n_rounds``) is, in
French and in Romanian, byte for byte the page rendered with every ``_()`` translated at
render time through Flask-Babel (``TEMPLATES_TRANSLATED = False``, the reference); a
language's templates are its own (a Romanian page after a French one, and the other way
round, in one process); literal texts no longer go through the ``_`` of Flask-Babel."""

from __future__ import annotations

import re
from typing import Any

import pytest
from flask import Flask, render_template
from flask.testing import FlaskClient
from jinja2 import ChoiceLoader, DictLoader, pass_context

from tests.web.test_i18n import _pages as sheet_pages
from tests.web.test_i18n import _sign_in, world  # noqa: F401 (the fixture)
from tests.web.test_i18n_rounds import _pages as round_pages
from tests.web.test_i18n_rounds import _sign, rounds_world  # noqa: F401 (the fixture)
from webapp.i18n import PageEnvironment
from webapp.views.public import _ranking_table

pytestmark = pytest.mark.db

LANGUAGES = {"fr": "fr", "ro": "ro-RO,ro;q=0.9,fr;q=0.5"}


def _both(app: Flask, client: FlaskClient, url: str, accept: str) -> tuple[Any, Any]:
    """The page compiled for its language, then the reference; each starts with no cached
    ranking table (a published ranking's rows are rendered once per process)."""
    pages = []
    for translated in (True, False):
        app.config["TEMPLATES_TRANSLATED"] = translated
        _ranking_table.cache_clear()
        r = client.get(url, headers={"Accept-Language": accept})
        pages.append((r.status_code, r.get_data(as_text=True)))
    app.config["TEMPLATES_TRANSLATED"] = True
    return pages[0], pages[1]


def _check(app: Flask, client: FlaskClient, url: str) -> int:
    compared = 0
    for lang, accept in LANGUAGES.items():
        (code, body), (ref_code, ref_body) = _both(app, client, url, accept)
        assert code == ref_code, (url, lang)
        assert body == ref_body, (url, lang)
        compared += len(body) > 0
    return compared


def test_every_page_of_a_problem_as_its_reference(app: Flask, client: FlaskClient,
                                                  world: dict[str, Any]) -> None:  # noqa: F811
    assert isinstance(app.jinja_env, PageEnvironment)
    compared = 0
    for audience, urls in sheet_pages(app, world).items():
        for url in urls:
            _sign_in(client, world, audience)
            compared += _check(app, client, url)
    assert compared == 2 * 39  # test_i18n's 39 pages, in two languages
    # both languages were compiled, each in an environment of its own
    assert set(app.jinja_env._languages) == {"fr", "ro"}


def test_every_page_of_the_round_games_as_its_reference(
        app: Flask, client: FlaskClient, rounds_world: dict[str, Any]) -> None:  # noqa: F811
    compared = 0
    for url, who in round_pages(rounds_world):
        _sign(client, **who)
        compared += _check(app, client, url)
    assert compared == 2 * 30  # test_i18n_rounds's 30 pages, in two languages


def test_each_language_keeps_its_own_templates(app: Flask, client: FlaskClient,
                                               world: dict[str, Any]) -> None:  # noqa: F811
    """In one process, French, Romanian, French again: each page in its language (the
    first compiled language's texts never leak into the other's pages)."""
    def lang_of(accept: str) -> str:
        body = client.get("/archives", headers={"Accept-Language": accept}).get_data(
            as_text=True)
        found = re.search(r'<html lang="(\w+)">', body)
        assert found is not None
        words = [w for w in ("Archives", "Arhivă") if f">{w}<" in body]
        return " ".join([found.group(1), *words])

    assert [lang_of(LANGUAGES[k]) for k in ("fr", "ro", "fr", "ro")] == [
        "fr Archives", "ro Arhivă", "fr Archives", "ro Arhivă"]


def test_literal_texts_are_not_translated_at_render_time(
        app: Flask, client: FlaskClient, world: dict[str, Any],  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The ``_`` of the templates (Flask-Babel's, through Jinja's i18n extension) is called
    at render time only for a text that is not written in the template; the reference calls
    it for every text."""
    calls: list[str] = []
    real = app.jinja_env.globals["_"]

    @pass_context
    def counting(context: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(str(args[0]))
        return real(context, *args, **kwargs)

    monkeypatch.setitem(app.jinja_env.globals, "_", counting)
    _sign_in(client, world, "player")
    counts = {}
    for translated in (True, False):
        app.config["TEMPLATES_TRANSLATED"] = translated
        calls.clear()
        for url in ("/joueur/", f"/joueur/problemes/{world['open'].code}/envoyer"):
            assert client.get(url, headers={"Accept-Language": "ro"}).status_code == 200
        counts[translated] = len(calls)
    app.config["TEMPLATES_TRANSLATED"] = True
    assert counts[True] == 0 < counts[False], counts


def test_a_changed_template_is_read_again_once_the_app_reloads_them(app: Flask) -> None:
    """``app.jinja_env.auto_reload`` set after the first pages (as ``app.debug = True``
    does, ``flask run --debug``) reaches the languages' environments, made before it: a
    template changed at its source is compiled again, in each language, where before the
    overlay kept the value it had copied and served the old template."""
    source = {"sonde.html": "{{ _('Accueil') }} un"}
    app.jinja_env.loader = ChoiceLoader([DictLoader(source), app.jinja_env.loader])

    def page(lang: str) -> str:
        with app.test_request_context("/", headers={"Accept-Language": LANGUAGES[lang]}):
            return render_template("sonde.html")

    app.jinja_env.auto_reload = False
    assert (page("fr"), page("ro")) == ("Accueil un", "Acasă un")
    source["sonde.html"] = "{{ _('Accueil') }} deux"
    assert (page("fr"), page("ro")) == ("Accueil un", "Acasă un")  # not reloaded: cached
    app.jinja_env.auto_reload = True
    assert (page("fr"), page("ro")) == ("Accueil deux", "Acasă deux")
