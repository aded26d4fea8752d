"""Every table of the competition server (mail tables included), as SQLModel classes.

Instants are timezone-aware UTC (:class:`webapp.db.UTCDateTime`); a problem's deadline is an
absolute UTC instant plus the IANA zone it is displayed in. Statuses, kinds, channels, game
types and Duplicate variants are ``StrEnum`` members (the ``*Status``/``*Kind`` classes below,
``puzzles.families.GameType``), stored as the plain VARCHAR they always were through
:class:`webapp.db.StrEnumType`: a loaded row gives members, a string assigned becomes its
member, an unknown value raises :class:`webapp.db.UnknownEnumValue`. Being ``str``, members
compare equal to their strings (templates, JSON, old code). The Alembic chain in
``migrations/`` mirrors this module; a test checks that autogenerate finds no difference.
"""

from __future__ import annotations

from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from puzzles.families import GameType
from webapp.db import BigIntText, StrEnumColumns, StrEnumType, UTCDateTime

DEFAULT_TIMEZONE = "Europe/Bucharest"


def utcnow() -> datetime:
    return datetime.now(UTC)


def _ts(*, nullable: bool = False, index: bool = False) -> Any:
    if nullable:
        return Field(default=None, sa_type=UTCDateTime, nullable=True, index=index)
    return Field(default_factory=utcnow, sa_type=UTCDateTime, nullable=False, index=index)


def _enum(
    enum_class: type[StrEnum], default: StrEnum | None = None, *, index: bool = False,
    server_default: str | None = None,
) -> Any:
    """A :class:`StrEnumType` column (VARCHAR); without ``default`` the value is required."""
    kwargs: dict[str, Any] = {"sa_type": StrEnumType(enum_class), "index": index}
    if server_default is not None:
        kwargs["sa_column_kwargs"] = {"server_default": server_default}
    if default is None:
        return Field(nullable=False, **kwargs)
    return Field(default=default, nullable=False, **kwargs)


def _json(default: Any = dict, *, nullable: bool = False) -> Any:
    if nullable:
        return Field(default=None, sa_type=sa.JSON, nullable=True)
    return Field(default_factory=default, sa_type=sa.JSON, nullable=False)


class RankingRule(StrEnum):
    """How a championship ranks its problems together (``puzzles.championship``)."""

    SUM_PERCENT = "sum_percent"  # total of the % of each problem's reference score
    SUM_SCORES = "sum_scores"  # total of corrected scores
    FRSC_POINTS = "frsc_points"  # FRSc place points (RULES §10) summed across problems


class ProblemStatus(StrEnum):
    """A problem's life, in this order (``list(ProblemStatus)``)."""

    DRAFT = "draft"  # being prepared, invisible
    SCHEDULED = "scheduled"  # ready; published automatically at publish_at
    OPEN = "open"  # published, sheets accepted
    CLOSED = "closed"  # deadline passed; late sheets are still stored and flagged
    VERIFIED = "verified"  # every sheet verified
    PROVISIONAL = "provisional"  # provisional ranking published, appeals open
    FINAL = "final"  # final ranking published


class Channel(StrEnum):
    """How a sheet, bulletin or move reached the server."""

    WEB = "web"
    EMAIL = "email"


class InboundChannel(StrEnum):
    """How a received e-mail reached the server (``mailer``)."""

    SMTP = "smtp"
    LMTP = "lmtp"
    IMAP = "imap"


class InboundStatus(StrEnum):
    STORED = "stored"
    PROCESSED = "processed"
    DUPLICATE = "duplicate"
    QUARANTINED = "quarantined"
    DISCARDED = "discarded"
    IGNORED = "ignored"


class OutboxStatus(StrEnum):
    PENDING = "pending"
    SENDING = "sending"
    SENT = "sent"
    FAILED = "failed"


