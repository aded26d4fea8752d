"""Views do not query (docs/ARCHITECTURE.md, issue 11 item 2): a module under webapp/views
reads the request, calls a service of webapp/services and renders a template. Read from the
code with ``ast``: no view imports ``select`` (from sqlmodel or SQLAlchemy, or uses
``sqlalchemy.select``), none calls ``.exec(`` / ``.execute(`` / ``.scalar(`` /
``.scalars(`` on a session, and none loads a row by id itself (``.get(`` / ``.get_one(`` on a
session, or with a model as its first argument: ``s.get(Problem, 1)``): a row by id is
``webapp.services.rows`` (a missing one raises its ``NotFound``, the 404 page). (Every view
was moved to the services before this test was written: there is no exception to keep.)
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
VIEWS = ROOT / "webapp" / "views"

QUERY_METHODS = {"exec", "execute", "scalar", "scalars"}
QUERY_MODULES = {"sqlmodel", "sqlalchemy", "sqlalchemy.sql", "sqlalchemy.future"}
#: a session's row-by-id methods
GET_METHODS = {"get", "get_one"}
#: what opens a session in a view (``with _session() as s``, ``s = read_session()``)
SESSION_OPENERS = {"_session", "session_scope", "read_session", "Session"}


def _callee(func: ast.expr) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def session_names(tree: ast.AST) -> set[str]:
    """The names a module gives its sessions: ``session``, a name bound by ``with
    <opener>() as name`` or ``name = <opener>()``, a parameter annotated ``Session``."""
    names = {"session", "db_session"}
    for node in ast.walk(tree):
        if isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if (isinstance(item.context_expr, ast.Call)
                        and _callee(item.context_expr.func) in SESSION_OPENERS
                        and isinstance(item.optional_vars, ast.Name)):
                    names.add(item.optional_vars.id)
        elif (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
              and _callee(node.value.func) in SESSION_OPENERS):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                if arg.annotation is not None and "Session" in ast.unparse(arg.annotation):
                    names.add(arg.arg)
    return names


def _is_model(node: ast.expr) -> bool:
    """A CapWords name (``Problem``), not a CONSTANT: the model a ``.get(`` loads."""
    return isinstance(node, ast.Name) and node.id[0].isupper() and not node.id.isupper()


def _is_session(node: ast.expr, sessions: set[str]) -> bool:
    if isinstance(node, ast.Name):
        return node.id in sessions
    return isinstance(node, ast.Attribute) and node.attr in {"session", "db_session"}


def queries(path: Path) -> list[str]:
    """What in ``path`` is a query: ``select`` imported or called through a module, session
    query methods called, a row loaded by id; each as ``line: what``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    sessions = session_names(tree)
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "") in QUERY_MODULES:
            for alias in node.names:
                if alias.name == "select":
                    found.append(f"{node.lineno}: from {node.module} import select")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            name = node.func.attr
            by_id = name in GET_METHODS and (
                _is_session(node.func.value, sessions)
                or bool(node.args and _is_model(node.args[0])))
            if name in QUERY_METHODS or by_id:
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
        "    services.problems.front_page(s)\n"
        "    with _session() as db:\n"
        "        db.get(Problem, 1)\n"
        "        rows.problem(db, 1)\n"
        "    with session_scope() as t:\n"
        "        t.get_one(Player, 2)\n"
        "        anything.get(Competition, 3)\n"
        "        request.args.get('page', 1, type=int)\n"
        "        names.get(actor, actor)\n"
        "        form.get(FIELD)\n"
        "    s.get(Submission, 4)\n"
        "    g.session.get(Appeal, 5)\n",
        encoding="utf-8",
    )
    assert queries(view) == [
        "2: from sqlmodel import select",
        "4: .exec(",
        "5: .execute(",
        "5: sa.select(",
        "6: .scalars(",
        "9: .get(",
        "12: .get_one(",
        "13: .get(",
        "17: .get(",
        "18: .get(",
    ]
