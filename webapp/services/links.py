"""Absolute links to the site's pages, for the mails and the pages that give them whole.

Owns the one way such a link is built: the configured ``BASE_URL`` (none outside an app
context, or when it is not set: no link), then each path segment percent-encoded, so that
a code with any character still leads to its own page.
"""

from __future__ import annotations

from urllib.parse import quote

from flask import current_app, has_app_context


def absolute(*segments: str | int) -> str | None:
    """``BASE_URL`` followed by ``segments`` (each quoted whole), or ``None`` without a
    ``BASE_URL``: ``absolute("problemes", "P-1")`` → ``https://site/problemes/P-1``."""
    base = current_app.config.get("BASE_URL") if has_app_context() else None
    if not base:
        return None
    return "/".join([str(base).rstrip("/"), *(quote(str(s), safe="") for s in segments)])
