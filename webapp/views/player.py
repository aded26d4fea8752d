"""Player pages: the player's own space, submitting a feuille de route (pasted, uploaded, or
built on the interactive board), the receipt of each version, the history of versions, and
appeals against a verification within the window.

Views stay thin: storing a sheet is :func:`webapp.services.submissions.submit_sheet`, filing
an appeal is :func:`webapp.services.appeals.file_appeal`.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, current_app, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_babel import gettext  # type: ignore[import-untyped]

from webapp.auth import current_player, player_required
from webapp.db import session_scope
from webapp.models import Player
from webapp.services import appeals, clock, player_space, sheets, submissions
from webapp.views.helpers import board_data, board_moves, letters_view, read_session

bp = Blueprint("player", __name__, url_prefix="/joueur")

#: Upload limit when the configuration sets none: a feuille de route is a few kilobytes,
#: 256 KiB leaves room for a long Superscrabble list and refuses anything else early.
DEFAULT_MAX_CONTENT_LENGTH = 256 * 1024


@bp.record_once
def _limit_uploads(state: Any) -> None:
    state.app.config.setdefault("MAX_CONTENT_LENGTH", DEFAULT_MAX_CONTENT_LENGTH)
    if state.app.config.get("MAX_CONTENT_LENGTH") is None:
        state.app.config["MAX_CONTENT_LENGTH"] = DEFAULT_MAX_CONTENT_LENGTH


@bp.app_errorhandler(413)
def _too_large(_exc: Exception) -> ResponseReturnValue:
    limit = (current_app.config.get("MAX_CONTENT_LENGTH") or 0) // 1024
    return render_template("error.html", code=413, title=gettext("Envoi trop volumineux"),
                           message=gettext(
        "Ce que vous avez envoyé dépasse %(limit)s Ko. Une feuille de route est un court "
        "texte : enregistrez-la en texte brut (.txt) ou collez-la dans la zone de texte.",
        limit=limit)), 413

#: Encodings tried, in order, for an uploaded sheet: what word processors and old mail
#: clients of francophone and Romanian players produce.
UPLOAD_ENCODINGS = ("utf-8-sig", "cp1252", "iso-8859-2")


def _me() -> Player:
    me = current_player()
    if me is None:  # player_required has already redirected
        abort(403)
    return me


@bp.route("/")
@player_required
def index() -> str:
    me = _me()
    with read_session() as s:
        home = player_space.home(s, me.id or 0)
    return render_template(
        "player/index.html", open_problems=home.open_problems, competitions=home.competitions,
        submissions=home.submissions, problems=home.problems, reports=home.reports,
        appeals=home.appeals, round_games=home.round_games,
    )


def _read_upload() -> tuple[str | None, str | None]:
    """(text, error) from the uploaded file, trying the usual encodings."""
    f = request.files.get("fichier")
    if f is None or not f.filename:
        return None, None
    data = f.read()
    if not data:
        return None, "Le fichier envoyé est vide."
    if b"\x00" in data[:4096]:
        return None, (
            "Ce fichier n'est pas du texte (un document de traitement de texte ?). "
            "Enregistrez la feuille en texte brut (.txt) ou collez-la dans la zone de texte."
        )
    for enc in UPLOAD_ENCODINGS:
        try:
            return data.decode(enc), None
        except UnicodeDecodeError:
            continue
    return data.decode("utf-8", errors="replace"), None


@bp.route("/problemes/<code>/envoyer", methods=["GET", "POST"])
@player_required
def submit(code: str) -> ResponseReturnValue:
    received_at = clock.now()  # the receive time, before anything else can delay it
    me = _me()
    error = None
    text = ""
    unreadable = None
    if request.method == "POST":
        uploaded, upload_error = _read_upload()
        text = uploaded if uploaded is not None else request.form.get("feuille", "")
        if upload_error:
            error = upload_error
        elif not text.strip():
            error = ("La feuille est vide : collez-la, déposez un fichier ou posez vos mots "
                     "sur la grille.")
        elif not request.form.get("confirmer") and (
            unreadable := _unreadable_replacement(me, code, text)
        ) is not None:
            pass  # the form again, with the unreadable lines and a box to confirm
        else:
            try:
                with session_scope() as s:
                    outcome = player_space.submit(session=s, player=me, code=code, text=text,
                                                  received_at=received_at)
                    sub_id = outcome.submission.id
                    late = outcome.late
                    n_errors = len(outcome.errors)
            except player_space.NotFound:
                abort(404)
            except submissions.SubmissionRefused as exc:
                error = str(exc)
            else:
                if late:
                    flash(gettext("Feuille reçue après la clôture : elle est conservée et marquée "
                                  "hors délai."), "warning")
                elif n_errors:
                    flash(gettext("Feuille reçue, mais certaines lignes n'ont pas pu être lues : "
                                  "corrigez-les et renvoyez la feuille avant la clôture."),
                          "warning")
                else:
                    flash(gettext("Feuille reçue. Un accusé de réception vous est aussi envoyé par "
                                  "courriel."), "success")
                return redirect(url_for("player.receipt", submission_id=sub_id))
    # The form: shown first, or again with the text kept and the error when refused.
    try:
        with read_session() as s:
            form = player_space.submit_form(s, me.id or 0, code)
    except player_space.NotFound:
        abort(404)
    prob, last, pz = form.problem, form.last, form.puzzle
    if request.method == "GET" and last is not None:
        text = last.raw_text
    return render_template(
        "player/submit.html", problem=prob, puzzle=pz, text=text, error=error, last=last,
        letters=letters_view(pz) if pz else None,
        board=board_data(pz, prob.code, text) if pz else None,
        max_kb=(current_app.config.get("MAX_CONTENT_LENGTH") or 0) // 1024,
        announced=form.announced, next_announcement=form.next_announcement,
        progressive=form.progressive, unreadable=unreadable,
    ), (400 if error else 200)


@bp.route("/problemes/<code>/grille", methods=["POST"])
@player_required
def board_reload(code: str) -> ResponseReturnValue:
    """The moves of the posted text as the interactive board replays them (its « Relire la
    feuille » button, after the player edited the text by hand). Reads only; stores nothing."""
    try:
        with read_session() as s:
            pz = player_space.open_puzzle(s, code)
    except player_space.NotFound:
        abort(404)
    return {"moves": board_moves(pz, request.form.get("feuille", ""))}


def _unreadable_replacement(me: Player, code: str,
                            text: str) -> sheets.UnreadableReplacement | None:
    """The unreadable lines of ``text`` when it would replace a version read whole."""
    try:
        with read_session() as s:
            return player_space.unreadable_replacement(s, me.id or 0, code, text)
    except player_space.NotFound:
        abort(404)


@bp.route("/feuilles/<int:submission_id>")
@player_required
def receipt(submission_id: int) -> str:
    me = _me()
    try:
        with read_session() as s:
            rc = player_space.receipt(s, me.id or 0, submission_id)
    except player_space.NotFound:
        abort(404)
    return render_template(
        "player/receipt.html", submission=rc.submission, problem=rc.problem, moves=rc.moves,
        errors=rc.submission.parse_errors, is_latest=rc.is_latest,
        replaced_readable=rc.replaced_readable,
    )


@bp.route("/problemes/<code>/versions")
@player_required
def history(code: str) -> str:
    me = _me()
    try:
        with read_session() as s:
            hist = player_space.history(s, me.id or 0, code)
    except player_space.NotFound:
        abort(404)
    return render_template("player/history.html", problem=hist.problem,
                           submissions=hist.submissions, verifications=hist.verifications)


@bp.route("/rapports/<int:verification_id>/appel", methods=["GET", "POST"])
@player_required
def appeal(verification_id: int) -> ResponseReturnValue:
    me = _me()
    try:
        with read_session() as s:
            page = player_space.appeal_page(s, me.id or 0, verification_id)
    except player_space.NotFound:
        abort(404)
    error = None
    text = ""
    if request.method == "POST":
        text = request.form.get("texte", "")
        try:
            with session_scope() as s:
                player_space.file_appeal(session=s, player_id=me.id or 0,
                                         verification_id=verification_id, text=text)
        except player_space.NotFound:
            abort(404)
        except appeals.AppealRefused as exc:
            error = str(exc)
        else:
            flash(gettext("Votre appel est enregistré ; l'arbitre vous répondra par courriel et "
                          "sur cette page."), "success")
            return redirect(url_for("player.appeal", verification_id=verification_id))
    return render_template(
        "player/appeal.html", problem=page.problem, submission=page.submission,
        verification=page.verification, appeals=page.appeals, error=error, text=text,
        window_open=page.window_open,
    ), (400 if error else 200)
