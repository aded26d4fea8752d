"""The two-player correspondence game (FRSc, docs/VARIANTS.md « Server »): RED and BLUE on a
letter row fixed at the start (``puzzles.correspondence``), one move each in turn.

A :class:`~webapp.models.CorrespondenceGame` stores the row and the moves; the game is
rebuilt by replaying them (``puzzles.correspondence.play``). The player to move has
``move_hours`` from the previous move (the start for RED's first); a reminder goes
``reminder_hours`` before that deadline; a move received after the deadline but within
``grace_hours`` still counts (the documented grace: the post or the mail may be slow); after
the grace, the player to move loses on time (result 0 – 1, his opponent wins whatever the
scores). Moves come by the web page (``/correspondance/<code>``) and by mail (the code in
the subject, first line ``H8 MOT`` or ``passe``). :func:`run_due` sends the reminders and
ends the games lost on time, each in its own transaction under the game row lock; every
mail goes through the outbox's ``dedupe_key``. The series table is
``puzzles.correspondence.series_table`` over the finished games of a competition.
"""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlmodel import Session, col, select

import puzzles.correspondence as corr
from puzzles.duplicate import Lang
from puzzles.seeds import MAX_SEED, new_secret_seed
from scoring.board import Board
from scoring.config import GameConfig
from scoring.notation import is_ref
from scoring.tiles import tileset
from webapp.db import session_scope
from webapp.models import (
    DEFAULT_TIMEZONE,
    Arbitre,
    AuditLog,
    Channel,
    Competition,
    CorrespondenceGame,
    CorrespondenceStatus,
    OutboxKind,
    Player,
    Registration,
)
from webapp.services import audit, backlog, changes, inputs, links, notify
from webapp.services.lexicons import base_lexicon
from webapp.services.submissions import setting, strip_controls
from webapp.services.timefmt import format_local

log = logging.getLogger(__name__)

PLAYING, FINISHED = CorrespondenceStatus.PLAYING, CorrespondenceStatus.FINISHED
KIND_TURN, KIND_REMINDER, KIND_FINAL = (
    OutboxKind.CORR_TURN, OutboxKind.CORR_REMINDER, OutboxKind.CORR_FINAL)
PASS_WORDS = {"PASSE", "PASSER", "PAS"}
#: the highest seed a letter row is drawn from (``puzzles.correspondence.row_from_seed``)
MAX_ROW_SEED = MAX_SEED


class CorrespondenceError(ValueError):
    """A French message for the arbitre or the player; nothing was changed."""


def settings_of(game: CorrespondenceGame) -> corr.CorrespondenceSettings:
    return corr.CorrespondenceSettings(lang=game.lang)


def config_of(game: CorrespondenceGame) -> GameConfig:
    return GameConfig(tileset=tileset(game.lang), lexicon=base_lexicon(game))


def state_of(game: CorrespondenceGame, config: GameConfig | None = None) -> corr.CorrState:
    """The game as it stands: the row, then every stored move replayed."""
    cfg = config or config_of(game)
    s = settings_of(game)
    state = corr.new_game(game.row, s)
    for m in game.moves:
        state = corr.play(state, m.get("ref"), m.get("word"), cfg, s)
    return state


def deadline(game: CorrespondenceGame) -> datetime:
    return game.turn_started_at + timedelta(hours=game.move_hours)


def lost_on_time_at(game: CorrespondenceGame) -> datetime:
    return deadline(game) + timedelta(hours=game.grace_hours)


def to_move(game: CorrespondenceGame) -> int:
    """The player id whose turn it is (RED after an even number of moves)."""
    return game.red_id if len(game.moves) % 2 == 0 else game.blue_id


def game_url(game: CorrespondenceGame) -> str | None:
    return links.absolute("correspondance", game.code)


# --- creating a game -------------------------------------------------------------------------