class OutboxKind(StrEnum):
    """Every kind of e-mail the server sends (the mail's ``X-Arbitre-Kind``)."""

    RECEIPT = "receipt"
    REMINDER = "reminder"
    PUBLICATION = "publication"
    RESULTS = "results"
    INSTRUCTIONS = "instructions"
    AMBIGUITY = "ambiguity"
    PARSE_ERRORS = "parse_errors"
    REFUSED = "refused"
    REFUSED_TOO_LARGE = "refused_too_large"
    LOGIN = "login"
    ANNOUNCEMENT = "announcement"  # Anticipation by correspondence: a move's group drawn
    DUPLICATE_DRAW = "duplicate_draw"
    DUPLICATE_RESULTS = "duplicate_results"
    DUPLICATE_CORRECTED = "duplicate_corrected"
    DUPLICATE_FINAL = "duplicate_final"
    CORR_TURN = "corr_turn"
    CORR_REMINDER = "corr_reminder"
    CORR_FINAL = "corr_final"
    APPEAL_ANSWER = "appeal_answer"  # the arbitre's answer to an appeal


class RankingKind(StrEnum):
    PROVISIONAL = "provisional"
    FINAL = "final"


class AppealStatus(StrEnum):
    OPEN = "open"
    ACCEPTED = "accepted"
    REJECTED = "rejected"


class RulingKind(StrEnum):
    ACCEPT_WORD = "accept_word"  # the word is valid for this problem although the lexicon lacks it
    REJECT_WORD = "reject_word"  # the word is invalid for this problem although the lexicon has it
    EXCLUDE_SHEET = "exclude_sheet"  # the sheet is not ranked (disqualification)


# --- competitions and problems ------------------------------------------------------------


class Competition(StrEnumColumns, table=True):
    """A championship: stages of problems, ranked together by ``ranking_rule``."""

    __tablename__ = "competition"

    id: int | None = Field(default=None, primary_key=True)
    slug: str = Field(unique=True, index=True)
    name: str
    description: str = ""
    ranking_rule: RankingRule = _enum(RankingRule, RankingRule.SUM_PERCENT)
    # puzzles.championship.ChampionshipSettings.to_dict() (best N of M, FRSc places beyond
    # 10, ex-aequo sharing, tie-break); None: the documented defaults
    standings_settings: dict[str, Any] | None = _json(nullable=True)
    # False: only registered players may submit and are ranked; True: open to every player
    open_registration: bool = Field(
        default=False, sa_column_kwargs={"server_default": sa.false()}
    )
    lang: str = "fr"
    created_at: datetime = _ts()


class Stage(SQLModel, table=True):
    """A round of a championship (a month, a tour): problems are grouped by stage."""

    __tablename__ = "stage"
    __table_args__ = (sa.UniqueConstraint("competition_id", "position"),)

    id: int | None = Field(default=None, primary_key=True)
    competition_id: int = Field(foreign_key="competition.id", index=True)
    position: int
    name: str


class Registration(SQLModel, table=True):
    """A player entered in a championship (reminders go to registered players)."""

    __tablename__ = "registration"
    __table_args__ = (sa.UniqueConstraint("competition_id", "player_id"),)

    id: int | None = Field(default=None, primary_key=True)
    competition_id: int = Field(foreign_key="competition.id", index=True)
    player_id: int = Field(foreign_key="player.id", index=True)
    created_at: datetime = _ts()


