"""The audit log: who did what, when, with the details needed to understand it later."""

from __future__ import annotations

import os
import socket
from datetime import datetime
from typing import Any

import sqlalchemy as sa
from flask_babel import gettext  # type: ignore[import-untyped]
from flask_babel import lazy_gettext as _l
from sqlmodel import Session, col, func, select

from webapp.models import Arbitre, AuditLog, Player
from webapp.services import clock, phrasebook
from webapp.services.timefmt import format_local

SYSTEM = "system"

#: every action recorded anywhere -> what the log page shows (French msgid, translated)
ACTIONS: dict[str, Any] = {
    "appeal.answer": _l("Réclamation répondue"),
    "appeal.file": _l("Réclamation déposée"),
    "arbitre.create": _l("Compte d'arbitre créé"),
    "arbitre.login": _l("Connexion d'un arbitre"),
    "arbitre.login_failed": _l("Connexion d'arbitre refusée"),
    "arbitre.login_link": _l("Connexion d'un arbitre par lien"),
    "arbitre.login_link_issued": _l("Lien de connexion d'arbitre envoyé"),
    "competition.create": _l("Compétition créée"),
    "competition.registration": _l("Inscriptions modifiées"),
    "competition.standings": _l("Classement général publié"),
    "correspondence.create": _l("Partie par correspondance créée"),
    "correspondence.move": _l("Coup joué par correspondance"),
    "correspondence.round_robin": _l("Tournoi toutes rondes par correspondance créé"),
    "correspondence.time": _l("Temps de réflexion dépassé"),
    "demo.seed": _l("Données de démonstration créées"),
    "duplicate.bulletin": _l("Bulletin reçu"),
    "duplicate.bulletin_after_close": _l("Bulletin reçu après la clôture"),
    "duplicate.change_applied": _l("Correction de partie appliquée"),
    "duplicate.bulletin_repeated": _l("Bulletin envoyé deux fois (un seul enregistré)"),
    "duplicate.close": _l("Tour clos"),
    "duplicate.close_early": _l("Tour clos avant l'échéance"),
    "duplicate.remind": _l("Rappels du tour envoyés"),
    "duplicate.correct": _l("Tour corrigé"),
    "duplicate.create": _l("Partie duplicate créée"),
    "duplicate.draw": _l("Tirage effectué"),
    "duplicate.finish": _l("Partie duplicate terminée"),
    "duplicate.override_top": _l("Top remplacé par l'arbitre"),
    "duplicate.publish": _l("Résultats du tour publiés"),
    "duplicate.recorrect": _l("Tour corrigé à nouveau"),
    "duplicate.replay_round": _l("Tour rejoué depuis sa position (rien d’enregistré)"),
    "mail.discard": _l("Courriel écarté"),
    "mail.outbox_retry": _l("Envoi de courriel relancé"),
    "mail.replay": _l("Courriel retraité"),
    "player.login": _l("Connexion d'un joueur"),
    "player.login_failed": _l("Connexion de joueur refusée"),
    "player.login_link": _l("Connexion d'un joueur par lien"),
    "player.profile": _l("Fiche de joueur modifiée"),
    "player.set_password": _l("Mot de passe de joueur choisi"),
    "players.import": _l("Joueurs importés"),
    "problem.announce": _l("Manche annoncée"),
    "problem.close": _l("Problème clos"),
    "problem.close_early": _l("Problème clos avant l'échéance"),
    "problem.create": _l("Problème créé"),
    "problem.finalise": _l("Classement définitif publié"),
    "problem.provisional": _l("Classement provisoire publié"),
    "problem.publish": _l("Problème publié"),
    "problem.reference": _l("Solution de référence calculée"),
    "problem.remind": _l("Rappels envoyés"),
    "problem.reschedule": _l("Problème reprogrammé"),
    "problem.verify": _l("Feuilles vérifiées"),
    "ranking.final": _l("Classement définitif établi"),
    "ranking.provisional": _l("Classement provisoire établi"),
    "ranking.withheld": _l("Classement vide non publié"),
    "ruling.add": _l("Décision d'arbitrage"),
    "stage.create": _l("Étape créée"),
    "submission.accept_late": _l("Feuille en retard acceptée"),
    "submission.received": _l("Feuille reçue"),
    "verification.batch": _l("Vérification des feuilles"),
    "verification.rerun": _l("Vérification relancée"),
}


def action_label(action: str) -> str:
    """The French phrase of an action (the code itself for one this table does not know)."""
    label = ACTIONS.get(action)
    return str(label) if label is not None else action


