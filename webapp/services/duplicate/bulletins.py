"""A player's Duplicate bulletin, by web or mail: stored raw first, parsed, flagged late,
acknowledged; a bulletin received on time but stored after the close still counts.

Control characters are stripped first (``submissions.strip_controls``, as the sheets' NUL).
A bulletin beyond a bound is refused before anything is stored (:class:`BulletinRefused`,
French): a bulletin line longer than ``BULLETIN_MAX_CHARS`` (a Superscrabble sheet, which
lists every scrabble of the round: ``BULLETIN_TEXT_MAX_CHARS``), a text longer than
``BULLETIN_TEXT_MAX_CHARS``, more than ``BULLETIN_MAX_SOLUTIONS`` solutions, more than
``BULLETIN_VERSIONS_PER_ROUND`` versions for the round, or more than ``BULLETINS_PER_WINDOW``
for the round in ``BULLETIN_WINDOW_SECONDS`` (the sheets' rate, ``submissions.setting``);
0 lifts a bound.

The same bulletin posted twice in a moment from the web form (a double click, a second Enter)
is one bulletin: when the player's last version for the round has the same text (SHA-256),
came from the form too, on the same side of the close, at most ``BULLETIN_REPOST_SECONDS``
(10) before, no version is added and no second receipt sent; the outcome is that version's,
with ``repeated`` set (0: every post is a version). A mail is a message of its own (its
answer, its inbound row): two mails are two versions, as before."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlmodel import Session, col, select

from webapp.models import (
    Channel,
    DuplicateEntry,
    DuplicateGame,
    DuplicateRound,
    DuplicateStatus,
    OutboxKind,
    Player,
    Problem,
    ProblemStatus,
    Registration,
    RoundStatus,
)
from webapp.services import audit, notify
from webapp.services.duplicate.correction import compute_results
from webapp.services.duplicate.game import (
    BulletinRefused,
    DuplicateError,
    all_answered,
    first_line,
    game_of,
    game_url,
    lock_game,
    parse_text,
    schedule_changed,
)
from webapp.services.stored import rhythm_of
from webapp.services.submissions import duration_fr, setting, strip_controls
from webapp.services.timefmt import format_local


@dataclass
class BulletinOutcome:
    entry: DuplicateEntry
    round: DuplicateRound
    late: bool
    errors: list[str]
    #: the same bulletin re-posted within ``BULLETIN_REPOST_SECONDS``: ``entry`` is the
    #: version already stored, nothing was added and no receipt sent
    repeated: bool = False


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
    the player is not registered; :class:`BulletinRefused` beyond a bound (nothing is
    stored, no receipt)."""
    if received_at.tzinfo is None:
        raise ValueError("received_at must be timezone-aware")
    assert player.id is not None and game.id is not None
    text = strip_controls(text)
    registered = session.exec(select(Registration.id).where(
        Registration.competition_id == game.competition_id,
        Registration.player_id == player.id)).first()
    if registered is None:
        raise DuplicateError(f"Vous n'êtes pas inscrit à la partie « {game.title} » "
                             f"({game.code}).")
    # serialise two bulletins of one player (web and mail at once) before reading the
    # version. The player's row first, then the game: the order of a mail batch, which locks
    # its players' rows at its start (pipeline, SheetBatch), so that a step waiting for the
    # game can never close a cycle of waits between a batch and a web bulletin.
    session.execute(sa.update(Player).where(col(Player.id) == player.id)
                    .values(bounce_count=Player.bounce_count))
    # A shared lock on the game (PostgreSQL): a scheduled step (which takes it alone) waits
    # until this bulletin is in, so a correction never misses an on-time bulletin still
    # being written; the bulletins that come once a step waits wait behind it (lock_game).
    lock_game(session, game.id, shared=True)
    rnd = session.exec(
        select(DuplicateRound).where(DuplicateRound.game_id == game.id,
                                     DuplicateRound.opens_at <= received_at)
        .order_by(col(DuplicateRound.number).desc()).limit(1)
    ).first()
    if rnd is None:
        raise DuplicateError(
            f"La partie « {game.title} » ({game.code}) n'a pas encore commencé : le premier "
            f"tirage sera publié le {format_local(game.starts_at, game.timezone)}.")
    last = session.exec(
        select(DuplicateEntry).where(DuplicateEntry.round_id == rnd.id,
                                     DuplicateEntry.player_id == player.id)
        .order_by(col(DuplicateEntry.version).desc()).limit(1)
    ).first()
    sha256 = hashlib.sha256(text.encode("utf-8")).hexdigest()
    late = received_at > rnd.closes_at
    if _repeated(last, sha256, channel, late, received_at):
        assert last is not None
        audit.record(session=session, actor=f"player:{player.id}",
                     action="duplicate.bulletin_repeated", target=f"duplicate_entry:{last.id}",
                     game=game.code, round=rnd.number, version=last.version, channel=channel)
        return BulletinOutcome(entry=last, round=rnd, late=last.late,
                               errors=list(last.parse_errors or []), repeated=True)
    _check_bounds(session, game, rnd, player, text, last, received_at)
    errors, bulletin = parse_text(text, game.variant)  # never raises
    most = setting("BULLETIN_MAX_SOLUTIONS", 5)
    solutions = game_of(game).solution_count(bulletin)
    if most > 0 and solutions > most:
        raise _refused(session, game, player, received_at,
                       f"Trop de solutions sur le bulletin : {solutions}, au "
                       f"plus {most}. Il n'a pas été enregistré.")
    entry = DuplicateEntry(
        round_id=rnd.id or 0, player_id=player.id, version=(last.version + 1) if last else 1,
        channel=channel, received_at=received_at, raw_text=text,
        sha256=sha256, late=late,
        inbound_message_id=inbound_message_id,
    )
    session.add(entry)
    session.flush()  # the raw text is in before anything that could fail
    entry.parse_errors, entry.bulletin = errors, None if bulletin is None else dict(bulletin)
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
            "late": late, "channel": channel, "bulletin": game_of(game).bulletin_line(bulletin),
            "errors": errors, "text": text, "replaces_previous": last is not None,
            "entry_ref": f"n° {entry.id}, version {entry.version}", "sha256": entry.sha256,
            "game_url": game_url(game),
        },
        dedupe_key=f"duplicate_receipt:{entry.id}", fresh_key=True, player_id=player.id,
        headers=headers,
    )
    session.flush()
    if (not late and rnd.status == RoundStatus.OPEN
            and rhythm_of(game).get("kind") == "all_answered"
            and all_answered(session, game, rnd)):
        # the last awaited bulletin: the round closes early, so the scheduler's leader (in
        # whichever process) must replan now, not at the deadline (webapp.services.changes)
        schedule_changed(session)
    if not late and rnd.status != RoundStatus.OPEN:
        # received on time, stored after the close (a slow request): it still counts
        if rnd.status == RoundStatus.CORRECTED:
            rnd.results = [dict(r) for r in compute_results(session, game, rnd)]
            session.add(rnd)
        audit.record(session=session, actor=audit.SYSTEM, action="duplicate.bulletin_after_close",
                     target=f"duplicate_entry:{entry.id}", game=game.code, round=rnd.number,
                     status=rnd.status, recorrected=rnd.status == RoundStatus.CORRECTED)
    return BulletinOutcome(entry=entry, round=rnd, late=late, errors=errors)


