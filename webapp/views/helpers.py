"""What the three page blueprints share: template filters (times, statuses, game names, a
replayed grid as SVG), the view of a problem's letters per game type, the data of the
interactive board, and the read-only session a page opens for the services. A row by id
is a service's too (``webapp.services.rows``: a missing one is the 404 page).

Nothing here decides anything about a competition: that is the services' job. These helpers
only turn stored values into what a page shows.
"""

from __future__ import annotations

import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from flask import Blueprint
from flask_babel import gettext  # type: ignore[import-untyped]
from markupsafe import Markup
from sqlmodel import Session

from puzzles import numfmt
from puzzles.families import GameType, Supply
from puzzles.feuille import parse_feuille
from puzzles.problem import Problem as PuzzleProblem
from scoring.layout import STANDARD_LAYOUT
from scoring.tiles import JOKER, tileset
from webapp.board_svg import board_svg
from webapp.db import read_engine
from webapp.models import ProblemStatus
from webapp.services import clock, rounds
from webapp.services.reports import Grid


def content_disposition(filename: str, *, inline: bool = False) -> str:
    """The ``Content-Disposition`` of a downloaded file (RFC 6266): ``attachment`` (or
    ``inline``), an ASCII ``filename="…"`` for old clients, and ``filename*=UTF-8''…``
    (RFC 5987, percent-encoded) when the name is not plain ASCII — a code with an accent or
    an emoji. Every download of the web app writes its header here: a header is Latin-1,
    so an unencoded name outside it never reaches the client (``UnicodeEncodeError``)."""
    name = "".join(ch for ch in filename if ch.isprintable() and ch not in "/\\") or "fichier"
    fallback = "".join(
        ch if " " <= ch <= "~" and ch not in '"%;' else "_"
        for ch in unicodedata.normalize("NFKD", name) if not unicodedata.combining(ch))
    value = f'{"inline" if inline else "attachment"}; filename="{fallback}"'
    if fallback != name:
        value += f"; filename*=UTF-8''{quote(name, safe='')}"
    return value


STATUS_FR = {
    ProblemStatus.DRAFT: "brouillon",
    ProblemStatus.SCHEDULED: "programmé",
    ProblemStatus.OPEN: "ouvert",
    ProblemStatus.CLOSED: "clos",
    ProblemStatus.VERIFIED: "vérifié",
    ProblemStatus.PROVISIONAL: "classement provisoire",
    ProblemStatus.FINAL: "classement définitif",
    "open_appeal": "appel en cours",
    "accepted": "accepté",
    "rejected": "rejeté",
    "pending": "en attente",
    "sending": "en cours d'envoi",
    "sent": "envoyé",
    "failed": "échec",
    "provisional": "provisoire",
    "final": "définitif",
}

def read_session() -> Session:
    """The read-only session a page hands to the services (see
    :func:`webapp.db.read_engine`)."""
    return Session(read_engine(), expire_on_commit=False)


def grid_svg(grid: Grid | None) -> Markup:
    """A replayed grid (:class:`webapp.services.reports.Grid`) as inline SVG; titled after
    its move when it has one."""
    if grid is None:
        return Markup("")
    title = (gettext("Grille après le coup %(number)s", number=grid.number)
             if grid.number is not None else "Grille")
    return Markup(board_svg(grid.board, tileset=grid.tileset, highlight=grid.highlight,
                            zeroed=grid.zeroed, title=title))


def iso_utc(dt: datetime | None) -> str:
    """``2026-12-01T17:00:00Z`` for ``<time>`` elements and the JavaScript clock."""
    if dt is None:
        return ""
    return dt.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def live_window(problem: Any, puzzle: Any) -> rounds.LiveWindow | None:
    """``problem|live_window(puzzle)``: the reflection or move in progress of an Anticipation
    played live (:func:`webapp.services.rounds.live_window`), None otherwise."""
    return rounds.live_window(problem, puzzle, clock.now())


