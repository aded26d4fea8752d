"""Notifications: every e-mail the server sends is composed here and written to the outbox.

:func:`enqueue` is idempotent by ``dedupe_key`` (``reminder:J-3:<problem>:<player>``...): a
job that runs twice, or two processes racing, produce one message. ``mailer.outbox`` sends
the rows; nothing here touches the network.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from email.utils import make_msgid
from typing import Any

import sqlalchemy as sa
from flask import current_app, has_app_context
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import make_transient_to_detached
from sqlmodel import Session, col, select

from mailer import compose
from webapp.models import (
    AppealStatus,
    OutboxKind,
    OutboxMessage,
    OutboxStatus,
    Player,
    Problem,
    RankingKind,
)
from webapp.services import clock, links
from webapp.services.timefmt import format_local

log = logging.getLogger(__name__)


def _setting(name: str, default: Any) -> Any:
    if has_app_context():
        return current_app.config.get(name, default)
    return default


def common_context() -> dict[str, Any]:
    """Template variables every message gets (footer, sender)."""
    return {
        "competition_name": _setting("COMPETITION_NAME", "Arbitre"),
        "site_url": _setting("BASE_URL", None),
        "contact": _setting("CONTACT_ADDRESS", None),
    }


def submission_address(player: Player) -> str:
    local = _setting("SUBMIT_LOCALPART", "feuilles")
    domain = _setting("SUBMIT_DOMAIN", "localhost")
    return f"{local}+{player.token}@{domain}"


_FALLBACK_SUBJECTS = {
    "receipt": "Accusé de réception de votre feuille de route",
    "reminder": "Rappel : clôture prochaine",
    "publication": "Nouveau problème publié",
    "results": "Résultats",
    "login": "Votre lien de connexion",
}
_FALLBACK_FIELDS = (
    ("problem_title", "Problème"), ("received_at", "Reçue le"),
    ("submission_ref", "Référence de l'envoi"), ("sha256", "Empreinte SHA-256"),
    ("deadline", "Clôture"), ("link", "Lien"), ("final_score", "Score retenu"),
)


def _compose(template: str, ctx: dict[str, Any],
             locale: str | None = None) -> tuple[str, str, str | None, str]:
    """Render with ``mailer.compose`` in ``locale``; should a template fail, a plain French
    message with the essential facts goes out instead, so that the caller's transaction (a
    sheet and its receipt) is never lost to a template error. The last item is the language
    the mail was written in (its ``Content-Language``)."""
    lang = locale if locale in compose.LANGUAGES else "fr"
    try:
        mail = compose.render(template, locale=lang, **ctx)
    except Exception:
        log.exception("template %s failed; sending the plain fallback", template)
        lines = [f"Bonjour {ctx['player_name']}," if ctx.get("player_name") else "Bonjour,", ""]
        lines += [f"{label} : {ctx[key]}" for key, label in _FALLBACK_FIELDS if ctx.get(key)]
        lines += ["", "(Message automatique d'Arbitre.)"]
        return (_FALLBACK_SUBJECTS.get(template, "Message d'Arbitre"), "\n".join(lines) + "\n",
                None, "fr")
    return mail.subject, mail.text, mail.html, lang


def enqueue(
    *,
    session: Session,
    kind: OutboxKind,
    to_addr: str,
    template: str,
    context: Mapping[str, Any],
    dedupe_key: str | None = None,
    player_id: int | None = None,
    headers: Mapping[str, str] | None = None,
    fresh_key: bool = False,
    locale: str | None = None,
) -> OutboxMessage:
    """Compose ``template`` and add it to the outbox, unless ``dedupe_key`` is already there
    (then the existing row is returned unchanged).

    ``fresh_key``: the key names a row created in the caller's own transaction (a receipt's
    ``receipt:<new submission id>``), so no other transaction can have used it: the lookup
    is skipped. The insert stays guarded by the unique index all the same.

    ``locale``: the mail's language; by default the language the player chose
    (``Player.locale``, French when none)."""
    if dedupe_key is not None and not fresh_key:
        existing = session.exec(
            select(OutboxMessage).where(OutboxMessage.dedupe_key == dedupe_key)
        ).first()
        if existing is not None:
            return existing
    msg = _new_message(kind=kind, to_addr=to_addr, template=template, context=context,
                       dedupe_key=dedupe_key, player_id=player_id, headers=headers,
                       locale=_locale_of(session, player_id, locale))
    if dedupe_key is None:
        session.add(msg)
        session.flush()
        return msg
    dialect = session.get_bind().dialect.name
    if dialect in ("postgresql", "sqlite"):
        return _insert_unless_key_exists(session, msg, dialect)
    # Another process may have inserted the same key since the check above: the savepoint
    # keeps the caller's transaction alive when the unique index refuses ours.
    try:
        with session.begin_nested():
            session.add(msg)
    except sa.exc.IntegrityError:
        return session.exec(
            select(OutboxMessage).where(OutboxMessage.dedupe_key == dedupe_key)
        ).one()
    return msg


def _locale_of(session: Session, player_id: int | None, locale: str | None) -> str | None:
    """``locale``, or by default the language of the player ``player_id``."""
    if locale is None and player_id is not None:
        recipient = session.get(Player, player_id)
        locale = recipient.locale if recipient is not None else None
    return locale


def enqueue_deferred(
    *,
    session: Session,
    kind: OutboxKind,
    to_addr: str,
    template: str,
    context: Mapping[str, Any],
    dedupe_key: str,
    player_id: int | None = None,
    headers: Mapping[str, str] | None = None,
    into: list[dict[str, Any]],
) -> None:
    """What :func:`enqueue` with ``fresh_key`` composes (the row's column values, the mail
    in the player's language), appended to ``into`` instead of written: the caller writes
    the list with :func:`insert_deferred` before its commit (no model object: nothing in
    the caller's transaction reads the row before)."""
    into.append(_new_values(kind=kind, to_addr=to_addr, template=template, context=context,
                            dedupe_key=dedupe_key, player_id=player_id, headers=headers,
                            locale=_locale_of(session, player_id, None)))


def _new_message(
    *, kind: OutboxKind, to_addr: str, template: str, context: Mapping[str, Any],
    dedupe_key: str | None, player_id: int | None, headers: Mapping[str, str] | None,
    locale: str | None,
) -> OutboxMessage:
    """The composed, not yet stored outbox row of :func:`enqueue`."""
    return OutboxMessage(**_new_values(
        kind=kind, to_addr=to_addr, template=template, context=context,
        dedupe_key=dedupe_key, player_id=player_id, headers=headers, locale=locale))


#: the outbox columns :func:`_new_values` leaves empty (a row not yet claimed nor sent)
_UNSENT = {"sent_at": None, "last_error": None, "holder_host": None, "holder_pid": None,
           "holder_start": None}


def _new_values(
    *, kind: OutboxKind, to_addr: str, template: str, context: Mapping[str, Any],
    dedupe_key: str | None, player_id: int | None, headers: Mapping[str, str] | None,
    locale: str | None,
) -> dict[str, Any]:
    """The column values of a composed outbox row (every column but ``id``): what
    :func:`fan_out` stores as they are (:func:`_insert_many`), without building a model
    object per mail of a fan-out of thousands."""
    ctx = common_context()
    ctx.update(context)
    subject, text, html, lang = _compose(template, ctx, locale)
    # the mail's language (RFC 3282): mail programs use it, and the console marks the
    # subject it lists with it (a French subject on a Romanian console page is a quotation)
    hdrs = {"Auto-Submitted": "auto-generated", "Content-Language": lang}
    if kind == OutboxKind.RECEIPT and headers and "In-Reply-To" in headers:
        hdrs["Auto-Submitted"] = "auto-replied"
    hdrs.update(headers or {})
    now = clock.now()
    return {
        "created_at": now,
        "kind": OutboxKind(kind),
        "to_addr": to_addr,
        "subject": subject,
        "body_text": text,
        "body_html": html,
        "headers": hdrs,
        "message_id": make_msgid(domain=_setting("SUBMIT_DOMAIN", "localhost")),
        "dedupe_key": dedupe_key,
        "status": OutboxStatus.PENDING,
        "attempts": 0,
        "next_attempt_at": now,
        "player_id": player_id,
        **_UNSENT,
    }


#: the PostgreSQL NOTIFY channel of queued mail: the outbox's sender processes listen on it
#: (``mailer.pipeline.QUEUED_CHANNEL``); :func:`_insert_many` notifies it with its rows
QUEUED_CHANNEL = "arbitre_outbox_queued"

#: rows per ``INSERT`` of :func:`_insert_many` (SQLite binds at most 32,766 parameters)
INSERT_CHUNK = 200


def _insert_many(session: Session, msgs: Iterable[OutboxMessage | dict[str, Any]]) -> int:
    """Store ``msgs`` (model objects or :func:`_new_values` dicts, each with its
    ``dedupe_key``) in their order, ``INSERT ... VALUES
    (...), (...) ON CONFLICT (dedupe_key) DO NOTHING RETURNING id`` for
    :data:`INSERT_CHUNK` rows at a time (composed as they are stored: a chunk at a time in
    memory): a key another process wrote meanwhile is skipped, as by :func:`enqueue`, and
    the caller's transaction goes on. Returns how many rows are new. Other backends: one
    insert per row, each in a savepoint."""
    dialect = session.get_bind().dialect.name
    table = OutboxMessage.__table__  # type: ignore[attr-defined]
    new = 0
    if dialect not in ("postgresql", "sqlite"):
        for msg in msgs:
            try:
                with session.begin_nested():
                    session.add(msg if isinstance(msg, OutboxMessage) else OutboxMessage(**msg))
                new += 1
            except sa.exc.IntegrityError:
                pass
        return new
    keys = [c.key for c in table.columns if c.key != "id"]
    chunk: list[dict[str, Any]] = []

    def flush() -> int:
        # the statement compiled once (_guarded_insert), its rows as parameters: SQLAlchemy
        # sends them as one multi-row INSERT (its « insertmanyvalues »), not one per row
        done = len(session.execute(_guarded_insert(dialect), chunk).all())
        chunk.clear()
        return done

    for msg in msgs:
        chunk.append({k: msg[k] for k in keys} if isinstance(msg, dict)
                     else {k: getattr(msg, k) for k in keys})
        if len(chunk) >= INSERT_CHUNK:
            new += flush()
    if chunk:
        new += flush()
    if new and dialect == "postgresql":
        # delivered at the commit: the sender processes start on these rows at once
        session.execute(sa.select(sa.func.pg_notify(QUEUED_CHANNEL, "")))
    if new:
        _wake_after_commit(session)
    return new


#: ``app.extensions`` key: the callables to call after a commit that queued mail in this
#: process (the outbox sender thread of the process registers its wake-up,
#: ``mailer.outbox.OutboxWorker``): a fan-out's rows are sent at once, not at the next
#: ``OUTBOX_POLL_SECONDS`` tick
QUEUED_HOOKS = "arbitre.outbox_queued"


def _wake_after_commit(session: Session) -> None:
    """Call the :data:`QUEUED_HOOKS` once the session's transaction commits (not if it
    is rolled back)."""
    hooks = current_app.extensions.get(QUEUED_HOOKS) if has_app_context() else None
    if not hooks:
        return
    armed = [True]

    def wake(_session: Any) -> None:
        if armed and armed.pop():
            for hook in list(hooks):
                hook()

    def disarm(_session: Any) -> None:
        armed.clear()

    sa.event.listen(session, "after_commit", wake)
    sa.event.listen(session, "after_rollback", disarm)


_GUARDED_INSERTS: dict[str, Any] = {}


def _guarded_insert(dialect: str) -> Any:
    """The outbox's ``INSERT ... ON CONFLICT (dedupe_key) DO NOTHING RETURNING id,
    dedupe_key``, built once per dialect with its values as parameters: SQLAlchemy compiles
    it once (a statement with the values inlined is a new statement to analyse at every
    receipt). The one guarded insert of :func:`enqueue`, :func:`fan_out` and
    :func:`insert_deferred` (which reads each new row's key)."""
    stmt = _GUARDED_INSERTS.get(dialect)
    if stmt is None:
        table = OutboxMessage.__table__  # type: ignore[attr-defined]
        insert = postgresql.insert(table) if dialect == "postgresql" else sqlite.insert(table)
        stmt = _GUARDED_INSERTS[dialect] = (
            insert.on_conflict_do_nothing(index_elements=["dedupe_key"])
            .returning(table.c.id, table.c.dedupe_key))
    return stmt


def insert_deferred(session: Session, rows: list[dict[str, Any]]) -> None:
    """Write the rows :func:`enqueue_deferred` kept (their column values), in their order,
    as :func:`_guarded_insert` in one executemany (one round trip on PostgreSQL): a key
    already there is skipped, as by :func:`enqueue`. Other backends: row by row."""
    if not rows:
        return
    dialect = session.get_bind().dialect.name
    if dialect not in ("postgresql", "sqlite"):
        for row in rows:
            session.add(OutboxMessage(**row))
        session.flush()
        return
    table = OutboxMessage.__table__  # type: ignore[attr-defined]
    keys = [c.key for c in table.columns if c.key != "id"]
    session.execute(_guarded_insert(dialect), [{k: row[k] for k in keys} for row in rows])


def _insert_unless_key_exists(session: Session, msg: OutboxMessage, dialect: str) -> OutboxMessage:
    """``INSERT ... ON CONFLICT (dedupe_key) DO NOTHING RETURNING id``: should another
    process have written the same key since the caller's check, its row is returned and the
    caller's transaction goes on; one statement instead of a savepoint's three."""
    table = OutboxMessage.__table__  # type: ignore[attr-defined]
    values = {c.key: getattr(msg, c.key) for c in table.columns if c.key != "id"}
    new_id = session.execute(_guarded_insert(dialect), values).scalar()
    if new_id is None:
        return session.exec(
            select(OutboxMessage).where(OutboxMessage.dedupe_key == msg.dedupe_key)
        ).one()
    # The row is in: attach our object to it as persistent, without reading it back.
    msg.id = new_id
    make_transient_to_detached(msg)
    session.add(msg)
    return msg


# --- the scheduled notices -------------------------------------------------------------------


def deliverable(player: Player) -> bool:
    """Players whose address keeps bouncing get no automatic mail until it is fixed."""
    limit = int(_setting("BOUNCE_LIMIT", 3))
    return player.active and player.bounce_count < limit


def problem_url(problem: Any) -> str | None:
    return links.absolute("problemes", problem.code)


def fan_out(
    *, session: Session, players: Iterable[Player], key: Callable[[Player], str],
    kind: OutboxKind,
    template: str, context: Callable[[Player], Mapping[str, Any]],
) -> int:
    """The one mail fan-out: each player's ``key(p)``, the keys already in the outbox (one
    query per 500), the deliverable players without one, each mail composed with
    ``context(p)`` in the player's language and stored as :func:`enqueue` would (a few
    hundred rows per ``INSERT``, :func:`_insert_many`). Returns how many messages are new;
    running it twice adds none."""
    chosen = list(players)
    keys = {p.id: key(p) for p in chosen}
    sent = existing_keys(session, list(keys.values()))
    # composed one by one, stored a few hundred per statement (not one round trip each)
    return _insert_many(session, (
        _new_values(kind=kind, to_addr=p.email, template=template, context=context(p),
                    dedupe_key=keys[p.id], player_id=p.id, headers=None, locale=p.locale)
        for p in chosen if deliverable(p) and keys[p.id] not in sent
    ))


def publication_notices(
    *, session: Session, problem: Any, players: list[Player], progressive: bool = False,
    live_first: datetime | None = None,
) -> int:
    """One publication notice per player (idempotent); returns how many were new.
    ``progressive``: the groups are announced move by move (``rounds.progressive``);
    ``live_first``: played live, when move 1 is announced (the end of the reflection)."""
    shared = {
        "problem_title": f"{problem.title} ({problem.code})",
        "deadline": format_local(problem.deadline_at, problem.timezone),
        "problem_text": problem_statement(problem, progressive=progressive,
                                          live_first=live_first),
        "subject_hint": problem.code,
        "problem_url": problem_url(problem),
    }
    return fan_out(
        session=session, players=players, key=lambda p: f"publication:{problem.code}:{p.id}",
        kind=OutboxKind.PUBLICATION, template="publication",
        context=lambda p: {**shared, "player_name": p.name,
                           "submission_address": submission_address(p)},
    )


def reminders(
    *, session: Session, problem: Any, players: list[Player], days_left: int,
    waiting: Mapping[int, list[dict[str, Any]]] | None = None,
) -> int:
    """J-``days_left`` reminders to ``players`` (those without a sheet); idempotent.
    ``waiting``: per player id, the round games waiting for him (``waiting_games`` of the
    template: ``kind``, ``title``, ``code``, ``round_no``, ``deadline``, ``url``), listed
    under the problem as the player's space lists them."""
    shared = {
        "problem_title": f"{problem.title} ({problem.code})",
        "deadline": format_local(problem.deadline_at, problem.timezone),
        "days_left": days_left,
        "submitted": False,
        "subject_hint": problem.code,
        "problem_url": problem_url(problem),
    }
    return fan_out(
        session=session, players=players,
        key=lambda p: f"reminder:J-{days_left}:{problem.code}:{p.id}",
        kind=OutboxKind.REMINDER, template="reminder",
        context=lambda p: {**shared, "player_name": p.name,
                           "submission_address": submission_address(p),
                           "waiting_games": (waiting or {}).get(p.id or 0, [])},
    )


def results_notices(
    *, session: Session, problem: Any, ranking: Any, personal: Mapping[int, Mapping[str, Any]],
    players: Mapping[int, Player], revision: int | None = None,
) -> int:
    """Results (personal report + ranking) to every player who sent a sheet; idempotent per
    ranking kind, and per ``revision`` (the id of a ranking that replaced another)."""
    rows = [
        {"rank": r["rank"], "name": r["name"], "score": r["score"], "percent": r.get("percent")}
        for r in ranking.rows
    ]
    title = f"{problem.title} ({problem.code})"
    if ranking.kind == RankingKind.PROVISIONAL:
        title += " — classement provisoire"
    if revision is not None:
        title += " (révisé)"
    suffix = f":r{revision}" if revision is not None else ""
    positions = rank_positions(rows)

    def context(p: Player) -> dict[str, Any]:
        info = personal[p.id or 0]
        return {
            "player_name": p.name,
            "problem_title": title,
            "ranking": ranking_excerpt(rows, info.get("rank"), positions=positions),
            "report_text": info.get("report_text"),
            "final_score": info.get("final_score"),
            "rank": info.get("rank"),
            "participants": len(rows),
            "results_url": problem_url(problem),
        }

    return fan_out(
        session=session, players=[players[pid] for pid in personal],
        key=lambda p: f"results:{ranking.kind}:{problem.code}:{p.id}{suffix}",
        kind=OutboxKind.RESULTS, template="results", context=context,
    )


#: the outbox kind of the answer to an appeal
KIND_APPEAL_ANSWER = OutboxKind.APPEAL_ANSWER


def appeal_answer(*, session: Session, appeal: Any, player: Player, problem: Any) -> int:
    """The arbitre's answer to ``appeal``, to the player who filed it (in his language);
    one per appeal (``appeal:<id>``). Returns 1 when a mail was added, 0 when the player
    gets no automatic mail (:func:`deliverable`) or it was already there."""
    report_url = links.absolute("rapports", appeal.verification_id)
    return fan_out(
        session=session, players=[player], key=lambda p: f"appeal:{appeal.id}",
        kind=KIND_APPEAL_ANSWER, template="appeal_answer",
        context=lambda p: {
            "player_name": p.name, "problem_title": f"{problem.title} ({problem.code})",
            "accepted": appeal.status == AppealStatus.ACCEPTED, "answer": appeal.answer,
            "appeal_text": appeal.text,
            "filed_at": appeal.created_at,
            "report_url": report_url,
        },
    )


def answered_since(session: Session, key_prefix: str, since: datetime) -> bool:
    """An outbox message whose dedupe key starts with ``key_prefix`` was queued after
    ``since``: the answers to refused bulletins and moves go once per window, not once per
    message (no receipt storm)."""
    return session.exec(select(OutboxMessage.id).where(
        col(OutboxMessage.dedupe_key).startswith(key_prefix, autoescape=True),
        OutboxMessage.created_at > since).limit(1)).first() is not None


def existing_keys(session: Session, keys: list[str]) -> set[str]:
    """The dedupe keys among ``keys`` already in the outbox: one query per 500 keys, so a
    notice batch costs a few queries whatever the number of players."""
    found: set[str] = set()
    for i in range(0, len(keys), 500):
        found.update(
            k for k in session.exec(
                select(OutboxMessage.dedupe_key).where(
                    col(OutboxMessage.dedupe_key).in_(keys[i:i + 500]))
            ).all() if k is not None
        )
    return found


def rank_positions(rows: list[dict[str, Any]]) -> dict[Any, int]:
    """Each rank of ``rows`` and the position of its first row: what
    :func:`ranking_excerpt` looks a player's place up in, built once per ranking."""
    first: dict[Any, int] = {}
    for i, r in enumerate(rows):
        first.setdefault(r["rank"], i)
    return first


def ranking_excerpt(
    rows: list[dict[str, Any]], rank: int | None, *, top: int | None = None, around: int = 2,
    positions: Mapping[Any, int] | None = None,
) -> list[dict[str, Any]]:
    """The ranking as a results mail shows it: the first ``RESULTS_MAIL_TOP`` rows, then the
    player's own place with ``around`` neighbours (the full ranking is on the site). Keeps
    each mail small, and the whole batch linear in the number of players: a fan-out passes
    ``positions`` (:func:`rank_positions` of the same ``rows``, built once; a single call
    builds it itself) — searched row by row once per mail of 10,000, the place was a tenth
    of the deadline's tail (``bench/tail.py``)."""
    top = int(_setting("RESULTS_MAIL_TOP", 30)) if top is None else top
    if len(rows) <= top:
        return rows
    shown = set(range(top))
    mine = (positions if positions is not None else rank_positions(rows)).get(rank)
    if mine is not None:
        shown.update(range(max(0, mine - around), min(len(rows), mine + around + 1)))
    out: list[dict[str, Any]] = []
    last = -1
    for i in sorted(shown):
        if i != last + 1:
            out.append({"rank": "…", "name": "…", "score": "…", "percent": None})
        out.append(rows[i])
        last = i
    if last != len(rows) - 1:
        out.append({"rank": "…", "name": f"(et {len(rows) - 1 - last} autres)", "score": "…",
                    "percent": None})
    return out


def problem_statement(problem: Problem, *, progressive: bool = False,
                      live_first: datetime | None = None) -> str:
    """The letters of a problem as text, for the publication mail (``progressive``: the
    later groups are announced move by move; ``live_first``: played live, move 1 is
    announced then, at the end of the reflection, RULES §6.1)."""
    p = problem.params
    lines = [f"Type : {problem.game.label}"]
    for key, label in (("stock", "Lettres"), ("row", "Rangée"), ("rack", "Tirage"),
                       ("pool", "Réserve")):
        if p.get(key):
            lines.append(f"{label} : {p[key]}")
    for i, g in enumerate(p.get("groups", []), start=1):
        lines.append(f"Groupe {i} : {g}")
    if p.get("order"):
        if live_first is not None:
            # live (RULES §6.1): nothing of the order before the end of the reflection
            lines.append(
                "En direct : 60 min de réflexion ; le coup 1 (groupe 1 et un groupe tiré au "
                f"sort) sera annoncé le {format_local(live_first, problem.timezone)}, puis "
                "chaque coup à la fin du précédent : 10 min pour les coups 1 à 4, 8 pour 5 à 8, "
                "6 pour 9 à 12, 4 pour 13 et 14. Un coup reçu après la fin de son temps ne "
                "compte pas (heure de réception du serveur).")
        elif progressive:
            # the later groups are announced move by move (webapp.services.rounds)
            lines.append(f"Coup 1 : groupe 1 et groupe {p['order'][0]} ; le groupe de chaque "
                         "coup suivant sera annoncé par courriel et sur la page du problème.")
        else:
            lines.append("Ordre des groupes : " + ", ".join(str(n) for n in p["order"]))
    if p.get("board"):
        lines.append(f"Grille (CGP) : {p['board']}")
    return "\n".join(lines)
