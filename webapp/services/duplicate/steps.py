"""The Duplicate's scheduled steps (:func:`advance`, one per transaction under the game's row
lock): draw → close → correct (once the mail received by the close is processed:
:mod:`webapp.services.backlog`) → publish → next draw or finish; :func:`run_due` for every
game, :func:`upcoming_instants` for the scheduler; :func:`close_round_now`, the console's
« Clore le tour maintenant » (its facts first: :func:`close_now_preview`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlmodel import Session, col, select

from puzzles.duplicate.protocol import Finished
from webapp.db import session_scope
from webapp.models import (
    DuplicateGame,
    DuplicateRound,
    DuplicateStatus,
    RoundStatus,
)
from webapp.services import audit, backlog
from webapp.services.audit import PROCESS
from webapp.services.duplicate.correction import compute_results
from webapp.services.duplicate.game import (
    DuplicateError,
    all_answered,
    answered_players,
    config_of,
    current_round,
    deadline_after,
    game_of,
    lock_game,
    log,
    players_of,
    schedule_changed,
)
from webapp.services.duplicate.notices import (
    draw_notices,
    final_notices,
    reminder_notices,
    results_notices,
)
from webapp.services.stored import game_settings_of, rhythm_of, round_record_of
from webapp.services.submissions import setting

#: the round games waiting for a player, by his id (``player_space.waiting_games``, which
#: this package cannot import: it reads the correspondence games, which import this one)
Waiting = Callable[[Session, int], Sequence[Mapping[str, object]]]

#: one scheduled step of a game: its name and the round it was about
Step = Callable[[Session, DuplicateGame, datetime], tuple[str, int]]


def _nothing_else(_s: Session, _player_id: int) -> Sequence[Mapping[str, object]]:
    return []


def run_due(*, now: datetime, waiting: Waiting = _nothing_else) -> list[str]:
    """Every due step of every unfinished game; ``"<action>:<code>:<round>"`` per step.
    ``waiting``: what else waits for a player, listed in a round's reminder."""
    with session_scope() as s:
        ids = list(s.exec(select(DuplicateGame.id).where(
            col(DuplicateGame.status).in_((DuplicateStatus.SCHEDULED, DuplicateStatus.RUNNING))
        ).order_by(col(DuplicateGame.id))).all())
    done: list[str] = []
    for gid in ids:
        assert gid is not None
        try:
            done += advance(gid, now=now, waiting=waiting)
        except Exception:
            log.exception("duplicate %s: scheduled step failed", gid)
    return done


def advance(game_id: int, *, now: datetime, max_steps: int = 10_000,
            waiting: Waiting = _nothing_else) -> list[str]:
    """Do the due steps of one game, each in its own transaction (game row locked). Before a
    closed round is corrected, the mail received by its close and not processed yet is
    waited for (:func:`_wait_for_bulletins`)."""
    done: list[str] = []
    waited: set[int] = set()
    for _ in range(max_steps):
        _wait_for_bulletins(game_id, waited)
        with session_scope() as s:
            game = lock_game(s, game_id)
            if game is None:
                return done
            step = next_step(s, game, now)
            if step is None:
                rnd = current_round(s, game)
                if rnd is not None and reminder_due(game, rnd, now):
                    n = send_reminders(s, game, rnd, waiting)
                    if n:
                        audit.record(session=s, actor=audit.SYSTEM, action="duplicate.remind",
                                     target=game.code, round=rnd.number, at=now.isoformat(),
                                     process=PROCESS, mails=n)
                        done.append(f"remind:{game.code}:{rnd.number}")
                return done
            name, number = step(s, game, now)
            audit.record(session=s, actor=audit.SYSTEM, action=f"duplicate.{name}",
                         target=game.code, round=number, at=now.isoformat(), process=PROCESS)
            done.append(f"{name}:{game.code}:{number}")
    return done


def _wait_for_bulletins(game_id: int, waited: set[int]) -> None:
    """When the game's current round is closed and not yet corrected: wait (once per round,
    ``waited`` holds the rounds done) for the messages received by its close and still
    unprocessed (``backlog.wait_for_mail``) — bulletins sent in time at a deadline rush
    count. Outside the game row's lock, which processing a bulletin needs (FOR SHARE)."""
    with session_scope() as s:
        game = s.get(DuplicateGame, game_id)
        rnd = current_round(s, game) if game is not None else None
        if game is None or rnd is None or rnd.status != RoundStatus.CLOSED or rnd.id in waited:
            return
        waited.add(rnd.id or 0)
        closes_at, what = rnd.closes_at, f"duplicate {game.code} round {rnd.number}"
    backlog.wait_for_mail(closes_at, what)


def reminder_at(rnd: DuplicateRound) -> datetime | None:
    """When the open round's reminder is due: ``DUPLICATE_REMINDER_HOURS`` (12; 0: none)
    before its close, if that is after its opening (a shorter round, a live one, gets
    none: its draw notice gives the close)."""
    hours = setting("DUPLICATE_REMINDER_HOURS", 12)
    if hours <= 0 or rnd.status != RoundStatus.OPEN:
        return None
    at = rnd.closes_at - timedelta(hours=hours)
    return at if at > rnd.opens_at else None


def reminder_due(game: DuplicateGame, rnd: DuplicateRound, now: datetime) -> bool:
    at = reminder_at(rnd)
    return (game.status == DuplicateStatus.RUNNING and at is not None
            and at <= now < rnd.closes_at)


