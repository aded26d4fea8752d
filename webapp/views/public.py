"""Pages of the public blueprint (filled in by the pages work)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("public", __name__)
