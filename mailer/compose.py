"""Writing e-mails: French templates rendered to a subject, a text part and an HTML part.

This module owns the message *texts* and nothing else: it never touches the database or
the network. Callers (``webapp`` notification service, ``mailer.pipeline``) render a
template, then write an ``OutboxMessage`` row; ``mailer.outbox`` sends it.

Each template ``NAME`` is three files in ``mailer/templates/``: ``NAME.subject.txt`` (one
line), ``NAME.txt`` and ``NAME.html`` (which extends ``_base.html``). The context variables
each template accepts are listed in :data:`TEMPLATES` and at the top of its ``.txt`` file;
the ones marked required must be given (Jinja ``StrictUndefined``: a missing one raises
``jinja2.UndefinedError`` rather than sending a mail with a hole in it).

Common to every template (all optional): ``competition_name`` (default ``"Arbitre"``),
``site_url`` (shown in the footer when given), ``contact`` (the arbitre's address).

Dates may be given as aware ``datetime`` (shown in UTC, French style: ``12/05/2000 à 19:00
UTC``) or as already formatted strings.

Languages: :func:`render` takes the recipient's ``locale`` (``"fr"`` by default, ``"ro"``).
The templates are written in French and mark their texts with ``{% trans %}`` / ``_()``; the
translation comes from the catalogues of ``webapp/translations/`` (``messages.mo``, read with
Babel alone: no Flask here). A language without a catalogue is French.
"""

from __future__ import annotations

import gettext
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
from jinja2 import nodes

from mailer.translate import TranslatedCalls
from puzzles import numfmt
from puzzles.timefmt import format_utc
from webapp.services import phrasebook

TEMPLATE_DIR = Path(__file__).with_name("templates")
#: the message catalogues shared with the web pages (webapp.i18n)
TRANSLATIONS_DIR = Path(__file__).resolve().parent.parent / "webapp" / "translations"
#: the languages a mail can be written in (French is the templates' own language)
LANGUAGES = ("fr", "ro")

