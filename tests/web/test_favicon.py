"""The site's icon: every page links the SVG favicon, and a browser asking ``/favicon.ico``
on its own is sent to that same icon instead of a 404 (issue 13, point 7)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from flask.testing import FlaskClient

pytestmark = pytest.mark.db


def test_layout_links_the_svg_favicon(client: FlaskClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    links = re.findall(r'<link rel="icon"[^>]*>', page.get_data(as_text=True))
    assert links == ['<link rel="icon" type="image/svg+xml" href="/static/favicon.svg">']


def test_favicon_ico_redirects_to_the_svg_which_is_served(client: FlaskClient) -> None:
    ico = client.get("/favicon.ico")
    assert ico.status_code == 301
    assert ico.headers["Location"] == "/static/favicon.svg"
    icon = client.get("/static/favicon.svg")
    assert icon.status_code == 200
    assert icon.mimetype == "image/svg+xml"
    root = ET.fromstring(icon.get_data())
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("viewBox") == "0 0 32 32"
    icon.close()


def test_favicon_followed_from_the_ico_path(client: FlaskClient) -> None:
    followed = client.get("/favicon.ico", follow_redirects=True)
    assert followed.status_code == 200
    assert followed.mimetype == "image/svg+xml"
    assert b"<svg" in followed.get_data()
    followed.close()
