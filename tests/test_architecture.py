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


# --- every module imports first --------------------------------------------------------------
#
# house_imports.py sees the import arrows, not the order Python runs them in: a loop through a
# package's __init__ (mailer.outbox → webapp.db → webapp → webapp.commands → webapp.paths →
# mailer.outbox, fixed in 809312a) only fails when one module of it is the first one imported.
# So every module is imported first, each in a process where no module of the project is
# loaded yet.
#
# One interpreter per module took two minutes on this machine, most of it loading Flask and
# SQLAlchemy again and again. So one fresh interpreter (a subprocess) loads the libraries the
# project uses — the third-party modules a first child finds after importing every project
# module —, checks that no project module came with them, then forks one child per module
# (WORKERS at a time); each child imports its module first and reports how it went. The
# libraries are not part of any loop of the project's: having them loaded does not change the
# order the project's own modules run in.

#: the packages whose every module must import first
PACKAGES = ("scoring", "puzzles", "webapp", "mailer")
#: children at a time (the machine has two cores)
WORKERS = 3
#: seconds the whole run may take (a loaded machine)
RUN_TIMEOUT = 600

IMPORT_FIRST = r"""
import importlib, os, sys, traceback

workers, packages, names = int(sys.argv[1]), tuple(sys.argv[2].split(",")), sys.argv[3:]


def ours(module):
    return module.split(".")[0] in packages


def fork(job):
    # a child: runs job(), its text through a pipe; the parent gets (pid, reader)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            text, code = job(), 0
        except BaseException:
            text, code = traceback.format_exc(), 1
        os.write(w, text.encode("utf-8", "replace"))
        os._exit(code)
    os.close(w)
    return pid, r


def answer(pid, r):
    with os.fdopen(r, "rb") as f:
        text = f.read().decode("utf-8", "replace")
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), text


def every_library():
    for name in names:
        try:
            importlib.import_module(name)
        except BaseException:
            pass
    return "\n".join(m for m in sorted(sys.modules) if not ours(m) and m != "__main__")


code, libraries = answer(*fork(every_library))
for lib in libraries.split():
    try:
        importlib.import_module(lib)
    except BaseException:
        pass
early = sorted(m for m in sys.modules if ours(m))
if early:
    sys.exit("project modules loaded with the libraries: " + " ".join(early))


def first(name):
    def job():
        assert not [m for m in sys.modules if ours(m)], "not first"
        importlib.import_module(name)
        return ""
    return job


running, failed = {}, []
todo = list(names)
while todo or running:
    while todo and len(running) < workers:
        name = todo.pop(0)
        pid, r = fork(first(name))
        running[pid] = (name, r)
    pid, _ = os.wait()  # some child ended: read it and let a new one start
    name, r = running.pop(pid)
    with os.fdopen(r, "rb") as f:
        text = f.read().decode("utf-8", "replace")
    if text.strip():
        failed.append(name + ":\n    " + "\n    ".join(text.strip().splitlines()[-4:]))
print("\n".join(failed))
print(f"checked {len(names)} modules")
"""


def project_modules(root: Path = ROOT) -> list[str]:
    """Every module of :data:`PACKAGES` under ``root`` by its dotted name (a package by its
    own name, its ``__init__``); ``__main__`` modules are scripts, not imported."""
    names = []
    for pkg in PACKAGES:
        for path in sorted((root / pkg).rglob("*.py")):
            rel = path.relative_to(root)
            if {"templates", "static"} & set(rel.parts) or rel.stem == "__main__":
                continue
            parts = list(rel.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            names.append(".".join(parts))
    return names


def modules_failing_first(root: Path = ROOT) -> list[str]:
    """The modules under ``root`` that fail when imported first, each with the last lines
    of its error (the project imported from ``root``: it is the interpreter's first path)."""
    import subprocess
    import sys

    names = project_modules(root)
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_FIRST, str(WORKERS), ",".join(PACKAGES), *names],
        cwd=root, capture_output=True, text=True, timeout=RUN_TIMEOUT, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.rstrip("\n").split("\n")
    assert lines[-1] == f"checked {len(names)} modules", done.stdout
    return _blocks(lines[:-1])


def _blocks(lines: list[str]) -> list[str]:
    """One entry per failing module: its name line and the indented error lines under it."""
    blocks: list[str] = []
    for line in lines:
        if line.startswith("    ") and blocks:
            blocks[-1] += "\n" + line
        elif line:
            blocks.append(line)
    return blocks


def test_project_modules_lists_every_package() -> None:
    names = project_modules()
    # a package by its name, a module by its dotted path; a script's __main__ left out
    assert {"scoring", "puzzles", "webapp", "mailer", "mailer.outbox", "webapp.services.rows",
            "webapp.views.console.problems"} <= set(names)
    assert not [n for n in names if n.endswith(("__init__", "__main__"))]
    assert len(names) == len(set(names))


def test_every_module_imports_first() -> None:
    failing = modules_failing_first()
    assert failing == [], (
        "these modules fail when imported first (an import loop through a package's "
        "__init__?):\n" + "\n".join(failing))


def test_the_import_first_check_sees_a_loop_through_an_init(tmp_path: Path) -> None:
    """The detector itself, on a small tree with the shape of 809312a's loop: mailer.a needs
    webapp, whose __init__ imports webapp.b, which needs mailer.a's X. Imported first,
    mailer.a fails (X is not defined yet); every other module imports, webapp first then
    mailer.a as a finished module. (On 809312a^ the real tree gave mailer.outbox, txn, imap,
    intake, mailroom and pipeline.)"""
    files = {
        "scoring/__init__.py": "", "puzzles/__init__.py": "", "mailer/__init__.py": "",
        "mailer/a.py": "from webapp import helper\nX = 1\n",
        "webapp/__init__.py": "from webapp import b\n",
        "webapp/b.py": "from mailer.a import X\n",
        "webapp/helper.py": "",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    failing = modules_failing_first(tmp_path)
    assert [block.split(":")[0] for block in failing] == ["mailer.a"], failing
    assert "ImportError: cannot import name 'X' from partially initialized module 'mailer.a'" \
        in failing[0], failing
