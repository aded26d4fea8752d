"""The Duplicate's games and their data: the round rhythm, creating a game, the queries, the
JSON forms of draws, moves, tops and results, the bulletin's text, and the running ranking.
The lowest module of the package: the others (notices, correction, bulletins, steps) build
on it."""

from __future__ import annotations

import json
import logging
import secrets
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, time, timedelta
from typing import Any, cast, get_args
from zoneinfo import ZoneInfo

from flask import current_app, has_app_context
from sqlmodel import Session, col, select

import puzzles.duplicate as dup_rules
import puzzles.duplicate.codecs as codecs
import puzzles.variants as variant_rules
from puzzles.duplicate import Bulletin, Draw, Lang, TopChoice, Verdict
from puzzles.variants import TactiqueState, TactiqueTop, VariantTop
from scoring.board import Board
from scoring.config import GameConfig
from scoring.move import Placement
from scoring.movegen import GeneratedMove
from scoring.tiles import tileset
from webapp.models import (
    DEFAULT_TIMEZONE,
    Competition,
    DuplicateEntry,
    DuplicateGame,
    DuplicateRound,
    DuplicateStatus,
    DuplicateVariant,
    OutboxKind,
    Player,
    Registration,
    RoundStatus,
    SeedSource,
)
from webapp.services import audit, changes, inputs
from webapp.services.lexicons import base_lexicon
from webapp.services.stored import duplicate_settings_of, variant_settings_of

log = logging.getLogger("webapp.services.duplicate")


WEEKDAYS_FR = ("lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche")


RHYTHM_KINDS = ("hours", "weekdays", "all_answered", "live")

#: the largest seed an arbitre may give (a replay's or a test's; 2**128 − 1, the width of a
#: secret seed): wider would only look safer, a given seed is predictable whatever its size
MAX_GIVEN_SEED = (1 << 128) - 1


#: outbox kinds of the Duplicate notices (the receipt is an ordinary ``receipt``)
KIND_DRAW, KIND_RESULTS, KIND_FINAL = (
    OutboxKind.DUPLICATE_DRAW, OutboxKind.DUPLICATE_RESULTS, OutboxKind.DUPLICATE_FINAL)


KIND_CORRECTED = OutboxKind.DUPLICATE_CORRECTED


class DuplicateError(ValueError):
    """A French message for the arbitre or the player; nothing was changed."""


class BulletinRefused(DuplicateError):
    """A bulletin beyond a bound (its length, its solutions, the player's rate): nothing is
    stored. The mail answering it has the dedupe key ``reply_key``; ``answered``: a refusal
    of this player's bulletins for this game was already answered within the rate window
    (one answer per window, not one per message: no receipt storm); ``title``: the game, as
    the answer names it."""

    def __init__(self, message: str, *, reply_key: str, title: str, answered: bool) -> None:
        super().__init__(message)
        self.reply_key = reply_key
        self.title = title
        self.answered = answered


#: the variants this server plays (``DuplicateGame.variant``; "" is the plain Duplicate)
SERVER_VARIANTS = tuple(v for v in DuplicateVariant if v)


SUPERSCRABBLE = DuplicateVariant.SUPERSCRABBLE


#: the variants whose players take letters from the stock (their bulletin names them)
FREE_VARIANTS = (DuplicateVariant.COMPLETIF, DuplicateVariant.SUPERJOKER,
                 DuplicateVariant.METAGRAMME, DuplicateVariant.ELLIPTIQUE)


def label_of(variant: str) -> str:
    if not variant:
        return "Duplicate"
    if variant == SUPERSCRABBLE:
        return "Partie de Superscrabble"
    return str(variant_rules.VARIANTS.get(variant, variant))


def variant_label(game: DuplicateGame) -> str:
    return label_of(game.variant)


def is_free(game: DuplicateGame) -> bool:
    return game.variant in FREE_VARIANTS


def tactique_text(ts: Any) -> str:
    """A ``TactiqueState`` as stored (:func:`puzzles.duplicate.codecs.tactique_text`)."""
    return codecs.tactique_text(ts)


def tactique_of(text: str) -> TactiqueState:
    """The stored Tactique master game (:func:`puzzles.duplicate.codecs.tactique_of`)."""
    return codecs.tactique_of(text)


def config_of(game: DuplicateGame) -> GameConfig:
    """The engine configuration: the game's tiles and its word list (checked against the
    identity recorded at creation, as problems are)."""
    return GameConfig(tileset=tileset(game.lang), lexicon=base_lexicon(game))


