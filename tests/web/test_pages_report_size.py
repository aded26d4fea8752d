"""The report page stays light for the longest sheets the server takes (issue 9): it draws
the final grid and one move of the replay; the stepper fetches the other moves' grids one at
a time from ``/rapports/<id>/coups/<k>`` (before: one full grid per move, 44 MB for a
1,000-line sheet).
"""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlmodel import Session

from puzzles.limits import max_sheet_entries
from webapp.models import Channel, Player, Problem, ProblemStatus, Verification
from webapp.services import verification
from webapp.services.stored import puzzle_of
from webapp.services.submissions import submit_sheet

from .test_pages import login_player

pytestmark = pytest.mark.db

#: FICHERA then WUS (RULES §12: 82 + 84 = 166)
GOOD = ["1 ACEFHIR h8 FICHERA 82 82", "2 SUW 15f WUS 84 166"]

#: Bytes of the report page for a sheet at its problem's bound (below). Measured
#: 2026-11-30: 204,743 bytes for the 111-move Intégral (two grids of about 40 KB; each move's
#: row of the table, with the verifier's reasons, and its line of the text report, about
#: 1 KB), 436,064 for the 1,010 Superscrabble answers. With one grid per move the Intégral's
#: page was 111 × 40 KB ≈ 4.5 MB.
INTEGRAL_PAGE_BOUND = 250_000
SUPERSCRABBLE_PAGE_BOUND = 500_000


@pytest.fixture
def ana(make_player: Callable[..., Player]) -> Player:
    return make_player("Ana Popescu", "ana@example.ro")


def verified(db_session: Session, player: Player, problem: Problem, text: str,
             when: Any) -> Verification:
    submit_sheet(session=db_session, player=player, problem=problem, text=text,
                 channel=Channel.WEB, received_at=when)
    problem.status = ProblemStatus.CLOSED
    db_session.add(problem)
    (v,) = verification.verify_problem(session=db_session, problem=problem, actor="system")
    db_session.commit()
    return v


def test_report_of_an_integral_at_its_bound_is_light(
    client: FlaskClient, ana: Player, make_problem: Callable[..., Problem],
    db_session: Session, frozen_start: Any, frozen_clock: Any,
) -> None:
    p1 = make_problem(code="P1")
    limit = max_sheet_entries(puzzle_of(p1))
    assert limit == 101 + 10  # 102 tiles − 1 (move 1 takes 2), plus the margin
    # two good moves, then 109 moves off the bag's letters: each zeroed, with its reasons
    lines = GOOD + [f"{n} A A{n % 15 + 1} AA 2 {166 + 2 * (n - 2)}" for n in range(3, limit + 1)]
    v = verified(db_session, ana, p1, "\n".join(lines) + "\n", frozen_start)
    assert len(v.report["moves"]) == 111
    login_player(client, ana)
    resp = client.get(f"/rapports/{v.id}")
    assert resp.status_code == 200
    body = resp.get_data()
    assert len(body) < INTEGRAL_PAGE_BOUND, len(body)
    text = body.decode()
    assert text.count("<svg") == 2  # the final grid and move 1
    assert "Coup 1 / 111" in text
    assert text.count("<tr") == 1 + 111  # every move is still in the table

    # any move on demand, alone: move 2's grid holds FICHERA and WUS's three tiles
    step = client.get(f"/rapports/{v.id}/coups/2")
    assert step.status_code == 200
    frag = step.get_data(as_text=True)
    assert frag.count("<svg") == 1 and "Coup 2 : WUS en 15F" in html.unescape(frag)
    assert frag.count('class="tile') == 7 + 3
    assert client.get(f"/rapports/{v.id}/coups/112").status_code == 404
    assert client.get(f"/rapports/{v.id}/coups/0").status_code == 404
    # without JavaScript: ?coup=k draws that move
    deep = client.get(f"/rapports/{v.id}?coup=111").get_data(as_text=True)
    assert "Coup 111 / 111" in deep and deep.count("<svg") == 2
    # the step is the report's: another player gets 403, a visitor 404
    client.get("/deconnexion")
    with client.session_transaction() as sess:
        sess.clear()
    assert client.get(f"/rapports/{v.id}/coups/2").status_code == 404


def test_report_of_a_superscrabble_at_its_bound_is_light(
    client: FlaskClient, ana: Player, make_problem: Callable[..., Problem],
    db_session: Session, frozen_start: Any, frozen_clock: Any,
) -> None:
    from scoring.lexicon import default_lexicon

    ss = make_problem(code="S1", game="superscrabble", seed=13, lexicon=default_lexicon())
    limit = max_sheet_entries(puzzle_of(ss))
    assert limit == 1000 + 10
    rack = puzzle_of(ss).rack.replace("?", "E")
    lines = ["Scrabbles:"] + [f"{n} H{n % 15 + 1} {rack}" for n in range(1, limit + 1)]
    v = verified(db_session, ana, ss, "\n".join(lines) + "\n", frozen_start)
    assert len(v.report["scrabbles"]) == 1010
    login_player(client, ana)
    resp = client.get(f"/rapports/{v.id}")
    assert resp.status_code == 200
    body = resp.get_data()
    assert len(body) < SUPERSCRABBLE_PAGE_BOUND, len(body)
    assert body.decode().count("<svg") == 1  # the given grid; answers are listed
