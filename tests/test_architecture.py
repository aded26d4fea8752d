"""Views do not query (docs/ARCHITECTURE.md, issue 11 item 2): a module under webapp/views
reads the request, calls a service of webapp/services and renders a template. Read from the
code with ``ast``: no view imports ``select`` (from sqlmodel or SQLAlchemy, or uses
``sqlalchemy.select``), and none calls ``.exec(`` / ``.execute(`` / ``.scalar(`` /
``.scalars(`` on a session. (Every view was moved to the services before this test was
written: there is no exception to keep.)
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VIEWS = ROOT / "webapp" / "views"

QUERY_METHODS = {"exec", "execute", "scalar", "scalars"}
QUERY_MODULES = {"sqlmodel", "sqlalchemy", "sqlalchemy.sql", "sqlalchemy.future"}


def queries(path: Path) -> list[str]:
    """What in ``path`` is a query: ``select`` imported or called through a module, and
    session query methods called; each as ``line: what``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "") in QUERY_MODULES:
            for alias in node.names:
                if alias.name == "select":
                    found.append(f"{node.lineno}: from {node.module} import select")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            name = node.func.attr
            if name in QUERY_METHODS:
                found.append(f"{node.lineno}: .{name}(")
            elif name == "select" and isinstance(node.func.value, ast.Name) and (
                    node.func.value.id in {"sa", "sqlalchemy", "sqlmodel"}):
                found.append(f"{node.lineno}: {node.func.value.id}.select(")
    return sorted(found, key=lambda hit: int(hit.split(":")[0]))  # ast.walk is breadth-first


def querying_views() -> dict[str, list[str]]:
    out = {}
    for path in sorted(VIEWS.rglob("*.py")):
        hits = queries(path)
        if hits:
            out[path.relative_to(VIEWS).as_posix()] = hits
    return out


def test_no_view_queries() -> None:
    views = sorted(p.relative_to(VIEWS).as_posix() for p in VIEWS.rglob("*.py"))
    # the pages the rule covers are there to be read: public, player, people, the Duplicate
    # and correspondence pages and the console's package
    assert {"public.py", "player.py", "people.py", "helpers.py", "duplicate.py",
            "correspondence.py", "console/__init__.py"} <= set(views), views
    found = querying_views()
    assert found == {}, (
        "views must call a service (webapp/services) instead of querying: " + repr(found))


def test_the_check_sees_a_query(tmp_path: Path) -> None:
    """The detector itself: every form it looks for is found, a service call is not."""
    view = tmp_path / "view.py"
    view.write_text(
        "import sqlalchemy as sa\n"
        "from sqlmodel import Session, select\n"
        "def page(s: Session) -> None:\n"
        "    s.exec(select(1)).all()\n"
        "    s.execute(sa.select(1))\n"
        "    s.scalars(1)\n"
        "    services.problems.front_page(s)\n",
        encoding="utf-8",
    )
    assert queries(view) == [
        "2: from sqlmodel import select",
        "4: .exec(",
        "5: .execute(",
        "5: sa.select(",
        "6: .scalars(",
    ]