def create_game(
    *, session: Session, competition: Competition, red: Player, blue: Player, row: str,
    starts_at: datetime, title: str = "", code: str | None = None, lang: str = "fr",
    lexicon_name: str = "default", move_hours: int = 72, reminder_hours: int = 24,
    grace_hours: int = 24, timezone: str = DEFAULT_TIMEZONE, seed: int | None = None,
    actor: str = audit.SYSTEM,
) -> CorrespondenceGame:
    """A new game, RED to move from ``starts_at``; RED and BLUE must be registered in the
    series (``competition``); the row is checked against the tile set. An empty ``row`` is
    drawn from ``seed`` (:func:`draw_row`; ``None``: a fresh secret seed), the seed then
    stored with the game. ``timezone``: the zone of its pages, mails and sheet (the site's
    by default)."""
    if starts_at.tzinfo is None:
        raise ValueError("starts_at must be timezone-aware")
    try:
        inputs.zone_of(timezone)
    except ValueError as exc:
        raise CorrespondenceError(str(exc)) from None
    row, row_seed = draw_row(row, seed, lang)
    if red.id == blue.id:
        raise CorrespondenceError("ROUGE et BLEU doivent être deux joueurs différents.")
    for p in (red, blue):
        if session.exec(select(Registration.id).where(
                Registration.competition_id == competition.id,
                Registration.player_id == p.id)).first() is None:
            raise CorrespondenceError(f"{p.name} n'est pas inscrit à la série "
                                      f"« {competition.name} ».")
    if not 1 <= move_hours <= 24 * 60 or not 0 <= reminder_hours < move_hours \
            or not 0 <= grace_hours <= 24 * 30:
        raise CorrespondenceError("Délais : un coup en 1 à 1440 heures, le rappel avant ce "
                                  "délai, la tolérance entre 0 et 720 heures.")
    letters = row.replace(" ", "").upper()
    if len(letters) < 14:
        raise CorrespondenceError("La rangée doit compter au moins 14 lettres (7 pour chaque "
                                  "joueur).")
    try:
        corr.new_game(letters, corr.CorrespondenceSettings(lang=lang))
    except ValueError as exc:
        raise CorrespondenceError(str(exc)) from None
    try:
        title = inputs.check_line(title, "Titre", limit=200)
        if code is not None:
            inputs.check_code(code.strip(), "Code de la partie")
    except ValueError as exc:
        raise CorrespondenceError(str(exc)) from None
    code = (code or f"CORR-{secrets.token_hex(3)}").strip()
    if not code or any(c.isspace() for c in code):
        raise CorrespondenceError("Le code de la partie ne peut contenir d'espace.")
    if session.exec(select(CorrespondenceGame.id).where(
            CorrespondenceGame.code == code)).first():
        raise CorrespondenceError(f"Le code « {code} » est déjà pris.")
    assert competition.id is not None and red.id is not None and blue.id is not None
    game = CorrespondenceGame(
        code=code, competition_id=competition.id,
        title=title or inputs.one_line(f"{red.name} – {blue.name}")[:200], lang=lang,
        lexicon_name=lexicon_name, row=letters, red_id=red.id, blue_id=blue.id, moves=[],
        move_hours=move_hours, reminder_hours=reminder_hours, grace_hours=grace_hours,
        timezone=timezone, row_seed=row_seed, turn_started_at=starts_at, status=PLAYING,
    )
    game.lexicon_sha256 = base_lexicon(game).identity.sha256
    session.add(game)
    session.flush()
    _schedule_changed(session)
    audit.record(session=session, actor=actor, action="correspondence.create", target=code,
                 red=red.id, blue=blue.id, row=letters, row_seed=row_seed,
                 move_hours=move_hours, grace_hours=grace_hours, timezone=timezone)
    _turn_notice(session, game)
    return game


def _lang(lang: str) -> Lang:
    """``lang`` as a tile set's name, else a French refusal."""
    if lang == "fr":
        return "fr"
    if lang == "ro":
        return "ro"
    raise CorrespondenceError(f"Langue inconnue : « {inputs.shown(lang)} ».")