def send_reminders(s: Session, game: DuplicateGame, rnd: DuplicateRound,
                   waiting: Waiting = _nothing_else) -> int:
    """The round's reminder to every player without a readable bulletin that counts (as a
    problem's J-1 goes to those without a sheet), listing what else waits for him; the
    outbox's keys make it once per player and round (issue 22 §1)."""
    answered = answered_players(s, rnd)
    without = [p for p in players_of(s, game) if p.id not in answered]
    return reminder_notices(s, game, rnd, without,
                            lambda p: waiting(s, p.id or 0))


def next_step(s: Session, game: DuplicateGame, now: datetime) -> Step | None:
    if game.status == DuplicateStatus.FINISHED:
        return None
    rnd = current_round(s, game)
    if rnd is None:
        return draw_next if now >= game.starts_at else None
    if rnd.status == RoundStatus.OPEN:
        if now >= rnd.closes_at or (rhythm_of(game).get("kind") == "all_answered"
                                    and all_answered(s, game, rnd)):
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


def draw_next(s: Session, game: DuplicateGame, now: datetime) -> tuple[str, int]:
    """Draw round n+1 on the master game (the game's ``draw``: its draw and top) and open it
    at ``now`` (a server that was down opens it when it comes back, so the players still
    get a whole round); or end the game (RULES §4.9: bag over, no vowel or consonant left,
    the round limit reached, no move; a Superscrabble's racks played)."""
    last = current_round(s, game)
    number = (last.number + 1) if last else 1
    drawn = game_of(game).draw(game.state_text, game_settings_of(game), config_of(game),
                               number)
    if isinstance(drawn, Finished):
        game.state_text = drawn.state_text
        return finish(s, game, now)
    rnd = DuplicateRound(
        game_id=game.id or 0, number=number, opens_at=now,
        closes_at=deadline_after(rhythm_of(game), now, game.timezone), status=RoundStatus.OPEN,
        draw=dict(drawn.draw), state_before=drawn.state_before, grid_before=drawn.grid_before,
        top=dict(drawn.top),
    )
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


@dataclass(frozen=True)
class CloseNow:
    """What closing the open round now means, for the arbitre's confirmation page."""

    number: int  # the round
    deadline: datetime  # its announced close, still ahead
    registered: int  # players who may send a bulletin
    answered: int  # players whose bulletin that counts was read
    without: int  # the others: they can no longer send one for this round


def close_now_preview(s: Session, game: DuplicateGame) -> CloseNow:
    """The facts of :func:`close_round_now`; :class:`DuplicateError` (French) when no round
    is open."""
    rnd = _open_round_of(s, game)
    players = {p.id for p in players_of(s, game)}
    answered = answered_players(s, rnd)
    return CloseNow(number=rnd.number, deadline=rnd.closes_at, registered=len(players),
                    answered=len(players & answered), without=len(players - answered))


def _open_round_of(s: Session, game: DuplicateGame) -> DuplicateRound:
    rnd = current_round(s, game)
    if game.status != DuplicateStatus.RUNNING or rnd is None \
            or rnd.status != RoundStatus.OPEN:
        raise DuplicateError("Aucun tour n'est ouvert : il n'y a rien à clore.")
    return rnd


def close_round_now(*, session: Session, game: DuplicateGame, actor: str, reason: str,
                    now: datetime) -> DuplicateRound:
    """Close the open round before its deadline (the console's « Clore le tour maintenant »,
    as a problem's « Clore maintenant »): its close becomes ``now`` (a bulletin received
    afterwards is late), the audit log keeps who, why and the close first announced
    (``duplicate.close_early``), and the scheduler replans at once, so the correction and
    the results follow as after any close. ``game``: locked by the caller (FOR UPDATE).
    :class:`DuplicateError` (French) without a reason or an open round."""
    rnd = _open_round_of(session, game)
    if not reason.strip():
        raise DuplicateError("Indiquez le motif de la clôture anticipée (il figure au "
                             "journal).")
    announced = rnd.closes_at
    close_round(session, game, now)
    audit.record(session=session, actor=actor, action="duplicate.close_early",
                 target=game.code, round=rnd.number, reason=reason.strip(),
                 deadline_announced=announced.isoformat(), at=now.isoformat())
    schedule_changed(session)
    return rnd


def correct_round(s: Session, game: DuplicateGame, now: datetime) -> tuple[str, int]:
    rnd = current_round(s, game)
    assert rnd is not None and rnd.status == RoundStatus.CLOSED
    rnd.results = [dict(r) for r in compute_results(s, game, rnd)]
    rnd.status = RoundStatus.CORRECTED
    rnd.corrected_at = now
    s.add(rnd)
    return "correct", rnd.number


def publish_round(s: Session, game: DuplicateGame, now: datetime) -> tuple[str, int]:
    """Place the retained top on the master grid (the game's ``apply``) and send every
    player his result."""
    rnd = current_round(s, game)
    assert rnd is not None and rnd.status == RoundStatus.CORRECTED and rnd.top is not None
    game.state_text, rnd.grid_after = game_of(game).apply(
        round_record_of(rnd), game_settings_of(game), config_of(game))
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
                at = reminder_at(rnd)
                if at is not None:
                    out.add(at)
            elif rnd.status == RoundStatus.CORRECTED and rnd.closed_at is not None:
                out.add(rnd.closed_at + timedelta(minutes=game.review_minutes))
    return sorted(t for t in out if t > now)