class Problem(StrEnumColumns, table=True):
    """One problem to solve: the ``puzzles`` problem as JSON plus its schedule and status."""

    __tablename__ = "problem"

    id: int | None = Field(default=None, primary_key=True)
    code: str = Field(unique=True, index=True)  # short public id, in mail subjects and URLs
    competition_id: int = Field(foreign_key="competition.id", index=True)
    stage_id: int | None = Field(default=None, foreign_key="stage.id", index=True)
    title: str
    game: GameType = _enum(GameType)
    lang: str = "fr"
    params: dict[str, Any] = _json()  # puzzles.problem.Problem.to_json()
    tileset: str = "fr"
    lexicon_name: str = "default"
    lexicon_sha256: str | None = None
    lexicon_word_count: int | None = None
    publish_at: datetime = _ts(index=True)
    deadline_at: datetime = _ts(index=True)
    timezone: str = DEFAULT_TIMEZONE
    appeal_days: int = 7
    # Anticipation family by correspondence (puzzles.rounds): the group of move k is announced
    # at publish_at + (k-1) × this interval; 0: the whole draw order at publication
    round_interval_minutes: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    # the score percentages are computed against (the arbitre's or the solver's solution);
    # None: the best sheet's score
    reference_score: int | None = None
    # FRSc event value of this problem in the championship standings (100: the published
    # place points, RULES §10); the points are scaled by value / 100
    event_value: int = Field(default=100, sa_column_kwargs={"server_default": "100"})
    status: ProblemStatus = _enum(ProblemStatus, ProblemStatus.SCHEDULED, index=True)
    instructions: str = ""
    created_at: datetime = _ts()
    published_at: datetime | None = _ts(nullable=True)
    closed_at: datetime | None = _ts(nullable=True)
    verified_at: datetime | None = _ts(nullable=True)
    provisional_at: datetime | None = _ts(nullable=True)
    appeals_until: datetime | None = _ts(nullable=True)
    finalised_at: datetime | None = _ts(nullable=True)


class AnticipationRound(SQLModel, table=True):
    """One announcement of a progressive Anticipation (webapp.services.rounds): the group(s)
    of move ``number`` become public at ``announced_at``. The 14 rows are written when the
    problem is published; round k closes at row k+1's announcement, round 14 at the
    problem's deadline. ``notified_at``: when the lifecycle mailed this announcement."""

    __tablename__ = "anticipation_round"
    __table_args__ = (sa.UniqueConstraint("problem_id", "number"),)

    id: int | None = Field(default=None, primary_key=True)
    problem_id: int = Field(foreign_key="problem.id", index=True)
    number: int
    announced_at: datetime = _ts(index=True)
    notified_at: datetime | None = _ts(nullable=True)


# --- people --------------------------------------------------------------------------------


class Player(SQLModel, table=True):
    __tablename__ = "player"

    id: int | None = Field(default=None, primary_key=True)
    name: str
    club: str = ""
    # the federation's licence number, the category (« série ») rankings can be filtered
    # by, and the country (ISO 3166 code or name as the federation writes it)
    licence: str = Field(default="", sa_column_kwargs={"server_default": ""})
    category: str = Field(default="", index=True, sa_column_kwargs={"server_default": ""})
    country: str = Field(default="", sa_column_kwargs={"server_default": ""})
    # the language of the player's pages and e-mails (webapp.i18n: "fr", "ro"); "" = not
    # chosen yet (the browser's Accept-Language, then French)
    locale: str = Field(default="", sa_column_kwargs={"server_default": ""})
    email: str = Field(unique=True, index=True)
    # secret in the player's submission address (plus-address) and personal links
    token: str = Field(unique=True, index=True)
    password_hash: str | None = None
    bounce_count: int = 0
    last_bounce_at: datetime | None = _ts(nullable=True)
    active: bool = True
    # bumped by sign-out and password changes: every session cookie carrying an older value
    # is refused (webapp.auth)
    session_epoch: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    created_at: datetime = _ts()


class Arbitre(SQLModel, table=True):
    __tablename__ = "arbitre"

    id: int | None = Field(default=None, primary_key=True)
    username: str = Field(unique=True, index=True)
    name: str = ""
    email: str = ""
    password_hash: str
    active: bool = True
    session_epoch: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    created_at: datetime = _ts()
    last_login_at: datetime | None = _ts(nullable=True)


class ArbitreLoginToken(SQLModel, table=True):
    """A one-time sign-in link for an arbitre (mailed to his address or printed by
    ``arbitre arbitre lien``); only its SHA-256 is stored."""

    __tablename__ = "arbitre_login_token"

    id: int | None = Field(default=None, primary_key=True)
    arbitre_id: int = Field(foreign_key="arbitre.id", index=True)
    token_sha256: str = Field(unique=True, index=True)
    created_at: datetime = _ts()
    expires_at: datetime = _ts()
    used_at: datetime | None = _ts(nullable=True)


