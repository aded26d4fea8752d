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
from sqlmodel import Session, col, select

from webapp.auth import current_player, player_required
from webapp.db import read_engine, session_scope
from webapp.models import (
    Appeal,
    Channel,
    Competition,
    Player,
    Problem,
    ProblemStatus,
    Registration,
    Submission,
    Verification,
)
from webapp.services import appeals, clock, rounds, sheets, submissions, versions
from webapp.services.problems import readable_puzzle
from webapp.views.helpers import (
    PUBLIC_STATUSES,
    board_data,
    board_moves,
    get_or_404,
    letters_view,
)

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


def _session() -> Session:
    """A read-only session for a page (see :func:`webapp.db.read_engine`)."""
    return Session(read_engine(), expire_on_commit=False)


@bp.route("/")
@player_required
def index() -> str:
    me = _me()
    with _session() as s:
        comp_ids = [
            r.competition_id
            for r in s.exec(select(Registration).where(Registration.player_id == me.id)).all()
        ]
        comps = {c.id: c for c in s.exec(
            select(Competition).where(col(Competition.id).in_(comp_ids))
        ).all()}
        open_problems = s.exec(
            select(Problem)
            .where(col(Problem.competition_id).in_(comp_ids))
            .where(Problem.status == ProblemStatus.OPEN)
            .order_by(col(Problem.deadline_at))
        ).all()
        subs = s.exec(
            select(Submission)
            .where(Submission.player_id == me.id)
            .order_by(col(Submission.received_at).desc())
            .limit(50)
        ).all()
        probs = {p.id: p for p in s.exec(
            select(Problem).where(col(Problem.id).in_({x.problem_id for x in subs}))
        ).all()}
        reports = _my_reports(s, me)
        my_appeals = s.exec(
            select(Appeal).where(Appeal.player_id == me.id).order_by(col(Appeal.created_at).desc())
        ).all()
    return render_template(
        "player/index.html", open_problems=open_problems, competitions=comps,
        submissions=subs, problems=probs, reports=reports, appeals=my_appeals,
    )


def _my_reports(s: Session, me: Player) -> list[dict[str, Any]]:
    rows = s.exec(
        select(Verification, Submission, Problem)
        .join(Submission, col(Submission.id) == col(Verification.submission_id))
        .join(Problem, col(Problem.id) == col(Submission.problem_id))
        .where(Submission.player_id == me.id)
        .where(col(Verification.superseded_at).is_(None))
        .order_by(col(Verification.created_at).desc())
        .limit(50)
    ).all()
    return [{"verification": v, "submission": sub, "problem": p} for v, sub, p in rows]


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
                    problem_row = s.exec(select(Problem).where(Problem.code == code)).first()
                    if problem_row is None or problem_row.status not in PUBLIC_STATUSES:
                        abort(404)
                    # The row loaded by the sign-in check a moment ago, attached without a
                    # second SELECT; submit_sheet locks it (UPDATE) before reading versions.
                    player = s.merge(me, load=False)
                    outcome = submissions.submit_sheet(
                        session=s, player=player, problem=problem_row, text=text,
                        channel=Channel.WEB, received_at=received_at,
                    )
                    sub_id = outcome.submission.id
                    late = outcome.late
                    n_errors = len(outcome.errors)
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
    with _session() as s:
        prob = s.exec(select(Problem).where(Problem.code == code)).first()
        if prob is None or prob.status not in PUBLIC_STATUSES:
            abort(404)
        last = versions.latest_submission(session=s, player_id=me.id or 0,
                                             problem_id=prob.id or 0)
    if request.method == "GET" and last is not None:
        text = last.raw_text
    pz = readable_puzzle(prob)
    return render_template(
        "player/submit.html", problem=prob, puzzle=pz, text=text, error=error, last=last,
        letters=letters_view(pz) if pz else None,
        board=board_data(pz, prob.code, text) if pz else None,
        max_kb=(current_app.config.get("MAX_CONTENT_LENGTH") or 0) // 1024,
        announced=rounds.announcements(prob, pz, clock.now()),
        next_announcement=rounds.next_announcement(prob, clock.now()),
        progressive=rounds.progressive(prob), unreadable=unreadable,
    ), (400 if error else 200)


