"""The templates' ``_('texte')`` translated when compiled (``mailer.translate.TranslatedCalls``)
and Jinja's lookups done the short way (``mailer.compose._FastMailEnvironment``) against
the reference, every ``_()`` called at render time through Jinja's own lookups: the same
subject, text and HTML for every template, in every language, with contexts that take
each branch; the short lookups give what Jinja's give."""

from __future__ import annotations

import functools
import itertools
from collections import OrderedDict
from datetime import UTC, datetime
from typing import Any

import jinja2
import pytest
from markupsafe import Markup

from mailer import compose
from tests.mail.test_units import MINIMAL


def reference(monkeypatch: pytest.MonkeyPatch) -> None:
    @functools.lru_cache(maxsize=8)
    def untranslated(autoescape: bool, locale: str = "fr") -> jinja2.Environment:
        return compose._env(autoescape, locale, translated=False)

    monkeypatch.setattr(compose, "_environment", untranslated)


def outcome(template: str, locale: str, context: dict[str, Any]) -> Any:
    try:
        mail = compose.render(template, locale=locale, **context)
    except Exception as exc:  # noqa: BLE001 (the same failure is what is compared)
        return ("raises", type(exc).__name__, str(exc))
    return (mail.subject, mail.text, mail.html)


_ERRORS = [{"line": 3, "message": "référence manquante <b>&</b> 100 %"},
           {"line": 5, "message": "score manquant"}]


def receipts() -> list[dict[str, Any]]:
    """Receipt contexts over the template's flags (late, replacing, errors, groups…)."""
    out = []
    for late, replaces, errors, readable, groups, channel in itertools.product(
            (False, True), (False, True), ([], _ERRORS), (False, True), (False, True),
            ("email", "web", None)):
        out.append({
            "player_name": "O'Brien <Ana> & %(x)s", "problem_title": "Intégral n° 3 (I3)",
            "received_at": datetime(2026, 5, 10, 10, 0, tzinfo=UTC),
            "deadline": "12/05/2026 à 16:00 (Europe/Paris, UTC+02:00)", "late": late,
            "channel": channel, "group_column": groups, "errors": errors,
            "moves": [{"number": 1, "ref": "H8", "word": "FICHERA", "score": 82,
                       "cumul": 82, "letters": "ACEFHIR", "group": 2},
                      {"number": 2, "ref": "15F", "word": "WUS", "score": None, "group": None}],
            "declared_total": 166 if groups else None, "sheet_text": "1 H8 <FICHERA>\n2 &",
            "submission_ref": "feuille n° 2", "replaces_previous": replaces,
            "previous_version": 1 if readable else None, "previous_readable": readable,
            "ignored_lines": ["Bonjour <toi> & « salut »"] if late else [],
            "round_notes": ["coup 1 : groupe 2 <annoncé>"] if groups else [],
            "sha256": "ab" * 32, "site_url": "http://arbitre.test/?a=1&b=2",
            "contact": "arbitre@x.org" if late else None,
        })
    return out


def cases() -> list[tuple[str, dict[str, Any]]]:
    return ([(name, dict(MINIMAL[name])) for name in sorted(compose.TEMPLATES)]
            + [("receipt", c) for c in receipts()]
            + [("results", {"player_name": "A", "problem_title": "P",
                            "ranking": [{"rank": 1}]})])  # raises UndefinedError


@pytest.mark.parametrize("locale", ["fr", "ro", "xx"])
def test_translated_templates_render_as_the_reference(monkeypatch: pytest.MonkeyPatch,
                                                      locale: str) -> None:
    every = cases()
    translated = [outcome(name, locale, ctx) for name, ctx in every]
    with monkeypatch.context() as m:
        reference(m)
        want = [outcome(name, locale, ctx) for name, ctx in every]
    assert translated == want
    assert sum(1 for w in want if w[0] == "raises") == 1


@pytest.mark.parametrize("autoescape", [False, True])
def test_literal_texts_are_translated_at_compile_time(autoescape: bool) -> None:
    env = compose._env(autoescape, "ro")
    ext = "html" if autoescape else "txt"
    source = env.loader.get_source(env, f"receipt.{ext}")[0]  # type: ignore[union-attr]
    code = env.compile(source, raw=True)
    reference_code = compose._env(autoescape, "ro", translated=False).compile(source, raw=True)
    assert "resolve('_')" in reference_code
    assert "resolve('_')" not in code
    # the Romanian texts are in the compiled template itself
    assert compose.translations("ro").gettext("Clôture du problème : %(deadline)s. Vous "
                                              "pouvez renvoyer une feuille corrigée jusque-là"
                                              " ; seule la dernière reçue compte.") in code


def test_a_text_that_cannot_be_formatted_still_raises_at_render() -> None:
    env = compose._env(False, "fr")
    template = env.from_string("{{ _('100 %') }}")
    with pytest.raises(ValueError, match="incomplete format"):
        template.render()
    assert env.from_string("{{ _('a %(n)s b', n=_('c')) }}").render() == "a c b"
    html = compose._env(True, "fr").from_string("{{ _('<%(n)s>', n='&') }}{{ _('<i>') }}")
    assert html.render() == "<&amp;><i>"


class _Move:
    number = 3

    def __init__(self) -> None:
        self.word = "WUS"


class _Row(dict[str, Any]):
    pass


def test_the_short_attribute_lookup_gives_what_jinja_gives() -> None:
    fast = compose._env(False, "fr")
    stock = jinja2.Environment(undefined=jinja2.StrictUndefined)
    assert type(fast).getattr is not jinja2.Environment.getattr
    objects: list[Any] = [
        {}, {"number": 1, "items": 2, "keys": "k", "__class__": 5, "mro": 6, "__len__": 7},
        _Row(number=2, items=3), OrderedDict(number=3), _Move(), [1, 2], (1,), "abc", None,
        5, Markup("<b>"), {1: "one"}]
    names = ["number", "items", "keys", "get", "__class__", "mro", "word", "missing",
             "__len__", "upper", "__dict__", "fromkeys"]
    for obj in objects:
        for name in names:
            got, want = fast.getattr(obj, name), stock.getattr(obj, name)
            if isinstance(want, jinja2.Undefined):
                assert type(got) is type(want)
                assert got._undefined_name == want._undefined_name == name
                assert got._undefined_obj is want._undefined_obj is obj
            else:
                assert got == want and type(got) is type(want), (obj, name)


def test_the_plain_globals_are_jinjas_chained_ones() -> None:
    for autoescape in (False, True):
        env = compose._env(autoescape, "ro")
        for own in (None, {}, {"extra": 1}, {"range": "shadowed", "locale": "xx"}):
            chained = jinja2.Environment.make_globals(env, None if own is None else dict(own))
            assert env.make_globals(None if own is None else dict(own)) == dict(chained)
        template = env.get_template("receipt.html" if autoescape else "receipt.txt")
        assert type(template.globals) is dict and template.globals == dict(env.globals)
