"""The mail pipeline: receive -> parse -> rules -> submit -> reply.

Owns the stages after the bytes arrive, whatever the channel (SMTP, LMTP, IMAP):

1. :func:`store_raw` writes the whole message (bytes, SHA-256, envelope, receive time) in its
   own transaction. Only after that commit may a listener answer ``250``; if it raises, the
   listener answers ``451`` and the sender retries.
2. :func:`process` (idempotent, one transaction) runs the stages of :func:`run_stages`, one
   function each, each returning an :class:`Outcome` (final status and note) when it decides
   the message, or None to go on (as Mailman 3's runners): :func:`deduplicate`,
   :func:`apply_rules` (bounces recorded through ``webapp.services.players``),
   :func:`identify_player`, :func:`claim_for_games` (correspondence moves, Duplicate
   bulletins), :func:`choose_problem`, :func:`submit` (``submissions.submit_sheet`` stores
   the sheet and enqueues the receipt in the same transaction). Replies (instructions,
   ambiguity, unreadable message) are put in the outbox in that transaction too. Any
   exception: the work is rolled back and the message is **quarantined** (status + error),
   never dropped; :func:`replay` and :func:`discard` are the arbitre's tools.
3. :func:`process_pending` picks up messages left ``stored`` by a crash between 1 and 2.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import Message
from email.parser import BytesHeaderParser
from email.policy import compat32
from email.policy import default as default_policy
from typing import Any

import sqlalchemy as sa
from flask import Flask
from sqlalchemy.orm.attributes import set_committed_value
from sqlmodel import Session, select

from mailer import identify, parse, rules
from mailer.settings import MailSettings
from mailer.txn import write_scope
from webapp.db import session_scope
from webapp.models import (
    Channel,
    CorrespondenceGame,
    DuplicateGame,
    DuplicateStatus,
    InboundChannel,
    InboundMessage,
    InboundStatus,
    OutboxKind,
    OutboxMessage,
    Player,
    Problem,
    ProblemStatus,
)
from webapp.services import (
    addresses,
    clock,
    correspondence,
    duplicate,
    notify,
    players,
    submissions,
)

log = logging.getLogger(__name__)

#: Problem statuses that still take sheets: after the deadline (closed, verified,
#: provisional ranking) a sheet is stored as a late version for the arbitre to accept or
#: not, as on the web; only a final ranking closes the door.
ACCEPTING = (ProblemStatus.OPEN, ProblemStatus.CLOSED, ProblemStatus.VERIFIED,
             ProblemStatus.PROVISIONAL)
#: The problems a sheet naming no problem may be meant for (the « only open problem » rule).
CURRENT = (ProblemStatus.OPEN, ProblemStatus.CLOSED)
#: Outbox kinds written by this pipeline, counted by the per-address rate limit.
REPLY_KINDS = (OutboxKind.INSTRUCTIONS, OutboxKind.AMBIGUITY, OutboxKind.PARSE_ERRORS,
               OutboxKind.REFUSED_TOO_LARGE, OutboxKind.REFUSED)


@dataclass(frozen=True)
class Stored:
    """A message stored whole (its ``InboundMessage`` id): the listener may answer 250."""

    id: int


#: a Message-ID as mailers write it: ``<left@right>``, dot-atom text only (no comment,
#: quoted string, escape or encoded word), with folding white space around
_SIMPLE_MESSAGE_ID = re.compile(
    r"[ \t\r\n]*<[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+>"
    r"[ \t\r\n]*\Z")


def _message_id(raw: bytes, legacy: Message | None = None) -> str | None:
    """The message's ``Message-ID`` as the default policy reads it, white space removed.
    ``legacy``: the headers already parsed with the legacy policy — a simple Message-ID
    (:data:`_SIMPLE_MESSAGE_ID`) is read from them as it stands, which is what the
    default policy makes of it, without parsing the headers again."""
    if legacy is not None:
        simple = legacy.get("Message-ID")
        if isinstance(simple, str) and _SIMPLE_MESSAGE_ID.match(simple):
            return "".join(simple.split())[:998]
    try:
        headers = BytesHeaderParser(policy=default_policy).parsebytes(raw)
        value = headers.get("Message-ID")
    except Exception:
        return None
    if value is None:
        return None
    text = "".join(str(value).split())
    return text[:998] or None


def store_raw(
    app: Flask,
    raw: bytes,
    *,
    channel: InboundChannel,
    envelope_from: str,
    envelope_to: list[str],
    received_at: datetime | None = None,
) -> Stored:
    """Store the message whole and commit. Raises if the database is unavailable."""
    (inbound_id,) = store_many(
        app, [Incoming(raw, channel, envelope_from, envelope_to, received_at or clock.now())]
    )
    return Stored(inbound_id)


@dataclass(frozen=True)
class Incoming:
    raw: bytes
    channel: InboundChannel
    envelope_from: str
    envelope_to: list[str]
    received_at: datetime


def _inbound_row(item: Incoming) -> dict[str, Any]:
    """The stored message's row, as the ``INSERT``'s parameters (every column but the id,
    with the model's defaults)."""
    legacy: Message | None = None
    try:
        # Headers only, legacy policy: cheap, and never fails on odd header syntax.
        legacy = BytesHeaderParser(policy=compat32).parsebytes(item.raw)
        auth = identify.auth_results(legacy)
    except Exception:
        auth = {}
    return {
        "received_at": item.received_at,
        "channel": InboundChannel(item.channel),
        "envelope_from": item.envelope_from or "",
        "envelope_to": list(item.envelope_to),
        "message_id": _message_id(item.raw, legacy),
        "raw": item.raw,
        "sha256": hashlib.sha256(item.raw).hexdigest(),
        "size": len(item.raw),
        "status": InboundStatus.STORED,
        "error": None,
        "auth_results": auth,
        "player_id": None,
        "problem_id": None,
        "submission_id": None,
        "processed_at": None,
    }


_INBOUND_TABLE = InboundMessage.__table__  # type: ignore[attr-defined]
#: :func:`store_many`'s statement, built once: one executemany for the group, the new ids
#: in the rows' order (one round trip on PostgreSQL)
_INSERT_INBOUND = (sa.insert(_INBOUND_TABLE)
                   .returning(_INBOUND_TABLE.c.id, sort_by_parameter_order=True))


def store_many(app: Flask, items: list[Incoming], *, notify: bool = False) -> list[int]:
    """Store several messages in one transaction (group commit: one disk sync for all the
    SMTP sessions waiting on it). All or nothing; raises if the database is unavailable.
    ``notify`` (PostgreSQL): the commit NOTIFYs :data:`STORED_CHANNEL`, which wakes the
    worker processes."""
    rows = [_inbound_row(item) for item in items]
    with write_scope(app) as session:
        ids = list(session.execute(_INSERT_INBOUND, rows).scalars())
        if notify:
            session.execute(sa.select(sa.func.pg_notify(STORED_CHANNEL, "")))
    assert all(i is not None for i in ids)
    return [int(i) for i in ids if i is not None]


def _recent_replies(session: Session, to_addr: str, now: datetime) -> list[datetime]:
    rows = session.exec(
        select(OutboxMessage.created_at).where(
            sa.func.lower(OutboxMessage.to_addr) == to_addr.lower(),
            OutboxMessage.kind.in_(REPLY_KINDS),  # type: ignore[attr-defined]
            OutboxMessage.created_at > now - timedelta(hours=1),
        )
    ).all()
    return list(rows)


def _recent_instructions(session: Session, now: datetime) -> list[datetime]:
    """When the instructions to non-players (``player_id`` empty) went, in the last hour."""
    rows = session.exec(
        select(OutboxMessage.created_at).where(
            OutboxMessage.kind == OutboxKind.INSTRUCTIONS,
            OutboxMessage.player_id.is_(None),  # type: ignore[union-attr]
            OutboxMessage.created_at > now - timedelta(hours=1),
        )
    ).all()
    return list(rows)


def _reply(
    session: Session,
    settings: MailSettings,
    *,
    kind: OutboxKind,
    to_addr: str,
    context: dict[str, Any],
    inbound: InboundMessage,
    msg: Any,
    player_id: int | None = None,
    template: str | None = None,
    dedupe_key: str | None = None,
) -> bool:
    """Queue an automatic answer unless the address had too many in the last hour.
    ``template``: the mail's template when it is not named as ``kind``; ``dedupe_key``:
    one answer for every message sharing it (by default one per inbound message)."""
    now = clock.now()
    if addresses.address_problem(to_addr) is not None:
        # Nothing can be sent there (and a bad To must never reach the outbox).
        log.info("reply to %r suppressed: unusable address", to_addr)
        return False
    if rules.rate_limit_exceeded(
        _recent_replies(session, to_addr, now), now, per_hour=settings.reply_rate_per_hour
    ):
        log.info("reply to %s suppressed: rate limit", to_addr)
        return False
    if kind == OutboxKind.INSTRUCTIONS and player_id is None and rules.rate_limit_exceeded(
        _recent_instructions(session, now), now, per_hour=settings.instructions_per_hour
    ):
        # A stranger cycling through forged From addresses must not turn the intake into
        # a mail cannon: the instructions to non-players, all addresses together, are
        # bounded. Those to a registered address (player_id set) are not counted, so a
        # flood cannot starve a player of his own instructions.
        log.info("instructions to %s suppressed: global limit", to_addr)
        return False
    headers = {"Auto-Submitted": "auto-replied"}
    if inbound.message_id:
        headers["In-Reply-To"] = inbound.message_id
        headers["References"] = inbound.message_id
    if kind == OutboxKind.INSTRUCTIONS:
        # Never echo what a stranger wrote (the subject would make us relay his text).
        context["original_subject"] = None
    else:
        original_subject = parse.header(msg, "Subject") if msg is not None else ""
        context.setdefault("original_subject", original_subject or None)
    notify.enqueue(
        session=session,
        kind=kind,
        to_addr=to_addr,
        template=template or kind,
        context=context,
        dedupe_key=dedupe_key or f"{kind}:inbound:{inbound.id}",
        player_id=player_id,
        headers=headers,
    )
    return True


def _open_problems(session: Session) -> list[Problem]:
    return list(
        session.exec(
            select(Problem)
            .where(Problem.status.in_(ACCEPTING))  # type: ignore[attr-defined]
            .order_by(Problem.deadline_at)  # type: ignore[arg-type]
        ).all()
    )


def _problem_list(problems: list[Problem]) -> list[dict[str, Any]]:
    return [{"code": p.code, "title": p.title, "deadline": p.deadline_at} for p in problems]


def _not_accepting_note(session: Session, hints: identify.ProblemHints) -> str | None:
    """When the player named a problem that exists but takes no sheet, say so."""
    every = list(session.exec(select(Problem)).all())
    refs = [identify.ProblemRef(p.id or 0, p.code, p.title) for p in every]
    named = identify.match_problem(identify.ProblemHints(hints.explicit, hints.soft[:-1]), refs)
    if named is None:
        return None
    problem = next(p for p in every if p.id == named.id)
    if problem.status in (ProblemStatus.DRAFT, ProblemStatus.SCHEDULED):
        state = "n'est pas encore publié"
    else:
        state = "a déjà son classement définitif"
    return (f"Le problème « {problem.title} » ({problem.code}) {state} : il n'accepte pas de "
            "feuille de route.")


def _find_player_by_token(session: Session, token: str,
                          known: dict[str, Player] | None = None) -> Player | None:
    """The player holding ``token``; ``known``: the batch's players read by the tokens of
    its envelope recipients (:func:`_players_by_envelope_token`), looked up first."""
    player = known.get(token) if known else None
    if player is not None:
        return player
    player = session.exec(select(Player).where(Player.token == token)).first()
    if player is None:
        # Some mailers lower-case the whole address; tokens are compared case-insensitively.
        player = session.exec(
            select(Player).where(sa.func.lower(Player.token) == token.lower())
        ).first()
    return player


def _players_by_envelope_token(session: Session, settings: MailSettings,
                               rows: list[InboundMessage], *,
                               lock: bool = False) -> dict[str, Player]:
    """For a batch: the players whose token is in an envelope recipient of one of its
    messages (``feuilles+TOKEN@...``), by token, in one query — the usual way a sheet names
    its player, so that a batch of sheets does not read its players one query each. A token
    found elsewhere (headers, subject, another case) is still looked up alone.

    ``lock``: their rows locked in id order (``FOR NO KEY UPDATE`` on PostgreSQL, the lock
    the sheet's entry check takes, :class:`webapp.services.submissions.SheetBatch`; on
    SQLite the batch's transaction holds the write lock already)."""
    tokens = {t for r in rows for a in (r.envelope_to or ())
              if (t := identify.token_from_address(a, settings.submit_localpart))}
    if not tokens:
        return {}
    query = select(Player).where(Player.token.in_(tokens))  # type: ignore[attr-defined]
    if lock:
        query = query.order_by(Player.id).with_for_update(key_share=True)  # type: ignore[arg-type]
    return {p.token: p for p in session.exec(query).all()}


def _bad_sender_note(address: str, problem: str | None) -> str:
    if problem is None:
        return ""
    return f" ; adresse d'expéditeur « {address} » inutilisable ({problem}) : pas de réponse"


@dataclass(frozen=True)
class Outcome:
    """What a stage decided for the message: its final status and the note the arbitre reads
    (``InboundMessage.error``). A stage returns one to end the message, or None to go on."""

    status: InboundStatus
    note: str | None = None


@dataclass
class Delivery:
    """One stored message on its way through the stages (the runners' shared state)."""

    session: Session
    settings: MailSettings
    row: InboundMessage
    msg: Any = None
    #: what the messages of one batch (one transaction) share: the problems taking sheets
    #: are read once per batch, not once per message
    shared: dict[str, Any] = field(default_factory=dict)
    #: the player and problem found by the stages, written to the row when it is finished
    #: (one UPDATE of the row, not one autoflushed UPDATE per stage)
    player_id: int | None = None
    problem_id: int | None = None
    #: the other columns of the row a stage decided (a duplicate's player and problem, the
    #: sheet stored), written with the outcome by :func:`_process_in`
    row_values: dict[str, Any] = field(default_factory=dict)

    def reply(self, kind: OutboxKind, to_addr: str, context: dict[str, Any],
              player_id: int | None = None, *, template: str | None = None,
              dedupe_key: str | None = None) -> bool:
        return _reply(self.session, self.settings, kind=kind, to_addr=to_addr,
                      context=context, inbound=self.row, msg=self.msg, player_id=player_id,
                      template=template, dedupe_key=dedupe_key)


@dataclass(frozen=True)
class Identified:
    """The identify stage's result: the player, and the problems that take sheets."""

    player: Player
    problems: list[Problem]
    listed: list[Problem]  # shown as « problèmes ouverts »


def _finish(row: InboundMessage, outcome: Outcome) -> None:
    for key, value in _outcome_values(outcome).items():
        setattr(row, key, value)


def _outcome_values(outcome: Outcome) -> dict[str, Any]:
    """The row's columns that say how its processing ended."""
    return {"status": outcome.status, "error": outcome.note, "processed_at": clock.now()}


def _quarantine(row: InboundMessage, exc: BaseException) -> None:
    """The message stays visible and replayable: status, error, time."""
    _finish(row, Outcome(InboundStatus.QUARANTINED,
                         f"erreur de traitement : {type(exc).__name__}: {exc}"[:2000]))


#: what :func:`_earlier_copy_in` and :func:`deduplicate` read of an earlier message
_COPY_COLUMNS = ("id", "sha256", "message_id", "status", "player_id", "problem_id")


def _earlier_copies(session: Session, rows: list[InboundMessage],
                    loaded: dict[Any, InboundMessage] | None = None) -> dict[str, list[Any]]:
    """For a batch: every message before the batch's last one sharing the bytes (SHA-256)
    of one of its messages, by SHA-256, in id order (one query for the batch). The
    messages of the batch are among them: their status is read when each is checked.

    Those of ``loaded`` (the batch's objects, ``rows`` by default) are given as they are;
    the others as rows of the columns read (:data:`_COPY_COLUMNS`), what the query of the
    whole objects gave of them (the session holds no other message), without the batch's
    messages read again whole (their raw bytes)."""
    mine: dict[Any, Any] = dict(loaded) if loaded is not None else {r.id: r for r in rows}
    shas = {r.sha256 for r in rows}
    last = max(int(r.id or 0) for r in rows)
    table = InboundMessage.__table__  # type: ignore[attr-defined]
    copies: dict[str, list[Any]] = {}
    for other in session.execute(
        sa.select(*(table.c[name] for name in _COPY_COLUMNS))
        .where(table.c.sha256.in_(shas), table.c.id < last)
        .order_by(table.c.id)
    ):
        copies.setdefault(other.sha256, []).append(mine.get(other.id, other))
    return copies


def _earlier_copy_in(copies: dict[str, list[Any]], row: InboundMessage) -> Any:
    """The earliest message before ``row`` with the same Message-ID (or both without one)
    and the same bytes that was not itself a duplicate or discarded, from
    :func:`_earlier_copies` (no query): the statuses are those of now, including the batch's
    messages already processed."""
    for other in copies.get(row.sha256, ()):
        if other.id >= row.id:
            break
        if (other.message_id == row.message_id
                and other.status not in (InboundStatus.DUPLICATE, InboundStatus.DISCARDED)):
            return other
    return None


def deduplicate(d: Delivery) -> Outcome | None:
    """Stage 1: a copy of an earlier message (same Message-ID and bytes) is a duplicate."""
    copies = d.shared.get("earlier_copies")
    if copies is None:  # a message processed alone: its own earlier copies, one query
        copies = _earlier_copies(d.session, [d.row])
    earlier = _earlier_copy_in(copies, d.row)
    if earlier is None:
        return None
    d.row_values.update(player_id=earlier.player_id, problem_id=earlier.problem_id)
    return Outcome(InboundStatus.DUPLICATE, f"doublon du message n° {earlier.id}")


def apply_rules(d: Delivery) -> tuple[Outcome | None, rules.Classification]:
    """Stage 2: the loop rules. A bounce is recorded against the players it names (through
    the players service); an automatic message is ignored."""
    d.msg = parse.parse_message(d.row.raw)
    verdict = rules.classify(d.msg, d.row.envelope_from)
    if verdict.kind == "bounce":
        bounced = rules.bounced_recipients(d.msg)
        players.record_bounces(session=d.session, emails=bounced, at=clock.now())
        return Outcome(InboundStatus.PROCESSED, "avis de non-remise pour "
                       + (", ".join(bounced) or "adresse inconnue")), verdict
    if not verdict.may_submit:
        return Outcome(InboundStatus.IGNORED,
                       f"message automatique ignoré : {verdict.reason}"), verdict
    return None, verdict


def identify_player(d: Delivery, verdict: rules.Classification) -> Identified | Outcome:
    """Stage 3: the player, by the token of the address and the sender matching it; a
    stranger or a token used from another address gets the instructions (once an hour)."""
    session, row, msg = d.session, d.row, d.msg
    sender = identify.sender_of(msg)
    token = identify.find_token(row.envelope_to, msg, d.settings.submit_localpart)
    bad_sender = addresses.address_problem(sender.address) if sender.address else None
    reply_to_unknown = (sender.address if verdict.may_reply and sender.address
                        and bad_sender is None else None)
    problems = d.shared.get("open_problems")
    if problems is None:
        problems = d.shared["open_problems"] = _open_problems(session)
    listed = [p for p in problems if p.status in CURRENT]

    player = (_find_player_by_token(session, token, d.shared.get("players_by_token"))
              if token else None)
    if player is None:
        known = None
        if sender.address and bad_sender is None:
            known = session.exec(
                select(Player).where(sa.func.lower(Player.email) == sender.address)
            ).first()
        if known is not None and verdict.may_reply:
            # A registered address without its token: the answer goes to the registered
            # address (never to a Reply-To), so a forger learns nothing.
            d.reply(OutboxKind.INSTRUCTIONS, known.email,
                    {"sender": known.email, "reason": "no_token",
                     "personal_address": notify.submission_address(known),
                     "open_problems": _problem_list(listed)}, player_id=known.id)
        elif reply_to_unknown:
            # One answer for an unknown address, an unknown token and a token used from the
            # wrong address: a stranger must not learn whether a token exists.
            d.reply(OutboxKind.INSTRUCTIONS, reply_to_unknown,
                    {"sender": reply_to_unknown, "reason": "unknown",
                     "open_problems": _problem_list(listed)})
        return Outcome(InboundStatus.IGNORED,
                       ("jeton inconnu" if token else "expéditeur non identifié (pas de jeton)")
                       + _bad_sender_note(sender.address, bad_sender))
    if sender.address != player.email.lower():
        if reply_to_unknown:
            d.reply(OutboxKind.INSTRUCTIONS, reply_to_unknown,
                    {"sender": reply_to_unknown, "reason": "unknown",
                     "open_problems": _problem_list(listed)})
        return Outcome(InboundStatus.IGNORED,
                       f"l'expéditeur {sender.address or '(vide)'} ne correspond pas au joueur "
                       f"n° {player.id}" + _bad_sender_note(sender.address, bad_sender))
    d.player_id = player.id
    return Identified(player, problems, listed)


def _games_in_play(session: Session) -> tuple[bool, bool]:
    """Whether any correspondence game exists, and any Duplicate takes bulletins (running
    or finished): one query per batch, so that a batch of sheets, when no game could claim
    them, skips the two per-player queries of the games' own hooks."""
    duplicate_table = DuplicateGame.__table__  # type: ignore[attr-defined]
    corr_table = CorrespondenceGame.__table__  # type: ignore[attr-defined]
    corr, dup = session.execute(sa.select(
        sa.exists().where(corr_table.c.id.isnot(None)),
        sa.exists().where(duplicate_table.c.status.in_(
            (DuplicateStatus.RUNNING, DuplicateStatus.FINISHED))),
    )).one()
    return bool(corr), bool(dup)


def claim_for_games(d: Delivery, player: Player, text: str) -> Outcome | None:
    """Stage 4: a move of a correspondence game or a Duplicate bulletin (their services
    decide from the subject and the text); otherwise the message is a sheet."""
    in_play = d.shared.get("games_in_play")
    if in_play is None:
        in_play = d.shared["games_in_play"] = _games_in_play(d.session)
    corr_games, duplicate_games = in_play
    subject = parse.header(d.msg, "Subject")
    claimed = (correspondence.claim_mail(session=d.session, player=player, subject=subject,
                                         text=text, received_at=d.row.received_at)
               if corr_games else None)
    if claimed is not None:
        return Outcome(InboundStatus.PROCESSED,
                       f"partie par correspondance {claimed[0].code} : {claimed[1]}")
    if not duplicate_games:
        return None
    try:
        bulletin = duplicate.claim_mail(
            session=d.session, player=player, subject=subject, text=text,
            received_at=d.row.received_at, inbound_message_id=d.row.id,
            in_reply_to=d.row.message_id)
    except duplicate.BulletinRefused as exc:
        # beyond a bound (length, solutions, rate): nothing stored; one answer per player,
        # game and rate window, not one per message (no receipt storm)
        if exc.answered:
            return Outcome(InboundStatus.IGNORED,
                           f"bulletin refusé (déjà répondu dans la fenêtre) : {exc}")
        d.reply(OutboxKind.REFUSED, player.email,
                {"player_name": player.name, "game_title": exc.title, "reason": str(exc)},
                player_id=player.id, template="duplicate_refused", dedupe_key=exc.reply_key)
        return Outcome(InboundStatus.IGNORED, f"bulletin refusé : {exc}")
    if bulletin is not None:
        return Outcome(InboundStatus.PROCESSED, f"bulletin Duplicate n° {bulletin.entry.id}")
    return None


def choose_problem(d: Delivery, who: Identified, text: str) -> tuple[Problem, str] | Outcome:
    """Stage 5: the problem the sheet is for (named in the subject or the sheet, or the only
    current one) and the sheet's text; the player is asked when it is unclear."""
    hints, sheet_text = identify.problem_refs(parse.header(d.msg, "Subject"), text)
    refs = [identify.ProblemRef(p.id or 0, p.code, p.title) for p in who.problems]
    current = [r for r, p in zip(refs, who.problems, strict=True) if p.status in CURRENT]
    chosen = identify.match_problem(hints, refs, fallback=current)
    player = who.player
    if chosen is None:
        note = _not_accepting_note(d.session, hints)
        d.reply(OutboxKind.AMBIGUITY, player.email,
                {"player_name": player.name, "open_problems": _problem_list(who.listed),
                 "submission_address": None, "note": note}, player_id=player.id)
        return Outcome(InboundStatus.IGNORED, note or "problème non précisé ou inconnu")
    problem = d.session.get(Problem, chosen.id)
    assert problem is not None
    d.problem_id = problem.id
    return problem, sheet_text


def submit(d: Delivery, player: Player, problem: Problem, sheet_text: str,
           ignored: list[str]) -> Outcome:
    """Stage 6: the sheet to ``submit_sheet`` (stored with its receipt), or the player told
    why nothing was stored."""
    if not sheet_text.strip():
        d.reply(OutboxKind.PARSE_ERRORS, player.email,
                {"player_name": player.name, "problem_title": problem.title,
                 "deadline": problem.deadline_at,
                 "errors": [{"line": 1, "message": "aucun texte de feuille de route "
                             "trouvé dans le message (ni corps texte ni pièce jointe "
                             ".txt/.csv)"}]}, player_id=player.id)
        return Outcome(InboundStatus.PROCESSED, "message sans feuille de route")
    try:
        outcome = submissions.submit_sheet(
            session=d.session, player=player, problem=problem, text=sheet_text,
            channel=Channel.EMAIL, received_at=d.row.received_at,
            inbound_message_id=d.row.id, in_reply_to=d.row.message_id,
            ignored_lines=ignored, batch=d.shared.get("sheet_batch"),
        )
    except submissions.SubmissionRefused as exc:
        # not registered, too many sheets: nothing stored; the player is told why
        d.reply(OutboxKind.REFUSED, player.email,
                {"player_name": player.name, "problem_title": problem.title,
                 "reason": str(exc)}, player_id=player.id)
        return Outcome(InboundStatus.IGNORED, f"feuille refusée : {exc}")
    submission = getattr(outcome, "submission", None)
    d.row_values["submission_id"] = (getattr(submission, "id", None)
                                     or getattr(outcome, "submission_id", None))
    return Outcome(InboundStatus.PROCESSED)


def run_stages(d: Delivery) -> Outcome:
    """The stages in order; the first that decides ends the message."""
    done = deduplicate(d)
    if done is not None:
        return done
    done, verdict = apply_rules(d)
    if done is not None:
        return done
    who = identify_player(d, verdict)
    if isinstance(who, Outcome):
        return who
    extracted = parse.extract_sheet(d.msg)
    done = claim_for_games(d, who.player, extracted.text)
    if done is not None:
        return done
    target = choose_problem(d, who, extracted.text)
    if isinstance(target, Outcome):
        return target
    problem, sheet_text = target
    return submit(d, who.player, problem, sheet_text, list(extracted.ignored))


def _process_in(session: Session, settings: MailSettings, row: InboundMessage,
                shared: dict[str, Any] | None = None, *,
                defer: bool = False) -> dict[str, Any] | None:
    """The stages on ``row``, then the columns they decided (:attr:`Delivery.row_values`,
    the player, the problem, the outcome) set on it.

    ``defer``: when the stages left the row itself untouched (the usual case), the columns
    are not set as changes for the session to flush but given to the object as its loaded
    state (``set_committed_value``: the later messages of the batch read them, e.g. the
    duplicates) and returned, by name, for :func:`_write_outcomes` — one ``UPDATE`` for the
    batch's rows (an executemany, one round trip on PostgreSQL) instead of one flushed
    ``UPDATE`` a message, and the session left clean, so that each flush of the batch has
    nothing to walk. Should the batch fail, the caller rolls back and expunges everything.
    Otherwise (None returned) they are set as usual and flushed with the row."""
    d = Delivery(session, settings, row, shared=shared if shared is not None else {})
    outcome = run_stages(d)
    values = d.row_values
    if d.player_id is not None:
        values["player_id"] = d.player_id
    if d.problem_id is not None:
        values["problem_id"] = d.problem_id
    values.update(_outcome_values(outcome))
    if defer and not sa.inspect(row).modified:
        for key, value in values.items():
            set_committed_value(row, key, value)
        return {key: values[key] for key in sorted(values)}
    for key, value in values.items():
        setattr(row, key, value)
    return None


def _take_write_lock(session: Session, ids: list[int]) -> None:
    """Open the transaction with a write on the rows to process.

    On PostgreSQL this locks them (two processors never work on one message). On SQLite in
    WAL mode it takes the write lock *before* any read: a transaction that reads first and
    writes later fails at once with "database is locked" if another writer committed in
    between, whereas a first write waits for the lock (busy timeout).
    """
    table = InboundMessage.__table__  # type: ignore[attr-defined]
    session.execute(
        sa.update(table)
        .where(table.c.id.in_(ids), table.c.status == InboundStatus.STORED)
        .values(status=InboundStatus.STORED)
    )


def process(app: Flask, inbound_id: int) -> InboundStatus:
    """Run the pipeline on one stored message; returns its final status.

    Safe to call twice: only a ``stored`` message is worked on, and the status change
    commits with the submission and the replies.
    """
    settings = MailSettings.from_config(app.config)
    try:
        with app.app_context(), write_scope(app) as session:
            _take_write_lock(session, [inbound_id])
            row = session.exec(
                select(InboundMessage).where(InboundMessage.id == inbound_id)
            ).one()
            if row.status != InboundStatus.STORED:
                return row.status
            _process_in(session, settings, row)
            session.add(row)
            return row.status
    except Exception as exc:  # the message must stay visible and replayable
        log.exception("inbound message %s quarantined", inbound_id)
        with write_scope(app) as session:
            failed = session.get(InboundMessage, inbound_id)
            if failed is None:
                raise
            if failed.status == InboundStatus.STORED:
                _quarantine(failed, exc)
                session.add(failed)
            return failed.status


def _process_loaded(session: Session, settings: MailSettings, ids: list[int],
                    result: dict[int, InboundStatus], *, savepoints: bool = True) -> None:
    """The messages ``ids`` (their rows locked by the caller), in their order.

    ``savepoints``: each message in its own savepoint; one that raises is rolled back to it
    and quarantined, the others go on. Without (two statements fewer a message), the first
    exception propagates and the caller rolls the whole transaction back (then runs the
    batch again with savepoints: :func:`_process_rows`)."""
    shared: dict[str, Any] = {}
    # the whole batch in one query (not one per message); then each in its turn
    loaded = {r.id: r for r in session.exec(
        select(InboundMessage).where(
            InboundMessage.id.in_(ids)  # type: ignore[union-attr]
        )).all()}
    todo = [r for r in loaded.values() if r.status == InboundStatus.STORED]
    batch: submissions.SheetBatch | None = None
    if todo:
        shared["earlier_copies"] = _earlier_copies(session, todo, loaded)
        known = shared["players_by_token"] = _players_by_envelope_token(
            session, settings, todo, lock=not savepoints)
        if not savepoints:
            # the batch's sheets share their players' answers and write their audit
            # entries and receipts together (with savepoints, each message alone)
            problems = shared["open_problems"] = _open_problems(session)
            batch = shared["sheet_batch"] = submissions.SheetBatch(expected=len(todo))
            batch.prefetch(session, {int(p.id) for p in known.values() if p.id is not None},
                           {int(p.id) for p in problems if p.id is not None},
                           min(r.received_at for r in todo))
    finished: list[tuple[int, dict[str, Any]]] = []  # rows' outcomes written at the end
    for inbound_id in ids:
        row = loaded.get(inbound_id)
        if row is None:
            continue
        if row.status != InboundStatus.STORED:
            result[inbound_id] = row.status
            continue
        try:
            with session.begin_nested() if savepoints else contextlib.nullcontext():
                changes = _process_in(session, settings, row, shared,
                                      defer=not savepoints)
                if changes is not None:
                    finished.append((inbound_id, changes))
                else:
                    session.add(row)
                session.flush()
        except Exception as exc:
            if not savepoints:
                raise
            log.exception("inbound message %s quarantined", inbound_id)
            session.refresh(row)
            _quarantine(row, exc)
            session.add(row)
        result[inbound_id] = row.status
    if batch is not None:
        batch.flush(session)
    _write_outcomes(session, finished)


def _write_outcomes(session: Session, finished: list[tuple[int, dict[str, Any]]]) -> None:
    """The rows' outcomes of :func:`_process_in` (``defer``): one executemany ``UPDATE`` per set of
    columns (in practice one for the batch)."""
    table = InboundMessage.__table__  # type: ignore[attr-defined]
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for inbound_id, changes in finished:
        params = {f"new_{k}": v for k, v in changes.items()}
        params["row_id"] = inbound_id
        groups.setdefault(tuple(changes), []).append(params)
    for keys, params_list in groups.items():
        stmt = _OUTCOME_UPDATES.get(keys)
        if stmt is None:
            stmt = _OUTCOME_UPDATES[keys] = (
                sa.update(table).where(table.c.id == sa.bindparam("row_id"))
                .values({k: sa.bindparam(f"new_{k}") for k in keys}))
        session.execute(stmt, params_list)


#: :func:`_write_outcomes`' statements by set of columns, built once each
_OUTCOME_UPDATES: dict[tuple[str, ...], Any] = {}


def _process_rows(session: Session, settings: MailSettings, ids: list[int],
                  result: dict[int, InboundStatus]) -> None:
    """The batch first without savepoints (the common case: no message fails); if one
    raises, everything is rolled back to a savepoint taken before the batch and the batch
    runs again with a savepoint per message (the failing one is quarantined)."""
    try:
        with session.begin_nested():
            _process_loaded(session, settings, ids, result, savepoints=False)
    except Exception:
        log.info("a message of the batch failed: the batch again, message by message")
        result.clear()
        # forget the objects of the rolled-back pass (the sheets it stored are gone, and
        # their ids may be given again)
        session.expunge_all()
        _process_loaded(session, settings, ids, result)


def process_batch(app: Flask, ids: list[int]) -> dict[int, InboundStatus]:
    """Process several stored messages in one transaction, each in its own savepoint.

    A message whose processing raises is rolled back to its savepoint and quarantined; the
    others commit together (one disk sync). If the transaction itself fails, each message is
    retried alone with :func:`process`.
    """
    settings = MailSettings.from_config(app.config)
    result: dict[int, InboundStatus] = {}
    try:
        with app.app_context(), write_scope(app) as session:
            _take_write_lock(session, ids)
            _process_rows(session, settings, ids, result)
        return result
    except Exception:
        log.exception("batch of %d messages failed; processing them one by one", len(ids))
        return {i: process(app, i) for i in ids}


#: PostgreSQL NOTIFY channels of the worker processes (``MAIL_PROCESS_WORKERS``): messages
#: were stored (the workers wake up), receipts or replies were queued (the sender wakes up).
STORED_CHANNEL = "arbitre_inbound_stored"
QUEUED_CHANNEL = notify.QUEUED_CHANNEL


def lane_of(column: Any, lanes: int) -> Any:
    """SQL: the lane (0 .. lanes-1) of an envelope sender, the same for all his messages
    (PostgreSQL's ``hashtext`` of the lower-cased address)."""
    hashed = sa.cast(sa.func.hashtext(sa.func.lower(column)), sa.BigInteger)
    return ((hashed % lanes) + lanes) % lanes


def process_claimed(app: Flask, *, lane: int = 0, lanes: int = 1, limit: int = 25) -> int:
    """Claim up to ``limit`` stored messages of one lane of senders and process them in the
    claiming transaction (PostgreSQL: ``FOR UPDATE SKIP LOCKED``, so two processors never
    work on one message and neither waits for the other); returns how many were claimed.

    A worker process calls this in a loop. One lane per worker keeps each sender's messages
    in their order. The commit NOTIFYs :data:`QUEUED_CHANNEL` (the sender's wake-up). If the
    transaction fails, each claimed message is retried alone with :func:`process`
    (quarantined if it fails again, never dropped)."""
    settings = MailSettings.from_config(app.config)
    table = InboundMessage.__table__  # type: ignore[attr-defined]
    claim = (sa.select(table.c.id)
             .where(table.c.status == InboundStatus.STORED,
                    lane_of(table.c.envelope_from, lanes) == lane)
             .order_by(table.c.id).limit(limit)
             .with_for_update(skip_locked=True))
    result: dict[int, InboundStatus] = {}
    ids: list[int] = []
    try:
        with app.app_context(), write_scope(app) as session:
            ids = [int(i) for i in session.execute(claim).scalars()]
            if not ids:
                return 0
            _process_rows(session, settings, ids, result)
            session.execute(sa.select(sa.func.pg_notify(QUEUED_CHANNEL, "")))
        return len(ids)
    except Exception:
        if not ids:
            raise
        log.exception("claimed batch of %d messages failed; processing them one by one",
                      len(ids))
        for i in ids:
            process(app, i)
        return len(ids)


def process_pending(app: Flask, limit: int = 500) -> int:
    """Process messages left ``stored`` (a crash between storing and processing)."""
    with write_scope(app) as session:
        ids = list(
            session.exec(
                select(InboundMessage.id)
                .where(InboundMessage.status == InboundStatus.STORED)
                .order_by(InboundMessage.id)  # type: ignore[arg-type]
                .limit(limit)
            ).all()
        )
    for inbound_id in ids:
        assert inbound_id is not None
        process(app, inbound_id)
    return len(ids)


def replay(app: Flask, inbound_id: int) -> InboundStatus:
    """Run a quarantined (or ignored) message through the pipeline again."""
    with write_scope(app) as session:
        row = session.get(InboundMessage, inbound_id)
        if row is None:
            raise LookupError(f"message n° {inbound_id} introuvable")
        if row.status not in (InboundStatus.QUARANTINED, InboundStatus.IGNORED):
            raise ValueError(
                f"message n° {inbound_id} : statut « {row.status} », seul un message en "
                "quarantaine ou ignoré peut être rejoué"
            )
        row.status = InboundStatus.STORED
        row.error = None
        session.add(row)
    return process(app, inbound_id)


def discard(app: Flask, inbound_id: int, reason: str = "") -> None:
    """Mark a quarantined message as discarded (kept in the database, never processed)."""
    with session_scope(app) as session:
        row = session.get(InboundMessage, inbound_id)
        if row is None:
            raise LookupError(f"message n° {inbound_id} introuvable")
        if row.status != InboundStatus.QUARANTINED:
            raise ValueError(
                f"message n° {inbound_id} : statut « {row.status} », seul un message en "
                "quarantaine peut être écarté"
            )
        row.status = InboundStatus.DISCARDED
        row.error = f"écarté par l'arbitre{' : ' + reason if reason else ''}"
        row.processed_at = clock.now()
        session.add(row)


def quarantined(app: Flask) -> list[InboundMessage]:
    with session_scope(app) as session:
        return list(
            session.exec(
                select(InboundMessage)
                .where(InboundMessage.status == InboundStatus.QUARANTINED)
                .order_by(InboundMessage.id)  # type: ignore[arg-type]
            ).all()
        )


def receive(
    app: Flask, raw: bytes, *, channel: InboundChannel, envelope_from: str,
    envelope_to: list[str],
) -> tuple[int, InboundStatus]:
    """Store then process; returns (inbound id, status). Raises only if storing fails."""
    stored = store_raw(app, raw, channel=channel, envelope_from=envelope_from,
                       envelope_to=envelope_to)
    return stored.id, process(app, stored.id)