def draw_row(row: str, seed: int | None, lang: str) -> tuple[str, str]:
    """The row and the seed it was drawn from (``""`` for a typed row): a typed ``row``
    as it is, else the whole tile set in the order of ``seed``
    (``puzzles.correspondence.row_from_seed``; ``None``: a fresh secret 128-bit seed from
    ``secrets``, as the Duplicate's bag). Both given: the row must be the one the seed
    draws (a series' games share it), else a French refusal."""
    if seed is not None and not 0 <= seed <= MAX_ROW_SEED:
        raise CorrespondenceError(f"Graine de la rangée : de 0 à {MAX_ROW_SEED}.")
    tiles = _lang(lang)
    if row.strip():
        if seed is None:
            return row, ""
        if row.replace(" ", "").upper() != corr.row_from_seed(tiles, seed):
            raise CorrespondenceError(f"La rangée écrite n'est pas celle que tire la graine "
                                      f"{seed} : donnez l'une ou l'autre.")
        return row, str(seed)
    if seed is None:
        seed = new_secret_seed()
    return corr.row_from_seed(tiles, seed), str(seed)


def create_round_robin(
    *, session: Session, competition: Competition, players: list[Player], row: str,
    starts_at: datetime, code_prefix: str = "", lang: str = "fr",
    lexicon_name: str = "default", move_hours: int = 72, reminder_hours: int = 24,
    grace_hours: int = 24, timezone: str = DEFAULT_TIMEZONE, seed: int | None = None,
    actor: str = audit.SYSTEM,
) -> list[CorrespondenceGame]:
    """A whole series in one step (RULES §8.1: the row « is shared by a series of games »;
    pairings: a round robin within the group): every pair of ``players`` meets once, on
    the same row, each game started at ``starts_at`` (correspondence games of a series run
    side by side); the pairings and colours of ``puzzles.correspondence.round_robin`` (each
    player RED in half of his games, ± 1), in the order the players are given. Codes
    ``{prefix}-{round}-{board}`` (the prefix defaults to ``SERIE{competition id}``),
    titles « Tour r : ROUGE – BLEU ». Nothing is created when anything is refused (a player
    twice or not registered, a pair that already has a game in this series, the row). An
    empty ``row`` is drawn once from ``seed`` (:func:`draw_row`) for the whole series."""
    if len({p.id for p in players}) != len(players):
        raise CorrespondenceError("Un joueur est choisi deux fois.")
    if len(players) < 2:
        raise CorrespondenceError("Choisissez au moins deux joueurs pour le tournoi "
                                  "toutes rondes.")
    by_key = {str(p.id): p for p in players}
    existing = {frozenset((g.red_id, g.blue_id)) for g in session.exec(
        select(CorrespondenceGame).where(
            CorrespondenceGame.competition_id == competition.id)).all()}
    rounds = corr.round_robin([str(p.id) for p in players])
    for pairs in rounds:
        for red_key, blue_key in pairs:
            red, blue = by_key[red_key], by_key[blue_key]
            if frozenset((red.id, blue.id)) in existing:
                raise CorrespondenceError(f"{red.name} et {blue.name} ont déjà une partie dans "
                                          f"la série « {competition.name} ».")
    row, row_seed = draw_row(row, seed, lang)
    prefix = (code_prefix or f"SERIE{competition.id}").strip()
    try:  # the codes are « {prefix}-{round}-{board} »: room left for the two numbers
        inputs.check_code(prefix, "Préfixe des codes")
        if len(prefix) > inputs.CODE_MAX - 6:
            raise ValueError(f"Préfixe des codes : {len(prefix)} caractères, "
                             f"{inputs.CODE_MAX - 6} au plus.")
    except ValueError as exc:
        raise CorrespondenceError(str(exc)) from None
    games: list[CorrespondenceGame] = []
    for number, pairs in enumerate(rounds, 1):
        for board, (red_key, blue_key) in enumerate(pairs, 1):
            red, blue = by_key[red_key], by_key[blue_key]
            games.append(create_game(
                session=session, competition=competition, red=red, blue=blue, row=row,
                starts_at=starts_at,
                title=inputs.one_line(f"Tour {number} : {red.name} – {blue.name}")[:200],
                code=f"{prefix}-{number}-{board}", lang=lang, lexicon_name=lexicon_name,
                move_hours=move_hours, reminder_hours=reminder_hours,
                grace_hours=grace_hours, timezone=timezone,
                seed=int(row_seed) if row_seed else None, actor=actor))
    audit.record(session=session, actor=actor, action="correspondence.round_robin",
                 target=str(competition.id), players=[p.id for p in players],
                 games=[g.code for g in games], row=games[0].row if games else row)
    return games


