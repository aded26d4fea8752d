"""Issue 24 §1: the draws can be predicted no more.

Before, a game's default seed was ``secrets.randbits(31)`` and its bag
``random.Random(seed).shuffle``: round 1's public rack (the first tiles in bag order) let a
player find the seed by trying them all (about 7 µs a seed), and with it every later draw.
Now a default game draws its bag from a fresh 128-bit secret seed through
``puzzles.duplicate.secret_bag`` (SHAKE-256, unbiased Fisher–Yates); an arbitre-given seed
stays possible (replays, tests) and is marked as such on the console; a bag given whole and
the rejection path draw exactly as before.
"""

from __future__ import annotations

import html
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from puzzles.duplicate import (
    SECRET_SEED_BITS,
    DuplicateSettings,
    GameState,
    draw_round,
    secret_bag,
    shuffled_bag,
)
from scoring.tiles import tileset
from tests.web.test_pages import login_arbitre
from tests.web.za_game import START, full_bag
from webapp.models import Competition, DuplicateGame, DuplicateRound, SeedSource
from webapp.services import clock, duplicate, lifecycle

pytestmark = pytest.mark.db

HOURS = {"kind": "hours", "hours": 24}
WINDOW = 1 << 20  # the seeds an attacker would try first: 2**20 around a guess


def _create(session: Session, competition: Competition, code: str, **kw: object) -> DuplicateGame:
    return duplicate.create_game(session=session, competition=competition, title="Secret",
                                 code=code, settings=DuplicateSettings(lang="fr", rounds=3),
                                 rhythm=dict(HOURS), starts_at=START, **kw)  # type: ignore[arg-type]


def test_a_default_game_draws_from_a_stored_128_bit_secret_seed(
    ctx: Flask, db_session: Session, competition: Competition
) -> None:
    codes = [f"S{i}" for i in range(8)]
    for code in codes:
        _create(db_session, competition, code)
    db_session.commit()
    db_session.expire_all()  # read back what the database holds (VARCHAR digits)
    games = [db_session.exec(select(DuplicateGame).where(DuplicateGame.code == c)).one()
             for c in codes]
    seeds = [g.seed for g in games]
    assert all(g.seed_source == SeedSource.SECRET for g in games)
    assert len(set(seeds)) == 8
    assert all(0 <= s < 1 << SECRET_SEED_BITS for s in seeds)
    # 128 bits of entropy: eight seeds all below 2**120 would happen once in 2**64 games
    assert max(s.bit_length() for s in seeds) > 120
    for g in games:
        # the stored bag is the one the stored seed gives: checkable, exactly reproducible
        assert g.bag_order == "".join(secret_bag("fr", g.seed))
        assert Counter(g.bag_order) == tileset("fr").bag()
        assert g.bag_order != "".join(shuffled_bag("fr", g.seed % (1 << 31)))


def _prefixes(args: tuple[str, int, int]) -> list[int]:
    """The seeds in ``start..start+count`` whose bag, by either shuffle the server knows,
    starts (first or second seven tiles: round 1 after one rejection) with ``rack``."""
    rack, start, count = args
    hits = []
    for seed in range(max(0, start), start + count):
        legacy = "".join(shuffled_bag("fr", seed)[:14])
        secret = "".join(secret_bag("fr", seed, first=14))
        if rack in (legacy[:7], legacy[7:], secret[:7], secret[7:]):
            hits.append(seed)
    return hits


