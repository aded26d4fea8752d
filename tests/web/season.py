"""The sheets of the worked example of RULES §12 [E5] (``FULL``, ``FIRST``), sent on the web
by :func:`submit_web`, and the two-problem season of the standings and people tests, taken
through the real schedule (sheets submitted, the deadline batch closes, verifies and
publishes both problems).

Sheets are the worked example of RULES §12 [E5]: FICHERA 82, then WUS 84, cumul 166.
P1 (best sheet 166 = 100 %): Ana 166, Bob 82 (sent 1 min after Ana), Cid 82 (2 min after):
    82/166 = 49.40 %; with equal scores « la feuille reçue la première passe devant ».
P2 (the arbitre's reference 200 = 100 %): Bob 166 = 83.00 %, Ana 82, Dan 82 = 41.00 %.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

from flask import Flask
from sqlmodel import Session

from webapp.models import Channel, Player, Problem, Submission
from webapp.services import lifecycle
from webapp.services.submissions import submit_sheet

FULL = "1 ACEFHIR h8 FICHERA 82 82\n2 SUW 15f WUS 84 166\n"
FIRST = "1 ACEFHIR h8 FICHERA 82 82\n"


def text(resp: Any) -> str:
    return html.unescape(resp.get_data(as_text=True))


def table_cells(resp: Any, table_id: str) -> list[str]:
    """Each body row (``data-player`` or ``data-event``) of the table ``table_id`` as its
    cells' text joined by ``|``."""
    body = resp.get_data(as_text=True)
    table = body.split(f'id="{table_id}"', 1)[1].split("</table>", 1)[0]
    rows = []
    for tr in re.findall(r"<tr data-(?:player|event)[^>]*>(.*?)</tr>", table, re.S):
        tds = re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)
        rows.append("|".join(
            " ".join(html.unescape(re.sub(r"<[^>]+>", " ", c)).split()) for c in tds))
    return rows


def submit_web(session: Session, player: Player, problem: Problem, text: str,
               at: datetime) -> Submission:
    """``text`` sent by ``player`` for ``problem`` on the web at ``at``: the submission."""
    return submit_sheet(session=session, player=player, problem=problem, text=text,
                        channel=Channel.WEB, received_at=at).submission


def play_season(
    app: Flask, db_session: Session, make_problem: Callable[..., Problem],
    frozen_start: datetime, frozen_clock: Any, players: Mapping[str, Player], *,
    open_p3: bool = False,
) -> dict[str, Any]:
    """P1 (deadline +1 day) and P2 (+2 days, seed 2, reference 200), and with ``open_p3`` a
    P3 still open (+9 days, not counted); ``players`` ana, bob, cid, dan send the sheets
    above a minute apart from ``frozen_start``; the clock then moves to one minute after P2's
    deadline and the batch runs. Returns the players, p1, p2 and ``after`` (that instant)."""
    ana, bob, cid, dan = (players[k] for k in ("ana", "bob", "cid", "dan"))
    p1 = make_problem(code="P1", deadline=timedelta(days=1))
    p2 = make_problem(code="P2", deadline=timedelta(days=2), seed=2)
    p2.reference_score = 200
    db_session.add(p2)
    if open_p3:
        make_problem(code="P3", deadline=timedelta(days=9))
    sheets = [(p1, ana, FULL, 0), (p1, bob, FIRST, 1), (p1, cid, FIRST, 2),
              (p2, bob, FULL, 3), (p2, ana, FIRST, 4), (p2, dan, FIRST, 5)]
    for prob, pl, sheet, minutes in sheets:
        submit_sheet(session=db_session, player=pl, problem=prob, text=sheet,
                     channel=Channel.WEB, received_at=frozen_start + timedelta(minutes=minutes))
    db_session.commit()
    after = p2.deadline_at + timedelta(minutes=1)
    frozen_clock.move_to(after)
    with app.app_context():
        assert lifecycle.run_due(now=after) == [
            "close:P1", "verify:P1", "provisional:P1",
            "close:P2", "verify:P2", "provisional:P2"]
    db_session.expire_all()
    return {**players, "p1": p1, "p2": p2, "after": after}