# --- moves -----------------------------------------------------------------------------------


@dataclass
class MoveOutcome:
    game: CorrespondenceGame
    move: dict[str, Any]
    score: int
    recorded: int


def parse_move(text: str) -> tuple[str | None, str | None]:
    """``H8 MOT`` (reference then word, or word then reference) or « passe »."""
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    parts = line.split()
    if len(parts) == 1 and parts[0].upper() in PASS_WORDS:
        return None, None
    if len(parts) < 2:
        raise CorrespondenceError("Coup illisible : écrivez la référence et le mot (« H8 MOT »)"
                                  " ou « passe ».")
    ref, word = parts[0], parts[1]
    if not is_ref(ref) and is_ref(word):
        ref, word = word, ref
    if not is_ref(ref):
        shown = parts[0] if len(parts[0]) <= 20 else f"{parts[0][:20]}…"
        raise CorrespondenceError(f"Référence illisible : « {shown} ».")
    return ref, word


def submit_move(*, session: Session, player: Player, game: CorrespondenceGame, text: str,
                channel: Channel, received_at: datetime) -> MoveOutcome:
    """The player to move plays (or passes); French :class:`CorrespondenceError` when it is
    not his turn, the game is over, the move is late beyond the grace, or illegal. The game
    row is locked; the opponent is told it is his turn, both get the result at the end."""
    if received_at.tzinfo is None:
        raise ValueError("received_at must be timezone-aware")
    text = strip_controls(text)
    locked = session.get(CorrespondenceGame, game.id, with_for_update=True)
    assert locked is not None
    game = locked
    if game.status != PLAYING:
        raise CorrespondenceError(f"La partie {game.code} est terminée : {game.end_reason}")
    if player.id not in (game.red_id, game.blue_id):
        raise CorrespondenceError(f"Vous ne jouez pas la partie {game.code}.")
    if player.id != to_move(game):
        raise CorrespondenceError("Ce n'est pas votre tour : votre adversaire doit jouer.")
    if received_at < game.turn_started_at:
        raise CorrespondenceError("La partie n'a pas encore commencé : premier coup à partir "
                                  f"du {format_local(game.turn_started_at, game.timezone)}.")
    if received_at > lost_on_time_at(game):
        raise CorrespondenceError("Coup reçu après le délai et sa tolérance : la partie est "
                                  "perdue au temps.")
    ref, word = parse_move(text)
    config = config_of(game)
    before = state_of(game, config)
    try:
        after = corr.play(before, ref, word, config, settings_of(game))
    except ValueError as exc:
        raise CorrespondenceError(str(exc)) from None
    last = after.moves[-1]
    move = {"ref": last.ref, "word": last.word, "at": received_at.isoformat(),
            "started": game.turn_started_at.isoformat(),
            "channel": channel, "late": received_at > deadline(game)}
    game.moves = [*game.moves, move]
    game.turn_started_at = received_at
    if after.finished:
        _finish(session, game, after, after.end_reason, received_at)
    session.add(game)
    session.flush()
    _schedule_changed(session)  # a new deadline: the scheduler's leader replans now
    audit.record(session=session, actor=f"player:{player.id}", action="correspondence.move",
                 target=game.code, move=len(game.moves), ref=last.ref, word=last.word,
                 score=last.score, channel=channel, late=move["late"])
    if game.status == PLAYING:
        _turn_notice(session, game, last=last)
    return MoveOutcome(game, move, int(last.score), int(last.recorded))


def _schedule_changed(session: Session) -> None:
    """The deadlines moved: bump the scheduler's change counter in this transaction."""
    changes.bump(session.connection())


