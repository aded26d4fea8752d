"""Public pages: competitions and their calendars, problem pages (letters, board, deadline
and countdown), rankings with CSV export, the archive of past problems with their reference
solutions, and verification reports (each player's own before publication, everyone's after).
"""

from __future__ import annotations

import csv
import html
import io
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.typing import ResponseReturnValue
from flask_babel import gettext  # type: ignore[import-untyped]
from flask_babel import lazy_gettext as _l
from markupsafe import Markup
from werkzeug.exceptions import NotFound as HTTPNotFound

from puzzles import numfmt
from puzzles.championship import format_value
from webapp.auth import current_arbitre, current_player
from webapp.board_svg import board_svg
from webapp.db import get_engine
from webapp.models import Ranking, RankingKind
from webapp.services import phrasebook, public_pages, reports, rows, timefmt
from webapp.services import problems as problems_service
from webapp.services.standings import Standings
from webapp.views import helpers
from webapp.views.helpers import content_disposition, letters_view, read_session

bp = Blueprint("public", __name__)
helpers.register_template_helpers(bp)

ERRORS = {
    400: (_l("Requête refusée"), _l("Le formulaire n'a pas pu être accepté. S'il est resté "
                                    "ouvert longtemps ou a été envoyé depuis un autre site, "
                                    "rechargez la page et recommencez : ce que vous aviez "
                                    "saisi n'a pas été enregistré.")),
    403: (_l("Accès refusé"), _l("Cette page ne vous est pas accessible.")),
    404: (_l("Page introuvable"), _l("Cette page n'existe pas, ou pas encore.")),
}


def _error_page(exc: Any) -> ResponseReturnValue:
    code = getattr(exc, "code", 500) or 500
    title, message = ERRORS.get(code, (_l("Erreur"), _l("Une erreur est survenue.")))
    return render_template("error.html", code=code, title=title, message=message), code


for _code in ERRORS:
    bp.app_errorhandler(_code)(_error_page)


@bp.app_errorhandler(rows.NotFound)
def _row_not_found(exc: rows.NotFound) -> ResponseReturnValue:
    """A row a URL names by id and that does not exist (``webapp.services.rows``): the
    404 page, wherever the view is."""
    return _error_page(HTTPNotFound())


def _arbitre() -> bool:
    return current_arbitre() is not None


def _viewer_id() -> int | None:
    me = current_player()
    return me.id if me is not None else None


@bp.route("/favicon.ico")
def favicon() -> ResponseReturnValue:
    """Browsers ask ``/favicon.ico`` on their own (bookmarks, pages without ``<head>`` such
    as a CSV): send them to the SVG icon the layout links, rather than a 404."""
    return redirect(url_for("static", filename="favicon.svg"), code=301)


@bp.route("/")
def index() -> str:
    with read_session() as s:
        front = problems_service.front_page(s)
    return render_template(
        "public/index.html", competitions=front.competitions, open_problems=front.open_problems,
        upcoming=front.upcoming, comp_names={c.id: c.name for c in front.competitions},
    )


@bp.route("/competitions/<slug>")
def competition(slug: str) -> str:
    with read_session() as s:
        page = public_pages.competition_page(s, slug)
    if page is None:
        abort(404)
    return render_template(
        "public/competition.html", competition=page.competition, problems=page.problems,
        stages=page.stages, ranked=page.ranked, duplicates=page.duplicates,
        correspondences=page.correspondences, corr_players=page.players,
        corr_deadlines=page.deadlines,
    )


@bp.route("/problemes/<code>")
def problem(code: str) -> str:
    with read_session() as s:
        page = public_pages.problem_page(s, code, viewer_id=_viewer_id(), arbitre=_arbitre())
    if page is None:
        abort(404)
    pz = page.puzzle
    svg = None
    view = None
    if pz is not None and page.shown:
        view = letters_view(pz)
        svg = board_svg(pz.initial_board(), tileset=pz.tileset, title=gettext("Grille de départ"))
    return render_template(
        "public/problem.html", problem=page.problem, competition=page.competition, puzzle=pz,
        letters=view, board=svg, mine=page.mine, ranking=page.ranking, now=page.now,
        reference=page.reference, reference_board=page.reference_board,
        announced=page.announced, next_announcement=page.next_announcement,
        progressive=page.progressive,
    )


