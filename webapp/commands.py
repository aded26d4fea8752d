"""The administration commands: ``arbitre db|seed-demo|create-arbitre|login-link`` (called by
:mod:`webapp.cli`) and the same under ``flask --app webapp ...`` (:func:`init_app`, also the
tests' CLI runner)."""

from __future__ import annotations

import getpass
import os
import sys
from typing import Any

import click
from flask import Flask
from sqlmodel import select

from webapp import db, paths
from webapp.auth import create_arbitre, issue_arbitre_link
from webapp.db import session_scope
from webapp.demo import seed_demo
from webapp.models import Arbitre, Competition
from webapp.services.players import import_players_csv


def db_action(app: Flask, action: str) -> int:
    if action == "upgrade":
        db.upgrade(app)
        print(f"Base à jour (révision {db.current_revision(app)}).")
    else:
        print(db.current_revision(app) or "(vide)")
    return 0


def seed(app: Flask) -> int:
    info = seed_demo(app)
    if info is None:
        print("La démonstration existe déjà.")
    else:
        print(info.describe(app.config["BASE_URL"], paths.local_mailbox(app)))
    return 0


def create_arbitre_interactive(app: Flask, args: Any) -> int:
    password = args.password or os.environ.get("ARBITRE_NEW_PASSWORD")
    if not password:
        password = getpass.getpass("Mot de passe : ")
        if getpass.getpass("Confirmation : ") != password:
            print("Les deux mots de passe diffèrent.", file=sys.stderr)
            return 1
    try:
        with session_scope(app) as s:
            create_arbitre(session=s, username=args.username, password=password, name=args.name,
                           email=args.email)
    except ValueError as exc:
        print(str(exc), file=sys.stderr)
        return 1
    print(f"Compte d'arbitre « {args.username} » créé.")
    return 0


def login_link(app: Flask, username: str) -> int:
    """Print a one-time sign-in link for an arbitre (the way in that needs no password and
    no mail: whoever runs this command already administers the server)."""
    with app.app_context(), session_scope(app) as s:
        a = s.exec(select(Arbitre).where(Arbitre.username == username)).first()
        if a is None or not a.active:
            print(f"Aucun compte d'arbitre actif « {username} ».", file=sys.stderr)
            return 1
        link = issue_arbitre_link(session=s, arbitre=a, mail=False)
    minutes = app.config.get("ARBITRE_LOGIN_TOKEN_MINUTES", 15)
    print(f"Lien de connexion pour « {username} » (usage unique, valable {minutes} min) :")
    print(link)
    return 0


def init_app(app: Flask) -> None:
    """The same commands under ``flask --app webapp ...`` (and the tests' CLI runner)."""
    @app.cli.command("db-upgrade")
    def _db_upgrade() -> None:
        """Migrer la base à la dernière révision."""
        db.upgrade(app)
        click.echo(f"Base à jour (révision {db.current_revision(app)}).")

    @app.cli.command("seed-demo")
    def _seed_demo() -> None:
        """Créer le championnat de démonstration."""
        info = seed_demo(app)
        click.echo(info.describe(app.config["BASE_URL"], paths.local_mailbox(app)) if info else
                   "La démonstration existe déjà.")

    @app.cli.command("create-arbitre")
    @click.argument("username")
    @click.option("--name", default="")
    @click.password_option("--password", prompt="Mot de passe")
    def _create_arbitre(username: str, name: str, password: str) -> None:
        """Créer un compte d'arbitre."""
        try:
            with session_scope(app) as s:
                create_arbitre(session=s, username=username, password=password, name=name)
        except ValueError as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(f"Compte d'arbitre « {username} » créé.")

    @app.cli.command("login-link")
    @click.argument("username")
    def _cli_login_link(username: str) -> None:
        """Afficher un lien de connexion à usage unique pour un arbitre."""
        if login_link(app, username) != 0:
            raise click.ClickException(f"Aucun compte d'arbitre actif « {username} ».")

    @app.cli.command("import-players")
    @click.argument("csv_file", type=click.File("r", encoding="utf-8-sig"))
    @click.option("--competition", "slug", default=None, help="inscrire au championnat")
    def _import_players(csv_file: Any, slug: str | None) -> None:
        """Importer des joueurs depuis un CSV (nom, club, courriel)."""
        with session_scope(app) as s:
            comp = None
            if slug:
                comp = s.exec(select(Competition).where(Competition.slug == slug)).first()
                if comp is None:
                    raise click.ClickException(f"Championnat inconnu : « {slug} ».")
            report = import_players_csv(session=s, text=csv_file.read(), competition=comp,
                                        actor="cli")
            if not report.ok:
                s.rollback()
                raise click.ClickException("Rien n'a été importé :\n" +
                                           "\n".join(report.messages()))
        click.echo(f"{len(report.created)} créé(s), {len(report.updated)} mis à jour, "
                   f"{len(report.unchanged)} inchangé(s).")
