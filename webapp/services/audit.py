"""The audit log: who did what, when, with the details needed to understand it later."""

from __future__ import annotations

import os
import socket
from typing import Any

from flask_babel import lazy_gettext as _l  # type: ignore[import-untyped]
from sqlmodel import Session, col, func, select

from webapp.models import Arbitre, AuditLog, Player
from webapp.services import clock

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
    "correspondence.time": _l("Temps de réflexion dépassé"),
    "demo.seed": _l("Données de démonstration créées"),
    "duplicate.bulletin": _l("Bulletin reçu"),
    "duplicate.bulletin_after_close": _l("Bulletin reçu après la clôture"),
    "duplicate.change_applied": _l("Correction de partie appliquée"),
    "duplicate.close": _l("Tour clos"),
    "duplicate.correct": _l("Tour corrigé"),
    "duplicate.create": _l("Partie duplicate créée"),
    "duplicate.draw": _l("Tirage effectué"),
    "duplicate.finish": _l("Partie duplicate terminée"),
    "duplicate.override_top": _l("Top remplacé par l'arbitre"),
    "duplicate.publish": _l("Résultats du tour publiés"),
    "duplicate.recorrect": _l("Tour corrigé à nouveau"),
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
    """The target as people read it: a player's or an arbitre's name, else the code."""
    if entry.action == "player.profile" or entry.action.startswith("arbitre."):
        return names.get(entry.target, entry.target)
    return entry.target
