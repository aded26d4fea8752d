"""The site's absolute links (``webapp.services.links``): one way to build them for every
mail and page that gives one whole (problem, report, Duplicate game, correspondence game,
the reminders' list of waiting games)."""

from __future__ import annotations

from flask import Flask

from webapp.services import links


def test_a_link_is_the_base_url_then_each_segment_quoted(ctx: Flask) -> None:
    ctx.config["BASE_URL"] = "https://arbitre.example.org/"
    assert links.absolute("problemes", "INT-12") == "https://arbitre.example.org/problemes/INT-12"
    assert links.absolute("rapports", 42) == "https://arbitre.example.org/rapports/42"
    # a code with a slash, a space or a non-ASCII letter still leads to its own page
    assert links.absolute("duplicate", "A/B é") == \
        "https://arbitre.example.org/duplicate/A%2FB%20%C3%A9"


def test_no_base_url_no_link(ctx: Flask) -> None:
    ctx.config["BASE_URL"] = ""
    assert links.absolute("problemes", "P") is None


def test_outside_an_app_context_no_link() -> None:
    assert links.absolute("problemes", "P") is None