@bp.route("/archives")
def archive() -> str:
    with read_session() as s:
        page = public_pages.archive_page(s, request.args.get("page", 1, type=int) or 1)
    return render_template(
        "public/archive.html", problems=page.problems, competitions=page.competitions,
        page=page.page, pages=page.pages, ranked=page.ranked, duplicates=page.duplicates,
        correspondences=page.correspondences, corr_players=page.players,
    )


# --- rankings --------------------------------------------------------------------------------

CSV_COLUMNS = ("rang", "joueur", "club", "score", "pourcentage", "reçue_le_utc")


def _percent(value: object) -> str:
    """``49,40`` — French decimal comma, as in the CSV (``puzzles.numfmt.percent``)."""
    return numfmt.percent(value) if isinstance(value, int | float) else ""


def _cell(value: object) -> str:
    return html.escape(str(value), quote=True)


def ranking_table(ranking: Ranking, tz: str, report_prefix: str) -> tuple[str, int]:
    """See :func:`_ranking_table`; the key names the database too, so two apps (or two
    test databases) in one process never share an entry."""
    assert ranking.id is not None
    db = get_engine().url.render_as_string(hide_password=True)
    schema = str(current_app.config.get("DATABASE_SCHEMA") or "")
    return _ranking_table(db, schema, ranking.id, ranking.created_at.isoformat(), tz,
                          report_prefix, *cell_words())


#: how the French of the cells reads: the report link and the « à » of a date
FRENCH_AT = "%(day)s à %(time)s"


def cell_words() -> tuple[str, str]:
    """The words the ranking's cells hold, in the page's language: the report link
    (« voir ») and the date pattern (« 12/05/2026 à 19:00 ») — part of the cache key, so
    each language has its own rendering."""
    return gettext("voir"), gettext(FRENCH_AT)


@lru_cache(maxsize=16)
def _ranking_table(db: str, schema: str, ranking_id: int, created_at: str, tz: str,
                   report_prefix: str, see: str = "voir",
                   at: str = FRENCH_AT) -> tuple[str, int]:
    """The ``<tbody>`` rows of a published ranking, and their number.

    A published ranking never changes (a correction publishes a new one), so its rows are
    rendered once per process and kept, keyed by the ranking's id. Every value from the
    database goes through :func:`html.escape`; the markup around it is ours. This is what
    keeps a 5,000-player page well under its 300 ms budget (Jinja's per-cell escaping costs
    about 60 µs a line).
    """
    with read_session() as s:
        rows = public_pages.ranking_rows(s, ranking_id)
    return _ranking_lines(rows, tz, report_prefix, see=see, at=at), len(rows)


def _ranking_lines(rows: list[dict[str, Any]], tz: str, report_prefix: str,
                   ranks: list[int] | None = None, *, see: str = "voir",
                   at: str = FRENCH_AT) -> str:
    """The ``<tr>`` lines of ``rows`` (``ranks``: the rank to show instead of the stored one,
    as in a category's ranking); each name links to the player's page. A sheet whose score
    equals a neighbour's shows its receive time to the second: the time decides there."""
    out: list[str] = []
    scores = [r.get("score") for r in rows]
    for i, r in enumerate(rows):
        pct = r.get("percent")
        received = r.get("received_at")
        when = ""
        if received:
            tied = (i > 0 and scores[i - 1] == scores[i]) or (
                i + 1 < len(rows) and scores[i + 1] == scores[i])
            when = timefmt.format_short(datetime.fromisoformat(received), tz, seconds=tied)
            if at != FRENCH_AT:
                when = phrasebook.dates(when, lambda _msgid: at)
        vid = r.get("verification_id")
        link = f'<a href="{report_prefix}{int(vid)}">{_cell(see)}</a>' if vid else ""
        pid = int(r.get("player_id") or 0)
        name = _cell(r.get("name", ""))
        rank = ranks[i] if ranks is not None else r.get("rank", "")
        out.append(
            f'<tr data-player="{pid}">'
            f'<td class="num">{_cell(rank)}</td>'
            f'<td>{f"""<a href="/joueurs/{pid}">{name}</a>""" if pid else name}</td>'
            f'<td>{_cell(r.get("club") or "")}</td><td class="num">{_cell(r.get("score", ""))}</td>'
            f'<td class="num">{_percent(pct)}</td>'
            f'<td class="small">{_cell(when)}</td><td>{link}</td></tr>'
        )
    return "\n".join(out)