def draw_bag_order(lang: Lang, seed: int) -> str:
    """The whole bag in the order a *given* ``seed`` draws it (``puzzles.duplicate
    .shuffled_bag``, reproducible by anyone who knows the seed: replays and tests)."""
    return "".join(dup_rules.shuffled_bag(lang, seed))


def secret_bag_order(lang: Lang, seed: int) -> str:
    """The whole bag in the order a secret 128-bit ``seed`` draws it
    (``puzzles.duplicate.secret_bag``): a default game's bag."""
    return "".join(dup_rules.secret_bag(lang, seed))


def live_minutes(variant: str) -> int:
    """The time of a round played live (rhythm ``live``): 6 min for the Tactique (RULES §9.1,
    « Temps de réflexion: 6 minutes par coup »), 3 min otherwise (FISF 3.3, « trois minutes
    par coup »; RULES §9: the variants' time is INFERRED)."""
    return 6 if variant == "tactique" else 3


def _settings_key(variant: DuplicateVariant) -> variant_rules.Variant:
    """The ``VariantSettings.variant`` of a variant game (a Partie de Superscrabble keeps
    the Duplicate Top's)."""
    key = "top" if variant == SUPERSCRABBLE else str(variant)
    for known in get_args(variant_rules.Variant):
        if known == key:
            return cast(variant_rules.Variant, known)
    raise DuplicateError(f"Variante « {variant} » sans réglages.")


def check_rhythm(rhythm: dict[str, Any], timezone: str) -> dict[str, Any]:
    """The rhythm, normalised; :class:`DuplicateError` in French when it cannot work.
    ``{"kind": "live", "minutes": 6, "mails": False}``: played live, each round closes
    ``minutes`` after its draw and the next is drawn as soon as the results are out;
    ``mails`` (INFERRED, off): no draw or results mail each round (a round every few minutes
    must not flood the players' mailboxes; the page is the game), the final ranking is
    mailed all the same."""
    kind = rhythm.get("kind")
    if kind not in RHYTHM_KINDS:
        raise DuplicateError("Rythme des tours inconnu : choisissez « toutes les N heures », "
                             "« jours fixes », « dès que tous ont répondu » ou « en direct ».")
    try:
        inputs.zone_of(timezone)
    except ValueError as exc:
        raise DuplicateError(str(exc)) from None
    if kind == "live":
        try:
            minutes = int(rhythm.get("minutes", 0))
        except (TypeError, ValueError):
            minutes = 0
        if not 1 <= minutes <= 180:
            raise DuplicateError("En direct, le temps d'un tour est un nombre de minutes entre 1 "
                                 "et 180.")
        return {"kind": kind, "minutes": minutes, "mails": rhythm.get("mails") is True}
    if kind in ("hours", "all_answered"):
        try:
            hours = int(rhythm.get("hours", 0))
        except (TypeError, ValueError):
            hours = 0
        if not 1 <= hours <= 24 * 60:
            raise DuplicateError("Le délai d'un tour doit être un nombre d'heures entre 1 et "
                                 "1440.")
        return {"kind": kind, "hours": hours}
    try:
        days = sorted({int(d) for d in rhythm.get("days", [])})
    except (TypeError, ValueError):
        days = []
    if not days or any(not 0 <= d <= 6 for d in days):
        raise DuplicateError("Choisissez au moins un jour de la semaine pour la clôture des "
                             "tours.")
    hhmm = str(rhythm.get("time", "20:00"))
    try:
        hh, mm = (int(x) for x in hhmm.split(":"))
        time(hh, mm)
    except ValueError:
        raise DuplicateError(f"Heure de clôture illisible : « {hhmm} » (attendu HH:MM)."
                             ) from None
    return {"kind": kind, "days": days, "time": f"{hh:02d}:{mm:02d}"}


def deadline_after(rhythm: dict[str, Any], opens_at: datetime, timezone: str) -> datetime:
    """The deadline of a round opened at ``opens_at``: N hours later, or the next listed
    weekday at the given local time (at least one hour after the opening)."""
    if rhythm["kind"] == "live":
        return opens_at + timedelta(minutes=int(rhythm["minutes"]))
    if rhythm["kind"] in ("hours", "all_answered"):
        return opens_at + timedelta(hours=int(rhythm["hours"]))
    zone = ZoneInfo(timezone)
    hh, mm = (int(x) for x in rhythm["time"].split(":"))
    local = opens_at.astimezone(zone)
    for offset in range(0, 15):
        day = local.date() + timedelta(days=offset)
        if day.weekday() not in rhythm["days"]:
            continue
        candidate = datetime.combine(day, time(hh, mm), tzinfo=zone)
        if candidate >= opens_at + timedelta(hours=1):
            return candidate.astimezone(opens_at.tzinfo)
    raise AssertionError("unreachable: a listed weekday comes within two weeks")


