"""No code tests a round game's variant outside the game modules (issue 21): a page, a
service, a mail or the command line asks the game (``puzzles.duplicate.registry.round_game``)
for its facts and operations instead of chaining ``if game.variant == …``.

Read from the code with ``ast`` (and the Jinja templates with a pattern): anywhere in
``scoring``, ``puzzles``, ``webapp`` and ``mailer`` except :data:`GAME_MODULES`, a *variant
test* is

- a comparison (``==``, ``!=``, ``in``, ``not in``, ``is``) with a variant on either side: an
  attribute or name ``variant``, a ``DuplicateVariant.X`` member, the old tables
  ``SUPERSCRABBLE`` / ``FREE_VARIANTS`` / ``SERVER_VARIANTS``, or one of these through
  ``str(…)``;
- a variant taken as a truth value (``if game.variant:``, ``not variant``, ``x if variant
  else y``, ``variant and …``) or matched (``match game.variant:``);
- a fact table looked up by variant (``TABLE[game.variant]``, ``TABLE.get(game.variant)``);
- a call of ``is_free(…)`` (the letter-choice games' test);
- in a template, ``variant ==``, ``variant !=``, ``variant in``, ``variant not in``,
  ``if [not] ….variant`` or ``.get(….variant``.

Asking the registry (``round_game(game.variant)``) and turning a form's string into its
member (``DuplicateVariant(text)``) are no tests. :data:`EXPECTED` is the number still
allowed: 0.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("scoring", "puzzles", "webapp", "mailer")
TEMPLATES = (ROOT / "webapp" / "templates", ROOT / "mailer" / "templates")

#: where a game may test its own variant: the game modules of the round games, and the
#: family's protocol and registry (``GameSettings`` reads a game's key into its
#: ``VariantSettings.variant``)
GAME_MODULES = ("puzzles/duplicate/games/", "puzzles/duplicate/protocol.py",
                "puzzles/duplicate/registry.py")

#: the variant branches allowed outside the game modules: none (82 before issue 21; the
#: rules page, the letters drawn and chosen and the GAME.json check are the games' now)
EXPECTED = 0

#: the old variant tables and constants (a bare name, or a module's: ``duplicate.FREE_VARIANTS``)
OLD_TABLES = {"SUPERSCRABBLE", "FREE_VARIANTS", "SERVER_VARIANTS"}
#: calls that only carry a variant through: ``str(game.variant)``, ``DuplicateVariant(x)``
TRANSPARENT_CALLS = {"str", "DuplicateVariant"}
TEMPLATE_TEST = re.compile(
    r"variant\s*(?:==|!=|not\s+in\b|in\b)|\bif\s+(?:not\s+)?[\w.]*variant\s*(?:%}|and|or)"
    r"|\.get\(\s*[\w.]*variant\b")
JINJA_BLOCK = re.compile(r"{%.*?%}|{{.*?}}", re.DOTALL)


def names_variant(node: ast.expr) -> bool:
    """``node`` is a variant (or a few): ``game.variant``, ``variant``, ``DuplicateVariant.X``,
    an old variant table, a tuple of such, ``str(…)`` of one."""
    if isinstance(node, ast.Attribute):
        if node.attr == "variant":
            return True
        owner = node.value.id if isinstance(node.value, ast.Name) else ""
        return owner == "DuplicateVariant" or (node.attr in OLD_TABLES and owner.islower())
    if isinstance(node, ast.Name):
        return node.id == "variant" or node.id in OLD_TABLES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(names_variant(e) for e in node.elts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in TRANSPARENT_CALLS:
        return any(names_variant(a) for a in node.args)
    return False


def _truth_tests(node: ast.AST) -> list[ast.expr]:
    """The expressions ``node`` takes as a truth value."""
    if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
        return [node.test]
    if isinstance(node, ast.BoolOp):
        return list(node.values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return [node.operand]
    if isinstance(node, ast.comprehension):
        return list(node.ifs)
    return []


def branches(source: str, filename: str) -> list[str]:
    """Every variant test of a Python module, as ``line: code``."""
    tree = ast.parse(source, filename)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        hit: ast.AST | None = None
        if isinstance(node, ast.Compare):
            if any(names_variant(x) for x in [node.left, *node.comparators]):
                hit = node
        elif isinstance(node, ast.Match) and names_variant(node.subject):
            hit = node.subject
        elif isinstance(node, ast.Subscript) and names_variant(node.slice):
            hit = node
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else (
                func.id if isinstance(func, ast.Name) else "")
            if name == "is_free" or (name == "get" and isinstance(func, ast.Attribute)
                                     and node.args and names_variant(node.args[0])):
                hit = node
        for test in _truth_tests(node):
            if names_variant(test):
                hit = test
        if hit is not None:
            found.append((getattr(hit, "lineno", 0), ast.unparse(hit)))
    return [f"{line}: {code}" for line, code in sorted(set(found))]


def template_branches(text: str) -> list[str]:
    """Every variant test in a Jinja template's blocks, as ``line: block``."""
    out = []
    for block in JINJA_BLOCK.finditer(text):
        if TEMPLATE_TEST.search(block.group()):
            line = text.count("\n", 0, block.start()) + 1
            out.append(f"{line}: {' '.join(block.group().split())[:120]}")
    return out