def remaining(dt: datetime | None) -> str:
    """Time left before ``dt``, for pages seen without JavaScript."""
    if dt is None:
        return ""
    left = int((dt - clock.now()).total_seconds())
    if left <= 0:
        return "Délai écoulé"
    days, rest = divmod(left, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    prefix = f"{days} j " if days else ""
    return f"Il reste {prefix}{hours:02d} h {minutes:02d} min"


def from_iso(text: str | None) -> datetime | None:
    """Instants stored as ISO text in JSON columns (ranking rows) back to datetimes."""
    if not text:
        return None
    return datetime.fromisoformat(text)


def status_fr(status: str) -> str:
    return STATUS_FR.get(status, status)


def game_label(game: GameType) -> str:
    """The French name of a game type (the pages translate it: ``webapp.i18n``)."""
    return game.label


@dataclass
class GroupView:
    label: str
    letters: str


@dataclass
class LettersView:
    """What the problem page shows as "the letters": a row, groups, a stock or a rack."""

    kind: str
    letters: str = ""
    groups: list[GroupView] = field(default_factory=list)
    counts: list[tuple[str, int]] = field(default_factory=list)
    caption: str = ""
    note: str = ""
    values: dict[str, int] = field(default_factory=dict)


def _sorted_counts(counter: Counter[str]) -> list[tuple[str, int]]:
    return sorted(
        ((k, v) for k, v in counter.items() if v > 0), key=lambda kv: (kv[0] == JOKER, kv[0])
    )


def letters_view(pz: PuzzleProblem) -> LettersView:
    ts = tileset(pz.lang)
    values = dict(ts.points)
    values[JOKER] = 0
    fam = pz.game.family
    if fam.supply is Supply.ROW:
        return LettersView("row", letters=pz.row, values=values)
    if fam.supply is Supply.GROUPS:
        groups = []
        for i, letters in enumerate(pz.groups, start=1):
            label = f"{i}"
            if fam.consonants_announced and pz.group_sizes:
                label = f"{i} (→ {pz.group_size(i)})"
            groups.append(GroupView(label, letters))
        note = ""
        if fam.consonants_announced and pz.pool:
            note = gettext(
                "Consonnes annoncées ; chaque groupe se complète avec les lettres de la réserve "
                "(entre parenthèses, la taille du groupe complété) : %(pool)s.", pool=pz.pool)
        elif fam.anticipation and pz.order:
            # the draw order is shown move by move under "Tirages annoncés" (services.rounds)
            note = gettext("Le groupe joué à chaque coup est indiqué sous « Tirages annoncés ».")
        return LettersView("groups", groups=groups, note=note, values=values)
    if fam.answers_only:  # Superscrabble
        return LettersView(
            "rack", letters=pz.rack, values=values,
            caption=gettext("Le tirage (7 lettres) à placer en scrabble sur la grille donnée :"),
        )
    if fam.construction_then_answers:  # Superscrabble incomplet
        return LettersView(
            "rack", letters=pz.rack, values=values,
            caption=gettext(
                "Le tirage (7 lettres). Construisez votre grille avec les autres lettres du "
                "sac, puis placez ce tirage en scrabble le plus de fois possible :"
            ),
        )
    stock = pz.construction_stock()
    if fam.letters_range is not None:  # Intégral partiel: the letters drawn
        return LettersView(
            "rack", letters="".join(sorted(pz.stock, key=lambda c: (c == JOKER, c))),
            values=values, caption=gettext("Les %(count)s lettres tirées :", count=len(pz.stock)),
        )
    return LettersView(
        "stock", counts=_sorted_counts(stock), values=values,
        caption=gettext("Le sac entier : %(count)s lettres, jokers compris.",
                        count=sum(stock.values())),
    )


#: Group numbers an Anticipation aveugle player composes himself (group 1 and 14 of 7).
AVEUGLE_GROUP_COUNT = 15


def board_data(pz: PuzzleProblem, code: str | None = None, text: str = "") -> dict[str, Any]:
    """The JSON the interactive board reads (see static/js/board.js): the letters a move
    may take (the stock left, the group played, the next letters of a rangée's row, the
    rack of a Superscrabble), so that the board refuses a word made of other letters.
    ``text``: the sheet shown in the text area (the version that counts, or the text just
    refused); its moves are read by ``puzzles.feuille`` and put back on the board, so the
    board goes on from there instead of starting empty."""
    ts = tileset(pz.lang)
    layout = STANDARD_LAYOUT
    fam = pz.game.family
    if fam.supply is Supply.ROW:
        stock: Counter[str] | None = None  # the board shows the next letters of the row
    elif fam.supply is Supply.GROUPS:
        stock = Counter("".join(pz.groups) + pz.pool)
    elif fam.answers_only:
        stock = None
    else:
        stock = pz.construction_stock()
    return {
        "cgp": pz.board or "",
        "layout": {
            "letter_mult": list(layout.letter_mult),
            "word_mult": list(layout.word_mult),
            "center": layout.center,
        },
        "values": dict(ts.points),
        "bingo_tiles": 7,
        "bingo_bonus": 50,
        "stock": dict(sorted(stock.items())) if stock is not None else None,
        # Intégral sur rangée: each move takes the next letters of the row, in order
        "row": pz.row if fam.supply is Supply.ROW else "",
        # the consonant variants: the letters every group is completed from
        "pool": pz.pool,
        # Superscrabble (and the answers of an incomplet): the 7 letters each scrabble uses
        "rack": pz.rack if (fam.answers_only or fam.construction_then_answers) else "",
        # In Superscrabble every scrabble is placed on the same given grid.
        "accumulate": not fam.answers_only,
        "groups": _board_groups(pz),
        "header": _sheet_header(pz, code),
        # Anticipation: move 1 may be two words, group 1 first, both numbered 1 (RULES §6.1).
        "first_move_two_words": fam.anticipation,
        "pass_allowed": fam.anticipation,
        # Superscrabble incomplet: the construction, then the answers on the grid built
        "answers": fam.construction_then_answers,
        "moves": board_moves(pz, text),
    }


def _board_groups(pz: PuzzleProblem) -> list[str]:
    if pz.game.family.blind:
        # each player composes his own groups (his ``Groupes:`` line): numbers only
        return [""] * AVEUGLE_GROUP_COUNT
    return list(pz.groups) if pz.game.family.supply is Supply.GROUPS else []


def board_moves(pz: PuzzleProblem, text: str) -> list[dict[str, Any]]:
    """The moves of ``text`` as the board replays them: number, group, reference, word,
    pass, annulled moves (Superscrabble: the answers)."""
    if not text.strip():
        return []

    answers_only = pz.game.family.answers_only  # Superscrabble
    parsed = parse_feuille(text, superscrabble=answers_only).feuille
    if answers_only:
        lines = [(m, False) for m in parsed.scrabbles]
    else:
        lines = [(m, False) for m in parsed.moves] + [(m, True) for m in parsed.scrabbles]
    out: list[dict[str, Any]] = []
    for m, answer in lines:
        if not m.passed and not (m.ref and m.word):
            continue
        out.append({"number": m.number, "group": m.group, "ref": m.ref, "word": m.word,
                    "passed": m.passed, "annul": list(m.annul), "score": m.score,
                    "answer": answer})
    return out


def _sheet_header(pz: PuzzleProblem, code: str | None) -> list[str]:
    """Header lines the board writes above the moves (puzzles.feuille reads them)."""
    lines = [f"Problème: {code}"] if code else []
    if pz.game.family.supply is Supply.ROW:
        lines.append(f"Rangée: {pz.row}")  # the copied row heads a rangée sheet (RULES §7.3)
    if pz.game.family.answers_only:
        lines.append("Scrabbles:")
    return lines


def css_string(text: str) -> Markup:
    """``text`` as a quoted CSS string (for ``content:`` in a page's own style block): every
    character but letters, digits, spaces and a few safe marks is a CSS hex escape."""
    safe = {" ", ".", ",", "°", "-", "_"}
    out = "".join(c if c.isalnum() or c in safe else f"\\{ord(c):x} " for c in text)
    return Markup(f'"{out}"')


def register_template_helpers(bp: Blueprint) -> None:
    bp.add_app_template_filter(css_string, "css_string")
    bp.add_app_template_filter(iso_utc, "iso_utc")
    bp.add_app_template_filter(remaining, "remaining")
    bp.add_app_template_filter(status_fr, "status_fr")
    bp.add_app_template_filter(from_iso, "from_iso")
    bp.add_app_template_filter(game_label, "game_label")
    bp.add_app_template_filter(grid_svg, "grid_svg")
    bp.add_app_template_filter(live_window, "live_window")
    bp.add_app_template_filter(numfmt.percent, "pourcent")

    @bp.app_context_processor
    def _now() -> dict[str, Any]:
        return {"server_now": clock.now()}
