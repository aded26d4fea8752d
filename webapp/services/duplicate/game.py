"""The Duplicate's games and their data: the game a row plays (its :class:`~puzzles.duplicate
.protocol.RoundGame`, from the registry), the round rhythm, creating a game, the queries, a
bulletin read, and the running ranking. What differs between the games — their facts, draws,
tops, bulletins, correction and ranking — is the game's (``puzzles.duplicate.games``); this
module stores and asks. The lowest module of the package: the others (notices, correction,
bulletins, steps) build on it."""

from __future__ import annotations

import logging
import secrets
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, time, timedelta
from typing import NotRequired, cast
from zoneinfo import ZoneInfo

import sqlalchemy as sa
from flask import current_app, has_app_context
from sqlmodel import Session, col, select

from puzzles.duplicate import DuplicateSettings, Lang, secret_bag, shuffled_bag
from puzzles.duplicate.codecs import AnyBulletinJSON
from puzzles.duplicate.protocol import GameSettings, RoundGame, StandingJSON, SuperscrabbleSpec
from puzzles.duplicate.registry import round_game
from puzzles.seeds import MAX_SEED, new_secret_seed
from puzzles.variants import VariantSettings
from scoring.board import Board
from scoring.config import GameConfig
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
from webapp.services import audit, changes, inputs, links
from webapp.services.lexicons import base_lexicon
from webapp.services.stored import (
    Rhythm,
    game_settings_of,
    rhythm_of,
    round_record_of,
)

log = logging.getLogger("webapp.services.duplicate")


WEEKDAYS_FR = ("lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche")


RHYTHM_KINDS = ("hours", "weekdays", "all_answered", "live")

#: the largest seed an arbitre may give (a replay's or a test's; 2**128 − 1, the width of a
#: secret seed): wider would only look safer, a given seed is predictable whatever its size
MAX_GIVEN_SEED = MAX_SEED


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


def game_of(game: DuplicateGame) -> RoundGame:
    """The round game ``game`` plays: its facts and its rules (``puzzles.duplicate
    .registry``)."""
    return round_game(game.variant)


def label_of(variant: str) -> str:
    """The French name of a game of this variant (« Duplicate Complétif »)."""
    return round_game(variant).label


def variant_label(game: DuplicateGame) -> str:
    return game_of(game).label


def config_of(game: DuplicateGame) -> GameConfig:
    """The engine configuration: the game's tiles and its word list (checked against the
    identity recorded at creation, as problems are)."""
    return GameConfig(tileset=tileset(game.lang), lexicon=base_lexicon(game))


def draw_bag_order(lang: Lang, seed: int) -> str:
    """The whole bag in the order a *given* ``seed`` draws it (``puzzles.duplicate
    .shuffled_bag``, reproducible by anyone who knows the seed: replays and tests)."""
    return "".join(shuffled_bag(lang, seed))


def secret_bag_order(lang: Lang, seed: int) -> str:
    """The whole bag in the order a secret 128-bit ``seed`` draws it
    (``puzzles.duplicate.secret_bag``): a default game's bag."""
    return "".join(secret_bag(lang, seed))


def live_minutes(variant: str) -> int:
    """The time of a round played live (rhythm ``live``): the game's (6 min for the
    Tactique, RULES §9.1; 3 otherwise, FISF 3.3; RULES §9: the variants' time is
    INFERRED)."""
    return round_game(variant).live_minutes


def _as_int(value: object) -> int:
    """``int(value)`` of what a form or a stored rhythm holds; ``TypeError`` otherwise."""
    if isinstance(value, (int, float, str)):
        return int(value)
    raise TypeError(f"not a number: {value!r}")


def check_rhythm(rhythm: Mapping[str, object], timezone: str) -> Rhythm:
    """The rhythm, normalised; :class:`DuplicateError` in French when it cannot work.
    ``{"kind": "live", "minutes": 6, "mails": False}``: played live, each round closes
    ``minutes`` after its draw and the next is drawn as soon as the results are out;
    ``mails`` (INFERRED, off): no draw or results mail each round (a round every few minutes
    must not flood the players' mailboxes; the page is the game), the final ranking is
    mailed all the same."""
    kind = str(rhythm.get("kind"))
    if kind not in RHYTHM_KINDS:
        raise DuplicateError("Rythme des tours inconnu : choisissez « toutes les N heures », "
                             "« jours fixes », « dès que tous ont répondu » ou « en direct ».")
    try:
        inputs.zone_of(timezone)
    except ValueError as exc:
        raise DuplicateError(str(exc)) from None
    if kind == "live":
        try:
            minutes = _as_int(rhythm.get("minutes", 0))
        except (TypeError, ValueError):
            minutes = 0
        if not 1 <= minutes <= 180:
            raise DuplicateError("En direct, le temps d'un tour est un nombre de minutes entre 1 "
                                 "et 180.")
        return {"kind": kind, "minutes": minutes, "mails": rhythm.get("mails") is True}
    if kind in ("hours", "all_answered"):
        try:
            hours = _as_int(rhythm.get("hours", 0))
        except (TypeError, ValueError):
            hours = 0
        if not 1 <= hours <= 24 * 60:
            raise DuplicateError("Le délai d'un tour doit être un nombre d'heures entre 1 et "
                                 "1440.")
        return {"kind": kind, "hours": hours}
    try:
        days = sorted({_as_int(d) for d in cast(Iterable[object], rhythm.get("days", []))})
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