def _repeated(last: DuplicateEntry | None, sha256: str, channel: Channel, late: bool,
              received_at: datetime) -> bool:
    """Whether this web post is ``last`` again (the module's docstring): same text, from the
    form, same side of the close, within ``BULLETIN_REPOST_SECONDS`` of it."""
    window = setting("BULLETIN_REPOST_SECONDS", 10)
    if last is None or window <= 0 or channel != Channel.WEB or last.channel != channel \
            or last.sha256 != sha256 or bool(last.late) != late:
        return False
    # (stored times are aware: webapp.db.UTCDateTime; received_at is checked aware above)
    return timedelta(0) <= received_at - last.received_at <= timedelta(seconds=window)


def _refused(session: Session, game: DuplicateGame, player: Player, received_at: datetime,
             message: str) -> BulletinRefused:
    """The refusal, and whether one was answered by mail in the last
    ``BULLETIN_WINDOW_SECONDS`` (its answers' dedupe keys share a prefix)."""
    window = setting("BULLETIN_WINDOW_SECONDS", 60) or 60
    prefix = f"duplicate_refused:{game.id}:{player.id}:"
    answered = notify.answered_since(session, prefix, received_at - timedelta(seconds=window))
    stamp = int(received_at.timestamp() * 1_000_000)
    return BulletinRefused(message, title=f"{game.title} ({game.code})",
                           reply_key=f"{prefix}{stamp}", answered=answered)