def people(session: Session, entries: list[AuditLog]) -> dict[str, str]:
    """Actor or target string -> the person's name, for the entries of one page: one query
    for the players (``player:<id>`` actors, ``player.profile`` targets), one for the
    arbitres (usernames); ``system`` is the server."""
    player_ids: set[int] = set()
    usernames: set[str] = set()
    for e in entries:
        for ref in (e.actor, e.target if e.action == "player.profile" else ""):
            key = ref.removeprefix("player:")
            if key.isdigit() and (ref != key or e.action == "player.profile"):
                player_ids.add(int(key))
        if e.actor not in (SYSTEM, "anonyme", "?") and not e.actor.startswith("player:"):
            usernames.add(e.actor)
        if e.action.startswith("arbitre.") and e.target:
            usernames.add(e.target)
    names: dict[str, str] = {SYSTEM: str(_l("le serveur")), "anonyme": str(_l("anonyme"))}
    if player_ids:
        for pid, name in session.exec(
            select(Player.id, Player.name).where(col(Player.id).in_(player_ids))
        ).all():
            names[f"player:{pid}"] = name
            names[str(pid)] = name
    if usernames:
        for username, name in session.exec(
            select(Arbitre.username, Arbitre.name).where(col(Arbitre.username).in_(usernames))
        ).all():
            names[username] = f"{name} ({username})" if name else username
    return names

#: which process did a scheduled step (several may share the database; one leads)
PROCESS = f"{socket.gethostname()}:{os.getpid()}"


def record(
    *, session: Session, actor: str, action: str, target: str = "", **details: Any
) -> AuditLog:
    entry = AuditLog(at=clock.now(), actor=actor, action=action, target=target, details=details)
    session.add(entry)
    return entry


_AUDIT_TABLE = AuditLog.__table__  # type: ignore[attr-defined]
_INSERT_ENTRY = sa.insert(_AUDIT_TABLE)
#: :func:`record_many`'s: with ``RETURNING``, SQLAlchemy sends the rows as one multi-row
#: ``INSERT`` (its « insertmanyvalues », the ids given in the rows' order) instead of the
#: driver's executemany, a statement a row (on psycopg ≈ 50 → 25 µs of CPU a row)
_INSERT_ENTRIES = _INSERT_ENTRY.returning(_AUDIT_TABLE.c.id, sort_by_parameter_order=True)


def record_now(
    *, session: Session, actor: str, action: str, target: str = "", **details: Any
) -> None:
    """:func:`record`, written at once with one ``INSERT`` built once, without an ORM
    object (no unit-of-work flush): for the hot paths, which never read the entry back
    (a sheet received). The row is the one :func:`record` would write."""
    session.execute(_INSERT_ENTRY, entry_values(actor=actor, action=action, target=target,
                                                **details))


def entry_values(*, actor: str, action: str, target: str = "", **details: Any) -> dict[str, Any]:
    """The row :func:`record_now` writes, as its ``INSERT``'s parameters, stamped now: for
    a caller that writes several entries at once (:func:`record_many`). The column values
    of :func:`record`'s ``AuditLog`` object (every column is given), without building it."""
    return {"at": clock.now(), "actor": actor, "action": action, "target": target,
            "details": details}


def record_many(session: Session, rows: list[dict[str, Any]]) -> None:
    """Write the entries of :func:`entry_values` in one ``INSERT`` (one round trip on
    PostgreSQL), their ids in their order."""
    if len(rows) == 1:
        session.execute(_INSERT_ENTRY, rows[0])
    elif rows:
        session.execute(_INSERT_ENTRIES, rows)


def page(session: Session, *, action: str = "", target: str = "", page: int = 1,
         per_page: int = 50) -> tuple[list[AuditLog], int]:
    """One page of the log, newest first, filtered by an action prefix and a target
    substring; and how many entries match."""
    q = select(AuditLog)
    if action:
        q = q.where(col(AuditLog.action).startswith(action))
    if target:
        q = q.where(col(AuditLog.target).contains(target))
    total = int(session.exec(select(func.count()).select_from(q.subquery())).one())
    entries = list(session.exec(
        q.order_by(col(AuditLog.at).desc(), col(AuditLog.id).desc())
        .offset((page - 1) * per_page).limit(per_page)
    ).all())
    return entries, total


def target_label(entry: AuditLog, names: dict[str, str]) -> str:
    """The target as people read it: a player's or an arbitre's name, an appeal by its
    number, else the code (a problem's, a game's, a competition's)."""
    if entry.action == "player.profile" or entry.action.startswith("arbitre."):
        return names.get(entry.target, entry.target)
    kind, _sep, number = entry.target.partition(":")
    if number.isdigit() and kind in _TARGET_KINDS:
        return str(_TARGET_KINDS[kind]) % {"n": number}
    return entry.target


#: ``<kind>:<id>`` targets, in words
_TARGET_KINDS: dict[str, Any] = {
    "appeal": _l("appel n° %(n)s"), "player": _l("joueur n° %(n)s"),
    "submission": _l("feuille n° %(n)s"), "inbound": _l("courriel reçu n° %(n)s"),
    "outbox": _l("courriel sortant n° %(n)s"),
}

