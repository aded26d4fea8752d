"""Translating a Jinja template's literal ``_('texte')`` calls once, when it is compiled.

This module owns :class:`TranslatedCalls`, the tree transformer that both the mails'
environment (:mod:`mailer.compose`) and the pages' (:class:`webapp.i18n.PageEnvironment`)
apply to each template in one language. It imports Jinja and MarkupSafe alone, so that
the web package can use it without importing :mod:`mailer.compose` (which reads the
services' phrasebook: a loop through ``webapp/__init__``).
"""

from __future__ import annotations

from typing import Any

from jinja2 import nodes
from jinja2.visitor import NodeTransformer
from markupsafe import Markup


class TranslatedCalls(NodeTransformer):
    """A template's ``_('texte')`` calls with a literal text, translated once when the
    template is compiled instead of at every render (a receipt makes some thirty-five).

    What the i18n extension's ``_`` (newstyle gettext) returns at a render is
    ``rv % variables``, where ``rv`` is the catalogue's text — ``Markup(rv)`` in an
    autoescaping environment — and ``variables`` the call's keyword arguments. The same
    expression is written here in the template's tree: ``Const(rv % {})`` (marked safe when
    autoescaping) for a call without arguments, ``Markup(rv) % {...}`` / ``rv % {...}`` with
    the arguments evaluated at render time, as before. ``rv`` is a function of the text and
    the environment's language alone. A call of any other shape (a text that is not a
    literal, positional or ``*``/``**`` arguments), or whose constant text would raise, is
    left as it was. (``_`` is the extension's global: no context of :func:`render` names a
    variable ``_``.) The pages' environment (:class:`webapp.i18n.PageEnvironment`) compiles
    its templates once per language with the same transformer."""

    def __init__(self, gettext: Any, autoescape: bool) -> None:
        self.gettext = gettext
        self.autoescape = autoescape

    def visit_Call(self, call: nodes.Call) -> nodes.Node:  # noqa: N802 (the visitor's names)
        node = self.generic_visit(call)
        if not isinstance(node, nodes.Call):
            return node
        callee, args = node.node, node.args
        if not (isinstance(callee, nodes.Name) and callee.name == "_" and callee.ctx == "load"
                and len(args) == 1 and isinstance(args[0], nodes.Const)
                and isinstance(args[0].value, str)
                and node.dyn_args is None and node.dyn_kwargs is None):
            return node
        rv: str = self.gettext(args[0].value)
        text: nodes.Expr = nodes.Const(rv, lineno=node.lineno)
        if self.autoescape:
            text = nodes.MarkSafe(text, lineno=node.lineno)
        if not node.kwargs:
            try:
                done = (Markup(rv) if self.autoescape else rv) % {}
            except (TypeError, ValueError, KeyError):  # raises at render time, as before
                return node
            const: nodes.Expr = nodes.Const(done, lineno=node.lineno)
            return nodes.MarkSafe(const, lineno=node.lineno) if self.autoescape else const
        variables = nodes.Dict([nodes.Pair(nodes.Const(kw.key, lineno=kw.lineno), kw.value,
                                           lineno=kw.lineno) for kw in node.kwargs],
                               lineno=node.lineno)
        return nodes.Mod(text, variables, lineno=node.lineno)
