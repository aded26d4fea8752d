"""Receiving a feuille de route: the one entry point for the web form and the mail intake.

:func:`submit_sheet` stores the raw text first (SHA-256, version chain), then parses it
(line-numbered French errors are kept; a malformed sheet is stored whole), judges lateness by
the **server receive time** against the problem's deadline, and enqueues the receipt in the
outbox, all in the caller's transaction. The receipt never says whether words are valid:
nothing is verified before the deadline.

Before anything is stored, :func:`submit_sheet` refuses (:class:`SubmissionRefused`, a French
message) a sheet for a problem not published yet, from a player not registered in the
problem's competition (unless the arbitre opened it to all, ``Competition.open_registration``),
or beyond ``SUBMISSIONS_PER_WINDOW`` sheets in ``SUBMISSION_WINDOW_SECONDS`` for one player.
NUL characters (which PostgreSQL cannot store in text) are removed from the text.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from flask import current_app, has_app_context
from sqlalchemy.orm import make_transient_to_detached
from sqlmodel import Session, col, select

from puzzles.feuille import parse_feuille
from scoring.notation import parse_ref
from webapp.models import (
    Channel,
    Competition,
    OutboxKind,
    OutboxMessage,
    Player,
    Problem,
    ProblemStatus,
    Registration,
    Submission,
    Verification,
)
from webapp.services import audit, notify, rounds, sheets
from webapp.services.timefmt import format_local
from webapp.services.versions import latest_submission

log = logging.getLogger(__name__)


class SubmissionRefused(Exception):
    """The sheet cannot be taken at all (problem not published yet); French message."""


@dataclass(slots=True)
class DeferredSheet:
    """A sheet of a batch kept for :meth:`SheetBatch.flush`: its row as it will be written
    (every column, its id reserved), read as a :class:`Submission` is by the batch's later
    sheets (the player's previous version) and by the receipt — without a model object,
    which nothing reads before the commit (:func:`_sheet_values`)."""

    id: int
    problem_id: int
    player_id: int
    version: int
    previous_id: int | None
    channel: Channel
    received_at: datetime
    raw_text: str
    sha256: str
    late: bool
    accepted_late: bool
    parse_errors: list[dict[str, Any]]
    feuille: dict[str, Any] | None
    inbound_message_id: int | None


#: a stored sheet as the receipt and the next version read it
Sheet = Submission | DeferredSheet


@dataclass
class SubmissionOutcome:
    #: the sheet stored (a :class:`DeferredSheet` when a batch writes it with its others)
    submission: Sheet
    #: the receipt queued; None when a batch writes it with its others (``SheetBatch``)
    receipt: OutboxMessage | None
    late: bool
    errors: list[dict[str, Any]] = field(default_factory=list)
    previous: Sheet | None = None

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def version(self) -> int:
        return self.submission.version

    @property
    def replaces_readable(self) -> bool:
        """This version has unreadable lines and replaces one that had none (the web form
        asks before; the mail receipt says so: ``webapp.services.sheets``)."""
        return bool(self.errors) and self.previous is not None and not self.previous.parse_errors


def strip_nul(text: str) -> str:
    """The text without NUL characters: PostgreSQL refuses them in a text column, and no
    sheet, name or field means anything by them (a pasted binary, a UTF-16 file read as
    Latin-1)."""
    return text.replace("\x00", "") if "\x00" in text else text


#: the C0 control characters but tab, line feed and carriage return, and DEL
_CONTROLS = {c: None for c in (*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F)}


def strip_controls(text: str) -> str:
    """:func:`strip_nul`, and the other control characters (ESC, BEL, backspace…) but tab
    and line ends: a one-line bulletin means nothing by them, and shown raw on a page or in
    a receipt they would drive the reader's terminal."""
    return strip_nul(text).translate(_CONTROLS)


def _may_take_part(competition_id: Any, player_id: Any) -> Any:
    """SQL: registered in the competition, or the competition is open to all."""
    return (
        sa.exists().where(col(Competition.id) == competition_id,
                          col(Competition.open_registration).is_(True))
        | sa.exists().where(col(Registration.competition_id) == competition_id,
                            col(Registration.player_id) == player_id)
    )


def may_take_part(session: Session, *, player_id: int, competition_id: int) -> bool:
    """Registered in the competition, or the competition is open to all."""
    return bool(session.execute(sa.select(_may_take_part(competition_id, player_id))).scalar())


def setting(name: str, default: int) -> int:
    """An integer setting of the app (``default`` outside an app context)."""
    return int(current_app.config.get(name, default)) if has_app_context() else default



#: :func:`_check_entry`'s two answers (registered or open competition; the player's sheets
#: in the window)
_ENTRY_COLUMNS = (
    _may_take_part(sa.bindparam("competition_id"), sa.bindparam("player_id")),
    sa.select(sa.func.count(col(Submission.id)))
    .where(col(Submission.player_id) == sa.bindparam("player_id"),
           col(Submission.received_at) > sa.bindparam("since"),
           col(Submission.received_at) <= sa.bindparam("received_at"))
    .scalar_subquery(),
)
_PLAYER_TABLE = Player.__table__  # type: ignore[attr-defined]
#: The no-op UPDATE of the player row that serialises his sheets (web and mail may deliver
#: two at the same instant): a row lock on PostgreSQL, the write lock on SQLite (where a
#: SELECT ... FOR UPDATE would lock nothing); it RETURNs the entry check's answers, read in
#: the statement's snapshot as by a SELECT just before it. Built once with its values as
#: parameters (SQLAlchemy reuses its compiled form), a Core statement on the table (no ORM
#: evaluation of the session's objects).
_LOCK_AND_CHECK = (sa.update(_PLAYER_TABLE)
                   .where(_PLAYER_TABLE.c.id == sa.bindparam("player_id"))
                   .values(bounce_count=_PLAYER_TABLE.c.bounce_count)
                   .returning(*_ENTRY_COLUMNS))
#: the same answers without the lock (a player row that is not there)
_ENTRY_CHECK = sa.select(*_ENTRY_COLUMNS)


def _check_entry(session: Session, player: Player, problem: Problem,
                 received_at: datetime) -> None:
    """Lock the player's row, and check the registration and the per-player rate in the
    same statement; raises :class:`SubmissionRefused`."""
    limit = setting("SUBMISSIONS_PER_WINDOW", 10)
    window = setting("SUBMISSION_WINDOW_SECONDS", 60)
    since = received_at - timedelta(seconds=window)
    params = {"competition_id": problem.competition_id, "player_id": player.id,
              "since": since, "received_at": received_at}
    answers = session.execute(_LOCK_AND_CHECK, params).first()
    if answers is None:
        answers = session.execute(_ENTRY_CHECK, params).one()
    registered, count = answers
    _judge_entry(session, problem, bool(registered), int(count), limit, window)


def _judge_entry(session: Session, problem: Problem, registered: bool, count: int,
                 limit: int, window: int) -> None:
    """Raise :class:`SubmissionRefused` when the player may not take part, or sent
    ``count`` sheets in the window when ``limit`` (> 0) is the most it allows."""
    if not registered:
        comp = session.get(Competition, problem.competition_id)
        name = comp.name if comp is not None else "cette compétition"
        raise SubmissionRefused(
            f"Vous n'êtes pas inscrit à la compétition « {name} » : vos feuilles pour le "
            f"problème « {problem.title} » ne peuvent pas être acceptées. Demandez votre "
            "inscription à l'arbitre."
        )
    if limit > 0 and count >= limit:
        raise SubmissionRefused(
            f"Trop de feuilles envoyées en peu de temps : au plus {limit} par "
            f"{duration_fr(window)}. Votre feuille n'a pas été enregistrée ; renvoyez-la "
            "dans un moment."
        )


@dataclass
class SheetBatch:
    """Sheets received together in one transaction (a batch of the mail intake): what
    :func:`submit_sheet` reads or writes one statement at a time, for the batch at once.

    * The caller locks the batch's players' rows first (``FOR NO KEY UPDATE``, the lock of
      :data:`_LOCK_AND_CHECK`; on SQLite the transaction holds the write lock), then
      :meth:`prefetch` reads their registrations, their sheets in the rate window and their
      latest versions of the problems taking sheets, in three queries: a sheet of one of
      them then needs no statement for its entry check and its version (the batch's sheets
      are counted as they are stored). Other sheets go the usual way.
    * Each sheet's audit entry and receipt, which nothing reads before the commit, are kept
      and written by :meth:`flush` in one ``INSERT`` each (executemany); on PostgreSQL the
      sheets of those players too (:meth:`defers`), with ids reserved on the table's
      sequence (:meth:`defer`): the batch's later sheets read their players' versions and
      counts from the batch, not from the table.
    """

    limit: int = 0
    window: int = 60
    #: the players whose rows the caller locked and whose answers were read
    locked: set[int] = field(default_factory=set)
    #: (competition, player) registered; the competitions open to all
    registered: set[tuple[int, int]] = field(default_factory=set)
    open_competitions: set[int] = field(default_factory=set)
    #: sheets received after ``since``, by player (stored ones and the batch's)
    since: datetime | None = None
    received: dict[int, list[datetime]] = field(default_factory=dict)
    #: the latest version by (player, problem) for the problems read (None: no sheet yet)
    latest: dict[tuple[int, int], Sheet | None] = field(default_factory=dict)
    audit_rows: list[dict[str, Any]] = field(default_factory=list)
    #: the receipts' column values (``notify.enqueue_deferred``)
    receipts: list[dict[str, Any]] = field(default_factory=list)
    #: how many sheets the batch may store at most (its messages): the ids reserved at once
    expected: int = 0
    #: PostgreSQL: submission ids reserved from the table's sequence, and the sheets
    #: stored with them, written by :meth:`flush`
    free_ids: list[int] = field(default_factory=list)
    pending: list[dict[str, Any]] = field(default_factory=list)

    def prefetch(self, session: Session, player_ids: set[int], problem_ids: set[int],
                 earliest: datetime) -> None:
        """Read the answers for ``player_ids`` (their rows locked by the caller): their
        sheets received in the window before ``earliest`` (the batch's first receive time)
        or since, and their latest versions of ``problem_ids``."""
        self.limit = setting("SUBMISSIONS_PER_WINDOW", 10)
        self.window = setting("SUBMISSION_WINDOW_SECONDS", 60)
        if not player_ids:
            return
        since = self.since = earliest - timedelta(seconds=self.window)
        players = sorted(player_ids)
        reg = Registration.__table__  # type: ignore[attr-defined]
        comp = Competition.__table__  # type: ignore[attr-defined]
        for competition_id, player_id in session.execute(sa.union_all(
            sa.select(reg.c.competition_id, reg.c.player_id)
            .where(reg.c.player_id.in_(players)),
            sa.select(comp.c.id, sa.cast(sa.null(), sa.Integer))
            .where(comp.c.open_registration.is_(True)),
        )).all():
            if player_id is None:
                self.open_competitions.add(int(competition_id))
            else:
                self.registered.add((int(competition_id), int(player_id)))
        self.received = {p: [] for p in players}
        for player_id, at in session.execute(
            sa.select(col(Submission.player_id), col(Submission.received_at))
            .where(col(Submission.player_id).in_(players),
                   col(Submission.received_at) > since)
        ).all():
            self.received[int(player_id)].append(at)
        problems = sorted(problem_ids)
        self.latest = {(p, q): None for p in players for q in problems}
        if problems:
            other = sa.orm.aliased(Submission)
            newest = (sa.select(sa.func.max(col(other.version)))
                      .where(col(other.player_id) == col(Submission.player_id),
                             col(other.problem_id) == col(Submission.problem_id))
                      .scalar_subquery())
            for sub in session.exec(
                select(Submission)
                .where(col(Submission.player_id).in_(players),
                       col(Submission.problem_id).in_(problems),
                       col(Submission.version) == newest)
            ).all():
                self.latest[(sub.player_id, sub.problem_id)] = sub
        self.locked = set(players)

    def knows(self, player_id: int, problem_id: int, received_at: datetime) -> bool:
        """Whether the answers for this sheet were read (:meth:`entry`, :attr:`latest`)."""
        return (player_id in self.locked and (player_id, problem_id) in self.latest
                and self.since is not None
                and received_at - timedelta(seconds=self.window) >= self.since)

    def entry(self, player_id: int, competition_id: int,
              received_at: datetime) -> tuple[bool, int]:
        """What :data:`_ENTRY_COLUMNS` answer: registered (or open to all), and how many
        sheets the player sent in the window ending at ``received_at``."""
        since = received_at - timedelta(seconds=self.window)
        count = sum(1 for at in self.received.get(player_id, ()) if since < at <= received_at)
        registered = (competition_id in self.open_competitions
                      or (competition_id, player_id) in self.registered)
        return registered, count

    def stored(self, sub: Sheet) -> None:
        """A sheet of the batch was stored: it is its player's latest version and counts in
        his window."""
        key = (sub.player_id, sub.problem_id)
        if key in self.latest:
            self.latest[key] = sub
        if sub.player_id in self.received:
            self.received[sub.player_id].append(sub.received_at)

    def defers(self, session: Session, problem: Problem) -> bool:
        """Whether a sheet of a player whose answers the batch read is written at the end
        (:meth:`defer`): on PostgreSQL, whose round trips are what costs, and not for a
        problem whose receipts read the player's sheets back (timed rounds,
        :func:`webapp.services.rounds.receipt_notes`). On SQLite, in the process, each is
        written at once."""
        return (session.get_bind().dialect.name == "postgresql"
                and not rounds.progressive(problem))

    def defer(self, session: Session, values: dict[str, Any]) -> int:
        """Keep a sheet's row for :meth:`flush` and give it its id, from ids reserved on
        the submission table's sequence for the whole batch in one query (those left
        unused are gaps, as a rolled-back insert leaves)."""
        if not self.free_ids:
            table = _SUBMISSION_TABLE.name
            self.free_ids = [int(i) for i in session.execute(
                sa.select(sa.func.nextval(sa.func.pg_get_serial_sequence(table, "id")))
                .select_from(sa.func.generate_series(1, max(1, self.expected)))
            ).scalars()]
            self.free_ids.reverse()
        new_id = self.free_ids.pop()
        self.pending.append({"id": new_id, **values})
        return new_id

    def flush(self, session: Session) -> None:
        """Write the kept sheets, audit entries and receipts (before the commit), in one
        ``INSERT`` each."""
        if self.pending:
            session.execute(_INSERT_SUBMISSION_ROWS, self.pending)
        audit.record_many(session, self.audit_rows)
        notify.insert_deferred(session, self.receipts)
        self.pending, self.audit_rows, self.receipts = [], [], []


def duration_fr(seconds: int) -> str:
    """« minute », « 2 heures », « 90 secondes »: the window of a rate, in French."""
    if seconds % 3600 == 0:
        hours = seconds // 3600
        return "heure" if hours == 1 else f"{hours} heures"
    if seconds % 60 == 0:
        minutes = seconds // 60
        return "minute" if minutes == 1 else f"{minutes} minutes"
    return f"{seconds} secondes"


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_late(problem: Problem, received_at: datetime) -> bool:
    """Late when received strictly after the deadline instant."""
    return received_at > problem.deadline_at


def submit_sheet(
    *,
    session: Session,
    player: Player,
    problem: Problem,
    text: str,
    channel: Channel,
    received_at: datetime,
    inbound_message_id: int | None = None,
    in_reply_to: str | None = None,
    ignored_lines: list[str] | None = None,
    batch: SheetBatch | None = None,
) -> SubmissionOutcome:
    """Store, parse and acknowledge one sheet (refused first, with nothing stored, when
    the player is not registered in the problem's competition and it is not open to all, or
    when he sent too many sheets in a short time). Does not commit (the caller's transaction
    holds the sheet and its receipt together). Raises :class:`SubmissionRefused` when the
    problem is not open yet. ``ignored_lines``: what the mail intake left out of the text as
    greeting or closing words (quoted in the receipt). ``batch``: the sheets received with
    this one in the caller's transaction (the mail intake's batch, :class:`SheetBatch`)."""
    if received_at.tzinfo is None:
        raise ValueError("received_at must be timezone-aware")
    if problem.status in (ProblemStatus.DRAFT, ProblemStatus.SCHEDULED):
        raise SubmissionRefused(
            f"Le problème « {problem.title} » n'est pas encore publié : "
            "les feuilles seront acceptées à partir de sa publication, le "
            f"{format_local(problem.publish_at, problem.timezone)}."
        )
    assert player.id is not None and problem.id is not None
    known = batch is not None and batch.knows(player.id, problem.id, received_at)
    if batch is not None and known:
        # the row locked and the answers read with the batch's
        registered, count = batch.entry(player.id, problem.competition_id, received_at)
        _judge_entry(session, problem, registered, count, batch.limit, batch.window)
    else:
        _check_entry(session, player, problem, received_at)  # and the player's row locked
    text = strip_nul(text)
    try:
        parsed = sheets.parse(problem, text)  # read once, for the bound and for storing
    except Exception:
        parsed = None  # _parse below logs it and stores the text with an internal error
    # longer than any solution: nothing is stored
    refusal = sheets.too_long(problem, text, parsed=parsed)
    if refusal:
        raise SubmissionRefused(refusal)
    # the player's row is locked (_check_entry): his latest version cannot change now
    previous: Sheet | None = (
        batch.latest[(player.id, problem.id)] if batch is not None and known
        else latest_submission(session=session, player_id=player.id, problem_id=problem.id))
    late = is_late(problem, received_at)
    # parsed before the insert (one INSERT with the parsed sheet, not INSERT then UPDATE):
    # _parse never raises, so the raw text is stored whatever the parser makes of it
    errors, feuille = _parse(text, parsed)
    fields: dict[str, Any] = {
        "problem_id": problem.id,
        "player_id": player.id,
        "version": (previous.version + 1) if previous else 1,
        "previous_id": previous.id if previous else None,
        "channel": channel,
        "received_at": received_at,
        "raw_text": text,
        "sha256": sha256_text(text),
        "late": late,
        "inbound_message_id": inbound_message_id,
        "parse_errors": errors,
        "feuille": feuille,
    }
    sub: Sheet
    if batch is not None and known and batch.defers(session, problem):
        # written with the batch's, before its commit: its values, no model object
        values = _sheet_values(fields)
        sub = DeferredSheet(id=batch.defer(session, values), **values)
    else:
        stored = Submission(**fields)
        # the raw text is in before anything that could fail: one INSERT built once, and
        # the object attached to its row as persistent (no unit-of-work flush, no read back)
        values = {c.key: getattr(stored, c.key) for c in _SUBMISSION_TABLE.columns
                  if c.key != "id"}
        stored.id = session.execute(_INSERT_SUBMISSION, values).scalar_one()
        make_transient_to_detached(stored)
        session.add(stored)
        sub = stored
    entry = audit.entry_values(
        actor=f"player:{player.id}",
        action="submission.received",
        target=f"submission:{sub.id}",
        problem=problem.code,
        version=sub.version,
        channel=channel,
        late=late,
        errors=len(errors),
        sha256=sub.sha256,
    )
    if batch is not None:
        batch.stored(sub)
        batch.audit_rows.append(entry)  # written by batch.flush, with the batch's
    else:
        audit.record_many(session, [entry])
    receipt = _enqueue_receipt(
        session=session, player=player, problem=problem, sub=sub, previous=previous,
        errors=errors, feuille=feuille, in_reply_to=in_reply_to,
        ignored_lines=ignored_lines or [],
        deferred=batch.receipts if batch is not None else None,
    )
    session.flush()
    return SubmissionOutcome(
        submission=sub, receipt=receipt, late=late, errors=errors, previous=previous
    )


_SUBMISSION_TABLE = Submission.__table__  # type: ignore[attr-defined]
#: the columns :func:`submit_sheet` does not give, and their model defaults
_SHEET_DEFAULTS: dict[str, Any] = {"accepted_late": False}


def _sheet_values(fields: dict[str, Any]) -> dict[str, Any]:
    """The row (every column but ``id``, in the table's order) of a ``Submission`` built
    with ``fields``, as the model object would give it: the columns not given have their
    defaults, the channel is its member (``StrEnumColumns``); a test compares with the
    model object."""
    given = {**_SHEET_DEFAULTS, **fields}
    given["channel"] = _CHANNEL_TYPE.coerce(given["channel"])
    return {key: given[key] for key in _SHEET_KEYS}


_SHEET_KEYS = [c.key for c in _SUBMISSION_TABLE.columns if c.key != "id"]
_CHANNEL_TYPE = _SUBMISSION_TABLE.c.channel.type
_INSERT_SUBMISSION = sa.insert(_SUBMISSION_TABLE).returning(_SUBMISSION_TABLE.c.id)
#: the sheets of :meth:`SheetBatch.flush`, ids given; with ``RETURNING``, SQLAlchemy sends
#: them as one multi-row ``INSERT`` (its « insertmanyvalues ») instead of psycopg's
#: executemany, a statement a row (≈ 50 → 25 µs of CPU a row)
_INSERT_SUBMISSION_ROWS = sa.insert(_SUBMISSION_TABLE).returning(
    _SUBMISSION_TABLE.c.id, sort_by_parameter_order=True)


def _parse(text: str, parsed: Any = None) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The sheet's errors and parsed form as stored; ``parsed``: ``parse_feuille(text)``
    when the caller already has it."""
    try:
        if parsed is None:
            parsed = parse_feuille(text)
    except Exception:  # the parser must never cost a player his sheet
        log.exception("parse_feuille raised")
        return [{"line": 0, "message": "Erreur interne à la lecture de la feuille ; "
                 "elle est conservée et l'arbitre l'examinera.", "text": ""}], None
    errors = [{"line": e.line, "message": e.message, "text": e.text} for e in parsed.errors]
    return errors, parsed.feuille.to_dict()


def describe_ref(ref: str | None) -> str:
    """``H8`` -> ``H8 (horizontal, ligne H, à partir de la colonne 8)``."""
    if not ref:
        return "(sans référence)"

    try:
        r = parse_ref(ref)
    except Exception:
        return ref
    row, column = "ABCDEFGHIJKLMNO"[r.row], r.col + 1
    if r.horizontal:
        return f"{ref} (horizontal, ligne {row}, à partir de la colonne {column})"
    return f"{ref} (vertical, colonne {column}, à partir de la ligne {row})"


def receipt_moves(feuille: dict[str, Any] | None) -> list[dict[str, Any]]:
    if not feuille:
        return []
    moves = []
    for m in feuille.get("moves", []):
        if m.get("passed"):
            word = "Passe"
        elif m.get("word"):
            word = m["word"]
        else:
            word = "—"
        if m.get("annul"):
            word = f"Annuler coup(s) {', '.join(str(n) for n in m['annul'])} ; {word}"
        moves.append(
            {
                "number": m["number"],
                # the group number the player wrote (« 3 G7 »), None when he wrote none:
                # the receipts of a game played with groups show it in its own column
                "group": m.get("group"),
                "letters": m.get("letters") or "",
                "word": word,
                "ref": describe_ref(m.get("ref")) if not m.get("passed") else "",
                "score": m.get("score"),
                "cumul": m.get("cumul"),
            }
        )
    return moves


def _enqueue_receipt(
    *,
    session: Session,
    player: Player,
    problem: Problem,
    sub: Sheet,
    previous: Sheet | None,
    errors: list[dict[str, Any]],
    feuille: dict[str, Any] | None,
    in_reply_to: str | None,
    ignored_lines: list[str],
    deferred: list[dict[str, Any]] | None = None,
) -> OutboxMessage | None:
    moves = receipt_moves(feuille)
    declared = next(
        (m["cumul"] for m in reversed(moves) if m.get("cumul") is not None), None
    )
    headers = {"In-Reply-To": in_reply_to, "References": in_reply_to} if in_reply_to else {}
    try:
        round_notes = rounds.receipt_notes(session=session, problem=problem,
                                           player_id=player.id or 0, received_at=sub.received_at)
    except Exception:  # the timing notes must never cost a player his sheet or its receipt
        log.exception("receipt_notes failed")
        round_notes = []
    context: dict[str, Any] = {
        "player_name": player.name,
        "problem_title": f"{problem.title} ({problem.code})",
        "received_at": format_local(sub.received_at, problem.timezone, seconds=True),
        "deadline": format_local(problem.deadline_at, problem.timezone, seconds=True),
        "late": sub.late,
        "channel": sub.channel,
        "moves": moves,
        # Anticipation and the other games played with numbered groups: a Groupe column
        "group_column": problem.game.uses_groups,
        "declared_total": declared,
        "errors": errors,
        "sheet_text": sub.raw_text,
        # the player's own count for this problem (his 3rd sheet is n° 3), not the
        # server-wide row id, which says nothing to him
        "submission_ref": f"feuille n° {sub.version}",
        "replaces_previous": previous is not None,
        "previous_version": previous.version if previous is not None else None,
        "previous_readable": previous is not None and not previous.parse_errors,
        "ignored_lines": ignored_lines,
        "sha256": sub.sha256,
        "submission_address": notify.submission_address(player),
        "round_notes": round_notes,
    }
    if deferred is not None:  # written with the batch's (SheetBatch.flush)
        notify.enqueue_deferred(
            session=session, kind=OutboxKind.RECEIPT, to_addr=player.email,
            template="receipt", context=context, dedupe_key=f"receipt:{sub.id}",
            player_id=player.id, headers=headers, into=deferred)
        return None
    return notify.enqueue(
        session=session,
        kind=OutboxKind.RECEIPT,
        to_addr=player.email,
        template="receipt",
        context=context,
        dedupe_key=f"receipt:{sub.id}",
        fresh_key=True,  # sub.id was assigned in this very transaction
        player_id=player.id,
        headers=headers,
    )


def accept_late(*, session: Session, submission: Submission, actor: str, reason: str) -> None:
    """The arbitre takes a late sheet into the ranking (audited)."""
    if not submission.late:
        raise ValueError("Cette feuille n'est pas hors délai.")
    if not reason.strip():
        raise ValueError("Un motif est nécessaire pour accepter une feuille hors délai.")
    submission.accepted_late = True
    session.add(submission)
    audit.record(
        session=session, actor=actor, action="submission.accept_late",
        target=f"submission:{submission.id}", reason=reason,
    )


def latest_per_player(s: Session, problem: Problem) -> list[dict[str, Any]]:
    """Per player, the latest version (newest first), how many versions, and the current
    verification of the latest (the console's problem page)."""
    subs = s.exec(
        select(Submission, Player)
        .join(Player, col(Player.id) == col(Submission.player_id))
        .where(Submission.problem_id == problem.id)
        .order_by(col(Submission.player_id), col(Submission.version).desc())
    ).all()
    rows: dict[int, dict[str, Any]] = {}
    for sub, player in subs:
        row = rows.setdefault(player.id or 0, {"player": player, "latest": sub, "versions": 0})
        row["versions"] += 1
    ver = {
        v.submission_id: v
        for v in s.exec(
            select(Verification)
            .join(Submission, col(Submission.id) == col(Verification.submission_id))
            .where(Submission.problem_id == problem.id)
            .where(col(Verification.superseded_at).is_(None))
        ).all()
    }
    out = sorted(rows.values(), key=lambda r: r["latest"].received_at, reverse=True)
    for r in out:
        r["verification"] = ver.get(r["latest"].id)
    return out