def is_live(game: DuplicateGame) -> bool:
    """Played live: a round every few minutes (rhythm ``live``)."""
    return game.rhythm.get("kind") == "live"


def round_mails(game: DuplicateGame) -> bool:
    """Each round's draw and results are mailed: always by correspondence; live only with
    the rhythm's ``mails`` setting."""
    return not is_live(game) or game.rhythm.get("mails") is True


def describe_rhythm(rhythm: dict[str, Any]) -> str:
    if rhythm.get("kind") == "live":
        return (f"en direct : {rhythm['minutes']} min par tour, le tirage suivant dès les "
                "résultats")
    hours = rhythm.get("hours")
    if rhythm.get("kind") == "hours":
        return f"un tour toutes les {hours} heures" if hours != 1 else "un tour toutes les heures"
    if rhythm.get("kind") == "all_answered":
        return (f"tour suivant dès que tous les joueurs ont répondu, au plus tard "
                f"{hours} heure{'s' if hours != 1 else ''} après le tirage")
    days = ", ".join(WEEKDAYS_FR[d] for d in rhythm.get("days", []))
    return f"clôture chaque {days} à {rhythm.get('time')}"


def create_game(
    *,
    session: Session,
    competition: Competition,
    title: str,
    settings: Any,
    rhythm: dict[str, Any],
    starts_at: datetime,
    code: str | None = None,
    lexicon_name: str = "default",
    timezone: str = DEFAULT_TIMEZONE,
    seed: int | None = None,
    review_minutes: int = 0,
    bag_order: str | None = None,
    actor: str = audit.SYSTEM,
    variant: DuplicateVariant | str = DuplicateVariant.PLAIN,
    superscrabble: dict[str, Any] | None = None,
) -> DuplicateGame:
    """Store a new Duplicate; round 1 is drawn by the scheduler at ``starts_at``. The bag
    order is drawn from a fresh secret 128-bit seed, or from the arbitre's ``seed`` (marked
    ``SeedSource.GIVEN``), or given whole as ``bag_order`` (a recorded game replayed; ``seed``
    is then 0). ``variant``: one of
    :data:`SERVER_VARIANTS`, ``settings`` then a ``VariantSettings`` (or a
    ``DuplicateSettings``, taken as the variant's Duplicate settings). A Partie de
    Superscrabble takes ``superscrabble={"start": "H7 LA", "racks": ["RETAINS", …]}``."""
    if starts_at.tzinfo is None:
        raise ValueError("starts_at must be timezone-aware")
    rhythm = check_rhythm(rhythm, timezone)
    if not title.strip():
        raise DuplicateError("Donnez un titre à la partie.")
    try:
        title = inputs.check_line(title, "Titre", limit=200)
        if code is not None:
            inputs.check_code(code.strip(), "Code de la partie")
    except ValueError as exc:
        raise DuplicateError(str(exc)) from None
    if review_minutes < 0:
        raise DuplicateError("Le délai de revue du top ne peut pas être négatif.")
    if rhythm["kind"] == "live" and review_minutes:
        raise DuplicateError("En direct, les résultats et le tirage suivant suivent la clôture "
                             "du tour : le délai de revue du top doit être 0.")
    code = (code or f"DUP-{secrets.token_hex(3)}").strip()
    if not code or any(c.isspace() for c in code):
        raise DuplicateError("Le code de la partie ne peut contenir d'espace.")
    if session.exec(select(DuplicateGame.id).where(DuplicateGame.code == code)).first():
        raise DuplicateError(f"Le code « {code} » est déjà pris.")
    known = dict(current_app.config.get("LEXICONS") or {}) if has_app_context() else {}
    if lexicon_name != "default" and lexicon_name not in known:
        names = ", ".join(["default", *sorted(known)])
        raise DuplicateError(f"Liste de mots « {lexicon_name} » inconnue de ce serveur "
                             f"(listes configurées : {names}).")
    try:
        variant = DuplicateVariant(variant)  # the console form's string
    except ValueError:
        labels = ", ".join(label_of(v) for v in SERVER_VARIANTS)
        raise DuplicateError(f"Variante « {variant} » inconnue de ce serveur (jouables : "
                             f"{labels}).") from None
    if variant:
        vs = variant_rules.VariantSettings
        own = _settings_key(variant)
        if not isinstance(settings, vs):
            settings = vs(variant=own, duplicate=settings)
        elif settings.variant != own:
            settings = replace(settings, variant=own)
    dup_settings = settings.duplicate if variant else settings
    lang = dup_settings.lang
    # the bag (docs/DUPLICATE.md « Le sac »): a fresh secret seed unless the arbitre gives
    # one (marked as such: anyone who knows it knows the draws) or gives the whole bag
    if bag_order is not None:
        seed, source, bag = 0, SeedSource.BAG, bag_order
    elif seed is None:
        seed, source = dup_rules.new_secret_seed(), SeedSource.SECRET
        bag = secret_bag_order(lang, seed)
    else:
        seed, source = int(seed), SeedSource.GIVEN
        if not 0 <= seed <= MAX_GIVEN_SEED:
            raise DuplicateError(f"Graine du sac : de 0 à {MAX_GIVEN_SEED}.")
        bag = draw_bag_order(lang, seed)
    assert competition.id is not None
    game = DuplicateGame(
        code=code, competition_id=competition.id, title=title.strip(), lang=lang,
        lexicon_name=lexicon_name, settings=_as_dict(settings.to_json()), rhythm=rhythm,
        variant=variant,
        seed=seed, seed_source=source, bag_order=bag, state_text="", timezone=timezone,
        review_minutes=review_minutes, starts_at=starts_at, status=DuplicateStatus.SCHEDULED,
    )
    # the word list must load now, not at round 1
    game.lexicon_sha256 = base_lexicon(game).identity.sha256
    config = config_of(game)
    try:
        game.state_text = dup_rules.GameState.initial(dup_settings, bag).to_text()
        if variant == "tactique":
            game.state_text = tactique_text(variant_rules.TactiqueState(
                dup_rules.GameState.from_text(game.state_text)))
        if variant == SUPERSCRABBLE:
            spec, game.state_text = superscrabble_start(superscrabble or {}, config)
            game.settings = {**game.settings, SUPERSCRABBLE: spec}
    except ValueError as exc:  # puzzles.duplicate.DuplicateError: a bag that is not the set
        raise DuplicateError(str(exc)) from None
    session.add(game)
    session.flush()
    audit.record(session=session, actor=actor, action="duplicate.create", target=code,
                 seed=str(seed), seed_source=source, rhythm=rhythm,
                 starts_at=starts_at.isoformat(),
                 settings=game.settings, lexicon=lexicon_name, variant=variant)
    return game