def test_the_first_rack_of_a_default_game_is_not_given_by_any_seed_near_the_clock_or_id(
    ctx: Flask, db_session: Session, competition: Competition, frozen_clock: object
) -> None:
    game = _create(db_session, competition, "NEAR")
    db_session.commit()
    assert lifecycle.run_due(now=clock.now()) == ["draw:NEAR:1"]
    db_session.expire_all()
    rnd = db_session.exec(select(DuplicateRound).where(DuplicateRound.game_id == game.id)).one()
    rack = rnd.draw["rack"]
    assert len(rack) == 7 and (rack == game.bag_order[:7] or rnd.draw["rejected"])
    assert game.id is not None
    created = int(game.created_at.timestamp())
    # the 2**20 seeds nearest the creation time (seconds) and the 2**20 nearest the game's id
    windows = [(created - WINDOW // 2, WINDOW), (game.id - WINDOW // 2, WINDOW)]
    step = 1 << 16
    chunks = [(rack, a + k, min(step, a + n - (a + k)))
              for a, n in windows for k in range(0, n, step)]
    with ProcessPoolExecutor(max_workers=2, mp_context=get_context("fork")) as pool:
        hits = sorted({s for part in pool.map(_prefixes, chunks) for s in part})
    settings = DuplicateSettings(lang="fr", rounds=3)
    for seed in hits:  # a seven-tile coincidence: the whole draw must still differ
        for bag in (shuffled_bag("fr", seed), secret_bag("fr", seed)):
            draw, _ = draw_round(GameState.initial(settings, bag), settings)
            assert draw is None or draw.rack != rack or "".join(bag) != game.bag_order


def test_a_given_seed_and_a_given_bag_still_draw_as_before(
    ctx: Flask, db_session: Session, competition: Competition
) -> None:
    given = _create(db_session, competition, "G7", seed=7)
    bag = _create(db_session, competition, "BAG", bag_order=full_bag())
    wide = _create(db_session, competition, "WIDE", seed=(1 << 128) - 1)
    db_session.commit()
    db_session.expire_all()
    assert (given.seed, given.seed_source) == (7, SeedSource.GIVEN)
    # the same order as before this change: random.Random(7).shuffle of the sorted set
    assert given.bag_order == "".join(shuffled_bag("fr", 7)) == duplicate.draw_bag_order("fr", 7)
    assert (bag.seed, bag.seed_source, bag.bag_order) == (0, SeedSource.BAG, full_bag())
    assert wide.seed == (1 << 128) - 1  # exact on SQLite (no float) and PostgreSQL alike
    with pytest.raises(duplicate.DuplicateError, match="Graine du sac"):
        _create(db_session, competition, "HUGE", seed=1 << 128)
    # the rejection path draws from the stored bag, as before: a bag whose first seven are
    # consonants only is rejected and goes back to the end (RULES §4.2–4.3)
    s = DuplicateSettings(lang="fr", rounds=3)
    order = "BCDFGHJ" + "AEIRSTU" + "".join(sorted(
        (tileset("fr").bag() - Counter("BCDFGHJAEIRSTU")).elements()))
    draw, after = draw_round(GameState.initial(s, order), s)
    assert draw is not None and draw.rack == "AEIRSTU" and draw.rejected == ("BCDFGHJ",)
    assert "".join(after.bag).endswith("BCDFGHJ")


def test_the_console_marks_a_given_seed_and_refuses_a_bad_one(
    app: Flask, client: FlaskClient, db_session: Session, competition: Competition,
    frozen_clock: object,
) -> None:
    login_arbitre(client, db_session)
    form = {"title": "Mardi", "code": "MAR2", "competition_id": str(competition.id),
            "lang": "fr", "rounds": "", "rhythm": "all_answered", "hours": "48",
            "starts_at": "2026-05-12T20:00",
            "timezone": "Europe/Bucharest", "solo_rule": "auto", "solo_points": "10",
            "warning_conversion_from": "6", "review_minutes": "0", "lexicon": "default"}
    top = f"hors des limites (de 0 à {(1 << 128) - 1})."
    for bad, said in (("²", "Graine du sac : « ² » n'est pas un nombre entier."),
                      ("-3", f"Graine du sac : -3 est {top}"),
                      (str(1 << 128), f"Graine du sac : {1 << 128} est {top}"),
                      ("9" * 5000, f"Graine du sac : « {'9' * 40} » n'est pas un nombre entier.")):
        resp = client.post("/console/duplicate", data={**form, "seed": bad})
        assert resp.status_code == 400, bad[:10]
        assert said in html.unescape(resp.get_data(as_text=True))
    assert client.post("/console/duplicate", data={**form, "seed": "7"}).status_code == 302
    page = html.unescape(client.get("/console/duplicate/MAR2").get_data(as_text=True))
    assert "graine du sac donnée par l’arbitre : 7 (tirages prévisibles par qui la connaît)" in page
    assert client.post("/console/duplicate",
                       data={**form, "code": "MAR3"}).status_code == 302
    page = html.unescape(client.get("/console/duplicate/MAR3").get_data(as_text=True))
    assert "sac tiré d’une graine secrète de 128 bits" in page
    with app.app_context():
        db_session.expire_all()
        g = db_session.exec(select(DuplicateGame).where(DuplicateGame.code == "MAR3")).one()
        assert g.seed_source == SeedSource.SECRET and str(g.seed) not in page