def _check_bounds(session: Session, game: DuplicateGame, rnd: DuplicateRound, player: Player,
                  text: str, last: DuplicateEntry | None, received_at: datetime) -> None:
    """:class:`BulletinRefused` beyond a bound of the text or of the player's rate (the
    module's docstring); nothing is stored then."""
    line, most = first_line(text), setting("BULLETIN_MAX_CHARS", 200)
    if game_of(game).scrabble_sheet:  # a sheet lists every scrabble of the round
        most = setting("BULLETIN_TEXT_MAX_CHARS", 2000)
    if most > 0 and len(line) > most:
        raise _refused(session, game, player, received_at,
                       f"Bulletin trop long : {len(line)} caractères sur sa ligne, au plus "
                       f"{most}. Un bulletin tient en une ligne (ex. « H4 RESTAIt 70 ») ; il "
                       "n'a pas été enregistré.")
    most = setting("BULLETIN_TEXT_MAX_CHARS", 2000)
    if most > 0 and len(text) > most:
        raise _refused(session, game, player, received_at,
                       f"Message trop long : {len(text)} caractères, au plus {most}. Il n'a "
                       "pas été enregistré ; renvoyez le bulletin seul, sur une ligne.")
    most = setting("BULLETIN_VERSIONS_PER_ROUND", 30)
    if most > 0 and last is not None and last.version >= most:
        raise _refused(session, game, player, received_at,
                       f"Vous avez déjà envoyé {last.version} bulletins pour le tour "
                       f"{rnd.number} : au plus {most} par tour. Celui-ci n'a pas été "
                       "enregistré ; le dernier reçu compte.")
    limit = setting("BULLETINS_PER_WINDOW", 10)
    window = setting("BULLETIN_WINDOW_SECONDS", 60)
    if limit > 0:
        recent = session.execute(
            sa.select(sa.func.count(col(DuplicateEntry.id)))
            .where(col(DuplicateEntry.round_id) == rnd.id,
                   col(DuplicateEntry.player_id) == player.id,
                   col(DuplicateEntry.received_at) > received_at - timedelta(seconds=window),
                   col(DuplicateEntry.received_at) <= received_at)).scalar_one()
        if recent >= limit:
            raise _refused(session, game, player, received_at,
                           f"Trop de bulletins envoyés en peu de temps : au plus {limit} par "
                           f"{duration_fr(window)}. Votre bulletin n'a pas été enregistré ; "
                           "renvoyez-le dans un moment.")


def form_text(text: str) -> str:
    """What the web form shows again after a refusal: the text typed, cut at
    ``BULLETIN_TEXT_MAX_CHARS`` (a refused 100 KB bulletin must not come back whole)."""
    most = setting("BULLETIN_TEXT_MAX_CHARS", 2000)
    return text[:most] if most > 0 else text


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
    text = strip_controls(text)
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
        if len(running) != 1 or parse_text(text, running[0].variant)[1] is None:
            return None
        game = running[0]
    return submit_bulletin(session=session, player=player, game=game, text=text.strip(),
                           channel=Channel.EMAIL, received_at=received_at,
                           inbound_message_id=inbound_message_id, in_reply_to=in_reply_to)