#: template name -> (required context variables, optional context variables)
TEMPLATES: Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # After every accepted sheet (web or e-mail). ``moves``: list of mappings with keys
    # ``number``, ``ref``, ``word``, ``score`` (int or None), optional ``letters``, ``cumul``.
    # ``errors``: list of mappings ``line``, ``message`` (syntax problems found while reading).
    "receipt": (
        ("player_name", "problem_title", "received_at"),
        ("deadline", "late", "channel", "moves", "declared_total", "errors", "sheet_text",
         "submission_ref", "replaces_previous", "sha256", "round_notes"),
    ),
    # J-3 / J-1. ``days_left``: 3 or 1. ``submitted``: whether a sheet is already in.
    "reminder": (
        ("player_name", "problem_title", "deadline", "days_left"),
        ("submitted", "submission_address", "subject_hint", "problem_url", "waiting_games"),
    ),
    # A Duplicate round closes soon and the player has no readable bulletin in
    # (``DUPLICATE_REMINDER_HOURS`` before the close). ``waiting_games``, here as in
    # ``reminder``: the other round games waiting for him, mappings ``kind`` (duplicate,
    # correspondence), ``title``, ``code``, ``round_no``, ``deadline``, optional ``url``.
    "duplicate_reminder": (
        ("player_name", "game_title", "round_no", "rack", "deadline"),
        ("submission_address", "subject_hint", "game_url", "waiting_games"),
    ),
    # A new problem is open. ``problem_text``: the statement (rack, row, grid as text).
    "publication": (
        ("player_name", "problem_title", "deadline"),
        ("problem_text", "submission_address", "subject_hint", "problem_url"),
    ),
    # Results: the personal verification report and the ranking. ``ranking``: list of
    # mappings ``rank``, ``name``, ``score``, optional ``percent``; ``rank``: this player's.
    "results": (
        ("player_name", "problem_title", "ranking"),
        ("report_text", "final_score", "rank", "participants", "results_url"),
    ),
    # Mail we cannot take as a sheet: unknown sender (``reason="unknown"``), bad token
    # (``"token"``), From not matching the token's player (``"mismatch"``), or a registered
    # address writing without its token (``"no_token"``; then ``personal_address`` is given
    # and the mail goes to the registered address only).
    # ``open_problems``: list of mappings ``title``, optional ``code``, ``deadline``.
    "instructions": (
        ("sender",),
        ("reason", "personal_address", "open_problems", "register_url", "original_subject"),
    ),
    # A known player did not say which problem the sheet is for.
    # ``note``: why the problem the player named cannot be used (closed, not yet published).
    "ambiguity": (
        ("player_name", "open_problems"),
        ("original_subject", "submission_address", "note"),
    ),
    # The arbitre answered an appeal (webapp.services.appeals). ``accepted``: bool;
    # ``answer``: the arbitre's text; ``appeal_text``: the player's; ``filed_at``: when.
    "appeal_answer": (
        ("player_name", "problem_title", "accepted", "answer"),
        ("appeal_text", "filed_at", "report_url"),
    ),
    # Magic sign-in link. ``expires_minutes``: validity of the link.
    "login": (
        ("link",),
        ("player_name", "expires_minutes"),
    ),
    # Anticipation by correspondence: the group(s) of move ``move`` are announced.
    # ``current`` and each of ``announced``: mappings ``move``, ``at``, ``groups`` (list of
    # mappings ``number``, ``letters``); ``round_closes``: when the move's round closes.
    "announcement": (
        ("player_name", "problem_title", "move", "current", "announced"),
        ("round_closes", "closes_what", "deadline", "submission_address", "subject_hint",
         "problem_url"),
    ),
    # A known player's sheet refused by the submission service (not registered in the
    # competition, too many sheets in a short time). ``reason``: its French message.
    "refused": (
        ("player_name", "problem_title", "reason"),
        ("original_subject",),
    ),
    # A message over the size limit (SMTP 552). ``size``/``limit`` in bytes.
    "refused_too_large": (
        ("size", "limit"),
        ("player_name", "original_subject"),
    ),
    # Duplicate by correspondence (webapp.services.duplicate): a round drawn (``grid``: the
    # master grid as text), a bulletin received (``errors``: French messages), a round's
    # results (``reason``: the correction's), the final ranking (``ranking`` as in results).
    "duplicate_draw": (
        ("player_name", "game_title", "round_no", "rack", "deadline", "grid"),
        ("draw_notation", "submission_address", "subject_hint", "game_url", "variant_label",
         "variant_rule", "stock", "bulletin_example"),
    ),
    # A Duplicate bulletin beyond a bound (webapp.services.duplicate.BulletinRefused):
    # nothing stored; one per player, game and rate window.
    "duplicate_refused": (
        ("player_name", "game_title", "reason"),
        ("original_subject",),
    ),
    "duplicate_receipt": (
        ("player_name", "game_title", "round_no", "received_at"),
        ("rack", "deadline", "late", "channel", "bulletin", "errors", "text",
         "replaces_previous", "entry_ref", "sha256", "game_url"),
    ),
    "duplicate_results": (
        ("player_name", "game_title", "round_no", "top_ref", "top_word", "top_score", "score",
         "reason"),
        ("solo", "total", "rank", "participants", "game_url", "top_letters", "total_label",
         "top_label", "out_of"),
    ),
    # a published round corrected again, to a player whose result changed (``old_score``:
    # score + solo before; ``why``: the arbitre's reason)
    "duplicate_corrected": (
        ("player_name", "game_title", "round_no", "top_ref", "top_word", "top_score", "score",
         "old_score", "reason"),
        ("solo", "why", "top_letters", "total", "rank", "participants", "total_label",
         "game_url"),
    ),
    # the two-player correspondence game (webapp.services.correspondence)
    "corr_turn": (
        ("player_name", "game_title"),
        ("move_no", "last", "rack", "grid", "totals", "deadline", "submission_address",
         "subject_hint", "game_url", "refused", "text"),
    ),
    "corr_reminder": (
        ("player_name", "game_title", "deadline"),
        ("move_no", "lost_at", "game_url", "waiting_games"),
    ),
    "corr_final": (
        ("player_name", "game_title", "reason", "red", "blue", "red_total", "blue_total"),
        ("result", "game_url"),
    ),
    "duplicate_final": (
        ("player_name", "game_title", "ranking"),
        ("rounds", "tops_total", "total", "rank", "percent", "game_url", "total_label"),
    ),
    # A sheet that could not be read at all (nothing stored as a valid sheet).
    # ``errors``: list of mappings ``line``, ``message``.
    "parse_errors": (
        ("player_name", "problem_title", "errors"),
        ("deadline", "sheet_text", "original_subject"),
    ),
}


