"""Players: creating one, and importing a list from CSV (name, club, email; optionally
the licence number, the category (série) and the country).

An import is all or nothing: any bad line gives a line-numbered French error and nothing is
written, so the arbitre fixes the file and imports it again. Known addresses are updated, not
duplicated, so importing the same file twice changes nothing.
"""

from __future__ import annotations

import csv
import io
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Session, col, func, select

from webapp.models import Competition, Player, Problem, Registration, Submission
from webapp.services import addresses, audit, inputs, notify, problems

_HEADERS = {
    "name": ("nom", "name", "joueur", "nom complet"),
    "club": ("club",),
    "email": ("email", "e-mail", "courriel", "adresse", "mail"),
    "licence": ("licence", "license", "n° de licence", "numéro de licence", "licență"),
    "category": ("série", "serie", "catégorie", "categorie", "category"),
    "country": ("pays", "country", "țara", "tara"),
}

#: the optional profile columns, in :class:`Player` field order
PROFILE = ("licence", "category", "country")


def new_token() -> str:
    # lowercase hex: mail systems may lowercase the local part of the submission address
    return secrets.token_hex(8)


def normalise_email(email: str) -> str:
    return addresses.normalise(email)


def record_bounces(*, session: Session, emails: Iterable[str], at: datetime) -> None:
    """A delivery failure for each address: its player's bounce count goes up (after
    ``BOUNCE_LIMIT`` of them no automatic mail is sent there, ``notify.deliverable``)."""
    for addr in emails:
        player = session.exec(
            select(Player).where(sa.func.lower(Player.email) == addr.lower())
        ).first()
        if player is not None:
            player.bounce_count += 1
            player.last_bounce_at = at
            session.add(player)


def create_player(*, session: Session, name: str, email: str, club: str = "",
                  licence: str = "", category: str = "", country: str = "") -> Player:
    email = addresses.validate(email)  # InvalidAddress is a ValueError (French message)
    name = inputs.check_line(name, "Nom du joueur", limit=200, required=True)
    club = inputs.check_line(club, "Club", limit=120)
    licence = inputs.check_line(licence, "Numéro de licence", limit=40)
    category = inputs.check_line(category, "Série", limit=20)
    country = inputs.check_line(country, "Pays", limit=60)
    if session.exec(select(Player).where(Player.email == email)).first():
        raise ValueError(f"Un joueur a déjà l'adresse « {email} ».")
    p = Player(name=name.strip(), club=club.strip(), email=email, token=new_token(),
               licence=licence.strip(), category=category.strip(), country=country.strip())
    session.add(p)
    session.flush()
    return p