@bp.route("/problemes/<code>/classement")
def ranking(code: str) -> str:
    category = " ".join(request.args.get("serie", "").split())
    with read_session() as s:
        page = public_pages.ranking_page(s, code, arbitre=_arbitre(), category=category)
    if page is None:
        abort(404)
    prob, rk = page.problem, page.ranking
    prefix = url_for("public.report", verification_id=0)[:-1]
    if category:  # a category's ranking: its rows only, ranked among themselves
        see, at = cell_words()
        body, count = (_ranking_lines(page.rows, prob.timezone, prefix, page.ranks, see=see,
                                      at=at), len(page.rows))
    else:
        body, count = ranking_table(rk, prob.timezone, prefix)
    me = current_player()
    if me is not None and me.id is not None:
        mark = f'<tr data-player="{int(me.id)}">'
        body = body.replace(mark, f'<tr data-player="{int(me.id)}" class="me">', 1)
    return render_template(
        "public/ranking.html", problem=prob, ranking=rk, table_body=Markup(body), count=count,
        categories=page.categories, category=category,
    )


@bp.route("/problemes/<code>/classement.csv")
def ranking_csv(code: str) -> Response:
    with read_session() as s:
        export = public_pages.ranking_export(s, code, arbitre=_arbitre())
    if export is None:
        abort(404)
    prob, rk, rows = export.problem, export.ranking, export.rows
    buf = io.StringIO()
    # French spreadsheet conventions: ";" between fields, decimal comma, and a byte-order
    # mark so that Excel reads the UTF-8 names (ș, ț, é) right.
    w = csv.writer(buf, delimiter=";", lineterminator="\r\n")
    w.writerow(CSV_COLUMNS)
    for r in rows:
        w.writerow(csv_row(r))
    kind = "definitif" if rk.kind == RankingKind.FINAL else "provisoire"
    return Response(
        ("\ufeff" + buf.getvalue()).encode("utf-8"),
        mimetype="text/csv",
        headers={
            "Content-Disposition": content_disposition(f"classement-{prob.code}-{kind}.csv")
        },
    )


def csv_text(value: object) -> str:
    """A name or club as a CSV cell that a spreadsheet will not run as a formula."""
    text = str(value or "")
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def csv_row(r: dict[str, Any]) -> list[str]:
    pct = r.get("percent")
    received = r.get("received_at") or ""
    if received:
        received = datetime.fromisoformat(received).astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S")
    return [
        str(r.get("rank", "")),
        csv_text(r.get("name")),
        csv_text(r.get("club")),
        str(r.get("score", "")),
        _percent(pct),
        received,
    ]


# --- championship standings ------------------------------------------------------------------


def _standings_of(slug: str) -> Standings:
    with read_session() as s:
        table = public_pages.standings_page(
            s, slug, final_only=request.args.get("definitif") == "1")
    if table is None:
        abort(404)
    return table


def standings_cell(value: Any, *, played: bool, counted: bool, decimals: bool) -> str:
    """A problem's cell: empty when not played, ``(82)`` when dropped by best N of M."""
    if not played:
        return ""
    text = format_value(value, decimals=decimals)
    return text if counted else f"({text})"


