"""The mail: inbound messages (quarantine first), the outbox, the local mailbox (through
mailer.mailroom)."""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.typing import ResponseReturnValue
from werkzeug.wrappers import Response

from mailer import mailroom
from webapp.db import session_scope
from webapp.models import OutboxStatus
from webapp.services import rows
from webapp.views.console.common import PER_PAGE, _actor, _session
from webapp.views.helpers import content_disposition

bp = Blueprint("mail", __name__)


def quarantine_badge() -> dict[str, Any]:
    """The number of messages in quarantine, for the console's navigation (every page)."""
    with _session() as s:
        return {"quarantine_count": mailroom.quarantine_count(s)}


def _app() -> Any:
    return current_app._get_current_object()  # type: ignore[attr-defined]


@bp.route("/courrier/recu")
def inbound() -> str:
    status = request.args.get("statut", mailroom.TO_HANDLE)
    if status not in mailroom.FILTERS:
        status = mailroom.TO_HANDLE
    page = min(1_000_000, max(1, request.args.get("page", 1, type=int) or 1))
    with _session() as s:
        result = mailroom.inbound_page(s, status=status, page=page, per_page=PER_PAGE)
    return render_template(
        "console/inbound.html", result=result, status=status, filters=mailroom.FILTERS,
        status_fr=mailroom.INBOUND_STATUS_FR,
    )


def _detail_page(inbound_id: int, *, error: str | None = None,
                 kept: dict[str, str] | None = None) -> str:
    with _session() as s:
        detail = mailroom.inbound_detail(s, inbound_id)
    if detail is None:
        abort(404)
    return render_template(
        "console/inbound_message.html", d=detail, m=detail.message,
        status_fr=mailroom.INBOUND_STATUS_FR, replayable=mailroom.REPLAYABLE,
        discardable=mailroom.DISCARDABLE, error=error, kept=kept or {},
        kind_fr=mailroom.outbox_kind, source_fr=mailroom.sheet_source_label,
    )


@bp.route("/courrier/recu/<int:inbound_id>")
def inbound_message(inbound_id: int) -> str:
    return _detail_page(inbound_id)


@bp.route("/courrier/recu/<int:inbound_id>/brut")
def inbound_raw(inbound_id: int) -> Response:
    """The stored bytes, exactly, as a file to save: never shown as a page."""
    with _session() as s:
        msg = rows.inbound_message(s, inbound_id)
        raw = bytes(msg.raw)
    resp = Response(raw, mimetype="message/rfc822")
    resp.headers["Content-Disposition"] = content_disposition(f"message-{inbound_id}.eml")
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Content-Security-Policy"] = "sandbox"
    return resp


def _act(inbound_id: int, field: str, action: Any) -> ResponseReturnValue:
    reason = request.form.get(field, "")
    try:
        outcome = action(reason)
    except LookupError:
        abort(404)
    except ValueError as exc:
        return _detail_page(inbound_id, error=str(exc), kept={field: reason}), 400
    flash(outcome, "success")
    return redirect(url_for("console.mail.inbound_message", inbound_id=inbound_id))


@bp.route("/courrier/recu/<int:inbound_id>/rejouer", methods=["POST"])
def inbound_replay(inbound_id: int) -> ResponseReturnValue:
    def run(reason: str) -> str:
        status = mailroom.replay(_app(), inbound_id, actor=_actor(), reason=reason)
        return (f"Message n° {inbound_id} rejoué : "
                f"{mailroom.INBOUND_STATUS_FR.get(status, status)}.")

    return _act(inbound_id, "replay_reason", run)


@bp.route("/courrier/recu/<int:inbound_id>/ecarter", methods=["POST"])
def inbound_discard(inbound_id: int) -> ResponseReturnValue:
    def run(reason: str) -> str:
        mailroom.discard(_app(), inbound_id, actor=_actor(), reason=reason)
        return f"Message n° {inbound_id} écarté."

    return _act(inbound_id, "discard_reason", run)


@bp.route("/courrier/sortant")
def outbox() -> str:
    status = request.args.get("statut", "a_suivre")
    if status not in mailroom.OUTBOX_FILTERS:
        status = "a_suivre"
    page = min(1_000_000, max(1, request.args.get("page", 1, type=int) or 1))
    with _session() as s:
        result = mailroom.outbox_page(s, status=status, page=page, per_page=PER_PAGE)
    return render_template(
        "console/outbox.html", result=result, status=status, filters=mailroom.OUTBOX_FILTERS,
        failed=OutboxStatus.FAILED, kind_fr=mailroom.outbox_kind,
    )


@bp.route("/courrier/sortant/<int:outbox_id>/renvoyer", methods=["POST"])
def outbox_retry(outbox_id: int) -> ResponseReturnValue:
    try:
        with session_scope() as s:
            mailroom.retry_outbox(s, outbox_id, actor=_actor(),
                                  reason=request.form.get("reason", ""))
    except LookupError:
        abort(404)
    except ValueError as exc:
        flash(str(exc), "error")
    else:
        flash(f"Message sortant n° {outbox_id} remis dans la file : l'expéditeur le renvoie "
              "à son prochain passage.", "success")
    return redirect(url_for("console.mail.outbox", statut=request.args.get("statut", "a_suivre")))


@bp.route("/courrier")
def mailbox() -> str:
    with _session() as s:
        messages, outbox = mailroom.local_mailbox(
            current_app._get_current_object(), s)  # type: ignore[attr-defined]
    return render_template("console/mailbox.html", messages=messages, outbox=outbox,
                           kind_fr=mailroom.outbox_kind)