#: every detail key the log records -> its name on the page (French msgid, translated)
DETAIL_KEYS: dict[str, Any] = {
    "after": _l("après"), "answer": _l("réponse"), "at": _l("heure prévue"),
    "attempts": _l("tentatives"), "before": _l("avant"), "blue": _l("bleu"),
    "change": _l("changement"), "changed": _l("modifié"), "changes": _l("changements"),
    "channel": _l("canal"), "comment": _l("commentaire"), "created": _l("créés"),
    "days": _l("jours avant la clôture"), "deadline_announced": _l("clôture annoncée"),
    "deadline_at": _l("clôture"), "digest": _l("empreinte"), "entries": _l("joueurs classés"),
    "error": _l("erreur"), "errors": _l("erreurs"), "event_values": _l("valeur des épreuves"),
    "game": _l("partie"), "games": _l("parties"), "grace_hours": _l("heures de grâce"),
    "ip": _l("adresse IP"), "kind": _l("type"), "last_error": _l("dernière erreur"),
    "late": _l("en retard"), "late_changed": _l("retard modifié"), "lexicon": _l("liste de mots"),
    "live": _l("en direct"), "loser": _l("perdant"), "mailed": _l("envoyés"),
    "mails": _l("courriels"), "manual": _l("à la main"), "move": _l("coup"),
    "move_hours": _l("heures par coup"), "name": _l("nom"), "new": _l("nouveau"),
    "old": _l("ancien"), "open_registration": _l("ouverte à tous"), "players": _l("joueurs"),
    "previous_error": _l("erreur précédente"), "previous_status": _l("état précédent"),
    "problem": _l("problème"), "process": _l("processus"), "publish_at": _l("publication"),
    "ranking": _l("classement n°"), "reason": _l("motif"), "recorrected": _l("recorrigé"),
    "red": _l("rouge"), "ref": _l("référence"), "rhythm": _l("rythme"), "round": _l("tour"),
    "round_interval_minutes": _l("minutes entre deux annonces"), "row": _l("rangée"),
    "rule": _l("règle"), "score": _l("score"), "seed": _l("graine"),
    "settings": _l("réglages"), "sheets": _l("joueurs ayant envoyé une feuille"),
    "source": _l("source"), "starts_at": _l("début"), "status": _l("décision"),
    "submission": _l("feuille n°"), "submission_id": _l("feuille n°"), "to_addr": _l("à"),
    "total": _l("total"), "unchanged": _l("inchangés"), "updated": _l("mis à jour"),
    "variant": _l("variante"), "version": _l("version"), "withdrawn": _l("classements retirés"),
    "word": _l("mot"), "lexicon_sha256": None,
}

#: coded values of the details, in words
DETAIL_VALUES: dict[str, Any] = {
    "accept_word": _l("mot admis"), "reject_word": _l("mot refusé"),
    "exclude_sheet": _l("feuille écartée"), "accepted": _l("accepté"),
    "rejected": _l("rejeté"), "open": _l("en attente"), "provisional": _l("provisoire"),
    "final": _l("définitif"), "web": _l("site"), "email": _l("courriel"),
    "quarantined": _l("en quarantaine"), "failed": _l("échec"), "sent": _l("envoyé"),
    "pending": _l("en attente d'envoi"),
}


def details_text(details: dict[str, Any], tz: str | None = None) -> list[tuple[str, str]]:
    """An entry's details as (name, value) pairs in words: keys named by
    :data:`DETAIL_KEYS` (``None``: not shown), codes by :data:`DETAIL_VALUES`, instants in
    the server's zone, yes/no, lists of changes counted."""
    out = []
    for key, value in details.items():
        label = DETAIL_KEYS.get(key, key)
        if label is None or value is None or value == "" or value == []:
            continue
        out.append((str(label), _value_text(value, tz)))
    return out


def _value_text(value: Any, tz: str | None) -> str:
    if isinstance(value, bool):
        return str(_l("oui") if value else _l("non"))
    if isinstance(value, dict):
        return ", ".join(f"{k} : {v}" for k, v in details_text(value, tz))
    if isinstance(value, list):
        if value and all(isinstance(v, dict) for v in value):
            return str(len(value))
        return ", ".join(_value_text(v, tz) for v in value)
    if isinstance(value, str):
        coded = DETAIL_VALUES.get(value)
        if coded is not None:
            return str(coded)
        if len(value) >= 19 and value[4:5] == "-" and value[10:11] == "T":
            try:
                # in the page's language (« 12/05/2026, ora 19:00 » in Romanian)
                return phrasebook.dates(format_local(datetime.fromisoformat(value), tz),
                                        gettext)
            except ValueError:
                return value
    return str(value)
