"""``webapp.board_svg``: the grid picture every page uses. Premium counts are those of
RULES §1.3 (8 TW, 17 DW with the centre, 12 TL, 24 DL [E4]); positions from the same table."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from scoring.board import Board
from scoring.tiles import french
from webapp.board_svg import board_svg

NS = "{http://www.w3.org/2000/svg}"


def squares(svg: str) -> dict[int, str]:
    """square -> premium class, read back from the SVG."""
    root = ET.fromstring(svg)
    out = {}
    for rect in root.iter(f"{NS}rect"):
        cls = rect.get("class", "")
        if cls.startswith("sq"):
            out[int(rect.get("data-sq", "-1"))] = cls[3:].strip()
    return out


def test_grid_premiums_and_coordinates() -> None:
    svg = board_svg(Board())
    sq = squares(svg)
    assert len(sq) == 225
    counts = {k: list(sq.values()).count(k) for k in ("mt", "md", "lt", "ld", "")}
    assert counts == {"mt": 8, "md": 17, "lt": 12, "ld": 24, "": 164}
    # A1 and O15 triple word, H8 (centre) double word, B6 triple letter, A4 double letter
    assert (sq[0], sq[224], sq[112], sq[1 * 15 + 5], sq[3]) == ("mt", "mt", "md", "lt", "ld")
    root = ET.fromstring(svg)
    labels = [t.text for t in root.iter(f"{NS}text") if t.get("class") == "coord"]
    assert labels == [str(n) for n in range(1, 16)] + list("ABCDEFGHIJKLMNO")
    assert "★" in svg


def test_tiles_points_jokers_highlight_and_zeroed() -> None:
    b = Board.from_cgp("15/15/15/15/15/15/15/7FIChERA1/15/15/15/15/15/15/15")
    svg = board_svg(b, tileset=french(), highlight=range(112, 119), zeroed={118},
                    title="Après le coup 1")
    root = ET.fromstring(svg)
    tiles = [g for g in root.iter(f"{NS}g") if "tile" in g.get("class", "")]
    assert [int(g.get("data-sq", "0")) for g in tiles] == list(range(112, 119))
    joker = [g for g in tiles if "joker" in g.get("class", "")]
    assert [int(g.get("data-sq", "0")) for g in joker] == [115]
    assert len(list(joker[0].iter(f"{NS}circle"))) == 1  # circled, as on paper
    assert all("new" in g.get("class", "") for g in tiles)
    assert [int(g.get("data-sq", "0")) for g in tiles if "zero" in g.get("class", "")] == [118]
    # points: F 4, I 1, C 3, joker 0
    pts = [[t.text for t in g.iter(f"{NS}text")][-1] for g in tiles]
    assert pts == ["4", "1", "3", "0", "1", "1", "1"]
    assert "<title>Après le coup 1</title>" in svg


def test_text_is_escaped() -> None:
    svg = board_svg(Board(), title="<script>alert(1)</script>", css_class='x" onload="y')
    assert "<script>" not in svg and "&lt;script&gt;" in svg
    assert 'onload="y"' not in svg
    ET.fromstring(svg)  # still well-formed XML
    assert re.search(r'class="x&quot; onload=&quot;y"', svg)