def superscrabble_start(spec: dict[str, Any], config: Any) -> tuple[dict[str, Any], str]:
    """The arbitre's 2-letter word through the centre and the racks (7 letters each, one per
    round), checked; the grid (CGP) with the word placed. French errors."""
    start = str(spec.get("start", "")).strip().upper()
    racks = [str(r).replace(" ", "").upper() for r in spec.get("racks", []) if str(r).strip()]
    if len(start.split()) != 2:
        raise DuplicateError("Partie de Superscrabble : écrivez le mot de 2 lettres placé par "
                             "l'arbitre avec sa référence (ex. « H7 LA »).")
    if not racks:
        raise DuplicateError("Partie de Superscrabble : donnez les tirages de 7 lettres, un "
                             "par coup.")
    for i, rack in enumerate(racks, 1):
        if len(rack) != 7 or not all(ch == "?" or "A" <= ch <= "Z" for ch in rack):
            raise DuplicateError(f"Partie de Superscrabble, coup {i} : « {rack} » n'est pas un "
                                 "tirage de 7 lettres.")
    ref, word = start.split()
    board = Board()
    try:
        pl = Placement.from_notation(board, ref, word)
    except Exception as exc:
        raise DuplicateError(f"Partie de Superscrabble : mot de départ — {exc}") from None
    if len(word) != 2 or config.layout.center not in pl.squares:
        raise DuplicateError("Partie de Superscrabble : le mot de départ a 2 lettres et couvre "
                             "la case centrale.")
    pl.apply(board)
    return {"start": start, "racks": racks}, str(board.to_cgp())


