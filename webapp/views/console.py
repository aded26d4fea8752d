"""Pages of the console blueprint (filled in by the pages work)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("console", __name__, url_prefix="/console")