def _finish(session: Session, game: CorrespondenceGame, state: Any, reason: str,
            now: datetime, *, loser: int | None = None) -> None:
    if loser is None:
        red, blue = corr.result(state)
    else:
        red, blue = (0.0, 1.0) if loser == game.red_id else (1.0, 0.0)
    game.status, game.end_reason = FINISHED, reason
    game.result_red, game.result_blue = red, blue
    game.finished_at = now
    session.add(game)
    session.flush()
    _final_notices(session, game, state)


# --- the scheduled steps ---------------------------------------------------------------------


#: the round games waiting for a player, by his id (``player_space.waiting_games``, which
#: this module cannot import: it reads the correspondence games through this one)
Waiting = Callable[[Session, int], list[dict[str, Any]]]


def _nothing_else(_s: Session, _player_id: int) -> list[dict[str, Any]]:
    return []


def run_due(*, now: datetime, waiting: Waiting = _nothing_else) -> list[str]:
    """Reminders due and games lost on time; ``"<action>:<code>:<move>"`` per step.
    ``waiting``: what else waits for a player, listed in his reminder (issue 22 §1)."""
    with session_scope() as s:
        ids = list(s.exec(select(CorrespondenceGame.id).where(
            CorrespondenceGame.status == PLAYING).order_by(col(CorrespondenceGame.id))).all())
    done: list[str] = []
    for gid in ids:
        try:
            _wait_for_moves(gid, now)
            with session_scope() as s:
                game = s.get(CorrespondenceGame, gid, with_for_update=True)
                if game is None or game.status != PLAYING:
                    continue
                n = len(game.moves)
                if now >= lost_on_time_at(game):
                    loser = to_move(game)
                    colour = "ROUGE" if loser == game.red_id else "BLEU"
                    until = format_local(lost_on_time_at(game), game.timezone)
                    _finish(s, game, state_of(game), f"{colour} perd au temps (aucun coup "
                            f"reçu avant le {until}).", now, loser=loser)
                    audit.record(session=s, actor=audit.SYSTEM, action="correspondence.time",
                                 target=game.code, move=n + 1, loser=loser)
                    done.append(f"time:{game.code}:{n + 1}")
                elif (now >= deadline(game) - timedelta(hours=game.reminder_hours)
                      and game.reminded_moves != n):
                    game.reminded_moves = n
                    s.add(game)
                    _reminder(s, game, waiting)
                    done.append(f"remind:{game.code}:{n + 1}")
        except Exception:
            log.exception("correspondence %s: scheduled step failed", gid)
    return done


def _wait_for_moves(game_id: int | None, now: datetime) -> None:
    """Before a game is declared lost on time: the mail received by the end of the grace and
    not processed yet (``backlog.wait_for_mail``) — a move sent in time at a rush is played,
    not lost. Outside the game row's lock, which playing the move takes."""
    with session_scope() as s:
        game = s.get(CorrespondenceGame, game_id)
        if game is None or game.status != PLAYING or now < lost_on_time_at(game):
            return
        until, what = lost_on_time_at(game), f"correspondence {game.code}"
    backlog.wait_for_mail(until, what)


def upcoming_instants(*, now: datetime) -> list[datetime]:
    out: set[datetime] = set()
    with session_scope() as s:
        for g in s.exec(select(CorrespondenceGame).where(
                CorrespondenceGame.status == PLAYING)).all():
            if g.reminded_moves != len(g.moves):
                out.add(deadline(g) - timedelta(hours=g.reminder_hours))
            out.add(lost_on_time_at(g))
    return sorted(t for t in out if t > now)


# --- mail ------------------------------------------------------------------------------------