def _as_dict(value: Any) -> dict[str, Any]:
    if isinstance(value, str):
        loaded = json.loads(value)
        assert isinstance(loaded, dict)
        return loaded
    return dict(value)


def players_of(session: Session, game: DuplicateGame) -> list[Player]:
    return list(session.exec(
        select(Player)
        .join(Registration, col(Registration.player_id) == col(Player.id))
        .where(Registration.competition_id == game.competition_id)
        .where(col(Player.active).is_(True))
        .order_by(col(Player.id))
    ).all())


def rounds_of(session: Session, game: DuplicateGame) -> list[DuplicateRound]:
    return list(session.exec(
        select(DuplicateRound).where(DuplicateRound.game_id == game.id)
        .order_by(col(DuplicateRound.number))
    ).all())


def current_round(session: Session, game: DuplicateGame) -> DuplicateRound | None:
    return session.exec(
        select(DuplicateRound).where(DuplicateRound.game_id == game.id)
        .order_by(col(DuplicateRound.number).desc()).limit(1)
    ).first()


def entries_of(session: Session, rnd: DuplicateRound) -> list[DuplicateEntry]:
    return list(session.exec(
        select(DuplicateEntry).where(DuplicateEntry.round_id == rnd.id)
        .order_by(col(DuplicateEntry.player_id), col(DuplicateEntry.version))
    ).all())


def counting_entries(entries: Sequence[DuplicateEntry]) -> dict[int, DuplicateEntry]:
    """Per player, the bulletin that counts: the last version received on time."""
    out: dict[int, DuplicateEntry] = {}
    for e in sorted(entries, key=lambda e: (e.player_id, e.version)):
        if not e.late:
            out[e.player_id] = e
    return out


def game_url(game: DuplicateGame) -> str | None:
    base = current_app.config.get("BASE_URL") if has_app_context() else None
    return f"{base.rstrip('/')}/duplicate/{game.code}" if base else None


def schedule_changed(session: Session) -> None:
    """Move the scheduler's change counter in this transaction (``changes.bump``): the
    leader sees it within ``SCHEDULER_POLL_SECONDS`` and runs what is due."""
    changes.bump(session.connection())


def first_line(text: str) -> str:
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "")


def parse_line(variant: str, line: str) -> Any:
    """The variant's bulletin parser: ``puzzles.duplicate.parse_bulletin``, or for the
    letter-choice variants ``puzzles.variants.parse_free_bulletin`` (``+T``, ``-N +K``)."""
    if variant in FREE_VARIANTS:
        return variant_rules.parse_free_bulletin(line)
    if variant == "tactique":
        return variant_rules.parse_tactique_billet(line)
    if variant == SUPERSCRABBLE:
        return variant_rules.parse_scrabble_sheet(line)
    return dup_rules.parse_bulletin(line)


def parse_text(text: str, variant: str = "") -> tuple[list[str], dict[str, Any] | None]:
    """The bulletin is the first non-empty line (a mail's signature below it is ignored);
    when the text has several, its reasons name that line (« Ligne 2 : … »). The parsers
    answer every line with a bulletin or French reasons (their fuzzers:
    tests/puzzles/test_bulletin_fuzz.py); should one raise all the same, the bulletin is kept
    as unreadable, for the arbitre, with a French reason."""
    line = first_line(text)
    if not line:
        example = BULLETIN_EXAMPLES.get(variant, "H4 RESTAIt 70")
        return [f"Bulletin vide : écrivez une ligne, par exemple « {example} »."], None
    try:
        parsed = parse_line(variant, line)
    except Exception:  # the parser must never cost a player his bulletin
        log.exception("parse_bulletin raised")
        return ["Bulletin illisible : il est conservé et l'arbitre l'examinera."], None
    if isinstance(parsed, list):
        lines = [ln for ln in text.splitlines() if ln.strip()]
        if len(lines) == 1:
            return [str(e) for e in parsed], None
        number = next(k for k, ln in enumerate(text.splitlines(), 1) if ln.strip())
        return [f"Ligne {number} : {e}" for e in parsed], None
    if variant in FREE_VARIANTS:
        return [], free_dict(parsed)
    if variant == SUPERSCRABBLE:
        return [], {"entries": [list(e) for e in parsed.entries], "count": parsed.count}
    if variant == "tactique":
        return [], {"first": bulletin_dict(parsed.first),
                    "second": bulletin_dict(parsed.second) if parsed.second else None,
                    "total": parsed.total}
    return [], bulletin_dict(parsed)