@dataclass
class ImportReport:
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    errors: list[tuple[int, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors

    def messages(self) -> list[str]:
        return [f"Ligne {line} : {msg}" for line, msg in self.errors]


def import_players_csv(
    *, session: Session, text: str, competition: Competition | None = None, actor: str
) -> ImportReport:
    report = ImportReport()
    # NUL characters (a file saved as UTF-16, a binary pasted) cannot be stored: removed
    rows = _read(text.replace("\x00", ""), report)
    if not report.ok:
        return report
    for _line, name, club, email, profile in rows:
        existing = session.exec(select(Player).where(Player.email == email)).first()
        if existing is None:
            player = Player(name=name, club=club, email=email, token=new_token(),
                            licence=profile["licence"] or "",
                            category=profile["category"] or "",
                            country=profile["country"] or "")
            session.add(player)
            session.flush()
            report.created.append(email)
        elif (existing.name, existing.club) != (name, club) or any(
                v is not None and getattr(existing, k) != v for k, v in profile.items()):
            existing.name, existing.club = name, club
            for k, v in profile.items():
                if v is not None:  # a column the file does not have leaves the value alone
                    setattr(existing, k, v)
            session.add(existing)
            player = existing
            report.updated.append(email)
        else:
            player = existing
            report.unchanged.append(email)
        if competition is not None:
            problems.register(session=session, competition=competition, player=player)
    audit.record(
        session=session, actor=actor, action="players.import",
        target=competition.slug if competition else "",
        created=len(report.created), updated=len(report.updated),
        unchanged=len(report.unchanged),
    )
    return report


Row = tuple[int, str, str, str, dict[str, str | None]]

#: the profile columns as a line's error names them
_CSV_LABELS = {"licence": "numéro de licence", "category": "série", "country": "pays"}


def _read(text: str, report: ImportReport) -> list[Row]:
    text = text.lstrip("\ufeff")
    if not text.strip():
        report.errors.append((1, "Le fichier est vide."))
        return []
    first = text.splitlines()[0]
    delimiter = ";" if first.count(";") > first.count(",") else ","
    reader = csv.reader(io.StringIO(text), delimiter=delimiter)
    try:
        header = [h.strip().lower() for h in next(reader)]
    except csv.Error as exc:
        report.errors.append((1, f"En-tête illisible ({exc})."))
        return []
    cols: dict[str, int] = {}
    for key, names in _HEADERS.items():
        for i, h in enumerate(header):
            if h in names:
                cols[key] = i
                break
    missing = [k for k in ("name", "email") if k not in cols]
    if missing:
        report.errors.append((1, "Colonnes attendues : nom, club, courriel (et, au choix, "
                              "licence, série, pays ; séparées par des "
                              "virgules ou des points-virgules) ; manquante(s) : "
                              + ", ".join("nom" if m == "name" else "courriel" for m in missing)
                              + "."))
        return []
    rows: list[Row] = []
    seen: dict[str, int] = {}
    try:
        ended = reader.line_num
        for record in reader:
            # the record's first line (a quoted cell may hold a line break: it ends later)
            line, ended = ended + 1, reader.line_num
            if not any(cell.strip() for cell in record):
                continue
            def cell(key: str, record: list[str] = record) -> str:
                i = cols.get(key)
                return record[i].strip() if i is not None and i < len(record) else ""

            name, club, email = cell("name"), cell("club"), normalise_email(cell("email"))
            profile = {k: (cell(k) if k in cols else None) for k in PROFILE}
            if len(profile["licence"] or "") > 40:
                report.errors.append((line, "numéro de licence trop long (40 caractères au "
                                      "plus)."))
            if len(profile["category"] or "") > 20:
                report.errors.append((line, "série trop longue (20 caractères au plus)."))
            if len(profile["country"] or "") > 60:
                report.errors.append((line, "pays trop long (60 caractères au plus)."))
            if not name:
                report.errors.append((line, "nom manquant."))
            for what, value in (("nom", name), ("club", club),
                                *((_CSV_LABELS[k], v or "") for k, v in profile.items())):
                problem = inputs.line_problem(value)
                if problem is not None:
                    report.errors.append((line, f"{what} « {inputs.shown(value)} » : "
                                                f"{problem}."))
            if len(name) > 200:
                report.errors.append((line, "nom trop long (200 caractères au plus)."))
            if len(club) > 120:
                report.errors.append((line, "club trop long (120 caractères au plus)."))
            problem = addresses.address_problem(email)
            if problem is not None:
                report.errors.append(
                    (line, f"adresse électronique invalide : « {email} » ({problem}).")
                )
            elif email in seen:
                report.errors.append(
                    (line, f"l'adresse « {email} » figure déjà ligne {seen[email]}.")
                )
            else:
                seen[email] = line
            rows.append((line, name, club, email, profile))
    except csv.Error as exc:
        report.errors.append((reader.line_num, f"ligne CSV illisible ({exc})."))
    return rows


# --- the arbitre's page of one player --------------------------------------------------------

#: what the arbitre edits on a player's console page: what each field is called in a
#: message, and its longest length
EDITABLE = {"name": ("le nom", 200), "email": ("l'adresse électronique", 254),
            "club": ("le club", 120), "licence": ("le numéro de licence", 40),
            "category": ("la série", 20), "country": ("le pays", 60),
            "locale": ("la langue", 2)}
#: the languages a player may read ("": the visitor's, French by default)
LOCALES = ("", "fr", "ro")


class PlayerRefused(ValueError):
    """The form cannot be stored: every French reason in ``errors``."""

    def __init__(self, errors: list[str]) -> None:
        super().__init__(" ".join(errors))
        self.errors = errors


def update_player(*, session: Session, player: Player, values: Mapping[str, str],
                  actor: str) -> dict[str, tuple[str, str]]:
    """Check and store the arbitre's edit of ``player`` (every key of :data:`EDITABLE`;
    spaces collapsed, the address checked and unique); returns the changed fields (before,
    after), audited as ``player.profile``; a line break or a control character is refused
    (``inputs.line_problem``). :class:`PlayerRefused` lists what is wrong and
    nothing is stored. The personal submission address does not change (it is the token's)."""
    new = {k: " ".join((values.get(k) or "").split()) for k in EDITABLE}
    errors = []
    for k, (what, most) in EDITABLE.items():
        if len(new[k]) > most:
            errors.append(f"{what.capitalize()} est trop long : {most} caractères au plus "
                          f"({len(new[k])} saisis).")
    if not new["name"]:
        errors.append("Le nom est obligatoire.")
    for k, (what, _most) in EDITABLE.items():  # a line break is refused, not collapsed
        problem = inputs.line_problem((values.get(k) or "").replace("\t", " ").strip())
        if problem is not None:
            errors.append(f"{what.capitalize()} : {problem}.")
    if new["locale"] not in LOCALES:
        errors.append(f"Langue inconnue : « {new['locale']} » (français fr ou roumain ro).")
    try:
        new["email"] = addresses.validate(new["email"])
    except ValueError as exc:
        errors.append(str(exc))
    else:
        other = session.exec(select(Player).where(
            sa.func.lower(Player.email) == new["email"].lower(), Player.id != player.id)).first()
        if other is not None:
            errors.append(f"L'adresse « {new['email']} » est déjà celle de {other.name}.")
    if errors:
        raise PlayerRefused(errors)
    changed = {k: (getattr(player, k), v) for k, v in new.items() if getattr(player, k) != v}
    if changed:
        for k, (_before, after) in changed.items():
            setattr(player, k, after)
        session.add(player)
        audit.record(session=session, actor=actor, action="player.profile",
                     target=str(player.id), before={k: b for k, (b, _a) in changed.items()},
                     after={k: a for k, (_b, a) in changed.items()})
    return changed


@dataclass(frozen=True)
class CompetitionPlayed:
    """One competition of a player: whether he is registered, and his sheets there."""

    competition: Competition
    registered: bool
    problems_sent: int  # problems he sent at least one sheet for


@dataclass(frozen=True)
class PlayerConsole:
    player: Player
    submission_address: str
    competitions: list[CompetitionPlayed]


def player_console(session: Session, player: Player) -> PlayerConsole:
    """What the arbitre sees of ``player``: his personal submission address and each
    competition he is registered in or sent a sheet to (by name)."""
    registered = set(session.exec(select(Registration.competition_id)
                                  .where(Registration.player_id == player.id)).all())
    sent: dict[int, int] = {}
    for comp_id, n in session.exec(
        select(Problem.competition_id, func.count(sa.distinct(col(Submission.problem_id))))
        .join(Submission, col(Submission.problem_id) == col(Problem.id))
        .where(Submission.player_id == player.id)
        .group_by(col(Problem.competition_id))
    ).all():
        sent[comp_id] = int(n)
    ids = registered | set(sent)
    comps = session.exec(select(Competition).where(col(Competition.id).in_(ids))
                         .order_by(col(Competition.name))).all() if ids else []
    return PlayerConsole(
        player=player, submission_address=notify.submission_address(player),
        competitions=[CompetitionPlayed(c, c.id in registered, sent.get(c.id or 0, 0))
                      for c in comps],
    )


def page(session: Session, *, page: int = 1, per_page: int = 50) -> tuple[list[Player], int]:
    """One page of the players by name, and how many there are."""
    total = int(session.exec(select(func.count()).select_from(Player)).one())
    rows = list(session.exec(
        select(Player).order_by(col(Player.name)).offset((page - 1) * per_page).limit(per_page)
    ).all())
    return rows, total


def names(session: Session) -> dict[int, str]:
    """Every player's name by id."""
    return {p.id: p.name for p in session.exec(select(Player)).all() if p.id is not None}
