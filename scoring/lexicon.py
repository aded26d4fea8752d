"""Lexicons: reading word lists, normalising them to A–Z, their identity, membership, and the
compiled form (:mod:`scoring.dawg`) cached on disk.

Reading (:meth:`Lexicon.load`): a plain text file, UTF-8 or else Latin-1 (Windows-1252 when
it holds bytes 0x80–0x9F, where that code page puts Œ and œ), optionally ``.gz``
or ``.xz``, one word per line; ``#`` starts a comment. Each word is folded to A–Z (accents
stripped, Œ → OE, Æ → AE, uppercase); lines holding anything else, or shorter than 2 or
longer than 15 letters, are rejected and listed with their line number in the
:class:`LoadReport`.

Identity (:class:`LexiconIdentity`): the name, the word count and the SHA-256 of the
normalised list — the sorted unique words, each followed by ``\\n``, encoded in ASCII
(``"AB\\nABACA\\n…ZZZZ\\n"`` for the bundled list). Two files that normalise to the same
words have the same identity whatever their encoding, order or comments.

Compiled cache: ``$ARBITRE_CACHE_DIR`` or ``~/.cache/arbitre``, one file per source keyed by
the SHA-256 of the source file's bytes and :data:`CACHE_FORMAT`. It holds the identity, the
report, the words, the DAWG and, when the compiled core is built, the GADDAG it generates
moves on (``scoring._movegen.gaddag``: built once with the cache, about a second for the
bundled list, then read with the rest and handed to the core on first use,
:meth:`Lexicon.engine_edges`); it is written atomically and rebuilt when corrupt or stale.

The default list is the bundled Dicollecte French list (``scoring/data/fr-comprehensive.txt.xz``,
MPL-2.0); a federation plugs in its licensed ODS or LOC by path or with ``ARBITRE_LEXICON``.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import lzma
import os
import re
import struct
import tempfile
import zlib
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path

from scoring.dawg import FORMAT as DAWG_FORMAT
from scoring.dawg import Dawg
from scoring.errors import LexiconError
from scoring.notation import fold_letter

_c_contains: Callable[[array[int], object], bool] | None
_c_gaddag: Callable[[array[int]], bytes] | None
_c_attach: Callable[[array[int], bytes], None] | None
try:
    from scoring._movegen import attach as _c_attach_impl
    from scoring._movegen import contains as _c_contains_impl
    from scoring._movegen import gaddag as _c_gaddag_impl

    _c_contains = None if os.environ.get("ARBITRE_PURE_PYTHON") == "1" else _c_contains_impl
    _c_gaddag = _c_gaddag_impl
    _c_attach = _c_attach_impl
except ImportError:  # pragma: no cover - the extension is optional
    _c_contains = None
    _c_gaddag = None
    _c_attach = None

MIN_LENGTH = 2
MAX_LENGTH = 15
CACHE_FORMAT = 3
DEFAULT_NAME = "fr-comprehensive"
ENV_LEXICON = "ARBITRE_LEXICON"
ENV_CACHE_DIR = "ARBITRE_CACHE_DIR"

_C1_BYTES = re.compile(rb"[\x80-\x9f]")
_MAGIC = b"ARBLEXC\0"
# magic, cache format, DAWG format, word count, words bytes, edge count, report bytes,
# GADDAG bytes (0: none), GADDAG CRC-32, identity sha256 (hex), sha256 (raw) of the payload
# but the GADDAG (which follows it: checked by its CRC here and its structure in the core)
_HEADER = struct.Struct("<8sIIIIIIII64s32s")


@dataclass(frozen=True)
class LexiconIdentity:
    """What a result records about the list it was judged with."""

    name: str
    sha256: str
    word_count: int


@dataclass(frozen=True)
class RejectedLine:
    """A line of the source that did not give a word."""

    line: int
    text: str
    reason: str

    def __str__(self) -> str:
        return f"ligne {self.line} : « {self.text} » — {self.reason}"


@dataclass
class LoadReport:
    """What loading a word list kept and rejected."""

    source: str = ""
    encoding: str = "utf-8"
    lines: int = 0
    comments: int = 0
    blank: int = 0
    duplicates: int = 0
    by_length: dict[int, int] = field(default_factory=dict)
    rejected: list[RejectedLine] = field(default_factory=list)

    @property
    def accepted(self) -> int:
        """Distinct words kept."""
        return sum(self.by_length.values())

    def to_json(self) -> dict[str, object]:
        return {
            "source": self.source,
            "encoding": self.encoding,
            "lines": self.lines,
            "comments": self.comments,
            "blank": self.blank,
            "duplicates": self.duplicates,
            "by_length": {str(k): v for k, v in sorted(self.by_length.items())},
            "rejected": [[r.line, r.text, r.reason] for r in self.rejected],
        }

    @classmethod
    def from_json(cls, data: dict[str, object]) -> LoadReport:
        by_length = data["by_length"]
        rejected = data["rejected"]
        assert isinstance(by_length, dict) and isinstance(rejected, list)
        return cls(
            str(data["source"]),
            str(data["encoding"]),
            int(str(data["lines"])),
            int(str(data["comments"])),
            int(str(data["blank"])),
            int(str(data["duplicates"])),
            {int(k): int(v) for k, v in by_length.items()},
            [RejectedLine(int(n), str(t), str(r)) for n, t, r in rejected],
        )

    def summary(self) -> str:
        """A few French lines for an organiser."""
        lengths = ", ".join(f"{n} lettres : {c}" for n, c in sorted(self.by_length.items()))
        out = [
            f"{self.source} ({self.encoding}) : {self.lines} lignes, {self.accepted} mots "
            f"retenus, {self.duplicates} doublons, {len(self.rejected)} lignes rejetées.",
            f"Par longueur — {lengths}.",
        ]
        out.extend(str(r) for r in self.rejected[:20])
        if len(self.rejected) > 20:
            out.append(f"… et {len(self.rejected) - 20} autres lignes rejetées.")
        return "\n".join(out)


def normalize_word(text: str) -> tuple[str | None, str]:
    """The A–Z form of one entry, or ``(None, reason)`` in French."""
    s = text.strip()
    if s.isascii() and s.isalpha():
        word = s.upper()
    else:
        word = "".join(fold_letter(c) for c in s).upper()
        for ch in word:
            if not ("A" <= ch <= "Z"):
                shown = "espace" if ch.isspace() else ch
                return None, f"caractère non admis « {shown} »"
    if len(word) < MIN_LENGTH:
        return None, f"mot de {len(word)} lettre (au moins {MIN_LENGTH})"
    if len(word) > MAX_LENGTH:
        return None, f"mot de {len(word)} lettres (au plus {MAX_LENGTH})"
    return word, ""


def decode_source(data: bytes, filename: str = "") -> tuple[str, str]:
    """Decompress (by name: ``.gz``/``.xz``, or by magic bytes) and decode: UTF-8, else
    Latin-1. Returns ``(text, encoding)``."""
    try:
        if filename.endswith(".gz") or data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
        elif filename.endswith(".xz") or data[:6] == b"\xfd7zXZ\x00":
            data = lzma.decompress(data)
    except (OSError, EOFError, lzma.LZMAError) as exc:
        raise LexiconError(
            f"Liste de mots {filename} : fichier compressé illisible ({exc})."
        ) from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    # bytes 0x80-0x9F are control codes in Latin-1 but letters such as Œ/œ in Windows-1252,
    # the usual 8-bit encoding of French lists made on Windows
    if _C1_BYTES.search(data):
        try:
            return data.decode("cp1252"), "cp1252"
        except UnicodeDecodeError:
            pass
    return data.decode("latin-1"), "latin-1"


def parse_word_list(text: str, report: LoadReport) -> list[str]:
    """Sorted unique normalised words of ``text``; fills ``report``."""
    words: set[str] = set()
    lines = text.splitlines()
    report.lines = len(lines)
    for number, raw in enumerate(lines, start=1):
        line = raw.split("#", 1)[0].strip() if "#" in raw else raw.strip()
        if not line:
            if raw.strip():
                report.comments += 1
            else:
                report.blank += 1
            continue
        if line.isascii() and line.isalpha() and MIN_LENGTH <= len(line) <= MAX_LENGTH:
            word = line.upper()
        else:
            folded, reason = normalize_word(line)
            if folded is None:
                report.rejected.append(RejectedLine(number, raw.strip(), reason))
                continue
            word = folded
        if word in words:
            report.duplicates += 1
        else:
            words.add(word)
    ordered = sorted(words)
    report.by_length = dict(sorted(Counter(len(w) for w in ordered).items()))
    return ordered


def _identity_digest(ordered: list[str]) -> str:
    h = hashlib.sha256()
    if ordered:
        h.update(("\n".join(ordered) + "\n").encode("ascii"))
    return h.hexdigest()


class Lexicon:
    """A normalised word list: ``"MOT" in lex``, its identity, its DAWG.

    Membership goes through the DAWG in C when the extension is built (no per-word objects,
    so a cached list loads in a few milliseconds); otherwise through a ``frozenset`` built on
    first use. The sorted word list itself is also materialised only when iterated.
    """

    __slots__ = ("_blob", "_ordered", "_words", "_dawg", "_gaddag", "_attached", "identity",
                 "report")

    def __init__(
        self,
        ordered: list[str] | None,
        name: str,
        *,
        report: LoadReport | None = None,
        dawg: Dawg | None = None,
        digest: str | None = None,
        blob: bytes | None = None,
        word_count: int | None = None,
        gaddag: bytes | None = None,
    ) -> None:
        if ordered is None and (blob is None or word_count is None or digest is None):
            raise ValueError("a Lexicon needs its words, or their blob, count and digest")
        self._ordered = ordered
        self._blob = blob
        self._words: frozenset[str] | None = None
        self._dawg = dawg
        self._gaddag = gaddag
        self._attached = False
        count = len(ordered) if ordered is not None else word_count
        assert count is not None
        self.identity = LexiconIdentity(
            name, digest or _identity_digest(self._list()), count
        )
        self.report = report or LoadReport(source=name)

    # --- construction --------------------------------------------------------------------
    @classmethod
    def from_words(cls, words: Iterable[str], name: str = "custom") -> Lexicon:
        """A lexicon from words in memory, normalised like a file (rejects in ``report``)."""
        report = LoadReport(source=name)
        ordered = parse_word_list("\n".join(words), report)
        return cls(ordered, name, report=report)

    @classmethod
    def load(
        cls, path: str | os.PathLike[str], name: str | None = None, *, cache_dir: Path | None = None
    ) -> Lexicon:
        """Read a word list file, through the compiled cache when one is valid."""
        p = Path(path)
        try:
            data = p.read_bytes()
        except OSError as exc:
            raise LexiconError(f"Liste de mots {p} illisible : {exc.strerror or exc}.") from None
        label = name or _stem(p)
        source_sha = hashlib.sha256(data).hexdigest()
        directory = cache_dir if cache_dir is not None else default_cache_dir()
        cache_file = directory / f"{source_sha}-c{CACHE_FORMAT}d{DAWG_FORMAT}.lexc"
        cached = _read_cache(cache_file, label)
        if cached is not None:
            return cached
        text, encoding = decode_source(data, p.name)
        report = LoadReport(source=p.name, encoding=encoding)
        ordered = parse_word_list(text, report)
        if not ordered:
            raise LexiconError(f"Liste de mots {p} : aucun mot retenu.")
        dawg = Dawg.build(ordered)
        gaddag = _c_gaddag(dawg.edges) if _c_gaddag is not None else None
        lex = cls(ordered, label, report=report, dawg=dawg, gaddag=gaddag)
        lex._attached = gaddag is not None  # gaddag() remembered it for this DAWG
        _write_cache(cache_file, lex)
        return lex

    # --- use -----------------------------------------------------------------------------
    def __contains__(self, word: object) -> bool:
        if self._dawg is not None and _c_contains is not None:
            return _c_contains(self._dawg.edges, word)
        if self._words is None:
            self._words = frozenset(self._list())
        return word in self._words

    @property
    def membership_edges(self) -> array[int] | None:
        """The DAWG edges when ``in`` goes through them in C (the compiled core's own
        lookups then give the same answers, :func:`scoring.validate.quick_check`), else
        None."""
        if self._dawg is not None and _c_contains is not None:
            return self._dawg.edges
        return None

    def engine_edges(self) -> array[int]:
        """The DAWG as the raw move generators take it. The compiled core grows moves on
        the GADDAG it knows for that DAWG: the cached one is handed over here, once (else the
        core builds it on first use)."""
        dawg = self.dawg
        if not self._attached and self._gaddag is not None and _c_attach is not None:
            _c_attach(dawg.edges, self._gaddag)
            self._gaddag = None  # the core holds it now
        self._attached = True
        return dawg.edges

    def _list(self) -> list[str]:
        if self._ordered is None:
            blob = self._blob or b""
            self._ordered = blob.decode("ascii").split("\n") if blob else []
            self._blob = None
        return self._ordered

    def __len__(self) -> int:
        return self.identity.word_count

    def __iter__(self) -> Iterator[str]:
        """The words in alphabetical order."""
        return iter(self._list())

    @property
    def name(self) -> str:
        return self.identity.name

    @property
    def dawg(self) -> Dawg:
        """The compiled form (built on first use for in-memory lists)."""
        if self._dawg is None:
            self._dawg = Dawg.build(self._list())
        return self._dawg

    def __repr__(self) -> str:
        i = self.identity
        return f"<Lexicon {i.name} {i.word_count} mots sha256={i.sha256[:12]}>"


def _stem(p: Path) -> str:
    name = p.name
    for suffix in (".gz", ".xz"):
        name = name.removesuffix(suffix)
    return name.rsplit(".", 1)[0] if "." in name else name


def default_cache_dir() -> Path:
    env = os.environ.get(ENV_CACHE_DIR)
    return Path(env) if env else Path.home() / ".cache" / "arbitre"


def _read_cache(cache_file: Path, name: str) -> Lexicon | None:
    try:
        blob = cache_file.read_bytes()
    except OSError:
        return None
    try:
        if len(blob) < _HEADER.size:
            return None
        magic, fmt, dfmt, count, nwords, nedges, nreport, ngaddag, crc, ident, digest = (
            _HEADER.unpack_from(blob)
        )
        if magic != _MAGIC or fmt != CACHE_FORMAT or dfmt != DAWG_FORMAT:
            return None
        payload = memoryview(blob)[_HEADER.size :]
        end = nwords + 4 * nedges + nreport
        if len(payload) != end + ngaddag:
            return None
        if hashlib.sha256(payload[:end]).digest() != digest:
            return None
        gaddag = bytes(payload[end:]) if ngaddag else None
        if gaddag is not None and zlib.crc32(gaddag) != crc:
            return None
        blob = bytes(payload[:nwords])
        if not blob.isascii() or (nwords and blob.count(b"\n") + 1 != count):
            return None
        edges = array("I")
        edges.frombytes(payload[nwords : nwords + 4 * nedges])
        report = LoadReport.from_json(json.loads(bytes(payload[nwords + 4 * nedges : end])))
        return Lexicon(
            None, name, report=report, dawg=Dawg(edges), digest=ident.decode("ascii"),
            blob=blob, word_count=count, gaddag=gaddag,
        )
    except (ValueError, KeyError, TypeError, AssertionError, UnicodeDecodeError, struct.error):
        return None


def _write_cache(cache_file: Path, lex: Lexicon) -> None:
    """Best effort: a read-only home only costs a rebuild next time."""
    words = "\n".join(lex).encode("ascii")
    edges = lex.dawg.edges.tobytes()
    report = json.dumps(lex.report.to_json(), ensure_ascii=False).encode("utf-8")
    gaddag = lex._gaddag or b""
    payload = words + edges + report
    header = _HEADER.pack(
        _MAGIC,
        CACHE_FORMAT,
        DAWG_FORMAT,
        len(lex),
        len(words),
        len(edges) // 4,
        len(report),
        len(gaddag),
        zlib.crc32(gaddag),
        lex.identity.sha256.encode("ascii"),
        hashlib.sha256(payload).digest(),
    )
    try:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=cache_file.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(header)
                fh.write(payload)
                fh.write(gaddag)
            os.chmod(tmp, 0o644)
            os.replace(tmp, cache_file)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        return


def bundled_lexicon_path() -> Path:
    """The shipped French list (Dicollecte, MPL-2.0)."""
    return Path(str(resources.files("scoring").joinpath("data", "fr-comprehensive.txt.xz")))


@cache
def default_lexicon() -> Lexicon:
    """The list named by ``ARBITRE_LEXICON``, else the bundled French list; loaded once per
    process."""
    env = os.environ.get(ENV_LEXICON)
    if env:
        return Lexicon.load(env)
    return Lexicon.load(bundled_lexicon_path(), DEFAULT_NAME)