@bp.route("/competitions/<slug>/classement")
def standings(slug: str) -> str:
    category = " ".join(request.args.get("serie", "").split())
    whole = _standings_of(slug)
    with read_session() as s:
        view = public_pages.category_standings(s, whole, category)
    table = view.standings
    # a série's ranks are counted among its players (view.places); else the field's
    ranks = {line.row.player_id: view.places.get(line.row.player_id, line.row.place)
             for line in table.lines}
    counts = list(ranks.values())
    shared = {r for r in counts if counts.count(r) > 1}
    me = current_player()
    return render_template(
        "public/standings.html", competition=table.competition, standings=table,
        shared=shared, me_id=me.id if me is not None else None, ranks=ranks,
        categories=view.categories, category=view.category,
        final_only=request.args.get("definitif") == "1",
        decimals=table.rule == "sum_percent", format_value=format_value, cell=standings_cell,
    )


@bp.route("/competitions/<slug>/classement.csv")
def standings_csv(slug: str) -> Response:
    category = " ".join(request.args.get("serie", "").split())
    with read_session() as s:
        view = public_pages.category_standings(s, _standings_of(slug), category)
    table = view.standings
    decimals = table.rule == "sum_percent"
    buf = io.StringIO()
    # the conventions of the problem rankings' CSV: ";", decimal comma, BOM, CRLF
    w = csv.writer(buf, delimiter=";", lineterminator="\r\n")
    w.writerow(["rang", "joueur", "club"]
               + [c.code + (" (provisoire)" if c.provisional else "") for c in table.columns]
               + ["total", "épreuves_jouées"])
    for line in table.lines:
        cells = []
        for c in line.row.contributions:
            text = standings_cell(c.value, played=c.played, counted=c.counted,
                                  decimals=decimals)
            cells.append(text.strip("()") + " (non retenu)" if c.played and not c.counted
                         else text)
        place = view.places.get(line.row.player_id, line.row.place)
        w.writerow([str(place), csv_text(line.name), csv_text(line.club), *cells,
                    format_value(line.row.total, decimals=decimals), str(line.row.played)])
    kind = "provisoire" if table.provisional else "definitif"
    serie = "".join(ch for ch in category if ch.isalnum() or ch in "-_")
    name = (f"classement-general-{table.competition.slug}{'-serie-' + serie if serie else ''}"
            f"-{kind}.csv")
    return Response(
        ("\ufeff" + buf.getvalue()).encode("utf-8"),
        mimetype="text/csv",
        headers={"Content-Disposition": content_disposition(name)},
    )


# --- reports ---------------------------------------------------------------------------------


@bp.route("/rapports/<int:verification_id>")
def report(verification_id: int) -> ResponseReturnValue:
    me = current_player()
    try:
        with read_session() as s:
            page = reports.report_page(
                s, verification_id, viewer_id=me.id if me is not None else None,
                arbitre=current_arbitre() is not None,
                step=request.args.get("coup", 1, type=int))
    except reports.ReportHidden:
        abort(403 if me is not None else 404)
    if page is None:
        abort(404)
    rows = page.rows
    return render_template(
        "public/report.html", step_count=len(page.steps), problem=rows.problem,
        submission=rows.submission, verification=rows.verification, player=rows.player,
        own=me is not None and me.id == rows.submission.player_id, report=page.report,
        steps=page.steps, step=page.step, current=page.current,
        scrabble_steps=page.scrabble_steps, zero_count=page.zero_count, history=page.history,
        rulings=page.rulings, appeals=page.appeals, final_board=page.final_board,
    )


@bp.route("/rapports/<int:verification_id>/coups/<int:index>")
def report_step(verification_id: int, index: int) -> ResponseReturnValue:
    """One move of a report's replay with its grid (the stepper fetches it)."""
    me = current_player()
    try:
        with read_session() as s:
            st = reports.report_step(s, verification_id, index,
                                     viewer_id=me.id if me is not None else None,
                                     arbitre=current_arbitre() is not None)
    except reports.ReportHidden:
        abort(403 if me is not None else 404)
    if st is None:
        abort(404)
    return render_template("public/_replay_step.html", st=st, k=index)