def claim_mail(*, session: Session, player: Player, subject: str, text: str,
               received_at: datetime) -> tuple[CorrespondenceGame, str] | None:
    """A mail whose subject names a correspondence game the player plays: the move is
    played (or refused); returns the game and a note for the inbound log, else ``None``."""
    words = {w.upper() for w in re.findall(r"[\w-]+", subject or "")}
    if not words:
        return None
    games = [g for g in session.exec(select(CorrespondenceGame).where(
        (col(CorrespondenceGame.red_id) == player.id)
        | (col(CorrespondenceGame.blue_id) == player.id))).all() if g.code.upper() in words]
    if len(games) != 1:
        return None
    game = games[0]
    text = strip_controls(text)
    try:
        out = submit_move(session=session, player=player, game=game, text=text,
                          channel=Channel.EMAIL, received_at=received_at)
    except CorrespondenceError as exc:
        # one « coup refusé » answer per player, game and BULLETIN_WINDOW_SECONDS, not one
        # per message (no receipt storm)
        prefix = f"corr_refused:{game.id}:{player.id}:"
        window = setting("BULLETIN_WINDOW_SECONDS", 60) or 60
        if notify.answered_since(session, prefix, received_at - timedelta(seconds=window)):
            return game, f"coup refusé (déjà répondu dans la fenêtre) : {exc}"
        notify.enqueue(session=session, kind=KIND_TURN, to_addr=player.email,
                       template="corr_turn",
                       context={"player_name": player.name, "game_title": _title(game),
                                "refused": str(exc), "text": text.strip()[:500],
                                "game_url": game_url(game)},
                       player_id=player.id,
                       dedupe_key=f"{prefix}{int(received_at.timestamp() * 1_000_000)}")
        return game, f"coup refusé : {exc}"
    return game, f"coup {len(out.game.moves)} joué : {out.move['ref'] or 'passe'}"


def _title(game: CorrespondenceGame) -> str:
    return f"{game.title} ({game.code})"


def _players(session: Session, game: CorrespondenceGame) -> tuple[Player, Player]:
    red = session.get(Player, game.red_id)
    blue = session.get(Player, game.blue_id)
    assert red is not None and blue is not None
    return red, blue


def _turn_notice(session: Session, game: CorrespondenceGame, last: Any = None) -> None:
    red, blue = _players(session, game)
    p = red if to_move(game) == game.red_id else blue
    if not notify.deliverable(p):
        return
    state = state_of(game)
    colour = 0 if p.id == game.red_id else 1
    notify.enqueue(
        session=session, kind=KIND_TURN, to_addr=p.email, template="corr_turn",
        context={"player_name": p.name, "game_title": _title(game),
                 "move_no": len(game.moves) + 1,
                 "last": (f"{last.ref} {last.word} ({last.score} points)" if last and last.ref
                          else "passe" if last else None),
                 "rack": state.racks[colour], "grid": Board.from_cgp(state.board_cgp).to_ascii(),
                 "totals": f"ROUGE {state.recorded[0]} – BLEU {state.recorded[1]}",
                 "deadline": format_local(deadline(game), game.timezone),
                 "submission_address": notify.submission_address(p),
                 "subject_hint": game.code, "game_url": game_url(game)},
        dedupe_key=f"corr_turn:{game.code}:{len(game.moves) + 1}", player_id=p.id)


def _reminder(session: Session, game: CorrespondenceGame,
              waiting: Waiting = _nothing_else) -> None:
    """The player to move is reminded of this move, and of the other round games waiting for
    him (a Duplicate bulletin, another move: ``waiting``), as the problem and Duplicate
    reminders list them."""
    red, blue = _players(session, game)
    p = red if to_move(game) == game.red_id else blue
    if not notify.deliverable(p):
        return
    others = [g for g in waiting(session, p.id or 0) if g["code"] != game.code]
    notify.enqueue(
        session=session, kind=KIND_REMINDER, to_addr=p.email, template="corr_reminder",
        context={"player_name": p.name, "game_title": _title(game),
                 "move_no": len(game.moves) + 1,
                 "deadline": format_local(deadline(game), game.timezone),
                 "lost_at": format_local(lost_on_time_at(game), game.timezone),
                 "game_url": game_url(game), "waiting_games": others},
        dedupe_key=f"corr_reminder:{game.code}:{len(game.moves) + 1}", player_id=p.id)


def _final_notices(session: Session, game: CorrespondenceGame, state: Any) -> None:
    red, blue = _players(session, game)
    red_total, blue_total = state.totals
    result_of = {red.id: game.result_red, blue.id: game.result_blue}

    def context(p: Player) -> dict[str, Any]:
        mine = result_of[p.id]
        return {"player_name": p.name, "game_title": _title(game),
                "reason": game.end_reason, "red": red.name, "blue": blue.name,
                "red_total": red_total, "blue_total": blue_total,
                "result": {1.0: "gagnée", 0.5: "nulle", 0.0: "perdue"}.get(
                    mine if mine is not None else -1, ""),
                "game_url": game_url(game)}

    notify.fan_out(session=session, players=(red, blue),
                   key=lambda p: f"corr_final:{game.code}:{p.id}", kind=KIND_FINAL,
                   template="corr_final", context=context)