@dataclass(frozen=True)
class ComposedMail:
    """A rendered message: subject line, plain-text body, HTML body."""

    subject: str
    text: str
    html: str


#: the words of the two filters, per language (French when missing)
_AT = {"fr": "à", "ro": "ora"}
_UNITS = {"fr": ("octets", "Ko", "Mo"), "ro": ("octeți", "KiB", "MiB")}


def format_datetime(value: object, locale: str = "fr") -> str:
    """``datetime`` -> ``29/11/2026 à 23:17 UTC`` (Romanian: ``29/11/2026 ora 23:17 UTC``;
    :func:`puzzles.timefmt.format_utc`); strings pass through unchanged."""
    if isinstance(value, datetime):  # naive: UTC, the database convention
        return format_utc(value, seconds=False, at=_AT.get(locale, _AT["fr"]))
    return "" if value is None else str(value)


def format_size(value: object, locale: str = "fr") -> str:
    """Bytes -> size with a decimal comma (``20,0 Mo``; Romanian ``20,0 MiB``)."""
    n = int(value)  # type: ignore[call-overload]
    octets, kilo, mega = _UNITS.get(locale, _UNITS["fr"])
    if n < 1024:
        return f"{n} {octets}"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} {kilo}".replace(".", ",")
    return f"{n / (1024 * 1024):.1f} {mega}".replace(".", ",")


@lru_cache(maxsize=4)
def translations(locale: str) -> gettext.NullTranslations:
    """The catalogue of ``locale`` (``NullTranslations`` for French or a missing one)."""
    if locale == "fr" or locale not in LANGUAGES:
        return gettext.NullTranslations()
    from babel.support import Translations

    return Translations.load(str(TRANSLATIONS_DIR), [locale])


class _MailEnvironment(jinja2.Environment):
    """The templates' environment: each template's ``_('texte')`` calls translated when it
    is compiled (:class:`TranslatedCalls`) with the environment's :attr:`mail_gettext`."""

    mail_gettext: Any = None

    def _parse(self, source: str, name: str | None,
               filename: str | None) -> nodes.Template:
        tree = super()._parse(source, name, filename)
        if self.mail_gettext is not None:
            tree = TranslatedCalls(self.mail_gettext, bool(self.autoescape)).visit(tree)
            tree.set_environment(self)
        return tree


#: what ``getattr`` finds on a plain ``dict`` (its class's attributes): any other name
#: raises ``AttributeError`` (a dict has no instance attributes)
_DICT_ATTRIBUTES = frozenset(dir({}))


class _FastMailEnvironment(_MailEnvironment):
    """The environment the mails are rendered with: :class:`_MailEnvironment` with two of
    Jinja's lookups done the short way, each giving what Jinja's own gives.

    * :meth:`getattr` (``m.number``, a template's ``x.y``): Jinja tries the attribute and,
      on ``AttributeError``, the item. For a plain ``dict`` (the contexts' moves, errors,
      problems…) and a name that is not one of its class's attributes, the attribute
      lookup can only fail: the item is read at once, without raising and catching an
      exception.
    * :meth:`make_globals`: the templates' globals as a plain dict (the environment's,
      all set by :func:`_env` before any template is loaded, under the template's own)
      instead of a ``ChainMap`` over them, which each render — each template, include and
      base of it — copies into its context key by key."""

    def getattr(self, obj: Any, attribute: str) -> Any:
        if type(obj) is dict and attribute not in _DICT_ATTRIBUTES:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)

    def make_globals(self, d: Any) -> Any:
        return {**self.globals, **(d or {})}


def _env(autoescape: bool, locale: str = "fr", *, translated: bool = True) -> jinja2.Environment:
    """The environment of the templates in ``locale``; ``translated=False``: without
    :class:`TranslatedCalls` (every ``_()`` called at render time) nor the short lookups of
    :class:`_FastMailEnvironment`, the reference the tests compare the mails with."""
    env = (_FastMailEnvironment if translated else _MailEnvironment)(
        loader=jinja2.FileSystemLoader(str(TEMPLATE_DIR)),
        autoescape=autoescape,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=False,  # templates ship with the code: no stat() per message
        extensions=["jinja2.ext.i18n"],
    )
    env.policies["ext.i18n.trimmed"] = True  # as babel.cfg extracts them
    env.install_gettext_translations(translations(locale), newstyle=True)  # type: ignore[attr-defined]
    if translated:
        env.mail_gettext = translations(locale).gettext
    # the French messages of puzzles/ and scoring/ (sheet errors, reasons) in the mail's language
    env.filters["tr_msg"] = lambda text: phrasebook.translate(text, translations(locale).gettext)
    env.filters["tr_report"] = lambda text: _report_in(text, locale)
    env.filters["dt"] = lambda value: format_datetime(value, locale)
    env.filters["size"] = lambda value: format_size(value, locale)
    env.filters["pourcent"] = numfmt.percent
    env.globals["locale"] = locale
    return env