@bp.route("/problemes/<code>/grille", methods=["POST"])
@player_required
def board_reload(code: str) -> ResponseReturnValue:
    """The moves of the posted text as the interactive board replays them (its « Relire la
    feuille » button, after the player edited the text by hand). Reads only; stores nothing."""
    with _session() as s:
        prob = s.exec(select(Problem).where(Problem.code == code)).first()
        if prob is None or prob.status not in PUBLIC_STATUSES:
            abort(404)
    pz = readable_puzzle(prob)
    if pz is None:
        abort(404)
    return {"moves": board_moves(pz, request.form.get("feuille", ""))}


def _unreadable_replacement(me: Player, code: str, text: str) -> Any:
    """The unreadable lines of ``text`` when it would replace a version read whole."""
    with _session() as s:
        prob = s.exec(select(Problem).where(Problem.code == code)).first()
        if prob is None or prob.status not in PUBLIC_STATUSES:
            abort(404)
        return sheets.unreadable_replacement(session=s, player_id=me.id or 0, problem=prob,
                                             text=text)


def _own_submission(s: Session, submission_id: int) -> tuple[Submission, Problem]:
    sub = get_or_404(s, Submission, submission_id)
    me = _me()
    if sub.player_id != me.id:
        abort(404)
    prob = get_or_404(s, Problem, sub.problem_id)
    return sub, prob


@bp.route("/feuilles/<int:submission_id>")
@player_required
def receipt(submission_id: int) -> str:
    with _session() as s:
        sub, prob = _own_submission(s, submission_id)
        latest = versions.latest_submission(session=s, player_id=sub.player_id,
                                               problem_id=prob.id or 0)
        previous = (s.get(Submission, sub.previous_id)
                    if sub.parse_errors and sub.previous_id else None)
    moves = submissions.receipt_moves(sub.feuille)
    return render_template(
        "player/receipt.html", submission=sub, problem=prob, moves=moves,
        errors=sub.parse_errors, is_latest=latest is not None and latest.id == sub.id,
        replaced_readable=previous if previous is not None and not previous.parse_errors
        else None,
    )


@bp.route("/problemes/<code>/versions")
@player_required
def history(code: str) -> str:
    me = _me()
    with _session() as s:
        prob = s.exec(select(Problem).where(Problem.code == code)).first()
        if prob is None:
            abort(404)
        subs = s.exec(
            select(Submission)
            .where(Submission.problem_id == prob.id, Submission.player_id == me.id)
            .order_by(col(Submission.version).desc())
        ).all()
        vers = {v.submission_id: v for v in s.exec(
            select(Verification)
            .where(col(Verification.submission_id).in_([x.id for x in subs]))
            .where(col(Verification.superseded_at).is_(None))
        ).all()}
    return render_template("player/history.html", problem=prob, submissions=subs,
                           verifications=vers)


@bp.route("/rapports/<int:verification_id>/appel", methods=["GET", "POST"])
@player_required
def appeal(verification_id: int) -> ResponseReturnValue:
    me = _me()
    with _session() as s:
        ver = get_or_404(s, Verification, verification_id)
        sub, prob = _own_submission(s, ver.submission_id)
        existing = s.exec(
            select(Appeal).where(Appeal.verification_id == ver.id, Appeal.player_id == me.id)
            .order_by(col(Appeal.created_at).desc())
        ).all()
    error = None
    text = ""
    if request.method == "POST":
        text = request.form.get("texte", "")
        try:
            with session_scope() as s:
                player = s.get(Player, me.id)
                v = s.get(Verification, verification_id)
                assert player is not None and v is not None
                appeals.file_appeal(session=s, player=player, verification=v, text=text)
        except appeals.AppealRefused as exc:
            error = str(exc)
        else:
            flash(gettext("Votre appel est enregistré ; l'arbitre vous répondra par courriel et "
                          "sur cette page."), "success")
            return redirect(url_for("player.appeal", verification_id=verification_id))
    window_open = (
        prob.status == ProblemStatus.PROVISIONAL
        and prob.appeals_until is not None
        and clock.now() < prob.appeals_until
    )
    return render_template(
        "player/appeal.html", problem=prob, submission=sub, verification=ver,
        appeals=existing, error=error, text=text, window_open=window_open,
    ), (400 if error else 200)