def solution_count(d: dict[str, Any] | None) -> int:
    """How many solutions a stored bulletin holds (a Tactique billet: its word with the
    most; a Superscrabble sheet: 1)."""
    if not d:
        return 0
    if "first" in d:
        return max(solution_count(d["first"]), solution_count(d.get("second")))
    if "entries" in d:
        return 1
    return 1 + len(d.get("alternatives") or ())


def bulletin_dict(b: Any) -> dict[str, Any]:
    """A ``Bulletin`` as stored (:func:`puzzles.duplicate.codecs.bulletin_dict`)."""
    return cast(dict[str, Any], codecs.bulletin_dict(b))


def free_dict(fb: Any) -> dict[str, Any]:
    """A ``FreeBulletin`` as stored (:func:`puzzles.duplicate.codecs.free_dict`)."""
    return cast(dict[str, Any], codecs.free_dict(fb))


def bulletin_of(d: dict[str, Any], player: str, received_at: datetime | None) -> Bulletin:
    """The stored bulletin with every solution (:func:`puzzles.duplicate.codecs.bulletin_of`)."""
    return codecs.bulletin_of(cast(codecs.BulletinJSON, d), player, received_at)


def free_of(d: dict[str, Any], player: str, received_at: datetime | None) -> Any:
    """The stored letter-choice bulletin (:func:`puzzles.duplicate.codecs.free_of`)."""
    return codecs.free_of(cast(codecs.BulletinJSON, d), player, received_at)


def bulletin_line(b: dict[str, Any] | None) -> str | None:
    if not b:
        return None
    if "entries" in b:  # a Superscrabble sheet
        listed = ", ".join(f"{r} {w}" for r, w in b["entries"])
        return listed + (f" ; {b['count']}" if b.get("count") is not None else "")
    if "first" in b:  # a Tactique billet
        words = " + ".join(x for x in (bulletin_line(b["first"]), bulletin_line(b["second"]))
                           if x)
        return words + (f" = {b['total']}" if b.get("total") is not None else "")
    placed = " ".join(dup_rules.RaccordLetter(*x).notation() for x in b.get("raccord_at") or ())
    place = " ".join(x for x in (b.get("ref"), b.get("raccord"), placed) if x)
    mark = dup_rules.VERTICAL_MARK if b.get("vertical") else ""
    claimed = b.get("claimed")
    letters = (f"-{b['swapped']}" if b.get("swapped") else "",
               f"+{b['chosen']}" if b.get("chosen") else "")
    one = " ".join(str(x) for x in (mark, place, b["word"],
                                    claimed if claimed is not None else "", *letters)
                   if x != "")
    others = [bulletin_line(a) or "" for a in b.get("alternatives") or ()]
    return " / ".join([one, *others])


def is_answer(entry: DuplicateEntry) -> bool:
    """A bulletin that was read. One that could not be read is no answer — its player was
    told to send it again, corrected, before the close (issue 22 §4)."""
    return bool(entry.bulletin) and not entry.parse_errors


def answered_players(s: Session, rnd: DuplicateRound) -> set[int]:
    """The players whose version that counts (their last on time) was read
    (:func:`is_answer`)."""
    counting = counting_entries(list(s.exec(select(DuplicateEntry).where(
        DuplicateEntry.round_id == rnd.id, col(DuplicateEntry.late).is_(False))).all()))
    return {pid for pid, e in counting.items() if is_answer(e)}


def all_answered(s: Session, game: DuplicateGame, rnd: DuplicateRound) -> bool:
    """Every player's version that counts was read (:func:`answered_players`): « dès que
    tous ont répondu » closes the round then."""
    players = {p.id for p in players_of(s, game)}
    return bool(players) and players <= answered_players(s, rnd)


def scrabble_top_dict(chosen: Any, answers: Sequence[Any], reason: str) -> dict[str, Any]:
    return cast(dict[str, Any], codecs.scrabble_top_dict(chosen, answers, reason))


def verdict_of(r: dict[str, Any]) -> Verdict:
    return codecs.verdict_of(cast(codecs.ResultJSON, r), str(r["player_id"]))


def draw_dict(d: Any) -> dict[str, Any]:
    return cast(dict[str, Any], codecs.draw_dict(d))


def draw_of(d: dict[str, Any]) -> Draw:
    return codecs.draw_of(cast(codecs.DrawJSON, d))


def move_dict(m: Any) -> dict[str, Any]:
    return cast(dict[str, Any], codecs.move_dict(m))


