"""Lexicon loading, normalisation, identity, the compiled DAWG and its on-disk cache."""

from __future__ import annotations

import gzip
import hashlib
import lzma
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import lexicon as lexicon_module
from scoring.dawg import LAST, Dawg
from scoring.errors import LexiconError
from scoring.lexicon import (
    DEFAULT_NAME,
    Lexicon,
    LexiconIdentity,
    RejectedLine,
    bundled_lexicon_path,
    default_lexicon,
)

# Counted with `awk '{print length($0)}' fr-comprehensive.txt | sort -n | uniq -c` on the
# Dicollecte source; its SHA-256 is the one published with the conformance data.
SOURCE_SHA256 = "ef5dbfc610b09ab08c26bacee9b7701900e8366f7b70d8be060f719ca712ad9d"
SOURCE_BY_LENGTH = {
    2: 86, 3: 546, 4: 2249, 5: 7105, 6: 16556, 7: 30467, 8: 46381, 9: 58742,
    10: 63447, 11: 59552, 12: 48659, 13: 35398, 14: 22995, 15: 13657,
}

SAMPLE = """# liste d'essai
été
Œuf
cæcum
mot   # commentaire en fin de ligne

porte-monnaie
A
anticonstitutionnellement
MOT
aujourd'hui
Noël
"""


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    d = tmp_path / "cache"
    monkeypatch.setenv("ARBITRE_CACHE_DIR", str(d))
    return d


def test_normalisation_and_rejected_lines(tmp_path: Path, cache_dir: Path) -> None:
    path = tmp_path / "essai.txt"
    path.write_text(SAMPLE, encoding="utf-8")
    lex = Lexicon.load(path)
    assert list(lex) == ["CAECUM", "ETE", "MOT", "NOEL", "OEUF"]
    assert "ETE" in lex and "OEUF" in lex and "CAECUM" in lex and "NOEL" in lex
    assert "été" not in lex and "OE" not in lex
    r = lex.report
    assert r.encoding == "utf-8"
    assert r.lines == 12
    assert r.comments == 1
    assert r.blank == 1
    assert r.duplicates == 1
    assert r.by_length == {3: 2, 4: 2, 6: 1}
    assert r.accepted == 5
    assert r.rejected == [
        RejectedLine(7, "porte-monnaie", "caractère non admis « - »"),
        RejectedLine(8, "A", "mot de 1 lettre (au moins 2)"),
        RejectedLine(9, "anticonstitutionnellement", "mot de 25 lettres (au plus 15)"),
        RejectedLine(11, "aujourd'hui", "caractère non admis « ' »"),
    ]
    assert str(r.rejected[0]) == "ligne 7 : « porte-monnaie » — caractère non admis « - »"
    assert "5 mots retenus" in r.summary()
    assert lex.identity == LexiconIdentity(
        "essai", hashlib.sha256(b"CAECUM\nETE\nMOT\nNOEL\nOEUF\n").hexdigest(), 5
    )


def test_encodings_and_compression_give_the_same_identity(tmp_path: Path, cache_dir: Path) -> None:
    text = "ÉTÉ\nmot\nœuf\nzèbre\n"
    latin = "ÉTÉ\nmot\noeuf\nzèbre\n".encode("latin-1")  # Latin-1 has no Œ
    files = {
        "u.txt": text.encode("utf-8"),
        "bom.txt": b"\xef\xbb\xbf" + text.encode("utf-8"),
        "l.txt": latin,
        "g.txt.gz": gzip.compress(text.encode("utf-8")),
        "x.txt.xz": lzma.compress(latin),
    }
    expected = hashlib.sha256(b"ETE\nMOT\nOEUF\nZEBRE\n").hexdigest()
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
        lex = Lexicon.load(tmp_path / name, "liste")
        assert lex.identity == LexiconIdentity("liste", expected, 4), name
        assert lex.report.encoding == ("latin-1" if name in ("l.txt", "x.txt.xz") else "utf-8")
    assert Lexicon.load(tmp_path / "g.txt.gz").identity.name == "g"
    (tmp_path / "dos.txt").write_bytes(text.replace("\n", "\r\n").encode("cp1252"))
    dos = Lexicon.load(tmp_path / "dos.txt", "liste")
    assert dos.identity == LexiconIdentity("liste", expected, 4)
    assert dos.report.encoding == "cp1252" and dos.report.rejected == []