class LoginToken(SQLModel, table=True):
    """A magic sign-in link sent by e-mail; only its SHA-256 is stored."""

    __tablename__ = "login_token"

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="player.id", index=True)
    token_sha256: str = Field(unique=True, index=True)
    created_at: datetime = _ts()
    expires_at: datetime = _ts()
    used_at: datetime | None = _ts(nullable=True)


# --- sheets, verification, rankings --------------------------------------------------------


class Submission(StrEnumColumns, table=True):
    """One version of a player's feuille de route. Every version is kept."""

    __tablename__ = "submission"
    __table_args__ = (sa.UniqueConstraint("problem_id", "player_id", "version"),)

    id: int | None = Field(default=None, primary_key=True)
    problem_id: int = Field(foreign_key="problem.id", index=True)
    player_id: int = Field(foreign_key="player.id", index=True)
    version: int
    previous_id: int | None = Field(default=None, foreign_key="submission.id")
    channel: Channel = _enum(Channel)
    received_at: datetime = _ts(index=True)  # server receive time: lateness is judged on it
    raw_text: str
    sha256: str = Field(index=True)
    late: bool = False
    accepted_late: bool = False
    parse_errors: list[dict[str, Any]] = _json(list)
    feuille: dict[str, Any] | None = _json(nullable=True)
    inbound_message_id: int | None = Field(default=None, foreign_key="inbound_message.id")


class Verification(SQLModel, table=True):
    """The verifier's report on one submission with one lexicon.

    ``run`` counts re-runs: the batch creates run 1 once; a re-run (with its ``reason``) adds
    run n+1 and marks the previous one ``superseded_at``.
    """

    __tablename__ = "verification"
    __table_args__ = (sa.UniqueConstraint("submission_id", "lexicon_sha256", "run"),)

    id: int | None = Field(default=None, primary_key=True)
    submission_id: int = Field(foreign_key="submission.id", index=True)
    lexicon_name: str
    lexicon_sha256: str
    run: int = 1
    valid: bool
    report: dict[str, Any] = _json()
    final_score: int
    created_at: datetime = _ts()
    reason: str = ""
    superseded_at: datetime | None = _ts(nullable=True)


class Ranking(StrEnumColumns, table=True):
    __tablename__ = "ranking"

    id: int | None = Field(default=None, primary_key=True)
    problem_id: int = Field(foreign_key="problem.id", index=True)
    kind: RankingKind = _enum(RankingKind)
    comment: str = ""
    rows: list[dict[str, Any]] = _json(list)
    created_at: datetime = _ts()
    superseded_at: datetime | None = _ts(nullable=True)
    #: when its results mails were all in the outbox; None while they are still to be
    #: composed (the scheduler composes them after the ranking's own commit, in chunks:
    #: ``rankings.announce_pending``)
    mailed_at: datetime | None = _ts(nullable=True)


class Ruling(StrEnumColumns, table=True):
    """An arbitre's decision, fed to the verifier (never a hand-edited score)."""

    __tablename__ = "ruling"

    id: int | None = Field(default=None, primary_key=True)
    problem_id: int = Field(foreign_key="problem.id", index=True)
    submission_id: int | None = Field(default=None, foreign_key="submission.id")
    kind: RulingKind = _enum(RulingKind)
    word: str | None = None
    comment: str = ""
    arbitre_id: int | None = Field(default=None, foreign_key="arbitre.id")
    created_at: datetime = _ts()
    revoked_at: datetime | None = _ts(nullable=True)


class Appeal(StrEnumColumns, table=True):
    __tablename__ = "appeal"

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="player.id", index=True)
    verification_id: int = Field(foreign_key="verification.id", index=True)
    text: str
    status: AppealStatus = _enum(AppealStatus, AppealStatus.OPEN)
    answer: str = ""
    created_at: datetime = _ts()
    answered_at: datetime | None = _ts(nullable=True)
    answered_by: int | None = Field(default=None, foreign_key="arbitre.id")


