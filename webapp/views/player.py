"""Pages of the player blueprint (filled in by the pages work)."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("player", __name__, url_prefix="/joueur")
