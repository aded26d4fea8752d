"""The board as an SVG picture: premium squares coloured, tiles with their points, jokers
circled, rows labelled A–O and columns 1–15.

A function of a :class:`scoring.board.Board` and a layout — no database — so pages, e-mails
and tests can all draw the same grid; the premium squares' labels and names go through
Flask-Babel's ``gettext`` (the reader's language in a request, the French source outside
one). Every piece of text that goes into the SVG is escaped, even though a board only ever
holds letters: the picture is inlined in HTML pages and a bad cell must never become markup.
"""

from __future__ import annotations

from collections.abc import Collection
from html import escape

from flask_babel import gettext  # type: ignore[import-untyped]

from scoring.board import Board
from scoring.errors import UnknownLetterError
from scoring.layout import SIZE, STANDARD_LAYOUT, BoardLayout
from scoring.notation import ROWS, square_name
from scoring.tiles import TileSet
from webapp.services.phrasebook import N_

CELL = 32
MARGIN = 22

# Colours of the French paper board: red triple word, pink double word, dark blue triple
# letter, light blue double letter.
PREMIUM_STYLE: dict[tuple[int, int], tuple[str, str, str]] = {
    # (letter_mult, word_mult): (css class, fill, short French label)
    (1, 3): ("mt", "#d6453d", N_("MT")),
    (1, 2): ("md", "#f3a7b5", N_("MD")),
    (3, 1): ("lt", "#2f6db5", N_("LT")),
    (2, 1): ("ld", "#a9d7f2", N_("LD")),
}
#: the squares' names in their <title>; both these and the short labels are catalogue msgids,
#: translated when the board is drawn (the Romanian page: CT, CD, « cuvânt triplu »…), the
#: same texts as the interactive board's (static/js/board.js, board-messages)
PREMIUM_NAMES = {
    "mt": N_("mot compte triple"),
    "md": N_("mot compte double"),
    "lt": N_("lettre compte triple"),
    "ld": N_("lettre compte double"),
}
PLAIN_FILL = "#dfe9d8"
TILE_FILL = "#f7e6b0"
JOKER_FILL = "#fff7dd"
ZERO_FILL = "#f4c7c3"
HIGHLIGHT = "#e07b00"


def premium_class(layout: BoardLayout, square: int) -> str:
    """``mt``, ``md``, ``lt``, ``ld`` or ``""`` for a plain square."""
    style = PREMIUM_STYLE.get((layout.letter_mult[square], layout.word_mult[square]))
    return style[0] if style else ""


def board_svg(
    board: Board,
    layout: BoardLayout = STANDARD_LAYOUT,
    *,
    tileset: TileSet | None = None,
    highlight: Collection[int] = (),
    zeroed: Collection[int] = (),
    title: str = "Grille",
    cell: int = CELL,
    css_class: str = "board-svg",
) -> str:
    """An inline ``<svg>`` of ``board``.

    ``highlight``: squares drawn with an outline (the tiles of the move being shown).
    ``zeroed``: tiles of moves scored zero — they stay on the player's grid (RULES §5.2) but
    are tinted so the replay shows what no longer counts.
    ``tileset``: when given, each tile shows its points (0 for a joker).
    """
    size = MARGIN + SIZE * cell + 2
    font = cell * 0.56
    small = cell * 0.26
    hl = set(highlight)
    zero = set(zeroed)
    out: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="{escape(css_class)}" '
        f'viewBox="0 0 {size} {size}" role="img" aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
        f'<rect x="0" y="0" width="{size}" height="{size}" fill="#ffffff"/>',
    ]
    for c in range(SIZE):
        x = MARGIN + c * cell + cell / 2
        out.append(
            f'<text class="coord" x="{x:g}" y="{MARGIN - 6}" text-anchor="middle" '
            f'font-size="{small * 1.5:g}" fill="#444">{c + 1}</text>'
        )
    for r in range(SIZE):
        y = MARGIN + r * cell + cell / 2 + small * 0.55
        out.append(
            f'<text class="coord" x="{MARGIN / 2:g}" y="{y:g}" text-anchor="middle" '
            f'font-size="{small * 1.5:g}" fill="#444">{ROWS[r]}</text>'
        )
    for sq in range(SIZE * SIZE):
        r, c = divmod(sq, SIZE)
        x, y = MARGIN + c * cell, MARGIN + r * cell
        content = board[sq]
        pclass = premium_class(layout, sq)
        style = PREMIUM_STYLE.get((layout.letter_mult[sq], layout.word_mult[sq]))
        fill = style[1] if style else PLAIN_FILL
        name = square_name(sq)
        out.append(
            f'<rect class="sq {pclass}" data-sq="{sq}" x="{x}" y="{y}" width="{cell}" '
            f'height="{cell}" fill="{fill}" stroke="#ffffff" stroke-width="1">'
            f"<title>{name}{' — ' + gettext(PREMIUM_NAMES[pclass]) if pclass else ''}</title>"
            "</rect>"
        )
        cx, cy = x + cell / 2, y + cell / 2
        if not content:
            if sq == layout.center:
                out.append(
                    f'<text x="{cx:g}" y="{cy + font * 0.36:g}" text-anchor="middle" '
                    f'font-size="{font:g}" fill="#7a2b3a" aria-hidden="true">★</text>'
                )
            elif style:
                ink = "#ffffff" if pclass in ("mt", "lt") else "#2a2a2a"
                out.append(
                    f'<text x="{cx:g}" y="{cy + small * 0.38:g}" text-anchor="middle" '
                    f'font-size="{small:g}" fill="{ink}" aria-hidden="true">'
                    f"{gettext(style[2])}</text>"
                )
            continue
        joker = content.islower()
        letter = escape(content.upper())
        stroke = HIGHLIGHT if sq in hl else "#9b8447"
        width = 2.5 if sq in hl else 1
        kind = "tile joker" if joker else "tile"
        fill = ZERO_FILL if sq in zero else JOKER_FILL if joker else TILE_FILL
        out.append(
            f'<g class="{kind}{" new" if sq in hl else ""}{" zero" if sq in zero else ""}" '
            f'data-sq="{sq}">'
            f'<rect x="{x + 1.5:g}" y="{y + 1.5:g}" width="{cell - 3}" height="{cell - 3}" '
            f'rx="3" fill="{fill}" stroke="{stroke}" stroke-width="{width}"/>'
        )
        if joker:
            # On paper the joker's letter is circled (FISF 4.1); do the same here.
            out.append(
                f'<circle cx="{cx:g}" cy="{cy:g}" r="{cell * 0.36:g}" fill="none" '
                f'stroke="#b0302a" stroke-width="1.4"/>'
            )
        out.append(
            f'<text x="{cx:g}" y="{cy + font * 0.36:g}" text-anchor="middle" '
            f'font-size="{font:g}" font-weight="700" fill="#222">{letter}</text>'
        )
        if tileset is not None:
            try:
                pts = tileset.value(content)
            except UnknownLetterError:  # a letter foreign to this set still draws, without points
                pts = 0
            out.append(
                f'<text x="{x + cell - 4:g}" y="{y + cell - 4:g}" text-anchor="end" '
                f'font-size="{small:g}" fill="#333">{pts}</text>'
            )
        out.append(
            f"<title>{name} : {letter}{' (joker)' if joker else ''}</title></g>"
        )
    out.append("</svg>")
    return "".join(out)