def deadline_after(rhythm: Rhythm, opens_at: datetime, timezone: str) -> datetime:
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
    return rhythm_of(game).get("kind") == "live"


def round_mails(game: DuplicateGame) -> bool:
    """Each round's draw and results are mailed: always by correspondence; live only with
    the rhythm's ``mails`` setting."""
    return not is_live(game) or rhythm_of(game).get("mails") is True


def describe_rhythm(rhythm: Rhythm) -> str:
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
    settings: DuplicateSettings | VariantSettings,
    rhythm: Mapping[str, object],
    starts_at: datetime,
    code: str | None = None,
    lexicon_name: str = "default",
    timezone: str = DEFAULT_TIMEZONE,
    seed: int | None = None,
    review_minutes: int = 0,
    bag_order: str | None = None,
    actor: str = audit.SYSTEM,
    variant: DuplicateVariant | str = DuplicateVariant.PLAIN,
    superscrabble: Mapping[str, object] | None = None,
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
    checked = check_rhythm(rhythm, timezone)
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
    if checked["kind"] == "live" and review_minutes:
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
    rules = round_game(variant)
    spec = superscrabble or {}
    game_settings = GameSettings.build(variant, settings, SuperscrabbleSpec(
        str(spec.get("start", "")), tuple(str(r) for r in cast(Iterable[object],
                                                                spec.get("racks", [])))))
    lang = game_settings.duplicate.lang
    # the bag (docs/DUPLICATE.md « Le sac »): a fresh secret seed unless the arbitre gives
    # one (marked as such: anyone who knows it knows the draws) or gives the whole bag
    if bag_order is not None:
        seed, source, bag = 0, SeedSource.BAG, bag_order
    elif seed is None:
        seed, source = new_secret_seed(), SeedSource.SECRET
        bag = secret_bag_order(lang, seed)
    else:
        seed, source = int(seed), SeedSource.GIVEN
        if not 0 <= seed <= MAX_GIVEN_SEED:
            raise DuplicateError(f"Graine du sac : de 0 à {MAX_GIVEN_SEED}.")
        bag = draw_bag_order(lang, seed)
    assert competition.id is not None
    game = DuplicateGame(
        code=code, competition_id=competition.id, title=title.strip(), lang=lang,
        lexicon_name=lexicon_name, settings=game_settings.to_stored(), rhythm=dict(checked),
        variant=variant,
        seed=seed, seed_source=source, bag_order=bag, state_text="", timezone=timezone,
        review_minutes=review_minutes, starts_at=starts_at, status=DuplicateStatus.SCHEDULED,
    )
    # the word list must load now, not at round 1
    game.lexicon_sha256 = base_lexicon(game).identity.sha256
    config = config_of(game)
    try:  # the bag must be the set, the game's own data right (the Superscrabble's start)
        game.state_text = rules.initial(game_settings, bag, config)
        game_settings = rules.prepare(game_settings, config)
    except ValueError as exc:  # puzzles.duplicate.DuplicateError
        raise DuplicateError(str(exc)) from None
    game.settings = game_settings.to_stored()
    session.add(game)
    session.flush()
    audit.record(session=session, actor=actor, action="duplicate.create", target=code,
                 seed=str(seed), seed_source=source, rhythm=checked,
                 starts_at=starts_at.isoformat(),
                 settings=game.settings, lexicon=lexicon_name, variant=variant)
    return game


#: the first key of the Duplicate games' advisory locks (PostgreSQL's two-key form; the
#: second key is the game's id): « DUP1 »
LOCK_SPACE = 0x44555031


