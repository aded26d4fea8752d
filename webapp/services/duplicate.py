"""The FISF Duplicate by correspondence: games stored round by round, driven by the scheduler.

A :class:`~webapp.models.DuplicateGame` is played by the players registered in its
competition. Each round is one :class:`~webapp.models.DuplicateRound` row: the draw, the master
grid before and after, the retained top, the corrected results. Bulletins are
:class:`~webapp.models.DuplicateEntry` rows (every version kept; the one that counts is the
last received on time; late ones are kept and flagged).

:func:`advance` moves one game forward, one step per transaction, each step guarded by the
round's (or game's) status under the game row lock, every mail through the outbox's
``dedupe_key``; so running it twice, in two processes, or after a long downtime is safe:

    scheduled ──starts_at──► draw round 1 (open) ──deadline──► closed ──► corrected
        ──review_minutes──► published (top placed, results mailed) ──► draw round n+1 …
        ──last round──► finished (final ranking mailed)

The game rules (draws, top, correction, solos, ranking) are ``puzzles.duplicate``'s; this
module stores, schedules and mails.

Variants (``DuplicateGame.variant``, docs/VARIANTS.md): the same rounds and steps, the rules
of ``puzzles.variants``: Duplicate Top (plain rounds, no solo, ranked by rounds topped:
``rank_duplicate_top``) and the letter-choice variants Complétif, Superjoker, Métagramme and
Elliptique (``draw_variant``, ``variant_top``, ``parse_free_bulletin``,
``correct_free_round``, ``apply_variant_top``; the draw stores the stock the players choose
from, the bulletin names the chosen letters: ``H4 RESTAIT 70 +T``, ``-N +K``), and
Tactique (two groups per round, ``draw_tactique``, ``tactique_top``, the two-word billet
``H4 RESTAIT 70 + 8C MOTS 25 = 95`` corrected by ``correct_tactique``; the stored state is
the Duplicate state plus the groups' reliquats, :func:`tactique_text`), and the Partie de
Superscrabble (RULES §7.7: the arbitre's 2-letter word and racks, stored in
``settings["superscrabble"]``; each sheet lists scrabbles with references and their count,
``correct_scrabble_sheet``; the engine's choice, ``choose_scrabble``, is placed unless the
arbitre retains another; ranked by ``rank_superscrabble``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import secrets
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import sqlalchemy as sa
from flask import current_app, has_app_context
from sqlmodel import Session, col, select

import puzzles.duplicate as engine_module
import puzzles.variants as variants_module
from puzzles.duplicate import Bulletin, Draw, TopChoice, Verdict
from puzzles.variants import FreeMove, TactiqueState, TactiqueTop, VariantTop
from scoring.board import Board
from scoring.config import GameConfig
from scoring.move import Placement
from scoring.movegen import GeneratedMove, generate
from scoring.notation import format_ref, parse_ref
from scoring.tiles import tileset
from webapp.db import session_scope
from webapp.models import (
    DEFAULT_TIMEZONE,
    Channel,
    Competition,
    DuplicateEntry,
    DuplicateGame,
    DuplicateRound,
    DuplicateStatus,
    DuplicateVariant,
    OutboxKind,
    Player,
    Problem,
    ProblemStatus,
    Registration,
    RoundStatus,
)
from webapp.services import audit, changes, notify
from webapp.services.audit import PROCESS
from webapp.services.stored import duplicate_settings_of, variant_settings_of
from webapp.services.timefmt import format_local
from webapp.services.verification import base_lexicon

log = logging.getLogger(__name__)

WEEKDAYS_FR = ("lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche")
RHYTHM_KINDS = ("hours", "weekdays", "all_answered", "live")
#: outbox kinds of the Duplicate notices (the receipt is an ordinary ``receipt``)
KIND_DRAW, KIND_RESULTS, KIND_FINAL = (
    OutboxKind.DUPLICATE_DRAW, OutboxKind.DUPLICATE_RESULTS, OutboxKind.DUPLICATE_FINAL)
KIND_CORRECTED = OutboxKind.DUPLICATE_CORRECTED


class DuplicateError(ValueError):
    """A French message for the arbitre or the player; nothing was changed."""


# --- the engine, behind a few functions -------------------------------------------------------


def engine() -> Any:
    return engine_module


#: the variants this server plays (``DuplicateGame.variant``; "" is the plain Duplicate)
SERVER_VARIANTS = tuple(v for v in DuplicateVariant if v)
SUPERSCRABBLE = DuplicateVariant.SUPERSCRABBLE
#: the variants whose players take letters from the stock (their bulletin names them)
FREE_VARIANTS = (DuplicateVariant.COMPLETIF, DuplicateVariant.SUPERJOKER,
                 DuplicateVariant.METAGRAMME, DuplicateVariant.ELLIPTIQUE)


def variants() -> Any:
    return variants_module


def label_of(variant: str) -> str:
    if not variant:
        return "Duplicate"
    if variant == SUPERSCRABBLE:
        return "Partie de Superscrabble"
    return str(variants().VARIANTS.get(variant, variant))


def variant_label(game: DuplicateGame) -> str:
    return label_of(game.variant)


def is_free(game: DuplicateGame) -> bool:
    return game.variant in FREE_VARIANTS


def tactique_text(ts: Any) -> str:
    """A ``puzzles.variants.TactiqueState`` as stored: JSON of the Duplicate state's text and
    the two groups' reliquats."""
    return json.dumps({"tactique": list(ts.reliquats), "state": ts.game.to_text()},
                      ensure_ascii=False)


def tactique_of(text: str) -> TactiqueState:
    """The Tactique master game ``state_text``/``state_before`` hold (:func:`tactique_text`)."""
    data = json.loads(text)
    return TactiqueState(engine_module.GameState.from_text(data["state"]),
                         tuple(data["tactique"]))


def config_of(game: DuplicateGame) -> Any:
    """The engine configuration: the game's tiles and its word list (checked against the
    identity recorded at creation, as problems are)."""
    # base_lexicon reads lexicon_name, lexicon_sha256 and code, which a game has too
    lex = base_lexicon(game)  # type: ignore[arg-type]
    return GameConfig(tileset=tileset(game.lang), lexicon=lex)


def draw_bag_order(lang: str, seed: int) -> str:
    """The whole bag in the order it will be drawn, from a RNG seeded with ``seed`` (stored
    with the game, so the draws can be replayed): ``puzzles.duplicate.shuffled_bag``."""
    return "".join(engine().shuffled_bag(lang, seed))


# --- the round rhythm ------------------------------------------------------------------------


def live_minutes(variant: str) -> int:
    """The time of a round played live (rhythm ``live``): 6 min for the Tactique (RULES §9.1,
    « Temps de réflexion: 6 minutes par coup »), 3 min otherwise (FISF 3.3, « trois minutes
    par coup »; RULES §9: the variants' time is INFERRED)."""
    return 6 if variant == "tactique" else 3


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
        ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise DuplicateError(f"Fuseau horaire inconnu : « {timezone} ».") from None
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
    if rhythm.get("kind") == "hours":
        return f"un tour toutes les {rhythm['hours']} heures"
    if rhythm.get("kind") == "all_answered":
        return (f"tour suivant dès que tous les joueurs ont répondu, au plus tard "
                f"{rhythm['hours']} heures après le tirage")
    days = ", ".join(WEEKDAYS_FR[d] for d in rhythm.get("days", []))
    return f"clôture chaque {days} à {rhythm.get('time')}"