class AuditLog(SQLModel, table=True):
    """Every arbitre action (and every automatic step of the schedule)."""

    __tablename__ = "audit_log"

    id: int | None = Field(default=None, primary_key=True)
    at: datetime = _ts(index=True)
    actor: str  # arbitre username, "system" or "player:<id>"
    action: str = Field(index=True)
    target: str = ""
    details: dict[str, Any] = _json()


# --- mail ----------------------------------------------------------------------------------


class InboundMessage(StrEnumColumns, table=True):
    """A received e-mail, stored raw before anything else is done with it."""

    __tablename__ = "inbound_message"

    id: int | None = Field(default=None, primary_key=True)
    received_at: datetime = _ts(index=True)
    channel: InboundChannel = _enum(InboundChannel)
    envelope_from: str = ""
    envelope_to: list[str] = _json(list)
    message_id: str | None = Field(default=None, index=True)
    raw: bytes = Field(sa_type=sa.LargeBinary)
    sha256: str = Field(index=True)
    size: int
    status: InboundStatus = _enum(InboundStatus, InboundStatus.STORED, index=True)
    error: str | None = None
    auth_results: dict[str, Any] = _json()
    player_id: int | None = Field(default=None, foreign_key="player.id")
    problem_id: int | None = Field(default=None, foreign_key="problem.id")
    # no FK: submission.inbound_message_id already points here (avoids an FK cycle)
    submission_id: int | None = None
    processed_at: datetime | None = _ts(nullable=True)


#: the outbox rows not yet sent: the predicate of the partial index on when they are due
UNSENT_WHERE = "status IN ('pending', 'sending')"


class OutboxMessage(StrEnumColumns, table=True):
    """A composed e-mail waiting to be sent; ``dedupe_key`` makes every enqueue idempotent."""

    __tablename__ = "outbox_message"
    # the rows not yet sent by when they are due (the sender's claim, the intake's in-flow
    # backlog): one small index range, whatever the rows sent (all of them, over the years)
    # and the rows waiting for later (retries after a relay outage)
    __table_args__ = (sa.Index("ix_outbox_message_due", "next_attempt_at",
                               postgresql_where=sa.text(UNSENT_WHERE),
                               sqlite_where=sa.text(UNSENT_WHERE)),)

    id: int | None = Field(default=None, primary_key=True)
    created_at: datetime = _ts()
    kind: OutboxKind = _enum(OutboxKind)
    to_addr: str
    subject: str
    body_text: str
    body_html: str | None = None
    headers: dict[str, str] = _json()
    message_id: str = Field(unique=True)
    dedupe_key: str | None = Field(default=None, unique=True)
    status: OutboxStatus = _enum(OutboxStatus, OutboxStatus.PENDING, index=True)
    attempts: int = 0
    next_attempt_at: datetime = _ts(index=True)
    sent_at: datetime | None = _ts(nullable=True)
    last_error: str | None = None
    player_id: int | None = Field(default=None, foreign_key="player.id")
    # the process that claimed the row (mailer.holder): its host name, pid and start stamp;
    # a ``sending`` row whose holder is surely gone is taken back before its lease runs out
    holder_host: str | None = None
    holder_pid: int | None = None
    holder_start: str | None = None


# --- scheduler -----------------------------------------------------------------------------


class Lease(SQLModel, table=True):
    """Who runs the scheduler: one row per lease name, held until ``expires_at``."""

    __tablename__ = "lease"

    name: str = Field(primary_key=True)
    holder: str
    acquired_at: datetime = _ts()
    expires_at: datetime = _ts()


class ChangeCounter(SQLModel, table=True):
    """A number every transaction bumps when it changes what the scheduler plans (a problem's
    or a round's times or status): the leader polls it and replans at once
    (``webapp.services.lifecycle``, ``webapp.scheduler``)."""

    __tablename__ = "change_counter"

    name: str = Field(primary_key=True)
    value: int = 0
    changed_at: datetime = _ts()


# --- Duplicate by correspondence (round-based; webapp.services.duplicate) -----------------