def test_from_words_normalises_and_identity_is_order_free() -> None:
    a = Lexicon.from_words(["mot", "Été", "MOT", "x"], "a")
    b = Lexicon.from_words(["ETE", "MOT"], "a")
    assert a.identity == b.identity
    assert a.identity.word_count == 2
    assert a.report.rejected == [RejectedLine(4, "x", "mot de 1 lettre (au moins 2)")]
    assert "MOT" in a and "ETE" in a and "X" not in a and 42 not in a


def test_errors_are_french(tmp_path: Path, cache_dir: Path) -> None:
    with pytest.raises(LexiconError, match="illisible"):
        Lexicon.load(tmp_path / "absent.txt")
    (tmp_path / "vide.txt").write_text("# rien\n-\n", encoding="utf-8")
    with pytest.raises(LexiconError, match="aucun mot retenu"):
        Lexicon.load(tmp_path / "vide.txt")
    (tmp_path / "casse.xz").write_bytes(b"\xfd7zXZ\x00 pas vraiment du xz")
    with pytest.raises(LexiconError, match="compressé illisible"):
        Lexicon.load(tmp_path / "casse.xz")


def test_cache_is_written_atomically_reused_and_rebuilt_when_corrupt(
    tmp_path: Path, cache_dir: Path
) -> None:
    path = tmp_path / "l.txt"
    path.write_text("ZOO\nAA\nABAT\nABATS\n", encoding="utf-8")
    first = Lexicon.load(path)
    files = list(cache_dir.iterdir())
    assert len(files) == 1
    source_sha = hashlib.sha256(path.read_bytes()).hexdigest()
    assert files[0].name.startswith(source_sha)
    again = Lexicon.load(path)
    assert again.identity == first.identity
    assert again.report == first.report
    assert list(again.dawg.edges) == list(first.dawg.edges)
    # flip a byte of the payload: the checksum catches it and the list is rebuilt
    blob = bytearray(files[0].read_bytes())
    blob[-3] ^= 0xFF
    files[0].write_bytes(bytes(blob))
    rebuilt = Lexicon.load(path)
    assert list(rebuilt) == ["AA", "ABAT", "ABATS", "ZOO"]
    assert files[0].read_bytes() != bytes(blob)
    files[0].write_bytes(b"tronque")
    assert list(Lexicon.load(path)) == ["AA", "ABAT", "ABATS", "ZOO"]
    # a changed source is a different key: the old entry is not used
    path.write_text("ZOO\nAA\n", encoding="utf-8")
    assert list(Lexicon.load(path)) == ["AA", "ZOO"]
    assert len(list(cache_dir.iterdir())) == 2
    assert not [f for f in cache_dir.iterdir() if f.name.startswith(".tmp")]


def test_unwritable_cache_dir_still_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "fichier"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("ARBITRE_CACHE_DIR", str(blocker / "sous"))
    path = tmp_path / "l.txt"
    path.write_text("AA\nBB\n", encoding="utf-8")
    assert list(Lexicon.load(path)) == ["AA", "BB"]


def test_default_lexicon_counts_and_identity() -> None:
    lex = default_lexicon()
    assert default_lexicon() is lex
    assert lex.identity == LexiconIdentity(DEFAULT_NAME, SOURCE_SHA256, 405_840)
    assert lex.report.lines == 405_840
    assert lex.report.by_length == SOURCE_BY_LENGTH
    assert lex.report.rejected == []
    for word in ("MOT", "ZZZZ", "KWAS", "OEUF", "AB", "ZYTHUMS"):
        assert word in lex
    for word in ("MOTX", "AA", "Q", "", "mot"):
        assert word not in lex