def move_of(d: dict[str, Any]) -> GeneratedMove:
    return codecs.move_of(cast(codecs.MoveJSON, d))


def top_dict(t: Any) -> dict[str, Any]:
    return cast(dict[str, Any], codecs.top_dict(t))


def variant_top_dict(t: Any) -> dict[str, Any]:
    """A ``puzzles.variants.VariantTop`` (:func:`puzzles.duplicate.codecs.variant_top_dict`)."""
    return cast(dict[str, Any], codecs.variant_top_dict(t))


def variant_top_of(d: dict[str, Any]) -> VariantTop:
    return codecs.variant_top_of(cast(codecs.TopJSON, d))


def tactique_top_dict(t: Any) -> dict[str, Any]:
    """A ``puzzles.variants.TactiqueTop`` (:func:`puzzles.duplicate.codecs.tactique_top_dict`)."""
    return cast(dict[str, Any], codecs.tactique_top_dict(t))


def tactique_top_of(d: dict[str, Any]) -> TactiqueTop:
    return codecs.tactique_top_of(cast(codecs.TactiqueTopJSON, d))


def top_letters(top: dict[str, Any] | None) -> str:
    """`` -N +K`` after a variant top (:func:`puzzles.duplicate.codecs.top_letters`)."""
    return codecs.top_letters(cast(codecs.RoundTopJSON | None, top))


def top_of(d: dict[str, Any]) -> TopChoice:
    return codecs.top_of(cast(codecs.TopJSON, d))


def standings(session: Session, game: DuplicateGame) -> list[dict[str, Any]]:
    """The ranking after the published rounds (``puzzles.duplicate.rank_game``: scores +
    solos − warning conversion): rank, name, total, percent of the tops, per-round scores;
    ``tied``: the rank is shared (« ex æquo »)."""
    rows = _standings(session, game)
    shared = Counter(r["rank"] for r in rows)
    for r in rows:
        r["tied"] = shared[r["rank"]] > 1
    return rows


def _standings(session: Session, game: DuplicateGame) -> list[dict[str, Any]]:
    rounds = [r for r in rounds_of(session, game)
              if r.status == RoundStatus.PUBLISHED and r.top is not None]
    names = {p.id: p for p in players_of(session, game)}
    if rounds and game.variant == DuplicateVariant.TOP:
        return top_standings(game, rounds, names)
    if rounds and game.variant == SUPERSCRABBLE:
        return scrabble_standings(game, rounds, names)
    if not rounds:
        return [{"player_id": p.id, "name": p.name, "club": p.club, "rank": 1, "total": 0,
                 "percent": None, "scores": [], "warnings": 0, "solos": 0}
                for p in names.values()]
    results = [dup_rules.RoundResult(round_no=r.number, draw=_round_draw(r), top=_round_top(r),
                               board_cgp=r.grid_after or "",
                               verdicts=tuple(verdict_of(x) for x in r.results))
               for r in rounds]
    per_round = {r.number: {x["player_id"]: x for x in r.results} for r in rounds}
    rows: list[dict[str, Any]] = []
    for row in dup_rules.rank_game(results, duplicate_settings_of(game)):
        pid = int(row.player)
        p = names.get(pid)
        rows.append({
            "player_id": pid, "name": p.name if p else f"joueur n° {pid}",
            "club": p.club if p else "", "rank": row.rank, "total": row.total,
            "percent": round(row.percent_of_tops, 2), "warnings": row.warnings,
            "warning_deduction": row.warning_deduction, "solos": row.solos,
            "scores": [(per_round[r.number].get(pid) or {}).get("score", 0)
                       + (per_round[r.number].get(pid) or {}).get("solo", 0) for r in rounds],
        })
    rows.sort(key=lambda r: (r["rank"], r["name"]))
    return rows