class DuplicateStatus(StrEnum):
    SCHEDULED = "scheduled"  # created; round 1 is drawn at starts_at
    RUNNING = "running"  # a round is open, or being closed/corrected/published
    FINISHED = "finished"  # the last round's results are out; final ranking sent


class RoundStatus(StrEnum):
    OPEN = "open"  # the draw is public; bulletins accepted
    CLOSED = "closed"  # deadline passed (late bulletins still stored and flagged)
    CORRECTED = "corrected"  # every bulletin corrected; the top may still be overridden
    PUBLISHED = "published"  # results out, the top placed on the master grid


class SeedSource(StrEnum):
    """Where a Duplicate's bag order came from (``DuplicateGame.seed_source``)."""

    SECRET = "secret"  # a fresh 128-bit seed from ``secrets`` (the default): unpredictable
    GIVEN = "given"  # a seed the arbitre typed (replays, tests): anyone knowing it knows the draws
    BAG = "bag"  # the whole bag order given (a recorded game replayed); ``seed`` is 0
    LEGACY = "legacy"  # a game created before 2026-12: a 31-bit seed, stored bag order


class DuplicateVariant(StrEnum):
    """``DuplicateGame.variant``: the plain FISF Duplicate ("", falsy) or a variant of
    ``puzzles.variants`` (docs/VARIANTS.md); the Partie de Superscrabble is played on the
    Duplicate Top's rules."""

    PLAIN = ""
    TOP = "top"
    COMPLETIF = "completif"
    SUPERJOKER = "superjoker"
    METAGRAMME = "metagramme"
    ELLIPTIQUE = "elliptique"
    TACTIQUE = "tactique"
    SUPERSCRABBLE = "superscrabble"


class CorrespondenceStatus(StrEnum):
    PLAYING = "playing"
    FINISHED = "finished"


class DuplicateGame(StrEnumColumns, table=True):
    """A FISF Duplicate played by correspondence, one round (one draw, one top) at a time.

    The players are those registered in ``competition_id``. ``settings`` is
    ``puzzles.duplicate.DuplicateSettings.to_json()``; ``rhythm`` the round deadlines
    (``{"kind": "hours", "hours": 24}``, ``{"kind": "weekdays", "days": [0, 3],
    "time": "20:00"}``, ``{"kind": "all_answered", "hours": 48}``); ``bag_order`` the bag
    drawn once from ``seed`` (reproducible; a secret 128-bit seed by default, see
    ``seed_source`` and docs/DUPLICATE.md « Le sac »); ``state_text`` the master game after the last
    published round (``GameState.to_text()``).
    """

    __tablename__ = "duplicate_game"

    id: int | None = Field(default=None, primary_key=True)
    code: str = Field(unique=True, index=True)
    competition_id: int = Field(foreign_key="competition.id", index=True)
    title: str
    lang: str = "fr"  # tile set: "fr" (French, 102 tiles) or "ro" (Romanian, 100)
    lexicon_name: str = "default"
    lexicon_sha256: str | None = None
    # "" the FISF Duplicate; else a variant of puzzles.variants.VARIANTS ("top", "completif",
    # "superjoker", "metagramme", "elliptique"), ``settings`` then being
    # ``VariantSettings.to_json()`` (docs/VARIANTS.md)
    variant: DuplicateVariant = _enum(
        DuplicateVariant, DuplicateVariant.PLAIN, server_default=""
    )
    settings: dict[str, Any] = _json()
    rhythm: dict[str, Any] = _json()
    # the bag order's seed (see ``seed_source``): up to 128 bits, stored as its digits
    seed: int = Field(sa_type=BigIntText, nullable=False)
    seed_source: SeedSource = _enum(SeedSource, SeedSource.SECRET, server_default="legacy")
    bag_order: str
    state_text: str
    timezone: str = DEFAULT_TIMEZONE
    # minutes between a round's close and its results (the arbitre may override the top)
    review_minutes: int = 0
    starts_at: datetime = _ts(index=True)
    status: DuplicateStatus = _enum(DuplicateStatus, DuplicateStatus.SCHEDULED, index=True)
    created_at: datetime = _ts()
    finished_at: datetime | None = _ts(nullable=True)