def test_arbitre_lexicon_env_var(tmp_path: Path, cache_dir: Path,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "ods-essai.txt"
    path.write_text("ZA\nKA\n", encoding="utf-8")
    monkeypatch.setenv("ARBITRE_LEXICON", str(path))
    default_lexicon.cache_clear()
    try:
        lex = default_lexicon()
        assert lex.identity.name == "ods-essai"
        assert list(lex) == ["KA", "ZA"]
    finally:
        default_lexicon.cache_clear()


def test_dawg_enumerates_the_default_list_and_is_minimal() -> None:
    lex = default_lexicon()
    assert list(lex.dawg.words()) == list(lex)
    # minimal: no two nodes (runs of edges with their flags and children) are equal
    edges = lex.dawg.edges
    runs: list[tuple[int, ...]] = []
    start = 1
    for i in range(1, len(edges)):
        if edges[i] & LAST:
            runs.append(tuple(edges[start : i + 1]))
            start = i + 1
    assert start == len(edges)
    assert len(set(runs)) == len(runs)


def test_dawg_small() -> None:
    words = ["AA", "AB", "ABA", "BA", "BAA"]
    d = Dawg.build(words)
    assert list(d.words()) == words
    # pseudo-edge; root {A, B}; after A {A*, B*}; after B {A*}; after AB and after BA the
    # same node {A*} is shared (suffix merging)
    assert len(d) == 1 + 2 + 2 + 1 + 1
    with pytest.raises(ValueError):
        Dawg.build(["BA", "AA"])


@cache
def _word_set() -> frozenset[str]:
    return frozenset(default_lexicon())


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ABEILMNORSTUZ", min_size=0, max_size=9))
def test_membership_agrees_with_the_plain_set(word: str) -> None:
    lex = default_lexicon()
    expected = word in _word_set()
    assert (word in lex) == expected
    assert (word in lex.dawg) == expected


def test_membership_without_the_c_extension(monkeypatch: pytest.MonkeyPatch) -> None:
    lex = Lexicon.load(bundled_lexicon_path(), "sans-c")
    monkeypatch.setattr(lexicon_module, "_c_contains", None)
    sample = list(_word_set())[::997]
    assert all(w in lex for w in sample)
    assert not any(w + "Q" in lex for w in sample if w + "Q" not in _word_set())
    assert "mot" not in lex and 3 not in lex and "" not in lex


def test_membership_odd_inputs() -> None:
    lex = default_lexicon()
    for odd in ("", "mot", "MOT ", "MÔT", "M-T", None, 12, b"MOT"):
        assert odd not in lex


def test_the_cached_gaddag_generates_the_moves_of_the_reference(
    tmp_path: Path, cache_dir: Path
) -> None:
    # built with the cache, read back from it, handed to the core: the same placements as
    # the pure-Python reference over the DAWG
    from scoring import _movegen
    from scoring.board import Board
    from scoring.config import GameConfig
    from scoring.movegen import generate, py_generate

    path = tmp_path / "l.txt"
    path.write_text("ARBITRE\nBITE\nRITE\nTIRE\nTRIBE\nARBRE\nBAR\nTRI\nRE\nTE\n",
                    encoding="utf-8")
    Lexicon.load(path)
    cached = Lexicon.load(path)
    assert cached._gaddag is not None and len(cached._gaddag) % 4 == 0
    config = GameConfig.default("fr")
    board = Board.from_cgp("15/15/15/15/15/15/15/5BITE6/15/15/15/15/15/15/15")
    moves = sorted(m.notation for m in generate(board, "AERRTI?", config, lexicon=cached))
    reference = sorted(m.notation for m in generate(board, "AERRTI?", config, lexicon=cached,
                                                    engine=py_generate))
    assert moves == reference and len(moves) > 50
    with pytest.raises(ValueError):
        _movegen.attach(cached.dawg.edges, b"\x00" * 8)  # not a GADDAG: refused