def scrabble_standings(game: DuplicateGame, rounds: Sequence[DuplicateRound],
                       names: dict[int | None, Player]) -> list[dict[str, Any]]:
    """Partie de Superscrabble (``rank_superscrabble``): ``total`` is the valid scrabbles
    less the warning conversion (RULES §5.3)."""
    ranked = variant_rules.rank_superscrabble(
        [[variant_rules.SheetVerdict(str(x["player_id"]), int(x["score"]), int(x.get("invalid", 0)),
                         int(x.get("duplicates", 0)), int(x["warnings"]), x["reason"])
          for x in r.results] for r in rounds], variant_settings_of(game))
    per_round = {r.number: {x["player_id"]: x for x in r.results} for r in rounds}
    rows = []
    for row in ranked:
        pid = int(row.player)
        p = names.get(pid)
        rows.append({
            "player_id": pid, "name": p.name if p else f"joueur n° {pid}",
            "club": p.club if p else "", "rank": row.rank, "total": row.points,
            "percent": None, "warnings": row.warnings, "warning_deduction": row.penalty,
            "solos": 0,
            "scores": [(per_round[r.number].get(pid) or {}).get("score", 0) for r in rounds],
        })
    rows.sort(key=lambda r: (r["rank"], r["name"]))
    return rows


def _round_draw(r: DuplicateRound) -> Any:
    return draw_of(r.draw["groups"][0] if "groups" in r.draw else r.draw)


def _round_top(r: DuplicateRound) -> Any:
    """The round's top as ``rank_game`` reads it (a Tactique: the sum, its first word)."""
    d = r.top or {}
    if "first_group" in d:
        move = move_of(d["first"] or d["second"])
        return dup_rules.TopChoice(move=move, ref=d["ref"], word=d["word"],
                                  score=int(d["score"]))
    return top_of(d)


def top_standings(game: DuplicateGame, rounds: Sequence[DuplicateRound],
                  names: dict[int | None, Player]) -> list[dict[str, Any]]:
    """Duplicate Top (``puzzles.variants.rank_duplicate_top``): ``total`` is the ranking
    points (rounds topped less the warning conversion), then the companions and the total of
    the topped rounds' scores break ties."""
    ranked = variant_rules.rank_duplicate_top(
        [[verdict_of(x) for x in r.results] for r in rounds], variant_settings_of(game))
    per_round = {r.number: {x["player_id"]: x for x in r.results} for r in rounds}
    rows: list[dict[str, Any]] = []
    for row in ranked:
        pid = int(row.player)
        p = names.get(pid)
        rows.append({
            "player_id": pid, "name": p.name if p else f"joueur n° {pid}",
            "club": p.club if p else "", "rank": row.rank, "total": row.points,
            "percent": None, "tops": row.tops, "companions": row.companions,
            "topped_total": row.topped_total, "warnings": row.warnings,
            "warning_deduction": row.penalty, "solos": 0,
            "scores": [(per_round[r.number].get(pid) or {}).get("score", 0) for r in rounds],
        })
    rows.sort(key=lambda r: (r["rank"], r["name"]))
    return rows


def text_grid(cgp: str) -> str:
    return str(Board.from_cgp(cgp).to_ascii())


VARIANT_RULES_FR = {
    "top": "Duplicate Top : chaque tour, le ou les joueurs qui réalisent la meilleure "
           "marque de la salle gagnent un point de classement.",
    "completif": "Complétif : complétez le tirage de 6 lettres par 1 lettre choisie dans le "
                 "stock et nommez-la après le score (« +T »).",
    "superjoker": "Superjoker : complétez le tirage de 5 lettres par 2 lettres choisies dans "
                  "le stock et nommez-les après le score (« +ST »).",
    "metagramme": "Métagramme : vous pouvez échanger une lettre du tirage contre une lettre du "
                  "stock ; nommez la lettre rendue puis la lettre prise (« -N +K »).",
    "elliptique": "Elliptique : 8 lettres sont tirées ; jouez un mot d'au plus 7 d'entre "
                  "elles.",
    SUPERSCRABBLE: "Partie de Superscrabble : trouvez tous les scrabbles du tirage sur la "
                   "grille ; écrivez-les avec leur référence, séparés par des virgules, puis "
                   "« ; » et leur nombre. Un point par scrabble valable ; l'arbitre choisit "
                   "ensuite le scrabble que tous placent.",
    "tactique": "Tactique : deux groupes de lettres ; jouez un mot avec chacun, dans l'ordre "
                "de votre choix, et écrivez les deux mots dans l'ordre où vous les posez, "
                "chacun avec son score, puis leur somme.",
}


BULLETIN_EXAMPLES = {"completif": "H4 RESTAIT 70 +T", "superjoker": "H4 RESTAIT 70 +ST",
                     "metagramme": "H4 KETAMINE 92 -N +K",
                     "tactique": "H4 RESTAIT 70 + 8C MOTS 25 = 95",
                     SUPERSCRABBLE: "H4 RESTAIT, 8C RESTAIT ; 2"}