def _allowed(rel: str) -> bool:
    return any(rel.startswith(m) for m in GAME_MODULES)


def variant_branches() -> list[str]:
    """Every variant test outside :data:`GAME_MODULES`, as ``path:line: code``."""
    out: list[str] = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if _allowed(rel):
                continue
            out += [f"{rel}:{b}" for b in branches(path.read_text(encoding="utf-8"), rel)]
    for folder in TEMPLATES:
        for path in sorted(folder.rglob("*")):
            if path.suffix in (".html", ".txt", ".jinja", ".j2"):
                rel = path.relative_to(ROOT).as_posix()
                out += [f"{rel}:{b}" for b in template_branches(path.read_text("utf-8"))]
    return out


def test_no_variant_branch_outside_the_game_modules() -> None:
    found = variant_branches()
    assert len(found) == EXPECTED, (
        f"{len(found)} variant test(s) outside {', '.join(GAME_MODULES)} (ask the game: "
        "puzzles.duplicate.registry.round_game(game.variant)):\n" + "\n".join(found))


def test_the_detector_sees_each_form_of_variant_test() -> None:
    """Each form the module docstring lists is found, and asking the registry is not."""
    code = "\n".join([
        "if game.variant == DuplicateVariant.TOP: pass",           # 1
        "if variant in FREE_VARIANTS: pass",                       # 2
        "x = DuplicateVariant.TACTIQUE != v",                      # 3
        "if game.variant: pass",                                   # 4
        "y = a if not variant else b",                             # 5
        "z = RULES.get(game.variant)",                             # 6
        "w = RULES[str(game.variant)]",                            # 7
        "if is_free(game): pass",                                  # 8
        "match game.variant:\n    case _: pass",                   # 9
        "g = round_game(game.variant)",                            # 11: no test
        "if round_game(game.variant).shows_stock: pass",           # 12: no test
        "k = DuplicateVariant(form_value)",                        # 13: no test
    ])
    lines = [int(b.split(":")[0]) for b in branches(code, "example.py")]
    assert lines == [1, 2, 3, 4, 5, 6, 7, 8, 9]
    template = ("{% if game.variant == 'top' %}a{% endif %}\n"
                "{% if game.variant not in ('top',) %}b{% endif %}\n"
                "{{ dict(variants).get(g.variant, 'Duplicate') }}\n"
                "{% if facts.shows_stock %}c{% endif %}\n")
    assert [int(b.split(":")[0]) for b in template_branches(template)] == [1, 2, 3]