class DuplicateRound(StrEnumColumns, table=True):
    """One round: its draw, the master grid before and after, the retained top, the results."""

    __tablename__ = "duplicate_round"
    __table_args__ = (sa.UniqueConstraint("game_id", "number"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="duplicate_game.id", index=True)
    number: int
    opens_at: datetime = _ts()
    closes_at: datetime = _ts(index=True)
    status: RoundStatus = _enum(RoundStatus, RoundStatus.OPEN, index=True)
    draw: dict[str, Any] = _json()  # reliquat, new, rack, rejected, notation
    state_before: str  # GameState.to_text() with this round's draw made
    grid_before: str  # CGP
    grid_after: str | None = None  # CGP, once the top is placed (results published)
    top: dict[str, Any] | None = _json(nullable=True)  # move, ref, word, score, ties, reason
    top_overridden_by: str | None = None
    # one mapping per registered player: player_id, entry_id, score, kind, warnings, reason...
    results: list[dict[str, Any]] = _json(list)
    closed_at: datetime | None = _ts(nullable=True)
    corrected_at: datetime | None = _ts(nullable=True)
    published_at: datetime | None = _ts(nullable=True)


class DuplicateEntry(StrEnumColumns, table=True):
    """One version of a player's bulletin for one round; every version is kept. The one that
    counts is the last received on time."""

    __tablename__ = "duplicate_entry"
    __table_args__ = (sa.UniqueConstraint("round_id", "player_id", "version"),)

    id: int | None = Field(default=None, primary_key=True)
    round_id: int = Field(foreign_key="duplicate_round.id", index=True)
    player_id: int = Field(foreign_key="player.id", index=True)
    version: int
    channel: Channel = _enum(Channel)
    received_at: datetime = _ts(index=True)
    raw_text: str
    sha256: str
    late: bool = False
    parse_errors: list[str] = _json(list)
    bulletin: dict[str, Any] | None = _json(nullable=True)
    inbound_message_id: int | None = Field(default=None, foreign_key="inbound_message.id")


class CorrespondenceGame(StrEnumColumns, table=True):
    """A two-player correspondence game (FRSc, docs/VARIANTS.md; ``puzzles.correspondence``;
    ``webapp.services.correspondence``): RED and BLUE on a letter row fixed at the start,
    one move each in turn, each within ``move_hours`` of the previous one (a reminder
    ``reminder_hours`` before; lost on time ``grace_hours`` after the deadline). The game is
    rebuilt from ``row`` and ``moves`` (``[ref, word]`` or ``null`` for a pass, with the
    receive time); ``competition_id`` is the series. ``timezone``: the zone its pages, mails
    and sheet show the deadlines in (migration 0014; older games ``Europe/Paris``);
    ``row_seed``: the seed the row was drawn from (``puzzles.correspondence.row_from_seed``),
    empty when the arbitre typed it."""

    __tablename__ = "correspondence_game"

    id: int | None = Field(default=None, primary_key=True)
    code: str = Field(unique=True, index=True)
    competition_id: int = Field(foreign_key="competition.id", index=True)
    title: str
    lang: str = "fr"
    lexicon_name: str = "default"
    lexicon_sha256: str | None = None
    row: str
    red_id: int = Field(foreign_key="player.id", index=True)
    blue_id: int = Field(foreign_key="player.id", index=True)
    moves: list[dict[str, Any]] = _json(list)
    move_hours: int = 72
    reminder_hours: int = 24
    grace_hours: int = 24
    timezone: str = DEFAULT_TIMEZONE
    row_seed: str = ""
    turn_started_at: datetime = _ts(index=True)
    reminded_moves: int = -1  # the number of moves when the last reminder was sent
    status: CorrespondenceStatus = _enum(
        CorrespondenceStatus, CorrespondenceStatus.PLAYING, index=True
    )
    end_reason: str = ""
    result_red: float | None = None
    result_blue: float | None = None
    created_at: datetime = _ts()
    finished_at: datetime | None = _ts(nullable=True)