def _report_in(text: object, locale: str) -> str:
    """``phrasebook.report_text`` of ``text`` in ``locale``, remembered for the last reports
    (:func:`_cached_report`): a mail renders its report twice (text and HTML), and the
    players of a burst send many of the same sheets."""
    if not isinstance(text, str):
        return phrasebook.report_text(text, translations(locale).gettext)
    return _cached_report(text, locale)


@lru_cache(maxsize=512)
def _cached_report(text: str, locale: str) -> str:
    return phrasebook.report_text(text, translations(locale).gettext)


@lru_cache(maxsize=8)
def _environment(autoescape: bool, locale: str = "fr") -> jinja2.Environment:
    return _env(autoescape, locale)


#: the context values the services write in French and the mail shows as they are: a
#: correction's reason, a refusal, the scores « ROUGE 10 – BLEU 12 », the last move
#: « H8 ZA (22 points) », a game's result, a bulletin's reference « n° 4, version 1 »
_FRENCH_VALUES = ("reason", "refused", "totals", "last", "result", "entry_ref", "why")
#: the values quoted as the player or the arbitre wrote them: never rewritten
_QUOTED = ("text", "sheet_text", "bulletin", "grid", "report_text", "problem_text",
           "appeal_text", "answer", "original_subject", "note")


#: context lists of mappings whose string values may hold the services' French dates
_DATED_LISTS = frozenset({"waiting_games"})


def _in_language(context: dict[str, Any], lang: str) -> dict[str, Any]:
    """``context`` for a mail in ``lang``: the French values of :data:`_FRENCH_VALUES`
    through the phrasebook, and the dates the services give as French text
    (« 11/05/2026 à 13:00 (Europe/Bucharest, UTC+03:00) ») in the language's form, those
    of :data:`_DATED_LISTS` too."""
    if lang == "fr":
        return dict(context)
    gettext = translations(lang).gettext
    out: dict[str, Any] = {}
    for key, value in context.items():
        if isinstance(value, str) and key not in _QUOTED:
            if key in _FRENCH_VALUES:
                value = phrasebook.translate(value, gettext)
            value = phrasebook.dates(value, gettext)
        elif isinstance(value, list) and key in _DATED_LISTS:
            # the list's own dates too (a waiting game's deadline, « 11/05/2026 à 13:00 »)
            value = [{k: phrasebook.dates(v, gettext) if isinstance(v, str) else v
                      for k, v in item.items()} if isinstance(item, dict) else item
                     for item in value]
        out[key] = value
    return out


def render(template: str, *, locale: str | None = "fr", **context: Any) -> ComposedMail:
    """Render template ``template`` (a key of :data:`TEMPLATES`) with ``context``, in the
    language ``locale`` (``"fr"``, ``"ro"``; ``None`` or another one: French).

    Raises ``KeyError`` for an unknown template and ``TypeError`` when a required context
    variable is missing.
    """
    lang = locale if locale in LANGUAGES else "fr"
    if template not in TEMPLATES:
        raise KeyError(f"modèle de courriel inconnu : {template!r}")
    required, _optional = TEMPLATES[template]
    missing = [name for name in required if name not in context]
    if missing:
        raise TypeError(f"modèle {template!r} : variables manquantes {', '.join(missing)}")
    ctx: dict[str, Any] = {"competition_name": "Arbitre", "site_url": None, "contact": None}
    ctx.update(_in_language(context, lang))
    text_env = _environment(False, lang)
    subject = text_env.get_template(f"{template}.subject.txt").render(ctx)
    subject = " ".join(subject.split())
    text = text_env.get_template(f"{template}.txt").render(ctx)
    html = _environment(True, lang).get_template(f"{template}.html").render(ctx, subject=subject)
    return ComposedMail(subject=subject, text=text.strip() + "\n", html=html)