def lock_game(session: Session, game_id: int, *, shared: bool = False) -> DuplicateGame | None:
    """Lock the game's row until the end of the transaction and return it: ``shared`` (a
    bulletin being stored: ``FOR SHARE``, many at once) or not (a scheduled step, the
    console's re-correction: ``FOR UPDATE``, alone).

    On PostgreSQL a transaction-scoped advisory lock on (:data:`LOCK_SPACE`, id) is taken
    first, in the same mode. The row lock alone is not fair: a new ``FOR SHARE`` is granted
    beside the ones held even while a ``FOR UPDATE`` waits, so under a steady stream of
    bulletins (a deadline rush, late bulletins after the close) the round's close could wait
    as long as the stream lasts. The advisory lock queues in arrival order: once a step
    waits, the bulletins that come after it wait behind it, and it runs as soon as those
    already in are stored. SQLite has one writer at a time: nothing to queue."""
    if session.get_bind().dialect.name == "postgresql":
        take = sa.func.pg_advisory_xact_lock_shared if shared else sa.func.pg_advisory_xact_lock
        session.execute(sa.select(take(LOCK_SPACE, game_id)))
    if shared:
        session.exec(select(DuplicateGame.id).where(DuplicateGame.id == game_id)
                     .with_for_update(read=True)).first()
        return session.get(DuplicateGame, game_id)
    return session.get(DuplicateGame, game_id, with_for_update=True)


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
    return links.absolute("duplicate", game.code)


def schedule_changed(session: Session) -> None:
    """Move the scheduler's change counter in this transaction (``changes.bump``): the
    leader sees it within ``SCHEDULER_POLL_SECONDS`` and runs what is due."""
    changes.bump(session.connection())


def first_line(text: str) -> str:
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "")


def parse_text(text: str, variant: str = "") -> tuple[list[str], AnyBulletinJSON | None]:
    """The bulletin is the first non-empty line (a mail's signature below it is ignored);
    when the text has several, its reasons name that line (« Ligne 2 : … »). The game's
    parser (``RoundGame.parse``) answers every line with a bulletin or French reasons
    (the parsers' fuzzers: tests/puzzles/test_bulletin_fuzz.py); should one raise all the
    same, the bulletin is kept as unreadable, for the arbitre, with a French reason."""
    rules = round_game(variant)
    line = first_line(text)
    if not line:
        return [f"Bulletin vide : écrivez une ligne, par exemple « {rules.bulletin_example} »."
                ], None
    try:
        parsed = rules.parse(line)
    except Exception:  # the parser must never cost a player his bulletin
        log.exception("parse_bulletin raised")
        return ["Bulletin illisible : il est conservé et l'arbitre l'examinera."], None
    if isinstance(parsed, list):
        lines = [ln for ln in text.splitlines() if ln.strip()]
        if len(lines) == 1:
            return [str(e) for e in parsed], None
        number = next(k for k, ln in enumerate(text.splitlines(), 1) if ln.strip())
        return [f"Ligne {number} : {e}" for e in parsed], None
    return [], parsed


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


class StandingRow(StandingJSON):
    """A ranking row of a game as the pages and mails show it: the game's row
    (:class:`~puzzles.duplicate.protocol.StandingJSON`, its ``player`` key replaced by
    ``player_id``) with the player's ``name`` and ``club``; ``tied``: the rank is shared
    (« ex æquo »)."""

    player_id: int
    name: str
    club: str
    tied: NotRequired[bool]


def standings(session: Session, game: DuplicateGame) -> list[StandingRow]:
    """The ranking after the published rounds (the game's ``rank``: the Duplicate's scores
    + solos − warning conversion, the Top's rounds topped, the Superscrabble's valid
    scrabbles): rank, name, total, percent of the tops, per-round scores; ``tied``: the
    rank is shared (« ex æquo »)."""
    rows = _standings(session, game)
    shared = Counter(r["rank"] for r in rows)
    for r in rows:
        r["tied"] = shared[r["rank"]] > 1
    return rows


def _standings(session: Session, game: DuplicateGame) -> list[StandingRow]:
    rounds = [r for r in rounds_of(session, game)
              if r.status == RoundStatus.PUBLISHED and r.top is not None]
    names = {p.id: p for p in players_of(session, game)}
    if not rounds:
        return [{"player_id": p.id or 0, "name": p.name, "club": p.club, "rank": 1,
                 "total": 0, "percent": None, "scores": [], "warnings": 0, "solos": 0}
                for p in names.values()]
    rows: list[StandingRow] = []
    for row in game_of(game).rank([round_record_of(r) for r in rounds],
                                  game_settings_of(game)):
        pid = int(row["player"])
        p = names.get(pid)
        rest = {k: v for k, v in row.items() if k != "player"}
        rows.append(cast(StandingRow, {
            "player_id": pid, "name": p.name if p else f"joueur n° {pid}",
            "club": p.club if p else "", **rest}))
    rows.sort(key=lambda r: (r["rank"], r["name"]))
    return rows


def text_grid(cgp: str) -> str:
    return str(Board.from_cgp(cgp).to_ascii())