# --- the score sheet and the series ----------------------------------------------------------


def sheet_header(session: Session, game: CorrespondenceGame) -> Any:
    """The front of the fișa (``puzzles.correspondence.SheetHeader``): the series, RED and
    BLUE, the arbitres (those who acted on the game: its creation, in the audit log), RED's
    coefficient and rank in the series table of the games finished before this one was
    created (blank before his first)."""
    red, blue = _players(session, game)
    comp = session.get(Competition, game.competition_id)
    before = {row["name"]: row for row in series(session, game.competition_id,
                                                 before=game.created_at)}
    previous = before.get(red.name)
    return corr.SheetHeader(
        event=comp.name if comp else "", red=red.name, blue=blue.name,
        arbiters=", ".join(_arbiters(session, game)),
        red_coefficient=previous["coefficient"] if previous else None,
        red_rank=previous["rank"] if previous else None)


def sheet(session: Session, game: CorrespondenceGame) -> str:
    """The fișa de concurs of the game as it stands (``puzzles.correspondence.sheet_text``)
    as the raw record: the front (:func:`sheet_header`, the row and the grid), the back
    each move with its scores and its thinking time (received − turn start), then the end.
    ``puzzles.correspondence.parse_sheet`` rebuilds the game from it
    (``/correspondance/<code>/fiche.txt``); the game page shows it laid out
    (:func:`sheet_view`)."""
    return str(corr.sheet_text(state_of(game), sheet_header(session, game),
                                   times=thinking_times(game)))


@dataclass
class SheetMove:
    """One line of the back of the fișa: the move number, round (I, II…) and colour (0 RED,
    1 BLUE), the move (``ref``/``word``, both ``None`` for a pass), the score made and the
    score credited, the cap that credited less (``None`` when the whole score counts), the
    letters drawn after it, the thinking time (« 26h05 »), the instant received, the
    running totals credited (RED, BLUE)."""

    number: int
    round_no: int
    colour: int
    ref: str | None
    word: str | None
    score: int
    recorded: int
    cap: int | None
    drawn: str
    thinking: str
    received_at: datetime | None
    running: tuple[int, int]

    @property
    def capped(self) -> bool:
        return self.cap is not None and self.recorded < self.score

    @property
    def round_label(self) -> str:
        """The round in Roman numerals, as RULES §8.1 writes them (« I », « II »)."""
        return roman(self.round_no)


def roman(n: int) -> str:
    """``n`` (≥ 1) in Roman numerals: 1 → I, 4 → IV, 14 → XIV."""
    out = ""
    for value, mark in ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"),
                        (90, "XC"), (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"),
                        (4, "IV"), (1, "I")):
        while n >= value:
            out, n = out + mark, n - value
    return out


@dataclass
class SheetView:
    """The fișa de concurs laid out (RULES §8.1; the game page): front — the header
    (:func:`sheet_header`), the letter row (``row``, how many letters have come into play
    ``used``, the seed it was drawn from ``row_seed``), the grid (``state``); back — the
    opening caps (round in Roman numerals, RED's, BLUE's), the moves
    (:class:`SheetMove`), then when the game is over its end, the leftovers, the totals
    and the result, and whether a player lost on time (``lost_on_time``: the colour, 0 RED
    or 1 BLUE, else ``None``)."""

    header: Any
    row: str
    used: int
    row_seed: str
    caps: tuple[tuple[str, int, int], ...]
    moves: list[SheetMove]
    finished: bool
    end_reason: str
    leftover: tuple[int, int]
    totals: tuple[int, int]
    result: tuple[float | None, float | None]
    lost_on_time: int | None


