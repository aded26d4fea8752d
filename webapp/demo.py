"""The demonstration championship ``arbitre serve`` seeds on an empty database.

Three problems show every stage: an open Intégral sur rangée, an Anticipation due tomorrow,
and a finished Intégral partiel with verified sheets and its final ranking. The demo players'
sheets are played by the engine (greedy best move on the letters left), so their scores are
real. An arbitre account ``arbitre`` is created with a random password, printed once.
"""

from __future__ import annotations

import random
import secrets
from collections import Counter
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from flask import Flask
from sqlmodel import Session, select

from puzzles.generate import new_problem
from scoring.board import Board
from scoring.config import GameConfig
from scoring.lexicon import default_lexicon
from scoring.movegen import best
from webapp.auth import create_arbitre
from webapp.db import session_scope
from webapp.models import Arbitre, Channel, Competition, Player, Problem, ProblemStatus
from webapp.services import audit, clock, problems, rankings, verification
from webapp.services.players import create_player
from webapp.services.stored import puzzle_of
from webapp.services.submissions import submit_sheet

DEMO_SLUG = "demo"
DEMO_PLAYERS = (
    ("Ana Popescu", "CS Scrabble București", "ana.popescu@example.org"),
    ("Bernard Lefèvre", "Club de Scrabble de Lyon", "bernard.lefevre@example.org"),
    ("Claire Dubois", "Scrabble Club Liège", "claire.dubois@example.org"),
    ("Dan Ionescu", "Clubul Scrabble Iași", "dan.ionescu@example.org"),
)


@dataclass
class DemoInfo:
    username: str
    password: str
    problem_codes: list[str]
    player_emails: list[str]

    def describe(self, base_url: str, mailbox: Path | None = None) -> str:
        """What was created, for the terminal; ``mailbox``: the local mbox the players'
        sign-in links go to when no SMTP relay is configured."""
        base = base_url.rstrip("/")
        where = f"envoyé dans {mailbox}" if mailbox is not None else "envoyé par courriel"
        return "\n".join([
            "Démonstration créée :",
            f"  console de l'arbitre : {base}/arbitre/connexion",
            f"  identifiant : {self.username}   mot de passe : {self.password}",
            "  (notez-le : il n'est affiché qu'une fois ; "
            "`arbitre create-arbitre` en crée d'autres)",
            "  problèmes : " + ", ".join(self.problem_codes),
            f"  joueurs (connexion par lien {where}) : "
            + ", ".join(self.player_emails),
        ])


def seed_demo(app: Flask, *, now: datetime | None = None) -> DemoInfo | None:
    """Create the demo championship, unless it exists (returns None then)."""
    now = now or clock.now()
    lexicon = default_lexicon()
    with app.app_context(), session_scope(app) as s:
        if s.exec(select(Competition).where(Competition.slug == DEMO_SLUG)).first():
            return None
        password = secrets.token_urlsafe(9)
        username = "arbitre"
        if s.exec(select(Arbitre).where(Arbitre.username == username)).first():
            username = f"arbitre-demo-{secrets.token_hex(2)}"
        create_arbitre(session=s, username=username, password=password,
                       name="Arbitre de démonstration")
        comp = problems.create_competition(
            session=s, slug=DEMO_SLUG, name="Championnat de démonstration",
            description="Trois problèmes pour essayer le serveur.",
        )
        stage = problems.add_stage(session=s, competition=comp, name="Tour 1")
        players = []
        for name, club, email in DEMO_PLAYERS:
            p = create_player(session=s, name=name, email=email, club=club)
            problems.register(session=s, competition=comp, player=p)
            players.append(p)

        finished = problems.create_problem(
            session=s, competition=comp, stage=stage, code="demo-partiel",
            puzzle=new_problem("integral_partiel", seed=2026, lexicon=lexicon),
            publish_at=now - timedelta(days=20), deadline_at=now - timedelta(days=10),
            status=ProblemStatus.OPEN, title="Intégral partiel (terminé)",
        )
        _play_finished(s, finished, players, lexicon, now)

        rangee = problems.create_problem(
            session=s, competition=comp, stage=stage, code="demo-rangee",
            puzzle=new_problem("rangee", seed=7, lexicon=lexicon),
            publish_at=now - timedelta(hours=1), deadline_at=now + timedelta(days=7),
            status=ProblemStatus.OPEN, title="Intégral sur rangée",
        )
        rangee.published_at = now - timedelta(hours=1)
        anticip = problems.create_problem(
            session=s, competition=comp, stage=stage, code="demo-anticipation",
            puzzle=new_problem("anticipation", seed=11, lexicon=lexicon),
            publish_at=now - timedelta(days=6), deadline_at=now + timedelta(days=1),
            status=ProblemStatus.OPEN, title="Anticipation",
        )
        anticip.published_at = now - timedelta(days=6)
        audit.record(session=s, actor=audit.SYSTEM, action="demo.seed", target=DEMO_SLUG)
        return DemoInfo(username, password, [finished.code, rangee.code, anticip.code],
                        [p.email for p in players])


def greedy_sheet(stock: str, lexicon: object, *, seed: int, max_moves: int = 12) -> str:
    """A feuille for a stock game: each move is the engine's best with 7 of the letters
    left (taken in an order shuffled by ``seed``), until nothing can be played."""
    config = GameConfig.default("fr", lexicon)  # type: ignore[arg-type]
    rng = random.Random(seed)
    left = list(stock)
    rng.shuffle(left)
    board = Board()
    lines, cumul = [], 0
    for number in range(1, max_moves + 1):
        rack = "".join(left[:7])
        moves = best(board, rack, config)
        if not moves:
            break
        m = moves[0]
        m.placement.apply(board)
        used = Counter(m.letters)
        for ch in list(used.elements()):
            left.remove(ch)
        cumul += m.score
        ref, word = m.notation.split(" ", 1)
        # "|" separators: "5 O G5 ..." would read the number and a one-letter draw as "5O"
        lines.append(f"{number} | {m.letters} | {ref} | {word} | {m.score} | {cumul}")
        if not left:
            break
    return "\n".join(lines) + "\n"


def _play_finished(
    s: Session, problem: Problem, players: list[Player], lexicon: object, now: datetime
) -> None:
    stock = puzzle_of(problem).stock
    for i, p in enumerate(players[:3]):
        text = f"Problème: {problem.code}\n" + greedy_sheet(stock, lexicon, seed=i)
        submit_sheet(session=s, player=p, problem=problem, text=text, channel=Channel.WEB,
                     received_at=now - timedelta(days=12, hours=i))
    problem.status = ProblemStatus.CLOSED
    problem.published_at = problem.publish_at
    problem.closed_at = problem.deadline_at
    verification.verify_problem(session=s, problem=problem, actor=audit.SYSTEM)
    problem.status = ProblemStatus.VERIFIED
    problem.verified_at = problem.deadline_at
    rankings.publish_ranking(session=s, problem=problem, kind=rankings.PROVISIONAL,
                             actor=audit.SYSTEM)
    problem.provisional_at = problem.deadline_at
    problem.appeals_until = problem.deadline_at + timedelta(days=problem.appeal_days)
    rankings.publish_ranking(session=s, problem=problem, kind=rankings.FINAL, actor=audit.SYSTEM,
                             comment="Aucun appel.")
    problem.status = ProblemStatus.FINAL
    problem.finalised_at = problem.appeals_until
    s.add(problem)
