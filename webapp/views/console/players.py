"""Players: creation and CSV import."""

from __future__ import annotations

from flask import (
    Blueprint,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.typing import ResponseReturnValue
from flask_babel import gettext  # type: ignore[import-untyped]

from webapp.db import session_scope
from webapp.services import (
    players,
    problems,
    rows,
)
from webapp.views.console.common import PER_PAGE, _actor, _session, id_arg, page_arg

bp = Blueprint("players", __name__)


@bp.route("/joueurs", methods=["GET", "POST"])
def index() -> ResponseReturnValue:
    report = None
    text = ""
    status = 200
    with _session() as s:
        comps = problems.competitions(s)
    if request.method == "POST":
        f = request.files.get("fichier")
        if f is not None and f.filename:
            raw = f.read()
            try:
                text = raw.decode("utf-8-sig")
            except UnicodeDecodeError:
                text = raw.decode("cp1252", errors="replace")
        else:
            text = request.form.get("csv", "")
        comp_id = id_arg(request.form.get("competition_id", type=int))
        with session_scope() as s:
            comp = rows.competition_or_none(s, comp_id)
            report = players.import_players_csv(
                session=s, text=text, competition=comp, actor=_actor()
            )
            if not report.ok:
                s.rollback()  # all or nothing: a file with errors imports nobody
        if report.ok:
            flash(
                f"Import terminé : {len(report.created)} créé(s), {len(report.updated)} mis à "
                f"jour, {len(report.unchanged)} inchangé(s).", "success",
            )
            return redirect(url_for("console.players.index"))
        status = 400
    page = page_arg()
    with _session() as s:
        plist, total = players.page(s, page=page, per_page=PER_PAGE)
    return render_template(
        "console/players.html", players=plist, competitions=comps, report=report, text=text,
        page=page, pages=max(1, (total + PER_PAGE - 1) // PER_PAGE), total=total,
    ), status


@bp.route("/joueurs/<int:player_id>", methods=["GET", "POST"])
def show(player_id: int) -> ResponseReturnValue:
    """One player: his details to edit (name, e-mail, licence, club, série, country,
    language), his personal submission address and his competitions."""
    errors: list[str] = []
    values: dict[str, str] = {}
    if request.method == "POST":
        values = {k: request.form.get(k, "") for k in players.EDITABLE}
        try:
            with session_scope() as s:
                pl = rows.player(s, player_id)
                changed = players.update_player(session=s, player=pl, values=values,
                                                actor=_actor())
        except players.PlayerRefused as exc:
            errors = exc.errors
        else:
            flash(gettext("Fiche enregistrée : %(n)s champ(s) modifié(s).", n=len(changed)),
                  "success")
            return redirect(url_for("console.players.show", player_id=player_id))
    with _session() as s:
        pl = rows.player(s, player_id)
        view = players.player_console(s, pl)
    if not values:
        values = {k: getattr(pl, k) for k in players.EDITABLE}
    return render_template("console/player.html", player=pl, view=view, values=values,
                           errors=errors, locales=players.LOCALES), 400 if errors else 200
