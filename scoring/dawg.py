"""The compiled word list: a minimal DAWG (directed acyclic word graph) in one flat array.

A DAWG shares both prefixes and suffixes of the words, so the 405,840 French words fit in a
few hundred thousand 32-bit edges that load with one ``array.frombytes`` call. The same
array is read by the pure-Python move generator and by the C one (``scoring._movegen``).

Layout (format version :data:`FORMAT`), one ``uint32`` per edge::

    bits 0-4   letter, 1 = A … 26 = Z
    bit  5     last edge of its node
    bit  6     the path ending with this edge spells a word
    bits 8-31  index of the first edge of the child node (0: no child)

Edge 0 is a pseudo-edge whose child is the root node. A node is the run of edges from its
first edge to the edge flagged *last*; edges of a node are sorted by letter.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator

FORMAT = 1
LETTER_MASK = 0x1F
LAST = 0x20
ACCEPTS = 0x40
CHILD_SHIFT = 8
_MAX_CHILD = (1 << 24) - 1


def letter_code(ch: str) -> int:
    """``A`` → 1 … ``Z`` → 26."""
    return ord(ch) - 64


def find_edge(edges: array[int], node: int, code: int) -> int:
    """Index of the edge of ``node`` carrying ``code``, or -1. ``node`` 0 has no edges."""
    if node == 0:
        return -1
    i = node
    while True:
        e = edges[i]
        c = e & LETTER_MASK
        if c == code:
            return i
        if c > code or e & LAST:
            return -1
        i += 1


def node_edges(edges: array[int], node: int) -> list[int]:
    """The edges of ``node`` (none for node 0)."""
    out: list[int] = []
    if node == 0:
        return out
    i = node
    while True:
        e = edges[i]
        out.append(e)
        if e & LAST:
            return out
        i += 1


class _Node:
    # a word's end is marked on the edge into its last letter (``accepts``), not on a node,
    # so two nodes with the same outgoing edges are one node
    __slots__ = ("edges", "accepts")

    def __init__(self) -> None:
        self.edges: dict[int, _Node] = {}
        self.accepts: set[int] = set()


class Dawg:
    """Read-only view of the flat edge array."""

    __slots__ = ("edges",)

    def __init__(self, edges: array[int]) -> None:
        if edges.typecode != "I" or edges.itemsize != 4:
            raise ValueError("a DAWG is an array('I') of 32-bit edges")
        self.edges = edges

    @classmethod
    def build(cls, sorted_words: Iterable[str]) -> Dawg:
        """Build from words in strictly increasing order (uppercase A–Z), with Daciuk's
        incremental algorithm: each finished suffix is merged into an equal one already seen,
        so the graph is minimal without ever holding the whole trie."""
        root = _Node()
        register: dict[tuple[tuple[int, bool, int], ...], _Node] = {}
        unchecked: list[tuple[_Node, int, _Node]] = []
        previous = ""

        def minimize(down_to: int) -> None:
            while len(unchecked) > down_to:
                parent, code, child = unchecked.pop()
                key = tuple((c, c in child.accepts, id(n)) for c, n in child.edges.items())
                same = register.get(key)
                if same is None:
                    register[key] = child
                else:
                    parent.edges[code] = same

        for word in sorted_words:
            if word <= previous:
                raise ValueError(f"words must be sorted and unique: {previous!r} then {word!r}")
            common = 0
            limit = min(len(word), len(previous))
            while common < limit and word[common] == previous[common]:
                common += 1
            minimize(common)
            node = unchecked[-1][2] if unchecked else root
            for ch in word[common:]:
                child = _Node()
                code = letter_code(ch)
                node.edges[code] = child
                unchecked.append((node, code, child))
                node = child
            last_parent, last_code, _ = unchecked[-1]
            last_parent.accepts.add(last_code)
            previous = word
        minimize(0)
        return cls(_flatten(root))

    # --- reading -------------------------------------------------------------------------
    @property
    def root(self) -> int:
        return self.edges[0] >> CHILD_SHIFT

    def child(self, node: int, code: int) -> int:
        """Index of the edge of ``node`` carrying ``code``, or -1."""
        return find_edge(self.edges, node, code)

    def __contains__(self, word: object) -> bool:
        if not isinstance(word, str) or not word:
            return False
        node = self.root
        edge = -1
        for ch in word:
            edge = self.child(node, ord(ch) - 64)
            if edge < 0:
                return False
            node = self.edges[edge] >> CHILD_SHIFT
        return bool(self.edges[edge] & ACCEPTS)

    def words(self) -> Iterator[str]:
        """Every word, in alphabetical order."""
        edges = self.edges

        def walk(node: int, prefix: str) -> Iterator[str]:
            i = node
            while node:
                e = edges[i]
                text = prefix + chr(64 + (e & LETTER_MASK))
                if e & ACCEPTS:
                    yield text
                if e >> CHILD_SHIFT:
                    yield from walk(e >> CHILD_SHIFT, text)
                if e & LAST:
                    break
                i += 1

        return walk(self.root, "")

    def __len__(self) -> int:
        return len(self.edges)


def _flatten(root: _Node) -> array[int]:
    """Lay the nodes out in breadth-first order, one run of edges per node."""
    edges = array("I", [0])
    position: dict[int, int] = {}
    order: list[_Node] = []
    if root.edges:
        position[id(root)] = 1
        order.append(root)
        size = 1 + len(root.edges)
    else:
        size = 1
    i = 0
    while i < len(order):
        node = order[i]
        i += 1
        for child in node.edges.values():
            if child.edges and id(child) not in position:
                position[id(child)] = size
                size += len(child.edges)
                order.append(child)
    if size > _MAX_CHILD:
        raise ValueError("word list too large for the 24-bit DAWG format")
    for node in order:
        items = list(node.edges.items())
        for k, (code, child) in enumerate(items):
            value = code
            if k == len(items) - 1:
                value |= LAST
            if code in node.accepts:
                value |= ACCEPTS
            if child.edges:
                value |= position[id(child)] << CHILD_SHIFT
            edges.append(value)
    edges[0] = (position[id(root)] << CHILD_SHIFT) if root.edges else 0
    return edges
