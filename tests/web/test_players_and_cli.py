"""Importing players from CSV (all or nothing, line-numbered French errors, idempotent), the
app's CLI commands, and appeals."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlmodel import Session, select

from webapp.models import Arbitre, AuditLog, Player, Registration
from webapp.services.players import import_players_csv

pytestmark = pytest.mark.db

GOOD = (
    "\ufeffNom;Club;Courriel\n"
    "Ana Popescu;CS București;Ana@Example.ro\n"
    "\n"
    "Bernard Lefèvre;Lyon;bernard@example.fr\n"
)


def test_import_creates_registers_and_is_idempotent(ctx, db_session: Session, competition):
    report = import_players_csv(session=db_session, text=GOOD, competition=competition,
                                actor="juge")
    db_session.commit()
    assert report.ok
    assert report.created == ["ana@example.ro", "bernard@example.fr"]
    players = db_session.exec(select(Player).order_by(Player.email)).all()
    assert [(p.name, p.club, p.email) for p in players] == [
        ("Ana Popescu", "CS București", "ana@example.ro"),
        ("Bernard Lefèvre", "Lyon", "bernard@example.fr"),
    ]
    assert all(len(p.token) == 16 for p in players)
    assert len(db_session.exec(select(Registration)).all()) == 2

    again = import_players_csv(session=db_session, text=GOOD, competition=competition,
                               actor="juge")
    db_session.commit()
    assert (again.created, again.updated) == ([], [])
    assert again.unchanged == ["ana@example.ro", "bernard@example.fr"]
    assert len(db_session.exec(select(Player)).all()) == 2

    renamed = GOOD.replace("Lyon", "Villeurbanne")
    assert import_players_csv(session=db_session, text=renamed, actor="juge").updated == [
        "bernard@example.fr"
    ]
    actions = [a.action for a in db_session.exec(select(AuditLog)).all()]
    assert actions.count("players.import") == 3


def test_bad_lines_are_reported_by_number_and_nothing_is_imported(ctx, db_session: Session):
    text = (
        "nom,club,email\n"
        "Ana,CSB,ana@example.ro\n"
        ",Lyon,sans-nom@example.fr\n"
        "Cid,Liège,pas-une-adresse\n"
        "Dan,Iași,ANA@example.ro\n"
    )
    report = import_players_csv(session=db_session, text=text, actor="juge")
    assert not report.ok
    assert report.messages() == [
        "Ligne 3 : nom manquant.",
        "Ligne 4 : adresse électronique invalide : « pas-une-adresse » "
        "(une adresse contient exactement un « @ »).",
        "Ligne 5 : l'adresse « ana@example.ro » figure déjà ligne 2.",
    ]
    assert db_session.exec(select(Player)).all() == []


def test_missing_columns_are_named(ctx, db_session: Session):
    report = import_players_csv(session=db_session, text="joueur;club\nAna;CSB\n", actor="x")
    assert report.messages() == [
        "Ligne 1 : Colonnes attendues : nom, club, courriel (et, au choix, licence, série, "
        "pays ; séparées par des virgules ou des points-virgules) ; manquante(s) : courriel."
    ]


def test_cli_create_arbitre_and_import(runner, app, db_session: Session, tmp_path: Path,
                                       competition):
    r = runner.invoke(args=["create-arbitre", "juge", "--password", "longue phrase"])
    assert r.exit_code == 0, r.output
    assert "Compte d'arbitre « juge » créé." in r.output
    assert db_session.exec(select(Arbitre.username)).all() == ["juge"]
    r = runner.invoke(args=["create-arbitre", "juge", "--password", "longue phrase"])
    assert r.exit_code == 1 and "existe déjà" in r.output

    csv_file = tmp_path / "joueurs.csv"
    csv_file.write_text(GOOD, encoding="utf-8")
    r = runner.invoke(args=["import-players", str(csv_file), "--competition", "cn2026"])
    assert r.exit_code == 0, r.output
    assert "2 créé(s), 0 mis à jour, 0 inchangé(s)." in r.output
    bad = tmp_path / "bad.csv"
    bad.write_text("nom;club;courriel\nAna;;ana@\n", encoding="utf-8")
    r = runner.invoke(args=["import-players", str(bad)])
    assert r.exit_code == 1
    assert "Ligne 2 : adresse électronique invalide : « ana@ » (rien après le « @ »)." in r.output


def test_cli_db_upgrade_on_an_empty_database(tmp_path: Path):
    from webapp import create_app
    from webapp.db import current_revision, get_engine

    app = create_app({"TESTING": True, "DATABASE_URL": f"sqlite:///{tmp_path / 'e.sqlite3'}",
                      "INSTANCE_PATH": str(tmp_path / "inst")})
    from alembic.script import ScriptDirectory

    from webapp.db import alembic_config

    head = ScriptDirectory.from_config(alembic_config(get_engine(app))).get_current_head()
    r = app.test_cli_runner().invoke(args=["db-upgrade"])
    assert r.exit_code == 0, r.output
    assert f"Base à jour (révision {head})." in r.output
    assert current_revision(app) == head
    get_engine(app).dispose()