def sheet_view(session: Session, game: CorrespondenceGame, state: Any = None) -> SheetView:
    state = state if state is not None else state_of(game)
    s = settings_of(game)
    times = thinking_times(game)
    moves: list[SheetMove] = []
    running = [0, 0]
    for i, m in enumerate(state.moves):
        running[m.colour] += m.recorded
        stored = game.moves[i] if i < len(game.moves) else {}
        at = datetime.fromisoformat(stored["at"]) if stored.get("at") else None
        moves.append(SheetMove(
            number=i + 1, round_no=m.round_no, colour=m.colour, ref=m.ref, word=m.word,
            score=m.score, recorded=m.recorded, cap=s.cap(m.round_no, m.colour),
            drawn=m.drawn, thinking=times[i] if i < len(times) else "",
            received_at=_aware(at) if at else None, running=(running[0], running[1])))
    lost = None
    if game.status == FINISHED and not state.finished:  # ended by the clock, not by play
        lost = 0 if (game.result_red or 0) < (game.result_blue or 0) else 1
    return SheetView(
        header=sheet_header(session, game), row=state.row, used=state.pos,
        row_seed=game.row_seed,
        caps=tuple((roman(rnd), red, blue) for rnd, red, blue in s.caps), moves=moves,
        finished=game.status == FINISHED, end_reason=game.end_reason,
        leftover=state.leftover, totals=state.totals,
        result=(game.result_red, game.result_blue), lost_on_time=lost)


def _arbiters(session: Session, game: CorrespondenceGame) -> list[str]:
    """The names of the arbitres who acted on the game (audit log), in name order."""
    actors = set(session.exec(select(AuditLog.actor).where(
        AuditLog.target == game.code)).all())
    people = session.exec(select(Arbitre).where(col(Arbitre.username).in_(sorted(actors)))).all()
    return sorted(a.name or a.username for a in people)


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def thinking_times(game: CorrespondenceGame) -> list[str]:
    """Each move's thinking time, « 26h05 »: received less the turn's start (stored with the
    move; for older moves the previous move, or the game's creation for the first)."""
    out: list[str] = []
    previous = _aware(game.created_at)
    for m in game.moves:
        at = datetime.fromisoformat(m["at"]) if m.get("at") else None
        began = datetime.fromisoformat(m["started"]) if m.get("started") else previous
        if at is None:
            out.append("")
            continue
        seconds = max(0, int((_aware(at) - _aware(began)).total_seconds()))
        out.append(f"{seconds // 3600}h{seconds % 3600 // 60:02d}")
        previous = _aware(at)
    return out


def series(session: Session, competition_id: int,
           before: datetime | None = None) -> list[dict[str, Any]]:
    """The table of a series: the finished games of the competition in order
    (``series_table``: W/D/L, points, spread, rating coefficient), and the round-robin
    pairings of its players (``round_robin``). ``before``: only the games finished
    before that instant (the table as it stood then)."""
    query = select(CorrespondenceGame).where(
        CorrespondenceGame.competition_id == competition_id,
        CorrespondenceGame.status == FINISHED)
    if before is not None:
        query = query.where(col(CorrespondenceGame.finished_at) < before)
    games = list(session.exec(query.order_by(
        col(CorrespondenceGame.finished_at), col(CorrespondenceGame.id))).all())
    names = {p.id: p.name for p in session.exec(select(Player)).all()}
    records = []
    for g in games:
        state = state_of(g)
        red_total, blue_total = state.totals
        if (g.result_red, g.result_blue) != corr.result(state):
            # lost on time: the result decides whatever the scores; the game counts in the
            # spread as won by one point (INFERRED)
            red_total, blue_total = (1, 0) if (g.result_red or 0) > (g.result_blue or 0) \
                else (0, 1)
        records.append(corr.GameRecord(names.get(g.red_id, str(g.red_id)),
                                      names.get(g.blue_id, str(g.blue_id)), red_total,
                                      blue_total))
    rows = corr.series_table(records)
    return [{"rank": r.rank, "name": r.player, "games": r.games, "wins": r.wins,
             "draws": r.draws, "losses": r.losses, "points": r.points, "spread": r.spread,
             "coefficient": r.coefficient} for r in rows]