# --- creating a game -------------------------------------------------------------------------


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
    order is drawn from ``seed`` (random when not given), or given whole as ``bag_order``
    (a recorded game replayed; ``seed`` is then 0). ``variant``: one of
    :data:`SERVER_VARIANTS`, ``settings`` then a ``VariantSettings`` (or a
    ``DuplicateSettings``, taken as the variant's Duplicate settings). A Partie de
    Superscrabble takes ``superscrabble={"start": "H7 LA", "racks": ["RETAINS", …]}``."""
    if starts_at.tzinfo is None:
        raise ValueError("starts_at must be timezone-aware")
    rhythm = check_rhythm(rhythm, timezone)
    if not title.strip():
        raise DuplicateError("Donnez un titre à la partie.")
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
        vs = variants().VariantSettings
        own = "top" if variant == SUPERSCRABBLE else variant
        if not isinstance(settings, vs):
            settings = vs(variant=own, duplicate=settings)
        elif settings.variant != own:
            settings = replace(settings, variant=own)
    dup_settings = settings.duplicate if variant else settings
    lang = dup_settings.lang
    if bag_order is not None:
        seed, bag = 0, bag_order
    else:
        seed = secrets.randbits(31) if seed is None else int(seed)
        bag = draw_bag_order(lang, seed)
    assert competition.id is not None
    game = DuplicateGame(
        code=code, competition_id=competition.id, title=title.strip(), lang=lang,
        lexicon_name=lexicon_name, settings=_as_dict(settings.to_json()), rhythm=rhythm,
        variant=variant,
        seed=seed, bag_order=bag, state_text="", timezone=timezone,
        review_minutes=review_minutes, starts_at=starts_at, status=DuplicateStatus.SCHEDULED,
    )
    config = config_of(game)  # the word list must load now, not at round 1
    game.lexicon_sha256 = config.lexicon.identity.sha256
    try:
        game.state_text = engine().GameState.initial(dup_settings, bag).to_text()
        if variant == "tactique":
            game.state_text = tactique_text(variants().TactiqueState(
                engine().GameState.from_text(game.state_text)))
        if variant == SUPERSCRABBLE:
            spec, game.state_text = superscrabble_start(superscrabble or {}, config)
            game.settings = {**game.settings, SUPERSCRABBLE: spec}
    except ValueError as exc:  # puzzles.duplicate.DuplicateError: a bag that is not the set
        raise DuplicateError(str(exc)) from None
    session.add(game)
    session.flush()
    audit.record(session=session, actor=actor, action="duplicate.create", target=code,
                 seed=seed, rhythm=rhythm, starts_at=starts_at.isoformat(),
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


# --- queries ---------------------------------------------------------------------------------


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


# --- bulletins -------------------------------------------------------------------------------


@dataclass
class BulletinOutcome:
    entry: DuplicateEntry
    round: DuplicateRound
    late: bool
    errors: list[str]


def submit_bulletin(
    *,
    session: Session,
    player: Player,
    game: DuplicateGame,
    text: str,
    channel: Channel,
    received_at: datetime,
    inbound_message_id: int | None = None,
    in_reply_to: str | None = None,
) -> BulletinOutcome:
    """Store one bulletin for the round in progress at ``received_at`` (raw text first),
    parse it, flag it late when received after the round's deadline, enqueue its receipt.
    Does not commit. :class:`DuplicateError` (French) when no round has been drawn yet or
    the player is not registered."""
    if received_at.tzinfo is None:
        raise ValueError("received_at must be timezone-aware")
    assert player.id is not None and game.id is not None
    registered = session.exec(select(Registration.id).where(
        Registration.competition_id == game.competition_id,
        Registration.player_id == player.id)).first()
    if registered is None:
        raise DuplicateError(f"Vous n'êtes pas inscrit à la partie « {game.title} » "
                             f"({game.code}).")
    # A shared lock on the game row (PostgreSQL): a scheduled step (which takes it FOR UPDATE)
    # waits until this bulletin is in, so a correction never misses an on-time bulletin
    # still being written.
    session.exec(select(DuplicateGame.id).where(DuplicateGame.id == game.id)
                 .with_for_update(read=True)).first()
    rnd = session.exec(
        select(DuplicateRound).where(DuplicateRound.game_id == game.id,
                                     DuplicateRound.opens_at <= received_at)
        .order_by(col(DuplicateRound.number).desc()).limit(1)
    ).first()
    if rnd is None:
        raise DuplicateError(
            f"La partie « {game.title} » ({game.code}) n'a pas encore commencé : le premier "
            f"tirage sera publié le {format_local(game.starts_at, game.timezone)}.")
    # serialise two bulletins of one player (web and mail at once) before reading the version
    session.execute(sa.update(Player).where(col(Player.id) == player.id)
                    .values(bounce_count=Player.bounce_count))
    last = session.exec(
        select(DuplicateEntry).where(DuplicateEntry.round_id == rnd.id,
                                     DuplicateEntry.player_id == player.id)
        .order_by(col(DuplicateEntry.version).desc()).limit(1)
    ).first()
    late = received_at > rnd.closes_at
    entry = DuplicateEntry(
        round_id=rnd.id or 0, player_id=player.id, version=(last.version + 1) if last else 1,
        channel=channel, received_at=received_at, raw_text=text,
        sha256=hashlib.sha256(text.encode("utf-8")).hexdigest(), late=late,
        inbound_message_id=inbound_message_id,
    )
    session.add(entry)
    session.flush()  # the raw text is in before anything that could fail
    errors, bulletin = _parse(text, game.variant)
    entry.parse_errors, entry.bulletin = errors, bulletin
    session.add(entry)
    audit.record(session=session, actor=f"player:{player.id}", action="duplicate.bulletin",
                 target=f"duplicate_entry:{entry.id}", game=game.code, round=rnd.number,
                 version=entry.version, channel=channel, late=late, errors=len(errors))
    headers = {"In-Reply-To": in_reply_to, "References": in_reply_to} if in_reply_to else {}
    notify.enqueue(
        session=session, kind=OutboxKind.RECEIPT, to_addr=player.email,
        template="duplicate_receipt",
        context={
            "player_name": player.name, "game_title": f"{game.title} ({game.code})",
            "round_no": rnd.number, "rack": rnd.draw.get("rack", ""),
            "received_at": format_local(received_at, game.timezone, seconds=True),
            "deadline": format_local(rnd.closes_at, game.timezone, seconds=True),
            "late": late, "channel": channel, "bulletin": _bulletin_line(bulletin),
            "errors": errors, "text": text, "replaces_previous": last is not None,
            "entry_ref": f"n° {entry.id}, version {entry.version}", "sha256": entry.sha256,
            "game_url": game_url(game),
        },
        dedupe_key=f"duplicate_receipt:{entry.id}", fresh_key=True, player_id=player.id,
        headers=headers,
    )
    session.flush()
    if (not late and rnd.status == RoundStatus.OPEN
            and game.rhythm.get("kind") == "all_answered" and _all_answered(session, game, rnd)):
        # the last awaited bulletin: the round closes early, so the scheduler's leader (in
        # whichever process) must replan now, not at the deadline (webapp.services.changes)
        schedule_changed(session)
    if not late and rnd.status != RoundStatus.OPEN:
        # received on time, stored after the close (a slow request): it still counts
        if rnd.status == RoundStatus.CORRECTED:
            rnd.results = compute_results(session, game, rnd)
            session.add(rnd)
        audit.record(session=session, actor=audit.SYSTEM, action="duplicate.bulletin_after_close",
                     target=f"duplicate_entry:{entry.id}", game=game.code, round=rnd.number,
                     status=rnd.status, recorrected=rnd.status == RoundStatus.CORRECTED)
    return BulletinOutcome(entry=entry, round=rnd, late=late, errors=errors)


def schedule_changed(session: Session) -> None:
    """Move the scheduler's change counter in this transaction (``changes.bump``): the
    leader sees it within ``SCHEDULER_POLL_SECONDS`` and runs what is due."""
    changes.bump(session.connection())


def _first_line(text: str) -> str:
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "")


def parse_line(variant: str, line: str) -> Any:
    """The variant's bulletin parser: ``puzzles.duplicate.parse_bulletin``, or for the
    letter-choice variants ``puzzles.variants.parse_free_bulletin`` (``+T``, ``-N +K``)."""
    if variant in FREE_VARIANTS:
        return variants().parse_free_bulletin(line)
    if variant == "tactique":
        return variants().parse_tactique_billet(line)
    if variant == SUPERSCRABBLE:
        return variants().parse_scrabble_sheet(line)
    return engine().parse_bulletin(line)


def _parse(text: str, variant: str = "") -> tuple[list[str], dict[str, Any] | None]:
    """The bulletin is the first non-empty line (a mail's signature below it is ignored)."""
    line = _first_line(text)
    if not line:
        example = BULLETIN_EXAMPLES.get(variant, "H4 RESTAIt 70")
        return [f"Bulletin vide : écrivez une ligne, par exemple « {example} »."], None
    try:
        parsed = parse_line(variant, line)
    except Exception:  # the parser must never cost a player his bulletin
        log.exception("parse_bulletin raised")
        return ["Erreur interne à la lecture du bulletin ; il est conservé et l'arbitre "
                "l'examinera."], None
    if isinstance(parsed, list):
        return [str(e) for e in parsed], None
    if variant in FREE_VARIANTS:
        return [], {**bulletin_dict(parsed.bulletin), "chosen": parsed.chosen,
                    "swapped": parsed.swapped}
    if variant == SUPERSCRABBLE:
        return [], {"entries": [list(e) for e in parsed.entries], "count": parsed.count}
    if variant == "tactique":
        return [], {"first": bulletin_dict(parsed.first),
                    "second": bulletin_dict(parsed.second) if parsed.second else None,
                    "total": parsed.total}
    return [], bulletin_dict(parsed)


def bulletin_dict(b: Any) -> dict[str, Any]:
    return {"word": b.word, "ref": b.ref, "raccord": getattr(b, "raccord", None),
            "claimed": b.claimed}


def bulletin_of(d: dict[str, Any], player: str, received_at: datetime | None) -> Bulletin:
    return Bulletin(player=player, word=d["word"], ref=d.get("ref"),
                    raccord=d.get("raccord"), claimed=d.get("claimed"),
                    received_at=received_at)


def _bulletin_line(b: dict[str, Any] | None) -> str | None:
    if not b:
        return None
    if "entries" in b:  # a Superscrabble sheet
        listed = ", ".join(f"{r} {w}" for r, w in b["entries"])
        return listed + (f" ; {b['count']}" if b.get("count") is not None else "")
    if "first" in b:  # a Tactique billet
        words = " + ".join(x for x in (_bulletin_line(b["first"]), _bulletin_line(b["second"]))
                           if x)
        return words + (f" = {b['total']}" if b.get("total") is not None else "")
    place = b.get("ref") or (f"raccord {b['raccord']}" if b.get("raccord") else "")
    claimed = b.get("claimed")
    letters = (f"-{b['swapped']}" if b.get("swapped") else "",
               f"+{b['chosen']}" if b.get("chosen") else "")
    return " ".join(str(x) for x in (place, b["word"], claimed if claimed is not None else "",
                                     *letters) if x != "")


def claim_mail(*, session: Session, player: Player, subject: str, text: str,
               received_at: datetime, inbound_message_id: int | None,
               in_reply_to: str | None) -> BulletinOutcome | None:
    """The mail pipeline's hook: when the message is a bulletin for a running Duplicate (its
    code in the subject, or the player is in exactly one running Duplicate and no open problem
    is named), store it and return the outcome; otherwise ``None`` (the sheet path goes on)."""
    games = list(session.exec(
        select(DuplicateGame)
        .join(Registration, col(Registration.competition_id) == col(DuplicateGame.competition_id))
        .where(Registration.player_id == player.id,
               col(DuplicateGame.status).in_((DuplicateStatus.RUNNING,
                                              DuplicateStatus.FINISHED)))
        .order_by(col(DuplicateGame.id))
    ).all())
    if not games:
        return None
    words = {w.upper() for w in re.findall(r"[\w-]+", subject or "")}
    named = [g for g in games if g.code.upper() in words]
    if len(named) == 1:
        game = named[0]
    else:
        # no code in the subject: a message whose first line reads as a bulletin, from a
        # player in exactly one running Duplicate, naming no problem that takes sheets
        if named or words & {c.upper() for c in session.exec(select(Problem.code).where(
                col(Problem.status).in_((ProblemStatus.OPEN, ProblemStatus.CLOSED)))).all()}:
            return None
        running = [g for g in games if g.status == DuplicateStatus.RUNNING]
        line = _first_line(text)
        if (len(running) != 1 or not line
                or isinstance(parse_line(running[0].variant, line), list)):
            return None
        game = running[0]
    return submit_bulletin(session=session, player=player, game=game, text=text.strip(),
                           channel=Channel.EMAIL, received_at=received_at,
                           inbound_message_id=inbound_message_id, in_reply_to=in_reply_to)


# --- the scheduled steps ---------------------------------------------------------------------


def run_due(*, now: datetime) -> list[str]:
    """Every due step of every unfinished game; ``"<action>:<code>:<round>"`` per step."""
    with session_scope() as s:
        ids = list(s.exec(select(DuplicateGame.id).where(
            col(DuplicateGame.status).in_((DuplicateStatus.SCHEDULED, DuplicateStatus.RUNNING))
        ).order_by(col(DuplicateGame.id))).all())
    done: list[str] = []
    for gid in ids:
        assert gid is not None
        try:
            done += advance(gid, now=now)
        except Exception:
            log.exception("duplicate %s: scheduled step failed", gid)
    return done


def advance(game_id: int, *, now: datetime, max_steps: int = 10_000) -> list[str]:
    """Do the due steps of one game, each in its own transaction (game row locked)."""
    done: list[str] = []
    for _ in range(max_steps):
        with session_scope() as s:
            game = s.get(DuplicateGame, game_id, with_for_update=True)
            if game is None:
                return done
            step = next_step(s, game, now)
            if step is None:
                return done
            name, number = step(s, game, now)
            audit.record(session=s, actor=audit.SYSTEM, action=f"duplicate.{name}",
                         target=game.code, round=number, at=now.isoformat(), process=PROCESS)
            done.append(f"{name}:{game.code}:{number}")
    return done


def next_step(s: Session, game: DuplicateGame, now: datetime) -> Any:
    if game.status == DuplicateStatus.FINISHED:
        return None
    rnd = current_round(s, game)
    if rnd is None:
        return draw_next if now >= game.starts_at else None
    if rnd.status == RoundStatus.OPEN:
        if now >= rnd.closes_at or (game.rhythm.get("kind") == "all_answered"
                                    and _all_answered(s, game, rnd)):
            return close_round
        return None
    if rnd.status == RoundStatus.CLOSED:
        return correct_round
    if rnd.status == RoundStatus.CORRECTED:
        assert rnd.closed_at is not None
        if now >= rnd.closed_at + timedelta(minutes=game.review_minutes):
            return publish_round
        return None
    # published: the next draw (which ends the game when the bag or the rounds are over)
    return draw_next


def _all_answered(s: Session, game: DuplicateGame, rnd: DuplicateRound) -> bool:
    players = {p.id for p in players_of(s, game)}
    answered = set(s.exec(select(DuplicateEntry.player_id).where(
        DuplicateEntry.round_id == rnd.id, col(DuplicateEntry.late).is_(False))).all())
    return bool(players) and players <= answered


def draw_next(s: Session, game: DuplicateGame, now: datetime) -> tuple[str, int]:
    """Draw round n+1 on the master game and open it at ``now`` (a server that was down
    opens it when it comes back, so the players still get a whole round); or end the game
    (RULES §4.9: bag over, no vowel or consonant left, the round limit reached)."""
    eng = engine()
    settings = duplicate_settings_of(game)
    config = config_of(game)
    last = current_round(s, game)
    number = (last.number + 1) if last else 1
    if game.variant == DuplicateVariant.TACTIQUE:
        return _draw_tactique(s, game, now, number)
    if game.variant == SUPERSCRABBLE:
        return _draw_superscrabble(s, game, now, number)
    state = eng.GameState.from_text(game.state_text)
    top: Any
    if is_free(game):  # the variant's number of letters; the top over every choice
        vs = variant_settings_of(game)
        draw, state = variants().draw_variant(state, vs)
        top = None if draw is None else variants().variant_top(state, draw.rack, config, vs)
    else:
        draw, state = eng.draw_round(state, settings, config=config)
        top = None if draw is None else eng.find_top(state, draw.rack, config,
                                                     round_no=number, settings=settings)
    if draw is None or top is None:
        game.state_text = state.to_text()
        return finish(s, game, now)
    rnd = DuplicateRound(
        game_id=game.id or 0, number=number, opens_at=now,
        closes_at=deadline_after(game.rhythm, now, game.timezone), status=RoundStatus.OPEN,
        draw=draw_dict(draw), state_before=state.to_text(), grid_before=state.board_cgp,
        top=variant_top_dict(top) if is_free(game) else top_dict(top),
    )
    if is_free(game):  # what the players choose from
        rnd.draw = {**rnd.draw, "stock": "".join(sorted(state.bag))}
    return _open_round(s, game, rnd, number)



def _open_round(s: Session, game: DuplicateGame, rnd: DuplicateRound,
                number: int) -> tuple[str, int]:
    """Store a freshly drawn round, mark the game running, send the draw notices."""
    s.add(rnd)
    if game.status == DuplicateStatus.SCHEDULED:
        game.status = DuplicateStatus.RUNNING
        s.add(game)
    s.flush()
    draw_notices(s, game, rnd)
    return "draw", number

def _draw_tactique(s: Session, game: DuplicateGame, now: datetime,
                   number: int) -> tuple[str, int]:
    """Tactique: both groups drawn (``draw_tactique``), the best two-word sequence searched
    (``tactique_top``)."""
    v = variants()
    vs = variant_settings_of(game)
    config = config_of(game)
    ts = tactique_of(game.state_text)
    draw, ts = v.draw_tactique(ts, vs)
    top = None if draw is None else v.tactique_top(ts.game.board, draw.racks, config, vs)
    if draw is None or top is None or (top.first is None and top.second is None):
        game.state_text = tactique_text(ts)
        return finish(s, game, now)
    d1, d2 = draw.groups
    rnd = DuplicateRound(
        game_id=game.id or 0, number=number, opens_at=now,
        closes_at=deadline_after(game.rhythm, now, game.timezone), status=RoundStatus.OPEN,
        draw={"groups": [draw_dict(d1), draw_dict(d2)], "rack": f"{d1.rack}/{d2.rack}",
              "notation": draw.notation},
        state_before=tactique_text(ts), grid_before=ts.game.board_cgp,
        top=tactique_top_dict(top),
    )
    return _open_round(s, game, rnd, number)


def _draw_superscrabble(s: Session, game: DuplicateGame, now: datetime,
                        number: int) -> tuple[str, int]:
    """The arbitre's rack of this round on the grid as it stands; every scrabble listed, the
    engine's choice (``choose_scrabble``) retained until the arbitre picks another."""
    racks = game.settings[SUPERSCRABBLE]["racks"]
    if number > len(racks):
        return finish(s, game, now)
    rack = racks[number - 1]
    board = Board.from_cgp(game.state_text)
    config = config_of(game)
    answers = variants().list_scrabbles(board, rack, config)
    chosen = variants().choose_scrabble(board, answers, config)
    rnd = DuplicateRound(
        game_id=game.id or 0, number=number, opens_at=now,
        closes_at=deadline_after(game.rhythm, now, game.timezone), status=RoundStatus.OPEN,
        draw={"reliquat": "", "new": rack, "rack": rack, "rejected": [], "minimum": 0,
              "notation": rack},
        state_before=game.state_text, grid_before=game.state_text,
        top=scrabble_top_dict(chosen, answers, "Scrabble choisi par le moteur : le meilleur "
                              "score, puis l'ordre FISF."),
    )
    return _open_round(s, game, rnd, number)


def scrabble_top_dict(chosen: Any, answers: Sequence[Any], reason: str) -> dict[str, Any]:
    listed = [{"ref": m["ref"], "word": m["word"], "score": m["score"]}
              for m in (move_dict(a) for a in answers)]
    if chosen is None:
        return {"ref": "—", "word": "", "score": 0, "move": None, "ties": [],
                "scrabbles": listed, "reason": "Aucun scrabble : la grille ne change pas."}
    return {**move_dict(chosen), "ties": [], "scrabbles": listed, "reason": reason}


def close_round(s: Session, game: DuplicateGame, now: datetime) -> tuple[str, int]:
    """No bulletin counts after this; a late one is still stored (and flagged)."""
    rnd = current_round(s, game)
    assert rnd is not None and rnd.status == RoundStatus.OPEN
    rnd.status = RoundStatus.CLOSED
    # closed early (every player answered): the deadline becomes that instant
    rnd.closed_at = rnd.closes_at if now >= rnd.closes_at else now
    if now < rnd.closes_at:
        rnd.closes_at = now
    s.add(rnd)
    return "close", rnd.number


def correct_round(s: Session, game: DuplicateGame, now: datetime) -> tuple[str, int]:
    rnd = current_round(s, game)
    assert rnd is not None and rnd.status == RoundStatus.CLOSED
    rnd.results = compute_results(s, game, rnd)
    rnd.status = RoundStatus.CORRECTED
    rnd.corrected_at = now
    s.add(rnd)
    return "correct", rnd.number


def compute_results(s: Session, game: DuplicateGame, rnd: DuplicateRound) -> list[dict[str, Any]]:
    """Correct the counting bulletin of every registered player (``correct_all``: none is
    absent, an unreadable one is zero with its errors), then the solos; one mapping per
    player, by player id."""
    eng = engine()
    assert rnd.top is not None
    counting = counting_entries(entries_of(s, rnd))
    players = players_of(s, game)
    if game.variant == DuplicateVariant.TACTIQUE:
        return _tactique_results(s, game, rnd, counting, players)
    if game.variant == SUPERSCRABBLE:
        return _superscrabble_results(game, rnd, counting, players)
    state = eng.GameState.from_text(rnd.state_before)
    bulletins: dict[str, Any] = {}
    for p in players:
        entry = counting.get(p.id or 0)
        if entry is None:
            bulletins[str(p.id)] = None
        elif entry.bulletin is None:
            bulletins[str(p.id)] = _first_line(entry.raw_text)  # read again: its errors
        else:
            b = bulletin_of(entry.bulletin, str(p.id), entry.received_at)
            if is_free(game):  # with the letters taken from the stock
                b = variants().FreeBulletin(b, entry.bulletin.get("chosen", ""),
                                            entry.bulletin.get("swapped", ""))
            bulletins[str(p.id)] = b
    if is_free(game):
        verdicts = variants().correct_free_round(
            state, rnd.draw["rack"], bulletins,
            config_of(game), top_score=int(rnd.top["score"]),
            settings=variant_settings_of(game), n_players=len(players))
    else:
        verdicts = eng.correct_all(state, rnd.draw["rack"], bulletins, config_of(game),
                                   round_no=rnd.number, top_score=int(rnd.top["score"]),
                                   settings=duplicate_settings_of(game), n_players=len(players))
    if game.variant == DuplicateVariant.TOP:  # Duplicate Top: ranked by tops, no solo (RULES §9.2)
        verdicts = [replace(v, solo=0) for v in verdicts]
    by_player = {v.player: v for v in verdicts}
    return [result_dict(p, counting.get(p.id or 0), by_player[str(p.id)]) for p in players]


def _tactique_results(s: Session, game: DuplicateGame, rnd: DuplicateRound,
                      counting: dict[int, DuplicateEntry],
                      players: list[Player]) -> list[dict[str, Any]]:
    """Each counting billet corrected (``correct_tactique``: both words, both orders when
    free, the sum checked), then the solos as in the Duplicate."""
    v = variants()
    eng = engine()
    ts = tactique_of(rnd.state_before)
    vs = variant_settings_of(game)
    config = config_of(game)
    assert rnd.top is not None
    contexts: dict[Any, Any] = {}
    verdicts = []
    for p in players:
        who = str(p.id)
        entry = counting.get(p.id or 0)
        if entry is None:
            billet = None
        elif entry.bulletin is None:
            errors = entry.parse_errors or ["billet illisible"]
            verdicts.append(eng.Verdict(who, 0, "nul", reason_fr="Nul : billet illisible — "
                                        + " ".join(errors)))
            continue
        else:
            d = entry.bulletin
            second = d.get("second")
            billet = v.TactiqueBillet(
                who, bulletin_of(d["first"], who, entry.received_at),
                bulletin_of(second, who, entry.received_at) if second else None, d.get("total"))
        verdicts.append(v.correct_tactique(ts, billet, config, top_score=int(rnd.top["score"]),
                                           settings=vs, player=who, contexts=contexts))
    verdicts = eng.apply_solos(verdicts, len(players), vs.duplicate)
    by_player = {x.player: x for x in verdicts}
    return [result_dict(p, counting.get(p.id or 0), by_player[str(p.id)]) for p in players]


def round_scrabbles(game: DuplicateGame, rnd: DuplicateRound) -> list[Any]:
    """Every distinct scrabble of a Superscrabble round (``list_scrabbles``)."""
    return list(variants().list_scrabbles(Board.from_cgp(rnd.grid_before), rnd.draw["rack"],
                                          config_of(game)))


def _superscrabble_results(game: DuplicateGame, rnd: DuplicateRound,
                           counting: dict[int, DuplicateEntry],
                           players: list[Player]) -> list[dict[str, Any]]:
    """One point per distinct valid scrabble of each counting sheet; a count missing or
    wrong is a warning (``correct_scrabble_sheet``)."""
    v = variants()
    answers = round_scrabbles(game, rnd)
    out = []
    for p in players:
        who = str(p.id)
        entry = counting.get(p.id or 0)
        if entry is not None and entry.bulletin is None:
            sv = v.SheetVerdict(who, 0, 0, 0, 0, "Feuille illisible — "
                                + " ".join(entry.parse_errors or []))
            kind = "nul"
        else:
            sheet = None if entry is None else v.ScrabbleSheet(
                who, tuple((r, w) for r, w in (entry.bulletin or {})["entries"]),
                (entry.bulletin or {}).get("count"))
            sv = v.correct_scrabble_sheet(sheet, answers, who)
            kind = "absent" if entry is None else ("avertissement" if sv.warnings
                                                   else "valide")
        out.append({"player_id": p.id, "name": p.name, "entry_id": entry.id if entry else None,
                    "score": int(sv.valid), "kind": kind, "warnings": int(sv.warnings),
                    "solo": 0, "reason": sv.reason_fr, "ref": None, "word": None,
                    "invalid": int(sv.invalid), "duplicates": int(sv.duplicates)})
    return out


def result_dict(p: Player, entry: DuplicateEntry | None, v: Any) -> dict[str, Any]:
    return {"player_id": p.id, "name": p.name, "entry_id": entry.id if entry else None,
            "score": int(v.score), "kind": str(v.kind), "warnings": int(v.warnings),
            "solo": int(v.solo), "reason": v.reason_fr, "ref": v.ref, "word": v.word}


def verdict_of(r: dict[str, Any]) -> Verdict:
    return Verdict(player=str(r["player_id"]), score=int(r["score"]), kind=r["kind"],
                   warnings=int(r["warnings"]), reason_fr=r["reason"],
                   ref=r.get("ref"), word=r.get("word"), solo=int(r.get("solo", 0)))


def publish_round(s: Session, game: DuplicateGame, now: datetime) -> tuple[str, int]:
    """Place the retained top on the master grid and send every player his result."""
    rnd = current_round(s, game)
    assert rnd is not None and rnd.status == RoundStatus.CORRECTED and rnd.top is not None
    eng = engine()
    if game.variant == DuplicateVariant.TACTIQUE:
        ts = variants().apply_tactique_top(tactique_of(rnd.state_before),
                                           tactique_top_of(rnd.top))
        game.state_text = tactique_text(ts)
        rnd.grid_after = ts.game.board_cgp
    elif game.variant == SUPERSCRABBLE:
        board = Board.from_cgp(rnd.grid_before)
        if rnd.top.get("move"):
            move_of(rnd.top).placement.apply(board)
        game.state_text = rnd.grid_after = str(board.to_cgp())
    else:
        state = eng.GameState.from_text(rnd.state_before)
        if is_free(game):
            state = variants().apply_variant_top(state, rnd.draw["rack"],
                                                 variant_top_of(rnd.top),
                                                 variant_settings_of(game))
        else:
            state = eng.apply_top(state, draw_of(rnd.draw), top_of(rnd.top))
        game.state_text = state.to_text()
        rnd.grid_after = state.board_cgp
    rnd.status = RoundStatus.PUBLISHED
    rnd.published_at = now
    s.add(rnd)
    s.add(game)
    s.flush()
    results_notices(s, game, rnd)
    return "publish", rnd.number


def finish(s: Session, game: DuplicateGame, now: datetime) -> tuple[str, int]:
    last = current_round(s, game)
    game.status = DuplicateStatus.FINISHED
    game.finished_at = now
    s.add(game)
    s.flush()
    final_notices(s, game)
    return "finish", last.number if last else 0


# --- serialising engine values ---------------------------------------------------------------


def draw_dict(d: Any) -> dict[str, Any]:
    return {"reliquat": d.reliquat, "new": d.new, "rack": d.rack, "rejected": list(d.rejected),
            "minimum": d.minimum, "notation": d.notation}


def draw_of(d: dict[str, Any]) -> Draw:
    return Draw(reliquat=d["reliquat"], new=d["new"], rack=d["rack"],
                rejected=tuple(d["rejected"]), minimum=int(d.get("minimum", 0)))


def move_dict(m: Any) -> dict[str, Any]:
    return {"ref": format_ref(m.ref), "word": m.word, "score": int(m.score),
            "move": [int(m.score), bool(m.horizontal), int(m.start), m.word, int(m.new_mask)]}


def move_of(d: dict[str, Any]) -> GeneratedMove:
    score, horizontal, start, word, mask = d["move"]
    return GeneratedMove(int(score), bool(horizontal), int(start), str(word), int(mask))


def top_dict(t: Any) -> dict[str, Any]:
    out = move_dict(t.move)
    out.update(ref=t.ref, word=t.word, score=int(t.score), reason=t.reason_fr,
               ties=[move_dict(x) for x in t.ties])
    return out


def variant_top_dict(t: Any) -> dict[str, Any]:
    """A ``puzzles.variants.VariantTop``: the move, the letters it takes from the stock
    (``chosen``) and the Métagramme's given-back letter (``swapped``)."""
    out = move_dict(t.move)
    out.update(ref=t.ref, word=t.word, score=int(t.score), reason=t.reason_fr, ties=[],
               tied=int(t.ties), chosen=t.choice.chosen, swapped=t.choice.swapped)
    return out


def variant_top_of(d: dict[str, Any]) -> VariantTop:
    return VariantTop(FreeMove(move_of(d), d.get("chosen", ""), d.get("swapped", "")),
                      ref=d["ref"], word=d["word"], score=int(d["score"]),
                      reason_fr=d.get("reason", ""))


def tactique_top_dict(t: Any) -> dict[str, Any]:
    """A ``puzzles.variants.TactiqueTop``: both words in placement order (``first``,
    ``second``: move mappings or None), the group played first, the sum; ``ref``/``word``
    read « H7 + H7 », « ZA + ZAS »."""
    moves = [move_dict(m) if m is not None else None for m in (t.first, t.second)]
    placed = [m for m in moves if m]
    return {"first_group": int(t.first_group), "first": moves[0], "second": moves[1],
            "ref": " + ".join(m["ref"] for m in placed),
            "word": " + ".join(m["word"] for m in placed), "score": int(t.score),
            "notation": t.notation, "reason": t.reason_fr, "ties": [], "tied": int(t.ties)}


def tactique_top_of(d: dict[str, Any]) -> TactiqueTop:
    return TactiqueTop(
        int(d["first_group"]), move_of(d["first"]) if d.get("first") else None,
        move_of(d["second"]) if d.get("second") else None, int(d["score"]))


def top_letters(top: dict[str, Any] | None) -> str:
    """`` -N +K`` after a variant top (the letters given back and taken), else ""."""
    if not top:
        return ""
    out = f" -{top['swapped']}" if top.get("swapped") else ""
    return out + (f" +{top['chosen']}" if top.get("chosen") else "")


def top_of(d: dict[str, Any]) -> TopChoice:
    return TopChoice(move=move_of(d), ref=d["ref"], word=d["word"],
                     score=int(d["score"]), ties=tuple(move_of(x) for x in d["ties"]),
                     reason_fr=d.get("reason", ""))


# --- console actions -------------------------------------------------------------------------


def override_top(*, session: Session, game: DuplicateGame, rnd: DuplicateRound, ref: str,
                 word: str, actor: str, reason: str) -> dict[str, Any]:
    """Retain another legal move of this round as its top (before its results are out);
    the bulletins are corrected again against it if the round is already corrected."""
    if rnd.status == RoundStatus.PUBLISHED:
        raise DuplicateError("Les résultats de ce tour sont publiés : son top ne peut plus "
                             "changer.")
    if game.variant == DuplicateVariant.TACTIQUE:
        return _choose_sequence(session=session, game=game, rnd=rnd, ref=ref, word=word,
                                actor=actor, reason=reason)
    if game.variant == SUPERSCRABBLE:
        return _choose_scrabble(session=session, game=game, rnd=rnd, ref=ref, word=word,
                                actor=actor, reason=reason)
    if not reason.strip():
        raise DuplicateError("Indiquez le motif du changement de top.")
    eng = engine()
    state = eng.GameState.from_text(rnd.state_before)
    config = config_of(game)
    letters: dict[str, str] = {}
    if is_free(game):
        rack, word, letters = free_rack(game, state, rnd.draw["rack"], word)
        move = legal_move(state, rack, config, ref, word)
        if game.variant == DuplicateVariant.ELLIPTIQUE and bin(move.new_mask).count("1") > 7:
            raise DuplicateError("En Elliptique, un coup pose au plus 7 lettres.")

        base = rack[:len(rack) - len(letters["chosen"])]
        used = "".join(sorted((Counter(move.letters) - Counter(base)).elements()))
        # G15: a named letter the move does not place returns to the stock (it is no
        # choice), unless the game keeps it on the rack (free_unused="reliquat")
        kept = letters["chosen"] if variant_settings_of(game).free_unused == "reliquat" \
            else used
        letters = {"chosen": kept, "swapped": letters["swapped"] if used else ""}
    else:
        move = legal_move(state, rnd.draw["rack"], config, ref, word)
    old = rnd.top
    assert old is not None
    rnd.top = {**move_dict(move), "ties": [], **letters,
               "reason": f"Top choisi par l'arbitre ({actor}) : {reason.strip()}"}
    rnd.top_overridden_by = actor
    if rnd.status == RoundStatus.CORRECTED:
        rnd.results = compute_results(session, game, rnd)
    session.add(rnd)
    schedule_changed(session)
    audit.record(session=session, actor=actor, action="duplicate.override_top",
                 target=game.code, round=rnd.number, old=old, new=rnd.top,
                 reason=reason.strip())
    return rnd.top


def tactique_text_of(ref: str, word: str) -> str:
    """The arbitre's Tactique sequence from the console's two fields: ``ref`` « H4 + 8C »
    and ``word`` « RESTAIT + MOTS » (paired in order), or the whole sequence in either
    field (« H4 RESTAIT + 8C MOTS »)."""
    m = re.match(r"\s*(groupe\s*[12])\s*:?\s*", ref, re.IGNORECASE)
    lead = f"groupe {m.group(1)[-1]} : " if m else ""
    rest = ref[m.end():] if m else ref
    refs = [r.strip() for r in rest.split("+")]
    words = [w.strip() for w in word.split("+")]
    if len(refs) == len(words) == 2 and all(len(x.split()) == 1 for x in refs + words):
        return f"{lead}{refs[0]} {words[0]} + {refs[1]} {words[1]}"
    return f"{lead}{rest.strip()} {word.strip()}".strip()


def _choose_sequence(*, session: Session, game: DuplicateGame, rnd: DuplicateRound, ref: str,
                     word: str, actor: str, reason: str) -> dict[str, Any]:
    """Tactique (RULES §9.1): the arbitre retains another legal two-word sequence of the
    round (``puzzles.variants.tactique_sequence``: the first word legal with one group, the
    second, on the grid it leaves, with the other; the order allowed by the game). The
    bulletins are corrected again when the round is; its publication places both words
    and the game goes on from that grid, each group keeping its unused letters."""
    if not reason.strip():
        raise DuplicateError("Indiquez le motif du changement de top.")
    ts = tactique_of(rnd.state_before)
    try:
        top = variants().tactique_sequence(ts.game.board, tuple(ts.reliquats),
                                           tactique_text_of(ref, word), config_of(game),
                                           variant_settings_of(game))
    except ValueError as exc:
        raise DuplicateError(str(exc)) from None
    old = rnd.top
    rnd.top = {**tactique_top_dict(top),
               "reason": f"Suite choisie par l'arbitre ({actor}) : {reason.strip()}"}
    rnd.top_overridden_by = actor
    if rnd.status == RoundStatus.CORRECTED:
        rnd.results = compute_results(session, game, rnd)
    session.add(rnd)
    schedule_changed(session)
    audit.record(session=session, actor=actor, action="duplicate.override_top",
                 target=game.code, round=rnd.number, old=old, new=rnd.top,
                 reason=reason.strip())
    return rnd.top


def _choose_scrabble(*, session: Session, game: DuplicateGame, rnd: DuplicateRound, ref: str,
                     word: str, actor: str, reason: str) -> dict[str, Any]:
    """RULES §7.7 « l'arbitre choisit le scrabble que tous placent »: one of the round's
    scrabbles (or the engine's choice again: ``ref`` « moteur »)."""
    if not reason.strip():
        raise DuplicateError("Indiquez le motif du choix du scrabble.")
    answers = round_scrabbles(game, rnd)
    if ref.strip().lower() == "moteur":
        chosen = variants().choose_scrabble(Board.from_cgp(rnd.grid_before), answers,
                                            config_of(game))
    else:
        wanted = (ref.strip().upper(), word.strip().upper())

        chosen = next((m for m in answers
                       if (format_ref(m.ref).upper(), m.word.upper()) == wanted), None)
        if chosen is None:
            raise DuplicateError(f"« {ref.strip()} {word.strip()} » n'est pas un scrabble du "
                                 f"tirage {rnd.draw['rack']} sur cette grille.")
    old = rnd.top
    rnd.top = scrabble_top_dict(chosen, answers, f"Scrabble choisi par l'arbitre ({actor}) : "
                                f"{reason.strip()}")
    rnd.top_overridden_by = actor
    session.add(rnd)
    schedule_changed(session)
    audit.record(session=session, actor=actor, action="duplicate.override_top",
                 target=game.code, round=rnd.number, old=old, new=rnd.top,
                 reason=reason.strip())
    return rnd.top


def free_rack(game: DuplicateGame, state: Any, drawn: str,
              text: str) -> tuple[str, str, dict[str, str]]:
    """A letter-choice variant's move as the arbitre writes it (``RESTAIT +T``,
    ``KETAMINE -N +K``): the rack (the drawn letters less the given-back one, plus the
    chosen ones, which must be in the stock), the word, the letters."""
    vs = variant_settings_of(game)
    word_parts, chosen, swapped = [], "", ""
    for tok in text.split():
        if tok.startswith("+") and len(tok) > 1:
            chosen += tok[1:].upper()
        elif tok.startswith("-") and len(tok) > 1:
            swapped += tok[1:].upper()
        else:
            word_parts.append(tok)
    if len(word_parts) != 1:
        raise DuplicateError("Écrivez le mot puis les lettres choisies, par exemple "
                             "« RESTAIT +T » (Métagramme : « KETAMINE -N +K »).")
    metagramme = game.variant == DuplicateVariant.METAGRAMME
    limit = 1 if metagramme else vs.free
    if len(chosen) > limit or len(swapped) > (1 if metagramme else 0):
        raise DuplicateError(f"{variant_label(game)} : {limit} lettre(s) choisie(s) au plus.")
    if game.variant == DuplicateVariant.METAGRAMME and bool(chosen) != bool(swapped):
        raise DuplicateError("En Métagramme, la lettre rendue et la lettre choisie vont "
                             "ensemble (« -N +K »).")
    stock = Counter(state.bag)
    if Counter(chosen) - stock:
        raise DuplicateError(f"Lettre(s) choisie(s) « {chosen} » absente(s) du stock.")
    base = drawn
    if swapped:
        if swapped not in drawn:
            raise DuplicateError(f"La lettre rendue {swapped} n'est pas dans le tirage "
                                 f"{drawn}.")
        base = drawn.replace(swapped, "", 1)
    return base + chosen, word_parts[0], {"chosen": chosen, "swapped": swapped}


def legal_move(state: Any, rack: str, config: Any, ref: str, word: str) -> Any:
    """The legal move of this round written ``ref word`` (a joker in lower case); French
    :class:`DuplicateError` when there is none."""
    try:
        wanted = parse_ref(ref.strip())
    except Exception:
        raise DuplicateError(f"Référence illisible : « {ref} ».") from None
    word = word.strip()
    moves = [m for m in generate(state.board, rack, config) if m.ref == wanted]
    exact = [m for m in moves if m.word == word]
    folded = [m for m in moves if m.word.upper() == word.upper()]
    found = exact or (folded if len(folded) == 1 else [])
    if not found:
        raise DuplicateError(f"« {ref.strip()} {word} » n'est pas un coup jouable avec le "
                             f"tirage {rack} sur cette grille.")
    return found[0]


def recorrect(*, session: Session, game: DuplicateGame, rnd: DuplicateRound, actor: str,
              reason: str) -> list[dict[str, Any]]:
    """Correct every bulletin of a closed round again (audited, with the differences). When
    the round's results are already out, each player whose score (or solo) changed gets a
    corrected-results mail (one per re-correction: its dedupe key names the audit entry)."""
    if rnd.status == RoundStatus.OPEN:
        raise DuplicateError("Ce tour est encore ouvert : il sera corrigé à sa clôture.")
    if not reason.strip():
        raise DuplicateError("Indiquez le motif de la nouvelle correction.")
    before = {r["player_id"]: r for r in rnd.results}
    old = {pid: r["score"] for pid, r in before.items()}
    rnd.results = compute_results(session, game, rnd)
    session.add(rnd)
    changed = {r["player_id"]: [old.get(r["player_id"]), r["score"]] for r in rnd.results
               if old.get(r["player_id"]) != r["score"]
               or (before.get(r["player_id"]) or {}).get("solo", 0) != r.get("solo", 0)}
    record = audit.record(session=session, actor=actor, action="duplicate.recorrect",
                          target=game.code, round=rnd.number, reason=reason.strip(),
                          changed={str(k): v for k, v in changed.items()})
    if rnd.status == RoundStatus.PUBLISHED and changed:
        session.flush()
        corrected_notices(session, game, rnd, before, set(changed), reason.strip(),
                          key=f"{record.id}")
    return rnd.results


# --- ranking ---------------------------------------------------------------------------------


def standings(session: Session, game: DuplicateGame) -> list[dict[str, Any]]:
    """The ranking after the published rounds (``puzzles.duplicate.rank_game``: scores +
    solos − warning conversion): rank, name, total, percent of the tops, per-round scores."""
    eng = engine()
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
    results = [eng.RoundResult(round_no=r.number, draw=_round_draw(r), top=_round_top(r),
                               board_cgp=r.grid_after or "",
                               verdicts=tuple(verdict_of(x) for x in r.results))
               for r in rounds]
    per_round = {r.number: {x["player_id"]: x for x in r.results} for r in rounds}
    rows: list[dict[str, Any]] = []
    for row in eng.rank_game(results, duplicate_settings_of(game)):
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
    v = variants()
    ranked = v.rank_superscrabble(
        [[v.SheetVerdict(str(x["player_id"]), int(x["score"]), int(x.get("invalid", 0)),
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
        return engine().TopChoice(move=move, ref=d["ref"], word=d["word"],
                                  score=int(d["score"]))
    return top_of(d)


def top_standings(game: DuplicateGame, rounds: Sequence[DuplicateRound],
                  names: dict[int | None, Player]) -> list[dict[str, Any]]:
    """Duplicate Top (``puzzles.variants.rank_duplicate_top``): ``total`` is the ranking
    points (rounds topped less the warning conversion), then the companions and the total of
    the topped rounds' scores break ties."""
    ranked = variants().rank_duplicate_top(
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


# --- notices ---------------------------------------------------------------------------------


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


def variant_notice(game: DuplicateGame, rnd: DuplicateRound) -> dict[str, Any]:
    """What a draw notice adds for a variant: its name, its rule, the stock."""
    if not game.variant:
        return {}
    out: dict[str, Any] = {"variant_label": variant_label(game),
                           "variant_rule": VARIANT_RULES_FR.get(game.variant)}
    if game.variant in (DuplicateVariant.COMPLETIF, DuplicateVariant.SUPERJOKER,
                        DuplicateVariant.METAGRAMME):
        out["stock"] = rnd.draw.get("stock", "")
    if game.variant in BULLETIN_EXAMPLES:
        out["bulletin_example"] = BULLETIN_EXAMPLES[game.variant]
    return out


def draw_notices(s: Session, game: DuplicateGame, rnd: DuplicateRound) -> int:
    if not round_mails(game):
        return 0
    shared = {
        "game_title": f"{game.title} ({game.code})", "round_no": rnd.number,
        "rack": rnd.draw["rack"], "draw_notation": rnd.draw.get("notation", rnd.draw["rack"]),
        "deadline": format_local(rnd.closes_at, game.timezone),
        "grid": text_grid(rnd.grid_before), "game_url": game_url(game),
        "subject_hint": game.code, **variant_notice(game, rnd),
    }
    return notify.fan_out(
        session=s, players=players_of(s, game),
        key=lambda p: f"duplicate_draw:{game.code}:{rnd.number}:{p.id}", kind=KIND_DRAW,
        template="duplicate_draw",
        context=lambda p: {**shared, "player_name": p.name,
                           "submission_address": notify.submission_address(p)})


def top_words(top: dict[str, Any]) -> dict[str, str]:
    """``top_ref`` and ``top_word`` of the mails; a Tactique reads « H7 ZA 22 + » « H7 ZAS
    12 » (both words in placement order with their scores, the sum after)."""
    if "first_group" in top:
        words = [f"{m['ref']} {m['word']} {m['score']}" for m in (top["first"], top["second"])
                 if m]
        return {"top_ref": words[0] + (" +" if len(words) > 1 else ""),
                "top_word": words[1] if len(words) > 1 else ""}
    return {"top_ref": top["ref"], "top_word": top["word"]}


def scrabble_notice(game: DuplicateGame, rnd: DuplicateRound) -> dict[str, Any]:
    """A Superscrabble round's results: out of the number of scrabbles of the round, and the
    scrabble placed (not a « top »)."""
    if game.variant != SUPERSCRABBLE or rnd.top is None:
        return {}
    return {"out_of": len(rnd.top.get("scrabbles", [])), "top_label": "Scrabble posé"}


def total_label(game: DuplicateGame) -> str:
    if game.variant == SUPERSCRABBLE:
        return "Vos scrabbles valables (total)"
    if game.variant == DuplicateVariant.TOP:
        return "Vos points de classement (tours topés)"
    return "Votre total"


def results_notices(s: Session, game: DuplicateGame, rnd: DuplicateRound) -> int:
    if not round_mails(game):
        return 0
    players = {p.id: p for p in players_of(s, game)}
    ranking = standings(s, game)
    rank_of = {r["player_id"]: r for r in ranking}
    result_of = {res["player_id"]: res for res in rnd.results}
    top = rnd.top
    assert top is not None

    def context(p: Player) -> dict[str, Any]:
        res, mine = result_of[p.id], rank_of.get(p.id, {})
        return {"player_name": p.name, "game_title": f"{game.title} ({game.code})",
                "round_no": rnd.number, **top_words(top), "top_score": top["score"],
                "top_letters": top_letters(top), "total_label": total_label(game),
                **scrabble_notice(game, rnd),
                "score": res["score"], "solo": res.get("solo", 0), "reason": res["reason"],
                "total": mine.get("total"), "rank": mine.get("rank"),
                "participants": len(ranking), "game_url": game_url(game)}

    return notify.fan_out(  # in the order of the round's results
        session=s, players=[players[pid] for pid in result_of if pid in players],
        key=lambda p: f"duplicate_results:{game.code}:{rnd.number}:{p.id}",
        kind=KIND_RESULTS, template="duplicate_results", context=context)


def corrected_notices(s: Session, game: DuplicateGame, rnd: DuplicateRound,
                      before: dict[int, dict[str, Any]], changed: set[int], reason: str, *,
                      key: str) -> int:
    """A published round corrected again: its new result (and the old score, the new total
    and rank) to each player in ``changed``."""
    players = {p.id: p for p in players_of(s, game)}
    rank_of = {r["player_id"]: r for r in standings(s, game)}
    result_of = {res["player_id"]: res for res in rnd.results}
    top = rnd.top
    assert top is not None

    def context(p: Player) -> dict[str, Any]:
        res, mine = result_of[p.id], rank_of.get(p.id, {})
        was = before.get(p.id or 0) or {}
        return {"player_name": p.name, "game_title": f"{game.title} ({game.code})",
                "round_no": rnd.number, **top_words(top), "top_score": top["score"],
                "top_letters": top_letters(top), "score": res["score"],
                "solo": res.get("solo", 0), "reason": res["reason"],
                "old_score": int(was.get("score", 0)) + int(was.get("solo", 0)),
                "why": reason, "total": mine.get("total"), "rank": mine.get("rank"),
                "participants": len(rank_of), "total_label": total_label(game),
                "game_url": game_url(game)}

    return notify.fan_out(  # in the order of the round's results
        session=s, players=[players[pid] for pid in result_of
                            if pid in players and pid in changed],
        key=lambda p: f"{KIND_CORRECTED}:{game.code}:{rnd.number}:{p.id}:{key}",
        kind=KIND_CORRECTED, template="duplicate_corrected", context=context)


def final_notices(s: Session, game: DuplicateGame) -> int:
    ranking = standings(s, game)
    players = {p.id: p for p in players_of(s, game)}
    rounds = [r for r in rounds_of(s, game) if r.status == RoundStatus.PUBLISHED]
    tops = sum(int(r.top["score"]) for r in rounds if r.top)
    row_of = {row["player_id"]: row for row in ranking}
    excerpt_rows = [{"rank": r["rank"], "name": r["name"], "score": r["total"],
                     "percent": r["percent"]} for r in ranking]

    def context(p: Player) -> dict[str, Any]:
        row = row_of[p.id]
        return {"player_name": p.name, "game_title": f"{game.title} ({game.code})",
                "rounds": len(rounds), "tops_total": tops, "total": row["total"],
                "rank": row["rank"], "percent": row["percent"],
                "total_label": total_label(game),
                "ranking": notify.ranking_excerpt(excerpt_rows, row["rank"]),
                "game_url": game_url(game)}

    return notify.fan_out(  # in the order of the ranking
        session=s, players=[players[pid] for pid in row_of if pid in players],
        key=lambda p: f"duplicate_final:{game.code}:{p.id}", kind=KIND_FINAL,
        template="duplicate_final", context=context)


def upcoming_instants(*, now: datetime) -> list[datetime]:
    """Future instants at which :func:`run_due` has a Duplicate step to do."""
    out: set[datetime] = set()
    with session_scope() as s:
        for game in s.exec(select(DuplicateGame).where(col(DuplicateGame.status).in_(
                (DuplicateStatus.SCHEDULED, DuplicateStatus.RUNNING)))).all():
            rnd = current_round(s, game)
            if rnd is None:
                out.add(game.starts_at)
            elif rnd.status == RoundStatus.OPEN:
                out.add(rnd.closes_at)
            elif rnd.status == RoundStatus.CORRECTED and rnd.closed_at is not None:
                out.add(rnd.closed_at + timedelta(minutes=game.review_minutes))
    return sorted(t for t in out if t > now)


# --- preview of a console change (re-correction, other top) ----------------------------------


@dataclass(frozen=True)
class ChangePreview:
    """What a re-correction (``action`` « recorriger ») or another top (« top ») would change
    in a round, computed in a savepoint rolled back: nothing is stored. ``digest`` names the
    exact change (old and new results, tops, ranking); :func:`apply_change` refuses to store
    anything else."""
    action: str
    ref: str
    word: str
    reason: str
    old_top: dict[str, Any] | None
    new_top: dict[str, Any] | None
    rows: list[dict[str, Any]]
    rank_changes: list[dict[str, Any]]
    digest: str


def _ranks(session: Session, game: DuplicateGame) -> dict[int, dict[str, Any]]:
    return {r["player_id"]: {"rank": r["rank"], "total": r["total"], "name": r["name"]}
            for r in standings(session, game)}


def _run_change(session: Session, game: DuplicateGame, rnd: DuplicateRound, action: str,
                ref: str, word: str, reason: str, actor: str) -> None:
    if action == "top":
        override_top(session=session, game=game, rnd=rnd, ref=ref, word=word, actor=actor,
                     reason=reason)
    elif action == "recorriger":
        recorrect(session=session, game=game, rnd=rnd, actor=actor, reason=reason)
    else:
        raise DuplicateError(f"Action inconnue : « {action} ».")


def preview_change(*, session: Session, game: DuplicateGame, rnd: DuplicateRound, action: str,
                   ref: str = "", word: str = "", reason: str, actor: str) -> ChangePreview:
    """Per player the old and new verdict (kind, score, reason) and solo of the round, and
    the ranking changes (only the players whose rank moves). French :class:`DuplicateError`
    when the change itself is refused."""
    session.flush()
    old_top = rnd.top
    old_results = {r["player_id"]: dict(r) for r in rnd.results or []}
    old_ranks = _ranks(session, game)
    sp = session.begin_nested()
    try:
        _run_change(session, game, rnd, action, ref, word, reason, actor)
        session.flush()
        new_top = dict(rnd.top) if rnd.top is not None else None
        new_results = {r["player_id"]: dict(r) for r in rnd.results or []}
        new_ranks = _ranks(session, game)
    finally:
        sp.rollback()
    session.expire_all()
    rows = []
    for pid in sorted(set(old_results) | set(new_results),
                      key=lambda p: ((new_results.get(p) or old_results.get(p) or {})
                                     .get("name", ""), p)):
        o, n = old_results.get(pid) or {}, new_results.get(pid) or {}
        rows.append({
            "player_id": pid, "name": n.get("name") or o.get("name", ""),
            "old_kind": o.get("kind"), "new_kind": n.get("kind"),
            "old_score": o.get("score"), "new_score": n.get("score"),
            "old_solo": o.get("solo", 0) if o else None,
            "new_solo": n.get("solo", 0) if n else None,
            "old_reason": o.get("reason"), "new_reason": n.get("reason"),
            "changed": (o.get("kind"), o.get("score"), o.get("solo", 0), o.get("reason"))
            != (n.get("kind"), n.get("score"), n.get("solo", 0), n.get("reason")),
        })
    rank_changes = [
        {"player_id": pid, "name": new_ranks[pid]["name"],
         "old_rank": old_ranks[pid]["rank"], "new_rank": new_ranks[pid]["rank"],
         "old_total": old_ranks[pid]["total"], "new_total": new_ranks[pid]["total"]}
        for pid in sorted(new_ranks, key=lambda p: (new_ranks[p]["rank"], new_ranks[p]["name"]))
        if pid in old_ranks and old_ranks[pid]["rank"] != new_ranks[pid]["rank"]]
    what = {"action": action, "ref": ref.strip(), "word": word.strip(),
            "reason": reason.strip(), "round": rnd.number, "game": game.code,
            "old_top": old_top, "new_top": new_top,
            "old": [old_results[k] for k in sorted(old_results)],
            "new": [new_results[k] for k in sorted(new_results)],
            "ranks": rank_changes}
    digest = hashlib.sha256(json.dumps(what, sort_keys=True, default=str).encode()).hexdigest()
    return ChangePreview(action=action, ref=ref.strip(), word=word.strip(),
                         reason=reason.strip(), old_top=old_top, new_top=new_top, rows=rows,
                         rank_changes=rank_changes, digest=digest)


def apply_change(*, session: Session, game: DuplicateGame, rnd: DuplicateRound, action: str,
                 ref: str = "", word: str = "", reason: str, actor: str,
                 digest: str) -> ChangePreview:
    """Store the change shown by the preview whose ``digest`` is given: computed again and
    refused (French :class:`DuplicateError`, nothing stored) when anything moved in between
    (a bulletin, another arbitre's change, a publication). Audited by the change itself
    (``duplicate.override_top`` / ``duplicate.recorrect``) and ``duplicate.change_applied``
    with the digest."""
    now = preview_change(session=session, game=game, rnd=rnd, action=action, ref=ref,
                         word=word, reason=reason, actor=actor)
    if now.digest != digest.strip():
        raise DuplicateError("Le tour a changé depuis l'aperçu (bulletin, correction ou "
                             "publication) : rien n'a été enregistré. Relancez l'aperçu.")
    _run_change(session, game, rnd, action, ref, word, reason, actor)
    audit.record(session=session, actor=actor, action="duplicate.change_applied",
                 target=game.code, round=rnd.number, change=action, digest=digest,
                 changed={str(r["player_id"]): [r["old_score"], r["new_score"]]
                          for r in now.rows if r["changed"]})
    return now
