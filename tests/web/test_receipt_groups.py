"""Issue 13.7: the receipts of a game played with numbered groups (Anticipation) show the
group each move line names (« 1 G2 … »), in a column of their own: the mail (text and
HTML) and the receipt page. A line without a group number says so; the receipt of an
Intégral has no such column."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlmodel import Session, col, select

from webapp.models import Channel, OutboxMessage, Player, Problem
from webapp.services.submissions import submit_sheet

pytestmark = pytest.mark.db

# move 1 names group 2, move 2 names none (the verifier finds it from the letters)
SHEET = "1 G2 ART H7 RAT 6 6\n2 Z 8G ZA 11 17\n"


def _receipt(session: Session) -> OutboxMessage:
    session.expire_all()
    rows = session.exec(select(OutboxMessage).where(OutboxMessage.kind == "receipt")
                        .order_by(col(OutboxMessage.id).desc())).all()
    return rows[0]


def _cells(body: str, table_id: str) -> list[list[str]]:
    m = re.search(rf'id="{table_id}".*?</table>', body, re.S)
    assert m is not None, body
    rows = re.findall(r"<tr>(.*?)</tr>", m.group(0), re.S)
    return [[html.unescape(re.sub(r"<[^>]+>", "", c)).strip()
             for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", r, re.S)] for r in rows]


def test_anticipation_receipts_have_a_group_column(
    client: FlaskClient, db_session: Session, make_player: Callable[..., Player],
    make_problem: Callable[..., Problem], frozen_clock: Any, frozen_start: datetime,
) -> None:
    ana = make_player("Ana Popescu", "ana@example.ro")
    prob = make_problem(game="anticipation", code="ANT1")
    outcome = submit_sheet(session=db_session, player=ana, problem=prob, text=SHEET,
                           channel=Channel.WEB, received_at=frozen_start)
    db_session.commit()
    mail = _receipt(db_session)
    lines = mail.body_text.splitlines()
    assert ("   1. groupe 2  ART  RAT  H7 (horizontal, ligne H, à partir de la colonne 7)  6"
            "  (cumul 6)") in lines, mail.body_text
    assert ("   2. groupe non indiqué  Z  ZA  8G (vertical, colonne 8, à partir de la ligne G)"
            "  11  (cumul 17)") in lines, mail.body_text
    assert mail.body_html is not None
    body = html.unescape(mail.body_html)
    assert "<th>N°</th><th>Groupe</th><th>Lettres</th>" in body
    assert "<tr><td>1</td><td>2</td><td>ART</td>" in body
    assert "<tr><td>2</td><td>—</td><td>Z</td>" in body

    with client.session_transaction() as sess:
        sess["player_id"] = ana.id
    page = client.get(f"/joueur/feuilles/{outcome.submission.id}").get_data(as_text=True)
    rows = _cells(page, "comprise-coups")
    assert rows[0][:3] == ["Coup", "Groupe", "Lettres"]
    assert [r[:4] for r in rows[1:]] == [["1", "2", "ART", "RAT"], ["2", "—", "Z", "ZA"]]


def test_an_integral_receipt_has_no_group_column(
    client: FlaskClient, db_session: Session, make_player: Callable[..., Player],
    make_problem: Callable[..., Problem], frozen_clock: Any, frozen_start: datetime,
) -> None:
    ana = make_player("Ana Popescu", "ana@example.ro")
    prob = make_problem(game="integral", code="I1")
    outcome = submit_sheet(session=db_session, player=ana, problem=prob,
                           text="1 ACEFHIR H8 FICHERA 82 82\n", channel=Channel.WEB,
                           received_at=frozen_start)
    db_session.commit()
    mail = _receipt(db_session)
    assert "groupe" not in mail.body_text.lower()
    assert mail.body_html is not None and "<th>Groupe</th>" not in mail.body_html
    with client.session_transaction() as sess:
        sess["player_id"] = ana.id
    page = client.get(f"/joueur/feuilles/{outcome.submission.id}").get_data(as_text=True)
    assert _cells(page, "comprise-coups")[0][:2] == ["Coup", "Lettres"]
